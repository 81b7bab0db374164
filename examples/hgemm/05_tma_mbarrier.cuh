/* hgemm/05_tma_mbarrier.cuh - step 5 of the tensor-core ladder: TMA loads completing on mbarriers.

   This version hands the copies to the Tensor Memory Accelerator (TMA), the
   copy engine of each Hopper SM. A "tensor map", made once on the host
   (hgemm_tensor_map), describes a matrix: base address, sizes, row pitch,
   the box to copy and the swizzle to apply. One thread then issues
   `cp.async.bulk.tensor` with the box's coordinates, and the engine moves
   the whole 128 × 64 tile (16 KiB), swizzled as wgmma wants it, with no
   address arithmetic in the threads and no registers involved.
   Completion is signalled on an mbarrier, a 64-bit barrier object in shared
   memory that counts bytes as well as arrivals: the issuing thread arms it
   with the number of bytes to expect (mbarrier.arrive.expect_tx), the TMA
   counts them down as they land, and the barrier's phase flips when both
   reach zero. Consumers wait for the flip by its parity (each use of a
   stage flips its barrier once: the kt-th slice waits for parity
   (kt / STAGES) % 2), so nobody spins on a __syncthreads for data.
   What is left: one warpgroup both computes and feeds. The thread that
   issues the copies is one of the computing threads, and the whole
   warpgroup still meets at a barrier each slice before a stage is refilled.
   Step 6 gives loading and computing to different warps.
   Grid (N / 128, M / 128), block 128 threads, dynamic shared memory 128 KiB
   (4 stages) plus 4 mbarriers. Needs M and N multiples of 128, K of 64; the
   sm_90a features. */
#ifndef HGEMM_05_TMA_MBARRIER_CUH
#define HGEMM_05_TMA_MBARRIER_CUH

#include <cuda.h>          /* CUtensorMap and its enums: types only, no libcuda link */
#include <cudaTypedefs.h>  /* PFN_cuTensorMapEncodeTiled_v12000 */
#include "04_wgmma.cuh"

#define HGEMM5_STAGES 4
#define HGEMM5_SMEM (HGEMM5_STAGES * 2 * HGEMM4_TILE_BYTES + 1024)

/* hgemm_tensor_map: a TMA description of a K-major bf16 matrix of `rows`
   rows and K columns (leading dimension K) for boxes of box_rows rows × 64
   columns, 128-byte swizzled. The driver's cuTensorMapEncodeTiled is found
   through cudart (cudaGetDriverEntryPointByVersion), so the program links
   only cudart. Errors: cudaErrorNotSupported when the driver lacks the
   function, cudaErrorInvalidValue when it refuses the description (K
   must make the row pitch a multiple of 16 bytes, the base 16-byte aligned,
   box_rows at most 256); the detail names the matrix. */
static inline cudaError_t hgemm_tensor_map(CUtensorMap *map, const bf16 *d_M, size_t rows, size_t K,
                                           unsigned box_rows)
{
    static PFN_cuTensorMapEncodeTiled_v12000 encode = NULL;
    if (encode == NULL) {
        void *fn = NULL;
        cudaDriverEntryPointQueryResult found;
        const cudaError_t err =
            cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found);
        if (err != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == NULL)
            return gpuh_fail(cudaErrorNotSupported, "hgemm_tensor_map: the driver has no cuTensorMapEncodeTiled (%s)",
                             cudaGetErrorName(err));
        encode = (PFN_cuTensorMapEncodeTiled_v12000)fn;
    }
    const cuuint64_t dims[2] = {K, rows};                 /* innermost first: columns, then rows */
    const cuuint64_t pitch[1] = {K * sizeof(bf16)};       /* bytes from one row to the next */
    const cuuint32_t box[2] = {64, box_rows};             /* 64 bf16 = one 128-byte swizzle span */
    const cuuint32_t element_step[2] = {1, 1};
    const CUresult r = encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)d_M, dims, pitch, box, element_step,
                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                              CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        return gpuh_fail(cudaErrorInvalidValue,
                         "hgemm_tensor_map: cuTensorMapEncodeTiled refused %p (%zu rows, K %zu, box %u rows): %d",
                         (const void *)d_M, rows, K, box_rows, (int)r);
    return cudaSuccess;
}

/* The mbarrier operations, on the barrier at shared address `bar`. */
static __device__ __forceinline__ void hgemm_mbar_init(uint32_t bar, unsigned arrivals)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(arrivals) : "memory");
#endif
}

/* Arrive once and expect `bytes` more from copies before the phase can flip. */
static __device__ __forceinline__ void hgemm_mbar_expect_bytes(uint32_t bar, unsigned bytes)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
#endif
}

/* Arrive once (a consumer saying it is done with a stage). */
static __device__ __forceinline__ void hgemm_mbar_arrive(uint32_t bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(bar) : "memory");
#endif
}

/* Wait until the phase of parity `parity` has completed. */
static __device__ __forceinline__ void hgemm_mbar_wait(uint32_t bar, unsigned parity)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    unsigned done = 0;
    while (!done)
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
#endif
}

/* Make initialised mbarriers visible to the TMA before any copy uses them. */
static __device__ __forceinline__ void hgemm_mbar_init_fence()
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
#endif
}

/* Starts the TMA copy of the box at column x, row y of the matrix `map`
   describes into shared address s_dst; its bytes count on barrier `bar`. */
static __device__ __forceinline__ void hgemm_tma_load(uint32_t s_dst, const CUtensorMap *map, int x, int y,
                                                      uint32_t bar)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(s_dst),
                 "l"((uint64_t)map), "r"(x), "r"(y), "r"(bar)
                 : "memory");
#else
    (void)s_dst, (void)map, (void)x, (void)y, (void)bar;
#endif
}

/* The tensor maps are kernel parameters (__grid_constant__: the kernel
   takes their address, and the TMA reads them from parameter memory). */
static __global__ void __launch_bounds__(128) hgemm5_tma(const __grid_constant__ CUtensorMap tm_A,
                                                         const __grid_constant__ CUtensorMap tm_B,
                                                         float *__restrict__ g_C, size_t N, size_t K)
{
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    extern __shared__ __align__(16) unsigned char smem[];
    __shared__ __align__(8) uint64_t s_full[HGEMM5_STAGES]; /* stage s holds its slice */
    const uint32_t s_base = hgemm_smem_base(smem);
    const int tid = threadIdx.x;
    const int m0 = (int)blockIdx.y * HGEMM4_BM, n0 = (int)blockIdx.x * HGEMM4_BN;
    const int k_tiles = (int)(K / HGEMM4_BK);
    float acc[2][64] = {};

    if (tid == 0) {
        for (int s = 0; s < HGEMM5_STAGES; ++s)
            hgemm_mbar_init(hgemm_smem_addr(&s_full[s]), 1); /* one arrival: the expect_tx */
        hgemm_mbar_init_fence();
    }
    __syncthreads(); /* the barriers exist before anyone waits on them */

    /* Thread 0 fills stage s with slice kt: A's rows m0.., B's rows n0.. */
    auto issue = [&](int kt, int s) {
        const uint32_t s_A = s_base + 2 * s * HGEMM4_TILE_BYTES, bar = hgemm_smem_addr(&s_full[s]);
        hgemm_mbar_expect_bytes(bar, 2 * HGEMM4_TILE_BYTES);
        hgemm_tma_load(s_A, &tm_A, kt * HGEMM4_BK, m0, bar);
        hgemm_tma_load(s_A + HGEMM4_TILE_BYTES, &tm_B, kt * HGEMM4_BK, n0, bar);
    };
    if (tid == 0)
        for (int s = 0; s < HGEMM5_STAGES && s < k_tiles; ++s)
            issue(s, s);
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int s = kt % HGEMM5_STAGES;
        hgemm_mbar_wait(hgemm_smem_addr(&s_full[s]), (kt / HGEMM5_STAGES) % 2);
        const uint32_t s_A = s_base + 2 * s * HGEMM4_TILE_BYTES;
        hgemm_wgmma_slice_128x128(acc, s_A, s_A + HGEMM4_TILE_BYTES);
        /* Every warp's wgmma on stage s has completed before it is refilled. */
        __syncthreads();
        if (tid == 0 && kt + HGEMM5_STAGES < k_tiles)
            issue(kt + HGEMM5_STAGES, s);
    }
    hgemm_store_wgmma_tile<128>(g_C, N, m0, n0, acc[0], tid);
    hgemm_store_wgmma_tile<128>(g_C, N, m0 + 64, n0, acc[1], tid);
#else
    (void)tm_A, (void)tm_B, (void)g_C, (void)N, (void)K;
#endif
}

/* hgemm_step5: C = A · Bᵀ with hgemm5_tma; errors as hgemm_check_args (M, N
   multiples of 128, K of 64; M, N, K below 2^31, the TMA's coordinates),
   hgemm_tensor_map's, or that of raising the shared-memory limit. sm_90a
   only (see hgemm_step4). From: the CUDA C++ Programming Guide's "Using the
   Tensor Memory Accelerator"; the PTX ISA's cp.async.bulk.tensor and
   mbarrier. */
static inline cudaError_t hgemm_step5(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                      cudaStream_t stream)
{
    dim3 grid;
    CUtensorMap tm_A, tm_B;
    cudaError_t err = hgemm_check_args("hgemm_step5", d_A, d_B, d_C, M, N, K, HGEMM4_BM, HGEMM4_BN, HGEMM4_BK,
                                       &grid);
    if (err != cudaSuccess || grid.x == 0)
        return err;
    if ((M | N | K) >= ((size_t)1 << 31))
        return gpuh_fail(cudaErrorInvalidValue, "hgemm_step5: M %zu, N %zu, K %zu must be below 2^31", M, N, K);
    if ((err = hgemm_tensor_map(&tm_A, d_A, M, K, HGEMM4_BM)) != cudaSuccess ||
        (err = hgemm_tensor_map(&tm_B, d_B, N, K, HGEMM4_BN)) != cudaSuccess)
        return err;
    if ((err = cudaFuncSetAttribute(hgemm5_tma, cudaFuncAttributeMaxDynamicSharedMemorySize, HGEMM5_SMEM)) !=
        cudaSuccess)
        return err;
    return GPUH_LAUNCH(hgemm5_tma, grid, dim3(128), HGEMM5_SMEM, stream, tm_A, tm_B, d_C, N, K);
}

#endif /* HGEMM_05_TMA_MBARRIER_CUH */
