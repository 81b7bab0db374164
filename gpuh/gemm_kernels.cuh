/* gpuh/gemm_kernels.cuh - part of gpuh_kernels.cuh: the tiled GEMM kernels
   (CUDA cores, FP64 tensor cores) and the matrix-vector kernels. Included by
   gpuh_kernels.cuh, never on its own: the public names it defines are declared
   and documented there. */
#ifndef GPUH_IMPL_GEMM_KERNELS_CUH
#define GPUH_IMPL_GEMM_KERNELS_CUH

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
    bool vec;   /* A and B 16-byte aligned, lda and ldb multiples of 16 bytes: 16-byte loads */
    bool ta;    /* op(A) = Aᵀ (GPUH_OP_T) */
    bool tb;    /* op(B) = Bᵀ */
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
template <typename T>
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
   inside the matrix (`full`) and vec (16-byte-aligned rows); otherwise one
   element at a time. Chunk tid + i·THREADS is row r + i·STEP, columns
   c .. c + W - 1: consecutive threads take consecutive chunks (coalesced),
   and each thread's chunks are fixed strides from one index (few registers).
   The kernel calls it for op(A)'s slice (A's BM × BK, or Aᵀ's BK × BM as
   stored) and op(B)'s (B's BK × BN, or Bᵀ's BN × BK). */
template <typename T, int ROWS, int COLS, int SLD, int THREADS>
__device__ __forceinline__ void gpuh_impl_cp_slice(T *s, const T *base, size_t ld, size_t r0, size_t c0, size_t rows,
                                                   size_t cols, bool full, bool vec)
{
    enum { W = 16 / sizeof(T), CHUNKS = ROWS * COLS / W / THREADS, STEP = THREADS / (COLS / W) };
    static_assert(CHUNKS >= 1 && CHUNKS * W * THREADS == ROWS * COLS && COLS % W == 0 && THREADS % (COLS / W) == 0,
                  "every thread copies whole 16-byte chunks of each slice");
    const int tid = threadIdx.x, r = tid / (COLS / W), c = tid % (COLS / W) * W;
    const size_t at = (r0 + r) * ld + c0 + c; /* an index, not a pointer: rows past the edge may not exist */
    s += r * SLD + c;
    if (full && vec) {
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
   (`full`) and vec; otherwise one element at a time. */
template <typename T, int ROWS, int COLS, int THREADS, int LOADS>
__device__ __forceinline__ void gpuh_impl_simt_load(const T *base, size_t ld, size_t r0, size_t c0, size_t rows,
                                                    size_t cols, bool full, bool vec, int tid, T (&r)[LOADS][4])
{
    static_assert(LOADS * 4 * THREADS == ROWS * COLS && COLS % 4 == 0, "whole groups of 4 per thread");
    /* One test for the whole slice, so that the usual case is one run of
       16-byte loads without branches between them. */
    if (full && vec) {
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
   shared memory holds s_A[k][m] and s_B[k][n]. The ops are template
   parameters (read at run time, the branches on them cost the big tiles
   their rate: bench/results/NOTES.md); the load width is p.vec, read at run
   time beside `full`, or 16 bytes where Cfg::ALIGNED. It holds references to the kernel's values, as a
   closure would. */
template <typename T, typename Cfg, bool TA, bool TB> struct gpuh_impl_simt_loader {
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
        const bool full = full_mn && k0 + BK <= K, vec = Cfg::ALIGNED || p.vec;
        if (TA)
            gpuh_impl_simt_load<T, BK, BM, THREADS, Cfg::A_LOADS>(g.A, p.lda, k0, m0, K, g.M, full, vec, tid, r_a);
        else
            gpuh_impl_simt_load<T, BM, BK, THREADS, Cfg::A_LOADS>(g.A, p.lda, m0, k0, g.M, K, full, vec, tid, r_a);
        if (TB)
            gpuh_impl_simt_load<T, BN, BK, THREADS, Cfg::B_LOADS>(g.B, p.ldb, n0, k0, g.N, K, full, vec, tid, r_b);
        else
            gpuh_impl_simt_load<T, BK, BN, THREADS, Cfg::B_LOADS>(g.B, p.ldb, k0, n0, K, g.N, full, vec, tid, r_b);
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
   bounds checks (16-byte loads where p.vec) instead of element by element.
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
        registers (16-byte loads when p.vec), and from there into shared
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
   p.vec: A, B 16-byte aligned and lda, ldb multiples of 4 floats (2 doubles),
   so interior tiles use 16-byte loads; otherwise (an odd leading dimension
   such as 4097, an offset pointer) scalar ones. C's stores are 16 bytes
   wide where C allows it (p.vec_c, a run-time flag), else element by
   element, through shared memory so that a warp writes runs of a row.
   Split-K (p.work): the block sums its slice of K and writes the raw sums
   to its slice of the workspace (gpuh_impl_gemm_split).
   The load width is a run-time flag (p.vec), not a template parameter, so
   that a configuration is 4 instances, not 8: the usual 16-byte path and
   the element path of an edge tile are in every instance anyway. An
   ALIGNED configuration (gpuh_sgemm_big) is launched only where p.vec holds
   and loads 16 bytes without the test: ptxas schedules its main loop
   better so (bench/results/NOTES.md).
   Grid: 1-D, one block per tile of both parts; block: Cfg::THREADS;
   dynamic shared memory SMEM_ELEMS = 2 · BK · (BM + BN + 8) elements.
   Registers, shared memory and no spills of each shipped configuration:
   checked by the compile.budget test (tools/check_budget.py). */
template <typename T, typename Cfg, bool TA, bool TB>
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
    gpuh_impl_gemm_out<T> out = gpuh_impl_gemm_split<T>(p);
    const gpuh_impl_gemm_part<T> g = gpuh_impl_gemm_tile(p, out.tile, tm, tn);
    if (out.C == NULL)
        out.C = g.C;
    /* Moved along N unless B's rows run along N (op(B) = B, 16-byte loads)
       and an origin of N - BN would break their alignment. Not along M when
       op(A) = Aᵀ: moved there, gpuh_sgemm_big's kernels spilled (16-byte
       loads) or lost rate (element loads) as ptxas built them
       (bench/results/NOTES.md). */
    const size_t m0 = gpuh_impl_simt_origin((size_t)tm * BM, BM, g.M, !TA);
    const size_t n0 = gpuh_impl_simt_origin((size_t)tn * BN, BN, g.N, !(Cfg::ALIGNED || p.vec) || TB || g.N % 4 == 0);
    const size_t K = out.k_end, k_begin = out.k_begin;
    const bool full_mn = m0 + BM <= g.M && n0 + BN <= g.N;
    const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
    const int wm0 = warp / Cfg::WARPS_N * WM, wn0 = warp % Cfg::WARPS_N * WN; /* the warp's piece */
    const int lm = lane / Cfg::LANES_N, ln = lane % Cfg::LANES_N;              /* the lane's place in it */

    /* The next slice, on its way to shared memory. Each load precedes its
       store, so the zeros are never read; with them ptxas schedules the
       256 × 128 kernel better (bench/results/NOTES.md), and g++'s flow
       analysis of the simulator's build has nothing to warn about. */
    T r_a[Cfg::A_LOADS][4] = {}, r_b[Cfg::B_LOADS][4] = {};
    T acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j)
            acc[i][j] = T(0);

    const gpuh_impl_simt_loader<T, Cfg, TA, TB> slice = {full_mn, K, tid, g, p, m0, r_a, n0, r_b};

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
template <typename Cfg, bool TA, bool TB>
__device__ __forceinline__ void gpuh_impl_dmma_load(double *s_stage, const gpuh_impl_gemm_part<double> &g,
                                                    const gpuh_impl_gemm_args<double> &p, size_t m0, size_t n0,
                                                    size_t k0, size_t K, bool full_mn)
{
    typedef gpuh_impl_dmma_layout<Cfg, TA, TB> L;
    enum { BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, THREADS = Cfg::THREADS };
    const bool full = full_mn && k0 + BK <= K;
    double *s_B = s_stage + L::A_ELEMS;
    if (TA)
        gpuh_impl_cp_slice<double, BK, BM, L::LDA, THREADS>(s_stage, g.A, p.lda, k0, m0, K, g.M, full, p.vec);
    else
        gpuh_impl_cp_slice<double, BM, BK, L::LDA, THREADS>(s_stage, g.A, p.lda, m0, k0, g.M, K, full, p.vec);
    if (TB)
        gpuh_impl_cp_slice<double, BN, BK, L::LDB, THREADS>(s_B, g.B, p.ldb, n0, k0, g.N, K, full, p.vec);
    else
        gpuh_impl_cp_slice<double, BK, BN, L::LDB, THREADS>(s_B, g.B, p.ldb, k0, n0, K, g.N, full, p.vec);
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
        STAGES shared buffers with cp.async, 16-byte chunks when p.vec (else
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
   stored and read in that orientation (gpuh_impl_dmma_layout): template
   parameters, since they decide the fragments' shared-memory reads in the
   inner loop; the load width (p.vec) is a run-time flag.
   Built only for sm_90 and later (the body is empty elsewhere); the
   launcher checks the kernel's PTX version before choosing it.
   Registers, shared memory (MIN_BLOCKS blocks must fit in an SM) and no
   spills: checked by the compile.budget test (tools/check_budget.py). */
template <typename Cfg, bool TA, bool TB>
__global__ void __launch_bounds__(Cfg::THREADS, Cfg::MIN_BLOCKS) gpuh_gemm_dmma_kernel(const gpuh_impl_gemm_args<double> p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    typedef gpuh_impl_dmma_layout<Cfg, TA, TB> L;
    enum { BM = Cfg::BM, BN = Cfg::BN, BK = Cfg::BK, STAGES = Cfg::STAGES, FRAGS = Cfg::FRAGS };
    enum { MT = Cfg::MT, NT = Cfg::NT, MMA_K = Cfg::MMA_K, KSTEPS = BK / MMA_K };
    static_assert(FRAGS == 1 || KSTEPS % 2 == 0, "two fragment buffers alternate within a slice");
    double *const s_all = gpuh_impl_dynamic_smem<double>(); /* stage s: s_A at s·STAGE, s_B after it */

    unsigned tm, tn;
    gpuh_impl_gemm_out<double> out = gpuh_impl_gemm_split<double>(p);
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
            gpuh_impl_dmma_load<Cfg, TA, TB>(s_all + s * L::STAGE, g, p, m0, n0, k_begin + (size_t)s * BK, K,
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
                    gpuh_impl_dmma_load<Cfg, TA, TB>(s_all + stage * L::STAGE, g, p, m0, n0,
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
    const T sum = gpuh_warp_reduce<gpuh_plus<T>>((acc[0] + acc[1]) + (acc[2] + acc[3]));
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


#endif /* GPUH_IMPL_GEMM_KERNELS_CUH */
