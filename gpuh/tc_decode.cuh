/* gpuh/tc_decode.cuh - part of gpuh_kernels.cuh: the 16-bit GEMM's kernel
   for a C of few rows against a B stored as rows of K (op_b = T: a decoding
   step's batch against weights as PyTorch's Linear keeps them). Included by
   gpuh_kernels.cuh, never on its own: the public names it serves are
   declared and documented there. */
#ifndef GPUH_IMPL_TC_DECODE_CUH
#define GPUH_IMPL_TC_DECODE_CUH

/* ===========================================================================
   [SECTION: TENSOR-CORE DECODE]
   C (M × N, M ≤ GPUH_IMPL_TC_DECODE_MAX_M) = alpha·op(A)·op(B) + beta·C with
   op_b = T: B is stored N × K, and reading its N·K elements once is the
   whole cost (a 16-row C needs 32 flops per byte of B, far below what the
   tensor cores run at the memory's rate), so the kernel is built to keep
   device memory busy, with mma.sync doing the arithmetic on the side.

   Cᵀ = B·op(A)ᵀ as m16n8k16 products: 16 of B's rows are the instruction's
   A operand, 8 of op(A)'s rows its B operand. A warp streams 16 rows of B
   over its part of K, 32 elements of each row per step: lane (g, q) loads
   16 bytes of rows g and g + 8 at k + 8q, and 16 bytes of row 8j + g of
   op(A) at the same k for each j. Those are the fragments of two products
   over the step's 32 k taken in another order (the same for both
   operands, so the sum is the product's): in the first, the instruction's
   k 2q, 2q + 1 are the step's 8q, 8q + 1 and its 2q + 8, 2q + 9 the step's
   8q + 2, 8q + 3; in the second, 8q + 4 to 8q + 7 the same way. Each lane
   keeps GPUH_IMPL_TC_DECODE_AHEAD steps of B's loads in flight.

   A block's GPUH_IMPL_TC_DECODE_WARPS warps take consecutive rows of N (a
   tile), on the same part of K, so that they read the same op(A) through
   the L1. Where the tiles alone leave the SMs short of blocks, K is cut in
   parts (grid y): a block writes its part of Cᵀ as float partials, and the
   last of a tile's blocks to finish (a counter per tile) adds the parts in
   their order, so C is bitwise the same on every call. op(A) is read in
   place where it is A (op_a = N) with 16-byte aligned rows; otherwise it is
   first copied so (it is M × K: small beside B).

   Idea: split-K ("serial split-K" in CUTLASS, "flash-decoding" for
   attention); the fragment layouts are the PTX ISA's for m16n8k16.
   =========================================================================== */

/* The most rows of C it takes: where, on the H200, it is faster than the
   sm_90a kernel on the same products (bench/gemm_calls.cu's decode family,
   one seed, each way: ahead at 1 row, even at 13 to 26, behind from 31;
   bench/results/NOTES.md). */
#define GPUH_IMPL_TC_DECODE_MAX_M 16
#define GPUH_IMPL_TC_DECODE_WARPS 4  /* per block, 16 rows of N each */
#define GPUH_IMPL_TC_DECODE_ROWS (16 * GPUH_IMPL_TC_DECODE_WARPS) /* rows of N per tile */
/* Steps of B (32 k, 1 KB per warp) in flight per warp. */
#define GPUH_IMPL_TC_DECODE_AHEAD 8
/* The blocks per SM the parts of K aim at, so that a launch has blocks
   waiting where fewer fit at once (the instances take up to about 160
   registers a thread: 3 blocks of 128 threads per SM); 3 blocks keep
   96 KB of B in flight, over the 30-odd KB that the H200's bandwidth
   times its latency needs. */
#define GPUH_IMPL_TC_DECODE_BLOCKS_PER_SM 8
/* The fewest steps of 32 k in a part: enough for the loads ahead to pay. */
#define GPUH_IMPL_TC_DECODE_MIN_STEPS 8

/* A launch's parts of K: `parts` of k_part elements (a multiple of 32), the
   last shorter; with parts > 1, partial (parts × M × N floats) and count
   (one per tile, zero at the launch). */
struct gpuh_impl_tc_decode_work {
    float *partial;
    unsigned *count;
    size_t k_part;
    unsigned parts;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* Lane (g, q)'s 16 bytes of B's rows g and g + 8 of the warp at step k (its
   8 elements from k + 8q), zeros past N or past K's end ke. */
template <typename TIn>
static __device__ __forceinline__ void gpuh_impl_tc_decode_b(const TIn *lo, const TIn *hi, bool lo_in, bool hi_in,
                                                             size_t k, size_t ke, uint4 &b_lo, uint4 &b_hi)
{
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
    /* read once: streamed past the L1, first out of the L2 */
    b_lo = lo_in && k < ke ? __ldcs(reinterpret_cast<const uint4 *>(lo + k)) : zero;
    b_hi = hi_in && k < ke ? __ldcs(reinterpret_cast<const uint4 *>(hi + k)) : zero;
}
#endif

/* One block: a tile of GPUH_IMPL_TC_DECODE_ROWS rows of N (blockIdx.x) over
   one part of K (blockIdx.y); MT products of 8 rows of op(A) per 16 of K,
   MT·8 ≥ M. p.A is op(A), rows of K (p.lda a multiple of 8, 16-byte
   aligned); p.B is stored N × K, the same. */
template <typename TIn, typename TOut, int MT>
__global__ void __launch_bounds__(32 * GPUH_IMPL_TC_DECODE_WARPS)
    gpuh_tc_decode_kernel(const gpuh_impl_tc_args<TIn, TOut> p, const gpuh_impl_tc_decode_work w)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    enum { AHEAD = GPUH_IMPL_TC_DECODE_AHEAD };
    const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
    const size_t tile = blockIdx.x, part = blockIdx.y;
    const size_t n0 = tile * GPUH_IMPL_TC_DECODE_ROWS + 16 * (threadIdx.x / 32);
    const size_t kb = part * w.k_part, ke = p.K - kb < w.k_part ? p.K : kb + w.k_part;
    const bool lo_in = n0 + g < p.N, hi_in = n0 + g + 8 < p.N;
    const TIn *const b_lo = p.B + (lo_in ? n0 + g : 0) * p.ldb + 8 * q;
    const TIn *const b_hi = p.B + (hi_in ? n0 + g + 8 : 0) * p.ldb + 8 * q;
    float acc[MT][4];
#pragma unroll
    for (int j = 0; j < MT; ++j)
        acc[j][0] = acc[j][1] = acc[j][2] = acc[j][3] = 0.0f;

    const int steps = (int)((ke - kb + 31) / 32);
    uint4 lo[AHEAD], hi[AHEAD];
#pragma unroll
    for (int u = 0; u < AHEAD; ++u)
        gpuh_impl_tc_decode_b(b_lo, b_hi, lo_in, hi_in, kb + 32 * (size_t)u, ke, lo[u], hi[u]);
    for (int s0 = 0; s0 < steps; s0 += AHEAD)
#pragma unroll
        for (int u = 0; u < AHEAD; ++u) {
            const size_t k = kb + 32 * (size_t)(s0 + u);
            const unsigned a0[4] = {lo[u].x, hi[u].x, lo[u].y, hi[u].y}, a1[4] = {lo[u].z, hi[u].z, lo[u].w, hi[u].w};
            /* this slot's next step, AHEAD on (zeros past the part's end) */
            gpuh_impl_tc_decode_b(b_lo, b_hi, lo_in, hi_in, k + 32 * AHEAD, ke, lo[u], hi[u]);
            const bool k_in = k + 8 * q < ke; /* else this lane's op(A) is zeros, as its B is */
#pragma unroll
            for (int j = 0; j < MT; ++j) {
                const size_t m = 8 * (size_t)j + g;
                const uint4 v = m < p.M && k_in ? __ldg(reinterpret_cast<const uint4 *>(p.A + m * p.lda + k + 8 * q))
                                                : make_uint4(0u, 0u, 0u, 0u);
                const unsigned f0[2] = {v.x, v.y}, f1[2] = {v.z, v.w};
                gpuh_impl_mma(acc[j], a0, f0, TIn());
                gpuh_impl_mma(acc[j], a1, f1, TIn());
            }
        }

    /* acc[j]: Cᵀ[n0 + g + 8h][8j + 2q + e] at acc[j][2h + e] */
    if (w.parts == 1) {
#pragma unroll
        for (int j = 0; j < MT; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const size_t m = 8 * (size_t)j + 2 * q + (v & 1), n = n0 + g + 8 * (v >> 1);
                if (m < p.M && n < p.N) {
                    TOut *dst = p.C + m * p.ldc + n;
                    const float x = p.alpha * acc[j][v];
                    gpuh_impl_tc_out(dst, p.beta == 0.0f ? x : fmaf(p.beta, gpuh_impl_tc_c(dst), x));
                }
            }
        return;
    }
    float *const mine = w.partial + part * p.M * p.N;
#pragma unroll
    for (int j = 0; j < MT; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) {
            const size_t m = 8 * (size_t)j + 2 * q + (v & 1), n = n0 + g + 8 * (v >> 1);
            if (m < p.M && n < p.N)
                mine[m * p.N + n] = acc[j][v];
        }
    __shared__ bool last;
    __threadfence(); /* this block's partial is seen by every block before its count is */
    __syncthreads();
    if (threadIdx.x == 0)
        last = atomicAdd(&w.count[tile], 1u) == w.parts - 1;
    __syncthreads();
    if (!last)
        return;
    __threadfence(); /* the other parts' partials, counted before, are read after */
    const size_t t0 = tile * GPUH_IMPL_TC_DECODE_ROWS;
    for (size_t e = threadIdx.x; e < p.M * GPUH_IMPL_TC_DECODE_ROWS; e += blockDim.x) {
        const size_t m = e / GPUH_IMPL_TC_DECODE_ROWS, n = t0 + e % GPUH_IMPL_TC_DECODE_ROWS;
        if (n >= p.N)
            continue;
        float sum = 0.0f;
        for (unsigned s = 0; s < w.parts; ++s) /* in the parts' order: the same bits on every call */
            sum += __ldcg(w.partial + ((size_t)s * p.M + m) * p.N + n);
        TOut *dst = p.C + m * p.ldc + n;
        const float x = p.alpha * sum;
        gpuh_impl_tc_out(dst, p.beta == 0.0f ? x : fmaf(p.beta, gpuh_impl_tc_c(dst), x));
    }
#else
    (void)p, (void)w; /* below sm_80: gpuh_impl_tc_decode_ready says so to the launcher */
#endif
}

#ifndef GPUH_SIM
/* The CUDA-core kernel over all of C (gpuh/tc_dispatch.cuh): where the copy
   of op(A) finds no room. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_simt(const gpuh_impl_tc_args<TIn, TOut> &a, cudaStream_t stream);

/* 1 where this program holds the decode kernel's body for the current
   device: its image comes from PTX or code for sm_80 or later. Kept per
   device (and per type pair, each its own image): the query costs more
   host time than a small product takes on the GPU. */
template <typename TIn, typename TOut> static inline bool gpuh_impl_tc_decode_ready(void)
{
    static signed char known[GPUH_IMPL_TC_DEVICES]; /* 0: not asked; 1: ready; -1: not */
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= GPUH_IMPL_TC_DEVICES) {
        (void)cudaGetLastError(); /* not sticky */
        return false;
    }
    GPUH_IMPL_LOCK();
    signed char ready = known[dev];
    GPUH_IMPL_UNLOCK();
    if (ready == 0) {
        cudaFuncAttributes attr;
        if (cudaFuncGetAttributes(&attr, gpuh_tc_decode_kernel<TIn, TOut, 1>) != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky */
            ready = -1;
        } else
            ready = attr.ptxVersion >= 80 ? 1 : -1;
        GPUH_IMPL_LOCK();
        known[dev] = ready;
        GPUH_IMPL_UNLOCK();
    }
    return ready > 0;
}

/* Whether a product goes to the decode kernel: this program holds its body
   for the current device, op_b = T with B's rows 16-byte aligned,
   M ≤ GPUH_IMPL_TC_DECODE_MAX_M, K a multiple of 8 (whole 16-byte pieces of
   each row), the tiles within a grid's x. */
template <typename TIn, typename TOut> static inline bool gpuh_impl_tc_decodes(const gpuh_impl_tc_args<TIn, TOut> &a)
{
    return a.tb && !a.ct && a.M <= GPUH_IMPL_TC_DECODE_MAX_M && a.K > 0 && a.K % 8 == 0 &&
           (uintptr_t)a.B % 16 == 0 && a.ldb % 8 == 0 &&
           gpuh_ceil_div(a.N, (size_t)GPUH_IMPL_TC_DECODE_ROWS) < 0x7fffffffu && gpuh_impl_tc_decode_ready<TIn, TOut>();
}

template <typename TIn, typename TOut, int MT>
static inline cudaError_t gpuh_impl_tc_decode_launch(const gpuh_impl_tc_args<TIn, TOut> &a,
                                                     const gpuh_impl_tc_decode_work &w, cudaStream_t stream)
{
    const dim3 grid((unsigned)gpuh_ceil_div(a.N, (size_t)GPUH_IMPL_TC_DECODE_ROWS), w.parts);
    return GPUH_LAUNCH((gpuh_tc_decode_kernel<TIn, TOut, MT>), grid, 32 * GPUH_IMPL_TC_DECODE_WARPS, 0, stream, a, w);
}

/* The decode kernel on a product gpuh_impl_tc_decodes takes: op(A) copied
   to rows of K where it is not so already, K cut in parts where the tiles
   leave SMs idle (each part at least GPUH_IMPL_TC_DECODE_MIN_STEPS steps),
   then the launch for the products of 8 rows that cover M. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_decode(gpuh_impl_tc_args<TIn, TOut> a, int dev, cudaStream_t stream)
{
    int sms = 0;
    cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_gemm: no SM count for device %d: %s", dev, cudaGetErrorString(err));
    void *copy = NULL, *work = NULL;
    if (a.ta || (uintptr_t)a.A % 16 != 0 || a.lda % 8 != 0) { /* op(A) as M rows of K, 16-byte aligned */
        const size_t ld = gpuh_ceil_div(a.K, (size_t)8) * 8;
        if (gpuh_impl_gemm_workspace(&copy, a.M * ld * sizeof(TIn), dev, stream) != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky: no room, the CUDA-core kernel on the matrices as given */
            return gpuh_impl_tc_simt(a, stream);
        }
        if (a.ta) /* A stored K × M */
            err = GPUH_LAUNCH(gpuh_tc_transpose_kernel<TIn>,
                              dim3((unsigned)gpuh_ceil_div(a.M, (size_t)32), (unsigned)gpuh_ceil_div(a.K, (size_t)32)),
                              dim3(32, 8), 0, stream, a.A, a.lda, a.K, a.M, static_cast<TIn *>(copy), ld);
        else
            err = gpuh_impl_pack_rows(a.A, a.lda, a.M, a.K, copy, ld, stream);
        a.A = static_cast<const TIn *>(copy), a.lda = ld, a.ta = 0;
    }
    const size_t tiles = gpuh_ceil_div(a.N, (size_t)GPUH_IMPL_TC_DECODE_ROWS), steps = gpuh_ceil_div(a.K, (size_t)32);
    const size_t want = (size_t)sms * GPUH_IMPL_TC_DECODE_BLOCKS_PER_SM;
    size_t parts = gpuh_ceil_div(want, tiles), most = steps / GPUH_IMPL_TC_DECODE_MIN_STEPS;
    most = most < 65535 ? most : 65535; /* a grid's y */
    parts = parts < most ? parts : most;
    gpuh_impl_tc_decode_work w = {NULL, NULL, 32 * steps, 1};
    if (parts > 1 && err == cudaSuccess) {
        const size_t k_part = 32 * gpuh_ceil_div(steps, parts), partial_bytes = gpuh_ceil_div(a.K, k_part) * a.M * a.N * 4;
        if (gpuh_impl_gemm_workspace(&work, partial_bytes + tiles * sizeof(unsigned), dev, stream) != cudaSuccess ||
            cudaMemsetAsync(static_cast<char *>(work) + partial_bytes, 0, tiles * sizeof(unsigned), stream) !=
                cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky: one part */
            if (work != NULL)
                (void)cudaFreeAsync(work, stream);
            work = NULL;
        } else {
            w.partial = static_cast<float *>(work);
            w.count = reinterpret_cast<unsigned *>(static_cast<char *>(work) + partial_bytes);
            w.k_part = k_part, w.parts = (unsigned)gpuh_ceil_div(a.K, k_part);
        }
    }
    static_assert(GPUH_IMPL_TC_DECODE_MAX_M <= 16, "the launches below cover 2 products of 8 rows at most");
    if (err == cudaSuccess)
        err = a.M <= 8 ? gpuh_impl_tc_decode_launch<TIn, TOut, 1>(a, w, stream)
                       : gpuh_impl_tc_decode_launch<TIn, TOut, 2>(a, w, stream);
    void *const held[2] = {copy, work};
    for (int i = 0; i < 2; ++i)
        if (held[i] != NULL) {
            const cudaError_t freed = cudaFreeAsync(held[i], stream);
            err = err != cudaSuccess ? err : freed;
        }
    return err;
}
/* TF32 (float inputs) has no decode kernel: nothing of it is compiled for
   gpuh_gemm_tf32. */
template <typename TOut> static inline bool gpuh_impl_tc_decodes(const gpuh_impl_tc_args<float, TOut> &)
{
    return false;
}
template <typename TOut>
static inline cudaError_t gpuh_impl_tc_decode(const gpuh_impl_tc_args<float, TOut> &, int, cudaStream_t)
{
    return gpuh_fail(cudaErrorNotSupported, "gpuh_gemm_tf32: no decode kernel"); /* not reached: decodes() is false */
}
#endif /* GPUH_SIM */

#endif /* GPUH_IMPL_TC_DECODE_CUH */
