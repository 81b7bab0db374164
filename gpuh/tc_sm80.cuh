/* gpuh/tc_sm80.cuh - part of gpuh_kernels.cuh: the tensor-core GEMM's mma.sync
   kernel (sm_80 and later). Included by gpuh_kernels.cuh, never on its own:
   the public names it defines are declared and documented there. */
#ifndef GPUH_IMPL_TC_SM80_CUH
#define GPUH_IMPL_TC_SM80_CUH

/* ---------------------------------------------------------------------------
   The mma.sync kernel (sm_80 and later, where the sm_90a kernel is not
   built: A100, L4, RTX 30 and 40, a plain sm_90 build, PTX compiled by the
   driver from compute_80): the tensor cores of every GPU since Ampere,
   under a loop of the CUDA-core kernel's shape:
   - a block owns a BM × BN tile of C (128 × 128), 2 × 2 warps of 64 × 64;
     a warp keeps its 64 × 64 accumulators (4 × 8 tiles of 16 × 8, four
     floats per lane each) in registers through the whole of K;
   - slices of 64 bytes of K (32 bfloat16 / fp16, 16 TF32) of op(A) and
     op(B) go from global to shared memory with cp.async, 16 bytes per copy,
     into a ring of GPUH_IMPL_TC_MMA_STAGES stages: the copies of the next
     stages - 1 slices are in flight while the warps multiply this one;
     a chunk that reaches past an edge of the matrix is filled by ordinary
     loads of the elements inside and zeros (no edge code in the product);
   - each operand's slice is stored as it lies in memory (op(A) as A's rows
     of K, or as Aᵀ's rows of M; op(B) likewise), its rows padded by 16
     bytes (K-major) or 8 elements (M- or N-major), which puts the eight
     rows an ldmatrix phase (or a TF32 fragment load) reads in different
     banks: no bank conflicts, and any op needs no transposing copy;
   - bfloat16 / fp16: ldmatrix.x4 loads the fragments of mma.sync m16n8k16
     (.trans for an operand whose slice is M- or N-major, where the 16-bit
     pairs the instruction wants lie across rows); TF32: mma.sync m16n8k8,
     fragments by ldmatrix (K-major) or scalar loads (M- or N-major), each
     element cut to TF32 as gpuh_impl_tc_in does (so every path reads the
     same inputs).
   Block: GPUH_IMPL_TC_MMA_THREADS threads, a 1-D grid of one block per tile
   (in the grouped order of gpuh_impl_gemm_tile, so neighbouring blocks
   share slices in L2), dynamic shared memory gpuh_impl_tc_mma_layout::SMEM.
   Needs A and B 16-byte aligned with leading dimensions of whole 16 bytes
   (the launcher copies other operands first); C any. Built only for
   __CUDA_ARCH__ >= 800 without sm_90a's features; other builds hold an
   empty body and the launcher does not use them.
   Idea: the PTX ISA (mma.sync, ldmatrix, cp.async); CUTLASS's sm80
   multistage GEMM; the steps of examples/hgemm (02 and 03). */
#ifndef GPUH_SIM
/* The tile and pipeline: fixed; the #ifndef lets bench/ try others. */
#ifndef GPUH_IMPL_TC_MMA_BM
#define GPUH_IMPL_TC_MMA_BM 128
#endif
#ifndef GPUH_IMPL_TC_MMA_BN
#define GPUH_IMPL_TC_MMA_BN 128
#endif
#ifndef GPUH_IMPL_TC_MMA_WARPS_M
#define GPUH_IMPL_TC_MMA_WARPS_M 2
#endif
#ifndef GPUH_IMPL_TC_MMA_WARPS_N
#define GPUH_IMPL_TC_MMA_WARPS_N 2
#endif
#ifndef GPUH_IMPL_TC_MMA_STAGES
#define GPUH_IMPL_TC_MMA_STAGES 4
#endif
#ifndef GPUH_IMPL_TC_MMA_KBYTES
#define GPUH_IMPL_TC_MMA_KBYTES 64
#endif
#define GPUH_IMPL_TC_MMA_THREADS (32 * GPUH_IMPL_TC_MMA_WARPS_M * GPUH_IMPL_TC_MMA_WARPS_N)

/* The shared slices of the mma.sync kernel for input type T and ops TA, TB:
   sizes in elements; a stage holds op(A)'s slice, then op(B)'s. */
template <typename T, bool TA, bool TB> struct gpuh_impl_tc_mma_layout {
    enum {
        BM = GPUH_IMPL_TC_MMA_BM, BN = GPUH_IMPL_TC_MMA_BN, BK = GPUH_IMPL_TC_MMA_KBYTES / (int)sizeof(T),
        W = 16 / (int)sizeof(T),
        WM = BM / GPUH_IMPL_TC_MMA_WARPS_M, WN = BN / GPUH_IMPL_TC_MMA_WARPS_N, MT = WM / 16, NT = WN / 8,
        LDA = TA ? BM + 8 : BK + W, LDB = TB ? BK + W : BN + 8, /* row strides, padded */
        A_ELEMS = TA ? BK * LDA : BM * LDA, B_ELEMS = TB ? BN * LDB : BK * LDB,
        STAGE = A_ELEMS + B_ELEMS,
        SMEM = GPUH_IMPL_TC_MMA_STAGES * STAGE * (int)sizeof(T)
    };
    /* 16-bit: ldmatrix reads 8 rows of 16 bytes per phase, in distinct banks
       when the row stride is an odd number of 16 bytes. TF32: a fragment
       load reads (row g, column t) of 8 × 4 (K-major: stride ≡ 4 mod 8
       words) or (row t, column g) (M/N-major: stride ≡ 8 mod 32 words). */
    static_assert(sizeof(T) == 4 ? (TA ? LDA % 32 == 8 : LDA % 8 == 4) && (TB ? LDB % 8 == 4 : LDB % 32 == 8)
                                 : (LDA * 2 / 16) % 2 == 1 && (LDB * 2 / 16) % 2 == 1,
                  "the padded rows avoid bank conflicts");
    static_assert(NT % 2 == 0 && STAGE * sizeof(T) % 16 == 0, "whole fragments, aligned stages");
    /* op(A)'s element (m, k), op(B)'s (k, n) in their slices */
    static __device__ __forceinline__ int a_at(int m, int k) { return TA ? k * LDA + m : m * LDA + k; }
    static __device__ __forceinline__ int b_at(int k, int n) { return TB ? n * LDB + k : k * LDB + n; }
};

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
/* D += A·B for one 16 × 8 tile: m16n8k16 (bfloat16, fp16) or m16n8k8
   (TF32), fp32 accumulators; on every target from sm_80, sm_90a included,
   where the decode kernel (gpuh/tc_decode.cuh) takes it too. Lane l, g = l / 4, t = l % 4, holds
   d = D[g][2t], D[g][2t + 1], D[g + 8][2t], D[g + 8][2t + 1]; for 16-bit
   inputs a = pairs A[g][2t..], A[g + 8][2t..], A[g][2t + 8..],
   A[g + 8][2t + 8..] and b = pairs B[2t..][g], B[2t + 8..][g]; for TF32
   a = A[g][t], A[g + 8][t], A[g][t + 4], A[g + 8][t + 4] and b = B[t][g],
   B[t + 4][g]. */
#define GPUH_IMPL_MMA_SYNC(type, shape_and_types)                                                             \
    static __device__ __forceinline__ void gpuh_impl_mma(float(&d)[4], const unsigned(&a)[4], const unsigned(&b)[2], \
                                                         type)                                                        \
    {                                                                                                                 \
        asm volatile("mma.sync.aligned." shape_and_types " {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "          \
                     "{%0, %1, %2, %3};\n"                                                                          \
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                                 \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));                             \
    }
GPUH_IMPL_MMA_SYNC(__nv_bfloat16, "m16n8k16.row.col.f32.bf16.bf16.f32")
GPUH_IMPL_MMA_SYNC(__half, "m16n8k16.row.col.f32.f16.f16.f32")
GPUH_IMPL_MMA_SYNC(float, "m16n8k8.row.col.f32.tf32.tf32.f32")
#undef GPUH_IMPL_MMA_SYNC
#endif /* __CUDA_ARCH__ >= 800 */

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* Starts the copy of the ROWS × COLS slice of the stored matrix at g (row
   stride ld, 16-byte aligned rows) from row r0, column c0 into s (rows of
   LD elements): 16-byte chunks, thread tid + i·THREADS taking row
   tid / (COLS / W) + i·STEP (consecutive threads, consecutive chunks).
   rows, cols: the stored matrix's extent; a chunk that reaches past it
   holds the elements inside (none past the last row) and zeros. */
template <typename T, int ROWS, int COLS, int LD>
static __device__ __forceinline__ void gpuh_impl_tc_mma_copy(T *s, const T *g, size_t ld, size_t r0, size_t c0,
                                                             size_t rows, size_t cols)
{
    enum { W = 16 / sizeof(T), PER_ROW = COLS / W, THREADS = GPUH_IMPL_TC_MMA_THREADS };
    enum { STEP = THREADS / PER_ROW, CHUNKS = ROWS / STEP };
    static_assert(THREADS % PER_ROW == 0 && ROWS % STEP == 0, "whole chunks per thread");
    const int r = threadIdx.x / PER_ROW, c = threadIdx.x % PER_ROW * W;
    const size_t gc = c0 + c;
    const unsigned bytes = gc >= cols ? 0u : cols - gc >= (size_t)W ? 16u : (unsigned)((cols - gc) * sizeof(T));
    const unsigned s_at = (unsigned)__cvta_generic_to_shared(s + r * LD + c);
#pragma unroll
    for (int i = 0; i < CHUNKS; ++i) {
        const size_t gr = r0 + r + (size_t)i * STEP;
        const unsigned n = gr < rows ? bytes : 0u, dst = s_at + i * STEP * LD * (int)sizeof(T);
        if (n == 16u) {
            asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(g + gr * ld + gc) : "memory");
        } else {
            /* Past an edge: the elements inside by ordinary loads, zeros for
               the rest, stored at once (the stage is free: the barrier before
               this slice's copies was passed). Not cp.async's zero-fill, which
               compute-sanitizer's initcheck counts as a read of all 16 bytes. */
            unsigned w[4] = {0u, 0u, 0u, 0u};
#pragma unroll
            for (int e = 0; e < W; ++e)
                if ((unsigned)(e * sizeof(T)) < n) {
                    const T *src = g + gr * ld + gc + e; /* its bits, by one load of the element's size */
                    const unsigned x = sizeof(T) == 2 ? (unsigned)*reinterpret_cast<const unsigned short *>(src)
                                                      : *reinterpret_cast<const unsigned *>(src);
                    w[e * sizeof(T) / 4] |= x << (8 * (e * sizeof(T) % 4));
                }
            asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(w[0]), "r"(w[1]), "r"(w[2]),
                         "r"(w[3])
                         : "memory");
        }
    }
}

/* Four 8 × 8 matrices of 16-bit elements from shared memory (ldmatrix.x4):
   lane l gives the address of row l % 8 of matrix l / 8, and receives in
   r[q] the pair (row l / 4, columns 2·(l % 4), +1) of matrix q, or with
   TRANS the pair (rows 2·(l % 4), +1; column l / 4). */
template <bool TRANS> static __device__ __forceinline__ void gpuh_impl_ldsm4(unsigned (&r)[4], unsigned addr)
{
    if (TRANS)
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
    else
        asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                     : "r"(addr));
}


/* One warp's products over one shared slice, 16-bit inputs: per 16 of K,
   the fragments of its MT tiles of op(A) (16 × 16) and NT of op(B)
   (16 × 8, two per ldmatrix.x4), then MT · NT mma.sync. The lane's address
   in each ldmatrix: row lane % 8 of matrix lane / 8 (a row of the slice
   as stored: of M or N in a K-major slice, of K in an M- or N-major one,
   read with .trans), the matrices in the order of the fragment's
   registers (gpuh_impl_mma). */
template <typename L, bool TA, bool TB, typename T>
static __device__ __forceinline__ void gpuh_impl_tc_mma_slice(float (&acc)[L::MT][L::NT][4], const T *s_A,
                                                              const T *s_B, int wm0, int wn0, int lane)
{
    const unsigned a0 = (unsigned)__cvta_generic_to_shared(s_A), b0 = (unsigned)__cvta_generic_to_shared(s_B);
    const int r = lane % 8, q = lane / 8;
#pragma unroll
    for (int kk = 0; kk < L::BK; kk += 16) {
        unsigned a[L::MT][4], b[L::NT][2];
#pragma unroll
        for (int i = 0; i < L::MT; ++i) /* matrices: (m 0-7, k 0-7), (m 8-15, k 0-7), (m 0-7, k 8-15), (m 8-15, k 8-15) */
            gpuh_impl_ldsm4<TA>(a[i], a0 + 2 * L::a_at(wm0 + 16 * i + 8 * (q % 2) + (TA ? 0 : r),
                                                       kk + 8 * (q / 2) + (TA ? r : 0)));
#pragma unroll
        for (int j = 0; j < L::NT; j += 2) { /* (k 0-7, n 0-7), (k 8-15, n 0-7), (k 0-7, n 8-15), (k 8-15, n 8-15) */
            unsigned f[4];
            gpuh_impl_ldsm4<!TB>(f, b0 + 2 * L::b_at(kk + 8 * (q % 2) + (TB ? 0 : r),
                                                     wn0 + 8 * j + 8 * (q / 2) + (TB ? r : 0)));
            b[j][0] = f[0], b[j][1] = f[1], b[j + 1][0] = f[2], b[j + 1][1] = f[3];
        }
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
#pragma unroll
            for (int j = 0; j < L::NT; ++j)
                gpuh_impl_mma(acc[i][j], a[i], b[j], T());
    }
}
/* The same for TF32: per 8 of K, the fragments of a K-major slice by
   ldmatrix (a row of 8 16-bit halves is 4 floats, and lane l receives
   float l % 4 of row l / 4: the m16n8k8 layout), of an M- or N-major one
   by scalar loads (ldmatrix cannot transpose 32-bit elements); each element
   cut to TF32 (gpuh_impl_tc_in), then m16n8k8. */
template <typename L, bool TA, bool TB>
static __device__ __forceinline__ void gpuh_impl_tc_mma_slice(float (&acc)[L::MT][L::NT][4], const float *s_A,
                                                              const float *s_B, int wm0, int wn0, int lane)
{
    const unsigned a0 = (unsigned)__cvta_generic_to_shared(s_A), b0 = (unsigned)__cvta_generic_to_shared(s_B);
    const int g = lane / 4, t = lane % 4, r = lane % 8, q = lane / 8;
#pragma unroll
    for (int kk = 0; kk < L::BK; kk += 8) {
        unsigned a[L::MT][4], b[L::NT][2];
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
            if (!TA) /* K-major: an 8 × 8 matrix of 16-bit halves is 8 × 4 floats, (m 0-7 | 8-15) × (k 0-3 | 4-7) */
                gpuh_impl_ldsm4<false>(a[i], a0 + 4 * L::a_at(wm0 + 16 * i + r + 8 * (q % 2), kk + 4 * (q / 2)));
            else
#pragma unroll
                for (int v = 0; v < 4; ++v)
                    a[i][v] = __float_as_uint(s_A[L::a_at(wm0 + 16 * i + g + 8 * (v % 2), kk + t + 4 * (v / 2))]);
#pragma unroll
        for (int j = 0; j < L::NT; j += 2)
            if (TB) { /* K-major: (n 0-7, k 0-3), (n 0-7, k 4-7), (n 8-15, k 0-3), (n 8-15, k 4-7) */
                unsigned f[4];
                gpuh_impl_ldsm4<false>(f, b0 + 4 * L::b_at(kk + 4 * (q % 2), wn0 + 8 * j + r + 8 * (q / 2)));
                b[j][0] = f[0], b[j][1] = f[1], b[j + 1][0] = f[2], b[j + 1][1] = f[3];
            } else
#pragma unroll
                for (int v = 0; v < 4; ++v)
                    b[j + v / 2][v % 2] = __float_as_uint(s_B[L::b_at(kk + t + 4 * (v % 2), wn0 + 8 * (j + v / 2) + g)]);
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                a[i][v] = __float_as_uint(gpuh_impl_tc_in(__uint_as_float(a[i][v])));
#pragma unroll
        for (int j = 0; j < L::NT; ++j)
#pragma unroll
            for (int v = 0; v < 2; ++v)
                b[j][v] = __float_as_uint(gpuh_impl_tc_in(__uint_as_float(b[j][v])));
#pragma unroll
        for (int i = 0; i < L::MT; ++i)
#pragma unroll
            for (int j = 0; j < L::NT; ++j)
                gpuh_impl_mma(acc[i][j], a[i], b[j], 0.0f);
    }
}

/* Starts the copies of slice `s` of op(A) and op(B) (K from s·BK) into the
   stage at s_stage, each operand as it is stored. */
template <typename L, bool TA, bool TB, typename TIn, typename TOut>
static __device__ __forceinline__ void gpuh_impl_tc_mma_load(TIn *s_stage, const gpuh_impl_tc_args<TIn, TOut> &p,
                                                             size_t m0, size_t n0, size_t s)
{
    const size_t k0 = s * L::BK;
    TIn *s_B = s_stage + L::A_ELEMS;
    if (TA)
        gpuh_impl_tc_mma_copy<TIn, L::BK, L::BM, L::LDA>(s_stage, p.A, p.lda, k0, m0, p.K, p.M);
    else
        gpuh_impl_tc_mma_copy<TIn, L::BM, L::BK, L::LDA>(s_stage, p.A, p.lda, m0, k0, p.M, p.K);
    if (TB)
        gpuh_impl_tc_mma_copy<TIn, L::BN, L::BK, L::LDB>(s_B, p.B, p.ldb, n0, k0, p.N, p.K);
    else
        gpuh_impl_tc_mma_copy<TIn, L::BK, L::BN, L::LDB>(s_B, p.B, p.ldb, k0, n0, p.K, p.N);
}
#endif /* __CUDA_ARCH__ >= 800, not sm_90a */

template <typename TIn, typename TOut, bool TA, bool TB>
__global__ void __launch_bounds__(GPUH_IMPL_TC_MMA_THREADS) gpuh_tc_mma_kernel(const gpuh_impl_tc_args<TIn, TOut> p)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
    typedef gpuh_impl_tc_mma_layout<TIn, TA, TB> L;
    enum { STAGES = GPUH_IMPL_TC_MMA_STAGES };
    TIn *const s_all = gpuh_impl_dynamic_smem<TIn>(); /* stage s at s·STAGE */
    /* this block's tile, in groups of GPUH_GEMM_GROUP_M rows of tiles */
    const unsigned tiles_m = (unsigned)((p.M + L::BM - 1) / L::BM), tiles_n = (unsigned)((p.N + L::BN - 1) / L::BN);
    const unsigned width = GPUH_GEMM_GROUP_M * tiles_n, first = blockIdx.x / width * GPUH_GEMM_GROUP_M;
    const unsigned rows = tiles_m - first < GPUH_GEMM_GROUP_M ? tiles_m - first : GPUH_GEMM_GROUP_M;
    const size_t m0 = (size_t)(first + blockIdx.x % width % rows) * L::BM, n0 = (size_t)(blockIdx.x % width / rows) * L::BN;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int wm0 = warp / GPUH_IMPL_TC_MMA_WARPS_N * L::WM, wn0 = warp % GPUH_IMPL_TC_MMA_WARPS_N * L::WN;
    float acc[L::MT][L::NT][4];
#pragma unroll
    for (int i = 0; i < L::MT; ++i)
#pragma unroll
        for (int j = 0; j < L::NT; ++j)
#pragma unroll
            for (int v = 0; v < 4; ++v)
                acc[i][j][v] = 0.0f;

    const size_t steps = (p.K + L::BK - 1) / L::BK;
    /* Prologue: slices 0 .. STAGES - 2 in flight, one commit group each
       (empty groups past the end keep the count the wait below relies on). */
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if ((size_t)s < steps)
            gpuh_impl_tc_mma_load<L, TA, TB>(s_all + s * L::STAGE, p, m0, n0, (size_t)s);
        gpuh_impl_cp_async_commit();
    }
    for (size_t s = 0; s < steps; ++s) {
        /* This thread's copies of slice s have landed (at most STAGES - 2
           newer groups pending)... */
        gpuh_impl_cp_async_wait<STAGES - 2>();
        /* ...and everyone's; and every warp is done with slice s - 1, whose
           stage the copies issued next overwrite. */
        __syncthreads();
        if (s + STAGES - 1 < steps)
            gpuh_impl_tc_mma_load<L, TA, TB>(s_all + (int)((s + STAGES - 1) % STAGES) * L::STAGE, p, m0, n0,
                                             s + STAGES - 1);
        gpuh_impl_cp_async_commit();
        const TIn *s_A = s_all + (int)(s % STAGES) * L::STAGE;
        gpuh_impl_tc_mma_slice<L, TA, TB>(acc, s_A, s_A + L::A_ELEMS, wm0, wn0, lane);
    }
    gpuh_impl_cp_async_wait<0>(); /* only empty groups are left; none may outlive the block */

    /* C: lane (g, t) holds (row g and g + 8, columns 2t and 2t + 1) of each
       16 × 8 tile; pairs in one store where C's rows keep them aligned */
    const bool pairs = (uintptr_t)p.C % (2 * sizeof(TOut)) == 0 && p.ldc % 2 == 0;
#pragma unroll
    for (int i = 0; i < L::MT; ++i)
#pragma unroll
        for (int j = 0; j < L::NT; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const size_t row = m0 + wm0 + 16 * i + lane / 4 + 8 * h, col = n0 + wn0 + 8 * j + 2 * (lane % 4);
                if (row < p.M && col < p.N)
                    gpuh_impl_tc_store2(p.C + row * p.ldc + col, acc[i][j][2 * h], acc[i][j][2 * h + 1], p.alpha,
                                        p.beta,
                                        pairs && col + 1 < p.N ? GPUH_IMPL_TC_COVER_PAIR
                                        : col + 1 < p.N        ? GPUH_IMPL_TC_COVER_TWO
                                                               : GPUH_IMPL_TC_COVER_ONE);
            }
#else
    (void)p;
#endif
}
#endif /* GPUH_SIM */


#endif /* GPUH_IMPL_TC_SM80_CUH */
