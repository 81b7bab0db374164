/* sgemm/07_warp_tiles.cuh - step 7 of the SGEMM ladder: warp tiling.

   This version keeps step 6's tiles, loads and arithmetic (the same
   sgemm6_fetch, sgemm6_stash and sgemm6_multiply_slice) and changes only WHICH
   64 elements of C each thread owns, choosing them warp by warp. The block's
   128 × 128 tile is cut into 8 warp tiles of 64 rows × 32 columns (warp w at
   rows 64 · (w / 4), columns 32 · (w % 4)). Inside its warp tile, lane l
   owns rows 4 · (l / 4) + {0..3} and the same 32 rows further, and columns
   4 · (l % 4) + {0..3} and the same 16 columns further: a 2 × 2 grid of
   4 × 4 pieces, 8 × 8 in all, as before.
   What it gains, in shared memory: at each k a warp now reads the 64 A values
   and 32 B values of its warp tile, 96 words, where step 6's warps (16 rows ×
   128 columns each) read 144. And every one of its loads is conflict-free:
   the four lanes l % 4 = 0..3 read 64 contiguous bytes of s_B, repeated by
   the other lanes (a broadcast), and the eight groups l / 4 read 128
   contiguous bytes of s_At. Where step 6's read of B took twice the minimum
   passes, these take the minimum. The warp is also the unit a scheduler
   issues: its operands now come from a compact piece of each tile, which is
   how CUTLASS and cuBLAS organise the same loop (block tile, warp tile,
   thread tile). Its C stores are float4, 64 contiguous bytes per 4 lanes.
   Block: 256 threads (8 warps). Grid: (N/128, M/128). Static shared memory:
   8 KiB. Needs M and N multiples of 128, K of 8, 16-byte aligned matrices.
   ptxas (sm_90, CUDA 13.0): 123 registers, 8 KiB shared memory, no spills;
   2 blocks (16 warps) per SM. */
#ifndef SGEMM_07_WARP_TILES_CUH
#define SGEMM_07_WARP_TILES_CUH

#include "06_vectorized.cuh"

#define SGEMM7_WM 64 /* rows of a warp tile */
#define SGEMM7_WN 32 /* columns of a warp tile */

/* Where thread tid's pieces start in the block's tile, and how far apart its
   two rows of pieces (32) and two columns of pieces (16) are. Steps 7 and 8. */
static __device__ __forceinline__ void sgemm7_origin(unsigned tid, unsigned &row0, unsigned &col0)
{
    const unsigned warp = tid / 32, lane = tid % 32;
    row0 = warp / (SGEMM6_BN / SGEMM7_WN) * SGEMM7_WM + lane / 4 * 4;
    col0 = warp % (SGEMM6_BN / SGEMM7_WN) * SGEMM7_WN + lane % 4 * 4;
}
#define SGEMM7_ROW_GAP (SGEMM7_WM / 2) /* 8 lane groups × 4 rows = 32 rows, then the next 32 */
#define SGEMM7_COL_GAP (SGEMM7_WN / 2) /* 4 lanes × 4 columns = 16 columns, then the next 16 */

static __global__ void __launch_bounds__(SGEMM6_THREADS)
    sgemm7_warp_tiles(const float *__restrict__ g_A, const float *__restrict__ g_B, float *__restrict__ g_C,
                      size_t N, size_t K)
{
    __shared__ __align__(16) float s_At[SGEMM6_BK][SGEMM6_BM]; /* s_At[k][m] = A[m][k] */
    __shared__ __align__(16) float s_B[SGEMM6_BK][SGEMM6_BN];
    const unsigned tid = threadIdx.x;
    unsigned row0, col0;
    sgemm7_origin(tid, row0, col0);
    g_A += (size_t)blockIdx.y * SGEMM6_BM * K;
    g_B += (size_t)blockIdx.x * SGEMM6_BN;
    float acc[8][8] = {{0.0f}};
    float4 a, b;

    for (size_t k0 = 0; k0 < K; k0 += SGEMM6_BK) {
        sgemm6_fetch(g_A, g_B, N, K, k0, tid, a, b);
        sgemm6_stash(a, b, s_At, s_B, tid);
        /* Both tiles must be complete before any thread reads them. */
        __syncthreads();
        sgemm6_multiply_slice(s_At, s_B, row0, SGEMM7_ROW_GAP, col0, SGEMM7_COL_GAP, acc);
        /* Every thread must be done with these tiles before they are overwritten. */
        __syncthreads();
    }
    sgemm6_write(g_C + (size_t)blockIdx.y * SGEMM6_BM * N + (size_t)blockIdx.x * SGEMM6_BN, N, row0,
                 SGEMM7_ROW_GAP, col0, SGEMM7_COL_GAP, acc);
}

/* sgemm_step7: as sgemm_step6 (same requirements and errors), with warp
   tiling. From: Boehm's worklog, kernel 10 (warptiling); the CUTLASS
   hierarchy of block, warp and thread tiles. */
static inline cudaError_t sgemm_step7(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N,
                                      size_t K, cudaStream_t stream)
{
    dim3 grid;
    const cudaError_t err =
        sgemm_tile_grid("sgemm_step7", d_A, d_B, d_C, M, N, K, SGEMM6_BM, SGEMM6_BN, SGEMM6_BK, 1, &grid);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    return GPUH_LAUNCH(sgemm7_warp_tiles, grid, SGEMM6_THREADS, 0, stream, d_A, d_B, d_C, N, K);
}

#endif /* SGEMM_07_WARP_TILES_CUH */
