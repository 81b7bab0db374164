/* sgemm/02_coalesced.cuh - step 2 of the SGEMM ladder: coalesced accesses.

   This version swaps the roles of x and y: threadIdx.x now runs along a ROW
   of C, so the 32 lanes of a warp hold 32 consecutive columns of one row. The
   arithmetic is unchanged; what changes is which addresses a warp asks for
   together. At each k the warp now reads B[k][col .. col+31], 128 contiguous
   bytes: four sectors, every byte used (coalesced), where step 1 needed 32
   sectors for A alone. A[row][k] is now the same word for the whole warp (a
   broadcast), and the final stores to C are 128 contiguous bytes too. The
   memory system delivers far more useful bytes per request, but each thread
   still loads 2 floats per multiply-add: the kernel stays bound by
   load instructions and cache bandwidth, not by arithmetic.
   Grid (ceil(N/32), ceil(M/32)), block (32, 32), no shared memory; any M, N, K.
   ptxas (sm_90, CUDA 13.0): 32 registers, no spills; two 1024-thread blocks
   fill an SM. */
#ifndef SGEMM_02_COALESCED_CUH
#define SGEMM_02_COALESCED_CUH

#include "common.cuh"

static __global__ void sgemm2_coalesced(const float *__restrict__ g_A, const float *__restrict__ g_B,
                                        float *__restrict__ g_C, size_t M, size_t N, size_t K)
{
    const size_t row = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    const size_t col = (size_t)blockIdx.x * blockDim.x + threadIdx.x; /* x runs along a row */
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (size_t k = 0; k < K; ++k)
        acc += g_A[row * K + k] * g_B[k * N + col];
    g_C[row * N + col] = acc;
}

/* sgemm_step2: as sgemm_step1 (any M, N, K; same errors), with the coalesced
   kernel; the grid's y limit now bounds M (M ≤ 65535 · 32). From: Boehm's
   worklog, kernel 2 (global memory coalescing). */
static inline cudaError_t sgemm_step2(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    const dim3 block(32, 32);
    dim3 grid;
    cudaError_t err = sgemm_check_args("sgemm_step2", d_A, d_B, d_C, M, N, K, 1, 1, 1);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    if ((err = gpuh_grid_2d(&grid, N, M, block)) != cudaSuccess) /* x over columns, y over rows */
        return err;
    return GPUH_LAUNCH(sgemm2_coalesced, grid, block, 0, stream, d_A, d_B, d_C, M, N, K);
}

#endif /* SGEMM_02_COALESCED_CUH */
