/* hgemm/common.cuh - what every step of the tensor-core GEMM ladder shares.

   Each step (01_mma_naive.cuh ... 06_warp_specialized.cuh) is one kernel and
   its launcher, all computing the same product in the layout of a linear
   layer (PyTorch's nn.Linear keeps its weight out_features × in_features):

       C = A · Bᵀ      A: M × K bf16, row-major (leading dimension K)
                       B: N × K bf16, row-major (leading dimension K)
                       C: M × N float32, row-major (leading dimension N)

   so that both operands run along K in memory ("K-major", BLAS's "TN"),
   which is the layout every tensor-core instruction reads without a
   transpose. Products of two bf16 values are exact in float32, and every
   step sums them in float32: the steps differ in speed and in the order of
   the sums, never in the rounding of the inputs.

   The launchers share one signature, hgemm_fn, so the runner
   (examples/11_hgemm_ladder.cu) can hold them in a table. */
#ifndef HGEMM_COMMON_CUH
#define HGEMM_COMMON_CUH

#include <cuda_bf16.h>
#include <stdint.h>
#include "gpuh.h"

typedef __nv_bfloat16 bf16;

/* A step's launcher: enqueues C = A · Bᵀ on `stream`; sizes in elements. */
typedef cudaError_t (*hgemm_fn)(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                cudaStream_t stream);

/* The code a device runs, asked of the device itself: a build for several
   architectures (say sm_75 PTX and sm_90a code) picks one per GPU at load
   time, and only the device code knows which. hgemm_probe writes
   __CUDA_ARCH__ (e.g. 900) to flags[0], and 1 to flags[1] when the code has
   the sm_90a features (wgmma, setmaxnreg), else 0. One thread. */
static __global__ void hgemm_probe(int *g_flags)
{
#ifdef __CUDA_ARCH__
    g_flags[0] = __CUDA_ARCH__;
#ifdef __CUDA_ARCH_FEAT_SM90_ALL
    g_flags[1] = 1;
#else
    g_flags[1] = 0;
#endif
#endif
}

/* hgemm_check_args: the checks every launcher makes before it launches.
   Errors (cudaErrorInvalidValue, with the step's name and the values in
   gpuh_error_detail()): a NULL matrix the product would touch; M, N or K not
   a multiple of tile_m, tile_n or tile_k (the steps drop every bounds test
   from their inner loops and ask for whole tiles instead: the shipped
   gpuh_gemm takes any shape); a matrix not 16-byte aligned (the steps move
   16 bytes at a time; cudaMalloc gives 256); M / tile_m beyond the grid's
   y limit (cudaErrorInvalidConfiguration). On success *grid is
   (N / tile_n, M / tile_m): one block per tile of C. With M or N = 0 it
   returns cudaSuccess and sets *grid to (0, 0): the caller launches nothing. */
static inline cudaError_t hgemm_check_args(const char *step, const bf16 *d_A, const bf16 *d_B, const float *d_C,
                                           size_t M, size_t N, size_t K, size_t tile_m, size_t tile_n,
                                           size_t tile_k, dim3 *grid)
{
    *grid = dim3(0, 0);
    if (M > 0 && N > 0 && (d_C == NULL || (K > 0 && (d_A == NULL || d_B == NULL))))
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s is NULL (M %zu, N %zu, K %zu)", step,
                         d_C == NULL ? "d_C" : d_A == NULL ? "d_A" : "d_B", M, N, K);
    if (M % tile_m != 0 || N % tile_n != 0 || K % tile_k != 0)
        return gpuh_fail(cudaErrorInvalidValue,
                         "%s: needs M a multiple of %zu, N of %zu and K of %zu (got M %zu, N %zu, K %zu)", step,
                         tile_m, tile_n, tile_k, M, N, K);
    if (((uintptr_t)d_A | (uintptr_t)d_B | (uintptr_t)d_C) % 16 != 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s: d_A %p, d_B %p and d_C %p must be 16-byte aligned", step,
                         (const void *)d_A, (const void *)d_B, (const void *)d_C);
    if (M == 0 || N == 0)
        return cudaSuccess;
    return gpuh_grid_2d(grid, N / tile_n, M / tile_m, dim3(1, 1)); /* counts of tiles, one block each */
}

/* hgemm_smem_addr: a generic pointer into shared memory as the 32-bit
   shared-window address that PTX's ldmatrix, cp.async, mbarrier and the
   wgmma descriptors take. */
static __device__ __forceinline__ uint32_t hgemm_smem_addr(const void *p)
{
    return (uint32_t)__cvta_generic_to_shared(p);
}

/* hgemm_swizzle128: the byte offset of element (row, k) of a tile stored as
   rows of 64 bf16 (128 bytes), with the 16-byte chunk index XORed with
   row % 8. Eight consecutive rows then place any given chunk in eight
   different 16-byte bank groups, so 8 threads that read one chunk from each
   of 8 rows (what ldmatrix does) hit all 32 banks once: no conflicts, and
   no padding. It is exactly the layout the TMA writes and wgmma reads under
   CU_TENSOR_MAP_SWIZZLE_128B (the hardware XORs address bits 4-6 with bits
   7-9), provided the tile starts on a 1024-byte boundary. */
static __device__ __forceinline__ uint32_t hgemm_swizzle128(uint32_t row, uint32_t k)
{
    return row * 128u + ((((k * 2u) >> 4) ^ (row & 7u)) << 4) + ((k * 2u) & 15u);
}

#endif /* HGEMM_COMMON_CUH */
