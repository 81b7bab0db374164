/* gpuh/memory.cuh - part of gpuh_kernels.cuh: the memory-bound kernels (vector
   add, reductions). Included by gpuh_kernels.cuh, never on its own: the public
   names it defines are declared and documented there. */
#ifndef GPUH_IMPL_MEMORY_CUH
#define GPUH_IMPL_MEMORY_CUH

/* ===========================================================================
   [SECTION: MEMORY-BOUND KERNELS]
   Vector add and the reductions do almost no arithmetic per byte, so their
   speed is the rate at which they move bytes. Three habits get them to the
   memory ceiling: 16-byte loads (a warp then moves 512 bytes per instruction),
   several independent loads in flight per thread before any is used (UNROLL),
   and neighbouring threads on neighbouring addresses (coalescing).
   =========================================================================== */

/* The 16-byte vector type of T: float4, double2, int4. */
template <typename T> struct gpuh_impl_vec16;
template <> struct gpuh_impl_vec16<float> { typedef float4 type; };
template <> struct gpuh_impl_vec16<double> { typedef double2 type; };
template <> struct gpuh_impl_vec16<int> { typedef int4 type; };


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
    GPUH_NVTX_RANGE("gpuh_vector_add");
    typedef typename gpuh_impl_vec16<T>::type V;
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
    const cudaError_t err =
        vectors ? GPUH_LAUNCH((gpuh_vector_add_kernel<T, V>), (unsigned)blocks, GPUH_ADD_BLOCK, 0, stream, d_a, d_b,
                              d_c, n, head)
                : GPUH_LAUNCH((gpuh_vector_add_kernel<T, T>), (unsigned)blocks, GPUH_ADD_BLOCK, 0, stream, d_a, d_b,
                              d_c, n, (size_t)0);
    return gpuh_impl_stream_error(err, "gpuh_vector_add", stream);
}

/* ---------------------------------------------------------------------------
   Reductions: one value from n, by sum, min or max (and dot, L2 norm). */

/* What is reduced, element by element: x itself, x², or a·b (two inputs). */
struct gpuh_impl_map_x {
    enum { inputs = 1 };
    template <typename T> __device__ static T apply(T a, T) { return a; }
};
struct gpuh_impl_map_square {
    enum { inputs = 1 };
    template <typename T> __device__ static T apply(T a, T) { return a * a; }
};
struct gpuh_impl_map_product {
    enum { inputs = 2 };
    template <typename T> __device__ static T apply(T a, T b) { return a * b; }
};
/* What is done to the final value: nothing, or a square root (L2 norm). */
struct gpuh_impl_post_none {
    template <typename T> __device__ static T apply(T v) { return v; }
};
struct gpuh_impl_post_sqrt {
    template <typename T> __device__ static T apply(T v) { return sqrt(v); }
};

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
    typedef typename gpuh_impl_vec16<T>::type V;
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
    GPUH_NVTX_RANGE(fn);
    typedef typename gpuh_impl_vec16<T>::type V;
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
        return gpuh_impl_stream_error(cudaMemsetAsync(d_out, 0, sizeof(T), stream), fn, stream);
    if (blocks <= 1)
        return gpuh_impl_stream_error(gpuh_impl_reduce_pass<Op, Map, Post>(d_a, d_b, n, d_out, 1, stream), fn,
                                      stream);
    if (blocks > GPUH_REDUCE_MAX_BLOCKS)
        blocks = GPUH_REDUCE_MAX_BLOCKS;
    T *d_partials = static_cast<T *>(d_temp);
    err = gpuh_impl_reduce_pass<Op, Map, gpuh_impl_post_none>(d_a, d_b, n, d_partials, blocks, stream);
    if (err == cudaSuccess)
        err = gpuh_impl_reduce_pass<Op, gpuh_impl_map_x, Post>(d_partials, d_partials, blocks, d_out, 1, stream);
    return gpuh_impl_stream_error(err, fn, stream);
}

/* gpuh_sum, gpuh_min, gpuh_max, gpuh_dot, gpuh_norm2: see [SECTION: REDUCTIONS]. */
template <typename T>
cudaError_t gpuh_sum(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_plus<T>, gpuh_impl_map_x, gpuh_impl_post_none>(
        "gpuh_sum", d_in, d_in, n, d_out, d_temp, stream);
}
template <typename T>
cudaError_t gpuh_min(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_minimum<T>, gpuh_impl_map_x, gpuh_impl_post_none>(
        "gpuh_min", d_in, d_in, n, d_out, d_temp, stream);
}
template <typename T>
cudaError_t gpuh_max(const T *d_in, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_maximum<T>, gpuh_impl_map_x, gpuh_impl_post_none>(
        "gpuh_max", d_in, d_in, n, d_out, d_temp, stream);
}
template <typename T>
cudaError_t gpuh_dot(const T *d_a, const T *d_b, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_plus<T>, gpuh_impl_map_product, gpuh_impl_post_none>(
        "gpuh_dot", d_a, d_b, n, d_out, d_temp, stream);
}
template <typename T>
cudaError_t gpuh_norm2(const T *d_x, size_t n, T *d_out, void *d_temp, cudaStream_t stream)
{
    return gpuh_impl_reduce<gpuh_plus<T>, gpuh_impl_map_square, gpuh_impl_post_sqrt>(
        "gpuh_norm2", d_x, d_x, n, d_out, d_temp, stream);
}


#endif /* GPUH_IMPL_MEMORY_CUH */
