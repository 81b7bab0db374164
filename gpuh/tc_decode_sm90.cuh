/* gpuh/tc_decode_sm90.cuh - part of gpuh_kernels.cuh: the decode kernel's
   sm_90a form (TMA and wgmma), for a C of few rows against a B stored as
   rows of K (op_b = T). Included by gpuh_kernels.cuh, never on its own: the
   public names it serves are declared and documented there. */
#ifndef GPUH_IMPL_TC_DECODE_SM90_CUH
#define GPUH_IMPL_TC_DECODE_SM90_CUH

#ifndef GPUH_SIM
/* ===========================================================================
   [SECTION: TENSOR-CORE DECODE, SM_90A]
   The same product as the decode kernel (gpuh/tc_decode.cuh: C of M ≤ 64
   rows, op_b = T, the cost is reading B once), the same tiles (64 rows of
   N), the same parts of K (grid y) and the same fixed-order sum of the
   parts' partials; what differs is how B reaches the tensor cores. Here
   TMA copies each slice (64 rows of B × 64 of K, 8 KB, and op(A)'s NT × 64)
   into a ring of stages in shared memory, so the bytes in flight are the
   ring's, not registers': an SM holds two blocks of
   GPUH_IMPL_TC_DECODE90_RING bytes each, where the mma.sync form keeps
   48 registers a thread of B in flight and, at 64 rows of C, fits only 8
   warps per SM. One warpgroup multiplies, Cᵀ (64 × NT) += B's slice ·
   op(A)'s slice ᵀ, four m64nNTk16 wgmmas a slice, both operands K-major
   from the 128-byte swizzle; one more warp, one thread of it, issues the
   copies. NT, the rows of op(A) a block takes, is 16, 32 or 64: the
   instance covering M (fewer rows cost the same bytes of B, and the
   zero-filled rows of op(A) cost nothing but shared memory).
   Idea: the PTX ISA (wgmma, TMA, mbarrier); the skinny-N kernels cuBLAS
   runs on Hopper for such products (64-row tiles of the weight matrix,
   the batch as wgmma's N, seen under ncu).
   =========================================================================== */

#define GPUH_IMPL_TC_DECODE90_ROWS 64 /* rows of N per tile: wgmma's M */
static_assert(GPUH_IMPL_TC_DECODE90_ROWS == GPUH_IMPL_TC_DECODE_ROWS,
              "both forms use the same tiles, counters and partials");
/* Threads: warp group 0 multiplies, warp 4 copies. */
#define GPUH_IMPL_TC_DECODE90_THREADS (GPUH_IMPL_TC_WARPGROUP + 32)
/* The ring's bytes per block: two blocks fit an SM's 228 KB with room for
   the mbarriers and the alignment, so that one block's last slices and
   sum overlap the other's stream. */
#define GPUH_IMPL_TC_DECODE90_RING (96 * 1024)
/* A stage: B's slice (64 rows of 128 bytes), then op(A)'s (NT rows). */
#define GPUH_IMPL_TC_DECODE90_B_BYTES (GPUH_IMPL_TC_DECODE90_ROWS * GPUH_IMPL_TC_ROW_BYTES)
#define GPUH_IMPL_TC_DECODE90_STAGE_BYTES(nt) (GPUH_IMPL_TC_DECODE90_B_BYTES + (nt) * GPUH_IMPL_TC_ROW_BYTES)
#define GPUH_IMPL_TC_DECODE90_STAGES(nt) (GPUH_IMPL_TC_DECODE90_RING / GPUH_IMPL_TC_DECODE90_STAGE_BYTES(nt))
/* the stages, their 2 mbarriers each, and room to align the stages to the swizzle's period */
#define GPUH_IMPL_TC_DECODE90_SMEM(nt)                                                                       \
    (GPUH_IMPL_TC_DECODE90_STAGES(nt) * (GPUH_IMPL_TC_DECODE90_STAGE_BYTES(nt) + 2 * GPUH_IMPL_TC_MBAR_BYTES) + \
     GPUH_IMPL_TC_SWIZZLE_BYTES)
/* The instances: NT = 16, 32 and 64 rows of op(A); the one for M rows is
   the first that covers it. */
#define GPUH_IMPL_TC_DECODE90_INSTANCES 3
static inline int gpuh_impl_tc_decode90_instance(size_t M) { return M <= 16 ? 0 : M <= 32 ? 1 : 2; }

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* d (64 × NT, NT / 2 accumulators a thread) += A·B, m64nNTk16
   (gpuh/tc_sm90.cuh's gpuh_impl_wgmma, here with both operands K-major:
   TA false, TB true). */
#define GPUH_IMPL_WGMMA_D8 "{%0, %1, %2, %3, %4, %5, %6, %7}"
#define GPUH_IMPL_WGMMA_D8_OPS(d) \
    "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
#define GPUH_IMPL_WGMMA_D16 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}"
#define GPUH_IMPL_WGMMA_D16_OPS(d) \
    GPUH_IMPL_WGMMA_D8_OPS(d), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), \
    "+f"(d[14]), "+f"(d[15])
#define GPUH_IMPL_WGMMA_D32 \
    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
    "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}"
#define GPUH_IMPL_WGMMA_D32_OPS(d) \
    GPUH_IMPL_WGMMA_D16_OPS(d), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), \
    "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), \
    "+f"(d[30]), "+f"(d[31])
GPUH_IMPL_WGMMA_16BIT(8, "m64n16k16", __nv_bfloat16, "bf16", GPUH_IMPL_WGMMA_D8, GPUH_IMPL_WGMMA_D8_OPS,
                      ", %8, %9, 1, 1, 1, %10, %11;\n")
GPUH_IMPL_WGMMA_16BIT(8, "m64n16k16", __half, "f16", GPUH_IMPL_WGMMA_D8, GPUH_IMPL_WGMMA_D8_OPS,
                      ", %8, %9, 1, 1, 1, %10, %11;\n")
GPUH_IMPL_WGMMA_16BIT(16, "m64n32k16", __nv_bfloat16, "bf16", GPUH_IMPL_WGMMA_D16, GPUH_IMPL_WGMMA_D16_OPS,
                      ", %16, %17, 1, 1, 1, %18, %19;\n")
GPUH_IMPL_WGMMA_16BIT(16, "m64n32k16", __half, "f16", GPUH_IMPL_WGMMA_D16, GPUH_IMPL_WGMMA_D16_OPS,
                      ", %16, %17, 1, 1, 1, %18, %19;\n")
GPUH_IMPL_WGMMA_16BIT(32, "m64n64k16", __nv_bfloat16, "bf16", GPUH_IMPL_WGMMA_D32, GPUH_IMPL_WGMMA_D32_OPS,
                      ", %32, %33, 1, 1, 1, %34, %35;\n")
GPUH_IMPL_WGMMA_16BIT(32, "m64n64k16", __half, "f16", GPUH_IMPL_WGMMA_D32, GPUH_IMPL_WGMMA_D32_OPS,
                      ", %32, %33, 1, 1, 1, %34, %35;\n")
#undef GPUH_IMPL_WGMMA_16BIT
#undef GPUH_IMPL_WGMMA_D8
#undef GPUH_IMPL_WGMMA_D8_OPS
#undef GPUH_IMPL_WGMMA_D16
#undef GPUH_IMPL_WGMMA_D16_OPS
#undef GPUH_IMPL_WGMMA_D32
#undef GPUH_IMPL_WGMMA_D32_OPS
#endif

/* One block: tile blockIdx.x (64 rows of N) over part blockIdx.y of K,
   NT ≥ M rows of op(A). map_b: B (N × K) in boxes of 64 (K) × 64 (N);
   map_a: op(A) (M × K) in boxes of 64 (K) × NT (M); both with the 128-byte
   swizzle. Dynamic shared memory GPUH_IMPL_TC_DECODE90_SMEM(NT).
   The copier waits on a stage's "empty" (its 4 multiplying warps' lane 0
   arrive once they are done with its last round), then starts its two
   copies, which land on its "full" with the stage's bytes; the
   multipliers wait on "full", issue the slice's wgmmas and hand the
   stage before back. */
template <typename TIn, typename TOut, int NT>
__global__ void __launch_bounds__(GPUH_IMPL_TC_DECODE90_THREADS, 2)
    gpuh_tc_decode_wgmma_kernel(const __grid_constant__ CUtensorMap map_b, const __grid_constant__ CUtensorMap map_a,
                                const gpuh_impl_tc_args<TIn, TOut> p, const gpuh_impl_tc_decode_work w)
{
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
    enum { STAGES = GPUH_IMPL_TC_DECODE90_STAGES(NT), STAGE = GPUH_IMPL_TC_DECODE90_STAGE_BYTES(NT) };
    extern __shared__ unsigned char s_raw[];
    const unsigned base = ((unsigned)__cvta_generic_to_shared(s_raw) + (GPUH_IMPL_TC_SWIZZLE_BYTES - 1u)) &
                          ~(GPUH_IMPL_TC_SWIZZLE_BYTES - 1u);
    const unsigned full0 = base + STAGES * STAGE, empty0 = full0 + STAGES * GPUH_IMPL_TC_MBAR_BYTES;
    const unsigned tile = blockIdx.x, part = blockIdx.y;
    const int n0 = (int)(tile * GPUH_IMPL_TC_DECODE90_ROWS);
    const size_t kb = part * w.k_part, ke = p.K - kb < w.k_part ? p.K : kb + w.k_part;
    const int slices = (int)((ke - kb + 63) / 64);
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(full0 + GPUH_IMPL_TC_MBAR_BYTES * s));
            asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(empty0 + GPUH_IMPL_TC_MBAR_BYTES * s),
                         "r"(GPUH_IMPL_TC_WARPGROUP / 32));
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    __syncthreads(); /* the mbarriers are ready before either role uses them */
    float d[NT / 2];
#pragma unroll
    for (int i = 0; i < NT / 2; ++i)
        d[i] = 0.0f;
    if (threadIdx.x >= GPUH_IMPL_TC_WARPGROUP) { /* the copier */
        if (threadIdx.x == GPUH_IMPL_TC_WARPGROUP)
            for (int j = 0; j < slices; ++j) {
                const unsigned s = (unsigned)j % STAGES, stage = base + s * STAGE;
                const unsigned full = full0 + GPUH_IMPL_TC_MBAR_BYTES * s;
                const int k0 = (int)kb + 64 * j;
                if (j >= STAGES) /* the stage's last round is done with */
                    gpuh_impl_mbar_wait(empty0 + GPUH_IMPL_TC_MBAR_BYTES * s, (unsigned)(j / STAGES - 1) & 1u);
                asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(full), "r"(STAGE)
                             : "memory");
                gpuh_impl_tma_load(stage, &map_b, k0, n0, full);
                gpuh_impl_tma_load(stage + GPUH_IMPL_TC_DECODE90_B_BYTES, &map_a, k0, 0, full);
            }
        __syncwarp();
    } else { /* the multipliers */
        for (int j = 0; j < slices; ++j) {
            const unsigned s = (unsigned)j % STAGES, stage = base + s * STAGE;
            gpuh_impl_mbar_wait(full0 + GPUH_IMPL_TC_MBAR_BYTES * s, (unsigned)(j / STAGES) & 1u);
            asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
            for (int kk = 0; kk < GPUH_IMPL_TC_SLICE_STEPS; ++kk)
                gpuh_impl_wgmma<false, true>(
                    d, gpuh_impl_tc_desc(stage + kk * GPUH_IMPL_TC_STEP_K_MAJOR, GPUH_IMPL_TC_LEAD_UNUSED),
                    gpuh_impl_tc_desc(stage + GPUH_IMPL_TC_DECODE90_B_BYTES + kk * GPUH_IMPL_TC_STEP_K_MAJOR,
                                      GPUH_IMPL_TC_LEAD_UNUSED),
                    TIn());
            asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
            asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
            if (j > 0 && threadIdx.x % 32 == 0) /* the previous slice's group is retired */
                asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(
                                 empty0 + GPUH_IMPL_TC_MBAR_BYTES * ((unsigned)(j + STAGES - 1) % STAGES))
                             : "memory");
        }
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    }
    /* d[4j + v]: Cᵀ[n0 + 16·warp + g + 8(v / 2)][8j + 2q + v % 2] */
    const int lane = threadIdx.x % 32, g = lane / 4, q = lane % 4;
    const size_t nw = (size_t)n0 + 16 * (threadIdx.x / 32) + g;
    const bool mult = threadIdx.x < GPUH_IMPL_TC_WARPGROUP;
    if (w.parts == 1) {
        if (mult)
#pragma unroll
            for (int i = 0; i < NT / 2; ++i) {
                const size_t m = 8 * (size_t)(i / 4) + 2 * q + (i & 1), n = nw + 8 * (i >> 1 & 1);
                if (m < p.M && n < p.N) {
                    TOut *dst = p.C + m * p.ldc + n;
                    const float x = p.alpha * d[i];
                    gpuh_impl_tc_out(dst, p.beta == 0.0f ? x : fmaf(p.beta, gpuh_impl_tc_c(dst), x));
                }
            }
        return;
    }
    float *const mine = gpuh_impl_tc_decode_part(w, p.M, tile, part);
    if (mult)
#pragma unroll
        for (int i = 0; i < NT / 2; ++i) {
            const size_t m = 8 * (size_t)(i / 4) + 2 * q + (i & 1), n = nw + 8 * (i >> 1 & 1);
            if (m < p.M && n < p.N)
                mine[m * GPUH_IMPL_TC_DECODE90_ROWS + (n - (size_t)n0)] = d[i];
        }
    gpuh_impl_tc_decode_sum<2>(p, w, tile);
#else
    (void)map_b, (void)map_a, (void)p, (void)w; /* other builds: gpuh_impl_tc_decode90_blocks says so */
#endif
}

/* Whether this program holds the sm_90a kernel's body for the current
   device; TMA tensor maps (gpuh/tc_dispatch.cuh). */
template <typename TIn, typename TOut> static inline bool gpuh_impl_tc_hopper_ready(void);
static inline bool gpuh_impl_tc_map(CUtensorMap *map, CUtensorMapDataType type, const void *ptr, size_t inner,
                                    size_t outer, size_t ld_bytes, unsigned box_inner, unsigned box_outer);
static inline CUtensorMapDataType gpuh_impl_tc_type(const __nv_bfloat16 *);
static inline CUtensorMapDataType gpuh_impl_tc_type(const __half *);

/* The blocks of the instance for M rows (gpuh_impl_tc_decode90_instance)
   that fit on one SM of the current device (gpuh_impl_tc_resident), 0
   where this program holds no sm_90a body for it (the form is compiled
   beside the sm_90a kernel, in the same images); per type pair. */
template <typename TIn, typename TOut> static inline int gpuh_impl_tc_decode90_blocks(size_t M)
{
    static signed char known[GPUH_IMPL_TC_DEVICES][GPUH_IMPL_TC_DECODE90_INSTANCES];
    const void *const kernels[GPUH_IMPL_TC_DECODE90_INSTANCES] = {
        reinterpret_cast<const void *>(gpuh_tc_decode_wgmma_kernel<TIn, TOut, 16>),
        reinterpret_cast<const void *>(gpuh_tc_decode_wgmma_kernel<TIn, TOut, 32>),
        reinterpret_cast<const void *>(gpuh_tc_decode_wgmma_kernel<TIn, TOut, 64>)};
    const int smem[GPUH_IMPL_TC_DECODE90_INSTANCES] = {
        GPUH_IMPL_TC_DECODE90_SMEM(16), GPUH_IMPL_TC_DECODE90_SMEM(32), GPUH_IMPL_TC_DECODE90_SMEM(64)};
    return gpuh_impl_tc_resident(&known[0][0], GPUH_IMPL_TC_DECODE90_INSTANCES, gpuh_impl_tc_decode90_instance(M),
                                 gpuh_impl_tc_hopper_ready<TIn, TOut>, kernels, smem, GPUH_IMPL_TC_DECODE90_THREADS);
}

/* The launch of instance NT on the parts of w: op(A) is M rows of K,
   16-byte aligned (gpuh_impl_tc_decode sees to it), N and K below 2^31.
   Errors: cudaErrorInvalidValue where a tensor map cannot be made, the
   launch's. */
template <typename TIn, typename TOut, int NT>
static inline cudaError_t gpuh_impl_tc_decode90_launch(const gpuh_impl_tc_args<TIn, TOut> &a,
                                                       const gpuh_impl_tc_decode_work &w, cudaStream_t stream)
{
    const CUtensorMapDataType type = gpuh_impl_tc_type(a.A);
    CUtensorMap map_a, map_b;
    if (!gpuh_impl_tc_map(&map_b, type, a.B, a.K, a.N, a.ldb * sizeof(TIn), 64, GPUH_IMPL_TC_DECODE90_ROWS) ||
        !gpuh_impl_tc_map(&map_a, type, a.A, a.K, a.M, a.lda * sizeof(TIn), 64, NT))
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_gemm: no TMA tensor map for A or B (M %zu, N %zu, K %zu)", a.M,
                         a.N, a.K);
    const dim3 grid((unsigned)gpuh_ceil_div(a.N, (size_t)GPUH_IMPL_TC_DECODE90_ROWS), w.parts);
    return GPUH_LAUNCH((gpuh_tc_decode_wgmma_kernel<TIn, TOut, NT>), grid, GPUH_IMPL_TC_DECODE90_THREADS,
                       GPUH_IMPL_TC_DECODE90_SMEM(NT), stream, map_b, map_a, a, w);
}
/* The launch of the instance for M rows (gpuh_impl_tc_decode90_instance). */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_decode90(const gpuh_impl_tc_args<TIn, TOut> &a,
                                                const gpuh_impl_tc_decode_work &w, cudaStream_t stream)
{
    const int i = gpuh_impl_tc_decode90_instance(a.M);
    return i == 0   ? gpuh_impl_tc_decode90_launch<TIn, TOut, 16>(a, w, stream)
           : i == 1 ? gpuh_impl_tc_decode90_launch<TIn, TOut, 32>(a, w, stream)
                    : gpuh_impl_tc_decode90_launch<TIn, TOut, 64>(a, w, stream);
}
#endif /* GPUH_SIM */

#endif /* GPUH_IMPL_TC_DECODE_SM90_CUH */
