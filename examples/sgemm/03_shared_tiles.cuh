/* sgemm/03_shared_tiles.cuh - step 3 of the SGEMM ladder: shared-memory tiles.

   This version keeps step 2's coalesced mapping (x along a row of C, one
   thread per element) and stops fetching every operand from global memory
   once per thread. The block's 16 × 16 threads walk along K one 16-wide
   slice at a time: together they copy a 16 × 16 tile of A and one of B into
   shared memory, one element each, then every thread does 16 multiply-adds
   from shared memory. Each element brought in from global memory now serves
   16 threads: 16 times less global traffic, and shared memory answers in
   about 30 cycles where a global load that misses the L1 takes hundreds.
   The price is two barriers per tile. What is left: each multiply-add still
   needs two shared-memory loads (s_A[ty][k] and s_B[k][tx]), so the load
   pipeline, not the FMA units, sets the pace.
   This is the kernel of the CUDA Programming Guide ("Shared Memory") and the
   CUDA sample matrixMul.
   Grid (ceil(N/16), ceil(M/16)), block (16, 16), static shared memory 2 KiB
   (two 16 × 16 float tiles). Any M, N, K: tile elements outside A or B load
   as zero, which adds nothing, and threads outside C write nothing.
   ptxas (sm_90, CUDA 13.0): 32 registers, 2 KiB shared memory, no spills;
   eight 256-thread blocks fill an SM. */
#ifndef SGEMM_03_SHARED_TILES_CUH
#define SGEMM_03_SHARED_TILES_CUH

#include "common.cuh"

#define SGEMM3_TILE 16

static __global__ void sgemm3_shared_tiles(const float *__restrict__ g_A, const float *__restrict__ g_B,
                                           float *__restrict__ g_C, size_t M, size_t N, size_t K)
{
    __shared__ float s_A[SGEMM3_TILE][SGEMM3_TILE];
    __shared__ float s_B[SGEMM3_TILE][SGEMM3_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t row = (size_t)blockIdx.y * SGEMM3_TILE + ty; /* this thread's row of C and A */
    const size_t col = (size_t)blockIdx.x * SGEMM3_TILE + tx; /* this thread's column of C and B */
    float acc = 0.0f;

    for (size_t k0 = 0; k0 < K; k0 += SGEMM3_TILE) {
        /* Thread (ty, tx) copies A[row][k0 + tx] and B[k0 + ty][col]: along a
           warp tx varies fastest, so both loads read consecutive addresses. */
        s_A[ty][tx] = row < M && k0 + tx < K ? g_A[row * K + k0 + tx] : 0.0f;
        s_B[ty][tx] = k0 + ty < K && col < N ? g_B[(k0 + ty) * N + col] : 0.0f;
        /* Every element of both tiles must be stored before any thread reads
           the ones its neighbours copied. */
        __syncthreads();
        /* s_A[ty][k] is one word for all lanes of a row (a broadcast);
           s_B[k][tx] is 16 consecutive words: no bank conflicts. */
#pragma unroll
        for (int k = 0; k < SGEMM3_TILE; ++k)
            acc += s_A[ty][k] * s_B[k][tx];
        /* Every thread must be done reading these tiles before the next
           iteration overwrites them. */
        __syncthreads();
    }
    if (row < M && col < N)
        g_C[row * N + col] = acc;
}

/* sgemm_step3: as sgemm_step1 (any M, N, K; same errors), with the 16 × 16
   shared-memory kernel; M ≤ 65535 · 16 (the grid's y limit). From: the CUDA
   Programming Guide's shared-memory matrix multiply; Boehm's kernel 3. */
static inline cudaError_t sgemm_step3(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    const dim3 block(SGEMM3_TILE, SGEMM3_TILE);
    dim3 grid;
    cudaError_t err = sgemm_check_args("sgemm_step3", d_A, d_B, d_C, M, N, K, 1, 1, 1);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    if ((err = gpuh_grid_2d(&grid, N, M, block)) != cudaSuccess)
        return err;
    return GPUH_LAUNCH(sgemm3_shared_tiles, grid, block, 0, stream, d_A, d_B, d_C, M, N, K);
}

#endif /* SGEMM_03_SHARED_TILES_CUH */
