/* hgemm/04_wgmma.cuh - step 4 of the tensor-core ladder: wgmma, operands straight from shared memory.

   This version keeps step 3's cp.async pipeline and its swizzled tiles and
   replaces the mma.sync machinery by Hopper's wgmma (wgmma.cuh). The block
   is one warpgroup (128 threads) over a 128 × 128 tile of C; per 16 columns
   of K it issues two m64n128k16 instructions (the upper and the lower 64
   rows), each worth 128 mma.sync, and it hands the tensor cores the tiles
   in shared memory by descriptor: no ldmatrix, no fragments in registers,
   and the issue slots stay free while the batch runs. The 128 × 128
   accumulator lives in registers, 128 floats per thread.
   Two things are new about the synchronisation. The tiles are written by
   ordinary (cp.async) copies and read by the tensor cores through the
   "async proxy", a different path to shared memory; `fence.proxy.async`
   in each writing thread, before the barrier, makes the writes visible to
   it. And wgmma runs behind the threads' backs: the warpgroup waits for its
   batch (wgmma.wait_group 0) before the barrier that lets a stage be
   overwritten.
   What is left: the copies. Each thread still computes 16 addresses and
   issues 16 cp.async per slice, and the swizzle is arithmetic on every one;
   the TMA engine (step 5) does all of that from one instruction.
   Grid (N / 128, M / 128), block 128 threads, dynamic shared memory 128 KiB
   (4 stages). Needs M and N multiples of 128, K of 64; the sm_90a features
   (__CUDA_ARCH_FEAT_SM90_ALL), else it is skipped. */
#ifndef HGEMM_04_WGMMA_CUH
#define HGEMM_04_WGMMA_CUH

#include "03_cp_async_pipeline.cuh"
#include "wgmma.cuh"

#define HGEMM4_BM 128
#define HGEMM4_BN 128
#define HGEMM4_BK 64
#define HGEMM4_STAGES 4
#define HGEMM4_TILE_BYTES (128 * HGEMM4_BK * 2)
#define HGEMM4_SMEM (HGEMM4_STAGES * 2 * HGEMM4_TILE_BYTES + 1024)

/* Make this thread's ordinary writes to shared memory visible to the async
   proxy (the tensor cores' and the TMA's path to shared memory). */
static __device__ __forceinline__ void hgemm_fence_proxy_async()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
#endif
}

/* One slice of K (64 columns) for a warpgroup: 4 steps of 16, each an
   m64 × n128 product for the upper and the lower 64 rows of a 128-row A
   tile at s_A with the 128-row B tile at s_B (both swizzled, 1024-aligned).
   Moving 16 columns along K moves the descriptors' address by 32 bytes. */
static __device__ __forceinline__ void hgemm_wgmma_slice_128x128(float (&acc)[2][64], uint32_t s_A, uint32_t s_B)
{
    hgemm_wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
        hgemm_wgmma_m64n128k16(acc[0], hgemm_desc(s_A + 32 * kk), hgemm_desc(s_B + 32 * kk), 1);
        hgemm_wgmma_m64n128k16(acc[1], hgemm_desc(s_A + 64 * 128 + 32 * kk), hgemm_desc(s_B + 32 * kk), 1);
    }
    hgemm_wgmma_commit();
    hgemm_wgmma_wait<0>();
    hgemm_fence_accumulators(acc[0]);
    hgemm_fence_accumulators(acc[1]);
}

/* Stores a warpgroup's 64 × n accumulator (the layout in wgmma.cuh) into C
   at (row0, col0); tid is the thread's index in its warpgroup. */
template <int n>
static __device__ __forceinline__ void hgemm_store_wgmma_tile(float *g_C, size_t N, size_t row0, size_t col0,
                                                              const float (&acc)[n / 2], int tid)
{
    const int w = tid / 32, g = (tid % 32) / 4, t = tid % 4;
    float *c = g_C + (row0 + 16 * w + g) * N + col0 + 2 * t;
#pragma unroll
    for (int j = 0; j < n / 8; ++j) {
        *(float2 *)(c + 8 * j) = make_float2(acc[4 * j], acc[4 * j + 1]);
        *(float2 *)(c + 8 * N + 8 * j) = make_float2(acc[4 * j + 2], acc[4 * j + 3]);
    }
}

static __global__ void __launch_bounds__(128) hgemm4_wgmma(const bf16 *__restrict__ g_A,
                                                           const bf16 *__restrict__ g_B, float *__restrict__ g_C,
                                                           size_t M, size_t N, size_t K)
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    extern __shared__ __align__(16) unsigned char smem[];
    const uint32_t s_base = hgemm_smem_base(smem);
    const int tid = threadIdx.x;
    const size_t m0 = (size_t)blockIdx.y * HGEMM4_BM, n0 = (size_t)blockIdx.x * HGEMM4_BN;
    const int k_tiles = (int)(K / HGEMM4_BK);
    float acc[2][64] = {};
    (void)M;

#pragma unroll
    for (int s = 0; s < HGEMM4_STAGES - 1; ++s) {
        if (s < k_tiles) {
            const uint32_t s_A = s_base + 2 * s * HGEMM4_TILE_BYTES;
            hgemm_load_tile128<128>(s_A, g_A, K, m0, (size_t)s * HGEMM4_BK, tid);
            hgemm_load_tile128<128>(s_A + HGEMM4_TILE_BYTES, g_B, K, n0, (size_t)s * HGEMM4_BK, tid);
        }
        hgemm_cp_async_commit();
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
        hgemm_cp_async_wait<HGEMM4_STAGES - 2>();
        /* The tensor cores read through the async proxy: publish this
           thread's copies to it before the barrier publishes them to all. */
        hgemm_fence_proxy_async();
        /* Slice kt is complete, and every warp has waited for its wgmma on
           slice kt - 1, whose stage is refilled next. */
        __syncthreads();
        const int next = kt + HGEMM4_STAGES - 1;
        if (next < k_tiles) {
            const uint32_t s_A = s_base + 2 * (next % HGEMM4_STAGES) * HGEMM4_TILE_BYTES;
            hgemm_load_tile128<128>(s_A, g_A, K, m0, (size_t)next * HGEMM4_BK, tid);
            hgemm_load_tile128<128>(s_A + HGEMM4_TILE_BYTES, g_B, K, n0, (size_t)next * HGEMM4_BK, tid);
        }
        hgemm_cp_async_commit();
        const uint32_t s_A = s_base + 2 * (kt % HGEMM4_STAGES) * HGEMM4_TILE_BYTES;
        hgemm_wgmma_slice_128x128(acc, s_A, s_A + HGEMM4_TILE_BYTES);
    }
    hgemm_cp_async_wait<0>();
    hgemm_store_wgmma_tile<128>(g_C, N, m0, n0, acc[0], tid);
    hgemm_store_wgmma_tile<128>(g_C, N, m0 + 64, n0, acc[1], tid);
#else
    (void)g_A, (void)g_B, (void)g_C, (void)M, (void)N, (void)K;
#endif
}

/* hgemm_step4: C = A · Bᵀ with hgemm4_wgmma; errors as hgemm_check_args
   (M, N multiples of 128, K of 64), or that of raising the kernel's shared-
   memory limit. Launch it only where the device runs sm_90a code (the
   runner asks hgemm_probe); elsewhere the kernel is empty. From: the PTX
   ISA's wgmma and its matrix descriptors. */
static inline cudaError_t hgemm_step4(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    dim3 grid;
    cudaError_t err = hgemm_check_args("hgemm_step4", d_A, d_B, d_C, M, N, K, HGEMM4_BM, HGEMM4_BN, HGEMM4_BK,
                                       &grid);
    if (err != cudaSuccess || grid.x == 0)
        return err;
    if ((err = cudaFuncSetAttribute(hgemm4_wgmma, cudaFuncAttributeMaxDynamicSharedMemorySize, HGEMM4_SMEM)) !=
        cudaSuccess)
        return err;
    return GPUH_LAUNCH(hgemm4_wgmma, grid, dim3(128), HGEMM4_SMEM, stream, d_A, d_B, d_C, M, N, K);
}

#endif /* HGEMM_04_WGMMA_CUH */
