/* gpuh/tc_dispatch.cuh - part of gpuh_kernels.cuh: the tensor-core GEMM's
   checks, aligned copies, tensor maps and launches. Included by
   gpuh_kernels.cuh, never on its own: the public names it defines are declared
   and documented there. */
#ifndef GPUH_IMPL_TC_DISPATCH_CUH
#define GPUH_IMPL_TC_DISPATCH_CUH


/* ===========================================================================
   [SECTION: TENSOR-CORE DISPATCH]
   gpuh_gemm (16-bit) / gpuh_gemm_tf32 → gpuh_impl_tc_gemm: the checks of
   gpuh_gemm, then the decode kernel for the products it takes
   (gpuh_impl_tc_decodes), else the sm_90a kernel where this program holds
   it for the current device, else the mma.sync kernel where it holds that
   one's body, else the CUDA-core kernel.
   =========================================================================== */

/* The CUDA-core kernel over all of C. */
template <typename TIn, typename TOut>
static inline cudaError_t gpuh_impl_tc_simt(const gpuh_impl_tc_args<TIn, TOut> &a, cudaStream_t stream)
{
    const size_t bx = gpuh_ceil_div(a.N, GPUH_IMPL_TC_SIMT_TILE), by = gpuh_ceil_div(a.M, GPUH_IMPL_TC_SIMT_TILE);
    if (by > 65535)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_gemm: C of %zu x %zu needs more than 65535 rows of blocks",
                         a.M, a.N);
    if (bx > 2147483647u) /* a grid's x dimension, which the cast below must not wrap */
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_gemm: C of %zu x %zu needs %zu columns of blocks, more than 2^31 - 1", a.M, a.N, bx);
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
        gpuh_impl_tc_encode_fn f = NULL;
        if (gpuh_impl_cu_entry("cuTensorMapEncodeTiled", 12000, &f) != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky: no sm_90a path */
            f = NULL;
        }
        return f;
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
GPUH_IMPL_SHARED double gpuh_impl_tc_balance_v[GPUH_IMPL_TC_DEVICES]; /* 16-bit flops per byte; 0: not known */
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
   one by one, each a read of the partial from the L2 at one SM's rate),
   fitted on the H200 to every plan of 12 shapes forced in turn, medium
   and big, both tile widths and cluster sizes (bench/results/NOTES.md,
   "Split plans forced one by one"). */
#define GPUH_IMPL_TC_SPLIT_FIXED 2.0
#define GPUH_IMPL_TC_SPLIT_PER_RUN 3.0

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
   where there is a last wave), or by as many as it has slices: an owner
   waits on every cluster between the holder of its unit's first slice
   and itself, so each of them must hold a slice. The time of a cluster,
   in slices of its unit, is returned: a whole unit is ktiles; a share its
   slices, plus GPUH_IMPL_TC_SPLIT_FIXED and GPUH_IMPL_TC_SPLIT_PER_RUN per
   run of the unit it owns. */
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
    const size_t sharers = region * ktiles < (size_t)units ? region * ktiles : (size_t)units;
    const double time = (double)((waves > 0 ? waves - 1 : 0) * ktiles) +
                        (double)gpuh_ceil_div((size_t)region * ktiles, sharers) + GPUH_IMPL_TC_SPLIT_FIXED +
                        GPUH_IMPL_TC_SPLIT_PER_RUN * (double)(1 + gpuh_ceil_div(sharers, (size_t)region));
    if (time < best)
        best = time, w->dp = tiles - region, w->units = (unsigned)sharers;
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

/* The launch of the sm_90a kernel in clusters of `ranks` blocks of
   GPUH_IMPL_TC_WGMMA_THREADS (a launch attribute: __cluster_dims__ would
   fix the size, and not build for the targets without clusters, which
   hold the empty body too). */
static inline cudaLaunchConfig_t gpuh_impl_tc_config(size_t blocks, int ranks, int smem, cudaStream_t stream,
                                                     cudaLaunchAttribute *cluster)
{
    cudaLaunchConfig_t cfg = {};
    cluster->id = cudaLaunchAttributeClusterDimension;
    cluster->val.clusterDim.x = (unsigned)ranks, cluster->val.clusterDim.y = 1, cluster->val.clusterDim.z = 1;
    cfg.gridDim = dim3((unsigned)blocks), cfg.blockDim = dim3(GPUH_IMPL_TC_WGMMA_THREADS);
    cfg.dynamicSmemBytes = (size_t)smem;
    cfg.stream = stream, cfg.attrs = cluster, cfg.numAttrs = 1;
    return cfg;
}

/* The clusters of 2 blocks of the sm_90a kernel that device `dev` runs at
   once, into *clusters: at most half its SMs (one block per SM), fewer
   where a GPC has an odd number of SMs free; kept per device, as the
   occupancy query is slow beside a small product. The kernel instance
   asked is this call's (every instance takes a whole SM). Errors: the
   runtime's, or cudaErrorInvalidConfiguration where no cluster fits. */
GPUH_IMPL_SHARED int gpuh_impl_tc_clusters_v[GPUH_IMPL_TC_DEVICES]; /* 0: not known */
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
   on `units` clusters of `ranks` blocks at most, by plan w (its dp,
   tiles and units: gpuh_impl_tc_plan's; a shared part falls back to whole
   tiles where no scratch can be had for its partials). */
template <typename TIn, typename TOut, bool TA, bool TB, int BN>
static inline cudaError_t gpuh_impl_tc_hopper_run(const gpuh_impl_tc_args<TIn, TOut> &a, int dev, int ranks,
                                                  int units, gpuh_impl_tc_work w, cudaStream_t stream)
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
    if (sizeof(TIn) == 4 && TA) /* the RS form: its fragments leave no registers for the shared part's code */
        w.dp = w.tiles, w.units = 0;
    /* the shared part's partials and flags (one per block, zero: gpuh_impl_gemm_scratch); without them, whole
       tiles only */
    const size_t slots = (size_t)ranks * units, partial_bytes = slots * GPUH_IMPL_TC_BM * BN * sizeof(float);
    void *work = NULL;
    if (w.units > 0) {
        int own = 0;
        if (gpuh_impl_gemm_scratch(&work, &w.flags, &own, partial_bytes, slots, dev, stream) != cudaSuccess) {
            (void)cudaGetLastError(); /* not sticky */
            w.dp = w.tiles, w.units = 0;
        } else {
            w.partial = static_cast<float *>(work);
            if (!own)
                work = NULL; /* the device's, not freed below */
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
    const size_t ktiles = gpuh_ceil_div(a.K, 128 / sizeof(TIn));
    const gpuh_impl_tc_choice c = gpuh_impl_tc_choose(a.M, a.N, ktiles, sms, clusters);
    const int units = c.ranks == 2 ? clusters : sms;
    gpuh_impl_tc_work w;
    (void)gpuh_impl_tc_plan(a.M, a.N, c.ranks, c.bn, ktiles, units, &w);
    return c.bn == GPUH_IMPL_TC_BN
               ? gpuh_impl_tc_hopper_run<TIn, TOut, TA, TB, GPUH_IMPL_TC_BN>(a, dev, c.ranks, units, w, stream)
               : gpuh_impl_tc_hopper_run<TIn, TOut, TA, TB, GPUH_IMPL_TC_BN_NARROW>(a, dev, c.ranks, units, w, stream);
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
/* TF32 (float inputs): a template over C's type, float alone, so that a file
   that does not call gpuh_gemm_tf32 does not compile its kernels. */
template <typename TOut>
static inline cudaError_t gpuh_impl_tc_hopper_ops(const gpuh_impl_tc_args<float, TOut> &a, int dev,
                                                  cudaStream_t stream)
{
    if (a.tb)
        return a.ta ? gpuh_impl_tc_hopper_launch<float, TOut, true, true>(a, dev, stream)
                    : gpuh_impl_tc_hopper_launch<float, TOut, false, true>(a, dev, stream);
    gpuh_impl_tc_args<float, TOut> s = a; /* op_a = N, op_b = N: the roles swapped */
    s.A = a.B, s.B = a.A, s.M = a.N, s.N = a.M, s.lda = a.ldb, s.ldb = a.lda, s.ta = 1, s.tb = 1, s.ct = 1;
    return gpuh_impl_tc_hopper_launch<float, TOut, true, true>(s, dev, stream);
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
            err = gpuh_impl_pack_rows(x, ld, rows, cols, work[o], ld_out, stream);
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
        err = gpuh_impl_pack_rows(x, ld, rows, cols, work[o], ld_out, stream);
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
    GPUH_NVTX_RANGEF("%s %zux%zux%zu", fn, M, N, K);
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
    if (gpuh_impl_tc_decodes(a) && cudaGetDevice(&dev) == cudaSuccess)
        return gpuh_impl_tc_decode(a, dev, stream);
    if (K > 0 && M < most && N < most && K < most && gpuh_impl_tc_hopper_ready<TIn, TOut>() &&
        cudaGetDevice(&dev) == cudaSuccess)
        return gpuh_impl_tc_hopper(a, dev, stream);
    if (K > 0 && gpuh_impl_tc_mma_ready<TIn, TOut>() && cudaGetDevice(&dev) == cudaSuccess)
        return gpuh_impl_tc_mma(a, dev, stream);
#endif
    return gpuh_impl_tc_simt(a, stream);
}

/* The 16-bit types gpuh_gemm takes: A and B bfloat16 or fp16, C float or
   the inputs' type. */
template <typename TIn, typename TOut> struct gpuh_impl_tc_shipped {
    enum {
        in = gpuh_impl_same_type<TIn, __nv_bfloat16>::value || gpuh_impl_same_type<TIn, __half>::value,
        value = in && (gpuh_impl_same_type<TOut, float>::value || gpuh_impl_same_type<TOut, TIn>::value)
    };
};

/* gpuh_gemm (16-bit inputs), gpuh_gemm_tf32: see [SECTION: TENSOR-CORE GEMM]. */
template <typename TIn, typename TOut>
typename gpuh_impl_tc_types<TIn, TOut>::type gpuh_gemm(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K,
                                                       float alpha, const TIn *d_A, size_t lda, const TIn *d_B,
                                                       size_t ldb, float beta, TOut *d_C, size_t ldc,
                                                       cudaStream_t stream)
{
    static_assert(gpuh_impl_tc_shipped<TIn, TOut>::value,
                  "gpuh_gemm on the tensor cores: A and B __nv_bfloat16 or __half, C float or the same type");
    return gpuh_impl_stream_error(
        gpuh_impl_tc_gemm("gpuh_gemm", op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream),
        "gpuh_gemm", stream);
}
template <typename TIn, typename TOut>
typename gpuh_impl_tc_types<TIn, TOut>::type gpuh_gemm(size_t M, size_t N, size_t K, float alpha, const TIn *d_A,
                                                       size_t lda, const TIn *d_B, size_t ldb, float beta,
                                                       TOut *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_gemm<TIn, TOut>(GPUH_OP_N, GPUH_OP_N, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
}

template <typename T>
cudaError_t gpuh_gemm_tf32(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha, const T *d_A,
                           size_t lda, const T *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                           cudaStream_t stream)
{
    static_assert(gpuh_impl_same_type<T, float>::value, "gpuh_gemm_tf32: A and B are float");
    return gpuh_impl_stream_error(gpuh_impl_tc_gemm("gpuh_gemm_tf32", op_a, op_b, M, N, K, alpha, d_A, lda, d_B,
                                                    ldb, beta, d_C, ldc, stream),
                                  "gpuh_gemm_tf32", stream);
}
template <typename T>
cudaError_t gpuh_gemm_tf32(size_t M, size_t N, size_t K, float alpha, const T *d_A, size_t lda, const T *d_B,
                           size_t ldb, float beta, float *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_gemm_tf32<T>(GPUH_OP_N, GPUH_OP_N, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
}


#endif /* GPUH_IMPL_TC_DISPATCH_CUH */
