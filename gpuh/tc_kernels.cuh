/* gpuh/tc_kernels.cuh - part of gpuh_kernels.cuh: the tensor-core GEMM's
   common parts and its CUDA-core kernel. Included by gpuh_kernels.cuh, never
   on its own: the public names it defines are declared and documented there. */
#ifndef GPUH_IMPL_TC_KERNELS_CUH
#define GPUH_IMPL_TC_KERNELS_CUH

#include "half.cuh"

#if GPUH_IMPL_TC
/* ===========================================================================
   [SECTION: TENSOR-CORE KERNELS]
   The kernels behind gpuh_gemm's 16-bit overloads and gpuh_gemm_tf32: the
   CUDA-core kernel every device and the simulator can run, the mma.sync
   kernel (sm_80 and later: cp.async, ldmatrix), and the sm_90a kernel
   (wgmma, TMA, mbarriers, warp specialisation).
   =========================================================================== */

/* One product's arguments: op(A) M × K, op(B) K × N, C M × N, row-major;
   ta / tb: the operand is stored transposed (GPUH_OP_T); ct: the product
   is stored transposed, element (i, j) at C[j·ldc + i] (the sm_90a
   kernel's swapped roles for TF32; 0 everywhere else). */
template <typename TIn, typename TOut> struct gpuh_impl_tc_args {
    const TIn *A, *B;
    TOut *C;
    size_t M, N, K, lda, ldb, ldc;
    float alpha, beta;
    int ta, tb, ct;
};

/* An input element as the tensor cores read it, in float: bfloat16 and fp16
   exactly; a float as TF32, its low 13 mantissa bits dropped (toward zero;
   infinities and NaN kept). */
static __host__ __device__ __forceinline__ float gpuh_impl_tc_in(__nv_bfloat16 x) { return __bfloat162float(x); }
static __host__ __device__ __forceinline__ float gpuh_impl_tc_in(__half x) { return __half2float(x); }
static __host__ __device__ __forceinline__ float gpuh_impl_tc_in(float x)
{
    unsigned u;
    memcpy(&u, &x, 4);
    if ((u & 0x7f800000u) != 0x7f800000u)
        u &= 0xffffe000u;
    memcpy(&x, &u, 4);
    return x;
}
/* The fp32 result stored as C's type: rounded to nearest, ties to even. */
static __device__ __forceinline__ void gpuh_impl_tc_out(float *p, float v) { *p = v; }
static __device__ __forceinline__ void gpuh_impl_tc_out(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }
static __device__ __forceinline__ void gpuh_impl_tc_out(__half *p, float v) { *p = __float2half_rn(v); }
static __device__ __forceinline__ float gpuh_impl_tc_c(const float *p) { return *p; }
static __device__ __forceinline__ float gpuh_impl_tc_c(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
static __device__ __forceinline__ float gpuh_impl_tc_c(const __half *p) { return __half2float(*p); }

/* How much of a pair of adjacent elements of C a store covers: the first
   alone (the second is past C's edge), both by two stores, or both by one
   (C's rows keep the pair aligned). */
enum gpuh_impl_tc_cover { GPUH_IMPL_TC_COVER_ONE = 0, GPUH_IMPL_TC_COVER_TWO = 1, GPUH_IMPL_TC_COVER_PAIR = 2 };

/* Stores alpha·(v0, v1) + beta·C at dst[0], dst[1] (beta == 0: C not read),
   as `how` says: one 8-byte (4-byte) store for PAIR, two stores for TWO,
   dst[0] alone for ONE. */
static __device__ __forceinline__ void gpuh_impl_tc_store2(float *dst, float v0, float v1, float alpha, float beta,
                                                           gpuh_impl_tc_cover how)
{
    if (how == GPUH_IMPL_TC_COVER_PAIR) {
        float2 v = make_float2(alpha * v0, alpha * v1);
        if (beta != 0.0f) {
            const float2 c = *reinterpret_cast<const float2 *>(dst);
            v.x = fmaf(beta, c.x, v.x), v.y = fmaf(beta, c.y, v.y);
        }
        *reinterpret_cast<float2 *>(dst) = v;
        return;
    }
    dst[0] = beta == 0.0f ? alpha * v0 : fmaf(beta, dst[0], alpha * v0);
    if (how == GPUH_IMPL_TC_COVER_TWO)
        dst[1] = beta == 0.0f ? alpha * v1 : fmaf(beta, dst[1], alpha * v1);
}
template <typename T>
static __device__ __forceinline__ void gpuh_impl_tc_store2(T *dst, float v0, float v1, float alpha, float beta,
                                                           gpuh_impl_tc_cover how)
{
    for (int e = 0; e < (how == GPUH_IMPL_TC_COVER_ONE ? 1 : 2); ++e) {
        const float v = alpha * (e ? v1 : v0);
        gpuh_impl_tc_out(dst + e, beta == 0.0f ? v : fmaf(beta, gpuh_impl_tc_c(dst + e), v));
    }
}

/* The devices whose properties the tensor-core launchers keep: 0 .. 63. */
#define GPUH_IMPL_TC_DEVICES 64

#define GPUH_IMPL_TC_SIMT_TILE 64 /* the CUDA-core kernel's tile of C: 64 × 64, slices of 16 of K */
#define GPUH_IMPL_TC_SIMT_BK 16

/* The CUDA-core kernel: the portable path (any GPU, the simulator), the
   reference the tensor-core kernel must agree with. Block: 16 × 16 threads
   owning a 64 × 64 tile of C (block (x, y) of a 2-D grid: columns from
   64·x, rows from 64·y), each thread 4 × 4 elements spaced 16 apart. Per
   slice of 16 of K, the block converts op(A)'s 64 × 16 and op(B)'s 16 × 64
   elements to float as the tensor cores read them (gpuh_impl_tc_in; zero
   past the edges) into shared memory, then every thread adds its 16
   products per element in fp32, k in order. Element loads: any op, leading
   dimension and alignment. */
template <typename TIn, typename TOut>
__global__ void __launch_bounds__(256) gpuh_tc_simt_kernel(const gpuh_impl_tc_args<TIn, TOut> p)
{
    __shared__ float s_a[GPUH_IMPL_TC_SIMT_BK][GPUH_IMPL_TC_SIMT_TILE + 1];
    __shared__ float s_b[GPUH_IMPL_TC_SIMT_BK][GPUH_IMPL_TC_SIMT_TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y, t = ty * 16 + tx;
    const size_t row0 = (size_t)blockIdx.y * GPUH_IMPL_TC_SIMT_TILE, col0 = (size_t)blockIdx.x * GPUH_IMPL_TC_SIMT_TILE;
    float acc[4][4] = {{0.0f}};
    for (size_t k0 = 0; k0 < p.K; k0 += GPUH_IMPL_TC_SIMT_BK) {
        for (int e = t; e < GPUH_IMPL_TC_SIMT_BK * GPUH_IMPL_TC_SIMT_TILE; e += 256) {
            /* element e: k = e / 64, i = e % 64 (consecutive threads, consecutive rows of C) */
            const int k = e / GPUH_IMPL_TC_SIMT_TILE, i = e % GPUH_IMPL_TC_SIMT_TILE;
            const size_t gk = k0 + k, gi = row0 + i, gj = col0 + i;
            s_a[k][i] = gk < p.K && gi < p.M ? gpuh_impl_tc_in(p.ta ? p.A[gk * p.lda + gi] : p.A[gi * p.lda + gk])
                                             : 0.0f;
            s_b[k][i] = gk < p.K && gj < p.N ? gpuh_impl_tc_in(p.tb ? p.B[gj * p.ldb + gk] : p.B[gk * p.ldb + gj])
                                             : 0.0f;
        }
        __syncthreads(); /* the slice is in shared memory before anyone reads it */
        for (int k = 0; k < GPUH_IMPL_TC_SIMT_BK; ++k)
            for (int r = 0; r < 4; ++r)
                for (int c = 0; c < 4; ++c)
                    acc[r][c] = fmaf(s_a[k][ty + 16 * r], s_b[k][tx + 16 * c], acc[r][c]);
        __syncthreads(); /* everyone is done with the slice before the next overwrites it */
    }
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) {
            const size_t i = row0 + ty + 16 * r, j = col0 + tx + 16 * c;
            if (i < p.M && j < p.N) {
                TOut *dst = p.C + i * p.ldc + j;
                const float v = p.alpha * acc[r][c];
                gpuh_impl_tc_out(dst, p.beta == 0.0f ? v : fmaf(p.beta, gpuh_impl_tc_c(dst), v));
            }
        }
}

#endif /* GPUH_IMPL_TC */

#endif /* GPUH_IMPL_TC_KERNELS_CUH */
