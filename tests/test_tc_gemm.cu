/* test_tc_gemm.cu - the tensor-core GEMM (gpuh_gemm for bfloat16 / fp16
   inputs, gpuh_gemm_tf32) against a float64 host reference.

   The reference multiplies the inputs as the tensor cores read them
   (bfloat16 and fp16 exactly, a float cut to TF32 toward zero) in float64,
   so the only error allowed is that of the fp32 accumulation over K, plus
   the rounding of alpha, beta and of a 16-bit C:
       |C - ref| <= 2·(K + 3)·2^-24·(|alpha|·Σ|a·b| + |beta·c|) + u_C·|ref| + t_C
   (the factor 2 allows the tensor cores' accumulator to truncate where IEEE
   addition rounds; u_C: 2^-8 for a bfloat16 C, 2^-11 for fp16, 0 for
   float; t_C: half the spacing of C's subnormals, where rounding is
   absolute: 2^-25 for fp16, 2^-134 for bfloat16). Inputs are fresh random numbers (seed printed; GPUH_SEED=<seed>
   reruns), C is filled with NaN bits before the call (beta = 0) or with
   random values inside its window and NaN bits in its padding (beta != 0),
   and every element outside C's window must come back unchanged.

   Covered: bf16 → float, bf16 → bf16, fp16 → float, fp16 → fp16 and TF32,
   every op combination (NN, NT, TN, TT), K = 1, odd M and N, K not a
   multiple of the kernels' slices, padded and odd leading dimensions,
   offset (unaligned) pointers, alpha and beta, K = 0 (C = beta·C), NaN in C
   with beta = 0, M or N = 0, shapes of many tiles of the sm_90a kernel
   (on a GPU), each form of TF32 on the sm_90a kernel (registers or shared
   memory for op(A), roles swapped, a transposing copy), edges and pipeline
   depths of the mma.sync kernel's tiles, the decode kernel's (few rows,
   op_b = T) at random shapes,
   the argument errors with their details (the C entry points: test_kernels.cu). The path
   each type pair takes is printed; built with GPUH_TEST_TC_EXPECT_MMA
   (CMake's test_tc_gemm_sm80: compute_80 PTX alone) the test fails unless
   an sm_80 or later GPU ran the mma.sync kernel.
   Without a device: exit 77. GPUH_TEST_QUICK=1 (the simulator, the
   sanitizer runs): small shapes only.

   nvcc -std=c++17 -arch=sm_90a -DGPUH_USE_CURAND -I. tests/test_tc_gemm.cu -lcurand
   nvcc -std=c++17 -arch=compute_80 -code=compute_80 -DGPUH_TEST_TC_EXPECT_MMA -DGPUH_USE_CURAND -I. tests/test_tc_gemm.cu -lcurand */
#include "gpuh_test.h"
#include "gpuh_kernels.cuh"

#include <cmath>
#include <cstring>
#include <random>
#include <utility>
#include <vector>

#if !GPUH_IMPL_TC
#error "test_tc_gemm.cu needs the half-precision types (on the simulator: sim/include on the include path)"
#endif

static int quick;
static std::mt19937_64 rng;
static double worst_ratio[5]; /* the largest error / bound seen, per type pair */

/* ---------------------------------------------------------------------------
   The types: conversions on the host, names, C's unit roundoff. */
template <typename T> struct tc_type;
template <> struct tc_type<__nv_bfloat16> {
    static __nv_bfloat16 of(float f) { return __float2bfloat16(f); }
    static double read(__nv_bfloat16 x) { return (double)__bfloat162float(x); }
    static const char *name() { return "bf16"; }
    static double unit() { return 1.0 / 256.0; }
    static double tiny() { return ldexp(1.0, -134); } /* half the spacing of its subnormals */
};
template <> struct tc_type<__half> {
    static __half of(float f) { return __float2half(f); }
    static double read(__half x) { return (double)__half2float(x); }
    static const char *name() { return "f16"; }
    static double unit() { return 1.0 / 2048.0; }
    static double tiny() { return ldexp(1.0, -25); } /* half the spacing of its subnormals (below 6.1e-5) */
};
template <> struct tc_type<float> {
    static float of(float f) { return f; }
    /* as an input of gpuh_gemm_tf32: the top 10 mantissa bits */
    static double read(float x)
    {
        unsigned u;
        memcpy(&u, &x, 4);
        u &= 0xffffe000u;
        memcpy(&x, &u, 4);
        return (double)x;
    }
    static const char *name() { return "tf32"; }
    static double unit() { return 0.0; }
    static double tiny() { return 0.0; }
};
/* C's value as stored */
static double c_value(float x) { return (double)x; }
static double c_value(__nv_bfloat16 x) { return (double)__bfloat162float(x); }
static double c_value(__half x) { return (double)__half2float(x); }

template <typename TIn, typename TOut> static int pair_index()
{
    if (sizeof(TIn) == 4)
        return 4;
    const int half = tc_type<TIn>::unit() < 1.0 / 1000.0; /* fp16 */
    return 2 * half + (sizeof(TOut) == 2);
}
static const char *const pair_name[5] = {"bf16 -> f32", "bf16 -> bf16", "f16 -> f32", "f16 -> f16", "tf32 -> f32"};

/* the call under test */
template <typename TIn, typename TOut>
static cudaError_t call(gpuh_op oa, gpuh_op ob, size_t M, size_t N, size_t K, float alpha, const TIn *A, size_t lda,
                        const TIn *B, size_t ldb, float beta, TOut *C, size_t ldc)
{
    return gpuh_gemm(oa, ob, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0);
}
template <>
cudaError_t call<float, float>(gpuh_op oa, gpuh_op ob, size_t M, size_t N, size_t K, float alpha, const float *A,
                               size_t lda, const float *B, size_t ldb, float beta, float *C, size_t ldc)
{
    return gpuh_gemm_tf32(oa, ob, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, 0);
}

static float uniform(float lo, float hi) { return std::uniform_real_distribution<float>(lo, hi)(rng); }

/* All bits 1: a NaN in every float type. */
template <typename T> static T poison_value()
{
    T v;
    memset(static_cast<void *>(&v), 0xff, sizeof v);
    return v;
}

/* ---------------------------------------------------------------------------
   One product: op(A) M × K, op(B) K × N, C M × N; leading dimensions the
   stored row length plus pad_*, pointers `shift` elements past an aligned
   allocation's start. */
struct tc_case {
    gpuh_op oa, ob;
    size_t M, N, K, pad_a, pad_b, pad_c, shift;
    float alpha, beta;
};

/* repeat (beta = 0): the product once more into the same C, which must
   come back bitwise the same (the split part's fixed order of sums). */
template <typename TIn, typename TOut> static void check(const tc_case &c, bool repeat = false)
{
    const bool ta = c.oa == GPUH_OP_T, tb = c.ob == GPUH_OP_T;
    const size_t ra = ta ? c.K : c.M, ca = ta ? c.M : c.K, rb = tb ? c.N : c.K, cb = tb ? c.K : c.N;
    const size_t lda = ca + c.pad_a, ldb = cb + c.pad_b, ldc = c.N + c.pad_c;
    const size_t na = ra * lda + c.shift, nb = rb * ldb + c.shift, nc = c.M * ldc + c.shift + 3;
    std::vector<TIn> ha(na), hb(nb);
    std::vector<TOut> hc(nc, poison_value<TOut>());
    for (auto &x : ha)
        x = tc_type<TIn>::of(uniform(-1.0f, 1.0f));
    for (auto &x : hb)
        x = tc_type<TIn>::of(uniform(-1.0f, 1.0f));
    if (c.beta != 0.0f)
        for (size_t i = 0; i < c.M; ++i)
            for (size_t j = 0; j < c.N; ++j)
                hc[c.shift + i * ldc + j] = tc_type<TOut>::of(uniform(-1.0f, 1.0f));
    TIn *da = NULL, *db = NULL;
    TOut *dc = NULL;
    TEST_CUDA(gpuh_device_array(&da, na > 0 ? na : 1));
    TEST_CUDA(gpuh_device_array(&db, nb > 0 ? nb : 1));
    TEST_CUDA(gpuh_device_array(&dc, nc));
    if (na > 0)
        TEST_CUDA(gpuh_copy_to_device(da, ha.data(), na));
    if (nb > 0)
        TEST_CUDA(gpuh_copy_to_device(db, hb.data(), nb));
    TEST_CUDA(gpuh_copy_to_device(dc, hc.data(), nc));
    const cudaError_t err = call<TIn, TOut>(c.oa, c.ob, c.M, c.N, c.K, c.alpha, da + c.shift, lda, db + c.shift, ldb,
                                            c.beta, dc + c.shift, ldc);
    std::vector<TOut> out(nc);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(gpuh_copy_to_host(out.data(), dc, nc));
    char what[200];
    snprintf(what, sizeof what, "%s %c%c M %zu N %zu K %zu lda %zu ldb %zu ldc %zu shift %zu alpha %g beta %g",
             pair_name[pair_index<TIn, TOut>()], ta ? 'T' : 'N', tb ? 'T' : 'N', c.M, c.N, c.K, lda, ldb, ldc,
             c.shift, c.alpha, c.beta);
    if (!TEST_ASSERT(err == cudaSuccess, "%s: %s (%s)", what, cudaGetErrorName(err), gpuh_error_detail()))
        goto done;
    {
        /* op(A) as rows of K and op(B) as columns of K, in double */
        std::vector<double> a(c.M * c.K), bt(c.N * c.K);
        for (size_t i = 0; i < c.M; ++i)
            for (size_t k = 0; k < c.K; ++k)
                a[i * c.K + k] = tc_type<TIn>::read(ha[c.shift + (ta ? k * lda + i : i * lda + k)]);
        for (size_t j = 0; j < c.N; ++j)
            for (size_t k = 0; k < c.K; ++k)
                bt[j * c.K + k] = tc_type<TIn>::read(hb[c.shift + (tb ? j * ldb + k : k * ldb + j)]);
        const double u = 1.0 / 16777216.0, uc = tc_type<TOut>::unit();
        size_t bad = 0, outside = 0;
        double worst = 0.0;
        for (size_t i = 0; i < c.M; ++i)
            for (size_t j = 0; j < c.N; ++j) {
                double s = 0.0, sa = 0.0;
                const double *x = &a[i * c.K], *y = &bt[j * c.K];
                for (size_t k = 0; k < c.K; ++k)
                    s += x[k] * y[k], sa += fabs(x[k] * y[k]);
                const double c0 = c.beta != 0.0f ? c_value(hc[c.shift + i * ldc + j]) : 0.0;
                const double ref = (double)c.alpha * s + (double)c.beta * c0;
                const double bound = 2.0 * (double)(c.K + 3) * u * (fabs((double)c.alpha) * sa +
                                                                     fabs((double)c.beta * c0)) +
                                     uc * fabs(ref) + tc_type<TOut>::tiny() + 1e-30;
                const double got = c_value(out[c.shift + i * ldc + j]);
                const double e = fabs(got - ref);
                if (!(e <= bound)) {
                    if (bad++ < 3)
                        TEST_ASSERT(false, "%s: C[%zu][%zu] = %.9g, reference %.9g, error %.3g > bound %.3g", what, i,
                                    j, got, ref, e, bound);
                } else if (e / bound > worst)
                    worst = e / bound;
            }
        /* nothing outside C's window written: the padding and the margins keep their bits */
        for (size_t e = 0; e < nc; ++e) {
            const bool inside = e >= c.shift && (e - c.shift) / ldc < c.M && (e - c.shift) % ldc < c.N;
            if (!inside && memcmp(&out[e], &hc[e], sizeof(TOut)) != 0)
                ++outside;
        }
        if (repeat && c.beta == 0.0f) {
            std::vector<TOut> again(nc);
            const cudaError_t again_err = call<TIn, TOut>(c.oa, c.ob, c.M, c.N, c.K, c.alpha, da + c.shift, lda,
                                                          db + c.shift, ldb, c.beta, dc + c.shift, ldc);
            TEST_CUDA(again_err);
            TEST_CUDA(cudaDeviceSynchronize());
            TEST_CUDA(gpuh_copy_to_host(again.data(), dc, nc));
            TEST_ASSERT(memcmp(again.data(), out.data(), nc * sizeof(TOut)) == 0, "%s: a second call differs", what);
        }
        TEST_ASSERT(bad == 0, "%s: %zu elements of C outside their bound", what, bad);
        TEST_ASSERT(outside == 0, "%s: %zu elements outside C's window written", what, outside);
        double &w = worst_ratio[pair_index<TIn, TOut>()];
        w = worst > w ? worst : w;
    }
done:
    TEST_CUDA(gpuh_free(da));
    TEST_CUDA(gpuh_free(db));
    TEST_CUDA(gpuh_free(dc));
}

/* Every type pair on one case. */
static void check_all(const tc_case &c)
{
    check<__nv_bfloat16, float>(c);
    check<__nv_bfloat16, __nv_bfloat16>(c);
    check<__half, float>(c);
    check<__half, __half>(c);
    check<float, float>(c);
}

static void test_shapes()
{
    const gpuh_op ops[2] = {GPUH_OP_N, GPUH_OP_T};
    /* small and awkward: K = 1, odd M and N, K not a multiple of 16 or 64,
       padded and odd leading dimensions, offset pointers, alpha and beta */
    const size_t small[][3] = {{1, 1, 1}, {3, 5, 1}, {17, 33, 7}, {64, 64, 64}, {65, 63, 129}, {7, 130, 40}};
    int n = 0;
    for (auto &s : small)
        for (gpuh_op oa : ops)
            for (gpuh_op ob : ops) {
                const int v = n++ % 4;
                tc_case c = {oa, ob, s[0], s[1], s[2], 0, 0, 0, 0, 1.0f, 0.0f};
                if (v == 1)
                    c.pad_a = 3, c.pad_b = 8, c.pad_c = 5, c.alpha = -0.75f, c.beta = 0.5f;
                else if (v == 2)
                    c.pad_a = 8, c.pad_b = 1, c.shift = 1, c.beta = -2.0f;
                else if (v == 3)
                    c.pad_a = 16, c.pad_b = 16, c.pad_c = 4, c.alpha = 2.0f;
                check_all(c);
            }
    if (quick)
        return;
    /* many tiles of the sm_90a kernel (128 × 256 × 64), ragged edges, long K;
       aligned (TMA straight from the matrices) and not (aligned copies) */
    const size_t big[][3] = {{128, 256, 64}, {300, 520, 777}, {1000, 1000, 1000}, {257, 263, 4099}, {1024, 2048, 512}};
    for (auto &s : big)
        for (gpuh_op oa : ops)
            for (gpuh_op ob : ops) {
                const int v = n++ % 3;
                tc_case c = {oa, ob, s[0], s[1], s[2], 0, 0, 0, 0, 1.0f, 0.0f};
                if (v == 1)
                    c.pad_a = 1, c.pad_c = 3, c.beta = 0.25f;
                else if (v == 2)
                    c.shift = 3, c.pad_b = 8, c.alpha = 0.5f, c.beta = -1.0f;
                check_all(c);
            }
    /* more tiles than an H200 has SMs (180 of 128 × 256 on 132): the
       persistent blocks take several tiles each */
    check_all({GPUH_OP_N, GPUH_OP_N, 2560, 2304, 768, 0, 0, 0, 0, 1.0f, 0.0f});
    check_all({GPUH_OP_T, GPUH_OP_T, 2500, 2300, 300, 0, 0, 0, 0, 1.0f, 0.5f});
    /* interior tiles stored in whole lines (C's rows padded by 4 elements and
       its pointer 4 on, which keep groups of 4 aligned), alpha and beta, in
       each op pair */
    for (gpuh_op oa : ops)
        for (gpuh_op ob : ops)
            check_all({oa, ob, 1000, 1100, 200, 0, 0, 4, 4, -0.5f, 0.75f});
}

/* Both operands' rows off the 32-byte sectors (row pitches of 16 mod 32
   bytes, or a pointer 16 bytes off): the sm_90a path copies the cheaper
   operand into rows of 128 bytes first (gpuh_pack_rows_kernel) when the
   product is long enough beside the copy; the shapes here are (N or M of
   12296 against 136 rows or columns), and on a GPU that runs the sm_90a
   kernel the rule is checked to pick them. Each op pair, A or B the one
   copied, padded rows that stay skewed, a shifted pointer, beta != 0, C
   in float and in the input type. */
static void test_skewed_rows()
{
    if (quick)
        return;
    const size_t L = 12296, S = 136, K = 72; /* all 8 mod 16: 16-bit rows of 16 mod 32 bytes */
    const tc_case cases[] = {
        {GPUH_OP_N, GPUH_OP_N, S, L, K, 0, 0, 0, 0, 1.0f, 0.0f},     /* A copied */
        {GPUH_OP_N, GPUH_OP_N, L, S, K, 16, 0, 3, 0, -1.5f, 0.5f},   /* B copied, A's rows padded by 32 bytes */
        {GPUH_OP_T, GPUH_OP_N, S, L, K, 0, 16, 0, 0, 1.0f, 0.0f},    /* Aᵀ copied */
        {GPUH_OP_N, GPUH_OP_T, L, S, K, 0, 0, 0, 0, 0.5f, 0.0f},     /* Bᵀ copied */
        {GPUH_OP_T, GPUH_OP_T, S, L, K, 0, 0, 1, 0, 1.0f, -1.0f},    /* Aᵀ copied */
        {GPUH_OP_N, GPUH_OP_N, S, L - 8, 64, 0, 0, 0, 8, 1.0f, 0.0f}, /* aligned pitches, pointers 16 bytes off */
    };
#ifndef GPUH_SIM
    int dev = 0;
    TEST_CUDA(cudaGetDevice(&dev));
    if (gpuh_impl_tc_hopper_ready<__nv_bfloat16, float>())
        for (const tc_case &c : cases) {
            const double flops = 2.0 * (double)c.M * (double)c.N * (double)c.K;
            const double small = (double)(c.M < c.N ? c.M : c.N) * (double)c.K * 2.0;
            TEST_ASSERT(gpuh_impl_tc_copy_pays(small, flops, 2, dev), "M %zu N %zu K %zu: the aligning copy not chosen",
                        c.M, c.N, c.K);
        }
#endif
    for (const tc_case &c : cases) {
        check<__nv_bfloat16, float>(c);
        check<__nv_bfloat16, __nv_bfloat16>(c);
        check<__half, float>(c);
        check<__half, __half>(c);
    }
}

#ifndef GPUH_SIM
/* The launcher's choice of tile width and cluster size for a 16-bit
   product on this GPU, where it runs the sm_90a kernel on 132 SMs in 66
   clusters of 2 (H100 SXM, H200), as the shapes below were chosen for;
   ranks 0 elsewhere. */
static gpuh_impl_tc_choice hopper_choice(size_t M, size_t N, size_t K)
{
    int dev = 0, sms = 0, clusters = 0;
    gpuh_impl_tc_choice none = {0, 0};
    TEST_CUDA(cudaGetDevice(&dev));
    TEST_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    if (!gpuh_impl_tc_hopper_ready<__nv_bfloat16, float>())
        return none;
    TEST_CUDA((gpuh_impl_tc_clusters<__nv_bfloat16, float, false, true>(dev, &clusters)));
    return sms == 132 && clusters == 66 ? gpuh_impl_tc_choose(M, N, (K + 63) / 64, sms, clusters) : none;
}
#endif

/* The sm_90a kernel's two tile widths (128 × 256 and 128 × 128 of C) and
   two cluster sizes, each reached by shapes the launcher's model gives it
   (checked where the sm_90a kernel runs on 66 clusters of 2): in clusters
   of 2, wide tiles in one wave (5 × 8 pairs of them) and in several
   (16 × 16), narrow ones in one wave (4 × 8) and in several (10 × 18); in
   single blocks, 3 × 36 wide tiles (in pairs, 2 × 36 would take two
   waves) and 5 × 24 narrow ones; each op pair, ragged edges (a cluster's
   second tile wholly below C where the rows of tiles are odd), K not a
   multiple of the slice. */
static void test_tile_widths()
{
    if (quick)
        return;
    const struct {
        size_t M, N, K;
        int width, ranks;
    } shapes[] = {{1100, 1800, 136, 256, 2}, {4096, 4096, 40, 256, 2}, {1000, 1000, 300, 128, 2},
                  {2560, 2304, 72, 128, 2},  {300, 9000, 200, 256, 1},  {640, 3000, 300, 128, 1}};
#ifndef GPUH_SIM
    for (const auto &sh : shapes) {
        const gpuh_impl_tc_choice got = hopper_choice(sh.M, sh.N, sh.K);
        TEST_ASSERT(got.ranks == 0 || (got.bn == sh.width && got.ranks == sh.ranks),
                    "M %zu N %zu K %zu: tile width %d in clusters of %d, not %d in clusters of %d", sh.M, sh.N, sh.K,
                    got.bn, got.ranks, sh.width, sh.ranks);
    }
#endif
    const gpuh_op ops[2] = {GPUH_OP_N, GPUH_OP_T};
    int n = 0;
    for (const auto &sh : shapes)
        for (gpuh_op oa : ops)
            for (gpuh_op ob : ops) {
                tc_case c = {oa, ob, sh.M, sh.N, sh.K, 0, 0, 0, 0, 1.0f, 0.0f};
                if (n++ % 2)
                    c.pad_a = 8, c.pad_c = 2, c.alpha = 0.5f, c.beta = 0.75f;
                if (sh.M * sh.N * sh.K > ((size_t)1 << 28)) /* large: one pair of types per op pair */
                    n % 4 == 1 ? check<__nv_bfloat16, float>(c) : n % 4 == 2 ? check<__half, __half>(c)
                    : n % 4 == 3 ? check<float, float>(c) : check<__nv_bfloat16, __nv_bfloat16>(c);
                else
                    check_all(c);
            }
}

/* The sm_90a kernel's shared part (gpuh_impl_tc_work), walked on the host
   for random plans (C's shape, slices, cluster counts, cluster sizes, both
   tile widths): every k-slice of every unit of tiles is taken exactly
   once; a cluster takes its whole units first, then its share of the
   shared part from the last unit to the first, a partial (a segment that
   stops short of K) only as the first of these and an owned unit (from
   the middle to K) only as the last, each named so by the walk's role();
   the slices an owner does not hold are the partials of the clusters from
   the holder of the unit's first slice (gpuh_impl_tc_holder) to the one
   below it, each on this unit; no more sharers than slices to share (an
   empty share puts no partial, and its owner would wait for it for ever);
   no more clusters than run at once, and the
   whole units in whole waves where there is a shared part. */
static void test_split_walk()
{
#ifndef GPUH_SIM /* the sm_90a path's plan: not in the simulator's build */
    int bad = 0, shared = 0;
    for (int trial = 0; trial < 3000 && bad < 3; ++trial) {
        const int clusters = 1 + (int)(rng() % 200);
        const size_t ktiles = 1 + rng() % (trial % 3 ? 40 : 400);
        const size_t M = 1 + rng() % 6000, N = 1 + rng() % 6000;
        const int bn = trial % 2 ? GPUH_IMPL_TC_BN : GPUH_IMPL_TC_BN_NARROW;
        gpuh_impl_tc_work w;
        const int ranks = 1 + (int)(rng() % 2);
        (void)gpuh_impl_tc_plan(M, N, ranks, bn, ktiles, clusters, &w);
        shared += w.units > 0;
        const unsigned grid =
            w.units > 0 || w.tiles > (unsigned long long)clusters ? (unsigned)clusters : (unsigned)w.tiles;
        std::vector<int> seen(w.tiles * ktiles, 0);
        std::vector<long long> partial_of(grid, -1); /* the unit each cluster leaves a partial on */
        std::vector<std::pair<unsigned long long, int>> owned;  /* (unit, first slice held) per owner, by cluster */
        std::vector<unsigned> owner;
        bool ok = w.dp <= w.tiles && (w.units == 0) == (w.dp == w.tiles) && w.units <= grid &&
                  (w.units == 0 || w.dp % grid == 0) && w.units <= (w.tiles - w.dp) * ktiles;
        for (unsigned b = 0; b < grid && ok; ++b) {
            gpuh_impl_tc_walk walk(b);
            unsigned long long t, last = ~0ull;
            int k0, k1, segments = 0;
            bool in_shared = false, owns = false;
            while (ok && walk.next(w, grid, (int)ktiles, t, k0, k1)) {
                ok = t < w.tiles && 0 <= k0 && k0 < k1 && k1 <= (int)ktiles && !owns &&
                     walk.role(w, (int)ktiles) == (k1 < (int)ktiles ? 1 : k0 > 0 ? 2 : 0);
                if (t < w.dp)
                    ok = ok && !in_shared && k0 == 0 && k1 == (int)ktiles;
                else {
                    ok = ok && (!in_shared || t < last) && (k1 == (int)ktiles || segments == 0);
                    const unsigned long long s0 = (t - w.dp) * ktiles + k0, s1 = (t - w.dp) * ktiles + k1 - 1;
                    ok = ok && gpuh_impl_tc_holder(w, (int)ktiles, s0) == b &&
                         gpuh_impl_tc_holder(w, (int)ktiles, s1) == b;
                    if (k1 < (int)ktiles)
                        partial_of[b] = (long long)t;
                    if (k0 > 0 && k1 == (int)ktiles)
                        owns = true, owned.push_back(std::make_pair(t, k0)), owner.push_back(b);
                    in_shared = true, last = t, ++segments;
                }
                for (int k = k0; ok && k < k1; ++k)
                    ++seen[t * ktiles + k];
            }
        }
        for (size_t i = 0; ok && i < seen.size(); ++i)
            ok = seen[i] == 1;
        for (size_t o = 0; ok && o < owned.size(); ++o) {
            const unsigned first = gpuh_impl_tc_holder(w, (int)ktiles, (owned[o].first - w.dp) * ktiles);
            ok = first < owner[o];
            for (unsigned b = first; ok && b < owner[o]; ++b)
                ok = partial_of[b] == (long long)owned[o].first;
        }
        for (unsigned b = 0; ok && b < grid; ++b) /* every partial is on a unit with an owner */
            if (partial_of[b] >= 0) {
                bool found = false;
                for (size_t o = 0; o < owned.size(); ++o)
                    found = found || owned[o].first == (unsigned long long)partial_of[b];
                ok = found;
            }
        if (!TEST_ASSERT(ok, "M %zu N %zu tile width %d in clusters of %d, %zu slices, %d clusters: dp %llu of %llu "
                             "units, shared by %u: walk wrong",
                         M, N, bn, ranks, ktiles, clusters, w.dp, w.tiles, w.units))
            ++bad;
    }
    TEST_ASSERT(shared > 100, "only %d of 3000 random plans have a shared part", shared);
#endif
}

/* Products through the shared part on a GPU that runs the sm_90a kernel
   (on 66 clusters of 2, checked to take it): in clusters of 2, fewer
   pairs of tiles than clusters with a long K, a few pairs of many runs
   each, a wave and some pairs more shared out by all clusters, and 40
   pairs shared out by 66 clusters (the two largest, with one pair of
   types); in single blocks, a row of tiles of 4 runs each; each op pair,
   padding, alpha and beta, and bitwise the same on a second call (the
   owner's fixed order of sums). */
static void test_split_shapes()
{
    if (quick)
        return;
    const tc_case cases[] = {
        {GPUH_OP_N, GPUH_OP_N, 1000, 700, 3000, 0, 0, 0, 0, 1.0f, 0.0f},
        {GPUH_OP_T, GPUH_OP_N, 130, 260, 8000, 8, 0, 2, 0, -0.5f, 0.0f},
        {GPUH_OP_N, GPUH_OP_T, 1194, 3334, 2500, 0, 8, 0, 0, 1.0f, 0.0f},
        {GPUH_OP_T, GPUH_OP_T, 515, 1300, 2498, 0, 0, 3, 0, 0.75f, -0.5f},
        {GPUH_OP_T, GPUH_OP_N, 64, 3000, 4000, 0, 0, 0, 0, 1.0f, 0.0f}, /* op_b = N: not the decode kernel's */
        {GPUH_OP_N, GPUH_OP_N, 1100, 1984, 4000, 0, 0, 0, 0, 1.0f, 0.0f},
    };
#ifndef GPUH_SIM
    const int ranks[] = {2, 2, 2, 2, 1, 2}; /* the cluster size each case is chosen for */
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        const tc_case &c = cases[i];
        const gpuh_impl_tc_choice got = hopper_choice(c.M, c.N, c.K);
        if (got.ranks == 0)
            continue;
        gpuh_impl_tc_work w;
        (void)gpuh_impl_tc_plan(c.M, c.N, got.ranks, got.bn, (c.K + 63) / 64, got.ranks == 2 ? 66 : 132, &w);
        TEST_ASSERT(w.units > 0 && got.ranks == ranks[i], "M %zu N %zu K %zu: %s in clusters of %d, not a shared "
                    "part in clusters of %d", c.M, c.N, c.K, w.units > 0 ? "a shared part" : "no shared part",
                    got.ranks, ranks[i]);
    }
#endif
    for (const tc_case &c : cases) {
        check<__nv_bfloat16, float>(c, true);
        if (c.M * c.N * c.K < ((size_t)1 << 33)) { /* the largest once only */
            check<__half, __half>(c, true);
            check<float, float>(c, true);
        }
    }
}

/* TF32 on the sm_90a kernel in each of its forms (gpuh_impl_tc_tf32_form):
   both operands from shared memory (NT), op(A) from registers (TT), the
   roles swapped and C stored transposed (NN), and TN with a transposing
   copy of A (M <= N) or of B (M > N) first. Odd M and N (the transposed
   store's last pair cut in half), K = 1 and K ragged in a slice, odd ldc
   (no paired stores), beta != 0, an operand copied to aligned rows, more
   tiles than SMs, both tile widths. */
static void test_tf32_forms()
{
#ifndef GPUH_SIM
    TEST_ASSERT(gpuh_impl_tc_tf32_form(0, 1, 9, 9) == 0 && gpuh_impl_tc_tf32_form(1, 1, 9, 9) == 1 &&
                    gpuh_impl_tc_tf32_form(0, 0, 9, 9) == 2 && gpuh_impl_tc_tf32_form(1, 0, 9, 10) == 3 &&
                    gpuh_impl_tc_tf32_form(1, 0, 10, 9) == 4,
                "the TF32 forms of NT, TT, NN, TN (M <= N), TN (M > N)");
#endif
    const gpuh_op N = GPUH_OP_N, T = GPUH_OP_T;
    const tc_case small[] = {
        {N, N, 1, 1, 1, 0, 0, 0, 0, 1.0f, 0.0f},        {N, N, 129, 67, 33, 0, 0, 3, 0, 1.0f, 0.5f},
        {N, N, 70, 131, 8, 1, 0, 0, 0, -0.5f, 0.0f},    {T, T, 131, 70, 41, 0, 0, 1, 0, 1.0f, 0.25f},
        {T, N, 65, 190, 33, 0, 0, 0, 0, 1.0f, -1.0f},   {T, N, 190, 65, 31, 0, 3, 2, 0, 0.75f, 0.0f},
        {N, T, 100, 120, 50, 0, 0, 0, 1, 1.0f, 0.5f},
    };
    for (const tc_case &c : small)
        check<float, float>(c);
    if (quick)
        return;
    const tc_case big[] = {
        {N, N, 300, 1000, 777, 0, 0, 0, 0, 1.0f, 0.0f},   {N, N, 2560, 2304, 100, 0, 0, 0, 0, 2.0f, 0.0f},
        {N, N, 1000, 999, 1000, 1, 0, 0, 0, 1.0f, -1.0f}, {N, N, 4096, 4096, 40, 0, 0, 2, 0, 1.0f, 0.5f},
        {T, T, 1500, 700, 555, 0, 0, 0, 0, 1.0f, 0.0f},   {T, T, 2500, 2300, 97, 0, 4, 0, 0, 1.0f, 0.5f},
        {T, N, 600, 1700, 129, 0, 0, 0, 0, 1.0f, 0.5f},   {T, N, 1700, 600, 300, 0, 0, 1, 0, -1.0f, 0.0f},
        {N, N, 257, 263, 4099, 0, 0, 0, 0, 1.0f, 0.0f},
    };
    for (const tc_case &c : big)
        check<float, float>(c);
}

/* K = 0 gives C = beta·C; M or N = 0 does nothing (NULL pointers allowed);
   beta = 0 never reads C (its NaN does not leak). */
static void test_edges()
{
    check_all({GPUH_OP_N, GPUH_OP_N, 5, 7, 0, 0, 0, 2, 0, 1.0f, 0.5f});
    check_all({GPUH_OP_T, GPUH_OP_N, 5, 7, 0, 0, 0, 2, 0, 1.0f, 0.0f});
    TEST_CUDA(gpuh_gemm(0, 5, 7, 1.0f, (const __nv_bfloat16 *)NULL, 7, (const __nv_bfloat16 *)NULL, 5, 0.0f,
                        (float *)NULL, 5));
    TEST_CUDA(gpuh_gemm_tf32(4, 0, 7, 1.0f, (const float *)NULL, 7, (const float *)NULL, 0, 0.0f, (float *)NULL, 0));
}

/* The argument errors: gpuh_gemm's checks and details, with each function's name. */
static void test_arguments()
{
    __nv_bfloat16 *a = NULL;
    float *cf = NULL, *x = NULL;
    TEST_CUDA(gpuh_device_array(&a, 64));
    TEST_CUDA(gpuh_device_array(&cf, 20));
    TEST_CUDA(gpuh_device_array(&x, 64));
    TEST_DETAIL(gpuh_gemm(GPUH_OP_N, GPUH_OP_N, 4, 5, 7, 1.0f, a, 5, a, 5, 0.0f, cf, 5), cudaErrorInvalidValue,
                "gpuh_gemm: lda = 5 is less than op(A)'s stored row length 7 (op_a = N)");
    TEST_DETAIL(gpuh_gemm((gpuh_op)2, GPUH_OP_N, 4, 5, 7, 1.0f, a, 7, a, 5, 0.0f, cf, 5), cudaErrorInvalidValue,
                "gpuh_gemm: op_a = 2 is neither GPUH_OP_N nor GPUH_OP_T");
    TEST_DETAIL(gpuh_gemm_tf32(GPUH_OP_N, GPUH_OP_T, 4, 5, 7, 1.0f, x, 7, x, 6, 0.0f, cf, 5), cudaErrorInvalidValue,
                "gpuh_gemm_tf32: ldb = 6 is less than op(B)'s stored row length 7 (op_b = T)");
    TEST_DETAIL(gpuh_gemm(4, 5, 7, 1.0f, a, 7, (const __nv_bfloat16 *)NULL, 5, 0.0f, cf, 5), cudaErrorInvalidValue,
                "gpuh_gemm: d_B is NULL (M 4, N 5, K 7)");
    /* C of float: 4 × 6 floats do not fit in 20 (they would as bfloat16) */
    TEST_ASSERT(gpuh_gemm(4, 6, 7, 1.0f, a, 7, a, 6, 0.0f, cf, 6) == cudaErrorInvalidValue &&
                    strstr(gpuh_error_detail(), "d_C") != NULL,
                "a float C past its allocation: %s", gpuh_error_detail());
    /* A of 65 bfloat16 elements in an allocation of 64 */
    TEST_ASSERT(gpuh_gemm(5, 2, 13, 1.0f, a, 13, a, 2, 0.0f, cf, 2) == cudaErrorInvalidValue &&
                    strstr(gpuh_error_detail(), "d_A") != NULL,
                "A past its allocation: %s", gpuh_error_detail());
    /* A C wider than a grid covers (1 × (2^38 + 64), K = 0: the CUDA-core
       path, 2^32 + 1 columns of blocks) is refused, never run on a wrapped
       grid; C lies in memory gpuh does not track, so only the grid can refuse it. */
    float *raw = NULL;
    TEST_CUDA(cudaMalloc(&raw, 256));
    const size_t wide = ((size_t)1 << 38) + 64;
    TEST_ASSERT(gpuh_gemm(1, wide, 0, 1.0f, a, 1, a, wide, 0.0f, raw, wide) == cudaErrorInvalidValue,
                "a C of 1 x %zu (K = 0): not refused (%s)", wide, gpuh_error_detail());
    TEST_CUDA(cudaFree(raw));
    TEST_CUDA(gpuh_free(a));
    TEST_CUDA(gpuh_free(cf));
    TEST_CUDA(gpuh_free(x));
}

/* The decode kernel's products (M ≤ GPUH_IMPL_TC_DECODE_MAX_M, op_b = T;
   gpuh/tc_decode.cuh and, where the sm_90a kernel is there, its sm_90a
   form, gpuh/tc_decode_sm90.cuh) and their neighbours up to M = 80 at
   random shapes: both op_a, op(A)'s rows aligned or not (copied first), K
   in one part or cut in several, N not a multiple of the kernel's tiles,
   beta 0 (then the product is made twice, bitwise the same) and not. On a
   GPU of sm_80 or later each with few enough rows must take that kernel,
   in its sm_90a form where the sm_90a kernel is there. */
static void test_decode_shapes()
{
    const int draws = quick ? 3 : 8;
    for (int i = 0; i < draws; ++i) {
        tc_case c = {GPUH_OP_N, GPUH_OP_T, 0, 0, 0, 0, 0, 0, 0, 1.0f, 0.0f};
        c.oa = rng() % 2 ? GPUH_OP_T : GPUH_OP_N;
        c.M = 1 + rng() % 80;
        c.N = 1 + rng() % (quick ? 300 : 1000);
        c.K = 8 * (1 + rng() % (quick ? 64 : 256));
        c.pad_a = rng() % 3 == 0 ? rng() % 9 : 0;
        c.pad_b = 8 * (rng() % 2);
        c.pad_c = rng() % 5;
        c.alpha = uniform(-2.0f, 2.0f);
        c.beta = i % 3 == 0 ? 0.0f : uniform(-1.0f, 1.0f);
#ifndef GPUH_SIM
        int dev = 0, major = 0;
        TEST_CUDA(cudaGetDevice(&dev));
        TEST_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
        gpuh_impl_tc_args<__nv_bfloat16, float> a = {};
        a.M = c.M, a.N = c.N, a.K = c.K, a.ldb = c.K + c.pad_b, a.tb = 1;
        a.B = reinterpret_cast<const __nv_bfloat16 *>(256); /* the alignment is what is asked */
        const bool want = major >= 8 && c.M <= GPUH_IMPL_TC_DECODE_MAX_M;
        TEST_ASSERT(gpuh_impl_tc_decodes(a) == want, "M %zu N %zu K %zu ldb %zu: the decode kernel %s", c.M, c.N, c.K,
                    a.ldb, want ? "not taken" : "taken");
        if (want && gpuh_impl_tc_hopper_ready<__nv_bfloat16, float>())
            TEST_ASSERT((gpuh_impl_tc_decode90_blocks<__nv_bfloat16, float>(c.M) > 0),
                        "M %zu: the decode kernel's sm_90a form not there", c.M);
#endif
        check<__nv_bfloat16, float>(c, true);
        check<__nv_bfloat16, __nv_bfloat16>(c, true);
        check<__half, float>(c, true);
        check<__half, __half>(c, true);
    }
}

/* Split-K's scratch (gpuh_impl_gemm_scratch): the device's is lent to the
   stream that asked first (stream 0, by the tests before), and each call
   leaves its counters zero for the next; other streams, and a stream being
   captured into a graph, get scratch of their own. One product (checked
   against the reference first) on stream 0, on two other streams at once,
   in a graph captured on one of them and launched twice, and on stream 0
   again: C bitwise the same every time (the parts' fixed order), C
   poisoned before each. */
template <typename TIn, typename TOut> static void check_streams(const tc_case &c)
{
    check<TIn, TOut>(c);
#ifndef GPUH_SIM
    const bool ta = c.oa == GPUH_OP_T, tb = c.ob == GPUH_OP_T;
    const size_t lda = ta ? c.M : c.K, ldb = tb ? c.K : c.N, na = c.M * c.K, nb = c.K * c.N, nc = c.M * c.N;
    std::vector<TIn> ha(na), hb(nb);
    for (auto &x : ha)
        x = tc_type<TIn>::of(uniform(-1.0f, 1.0f));
    for (auto &x : hb)
        x = tc_type<TIn>::of(uniform(-1.0f, 1.0f));
    TIn *da = NULL, *db = NULL;
    TOut *dc[3] = {NULL, NULL, NULL};
    cudaStream_t s[2] = {NULL, NULL};
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    std::vector<TOut> first(nc), got(nc);
    TEST_CUDA(gpuh_to_device(&da, ha.data(), na));
    TEST_CUDA(gpuh_to_device(&db, hb.data(), nb));
    for (int i = 0; i < 3; ++i)
        TEST_CUDA(gpuh_device_array(&dc[i], nc));
    for (int i = 0; i < 2; ++i)
        TEST_CUDA(gpuh_stream_create(&s[i], cudaStreamNonBlocking, 0));
    auto run = [&](TOut *C, cudaStream_t stream) {
        TEST_CUDA(cudaMemsetAsync(C, 0xff, nc * sizeof(TOut), stream));
        TEST_CUDA(gpuh_gemm(c.oa, c.ob, c.M, c.N, c.K, c.alpha, da, lda, db, ldb, 0.0f, C, c.N, stream));
    };
    auto same = [&](const TOut *C, const char *where) {
        TEST_CUDA(cudaDeviceSynchronize());
        TEST_CUDA(gpuh_copy_to_host(got.data(), C, nc));
        TEST_ASSERT(memcmp(got.data(), first.data(), nc * sizeof(TOut)) == 0, "%s %c%c M %zu N %zu K %zu: %s differs",
                    pair_name[pair_index<TIn, TOut>()], ta ? 'T' : 'N', tb ? 'T' : 'N', c.M, c.N, c.K, where);
    };
    run(dc[0], 0);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(gpuh_copy_to_host(first.data(), dc[0], nc));
    run(dc[1], s[0]);
    run(dc[2], s[1]);
    same(dc[1], "on a second stream");
    same(dc[2], "on a third stream, beside the second");
    TEST_CUDA(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeRelaxed));
    run(dc[1], s[0]);
    TEST_CUDA(cudaStreamEndCapture(s[0], &graph));
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int i = 0; i < 2; ++i) {
        TEST_CUDA(cudaGraphLaunch(exec, s[0]));
        same(dc[1], i ? "a captured graph's second launch" : "a captured graph's launch");
    }
    for (int i = 0; i < 2; ++i) {
        run(dc[0], 0);
        same(dc[0], "on stream 0 again");
    }
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(graph));
    for (int i = 0; i < 2; ++i)
        TEST_CUDA(gpuh_stream_destroy(&s[i]));
    TEST_CUDA(gpuh_free(da));
    TEST_CUDA(gpuh_free(db));
    for (int i = 0; i < 3; ++i)
        TEST_CUDA(gpuh_free(dc[i]));
#endif
}

/* The scratch on the decode kernel (counters per tile: 29 rows, which it
   takes on every device) and on the sm_90a kernel's shared part (flags per
   block). Then the release that runs at exit, called here (it takes the
   library's lock, which is not recursive: a release that asks for the
   context's ID under it never returns, and the test runs past its time
   limit), and a product after it, on a scratch made anew. */
static void test_split_streams()
{
    const tc_case decode = {GPUH_OP_N, GPUH_OP_T, 29, 999, 4096, 0, 0, 0, 0, 1.0f, 0.0f};
    check_streams<__nv_bfloat16, __nv_bfloat16>(decode);
    if (!quick)
        check_streams<__nv_bfloat16, float>({GPUH_OP_N, GPUH_OP_N, 1000, 700, 3000, 0, 0, 0, 0, 1.0f, 0.0f});
#ifndef GPUH_SIM
    gpuh_impl_gemm_scratch_release();
    check<__nv_bfloat16, float>(decode);
#endif
}

/* ---------------------------------------------------------------------------
   The mma.sync kernel (sm_80 and later where no sm_90a code is built). */

/* The path each type pair takes on this device; a build for compute_80
   alone (GPUH_TEST_TC_EXPECT_MMA, the gpu.tc_gemm.sm80 test) must take the
   mma.sync kernel on any sm_80 or later GPU, so that its shapes below test
   that kernel and not another. */
static void test_mma_path()
{
    static const char *const names[3] = {"CUDA cores", "mma.sync", "sm_90a wgmma"};
    const int path[5] = {gpuh_impl_tc_path<__nv_bfloat16, float>(), gpuh_impl_tc_path<__nv_bfloat16, __nv_bfloat16>(),
                         gpuh_impl_tc_path<__half, float>(), gpuh_impl_tc_path<__half, __half>(),
                         gpuh_impl_tc_path<float, float>()};
    int major = 0;
    TEST_CUDA(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    for (int i = 0; i < 5; ++i) {
        printf("%-13s path: %s\n", pair_name[i], names[path[i]]);
#ifdef GPUH_TEST_TC_EXPECT_MMA
        TEST_ASSERT(major < 8 || path[i] == 1, "%s: the %s path on compute capability %d.x, not mma.sync",
                    pair_name[i], names[path[i]], major);
#endif
    }
}

/* Shapes for the mma.sync kernel's 128 × 128 tiles and its pipeline of
   64-byte slices of K: edges of M and N inside a tile, K ragged inside a
   16-byte chunk (copied in part, the rest zero-filled) and inside a slice,
   K = 1, K of one slice and of more slices than the pipeline's stages.
   Variant 0 pads each stored row of A and B to whole 16 bytes (read in
   place); 1 leaves them odd, 2 shifts the pointers by 2 elements (both
   copied to aligned workspaces first); C odd-strided with beta != 0. */
static void test_mma_shapes()
{
    const gpuh_op ops[2] = {GPUH_OP_N, GPUH_OP_T};
    const size_t small[][3] = {{129, 136, 203}, {8, 264, 1}, {17, 9, 33}, {130, 129, 16}, {200, 72, 520}};
    const size_t big[][3] = {{300, 400, 1500}, {1031, 515, 777}};
    int n = 0;
    for (int b = 0; b < (quick ? 1 : 2); ++b)
        for (size_t s = 0; s < (b ? sizeof big / sizeof big[0] : sizeof small / sizeof small[0]); ++s)
            for (gpuh_op oa : ops)
                for (gpuh_op ob : ops) {
                    const size_t *d = b ? big[s] : small[s];
                    tc_case c = {oa, ob, d[0], d[1], d[2], 0, 0, 0, 0, 1.0f, 0.0f};
                    const size_t ca = oa == GPUH_OP_T ? c.M : c.K, cb = ob == GPUH_OP_T ? c.K : c.N;
                    c.pad_a = (8 - ca % 8) % 8, c.pad_b = (8 - cb % 8) % 8;
                    const int v = n++ % 3;
                    if (v == 1)
                        c.pad_a += 1, c.pad_b += 3, c.pad_c = 1, c.alpha = 1.5f, c.beta = -0.5f;
                    else if (v == 2)
                        c.shift = 2, c.pad_c = 2, c.beta = 1.0f;
                    check_all(c);
                }
}

int main()
{
    rng.seed(gpuh_test_seed());
    test_split_walk(); /* host only: runs without a device too */
    if (gpuh_test_failures > 0)
        return gpuh_test_summary("test_tc_gemm");
    GPUH_TEST_REQUIRE_DEVICE();
    quick = gpuh_test_quick();
    TEST_CUDA(gpuh_select_device(0));
    test_mma_path();
    test_shapes();
    test_mma_shapes();
    test_decode_shapes();
    test_split_streams();
    test_skewed_rows();
    test_tile_widths();
    test_split_shapes();
    test_tf32_forms();
    test_edges();
    test_arguments();
    for (int i = 0; i < 5; ++i)
        printf("%-13s worst error / bound %.3f\n", pair_name[i], worst_ratio[i]);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_ASSERT(gpuh_print_allocations(NULL) == 0, "allocations left behind (listed above)");
    return gpuh_test_summary("test_tc_gemm");
}
