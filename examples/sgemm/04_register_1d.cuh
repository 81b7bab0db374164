/* sgemm/04_register_1d.cuh - step 4 of the SGEMM ladder: 1-D register blocking.

   This version makes each thread compute TM = 8 elements of C, one above the
   other in a column, instead of one. Why that pays: in step 3 every
   multiply-add needed two shared-memory loads. Here, at each k, a thread loads
   one value of B (its column) into a register and uses it for 8
   multiply-adds, one per row; the 8 A values it needs are the same for the
   whole warp (all 32 lanes share their rows), so each is one broadcast load.
   Nine shared loads for 8 multiply-adds instead of 16, and 8 of them are
   broadcasts, which serve the whole warp in one pass.
   The block's tile of C also grows, 64 × 64 from 16 × 16, and with it the
   reuse of global memory: each float brought into shared memory now feeds
   32 multiply-adds (64 · 64 · 8 per 64 · 8 + 8 · 64 loaded) instead of 8.
   More independent accumulators per thread also give the scheduler several
   FMAs in flight at once (instruction-level parallelism).
   Block: 512 threads, 1-D; thread t owns column t % 64 and rows
   8 · (t / 64) ... + 7 of the block's 64 × 64 tile of C. Grid: (N/64, M/64),
   one block per tile. Static shared memory: 4 KiB (a 64 × 8 tile of A and an
   8 × 64 tile of B). Needs M and N multiples of 64 and K of 8.
   ptxas (sm_90, CUDA 13.0): 49 registers, 4 KiB shared memory, no spills;
   registers allow 2 blocks (1024 threads) per SM. */
#ifndef SGEMM_04_REGISTER_1D_CUH
#define SGEMM_04_REGISTER_1D_CUH

#include "common.cuh"

#define SGEMM4_BM 64 /* rows of C per block */
#define SGEMM4_BN 64 /* columns of C per block */
#define SGEMM4_BK 8  /* width of the K slice staged in shared memory */
#define SGEMM4_TM 8  /* rows of C per thread */
#define SGEMM4_THREADS (SGEMM4_BM * SGEMM4_BN / SGEMM4_TM)

static __global__ void __launch_bounds__(SGEMM4_THREADS)
    sgemm4_register_1d(const float *__restrict__ g_A, const float *__restrict__ g_B, float *__restrict__ g_C,
                       size_t N, size_t K)
{
    __shared__ float s_A[SGEMM4_BM][SGEMM4_BK];
    __shared__ float s_B[SGEMM4_BK][SGEMM4_BN];
    const unsigned tid = threadIdx.x;
    const unsigned col = tid % SGEMM4_BN;             /* this thread's column of the tile */
    const unsigned row0 = tid / SGEMM4_BN * SGEMM4_TM; /* the first of its TM rows */
    /* Which element of each tile this thread copies: the 512 threads cover
       the 64 × 8 A tile (4 rows of 32 bytes per warp) and the 8 × 64 B tile
       (128 contiguous bytes per warp) with one element each. */
    const unsigned a_row = tid / SGEMM4_BK, a_col = tid % SGEMM4_BK;
    const unsigned b_row = tid / SGEMM4_BN, b_col = tid % SGEMM4_BN;
    g_A += (size_t)blockIdx.y * SGEMM4_BM * K; /* the block's first row of A */
    g_B += (size_t)blockIdx.x * SGEMM4_BN;     /* the block's first column of B */
    float acc[SGEMM4_TM] = {0.0f};

    for (size_t k0 = 0; k0 < K; k0 += SGEMM4_BK) {
        s_A[a_row][a_col] = g_A[a_row * K + k0 + a_col];
        s_B[b_row][b_col] = g_B[(k0 + b_row) * N + b_col];
        /* Both tiles must be complete before any thread reads them. */
        __syncthreads();
#pragma unroll
        for (int k = 0; k < SGEMM4_BK; ++k) {
            const float b = s_B[k][col]; /* 32 consecutive words per warp: no bank conflict */
#pragma unroll
            for (int i = 0; i < SGEMM4_TM; ++i)
                acc[i] += s_A[row0 + i][k] * b; /* one word for the whole warp: a broadcast */
        }
        /* Every thread must be done with these tiles before they are overwritten. */
        __syncthreads();
    }
    g_C += (size_t)blockIdx.y * SGEMM4_BM * N + (size_t)blockIdx.x * SGEMM4_BN;
#pragma unroll
    for (int i = 0; i < SGEMM4_TM; ++i)
        g_C[(row0 + i) * N + col] = acc[i];
}

/* sgemm_step4: C = A · B (row-major, A M × K, B K × N, C M × N, sizes in
   elements) with 1-D register blocking, on `stream`. A teaching kernel: M and
   N must be multiples of 64 and K of 8 (else cudaErrorInvalidValue); M or
   N = 0 does nothing, K = 0 writes zeros. Errors: sgemm_tile_grid's
   (common.cuh); launch errors.
   From: Boehm's worklog, kernel 4 (1D blocktiling). */
static inline cudaError_t sgemm_step4(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    dim3 grid;
    const cudaError_t err =
        sgemm_tile_grid("sgemm_step4", d_A, d_B, d_C, M, N, K, SGEMM4_BM, SGEMM4_BN, SGEMM4_BK, 0, &grid);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    return GPUH_LAUNCH(sgemm4_register_1d, grid, SGEMM4_THREADS, 0, stream, d_A, d_B, d_C, N, K);
}

#endif /* SGEMM_04_REGISTER_1D_CUH */
