/* hgemm/03_cp_async_pipeline.cuh - step 3 of the tensor-core ladder: a cp.async pipeline, swizzled tiles.

   This version stops waiting for its loads. `cp.async` (sm_80) copies 16
   bytes from global to shared memory without passing through registers and
   without stalling the thread that issued it: the thread only waits, later,
   for a whole group of copies (cp.async.wait_group). So the block keeps
   HGEMM3_STAGES slices of K in shared memory at once: while the warps
   multiply slice k, the copies of slices k + 1 and k + 2 are in flight, and
   the DRAM latency hides behind the arithmetic instead of adding to it.
   The slices are 64 wide now, so one row of a tile is 128 bytes, and the
   padding of step 2 gives way to a swizzle (common.cuh, hgemm_swizzle128):
   the 16-byte chunk c of row r is stored at chunk c XOR (r % 8), which
   spreads any 8 consecutive rows of one chunk over all 32 banks with no
   wasted bytes. It is the layout the TMA writes and wgmma reads in the steps
   that follow, written here by hand.
   What is left: mma.sync itself. On Hopper it reaches a fraction of the
   tensor cores' rate; their full rate needs wgmma (step 4), which reads its
   operands from shared memory with no ldmatrix and no registers in between.
   Grid (N / 128, M / 128), block 256 threads (2 × 4 warps of 64 × 32),
   dynamic shared memory 96 KiB (3 stages × two 128 × 64 tiles). Needs M
   and N multiples of 128, K of 64; sm_80 or later. */
#ifndef HGEMM_03_CP_ASYNC_PIPELINE_CUH
#define HGEMM_03_CP_ASYNC_PIPELINE_CUH

#include "02_smem_ldmatrix.cuh"

#define HGEMM3_BM 128
#define HGEMM3_BN 128
#define HGEMM3_BK 64
#define HGEMM3_STAGES 3
#define HGEMM3_TILE_BYTES (128 * HGEMM3_BK * 2)                     /* one 128 × 64 bf16 tile: 16 KiB */
#define HGEMM3_SMEM (HGEMM3_STAGES * 2 * HGEMM3_TILE_BYTES + 1024) /* + room to align to 1024 bytes */

/* 16 bytes from global to shared memory, asynchronously (.cg: cached in L2
   only, as data read once per block gains nothing from L1). */
static __device__ __forceinline__ void hgemm_cp_async16(uint32_t s_addr, const void *g_ptr)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s_addr), "l"(g_ptr) : "memory");
#else
    (void)s_addr, (void)g_ptr;
#endif
}

/* Close the copies this thread issued since the last commit into a group. */
static __device__ __forceinline__ void hgemm_cp_async_commit()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}

/* Wait until at most `pending` of this thread's groups are still copying. */
template <int pending>
static __device__ __forceinline__ void hgemm_cp_async_wait()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
#endif
}

/* Starts the copy of rows [row0, row0 + 128) × columns [k0, k0 + 64) of a
   K-major matrix into a swizzled 128 × 64 tile at shared address s_tile:
   1024 chunks of 16 bytes shared by `threads` threads, 8 threads per row. */
template <int threads>
static __device__ __forceinline__ void hgemm_load_tile128(uint32_t s_tile, const bf16 *g_M, size_t K, size_t row0,
                                                          size_t k0, int tid)
{
#pragma unroll
    for (int i = 0; i < 1024 / threads; ++i) {
        const int c = tid + i * threads, row = c / 8, col = (c % 8) * 8;
        hgemm_cp_async16(s_tile + hgemm_swizzle128(row, col), g_M + (row0 + row) * K + k0 + col);
    }
}

/* The first 1024-byte boundary at or after the start of dynamic shared
   memory, as a shared address (the swizzle repeats every 8 rows × 128 B). */
static __device__ __forceinline__ uint32_t hgemm_smem_base(const void *dynamic_smem)
{
    return (hgemm_smem_addr(dynamic_smem) + 1023u) & ~1023u;
}

static __global__ void __launch_bounds__(256) hgemm3_cp_async(const bf16 *__restrict__ g_A,
                                                              const bf16 *__restrict__ g_B,
                                                              float *__restrict__ g_C, size_t M, size_t N, size_t K)
{
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t s_base = hgemm_smem_base(smem);
    /* Stage s: its A tile at s_base + 2s·TILE, its B tile right after. */
    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int wm = warp / 4, wn = warp % 4;
    const size_t m0 = (size_t)blockIdx.y * HGEMM3_BM, n0 = (size_t)blockIdx.x * HGEMM3_BN;
    const int k_tiles = (int)(K / HGEMM3_BK);
    float acc[4][4][4] = {};
    (void)M;

    /* Prologue: start the first STAGES - 1 slices. Every slot of the
       pipeline commits one group, empty or not, so that "wait until at
       most STAGES - 2 groups are pending" always means "slice kt is in". */
#pragma unroll
    for (int s = 0; s < HGEMM3_STAGES - 1; ++s) {
        if (s < k_tiles) {
            const uint32_t s_A = s_base + 2 * s * HGEMM3_TILE_BYTES;
            hgemm_load_tile128<256>(s_A, g_A, K, m0, (size_t)s * HGEMM3_BK, tid);
            hgemm_load_tile128<256>(s_A + HGEMM3_TILE_BYTES, g_B, K, n0, (size_t)s * HGEMM3_BK, tid);
        }
        hgemm_cp_async_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
        /* This thread's copies of slice kt have landed... */
        hgemm_cp_async_wait<HGEMM3_STAGES - 2>();
        /* ...and everybody's: after this barrier the whole slice is in shared
           memory, and every warp has finished slice kt - 1, whose stage the
           copy below reuses. */
        __syncthreads();
        const int next = kt + HGEMM3_STAGES - 1;
        if (next < k_tiles) {
            const uint32_t s_A = s_base + 2 * (next % HGEMM3_STAGES) * HGEMM3_TILE_BYTES;
            hgemm_load_tile128<256>(s_A, g_A, K, m0, (size_t)next * HGEMM3_BK, tid);
            hgemm_load_tile128<256>(s_A + HGEMM3_TILE_BYTES, g_B, K, n0, (size_t)next * HGEMM3_BK, tid);
        }
        hgemm_cp_async_commit();

        const uint32_t s_A = s_base + 2 * (kt % HGEMM3_STAGES) * HGEMM3_TILE_BYTES, s_B = s_A + HGEMM3_TILE_BYTES;
#pragma unroll
        for (int kk = 0; kk < HGEMM3_BK; kk += 16) {
            uint32_t a[4][4], b[4][2];
            /* Swizzled addresses cannot be stepped by a fixed stride in k,
               but rows 16 apart keep the same row % 8, hence the same XOR. */
#pragma unroll
            for (int i = 0; i < 4; ++i)
                hgemm_ldmatrix_x4(a[i], s_A + hgemm_swizzle128(64 * wm + 16 * i + hgemm_a_row(lane),
                                                               kk + hgemm_a_col(lane)));
#pragma unroll
            for (int p = 0; p < 2; ++p) {
                uint32_t r[4];
                hgemm_ldmatrix_x4(r, s_B + hgemm_swizzle128(32 * wn + 16 * p + hgemm_b_row(lane),
                                                            kk + hgemm_b_col(lane)));
                b[2 * p][0] = r[0], b[2 * p][1] = r[1], b[2 * p + 1][0] = r[2], b[2 * p + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    hgemm_mma16816(acc[i][j], a[i], b[j]);
        }
    }
    hgemm_cp_async_wait<0>(); /* no copy may still target shared memory when the block exits */
    hgemm_store_warp_tile(g_C, N, m0 + 64 * wm, n0 + 32 * wn, acc, lane);
}

/* hgemm_step3: C = A · Bᵀ with hgemm3_cp_async; errors as hgemm_check_args
   (M, N multiples of 128, K of 64), or the error of raising the kernel's
   dynamic shared-memory limit. From: the CUDA C++ Programming Guide's
   asynchronous copies; CUTLASS's multistage mainloop (sm_80). */
static inline cudaError_t hgemm_step3(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    dim3 grid;
    cudaError_t err = hgemm_check_args("hgemm_step3", d_A, d_B, d_C, M, N, K, HGEMM3_BM, HGEMM3_BN, HGEMM3_BK,
                                       &grid);
    if (err != cudaSuccess || grid.x == 0)
        return err;
    /* Beyond 48 KiB a block's dynamic shared memory needs an opt-in. */
    if ((err = cudaFuncSetAttribute(hgemm3_cp_async, cudaFuncAttributeMaxDynamicSharedMemorySize, HGEMM3_SMEM)) !=
        cudaSuccess)
        return err;
    return GPUH_LAUNCH(hgemm3_cp_async, grid, dim3(256), HGEMM3_SMEM, stream, d_A, d_B, d_C, M, N, K);
}

#endif /* HGEMM_03_CP_ASYNC_PIPELINE_CUH */
