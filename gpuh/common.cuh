/* gpuh/common.cuh - part of gpuh_kernels.cuh: what every file that includes
   it gets, in every mode: the bodies of the device functions a kernel of
   the caller's own may use (gpuh_warp_reduce, gpuh_block_reduce and their
   operators' gpuh_impl_add) and of gpuh_sum_depth. No kernel. Included by
   gpuh_kernels.cuh, never on its own: the public names it defines are declared
   and documented there. */
#ifndef GPUH_IMPL_COMMON_CUH
#define GPUH_IMPL_COMMON_CUH

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

/* A launcher's error as its caller should read it: a launch on a stream that
   is not a live stream of the current device (destroyed, or another
   device's) fails with cudaErrorInvalidResourceHandle, and the detail then
   names the stream and the call `fn`, not the internal kernel whose launch
   met it. Other errors pass as they are. */
static inline cudaError_t gpuh_impl_stream_error(cudaError_t err, const char *fn, cudaStream_t stream)
{
    if (err == cudaErrorInvalidResourceHandle && stream != 0)
        return gpuh_impl_stream_fail(err, fn, stream);
    return err;
}

/* gpuh_sum_depth: see [SECTION: REDUCTIONS]. */
static inline size_t gpuh_sum_depth(size_t n, size_t elem_size)
{
    const size_t w = 16 / elem_size, log2w = w >= 4 ? 2 : w == 2 ? 1 : 0;
    const size_t tiles = gpuh_ceil_div(n, (size_t)GPUH_REDUCE_UNROLL * w * GPUH_REDUCE_BLOCK);
    const size_t first = GPUH_REDUCE_UNROLL * gpuh_ceil_div(tiles, GPUH_REDUCE_MAX_BLOCKS) + log2w + 1 + 8;
    return first + GPUH_REDUCE_UNROLL + log2w + 1 + 8;
}

#endif /* GPUH_IMPL_COMMON_CUH */
