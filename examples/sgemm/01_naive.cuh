/* sgemm/01_naive.cuh - step 1 of the SGEMM ladder: the tutorials' kernel.

   This version is the starting point, as most tutorials first write it: one
   thread per element of C, threadIdx.x running down the rows of C. Thread
   (row, col) computes C[row][col] = sum over k of A[row][k] · B[k][col],
   reading both operands from global memory for every multiply-add.
   Why it is slow: a warp is 32 threads with consecutive threadIdx.x, and
   here they hold 32 consecutive ROWS of one column. At each k the warp
   reads A[row][k] for 32 rows, K floats apart: 32 separate 32-byte sectors
   for 128 useful bytes (uncoalesced); it reads the same B[k][col] in every
   lane (a broadcast, one sector); and each lane finally writes C 4N bytes
   from its neighbour. Every operand is fetched again by every thread that
   needs it: 2 loads for each multiply-add, no reuse except what the L1 and L2
   caches happen to catch.
   Grid (ceil(M/32), ceil(N/32)), block (32, 32), no shared memory; any M, N,
   K (threads outside C return). 64-bit indices.
   ptxas (sm_90, CUDA 13.0): 32 registers, no spills; two 1024-thread blocks
   fill an SM. */
#ifndef SGEMM_01_NAIVE_CUH
#define SGEMM_01_NAIVE_CUH

#include "common.cuh"

static __global__ void sgemm1_naive(const float *__restrict__ g_A, const float *__restrict__ g_B,
                                    float *__restrict__ g_C, size_t M, size_t N, size_t K)
{
    const size_t row = (size_t)blockIdx.x * blockDim.x + threadIdx.x; /* x runs down the rows */
    const size_t col = (size_t)blockIdx.y * blockDim.y + threadIdx.y;
    if (row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (size_t k = 0; k < K; ++k)
        acc += g_A[row * K + k] * g_B[k * N + col];
    g_C[row * N + col] = acc;
}

/* sgemm_step1: C = A · B (row-major, A M × K, B K × N, C M × N, sizes in
   elements) with the naive kernel, on `stream`. Any M, N, K; M or N = 0 does
   nothing, K = 0 writes zeros. Errors: sgemm_check_args's;
   cudaErrorInvalidConfiguration when N > 65535 · 32 (the grid's y limit);
   launch errors. From: every CUDA matmul tutorial's first kernel; Simon
   Boehm's SGEMM worklog, kernel 1. */
static inline cudaError_t sgemm_step1(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    const dim3 block(32, 32);
    dim3 grid;
    cudaError_t err = sgemm_check_args("sgemm_step1", d_A, d_B, d_C, M, N, K, 1, 1, 1);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    if ((err = gpuh_grid_2d(&grid, M, N, block)) != cudaSuccess) /* x over rows, y over columns */
        return err;
    return GPUH_LAUNCH(sgemm1_naive, grid, block, 0, stream, d_A, d_B, d_C, M, N, K);
}

#endif /* SGEMM_01_NAIVE_CUH */
