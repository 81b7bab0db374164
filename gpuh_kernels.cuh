/* gpuh_kernels.cuh - v0.1.0 - generic CUDA kernels with launchers: vector add,
   reductions (sum, min, max, dot, L2 norm), matrix multiply (GEMM).

   Needs gpuh.h beside it. MIT licence (see gpuh.h).

   ============================================================================
   USING IT

   From CUDA C++ (nvcc), call the template launchers; each computes its own
   grid, takes a stream, checks its arguments and returns cudaError_t:

       GPUH_CHECK(gpuh_vector_add(d_a, d_b, d_c, n, stream));      // T = float, double, int
       GPUH_CHECK(gpuh_sum(d_x, n, d_result, d_temp, stream));      // also gpuh_min, gpuh_max
       GPUH_CHECK(gpuh_dot(d_x, d_y, n, d_result, d_temp, stream)); // and gpuh_norm2 (float, double)
       GPUH_CHECK(gpuh_matmul(d_A, d_B, d_C, M, N, K, stream));     // T = float, double
       GPUH_CHECK(gpuh_gemm(M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream));

   A file pays only for what it calls: including this header compiles no
   kernel; a launcher compiles its own kernels, for its own types, in the
   file that calls it (as CUB's algorithms do). What many files call can be
   compiled once per program instead, in one of two ways:

   1. The compiled mode. One .cu file of the program compiles every entry
      point gpuh ships, for every type it ships (the template launchers by
      explicit instantiation, and the typed C entry points below):

          #define GPUH_KERNELS_IMPLEMENTATION
          #include "gpuh_kernels.cuh"

      and every other file defines GPUH_KERNELS_LIBRARY before including
      this header (or on the command line): it then sees only the
      declarations (and `extern template` for each shipped instance), so it
      compiles no gpuh kernel and links the instances of that one file.
      CMake's gpuh::kernels target is this mode ready-made: a library whose
      sources split the instances by topic, so that they build in parallel,
      and which adds GPUH_KERNELS_LIBRARY to every file that links it.
      gpuh_gemm_with and the kernels themselves stay templates a file
      compiles itself; it must then not define GPUH_KERNELS_LIBRARY. A file
      of the compiled mode that names __nv_bfloat16 or __half includes
      gpuh/half.cuh for them.
   2. From C, call the typed entry points declared below (gpuh_vector_add_f32,
      gpuh_sum_f64, gpuh_gemm_f32, ...); their definitions come from the
      one GPUH_KERNELS_IMPLEMENTATION file, or from gpuh::kernels. Link a C
      program with nvcc or g++ (or add -lstdc++): the object nvcc makes
      needs the C++ runtime.

   Any number of .cu files may include this header in its default,
   header-only mode: the kernels and launchers are templates, so their
   copies merge at link time, beside the instances of a compiled mode too.
   With CUDA 13's default -static-global-template-stub=true a kernel
   template's host stub is private to its file, so the library launches
   every kernel from its own launchers, never from code the caller writes.

   The implementation lies in the folder gpuh/ beside this header, one
   topic per file (copy the folder with the header): the memory-bound
   kernels (memory.cuh); GEMM's kernels, tuning and dispatch
   (gemm_kernels.cuh, gemm_tuning.cuh, gemm_dispatch.cuh); the tensor-core
   GEMM's common part and CUDA-core kernel, its sm_80 and sm_90a kernels, its
   kernel for few rows of C in two forms, and its dispatch (tc_kernels.cuh,
   tc_sm80.cuh, tc_sm90.cuh, tc_decode.cuh, tc_decode_sm90.cuh,
   tc_dispatch.cuh);
   the sharded kernels (sharded.cuh); what every file gets (common.cuh: the
   warp and block reductions' bodies); and the instances of the compiled
   mode with the C entry points (instances.cuh), whose parts
   gpuh/kernels_*.cu compile one each. <cuda.h> and the half-precision
   headers (half.cuh) are included by the tensor-core files alone.

   The warp and block reductions (gpuh_warp_reduce, gpuh_block_reduce, with
   the operators gpuh_plus, gpuh_minimum, gpuh_maximum) are public too, for
   your own kernels: see examples/06_row_norms.cu.

   Reductions need a scratch buffer of GPUH_REDUCE_TEMP_BYTES bytes of device
   memory, aligned to 8 bytes, for the per-block partial results (NULL is fine
   when n ≤ GPUH_REDUCE_SINGLE_BLOCK_MAX, which needs one block). One buffer per
   stream: two reductions in flight on different streams must not share it.

   ============================================================================
   CONTENTS (search for the anchor in brackets)

   The public front: every name a user calls, with its documentation.
     [SECTION: CONFIGURATION]     the macros, their defaults, which to override
     [SECTION: C DECLARATIONS]    the typed entry points for C (gpuh_sum_f32, ...)
     [SECTION: VECTOR ADD]        gpuh_vector_add
     [SECTION: REDUCTIONS]        gpuh_sum, gpuh_min, gpuh_max, gpuh_dot,
                                  gpuh_norm2, gpuh_sum_depth
     [SECTION: WARP AND BLOCK]    gpuh_warp_reduce, gpuh_block_reduce and their
                                  operators gpuh_plus, gpuh_minimum, gpuh_maximum
     [SECTION: GEMM]              gpuh_gemm, gpuh_matmul, gpuh_gemm_with and its
                                  configurations gpuh_gemm_simt_config,
                                  gpuh_gemm_dmma_config
     [SECTION: TENSOR-CORE GEMM]  gpuh_gemm for bfloat16 and fp16 inputs,
                                  gpuh_gemm_tf32 (fp32 accumulation)
     [SECTION: SEVERAL DEVICES]   gpuh_sharded_vector_add, gpuh_sharded_sum & co.,
                                  gpuh_sharded_gemm on gpuh.h's device sets
   The implementation, in the order a call reaches it, in gpuh/. Its names
   start with gpuh_impl_ / GPUH_IMPL_: private, they may change without
   notice.
     [SECTION: MEMORY-BOUND KERNELS]  memory.cuh: vector add and the reductions
     [SECTION: GEMM KERNELS]          gemm_kernels.cuh: the tiled kernels (CUDA
                                      cores, FP64 tensor cores), the
                                      matrix-vector kernels
     [SECTION: GEMM TUNING]           gemm_tuning.cuh: the shipped tile sizes
     [SECTION: GEMM DISPATCH]         gemm_dispatch.cuh: argument checks, the
                                      choice of cover, launches
     [SECTION: TENSOR-CORE KERNELS]   tc_kernels.cuh (CUDA cores), tc_sm80.cuh
                                      (mma.sync), tc_sm90.cuh (wgmma, TMA)
     [SECTION: TENSOR-CORE DECODE]    tc_decode.cuh (mma.sync) and
                                      tc_decode_sm90.cuh (TMA, wgmma): M ≤ 64
                                      with op_b = T, bound by reading B
     [SECTION: TENSOR-CORE DISPATCH]  tc_dispatch.cuh: checks, aligned copies,
                                      tensor maps, launches
     [SECTION: SHARDED KERNELS]       sharded.cuh: the sharded launchers and
                                      their host combine
     [SECTION: C ENTRY POINTS]        instances.cuh: the C entry points and
                                      the compiled mode's instances
*/
#ifndef GPUH_KERNELS_CUH
#define GPUH_KERNELS_CUH

#include "gpuh.h"

/* ===========================================================================
   [SECTION: CONFIGURATION]
   Define the overridable ones before including this header (in every .cu
   file that includes it, with the same values); the others are fixed.
   =========================================================================== */

/* 16-byte vectors each thread loads per input before using them: vector add
   (two inputs) and the reductions (one input, so twice the vectors to keep as
   many bytes in flight). Overridable; defaults 4 and 8. */
#ifndef GPUH_ADD_UNROLL
#define GPUH_ADD_UNROLL 4
#endif
#ifndef GPUH_REDUCE_UNROLL
#define GPUH_REDUCE_UNROLL 8
#endif
/* Threads per block of the reduction kernel, and most blocks of its first pass.
   The first pass's grid depends on n alone (never on the device or timing), so
   every run adds the same numbers in the same order: results are bitwise
   reproducible, on any GPU. */
#define GPUH_REDUCE_BLOCK 256
#define GPUH_REDUCE_MAX_BLOCKS 1024
/* n up to which a reduction is one launch of one block and needs no scratch:
   one tile, GPUH_REDUCE_BLOCK threads × GPUH_REDUCE_UNROLL 16-byte vectors
   (8192 floats or ints, 4096 doubles; the smaller is the limit). */
#define GPUH_REDUCE_SINGLE_BLOCK_MAX (GPUH_REDUCE_BLOCK * GPUH_REDUCE_UNROLL * 2)
/* Bytes of scratch device memory a reduction needs (partials of up to 8 bytes). */
#define GPUH_REDUCE_TEMP_BYTES (GPUH_REDUCE_MAX_BLOCKS * 8)
/* GPUH_ADD_BLOCK: threads per block of the vector-add kernel.
   GPUH_ADD_UNROLL (above): its 16-byte vectors per input per thread. */
#define GPUH_ADD_BLOCK 256
/* GEMM: GPUH_GEMM_GROUP_M, tile rows per group of the block order
   (gpuh_impl_gemm_tile); GPUH_GEMV_BLOCK, GPUH_GEMV_COLS and
   GPUH_GEMV_UNROLL, the matrix-vector kernels' threads per block, columns
   of C per block of the row kernel, and loads in flight per thread. The
   launcher's tuned constants, fixed, each with its reason in
   gpuh/gemm_tuning.cuh ([SECTION: GEMM TUNING]): the relative rates of the
   tiles, GPUH_GEMM_SMALL_RATE, GPUH_GEMM_NARROW_RATE, GPUH_GEMM_TALL_RATE,
   GPUH_GEMM_NARROW32_RATE, GPUH_GEMM_NARROW64_RATE,
   GPUH_GEMM_FP64_WIDE_RATE, GPUH_GEMM_FP64_WIDE32_RATE,
   GPUH_GEMM_FP64_TALL_RATE; split-K's costs and limits,
   GPUH_GEMM_K_OVERHEAD, GPUH_GEMM_MACS_PER_BYTE, GPUH_GEMM_SPLIT_FIXED,
   GPUH_GEMM_REDUCE_WAIT, GPUH_GEMM_MAX_SPLITS, GPUH_GEMM_REDUCE_BLOCK,
   GPUH_GEMM_REDUCE_BATCH_BYTES (the second pass's bytes in flight per
   thread); GPUH_GEMM_SCALAR_LOSS, the rate element loads cost, above which
   unaligned operands are copied aligned. */
#define GPUH_GEMM_GROUP_M 8
/* GEMM split-K: bytes of workspace gpuh's memory pool keeps on each device
   between calls (its release threshold), so that repeated products of a
   shape pay for no allocation; more is taken when needed and given back at
   the next synchronisation. Overridable; default 256 MiB. */
#ifndef GPUH_GEMM_POOL_KEEP
#define GPUH_GEMM_POOL_KEEP (256u << 20)
#endif
#define GPUH_GEMV_BLOCK 512
#define GPUH_GEMV_COLS 32
#define GPUH_GEMV_UNROLL 8

/* ===========================================================================
   [SECTION: C DECLARATIONS]
   Typed entry points for C callers (defined under GPUH_KERNELS_IMPLEMENTATION,
   or by gpuh::kernels), one per launcher and type: _f32 float, _f64 double,
   _i32 int. Shapes, units and errors are those of the template launchers
   below: gpuh_vector_add_f32, gpuh_vector_add_f64, gpuh_vector_add_i32;
   gpuh_sum_f32, gpuh_sum_f64, gpuh_sum_i32, gpuh_min_f32, gpuh_min_f64,
   gpuh_min_i32, gpuh_max_f32, gpuh_max_f64, gpuh_max_i32; gpuh_dot_f32,
   gpuh_dot_f64, gpuh_norm2_f32, gpuh_norm2_f64; gpuh_matmul_f32,
   gpuh_matmul_f64, gpuh_gemm_f32, gpuh_gemm_f64 (no transposes),
   gpuh_gemm_op_f32, gpuh_gemm_op_f64 (with op_a, op_b).
   =========================================================================== */
#ifdef __cplusplus
extern "C" {
#endif

cudaError_t gpuh_vector_add_f32(const float *d_a, const float *d_b, float *d_c, size_t n, cudaStream_t stream);
cudaError_t gpuh_vector_add_f64(const double *d_a, const double *d_b, double *d_c, size_t n,
                                cudaStream_t stream);
cudaError_t gpuh_vector_add_i32(const int *d_a, const int *d_b, int *d_c, size_t n, cudaStream_t stream);

cudaError_t gpuh_sum_f32(const float *d_in, size_t n, float *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_sum_f64(const double *d_in, size_t n, double *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_sum_i32(const int *d_in, size_t n, int *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_min_f32(const float *d_in, size_t n, float *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_min_f64(const double *d_in, size_t n, double *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_min_i32(const int *d_in, size_t n, int *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_max_f32(const float *d_in, size_t n, float *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_max_f64(const double *d_in, size_t n, double *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_max_i32(const int *d_in, size_t n, int *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_dot_f32(const float *d_a, const float *d_b, size_t n, float *d_out, void *d_temp,
                         cudaStream_t stream);
cudaError_t gpuh_dot_f64(const double *d_a, const double *d_b, size_t n, double *d_out, void *d_temp,
                         cudaStream_t stream);
cudaError_t gpuh_norm2_f32(const float *d_x, size_t n, float *d_out, void *d_temp, cudaStream_t stream);
cudaError_t gpuh_norm2_f64(const double *d_x, size_t n, double *d_out, void *d_temp, cudaStream_t stream);

cudaError_t gpuh_matmul_f32(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N, size_t K,
                            cudaStream_t stream);
cudaError_t gpuh_matmul_f64(const double *d_A, const double *d_B, double *d_C, size_t M, size_t N, size_t K,
                            cudaStream_t stream);
cudaError_t gpuh_gemm_f32(size_t M, size_t N, size_t K, float alpha, const float *d_A, size_t lda,
                          const float *d_B, size_t ldb, float beta, float *d_C, size_t ldc, cudaStream_t stream);
cudaError_t gpuh_gemm_f64(size_t M, size_t N, size_t K, double alpha, const double *d_A, size_t lda,
                          const double *d_B, size_t ldb, double beta, double *d_C, size_t ldc, cudaStream_t stream);

/* gpuh_op: how gpuh_gemm reads a matrix operand, as BLAS's transa / transb:
   GPUH_OP_N as it is stored, GPUH_OP_T transposed (the stored matrix read by
   columns). See gpuh_gemm's transposing overload in [SECTION: GEMM]. In
   C++ its underlying type is int, as it is in C, so that any int is a value
   of it: a wrong one passed from C is refused by gpuh_gemm's check, not
   undefined behaviour. */
typedef enum gpuh_op
#ifdef __cplusplus
    : int
#endif
{ GPUH_OP_N = 0, GPUH_OP_T = 1 } gpuh_op;

cudaError_t gpuh_gemm_op_f32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                             const float *d_A, size_t lda, const float *d_B, size_t ldb, float beta, float *d_C,
                             size_t ldc, cudaStream_t stream);
cudaError_t gpuh_gemm_op_f64(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, double alpha,
                             const double *d_A, size_t lda, const double *d_B, size_t ldb, double beta,
                             double *d_C, size_t ldc, cudaStream_t stream);

/* gpuh_bf16, gpuh_f16: a bfloat16 or fp16 value as C sees it, its 16 bits
   (the layout of CUDA's __nv_bfloat16 and __half, so an array of either may
   be passed for the other). For the tensor-core entry points below, whose
   shapes, units and errors are those of the C++ gpuh_gemm for 16-bit inputs
   and of gpuh_gemm_tf32 ([SECTION: TENSOR-CORE GEMM]): gpuh_gemm_bf16 (C in
   float), gpuh_gemm_bf16_bf16 (C in bfloat16), gpuh_gemm_f16,
   gpuh_gemm_f16_f16, gpuh_gemm_tf32_f32 (float inputs read as TF32). */
typedef struct gpuh_bf16 {
    unsigned short bits;
} gpuh_bf16;
typedef struct gpuh_f16 {
    unsigned short bits;
} gpuh_f16;

cudaError_t gpuh_gemm_bf16(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                           const gpuh_bf16 *d_A, size_t lda, const gpuh_bf16 *d_B, size_t ldb, float beta,
                           float *d_C, size_t ldc, cudaStream_t stream);
cudaError_t gpuh_gemm_bf16_bf16(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                const gpuh_bf16 *d_A, size_t lda, const gpuh_bf16 *d_B, size_t ldb, float beta,
                                gpuh_bf16 *d_C, size_t ldc, cudaStream_t stream);
cudaError_t gpuh_gemm_f16(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                          const gpuh_f16 *d_A, size_t lda, const gpuh_f16 *d_B, size_t ldb, float beta, float *d_C,
                          size_t ldc, cudaStream_t stream);
cudaError_t gpuh_gemm_f16_f16(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                              const gpuh_f16 *d_A, size_t lda, const gpuh_f16 *d_B, size_t ldb, float beta,
                              gpuh_f16 *d_C, size_t ldc, cudaStream_t stream);
cudaError_t gpuh_gemm_tf32_f32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                               const float *d_A, size_t lda, const float *d_B, size_t ldb, float beta, float *d_C,
                               size_t ldc, cudaStream_t stream);

#ifdef __cplusplus
} /* extern "C" */
#endif

#if GPUH_HAS_DEVICE_CODE

/* ===========================================================================
   [SECTION: VECTOR ADD]
   =========================================================================== */

/* gpuh_vector_add: d_c[i] = d_a[i] + d_b[i] for n elements of device memory, on
   `stream`; T = float, double or int. n = 0 launches nothing. Any element-
   aligned pointers: 16-byte loads when the three share their offset from a
   16-byte boundary (cudaMalloc'd arrays, and equal offsets into them), one
   element per load otherwise, at the same bandwidth on an H200 (bench/). d_c
   may equal d_a or d_b (in place) but not overlap them otherwise. Integer
   overflow wraps as the device's adder does.
   Errors: cudaErrorInvalidValue (with n > 0: a NULL pointer, one not
   aligned to sizeof(T), n past the end of a gpuh array, or memory a kernel
   cannot reach: pageable host memory, or memory already freed), launch
   errors.
   Idea: the first kernel of every CUDA tutorial, made size-safe and fast. */
template <typename T>
cudaError_t gpuh_vector_add(const T *d_a, const T *d_b, T *d_c, size_t n, cudaStream_t stream = 0);

/* ===========================================================================
   [SECTION: REDUCTIONS]
   =========================================================================== */

/* gpuh_sum / gpuh_min / gpuh_max: op over the n elements d_in[0 .. n-1] into
   the one element *d_out (device memory); T = float, double or int.
   gpuh_dot: Σ d_a[i]·d_b[i]; gpuh_norm2: sqrt(Σ d_x[i]²) (no scaling:
   overflows when Σx² exceeds the type's range); T = float or double.
   Asynchronous on `stream`. d_temp: GPUH_REDUCE_TEMP_BYTES bytes of device
   scratch aligned to 8 bytes, or NULL when n ≤ GPUH_REDUCE_SINGLE_BLOCK_MAX.
   An empty sum, dot or norm is 0. Errors: cudaErrorInvalidValue (a NULL
   or misaligned pointer, d_temp NULL or misaligned when needed, n = 0 for
   min/max, n past the end of a gpuh array, memory a kernel cannot reach:
   pageable host memory, or memory already freed), launch errors.
   Deterministic; accuracy: gpuh_sum_depth. Idea: see gpuh_impl_reduce. */
template <typename T>
cudaError_t gpuh_sum(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0);
template <typename T>
cudaError_t gpuh_min(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0);
template <typename T>
cudaError_t gpuh_max(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0);
template <typename T>
cudaError_t gpuh_dot(const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0);
template <typename T>
cudaError_t gpuh_norm2(const T *d_x, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0);

/* gpuh_sum_depth(n, elem_size): the most roundings any element meets in a
   gpuh_sum of n elements of elem_size bytes (4 or 8). With w = 16 / elem_size
   elements per vector, U = GPUH_REDUCE_UNROLL and B = GPUH_REDUCE_BLOCK: the
   first pass has min(⌈n / (U·w·B)⌉, GPUH_REDUCE_MAX_BLOCKS) blocks, each
   thread folds U vectors per tile of its block's run of at most
   ⌈n / (U·w·B·GPUH_REDUCE_MAX_BLOCKS)⌉ tiles, each vector after log2 w
   pairwise steps; then one leftover element and 8 steps of its block's tree
   (5 shuffle steps, 3 across 8 warps). The second pass, over at most
   GPUH_REDUCE_MAX_BLOCKS partials (one tile), adds U + log2 w + 1 + 8. So a
   float sum is within gpuh_sum_depth(n, 4) · 2^-24 · Σ|x| of the exact sum
   (the classic bound for recursive summation; Higham, "Accuracy and
   Stability of Numerical Algorithms", 2nd ed., ch. 4), and typically far
   closer. For float and n = 2^28: 286 · 2^-24 ≈ 1.7e-5 relative to Σ|x|. The
   same bound holds for gpuh_norm2's Σx², and for gpuh_dot when d_a and d_b
   share their offset from a 16-byte boundary; dot over differently aligned
   arrays goes element by element: pass elem_size 16 (w = 1) for its bound. */
static inline size_t gpuh_sum_depth(size_t n, size_t elem_size);

/* ===========================================================================
   [SECTION: WARP AND BLOCK]
   Reductions inside your own kernels.
   =========================================================================== */

/* a + b; for int, wrapping modulo 2^32 (defined with the memory-bound kernels). */
template <typename T> __device__ __forceinline__ T gpuh_impl_add(T a, T b);

/* The operators, named as libcu++ names its function objects
   (cuda::std::plus, cuda::minimum, cuda::maximum; CUB's Sum, Min, Max):
   op(a, b) must be associative; identity() is its neutral element
   (x op identity == x). Integer sums wrap modulo 2^32 (gpuh_impl_add).
   gpuh_minimum and gpuh_maximum propagate NaN (as NumPy's min and max do):
   a NaN anywhere gives NaN. */
template <typename T> struct gpuh_plus {
    enum { defined_for_empty = 1 }; /* the sum of nothing is 0 */
    __device__ static T identity() { return T(0); }
    __device__ static T apply(T a, T b) { return gpuh_impl_add(a, b); }
};
template <typename T> struct gpuh_minimum {
    enum { defined_for_empty = 0 }; /* NumPy: min of an empty array is an error */
    __device__ static T identity();
    __device__ static T apply(T a, T b) { return (b < a || b != b) ? b : a; }
};
template <typename T> struct gpuh_maximum {
    enum { defined_for_empty = 0 };
    __device__ static T identity();
    __device__ static T apply(T a, T b) { return (b > a || b != b) ? b : a; }
};
template <> __device__ inline float gpuh_minimum<float>::identity() { return __int_as_float(0x7f800000); }
template <> __device__ inline float gpuh_maximum<float>::identity() { return __int_as_float(0xff800000); }
template <> __device__ inline double gpuh_minimum<double>::identity()
{
    return __longlong_as_double(0x7ff0000000000000ll);
}
template <> __device__ inline double gpuh_maximum<double>::identity()
{
    return __longlong_as_double((long long)0xfff0000000000000ull);
}
template <> __device__ inline int gpuh_minimum<int>::identity() { return 0x7fffffff; }
template <> __device__ inline int gpuh_maximum<int>::identity() { return -0x7fffffff - 1; }

/* gpuh_warp_reduce<Op>(v): op over the 32 lanes' v, valid in lane 0 (the
   other lanes hold partial results). Every lane of the warp must call it
   (full mask); Op is gpuh_plus, gpuh_minimum or gpuh_maximum of T, or a
   struct like them.
   After log2(32) = 5 steps lane 0 holds op over all 32 lanes: __shfl_down_sync
   reads a register of the lane `offset` higher, with no shared memory and no
   barrier. Idea: the CUDA Programming Guide's warp shuffle functions;
   J. Luitjens, "Faster Parallel Reductions on Kepler" (NVIDIA blog, 2014). */
template <typename Op, typename T> __device__ __forceinline__ T gpuh_warp_reduce(T v);

/* gpuh_block_reduce<Op>(v): op over every thread's v in a 1-D block, valid in
   thread 0. Every thread of the block must call it (it has a __syncthreads());
   blockDim.x must be a multiple of 32, at most 1024. Uses 32 · sizeof(T) bytes
   of static shared memory; a second call in the same kernel needs a
   __syncthreads() before it, since it reuses that array. Each warp reduces
   itself with shuffles, warp leaders meet in shared memory, and warp 0 reduces
   their totals. Idea: as gpuh_warp_reduce, and CUB's BlockReduce. */
template <typename Op, typename T> __device__ __forceinline__ T gpuh_block_reduce(T v);

/* ===========================================================================
   [SECTION: GEMM]
   C = alpha·A·B + beta·C, row-major. A is M × K (row stride lda), B is K × N
   (ldb), C is M × N (ldc), in elements.
   =========================================================================== */

/* gpuh_gemm: C = alpha·A·B + beta·C for row-major device matrices, as BLAS's
   GEMM without transposes, on `stream`; T = float or double.
   A: M × K, element (i, k) at d_A[i·lda + k], lda ≥ K; B: K × N at
   d_B[k·ldb + j], ldb ≥ N; C: M × N at d_C[i·ldc + j], ldc ≥ N (all in
   elements). Any M, N, K ≥ 0: M or N = 0 does nothing; K = 0 gives
   C = beta·C. beta == 0 never reads C (NaN there does not leak). C must not
   overlap A or B. Fastest with 16-byte-aligned pointers and leading
   dimensions that are multiples of 16 bytes; otherwise a large product
   first copies A or B to aligned workspace (gpuh's memory pool, on
   `stream`), a small one reads them element by element.
   float runs on the CUDA cores (FFMA, no TF32); double on the FP64 tensor
   cores on sm_90 (double-precision arithmetic throughout), on the CUDA
   cores elsewhere; a C of one row or one column (M = 1 or N = 1, K > 0) on
   the matrix-vector kernels (gpuh_gemv_row_kernel, gpuh_gemv_col_kernel),
   which stream A or B once. A C of too few tiles to fill the GPU is split
   along K (split-K: the slices' sums go to a workspace taken on `stream`
   from gpuh's memory pool and freed there with cudaFreeAsync, then one more
   kernel adds them in a fixed order; see gpuh_gemm_with). Deterministic:
   same inputs, shape and SM count, same bits. Errors:
   cudaErrorInvalidValue (a leading dimension below the row length, a
   matrix whose extent overflows size_t, NULL with a non-empty matrix, a
   pointer not aligned to its element, a matrix past the end of its gpuh
   array or in memory a kernel cannot reach: pageable host memory, or
   memory already freed; more than 2^31 - 1 tiles), launch errors,
   cudaFreeAsync's errors; the detail (gpuh_error_detail) names the
   argument and its value. A workspace that cannot be had is no error: the
   product then runs without it.
   Idea: BLAS xGEMM (argument order); CUTLASS's SIMT GEMM and S. Boehm's
   "How to Optimize a CUDA Matmul Kernel" worklog (tiling, warp tiles);
   split-K and Stream-K's data-parallel + split schedule (Osama et al.,
   PPoPP 2023);
   the PTX ISA's mma.sync for FP64. */
template <typename T>
cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda, const T *d_B, size_t ldb,
                      T beta, T *d_C, size_t ldc, cudaStream_t stream = 0);

/* gpuh_gemm with transposes: C = alpha·op(A)·op(B) + beta·C, row-major, as
   BLAS's GEMM with transa = op_a and transb = op_b; T = float or double.
   op(A) is M × K: with op_a = GPUH_OP_N, A is stored M × K (element (i, k)
   at d_A[i·lda + k], lda ≥ K); with GPUH_OP_T, A is stored K × M and
   op(A) = Aᵀ (op(A)'s element (i, k) at d_A[k·lda + i], lda ≥ M). Likewise
   op(B) is K × N: B stored K × N (ldb ≥ N) for GPUH_OP_N, N × K (ldb ≥ K)
   for GPUH_OP_T. C: M × N (ldc ≥ N). Every path serves every op (the tiled
   kernels read a transposed operand along its stored rows, which are
   contiguous, and lay it out in shared memory as the kernel needs; a C of
   one row or column goes to whichever matrix-vector kernel streams the
   stored matrix along its rows). Everything else, the errors included, as
   the gpuh_gemm above (which is op_a = op_b = GPUH_OP_N); an op other than
   GPUH_OP_N or GPUH_OP_T is cudaErrorInvalidValue, and a leading dimension
   below the stored row length names the op ("lda = 5 is less than op(A)'s
   stored row length 7 (op_a = T)").
   Idea: BLAS xGEMM's transa / transb (row-major here, as CBLAS's
   CblasRowMajor). */
template <typename T>
cudaError_t gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda,
                      const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream = 0);

/* gpuh_matmul: C = A · B, the short form of gpuh_gemm (alpha 1, beta 0,
   packed rows: lda = K, ldb = N, ldc = N); T = float or double. M or N = 0
   does nothing; K = 0 sets C to zero. Errors: those of gpuh_gemm. */
template <typename T>
cudaError_t gpuh_matmul(const T *d_A, const T *d_B, T *d_C, size_t M, size_t N, size_t K, cudaStream_t stream = 0);

/* gpuh_gemm_with<Big, Small>: gpuh_gemm with chosen tile configurations
   (gpuh_gemm_simt_config, or gpuh_gemm_dmma_config for double), for tuning.
   It picks the cheapest of three covers of C and of split-K on covers a and
   c, counting the waves of blocks each needs on this GPU (MIN_BLOCKS blocks
   of a configuration per SM; the model: [SECTION: GEMM DISPATCH]):
     a. Big tiles everywhere, the last row and column of tiles partly empty;
     b. Big tiles where they fit whole, and the bottom and right strips left
        over (fewer than Big::BM rows, Big::BN columns) in one launch of
        Small: a 4097³ product is then not a 4096³ one plus a whole extra
        wave of nearly empty big tiles;
     c. Small tiles everywhere: more, smaller blocks keep every SM busy when
        C holds too few big tiles (1024², or one row times a matrix);
     split-K on a or c: each tile's sum over K cut in S slices, S blocks per
        tile, when C holds too few tiles for the GPU (a medium or skinny C
        with a long K): the blocks write their slices' sums to a workspace
        (gpuh's memory pool, GPUH_GEMM_POOL_KEEP, on `stream`; where that
        fails, no split), and gpuh_gemm_split_reduce_kernel adds them in order and
        applies alpha and beta (no atomics: the same bits every call);
     the hybrid on a or c: where the tiles leave a ragged last wave, the
        tile rows (or columns) that fill whole waves run whole, the rest
        in a plan of its own (split along K, or on the small or 64-wide
        tiles of gpuh_gemm's float set) so that it fills the last wave.
   gpuh_gemm's float set tries narrow tiles too (16, 32 and 64 rows or
   columns) for a C of few rows or columns.
   Ties go to the earlier cover. A C of one row or one column (K > 0) goes
   to the matrix-vector kernels, whatever Big and Small are. An A or B that
   is not 16-byte aligned (its pointer or leading dimension) is copied to
   aligned memory first where the copy costs less than element loads would;
   otherwise it runs on covers without an ALIGNED configuration's tiles.
   Where Big and Small are both ALIGNED it is always copied, and where the
   copy cannot be made the call fails (cudaErrorMemoryAllocation).
   Arguments, errors: gpuh_gemm. */
template <typename Big, typename Small, typename T>
cudaError_t gpuh_gemm_with(size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda, const T *d_B,
                           size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream = 0);
/* gpuh_gemm_with<Big, Small>(op_a, op_b, ...): the same with transposes
   (arguments: the transposing gpuh_gemm). */
template <typename Big, typename Small, typename T>
cudaError_t gpuh_gemm_with(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha, const T *d_A,
                           size_t lda, const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream = 0);

/* gpuh_gemm_simt_config: a tile configuration of the CUDA-core kernel
   (gpuh_gemm_simt_kernel), float or double, for gpuh_gemm_with.
   BM × BN: the block's tile of C; BK: the slice of K staged per step;
   WARPS_M × WARPS_N warps, each owning a WM × WN = (BM/WARPS_M) × (BN/WARPS_N)
   piece; inside a warp LANES_M × LANES_N lanes (32 in all), each owning
   TM × TN = (4·RM) × (4·RN) elements of C, in RM × RN blocks of 4 × 4 spaced
   WM/RM rows and WN/RN columns apart (CUTLASS's SIMT layout): a lane's four
   rows (and four columns) are consecutive, so it reads them from shared
   memory as one 16-byte vector, and the 8 (or 4) lanes that differ in them
   read consecutive vectors: no bank conflicts. MIN_BLOCKS: blocks per SM
   promised to __launch_bounds__ (it caps the registers at 64K / (threads ·
   MIN_BLOCKS)). ALIGNED: 1 when the kernel takes only A and B that are
   16-byte aligned with leading dimensions a multiple of 16 bytes (the
   alignment parameter of CUTLASS's kernels): its loads of whole slices
   are then 16 bytes wide without a run-time test, and gpuh_gemm_with runs
   any other A and B on Small's tiles (or, where Small is ALIGNED too, on
   aligned copies of them); 0: any alignment. Shipped: gpuh_sgemm_big (ALIGNED),
   gpuh_sgemm_small, gpuh_sgemm_wide,
   gpuh_sgemm_tall, gpuh_sgemm_wide32, gpuh_sgemm_tall32, gpuh_sgemm_wide64,
   gpuh_sgemm_tall64, gpuh_dgemm_simt
   ([SECTION: GEMM TUNING]). */
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int LANES_M_, int MIN_BLOCKS_, int ALIGNED_ = 0>
struct gpuh_gemm_simt_config {
    enum {
        BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MIN_BLOCKS = MIN_BLOCKS_,
        ALIGNED = ALIGNED_,
        THREADS = 32 * WARPS_M_ * WARPS_N_,
        WM = BM_ / WARPS_M_, WN = BN_ / WARPS_N_,
        LANES_M = LANES_M_, LANES_N = 32 / LANES_M_,
        RM = WM / (4 * LANES_M), RN = WN / (4 * LANES_N), TM = 4 * RM, TN = 4 * RN,
        PAD = 4, /* shared rows of BM + 4 (BN + 4) elements: see gpuh_impl_simt_put */
        A_LOADS = BM_ * BK_ / 4 / THREADS, B_LOADS = BK_ * BN_ / 4 / THREADS,
        SMEM_ELEMS = 2 * BK_ * (BM_ + BN_ + 2 * PAD), /* dynamic shared memory, in elements */
        C_PIECE = LANES_M * 4 * LANES_N /* a warp's piece of C per (i, r): 4 per lane, 128 */
    };
    static_assert(RM >= 1 && RN >= 1 && WM == RM * 4 * LANES_M && WN == RN * 4 * LANES_N, "warp tile");
    static_assert(A_LOADS >= 1 && B_LOADS >= 1 && A_LOADS * 4 * THREADS == BM * BK &&
                      B_LOADS * 4 * THREADS == BK * BN && BK % 4 == 0,
                  "every thread copies whole groups of 4 elements of each tile");
    static_assert(SMEM_ELEMS >= C_PIECE * THREADS / 32, "a piece of C per warp for C's element stores");
};

/* gpuh_gemm_dmma_config: a tile configuration of the FP64 tensor-core kernel
   (gpuh_gemm_dmma_kernel, double, sm_90), for gpuh_gemm_with.
   BM × BN × BK block tile (BK a multiple of 8), WARPS_M × WARPS_N warps,
   each owning (BM/WARPS_M) × (BN/WARPS_N) = (16·MT) × (8·NT) of C as MT × NT
   tiles of 16 × 8, STAGES slices of A and B in flight in shared memory;
   MIN_BLOCKS: blocks per SM promised to __launch_bounds__; MMA_K: the k
   of each mma.sync (8: m16n8k8, 16: m16n8k16; BK a multiple of it); FRAGS:
   fragment buffers in registers (1: each k step's fragments are read from
   shared memory just before its mma.sync; 2: the next k step's are read
   while this one's mma.sync run). Shipped: gpuh_dgemm_big,
   gpuh_dgemm_small, gpuh_dgemm_wide, gpuh_dgemm_wide32, gpuh_dgemm_tall
   ([SECTION: GEMM TUNING]). */
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, int MIN_BLOCKS_, int MMA_K_ = 8,
          int FRAGS_ = 1>
struct gpuh_gemm_dmma_config {
    enum {
        BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, STAGES = STAGES_,
        MIN_BLOCKS = MIN_BLOCKS_, MMA_K = MMA_K_, FRAGS = FRAGS_,
        ALIGNED = 0, /* any alignment: see gpuh_gemm_simt_config */
        THREADS = 32 * WARPS_M_ * WARPS_N_,
        WM = BM_ / WARPS_M_, WN = BN_ / WARPS_N_, MT = WM / 16, NT = WN / 8,
        /* Row strides of the shared tiles in doubles, 4 (mod 16): a half-warp's
           16 fragment reads (4 rows × 4 columns) then hit 16 different bank
           pairs, and every row stays 16-byte aligned for cp.async. */
        LDA = BK_ + 4, LDB = BN_ + 4,
        STAGE = BM_ * (BK_ + 4) + BK_ * (BN_ + 4), /* doubles per stage, op(A) = A, op(B) = B */
        /* bytes of dynamic shared memory, the most any transpose needs (a
           transposed operand's slice is stored as it lies in memory, its
           rows padded by 4 as well) */
        SMEM = STAGES_ * 8 *
               ((BM_ * (BK_ + 4) > BK_ * (BM_ + 4) ? BM_ * (BK_ + 4) : BK_ * (BM_ + 4)) +
                (BK_ * (BN_ + 4) > BN_ * (BK_ + 4) ? BK_ * (BN_ + 4) : BN_ * (BK_ + 4)))
    };
    static_assert(MT * 16 == WM && NT * 8 == WN && BK % 8 == 0 && BN % 16 == 0 && STAGES >= 2 &&
                      (MMA_K == 8 || MMA_K == 16) && BK % MMA_K == 0 && (FRAGS == 1 || FRAGS == 2),
                  "tiles");
};

/* ===========================================================================
   [SECTION: TENSOR-CORE GEMM]
   C = alpha·op(A)·op(B) + beta·C on the tensor cores, from half-precision
   (bfloat16, fp16) or TF32 inputs, accumulated in fp32. Row-major, shapes,
   leading dimensions, ops and argument errors as gpuh_gemm ([SECTION: GEMM]).
   The entry points are templates over their element types, deduced from
   the pointers, so that a file compiles only the products it calls; the
   types themselves come from CUDA's <cuda_bf16.h> and <cuda_fp16.h>, which
   this header includes where it defines the kernels (a file that only
   declares them, GPUH_KERNELS_LIBRARY, includes them itself to name the
   types).
   =========================================================================== */

/* gpuh_impl_tc_types<TIn, TOut>::type: cudaError_t for 16-bit inputs and a
   C of 32 or 16 bits, nothing otherwise, so that these overloads drop out of
   a call with float or double matrices (gpuh_gemm<T> above serves those).
   Which 16-bit types are allowed is checked where they are defined. */
template <bool> struct gpuh_impl_tc_enable {};
template <> struct gpuh_impl_tc_enable<true> {
    typedef cudaError_t type;
};
template <typename TIn, typename TOut>
struct gpuh_impl_tc_types : gpuh_impl_tc_enable<sizeof(TIn) == 2 && (sizeof(TOut) == 4 || sizeof(TOut) == 2)> {};

/* gpuh_gemm for 16-bit inputs: C = alpha·op(A)·op(B) + beta·C with A and B
   (TIn) in bfloat16 (__nv_bfloat16) or fp16 (__half), C (TOut) float or
   TIn, every product and sum in
   fp32 (the products of two 16-bit values are exact in fp32; the sums round
   as fp32 additions do), alpha and beta fp32, C in fp32 or in the input
   type (the fp32 result rounded to nearest, ties to even, once). Shapes and
   leading dimensions in elements, as gpuh_gemm's: op(A) M × K, op(B) K × N,
   C M × N (ldc ≥ N), each operand stored row-major as its op says; any
   M, N, K ≥ 0 (M or N = 0 does nothing, K = 0 gives C = beta·C; beta == 0
   never reads C). Errors, with the detail naming the argument and its value
   exactly as gpuh_gemm's: cudaErrorInvalidValue (an op, a leading
   dimension below the stored row length, an extent past size_t or past
   the gpuh allocation the pointer lies in, a NULL matrix), launch errors,
   the workspace's errors (below).
   Paths. On a GPU with sm_90a code in this program (H100, H200; built with
   -arch=sm_90a or CMake's default architectures) the product runs on
   wgmma.mma_async with its operands loaded into shared memory by the Tensor
   Memory Accelerator (TMA): one warp group loads, two multiply, through a
   ring of shared-memory stages guarded by mbarriers, in tiles of 128 × 256
   of C (128 × 128 where fewer SMs would idle), one persistent block per
   SM, in clusters of 2 that share B's loads where that is sooner; the
   tiles of a last wave or two that would leave SMs idle are shared out
   by K slice, their partial sums (a workspace from the same pool) added
   in a fixed order, so C is bitwise the same on every call. TMA
   reads a matrix whose pointer and
   row stride are multiples of 16 bytes; another A or B (an odd leading
   dimension, an offset pointer) is first copied into an aligned, padded
   workspace from gpuh's memory pool on `stream` (freed there), so it stays
   on the tensor cores (where no workspace can be had, the CUDA-core kernel
   below reads the matrices as they are). When both A's and B's rows start
   off 32-byte boundaries (a row of 16 mod 32 bytes), the smaller of the two
   is copied the same way if the product is large beside the copy. On a GPU of compute capability
   8.0 or later running code without sm_90a's features (A100, A10, L4,
   RTX 30 and 40; an H100 or H200 in a build without sm_90a: code or PTX
   for sm_80, sm_86, sm_89 or plain sm_90, which CMake's default
   architectures include as compute_80 PTX) the product runs on
   mma.sync (m16n8k16 for bfloat16 / fp16, m16n8k8 for TF32) from
   shared-memory tiles of 128 × 128 of C fed by a 4-stage cp.async
   pipeline; an A or B that is not 16-byte aligned is copied into an
   aligned workspace first, as above. Elsewhere (sm_75 and older, the CPU
   simulator) a tiled CUDA-core kernel computes the same rounded inputs'
   product in fp32. A C of at most 64 rows with op_b = T (B stored N × K,
   16-byte aligned rows, K a multiple of 8: a decoding step's batch against
   weights kept as PyTorch's Linear keeps them), for 16-bit inputs on
   sm_80 and later, takes a kernel of its own that reads B once at the
   memory's rate (on sm_90a TMA copies B into shared memory for wgmma,
   elsewhere mma.sync works on the side; K cut in parts where N alone
   leaves SMs idle, the parts added in a fixed order, so the result is
   bitwise the same on every call). Where a product's K is cut in parts (the decode
   kernel, the sm_90a kernel's Stream-K), the parts' counters come from a
   scratch of 16 MiB that each device keeps from the first such call to
   the program's exit, zeroed once and lent to the first stream that asks,
   so that its calls allocate and clear nothing before their launch; other
   streams, and streams being captured into a graph, take and clear their
   own in gpuh's memory pool. Which path runs depends on the image the
   CUDA runtime picked for the device, never on the product's values.
   Results agree with an fp64 product of the same inputs within the
   fp32-accumulation bound over K, on every path.
   Idea: BLAS xGEMM with cuBLAS's cublasGemmEx mixed types (CUDA_R_16BF /
   CUDA_R_16F inputs, CUBLAS_COMPUTE_32F); the PTX ISA's wgmma and
   cp.async.bulk.tensor, mma.sync, ldmatrix and cp.async; the public Hopper
   GEMM worklogs (P. Shankhdhar's "Outperforming cuBLAS on H100", CUTLASS's
   sm90 warp-specialised collectives); CUTLASS's sm80 multistage GEMM. */
template <typename TIn, typename TOut>
typename gpuh_impl_tc_types<TIn, TOut>::type gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K,
                                                       float alpha, const TIn *d_A, size_t lda, const TIn *d_B,
                                                       size_t ldb, float beta, TOut *d_C, size_t ldc,
                                                       cudaStream_t stream = 0);
/* The same without transposes (op_a = op_b = GPUH_OP_N). */
template <typename TIn, typename TOut>
typename gpuh_impl_tc_types<TIn, TOut>::type gpuh_gemm(size_t M, size_t N, size_t K, float alpha, const TIn *d_A,
                                                       size_t lda, const TIn *d_B, size_t ldb, float beta,
                                                       TOut *d_C, size_t ldc, cudaStream_t stream = 0);

/* gpuh_gemm_tf32: C = alpha·op(A)·op(B) + beta·C for float matrices on the
   tensor cores in TF32, chosen per call (gpuh_gemm<float> stays exact FP32
   on the CUDA cores; nothing process-wide changes). Each element of A and B
   is read as TF32: its mantissa cut to its top 10 bits (rounded toward
   zero, as the tensor cores read a float operand and as cuBLAS's
   CUBLAS_COMPUTE_32F_FAST_TF32 does), about 3 decimal digits; products and
   sums in fp32. On sm_90a's tensor cores (an H200, measured) a NaN whose
   payload lies only in the dropped bits reads as an infinity; the
   simulator keeps it a NaN. Arguments, shapes, errors and paths: the
   16-bit gpuh_gemm above, with float C. On sm_90a, TF32 wgmma reads
   K-major operands from shared memory and takes op(A) from registers in
   any layout: op_b = T runs as it is, op_a = N with op_b = N as
   Cᵀ = Bᵀ·Aᵀ (B read from registers, C written transposed), both with no
   extra pass; op_a = T with op_b = N first transposes the smaller of A and
   B into a workspace of gpuh's pool (one read and one write of that
   matrix).
   T is float (a template, as the 16-bit gpuh_gemm, so that only a file
   that calls it compiles its kernels).
   Idea: NVIDIA's TF32 (Ampere whitepaper), cuBLAS's FAST_TF32 compute type. */
template <typename T>
cudaError_t gpuh_gemm_tf32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha, const T *d_A,
                           size_t lda, const T *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                           cudaStream_t stream = 0);
template <typename T>
cudaError_t gpuh_gemm_tf32(size_t M, size_t N, size_t K, float alpha, const T *d_A, size_t lda, const T *d_B,
                           size_t ldb, float beta, float *d_C, size_t ldc, cudaStream_t stream = 0);


/* ===========================================================================
   [SECTION: SEVERAL DEVICES]
   The kernels above on the shards of gpuh.h's device sets (gpuh_devices,
   gpuh_shards): every device works on its own shard on its own stream.
   =========================================================================== */

/* gpuh_sharded_vector_add(set, &a, &b, &c): c := a + b on every device's
   shard at once (gpuh_vector_add; T = float, double, int), enqueued on the
   set's streams: gpuh_devices_sync waits. a, b, c: shards of one split (the
   same element count per device; replicated ones work too). Errors:
   cudaErrorInvalidValue (shards of another set, split or type, NULL),
   those of gpuh_vector_add, named with the device. */
template <typename T>
cudaError_t gpuh_sharded_vector_add(const gpuh_devices *set, const gpuh_shards *a, const gpuh_shards *b,
                                    gpuh_shards *c);

/* gpuh_sharded_sum, gpuh_sharded_min, gpuh_sharded_max(set, &x, &h_result), gpuh_sharded_dot(set,
   &x, &y, &h_result), gpuh_sharded_norm2(set, &x, &h_result): the reduction
   of the whole sharded array (gpuh_sum & co. on each device at once, T as
   theirs), into *h_result on the host; returns when done. The per-device
   results are combined on the host in the set's order, in double (long long
   for int sums), then rounded once to T: deterministic, and as accurate as
   gpuh_sum_depth of the largest shard allows. x must not be replicated; y
   split as x. Uses the set's scratch: one sharded reduction at a time per
   set. Errors: cudaErrorInvalidValue (NULL, shards of another set, split or
   type, n = 0 for min/max), those of the one-device reductions, named with
   the device. */
template <typename T> cudaError_t gpuh_sharded_sum(const gpuh_devices *set, const gpuh_shards *x, T *h_result);
template <typename T> cudaError_t gpuh_sharded_min(const gpuh_devices *set, const gpuh_shards *x, T *h_result);
template <typename T> cudaError_t gpuh_sharded_max(const gpuh_devices *set, const gpuh_shards *x, T *h_result);
template <typename T>
cudaError_t gpuh_sharded_dot(const gpuh_devices *set, const gpuh_shards *x, const gpuh_shards *y, T *h_result);
template <typename T> cudaError_t gpuh_sharded_norm2(const gpuh_devices *set, const gpuh_shards *x, T *h_result);

/* gpuh_sharded_gemm(set, M, N, K, alpha, &A, &B, beta, &C): C = alpha·A·B +
   beta·C split by rows of C: device i computes its rows of C from its rows
   of A and its whole copy of B (gpuh_gemm on each device at once, T = float
   or double), enqueued on the set's streams. A: shards of M rows × K
   (row_elems K); B: replicated K × N (gpuh_replicate_to_device of K·N
   elements); C: shards of M rows × N, split as A. Packed rows (leading
   dimensions K and N). Errors: cudaErrorInvalidValue (a shape that does not
   match M, N, K, named; shards of another set or type), gpuh_gemm's, named
   with the device. Idea: the row-block split of a matrix product (each
   device owns a block of C, so no device waits for another). */
template <typename T>
cudaError_t gpuh_sharded_gemm(const gpuh_devices *set, size_t M, size_t N, size_t K, T alpha, const gpuh_shards *A,
                              const gpuh_shards *B, T beta, gpuh_shards *C);

/* The implementation: every definition in a header-only file and in the
   compiled mode's one implementation file; in a file of the compiled mode
   (GPUH_KERNELS_LIBRARY), only what a kernel of the caller's own uses. */
#include "gpuh/common.cuh"
#if !defined(GPUH_KERNELS_LIBRARY) || defined(GPUH_KERNELS_IMPLEMENTATION)
#include "gpuh/memory.cuh"
#include "gpuh/gemm_kernels.cuh"
#include "gpuh/gemm_tuning.cuh"
#include "gpuh/gemm_dispatch.cuh"
#include "gpuh/tc_kernels.cuh"
#if GPUH_IMPL_TC
#include "gpuh/tc_sm80.cuh"
#include "gpuh/tc_sm90.cuh"
#include "gpuh/tc_decode.cuh"
#include "gpuh/tc_decode_sm90.cuh"
#include "gpuh/tc_dispatch.cuh"
#endif
#include "gpuh/sharded.cuh"
#endif
#include "gpuh/instances.cuh"

#endif /* GPUH_HAS_DEVICE_CODE */

#endif /* GPUH_KERNELS_CUH */
