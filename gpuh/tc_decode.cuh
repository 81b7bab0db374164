/* gpuh/tc_decode.cuh - part of gpuh_kernels.cuh: the 16-bit GEMM's kernel
   for a C of few rows against a B stored as rows of K (op_b = T: a decoding
   step's batch against weights as PyTorch's Linear keeps them). Included by
   gpuh_kernels.cuh, never on its own: the public names it serves are
   declared and documented there. */
#ifndef GPUH_IMPL_TC_DECODE_CUH
#define GPUH_IMPL_TC_DECODE_CUH

/* ===========================================================================
   [SECTION: TENSOR-CORE DECODE]
   C (M × N, M ≤ GPUH_IMPL_TC_DECODE_MAX_M) = alpha·op(A)·op(B) + beta·C
   with op_b = T: B is stored N × K, and reading its N·K elements once is
   the whole cost (a C of 64 rows needs 64 flops per byte of B, below what
   the tensor cores run at the memory's rate), so the kernel is built to
   keep device memory busy, with mma.sync doing the arithmetic on the side.
   Where this program holds the sm_90a kernel for the device, the same
   product runs in the form of gpuh/tc_decode_sm90.cuh instead (TMA and
   wgmma: the same tiles, parts and sum), which keeps more of B in flight.

   Cᵀ = B·op(A)ᵀ as m16n8k16 products: 16 of B's rows are the instruction's
   A operand, 8 of op(A)'s rows its B operand. A warp streams 16 rows of B
   over its part of K, 64 elements of each row per step (a whole 128-byte
   line, so that each line is asked of memory at once): lane (g, q) loads
   32 bytes of rows g and g + 8 at k + 16q, and 32 bytes of row 8j + g of
   op(A) at the same k for each j. Those are the fragments of four products
   over the step's 64 k taken in another order (the same for both
   operands, so the sum is the product's): in product 2h, the
   instruction's k 2q, 2q + 1 are the step's 16q + 8h, 16q + 8h + 1 and its
   2q + 8, 2q + 9 the step's 16q + 8h + 2, 16q + 8h + 3; in product 2h + 1,
   16q + 8h + 4 to 16q + 8h + 7 the same way. Each lane keeps
   GPUH_IMPL_TC_DECODE_AHEAD steps of B's loads in flight.

   A block's GPUH_IMPL_TC_DECODE_WARPS warps take consecutive rows of N (a
   tile) on the same part of K, and share that part of op(A), which goes
   through shared memory a chunk at a time (GPUH_IMPL_TC_DECODE_AHEAD steps,
   copied by cp.async into one of two buffers while the block multiplies
   from the other), so that a step's wait is only ever for B, and the shared
   memory a block takes does not grow with K. Where the tiles alone leave
   room for more resident blocks, K is cut in parts (grid y) until the
   launch fills the machine once (the blocks per SM asked of the occupancy
   calculator). A block writes its part of Cᵀ as float partials, and the
   last of a tile's blocks to finish (a counter per tile, which it leaves
   at zero) adds the parts in their order, so C is bitwise the same on
   every call. op(A) is read in place where it is A (op_a = N) with 16-byte
   aligned rows; otherwise it is first copied so (it is M × K: small beside
   B).

   Idea: split-K ("serial split-K" in CUTLASS, "flash-decoding" for
   attention); the fragment layouts are the PTX ISA's for m16n8k16.
   =========================================================================== */

/* The most rows of C it takes: 8 products of 8 rows, the largest instance
   (instances of 1, 2, 4 and 8 products cover M by whole products; the
   sm_90a form's wgmma takes 64 at most). */
#define GPUH_IMPL_TC_DECODE_MAX_M 64
#define GPUH_IMPL_TC_DECODE_WARPS 4  /* per block, 16 rows of N each */
#define GPUH_IMPL_TC_DECODE_ROWS (16 * GPUH_IMPL_TC_DECODE_WARPS) /* rows of N per tile */
/* Steps of B (64 k, 2 KB per warp) in flight per warp: 48 registers a
   thread; also the steps of a chunk of op(A) in shared memory. */
#define GPUH_IMPL_TC_DECODE_AHEAD 3
/* A chunk of op(A) in shared memory: 64·AHEAD elements of each row, the
   rows 8 elements longer, so that the fragments 8 lanes load at once (16
   bytes at 32-byte steps from each of 8 rows) fall in distinct banks. */
#define GPUH_IMPL_TC_DECODE_CHUNK (64 * GPUH_IMPL_TC_DECODE_AHEAD)
#define GPUH_IMPL_TC_DECODE_LD (GPUH_IMPL_TC_DECODE_CHUNK + 8)
/* The fewest steps of 64 k in a part: a chunk, so that the loads ahead pay. */
#define GPUH_IMPL_TC_DECODE_MIN_STEPS GPUH_IMPL_TC_DECODE_AHEAD
/* The dynamic shared memory of the MT-product instance, in bytes: two
   chunks of MT·8 rows of op(A). */
#define GPUH_IMPL_TC_DECODE_SMEM(TIn, MT) (2 * 8 * (MT) * GPUH_IMPL_TC_DECODE_LD * sizeof(TIn))

/* A launch's parts of K: `parts` of k_part elements (a multiple of 64), the
   last shorter; with parts > 1, partial (parts × tiles × M ×
   GPUH_IMPL_TC_DECODE_ROWS floats: gpuh_impl_tc_decode_part) and count
   (one per tile, zero at the launch). */
struct gpuh_impl_tc_decode_work {
    float *partial;
    unsigned *count;
    size_t k_part;
    unsigned parts;
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* Lane (g, q)'s 32 bytes of B's rows g and g + 8 of the warp at step k:
   elements k + 16q + [0, 16) as two 16-byte halves (lo and hi point at
   the rows' element 16q), zeros past N or past the part's end ke (a
   multiple of 8, so each half is wholly inside or outside). */
template <typename TIn>
static __device__ __forceinline__ void gpuh_impl_tc_decode_b(const TIn *lo, const TIn *hi, bool lo_in, bool hi_in,
                                                             int q, size_t k, size_t ke, uint4 (&b_lo)[2],
                                                             uint4 (&b_hi)[2])
{
    const uint4 zero = make_uint4(0u, 0u, 0u, 0u);
#pragma unroll
    for (int h = 0; h < 2; ++h) { /* read once: streamed past the L1, first out of the L2 */
        const bool k_in = k + 16 * (size_t)q + 8 * h < ke;
        b_lo[h] = lo_in && k_in ? __ldcs(reinterpret_cast<const uint4 *>(lo + k + 8 * h)) : zero;
        b_hi[h] = hi_in && k_in ? __ldcs(reinterpret_cast<const uint4 *>(hi + k + 8 * h)) : zero;
    }
}

/* The block's copy of op(A)'s chunk at k0 (MT·8 rows of
   GPUH_IMPL_TC_DECODE_CHUNK elements) into s (rows of
   GPUH_IMPL_TC_DECODE_LD), in 16-byte pieces: cp.async where the piece is
   inside M and the part (ke), zeros stored where it is not. */
template <typename TIn, int MT>
static __device__ __forceinline__ void gpuh_impl_tc_decode_a(const TIn *A, size_t lda, size_t M, size_t k0,
                                                             size_t ke, TIn *s)
{
    enum { PIECES = GPUH_IMPL_TC_DECODE_CHUNK / 8 }; /* per row */
#pragma unroll 1 /* unrolled, the pieces' addresses would be kept in registers across the steps */
    for (int e = threadIdx.x; e < 8 * MT * PIECES; e += 32 * GPUH_IMPL_TC_DECODE_WARPS) {
        const int m = e / PIECES, c = 8 * (e % PIECES);
        TIn *const dst = s + m * GPUH_IMPL_TC_DECODE_LD + c;
        if ((size_t)m < M && k0 + c < ke)
            gpuh_impl_cp_async16(dst, A + m * lda + k0 + c);
        else
            *reinterpret_cast<uint4 *>(dst) = make_uint4(0u, 0u, 0u, 0u);
    }
    gpuh_impl_cp_async_commit();
}

/* Where part `part` of tile `tile` keeps its partial: M rows of the
   tile's GPUH_IMPL_TC_DECODE_ROWS columns of C (row m, column n - the
   tile's first), floats; a part's tiles one after another. */
static __device__ __forceinline__ float *gpuh_impl_tc_decode_part(const gpuh_impl_tc_decode_work &w, size_t M,
                                                                  size_t tile, size_t part)
{
    return w.partial + (part * gridDim.x + tile) * M * GPUH_IMPL_TC_DECODE_ROWS;
}

/* A block's partial is in place (gpuh_impl_tc_decode_part): the block
   counts it on its tile's counter, and the last of the tile's blocks to do
   so (which leaves the counter at zero) adds the parts' partials in their
   order, so that C is bitwise the same on every call, then stores C. Four
   columns to a load, Q loads of each of 8 parts in flight a thread: the
   sum is the launch's last step, and its time is the rounds of loads one
   block makes (Q = 2 where the registers allow). Every thread of the block
   calls it (its barriers are the block's). */
template <int Q, typename TIn, typename TOut>
static __device__ __forceinline__ void gpuh_impl_tc_decode_sum(const gpuh_impl_tc_args<TIn, TOut> &p,
                                                               const gpuh_impl_tc_decode_work &w, size_t tile)
{
    __shared__ bool last;
    __threadfence(); /* this block's partial is seen by every block before its count is */
    __syncthreads();
    if (threadIdx.x == 0) {
        last = atomicAdd(&w.count[tile], 1u) == w.parts - 1;
        if (last) /* every part has counted: zero again for the next launch (gpuh_impl_gemm_scratch) */
            w.count[tile] = 0;
    }
    __syncthreads();
    if (!last)
        return;
    __threadfence(); /* the other parts' partials, counted before, are read after */
    enum { BATCH = 8, QUADS = GPUH_IMPL_TC_DECODE_ROWS / 4 }; /* parts asked for at once; loads of 4 in a row */
    const size_t t0 = tile * GPUH_IMPL_TC_DECODE_ROWS, quads = p.M * QUADS, stride = gridDim.x * quads;
    const float4 *const first = reinterpret_cast<const float4 *>(gpuh_impl_tc_decode_part(w, p.M, tile, 0));
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (size_t e0 = threadIdx.x; e0 < quads; e0 += Q * blockDim.x) {
        float4 sum[Q];
#pragma unroll
        for (int h = 0; h < Q; ++h)
            sum[h] = zero;
        for (unsigned s0 = 0; s0 < w.parts; s0 += BATCH) { /* in the parts' order: the same bits on every call */
            float4 x[Q][BATCH];
#pragma unroll
            for (int h = 0; h < Q; ++h)
#pragma unroll
                for (unsigned u = 0; u < BATCH; ++u) {
                    const size_t e = e0 + h * blockDim.x;
                    x[h][u] = e < quads && s0 + u < w.parts ? __ldcg(first + (s0 + u) * stride + e) : zero;
                }
#pragma unroll
            for (int h = 0; h < Q; ++h)
#pragma unroll
                for (unsigned u = 0; u < BATCH; ++u)
                    if (s0 + u < w.parts)
                        sum[h].x += x[h][u].x, sum[h].y += x[h][u].y, sum[h].z += x[h][u].z, sum[h].w += x[h][u].w;
        }
#pragma unroll
        for (int h = 0; h < Q; ++h) {
            const size_t e = e0 + h * blockDim.x, m = e / QUADS, n = t0 + 4 * (e % QUADS);
            const float v[4] = {sum[h].x, sum[h].y, sum[h].z, sum[h].w};
            if (e < quads)
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    if (n + i < p.N) {
                        TOut *dst = p.C + m * p.ldc + n + i;
                        const float x = p.alpha * v[i];
                        gpuh_impl_tc_out(dst, p.beta == 0.0f ? x : fmaf(p.beta, gpuh_impl_tc_c(dst), x));
                    }
        }
    }
}
#endif

/* One block: a tile of GPUH_IMPL_TC_DECODE_ROWS rows of N (blockIdx.x) over
   one part of K (blockIdx.y); MT products of 8 rows of op(A) per 16 of K,
   MT·8 ≥ M. p.A is op(A), rows of K (p.lda a multiple of 8, 16-byte
   aligned); p.B is stored N × K, the same. Dynamic shared memory:
   GPUH_IMPL_TC_DECODE_SMEM(TIn, MT) bytes. Blocks per SM asked of the
   compiler: 4, 3 and 2 as MT grows, the most each gets without spilling
   (tools/check_budget.py holds them there). */
template <typename TIn, typename TOut, int MT>
__global__ void __launch_bounds__(32 * GPUH_IMPL_TC_DECODE_WARPS, MT <= 2 ? 4 : MT == 4 ? 3 : 2)
    gpuh_tc_decode_kernel(const gpuh_impl_tc_args<TIn, TOut> p, const gpuh_impl_tc_decode_work w)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    /* E: accumulators per product, two where the products alone are too
       few for one to never wait for the one before it */
    enum { AHEAD = GPUH_IMPL_TC_DECODE_AHEAD, LD = GPUH_IMPL_TC_DECODE_LD, E = MT <= 2 ? 2 : 1 };
    extern __shared__ uint4 gpuh_impl_tc_decode_smem[];
    TIn *const s_a = reinterpret_cast<TIn *>(gpuh_impl_tc_decode_smem); /* two chunks of MT·8 rows of LD */
    const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
    const size_t tile = blockIdx.x, part = blockIdx.y;
    const size_t n0 = tile * GPUH_IMPL_TC_DECODE_ROWS + 16 * (threadIdx.x / 32);
    const size_t kb = part * w.k_part, ke = p.K - kb < w.k_part ? p.K : kb + w.k_part;
    const int steps = (int)((ke - kb + 63) / 64);
    const bool lo_in = n0 + g < p.N, hi_in = n0 + g + 8 < p.N;
    const TIn *const b_lo = p.B + (lo_in ? n0 + g : 0) * p.ldb + 16 * q;
    const TIn *const b_hi = p.B + (hi_in ? n0 + g + 8 : 0) * p.ldb + 16 * q;
    uint4 lo[AHEAD][2], hi[AHEAD][2];
#pragma unroll
    for (int u = 0; u < AHEAD; ++u)
        gpuh_impl_tc_decode_b(b_lo, b_hi, lo_in, hi_in, q, kb + 64 * (size_t)u, ke, lo[u], hi[u]);
    gpuh_impl_tc_decode_a<TIn, MT>(p.A, p.lda, p.M, kb, ke, s_a);

    float acc[MT][E][4]; /* [product][accumulator][fragment] */
#pragma unroll
    for (int j = 0; j < MT; ++j)
#pragma unroll
        for (int e = 0; e < E; ++e)
            acc[j][e][0] = acc[j][e][1] = acc[j][e][2] = acc[j][e][3] = 0.0f;
    for (int s0 = 0; s0 < steps; s0 += AHEAD) {
        /* this chunk is in (every thread's copies waited for, then the
           barrier), and the other buffer is free: its chunk's steps are
           done by every warp */
        gpuh_impl_cp_async_wait<0>();
        __syncthreads();
        const int buffer = s0 / AHEAD % 2;
        const TIn *const chunk = s_a + buffer * (8 * MT * LD);
        if (s0 + AHEAD < steps)
            gpuh_impl_tc_decode_a<TIn, MT>(p.A, p.lda, p.M, kb + 64 * (size_t)(s0 + AHEAD), ke,
                                           s_a + (1 - buffer) * (8 * MT * LD));
#pragma unroll
        for (int u = 0; u < AHEAD; ++u) {
            const int s = s0 + u;
            unsigned a[4][4]; /* the four instructions' fragments of B's rows */
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                a[2 * h][0] = lo[u][h].x, a[2 * h][1] = hi[u][h].x, a[2 * h][2] = lo[u][h].y, a[2 * h][3] = hi[u][h].y;
                a[2 * h + 1][0] = lo[u][h].z, a[2 * h + 1][1] = hi[u][h].z;
                a[2 * h + 1][2] = lo[u][h].w, a[2 * h + 1][3] = hi[u][h].w;
            }
            /* this slot's next step, AHEAD on (zeros past the part's end) */
            gpuh_impl_tc_decode_b(b_lo, b_hi, lo_in, hi_in, q, kb + 64 * (size_t)(s + AHEAD), ke, lo[u], hi[u]);
            if (s < steps)
#pragma unroll
                for (int j = 0; j < MT; ++j)
#pragma unroll
                    for (int h = 0; h < 2; ++h) {
                        const uint4 v =
                            *reinterpret_cast<const uint4 *>(chunk + (8 * j + g) * LD + 64 * u + 16 * q + 8 * h);
                        const unsigned f0[2] = {v.x, v.y}, f1[2] = {v.z, v.w};
                        gpuh_impl_mma(acc[j][0], a[2 * h], f0, TIn());
                        gpuh_impl_mma(acc[j][E - 1], a[2 * h + 1], f1, TIn());
                    }
        }
    }
    if (E > 1)
#pragma unroll
        for (int j = 0; j < MT; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                acc[j][0][v] += acc[j][E - 1][v];

    /* acc[j][0]: Cᵀ[n0 + g + 8h][8j + 2q + e] at acc[j][0][2h + e] */
    if (w.parts == 1) {
#pragma unroll
        for (int j = 0; j < MT; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v) {
                const size_t m = 8 * (size_t)j + 2 * q + (v & 1), n = n0 + g + 8 * (v >> 1);
                if (m < p.M && n < p.N) {
                    TOut *dst = p.C + m * p.ldc + n;
                    const float x = p.alpha * acc[j][0][v];
                    gpuh_impl_tc_out(dst, p.beta == 0.0f ? x : fmaf(p.beta, gpuh_impl_tc_c(dst), x));
                }
            }
        return;
    }
    float *const mine = gpuh_impl_tc_decode_part(w, p.M, tile, part);
#pragma unroll
    for (int j = 0; j < MT; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) {
            const size_t m = 8 * (size_t)j + 2 * q + (v & 1), n = n0 + g + 8 * (v >> 1);
            if (m < p.M && n < p.N)
                mine[m * GPUH_IMPL_TC_DECODE_ROWS + (n - tile * GPUH_IMPL_TC_DECODE_ROWS)] = acc[j][0][v];
        }
    gpuh_impl_tc_decode_sum<MT <= 2 ? 1 : 2>(p, w, tile); /* 4 blocks per SM leave no room for 2 */
#else
    (void)p, (void)w; /* below sm_80: gpuh_impl_tc_decode_blocks says so to the launcher */
#endif
}

#ifndef GPUH_SIM
/* The CUDA-core kernel over all of C (gpuh/tc_dispatch.cuh): where the copy
   of op(A) finds no room. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_simt(const gpuh_impl_tc_args<TIn, TOut> &a, cudaStream_t stream);
/* The sm_90a form (gpuh/tc_decode_sm90.cuh): the blocks of the instance
   for M rows that fit on one SM of the current device (0: this program
   holds no sm_90a body for it), and its launch. */
template <typename TIn, typename TOut> static inline int gpuh_impl_tc_decode90_blocks(size_t M);
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_decode90(const gpuh_impl_tc_args<TIn, TOut> &a,
                                                const gpuh_impl_tc_decode_work &w, cudaStream_t stream);

/* The instances: 1, 2, 4 and 8 products of 8 rows; the one for M rows is
   the first that covers it. */
#define GPUH_IMPL_TC_DECODE_INSTANCES 4
static inline int gpuh_impl_tc_decode_instance(size_t M) { return M <= 8 ? 0 : M <= 16 ? 1 : M <= 32 ? 2 : 3; }

/* The blocks of kernel i of n (kernels[j]: threads a block, smem[j] bytes
   of dynamic shared memory) that fit on one SM of the current device, 0
   where there() says this program holds no body of them for the device or
   a query fails. The first ask on a device asks for all n and lets each
   take its shared memory (above the 48 KB a launch gets unasked); the
   answers are kept in known (GPUH_IMPL_TC_DEVICES rows of n; 0: not asked,
   -1: none), as the queries cost more host time than a small product takes
   on the GPU. */
static inline int gpuh_impl_tc_resident(signed char *known, int n, int i, bool (*there)(void),
                                        const void *const *kernels, const int *smem, int threads)
{
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= GPUH_IMPL_TC_DEVICES) {
        (void)cudaGetLastError(); /* not sticky */
        return 0;
    }
    signed char *const row = known + (size_t)dev * n;
    GPUH_IMPL_LOCK();
    signed char blocks = row[i];
    GPUH_IMPL_UNLOCK();
    if (blocks == 0) {
        enum { MOST = 8 }; /* kernels a table may hold */
        signed char found[MOST];
        memset(found, -1, sizeof found);
        if (n <= MOST && there())
            for (int j = 0; j < n; ++j) {
                int b = 0;
                if (cudaFuncSetAttribute(kernels[j], cudaFuncAttributeMaxDynamicSharedMemorySize, smem[j]) ==
                        cudaSuccess &&
                    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kernels[j], threads, (size_t)smem[j]) ==
                        cudaSuccess &&
                    b > 0)
                    found[j] = (signed char)(b < 127 ? b : 127);
            }
        (void)cudaGetLastError(); /* not sticky: a failed query leaves the kernel unused */
        GPUH_IMPL_LOCK();
        memcpy(row, found, (size_t)n);
        GPUH_IMPL_UNLOCK();
        blocks = found[i];
    }
    return blocks > 0 ? blocks : 0;
}

/* Whether this program holds the decode kernel's body for the current
   device: its image comes from PTX or code for sm_80 or later. */
template <typename TIn, typename TOut> static inline bool gpuh_impl_tc_decode_there(void)
{
    cudaFuncAttributes attr;
    return cudaFuncGetAttributes(&attr, gpuh_tc_decode_kernel<TIn, TOut, 1>) == cudaSuccess && attr.ptxVersion >= 80;
}

/* The blocks of instance i (gpuh_impl_tc_decode_instance) that fit on one
   SM of the current device (gpuh_impl_tc_resident), per type pair (each
   its own image). */
template <typename TIn, typename TOut> static inline int gpuh_impl_tc_decode_blocks(int i)
{
    static signed char known[GPUH_IMPL_TC_DEVICES][GPUH_IMPL_TC_DECODE_INSTANCES];
    const void *const kernels[GPUH_IMPL_TC_DECODE_INSTANCES] = {
        reinterpret_cast<const void *>(gpuh_tc_decode_kernel<TIn, TOut, 1>),
        reinterpret_cast<const void *>(gpuh_tc_decode_kernel<TIn, TOut, 2>),
        reinterpret_cast<const void *>(gpuh_tc_decode_kernel<TIn, TOut, 4>),
        reinterpret_cast<const void *>(gpuh_tc_decode_kernel<TIn, TOut, 8>)};
    const int smem[GPUH_IMPL_TC_DECODE_INSTANCES] = {
        (int)GPUH_IMPL_TC_DECODE_SMEM(TIn, 1), (int)GPUH_IMPL_TC_DECODE_SMEM(TIn, 2),
        (int)GPUH_IMPL_TC_DECODE_SMEM(TIn, 4), (int)GPUH_IMPL_TC_DECODE_SMEM(TIn, 8)};
    return gpuh_impl_tc_resident(&known[0][0], GPUH_IMPL_TC_DECODE_INSTANCES, i, gpuh_impl_tc_decode_there<TIn, TOut>,
                                 kernels, smem, 32 * GPUH_IMPL_TC_DECODE_WARPS);
}

/* Whether a product goes to the decode kernel: this program holds its body
   for the current device, op_b = T with B's rows 16-byte aligned,
   M ≤ GPUH_IMPL_TC_DECODE_MAX_M, K a multiple of 8 (whole 16-byte pieces
   of each row), the tiles within a grid's x. */
template <typename TIn, typename TOut> static inline bool gpuh_impl_tc_decodes(const gpuh_impl_tc_args<TIn, TOut> &a)
{
    return a.tb && !a.ct && a.M <= GPUH_IMPL_TC_DECODE_MAX_M && a.K > 0 && a.K % 8 == 0 &&
           (uintptr_t)a.B % 16 == 0 && a.ldb % 8 == 0 &&
           gpuh_ceil_div(a.N, (size_t)GPUH_IMPL_TC_DECODE_ROWS) < 0x7fffffffu &&
           gpuh_impl_tc_decode_blocks<TIn, TOut>(gpuh_impl_tc_decode_instance(a.M)) > 0;
}

template <typename TIn, typename TOut, int MT>
static inline cudaError_t gpuh_impl_tc_decode_launch(const gpuh_impl_tc_args<TIn, TOut> &a,
                                                     const gpuh_impl_tc_decode_work &w, cudaStream_t stream)
{
    const dim3 grid((unsigned)gpuh_ceil_div(a.N, (size_t)GPUH_IMPL_TC_DECODE_ROWS), w.parts);
    return GPUH_LAUNCH((gpuh_tc_decode_kernel<TIn, TOut, MT>), grid, 32 * GPUH_IMPL_TC_DECODE_WARPS,
                       GPUH_IMPL_TC_DECODE_SMEM(TIn, MT), stream, a, w);
}

/* The decode kernel on a product gpuh_impl_tc_decodes takes: op(A) copied
   to rows of K where it is not so already, K cut in parts (above), then
   the launch of the instance that covers M, in the sm_90a form where this
   program holds it (and N and K are below 2^31). Where no scratch is left for
   the parts' partials (gpuh_impl_gemm_scratch), K in one part; where no
   workspace is left for op(A)'s copy, the CUDA-core kernel. */
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
    const size_t tma_most = (size_t)1 << 31; /* the sm_90a form's TMA coordinates are 32-bit signed */
    const int instance = gpuh_impl_tc_decode_instance(a.M);
    const int sm90_blocks = a.N < tma_most && a.K < tma_most ? gpuh_impl_tc_decode90_blocks<TIn, TOut>(a.M) : 0;
    const size_t tiles = gpuh_ceil_div(a.N, (size_t)GPUH_IMPL_TC_DECODE_ROWS), steps = gpuh_ceil_div(a.K, (size_t)64);
    /* as many parts as fill the resident blocks once, none shorter than
       the fewest steps */
    const size_t resident =
        (size_t)sms * (size_t)(sm90_blocks > 0 ? sm90_blocks : gpuh_impl_tc_decode_blocks<TIn, TOut>(instance));
    size_t parts = resident / tiles, most = steps / GPUH_IMPL_TC_DECODE_MIN_STEPS;
    parts = parts < most ? parts : most;
    parts = parts < 65535 ? parts : 65535; /* a grid's y */
    gpuh_impl_tc_decode_work w = {NULL, NULL, 64 * steps, 1};
    if (parts > 1 && err == cudaSuccess) {
        const size_t k_part = 64 * gpuh_ceil_div(steps, parts), n_parts = gpuh_ceil_div(a.K, k_part);
        int own = 0;
        const size_t bytes = n_parts * tiles * a.M * GPUH_IMPL_TC_DECODE_ROWS * sizeof(float);
        if (gpuh_impl_gemm_scratch(&work, &w.count, &own, bytes, tiles, dev, stream) != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky: K in one part */
            work = NULL;
        } else {
            w.partial = static_cast<float *>(work);
            w.k_part = k_part, w.parts = (unsigned)n_parts;
            if (!own)
                work = NULL; /* the device's, not freed below */
        }
    }
    static_assert(GPUH_IMPL_TC_DECODE_MAX_M <= 64, "the launches below cover 8 products of 8 rows at most");
    if (err == cudaSuccess && sm90_blocks > 0)
        err = gpuh_impl_tc_decode90(a, w, stream);
    else if (err == cudaSuccess)
        err = instance == 0   ? gpuh_impl_tc_decode_launch<TIn, TOut, 1>(a, w, stream)
              : instance == 1 ? gpuh_impl_tc_decode_launch<TIn, TOut, 2>(a, w, stream)
              : instance == 2 ? gpuh_impl_tc_decode_launch<TIn, TOut, 4>(a, w, stream)
                              : gpuh_impl_tc_decode_launch<TIn, TOut, 8>(a, w, stream);
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
