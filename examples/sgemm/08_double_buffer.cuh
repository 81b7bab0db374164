/* sgemm/08_double_buffer.cuh - step 8 of the SGEMM ladder: double-buffered shared memory.

   This version keeps step 7 (tiles, warp tiling, the same helpers) and
   overlaps the global loads of the next K slice with the arithmetic on the
   current one. In steps 3 to 7 every slice goes: load from global memory,
   wait at a barrier, compute, wait at a barrier. A global load takes hundreds
   of cycles; while a block waits for it its warps have nothing to issue, and
   only the other resident block can fill the gap (registers limit an SM to
   two blocks, 16 warps, in steps 5 to 8). Now there are two copies of each shared tile.
   While the block multiplies slice s out of buffer s % 2, each thread has
   already issued its loads of slice s + 1 into registers (sgemm6_fetch): they
   are in flight during the 512 FMAs that follow, and only afterwards are
   they written into the other buffer (sgemm6_stash). One barrier per slice
   instead of two, and the memory latency hides behind arithmetic
   (software pipelining).
   Why registers and not cp.async: Ampere and Hopper can copy global memory
   straight into shared memory (cp.async, and TMA on Hopper), but a copy moves
   bytes as they are and A is transposed on its way in; staging in registers
   also runs on every GPU the build targets (PTX for sm_75 included).
   Block: 256 threads. Grid: (N/128, M/128). Static shared memory: 16 KiB (two
   buffers of step 7's 8 KiB). Needs M and N multiples of 128, K of 8,
   16-byte aligned matrices.
   ptxas (sm_90, CUDA 13.0): 117 registers, 16 KiB shared memory, no spills;
   2 blocks (16 warps) per SM. */
#ifndef SGEMM_08_DOUBLE_BUFFER_CUH
#define SGEMM_08_DOUBLE_BUFFER_CUH

#include "07_warp_tiles.cuh"

static __global__ void __launch_bounds__(SGEMM6_THREADS)
    sgemm8_double_buffer(const float *__restrict__ g_A, const float *__restrict__ g_B, float *__restrict__ g_C,
                         size_t N, size_t K)
{
    __shared__ __align__(16) float s_At[2][SGEMM6_BK][SGEMM6_BM]; /* s_At[buf][k][m] = A[m][k0 + k] */
    __shared__ __align__(16) float s_B[2][SGEMM6_BK][SGEMM6_BN];
    const unsigned tid = threadIdx.x;
    unsigned row0, col0;
    sgemm7_origin(tid, row0, col0);
    g_A += (size_t)blockIdx.y * SGEMM6_BM * K;
    g_B += (size_t)blockIdx.x * SGEMM6_BN;
    float acc[8][8] = {{0.0f}};
    float4 a, b;

    if (K > 0) { /* the prologue: slice 0 into buffer 0 */
        sgemm6_fetch(g_A, g_B, N, K, 0, tid, a, b);
        sgemm6_stash(a, b, s_At[0], s_B[0], tid);
    }
    /* Slice 0 must be complete before any thread reads it. */
    __syncthreads();
    for (size_t k0 = 0; k0 < K; k0 += SGEMM6_BK) {
        const unsigned cur = k0 / SGEMM6_BK % 2;
        const bool more = k0 + SGEMM6_BK < K;
        if (more) /* issue the next slice's loads now; nothing waits for them until the stash */
            sgemm6_fetch(g_A, g_B, N, K, k0 + SGEMM6_BK, tid, a, b);
        sgemm6_multiply_slice(s_At[cur], s_B[cur], row0, SGEMM7_ROW_GAP, col0, SGEMM7_COL_GAP, acc);
        if (more) /* buffer cur ^ 1 was last read in the previous slice, before the barrier below it */
            sgemm6_stash(a, b, s_At[cur ^ 1], s_B[cur ^ 1], tid);
        /* One barrier does two jobs: the next slice (buffer cur ^ 1) is complete
           before anyone reads it, and everyone is done reading buffer cur
           before the following iteration refills it. */
        __syncthreads();
    }
    sgemm6_write(g_C + (size_t)blockIdx.y * SGEMM6_BM * N + (size_t)blockIdx.x * SGEMM6_BN, N, row0,
                 SGEMM7_ROW_GAP, col0, SGEMM7_COL_GAP, acc);
}

/* sgemm_step8: as sgemm_step6 (same requirements and errors), with warp
   tiling and double-buffered shared memory. From: Boehm's worklog, kernel 11
   (double buffering); the software pipelining of CUTLASS's main loop. */
static inline cudaError_t sgemm_step8(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    dim3 grid;
    const cudaError_t err =
        sgemm_tile_grid("sgemm_step8", d_A, d_B, d_C, M, N, K, SGEMM6_BM, SGEMM6_BN, SGEMM6_BK, 1, &grid);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    return GPUH_LAUNCH(sgemm8_double_buffer, grid, SGEMM6_THREADS, 0, stream, d_A, d_B, d_C, N, K);
}

#endif /* SGEMM_08_DOUBLE_BUFFER_CUH */
