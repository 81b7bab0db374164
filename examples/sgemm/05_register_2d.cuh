/* sgemm/05_register_2d.cuh - step 5 of the SGEMM ladder: 2-D register blocking.

   This version gives each thread an 8 × 8 block of C (TM × TN) instead of a
   column of 8. At each k the thread loads 8 values of A (its rows) and 8 of
   B (its columns) into registers and multiplies every pair: 64 multiply-adds
   for 16 shared-memory loads, an outer product, where step 4 needed about
   one load per multiply-add. Arithmetic per loaded byte (arithmetic
   intensity) now grows with the square of the thread's tile.
   The block's tile grows to 128 × 128, so each float staged in shared
   memory feeds 64 multiply-adds (128 · 128 · 8 per 2 · 128 · 8 loaded), twice
   step 4's 32. 64 independent accumulators keep the FMA pipes busy while
   loads are outstanding.
   What is left: bank conflicts. Shared memory has 32 banks of 4-byte words,
   word w in bank w % 32, one word per bank per cycle. The lanes of a warp
   read s_B[k][8·tx + j] for 16 different tx: their words are 8 apart, so
   they fall into only 4 banks, 4 different words per bank (a 4-way
   conflict: 4 passes); s_A[8·ty + i][k] for two ty is 64 words apart, the
   same bank twice (2-way). Step 6 fixes both.
   Block: 256 threads; thread t owns rows 8 · (t / 16) ... + 7 and columns
   8 · (t % 16) ... + 7 of the block's 128 × 128 tile. Grid: (N/128, M/128).
   Static shared memory: 8 KiB (a 128 × 8 tile of A, an 8 × 128 tile of B).
   Needs M and N multiples of 128 and K of 8.
   ptxas (sm_90, CUDA 13.0): 128 registers (64 of them accumulators), 8 KiB
   shared memory, no spills; registers allow 2 blocks (16 warps) per SM. */
#ifndef SGEMM_05_REGISTER_2D_CUH
#define SGEMM_05_REGISTER_2D_CUH

#include "common.cuh"

#define SGEMM5_BM 128 /* rows of C per block */
#define SGEMM5_BN 128 /* columns of C per block */
#define SGEMM5_BK 8   /* width of the K slice in shared memory */
#define SGEMM5_TM 8   /* rows of C per thread */
#define SGEMM5_TN 8   /* columns of C per thread */
#define SGEMM5_THREADS (SGEMM5_BM / SGEMM5_TM * (SGEMM5_BN / SGEMM5_TN))

static __global__ void __launch_bounds__(SGEMM5_THREADS)
    sgemm5_register_2d(const float *__restrict__ g_A, const float *__restrict__ g_B, float *__restrict__ g_C,
                       size_t N, size_t K)
{
    __shared__ float s_A[SGEMM5_BM][SGEMM5_BK];
    __shared__ float s_B[SGEMM5_BK][SGEMM5_BN];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = tid / (SGEMM5_BN / SGEMM5_TN) * SGEMM5_TM; /* first row of its 8 × 8 */
    const unsigned col0 = tid % (SGEMM5_BN / SGEMM5_TN) * SGEMM5_TN; /* first column */
    g_A += (size_t)blockIdx.y * SGEMM5_BM * K;
    g_B += (size_t)blockIdx.x * SGEMM5_BN;
    const unsigned a_row = tid / SGEMM5_BK, a_col = tid % SGEMM5_BK;
    const unsigned b_row = tid / SGEMM5_BN, b_col = tid % SGEMM5_BN;
    float acc[SGEMM5_TM][SGEMM5_TN] = {{0.0f}};
    float a[SGEMM5_TM], b[SGEMM5_TN];

    for (size_t k0 = 0; k0 < K; k0 += SGEMM5_BK) {
        /* Each tile holds 1024 floats: 4 per thread. Thread t copies A tile
           elements (t / 8 + 32 r, t % 8), r = 0..3 (a warp copies 4 rows of
           32 bytes), and B tile elements (t / 128 + 2 r, t % 128) (a warp
           copies 128 contiguous bytes). */
#pragma unroll
        for (unsigned r = 0; r < 4; ++r) {
            s_A[a_row + 32 * r][a_col] = g_A[(a_row + 32 * r) * K + a_col];
            s_B[b_row + 2 * r][b_col] = g_B[(b_row + 2 * r) * N + b_col];
        }
        /* Both tiles must be complete before any thread reads them. */
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SGEMM5_BK; ++k) {
#pragma unroll
            for (int i = 0; i < SGEMM5_TM; ++i)
                a[i] = s_A[row0 + i][k];
#pragma unroll
            for (int j = 0; j < SGEMM5_TN; ++j)
                b[j] = s_B[k][col0 + j];
#pragma unroll
            for (int i = 0; i < SGEMM5_TM; ++i)
#pragma unroll
                for (int j = 0; j < SGEMM5_TN; ++j)
                    acc[i][j] += a[i] * b[j];
        }
        /* Every thread must be done with these tiles before they are overwritten. */
        __syncthreads();
        g_A += SGEMM5_BK; /* on to the next K slice */
        g_B += SGEMM5_BK * N;
    }
    g_C += (size_t)blockIdx.y * SGEMM5_BM * N + (size_t)blockIdx.x * SGEMM5_BN;
#pragma unroll
    for (int i = 0; i < SGEMM5_TM; ++i)
#pragma unroll
        for (int j = 0; j < SGEMM5_TN; ++j)
            g_C[(row0 + i) * N + col0 + j] = acc[i][j];
}

/* sgemm_step5: C = A · B (row-major, A M × K, B K × N, C M × N, sizes in
   elements) with 2-D register blocking, on `stream`. A teaching kernel: M and
   N must be multiples of 128 and K of 8 (else cudaErrorInvalidValue); M or
   N = 0 does nothing, K = 0 writes zeros. Errors: sgemm_tile_grid's
   (common.cuh); launch errors.
   From: Boehm's worklog, kernel 5 (2D blocktiling). */
static inline cudaError_t sgemm_step5(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    dim3 grid;
    const cudaError_t err =
        sgemm_tile_grid("sgemm_step5", d_A, d_B, d_C, M, N, K, SGEMM5_BM, SGEMM5_BN, SGEMM5_BK, 0, &grid);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    return GPUH_LAUNCH(sgemm5_register_2d, grid, SGEMM5_THREADS, 0, stream, d_A, d_B, d_C, N, K);
}

#endif /* SGEMM_05_REGISTER_2D_CUH */
