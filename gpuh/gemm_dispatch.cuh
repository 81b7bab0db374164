/* gpuh/gemm_dispatch.cuh - part of gpuh_kernels.cuh: the GEMM argument checks,
   cost model, choice of cover and launches. Included by gpuh_kernels.cuh,
   never on its own: the public names it defines are declared and documented
   there. */
#ifndef GPUH_IMPL_GEMM_DISPATCH_CUH
#define GPUH_IMPL_GEMM_DISPATCH_CUH

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

/* Launches one configuration's kernel over the parts in `a` (its ops and
   load width in a.ta, a.tb, a.vec), `blocks` blocks: one instance per op
   pair, the ops being template parameters of both kernels (their shared
   slices' layout and loads depend on them) and the load width a run-time
   flag. */
template <typename T, typename Cfg, bool TA, bool TB> static inline cudaError_t gpuh_impl_simt_go(
    const gpuh_impl_gemm_args<T> &a, unsigned blocks, cudaStream_t stream)
{
    const int smem = (int)(Cfg::SMEM_ELEMS * sizeof(T));
    const cudaError_t err = gpuh_impl_smem_opt_in(gpuh_gemm_simt_kernel<T, Cfg, TA, TB>, smem);
    if (err != cudaSuccess)
        return err;
    return GPUH_LAUNCH((gpuh_gemm_simt_kernel<T, Cfg, TA, TB>), blocks, Cfg::THREADS, smem, stream, a);
}
template <typename Cfg, bool TA, bool TB> static inline cudaError_t gpuh_impl_dmma_go(
    const gpuh_impl_gemm_args<double> &a, unsigned blocks, cudaStream_t stream)
{
    const int smem = (int)gpuh_impl_dmma_layout<Cfg, TA, TB>::SMEM;
    const cudaError_t err = gpuh_impl_smem_opt_in(gpuh_gemm_dmma_kernel<Cfg, TA, TB>, smem);
    if (err != cudaSuccess)
        return err;
    return GPUH_LAUNCH((gpuh_gemm_dmma_kernel<Cfg, TA, TB>), blocks, Cfg::THREADS, smem, stream, a);
}
template <typename T, int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int LANES_M_, int MIN_BLOCKS_,
          int ALIGNED_>
cudaError_t gpuh_impl_gemm_launch(
    gpuh_gemm_simt_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, LANES_M_, MIN_BLOCKS_, ALIGNED_>,
    const gpuh_impl_gemm_args<T> &a, unsigned blocks, cudaStream_t stream)
{
    typedef gpuh_gemm_simt_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, LANES_M_, MIN_BLOCKS_, ALIGNED_> Cfg;
    return a.ta ? (a.tb ? gpuh_impl_simt_go<T, Cfg, true, true>(a, blocks, stream)
                        : gpuh_impl_simt_go<T, Cfg, true, false>(a, blocks, stream))
                : (a.tb ? gpuh_impl_simt_go<T, Cfg, false, true>(a, blocks, stream)
                        : gpuh_impl_simt_go<T, Cfg, false, false>(a, blocks, stream));
}
template <int BM_, int BN_, int BK_, int WARPS_M_, int WARPS_N_, int STAGES_, int MIN_BLOCKS_, int MMA_K_, int FRAGS_>
cudaError_t gpuh_impl_gemm_launch(
    gpuh_gemm_dmma_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, STAGES_, MIN_BLOCKS_, MMA_K_, FRAGS_>,
    const gpuh_impl_gemm_args<double> &a, unsigned blocks, cudaStream_t stream)
{
    typedef gpuh_gemm_dmma_config<BM_, BN_, BK_, WARPS_M_, WARPS_N_, STAGES_, MIN_BLOCKS_, MMA_K_, FRAGS_> Cfg;
    return a.ta ? (a.tb ? gpuh_impl_dmma_go<Cfg, true, true>(a, blocks, stream)
                        : gpuh_impl_dmma_go<Cfg, true, false>(a, blocks, stream))
                : (a.tb ? gpuh_impl_dmma_go<Cfg, false, true>(a, blocks, stream)
                        : gpuh_impl_dmma_go<Cfg, false, false>(a, blocks, stream));
}

/* 1 when this program holds gpuh_gemm_dmma_kernel<Cfg> built for sm_90 or
   later for the current device (the default build's sm_90 code on an H100 or
   H200); 0 where the driver would run the sm_75 PTX, whose body is empty,
   and on the CPU simulator, whose kernels carry no GPU code (ptxVersion 0). */
template <typename Cfg> static inline int gpuh_impl_dmma_ready(void)
{
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, gpuh_gemm_dmma_kernel<Cfg, false, false>) != cudaSuccess) {
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

/* The unsigned integer of `bytes` bytes (2, 4 or 8), for moving elements
   as bits. */
template <int bytes> struct gpuh_impl_bits;
template <> struct gpuh_impl_bits<2> { typedef unsigned short type; };
template <> struct gpuh_impl_bits<4> { typedef unsigned type; };
template <> struct gpuh_impl_bits<8> { typedef unsigned long long type; };

/* Launches gpuh_pack_rows_kernel for elements of T (2, 4 or 8 bytes) on
   `stream`: rows × cols of in (row stride ld_in elements) into out (16-
   byte aligned, row stride ld_out elements, a multiple of 16 bytes). */
template <typename T>
static inline cudaError_t gpuh_impl_pack_rows(const T *in, size_t ld_in, size_t rows, size_t cols, void *out,
                                              size_t ld_out, cudaStream_t stream)
{
    typedef typename gpuh_impl_bits<sizeof(T)>::type U;
    if (rows == 0 || cols == 0)
        return cudaSuccess;
    const size_t words = gpuh_ceil_div(cols, 16 / sizeof(T));
    const unsigned block = words >= 256 ? 256u : (unsigned)gpuh_ceil_div(words, 32) * 32;
    const dim3 grid((unsigned)gpuh_ceil_div(words, block), (unsigned)(rows < 65535 ? rows : 65535));
    return GPUH_LAUNCH(gpuh_pack_rows_kernel<U>, grid, block, 0, stream, reinterpret_cast<const U *>(in), ld_in,
                       rows, cols, static_cast<U *>(out), ld_out);
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

#ifndef GPUH_SIM
#include <cuda.h> /* the driver API's types: its calls come through cudart, nothing is linked */
/* Split-K's scratch: `counters` unsigned counters that are zero, and
   `bytes` of device memory beside them (16-byte aligned), for a kernel
   whose blocks count or flag their way to the block that adds the parts
   (kept in `*memory`), and that leaves every counter zero again (the block
   that reads a counter last resets it). Each device keeps one such scratch
   of GPUH_IMPL_GEMM_SCRATCH_SIZE bytes (more where the first call needs
   more, up to GPUH_IMPL_GEMM_SCRATCH_MAX): GPUH_IMPL_GEMM_SCRATCH_COUNTERS
   counters first, which no call's memory ever overlaps, then the memory;
   zeroed when made and never freed or moved until the program exits, lent
   to the stream that asked first (known by cudaStreamGetId, unique over
   the process's life) in the context it was made in (one that
   cudaDeviceReset destroyed is forgotten, its memory gone with it, and a
   scratch made anew). That stream's calls run one after another, so each
   finds the counters zero, with nothing to allocate or clear before its
   launch (each costs the host a few microseconds, which a small product
   waits for on the GPU). Any other stream, a stream being captured into a
   graph (whose launches may run later, beside others), a call while the
   scratch is being made, or a larger need gets scratch of its own:
   gpuh_impl_gemm_workspace, then cudaMemsetAsync of its counters. *own is
   1 where *memory is the caller's (freed with cudaFreeAsync on `stream`;
   the counters are inside it), 0 where both are the device's. Errors: the
   runtime's, from the allocation or the memset (nothing is held then).
   Idea: CUTLASS's split-K semaphores, in a workspace its caller zeroes. */
#define GPUH_IMPL_GEMM_SCRATCH_SIZE ((size_t)16 << 20)
#define GPUH_IMPL_GEMM_SCRATCH_MAX ((size_t)64 << 20)
#define GPUH_IMPL_GEMM_SCRATCH_COUNTERS 16384
struct gpuh_impl_gemm_scratch_entry {
    unsigned long long context_id; /* the context it was made in (gpuh_impl_context_id) */
    unsigned long long stream_id;  /* the stream it is lent to; 0: not lent */
    void *memory;                  /* NULL: not made */
    size_t size;                   /* bytes, counters included */
    int making;                    /* 1 while a call makes it */
};
GPUH_IMPL_SHARED gpuh_impl_gemm_scratch_entry gpuh_impl_gemm_scratch_v[GPUH_IMPL_GEMM_POOLS];
GPUH_IMPL_SHARED int gpuh_impl_gemm_scratch_exit_v; /* 1 once the release at exit is registered */
/* The current context's ID (cuCtxGetId, through cudart's driver entry
   points: unique over the process's life, so the context cudaDeviceReset
   leaves behind has another than the one it destroyed, with every
   allocation in it), 0 where the driver cannot say. */
static inline unsigned long long gpuh_impl_context_id(void)
{
    typedef CUresult(CUDAAPI * current_fn)(CUcontext *);
    typedef CUresult(CUDAAPI * id_fn)(CUcontext, unsigned long long *);
    static current_fn current;
    static id_fn get_id;
    static int looked;
    GPUH_IMPL_LOCK();
    if (!looked) {
        looked = 1;
        if (gpuh_impl_cu_entry("cuCtxGetCurrent", 12000, &current) != cudaSuccess ||
            gpuh_impl_cu_entry("cuCtxGetId", 12000, &get_id) != cudaSuccess)
            current = NULL, get_id = NULL;
        (void)cudaGetLastError(); /* not sticky */
    }
    GPUH_IMPL_UNLOCK();
    CUcontext ctx = NULL;
    unsigned long long id = 0;
    if (current == NULL || get_id == NULL || current(&ctx) != CUDA_SUCCESS || ctx == NULL ||
        get_id(ctx, &id) != CUDA_SUCCESS)
        return 0;
    return id;
}
/* At exit (registered when the first scratch is made, after the runtime
   started, so it runs before the runtime's own teardown): each device's
   scratch freed, so that nothing gpuh made outlives the program
   (compute-sanitizer's leak check counts it otherwise). The entries are
   taken under the lock and freed after it: the context's ID takes the
   lock too (it is not recursive). */
static inline void gpuh_impl_gemm_scratch_release(void)
{
    gpuh_impl_gemm_scratch_entry held[GPUH_IMPL_GEMM_POOLS];
    int dev = 0;
    if (cudaGetDevice(&dev) != cudaSuccess)
        dev = -1;
    GPUH_IMPL_LOCK();
    for (int i = 0; i < GPUH_IMPL_GEMM_POOLS; ++i) {
        gpuh_impl_gemm_scratch_entry *const e = &gpuh_impl_gemm_scratch_v[i];
        held[i] = *e;
        e->memory = NULL, e->size = 0, e->stream_id = 0, e->context_id = 0;
    }
    GPUH_IMPL_UNLOCK();
    for (int i = 0; i < GPUH_IMPL_GEMM_POOLS; ++i)
        /* not where the context it was made in is gone (its memory with it) */
        if (held[i].memory != NULL && cudaSetDevice(i) == cudaSuccess &&
            gpuh_impl_context_id() == held[i].context_id)
            (void)cudaFree(held[i].memory); /* waits for the work that uses it */
    if (dev >= 0)
        (void)cudaSetDevice(dev);
    (void)cudaGetLastError(); /* not sticky: a runtime already shut down answers with errors */
}
static inline cudaError_t gpuh_impl_gemm_scratch(void **memory, unsigned **counter, int *own, size_t bytes,
                                                 size_t counters, int dev, cudaStream_t stream)
{
    const size_t lead = GPUH_IMPL_GEMM_SCRATCH_COUNTERS * sizeof(unsigned), size = lead + bytes;
    unsigned long long id = 0, context = 0;
    enum cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    *memory = NULL, *counter = NULL, *own = 1;
    if (dev >= 0 && dev < GPUH_IMPL_GEMM_POOLS && size <= GPUH_IMPL_GEMM_SCRATCH_MAX &&
        counters <= GPUH_IMPL_GEMM_SCRATCH_COUNTERS && cudaStreamIsCapturing(stream, &capture) == cudaSuccess &&
        capture == cudaStreamCaptureStatusNone && cudaStreamGetId(stream, &id) == cudaSuccess && id != 0 &&
        (context = gpuh_impl_context_id()) != 0) {
        gpuh_impl_gemm_scratch_entry *const e = &gpuh_impl_gemm_scratch_v[dev];
        void *lent = NULL;
        int make = 0;
        GPUH_IMPL_LOCK();
        if (e->memory != NULL && e->context_id != context && !e->making) /* gone with its context: made anew */
            e->memory = NULL, e->size = 0, e->stream_id = 0;
        if (e->memory != NULL && e->stream_id == id && e->size >= size)
            lent = e->memory;
        else if (e->memory == NULL && !e->making)
            make = e->making = 1;
        GPUH_IMPL_UNLOCK();
        if (make) { /* zeroed on the stream, before any kernel of it can use it */
            const size_t made = size > GPUH_IMPL_GEMM_SCRATCH_SIZE ? size : GPUH_IMPL_GEMM_SCRATCH_SIZE;
            void *fresh = NULL;
            cudaError_t err = gpuh_impl_gemm_workspace(&fresh, made, dev, stream);
            if (err == cudaSuccess && (err = cudaMemsetAsync(fresh, 0, made, stream)) != cudaSuccess)
                (void)cudaFreeAsync(fresh, stream);
            GPUH_IMPL_LOCK();
            e->making = 0;
            if (err == cudaSuccess) {
                e->memory = lent = fresh, e->size = made, e->stream_id = id, e->context_id = context;
                if (!gpuh_impl_gemm_scratch_exit_v)
                    gpuh_impl_gemm_scratch_exit_v = atexit(gpuh_impl_gemm_scratch_release) == 0;
            }
            GPUH_IMPL_UNLOCK();
        }
        if (lent != NULL) {
            *counter = static_cast<unsigned *>(lent), *memory = static_cast<char *>(lent) + lead, *own = 0;
            return cudaSuccess;
        }
    }
    (void)cudaGetLastError(); /* not sticky: a failed query or making leaves the call scratch of its own */
    const size_t at = gpuh_ceil_div(bytes, (size_t)16) * 16; /* the counters after the memory */
    cudaError_t err = gpuh_impl_gemm_workspace(memory, at + counters * sizeof(unsigned), dev, stream);
    if (err != cudaSuccess)
        return err;
    *counter = reinterpret_cast<unsigned *>(static_cast<char *>(*memory) + at);
    if (counters > 0 && (err = cudaMemsetAsync(*counter, 0, counters * sizeof(unsigned), stream)) != cudaSuccess) {
        (void)cudaFreeAsync(*memory, stream);
        *memory = NULL, *counter = NULL;
    }
    return err;
}
#endif

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
   cover is added here and where it is priced and launched. BIG: 1 where
   covers a and b, and bands whose first part is on Big, are candidates
   (gpuh_impl_gemm_unaligned's sets have 0). */
template <typename Big_, typename Small_, typename Wide_ = Small_, typename Tall_ = Small_,
          typename Wide32_ = Small_, typename Tall32_ = Small_, typename Wide64_ = Small_, typename Tall64_ = Small_>
struct gpuh_impl_gemm_covers {
    enum { BIG = 1 };
    typedef Big_ Big;
    typedef Small_ Small;
    typedef Wide_ Wide;
    typedef Tall_ Tall;
    typedef Wide32_ Wide32;
    typedef Tall32_ Tall32;
    typedef Wide64_ Wide64;
    typedef Tall64_ Tall64;
};
/* The set an A or B that is not 16-byte aligned runs on: where Big is
   ALIGNED (gpuh_gemm_simt_config) and Small is not, Set without its Big
   tiles (the plan then covers C with the other configurations, which must
   take any alignment); otherwise Set itself. */
template <typename Set, bool DROP = Set::BIG && Set::Big::ALIGNED && !Set::Small::ALIGNED>
struct gpuh_impl_gemm_unaligned {
    typedef Set type;
};
template <typename Set> struct gpuh_impl_gemm_unaligned<Set, true> {
    struct type : Set {
        enum { BIG = 0 };
        static_assert(!Set::Wide::ALIGNED && !Set::Tall::ALIGNED && !Set::Wide32::ALIGNED && !Set::Tall32::ALIGNED &&
                          !Set::Wide64::ALIGNED && !Set::Tall64::ALIGNED,
                      "the configurations beside an ALIGNED Big take any alignment");
    };
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
    const size_t small_tiles = gpuh_ceil_div(M, s_m) * gpuh_ceil_div(N, s_n);
    gpuh_impl_gemm_plan plan;
    plan.cover = Set::BIG ? 'a' : 'c', plan.splits = 1, plan.k_chunk = K, plan.band = 0, plan.first = 0, plan.dp = 0;
    plan.cost = Set::BIG ? gpuh_impl_gemm_waves(gpuh_ceil_div(M, b_m) * gpuh_ceil_div(N, b_n), big_slots, big_work) *
                               k_big
                         : gpuh_impl_gemm_waves(small_tiles, small_slots, small_work) * k_small;
    if (Set::BIG && bands && mi > 0 && ni > 0) { /* b needs at least one whole big tile */
        const double cost_b = gpuh_impl_gemm_waves((mi / b_m) * (ni / b_n), big_slots, big_work) * k_big +
                              gpuh_impl_gemm_waves(strip_tiles, small_slots, small_work) * k_small;
        if (cost_b < plan.cost)
            plan.cover = 'b', plan.cost = cost_b;
    }
    if (Set::BIG)
        gpuh_impl_gemm_splits(plan, 'a', gpuh_ceil_div(M, b_m) * gpuh_ceil_div(N, b_n), big_slots, big_work, Big::BK,
                              M, N, K, elem, sms, Big::MIN_BLOCKS);
    gpuh_impl_gemm_splits(plan, 'c', small_tiles, small_slots, small_work, Small::BK, M, N, K, elem, sms,
                          Small::MIN_BLOCKS);
    if (bands) {
        if (Set::BIG)
            gpuh_impl_gemm_bands<Set>(plan, 'a', b_m, b_n, big_slots, big_work, M, N, K, elem, sms);
        gpuh_impl_gemm_bands<Set>(plan, 'c', s_m, s_n, small_slots, small_work, M, N, K, elem, sms);
    }
    /* the narrow tiles: a C of few rows or columns (the 32- and 64-wide
       ones only where they are configurations of their own; the 16-wide
       ones not for the rest of a band, where the model overprices their
       rate, bench/results/NOTES.md, nor the 32-wide ones, which were
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
static inline cudaError_t gpuh_impl_gemm_whole(const gpuh_impl_gemm_plan &plan, gpuh_impl_gemm_args<T> &a, bool ta,
                                               bool tb, size_t M, size_t N, const T *d_A, const T *d_B,
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
    cudaError_t err = c == 'a'   ? gpuh_impl_gemm_launch(Big(), a, blocks, stream)
                      : c == 'c' ? gpuh_impl_gemm_launch(Small(), a, blocks, stream)
                      : c == 'w' ? gpuh_impl_gemm_launch(Wide(), a, blocks, stream)
                      : c == 't' ? gpuh_impl_gemm_launch(Tall(), a, blocks, stream)
                      : c == 'u' ? gpuh_impl_gemm_launch(Wide32(), a, blocks, stream)
                      : c == 'v' ? gpuh_impl_gemm_launch(Tall32(), a, blocks, stream)
                      : c == 'W' ? gpuh_impl_gemm_launch(Wide64(), a, blocks, stream)
                                 : gpuh_impl_gemm_launch(Tall64(), a, blocks, stream);
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
        err = gpuh_impl_pack_rows(d_A, lda, ra, ca, sa, la, stream);
    if (err == cudaSuccess && move_b &&
        (err = gpuh_impl_gemm_workspace((void **)&sb, rb * lb * sizeof(T), dev, stream)) == cudaSuccess)
        err = gpuh_impl_pack_rows(d_B, ldb, rb, cb, sb, lb, stream);
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
    a.vec = vec, a.ta = ta, a.tb = tb;
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
        (Set::Small::ALIGNED ||
         (double)M * (double)N * (double)K * GPUH_GEMM_SCALAR_LOSS >
             2.0 * (double)((M + N) * K * sizeof(T)) * GPUH_GEMM_MACS_PER_BYTE + GPUH_GEMM_SPLIT_FIXED * sms))
        return gpuh_impl_gemm_staged<Set, T>(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, dev,
                                             stream);
    /* Unaligned still (no copy, or none could be had): not on ALIGNED tiles. */
    if (!vec && K > 0 && Set::Small::ALIGNED)
        return gpuh_fail(cudaErrorMemoryAllocation,
                         "gpuh_gemm_with: A or B is not 16-byte aligned, both configurations are ALIGNED, and no "
                         "aligned copy could be allocated");
    if (!vec && K > 0 && Set::BIG && Set::Big::ALIGNED)
        return gpuh_impl_gemm_run<typename gpuh_impl_gemm_unaligned<Set>::type, T>(
            op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream, false);

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
    GPUH_NVTX_RANGEF("gpuh_gemm plan: cover %c, %zu slices of K%s", plan.cover, plan.splits,
                     plan.band ? ", banded" : "");

    if (plan.band != 0) { /* rows (columns) [0, dp) whole, then the rest in slices of K */
        const bool rows = plan.band == 'r';
        gpuh_impl_gemm_plan first = plan;
        gpuh_impl_gemm_args<T> a1 = a;
        gpuh_impl_gemm_part<T> rest;
        first.cover = plan.first, first.splits = 1, first.k_chunk = K;
        err = gpuh_impl_gemm_whole<Set>(first, a1, ta, tb, rows ? plan.dp : M, rows ? N : plan.dp, d_A, d_B, d_C,
                                        dev, sms, stream);
        if (err != cudaSuccess)
            return err;
        (void)gpuh_impl_gemm_part_of(a, ta, tb, rest, rows ? plan.dp : 0, rows ? 0 : plan.dp, 1, 1, 1, 1, d_A, d_B,
                                     d_C);
        return gpuh_impl_gemm_whole<Set>(plan, a, ta, tb, rows ? M - plan.dp : M, rows ? N : N - plan.dp, rest.A,
                                         rest.B, rest.C, dev, sms, stream);
    }
    if (plan.cover != 'b')
        return gpuh_impl_gemm_whole<Set>(plan, a, ta, tb, M, N, d_A, d_B, d_C, dev, sms, stream);
    /* b: whole big tiles, then the strips in one launch: below the big tiles
       (all N columns), and right of them. */
    a.part0_tiles = a.tiles =
        (unsigned)gpuh_impl_gemm_part_of(a, ta, tb, a.part[0], 0, 0, mi, ni, b_m, b_n, d_A, d_B, d_C);
    a.part[1] = a.part[0];
    if ((err = gpuh_impl_gemm_launch(Big(), a, a.part0_tiles, stream)) != cudaSuccess)
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
    return gpuh_impl_gemm_launch(Small(), a, a.tiles, stream);
}

/* gpuh_gemm_with: see [SECTION: GEMM]. */
template <typename Big, typename Small, typename T>
cudaError_t gpuh_gemm_with(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, T alpha, const T *d_A,
                           size_t lda, const T *d_B, size_t ldb, T beta, T *d_C, size_t ldc, cudaStream_t stream)
{
    GPUH_NVTX_RANGEF("gpuh_gemm_with %zux%zux%zu %c%c", M, N, K, op_a == GPUH_OP_T ? 'T' : 'N',
                     op_b == GPUH_OP_T ? 'T' : 'N');
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
/* Partial specializations (the second parameter is never given): the members
   of an explicit specialization would be ordinary functions, compiled in
   every file that includes this header, where these are compiled only in a
   file that calls gpuh_gemm of their type. */
template <typename T, typename = void> struct gpuh_impl_gemm_default;
template <typename D> struct gpuh_impl_gemm_default<float, D> {
    static cudaError_t run(gpuh_op op_a, gpuh_op op_b, size_t M, size_t N, size_t K, float alpha, const float *d_A,
                           size_t lda, const float *d_B, size_t ldb, float beta, float *d_C, size_t ldc,
                           cudaStream_t stream)
    {
        return gpuh_impl_gemm_run<gpuh_impl_sgemm_covers, float>(
            op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
    }
};
template <typename D> struct gpuh_impl_gemm_default<double, D> {
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
    GPUH_NVTX_RANGEF("gpuh_gemm %zux%zux%zu %c%c", M, N, K, op_a == GPUH_OP_T ? 'T' : 'N',
                     op_b == GPUH_OP_T ? 'T' : 'N');
    return gpuh_impl_stream_error(
        gpuh_impl_gemm_default<T>::run(op_a, op_b, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream),
        "gpuh_gemm", stream);
}

template <typename T>
cudaError_t gpuh_gemm(size_t M, size_t N, size_t K, T alpha, const T *d_A, size_t lda, const T *d_B, size_t ldb,
                      T beta, T *d_C, size_t ldc, cudaStream_t stream)
{
    return gpuh_gemm<T>(GPUH_OP_N, GPUH_OP_N, M, N, K, alpha, d_A, lda, d_B, ldb, beta, d_C, ldc, stream);
}

template <typename T>
cudaError_t gpuh_matmul(const T *d_A, const T *d_B, T *d_C, size_t M, size_t N, size_t K, cudaStream_t stream)
{
    return gpuh_gemm<T>(M, N, K, T(1), d_A, K, d_B, N, T(0), d_C, N, stream);
}

#endif /* GPUH_IMPL_GEMM_DISPATCH_CUH */
