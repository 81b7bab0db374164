/* sgemm/06_vectorized.cuh - step 6 of the SGEMM ladder: 16-byte loads, A transposed.

   This version keeps step 5's tiles (128 × 128 per block, 8 × 8 per thread,
   K slices of 8) and moves data four floats at a time. Global memory: each
   thread fetches one float4 of A and one of B per slice (one 16-byte load
   instruction each, where step 5 issued four 4-byte loads of each). Shared
   memory: the A tile is stored TRANSPOSED, s_At[k][m] = A[m][k], so that the
   8 values of A a thread needs at one k, column k of its rows, are
   consecutive words: two float4 loads, like its 8 values of B. Per k a thread
   now issues 4 shared loads for 64 multiply-adds instead of 16, and step 5's
   4-way conflict on B becomes 2-way: the 16 different float4 that a warp reads
   from s_B sit 32 bytes apart, so they use only half of the 32 banks and take
   twice the passes that 16 float4 need at best. The transposing stores
   collide too (2-way; lanes 2i and 2i+1 write the same bank), but they are 4
   per thread per slice against 512 multiply-adds. Step 7 removes the
   conflicts on the reads.
   Block: 256 threads; thread t owns rows 8 · (t / 16) ... + 7 and columns
   8 · (t % 16) ... + 7 of the block's tile, and writes them back with float4
   stores. Grid: (N/128, M/128). Static shared memory: 8 KiB. Needs M and N
   multiples of 128, K of 8, and 16-byte aligned matrices.
   ptxas (sm_90, CUDA 13.0): 125 registers, 8 KiB shared memory, no spills;
   2 blocks (16 warps) per SM. */
#ifndef SGEMM_06_VECTORIZED_CUH
#define SGEMM_06_VECTORIZED_CUH

#include "common.cuh"

/* The tiles of steps 6, 7 and 8. */
#define SGEMM6_BM 128 /* rows of C per block */
#define SGEMM6_BN 128 /* columns of C per block */
#define SGEMM6_BK 8   /* width of the K slice in shared memory */
#define SGEMM6_THREADS 256

/* Global -> registers: thread t reads A[t/2][k0 + 4·(t%2) ...+3] (two lanes
   cover one 32-byte row segment of the A tile) and B[k0 + t/32][4·(t%32) ...+3]
   (a warp reads one 512-byte row of the B tile). g_A and g_B point at the
   block's first row of A and first column of B. Steps 6 to 8. */
static __device__ __forceinline__ void sgemm6_fetch(const float *__restrict__ g_A, const float *__restrict__ g_B,
                                                    size_t N, size_t K, size_t k0, unsigned tid, float4 &a,
                                                    float4 &b)
{
    a = *(const float4 *)&g_A[tid / 2 * K + k0 + tid % 2 * 4];
    b = *(const float4 *)&g_B[(k0 + tid / 32) * N + tid % 32 * 4];
}

/* Registers -> shared: A's four values go down a column of s_At (the
   transpose), B's float4 goes in as it came. Steps 6 to 8. */
static __device__ __forceinline__ void sgemm6_stash(float4 a, float4 b, float (*s_At)[SGEMM6_BM],
                                                    float (*s_B)[SGEMM6_BN], unsigned tid)
{
    const unsigned m = tid / 2, k = tid % 2 * 4;
    s_At[k + 0][m] = a.x;
    s_At[k + 1][m] = a.y;
    s_At[k + 2][m] = a.z;
    s_At[k + 3][m] = a.w;
    *(float4 *)&s_B[tid / 32][tid % 32 * 4] = b;
}

/* One K slice of the thread's 8 × 8 outer products: its rows are
   row0 + {0..3} and row0 + row_gap + {0..3}, its columns col0 + {0..3} and
   col0 + col_gap + {0..3}; acc[i][j] is row i, column j of those lists. Per
   k: two float4 of s_At, two of s_B, 64 FMAs. Step 6 passes gaps of 4 (an
   8 × 8 square); step 7 spreads the same 64 elements further apart. */
static __device__ __forceinline__ void sgemm6_multiply_slice(const float (*s_At)[SGEMM6_BM],
                                                             const float (*s_B)[SGEMM6_BN], unsigned row0,
                                                             unsigned row_gap, unsigned col0, unsigned col_gap,
                                                             float acc[8][8])
{
#pragma unroll
    for (int k = 0; k < SGEMM6_BK; ++k) {
        const float4 a0 = *(const float4 *)&s_At[k][row0], a1 = *(const float4 *)&s_At[k][row0 + row_gap];
        const float4 b0 = *(const float4 *)&s_B[k][col0], b1 = *(const float4 *)&s_B[k][col0 + col_gap];
        const float a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
        const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
                acc[i][j] += a[i] * b[j];
    }
}

/* Registers -> C with 16-byte stores, in the layout of sgemm6_multiply_slice.
   g_C points at the block's tile. __stwb is an ordinary store (write-back,
   the default caching) that stays one 16-byte instruction: written as
   `*(float4 *)p = v`, CUDA 13.0 splits some of these stores into four 4-byte
   ones. Steps 6 to 8. */
static __device__ __forceinline__ void sgemm6_write(float *__restrict__ g_C, size_t N, unsigned row0,
                                                    unsigned row_gap, unsigned col0, unsigned col_gap,
                                                    const float acc[8][8])
{
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        float *g_row = g_C + (row0 + i % 4 + i / 4 * row_gap) * N;
        __stwb((float4 *)&g_row[col0], make_float4(acc[i][0], acc[i][1], acc[i][2], acc[i][3]));
        __stwb((float4 *)&g_row[col0 + col_gap], make_float4(acc[i][4], acc[i][5], acc[i][6], acc[i][7]));
    }
}

static __global__ void __launch_bounds__(SGEMM6_THREADS)
    sgemm6_vectorized(const float *__restrict__ g_A, const float *__restrict__ g_B, float *__restrict__ g_C,
                      size_t N, size_t K)
{
    __shared__ __align__(16) float s_At[SGEMM6_BK][SGEMM6_BM]; /* s_At[k][m] = A[m][k] */
    __shared__ __align__(16) float s_B[SGEMM6_BK][SGEMM6_BN];
    const unsigned tid = threadIdx.x;
    const unsigned row0 = tid / 16 * 8, col0 = tid % 16 * 8; /* the corner of its 8 × 8 square */
    g_A += (size_t)blockIdx.y * SGEMM6_BM * K;
    g_B += (size_t)blockIdx.x * SGEMM6_BN;
    float acc[8][8] = {{0.0f}};
    float4 a, b;

    for (size_t k0 = 0; k0 < K; k0 += SGEMM6_BK) {
        sgemm6_fetch(g_A, g_B, N, K, k0, tid, a, b);
        sgemm6_stash(a, b, s_At, s_B, tid);
        /* Both tiles must be complete before any thread reads them. */
        __syncthreads();
        sgemm6_multiply_slice(s_At, s_B, row0, 4, col0, 4, acc);
        /* Every thread must be done with these tiles before they are overwritten. */
        __syncthreads();
    }
    sgemm6_write(g_C + (size_t)blockIdx.y * SGEMM6_BM * N + (size_t)blockIdx.x * SGEMM6_BN, N, row0, 4, col0, 4,
                 acc);
}

/* sgemm_step6: C = A · B (row-major, A M × K, B K × N, C M × N, sizes in
   elements) with 16-byte loads and a transposed A tile, on `stream`. A
   teaching kernel: M and N must be multiples of 128, K of 8, and the three
   matrices 16-byte aligned (else cudaErrorInvalidValue); M or N = 0 does
   nothing, K = 0 writes zeros. Errors: sgemm_tile_grid's (common.cuh);
   launch errors. From: Boehm's worklog, kernel 6 (vectorised memory access). */
static inline cudaError_t sgemm_step6(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    dim3 grid;
    const cudaError_t err =
        sgemm_tile_grid("sgemm_step6", d_A, d_B, d_C, M, N, K, SGEMM6_BM, SGEMM6_BN, SGEMM6_BK, 1, &grid);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    return GPUH_LAUNCH(sgemm6_vectorized, grid, SGEMM6_THREADS, 0, stream, d_A, d_B, d_C, N, K);
}

#endif /* SGEMM_06_VECTORIZED_CUH */
