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

   From C, or to keep templates out of a .cu file, call the typed entry points
   declared below (gpuh_vector_add_f32, gpuh_sum_f64, gpuh_gemm_f32, ...).
   Their definitions are emitted stb-style in exactly one .cu file of the program:

       #define GPUH_KERNELS_IMPLEMENTATION
       #include "gpuh_kernels.cuh"

   Any number of other .cu files may include this header: the kernels and
   launchers are templates, so their copies merge at link time. Link a C
   program with nvcc or g++ (or add -lstdc++): the object nvcc makes needs the
   C++ runtime.

   The warp and block reductions (gpuh_warp_reduce, gpuh_block_reduce, with
   the operators gpuh_op_sum / _min / _max) are public too, for your own
   kernels: see examples/06_row_norms.cu.

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
                                  operators gpuh_op_sum, gpuh_op_min, gpuh_op_max
     [SECTION: GEMM]              gpuh_gemm, gpuh_matmul, gpuh_gemm_with and its
                                  configurations gpuh_gemm_simt_config,
                                  gpuh_gemm_dmma_config
     [SECTION: TENSOR-CORE GEMM]  gpuh_gemm for bfloat16 and fp16 inputs,
                                  gpuh_gemm_tf32 (fp32 accumulation)
     [SECTION: SEVERAL DEVICES]   gpuh_sharded_vector_add, gpuh_sharded_sum & co.,
                                  gpuh_sharded_gemm on gpuh.h's device sets
   The implementation, in the order a call reaches it. Its names start with
   gpuh_impl_ / GPUH_IMPL_: private, they may change without notice.
     [SECTION: MEMORY-BOUND KERNELS]  vector add and the reductions
     [SECTION: GEMM KERNELS]          the tiled kernels (CUDA cores, FP64 tensor
                                      cores) and the matrix-vector kernels
     [SECTION: GEMM TUNING]           the shipped tile sizes (bench/gemm_tune.cu)
     [SECTION: GEMM DISPATCH]         argument checks, the choice of cover, launches
     [SECTION: TENSOR-CORE KERNELS]   the CUDA-core, mma.sync (sm_80) and sm_90a
                                      (wgmma, TMA) kernels
     [SECTION: TENSOR-CORE DISPATCH]  checks, aligned copies, tensor maps, launches
     [SECTION: SHARDED KERNELS]       the sharded launchers and their host combine
     [SECTION: C ENTRY POINTS]        definitions, under GPUH_KERNELS_IMPLEMENTATION
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
/* Threads per block of the vector-add kernel. */
#define GPUH_ADD_BLOCK 256
/* GEMM: tile rows per group of the block order (gpuh_impl_gemm_tile); the
   matrix-vector kernels' threads per block, columns of C per block of the
   row kernel, and loads in flight per thread. */
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
   Typed entry points for C callers (defined under GPUH_KERNELS_IMPLEMENTATION).
   Shapes, units and errors are those of the template launchers below.
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

/* The operators: op(a, b) must be associative; identity() is its neutral
   element (x op identity == x). Integer sums wrap modulo 2^32 (gpuh_impl_add). min and max propagate NaN
   (as NumPy's min and max do): a NaN anywhere gives NaN. */
template <typename T> struct gpuh_op_sum {
    enum { defined_for_empty = 1 }; /* the sum of nothing is 0 */
    __device__ static T identity() { return T(0); }
    __device__ static T apply(T a, T b) { return gpuh_impl_add(a, b); }
};
template <typename T> struct gpuh_op_min {
    enum { defined_for_empty = 0 }; /* NumPy: min of an empty array is an error */
    __device__ static T identity();
    __device__ static T apply(T a, T b) { return (b < a || b != b) ? b : a; }
};
template <typename T> struct gpuh_op_max {
    enum { defined_for_empty = 0 };
    __device__ static T identity();
    __device__ static T apply(T a, T b) { return (b > a || b != b) ? b : a; }
};
template <> __device__ inline float gpuh_op_min<float>::identity() { return __int_as_float(0x7f800000); }
template <> __device__ inline float gpuh_op_max<float>::identity() { return __int_as_float(0xff800000); }
template <> __device__ inline double gpuh_op_min<double>::identity()
{
    return __longlong_as_double(0x7ff0000000000000ll);
}
template <> __device__ inline double gpuh_op_max<double>::identity()
{
    return __longlong_as_double((long long)0xfff0000000000000ull);
}
template <> __device__ inline int gpuh_op_min<int>::identity() { return 0x7fffffff; }
template <> __device__ inline int gpuh_op_max<int>::identity() { return -0x7fffffff - 1; }

/* gpuh_warp_reduce<Op>(v): op over the 32 lanes' v, valid in lane 0 (the
   other lanes hold partial results). Every lane of the warp must call it
   (full mask); Op is gpuh_op_sum / _min / _max of T or a struct like them.
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
   to the matrix-vector kernels, whatever Big and Small are.
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
   MIN_BLOCKS)). Shipped: gpuh_sgemm_big, gpuh_sgemm_small, gpuh_sgemm_wide,
   gpuh_sgemm_tall, gpuh_sgemm_wide32, gpuh_sgemm_tall32, gpuh_sgemm_wide64,
   gpuh_sgemm_tall64, gpuh_dgemm_simt
   ([SECTION: GEMM TUNING]). */
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int LANES_M_, int MIN_BLOCKS_>
struct gpuh_gemm_simt_config {
    enum {
        BM = BM_, BN = BN_, BK = BK_, WARPS_M = WARPS_M_, WARPS_N = WARPS_N_, MIN_BLOCKS = MIN_BLOCKS_,
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

/* The half-precision types: CUDA's headers; on the simulator its stand-ins,
   named by their path beside this header (sim/include in a checkout,
   gpuh_sim/ in an install), never CUDA's own, which would clash with the
   simulator even where a toolkit is on the default include path. Without
   them (the headers copied alone) this section is left out there.
   GPUH_IMPL_TC: 1 where it is compiled. */
#ifdef GPUH_SIM
#ifdef __has_include
#if __has_include("sim/include/cuda_bf16.h")
#include "sim/include/cuda_fp16.h"
#include "sim/include/cuda_bf16.h"
#elif __has_include("gpuh_sim/cuda_bf16.h")
#include "gpuh_sim/cuda_fp16.h"
#include "gpuh_sim/cuda_bf16.h"
#endif
#endif
#if defined(GPUH_SIM_CUDA_FP16_H) && defined(GPUH_SIM_CUDA_BF16_H)
#define GPUH_IMPL_TC 1
#else
#define GPUH_IMPL_TC 0
#endif
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define GPUH_IMPL_TC 1
#endif

#if GPUH_IMPL_TC

/* ===========================================================================
   [SECTION: TENSOR-CORE GEMM]
   C = alpha·op(A)·op(B) + beta·C on the tensor cores, from half-precision
   (bfloat16, fp16) or TF32 inputs, accumulated in fp32. Row-major, shapes,
   leading dimensions, ops and argument errors as gpuh_gemm ([SECTION: GEMM]).
   =========================================================================== */

/* gpuh_gemm for 16-bit inputs: C = alpha·op(A)·op(B) + beta·C with A and B
   in bfloat16 (__nv_bfloat16) or fp16 (__half), every product and sum in
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
   product in fp32. Which path runs depends on the image the CUDA runtime
   picked for the device, never on the product's values. Results agree
   with an fp64 product of the same inputs within the fp32-accumulation
   bound over K, on every path.
   Idea: BLAS xGEMM with cuBLAS's cublasGemmEx mixed types (CUDA_R_16BF /
   CUDA_R_16F inputs, CUBLAS_COMPUTE_32F); the PTX ISA's wgmma and
   cp.async.bulk.tensor, mma.sync, ldmatrix and cp.async; the public Hopper
   GEMM worklogs (P. Shankhdhar's "Outperforming cuBLAS on H100", CUTLASS's
   sm90 warp-specialised collectives); CUTLASS's sm80 multistage GEMM. */
static inline cudaError_t gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                    const __nv_bfloat16 *d_A, size_t lda, const __nv_bfloat16 *d_B, size_t ldb,
                                    float beta, float *d_C, size_t ldc, cudaStream_t stream = 0);
static inline cudaError_t gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                    const __nv_bfloat16 *d_A, size_t lda, const __nv_bfloat16 *d_B, size_t ldb,
                                    float beta, __nv_bfloat16 *d_C, size_t ldc, cudaStream_t stream = 0);
static inline cudaError_t gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                    const __half *d_A, size_t lda, const __half *d_B, size_t ldb, float beta,
                                    float *d_C, size_t ldc, cudaStream_t stream = 0);
static inline cudaError_t gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                    const __half *d_A, size_t lda, const __half *d_B, size_t ldb, float beta,
                                    __half *d_C, size_t ldc, cudaStream_t stream = 0);
/* The same without transposes (op_a = op_b = GPUH_OP_N). */
static inline cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, float alpha, const __nv_bfloat16 *d_A, size_t lda,
                                    const __nv_bfloat16 *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                                    cudaStream_t stream = 0);
static inline cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, float alpha, const __nv_bfloat16 *d_A, size_t lda,
                                    const __nv_bfloat16 *d_B, size_t ldb, float beta, __nv_bfloat16 *d_C,
                                    size_t ldc, cudaStream_t stream = 0);
static inline cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, float alpha, const __half *d_A, size_t lda,
                                    const __half *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                                    cudaStream_t stream = 0);
static inline cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, float alpha, const __half *d_A, size_t lda,
                                    const __half *d_B, size_t ldb, float beta, __half *d_C, size_t ldc,
                                    cudaStream_t stream = 0);

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
   Idea: NVIDIA's TF32 (Ampere whitepaper), cuBLAS's FAST_TF32 compute type. */
static inline cudaError_t gpuh_gemm_tf32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                         const float *d_A, size_t lda, const float *d_B, size_t ldb, float beta,
                                         float *d_C, size_t ldc, cudaStream_t stream = 0);
static inline cudaError_t gpuh_gemm_tf32(size_t M, size_t N, size_t K, float alpha, const float *d_A, size_t lda,
                                         const float *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                                         cudaStream_t stream = 0);

#endif /* GPUH_IMPL_TC */

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

/* gpuh_sharded_sum / _min / _max(set, &x, &h_result), gpuh_sharded_dot(set,
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

/* ===========================================================================
   [SECTION: MEMORY-BOUND KERNELS]
   Vector add and the reductions do almost no arithmetic per byte, so their
   speed is the rate at which they move bytes. Three habits get them to the
   memory ceiling: 16-byte loads (a warp then moves 512 bytes per instruction),
   several independent loads in flight per thread before any is used (UNROLL),
   and neighbouring threads on neighbouring addresses (coalescing).
   =========================================================================== */

/* The 16-byte vector type of T: float4, double2, int4. */
template <typename T> struct gpuh_vec16;
template <> struct gpuh_vec16<float> { typedef float4 type; };
template <> struct gpuh_vec16<double> { typedef double2 type; };
template <> struct gpuh_vec16<int> { typedef int4 type; };


/* Elements of p before its first 16-byte boundary (0 if p is aligned), at most n.
   A vector load needs a 16-byte-aligned address, so the kernels do these
   elements one at a time and the rest as vectors. */
template <typename T> static inline size_t gpuh_impl_head(const T *p, size_t n)
{
    const size_t misalign = (size_t)((uintptr_t)p % 16);
    const size_t head = misalign ? (16 - misalign) / sizeof(T) : 0;
    return head < n ? head : n;
}

/* Index of the r-th element that is not covered by vectors: the `head`
   elements before the first vector, then the ones after the last. */
__device__ __forceinline__ size_t gpuh_impl_rest_index(size_t r, size_t head, size_t vec_end)
{
    return r < head ? r : vec_end + (r - head);
}

/* Where part `part` of `parts` begins when `count` items are split into
   `parts` contiguous runs as evenly as integers allow (CUB's "even share"):
   run p is [share(p), share(p + 1)), and share(parts) == count. */
__device__ __forceinline__ size_t gpuh_impl_share(size_t count, size_t part, size_t parts)
{
    return count / parts * part + count % parts * part / parts;
}

/* ---------------------------------------------------------------------------
   Vector add: c[i] = a[i] + b[i] for 0 ≤ i < n. */

/* a + b; for int, wrapping modulo 2^32 (added as unsigned, where wrapping is
   defined, instead of signed, where overflow is undefined behaviour). */
template <typename T> __device__ __forceinline__ T gpuh_impl_add(T a, T b)
{
    return a + b;
}
template <> __device__ __forceinline__ int gpuh_impl_add<int>(int a, int b)
{
    return (int)((unsigned)a + (unsigned)b);
}

/* Each block handles tiles of GPUH_ADD_UNROLL × blockDim.x vectors V: thread t
   takes vectors t, t + blockDim.x, t + 2·blockDim.x, ... of the tile, so each
   load instruction of a warp covers 32 consecutive vectors, and every thread
   has 2 × GPUH_ADD_UNROLL loads in flight before its first add. Blocks step
   through the tiles grid-stride, so any grid covers any n (64-bit indices).
   V is the 16-byte vector of T (a warp's load then moves 512 bytes) when a, b
   and c share their offset from a 16-byte boundary; elements that do not fill
   a vector (the `head` before the first 16-byte boundary, and those after the
   last full vector) are added one per thread. Otherwise no offset aligns all
   three, and V = T: the same tiles, one element per load (head is then 0).
   The pointers are not __restrict__: c may be a or b (an in-place add).
   Grid: 1-D, any size; block: 1-D, ≤ GPUH_ADD_BLOCK threads. */
template <typename T, typename V>
__global__ void __launch_bounds__(GPUH_ADD_BLOCK)
    gpuh_vector_add_kernel(const T *g_a, const T *g_b, T *g_c, size_t n, size_t head)
{
    const int W = sizeof(V) / sizeof(T); /* elements per vector */
    const size_t nvec = (n - head) / W, vec_end = head + nvec * W;
    const V *g_va = reinterpret_cast<const V *>(g_a + head);
    const V *g_vb = reinterpret_cast<const V *>(g_b + head);
    V *g_vc = reinterpret_cast<V *>(g_c + head);
    const size_t tile = (size_t)GPUH_ADD_UNROLL * blockDim.x;

    for (size_t base = blockIdx.x * tile; base < nvec; base += gridDim.x * tile) {
        V x[GPUH_ADD_UNROLL], y[GPUH_ADD_UNROLL];
#pragma unroll
        for (int u = 0; u < GPUH_ADD_UNROLL; ++u) { /* all loads first: they overlap */
            const size_t j = base + u * blockDim.x + threadIdx.x;
            if (j < nvec) {
                x[u] = g_va[j];
                y[u] = g_vb[j];
            }
        }
#pragma unroll
        for (int u = 0; u < GPUH_ADD_UNROLL; ++u) {
            const size_t j = base + u * blockDim.x + threadIdx.x;
            if (j < nvec) {
                T *px = reinterpret_cast<T *>(&x[u]);
                const T *py = reinterpret_cast<const T *>(&y[u]);
#pragma unroll
                for (int w = 0; w < W; ++w)
                    px[w] = gpuh_impl_add(px[w], py[w]);
                g_vc[j] = x[u];
            }
        }
    }
    for (size_t r = gpuh_global_index(); r < n - nvec * W; r += gpuh_grid_stride()) {
        const size_t i = gpuh_impl_rest_index(r, head, vec_end);
        g_c[i] = gpuh_impl_add(g_a[i], g_b[i]);
    }
}

/* gpuh_vector_add: see [SECTION: VECTOR ADD]. */
template <typename T>
cudaError_t gpuh_vector_add(const T *d_a, const T *d_b, T *d_c, size_t n, cudaStream_t stream)
{
    typedef typename gpuh_vec16<T>::type V;
    const size_t head = gpuh_impl_head(d_a, n);
    const int vectors = gpuh_impl_head(d_b, n) == head && gpuh_impl_head(d_c, n) == head;
    const size_t per_block = GPUH_ADD_BLOCK * GPUH_ADD_UNROLL * (vectors ? sizeof(V) / sizeof(T) : 1);
    size_t blocks = gpuh_ceil_div(n, per_block);
    if (n == 0)
        return cudaSuccess;
    if (d_a == NULL || d_b == NULL || d_c == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_vector_add: %s is NULL (n %zu)",
                              d_a == NULL ? "d_a" : d_b == NULL ? "d_b" : "d_c", n);
    const void *ptrs[3] = {d_a, d_b, d_c};
    const char *names[3] = {"d_a", "d_b", "d_c"};
    for (int i = 0; i < 3; ++i) { /* a misaligned element load faults; n past a gpuh allocation is refused */
        const cudaError_t err = gpuh_impl_check_aligned(ptrs[i], sizeof(T), "gpuh_vector_add", names[i]);
        if (err != cudaSuccess ||
            gpuh_impl_check_extent(ptrs[i], n, sizeof(T), "gpuh_vector_add", names[i]) != cudaSuccess)
            return err != cudaSuccess ? err : cudaErrorInvalidValue;
    }
    if (blocks > GPUH_MAX_GRID_X) /* past the grid limit the loops stride */
        blocks = GPUH_MAX_GRID_X;
    if (vectors)
        return GPUH_LAUNCH((gpuh_vector_add_kernel<T, V>), (unsigned)blocks, GPUH_ADD_BLOCK, 0, stream, d_a, d_b,
                           d_c, n, head);
    return GPUH_LAUNCH((gpuh_vector_add_kernel<T, T>), (unsigned)blocks, GPUH_ADD_BLOCK, 0, stream, d_a, d_b, d_c,
                       n, (size_t)0);
}

/* ---------------------------------------------------------------------------
   Reductions: one value from n, by sum, min or max (and dot, L2 norm). */

/* What is reduced, element by element: x itself, x², or a·b (two inputs). */
struct gpuh_map_x {
    enum { inputs = 1 };
    template <typename T> __device__ static T apply(T a, T) { return a; }
};
struct gpuh_map_square {
    enum { inputs = 1 };
    template <typename T> __device__ static T apply(T a, T) { return a * a; }
};
struct gpuh_map_product {
    enum { inputs = 2 };
    template <typename T> __device__ static T apply(T a, T b) { return a * b; }
};
/* What is done to the final value: nothing, or a square root (L2 norm). */
struct gpuh_post_none {
    template <typename T> __device__ static T apply(T v) { return v; }
};
struct gpuh_post_sqrt {
    template <typename T> __device__ static T apply(T v) { return sqrt(v); }
};

/* gpuh_warp_reduce, gpuh_block_reduce: see [SECTION: WARP AND BLOCK]. */
template <typename Op, typename T> __device__ __forceinline__ T gpuh_warp_reduce(T v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

template <typename Op, typename T> __device__ __forceinline__ T gpuh_block_reduce(T v)
{
    __shared__ T s_warp_totals[32];
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = gpuh_warp_reduce<Op>(v);
    if (lane == 0)
        s_warp_totals[warp] = v;
    /* Every warp's total must be in shared memory before warp 0 reads them. */
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? s_warp_totals[lane] : Op::identity();
        v = gpuh_warp_reduce<Op>(v);
    }
    return v;
}

/* One tile of a thread's share of a reduction: GPUH_REDUCE_UNROLL vectors V
   of each input, thread t taking vectors base + t, base + t + blockDim.x, ...
   (a warp's load covers 32 consecutive vectors), all loaded before any is
   used so that the loads overlap. Each vector's W elements are combined
   pairwise (a tree of depth log2 W), then into acc. FULL: the whole tile lies
   below nvec, so no load needs a bounds check. Returns the new acc. */
template <bool FULL, typename Op, typename Map, typename T, typename V>
__device__ __forceinline__ T gpuh_impl_fold_tile(T acc, const V *g_va, const V *g_vb, size_t base, size_t nvec)
{
    const int W = sizeof(V) / sizeof(T);
    V x[GPUH_REDUCE_UNROLL], y[GPUH_REDUCE_UNROLL];
#pragma unroll
    for (int u = 0; u < GPUH_REDUCE_UNROLL; ++u) { /* all loads first: they overlap */
        const size_t j = base + u * blockDim.x + threadIdx.x;
        if (FULL || j < nvec) {
            x[u] = g_va[j];
            y[u] = Map::inputs == 2 ? g_vb[j] : x[u];
        }
    }
#pragma unroll
    for (int u = 0; u < GPUH_REDUCE_UNROLL; ++u) {
        const size_t j = base + u * blockDim.x + threadIdx.x;
        if (FULL || j < nvec) {
            const T *px = reinterpret_cast<const T *>(&x[u]);
            const T *py = reinterpret_cast<const T *>(&y[u]);
            T v[W];
#pragma unroll
            for (int w = 0; w < W; ++w)
                v[w] = Map::apply(px[w], py[w]);
#pragma unroll
            for (int step = 1; step < W; step *= 2)
#pragma unroll
                for (int w = 0; w + step < W; w += 2 * step)
                    v[w] = Op::apply(v[w], v[w + step]);
            acc = Op::apply(acc, v[0]);
        }
    }
    return acc;
}

/* Each block writes Post(op over its share of Map(a[i], b[i])) to
   g_out[blockIdx.x]. The array is cut into tiles of GPUH_REDUCE_UNROLL ×
   blockDim.x vectors V, and block b folds the contiguous run of tiles
   gpuh_impl_share(tiles, b, gridDim.x) .. (b + 1) into one register per
   thread (gpuh_impl_fold_tile: coalesced loads, GPUH_REDUCE_UNROLL of them in
   flight per input; only the array's last tile checks bounds). V is the
   16-byte vector of T when the inputs share their offset from a 16-byte
   boundary; the elements outside whole vectors (`head` as in
   gpuh_vector_add_kernel) are then folded one per thread at the end. V = T
   (head 0) when two inputs are aligned differently. The block then combines
   its threads (gpuh_block_reduce).
   Launched twice: over the input with up to GPUH_REDUCE_MAX_BLOCKS blocks,
   writing partials, then with one block over the partials. The grid depends
   on n alone, and every step has a fixed order, so a result is the same bit
   for bit on every run over the same data at the same address, on any GPU.
   Contiguous runs per block (CUB's even share, rather than all blocks
   striding through the array together), full tiles without bounds checks and
   the pairwise fold per vector are what bring it to CUB's bandwidth
   (bench/results/NOTES.md).
   Grid: 1-D; block: GPUH_REDUCE_BLOCK threads (a multiple of 32). */
template <typename Op, typename Map, typename Post, typename T, typename V>
__global__ void __launch_bounds__(GPUH_REDUCE_BLOCK)
    gpuh_reduce_kernel(const T *__restrict__ g_a, const T *__restrict__ g_b, size_t n, size_t head,
                       T *__restrict__ g_out)
{
    const int W = sizeof(V) / sizeof(T);
    const size_t nvec = (n - head) / W, vec_end = head + nvec * W;
    const V *g_va = reinterpret_cast<const V *>(g_a + head);
    const V *g_vb = reinterpret_cast<const V *>(g_b + head);
    const size_t tile = (size_t)GPUH_REDUCE_UNROLL * blockDim.x, tiles = (nvec + tile - 1) / tile;
    const size_t t_end = gpuh_impl_share(tiles, blockIdx.x + 1, gridDim.x);
    T acc = Op::identity();

    for (size_t t = gpuh_impl_share(tiles, blockIdx.x, gridDim.x); t < t_end; ++t) {
        if ((t + 1) * tile <= nvec)
            acc = gpuh_impl_fold_tile<true, Op, Map>(acc, g_va, g_vb, t * tile, nvec);
        else
            acc = gpuh_impl_fold_tile<false, Op, Map>(acc, g_va, g_vb, t * tile, nvec);
    }
    for (size_t r = gpuh_global_index(); r < n - nvec * W; r += gpuh_grid_stride()) {
        const size_t i = gpuh_impl_rest_index(r, head, vec_end);
        acc = Op::apply(acc, Map::apply(g_a[i], Map::inputs == 2 ? g_b[i] : g_a[i]));
    }
    acc = gpuh_block_reduce<Op>(acc);
    if (threadIdx.x == 0)
        g_out[blockIdx.x] = Post::apply(acc);
}

/* One reduction pass over n elements into g_out[0 .. blocks-1]: the kernel
   with 16-byte vectors when a and b (if used) share their offset from a
   16-byte boundary, else element by element. */
template <typename Op, typename Map, typename Post, typename T>
cudaError_t gpuh_impl_reduce_pass(const T *d_a, const T *d_b, size_t n, T *d_out, size_t blocks,
                                  cudaStream_t stream)
{
    typedef typename gpuh_vec16<T>::type V;
    const size_t head = gpuh_impl_head(d_a, n);
    if (Map::inputs == 2 && gpuh_impl_head(d_b, n) != head)
        return GPUH_LAUNCH((gpuh_reduce_kernel<Op, Map, Post, T, T>), (unsigned)blocks, GPUH_REDUCE_BLOCK, 0,
                           stream, d_a, d_b, n, (size_t)0, d_out);
    return GPUH_LAUNCH((gpuh_reduce_kernel<Op, Map, Post, T, V>), (unsigned)blocks, GPUH_REDUCE_BLOCK, 0, stream,
                       d_a, d_b, n, head, d_out);
}

/* gpuh_impl_reduce<Op, Map, Post>: *d_out = Post(op over Map(d_a[i], d_b[i]))
   for i < n (device memory; d_b only for two-input maps), enqueued on
   `stream`. d_temp: GPUH_REDUCE_TEMP_BYTES of device scratch aligned to
   sizeof(T) (cudaMalloc'd memory is), unused (may be NULL) when
   n ≤ GPUH_REDUCE_SINGLE_BLOCK_MAX. One launch for small n, two otherwise.
   Deterministic: the same input at the same address gives the same bits
   (the address's offset from a 16-byte boundary decides which elements are
   loaded one by one, and so the order of the additions). For n = 0 a sum is 0 and
   min/max are an error. Errors: cudaErrorInvalidValue (a NULL pointer, NULL
   d_temp when needed, n = 0 for min/max), launch errors.
   Idea: Mark Harris, "Optimizing Parallel Reduction in CUDA" (2007), with
   warp shuffles and vector loads; CUB's DeviceReduce for the scratch buffer
   and the even share of tiles between blocks. */
template <typename Op, typename Map, typename Post, typename T>
cudaError_t gpuh_impl_reduce(const char *fn, const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp,
                             cudaStream_t stream)
{
    typedef typename gpuh_vec16<T>::type V;
    const size_t per_block = GPUH_REDUCE_BLOCK * GPUH_REDUCE_UNROLL * (sizeof(V) / sizeof(T));
    size_t blocks = gpuh_ceil_div(n, per_block);
    cudaError_t err;
    if (d_out == NULL || (n > 0 && (d_a == NULL || d_b == NULL)))
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s is NULL (n %zu)", fn,
                              d_out == NULL ? "d_out" : d_a == NULL ? "the input" : "the second input", n);
    if (n == 0 && !Op::defined_for_empty)
        return gpuh_fail(cudaErrorInvalidValue, "%s: n is 0 and the operation has no identity", fn);
    /* a misaligned element access faults */
    if ((err = gpuh_impl_check_aligned(d_out, sizeof(T), fn, "d_out")) != cudaSuccess ||
        (n > 0 && (err = gpuh_impl_check_aligned(d_a, sizeof(T), fn, "the input")) != cudaSuccess) ||
        (n > 0 && (err = gpuh_impl_check_aligned(d_b, sizeof(T), fn, "the second input")) != cudaSuccess))
        return err;
    if (blocks > 1 && d_temp == NULL)
        return gpuh_fail(cudaErrorInvalidValue,
                              "%s: d_temp is NULL; n = %zu needs GPUH_REDUCE_TEMP_BYTES of scratch", fn, n);
    if (blocks > 1 && (uintptr_t)d_temp % sizeof(T) != 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s: d_temp %p is not aligned to %zu bytes", fn, d_temp,
                              sizeof(T));
    /* n past the end of a gpuh allocation, or memory no kernel can reach
       (d_out even for n = 0: an empty sum writes it) */
    if ((err = gpuh_impl_check_extent(d_out, 1, sizeof(T), fn, "d_out")) != cudaSuccess ||
        (err = gpuh_impl_check_extent(d_a, n, sizeof(T), fn, "the input")) != cudaSuccess ||
        (Map::inputs == 2 && (err = gpuh_impl_check_extent(d_b, n, sizeof(T), fn, "the second input")) != cudaSuccess) ||
        (blocks > 1 && (err = gpuh_impl_check_extent(d_temp, GPUH_REDUCE_TEMP_BYTES, 1, fn, "d_temp")) != cudaSuccess))
        return err;
    if (n == 0) /* an empty sum, dot or norm is 0: all-zero bits in every T here */
        return cudaMemsetAsync(d_out, 0, sizeof(T), stream);
    if (blocks <= 1)
        return gpuh_impl_reduce_pass<Op, Map, Post>(d_a, d_b, n, d_out, 1, stream);
    if (blocks > GPUH_REDUCE_MAX_BLOCKS)
        blocks = GPUH_REDUCE_MAX_BLOCKS;
    T *d_partials = static_cast<T *>(d_temp);
    err = gpuh_impl_reduce_pass<Op, Map, gpuh_post_none>(d_a, d_b, n, d_partials, blocks, stream);
    if (err != cudaSuccess)
        return err;
    return gpuh_impl_reduce_pass<Op, gpuh_map_x, Post>(d_partials, d_partials, blocks, d_out, 1, stream);
}

/* gpuh_sum_depth: see [SECTION: REDUCTIONS]. */
static inline size_t gpuh_sum_depth(size_t n, size_t elem_size)
{
    const size_t w = 16 / elem_size, log2w = w >= 4 ? 2 : w == 2 ? 1 : 0;
    const size_t tiles = gpuh_ceil_div(n, (size_t)GPUH_REDUCE_UNROLL * w * GPUH_REDUCE_BLOCK);
    const size_t first = GPUH_REDUCE_UNROLL * gpuh_ceil_div(tiles, GPUH_REDUCE_MAX_BLOCKS) + log2w + 1 + 8;
    return first + GPUH_REDUCE_UNROLL + log2w + 1 + 8;
}

/* gpuh_sum, gpuh_min, gpuh_max, gpuh_dot, gpuh_norm2: see [SECTION: REDUCTIONS]. */
template <typename T>
cudaError_t gpuh_sum(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_op_sum<T>, gpuh_map_x, gpuh_post_none>("gpuh_sum", d_in, d_in, n, d_out, d_temp,
                                                                        stream);
}
template <typename T>
cudaError_t gpuh_min(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_op_min<T>, gpuh_map_x, gpuh_post_none>("gpuh_min", d_in, d_in, n, d_out, d_temp,
                                                                        stream);
}
template <typename T>
cudaError_t gpuh_max(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_op_max<T>, gpuh_map_x, gpuh_post_none>("gpuh_max", d_in, d_in, n, d_out, d_temp,
                                                                        stream);
}
template <typename T>
cudaError_t gpuh_dot(const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_op_sum<T>, gpuh_map_product, gpuh_post_none>("gpuh_dot", d_a, d_b, n, d_out,
                                                                              d_temp, stream);
}
template <typename T>
cudaError_t gpuh_norm2(const T *d_x, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_op_sum<T>, gpuh_map_square, gpuh_post_sqrt>("gpuh_norm2", d_x, d_x, n, d_out,
                                                                             d_temp, stream);
}

/* ===========================================================================
   [SECTION: GEMM KERNELS]
   Two kernels, both templates over their tile sizes (gpuh_gemm_with and
   bench/gemm_tune.cu try other tiles):
   - gpuh_gemm_simt_kernel: float (and double where there are no FP64 tensor
     cores) on the CUDA cores, one FMA per multiply-add;
   - gpuh_gemm_dmma_kernel: double on the FP64 tensor cores of sm_90 (H100,
     H200) with mma.sync; the CUDA-core kernel stands in on other GPUs.
   A C of one row or one column goes to two matrix-vector kernels instead
   (gpuh_gemv_row_kernel, gpuh_gemv_col_kernel), bound by memory.
   A launch covers up to two rectangular parts of C (gpuh_impl_gemm_args):
   the launcher (gpuh_gemm_with) covers C with big tiles, with small ones,
   or with big tiles where they fit whole and the ragged bottom and right
   strips in a second launch of small ones, whichever needs the fewest
   waves of blocks. Tiles are numbered in groups of GPUH_GEMM_GROUP_M tile rows
   (gpuh_impl_gemm_tile), so that blocks running at the same time share
   rows of A and columns of B in the L2 cache.
   =========================================================================== */

/* One rectangular part of C and the corners of A and B that feed it. */
template <typename T> struct gpuh_impl_gemm_part {
    const T *A; /* first row of A the part needs */
    const T *B; /* first column of B */
    T *C;       /* top-left element of the part */
    size_t M, N;
    unsigned tiles_m, tiles_n;
};
/* A launch's arguments: of each `tiles` consecutive blocks, [0, part0_tiles)
   do part[0], the rest part[1]. Split-K (work not NULL; one part, all of C):
   block b does tile b % tiles over K's slice [s·k_chunk, (s + 1)·k_chunk),
   s = b / tiles, and writes its raw sums to slice s of the workspace (each
   slice part[0].M rows of ldw elements, ldw a multiple of 4), which
   gpuh_gemm_split_reduce_kernel then adds up in order into C. */
template <typename T> struct gpuh_impl_gemm_args {
    gpuh_impl_gemm_part<T> part[2];
    unsigned part0_tiles, tiles;
    size_t K, lda, ldb, ldc;
    T alpha, beta;
    T *work;
    size_t k_chunk, ldw;
    bool vec_c; /* C 16-byte aligned, ldc a multiple of 16 bytes: 16-byte stores */
};

/* This block's part of C and its tile (tm, tn) there. Consecutive blocks walk
   down a group of GPUH_GEMM_GROUP_M tile rows before moving one tile column
   to the right (the "grouped" order of the Triton matmul tutorial): the
   blocks in flight then read a few rows of A and a few columns of B, which
   stay in L2, instead of one row of A and every column of B. */
template <typename T>
__device__ __forceinline__ gpuh_impl_gemm_part<T> gpuh_impl_gemm_tile(const gpuh_impl_gemm_args<T> &p, unsigned b,
                                                                     unsigned &tm, unsigned &tn)
{
    const bool second = b >= p.part0_tiles;
    const gpuh_impl_gemm_part<T> g = second ? p.part[1] : p.part[0];
    const unsigned long long id = b - (second ? p.part0_tiles : 0u);
    const unsigned long long width = (unsigned long long)GPUH_GEMM_GROUP_M * g.tiles_n;
    const unsigned long long first = id / width * GPUH_GEMM_GROUP_M;
    const unsigned long long rows = g.tiles_m - first < GPUH_GEMM_GROUP_M ? g.tiles_m - first : GPUH_GEMM_GROUP_M;
    tm = (unsigned)(first + id % width % rows);
    tn = (unsigned)(id % width / rows);
    return g;
}

/* Where a block's sums go and the part of K it sums over. Without split-K:
   C of its part, with alpha and beta, over all of K. With split-K: block b
   sums K's slice s = b / tiles into slice s of the workspace, raw (alpha 1,
   beta 0, rows of ldw, 16-byte aligned: `vec`). */
template <typename T> struct gpuh_impl_gemm_out {
    T *C;
    size_t ldc, k_begin, k_end;
    T alpha, beta;
    bool vec;
    unsigned tile; /* the block's tile number, for gpuh_impl_gemm_tile */
};
template <typename T, bool VEC>
__device__ __forceinline__ gpuh_impl_gemm_out<T> gpuh_impl_gemm_split(const gpuh_impl_gemm_args<T> &p)
{
    gpuh_impl_gemm_out<T> o;
    if (p.work == NULL) {
        o.C = NULL, o.ldc = p.ldc, o.k_begin = 0, o.k_end = p.K, o.alpha = p.alpha, o.beta = p.beta, o.vec = p.vec_c;
        o.tile = blockIdx.x;
        return o;
    }
    const unsigned s = blockIdx.x / p.tiles;
    o.tile = blockIdx.x - s * p.tiles;
    o.k_begin = s * p.k_chunk;
    o.k_end = p.K - o.k_begin < p.k_chunk ? p.K : o.k_begin + p.k_chunk;
    o.C = p.work + s * p.part[0].M * p.ldw, o.ldc = p.ldw, o.alpha = T(1), o.beta = T(0), o.vec = true;
    return o;
}

/* Four consecutive elements to or from 16-byte-aligned memory, as one float4
   or two double2 (16-byte loads: a quarter of the instructions). */
__device__ __forceinline__ void gpuh_impl_ld4(const float *p, float (&r)[4])
{
    const float4 v = *reinterpret_cast<const float4 *>(p);
    r[0] = v.x, r[1] = v.y, r[2] = v.z, r[3] = v.w;
}
__device__ __forceinline__ void gpuh_impl_ld4(const double *p, double (&r)[4])
{
    const double2 v = reinterpret_cast<const double2 *>(p)[0], w = reinterpret_cast<const double2 *>(p)[1];
    r[0] = v.x, r[1] = v.y, r[2] = w.x, r[3] = w.y;
}
__device__ __forceinline__ void gpuh_impl_st4(float *p, const float (&r)[4])
{
    *reinterpret_cast<float4 *>(p) = make_float4(r[0], r[1], r[2], r[3]);
}
__device__ __forceinline__ void gpuh_impl_st4(double *p, const double (&r)[4])
{
    reinterpret_cast<double2 *>(p)[0] = make_double2(r[0], r[1]);
    reinterpret_cast<double2 *>(p)[1] = make_double2(r[2], r[3]);
}

/* ---------------------------------------------------------------------------
   Asynchronous copies, global → shared (cp.async, sm_80 and later), for the
   FP64 tensor-core kernel: they bypass the registers, so the copies of the
   next slices of A and B run while the block computes on this one. Below
   sm_80, and on the CPU simulator, they compile to ordinary copies
   (finished when issued; commit and wait do nothing), so that every build
   of the header compiles. Idea: the PTX ISA's cp.async, as CUTLASS's
   multistage GEMMs use it. */
__device__ __forceinline__ void gpuh_impl_cp_async16(void *s_dst, const void *g_src)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"((unsigned)__cvta_generic_to_shared(s_dst)),
                 "l"(g_src));
#else
    *static_cast<float4 *>(s_dst) = *static_cast<const float4 *>(g_src);
#endif
}
/* One element (float or double); zero when !inside, and then g_src (which
   must still be a valid address) is not read: the edges of the matrices. */
template <typename T> __device__ __forceinline__ void gpuh_impl_cp_async1(T *s_dst, const T *g_src, bool inside)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"((unsigned)__cvta_generic_to_shared(s_dst)),
                 "l"(g_src), "n"((int)sizeof(T)), "r"(inside ? (int)sizeof(T) : 0));
#else
    *s_dst = inside ? *g_src : T(0);
#endif
}
/* Closes the group of copies this thread issued since the last commit. */
__device__ __forceinline__ void gpuh_impl_cp_async_commit(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.commit_group;\n" ::);
#endif
}
/* Waits until at most N of this thread's groups are still in flight. */
template <int N> __device__ __forceinline__ void gpuh_impl_cp_async_wait(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
#endif
}

/* The block's dynamic shared memory as T (16-byte aligned). */
template <typename T> __device__ __forceinline__ T *gpuh_impl_dynamic_smem(void)
{
#ifdef GPUH_SIM
    return static_cast<T *>(gpuh_sim_dynamic_shared());
#else
    extern __shared__ __align__(16) unsigned char gpuh_impl_smem[];
    return reinterpret_cast<T *>(gpuh_impl_smem);
#endif
}

/* Issues the copies of one slice of one operand into shared memory, for the
   FP64 tensor-core kernel: the ROWS × COLS elements of the stored matrix at
   `base` (row stride ld) from row r0, column c0, into s (rows of SLD
   elements), as they lie in memory. rows, cols: the stored matrix's extent,
   past which the slice reads zeros. 16-byte chunks when the slice lies
   inside the matrix (`full`) and VEC (16-byte-aligned rows); otherwise one
   element at a time. Chunk tid + i·THREADS is row r + i·STEP, columns
   c .. c + W - 1: consecutive threads take consecutive chunks (coalesced),
   and each thread's chunks are fixed strides from one index (few registers).
   The kernel calls it for op(A)'s slice (A's BM × BK, or Aᵀ's BK × BM as
   stored) and op(B)'s (B's BK × BN, or Bᵀ's BN × BK). */
template <typename T, int ROWS, int COLS, int SLD, int THREADS, bool VEC>
__device__ __forceinline__ void gpuh_impl_cp_slice(T *s, const T *base, size_t ld, size_t r0, size_t c0, size_t rows,
                                                   size_t cols, bool full)
{
    enum { W = 16 / sizeof(T), CHUNKS = ROWS * COLS / W / THREADS, STEP = THREADS / (COLS / W) };
    static_assert(CHUNKS >= 1 && CHUNKS * W * THREADS == ROWS * COLS && COLS % W == 0 && THREADS % (COLS / W) == 0,
                  "every thread copies whole 16-byte chunks of each slice");
    const int tid = threadIdx.x, r = tid / (COLS / W), c = tid % (COLS / W) * W;
    const size_t at = (r0 + r) * ld + c0 + c; /* an index, not a pointer: rows past the edge may not exist */
    s += r * SLD + c;
    if (full && VEC) {
#pragma unroll
        for (int i = 0; i < CHUNKS; ++i)
            gpuh_impl_cp_async16(s + i * STEP * SLD, base + at + i * STEP * ld);
        return;
    }
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i)
#pragma unroll
        for (int j = 0; j < W; ++j) {
            const bool in = full || (r0 + r + i * STEP < rows && c0 + c + j < cols);
            gpuh_impl_cp_async1(s + i * STEP * SLD + j, in ? base + at + i * STEP * ld + j : base, in);
        }
}

/* ---------------------------------------------------------------------------
   The CUDA-core kernel (configuration: gpuh_gemm_simt_config). */

/* The CUDA-core kernel's loads of one slice of one operand into registers:
   the ROWS × COLS elements of the stored matrix at `base` (row stride ld)
   from row r0, column c0; rows, cols: the stored matrix's extent, past which
   it reads zeros. Group q = tid + i·THREADS is row q / (COLS/4), columns
   4·(q % (COLS/4)) .. +3: consecutive threads take consecutive groups
   (coalesced loads). 16-byte loads when the slice lies inside the matrix
   (`full`) and VEC; otherwise one element at a time. */
template <typename T, int ROWS, int COLS, int THREADS, int LOADS, bool VEC>
__device__ __forceinline__ void gpuh_impl_simt_load(const T *base, size_t ld, size_t r0, size_t c0, size_t rows,
                                                    size_t cols, bool full, int tid, T (&r)[LOADS][4])
{
    static_assert(LOADS * 4 * THREADS == ROWS * COLS && COLS % 4 == 0, "whole groups of 4 per thread");
    /* One test for the whole slice, so that the usual case is one run of
       16-byte loads without branches between them. */
    if (full && VEC) {
#pragma unroll
        for (int i = 0; i < LOADS; ++i) {
            const int q = tid + i * THREADS, rr = q / (COLS / 4), cc = q % (COLS / 4) * 4;
            gpuh_impl_ld4(base + (r0 + rr) * ld + c0 + cc, r[i]);
        }
        return;
    }
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const int q = tid + i * THREADS, rr = q / (COLS / 4), cc = q % (COLS / 4) * 4;
        const size_t at = (r0 + rr) * ld + c0 + cc; /* an index: the row may not exist */
#pragma unroll
        for (int j = 0; j < 4; ++j)
            r[i][j] = full || (r0 + rr < rows && c0 + cc + j < cols) ? base[at + j] : T(0);
    }
}

/* Stores what gpuh_impl_simt_load read into a shared slice s[k][x] (rows of
   SLD elements, k along K): as it is when the stored rows run along x (B,
   or Aᵀ), transposed (TRANS) when they run along K (A, or Bᵀ). With rows of
   BM + 4 (BN + 4) elements, the transposed stores of a warp (16 rows × 2
   groups for BK = 8) fall in 32 different banks for floats. */
template <typename T, int COLS, int SLD, int THREADS, int LOADS, bool TRANS>
__device__ __forceinline__ void gpuh_impl_simt_put(T *s, const T (&r)[LOADS][4], int tid)
{
#pragma unroll
    for (int i = 0; i < LOADS; ++i) {
        const int q = tid + i * THREADS, rr = q / (COLS / 4), cc = q % (COLS / 4) * 4;
        if (TRANS)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                s[(cc + j) * SLD + rr] = r[i][j];
        else
            gpuh_impl_st4(&s[rr * SLD + cc], r[i]);
    }
}

/* The CUDA-core kernel's slice of op(A) and op(B) from column (row) k0 of K,
   for the block's tile (m0, n0) of part g: load(k0) into the registers
   r_a, r_b, then store() into one shared buffer. op(A)'s BM × BK slice is
   A's (BM rows of BK, TA false) or Aᵀ's as stored (BK rows of BM, TA); op(B)'s
   BK × BN is B's (BK rows of BN) or Bᵀ's (BN rows of BK, TB). Either way
   shared memory holds s_A[k][m] and s_B[k][n]. It holds references to the
   kernel's values, as a closure would. */
template <typename T, typename Cfg, bool VEC, bool TA, bool TB> struct gpuh_impl_simt_loader {
    enum { BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS, PAD = Cfg::PAD };
    const bool &full_mn;
    const size_t &K;
    const int &tid;
    const gpuh_impl_gemm_part<T> &g;
    const gpuh_impl_gemm_args<T> &p;
    const size_t &m0;
    T (&r_a)[Cfg::A_LOADS][4];
    const size_t &n0;
    T (&r_b)[Cfg::B_LOADS][4];

    __device__ void load(size_t k0) const
    {
        const bool full = full_mn && k0 + BK <= K;
        if (TA)
            gpuh_impl_simt_load<T, BK, BM, THREADS, Cfg::A_LOADS, VEC>(g.A, p.lda, k0, m0, K, g.M, full, tid, r_a);
        else
            gpuh_impl_simt_load<T, BM, BK, THREADS, Cfg::A_LOADS, VEC>(g.A, p.lda, m0, k0, g.M, K, full, tid, r_a);
        if (TB)
            gpuh_impl_simt_load<T, BN, BK, THREADS, Cfg::B_LOADS, VEC>(g.B, p.ldb, n0, k0, g.N, K, full, tid, r_b);
        else
            gpuh_impl_simt_load<T, BK, BN, THREADS, Cfg::B_LOADS, VEC>(g.B, p.ldb, k0, n0, K, g.N, full, tid, r_b);
    }
    __device__ void store(T *s_A, T *s_B) const
    {
        gpuh_impl_simt_put<T, TA ? BM : BK, BM + PAD, THREADS, Cfg::A_LOADS, !TA>(s_A, r_a, tid);
        gpuh_impl_simt_put<T, TB ? BK : BN, BN + PAD, THREADS, Cfg::B_LOADS, TB>(s_B, r_b, tid);
    }
};

/* The origin along one dimension of C (`extent` elements, tiles of B) of
   the tile that owns elements first .. first + B - 1: `first`, or, for a
   last tile that crosses the edge of a C at least B long, extent - B when
   `movable`, so that the tile lies inside C and its slices load without
   bounds checks (16-byte loads where VEC) instead of element by element.
   Both tiles then compute the rows they share; the one before stores them.
   The moved tiles' rates: bench/results/NOTES.md. */
__device__ __forceinline__ size_t gpuh_impl_simt_origin(size_t first, size_t B, size_t extent, bool movable)
{
    return movable && first + B > extent && extent >= B ? extent - B : first;
}

/* gpuh_gemm_simt_kernel: one block computes one BM × BN tile of C (of the
   part gpuh_impl_gemm_tile gives it) as a sum over K in steps of BK:
     1. every thread copies A_LOADS groups of 4 consecutive elements of A's
        BM × BK slice and B_LOADS of B's BK × BN slice from global memory into
        registers (16-byte loads when VEC), and from there into shared
        memory: A transposed (s_A[k][m]), so that a thread's 4 rows of A are
        one 16-byte vector there, as its 4 columns of B are in s_B[k][n].
        TA, TB (op(A) = Aᵀ, op(B) = Bᵀ): the stored matrix is read along its
        rows (16-byte loads still) and stored transposed or not so that
        shared memory holds the same s_A[k][m], s_B[k][n]
        (gpuh_impl_simt_loader); the rest of the kernel is the same;
     2. for each of the BK values of k every thread reads TM elements of A's
        column k and TN of B's row k from shared memory into registers and
        does TM·TN multiply-adds into its accumulators: per element read from
        shared memory it does 64 / 16 = 4 (8 × 8 tile) FMAs, where the one-
        thread-per-element kernel did one per two reads.
   Two shared buffers: while the block computes on one, the next slice's
   global loads are in flight (issued before the compute, stored after it),
   so their latency hides behind the arithmetic; one barrier per step.
   Interior tiles load and store without bounds checks. The last tile of a
   row or column of tiles that C does not fill is moved back to end at C's
   edge where that keeps its loads aligned (gpuh_impl_simt_origin): it then
   loads as an interior tile does and stores only the rows and columns it
   owns. A tile that still crosses the edge (C smaller than a tile, an
   origin that would lose alignment, op(A) = Aᵀ along M), and the last,
   partial step of K, load zeros for elements past the edge, which add
   nothing, and store only the elements inside C.
   VEC: A, B 16-byte aligned and lda, ldb multiples of 4 floats (2 doubles),
   so interior tiles use 16-byte loads; otherwise (an odd leading dimension
   such as 4097, an offset pointer) scalar ones. C's stores are 16 bytes
   wide where C allows it (p.vec_c, a run-time flag), else element by
   element, through shared memory so that a warp writes runs of a row.
   Split-K (p.work): the block sums its slice of K and writes the raw sums
   to its slice of the workspace (gpuh_impl_gemm_split).
   Grid: 1-D, one block per tile of both parts; block: Cfg::THREADS;
   dynamic shared memory SMEM_ELEMS = 2 · BK · (BM + BN + 8) elements.
   Registers, shared memory and no spills of each shipped configuration:
   checked by the compile.budget test (tools/check_budget.py). */
template <typename T, typename Cfg, bool VEC, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS)
    gpuh_gemm_simt_kernel(const gpuh_impl_gemm_args<T> p)
{
    enum { BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, PAD = Cfg::PAD, THREADS = Cfg::THREADS };
    enum { WM = Cfg::WM, WN = Cfg::WN, RM = Cfg::RM, RN = Cfg::RN, TM = Cfg::TM, TN = Cfg::TN };
    typedef T a_slice[BK][BM + PAD]; /* A's slice, transposed: s_A[buf][k][m] */
    typedef T b_slice[BK][BN + PAD]; /* B's slice as it is: s_B[buf][k][n] */
    T *const smem = gpuh_impl_dynamic_smem<T>();
    a_slice *const s_A = reinterpret_cast<a_slice *>(smem);                        /* two buffers, */
    b_slice *const s_B = reinterpret_cast<b_slice *>(smem + 2 * BK * (BM + PAD)); /* then two more */

    unsigned tm, tn;
    gpuh_impl_gemm_out<T> out = gpuh_impl_gemm_split<T, VEC>(p);
    const gpuh_impl_gemm_part<T> g = gpuh_impl_gemm_tile(p, out.tile, tm, tn);
    if (out.C == NULL)
        out.C = g.C;
    /* Moved along N unless B's rows run along N (op(B) = B, 16-byte loads)
       and an origin of N - BN would break their alignment. Not along M when
       op(A) = Aᵀ: moved there, gpuh_sgemm_big's kernels spilled (16-byte
       loads) or ran slower (element loads) as ptxas built them. */
    const size_t m0 = gpuh_impl_simt_origin((size_t)tm * BM, BM, g.M, !TA);
    const size_t n0 = gpuh_impl_simt_origin((size_t)tn * BN, BN, g.N, !VEC || TB || g.N % 4 == 0);
    const size_t K = out.k_end, k_begin = out.k_begin;
    const bool full_mn = m0 + BM <= g.M && n0 + BN <= g.N;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm0 = warp / Cfg::WARPS_N * WM, wn0 = warp % Cfg::WARPS_N * WN; /* the warp's piece */
    const int lm = lane / Cfg::LANES_N, ln = lane % Cfg::LANES_N;              /* the lane's place in it */

    /* The next slice, on its way to shared memory. Each load precedes its
       store, so the zeros are never read; with them ptxas schedules the
       256 × 128 kernel better (1.5 % faster at 2048³ to 8192³ on an H200:
       bench/results/NOTES.md), and g++'s flow analysis of the simulator's
       build has nothing to warn about. */
    T r_a[Cfg::A_LOADS][4] = {}, r_b[Cfg::B_LOADS][4] = {};
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = T(0);

    const gpuh_impl_simt_loader<T, Cfg, VEC, TA, TB> slice = {full_mn, K, tid, g, p, m0, r_a, n0, r_b};

    const size_t steps = (K - k_begin + BK - 1) / BK; /* slices of K, the last maybe partial */
    if (steps > 0) {
        slice.load(k_begin);
        slice.store(&s_A[0][0][0], &s_B[0][0][0]);
    }
    /* The first slice must be in shared memory before anyone reads it. */
    __syncthreads();
    for (size_t s = 0; s < steps; ++s) {
        const int buf = (int)(s % 2);
        if (s + 1 < steps)
            slice.load(k_begin + (s + 1) * BK); /* in flight during the arithmetic below */
        /* Unrolled by 8, not by BK: a fully unrolled BK = 16 step of the
           shipped configuration is larger than the instruction cache, and
           the warps then stall waiting for instructions (ncu's figures and
           the rates: bench/results/NOTES.md). */
#pragma unroll 8
        for (int k = 0; k < BK; ++k) {
            T a[RM][4], b[RN][4]; /* a[r][q]: row wm0 + r·WM/RM + 4·lm + q of the tile */
#pragma unroll
            for (int r = 0; r < RM; ++r)
                gpuh_impl_ld4(&s_A[buf][k][wm0 + r * (WM / RM) + lm * 4], a[r]);
#pragma unroll
            for (int r = 0; r < RN; ++r)
                gpuh_impl_ld4(&s_B[buf][k][wn0 + r * (WN / RN) + ln * 4], b[r]);
            /* Row by row; with 128 accumulators or more (the big tiles, at
               the register limit) each odd row's columns in reverse (a
               serpentine: the FMA that turns the row reuses the operand of
               the one before), and column by column where a thread has more
               columns than rows, but for op TT: the orders in which ptxas
               schedules those tiles fastest (bench/results/NOTES.md; the
               smaller tiles were measured row by row). Either way each
               accumulator sums over k in order: the same bits. */
            if (TM * TN >= 128 && TN > TM && !(TA && TB)) {
#pragma unroll
                for (int j = 0; j < TN; ++j)
#pragma unroll
                    for (int i = 0; i < TM; ++i) {
                        const int ii = j % 2 ? TM - 1 - i : i;
                        acc[ii][j] += a[ii / 4][ii % 4] * b[j / 4][j % 4];
                    }
            } else {
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j) {
                        const int jj = TM * TN >= 128 && i % 2 ? TN - 1 - j : j;
                        acc[i][jj] += a[i / 4][i % 4] * b[jj / 4][jj % 4];
                    }
            }
        }
        /* The other buffer was last read in step s - 1, before the barrier
           that ended it, so it can take slice s + 1 now. */
        if (s + 1 < steps)
            slice.store(&s_A[buf ^ 1][0][0], &s_B[buf ^ 1][0][0]);
        /* Slice s + 1 must be complete before step s + 1 reads it, and step s
           must be done reading `buf` before step s + 1 overwrites it. */
        __syncthreads();
    }

    /* A moved tile stores from where it would have begun: its origin
       rounded up to a multiple of BM (BN). */
    const size_t m_lo = (m0 + BM - 1) / BM * BM, n_lo = (n0 + BN - 1) / BN * BN;
    const bool whole = full_mn && m_lo == m0 && n_lo == n0;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const size_t row = m0 + wm0 + i / 4 * (WM / RM) + lm * 4 + i % 4;
#pragma unroll
        for (int r = 0; r < RN; ++r) {
            const size_t col = n0 + wn0 + r * (WN / RN) + ln * 4, at = row * out.ldc + col;
            T v[4];
#pragma unroll
            for (int j = 0; j < 4; ++j)
                v[j] = out.alpha * acc[i][4 * r + j];
            if (out.vec && (whole || (row >= m_lo && row < g.M && col >= n_lo && col + 4 <= g.N && n0 % 4 == 0))) {
                T *dst = out.C + at;
                if (out.beta != T(0)) {
                    T c[4];
                    gpuh_impl_ld4(dst, c);
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        v[j] += out.beta * c[j];
                }
                gpuh_impl_st4(dst, v);
            } else if (out.vec) { /* an aligned C's edge */
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (whole || (row >= m_lo && row < g.M && col + j >= n_lo && col + j < g.N))
                        out.C[at + j] = out.beta == T(0) ? v[j] : v[j] + out.beta * out.C[at + j];
            } else {
                /* C without 16-byte stores (out.vec is the same in every
                   thread, so the whole warp is here): the warp's LANES_M ×
                   4·LANES_N piece of these columns (C_PIECE elements) passes
                   through its own place in shared memory (the loop's last
                   barrier ended every read of the slices), so that each
                   store covers runs of 4·LANES_N adjacent elements of a row,
                   not 4 lanes × 4 scattered ones: 4 times fewer cache lines
                   per store (bench/results/NOTES.md). */
                enum { PW = 4 * Cfg::LANES_N };
                T *const st = smem + warp * Cfg::C_PIECE;
                __syncwarp(); /* the last piece's reads are done */
                gpuh_impl_st4(&st[lm * PW + ln * 4], v);
                __syncwarp();
                const size_t top = row - 4 * (size_t)lm, left = col - 4 * (size_t)ln;
#pragma unroll 1
                for (int t = 0; t < Cfg::C_PIECE / 32; ++t) {
                    const int e = t * 32 + lane;
                    const size_t rr = top + 4 * (size_t)(e / PW), cc = left + e % PW;
                    if (whole || (rr >= m_lo && rr < g.M && cc >= n_lo && cc < g.N)) {
                        T *dst = out.C + rr * out.ldc + cc;
                        *dst = out.beta == T(0) ? st[e] : st[e] + out.beta * *dst;
                    }
                }
            }
        }
    }
}

/* ---------------------------------------------------------------------------
   The FP64 tensor-core kernel (sm_90; configuration: gpuh_gemm_dmma_config). */

/* The FP64 tensor-core kernel's shared slices for ops TA, TB. Each operand's
   slice is stored as it lies in memory, its rows padded by 4 doubles: op(A)'s
   as s_A[m][k] (rows of BK + 4) or, transposed, s_A[k][m] (rows of BM + 4);
   op(B)'s as s_B[k][n] (BN + 4) or s_B[n][k] (BK + 4). Row strides of 4
   (or 12, mod 16) doubles put a half-warp's 16 fragment reads (4 rows × 4 columns,
   in either orientation) in 16 different bank pairs, and keep every row
   16-byte aligned for cp.async. A stage holds s_A, then s_B. */
template <typename Cfg, bool TA, bool TB> struct gpuh_impl_dmma_layout {
    enum {
        BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK,
        LDA = TA ? BM + 4 : BK + 4, LDB = TB ? BK + 4 : BN + 4,
        A_ELEMS = TA ? BK * LDA : BM * LDA, B_ELEMS = TB ? BN * LDB : BK * LDB,
        STAGE = A_ELEMS + B_ELEMS, /* doubles per stage */
        SMEM = Cfg::STAGES * STAGE * 8
    };
    static_assert(LDA % 8 == 4 && LDB % 8 == 4 && A_ELEMS % 2 == 0, "conflict-free, 16-byte-aligned rows");
    /* op(A)'s element (m, k) and op(B)'s (k, n) in their shared slices */
    static __device__ __forceinline__ int a_at(int m, int k) { return TA ? k * LDA + m : m * LDA + k; }
    static __device__ __forceinline__ int b_at(int k, int n) { return TB ? n * LDB + k : k * LDB + n; }
};

/* Issues the copies of one slice of op(A) and op(B), from column (row) k0 of
   K, into the stage at s_stage: gpuh_impl_cp_slice on each operand as stored;
   zeros from column (row) K on (the end of the block's part of K). */
template <typename Cfg, bool VEC, bool TA, bool TB>
__device__ __forceinline__ void gpuh_impl_dmma_load(double *s_stage, const gpuh_impl_gemm_part<double> &g,
                                                    const gpuh_impl_gemm_args<double> &p, size_t m0, size_t n0,
                                                    size_t k0, size_t K, bool full_mn)
{
    typedef gpuh_impl_dmma_layout<Cfg, TA, TB> L;
    enum { BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS };
    const bool full = full_mn && k0 + BK <= K;
    double *s_B = s_stage + L::A_ELEMS;
    if (TA)
        gpuh_impl_cp_slice<double, BK, BM, L::LDA, THREADS, VEC>(s_stage, g.A, p.lda, k0, m0, K, g.M, full);
    else
        gpuh_impl_cp_slice<double, BM, BK, L::LDA, THREADS, VEC>(s_stage, g.A, p.lda, m0, k0, g.M, K, full);
    if (TB)
        gpuh_impl_cp_slice<double, BN, BK, L::LDB, THREADS, VEC>(s_B, g.B, p.ldb, n0, k0, g.N, K, full);
    else
        gpuh_impl_cp_slice<double, BK, BN, L::LDB, THREADS, VEC>(s_B, g.B, p.ldb, k0, n0, K, g.N, full);
}

/* Reads one k step's fragments, from column (row) kk of the stage at s_A,
   s_B, for the warp whose part of C starts at row wm0, column wn0: lane l,
   g = l / 4, t = l % 4, gets a[i][v] = op(A)[wm0 + 16·i + g + 8·(v % 2)]
   [kk + t + 4·(v / 2)] and b[j][v] = op(B)[kk + t + 4·v][wn0 + 8·j + g], the
   operands of mma.sync m16n8k8 (MMA_K 8: v < 4, v < 2) or m16n8k16 (MMA_K
   16: v < 8, v < 4) .f64 (PTX ISA, "Matrix fragments for mma.m16n8k*"). */
template <typename Cfg, bool TA, bool TB>
__device__ __forceinline__ void gpuh_impl_dmma_frags(const double *s_A, const double *s_B, int kk, int wm0, int wn0,
                                                     int gi, int ti, double (&a)[Cfg::MT][Cfg::MMA_K / 2],
                                                     double (&b)[Cfg::NT][Cfg::MMA_K / 4])
{
    typedef gpuh_impl_dmma_layout<Cfg, TA, TB> L;
#pragma unroll
    for (int i = 0; i < Cfg::MT; ++i)
#pragma unroll
        for (int v = 0; v < Cfg::MMA_K / 2; ++v)
            a[i][v] = s_A[L::a_at(wm0 + i * 16 + gi + 8 * (v % 2), kk + ti + 4 * (v / 2))];
#pragma unroll
    for (int j = 0; j < Cfg::NT; ++j)
#pragma unroll
        for (int v = 0; v < Cfg::MMA_K / 4; ++v)
            b[j][v] = s_B[L::b_at(kk + ti + 4 * v, wn0 + j * 8 + gi)];
}

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
/* D += A·B for one 16 × 8 × 8 tile, FP64 tensor cores (PTX ISA, mma.sync
   m16n8k8 .f64, sm_90), fragments as gpuh_impl_dmma_frags reads them;
   d[i] = D[g + 8·(i / 2)][2t + i % 2]. */
__device__ __forceinline__ void gpuh_impl_dmma(double (&d)[4], const double (&a)[4], const double (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
                 "{%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
}
/* The same for one 16 × 8 × 16 tile (mma.sync m16n8k16 .f64, sm_90): one
   instruction for two of the above. */
__device__ __forceinline__ void gpuh_impl_dmma(double (&d)[4], const double (&a)[8], const double (&b)[4])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0,%1,%2,%3}, "
                 "{%4,%5,%6,%7,%8,%9,%10,%11}, {%12,%13,%14,%15}, {%0,%1,%2,%3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]),
                   "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
}
#endif

/* gpuh_gemm_dmma_kernel: one block computes one BM × BN tile of C in double
   on the FP64 tensor cores. Per slice of BK columns of A (rows of B):
     1. the block copies A's BM × BK slice and B's BK × BN slice into one of
        STAGES shared buffers with cp.async, 16-byte chunks when VEC (else
        8-byte ones), zeros past the edges: A as it is (s_A[m][k]), B as it
        is (s_B[k][n]); the copies of the next STAGES - 1 slices are in
        flight meanwhile;
     2. for each MMA_K values of k, every warp reads its fragments of A (MT
        tiles of 16 × MMA_K) and B (NT of MMA_K × 8) from shared memory and
        issues MT · NT mma.sync, each 16·8·MMA_K multiply-adds, into its
        MT · NT · 4 accumulators per lane. With FRAGS 2 the fragments of the
        next k step (the next slice's first, at the last step) are read
        while this step's mma.sync run, so that the tensor cores do not wait
        for shared memory.
   One barrier per slice, at its last k step once every warp has read that
   step's fragments: then the slice's stage takes the copy of slice + STAGES,
   and each warp leaves the barrier with that step's mma.sync ready to issue
   (at the top of a slice it would first wait for its shared loads, with the
   tensor cores idle).
   Grid: 1-D, one block per tile; block: Cfg::THREADS; dynamic shared memory
   gpuh_impl_dmma_layout<Cfg, TA, TB>::SMEM bytes, at most Cfg::SMEM (above
   48 KiB: the launcher opts in).
   TA, TB: op(A) = Aᵀ, op(B) = Bᵀ, whose slices are copied as they are
   stored and read in that orientation (gpuh_impl_dmma_layout).
   Built only for sm_90 and later (the body is empty elsewhere); the
   launcher checks the kernel's PTX version before choosing it.
   Registers, shared memory (MIN_BLOCKS blocks must fit in an SM) and no
   spills: checked by the compile.budget test (tools/check_budget.py). */
template <typename Cfg, bool VEC, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) gpuh_gemm_dmma_kernel(const gpuh_impl_gemm_args<double> p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef gpuh_impl_dmma_layout<Cfg, TA, TB> L;
    enum { BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES, FRAGS = Cfg::FRAGS };
    enum { MT = Cfg::MT, NT = Cfg::NT, MMA_K = Cfg::MMA_K, KSTEPS = BK / MMA_K };
    static_assert(FRAGS == 1 || KSTEPS % 2 == 0, "two fragment buffers alternate within a slice");
    double *const s_all = gpuh_impl_dynamic_smem<double>(); /* stage s: s_A at s·STAGE, s_B after it */

    unsigned tm, tn;
    gpuh_impl_gemm_out<double> out = gpuh_impl_gemm_split<double, VEC>(p);
    const gpuh_impl_gemm_part<double> g = gpuh_impl_gemm_tile(p, out.tile, tm, tn);
    if (out.C == NULL)
        out.C = g.C;
    const size_t m0 = (size_t)tm * BM, n0 = (size_t)tn * BN, K = out.k_end, k_begin = out.k_begin;
    const bool full_mn = m0 + BM <= g.M && n0 + BN <= g.N;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32, gi = lane / 4, ti = lane % 4;
    const int wm0 = warp / Cfg::WARPS_N * Cfg::WM, wn0 = warp % Cfg::WARPS_N * Cfg::WN;

    double acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                acc[i][j][v] = 0.0;

    const size_t steps = (K - k_begin + BK - 1) / BK; /* slices of K, the last maybe partial */
    /* Prologue: slices 0 .. STAGES - 1 in flight, one commit group each (empty
       groups past the end keep the count that the waits rely on); slice 0
       landed for everyone. */
#pragma unroll
    for (int s = 0; s < STAGES; ++s) {
        if ((size_t)s < steps)
            gpuh_impl_dmma_load<Cfg, VEC, TA, TB>(s_all + s * L::STAGE, g, p, m0, n0, k_begin + (size_t)s * BK, K,
                                                  full_mn);
        gpuh_impl_cp_async_commit();
    }
    gpuh_impl_cp_async_wait<STAGES - 1>();
    __syncthreads();

    double a[FRAGS][MT][MMA_K / 2], b[FRAGS][NT][MMA_K / 4];
    if (FRAGS == 2 && steps > 0)
        gpuh_impl_dmma_frags<Cfg, TA, TB>(s_all, s_all + L::A_ELEMS, 0, wm0, wn0, gi, ti, a[0], b[0]);
    int stage = 0;
    for (size_t s = 0; s < steps; ++s) {
        const double *s_A = s_all + stage * L::STAGE, *s_B = s_A + L::A_ELEMS;
        const int next = stage + 1 == STAGES ? 0 : stage + 1;
#pragma unroll
        for (int q = 0; q < KSTEPS; ++q) {
            const int f = FRAGS == 2 ? q % 2 : 0;
            if (FRAGS == 1)
                gpuh_impl_dmma_frags<Cfg, TA, TB>(s_A, s_B, q * MMA_K, wm0, wn0, gi, ti, a[f], b[f]);
            if (q == KSTEPS - 1) {
                /* This thread's copies of slice s + 1 have landed (at most
                   STAGES - 2 newer groups pending), and everyone's have; every
                   warp holds its last fragments of slice s, whose stage the
                   copy of slice s + STAGES then overwrites. */
                gpuh_impl_cp_async_wait<STAGES - 2>();
                __syncthreads();
                if (s + STAGES < steps)
                    gpuh_impl_dmma_load<Cfg, VEC, TA, TB>(s_all + stage * L::STAGE, g, p, m0, n0,
                                                          k_begin + (s + STAGES) * BK, K, full_mn);
                gpuh_impl_cp_async_commit();
            }
            if (FRAGS == 2) {
                if (q + 1 < KSTEPS)
                    gpuh_impl_dmma_frags<Cfg, TA, TB>(s_A, s_B, (q + 1) * MMA_K, wm0, wn0, gi, ti, a[(f + 1) % FRAGS],
                                                      b[(f + 1) % FRAGS]);
                else if (s + 1 < steps)
                    gpuh_impl_dmma_frags<Cfg, TA, TB>(s_all + next * L::STAGE, s_all + next * L::STAGE + L::A_ELEMS,
                                                      0, wm0, wn0, gi, ti, a[(f + 1) % FRAGS], b[(f + 1) % FRAGS]);
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j)
                    gpuh_impl_dmma(acc[i][j], a[f][i], b[f][j]);
        }
        stage = next;
    }

#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const size_t row = m0 + wm0 + i * 16 + gi + 8 * h, col = n0 + wn0 + j * 8 + 2 * ti;
                const size_t at = row * out.ldc + col; /* an index: the row may not exist */
                double v0 = out.alpha * acc[i][j][2 * h], v1 = out.alpha * acc[i][j][2 * h + 1];
                if (full_mn && out.vec) {
                    double *dst = out.C + at;
                    if (out.beta != 0.0) {
                        const double2 c = *reinterpret_cast<const double2 *>(dst);
                        v0 += out.beta * c.x;
                        v1 += out.beta * c.y;
                    }
                    *reinterpret_cast<double2 *>(dst) = make_double2(v0, v1);
                } else if (full_mn || row < g.M) {
                    double *dst = out.C + at;
                    if (full_mn || col < g.N)
                        dst[0] = out.beta == 0.0 ? v0 : v0 + out.beta * dst[0];
                    if (full_mn || col + 1 < g.N)
                        dst[1] = out.beta == 0.0 ? v1 : v1 + out.beta * dst[1];
                }
            }
#else
    (void)p; /* not built below sm_90: gpuh_impl_dmma_ready says so to the launcher */
#endif
}

/* ---------------------------------------------------------------------------
   Matrix-vector products: the shapes where C is one column (N = 1) or one
   row (M = 1). Each element of A and B is then used once, so the product is
   bound by memory bandwidth, not by arithmetic, and the tiled kernels, built
   to reuse what they load, would leave all but one row or column of each
   tile empty. These two kernels read each element once with 16-byte loads
   where they can, and sum in a fixed order (no atomics): the same inputs
   give the same bits. Each thread issues GPUH_GEMV_UNROLL loads before it
   uses the first: a memory-bound kernel is as fast as the bytes it has in
   flight. Both are __launch_bounds__(GPUH_GEMV_BLOCK, 1): without the
   minimum of 1 block per SM, ptxas keeps them to 32 registers (full
   occupancy) by waiting for each load before issuing the next. Registers,
   shared memory and no spills: checked by the compile.budget test.
   Idea: BLAS xGEMV; the memory-bound analysis of the roofline model
   (Williams, Waterman, Patterson, CACM 2009). */


/* The column kernel's group q: elements 4q .. 4q + 3 of a row of A (one
   16-byte load) and of B's column (one 16-byte load when VEC, else 4). */
template <typename T, bool VEC>
__device__ __forceinline__ void gpuh_impl_gemv_col_group(const T *a, const T *b, size_t ldb, size_t q, T (&va)[4],
                                                         T (&vb)[4])
{
    gpuh_impl_ld4(a + 4 * q, va);
    if (VEC)
        gpuh_impl_ld4(b + 4 * q, vb);
    else
#pragma unroll
        for (int j = 0; j < 4; ++j)
            vb[j] = b[(4 * q + j) * ldb];
}

/* gpuh_gemv_col_kernel: C[i·ldc] = alpha·Σ_k A[i][k]·B[k·ldb] + beta·C[i·ldc]
   for the part[0].M rows i of the matrix A (part[0] of p), one warp per row:
   op(A)·op(B) for a C of one column (N = 1, op_a = N), or Bᵀ's rows times
   op(A)'s row for a C of one row (M = 1, op_b = T; see gpuh_impl_gemv). The row's first h elements (h < 16 bytes' worth, up to its
   first 16-byte boundary) go to lanes 0 .. h-1 one each; from there on lane
   l takes groups of 4 elements l, l + 32, l + 64, ... with 16-byte loads, so
   rows of any lda (4097, say) stream at full width; the last < 4 elements go
   one each again. B's group is one 16-byte load too when VEC (A and B
   16-byte aligned, lda a multiple of 16 bytes, ldb = 1: then h = 0 on every
   row); else 4 loads, which the cache serves after the first rows. Lane 0
   adds the 32 lanes' sums (gpuh_warp_reduce). Grid: ceil(M / 16) blocks of
   GPUH_GEMV_BLOCK (16 warps). */
template <typename T, bool VEC>
__global__ void __launch_bounds__(GPUH_GEMV_BLOCK, 1) gpuh_gemv_col_kernel(const gpuh_impl_gemm_args<T> p)
{
    const gpuh_impl_gemm_part<T> &g = p.part[0];
    const size_t row = (size_t)blockIdx.x * (GPUH_GEMV_BLOCK / 32) + threadIdx.x / 32, K = p.K, ldb = p.ldb;
    const unsigned lane = threadIdx.x % 32;
    if (row >= g.M) /* the whole warp leaves together */
        return;
    const T *a = g.A + row * p.lda, *b = g.B;
    size_t head = (16 - (uintptr_t)a % 16) % 16 / sizeof(T);
    if (head > K)
        head = K;
    const size_t groups = (K - head) / 4, tail = head + 4 * groups;
    T acc[4] = {T(0), T(0), T(0), T(0)};
    if (lane < head)
        acc[0] = a[lane] * b[lane * ldb];
    if (tail + lane < K)
        acc[1] = a[tail + lane] * b[(tail + lane) * ldb];
    a += head;
    if (groups > 0) /* else B's row `head` may not exist (K = head) */
        b += head * ldb;
    size_t q = lane;
    for (; q + 32 * (GPUH_GEMV_UNROLL - 1) < groups; q += 32 * GPUH_GEMV_UNROLL) {
        T va[GPUH_GEMV_UNROLL][4], vb[GPUH_GEMV_UNROLL][4];
#pragma unroll
        for (int u = 0; u < GPUH_GEMV_UNROLL; ++u) /* all loads first, then the arithmetic */
            gpuh_impl_gemv_col_group<T, VEC>(a, b, ldb, q + 32 * u, va[u], vb[u]);
#pragma unroll
        for (int u = 0; u < GPUH_GEMV_UNROLL; ++u)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                acc[j] += va[u][j] * vb[u][j];
    }
#pragma unroll 1
    for (; q < groups; q += 32) {
        T va[4], vb[4];
        gpuh_impl_gemv_col_group<T, VEC>(a, b, ldb, q, va, vb);
#pragma unroll
        for (int j = 0; j < 4; ++j)
            acc[j] += va[j] * vb[j];
    }
    const T sum = gpuh_warp_reduce<gpuh_op_sum<T>>((acc[0] + acc[1]) + (acc[2] + acc[3]));
    if (lane == 0) {
        T *c = g.C + row * p.ldc;
        *c = p.beta == T(0) ? p.alpha * sum : p.alpha * sum + p.beta * *c;
    }
}

/* The row kernel's column j (0 .. 3) of thread t, from the block's first:
   4t + j with 16-byte loads (VEC), else t + LANES·j. */
template <bool VEC, int LANES> __device__ __forceinline__ int gpuh_impl_gemv_row_col(int t, int j)
{
    return VEC ? 4 * t + j : t + LANES * j;
}

/* The row kernel's 4 elements of B's row k for thread t (b: the thread's
   first column in row 0), zeros past column N unless WHOLE. */
template <typename T, bool VEC, bool WHOLE, int LANES>
__device__ __forceinline__ void gpuh_impl_gemv_row_load(const T *b, size_t k, size_t ldb, size_t n0, size_t N, int t,
                                                        T (&v)[4])
{
    const T *src = b + k * ldb;
    if (VEC && WHOLE)
        gpuh_impl_ld4(src, v);
    else
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const int c = gpuh_impl_gemv_row_col<VEC, LANES>(t, j);
            v[j] = WHOLE || n0 + c < N ? src[c - gpuh_impl_gemv_row_col<VEC, LANES>(t, 0)] : T(0);
        }
}

/* The row kernel's sums for one thread (below): acc[j] = Σ A[k·lda]·B[k][n0 +
   col(j)] over k = r, r + ROWS, r + 2·ROWS, ... WHOLE: the block's columns
   all lie inside C (no checks); VEC: see the kernel. */
template <typename T, bool VEC, bool WHOLE, int LANES, int ROWS>
__device__ __forceinline__ void gpuh_impl_gemv_row_sums(const gpuh_impl_gemm_args<T> &p, size_t n0, int t, int r,
                                                        T (&acc)[4])
{
    const gpuh_impl_gemm_part<T> &g = p.part[0];
    const size_t K = p.K;
    const T *b = g.B + n0 + gpuh_impl_gemv_row_col<VEC, LANES>(t, 0);
    size_t k = r;
    for (; k + ROWS * (GPUH_GEMV_UNROLL - 1) < K; k += ROWS * GPUH_GEMV_UNROLL) {
        T v[GPUH_GEMV_UNROLL][4], x[GPUH_GEMV_UNROLL];
#pragma unroll
        for (int u = 0; u < GPUH_GEMV_UNROLL; ++u) { /* all loads first, then the arithmetic */
            gpuh_impl_gemv_row_load<T, VEC, WHOLE, LANES>(b, k + ROWS * u, p.ldb, n0, g.N, t, v[u]);
            x[u] = g.A[(k + ROWS * u) * p.lda];
        }
#pragma unroll
        for (int u = 0; u < GPUH_GEMV_UNROLL; ++u)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                acc[j] += x[u] * v[u][j];
    }
#pragma unroll 1
    for (; k < K; k += ROWS) {
        T v[4];
        gpuh_impl_gemv_row_load<T, VEC, WHOLE, LANES>(b, k, p.ldb, n0, g.N, t, v);
        const T x = g.A[k * p.lda];
#pragma unroll
        for (int j = 0; j < 4; ++j)
            acc[j] += x * v[j];
    }
}

/* gpuh_gemv_row_kernel: C[j·ldc] = alpha·Σ_k A[k·lda]·B[k][j] + beta·C[j·ldc]
   for GPUH_GEMV_COLS columns j of the matrix B per block (part[0] of p: the
   vector at A[k·lda], C[j] at C[j·ldc]): op(A)'s row times B for a C of one
   row (M = 1, op_b = N), or Aᵀ's columns times op(B)'s column for a C of one
   column (N = 1, op_a = T; see gpuh_impl_gemv). The block's threads form
   ROWS = 64 rows of 8: thread (r, t) sums over k = r, r + 64, r + 128, ... the products for its 4
   columns of the block, 4t .. 4t + 3 with one 16-byte load of B's row k
   when VEC (B 16-byte aligned, ldb a multiple of 16 bytes), else t, t + 8,
   t + 16, t + 24 (a warp reads 4 rows × 32 consecutive elements either
   way). Then the 64 partial sums of each column meet in shared memory and
   one thread per column adds them in order. Grid: ceil(N / GPUH_GEMV_COLS)
   blocks of GPUH_GEMV_BLOCK. */
template <typename T, bool VEC>
__global__ void __launch_bounds__(GPUH_GEMV_BLOCK, 1) gpuh_gemv_row_kernel(const gpuh_impl_gemm_args<T> p)
{
    enum { LANES = GPUH_GEMV_COLS / 4, ROWS = GPUH_GEMV_BLOCK / LANES };
    __shared__ T s_part[ROWS][GPUH_GEMV_COLS + 1];
    const size_t n0 = (size_t)blockIdx.x * GPUH_GEMV_COLS, N = p.part[0].N;
    const int t = threadIdx.x % LANES, r = threadIdx.x / LANES;
    T acc[4] = {T(0), T(0), T(0), T(0)};
    /* A thread whose first column lies past N has nothing to sum (its other
       columns lie further right): it forms no pointer there, past B. */
    if (n0 + GPUH_GEMV_COLS <= N)
        gpuh_impl_gemv_row_sums<T, VEC, true, LANES, ROWS>(p, n0, t, r, acc);
    else if (n0 + gpuh_impl_gemv_row_col<VEC, LANES>(t, 0) < N)
        gpuh_impl_gemv_row_sums<T, VEC, false, LANES, ROWS>(p, n0, t, r, acc);
#pragma unroll
    for (int j = 0; j < 4; ++j)
        s_part[r][gpuh_impl_gemv_row_col<VEC, LANES>(t, j)] = acc[j];
    __syncthreads();
    if (threadIdx.x < GPUH_GEMV_COLS && n0 + threadIdx.x < N) {
        T sum = T(0);
        for (int i = 0; i < ROWS; ++i)
            sum += s_part[i][threadIdx.x];
        T *c = p.part[0].C + (n0 + threadIdx.x) * p.ldc;
        *c = p.beta == T(0) ? p.alpha * sum : p.alpha * sum + p.beta * *c;
    }
}

/* ---------------------------------------------------------------------------
   Split-K's second pass. */

/* The reduce kernel's largest batch, in bytes of one element of each
   slice: a thread loads up to 64 / sizeof(T) slices (16 float, 8 double;
   groups of 4 elements: 64 registers of float loads) before it adds them.
   Fewer slices take a batch of 2 or 4 (gpuh_impl_gemm_reduce_batch): the
   registers of a batch of 16 would hold the kernel to 16 warps per SM, each
   with 2 loads in flight, where a split of 2 needs all the loads in flight
   it can get to read its slices at L2's rate. */
#define GPUH_GEMM_REDUCE_BATCH_BYTES 64

/* gpuh_gemm_split_reduce_kernel: C[i][j] = alpha·(W_0[i][j] + W_1[i][j] +
   ... + W_{S-1}[i][j]) + beta·C[i][j] over the M × N elements of C, where
   W_s is slice s of the workspace the tiled kernels filled with their raw
   sums over K's slice s (rows of ldw elements, ldw a multiple of 4, each
   slice M·ldw elements on, 16-byte aligned). The slices are added in order,
   with no atomics: the same inputs and shape give the same bits. Each thread
   takes groups of 4 consecutive elements of a row (one 16-byte load per
   slice where the group lies inside N), grid-stride. It loads a batch of
   slices before it adds them, so that where C is small (few threads, each
   adding tens or hundreds of slices) a thread waits for memory once per
   batch, not once per slice (BATCH slices; the launcher's choice:
   gpuh_impl_gemm_reduce_batch). beta == 0 never reads C. Grid: any; block:
   any (the launcher's: GPUH_GEMM_REDUCE_BLOCK, or fewer threads where that
   spreads a small C over more SMs). */
template <typename T, int BATCH>
__global__ void gpuh_gemm_split_reduce_kernel(const T *work, unsigned splits, size_t M, size_t N, size_t ldw,
                                              T alpha, T beta, T *C, size_t ldc)
{
    const size_t groups = (N + 3) / 4, slice = M * ldw;
    for (size_t q = gpuh_global_index(); q < M * groups; q += gpuh_grid_stride()) {
        const size_t row = q / groups, c = q % groups * 4;
        const bool whole = c + 4 <= N;
        const T *w = work + row * ldw + c;
        T sum[4] = {T(0), T(0), T(0), T(0)};
        for (unsigned s0 = 0; s0 < splits; s0 += BATCH) {
            T v[BATCH][4];
#pragma unroll
            for (int b = 0; b < BATCH; ++b) {
                const T *src = w + (s0 + b) * slice;
                if (s0 + b >= splits) /* past the last slice: never added */
                    v[b][0] = v[b][1] = v[b][2] = v[b][3] = T(0);
                else if (whole)
                    gpuh_impl_ld4(src, v[b]);
                else
#pragma unroll
                    for (int j = 0; j < 4; ++j)
                        v[b][j] = c + j < N ? src[j] : T(0);
            }
            /* in slice order, from slice 0's value itself */
#pragma unroll
            for (int b = 0; b < BATCH; ++b)
#pragma unroll
                for (int j = 0; j < 4; ++j)
                    if (s0 + b < splits)
                        sum[j] = s0 + b == 0 ? v[b][j] : sum[j] + v[b][j];
        }
        T *dst = C + row * ldc + c;
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (c + j < N)
                dst[j] = beta == T(0) ? alpha * sum[j] : alpha * sum[j] + beta * dst[j];
    }
}

/* Launches split-K's second pass over `splits` slices with the smallest
   batch that holds them all (2, 4), or the largest one
   (GPUH_GEMM_REDUCE_BATCH_BYTES) for more: the same order of additions, so
   the same bits, whichever runs. */
template <typename T>
static inline cudaError_t gpuh_impl_gemm_reduce_batch(size_t splits, unsigned grid, unsigned block,
                                                      cudaStream_t stream, const T *work, size_t M, size_t N,
                                                      size_t ldw, T alpha, T beta, T *C, size_t ldc)
{
    if (splits <= 2)
        return GPUH_LAUNCH((gpuh_gemm_split_reduce_kernel<T, 2>), grid, block, 0, stream, work, (unsigned)splits, M,
                           N, ldw, alpha, beta, C, ldc);
    if (splits <= 4)
        return GPUH_LAUNCH((gpuh_gemm_split_reduce_kernel<T, 4>), grid, block, 0, stream, work, (unsigned)splits, M,
                           N, ldw, alpha, beta, C, ldc);
    enum { MOST = GPUH_GEMM_REDUCE_BATCH_BYTES / sizeof(T) };
    return GPUH_LAUNCH((gpuh_gemm_split_reduce_kernel<T, MOST>), grid, block, 0, stream, work, (unsigned)splits, M, N,
                       ldw, alpha, beta, C, ldc);
}

/* ===========================================================================
   [SECTION: GEMM TUNING]
   The shipped tile sizes and the launcher's one tuned constant. To retune:
   bench/gemm_tune.cu times candidate configurations through gpuh_gemm_with
   against cuBLAS in one table; its figures and those behind these choices
   are in bench/results/NOTES.md. The budgets of the shipped kernels
   (registers, shared memory, no spills) are in tools/check_budget.py.
   =========================================================================== */

/* The shipped tile sizes: the fastest rows of bench/gemm_tune.cu on an H200
   without spills (its table and the ratios to cuBLAS: bench/results/NOTES.md). */
typedef gpuh_gemm_simt_config<256, 128, 16, 4, 2, 8, 1> gpuh_sgemm_big;  /* 8 × 16 per thread */
typedef gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2> gpuh_sgemm_small;   /* 4 × 4 per thread */
typedef gpuh_gemm_dmma_config<64, 128, 16, 2, 2, 3, 2> gpuh_dgemm_big;
typedef gpuh_gemm_dmma_config<64, 64, 16, 2, 2, 3, 3> gpuh_dgemm_small;
typedef gpuh_gemm_simt_config<64, 64, 16, 2, 4, 8, 2> gpuh_dgemm_simt;    /* double without FP64 tensor cores */
/* Narrow tiles for a C of at most 16 rows (wide) or 16 columns (tall):
   64 threads, 8 × 4 (4 × 8) per thread; Small's 64-row (column) tile would
   compute mostly rows (columns) that do not exist. */
typedef gpuh_gemm_simt_config<16, 128, 16, 1, 2, 2, 4> gpuh_sgemm_wide;
typedef gpuh_gemm_simt_config<128, 16, 16, 2, 1, 16, 4> gpuh_sgemm_tall;
/* Narrow tiles for a C of 17 to 32 rows (wide32) or columns (tall32): 128
   threads of 8 × 4 (4 × 8) per thread, 3 blocks per SM (with 4, ptxas
   spilled the element-load variants at 128 registers, and they ran slower
   where it did not: bench/results/NOTES.md). Two 16-wide tiles would cover
   such a C with each reading all of A (B); cuBLAS runs 32 × 128 × 8 tiles
   at a C of 20 rows (20 × 5530 × 7006, ncu:
   bench/results/gemm_ncu_cublas.txt). */
typedef gpuh_gemm_simt_config<32, 128, 16, 1, 4, 4, 3> gpuh_sgemm_wide32;
typedef gpuh_gemm_simt_config<128, 32, 16, 4, 1, 8, 3> gpuh_sgemm_tall32;
/* Narrow tiles for a C of up to 64 rows (wide64) or 64 columns (tall64),
   128 threads and slices of 8 of K (with 16 ptxas spills). wide64: 64 ×
   256, 16 × 8 per thread, 128 accumulators as in the big tiles, so the
   same work per shared load, 2 blocks per SM. tall64: 128 × 64, 8 × 8 per
   thread, 3 blocks per SM, which ran faster at such shapes than 256 × 64
   tiles of 16 × 8 (and the 64 × 128 twin slower than wide64:
   bench/results/NOTES.md). cuBLAS runs tiles of these proportions there
   (256 × 64 × 8, 64 × 128 × 8 and 64 × 64 × 8, 4 warps, ncu: NOTES.md). */
typedef gpuh_gemm_simt_config<64, 256, 8, 2, 2, 2, 2> gpuh_sgemm_wide64;
typedef gpuh_gemm_simt_config<128, 64, 8, 2, 2, 8, 3> gpuh_sgemm_tall64;
/* Narrow tiles of the FP64 tensor-core kernel for a C of at most 16 rows
   (wide), 17 to 32 rows (wide32) or at most 16 columns (tall): 128 threads,
   3 stages, 3 blocks per SM. gpuh_dgemm_small's 64-row (column) tile would
   compute mostly rows (columns) that do not exist; on the CUDA cores the
   float narrow tiles ran slower in double than those 64 × 64 tiles
   (bench/results/NOTES.md). No 32-column tile: it ran slower than the
   64 × 64 tiles at every such C measured. */
typedef gpuh_gemm_dmma_config<16, 128, 16, 1, 4, 3, 3> gpuh_dgemm_wide;
typedef gpuh_gemm_dmma_config<32, 128, 16, 2, 2, 3, 3> gpuh_dgemm_wide32;
typedef gpuh_gemm_dmma_config<128, 16, 16, 4, 1, 3, 3> gpuh_dgemm_tall;

/* Small tiles do less work per SM and per cycle than big ones: their
   blocks reread more of A and B per multiply-add. The launcher weighs their
   waves by this factor, the rate of the float small tiles relative to the
   big ones as bench/gemm_tune.cu measures it, for double too (where small
   tiles lose less); the figures: bench/results/NOTES.md. */
#define GPUH_GEMM_SMALL_RATE 0.7
/* The same for the narrow tiles (gpuh_sgemm_wide 0.60, gpuh_sgemm_tall 0.65
   of the big tiles' rate at 4096 × 4096 × 1024 on an H200). */
#define GPUH_GEMM_NARROW_RATE 0.6
/* gpuh_sgemm_tall's own: at the shapes that choose it (a C of few columns,
   medium or skinny), each cover forced in turn on an H200 ran it 1.22 times
   longer per unit of the model's cost than the big, small and 64-column
   tiles (40 shapes drawn as the bench's medium and skinny families, two
   seeds; 1.26 on a third seed's 24): GPUH_GEMM_NARROW_RATE's 0.6 divided
   by 1.2. */
#define GPUH_GEMM_TALL_RATE 0.5
/* The same for the 32-row and 32-column tiles: the small tiles' rate (128
   threads a block against their 256, 3 blocks per SM against 2), not tuned
   apart; the plans it gives were measured against cuBLAS at the bench's
   skinny shapes (bench/results/NOTES.md). */
#define GPUH_GEMM_NARROW32_RATE 0.7
/* The same for the 64-row and 64-column tiles: gpuh_sgemm_wide64 0.89 to
   0.94, gpuh_sgemm_tall64 0.85 to 0.97 over the four op pairs at
   4096 × 4096 × 1024 and × 2048 on an H200; the least of them. */
#define GPUH_GEMM_NARROW64_RATE 0.85
/* The FP64 narrow tiles' rates, relative to gpuh_dgemm_big's: the model's
   cost per µs of each tile forced, against that of the plan without them,
   at C of 2 to 32 rows or columns (24 shapes, two seeds; H200,
   bench/results/NOTES.md): gpuh_dgemm_wide 0.45 to 0.6, gpuh_dgemm_wide32
   0.6 to 0.68, gpuh_dgemm_tall 0.16 to 0.35 (its blocks each read 128 rows
   of A for 16 columns of C). */
#define GPUH_GEMM_FP64_WIDE_RATE 0.5
#define GPUH_GEMM_FP64_WIDE32_RATE 0.6
#define GPUH_GEMM_FP64_TALL_RATE 0.25

/* Split-K's costs, in the launcher's unit (multiply-adds per SM at the big
   tiles' rate): a block's fixed cost beside its share of K (its prologue,
   the pipeline's fill and drain, the epilogue), as elements of K, for a
   block alone on its SM (less where blocks share one:
   gpuh_impl_gemm_overhead); the
   multiply-adds an SM does in the time the memory system moves one byte (an
   H200 streams about 4 TB/s and does about 20·10^12 float or double
   multiply-adds per second on the tiled kernels: 5); and the fixed cost of
   the second launch with the workspace's allocation and free (about 5 µs),
   in multiply-adds per SM. */
#define GPUH_GEMM_K_OVERHEAD 48
#define GPUH_GEMM_MACS_PER_BYTE 5.0
#define GPUH_GEMM_SPLIT_FIXED 8e5
/* The second pass's wait for one batch of slices (a thread of the reduce
   kernel adds its slices in batches, waiting on memory once per batch),
   in the same unit: about 1.2 µs on an H200, from the time per added slice
   at a C of one or two tiles and 60000 elements of K, 125 to 469 slices
   (bench/results/NOTES.md). */
#define GPUH_GEMM_REDUCE_WAIT 2e5
/* Most slices of K a split-K launch cuts (more where the tiles are too few
   to fill the GPU with them: gpuh_impl_gemm_splits), and the reduce
   kernel's largest block, in threads (a C of fewer groups of 4 per SM takes
   fewer). */
#define GPUH_GEMM_MAX_SPLITS 64
#define GPUH_GEMM_REDUCE_BLOCK 256
/* The fraction of the tiled kernels' rate that element loads of A and B
   (unaligned matrices) cost, against 16-byte loads: 4097³ against 4096³ on
   an H200. Above it gpuh_gemm copies A or B to aligned memory first. */
#define GPUH_GEMM_SCALAR_LOSS 0.1

/* ===========================================================================
   [SECTION: GEMM DISPATCH]
   gpuh_gemm → gpuh_impl_gemm_default (the shipped configurations) →
   gpuh_gemm_with (checks, the cover of C) → gpuh_impl_gemm_launch → kernel.

   The cost model. A C of one row or column goes to the matrix-vector
   kernels (bound by memory). Otherwise every candidate launch is priced in
   one unit, multiply-adds per SM at the big tiles' rate, from the shape
   (M, N, K), the element size, the SM count and each configuration's tile
   (BM × BN, BK) and blocks per SM (MIN_BLOCKS):
     blocks  = tiles of the cover × S slices of K;
     waves   = ceil(blocks / (SMs · MIN_BLOCKS));
     compute = waves · BM·BN·MIN_BLOCKS / rate · (K/S rounded up to BK
               + GPUH_GEMM_K_OVERHEAD · (1 + MIN_BLOCKS) / (2·MIN_BLOCKS)),
               rate 1 for big tiles and
               GPUH_GEMM_SMALL_RATE for small ones (they reread more);
     split   = S > 1: (2S + 1)·M·N·elem bytes (the slices written, read
               back, C written) · GPUH_GEMM_MACS_PER_BYTE / SMs
               + GPUH_GEMM_SPLIT_FIXED (the second launch, the workspace)
               + the second pass's batches of slices ·
               GPUH_GEMM_REDUCE_WAIT.
   The candidates: cover a (big tiles), c (small tiles) and, in gpuh_gemm's
   float configurations, w and t (narrow tiles of 16 rows or 16 columns,
   rates GPUH_GEMM_NARROW_RATE and GPUH_GEMM_TALL_RATE: a C of a few rows or
   columns wastes less of them than of a 64 × 64 tile), u and v (32 × 128
   and 128 × 32, rate GPUH_GEMM_NARROW32_RATE: a C of 17 to 32 rows or
   columns in one tile, not two 16-wide ones) and W and T (64 × 256
   and 128 × 64, rate GPUH_GEMM_NARROW64_RATE: a C of up to 64 rows or
   columns at nearly the big tiles' rate); in the FP64 tensor-core ones,
   w, u and t (16 × 128, 32 × 128 and 128 × 16, rates
   GPUH_GEMM_FP64_WIDE_RATE, GPUH_GEMM_FP64_WIDE32_RATE and
   GPUH_GEMM_FP64_TALL_RATE); each with S = 1 ..
   GPUH_GEMM_MAX_SPLITS, or up to two waves of blocks where its tiles are
   fewer (only the S that leave no slice empty), and cover b
   (big tiles and small strips, S = 1), and the hybrid on a and c
   (gpuh_impl_gemm_bands): where the tiles leave a ragged last wave, the tile
   rows (or columns) that fill whole waves run whole and the rest, planned
   as a product of its own (split along K, or on smaller tiles), fills the
   last wave (as Stream-K's "data-parallel + split" schedule does, in two
   launches); the cheapest wins, ties to the earlier. A
   C with few tiles and a long K (159 × 65 × 1619: 6 small tiles on 264
   slots) then takes tens of slices and fills the GPU in one wave; a C that
   fills the GPU (4096³: 512 big tiles, 97 % of 4 waves) stays whole, since
   splitting adds waves and bytes. No size is named anywhere: the choice
   moves with the SM count and the configurations. The plan is a pure
   function of the shape, the SM count and the configurations, and the plans
   made last are kept (gpuh_impl_gemm_plan_for): planning takes microseconds
   of host time, which a medium-sized product would otherwise pay on every
   call.
   =========================================================================== */

/* Lets a kernel take `bytes` of dynamic shared memory: above 48 KiB a
   kernel must opt in. */
template <typename Arg> static inline cudaError_t gpuh_impl_smem_opt_in(void (*kernel)(Arg), int bytes)
{
    if (bytes <= 48 * 1024)
        return cudaSuccess;
    const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes);
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_gemm: %d bytes of shared memory per block: %s", bytes, cudaGetErrorString(err));
    return cudaSuccess;
}

/* Calls f.template go<VEC, TA, TB>() with the run-time flags as template
   arguments: every kernel is a template over its loads (16-byte or not) and
   the two ops, so each combination is its own instance. */
template <typename F> static inline cudaError_t gpuh_impl_gemm_variant(const F &f, bool vec, bool ta, bool tb)
{
    if (vec)
        return ta ? (tb ? f.template go<true, true, true>() : f.template go<true, true, false>())
                  : (tb ? f.template go<true, false, true>() : f.template go<true, false, false>());
    return ta ? (tb ? f.template go<false, true, true>() : f.template go<false, true, false>())
              : (tb ? f.template go<false, false, true>() : f.template go<false, false, false>());
}

/* Launches one configuration's kernel over the parts in `a`, `blocks` blocks. */
template <typename T, typename Cfg> struct gpuh_impl_simt_launch {
    const gpuh_impl_gemm_args<T> &a;
    unsigned blocks;
    cudaStream_t stream;
    template <bool VEC, bool TA, bool TB> cudaError_t go() const
    {
        const int smem = (int)(Cfg::SMEM_ELEMS * sizeof(T));
        const cudaError_t err = gpuh_impl_smem_opt_in(gpuh_gemm_simt_kernel<T, Cfg, VEC, TA, TB>, smem);
        if (err != cudaSuccess)
            return err;
        return GPUH_LAUNCH((gpuh_gemm_simt_kernel<T, Cfg, VEC, TA, TB>), blocks, Cfg::THREADS, smem, stream, a);
    }
};
template <typename Cfg> struct gpuh_impl_dmma_launch {
    const gpuh_impl_gemm_args<double> &a;
    unsigned blocks;
    cudaStream_t stream;
    template <bool VEC, bool TA, bool TB> cudaError_t go() const
    {
        const int smem = (int)gpuh_impl_dmma_layout<Cfg, TA, TB>::SMEM;
        const cudaError_t err = gpuh_impl_smem_opt_in(gpuh_gemm_dmma_kernel<Cfg, VEC, TA, TB>, smem);
        if (err != cudaSuccess)
            return err;
        return GPUH_LAUNCH((gpuh_gemm_dmma_kernel<Cfg, VEC, TA, TB>), blocks, Cfg::THREADS, smem, stream, a);
    }
};
template <typename T, int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int LANES_M_, int MIN_BLOCKS_>
cudaError_t gpuh_impl_gemm_launch(gpuh_gemm_simt_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, LANES_M_, MIN_BLOCKS_>,
                                  const gpuh_impl_gemm_args<T> &a, bool vec, bool ta, bool tb, unsigned blocks,
                                  cudaStream_t stream)
{
    typedef gpuh_gemm_simt_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, LANES_M_, MIN_BLOCKS_> Cfg;
    const gpuh_impl_simt_launch<T, Cfg> f = {a, blocks, stream};
    return gpuh_impl_gemm_variant(f, vec, ta, tb);
}
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, int MIN_BLOCKS_, int MMA_K_, int FRAGS_>
cudaError_t gpuh_impl_gemm_launch(
    gpuh_gemm_dmma_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, STAGES_, MIN_BLOCKS_, MMA_K_, FRAGS_>,
    const gpuh_impl_gemm_args<double> &a, bool vec, bool ta, bool tb, unsigned blocks, cudaStream_t stream)
{
    typedef gpuh_gemm_dmma_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, STAGES_, MIN_BLOCKS_, MMA_K_, FRAGS_> Cfg;
    const gpuh_impl_dmma_launch<Cfg> f = {a, blocks, stream};
    return gpuh_impl_gemm_variant(f, vec, ta, tb);
}

/* 1 when this program holds gpuh_gemm_dmma_kernel<Cfg> built for sm_90 or
   later for the current device (the default build's sm_90 code on an H100 or
   H200); 0 where the driver would run the sm_75 PTX, whose body is empty,
   and on the CPU simulator, whose kernels carry no GPU code (ptxVersion 0). */
template <typename Cfg> static inline int gpuh_impl_dmma_ready(void)
{
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, gpuh_gemm_dmma_kernel<Cfg, true, false, false>) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: clear it */
        return 0;
    }
    return attr.ptxVersion >= 90;
}

/* Launches a matrix-vector kernel for a C of one row (M = 1) or one column
   (N = 1), K > 0; `a` holds K, the leading dimensions, alpha and beta. Both
   kernels take one stored matrix and a strided vector: the column kernel
   sums along the matrix's rows (out[i] = Σ_k Mat[i][k]·x[k·incx]), the row
   kernel down its columns (out[j] = Σ_k x[k·incx]·Mat[k][j]), and both write
   out[i] at C[i·incc]. Which one serves depends on how the operand that is
   a matrix is stored: a C of one row is op(A)'s row times op(B), which is B
   read down its columns (row kernel) or, for op_b = T, along its rows (column
   kernel); a C of one column is op(A) times op(B)'s column, A along its rows
   (column kernel) or, for op_a = T, down its columns (row kernel). In `a`,
   part A is the vector of the row kernel (lda its stride) or the matrix of
   the column kernel; part B the other; ldc the stride of out. Errors: as
   gpuh_gemm. */
template <typename T>
static inline cudaError_t gpuh_impl_gemv(gpuh_impl_gemm_args<T> &a, bool ta, bool tb, size_t M, size_t N,
                                         const T *d_A, const T *d_B, T *d_C, cudaStream_t stream)
{
    gpuh_impl_gemm_part<T> &g = a.part[0];
    const bool row_of_c = M == 1;
    const T *x = row_of_c ? d_A : d_B, *mat = row_of_c ? d_B : d_A;
    const size_t incx = row_of_c ? (ta ? a.lda : 1) : (tb ? 1 : a.ldb), ldm = row_of_c ? a.ldb : a.lda;
    const size_t out = row_of_c ? N : M;
    const bool col_kernel = row_of_c ? tb : !ta; /* the matrix is read along its rows */
    a.ldc = row_of_c ? 1 : a.ldc;
    g.C = d_C, g.tiles_m = g.tiles_n = 1;
    if (col_kernel)
        g.A = mat, a.lda = ldm, g.B = x, a.ldb = incx, g.M = out, g.N = 1;
    else
        g.A = x, a.lda = incx, g.B = mat, a.ldb = ldm, g.M = 1, g.N = out;
    a.part[1] = g;
    const size_t blocks = col_kernel ? gpuh_ceil_div(out, GPUH_GEMV_BLOCK / 32) : gpuh_ceil_div(out, GPUH_GEMV_COLS);
    if (blocks > GPUH_MAX_GRID_X)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_gemm: C of %zu x %zu needs more than 2^31 - 1 blocks", M, N);
    a.part0_tiles = (unsigned)blocks;
    const size_t w = 16 / sizeof(T);
    if (col_kernel && (uintptr_t)g.A % 16 == 0 && a.lda % w == 0 && (uintptr_t)g.B % 16 == 0 && a.ldb == 1)
        return GPUH_LAUNCH((gpuh_gemv_col_kernel<T, true>), (unsigned)blocks, GPUH_GEMV_BLOCK, 0, stream, a);
    if (col_kernel)
        return GPUH_LAUNCH((gpuh_gemv_col_kernel<T, false>), (unsigned)blocks, GPUH_GEMV_BLOCK, 0, stream, a);
    if ((uintptr_t)g.B % 16 == 0 && a.ldb % w == 0)
        return GPUH_LAUNCH((gpuh_gemv_row_kernel<T, true>), (unsigned)blocks, GPUH_GEMV_BLOCK, 0, stream, a);
    return GPUH_LAUNCH((gpuh_gemv_row_kernel<T, false>), (unsigned)blocks, GPUH_GEMV_BLOCK, 0, stream, a);
}

/* ---------------------------------------------------------------------------
   Aligned copies of an operand, for the GEMM paths that need 16-byte rows. */

/* gpuh_pack_rows_kernel: copies `rows` rows of `cols` elements (U: an
   unsigned integer type of the element's size, 2, 4 or 8 bytes) from in
   (row stride ld_in elements, any alignment) to out (16-byte aligned, row
   stride ld_out elements, a multiple of 16 bytes), the last 16-byte word of
   each row filled up with zeros. Thread x of block (bx, by) writes word
   bx·blockDim.x + x (16 / sizeof(U) elements) of rows by, by + gridDim.y,
   ...: one 16-byte load where `in` and ld_in keep the word aligned,
   otherwise one element at a time (coalesced across the warp all the
   same), and one 16-byte store. It runs at the copy ceiling (0.9 of it
   with 2-byte elements), where cudaMemcpy2DAsync between device pitches
   that are not multiples of 16 bytes runs at about half of it
   (bench/results/NOTES.md).
   Grid: (ceil(words / blockDim.x), up to 65535); block: up to 256. */
template <typename U>
__global__ void __launch_bounds__(256) gpuh_pack_rows_kernel(const U *in, size_t ld_in, size_t rows, size_t cols,
                                                             U *out, size_t ld_out)
{
    enum { W = 16 / sizeof(U) };
    const size_t c = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * W;
    if (c >= cols)
        return;
    const bool words = (uintptr_t)in % 16 == 0 && ld_in % W == 0 && c + W <= cols;
    for (size_t r = blockIdx.y; r < rows; r += gridDim.y) {
        const U *src = in + r * ld_in + c;
        union {
            uint4 v;
            U e[W];
        } w;
        if (words)
            w.v = *reinterpret_cast<const uint4 *>(src);
        else
#pragma unroll
            for (int j = 0; j < W; ++j)
                w.e[j] = c + j < cols ? src[j] : U(0);
        *reinterpret_cast<uint4 *>(out + r * ld_out + c) = w.v;
    }
}

/* Launches gpuh_pack_rows_kernel for elements of `elem` bytes (2, 4 or 8)
   on `stream`: rows × cols of in (row stride ld_in elements) into out (16-
   byte aligned, row stride ld_out elements, a multiple of 16 bytes). */
static inline cudaError_t gpuh_impl_pack_rows(const void *in, size_t ld_in, size_t rows, size_t cols, size_t elem,
                                              void *out, size_t ld_out, cudaStream_t stream)
{
    if (rows == 0 || cols == 0)
        return cudaSuccess;
    const size_t words = gpuh_ceil_div(cols, 16 / elem);
    const unsigned block = words >= 256 ? 256u : (unsigned)gpuh_ceil_div(words, 32) * 32;
    const dim3 grid((unsigned)gpuh_ceil_div(words, block), (unsigned)(rows < 65535 ? rows : 65535));
    if (elem == 2)
        return GPUH_LAUNCH(gpuh_pack_rows_kernel<unsigned short>, grid, block, 0, stream,
                           static_cast<const unsigned short *>(in), ld_in, rows, cols,
                           static_cast<unsigned short *>(out), ld_out);
    if (elem == 4)
        return GPUH_LAUNCH(gpuh_pack_rows_kernel<unsigned>, grid, block, 0, stream, static_cast<const unsigned *>(in),
                           ld_in, rows, cols, static_cast<unsigned *>(out), ld_out);
    return GPUH_LAUNCH(gpuh_pack_rows_kernel<unsigned long long>, grid, block, 0, stream,
                       static_cast<const unsigned long long *>(in), ld_in, rows, cols,
                       static_cast<unsigned long long *>(out), ld_out);
}

/* Split-K's workspace: `bytes` of device memory on `stream`, from gpuh's own
   memory pool on device `dev` (created on first use, release threshold
   GPUH_GEMM_POOL_KEEP; freed with cudaFreeAsync on the same stream). With
   the default pool (release threshold 0) every call that follows a
   synchronisation would map fresh memory, which costs tens of
   microseconds; gpuh does not change the default pool's threshold, which
   the rest of the program owns. Where no pool can be made (the simulator
   has none), cudaMallocAsync. */
#ifndef GPUH_SIM
#define GPUH_IMPL_GEMM_POOLS 64 /* devices with a pool: 0 .. 63 */
GPUH_IMPL_SHARED cudaMemPool_t gpuh_impl_gemm_pool_v[GPUH_IMPL_GEMM_POOLS];
#endif
static inline cudaError_t gpuh_impl_gemm_workspace(void **p, size_t bytes, int dev, cudaStream_t stream)
{
#ifndef GPUH_SIM
    cudaMemPool_t pool = NULL;
    if (dev >= 0 && dev < GPUH_IMPL_GEMM_POOLS) {
        GPUH_IMPL_LOCK();
        pool = gpuh_impl_gemm_pool_v[dev];
        if (pool == NULL) {
            cudaMemPoolProps props;
            memset(&props, 0, sizeof props);
            props.allocType = cudaMemAllocationTypePinned;
            props.location.type = cudaMemLocationTypeDevice;
            props.location.id = dev;
            unsigned long long keep = GPUH_GEMM_POOL_KEEP;
            if (cudaMemPoolCreate(&pool, &props) == cudaSuccess &&
                cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep) == cudaSuccess)
                gpuh_impl_gemm_pool_v[dev] = pool;
            else
                (void)cudaGetLastError(), pool = NULL; /* not sticky: cudaMallocAsync instead */
        }
        GPUH_IMPL_UNLOCK();
    }
    if (pool != NULL)
        return cudaMallocFromPoolAsync(p, bytes, pool, stream);
#else
    (void)dev;
#endif
    return cudaMallocAsync(p, bytes, stream);
}

/* Checks gpuh_gemm's arguments (see there); elem: sizeof(T). */
static inline cudaError_t gpuh_impl_gemm_check(const char *fn, int op_a, int op_b, size_t M, size_t N, size_t K,
                                               const void *A, size_t lda, const void *B, size_t ldb, const void *C,
                                               size_t ldc, size_t elem)
{
    const size_t most = SIZE_MAX / elem; /* elements a byte offset can reach */
    const char *names[3] = {"A", "B", "C"};
    const int ops[2] = {op_a, op_b};
    /* the matrices as stored: op(A) = Aᵀ is stored K × M, op(B) = Bᵀ N × K */
    const size_t rows[3] = {op_a ? K : M, op_b ? N : K, M}, cols[3] = {op_a ? M : K, op_b ? K : N, N};
    const size_t ld[3] = {lda, ldb, ldc};
    const void *ptr[3] = {A, B, C};
    int i;
    for (i = 0; i < 2; ++i)
        if (ops[i] != GPUH_OP_N && ops[i] != GPUH_OP_T)
            return gpuh_fail(cudaErrorInvalidValue, "%s: op_%c = %d is neither GPUH_OP_N nor GPUH_OP_T", fn, 'a' + i,
                             ops[i]);
    for (i = 0; i < 3; ++i) {
        if (ld[i] < cols[i]) {
            if (i == 2)
                return gpuh_fail(cudaErrorInvalidValue, "%s: ldc = %zu is less than C's row length %zu", fn, ld[i],
                                 cols[i]);
            return gpuh_fail(cudaErrorInvalidValue, "%s: ld%c = %zu is less than op(%s)'s stored row length %zu "
                             "(op_%c = %c)", fn, 'a' + i, ld[i], names[i], cols[i], 'a' + i, ops[i] ? 'T' : 'N');
        }
        /* the last element's index, (rows - 1)·ld + cols - 1, must fit */
        if (rows[i] > 0 && cols[i] > 0 && (cols[i] > most || rows[i] - 1 > (most - cols[i]) / ld[i]))
            return gpuh_fail(cudaErrorInvalidValue, "%s: %s of %zu rows x %zu columns with ld%c = %zu overflows size_t",
                             fn, names[i], rows[i], cols[i], 'a' + i, ld[i]);
        /* NULL only matters when there is something to compute */
        if (ptr[i] == NULL && rows[i] > 0 && cols[i] > 0 && M > 0 && N > 0)
            return gpuh_fail(cudaErrorInvalidValue, "%s: d_%s is NULL (M %zu, N %zu, K %zu)", fn, names[i], M, N, K);
    }
    /* each pointer aligned to its element (a misaligned access faults), and
       the elements from the first to the last in the gpuh allocation the
       pointer is in, or in memory a kernel can reach */
    for (i = 0; i < 3 && M > 0 && N > 0; ++i) {
        const char *arg[3] = {"d_A", "d_B", "d_C"};
        const size_t extent = rows[i] > 0 && cols[i] > 0 ? (rows[i] - 1) * ld[i] + cols[i] : 0;
        cudaError_t err = extent > 0 ? gpuh_impl_check_aligned(ptr[i], elem, fn, arg[i]) : cudaSuccess;
        if (err == cudaSuccess)
            err = gpuh_impl_check_extent(ptr[i], extent, elem, fn, arg[i]);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* The cost of `tiles` blocks, `slots` of which run at once, each doing
   `work` (tile area · blocks per SM / relative rate): waves × work. */
static inline double gpuh_impl_gemm_waves(size_t tiles, size_t slots, double work)
{
    return tiles == 0 ? 0.0 : (double)((tiles + slots - 1) / slots) * work;
}

/* The launcher's choice: a cover of C ('a' big tiles, 'b' big tiles and
   small strips, 'c' small tiles, 'w', 't', 'u', 'v', 'W', 'T' the narrow
   tiles), the slices of K (split-K; not on b) and each slice's length, and
   its cost.
   With a band, rows (band 'r') or columns ('c') [0, dp) of C run first,
   whole, on cover `first` ('a' or 'c'), and the rest after on `cover` in
   `splits` slices. */
struct gpuh_impl_gemm_plan {
    int cover;
    size_t splits, k_chunk;
    double cost;
    int band, first;
    size_t dp;
};

/* A block's fixed cost, as elements of K: GPUH_GEMM_K_OVERHEAD where it
   runs alone on its SM; where MIN_BLOCKS blocks share one, a block's
   prologue and epilogue overlap the others' main loops, and a wave pays
   less of it: (1 + MIN_BLOCKS) / (2·MIN_BLOCKS) of it (48, 36 and 32 for
   1, 2 and 3 blocks per SM), a rough fit of the costs per block measured
   with the float tiles at K of 1 to 16 on an H200 (big tiles, 1 block per
   SM: 46; small and 64-row tiles, 2: 32 to 36; 64-column tiles, 3: 21 to
   28; bench/results/NOTES.md). */
static inline double gpuh_impl_gemm_overhead(size_t min_blocks)
{
    return GPUH_GEMM_K_OVERHEAD * (double)(1 + min_blocks) / (double)(2 * min_blocks);
}

/* Tries splitting K in 2 .. S slices on a cover of `tiles` tiles (`slots`
   blocks at once, each doing `work` per element of K, slices a multiple of
   bk long) and keeps it in `best` where it costs less: the waves of tiles ×
   slices blocks, each summing its slice plus its fixed cost
   (gpuh_impl_gemm_overhead of `min_blocks` blocks per SM), then the bytes
   split-K moves (the kernel writes each slice's M × N sums, the
   second pass reads them and writes C), its fixed cost and the second
   pass's waits, one per batch of slices (GPUH_GEMM_REDUCE_WAIT). S:
   GPUH_GEMM_MAX_SPLITS, or, where the tiles are too few for that many
   slices to fill two waves of blocks, as many slices as do (a C of a few
   tiles and a long K then still fills the GPU). Only the slice counts that
   leave no slice empty are tried. */
static inline void gpuh_impl_gemm_splits(gpuh_impl_gemm_plan &best, int cover, size_t tiles, size_t slots,
                                         double work, size_t bk, size_t M, size_t N, size_t K, size_t elem,
                                         size_t sms, size_t min_blocks)
{
    const size_t fill = tiles > 0 ? 2 * slots / tiles : 0;
    const size_t most = fill > GPUH_GEMM_MAX_SPLITS ? fill : GPUH_GEMM_MAX_SPLITS;
    const double overhead = gpuh_impl_gemm_overhead(min_blocks);
    size_t s, last = 0;
    for (s = 1; s <= most && K > 0; ++s) {
        const size_t chunk = gpuh_ceil_div(gpuh_ceil_div(K, s), bk) * bk, n = gpuh_ceil_div(K, chunk);
        if (n == last) /* the same cut as the last s */
            continue;
        last = n;
        if (tiles * n > GPUH_MAX_GRID_X)
            break;
        double cost = gpuh_impl_gemm_waves(tiles * n, slots, work) * ((double)chunk + overhead);
        if (n > 1)
            cost += (double)(2 * n + 1) * (double)M * (double)N * (double)elem * GPUH_GEMM_MACS_PER_BYTE /
                        (double)sms + GPUH_GEMM_SPLIT_FIXED +
                    (double)gpuh_ceil_div(n, GPUH_GEMM_REDUCE_BATCH_BYTES / elem) * GPUH_GEMM_REDUCE_WAIT;
        if (cost < best.cost) /* all of C on this cover: no band left over from a plan it beats */
            best.cover = cover, best.splits = n, best.k_chunk = chunk, best.cost = cost, best.band = 0, best.first = 0,
            best.dp = 0;
    }
}

/* Tries configuration Cfg as cover `cover` (a narrow tile, at `rate` of the
   big tiles' rate per SM), whole or with split-K, where its grid fits. */
template <typename Cfg>
static inline void gpuh_impl_gemm_narrow(gpuh_impl_gemm_plan &best, int cover, double rate, size_t M, size_t N,
                                         size_t K, size_t elem, size_t sms)
{
    const size_t rows = gpuh_ceil_div(M, (size_t)Cfg::BM), cols = gpuh_ceil_div(N, (size_t)Cfg::BN);
    if (rows <= GPUH_MAX_GRID_X / cols)
        gpuh_impl_gemm_splits(best, cover, rows * cols, sms * Cfg::MIN_BLOCKS,
                              (double)(Cfg::BM * Cfg::BN * Cfg::MIN_BLOCKS) / rate, Cfg::BK, M, N, K, elem, sms,
                              Cfg::MIN_BLOCKS);
}
/* 1 for a configuration of the FP64 tensor-core kernel. */
template <typename Cfg> struct gpuh_impl_on_fp64_tc {
    enum { value = 0 };
};
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, int MIN_BLOCKS_, int MMA_K_, int FRAGS_>
struct gpuh_impl_on_fp64_tc<
    gpuh_gemm_dmma_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, STAGES_, MIN_BLOCKS_, MMA_K_, FRAGS_> > {
    enum { value = 1 };
};
template <typename A, typename B> struct gpuh_impl_same_type {
    enum { value = 0 };
};
template <typename A> struct gpuh_impl_same_type<A, A> {
    enum { value = 1 };
};

/* The tile configurations one launcher plans over, named by the cover each
   serves: Big ('a', and 'b' with Small's strips), Small ('c'), Wide and
   Tall ('w', 't': a C of up to 16 rows or columns), Wide32 and Tall32 ('u',
   'v': 17 to 32), Wide64 and Tall64 ('W', 'T': up to 64). A narrow cover
   left as Small adds nothing (gpuh_gemm_with passes Big and Small only):
   the 32- and 64-wide ones are then not tried, and the 16-wide ones, priced
   below Small's rate, never win.
   One type, so that the launcher's templates take one parameter and a new
   cover is added here and where it is priced and launched. */
template <typename Big_, typename Small_, typename Wide_ = Small_, typename Tall_ = Small_,
          typename Wide32_ = Small_, typename Tall32_ = Small_, typename Wide64_ = Small_, typename Tall64_ = Small_>
struct gpuh_impl_gemm_covers {
    typedef Big_ Big;
    typedef Small_ Small;
    typedef Wide_ Wide;
    typedef Tall_ Tall;
    typedef Wide32_ Wide32;
    typedef Tall32_ Tall32;
    typedef Wide64_ Wide64;
    typedef Tall64_ Tall64;
};

template <typename Set>
static inline gpuh_impl_gemm_plan gpuh_impl_gemm_choose(size_t M, size_t N, size_t K, size_t elem, size_t sms,
                                                        bool bands = true);

/* Tries the hybrid of whole tiles and a plan of its own for the rest, on
   one configuration's cover (`cover`, bm × bn tiles, `slots` blocks at
   once, `work` per element of K): where the tiles fill a ragged last wave,
   the first w whole waves' worth of tile rows (or columns) of C run whole,
   and the rest, too few tiles for a wave, takes the cheapest one-launch
   plan for its own shape (gpuh_impl_gemm_choose without bands: split along
   K, or on the small or 64-wide tiles, so that its blocks fill the last
   wave); kept in `best` where it costs less. w: the waves the tiles fill
   whole, or one fewer (the rest then has more tiles to share out). */
template <typename Set>
static inline void gpuh_impl_gemm_bands(gpuh_impl_gemm_plan &best, int cover, size_t bm, size_t bn, size_t slots,
                                        double work, size_t M, size_t N, size_t K, size_t elem, size_t sms)
{
    const size_t tm = gpuh_ceil_div(M, bm), tn = gpuh_ceil_div(N, bn), tiles = tm * tn;
    const double k_cost = (double)K + gpuh_impl_gemm_overhead(slots / sms);
    int o;
    size_t w;
    if (K == 0 || tiles <= slots)
        return; /* one wave or less: split-K alone serves */
    for (o = 0; o < 2; ++o) { /* bands of tile rows, then of tile columns */
        const size_t lines = o ? tn : tm, per = o ? tm : tn; /* lines of tiles, tiles per line */
        for (w = tiles / slots; w >= 1 && w + 1 >= tiles / slots; --w) {
            const size_t dp = w * slots / per; /* whole lines in w waves */
            if (dp == 0 || dp >= lines)
                continue;
            gpuh_impl_gemm_plan rest =
                gpuh_impl_gemm_choose<Set>(o ? M : M - dp * bm, o ? N - dp * bn : N, K, elem, sms, false);
            rest.cost += gpuh_impl_gemm_waves(dp * per, slots, work) * k_cost;
            /* the rest whole on the same tiles is the plain cover in two launches */
            if ((rest.cover != cover || rest.splits > 1) && rest.cost < best.cost)
                best = rest, best.band = o ? 'c' : 'r', best.first = cover, best.dp = dp * (o ? bn : bm);
        }
    }
}

/* The launcher's plan for an M × N × K product of elem-byte elements on
   `sms` SMs: the cheapest cover of the cost model ([SECTION: GEMM
   DISPATCH]) among the configurations given. bands false: one launch of
   one cover for the rest of a band: neither cover b, nor a band, nor the
   16- or 32-wide tiles. */
template <typename Set>
static inline gpuh_impl_gemm_plan gpuh_impl_gemm_choose(size_t M, size_t N, size_t K, size_t elem, size_t sms,
                                                        bool bands)
{
    typedef typename Set::Big Big;
    typedef typename Set::Small Small;
    const size_t s_m = Small::BM, s_n = Small::BN, b_m = Big::BM, b_n = Big::BN;
    const size_t mi = M / b_m * b_m, ni = N / b_n * b_n; /* the part whole big tiles cover */
    const size_t big_slots = sms * Big::MIN_BLOCKS, small_slots = sms * Small::MIN_BLOCKS;
    const double big_work = (double)(b_m * b_n * Big::MIN_BLOCKS);
    const double small_work = (double)(s_m * s_n * Small::MIN_BLOCKS) / GPUH_GEMM_SMALL_RATE;
    const size_t strip_tiles = gpuh_ceil_div(M - mi, s_m) * gpuh_ceil_div(N, s_n) +
                               gpuh_ceil_div(mi, s_m) * gpuh_ceil_div(N - ni, s_n);
    const double k_big = (double)K + gpuh_impl_gemm_overhead(Big::MIN_BLOCKS);
    const double k_small = (double)K + gpuh_impl_gemm_overhead(Small::MIN_BLOCKS);
    gpuh_impl_gemm_plan plan;
    plan.cover = 'a', plan.splits = 1, plan.k_chunk = K, plan.band = 0, plan.first = 0, plan.dp = 0;
    plan.cost = gpuh_impl_gemm_waves(gpuh_ceil_div(M, b_m) * gpuh_ceil_div(N, b_n), big_slots, big_work) * k_big;
    if (bands && mi > 0 && ni > 0) { /* b needs at least one whole big tile */
        const double cost_b = gpuh_impl_gemm_waves((mi / b_m) * (ni / b_n), big_slots, big_work) * k_big +
                              gpuh_impl_gemm_waves(strip_tiles, small_slots, small_work) * k_small;
        if (cost_b < plan.cost)
            plan.cover = 'b', plan.cost = cost_b;
    }
    gpuh_impl_gemm_splits(plan, 'a', gpuh_ceil_div(M, b_m) * gpuh_ceil_div(N, b_n), big_slots, big_work, Big::BK, M,
                          N, K, elem, sms, Big::MIN_BLOCKS);
    gpuh_impl_gemm_splits(plan, 'c', gpuh_ceil_div(M, s_m) * gpuh_ceil_div(N, s_n), small_slots, small_work,
                          Small::BK, M, N, K, elem, sms, Small::MIN_BLOCKS);
    if (bands) {
        gpuh_impl_gemm_bands<Set>(plan, 'a', b_m, b_n, big_slots, big_work, M, N, K, elem, sms);
        gpuh_impl_gemm_bands<Set>(plan, 'c', s_m, s_n, small_slots, small_work, M, N, K, elem, sms);
    }
    /* the narrow tiles: a C of few rows or columns (the 32- and 64-wide
       ones only where they are configurations of their own; the 16-wide
       ones not for the rest of a band, where they ran slower than the model
       prices them, bench/results/NOTES.md, nor the 32-wide ones, which were
       measured on whole products only) */
    if (bands) {
        const bool fp64 = gpuh_impl_on_fp64_tc<Big>::value; /* the narrow tiles' rates are relative to Big's */
        gpuh_impl_gemm_narrow<typename Set::Wide>(plan, 'w', fp64 ? GPUH_GEMM_FP64_WIDE_RATE : GPUH_GEMM_NARROW_RATE,
                                                  M, N, K, elem, sms);
        gpuh_impl_gemm_narrow<typename Set::Tall>(plan, 't', fp64 ? GPUH_GEMM_FP64_TALL_RATE : GPUH_GEMM_TALL_RATE, M,
                                                  N, K, elem, sms);
        if (!gpuh_impl_same_type<typename Set::Wide32, Small>::value)
            gpuh_impl_gemm_narrow<typename Set::Wide32>(
                plan, 'u', fp64 ? GPUH_GEMM_FP64_WIDE32_RATE : GPUH_GEMM_NARROW32_RATE, M, N, K, elem, sms);
        if (!gpuh_impl_same_type<typename Set::Tall32, Small>::value)
            gpuh_impl_gemm_narrow<typename Set::Tall32>(plan, 'v', GPUH_GEMM_NARROW32_RATE, M, N, K, elem, sms);
    }
    if (!gpuh_impl_same_type<typename Set::Wide64, Small>::value)
        gpuh_impl_gemm_narrow<typename Set::Wide64>(plan, 'W', GPUH_GEMM_NARROW64_RATE, M, N, K, elem, sms);
    if (!gpuh_impl_same_type<typename Set::Tall64, Small>::value)
        gpuh_impl_gemm_narrow<typename Set::Tall64>(plan, 'T', GPUH_GEMM_NARROW64_RATE, M, N, K, elem, sms);
    return plan;
}

/* The plans made last, so that a program calling gpuh_gemm on the same
   shapes again (a training loop, a benchmark) does not plan each call
   again: planning tries tens of slice counts on each cover,
   microseconds of host time, as long as a medium-sized product takes on the
   GPU. A table of GPUH_IMPL_GEMM_PLANS entries, the slot a hash of the
   shape, the SM count and the configurations (the address of a variable
   of their own: gpuh_impl_gemm_set), read and written under gpuh's lock;
   a plan is a pure function of them, so an entry is never stale. Idea:
   cuBLASLt's heuristics cache (cublasLtHeuristicsCacheSetCapacity). */
#define GPUH_IMPL_GEMM_PLANS 64
struct gpuh_impl_gemm_plan_entry {
    const void *set;
    size_t M, N, K, sms;
    gpuh_impl_gemm_plan plan;
};
GPUH_IMPL_SHARED gpuh_impl_gemm_plan_entry gpuh_impl_gemm_plans_v[GPUH_IMPL_GEMM_PLANS];
template <typename Set, typename T>
struct gpuh_impl_gemm_set {
    static const char id;
};
template <typename Set, typename T>
const char gpuh_impl_gemm_set<Set, T>::id = 0;

/* gpuh_impl_gemm_choose's plan, from the table where it is there. */
template <typename Set, typename T>
static inline gpuh_impl_gemm_plan gpuh_impl_gemm_plan_for(size_t M, size_t N, size_t K, size_t sms)
{
    const void *set = &gpuh_impl_gemm_set<Set, T>::id;
    unsigned long long h = (uintptr_t)set;
    const size_t key[4] = {M, N, K, sms};
    for (int i = 0; i < 4; ++i)
        h = (h ^ key[i]) * 0x9e3779b97f4a7c15ull; /* Fibonacci hashing: the high bits mix all of the key */
    gpuh_impl_gemm_plan_entry *const e = &gpuh_impl_gemm_plans_v[(h >> 32) % GPUH_IMPL_GEMM_PLANS];
    gpuh_impl_gemm_plan plan;
    bool found;
    GPUH_IMPL_LOCK();
    found = e->set == set && e->M == M && e->N == N && e->K == K && e->sms == sms;
    if (found)
        plan = e->plan;
    GPUH_IMPL_UNLOCK();
    if (found)
        return plan;
    plan = gpuh_impl_gemm_choose<Set>(M, N, K, sizeof(T), sms);
    GPUH_IMPL_LOCK();
    e->set = set, e->M = M, e->N = N, e->K = K, e->sms = sms, e->plan = plan;
    GPUH_IMPL_UNLOCK();
    return plan;
}

/* Fills `pt` with rows [r0, r0 + m) and columns [c0, c0 + n) of C, in tiles
   of bm × bn (leading dimensions and K from `a`); returns its number of
   tiles. The part's A starts at op(A)'s row r0 (A's row, or Aᵀ's column),
   its B at op(B)'s column c0; with K = 0 they are not read, and not moved. */
template <typename T>
static inline size_t gpuh_impl_gemm_part_of(const gpuh_impl_gemm_args<T> &a, bool ta, bool tb,
                                            gpuh_impl_gemm_part<T> &pt, size_t r0, size_t c0, size_t m, size_t n,
                                            size_t bm, size_t bn, const T *d_A, const T *d_B, T *d_C)
{
    pt.A = d_A == NULL || a.K == 0 ? d_A : d_A + (ta ? r0 : r0 * a.lda);
    pt.B = d_B == NULL || a.K == 0 ? d_B : d_B + (tb ? c0 * a.ldb : c0);
    pt.C = d_C + r0 * a.ldc + c0;
    pt.M = m, pt.N = n;
    pt.tiles_m = (unsigned)gpuh_ceil_div(m, bm);
    pt.tiles_n = (unsigned)gpuh_ceil_div(n, bn);
    return (size_t)pt.tiles_m * pt.tiles_n;
}

/* Launches the plan's cover (one of Set's, gpuh_impl_gemm_covers: one
   part, all of C) over all of K or in its slices (split-K: the workspace,
   the tiled kernel, the reduce kernel, the workspace freed). */
template <typename Set, typename T>
static inline cudaError_t gpuh_impl_gemm_whole(const gpuh_impl_gemm_plan &plan, gpuh_impl_gemm_args<T> &a, bool vec,
                                               bool ta, bool tb, size_t M, size_t N, const T *d_A, const T *d_B,
                                               T *d_C, int dev, int sms, cudaStream_t stream)
{
    typedef typename Set::Big Big;
    typedef typename Set::Small Small;
    typedef typename Set::Wide Wide;
    typedef typename Set::Tall Tall;
    typedef typename Set::Wide32 Wide32;
    typedef typename Set::Tall32 Tall32;
    typedef typename Set::Wide64 Wide64;
    typedef typename Set::Tall64 Tall64;
    const int c = plan.cover;
    size_t bm, bn; /* the cover's tile */
    switch (c) {
    case 'a': bm = Big::BM, bn = Big::BN; break;
    case 'c': bm = Small::BM, bn = Small::BN; break;
    case 'w': bm = Wide::BM, bn = Wide::BN; break;
    case 't': bm = Tall::BM, bn = Tall::BN; break;
    case 'u': bm = Wide32::BM, bn = Wide32::BN; break;
    case 'v': bm = Tall32::BM, bn = Tall32::BN; break;
    case 'W': bm = Wide64::BM, bn = Wide64::BN; break;
    default: bm = Tall64::BM, bn = Tall64::BN; break;
    }
    const size_t tiles = gpuh_impl_gemm_part_of(a, ta, tb, a.part[0], 0, 0, M, N, bm, bn, d_A, d_B, d_C);
    size_t splits = plan.splits;
    a.part[1] = a.part[0];
    a.part0_tiles = a.tiles = (unsigned)tiles;
    if (splits > 1) {
        a.ldw = (N + 3) / 4 * 4, a.k_chunk = plan.k_chunk;
        if (gpuh_impl_gemm_workspace((void **)&a.work, splits * M * a.ldw * sizeof(T), dev, stream) != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky: fall back on one slice */
            a.work = NULL, a.k_chunk = a.K, splits = 1;
        }
    }
    const unsigned blocks = (unsigned)(tiles * splits);
    cudaError_t err = c == 'a'   ? gpuh_impl_gemm_launch(Big(), a, vec, ta, tb, blocks, stream)
                      : c == 'c' ? gpuh_impl_gemm_launch(Small(), a, vec, ta, tb, blocks, stream)
                      : c == 'w' ? gpuh_impl_gemm_launch(Wide(), a, vec, ta, tb, blocks, stream)
                      : c == 't' ? gpuh_impl_gemm_launch(Tall(), a, vec, ta, tb, blocks, stream)
                      : c == 'u' ? gpuh_impl_gemm_launch(Wide32(), a, vec, ta, tb, blocks, stream)
                      : c == 'v' ? gpuh_impl_gemm_launch(Tall32(), a, vec, ta, tb, blocks, stream)
                      : c == 'W' ? gpuh_impl_gemm_launch(Wide64(), a, vec, ta, tb, blocks, stream)
                                 : gpuh_impl_gemm_launch(Tall64(), a, vec, ta, tb, blocks, stream);
    if (a.work == NULL)
        return err;
    if (err == cudaSuccess) {
        /* a C of fewer groups than GPUH_GEMM_REDUCE_BLOCK per SM in blocks
           of fewer threads (whole warps), so that its threads spread over
           as many SMs as there are warps' worth of groups (up to all) */
        const size_t groups = M * ((N + 3) / 4), most = (size_t)sms * 16, per_sm = gpuh_ceil_div(groups, sms);
        const size_t block = per_sm >= GPUH_GEMM_REDUCE_BLOCK ? GPUH_GEMM_REDUCE_BLOCK : gpuh_ceil_div(per_sm, 32) * 32;
        const size_t rblocks = gpuh_ceil_div(groups, block);
        err = gpuh_impl_gemm_reduce_batch<T>(splits, (unsigned)(rblocks < most ? rblocks : most), (unsigned)block,
                                             stream, a.work, M, N, a.ldw, a.alpha, a.beta, d_C, a.ldc);
    }
    const cudaError_t freed = cudaFreeAsync(a.work, stream);
    return err != cudaSuccess ? err : freed;
}

/* The launcher behind gpuh_gemm_with and gpuh_gemm: the checks, the plan
   (the cost model of [SECTION: GEMM DISPATCH]) and its launches, over the
   configurations of Set (a gpuh_impl_gemm_covers). */
template <typename Set, typename T>
cudaError_t gpuh_impl_gemm_run(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha, const T *d_A,
                               size_t lda, const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream,
                               bool may_stage = true);

/* Copies A and / or B, whichever is not 16-byte aligned (its pointer or its
   leading dimension), into aligned workspaces (gpuh's pool; rows padded to a
   multiple of 16 bytes, by gpuh_pack_rows_kernel, at the memory's full
   rate), runs the product on them with 16-byte loads, and
   frees the workspaces (stream-ordered). C keeps its leading dimension.
   Where a workspace cannot be had, the product runs on the matrices as they
   are (element loads). */
template <typename Set, typename T>
static inline cudaError_t gpuh_impl_gemm_staged(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha,
                                                const T *d_A, size_t lda, const T *d_B, size_t ldb, T beta, T *d_C,
                                                size_t ldc, int dev, cudaStream_t stream)
{
    const size_t w = 16 / sizeof(T);
    const bool ta = op_a == GPUH_OP_T, tb = op_b == GPUH_OP_T;
    const size_t ra = ta ? K : M, ca = ta ? M : K, rb = tb ? N : K, cb = tb ? K : N; /* as stored */
    const bool move_a = (uintptr_t)d_A % 16 != 0 || lda % w != 0, move_b = (uintptr_t)d_B % 16 != 0 || ldb % w != 0;
    const size_t la = move_a ? gpuh_ceil_div(ca, w) * w : lda, lb = move_b ? gpuh_ceil_div(cb, w) * w : ldb;
    T *sa = NULL, *sb = NULL;
    cudaError_t err = cudaSuccess;
    if (move_a && (err = gpuh_impl_gemm_workspace((void **)&sa, ra * la * sizeof(T), dev, stream)) == cudaSuccess)
        err = gpuh_impl_pack_rows(d_A, lda, ra, ca, sizeof(T), sa, la, stream);
    if (err == cudaSuccess && move_b &&
        (err = gpuh_impl_gemm_workspace((void **)&sb, rb * lb * sizeof(T), dev, stream)) == cudaSuccess)
        err = gpuh_impl_pack_rows(d_B, ldb, rb, cb, sizeof(T), sb, lb, stream);
    if (err == cudaSuccess)
        err = gpuh_impl_gemm_run<Set, T>(op_a, op_b, M, N, K, alpha, move_a ? sa : d_A, la, move_b ? sb : d_B, lb, beta,
                                         d_C, ldc, stream, false);
    else {
        (void)cudaGetLastError(); /* not sticky: no staging */
        err = gpuh_impl_gemm_run<Set, T>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream, false);
    }
    const cudaError_t fa = sa != NULL ? cudaFreeAsync(sa, stream) : cudaSuccess;
    const cudaError_t fb = sb != NULL ? cudaFreeAsync(sb, stream) : cudaSuccess;
    return err != cudaSuccess ? err : fa != cudaSuccess ? fa : fb;
}

template <typename Set, typename T>
cudaError_t gpuh_impl_gemm_run(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha, const T *d_A,
                               size_t lda, const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream,
                               bool may_stage)
{
    const size_t w = 16 / sizeof(T); /* elements per 16 bytes */
    gpuh_impl_gemm_args<T> a;
    int dev = 0, sms = 1;
    cudaError_t err = gpuh_impl_gemm_check("gpuh_gemm", op_a, op_b, M, N, K, d_A, lda, d_B, ldb, d_C, ldc, sizeof(T));
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    const bool ta = op_a == GPUH_OP_T, tb = op_b == GPUH_OP_T;
    /* vec: 16-byte loads of A and B; C's stores are 16 bytes wide where C allows (vec_c) */
    const bool vec = (uintptr_t)d_A % 16 == 0 && (uintptr_t)d_B % 16 == 0 && lda % w == 0 && ldb % w == 0;
    a.K = K, a.lda = lda, a.ldb = ldb, a.ldc = ldc, a.alpha = alpha, a.beta = beta;
    a.work = NULL, a.k_chunk = K, a.ldw = 0, a.tiles = 0, a.vec_c = (uintptr_t)d_C % 16 == 0 && ldc % w == 0;
    if ((err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return gpuh_fail(err, "gpuh_gemm: no current device: %s", cudaGetErrorString(err));
    if ((M == 1 || N == 1) && K > 0) /* a matrix-vector product, bound by memory */
        return gpuh_impl_gemv(a, ta, tb, M, N, d_A, d_B, d_C, stream);
    /* A or B not 16-byte aligned: element loads cost the kernel a fraction
       GPUH_GEMM_SCALAR_LOSS of its rate; an aligned copy of the matrix costs
       its bytes twice (read, write). Copy where that is cheaper, in the cost
       model's unit (multiply-adds per SM). */
    if (!vec && may_stage && K > 0 &&
        (double)M * (double)N * (double)K * GPUH_GEMM_SCALAR_LOSS >
            2.0 * (double)((M + N) * K * sizeof(T)) * GPUH_GEMM_MACS_PER_BYTE + GPUH_GEMM_SPLIT_FIXED * sms)
        return gpuh_impl_gemm_staged<Set, T>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, dev,
                                             stream);

    /* Every tile is a block of a 1-D grid: at most 2^31 - 1 of them. */
    typedef typename Set::Big Big;
    typedef typename Set::Small Small;
    const size_t s_m = Small::BM, s_n = Small::BN, b_m = Big::BM, b_n = Big::BN;
    const size_t tile_m = s_m < b_m ? s_m : b_m, tile_n = s_n < b_n ? s_n : b_n;
    if (gpuh_ceil_div(M, tile_m) > GPUH_MAX_GRID_X / gpuh_ceil_div(N, tile_n))
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_gemm: C of %zu x %zu needs more than 2^31 - 1 blocks of %zu x %zu",
                         M, N, tile_m, tile_n);

    const size_t mi = M / b_m * b_m, ni = N / b_n * b_n; /* the part whole big tiles cover */
    const gpuh_impl_gemm_plan plan =
        gpuh_impl_gemm_plan_for<Set, T>(M, N, K, sms);

    if (plan.band != 0) { /* rows (columns) [0, dp) whole, then the rest in slices of K */
        const bool rows = plan.band == 'r';
        gpuh_impl_gemm_plan first = plan;
        gpuh_impl_gemm_args<T> a1 = a;
        gpuh_impl_gemm_part<T> rest;
        first.cover = plan.first, first.splits = 1, first.k_chunk = K;
        err = gpuh_impl_gemm_whole<Set>(first, a1, vec, ta, tb, rows ? plan.dp : M, rows ? N : plan.dp, d_A, d_B, d_C,
                                        dev, sms, stream);
        if (err != cudaSuccess)
            return err;
        (void)gpuh_impl_gemm_part_of(a, ta, tb, rest, rows ? plan.dp : 0, rows ? 0 : plan.dp, 1, 1, 1, 1, d_A, d_B,
                                     d_C);
        return gpuh_impl_gemm_whole<Set>(plan, a, vec, ta, tb, rows ? M - plan.dp : M, rows ? N : N - plan.dp, rest.A,
                                         rest.B, rest.C, dev, sms, stream);
    }
    if (plan.cover != 'b')
        return gpuh_impl_gemm_whole<Set>(plan, a, vec, ta, tb, M, N, d_A, d_B, d_C, dev, sms, stream);
    /* b: whole big tiles, then the strips in one launch: below the big tiles
       (all N columns), and right of them. */
    a.part0_tiles = a.tiles =
        (unsigned)gpuh_impl_gemm_part_of(a, ta, tb, a.part[0], 0, 0, mi, ni, b_m, b_n, d_A, d_B, d_C);
    a.part[1] = a.part[0];
    if ((err = gpuh_impl_gemm_launch(Big(), a, vec, ta, tb, a.part0_tiles, stream)) != cudaSuccess)
        return err;
    gpuh_impl_gemm_part<T> strip[2];
    size_t tiles[2] = {0, 0}, n = 0;
    if (mi < M)
        tiles[n] = gpuh_impl_gemm_part_of(a, ta, tb, strip[n], mi, 0, M - mi, N, s_m, s_n, d_A, d_B, d_C), ++n;
    if (ni < N)
        tiles[n] = gpuh_impl_gemm_part_of(a, ta, tb, strip[n], 0, ni, mi, N - ni, s_m, s_n, d_A, d_B, d_C), ++n;
    a.part[0] = strip[0];
    a.part[1] = strip[n - 1];
    a.part0_tiles = (unsigned)tiles[0];
    a.tiles = (unsigned)(tiles[0] + tiles[1]);
    return gpuh_impl_gemm_launch(Small(), a, vec, ta, tb, a.tiles, stream);
}

/* gpuh_gemm_with: see [SECTION: GEMM]. */
template <typename Big, typename Small, typename T>
cudaError_t gpuh_gemm_with(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha, const T *d_A,
                           size_t lda, const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_impl_gemm_run<gpuh_impl_gemm_covers<Big, Small>, T>(
        op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
}

template <typename Big, typename Small, typename T>
cudaError_t gpuh_gemm_with(size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda, const T *d_B,
                           size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_gemm_with<Big, Small, T>(GPUH_OP_N, GPUH_OP_N, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc,
                                         stream);
}

/* The default configurations per type: float on the CUDA cores, every
   cover (gpuh_impl_sgemm_covers); double on the FP64 tensor cores where this
   build has sm_90 code, big, small and narrow tiles (gpuh_impl_dgemm_covers),
   else on the CUDA cores, big and small tiles only. */
typedef gpuh_impl_gemm_covers<gpuh_sgemm_big, gpuh_sgemm_small, gpuh_sgemm_wide, gpuh_sgemm_tall, gpuh_sgemm_wide32,
                              gpuh_sgemm_tall32, gpuh_sgemm_wide64, gpuh_sgemm_tall64>
    gpuh_impl_sgemm_covers;
typedef gpuh_impl_gemm_covers<gpuh_dgemm_big, gpuh_dgemm_small, gpuh_dgemm_wide, gpuh_dgemm_tall, gpuh_dgemm_wide32>
    gpuh_impl_dgemm_covers;
template <typename T> struct gpuh_impl_gemm_default;
template <> struct gpuh_impl_gemm_default<float> {
    static cudaError_t run(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha, const float *d_A,
                           size_t lda, const float *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                           cudaStream_t stream)
    {
        return gpuh_impl_gemm_run<gpuh_impl_sgemm_covers, float>(
            op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
    }
};
template <> struct gpuh_impl_gemm_default<double> {
    static cudaError_t run(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, double alpha,
                           const double *d_A, size_t lda, const double *d_B, size_t ldb, double beta, double *d_C,
                           size_t ldc, cudaStream_t stream)
    {
        /* the configurations are built in this translation unit for the same
           architectures, so one query per call answers for all */
        if (gpuh_impl_dmma_ready<gpuh_dgemm_big>())
            return gpuh_impl_gemm_run<gpuh_impl_dgemm_covers, double>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb,
                                                                      beta, d_C, ldc, stream);
        return gpuh_gemm_with<gpuh_dgemm_simt, gpuh_dgemm_simt>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta,
                                                                d_C, ldc, stream);
    }
};

/* gpuh_gemm, gpuh_matmul: see [SECTION: GEMM]. */
template <typename T>
cudaError_t gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda,
                      const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_impl_gemm_default<T>::run(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
}

template <typename T>
cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda, const T *d_B, size_t ldb,
                      T beta, T *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_impl_gemm_default<T>::run(GPUH_OP_N, GPUH_OP_N, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc,
                                          stream);
}

template <typename T>
cudaError_t gpuh_matmul(const T *d_A, const T *d_B, T *d_C, size_t M, size_t N, size_t K, cudaStream_t stream)
{
    return gpuh_gemm<T>(M, N, K, T(1), d_A, K, d_B, N, T(0), d_C, N, stream);
}

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

#ifndef GPUH_SIM
#include <cuda.h> /* CUtensorMap and the driver API's types: the header only, nothing is linked */
#endif

/* Stores alpha·(v0, v1) + beta·C at dst[0], dst[1] (beta == 0: C not read):
   as one 8-byte (4-byte) store for how = 2, two stores for 1, dst[0] alone
   for 0 (the last column). */
static __device__ __forceinline__ void gpuh_impl_tc_store2(float *dst, float v0, float v1, float alpha, float beta,
                                                           int how)
{
    if (how == 2) {
        float2 v = make_float2(alpha * v0, alpha * v1);
        if (beta != 0.0f) {
            const float2 c = *reinterpret_cast<const float2 *>(dst);
            v.x = fmaf(beta, c.x, v.x), v.y = fmaf(beta, c.y, v.y);
        }
        *reinterpret_cast<float2 *>(dst) = v;
        return;
    }
    dst[0] = beta == 0.0f ? alpha * v0 : fmaf(beta, dst[0], alpha * v0);
    if (how == 1)
        dst[1] = beta == 0.0f ? alpha * v1 : fmaf(beta, dst[1], alpha * v1);
}
template <typename T>
static __device__ __forceinline__ void gpuh_impl_tc_store2(T *dst, float v0, float v1, float alpha, float beta, int how)
{
    for (int e = 0; e < (how == 0 ? 1 : 2); ++e) {
        const float v = alpha * (e ? v1 : v0);
        gpuh_impl_tc_out(dst + e, beta == 0.0f ? v : fmaf(beta, gpuh_impl_tc_c(dst + e), v));
    }
}

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

/* ---------------------------------------------------------------------------
   The mma.sync kernel (sm_80 and later, where the sm_90a kernel is not
   built: A100, L4, RTX 30 and 40, a plain sm_90 build, PTX compiled by the
   driver from compute_80): the tensor cores of every GPU since Ampere,
   under a loop of the CUDA-core kernel's shape:
   - a block owns a BM × BN tile of C (128 × 128), 2 × 2 warps of 64 × 64;
     a warp keeps its 64 × 64 accumulators (4 × 8 tiles of 16 × 8, four
     floats per lane each) in registers through the whole of K;
   - slices of 64 bytes of K (32 bfloat16 / fp16, 16 TF32) of op(A) and
     op(B) go from global to shared memory with cp.async, 16 bytes per copy,
     into a ring of GPUH_IMPL_TC_MMA_STAGES stages: the copies of the next
     stages - 1 slices are in flight while the warps multiply this one;
     a chunk that reaches past an edge of the matrix is filled by ordinary
     loads of the elements inside and zeros (no edge code in the product);
   - each operand's slice is stored as it lies in memory (op(A) as A's rows
     of K, or as Aᵀ's rows of M; op(B) likewise), its rows padded by 16
     bytes (K-major) or 8 elements (M- or N-major), which puts the eight
     rows an ldmatrix phase (or a TF32 fragment load) reads in different
     banks: no bank conflicts, and any op needs no transposing copy;
   - bfloat16 / fp16: ldmatrix.x4 loads the fragments of mma.sync m16n8k16
     (.trans for an operand whose slice is M- or N-major, where the 16-bit
     pairs the instruction wants lie across rows); TF32: mma.sync m16n8k8,
     fragments by ldmatrix (K-major) or scalar loads (M- or N-major), each
     element cut to TF32 as gpuh_impl_tc_in does (so every path reads the
     same inputs).
   Block: GPUH_IMPL_TC_MMA_THREADS threads, a 1-D grid of one block per tile
   (in the grouped order of gpuh_impl_gemm_tile, so neighbouring blocks
   share slices in L2), dynamic shared memory gpuh_impl_tc_mma_layout::SMEM.
   Needs A and B 16-byte aligned with leading dimensions of whole 16 bytes
   (the launcher copies other operands first); C any. Built only for
   __CUDA_ARCH__ >= 800 without sm_90a's features; other builds hold an
   empty body and the launcher does not use them.
   Idea: the PTX ISA (mma.sync, ldmatrix, cp.async); CUTLASS's sm80
   multistage GEMM; the steps of examples/hgemm (02 and 03). */
#ifndef GPUH_SIM
/* The tile and pipeline: fixed; the #ifndef lets bench/ try others. */
#ifndef GPUH_IMPL_TC_MMA_BM
#define GPUH_IMPL_TC_MMA_BM 128
#endif
#ifndef GPUH_IMPL_TC_MMA_BN
#define GPUH_IMPL_TC_MMA_BN 128
#endif
#ifndef GPUH_IMPL_TC_MMA_WARPS_M
#define GPUH_IMPL_TC_MMA_WARPS_M 2
#endif
#ifndef GPUH_IMPL_TC_MMA_WARPS_N
#define GPUH_IMPL_TC_MMA_WARPS_N 2
#endif
#ifndef GPUH_IMPL_TC_MMA_STAGES
#define GPUH_IMPL_TC_MMA_STAGES 4
#endif
#ifndef GPUH_IMPL_TC_MMA_KBYTES
#define GPUH_IMPL_TC_MMA_KBYTES 64
#endif
#define GPUH_IMPL_TC_MMA_THREADS (32 * GPUH_IMPL_TC_MMA_WARPS_M * GPUH_IMPL_TC_MMA_WARPS_N)

/* The shared slices of the mma.sync kernel for input type T and ops TA, TB:
   sizes in elements; a stage holds op(A)'s slice, then op(B)'s. */
template <typename T, bool TA, bool TB> struct gpuh_impl_tc_mma_layout {
    enum {
        BM = GPUH_IMPL_TC_MMA_BM, BN = GPUH_IMPL_TC_MMA_BN, BK = GPUH_IMPL_TC_MMA_KBYTES / (int)sizeof(T),
        W = 16 / (int)sizeof(T),
        WM = BM / GPUH_IMPL_TC_MMA_WARPS_M, WN = BN / GPUH_IMPL_TC_MMA_WARPS_N, MT = WM / 16, NT = WN / 8,
        LDA = TA ? BM + 8 : BK + W, LDB = TB ? BK + W : BN + 8, /* row strides, padded */
        A_ELEMS = TA ? BK * LDA : BM * LDA, B_ELEMS = TB ? BN * LDB : BK * LDB,
        STAGE = A_ELEMS + B_ELEMS,
        SMEM = GPUH_IMPL_TC_MMA_STAGES * STAGE * (int)sizeof(T)
    };
    /* 16-bit: ldmatrix reads 8 rows of 16 bytes per phase, in distinct banks
       when the row stride is an odd number of 16 bytes. TF32: a fragment
       load reads (row g, column t) of 8 × 4 (K-major: stride ≡ 4 mod 8
       words) or (row t, column g) (M/N-major: stride ≡ 8 mod 32 words). */
    static_assert(sizeof(T) == 4 ? (TA ? LDA % 32 == 8 : LDA % 8 == 4) && (TB ? LDB % 8 == 4 : LDB % 32 == 8)
                                 : (LDA * 2 / 16) % 2 == 1 && (LDB * 2 / 16) % 2 == 1,
                  "the padded rows avoid bank conflicts");
    static_assert(NT % 2 == 0 && STAGE * sizeof(T) % 16 == 0, "whole fragments, aligned stages");
    /* op(A)'s element (m, k), op(B)'s (k, n) in their slices */
    static __device__ __forceinline__ int a_at(int m, int k) { return TA ? k * LDA + m : m * LDA + k; }
    static __device__ __forceinline__ int b_at(int k, int n) { return TB ? n * LDB + k : k * LDB + n; }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* Starts the copy of the ROWS × COLS slice of the stored matrix at g (row
   stride ld, 16-byte aligned rows) from row r0, column c0 into s (rows of
   LD elements): 16-byte chunks, thread tid + i·THREADS taking row
   tid / (COLS / W) + i·STEP (consecutive threads, consecutive chunks).
   rows, cols: the stored matrix's extent; a chunk that reaches past it
   holds the elements inside (none past the last row) and zeros. */
template <typename T, int ROWS, int COLS, int LD>
static __device__ __forceinline__ void gpuh_impl_tc_mma_copy(T *s, const T *g, size_t ld, size_t r0, size_t c0,
                                                             size_t rows, size_t cols)
{
    enum { W = 16 / sizeof(T), PER_ROW = COLS / W, THREADS = GPUH_IMPL_TC_MMA_THREADS };
    enum { STEP = THREADS / PER_ROW, CHUNKS = ROWS / STEP };
    static_assert(THREADS % PER_ROW == 0 && ROWS % STEP == 0, "whole chunks per thread");
    const int r = threadIdx.x / PER_ROW, c = threadIdx.x % PER_ROW * W;
    const size_t gc = c0 + c;
    const unsigned bytes = gc >= cols ? 0u : cols - gc >= (size_t)W ? 16u : (unsigned)((cols - gc) * sizeof(T));
    const unsigned s_at = (unsigned)__cvta_generic_to_shared(s + r * LD + c);
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        const size_t gr = r0 + r + (size_t)i * STEP;
        const unsigned n = gr < rows ? bytes : 0u, dst = s_at + i * STEP * LD * (int)sizeof(T);
        if (n == 16u) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(g + gr * ld + gc) : "memory");
        } else {
            /* Past an edge: the elements inside by ordinary loads, zeros for
               the rest, stored at once (the stage is free: the barrier before
               this slice's copies was passed). Not cp.async's zero-fill, which
               compute-sanitizer's initcheck counts as a read of all 16 bytes. */
            unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
            for (int e = 0; e < W; ++e)
                if ((unsigned)(e * sizeof(T)) < n) {
                    const T *src = g + gr * ld + gc + e; /* its bits, by one load of the element's size */
                    const unsigned x = sizeof(T) == 2 ? (unsigned)*reinterpret_cast<const unsigned short *>(src)
                                                      : *reinterpret_cast<const unsigned *>(src);
                    w[e * sizeof(T) / 4] |= x << (8 * (e * sizeof(T) % 4));
                }
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                         "r"(w[3])
                         : "memory");
        }
    }
}

/* Four 8 × 8 matrices of 16-bit elements from shared memory (ldmatrix.x4):
   lane l gives the address of row l % 8 of matrix l / 8, and receives in
   r[q] the pair (row l / 4, columns 2·(l % 4), +1) of matrix q, or with
   TRANS the pair (rows 2·(l % 4), +1; column l / 4). */
template <bool TRANS> static __device__ __forceinline__ void gpuh_impl_ldsm4(unsigned (&r)[4], unsigned addr)
{
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
}

/* D += A·B for one 16 × 8 tile: m16n8k16 (bfloat16, fp16) or m16n8k8
   (TF32), fp32 accumulators. Lane l, g = l / 4, t = l % 4, holds
   d = D[g][2t], D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1]; for 16-bit
   inputs a = pairs A[g][2t..], A[g + 8][2t..], A[g][2t + 8..],
   A[g + 8][2t + 8..] and b = pairs B[2t..][g], B[2t + 8..][g]; for TF32
   a = A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4] and b = B[t][g],
   B[t + 4][g]. */
#define GPUH_IMPL_MMA_SYNC(type, shape_and_types)                                                             \
    static __device__ __forceinline__ void gpuh_impl_mma(float(&d)[4], const unsigned(&a)[4], const unsigned(&b)[2], \
                                                         type)                                                        \
    {                                                                                                                 \
        asm volatile("mma.sync.aligned." shape_and_types " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "          \
                     "{%0, %1, %2, %3};\n"                                                                          \
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                                 \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));                             \
    }
GPUH_IMPL_MMA_SYNC(__nv_bfloat16, "m16n8k16.row.col.f32.bf16.bf16.f32")
GPUH_IMPL_MMA_SYNC(__half, "m16n8k16.row.col.f32.f16.f16.f32")
GPUH_IMPL_MMA_SYNC(float, "m16n8k8.row.col.f32.tf32.tf32.f32")
#undef GPUH_IMPL_MMA_SYNC

/* One warp's products over one shared slice, 16-bit inputs: per 16 of K,
   the fragments of its MT tiles of op(A) (16 × 16) and NT of op(B)
   (16 × 8, two per ldmatrix.x4), then MT · NT mma.sync. The lane's address
   in each ldmatrix: row lane % 8 of matrix lane / 8 (a row of the slice
   as stored: of M or N in a K-major slice, of K in an M- or N-major one,
   read with .trans), the matrices in the order of the fragment's
   registers (gpuh_impl_mma). */
template <typename L, bool TA, bool TB, typename T>
static __device__ __forceinline__ void gpuh_impl_tc_mma_slice(float (&acc)[L::MT][L::NT][4], const T *s_A,
                                                              const T *s_B, int wm0, int wn0, int lane)
{
    const unsigned a0 = (unsigned)__cvta_generic_to_shared(s_A), b0 = (unsigned)__cvta_generic_to_shared(s_B);
    const int r = lane % 8, q = lane / 8;
#pragma unroll
    for (int kk = 0; kk < L::BK; kk += 16) {
        unsigned a[L::MT][4], b[L::NT][2];
#pragma unroll
        for (int i = 0; i < L::MT; ++i) /* matrices: (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15) */
            gpuh_impl_ldsm4<TA>(a[i], a0 + 2 * L::a_at(wm0 + 16 * i + 8 * (q % 2) + (TA ? 0 : r),
                                                       kk + 8 * (q / 2) + (TA ? r : 0)));
#pragma unroll
        for (int j = 0; j < L::NT; j += 2) { /* (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15) */
            unsigned f[4];
            gpuh_impl_ldsm4<!TB>(f, b0 + 2 * L::b_at(kk + 8 * (q % 2) + (TB ? 0 : r),
                                                     wn0 + 8 * j + 8 * (q / 2) + (TB ? r : 0)));
            b[j][0] = f[0], b[j][1] = f[1], b[j + 1][0] = f[2], b[j + 1][1] = f[3];
        }
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
#pragma unroll
            for (int j = 0; j < L::NT; ++j)
                gpuh_impl_mma(acc[i][j], a[i], b[j], T());
    }
}
/* The same for TF32: per 8 of K, the fragments of a K-major slice by
   ldmatrix (a row of 8 16-bit halves is 4 floats, and lane l receives
   float l % 4 of row l / 4: the m16n8k8 layout), of an M- or N-major one
   by scalar loads (ldmatrix cannot transpose 32-bit elements); each element
   cut to TF32 (gpuh_impl_tc_in), then m16n8k8. */
template <typename L, bool TA, bool TB>
static __device__ __forceinline__ void gpuh_impl_tc_mma_slice(float (&acc)[L::MT][L::NT][4], const float *s_A,
                                                              const float *s_B, int wm0, int wn0, int lane)
{
    const unsigned a0 = (unsigned)__cvta_generic_to_shared(s_A), b0 = (unsigned)__cvta_generic_to_shared(s_B);
    const int g = lane / 4, t = lane % 4, r = lane % 8, q = lane / 8;
#pragma unroll
    for (int kk = 0; kk < L::BK; kk += 8) {
        unsigned a[L::MT][4], b[L::NT][2];
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
            if (!TA) /* K-major: an 8 × 8 matrix of 16-bit halves is 8 × 4 floats, (m 0-7 | 8-15) × (k 0-3 | 4-7) */
                gpuh_impl_ldsm4<false>(a[i], a0 + 4 * L::a_at(wm0 + 16 * i + r + 8 * (q % 2), kk + 4 * (q / 2)));
            else
#pragma unroll
                for (int v = 0; v < 4; ++v)
                    a[i][v] = __float_as_uint(s_A[L::a_at(wm0 + 16 * i + g + 8 * (v % 2), kk + t + 4 * (v / 2))]);
#pragma unroll
        for (int j = 0; j < L::NT; j += 2)
            if (TB) { /* K-major: (n 0-7, k 0-3), (n 0-7, k 4-7), (n 8-15, k 0-3), (n 8-15, k 4-7) */
                unsigned f[4];
                gpuh_impl_ldsm4<false>(f, b0 + 4 * L::b_at(kk + 4 * (q % 2), wn0 + 8 * j + r + 8 * (q / 2)));
                b[j][0] = f[0], b[j][1] = f[1], b[j + 1][0] = f[2], b[j + 1][1] = f[3];
            } else
#pragma unroll
                for (int v = 0; v < 4; ++v)
                    b[j + v / 2][v % 2] = __float_as_uint(s_B[L::b_at(kk + t + 4 * (v % 2), wn0 + 8 * (j + v / 2) + g)]);
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                a[i][v] = __float_as_uint(gpuh_impl_tc_in(__uint_as_float(a[i][v])));
#pragma unroll
        for (int j = 0; j < L::NT; ++j)
#pragma unroll
            for (int v = 0; v < 2; ++v)
                b[j][v] = __float_as_uint(gpuh_impl_tc_in(__uint_as_float(b[j][v])));
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
#pragma unroll
            for (int j = 0; j < L::NT; ++j)
                gpuh_impl_mma(acc[i][j], a[i], b[j], 0.0f);
    }
}

/* Starts the copies of slice `s` of op(A) and op(B) (K from s·BK) into the
   stage at s_stage, each operand as it is stored. */
template <typename L, bool TA, bool TB, typename TIn, typename TOut>
static __device__ __forceinline__ void gpuh_impl_tc_mma_load(TIn *s_stage, const gpuh_impl_tc_args<TIn, TOut> &p,
                                                             size_t m0, size_t n0, size_t s)
{
    const size_t k0 = s * L::BK;
    TIn *s_B = s_stage + L::A_ELEMS;
    if (TA)
        gpuh_impl_tc_mma_copy<TIn, L::BK, L::BM, L::LDA>(s_stage, p.A, p.lda, k0, m0, p.K, p.M);
    else
        gpuh_impl_tc_mma_copy<TIn, L::BM, L::BK, L::LDA>(s_stage, p.A, p.lda, m0, k0, p.M, p.K);
    if (TB)
        gpuh_impl_tc_mma_copy<TIn, L::BN, L::BK, L::LDB>(s_B, p.B, p.ldb, n0, k0, p.N, p.K);
    else
        gpuh_impl_tc_mma_copy<TIn, L::BK, L::BN, L::LDB>(s_B, p.B, p.ldb, k0, n0, p.K, p.N);
}
#endif /* __CUDA_ARCH__ >= 800, not sm_90a */

template <typename TIn, typename TOut, bool TA, bool TB>
__global__ void __launch_bounds__(GPUH_IMPL_TC_MMA_THREADS) gpuh_tc_mma_kernel(const gpuh_impl_tc_args<TIn, TOut> p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    typedef gpuh_impl_tc_mma_layout<TIn, TA, TB> L;
    enum { STAGES = GPUH_IMPL_TC_MMA_STAGES };
    TIn *const s_all = gpuh_impl_dynamic_smem<TIn>(); /* stage s at s·STAGE */
    /* this block's tile, in groups of GPUH_GEMM_GROUP_M rows of tiles */
    const unsigned tiles_m = (unsigned)((p.M + L::BM - 1) / L::BM), tiles_n = (unsigned)((p.N + L::BN - 1) / L::BN);
    const unsigned width = GPUH_GEMM_GROUP_M * tiles_n, first = blockIdx.x / width * GPUH_GEMM_GROUP_M;
    const unsigned rows = tiles_m - first < GPUH_GEMM_GROUP_M ? tiles_m - first : GPUH_GEMM_GROUP_M;
    const size_t m0 = (size_t)(first + blockIdx.x % width % rows) * L::BM, n0 = (size_t)(blockIdx.x % width / rows) * L::BN;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm0 = warp / GPUH_IMPL_TC_MMA_WARPS_N * L::WM, wn0 = warp % GPUH_IMPL_TC_MMA_WARPS_N * L::WN;
    float acc[L::MT][L::NT][4];
#pragma unroll
    for (int i = 0; i < L::MT; ++i)
#pragma unroll
        for (int j = 0; j < L::NT; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                acc[i][j][v] = 0.0f;

    const size_t steps = (p.K + L::BK - 1) / L::BK;
    /* Prologue: slices 0 .. STAGES - 2 in flight, one commit group each
       (empty groups past the end keep the count the wait below relies on). */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if ((size_t)s < steps)
            gpuh_impl_tc_mma_load<L, TA, TB>(s_all + s * L::STAGE, p, m0, n0, (size_t)s);
        gpuh_impl_cp_async_commit();
    }
    for (size_t s = 0; s < steps; ++s) {
        /* This thread's copies of slice s have landed (at most STAGES - 2
           newer groups pending)... */
        gpuh_impl_cp_async_wait<STAGES - 2>();
        /* ...and everyone's; and every warp is done with slice s - 1, whose
           stage the copies issued next overwrite. */
        __syncthreads();
        if (s + STAGES - 1 < steps)
            gpuh_impl_tc_mma_load<L, TA, TB>(s_all + (int)((s + STAGES - 1) % STAGES) * L::STAGE, p, m0, n0,
                                             s + STAGES - 1);
        gpuh_impl_cp_async_commit();
        const TIn *s_A = s_all + (int)(s % STAGES) * L::STAGE;
        gpuh_impl_tc_mma_slice<L, TA, TB>(acc, s_A, s_A + L::A_ELEMS, wm0, wn0, lane);
    }
    gpuh_impl_cp_async_wait<0>(); /* only empty groups are left; none may outlive the block */

    /* C: lane (g, t) holds (row g and g + 8, columns 2t and 2t + 1) of each
       16 × 8 tile; pairs in one store where C's rows keep them aligned */
    const bool pairs = (uintptr_t)p.C % (2 * sizeof(TOut)) == 0 && p.ldc % 2 == 0;
#pragma unroll
    for (int i = 0; i < L::MT; ++i)
#pragma unroll
        for (int j = 0; j < L::NT; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const size_t row = m0 + wm0 + 16 * i + lane / 4 + 8 * h, col = n0 + wn0 + 8 * j + 2 * (lane % 4);
                if (row < p.M && col < p.N)
                    gpuh_impl_tc_store2(p.C + row * p.ldc + col, acc[i][j][2 * h], acc[i][j][2 * h + 1], p.alpha,
                                        p.beta, pairs && col + 1 < p.N ? 2 : col + 1 < p.N ? 1 : 0);
            }
#else
    (void)p;
#endif
}
#endif /* GPUH_SIM */

/* ---------------------------------------------------------------------------
   The sm_90a kernel (H100, H200). This version, the one gpuh ships, is the
   Hopper recipe of the public worklogs, written for gpuh:
   - TMA (cp.async.bulk.tensor) copies each slice of op(A) and op(B) from
     global to shared memory, in the 128-byte swizzled layout wgmma reads
     without bank conflicts, and zero-fills past the matrix edges: no edge
     code on the loads, any M, N, K;
   - wgmma.mma_async multiplies from shared memory, asynchronously, a
     64 × BN × 16 (TF32: × 8) product per instruction per warp group;
   - warp specialisation: warp group 0 only issues the copies (one thread,
     with few registers: setmaxnreg.dec), warp groups 1 and 2 only multiply
     (64 rows of the 128 × BN tile each, BN / 2 fp32 accumulators per
     thread: setmaxnreg.inc);
   - a ring of GPUH_IMPL_TC_STAGES(BN) stages: the copier waits on a stage's
     "empty" mbarrier, then starts its copies, which complete on the
     stage's "full" mbarrier (arrive.expect_tx with the stage's bytes); the
     multipliers wait on "full", issue their wgmmas and, once they are done
     with the stage, arrive on "empty". Copies of later slices thus overlap
     the products of earlier ones.
   - persistent blocks: one per SM, each over tiles b, b + gridDim.x, ...,
     so that the copier fills the ring with the next tile's slices while
     the multipliers store this one's C; the tiles of a last wave or two
     that would leave SMs idle are shared out by K slice instead
     (gpuh_impl_tc_work), their partial sums added by each tile's owner
     in a fixed order;
   - where the launcher chooses, clusters of 2 blocks on vertically
     adjacent tiles (rows m0 and m0 + 128, the same columns), which need
     the same slices of op(B): each block's copier loads half of a slice
     of op(B) and multicasts it into both blocks' stages, so each block
     reads half as many bytes of B from L2; a stage is "empty" once both
     blocks' multipliers are done with it (each arrives on its own and on
     its partner's mbarrier). The work is planned in units of a cluster's
     tiles (128 or 256 rows): a unit below is a cluster of 1 or 2 blocks.
   Block: 384 threads, tiles of 128 × BN of C (in the grouped order of
   gpuh_impl_gemm_tile), dynamic shared memory GPUH_IMPL_TC_SMEM(BN). BN is
   256 (the wide tile: the fewest bytes loaded per product) or 128 (the
   narrow tile, more stages in the same shared memory: twice the tiles, for
   a C whose wide tiles would leave SMs idle; the launcher prices both,
   gpuh_impl_tc_choose). The
   operands: op(A)'s slice is K-major (A as stored, rows of K) or, for
   op_a = T on 16-bit inputs, M-major (wgmma's transpose-A); op(B)'s is
   K-major for op_b = T and N-major for op_b = N (transpose-B). TF32 wgmma
   has no transposes, but takes op(A) from registers as well (the RS form):
   for TF32 with op_a = T, the multipliers load op(A)'s fragments from its
   M-major slice with ld.shared (gpuh_impl_tc_rs_slice) and wgmma reads
   only op(B) from shared memory, K-major (op_b = T). The launcher brings
   every product to op_b = T: op_a = N, op_b = N by swapping the roles
   (Cᵀ = Bᵀ·Aᵀ, stored transposed: gpuh_impl_tc_args's ct), op_a = T,
   op_b = N by a transposing copy of the smaller operand first
   (gpuh_impl_tc_tf32_form).
   Built only with sm_90a's features (__CUDA_ARCH_FEAT_SM90_ALL); other
   builds hold an empty body and the launcher does not use them.
   Idea: the PTX ISA (wgmma, TMA, mbarrier, setmaxnreg); P. Shankhdhar,
   "Outperforming cuBLAS on H100"; CUTLASS's sm90 warp-specialised GEMM. */
#define GPUH_IMPL_TC_BM 128
#define GPUH_IMPL_TC_BN 256        /* the wide tile's columns */
#define GPUH_IMPL_TC_BN_NARROW 128 /* the narrow tile's */
#define GPUH_IMPL_TC_STAGES(bn) ((bn) == GPUH_IMPL_TC_BN ? 4 : 6)
#define GPUH_IMPL_TC_A_BYTES (GPUH_IMPL_TC_BM * 128) /* a slice is 128 bytes of K: 64 halves, 32 floats */
#define GPUH_IMPL_TC_STAGE_BYTES(bn) (GPUH_IMPL_TC_A_BYTES + (bn) * 128)
/* the stages, their 2 mbarriers each, and room to align the stages to 1024 bytes (the swizzle's period) */
#define GPUH_IMPL_TC_SMEM(bn) (GPUH_IMPL_TC_STAGES(bn) * (GPUH_IMPL_TC_STAGE_BYTES(bn) + 16) + 1024)

#ifndef GPUH_SIM
/* wgmma's accumulator operands: the first 64 (the narrow tile's thread
   holds these) and all 128 (the wide tile's). */
#define GPUH_IMPL_WGMMA_D_LO \
    "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
    "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
    "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63"
#define GPUH_IMPL_WGMMA_D64 "{" GPUH_IMPL_WGMMA_D_LO "}"
#define GPUH_IMPL_WGMMA_D \
    "{" GPUH_IMPL_WGMMA_D_LO ", " \
    "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, " \
    "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, " \
    "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, " \
    "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127" "}"
#define GPUH_IMPL_WGMMA_D64_OPS(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), \
    "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), \
    "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), \
    "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), \
    "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), \
    "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), \
    "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), \
    "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
#define GPUH_IMPL_WGMMA_D_OPS(d) \
    GPUH_IMPL_WGMMA_D64_OPS(d), \
    "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), \
    "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), \
    "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), \
    "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), \
    "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), \
    "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), \
    "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), \
    "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* A shared-memory matrix descriptor of wgmma: start address, leading and
   stride byte offsets (each >> 4), 128-byte swizzle (mode 1 in bits 62-63).
   K-major: rows of 128 bytes of K, groups of 8 rows 1024 bytes apart (the
   stride offset); the leading offset is unused. MN-major: rows of 128 bytes
   (64 elements) of M or N, 8 rows of K 1024 bytes apart (stride offset),
   the next 64 of M or N `lead` bytes on (leading offset). */
static __device__ __forceinline__ unsigned long long gpuh_impl_tc_desc(unsigned addr, unsigned lead)
{
    return (unsigned long long)((addr & 0x3ffff) >> 4) | (unsigned long long)(lead >> 4) << 16 |
           (unsigned long long)(1024 >> 4) << 32 | 1ull << 62;
}

/* d += A·B, one instruction: m64nBNk16 for bfloat16 / fp16, m64nBNk8 for
   TF32, BN = 256 or 128 as d holds 128 or 64 accumulators. TA: op(A) = Aᵀ,
   read M-major (wgmma's transpose-A); TB: op(B) = Bᵀ, which is K-major, so
   B is read N-major (transpose-B) when TB is false. */
#define GPUH_IMPL_WGMMA_16BIT(acc, shape, type, ptx_type, d_list, d_ops, rest)                                       \
    template <bool TA, bool TB>                                                                                    \
    static __device__ __forceinline__ void gpuh_impl_wgmma(float(&d)[acc], unsigned long long da,                  \
                                                           unsigned long long db, type)                            \
    {                                                                                                              \
        asm volatile("wgmma.mma_async.sync.aligned." shape ".f32." ptx_type "." ptx_type " " d_list rest          \
                     : d_ops(d)                                                                                    \
                     : "l"(da), "l"(db), "n"(TA ? 1 : 0), "n"(TB ? 0 : 1));                                        \
    }
GPUH_IMPL_WGMMA_16BIT(64, "m64n128k16", __nv_bfloat16, "bf16", GPUH_IMPL_WGMMA_D64, GPUH_IMPL_WGMMA_D64_OPS,
                      ", %64, %65, 1, 1, 1, %66, %67;\n")
GPUH_IMPL_WGMMA_16BIT(64, "m64n128k16", __half, "f16", GPUH_IMPL_WGMMA_D64, GPUH_IMPL_WGMMA_D64_OPS,
                      ", %64, %65, 1, 1, 1, %66, %67;\n")
GPUH_IMPL_WGMMA_16BIT(128, "m64n256k16", __nv_bfloat16, "bf16", GPUH_IMPL_WGMMA_D, GPUH_IMPL_WGMMA_D_OPS,
                      ", %128, %129, 1, 1, 1, %130, %131;\n")
GPUH_IMPL_WGMMA_16BIT(128, "m64n256k16", __half, "f16", GPUH_IMPL_WGMMA_D, GPUH_IMPL_WGMMA_D_OPS,
                      ", %128, %129, 1, 1, 1, %130, %131;\n")
#undef GPUH_IMPL_WGMMA_16BIT
template <bool TA, bool TB>
static __device__ __forceinline__ void gpuh_impl_wgmma(float (&d)[64], unsigned long long da, unsigned long long db,
                                                       float)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D64 ", %64, %65, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D64_OPS(d)
                 : "l"(da), "l"(db));
}
template <bool TA, bool TB>
static __device__ __forceinline__ void gpuh_impl_wgmma(float (&d)[128], unsigned long long da, unsigned long long db,
                                                       float)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D
                 ", %128, %129, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D_OPS(d)
                 : "l"(da), "l"(db));
}

/* d += A·B in the RS form: m64nBNk8 TF32, A's 64 × 8 from registers (a:
   this thread's four elements, wgmma's fragment layout: rows g and g + 8,
   columns t and t + 4 of the warp's 16 rows, g = lane / 4, t = lane % 4),
   B from shared memory (K-major). a is marked as written ("+r") so that
   its registers hold it until gpuh_impl_tc_keep after the wgmma.wait_group
   that retires this instruction: wgmma reads them asynchronously. */
static __device__ __forceinline__ void gpuh_impl_wgmma_rs(float (&d)[64], unsigned (&a)[4], unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D64
                 ", {%64, %65, %66, %67}, %68, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D64_OPS(d), "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3])
                 : "l"(db));
}
static __device__ __forceinline__ void gpuh_impl_wgmma_rs(float (&d)[128], unsigned (&a)[4], unsigned long long db)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 " GPUH_IMPL_WGMMA_D
                 ", {%128, %129, %130, %131}, %132, 1, 1, 1;\n"
                 : GPUH_IMPL_WGMMA_D_OPS(d), "+r"(a[0]), "+r"(a[1]), "+r"(a[2]), "+r"(a[3])
                 : "l"(db));
}
/* The registers of an RS wgmma's A fragments stay theirs up to here (a use
   the compiler cannot see through or move across the wait before it). */
static __device__ __forceinline__ void gpuh_impl_tc_keep(unsigned (&f)[4][4])
{
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j)
            asm volatile("" : "+r"(f[i][j])::"memory");
}
/* One slice (32 of K) of the RS form for a multiplier warp group: the A
   fragments of its four k8 steps loaded into `cur` from op(A)'s M-major
   slice, the four wgmmas (B's K-major slice at sb) committed as one group,
   the group before retired (wgmma.wait_group 1), and with it the registers
   of `old`, the fragments that group read. a_lo / a_hi: this thread's
   shared address of its row pair at k = t and k = t + 4 of the slice's
   first k8 step (the next step is 8 rows of 128 bytes on).
   The fragments go to the tensor cores as loaded: a TF32 wgmma reads only
   the TF32 bits of each float in its registers, as it does for B in shared
   memory (the products were bit for bit those of fragments cut to TF32
   first, a cut that put 48 more instructions per slice on the
   multipliers' critical path: bench/results/NOTES.md). */
template <int ACC>
static __device__ __forceinline__ void gpuh_impl_tc_rs_slice(float (&d)[ACC], unsigned (&cur)[4][4],
                                                             unsigned (&old)[4][4], unsigned a_lo, unsigned a_hi,
                                                             unsigned sb)
{
#pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n"
                     : "=r"(cur[kk][0]), "=r"(cur[kk][1])
                     : "r"(a_lo + kk * 1024));
        asm volatile("ld.shared.v2.u32 {%0, %1}, [%2];\n"
                     : "=r"(cur[kk][2]), "=r"(cur[kk][3])
                     : "r"(a_hi + kk * 1024));
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
        gpuh_impl_wgmma_rs(d, cur[kk], gpuh_impl_tc_desc(sb + kk * 32, 16));
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
    gpuh_impl_tc_keep(old);
}

static __device__ __forceinline__ void gpuh_impl_mbar_wait(unsigned bar, unsigned parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "wait:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait;\n"
                 "}\n" ::"r"(bar), "r"(parity)
                 : "memory");
}
/* A 2-D TMA copy of the box at (c0, c1) of `map` to shared memory at dst,
   completing on the mbarrier bar. */
static __device__ __forceinline__ void gpuh_impl_tma_load(unsigned dst, const CUtensorMap *map, int c0, int c1,
                                                          unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
                 "[%4];\n" ::"r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar)
                 : "memory");
}
/* The same copy into both blocks of a cluster of 2 (multicast, mask 0b11):
   to the same offset dst of each one's shared memory, completing on each
   one's mbarrier at bar. */
static __device__ __forceinline__ void gpuh_impl_tma_load_pair(unsigned dst, const CUtensorMap *map, int c0, int c1,
                                                               unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
                 "[%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
                 "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"((unsigned short)3)
                 : "memory");
}
/* One arrival on the mbarrier at bar in this block and, in a cluster of 2,
   one on its twin (same offset) in the other block: a stage the
   multipliers are done with goes back to every copier that writes into
   it. */
static __device__ __forceinline__ void gpuh_impl_tc_release(unsigned bar)
{
    asm volatile("{\n"
                 ".reg .pred two;\n"
                 ".reg .b32 n, peer, far;\n"
                 "mbarrier.arrive.shared::cta.b64 _, [%0];\n"
                 "mov.u32 n, %%cluster_nctarank;\n"
                 "setp.eq.u32 two, n, 2;\n"
                 "@two mov.u32 peer, %%cluster_ctarank;\n"
                 "@two xor.b32 peer, peer, 1;\n"
                 "@two mapa.shared::cluster.u32 far, %0, peer;\n"
                 "@two mbarrier.arrive.shared::cluster.b64 _, [far];\n"
                 "}\n" ::"r"(bar)
                 : "memory");
}

/* alpha·v + beta·dst (beta == 0: dst not read) stored at dst[0 .. 3] in one
   store: 16 bytes of fp32, 8 of a 16-bit type (rounded as
   gpuh_impl_tc_out), dst aligned to it. */
static __device__ __forceinline__ void gpuh_impl_tc_store4(float *dst, float4 v, float alpha, float beta)
{
    v.x *= alpha, v.y *= alpha, v.z *= alpha, v.w *= alpha;
    if (beta != 0.0f) {
        const float4 c = *reinterpret_cast<const float4 *>(dst);
        v.x = fmaf(beta, c.x, v.x), v.y = fmaf(beta, c.y, v.y), v.z = fmaf(beta, c.z, v.z), v.w = fmaf(beta, c.w, v.w);
    }
    *reinterpret_cast<float4 *>(dst) = v;
}
template <typename T>
static __device__ __forceinline__ void gpuh_impl_tc_store4(T *dst, float4 v, float alpha, float beta)
{
    alignas(8) T c[4];
    const float f[4] = {alpha * v.x, alpha * v.y, alpha * v.z, alpha * v.w};
    if (beta != 0.0f)
        *reinterpret_cast<uint2 *>(c) = *reinterpret_cast<const uint2 *>(dst);
#pragma unroll
    for (int e = 0; e < 4; ++e)
        gpuh_impl_tc_out(c + e, beta == 0.0f ? f[e] : fmaf(beta, gpuh_impl_tc_c(c + e), f[e]));
    *reinterpret_cast<uint2 *>(dst) = *reinterpret_cast<const uint2 *>(c);
}
/* v exchanged with lane ^ lanes of the warp (all 32 lanes take part). */
static __device__ __forceinline__ float4 gpuh_impl_tc_swap4(float4 v, int lanes)
{
    v.x = __shfl_xor_sync(0xffffffffu, v.x, lanes), v.y = __shfl_xor_sync(0xffffffffu, v.y, lanes);
    v.z = __shfl_xor_sync(0xffffffffu, v.z, lanes), v.w = __shfl_xor_sync(0xffffffffu, v.w, lanes);
    return v;
}
/* A warp's 16 × BN of C that lies wholly inside C (rows row .. row + 15,
   columns col .. col + BN - 1; C aligned to 4 elements, ldc a multiple of
   4), stored in whole lines (128 bytes of fp32, 64 of a 16-bit type).
   wgmma leaves lane (g, q) (g = lane / 4, q = lane % 4) two adjacent
   elements per 8 columns of rows g and g + 8 (d[4j + 2h + e]: row g + 8h,
   column 8j + 2q + e), so a store straight from d writes 8 columns in
   each of 8 rows. Two exchanges make lines of them: lanes q and q ^ 1
   swap pairs, so each holds 4 adjacent columns (a quad, 16 of a row);
   lanes g and g ^ 1 swap such quads, so a warp's store writes 32 adjacent
   columns in each of 4 rows: half the stores, each touching half the
   lines. */
template <int BN, typename T>
static __device__ __forceinline__ void gpuh_impl_tc_store_lines(T *C, size_t ldc, size_t row, size_t col,
                                                                const float (&d)[BN / 2], int lane, float alpha,
                                                                float beta)
{
    const int g = lane / 4, q = lane % 4, odd = q & 1, gd = g & 1;
    /* the quad's first column in each 32: q = 0, 1, 2, 3 hold 0, 8, 4, 12 (+ 16 once g swaps) */
    T *line = C + (row + (g & ~1)) * ldc + col + 4 * (q >> 1) + 8 * odd + 16 * gd;
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int p = 0; p < BN / 32; ++p) {
            float4 f[2]; /* columns 32p + 16e + (the quad's): rows g + 8h */
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                const int a = 4 * (4 * p + 2 * e) + 2 * h, b = a + 4; /* columns 8j0 + 2q, 8j0 + 8 + 2q */
                const float sx = __shfl_xor_sync(0xffffffffu, odd ? d[a] : d[b], 1);
                const float sy = __shfl_xor_sync(0xffffffffu, odd ? d[a + 1] : d[b + 1], 1);
                f[e] = odd ? make_float4(sx, sy, d[b], d[b + 1]) : make_float4(d[a], d[a + 1], sx, sy);
            }
            const float4 r = gpuh_impl_tc_swap4(gd ? f[0] : f[1], 4);
            T *dst = line + 8 * h * ldc + 32 * p;
            gpuh_impl_tc_store4(dst, gd ? r : f[0], alpha, beta);      /* row g & ~1 */
            gpuh_impl_tc_store4(dst + ldc, gd ? f[1] : r, alpha, beta); /* row g | 1 */
        }
}
#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

/* The sm_90a kernel's share of work per block: whole tiles first (the
   data-parallel part: tiles [0, dp), block b taking b, b + gridDim.x, ...),
   then, where whole tiles would leave SMs idle at the end, the tiles
   [dp, tiles) as one run of their k-slices (tile after tile, L slices in
   all) shared out evenly: block u < units takes slices [u·L / units,
   (u + 1)·L / units) (Stream-K over the last wave or two; dp is a
   multiple of the grid, so every block comes to it at once). A block's
   share cuts at most two tiles short: the last tile it reaches it leaves
   before its end, as a partial (partial: per block, the 256 multiplying
   threads' accumulators; flags: per block, 1 once its partial is
   written), and the first it reaches it takes from the middle to the end:
   it owns that tile and adds the partials of the blocks before it, in
   their order, so C is bitwise the same on every call. A block works its
   share from the last tile to the first, so it writes its partial before
   it waits on anyone's, and it waits only on blocks below it: no block
   waits on a block that waits, and none on a block that may not have
   started yet. units = 0: no shared part (dp = tiles). The sm_90a kernel
   walks this in clusters of 1 or 2 blocks: a "block" here is a cluster, a
   tile its tiles, and each block of the cluster keeps its own partial.
   Idea: M. Osama et al., "Stream-K: Work-centric Parallel Decomposition
   for Dense Matrix-Matrix Multiplication on the GPU" (PPoPP 2023). */
struct gpuh_impl_tc_work {
    unsigned long long dp, tiles;
    unsigned units;
    float *partial;
    unsigned *flags;
};

/* Where block u's share of the shared part begins, of its
   (tiles - dp)·ktiles slices, floor(u·slices / units), and the block whose
   share holds slice s: the last u whose share begins at or before s,
   floor(((s + 1)·units - 1) / slices). In 32 bits: the plan keeps
   slices·units below 2^32 (a 64-bit division in the multipliers' code
   costs them a register spill). */
static __host__ __device__ __forceinline__ unsigned gpuh_impl_tc_share(const gpuh_impl_tc_work &w, int ktiles,
                                                                       unsigned u)
{
    return u * ((unsigned)(w.tiles - w.dp) * (unsigned)ktiles) / w.units;
}
static __host__ __device__ __forceinline__ unsigned gpuh_impl_tc_holder(const gpuh_impl_tc_work &w, int ktiles,
                                                                        unsigned s)
{
    return ((s + 1) * w.units - 1) / ((unsigned)(w.tiles - w.dp) * (unsigned)ktiles);
}

/* The walk of block `block` (of `grid`) over its share, one segment (a tile
   and its k-slices [k0, k1) of ktiles) per next(): its whole tiles, then
   its segments of the shared part, last tile first. One 64-bit counter,
   so that the multipliers keep their registers for accumulators: the next
   whole tile, below dp; then bit 63, the block (bits 32-62) and 1 + the
   next tile of the shared part, counted from dp (bits 0-31; 0: no more).
   Host and device: the tests walk it on the host. */
struct gpuh_impl_tc_walk {
    unsigned long long state;
    __host__ __device__ explicit gpuh_impl_tc_walk(unsigned block) : state(block) {}
    __host__ __device__ bool next(const gpuh_impl_tc_work &w, unsigned grid, int ktiles, unsigned long long &t,
                                  int &k0, int &k1)
    {
        const unsigned kt = (unsigned)ktiles;
        if (state < w.dp) {
            t = state, k0 = 0, k1 = ktiles;
            state += grid;
            return true;
        }
        if (!(state >> 63)) { /* past the whole tiles: dp is a multiple of grid, so the block is state - dp */
            const unsigned long long u = state - w.dp;
            if (w.units == 0 || u >= w.units ||
                gpuh_impl_tc_share(w, ktiles, (unsigned)u) == gpuh_impl_tc_share(w, ktiles, (unsigned)u + 1)) {
                state = 1ull << 63;
                return false;
            }
            state = 1ull << 63 | u << 32 | ((gpuh_impl_tc_share(w, ktiles, (unsigned)u + 1) - 1) / kt + 1);
        }
        const unsigned u = (unsigned)(state >> 32 & 0x7fffffffull), next = (unsigned)state;
        if (next == 0)
            return false;
        const unsigned s0 = gpuh_impl_tc_share(w, ktiles, u), s1 = gpuh_impl_tc_share(w, ktiles, u + 1);
        const unsigned tile = next - 1, first = tile * kt;
        t = w.dp + tile;
        k0 = s0 > first ? (int)(s0 - first) : 0;
        k1 = s1 < first + kt ? (int)(s1 - first) : ktiles;
        state = tile > s0 / kt ? state - 1 : state & ~0xffffffffull;
        return true;
    }
    /* What the segment next() returned last is: 0 a whole tile, 1 a partial
       (it stops short of K), 2 an owned tile (from the middle to K);
       worked out again from the counter, so that nothing of the segment
       stays in registers meanwhile. */
    __host__ __device__ int role(const gpuh_impl_tc_work &w, int ktiles) const
    {
        if (!(state >> 63))
            return 0;
        const unsigned kt = (unsigned)ktiles, u = (unsigned)(state >> 32 & 0x7fffffffull), next = (unsigned)state;
        const unsigned s0 = gpuh_impl_tc_share(w, ktiles, u), s1 = gpuh_impl_tc_share(w, ktiles, u + 1);
        const unsigned first = (next > 0 ? next : s0 / kt) * kt;
        return s1 < first + kt ? 1 : s0 > first ? 2 : 0;
    }
};

/* Tile `tile` of a tiles_m × tiles_n cover of C by tiles of bm × bn in the
   grouped order (gpuh_impl_gemm_tile's): its first row m0 and column n0. */
static __device__ __forceinline__ void gpuh_impl_tc_tile(unsigned long long tile, unsigned tiles_m, unsigned tiles_n,
                                                         int bm, int bn, int &m0, int &n0)
{
    const unsigned long long width = (unsigned long long)GPUH_GEMM_GROUP_M * tiles_n;
    const unsigned long long first = tile / width * GPUH_GEMM_GROUP_M;
    const unsigned long long rows = tiles_m - first < GPUH_GEMM_GROUP_M ? tiles_m - first : GPUH_GEMM_GROUP_M;
    m0 = (int)((first + tile % width % rows) * bm);
    n0 = (int)(tile % width / rows * bn);
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* The shared part's partials (gpuh_impl_tc_work): multiplying thread i (0-255) of
   block r of cluster c (of n blocks) keeps its BN / 2 accumulators at
   w.partial[n·c + r][j][i] in float4s
   (j = 0 .. BN / 8 - 1: each warp's stores and loads are 512 contiguous
   bytes), at L2 (.cg). The 256 threads meet at named barrier 1 (the copier
   warp group is not in it); thread 0 then publishes the partial with a
   release at GPU scope (its fence orders the others' stores, seen through
   the barrier, before the flag) or, on the other side, acquires each flag
   before the barrier lets the others read. The cluster's index and the
   block's place in it are read where they are used (an asm volatile,
   which the compiler cannot hoist): addresses computed from them ahead of
   the main loop would hold registers the accumulators need. */
static __device__ __forceinline__ unsigned gpuh_impl_tc_cluster(void)
{
    unsigned c;
    asm volatile("mov.u32 %0, %%clusterid.x;\n" : "=r"(c));
    return c;
}
static __device__ __forceinline__ unsigned gpuh_impl_tc_rank(void)
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
static __device__ __forceinline__ unsigned gpuh_impl_tc_ranks(void)
{
    unsigned n;
    asm volatile("mov.u32 %0, %%cluster_nctarank;\n" : "=r"(n));
    return n;
}
/* This block's tile of unit `tile` (a cluster's n tiles of 128 × bn, one
   above the other, in the grouped order of an M-row C): m0, n0. */
static __device__ __forceinline__ void gpuh_impl_tc_block_tile(unsigned long long tile, size_t M, unsigned tiles_n,
                                                               int bn, int &m0, int &n0)
{
    const int unit = GPUH_IMPL_TC_BM * (int)gpuh_impl_tc_ranks();
    gpuh_impl_tc_tile(tile, (unsigned)((M + unit - 1) / unit), tiles_n, unit, bn, m0, n0);
    m0 += GPUH_IMPL_TC_BM * (int)gpuh_impl_tc_rank();
}
template <int BN>
static __device__ __forceinline__ void gpuh_impl_tc_partial_put(const gpuh_impl_tc_work &w, const float (&d)[BN / 2],
                                                                int i)
{
    const unsigned block = gpuh_impl_tc_ranks() * gpuh_impl_tc_cluster() + gpuh_impl_tc_rank();
    float4 *slot = reinterpret_cast<float4 *>(w.partial) + (size_t)block * (BN / 8) * 256 + i;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
        __stcg(slot + 256 * j, make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]));
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    if (i == 0)
        asm volatile("fence.acq_rel.gpu;\n"
                     "st.relaxed.gpu.global.u32 [%0], 1;\n" ::"l"(w.flags + block)
                     : "memory");
}

/* d += the partials of the other blocks (clusters) on the tile this one
   owns, the first of its share (gpuh_impl_tc_work), in their order: those
   from the holder of the tile's first slice to the one below this one,
   each at this block's place in its cluster. The sums are made in shared
   memory (stash: the stages, idle once both multiplying warp groups are
   done with the block's last segment, this one, which the first barrier
   waits for; thread i's float4s at stash[256·j + i]), so that the
   accumulators' registers are free meanwhile. */
template <int BN>
static __device__ __forceinline__ void gpuh_impl_tc_partial_add(const gpuh_impl_tc_work &w, int ktiles,
                                                                float (&d)[BN / 2], int i, float4 *stash)
{
    static_assert(GPUH_IMPL_TC_STAGES(BN) * GPUH_IMPL_TC_STAGE_BYTES(BN) >= 256 * (BN / 8) * 16, "the stash fits");
    asm volatile("bar.sync 1, 256;\n" ::: "memory"); /* the other warp group's wgmmas have read the stages */
#pragma unroll
    for (int j = 0; j < BN / 8; ++j)
        stash[256 * j + i] = make_float4(d[4 * j], d[4 * j + 1], d[4 * j + 2], d[4 * j + 3]);
    /* (with d in the stash, its registers are free for these divisions) */
    const unsigned cluster = gpuh_impl_tc_cluster(), ranks = gpuh_impl_tc_ranks(), rank = gpuh_impl_tc_rank();
    const unsigned first =
        gpuh_impl_tc_holder(w, ktiles, gpuh_impl_tc_share(w, ktiles, cluster) / (unsigned)ktiles * (unsigned)ktiles);
    if (i == 0)
        for (unsigned b = first; b < cluster; ++b) {
            unsigned ready = 0;
            while (ready == 0)
                asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                             : "=r"(ready)
                             : "l"(w.flags + ranks * b + rank)
                             : "memory");
        }
    asm volatile("bar.sync 1, 256;\n" ::: "memory");
    for (unsigned b = first; b < cluster; ++b) {
        const float4 *slot =
            reinterpret_cast<const float4 *>(w.partial) + (size_t)(ranks * b + rank) * (BN / 8) * 256 + i;
        for (int j = 0; j < BN / 8; ++j) {
            const float4 v = __ldcg(slot + 256 * j);
            float4 &t = stash[256 * j + i];
            t.x += v.x, t.y += v.y, t.z += v.z, t.w += v.w;
        }
    }
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        const float4 v = stash[256 * j + i];
        d[4 * j] = v.x, d[4 * j + 1] = v.y, d[4 * j + 2] = v.z, d[4 * j + 3] = v.w;
    }
}
#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

template <typename TIn, typename TOut, bool TA, bool TB, int BN>
__global__ void __launch_bounds__(384, 1)
    gpuh_tc_wgmma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
                         const gpuh_impl_tc_args<TIn, TOut> p, const gpuh_impl_tc_work sk)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    extern __shared__ unsigned char s_raw[];
    const unsigned s_base = ((unsigned)__cvta_generic_to_shared(s_raw) + 1023u) & ~1023u;
    const unsigned s_full = s_base + GPUH_IMPL_TC_STAGES(BN) * GPUH_IMPL_TC_STAGE_BYTES(BN); /* 8 bytes per stage */
    const unsigned s_empty = s_full + GPUH_IMPL_TC_STAGES(BN) * 8;
    const int bk = 128 / (int)sizeof(TIn); /* elements of K per slice */
    const int ktiles = (int)((p.K + bk - 1) / bk);
    const unsigned tiles_n = (unsigned)((p.N + BN - 1) / BN);
    const int wg = threadIdx.x / 128;

    if (threadIdx.x == 0) {
        for (int s = 0; s < GPUH_IMPL_TC_STAGES(BN); ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(s_full + 8 * s));
            /* the 8 multiplying warps of each block of the cluster arrive on "empty" */
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(s_empty + 8 * s),
                         "r"(8 * gpuh_impl_tc_ranks()));
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    /* both blocks' barriers are initialised before either uses them (the
       .aligned cluster barrier is executed by whole warps) */
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");

    /* Persistent: cluster c (of n blocks) walks its share of the units of
       n tiles (gpuh_impl_tc_work, each unit in the grouped order), block r
       of it the rows m0 + 128·r of each unit, so the copier starts on the
       next segment's slices while the multipliers still write this one's C.
       `it` counts slices across segments: slice it uses stage it % STAGES,
       in that stage's (it / STAGES)-th round (the mbarriers' phase parity). */
    unsigned long long tile;
    int kb, ke;
    gpuh_impl_tc_walk walk(gpuh_impl_tc_cluster());
    if (wg == 0) { /* the copier */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            const int ranks = (int)gpuh_impl_tc_ranks(), rank = (int)gpuh_impl_tc_rank();
            /* op(B)'s slice in `boxes` boxes: this block copies its share into every block of the cluster */
            const int boxes = TB ? 2 : BN / 64;
            unsigned it = 0;
            while (walk.next(sk, gridDim.x / ranks, ktiles, tile, kb, ke)) {
                int m0, n0;
                gpuh_impl_tc_block_tile(tile, p.M, tiles_n, BN, m0, n0);
                for (int kt = kb; kt < ke; ++kt, ++it) {
                    const unsigned s = it % GPUH_IMPL_TC_STAGES(BN);
                    const int k0 = kt * bk;
                    if (it >= GPUH_IMPL_TC_STAGES(BN)) /* the multipliers are done with this stage's last use */
                        gpuh_impl_mbar_wait(s_empty + 8 * s, (it / GPUH_IMPL_TC_STAGES(BN) - 1) & 1);
                    const unsigned full = s_full + 8 * s, sa = s_base + s * GPUH_IMPL_TC_STAGE_BYTES(BN);
                    const unsigned sb = sa + GPUH_IMPL_TC_A_BYTES;
                    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(full),
                                 "r"(GPUH_IMPL_TC_STAGE_BYTES(BN))
                                 : "memory");
                    if (TA) /* M-major: boxes of bk (M: 128 bytes) × bk rows (K) */
                        for (int i = 0; i < GPUH_IMPL_TC_BM / bk; ++i)
                            gpuh_impl_tma_load(sa + i * bk * 128, &map_a, m0 + bk * i, k0, full);
                    else /* K-major: one box of bk (K) × 128 rows (M) */
                        gpuh_impl_tma_load(sa, &map_a, k0, m0, full);
                    /* K-major: boxes of bk (K) × BN / 2 rows (N); N-major: of 64 (N) × bk rows (K) */
                    for (int j = rank * boxes / ranks; j < (rank + 1) * boxes / ranks; ++j) {
                        const unsigned dst = sb + j * (TB ? BN / 2 : bk) * 128;
                        const int c0 = TB ? k0 : n0 + 64 * j, c1 = TB ? n0 + BN / 2 * j : k0;
                        if (ranks == 2)
                            gpuh_impl_tma_load_pair(dst, &map_b, c0, c1, full);
                        else
                            gpuh_impl_tma_load(dst, &map_b, c0, c1, full);
                    }
                }
            }
        }
    } else { /* a multiplier: rows [64·c, 64·c + 64) of each tile */
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int c = wg - 1, t = threadIdx.x % 128, w = t / 32, lane = t % 32;
        /* pairs of columns in one store where C's rows keep them aligned */
        const bool pairs = (uintptr_t)p.C % (2 * sizeof(TOut)) == 0 && p.ldc % 2 == 0;
        /* whole lines (gpuh_impl_tc_store_lines) where C's rows keep groups of 4 elements aligned */
        const bool lines = (uintptr_t)p.C % (4 * sizeof(TOut)) == 0 && p.ldc % 4 == 0;
        /* The RS form (TF32, op(A) M-major: gpuh_impl_tc_rs_slice). The rows
           of a warp's fragments may be any 16 of the warp group's 64 as long
           as the accumulators' rows are read the same way: thread (g, q)
           takes rows 4·chunk + 2·half and the next of its 32-row box (8
           bytes: one load for fragment rows g and g + 8), chunk (of the
           row's eight 16-byte chunks, swizzled by k % 8 = q or q + 4) and
           half chosen so that a half warp's 16 loads fall on 32 distinct
           banks. */
        const bool rs = sizeof(TIn) == 4 && TA;
        const int g = lane / 4, q = lane % 4;
        const int chunk = (g >> 1 & 1) * 4 + (g >> 2) + 2 * (w & 1), half = g & 1;
        const int rs_row = 32 * (w / 2) + 4 * chunk + 2 * half; /* of the warp group's 64 */
        const unsigned a_box = (unsigned)(c * 2 + w / 2) * 4096 + half * 8;
        const unsigned a_lo = a_box + q * 128 + ((chunk ^ q) << 4);
        const unsigned a_hi = a_box + (q + 4) * 128 + ((chunk ^ (q + 4)) << 4);
        unsigned fa[4][4], fb[4][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                fa[i][j] = fb[i][j] = 0u;
        unsigned it = 0;
        float d[BN / 2];
        while (walk.next(sk, gridDim.x / gpuh_impl_tc_ranks(), ktiles, tile, kb, ke)) {
            int m0, n0;
            gpuh_impl_tc_block_tile(tile, p.M, tiles_n, BN, m0, n0);
#pragma unroll
            for (int i = 0; i < BN / 2; ++i)
                d[i] = 0.0f;
            /* counted from 0 (not kb), which keeps ptxas's proof that no other
               instruction writes d while wgmmas are in flight (else it
               serialises them), and kb and ke out of the registers */
            const int slices = ke - kb;
            for (int j = 0; j < slices; ++j, ++it) {
                const unsigned s = it % GPUH_IMPL_TC_STAGES(BN);
                gpuh_impl_mbar_wait(s_full + 8 * s, (it / GPUH_IMPL_TC_STAGES(BN)) & 1);
                const unsigned sa = s_base + s * GPUH_IMPL_TC_STAGE_BYTES(BN), sb = sa + GPUH_IMPL_TC_A_BYTES;
                if (rs) { /* the fragments alternate between fa and fb, slice by slice */
                    if (j & 1)
                        gpuh_impl_tc_rs_slice(d, fb, fa, sa + a_lo, sa + a_hi, sb);
                    else
                        gpuh_impl_tc_rs_slice(d, fa, fb, sa + a_lo, sa + a_hi, sb);
                } else {
                    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
                    /* K-major operands step 32 bytes along their 128-byte rows per
                       instruction; MN-major ones 16 rows of K (2048 bytes) */
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk) {
                        const unsigned long long da = TA ? gpuh_impl_tc_desc(sa + c * bk * 128 + kk * 2048, bk * 128)
                                                         : gpuh_impl_tc_desc(sa + c * 64 * 128 + kk * 32, 16);
                        const unsigned long long db = TB ? gpuh_impl_tc_desc(sb + kk * 32, 16)
                                                         : gpuh_impl_tc_desc(sb + kk * 2048, bk * 128);
                        gpuh_impl_wgmma<TA, TB>(d, da, db, TIn());
                    }
                    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
                    /* one group stays in flight (this slice's) while the previous
                       slice's has finished: that stage goes back to the copiers */
                    asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
                }
                if (j > 0 && lane == 0)
                    gpuh_impl_tc_release(s_empty +
                                         8 * ((it + GPUH_IMPL_TC_STAGES(BN) - 1) % GPUH_IMPL_TC_STAGES(BN)));
            }
            asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
            if (rs) {
                gpuh_impl_tc_keep(fa);
                gpuh_impl_tc_keep(fb);
            }
            if (lane == 0) /* the tile's last stage */
                gpuh_impl_tc_release(s_empty + 8 * ((it + GPUH_IMPL_TC_STAGES(BN) - 1) % GPUH_IMPL_TC_STAGES(BN)));
            const int role = rs ? 0 : walk.role(sk, ktiles); /* there is no shared part in the RS form */
            if (role == 1) { /* a partial */
                gpuh_impl_tc_partial_put<BN>(sk, d, threadIdx.x - 128);
                continue;
            }
            if (role == 2) /* the owner: the other blocks' partials, summed in the stages */
                gpuh_impl_tc_partial_add<BN>(sk, ktiles, d, threadIdx.x - 128,
                                             static_cast<float4 *>(__cvta_shared_to_generic(s_base)));
            /* the epilogue: thread t holds, for j = 0 .. BN/8 - 1, the product's
               elements (r, 8j + 2q), (r, 8j + 2q + 1), (r + 8, ...) with
               r = 16·warp + g of the warp group's 64 × BN; in the RS form
               rows rs_row and rs_row + 1 in place of r and r + 8 */
            const size_t r0 = (size_t)m0 + 64 * c + (rs ? rs_row : 16 * w + g), r8 = rs ? 1 : 8;
            /* d as values of its own from here (each a use the compiler cannot see
               through): without this, ptxas takes the exchanges of
               gpuh_impl_tc_store_lines for reads of wgmma results in flight and
               serialises every wgmma of the kernel (its warnings C7514, C7520) */
#pragma unroll
            for (int i = 0; i < BN / 2; ++i)
                asm volatile("" : "+f"(d[i])::"memory");
            if (!p.ct && !rs && lines && (size_t)m0 + GPUH_IMPL_TC_BM <= p.M && (size_t)n0 + BN <= p.N)
                gpuh_impl_tc_store_lines<BN>(p.C, p.ldc, r0 - g, n0, d, lane, p.alpha, p.beta);
            else if (!p.ct) {
#pragma unroll
                for (int j = 0; j < BN / 8; ++j)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const size_t i = r0 + r8 * h, jj = (size_t)n0 + 8 * j + 2 * q;
                        if (i < p.M && jj < p.N)
                            gpuh_impl_tc_store2(p.C + i * p.ldc + jj, d[4 * j + 2 * h], d[4 * j + 2 * h + 1],
                                                p.alpha, p.beta, pairs && jj + 1 < p.N ? 2 : jj + 1 < p.N ? 1 : 0);
                    }
            } else if (rs) {
                /* stored transposed: the pair of rows r0, r0 + 1 is a pair of
                   adjacent elements of C's row jj; a warp's store covers 8
                   such pairs (two 32-byte sectors) in each of 4 rows */
#pragma unroll
                for (int j = 0; j < BN / 8; ++j)
#pragma unroll
                    for (int v = 0; v < 2; ++v) {
                        const size_t jj = (size_t)n0 + 8 * j + 2 * q + v;
                        if (r0 < p.M && jj < p.N)
                            gpuh_impl_tc_store2(p.C + jj * p.ldc + r0, d[4 * j + v], d[4 * j + 2 + v], p.alpha,
                                                p.beta, pairs && r0 + 1 < p.M ? 2 : r0 + 1 < p.M ? 1 : 0);
                    }
            }
        }
    }
    /* neither block leaves while the other may still copy into its stages
       or arrive on its mbarriers */
    __syncwarp();
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#else
    (void)map_a, (void)map_b, (void)p, (void)sk;
#endif
}
#endif /* GPUH_SIM */

/* The transposing copy of gpuh_gemm_tf32's sm_90a path: out (cols × rows,
   row stride ld_out) = inᵀ of in (rows × cols, ld_in), T = float. Block 32 × 8
   threads, one 32 × 32 tile (x: tile column, y: tile row): read along in's
   rows, written along out's rows through a padded shared tile (no bank
   conflicts). */
template <typename T>
__global__ void __launch_bounds__(256) gpuh_tc_transpose_kernel(const T *in, size_t ld_in, size_t rows, size_t cols,
                                                                T *out, size_t ld_out)
{
    __shared__ T s_t[32][33];
    const size_t r0 = (size_t)blockIdx.y * 32, c0 = (size_t)blockIdx.x * 32;
    for (int i = threadIdx.y; i < 32; i += 8)
        if (r0 + i < rows && c0 + threadIdx.x < cols)
            s_t[i][threadIdx.x] = in[(r0 + i) * ld_in + c0 + threadIdx.x];
    __syncthreads(); /* the tile is in shared memory before it is read across */
    for (int i = threadIdx.y; i < 32; i += 8)
        if (c0 + i < cols && r0 + threadIdx.x < rows)
            out[(c0 + i) * ld_out + r0 + threadIdx.x] = s_t[threadIdx.x][i];
}

/* ===========================================================================
   [SECTION: TENSOR-CORE DISPATCH]
   gpuh_gemm (16-bit) / gpuh_gemm_tf32 → gpuh_impl_tc_gemm: the checks of
   gpuh_gemm, then the sm_90a kernel where this program holds it for the
   current device, else the mma.sync kernel where it holds that one's body,
   else the CUDA-core kernel.
   =========================================================================== */

/* The CUDA-core kernel over all of C. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_simt(const gpuh_impl_tc_args<TIn, TOut> &a, cudaStream_t stream)
{
    const size_t bx = gpuh_ceil_div(a.N, GPUH_IMPL_TC_SIMT_TILE), by = gpuh_ceil_div(a.M, GPUH_IMPL_TC_SIMT_TILE);
    if (by > 65535)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_gemm: C of %zu x %zu needs more than 65535 rows of blocks",
                         a.M, a.N);
    return GPUH_LAUNCH((gpuh_tc_simt_kernel<TIn, TOut>), dim3((unsigned)bx, (unsigned)by), dim3(16, 16), 0, stream, a);
}

#ifndef GPUH_SIM
/* cuTensorMapEncodeTiled, found through the runtime
   (cudaGetDriverEntryPointByVersion), so that nothing beyond cudart is
   linked; NULL where the driver has none. */
typedef CUresult (*gpuh_impl_tc_encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                           const cuuint64_t *, const cuuint64_t *, const cuuint32_t *,
                                           const cuuint32_t *, CUtensorMapInterleave, CUtensorMapSwizzle,
                                           CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static inline gpuh_impl_tc_encode_fn gpuh_impl_tc_encoder(void)
{
    static const gpuh_impl_tc_encode_fn fn = []() {
        void *f = NULL;
        cudaDriverEntryPointQueryResult q;
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) !=
                cudaSuccess ||
            q != cudaDriverEntryPointSuccess) {
            (void)cudaGetLastError(); /* not sticky: no sm_90a path */
            f = NULL;
        }
        return reinterpret_cast<gpuh_impl_tc_encode_fn>(f);
    }();
    return fn;
}

/* Whether the rows of a matrix at ptr (row stride ld_bytes) start off the
   32-byte sectors of the memory system: then each 128-byte piece of a row
   that TMA reads spans two 128-byte lines, which costs two L2 requests and
   a fifth sector, and a product whose two operands are both so laid out is
   bound by the L2's request rate (bench/results/tc_gemm.md, "Row pitches"). */
static inline bool gpuh_impl_tc_skewed(const void *ptr, size_t ld_bytes)
{
    return (uintptr_t)ptr % 32 != 0 || ld_bytes % 32 != 0;
}

/* A TMA tensor map of a row-major matrix of `outer` rows of `inner`
   elements (row stride ld_bytes), read in boxes of box_inner × box_outer
   with the 128-byte swizzle; elements past the edges read as zero. Rows on
   the sectors have the L2 fetch 256 bytes around each miss (the next
   slice's bytes of the row, read soon after); skewed rows (above) fetch
   only what is asked: the promotion would drag in, for each row, lines of
   which the misaligned pieces use little, and raise the L2 traffic the
   skew already inflates. */
static inline bool gpuh_impl_tc_map(CUtensorMap *map, CUtensorMapDataType type, const void *ptr, size_t inner,
                                    size_t outer, size_t ld_bytes, unsigned box_inner, unsigned box_outer)
{
    const cuuint64_t dims[2] = {inner, outer}, strides[1] = {ld_bytes};
    const cuuint32_t box[2] = {box_inner, box_outer}, step[2] = {1, 1};
    const CUtensorMapL2promotion promote =
        gpuh_impl_tc_skewed(ptr, ld_bytes) ? CU_TENSOR_MAP_L2_PROMOTION_NONE : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
    const CUresult r = gpuh_impl_tc_encoder()(map, type, 2, const_cast<void *>(ptr), dims, strides, box, step,
                                              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, promote,
                                              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS;
}

/* The share of a product's time that an aligned copy of one operand may
   cost when both operands' rows are skewed (gpuh_impl_tc_skewed): half the
   slowdown that layout measured on the H200 (about a fifth,
   bench/results/tc_gemm.md), so that a copy is made only where it wins
   clearly. */
#define GPUH_IMPL_TC_SKEW_SHARE 0.1

/* Whether copying `bytes` (read once, written once) costs less than
   GPUH_IMPL_TC_SKEW_SHARE of a product of `flops` on device dev, both
   priced at the device's peaks: its memory bandwidth (memory clock, double
   data rate, bus width) and its tensor cores' dense rate (SMs, clock, and
   the flops per SM per clock of Hopper's wgmma: 4096 for 16-bit inputs,
   2048 for TF32). The ratio of the two rates is kept per device: the
   driver's clock queries are slow enough to show beside a product. */
#define GPUH_IMPL_TC_DEVICES 64 /* devices whose rates are kept: 0 .. 63 */
GPUH_IMPL_SHARED double gpuh_impl_tc_balance_v[GPUH_IMPL_TC_DEVICES]; /* 16-bit flops per byte; 0: not known yet */
static inline bool gpuh_impl_tc_copy_pays(double bytes, double flops, size_t in_size, int dev)
{
    if (dev < 0 || dev >= GPUH_IMPL_TC_DEVICES)
        return false;
    GPUH_IMPL_LOCK();
    double balance = gpuh_impl_tc_balance_v[dev];
    GPUH_IMPL_UNLOCK();
    if (balance == 0.0) {
        int sms = 0, sm_khz = 0, mem_khz = 0, bus_bits = 0;
        if (cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev) != cudaSuccess ||
            cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, dev) != cudaSuccess ||
            sms <= 0 || sm_khz <= 0 || mem_khz <= 0 || bus_bits <= 0) {
            (void)cudaGetLastError(); /* not sticky */
            balance = -1.0;           /* no rates: never copy */
        } else
            balance = (double)sms * sm_khz * 4096.0 / (2.0 * mem_khz * (bus_bits / 8.0));
        GPUH_IMPL_LOCK();
        gpuh_impl_tc_balance_v[dev] = balance;
        GPUH_IMPL_UNLOCK();
    }
    if (balance < 0.0)
        return false;
    if (in_size == 4)
        balance /= 2.0; /* TF32: half the 16-bit rate */
    return 2.0 * bytes * balance < GPUH_IMPL_TC_SKEW_SHARE * flops;
}

static inline CUtensorMapDataType gpuh_impl_tc_type(const __nv_bfloat16 *) { return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16; }
static inline CUtensorMapDataType gpuh_impl_tc_type(const __half *) { return CU_TENSOR_MAP_DATA_TYPE_FLOAT16; }
static inline CUtensorMapDataType gpuh_impl_tc_type(const float *) { return CU_TENSOR_MAP_DATA_TYPE_FLOAT32; }

/* 1 where this program holds the sm_90a kernel's body for the current
   device: the kernel is there (an sm_90a image for this GPU) and is not the
   empty body of another build (which needs a handful of registers, the real
   one over a hundred). */
template <typename TIn, typename TOut> static inline bool gpuh_impl_tc_hopper_ready(void)
{
    cudaFuncAttributes attr;
    if (gpuh_impl_tc_encoder() == NULL)
        return false;
    if (cudaFuncGetAttributes(&attr, gpuh_tc_wgmma_kernel<TIn, TOut, false, true, GPUH_IMPL_TC_BN>) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky */
        return false;
    }
    return attr.numRegs > 64;
}

/* The narrow tile's rate of products beside the wide one's, per SM: it
   loads more bytes per product (A's slice for half the columns). Measured
   on the H200 with each width forced, at shapes where both cover C in the
   same number of waves: 0.74 to 0.83 where K is 1000 or more
   (bench/results/NOTES.md, "The split part and the tile widths, measured"). */
#define GPUH_IMPL_TC_NARROW_RATE 0.78
/* What a shared part costs beyond its slices, in slices of the tile: a
   fixed part and a part per run of a tile (the owner adds the partials
   one by one), fitted to the same runs, shared part allowed and not. */
#define GPUH_IMPL_TC_SPLIT_FIXED 12.0
#define GPUH_IMPL_TC_SPLIT_PER_RUN 3.5

/* A pair of tiles' rate of products beside a single tile's, per SM: each
   block of the pair loads half of op(B)'s slices. Measured on the H200
   with the cluster size forced, per slice of each plan: 1.05 to 1.31,
   median 1.12, over 23 shapes (bench/results/NOTES.md, "Clusters of 2
   and a shared last wave"). */
#define GPUH_IMPL_TC_PAIR_RATE 1.12

/* The sm_90a kernel's plan for an M × N C in units of `ranks` tiles (a
   cluster's: 128·ranks × bn) and K in `ktiles` slices, on `units`
   clusters at once (gpuh_impl_tc_work's dp, tiles, units), the soonest
   of: whole waves of units only; whole waves, then the units left over
   shared out by `left`·c clusters, c of them on each unit (c from 2 to
   units / left); whole waves but the last, then the left over and the
   last wave (or, with no whole wave, all units) shared out by all
   clusters (a unit in at most 1 + units / region runs, rounded up; 2
   where there is a last wave). The time of a cluster, in slices of its
   unit, is returned: a whole unit is ktiles; a share its slices, plus
   GPUH_IMPL_TC_SPLIT_FIXED and GPUH_IMPL_TC_SPLIT_PER_RUN per run of the
   unit it owns. */
static inline double gpuh_impl_tc_plan(size_t M, size_t N, int ranks, int bn, size_t ktiles, int units,
                                       gpuh_impl_tc_work *w)
{
    const unsigned long long tiles =
        gpuh_ceil_div(M, (size_t)GPUH_IMPL_TC_BM * ranks) * gpuh_ceil_div(N, (size_t)bn);
    const unsigned long long left = tiles % (unsigned)units, waves = tiles / (unsigned)units;
    w->tiles = tiles, w->dp = tiles, w->units = 0, w->partial = NULL, w->flags = NULL;
    double best = (double)((waves + (left > 0)) * ktiles);
    /* a shared part's slices times its clusters stay below 2^32 (gpuh_impl_tc_share) */
    if (left == 0 || (double)(left + (unsigned)units) * (double)ktiles * (double)units >= 4294967296.0)
        return best;
    const size_t most = (size_t)units / left, top = most < ktiles ? most : ktiles;
    for (size_t c = 2; c <= top; ++c) {
        const double time = (double)(waves * ktiles) + (double)gpuh_ceil_div(ktiles, c) + GPUH_IMPL_TC_SPLIT_FIXED +
                            GPUH_IMPL_TC_SPLIT_PER_RUN * (double)c;
        if (time < best)
            best = time, w->dp = tiles - left, w->units = (unsigned)(left * c);
    }
    const unsigned long long region = left + (waves > 0 ? (unsigned)units : 0);
    const double time = (double)((waves > 0 ? waves - 1 : 0) * ktiles) +
                        (double)gpuh_ceil_div((size_t)region * ktiles, (size_t)units) + GPUH_IMPL_TC_SPLIT_FIXED +
                        GPUH_IMPL_TC_SPLIT_PER_RUN * (double)(1 + gpuh_ceil_div((size_t)units, (size_t)region));
    if (time < best)
        best = time, w->dp = tiles - region, w->units = (unsigned)units;
    return best;
}

/* The tile width (GPUH_IMPL_TC_BN or GPUH_IMPL_TC_BN_NARROW) and the
   cluster size (1 or 2 blocks) that finish an M × N C with K in `ktiles`
   slices soonest, by the plans of gpuh_impl_tc_plan on `sms` SMs (single
   blocks) or `clusters` clusters of 2: a narrow tile's slice takes half a
   wide one's time over GPUH_IMPL_TC_NARROW_RATE, a pair's slice a single
   tile's over GPUH_IMPL_TC_PAIR_RATE. Ties go to the wide tile, then to
   the pair. */
struct gpuh_impl_tc_choice {
    int bn, ranks;
};
static inline gpuh_impl_tc_choice gpuh_impl_tc_choose(size_t M, size_t N, size_t ktiles, int sms, int clusters)
{
    const int widths[2] = {GPUH_IMPL_TC_BN, GPUH_IMPL_TC_BN_NARROW};
    gpuh_impl_tc_choice best = {GPUH_IMPL_TC_BN, 2};
    double soonest = 0.0;
    for (int i = 0; i < 2; ++i)
        for (int ranks = 2; ranks >= 1; --ranks) {
            gpuh_impl_tc_work w;
            const double speed = (i ? GPUH_IMPL_TC_NARROW_RATE * GPUH_IMPL_TC_BN / GPUH_IMPL_TC_BN_NARROW : 1.0) *
                                 (ranks == 2 ? GPUH_IMPL_TC_PAIR_RATE : 1.0);
            const double time =
                gpuh_impl_tc_plan(M, N, ranks, widths[i], ktiles, ranks == 2 ? clusters : sms, &w) / speed;
            if ((i == 0 && ranks == 2) || time < soonest)
                soonest = time, best.bn = widths[i], best.ranks = ranks;
        }
    return best;
}

/* The launch of the sm_90a kernel in clusters of `ranks` blocks of 384
   threads (a launch attribute: __cluster_dims__ would fix the size, and
   not build for the targets without clusters, which hold the empty body
   too). */
static inline cudaLaunchConfig_t gpuh_impl_tc_config(size_t blocks, int ranks, int smem, cudaStream_t stream,
                                                     cudaLaunchAttribute *cluster)
{
    cudaLaunchConfig_t cfg = {};
    cluster->id = cudaLaunchAttributeClusterDimension;
    cluster->val.clusterDim.x = (unsigned)ranks, cluster->val.clusterDim.y = 1, cluster->val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)blocks), cfg.blockDim = dim3(384), cfg.dynamicSmemBytes = (size_t)smem;
    cfg.stream = stream, cfg.attrs = cluster, cfg.numAttrs = 1;
    return cfg;
}

/* The clusters of 2 blocks of the sm_90a kernel that device `dev` runs at
   once, into *clusters: at most half its SMs (one block per SM), fewer
   where a GPC has an odd number of SMs free; kept per device, as the
   occupancy query is slow beside a small product. The kernel instance
   asked is this call's (every instance takes a whole SM). Errors: the
   runtime's, or cudaErrorInvalidConfiguration where no cluster fits. */
GPUH_IMPL_SHARED int gpuh_impl_tc_clusters_v[GPUH_IMPL_TC_DEVICES]; /* 0: not known yet */
template <typename TIn, typename TOut, bool TA, bool TB>
static inline cudaError_t gpuh_impl_tc_clusters(int dev, int *clusters)
{
    if (dev >= 0 && dev < GPUH_IMPL_TC_DEVICES) {
        GPUH_IMPL_LOCK();
        *clusters = gpuh_impl_tc_clusters_v[dev];
        GPUH_IMPL_UNLOCK();
        if (*clusters > 0)
            return cudaSuccess;
    }
    const int smem = GPUH_IMPL_TC_SMEM(GPUH_IMPL_TC_BN);
    cudaError_t err = cudaFuncSetAttribute(gpuh_tc_wgmma_kernel<TIn, TOut, TA, TB, GPUH_IMPL_TC_BN>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
    cudaLaunchAttribute cluster;
    const cudaLaunchConfig_t cfg = gpuh_impl_tc_config(2, 2, smem, 0, &cluster);
    *clusters = 0;
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveClusters(clusters, gpuh_tc_wgmma_kernel<TIn, TOut, TA, TB, GPUH_IMPL_TC_BN>, &cfg);
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_gemm: no count of the clusters of 2 blocks (%d bytes of shared memory each) "
                         "that device %d runs at once: %s", smem, dev, cudaGetErrorString(err));
    if (*clusters <= 0)
        return gpuh_fail(cudaErrorInvalidConfiguration,
                         "gpuh_gemm: device %d runs no cluster of 2 blocks of %d bytes of shared memory", dev, smem);
    if (dev >= 0 && dev < GPUH_IMPL_TC_DEVICES) {
        GPUH_IMPL_LOCK();
        gpuh_impl_tc_clusters_v[dev] = *clusters;
        GPUH_IMPL_UNLOCK();
    }
    return cudaSuccess;
}

/* Launches the sm_90a kernel on one variant of the ops and one tile width,
   on `units` clusters of `ranks` blocks at most. */
template <typename TIn, typename TOut, bool TA, bool TB, int BN>
static inline cudaError_t gpuh_impl_tc_hopper_launch(const gpuh_impl_tc_args<TIn, TOut> &a, int dev, int ranks,
                                                     int units, cudaStream_t stream)
{
    const unsigned bk = 128 / sizeof(TIn);
    const CUtensorMapDataType type = gpuh_impl_tc_type(a.A);
    CUtensorMap map_a, map_b;
    const bool ok = (TA ? gpuh_impl_tc_map(&map_a, type, a.A, a.M, a.K, a.lda * sizeof(TIn), bk, bk)
                        : gpuh_impl_tc_map(&map_a, type, a.A, a.K, a.M, a.lda * sizeof(TIn), bk, GPUH_IMPL_TC_BM)) &&
                    (TB ? gpuh_impl_tc_map(&map_b, type, a.B, a.K, a.N, a.ldb * sizeof(TIn), bk, BN / 2) /* 2 boxes */
                        : gpuh_impl_tc_map(&map_b, type, a.B, a.N, a.K, a.ldb * sizeof(TIn), 64, bk));
    if (!ok)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_gemm: no TMA tensor map for A or B (M %zu, N %zu, K %zu)", a.M,
                         a.N, a.K);
    gpuh_impl_tc_work w;
    (void)gpuh_impl_tc_plan(a.M, a.N, ranks, BN, gpuh_ceil_div(a.K, (size_t)bk), units, &w);
    if (sizeof(TIn) == 4 && TA) /* the RS form: its fragments leave no registers for the shared part's code */
        w.dp = w.tiles, w.units = 0;
    /* the shared part's partials and flags (one per block), from gpuh's pool; without them, whole tiles only */
    const size_t slots = (size_t)ranks * units, partial_bytes = slots * GPUH_IMPL_TC_BM * BN * sizeof(float);
    void *work = NULL;
    if (w.units > 0) {
        if (gpuh_impl_gemm_workspace(&work, partial_bytes + slots * sizeof(unsigned), dev, stream) != cudaSuccess)
            work = NULL;
        else if (cudaMemsetAsync(static_cast<char *>(work) + partial_bytes, 0, slots * sizeof(unsigned), stream) !=
                 cudaSuccess) {
            (void)cudaFreeAsync(work, stream);
            work = NULL;
        }
        if (work == NULL) {
            (void)cudaGetLastError(); /* not sticky */
            w.dp = w.tiles, w.units = 0;
        } else {
            w.partial = static_cast<float *>(work);
            w.flags = reinterpret_cast<unsigned *>(static_cast<char *>(work) + partial_bytes);
        }
    }
    /* a block per SM, a cluster over several units of tiles; all of them where there is a shared part */
    const size_t blocks =
        (size_t)ranks * (w.units > 0 || w.tiles > (unsigned long long)units ? (size_t)units : (size_t)w.tiles);
    cudaError_t err = cudaFuncSetAttribute(gpuh_tc_wgmma_kernel<TIn, TOut, TA, TB, BN>,
                                           cudaFuncAttributeMaxDynamicSharedMemorySize, GPUH_IMPL_TC_SMEM(BN));
    if (err != cudaSuccess)
        err = gpuh_fail(err, "gpuh_gemm: %d bytes of shared memory per block: %s", GPUH_IMPL_TC_SMEM(BN),
                        cudaGetErrorString(err));
    else {
        cudaLaunchAttribute cluster;
        const cudaLaunchConfig_t cfg = gpuh_impl_tc_config(blocks, ranks, GPUH_IMPL_TC_SMEM(BN), stream, &cluster);
        err = cudaLaunchKernelEx(&cfg, gpuh_tc_wgmma_kernel<TIn, TOut, TA, TB, BN>, map_a, map_b, a, w);
        if (err != cudaSuccess)
            err = gpuh_fail(err, "gpuh_gemm: the sm_90a kernel's launch (%zu clusters of %d blocks) failed: %s%s",
                            blocks / ranks, ranks, cudaGetErrorString(err),
                            gpuh_error_is_sticky(err) ? " (sticky: possibly from an earlier kernel's fault)" : "");
    }
    if (work != NULL) {
        const cudaError_t freed = cudaFreeAsync(work, stream);
        err = err != cudaSuccess ? err : freed;
    }
    return err;
}

/* The tile width and cluster size for this C on this device
   (gpuh_impl_tc_choose), then the launch. */
template <typename TIn, typename TOut, bool TA, bool TB>
static inline cudaError_t gpuh_impl_tc_hopper_launch(const gpuh_impl_tc_args<TIn, TOut> &a, int dev,
                                                     cudaStream_t stream)
{
    int sms = 0, clusters = 0;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_gemm: no SM count for device %d: %s", dev, cudaGetErrorString(err));
    err = gpuh_impl_tc_clusters<TIn, TOut, TA, TB>(dev, &clusters);
    if (err != cudaSuccess)
        return err;
    const gpuh_impl_tc_choice c = gpuh_impl_tc_choose(a.M, a.N, gpuh_ceil_div(a.K, 128 / sizeof(TIn)), sms, clusters);
    const int units = c.ranks == 2 ? clusters : sms;
    return c.bn == GPUH_IMPL_TC_BN
               ? gpuh_impl_tc_hopper_launch<TIn, TOut, TA, TB, GPUH_IMPL_TC_BN>(a, dev, c.ranks, units, stream)
               : gpuh_impl_tc_hopper_launch<TIn, TOut, TA, TB, GPUH_IMPL_TC_BN_NARROW>(a, dev, c.ranks, units, stream);
}

/* The kernel variant of the ops: each of the four for 16-bit inputs; for
   TF32 (its wgmma has no transposes, and takes op(A) from registers in the
   RS form) op_b = T only: op_a = N, op_b = N as Cᵀ = Bᵀ·Aᵀ, the kernel's
   op(A) = Bᵀ read M-major (B as stored) into registers, its op(B) = Aᵀ
   K-major (A as stored), C stored transposed (ct). op_a = T, op_b = N
   comes here with one operand transposed already (gpuh_impl_tc_hopper). */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_hopper_ops(const gpuh_impl_tc_args<TIn, TOut> &a, int dev, cudaStream_t stream)
{
    return a.ta ? (a.tb ? gpuh_impl_tc_hopper_launch<TIn, TOut, true, true>(a, dev, stream)
                        : gpuh_impl_tc_hopper_launch<TIn, TOut, true, false>(a, dev, stream))
                : (a.tb ? gpuh_impl_tc_hopper_launch<TIn, TOut, false, true>(a, dev, stream)
                        : gpuh_impl_tc_hopper_launch<TIn, TOut, false, false>(a, dev, stream));
}
static inline cudaError_t gpuh_impl_tc_hopper_ops(const gpuh_impl_tc_args<float, float> &a, int dev,
                                               cudaStream_t stream)
{
    if (a.tb)
        return a.ta ? gpuh_impl_tc_hopper_launch<float, float, true, true>(a, dev, stream)
                    : gpuh_impl_tc_hopper_launch<float, float, false, true>(a, dev, stream);
    gpuh_impl_tc_args<float, float> s = a; /* op_a = N, op_b = N: the roles swapped */
    s.A = a.B, s.B = a.A, s.M = a.N, s.N = a.M, s.lda = a.ldb, s.ldb = a.lda, s.ta = 1, s.tb = 1, s.ct = 1;
    return gpuh_impl_tc_hopper_launch<float, float, true, true>(s, dev, stream);
}

/* The end of the sm_90a and mma.sync paths, after their aligned copies of
   A and B into work[] (err: the copies' error): with no workspace (no_room),
   the CUDA-core kernel on the matrices as given (orig); else, if the copies
   were issued, run(); then the workspaces freed on `stream`, the first
   error kept. */
template <typename TIn, typename TOut, typename Run>
static inline cudaError_t gpuh_impl_tc_run_staged(const gpuh_impl_tc_args<TIn, TOut> &orig, void *(&work)[2],
                                                  bool no_room, cudaError_t err, cudaStream_t stream, Run run)
{
    if (no_room) {
        (void)cudaGetLastError(); /* not sticky */
        err = gpuh_impl_tc_simt(orig, stream);
    } else if (err == cudaSuccess)
        err = run();
    for (int o = 0; o < 2; ++o)
        if (work[o] != NULL) {
            const cudaError_t freed = cudaFreeAsync(work[o], stream);
            err = err != cudaSuccess ? err : freed;
        }
    return err;
}

/* How the sm_90a path runs a TF32 product of op(A) M × K and op(B) K × N
   (ta, tb: GPUH_OP_T), for the tests: 0 both operands from shared memory
   (op_a = N, op_b = T); 1 op(A) from registers (op_a = T, op_b = T); 2 the
   roles swapped, Cᵀ = Bᵀ·Aᵀ with Bᵀ from registers (op_a = N, op_b = N);
   for op_a = T, op_b = N a transposing copy of the smaller operand first:
   3 of A (M ≤ N; then as 2), 4 of B (then as 1). */
static inline int gpuh_impl_tc_tf32_form(int ta, int tb, size_t M, size_t N)
{
    return tb ? (ta ? 1 : 0) : !ta ? 2 : M <= N ? 3 : 4;
}

/* The sm_90a path: the operands TMA cannot read as they are, or not well,
   go to aligned workspaces first (gpuh's pool, on `stream`, freed there),
   with rows padded to 128 bytes:
   - a pointer or row stride that is not a multiple of 16 bytes (a copy,
     gpuh_pack_rows_kernel);
   - for TF32 with op_a = T, op_b = N, the smaller operand
     (gpuh_impl_tc_tf32_form; a transposing copy, gpuh_tc_transpose_kernel);
   - where both operands' rows are skewed off the 32-byte sectors
     (gpuh_impl_tc_skewed) and neither is copied for the reasons above, the
     one cheaper to copy, when the copy costs little beside the product
     (gpuh_impl_tc_copy_pays; gpuh_pack_rows_kernel): one skewed
     operand alone costs the kernel little. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_hopper(gpuh_impl_tc_args<TIn, TOut> a, int dev, cudaStream_t stream)
{
    const size_t w = 16 / sizeof(TIn), line = 128 / sizeof(TIn); /* elements per 16 and per 128 bytes */
    const int form = sizeof(TIn) == 4 ? gpuh_impl_tc_tf32_form(a.ta, a.tb, a.M, a.N) : 0;
    const int flips = form == 3 ? 0 : form == 4 ? 1 : -1; /* the operand transposed first, or -1 */
    const gpuh_impl_tc_args<TIn, TOut> orig = a;
    void *work[2] = {NULL, NULL};
    bool no_room = false;
    cudaError_t err = cudaSuccess;
    /* the operand (0: A, 1: B) to copy for its skew, or -1 */
    int unskew = -1;
    {
        size_t elems[2];
        bool skewed = true;
        for (int o = 0; o < 2; ++o) {
            const TIn *x = o ? a.B : a.A;
            const size_t ld = o ? a.ldb : a.lda;
            const int tr = o ? a.tb : a.ta;
            const size_t rows = o ? (tr ? a.N : a.K) : (tr ? a.K : a.M), cols = o ? (tr ? a.K : a.N) : (tr ? a.M : a.K);
            const bool flip = o == flips;
            /* copied as 16-byte words: whole rows of them, within ld */
            skewed = skewed && !flip && (uintptr_t)x % 16 == 0 && ld % w == 0 && cols % w == 0 &&
                     gpuh_impl_tc_skewed(x, ld * sizeof(TIn));
            elems[o] = rows * cols;
        }
        const int o = elems[1] < elems[0];
        if (skewed && gpuh_impl_tc_copy_pays((double)elems[o] * sizeof(TIn), 2.0 * a.M * a.N * a.K, sizeof(TIn), dev))
            unskew = o;
    }
    for (int o = 0; o < 2 && err == cudaSuccess; ++o) { /* A, then B */
        const TIn *&x = o ? a.B : a.A;
        size_t &ld = o ? a.ldb : a.lda;
        int &tr = o ? a.tb : a.ta;
        const size_t rows = o ? (tr ? a.N : a.K) : (tr ? a.K : a.M), cols = o ? (tr ? a.K : a.N) : (tr ? a.M : a.K);
        const bool flip = o == flips;
        if (!flip && (uintptr_t)x % 16 == 0 && ld % w == 0 && o != unskew)
            continue;
        const size_t out_rows = flip ? cols : rows, ld_out = gpuh_ceil_div(flip ? rows : cols, line) * line;
        if ((err = gpuh_impl_gemm_workspace(&work[o], out_rows * ld_out * sizeof(TIn), dev, stream)) != cudaSuccess) {
            work[o] = NULL;
            if (o == unskew) { /* a copy that only speeds the product up: go without */
                (void)cudaGetLastError(); /* not sticky */
                err = cudaSuccess;
                continue;
            }
            no_room = true;
            break;
        }
        if (flip) {
            const size_t gx = gpuh_ceil_div(cols, 32), gy = gpuh_ceil_div(rows, 32);
            if (gy > 65535)
                err = gpuh_fail(cudaErrorInvalidValue, "gpuh_gemm_tf32: %zu rows of %s to transpose", rows,
                                o ? "B" : "A");
            else
                err = GPUH_LAUNCH(gpuh_tc_transpose_kernel<float>, dim3((unsigned)gx, (unsigned)gy), dim3(32, 8), 0,
                                  stream, reinterpret_cast<const float *>(x), ld, rows, cols,
                                  static_cast<float *>(work[o]), ld_out);
            tr = !tr;
        } else
            err = gpuh_impl_pack_rows(x, ld, rows, cols, sizeof(TIn), work[o], ld_out, stream);
        x = static_cast<const TIn *>(work[o]);
        ld = ld_out;
    }
    return gpuh_impl_tc_run_staged(orig, work, no_room, err, stream,
                                   [&]() { return gpuh_impl_tc_hopper_ops(a, dev, stream); });
}
#endif /* GPUH_SIM */

#ifndef GPUH_SIM
/* 1 where this program holds the mma.sync kernel's body for the current
   device: the image the runtime picked for this GPU comes from PTX or code
   for sm_80 or later (cudaFuncGetAttributes's ptxVersion) and is not the
   empty body of an sm_90a or pre-sm_80 build (a handful of registers; the
   real one holds 128 accumulators per thread). */
template <typename TIn, typename TOut> static inline bool gpuh_impl_tc_mma_ready(void)
{
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, gpuh_tc_mma_kernel<TIn, TOut, false, true>) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky */
        return false;
    }
    return attr.ptxVersion >= 80 && attr.numRegs > 64;
}

/* Launches the mma.sync kernel on one variant of the ops: a 1-D grid of one
   block per tile of C. */
template <typename TIn, typename TOut, bool TA, bool TB>
static inline cudaError_t gpuh_impl_tc_mma_launch(const gpuh_impl_tc_args<TIn, TOut> &a, cudaStream_t stream)
{
    typedef gpuh_impl_tc_mma_layout<TIn, TA, TB> L;
    const size_t tiles = gpuh_ceil_div(a.M, L::BM) * gpuh_ceil_div(a.N, L::BN);
    const cudaError_t err = cudaFuncSetAttribute(gpuh_tc_mma_kernel<TIn, TOut, TA, TB>,
                                                 cudaFuncAttributeMaxDynamicSharedMemorySize, L::SMEM);
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_gemm: %d bytes of shared memory per block: %s", (int)L::SMEM,
                         cudaGetErrorString(err));
    return GPUH_LAUNCH((gpuh_tc_mma_kernel<TIn, TOut, TA, TB>), tiles, GPUH_IMPL_TC_MMA_THREADS, L::SMEM, stream, a);
}

/* The mma.sync path: an A or B whose pointer or row stride is not a
   multiple of 16 bytes (cp.async's unit) is first copied into an aligned
   workspace with padded rows (gpuh's pool, on `stream`, freed there:
   gpuh_pack_rows_kernel, one read and one write of that matrix); where no
   workspace can be had, the CUDA-core kernel reads the matrices as they
   are. A C of more tiles than a 1-D grid holds (or of rows of more than
   2^29 tiles) also goes to it. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_mma(gpuh_impl_tc_args<TIn, TOut> a, int dev, cudaStream_t stream)
{
    const size_t w = 16 / sizeof(TIn); /* elements per 16 bytes */
    const gpuh_impl_tc_args<TIn, TOut> orig = a;
    const size_t tiles_n = gpuh_ceil_div(a.N, GPUH_IMPL_TC_MMA_BN); /* the kernel's tile order is 32-bit */
    if (gpuh_ceil_div(a.M, GPUH_IMPL_TC_MMA_BM) * tiles_n > 0x7fffffffu || tiles_n > (0xffffffffu >> 3))
        return gpuh_impl_tc_simt(orig, stream);
    void *work[2] = {NULL, NULL};
    bool no_room = false;
    cudaError_t err = cudaSuccess;
    for (int o = 0; o < 2 && err == cudaSuccess; ++o) { /* A, then B, as stored */
        const TIn *&x = o ? a.B : a.A;
        size_t &ld = o ? a.ldb : a.lda;
        const int tr = o ? a.tb : a.ta;
        const size_t rows = o ? (tr ? a.N : a.K) : (tr ? a.K : a.M), cols = o ? (tr ? a.K : a.N) : (tr ? a.M : a.K);
        if ((uintptr_t)x % 16 == 0 && ld % w == 0)
            continue;
        const size_t ld_out = gpuh_ceil_div(cols, w) * w;
        if (gpuh_impl_gemm_workspace(&work[o], rows * ld_out * sizeof(TIn), dev, stream) != cudaSuccess) {
            no_room = true;
            work[o] = NULL;
            break;
        }
        err = gpuh_impl_pack_rows(x, ld, rows, cols, sizeof(TIn), work[o], ld_out, stream);
        x = static_cast<const TIn *>(work[o]);
        ld = ld_out;
    }
    return gpuh_impl_tc_run_staged(orig, work, no_room, err, stream, [&]() {
        return a.ta ? (a.tb ? gpuh_impl_tc_mma_launch<TIn, TOut, true, true>(a, stream)
                            : gpuh_impl_tc_mma_launch<TIn, TOut, true, false>(a, stream))
                    : (a.tb ? gpuh_impl_tc_mma_launch<TIn, TOut, false, true>(a, stream)
                            : gpuh_impl_tc_mma_launch<TIn, TOut, false, false>(a, stream));
    });
}
#endif /* GPUH_SIM */

/* The kernel gpuh_impl_tc_gemm takes on the current device for a product
   of TIn inputs and TOut C with K > 0 and M, N, K below 2^31: 2 the sm_90a
   kernel, 1 the mma.sync kernel, 0 the CUDA-core kernel (for the tests). */
template <typename TIn, typename TOut> static inline int gpuh_impl_tc_path(void)
{
#ifndef GPUH_SIM
    if (gpuh_impl_tc_hopper_ready<TIn, TOut>())
        return 2;
    if (gpuh_impl_tc_mma_ready<TIn, TOut>())
        return 1;
#endif
    return 0;
}

/* The launcher behind the 16-bit gpuh_gemm and gpuh_gemm_tf32 (fn names it
   in error details): gpuh_gemm's checks (A and B with TIn's size, C with
   TOut's), then the path. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_gemm(const char *fn, gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K,
                                            float alpha, const TIn *d_A, size_t lda, const TIn *d_B, size_t ldb,
                                            float beta, TOut *d_C, size_t ldc, cudaStream_t stream)
{
    cudaError_t err = gpuh_impl_gemm_check(fn, op_a, op_b, M, N, K, d_A, lda, d_B, ldb, d_C, ldc, sizeof(TIn));
    /* C again with its own element size (K = 0: only C is looked at) */
    if (err == cudaSuccess && sizeof(TOut) != sizeof(TIn))
        err = gpuh_impl_gemm_check(fn, GPUH_OP_N, GPUH_OP_N, M, N, 0, d_C, 0, d_C, N, d_C, ldc, sizeof(TOut));
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    gpuh_impl_tc_args<TIn, TOut> a;
    a.A = d_A, a.B = d_B, a.C = d_C, a.M = M, a.N = N, a.K = K, a.lda = lda, a.ldb = ldb, a.ldc = ldc;
    a.alpha = alpha, a.beta = beta, a.ta = op_a == GPUH_OP_T, a.tb = op_b == GPUH_OP_T, a.ct = 0;
#ifndef GPUH_SIM
    int dev = 0;
    const size_t most = (size_t)1 << 31; /* TMA's coordinates are 32-bit signed */
    if (K > 0 && M < most && N < most && K < most && gpuh_impl_tc_hopper_ready<TIn, TOut>() &&
        cudaGetDevice(&dev) == cudaSuccess)
        return gpuh_impl_tc_hopper(a, dev, stream);
    if (K > 0 && gpuh_impl_tc_mma_ready<TIn, TOut>() && cudaGetDevice(&dev) == cudaSuccess)
        return gpuh_impl_tc_mma(a, dev, stream);
#endif
    return gpuh_impl_tc_simt(a, stream);
}

/* gpuh_gemm (16-bit inputs), gpuh_gemm_tf32: see [SECTION: TENSOR-CORE GEMM]. */
#define GPUH_IMPL_TC_GEMM(TIn, TOut)                                                                      \
    static inline cudaError_t gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha, \
                                        const TIn *d_A, size_t lda, const TIn *d_B, size_t ldb, float beta,    \
                                        TOut *d_C, size_t ldc, cudaStream_t stream)                          \
    {                                                                                                        \
        return gpuh_impl_tc_gemm("gpuh_gemm", op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc,  \
                                 stream);                                                                    \
    }                                                                                                        \
    static inline cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, float alpha, const TIn *d_A, size_t lda, \
                                        const TIn *d_B, size_t ldb, float beta, TOut *d_C, size_t ldc,        \
                                        cudaStream_t stream)                                                 \
    {                                                                                                        \
        return gpuh_impl_tc_gemm("gpuh_gemm", GPUH_OP_N, GPUH_OP_N, M, N, K, alpha, d_A, lda, d_B, ldb, beta,  \
                                 d_C, ldc, stream);                                                          \
    }
GPUH_IMPL_TC_GEMM(__nv_bfloat16, float)
GPUH_IMPL_TC_GEMM(__nv_bfloat16, __nv_bfloat16)
GPUH_IMPL_TC_GEMM(__half, float)
GPUH_IMPL_TC_GEMM(__half, __half)
#undef GPUH_IMPL_TC_GEMM

static inline cudaError_t gpuh_gemm_tf32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                         const float *d_A, size_t lda, const float *d_B, size_t ldb, float beta,
                                         float *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_impl_tc_gemm("gpuh_gemm_tf32", op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc,
                             stream);
}
static inline cudaError_t gpuh_gemm_tf32(size_t M, size_t N, size_t K, float alpha, const float *d_A, size_t lda,
                                         const float *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                                         cudaStream_t stream)
{
    return gpuh_gemm_tf32(GPUH_OP_N, GPUH_OP_N, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
}

#endif /* GPUH_IMPL_TC */

/* ===========================================================================
   [SECTION: SHARDED KERNELS] the kernels on sharded arrays, implementation
   gpuh.h's gpuh_devices and gpuh_shards, with the kernels above run on each
   device's shard on its own stream. Element-wise work and GEMM (split by
   rows of C: each device multiplies its rows of A by a whole copy of B) need
   nothing from the other devices; a reduction reduces each shard on its
   device, then combines the per-device results on the host in the set's
   order, so that the result is the same bits on every run. Every error
   names the device. Idea: the CUDA sample simpleMultiGPU (each device
   reduces its part, the host adds the parts); data parallelism as in
   PyTorch's DistributedDataParallel.
   =========================================================================== */

static_assert(GPUH_REDUCE_TEMP_BYTES + 256 <= GPUH_DEVICES_SCRATCH_BYTES,
              "a set's per-device scratch holds a reduction's partials and its result");

/* Checks that shards `sh` (named `name`) fit the set and hold T, and, when
   `like` is not NULL, are split as `like` is. */
static inline cudaError_t gpuh_impl_shards_fit(const char *fn, const gpuh_devices *set, const gpuh_shards *sh,
                                               const char *name, size_t elem_size, const gpuh_shards *like)
{
    int i;
    if (sh == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s is NULL", fn, name);
    if (sh->count != set->count)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s has %d shards for %d devices", fn, name, sh->count,
                              set->count);
    if (sh->elem_size != elem_size)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s holds elements of %zu bytes, not %zu", fn, name,
                              sh->elem_size, elem_size);
    for (i = 0; i < set->count; ++i)
        if (sh->device[i] != set->id[i])
            return gpuh_fail(cudaErrorInvalidValue, "%s: %s's shard %d is on device %d, the set's is %d", fn,
                                  name, i, sh->device[i], set->id[i]);
    if (like == NULL)
        return cudaSuccess;
    if (sh->replicated != like->replicated || sh->rows * sh->row_elems != like->rows * like->row_elems)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s has %zu elements%s, the first operand %zu%s", fn, name,
                              sh->rows * sh->row_elems, sh->replicated ? " (replicated)" : "",
                              like->rows * like->row_elems, like->replicated ? " (replicated)" : "");
    for (i = 0; i < set->count; ++i)
        if (gpuh_shards_elems(sh, i) != gpuh_shards_elems(like, i))
            return gpuh_fail(cudaErrorInvalidValue, "%s: %s's shard %d holds %zu elements, the first operand's %zu",
                                  fn, name, i, gpuh_shards_elems(sh, i), gpuh_shards_elems(like, i));
    return cudaSuccess;
}

/* Calls step(i, stream) for each device of the set with that device
   current; names the device of the first error; restores the current device. */
template <typename Step> cudaError_t gpuh_impl_on_each(const char *fn, const gpuh_devices *set, Step step)
{
    cudaError_t err = cudaSuccess;
    int i, prev = 0;
    cudaGetDevice(&prev);
    for (i = 0; i < set->count && err == cudaSuccess; ++i) {
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[i]);
        if (err == cudaSuccess)
            err = step(i, set->stream[i]);
        err = gpuh_impl_on_device(err, fn, i, set->id[i]);
    }
    cudaSetDevice(prev);
    return err;
}

/* gpuh_sharded_vector_add: see [SECTION: SEVERAL DEVICES]. */
template <typename T>
cudaError_t gpuh_sharded_vector_add(const gpuh_devices *set, const gpuh_shards *a, const gpuh_shards *b, gpuh_shards *c)
{
    const char *fn = "gpuh_sharded_vector_add";
    cudaError_t err = gpuh_impl_set_check(fn, set);
    if (err != cudaSuccess || (err = gpuh_impl_shards_fit(fn, set, a, "a", sizeof(T), NULL)) != cudaSuccess ||
        (err = gpuh_impl_shards_fit(fn, set, b, "b", sizeof(T), a)) != cudaSuccess ||
        (err = gpuh_impl_shards_fit(fn, set, c, "c", sizeof(T), a)) != cudaSuccess)
        return err;
    return gpuh_impl_on_each(fn, set, [&](int i, cudaStream_t s) {
        return gpuh_vector_add<T>(static_cast<const T *>(a->ptr[i]), static_cast<const T *>(b->ptr[i]),
                                  static_cast<T *>(c->ptr[i]), gpuh_shards_elems(a, i), s);
    });
}

/* The type the host combines per-device results in: wider, so that the
   combine adds no rounding of its own to float. */
template <typename T> struct gpuh_impl_wide { typedef double type; };
template <> struct gpuh_impl_wide<int> { typedef long long type; };

enum { GPUH_IMPL_SUM, GPUH_IMPL_MIN, GPUH_IMPL_MAX, GPUH_IMPL_DOT, GPUH_IMPL_NORM2 };

/* The one-device reduction of each kind, chosen at compile time (dot and
   norm2 exist for float and double only). */
template <int KIND> struct gpuh_impl_shard_reduce;
template <> struct gpuh_impl_shard_reduce<GPUH_IMPL_SUM> {
    template <typename T> static cudaError_t run(const T *x, const T *, size_t n, T *out, void *tmp, cudaStream_t s)
    {
        return gpuh_sum<T>(x, n, out, tmp, s);
    }
};
template <> struct gpuh_impl_shard_reduce<GPUH_IMPL_MIN> {
    template <typename T> static cudaError_t run(const T *x, const T *, size_t n, T *out, void *tmp, cudaStream_t s)
    {
        return gpuh_min<T>(x, n, out, tmp, s);
    }
};
template <> struct gpuh_impl_shard_reduce<GPUH_IMPL_MAX> {
    template <typename T> static cudaError_t run(const T *x, const T *, size_t n, T *out, void *tmp, cudaStream_t s)
    {
        return gpuh_max<T>(x, n, out, tmp, s);
    }
};
template <> struct gpuh_impl_shard_reduce<GPUH_IMPL_DOT> {
    template <typename T> static cudaError_t run(const T *x, const T *y, size_t n, T *out, void *tmp, cudaStream_t s)
    {
        return gpuh_dot<T>(x, y, n, out, tmp, s);
    }
};
template <> struct gpuh_impl_shard_reduce<GPUH_IMPL_NORM2> {
    template <typename T> static cudaError_t run(const T *x, const T *, size_t n, T *out, void *tmp, cudaStream_t s)
    {
        return gpuh_norm2<T>(x, n, out, tmp, s);
    }
};

/* Each device reduces its shard into its scratch, the results come back to
   the set's pinned buffer, then the host combines them in set order. */
template <int kind, typename T>
cudaError_t gpuh_impl_sharded_reduce(const char *fn, const gpuh_devices *set, const gpuh_shards *x,
                                     const gpuh_shards *y, T *h_result)
{
    typedef typename gpuh_impl_wide<T>::type W;
    cudaError_t err = gpuh_impl_set_check(fn, set);
    const bool order = kind == GPUH_IMPL_MIN || kind == GPUH_IMPL_MAX;
    W acc = W(0);
    bool any = false;
    int i;
    if (err != cudaSuccess || (err = gpuh_impl_shards_fit(fn, set, x, "x", sizeof(T), NULL)) != cudaSuccess ||
        (y != NULL && (err = gpuh_impl_shards_fit(fn, set, y, "y", sizeof(T), x)) != cudaSuccess))
        return err;
    if (h_result == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: h_result is NULL", fn);
    if (x->replicated)
        return gpuh_fail(cudaErrorInvalidValue, "%s: x is replicated (each device holds it all): reduce one copy "
                              "with the one-device function", fn);
    if (order && x->rows * x->row_elems == 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s: n = 0 has no %s", fn, kind == GPUH_IMPL_MIN ? "min" : "max");
    err = gpuh_impl_on_each(fn, set, [&](int i, cudaStream_t s) {
        const size_t n = gpuh_shards_elems(x, i);
        const T *in = static_cast<const T *>(x->ptr[i]);
        unsigned char *scratch = static_cast<unsigned char *>(set->scratch[i]);
        T *d_out = reinterpret_cast<T *>(scratch + GPUH_REDUCE_TEMP_BYTES);
        cudaError_t e;
        if (n == 0 && order)
            return cudaSuccess; /* nothing to contribute */
        e = gpuh_impl_shard_reduce<kind>::run(in, y != NULL ? static_cast<const T *>(y->ptr[i]) : in, n, d_out,
                                              static_cast<void *>(scratch), s);
        if (e != cudaSuccess)
            return e;
        return cudaMemcpyAsync(static_cast<unsigned char *>(set->h_partial) + 16 * i, d_out, sizeof(T),
                               cudaMemcpyDeviceToHost, s);
    });
    if (err != cudaSuccess || (err = gpuh_devices_sync(set)) != cudaSuccess)
        return err;
    for (i = 0; i < set->count; ++i) { /* set order: the same bits every run */
        T part;
        if (order && gpuh_shards_elems(x, i) == 0)
            continue;
        memcpy(&part, static_cast<unsigned char *>(set->h_partial) + 16 * i, sizeof part);
        if (kind == GPUH_IMPL_MIN)
            acc = !any || W(part) < acc ? W(part) : acc;
        else if (kind == GPUH_IMPL_MAX)
            acc = !any || W(part) > acc ? W(part) : acc;
        else if (kind == GPUH_IMPL_NORM2)
            acc += W(part) * W(part);
        else
            acc += W(part);
        any = true;
    }
    *h_result = kind == GPUH_IMPL_NORM2 ? T(sqrt(double(acc))) : T(acc);
    return cudaSuccess;
}

/* gpuh_sharded_sum & co.: see [SECTION: SEVERAL DEVICES]. */
template <typename T> cudaError_t gpuh_sharded_sum(const gpuh_devices *set, const gpuh_shards *x, T *h_result)
{
    return gpuh_impl_sharded_reduce<GPUH_IMPL_SUM, T>("gpuh_sharded_sum", set, x, NULL, h_result);
}
template <typename T> cudaError_t gpuh_sharded_min(const gpuh_devices *set, const gpuh_shards *x, T *h_result)
{
    return gpuh_impl_sharded_reduce<GPUH_IMPL_MIN, T>("gpuh_sharded_min", set, x, NULL, h_result);
}
template <typename T> cudaError_t gpuh_sharded_max(const gpuh_devices *set, const gpuh_shards *x, T *h_result)
{
    return gpuh_impl_sharded_reduce<GPUH_IMPL_MAX, T>("gpuh_sharded_max", set, x, NULL, h_result);
}
template <typename T>
cudaError_t gpuh_sharded_dot(const gpuh_devices *set, const gpuh_shards *x, const gpuh_shards *y, T *h_result)
{
    if (y == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_sharded_dot: y is NULL");
    return gpuh_impl_sharded_reduce<GPUH_IMPL_DOT, T>("gpuh_sharded_dot", set, x, y, h_result);
}
template <typename T> cudaError_t gpuh_sharded_norm2(const gpuh_devices *set, const gpuh_shards *x, T *h_result)
{
    return gpuh_impl_sharded_reduce<GPUH_IMPL_NORM2, T>("gpuh_sharded_norm2", set, x, NULL, h_result);
}

/* gpuh_sharded_gemm: see [SECTION: SEVERAL DEVICES]. */
template <typename T>
cudaError_t gpuh_sharded_gemm(const gpuh_devices *set, size_t M, size_t N, size_t K, T alpha, const gpuh_shards *A,
                              const gpuh_shards *B, T beta, gpuh_shards *C)
{
    const char *fn = "gpuh_sharded_gemm";
    cudaError_t err = gpuh_impl_set_check(fn, set);
    int i;
    if (err != cudaSuccess || (err = gpuh_impl_shards_fit(fn, set, A, "A", sizeof(T), NULL)) != cudaSuccess ||
        (err = gpuh_impl_shards_fit(fn, set, B, "B", sizeof(T), NULL)) != cudaSuccess ||
        (err = gpuh_impl_shards_fit(fn, set, C, "C", sizeof(T), NULL)) != cudaSuccess)
        return err;
    if (A->replicated || A->rows != M || (A->row_elems != K && M > 0))
        return gpuh_fail(cudaErrorInvalidValue, "%s: A is %zu rows × %zu%s, not M × K = %zu × %zu split by rows", fn,
                              A->rows, A->row_elems, A->replicated ? " replicated" : "", M, K);
    if (C->replicated || C->rows != M || (C->row_elems != N && M > 0))
        return gpuh_fail(cudaErrorInvalidValue, "%s: C is %zu rows × %zu%s, not M × N = %zu × %zu split by rows", fn,
                              C->rows, C->row_elems, C->replicated ? " replicated" : "", M, N);
    if (!B->replicated || B->rows * B->row_elems != K * N)
        return gpuh_fail(cudaErrorInvalidValue, "%s: B holds %zu elements%s, not K × N = %zu × %zu replicated", fn,
                              B->rows * B->row_elems, B->replicated ? "" : " split", K, N);
    for (i = 0; i < set->count; ++i)
        if (A->first_row[i] != C->first_row[i])
            return gpuh_fail(cudaErrorInvalidValue, "%s: A and C are split at different rows (shard %d)", fn, i);
    return gpuh_impl_on_each(fn, set, [&](int i, cudaStream_t s) {
        return gpuh_gemm<T>(gpuh_shards_rows(C, i), N, K, alpha, static_cast<const T *>(A->ptr[i]), K,
                            static_cast<const T *>(B->ptr[i]), N, beta, static_cast<T *>(C->ptr[i]), N, s);
    });
}

/* ===========================================================================
   [SECTION: C ENTRY POINTS]
   Definitions of the typed entry points of [SECTION: C DECLARATIONS], in the
   one .cu file that defines GPUH_KERNELS_IMPLEMENTATION.
   =========================================================================== */
#ifdef GPUH_KERNELS_IMPLEMENTATION

#define GPUH_IMPL_VECTOR_ADD(suffix, T)                                                                 \
    extern "C" cudaError_t gpuh_vector_add_##suffix(const T *d_a, const T *d_b, T *d_c, size_t n,      \
                                                    cudaStream_t stream)                              \
    {                                                                                                  \
        return gpuh_vector_add<T>(d_a, d_b, d_c, n, stream);                                           \
    }
#define GPUH_IMPL_REDUCE(name, suffix, T)                                                               \
    extern "C" cudaError_t gpuh_##name##_##suffix(const T *d_in, size_t n, T *d_out, void *d_temp,     \
                                                  cudaStream_t stream)                                \
    {                                                                                                  \
        return gpuh_##name<T>(d_in, n, d_out, d_temp, stream);                                         \
    }
#define GPUH_IMPL_DOT(suffix, T)                                                                        \
    extern "C" cudaError_t gpuh_dot_##suffix(const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp,  \
                                             cudaStream_t stream)                                     \
    {                                                                                                  \
        return gpuh_dot<T>(d_a, d_b, n, d_out, d_temp, stream);                                        \
    }
#define GPUH_IMPL_MATMUL(suffix, T)                                                                     \
    extern "C" cudaError_t gpuh_matmul_##suffix(const T *d_A, const T *d_B, T *d_C, size_t M, size_t N, \
                                                size_t K, cudaStream_t stream)                        \
    {                                                                                                  \
        return gpuh_matmul<T>(d_A, d_B, d_C, M, N, K, stream);                                         \
    }
#define GPUH_IMPL_GEMM(suffix, T)                                                                       \
    extern "C" cudaError_t gpuh_gemm_##suffix(size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda, \
                                              const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc,    \
                                              cudaStream_t stream)                                    \
    {                                                                                                  \
        return gpuh_gemm<T>(M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);               \
    }                                                                                                  \
    extern "C" cudaError_t gpuh_gemm_op_##suffix(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, \
                                                 T alpha, const T *d_A, size_t lda, const T *d_B,     \
                                                 size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream) \
    {                                                                                                  \
        return gpuh_gemm<T>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);   \
    }

GPUH_IMPL_VECTOR_ADD(f32, float)
GPUH_IMPL_VECTOR_ADD(f64, double)
GPUH_IMPL_VECTOR_ADD(i32, int)
GPUH_IMPL_REDUCE(sum, f32, float)
GPUH_IMPL_REDUCE(sum, f64, double)
GPUH_IMPL_REDUCE(sum, i32, int)
GPUH_IMPL_REDUCE(min, f32, float)
GPUH_IMPL_REDUCE(min, f64, double)
GPUH_IMPL_REDUCE(min, i32, int)
GPUH_IMPL_REDUCE(max, f32, float)
GPUH_IMPL_REDUCE(max, f64, double)
GPUH_IMPL_REDUCE(max, i32, int)
GPUH_IMPL_REDUCE(norm2, f32, float)
GPUH_IMPL_REDUCE(norm2, f64, double)
GPUH_IMPL_DOT(f32, float)
GPUH_IMPL_DOT(f64, double)
GPUH_IMPL_MATMUL(f32, float)
GPUH_IMPL_MATMUL(f64, double)
GPUH_IMPL_GEMM(f32, float)
GPUH_IMPL_GEMM(f64, double)

#if GPUH_IMPL_TC
/* The tensor-core entry points: gpuh_bf16 / gpuh_f16 have the layout of
   __nv_bfloat16 / __half. */
#define GPUH_IMPL_TC_ENTRY(name, TC, TIn, TOutC, TOut)                                                     \
    extern "C" cudaError_t name(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,      \
                                const TC *d_A, size_t lda, const TC *d_B, size_t ldb, float beta, TOutC *d_C, \
                                size_t ldc, cudaStream_t stream)                                            \
    {                                                                                                       \
        return gpuh_gemm(op_a, op_b, M, N, K, alpha, reinterpret_cast<const TIn *>(d_A), lda,               \
                         reinterpret_cast<const TIn *>(d_B), ldb, beta, reinterpret_cast<TOut *>(d_C), ldc,  \
                         stream);                                                                           \
    }
GPUH_IMPL_TC_ENTRY(gpuh_gemm_bf16, gpuh_bf16, __nv_bfloat16, float, float)
GPUH_IMPL_TC_ENTRY(gpuh_gemm_bf16_bf16, gpuh_bf16, __nv_bfloat16, gpuh_bf16, __nv_bfloat16)
GPUH_IMPL_TC_ENTRY(gpuh_gemm_f16, gpuh_f16, __half, float, float)
GPUH_IMPL_TC_ENTRY(gpuh_gemm_f16_f16, gpuh_f16, __half, gpuh_f16, __half)
#undef GPUH_IMPL_TC_ENTRY
extern "C" cudaError_t gpuh_gemm_tf32_f32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha,
                                          const float *d_A, size_t lda, const float *d_B, size_t ldb, float beta,
                                          float *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_gemm_tf32(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
}
#endif

#undef GPUH_IMPL_VECTOR_ADD
#undef GPUH_IMPL_REDUCE
#undef GPUH_IMPL_DOT
#undef GPUH_IMPL_MATMUL
#undef GPUH_IMPL_GEMM

#endif /* GPUH_KERNELS_IMPLEMENTATION */

#endif /* GPUH_HAS_DEVICE_CODE */

#endif /* GPUH_KERNELS_CUH */
