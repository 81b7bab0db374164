/* gpuh/sharded.cuh - part of gpuh_kernels.cuh: the kernels on the sharded
   arrays of gpuh.h's device sets. Included by gpuh_kernels.cuh, never on its
   own: the public names it defines are declared and documented there. */
#ifndef GPUH_IMPL_SHARDED_CUH
#define GPUH_IMPL_SHARDED_CUH


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
    GPUH_NVTX_RANGE("gpuh_sharded_vector_add");
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
    GPUH_NVTX_RANGE(fn);
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
    GPUH_NVTX_RANGEF("gpuh_sharded_gemm %zux%zux%zu", M, N, K);
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

#endif /* GPUH_IMPL_SHARDED_CUH */
