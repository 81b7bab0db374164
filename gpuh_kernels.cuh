/* gpuh_kernels.cuh - v0.1.0 - generic CUDA kernels with launchers: vector add,
   reductions (sum, min, max, dot, L2 norm), tiled shared-memory matrix multiply.

   Needs gpuh.h beside it. MIT licence (see gpuh.h).

   ============================================================================
   USING IT

   From CUDA C++ (nvcc), call the template launchers; each computes its own
   grid, takes a stream, checks its arguments and returns cudaError_t:

       GPUH_CHECK(gpuh_vector_add(d_a, d_b, d_c, n, stream));      // T = float, double, int
       GPUH_CHECK(gpuh_sum(d_x, n, d_result, d_temp, stream));      // also gpuh_min, gpuh_max
       GPUH_CHECK(gpuh_dot(d_x, d_y, n, d_result, d_temp, stream)); // and gpuh_norm2 (float, double)
       GPUH_CHECK(gpuh_matmul(d_A, d_B, d_C, M, N, K, stream));     // T = float, double

   From C, or to keep templates out of a .cu file, call the typed entry points
   declared below (gpuh_vector_add_f32, gpuh_sum_f64, gpuh_matmul_f32, ...).
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
*/
#ifndef GPUH_KERNELS_CUH
#define GPUH_KERNELS_CUH

#include "gpuh.h"

/* Threads per block of the reduction kernel, and most blocks of its first pass.
   The first pass's grid depends on n alone (never on the device or timing), so
   every run adds the same numbers in the same order: results are bitwise
   reproducible, on any GPU. */
#define GPUH_REDUCE_BLOCK 256
#define GPUH_REDUCE_MAX_BLOCKS 1024
/* 16-byte vectors each thread loads per input before using them: vector add
   (two inputs) and the reductions (one input, so twice the vectors to keep as
   many bytes in flight). */
#ifndef GPUH_ADD_UNROLL
#define GPUH_ADD_UNROLL 4
#endif
#ifndef GPUH_REDUCE_UNROLL
#define GPUH_REDUCE_UNROLL 8
#endif
/* n up to which a reduction is one launch of one block and needs no scratch:
   one tile, GPUH_REDUCE_BLOCK threads × GPUH_REDUCE_UNROLL 16-byte vectors
   (8192 floats or ints, 4096 doubles; the smaller is the limit). */
#define GPUH_REDUCE_SINGLE_BLOCK_MAX (GPUH_REDUCE_BLOCK * GPUH_REDUCE_UNROLL * 2)
/* Bytes of scratch device memory a reduction needs (partials of up to 8 bytes). */
#define GPUH_REDUCE_TEMP_BYTES (GPUH_REDUCE_MAX_BLOCKS * 8)
/* Tile edge of the teaching matmul: blocks of TILE × TILE threads. */
#define GPUH_MATMUL_TILE 16

#ifdef __cplusplus
extern "C" {
#endif

/* Typed entry points for C callers (defined under GPUH_KERNELS_IMPLEMENTATION).
   Shapes, units and errors are those of the template launchers below. */
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

#ifdef __cplusplus
} /* extern "C" */
#endif

#if defined(__CUDACC__) || (defined(GPUH_SIM) && defined(__cplusplus))

/* ===========================================================================
   MEMORY-BOUND KERNELS: shared pieces
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

/* ===========================================================================
   VECTOR ADD: c[i] = a[i] + b[i] for 0 ≤ i < n
   =========================================================================== */

#define GPUH_ADD_BLOCK 256

/* a + b; for int, wrapping modulo 2^32 (added as unsigned, where wrapping is
   defined, instead of signed, where overflow is undefined behaviour). */
template <typename T> __device__ __forceinline__ T gpuh_impl_add(T a, T b) { return a + b; }
template <> __device__ __forceinline__ int gpuh_impl_add<int>(int a, int b)
{
    return (int)((unsigned)a + (unsigned)b);
}

/* Each block handles tiles of GPUH_ADD_UNROLL × blockDim.x 16-byte vectors: thread
   t takes vectors t, t + blockDim.x, t + 2·blockDim.x, ... of the tile, so each
   load instruction of a warp covers 512 consecutive bytes, and every thread
   has 2 × GPUH_ADD_UNROLL loads in flight before its first add. Blocks step
   through the tiles grid-stride, so any grid covers any n (64-bit indices).
   Elements that do not fill a vector (before the arrays' first 16-byte
   boundary, and after the last full vector) are added one per thread.
   `head` is that first count; head == n means "no vectors at all" (used when
   a, b and c are misaligned from each other, so no offset aligns all three).
   The pointers are not __restrict__: c may be a or b (an in-place add).
   Grid: 1-D, any size; block: 1-D, ≤ GPUH_ADD_BLOCK threads. */
template <typename T>
__global__ void __launch_bounds__(GPUH_ADD_BLOCK)
    gpuh_vector_add_kernel(const T *g_a, const T *g_b, T *g_c, size_t n, size_t head)
{
    typedef typename gpuh_vec16<T>::type V;
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

/* gpuh_vector_add: d_c[i] = d_a[i] + d_b[i] for n elements of device memory, on
   `stream`; T = float, double or int. n = 0 launches nothing. Any element-
   aligned pointers: at full speed when the three share their offset from a
   16-byte boundary (cudaMalloc'd arrays, and equal offsets into them), one
   element per thread otherwise. d_c may equal d_a or d_b (in place) but not
   overlap them otherwise. Integer overflow wraps as the device's adder does.
   Errors: cudaErrorInvalidValue (a NULL pointer with n > 0), launch errors.
   Idea: the first kernel of every CUDA tutorial, made size-safe and fast. */
template <typename T>
cudaError_t gpuh_vector_add(const T *d_a, const T *d_b, T *d_c, size_t n, cudaStream_t stream = 0)
{
    typedef typename gpuh_vec16<T>::type V;
    size_t head = gpuh_impl_head(d_a, n), per_block, blocks;
    if (n == 0)
        return cudaSuccess;
    if (d_a == NULL || d_b == NULL || d_c == NULL)
        return gpuh_impl_fail(cudaErrorInvalidValue, "gpuh_vector_add: %s is NULL (n %zu)",
                              d_a == NULL ? "d_a" : d_b == NULL ? "d_b" : "d_c", n);
    if (gpuh_impl_head(d_b, n) != head || gpuh_impl_head(d_c, n) != head)
        head = n; /* no common alignment: every element on its own */
    per_block = head == n ? GPUH_ADD_BLOCK : GPUH_ADD_BLOCK * GPUH_ADD_UNROLL * (sizeof(V) / sizeof(T));
    blocks = gpuh_ceil_div(n, per_block);
    if (blocks > GPUH_MAX_GRID_X) /* past the grid limit the loops stride */
        blocks = GPUH_MAX_GRID_X;
    return GPUH_LAUNCH(gpuh_vector_add_kernel<T>, (unsigned)blocks, GPUH_ADD_BLOCK, 0, stream, d_a, d_b, d_c, n,
                       head);
}

/* ===========================================================================
   REDUCTION: one value from n, by sum, min or max (and dot, L2 norm)
   =========================================================================== */

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

/* gpuh_warp_reduce<Op>(v): op over the 32 lanes' v, valid in lane 0 (the
   other lanes hold partial results). Every lane of the warp must call it
   (full mask); Op is gpuh_op_sum / _min / _max of T or a struct like them.
   After log2(32) = 5 steps lane 0 holds op over all 32 lanes: __shfl_down_sync
   reads a register of the lane `offset` higher, with no shared memory and no
   barrier. Idea: the CUDA Programming Guide's warp shuffle functions;
   J. Luitjens, "Faster Parallel Reductions on Kepler" (NVIDIA blog, 2014). */
template <typename Op, typename T> __device__ __forceinline__ T gpuh_warp_reduce(T v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = Op::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

/* gpuh_block_reduce<Op>(v): op over every thread's v in a 1-D block, valid in
   thread 0. Every thread of the block must call it (it has a __syncthreads());
   blockDim.x must be a multiple of 32, at most 1024. Uses 32 · sizeof(T) bytes
   of static shared memory; a second call in the same kernel needs a
   __syncthreads() before it, since it reuses that array. Each warp reduces
   itself with shuffles, warp leaders meet in shared memory, and warp 0 reduces
   their totals. Idea: as gpuh_warp_reduce, and CUB's BlockReduce. */
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

/* Each block writes Post(op over its share of Map(a[i], b[i])) to
   g_out[blockIdx.x]. Each thread folds its elements into one register in a
   fixed order: tiles of GPUH_REDUCE_UNROLL × blockDim.x 16-byte vectors, visited
   grid-stride, thread t taking vectors t, t + blockDim.x, ... of each tile
   (coalesced, 16-byte loads, GPUH_REDUCE_UNROLL loads in flight per input), then the
   elements outside whole vectors (`head` as in gpuh_vector_add_kernel).
   The block then combines its threads (gpuh_block_reduce). Launched twice:
   over the input with up to GPUH_REDUCE_MAX_BLOCKS blocks, writing partials,
   then with one block over the partials. The grid depends on n alone, and
   every step has a fixed order, so a result is the same bit for bit on every
   run over the same data at the same address. Grid: 1-D; block: GPUH_REDUCE_BLOCK threads (a multiple of 32). */
template <typename Op, typename Map, typename Post, typename T>
__global__ void __launch_bounds__(GPUH_REDUCE_BLOCK)
    gpuh_reduce_kernel(const T *__restrict__ g_a, const T *__restrict__ g_b, size_t n, size_t head,
                       T *__restrict__ g_out)
{
    typedef typename gpuh_vec16<T>::type V;
    const int W = sizeof(V) / sizeof(T);
    const size_t nvec = (n - head) / W, vec_end = head + nvec * W;
    const V *g_va = reinterpret_cast<const V *>(g_a + head);
    const V *g_vb = reinterpret_cast<const V *>(g_b + head);
    const size_t tile = (size_t)GPUH_REDUCE_UNROLL * blockDim.x;
    T acc = Op::identity();

    for (size_t base = blockIdx.x * tile; base < nvec; base += gridDim.x * tile) {
        V x[GPUH_REDUCE_UNROLL], y[GPUH_REDUCE_UNROLL];
#pragma unroll
        for (int u = 0; u < GPUH_REDUCE_UNROLL; ++u) { /* all loads first: they overlap */
            const size_t j = base + u * blockDim.x + threadIdx.x;
            if (j < nvec) {
                x[u] = g_va[j];
                y[u] = Map::inputs == 2 ? g_vb[j] : x[u];
            }
        }
#pragma unroll
        for (int u = 0; u < GPUH_REDUCE_UNROLL; ++u) {
            const size_t j = base + u * blockDim.x + threadIdx.x;
            if (j < nvec) {
                const T *px = reinterpret_cast<const T *>(&x[u]);
                const T *py = reinterpret_cast<const T *>(&y[u]);
#pragma unroll
                for (int w = 0; w < W; ++w)
                    acc = Op::apply(acc, Map::apply(px[w], py[w]));
            }
        }
    }
    for (size_t r = gpuh_global_index(); r < n - nvec * W; r += gpuh_grid_stride()) {
        const size_t i = gpuh_impl_rest_index(r, head, vec_end);
        acc = Op::apply(acc, Map::apply(g_a[i], Map::inputs == 2 ? g_b[i] : g_a[i]));
    }
    acc = gpuh_block_reduce<Op>(acc);
    if (threadIdx.x == 0)
        g_out[blockIdx.x] = Post::apply(acc);
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
   warp shuffles and vector loads; CUB's DeviceReduce for the scratch buffer. */
template <typename Op, typename Map, typename Post, typename T>
cudaError_t gpuh_impl_reduce(const char *fn, const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp,
                             cudaStream_t stream)
{
    typedef typename gpuh_vec16<T>::type V;
    const size_t per_block = GPUH_REDUCE_BLOCK * GPUH_REDUCE_UNROLL * (sizeof(V) / sizeof(T));
    size_t blocks = gpuh_ceil_div(n, per_block), head = gpuh_impl_head(d_a, n);
    cudaError_t err;
    if (d_out == NULL || (n > 0 && (d_a == NULL || d_b == NULL)))
        return gpuh_impl_fail(cudaErrorInvalidValue, "%s: %s is NULL (n %zu)", fn,
                              d_out == NULL ? "d_out" : d_a == NULL ? "the input" : "the second input", n);
    if (n == 0) {
        if (Op::defined_for_empty) /* an empty sum, dot or norm is 0: all-zero bits in every T here */
            return cudaMemsetAsync(d_out, 0, sizeof(T), stream);
        return gpuh_impl_fail(cudaErrorInvalidValue, "%s: n is 0 and the operation has no identity", fn);
    }
    if (Map::inputs == 2 && gpuh_impl_head(d_b, n) != head)
        head = n; /* no common alignment: every element on its own */
    if (blocks <= 1)
        return GPUH_LAUNCH((gpuh_reduce_kernel<Op, Map, Post, T>), 1, GPUH_REDUCE_BLOCK, 0, stream, d_a, d_b, n,
                           head, d_out);
    if (d_temp == NULL)
        return gpuh_impl_fail(cudaErrorInvalidValue,
                              "%s: d_temp is NULL; n = %zu needs GPUH_REDUCE_TEMP_BYTES of scratch", fn, n);
    if ((uintptr_t)d_temp % sizeof(T) != 0)
        return gpuh_impl_fail(cudaErrorInvalidValue, "%s: d_temp %p is not aligned to %zu bytes", fn, d_temp,
                              sizeof(T));
    if (blocks > GPUH_REDUCE_MAX_BLOCKS)
        blocks = GPUH_REDUCE_MAX_BLOCKS;
    T *d_partials = static_cast<T *>(d_temp);
    err = GPUH_LAUNCH((gpuh_reduce_kernel<Op, Map, gpuh_post_none, T>), (unsigned)blocks, GPUH_REDUCE_BLOCK, 0,
                      stream, d_a, d_b, n, head, d_partials);
    if (err != cudaSuccess)
        return err;
    return GPUH_LAUNCH((gpuh_reduce_kernel<Op, gpuh_map_x, Post, T>), 1, GPUH_REDUCE_BLOCK, 0, stream,
                       d_partials, d_partials, blocks, gpuh_impl_head(d_partials, blocks), d_out);
}

/* gpuh_sum_depth(n, elem_size): the most roundings any element meets in a
   gpuh_sum of n elements of elem_size bytes (4 or 8): in its thread's loop
   m = U·w·⌈n / (U·w·2^18)⌉ additions (U = GPUH_REDUCE_UNROLL vectors of
   w = 16 / elem_size elements per tile, 2^18 threads in the first pass), plus
   one leftover element, 8 in its block's tree (5 shuffle steps, 3 across 8
   warps), and at most 4 + 8 in the second pass. So a float sum is within
   gpuh_sum_depth(n, 4) · 2^-24 · Σ|x| of the exact sum (the classic bound for
   recursive summation; Higham, "Accuracy and Stability of Numerical
   Algorithms", 2nd ed., ch. 4), and typically far closer. For float and
   n = 2^28: 1045 · 2^-24 ≈ 6.2e-5 relative to Σ|x|. */
static inline size_t gpuh_sum_depth(size_t n, size_t elem_size)
{
    const size_t tile = (size_t)GPUH_REDUCE_UNROLL * (16 / elem_size);
    const size_t threads = (size_t)GPUH_REDUCE_MAX_BLOCKS * GPUH_REDUCE_BLOCK;
    return tile * gpuh_ceil_div(n, tile * threads) + 1 + 8 + 4 + 8;
}

/* gpuh_sum / gpuh_min / gpuh_max: op over the n elements d_in[0 .. n-1] into
   the one element *d_out (device memory); T = float, double or int.
   gpuh_dot: Σ d_a[i]·d_b[i]; gpuh_norm2: sqrt(Σ d_x[i]²) (no scaling:
   overflows when Σx² exceeds the type's range); T = float or double.
   Asynchronous on `stream`. d_temp: GPUH_REDUCE_TEMP_BYTES bytes of device
   scratch aligned to 8 bytes, or NULL when n ≤ GPUH_REDUCE_SINGLE_BLOCK_MAX.
   An empty sum, dot or norm is 0. Errors: cudaErrorInvalidValue (a NULL
   pointer, d_temp NULL or misaligned when needed, n = 0 for min/max), launch
   errors. Deterministic; accuracy: gpuh_sum_depth. Idea: see gpuh_impl_reduce. */
template <typename T>
cudaError_t gpuh_sum(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0)
{
    return gpuh_impl_reduce<gpuh_op_sum<T>, gpuh_map_x, gpuh_post_none>("gpuh_sum", d_in, d_in, n, d_out, d_temp,
                                                                        stream);
}
template <typename T>
cudaError_t gpuh_min(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0)
{
    return gpuh_impl_reduce<gpuh_op_min<T>, gpuh_map_x, gpuh_post_none>("gpuh_min", d_in, d_in, n, d_out, d_temp,
                                                                        stream);
}
template <typename T>
cudaError_t gpuh_max(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0)
{
    return gpuh_impl_reduce<gpuh_op_max<T>, gpuh_map_x, gpuh_post_none>("gpuh_max", d_in, d_in, n, d_out, d_temp,
                                                                        stream);
}
template <typename T>
cudaError_t gpuh_dot(const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0)
{
    return gpuh_impl_reduce<gpuh_op_sum<T>, gpuh_map_product, gpuh_post_none>("gpuh_dot", d_a, d_b, n, d_out,
                                                                              d_temp, stream);
}
template <typename T>
cudaError_t gpuh_norm2(const T *d_x, size_t n, T *d_out, void *d_temp, cudaStream_t stream = 0)
{
    return gpuh_impl_reduce<gpuh_op_sum<T>, gpuh_map_square, gpuh_post_sqrt>("gpuh_norm2", d_x, d_x, n, d_out,
                                                                             d_temp, stream);
}

/* ===========================================================================
   MATRIX MULTIPLY: C = A · B, row-major, A is M × K, B is K × N, C is M × N
   =========================================================================== */

/* The classic tiled kernel (CUDA Programming Guide, "Shared Memory"; the CUDA
   sample matrixMul). Each thread computes one element C[row][col]. A naive
   kernel reads a whole row of A and column of B from global memory per
   thread: 2K loads for 2K flops. Here the block's TILE × TILE threads instead
   walk along K one tile at a time: together they copy a TILE × TILE tile of A
   and one of B into shared memory (one element each), then every thread does
   TILE multiply-adds from shared memory. Each global element is now loaded once
   per block instead of once per thread: TILE times less global traffic.
   Grid: (ceil(N/TILE), ceil(M/TILE)); block: (TILE, TILE); static shared
   memory: 2 · TILE² elements. Any M, N, K: out-of-range tile elements load as
   zero, which adds nothing, and out-of-range threads write nothing. */
template <typename T, int TILE>
__global__ void gpuh_matmul_tiled_kernel(const T *__restrict__ g_A, const T *__restrict__ g_B,
                                         T *__restrict__ g_C, size_t M, size_t N, size_t K)
{
    __shared__ T s_A[TILE][TILE];
    __shared__ T s_B[TILE][TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const size_t row = (size_t)blockIdx.y * TILE + ty; /* this thread's row of C and A */
    const size_t col = (size_t)blockIdx.x * TILE + tx; /* this thread's column of C and B */
    T acc = 0;

    for (size_t k0 = 0; k0 < K; k0 += TILE) {
        /* Thread (ty, tx) loads A[row][k0 + tx] and B[k0 + ty][col]: along a warp
           tx varies fastest, so both loads read consecutive addresses. */
        s_A[ty][tx] = (row < M && k0 + tx < K) ? g_A[row * K + k0 + tx] : T(0);
        s_B[ty][tx] = (k0 + ty < K && col < N) ? g_B[(k0 + ty) * N + col] : T(0);
        /* The whole tile must be in shared memory before anyone reads it. */
        __syncthreads();
        /* s_A[ty][k] is the same word for a whole warp row (a broadcast);
           s_B[k][tx] is consecutive words: no bank conflicts. */
#pragma unroll
        for (int k = 0; k < TILE; ++k)
            acc += s_A[ty][k] * s_B[k][tx];
        /* Everyone must be done reading before the next tile overwrites it. */
        __syncthreads();
    }
    if (row < M && col < N)
        g_C[row * N + col] = acc;
}

/* gpuh_matmul: C = A · B for row-major device matrices, A M × K, B K × N,
   C M × N (leading dimensions K, N and N), T = float or double, on `stream`.
   Any M, N, K ≥ 0: M or N = 0 does nothing; K = 0 sets C to zero. C must not
   overlap A or B. Errors: cudaErrorInvalidValue (NULL with a non-empty
   matrix), cudaErrorInvalidConfiguration (M > 65535 · TILE rows: beyond the
   grid's y limit), launch errors. The teaching kernel: about 0.16× cuBLAS. */
template <typename T>
cudaError_t gpuh_matmul(const T *d_A, const T *d_B, T *d_C, size_t M, size_t N, size_t K,
                        cudaStream_t stream = 0)
{
    dim3 block(GPUH_MATMUL_TILE, GPUH_MATMUL_TILE), grid;
    cudaError_t err;
    if (M == 0 || N == 0)
        return cudaSuccess;
    if (d_C == NULL || (K > 0 && (d_A == NULL || d_B == NULL)))
        return gpuh_impl_fail(cudaErrorInvalidValue, "gpuh_matmul: %s is NULL (M %zu, N %zu, K %zu)",
                              d_C == NULL ? "d_C" : d_A == NULL ? "d_A" : "d_B", M, N, K);
    if ((err = gpuh_grid_2d(&grid, N, M, block)) != cudaSuccess)
        return err;
    return GPUH_LAUNCH((gpuh_matmul_tiled_kernel<T, GPUH_MATMUL_TILE>), grid, block, 0, stream, d_A, d_B, d_C,
                       M, N, K);
}

/* ===========================================================================
   C ENTRY POINTS (one .cu file defines GPUH_KERNELS_IMPLEMENTATION)
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

#undef GPUH_IMPL_VECTOR_ADD
#undef GPUH_IMPL_REDUCE
#undef GPUH_IMPL_DOT
#undef GPUH_IMPL_MATMUL

#endif /* GPUH_KERNELS_IMPLEMENTATION */

#endif /* __CUDACC__ or the simulator (C++) */

#endif /* GPUH_KERNELS_CUH */
