/* bench/gemm_calls.cu - gpuh_gemm at the calls users make, against cuBLAS in
   the same run, in the families users call it in.

   What it measures. bench.cu's sweeps time alpha = 1, beta = 0 and a float C;
   users also accumulate (beta != 0, so C is read), keep C in 16 bits, store
   weights as PyTorch's Linear does (op_b = T) and multiply batches of a few
   rows. Each family below is a fresh draw each run, from the seed printed at
   the top (GPUH_SEED=<n> repeats a run): its shapes, the op pair, alpha and
   beta (beta = 0 in one draw of three, the others a random beta in
   [-1, 1] \ {0}, C then filled with random values and the same C given to
   cuBLAS):
     bf16->f32 aligned     M, N in [1024, 8192], K in [512, 8192], multiples of 8, any ops
     f16->f16 aligned      the same, fp16 inputs, fp16 C
     bf16->bf16 aligned    the same, bfloat16 C
     bf16->f32 medium      M, N in [64, 1024], K in [64, 4096], multiples of 8, any ops
     bf16->bf16 decode     M in [1, 64], N, K in [1024, 8192] (multiples of 8),
                           op_a = N, op_b = T; also B's bandwidth, N·K·2 bytes / time,
                           beside the copy ceiling (below)
     f32 big               gpuh_gemm<float>, M, N in [1000, 6000], K in [256, 4000], any ops
     f64                   gpuh_gemm<double>, M, N in [1000, 5000], K in [256, 3000], any ops
     bf16->bf16 unaligned  as the aligned family, no dimension a multiple of 8
     tf32                  gpuh_gemm_tf32, the aligned family's ranges, any dimensions
   Leading dimensions are packed (lda = op(A)'s stored row length, ...).
   Peers: cublasGemmEx with the same input and output types and compute type
   (CUBLAS_COMPUTE_32F for 16-bit inputs, CUBLAS_COMPUTE_32F_FAST_TF32 for
   tf32), cublasSgemm (CUBLAS_DEFAULT_MATH: no TF32) and cublasDgemm; row-major
   C = op(A)·op(B) is called as column-major Cᵀ = op(B)ᵀ·op(A)ᵀ, B first.
   Units: times in ms (medians); rates in TFLOP/s = 2·M·N·K / time; ratio =
   cuBLAS's time / gpuh's (above 1: gpuh is faster). Decode's bandwidth on B
   in GB/s = N·K·2 bytes / gpuh's time; the copy ceiling is cudaMemcpyAsync of
   B's N·K·2 bytes device to device, 2·N·K·2 bytes (read and written) / its
   time, timed in the same run on the same rotation; "B/copy" is their ratio.

   Method (the device tool's METHOD.md, as bench.cu):
   - Inputs are random, never zeros (uniform in [-0.5, 0.5), C in [-1, 1)),
     drawn on the device afresh for every draw.
   - gpuh's result is checked before it is timed: C is poisoned (all bits set:
     NaN) when beta = 0; 256 elements (16 rows x 16 columns, the last row and
     column among them) against a float64 reference computed on the host from
     copies of the inputs (read as the kernels read them: TF32 cut to 10
     mantissa bits), within the tests' bound (tests/test_tc_gemm.cu):
       |C - ref| <= 2·(K + 3)·u·(|alpha|·Σ|a·b| + |beta·c|) + u_C·|ref| + t_C
     u = 2^-24 (2^-53 for f64), u_C: C's rounding (2^-8 bfloat16, 2^-11 fp16,
     else 0), t_C: half the spacing of C's subnormals. A failure prints FAIL
     and makes the exit code 1 (a failed draw counts as a ratio of 0).
   - Inputs rotate over sets covering at least 4 x the L2, so no repetition
     finds its operands in L2 left by the previous one.
   - CUDA events around each repetition (gpuh_time_median_ms) after a warm-up;
     three rounds with the two in turn (cuBLAS first, gpuh first, cuBLAS
     first), each the median of 5 to 50 repetitions (about 100 ms of work);
     the median of the rounds. Never a timed assertion: the exit code says
     only whether every check passed.

   Output: a row per draw (family, M x N x K, ops, alpha, beta, times,
   gpuh's TFLOP/s, ratio, check), then the "==== gemm-calls targets" block:
   per family the geometric mean and the worst ratio (with its call) beside
   the project's targets for it, the mean with beta = 0 and with beta != 0 for the big
   families, and decode's B/copy; each line met or MISSED. CSV rows to argv[1]
   (default bench/results/gemm_calls.csv). GPUH_GEMM_CALLS_ONLY=<text> runs
   only the families whose name contains it.

   Build: the CMake target gpuh_gemm_calls (links gpuh::kernels); or
   nvcc -std=c++17 -O3 -arch=sm_90a -I. bench/gemm_calls.cu -lcublas -o /tmp/gemm_calls
   (header-only: every kernel compiled here, minutes). scripts/gpu_check.sh
   --bench runs it after bench/run.sh: bench/results/gemm_calls.txt. */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <cublas_v2.h>

#include "gpuh.h"
#include "gpuh_kernels.cuh"
#include "gpuh/half.cuh" /* the 16-bit GEMM's types, which a compiled-mode file names itself */

static cudaStream_t g_stream;
static double g_rotate_bytes = 4.0 * 60e6; /* 4 x L2, set from the device */
static const size_t kPoolBytes = size_t(1) << 30; /* each of A, B, gpuh's C, cuBLAS's C */
static const double kRoundMs = 100;               /* timed work per round and side */
static const int kSamples = 16;                   /* rows and columns of C checked */

/* ===========================================================================
   The families
   =========================================================================== */

enum Pair { BF16_F32, F16_F16, BF16_BF16, F32, F64, TF32 };
enum Dims { X8, ODD, ANY }; /* multiples of 8, none a multiple of 8, as drawn */

struct Family {
    const char *name;
    Pair pair;
    size_t m_lo, m_hi, n_lo, n_hi, k_lo, k_hi;
    Dims dims;
    bool decode;     /* op_a = N, op_b = T, M as drawn; B's bandwidth reported */
    bool big;        /* the means with beta = 0 and beta != 0 reported apart */
    int draws;
    double goal;     /* geometric mean of gpuh / cuBLAS, at least */
};

static const Family kFamilies[] = {
    {"bf16->f32 aligned", BF16_F32, 1024, 8192, 1024, 8192, 512, 8192, X8, false, true, 10, 0.95},
    {"f16->f16 aligned", F16_F16, 1024, 8192, 1024, 8192, 512, 8192, X8, false, true, 10, 0.95},
    {"bf16->bf16 aligned", BF16_BF16, 1024, 8192, 1024, 8192, 512, 8192, X8, false, true, 10, 0.95},
    {"bf16->f32 medium", BF16_F32, 64, 1024, 64, 1024, 64, 4096, X8, false, false, 10, 0.90},
    {"bf16->bf16 decode", BF16_BF16, 1, 64, 1024, 8192, 1024, 8192, X8, true, false, 10, 1.00},
    {"f32 big", F32, 1000, 6000, 1000, 6000, 256, 4000, ANY, false, true, 8, 0.92},
    {"f64", F64, 1000, 5000, 1000, 5000, 256, 3000, ANY, false, true, 8, 0.90},
    {"bf16->bf16 unaligned", BF16_BF16, 1024, 8192, 1024, 8192, 512, 8192, ODD, false, false, 8, 2.00},
    {"tf32", TF32, 1024, 8192, 1024, 8192, 512, 8192, ANY, false, false, 8, 2.00},
};
static const double kWorstGoal = 0.75; /* no family's worst below it */
static const double kDecodeCopyGoal = 0.70;
static const double kBetaGoal = 0.97; /* mean with beta != 0 / mean with beta = 0 */

/* One drawn call: C (m x n) = alpha·op(A)·op(B) + beta·C, row-major, packed. */
struct Call {
    size_t m, n, k, lda, ldb, ldc;
    bool ta, tb, tf32;
    double alpha, beta; /* exactly representable in float */
};

/* The host generator: a 64-bit Mersenne Twister, fixed by the standard, so
   that a seed draws the same calls wherever it is repeated. */
static size_t draw(std::mt19937_64 &rng, size_t lo, size_t hi) { return lo + (size_t)(rng() % (hi - lo + 1)); }

static size_t shape_dim(std::mt19937_64 &rng, size_t lo, size_t hi, Dims dims)
{
    size_t x = draw(rng, lo, hi);
    if (dims == X8)
        x = std::max(x / 8 * 8, (lo + 7) / 8 * 8);
    else if (dims == ODD && x % 8 == 0)
        x += 1;
    return x;
}

/* A family's draw `index`: beta = 0 in draws 0, 3, 6, ...; alpha in
   ±[1/4, 2] and beta in ±[1/64, 1], on a grid of 1/64. */
static Call draw_call(std::mt19937_64 &rng, const Family &f, int index)
{
    Call c;
    c.m = f.decode ? draw(rng, f.m_lo, f.m_hi) : shape_dim(rng, f.m_lo, f.m_hi, f.dims);
    c.n = shape_dim(rng, f.n_lo, f.n_hi, f.dims);
    c.k = shape_dim(rng, f.k_lo, f.k_hi, f.dims);
    const unsigned ops = (unsigned)(rng() % 4);
    c.ta = f.decode ? false : (ops & 2) != 0;
    c.tb = f.decode ? true : (ops & 1) != 0;
    c.tf32 = f.pair == TF32;
    c.lda = c.ta ? c.m : c.k;
    c.ldb = c.tb ? c.k : c.n;
    c.ldc = c.n;
    c.alpha = (rng() % 2 ? -1.0 : 1.0) * (double)draw(rng, 16, 128) / 64;
    c.beta = index % 3 == 0 ? 0.0 : (rng() % 2 ? -1.0 : 1.0) * (double)draw(rng, 1, 64) / 64;
    return c;
}

/* ===========================================================================
   The element types: device fill, host reads, C's rounding, cuBLAS's names
   =========================================================================== */

__device__ inline void put(float *p, double v) { *p = (float)v; }
__device__ inline void put(double *p, double v) { *p = v; }
__device__ inline void put(__nv_bfloat16 *p, double v) { *p = __float2bfloat16_rn((float)v); }
__device__ inline void put(__half *p, double v) { *p = __float2half_rn((float)v); }

/* g_x[i] = a value in [-scale, scale) hashed from (seed, i): random, and
   written straight in the element's type. */
template <typename T> __global__ void fill_kernel(T *g_x, size_t n, unsigned long long seed, double scale)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride()) {
        unsigned long long z = seed + (i + 1) * 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 31)) * 0x7fb5d329728ea185ull;
        z = (z ^ (z >> 27)) * 0x81dadef4bc2dd44dull;
        z ^= z >> 33;
        put(&g_x[i], scale * ((double)(z >> 11) * 0x1p-52 - 1.0));
    }
}

/* g_out[r·len + t] = row idx[r] of the matrix (rows = true: element
   (idx[r], t) at g_m[idx[r]·ld + t]) or its column idx[r] (element
   (t, idx[r])), t < len: the rows of op(A) and columns of op(B) the check
   needs, gathered for one copy to the host. */
template <typename T>
__global__ void gather_kernel(const T *g_m, size_t ld, bool rows, const size_t *g_idx, size_t count, size_t len,
                              T *g_out)
{
    for (size_t e = gpuh_global_index(); e < count * len; e += gpuh_grid_stride()) {
        const size_t r = e / len, t = e % len;
        g_out[e] = rows ? g_m[g_idx[r] * ld + t] : g_m[t * ld + g_idx[r]];
    }
}

static double host_read(__nv_bfloat16 x, bool) { return (double)__bfloat162float(x); }
static double host_read(__half x, bool) { return (double)__half2float(x); }
static double host_read(double x, bool) { return x; }
static double host_read(float x, bool tf32) /* tf32: the top 10 mantissa bits, as the tensor cores read it */
{
    if (tf32) {
        unsigned u;
        memcpy(&u, &x, 4);
        u &= 0xffffe000u;
        memcpy(&x, &u, 4);
    }
    return (double)x;
}

/* C's unit roundoff (0 where C keeps the accumulator's type) and half the
   spacing of its subnormals. */
struct Rounding {
    double unit, tiny;
};
static Rounding rounding(const __nv_bfloat16 *) { return {std::ldexp(1.0, -8), std::ldexp(1.0, -134)}; }
static Rounding rounding(const __half *) { return {std::ldexp(1.0, -11), std::ldexp(1.0, -25)}; }
static Rounding rounding(const float *) { return {0.0, std::ldexp(1.0, -150)}; }
static Rounding rounding(const double *) { return {0.0, std::ldexp(1.0, -1075)}; }

static cudaDataType_t cuda_type(const __nv_bfloat16 *) { return CUDA_R_16BF; }
static cudaDataType_t cuda_type(const __half *) { return CUDA_R_16F; }
static cudaDataType_t cuda_type(const float *) { return CUDA_R_32F; }

/* ===========================================================================
   The two calls
   =========================================================================== */

template <typename TIn, typename TOut>
static cudaError_t gpuh_call(const Call &c, const TIn *a, const TIn *b, TOut *d, cudaStream_t s)
{
    const gpuh_op oa = c.ta ? GPUH_OP_T : GPUH_OP_N, ob = c.tb ? GPUH_OP_T : GPUH_OP_N;
    if constexpr (std::is_same<TIn, double>::value)
        return gpuh_gemm(oa, ob, c.m, c.n, c.k, c.alpha, a, c.lda, b, c.ldb, c.beta, d, c.ldc, s);
    else {
        if constexpr (std::is_same<TIn, float>::value)
            if (c.tf32)
                return gpuh_gemm_tf32(oa, ob, c.m, c.n, c.k, (float)c.alpha, a, c.lda, b, c.ldb, (float)c.beta, d,
                                      c.ldc, s);
        return gpuh_gemm(oa, ob, c.m, c.n, c.k, (float)c.alpha, a, c.lda, b, c.ldb, (float)c.beta, d, c.ldc, s);
    }
}

static cudaError_t from_cublas(cublasStatus_t st, const char *what)
{
    if (st == CUBLAS_STATUS_SUCCESS)
        return cudaSuccess;
    fprintf(stderr, "gemm_calls: %s: %s\n", what, cublasGetStatusName(st));
    return cudaErrorUnknown;
}

/* cuBLAS, column-major: Cᵀ (n x m) = op(B)ᵀ·op(A)ᵀ, the row-major C. */
template <typename TIn, typename TOut>
static cudaError_t peer_call(cublasHandle_t h, const Call &c, const TIn *a, const TIn *b, TOut *d)
{
    const cublasOperation_t oa = c.ta ? CUBLAS_OP_T : CUBLAS_OP_N, ob = c.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
    const int m = (int)c.m, n = (int)c.n, k = (int)c.k, lda = (int)c.lda, ldb = (int)c.ldb, ldc = (int)c.ldc;
    if constexpr (std::is_same<TIn, double>::value) {
        return from_cublas(cublasDgemm(h, ob, oa, n, m, k, &c.alpha, b, ldb, a, lda, &c.beta, d, ldc), "cublasDgemm");
    } else {
        const float alpha = (float)c.alpha, beta = (float)c.beta;
        if constexpr (std::is_same<TIn, float>::value)
            if (!c.tf32)
                return from_cublas(cublasSgemm(h, ob, oa, n, m, k, &alpha, b, ldb, a, lda, &beta, d, ldc),
                                   "cublasSgemm");
        return from_cublas(cublasGemmEx(h, ob, oa, n, m, k, &alpha, b, cuda_type(b), ldb, a, cuda_type(a), lda, &beta,
                                        d, cuda_type(d), ldc,
                                        c.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT),
                           "cublasGemmEx");
    }
}

/* What the timed work functions share: the pools, the call, and the
   rotation (set s of a matrix starts s strides into its pool). */
template <typename TIn, typename TOut> struct Work {
    const Call *c;
    const TIn *a, *b;
    TOut *d, *p; /* gpuh's C, cuBLAS's C (decode's copy writes there too) */
    cublasHandle_t handle;
    size_t sa, sb, sd, sets, next; /* strides in elements */
    size_t take()
    {
        const size_t s = next;
        next = (next + 1) % sets;
        return s;
    }
};
template <typename TIn, typename TOut> static cudaError_t work_gpuh(void *ctx, cudaStream_t s)
{
    Work<TIn, TOut> *w = static_cast<Work<TIn, TOut> *>(ctx);
    const size_t i = w->take();
    return gpuh_call(*w->c, w->a + i * w->sa, w->b + i * w->sb, w->d + i * w->sd, s);
}
template <typename TIn, typename TOut> static cudaError_t work_peer(void *ctx, cudaStream_t)
{
    Work<TIn, TOut> *w = static_cast<Work<TIn, TOut> *>(ctx);
    const size_t i = w->take();
    return peer_call(w->handle, *w->c, w->a + i * w->sa, w->b + i * w->sb, w->p + i * w->sd);
}
/* The copy ceiling for B: B's bytes copied into cuBLAS's C pool. */
template <typename TIn, typename TOut> static cudaError_t work_copy(void *ctx, cudaStream_t s)
{
    Work<TIn, TOut> *w = static_cast<Work<TIn, TOut> *>(ctx);
    const size_t i = w->take(), bytes = w->c->n * w->c->k * sizeof(TIn);
    return cudaMemcpyAsync((char *)w->p + i * w->sb * sizeof(TIn), w->b + i * w->sb, bytes,
                           cudaMemcpyDeviceToDevice, s);
}

/* The median of about kRoundMs of repetitions (5 to 50), after a warm-up. */
static double median_ms(gpuh_work_fn fn, void *ctx)
{
    float probe = 0, ms = 0;
    GPUH_CHECK(gpuh_time_median_ms(fn, ctx, g_stream, 1, 3, &probe));
    const int reps = (int)std::max(5.0, std::min(50.0, kRoundMs / std::max<double>(probe, 1e-3)));
    GPUH_CHECK(gpuh_time_median_ms(fn, ctx, g_stream, 2, reps, &ms));
    return ms;
}

/* ===========================================================================
   One draw: fill, check, time
   =========================================================================== */

struct Result {
    int family;
    std::string call; /* "MxNxK ops, beta b" */
    bool beta_nonzero, failed;
    double ratio;      /* cuBLAS time / gpuh time; 0 on a failed check */
    double b_to_copy;  /* decode: B's GB/s / the copy ceiling's; else NaN */
};
static std::vector<Result> g_results;
static FILE *g_csv;

template <typename T> static void fill(T *d, size_t n, unsigned long long seed, double scale)
{
    GPUH_CHECK(GPUH_LAUNCH(fill_kernel<T>, 2048, 256, 0, g_stream, d, n, seed, scale));
}

/* Copies rows (rows = true) or columns idx of a matrix of leading dimension
   ld, each len long, to the host; scratch: device memory for idx and out. */
template <typename T>
static std::vector<T> gather(const T *d_m, size_t ld, bool rows, const std::vector<size_t> &idx, size_t len,
                             void *scratch)
{
    size_t *d_idx = (size_t *)scratch;
    T *d_out = (T *)(d_idx + kSamples);
    std::vector<T> out(idx.size() * len);
    GPUH_CHECK(cudaMemcpyAsync(d_idx, idx.data(), idx.size() * sizeof(size_t), cudaMemcpyHostToDevice, g_stream));
    GPUH_CHECK(GPUH_LAUNCH(gather_kernel<T>, 256, 256, 0, g_stream, d_m, ld, rows, d_idx, idx.size(), len, d_out));
    GPUH_CHECK(cudaMemcpyAsync(out.data(), d_out, out.size() * sizeof(T), cudaMemcpyDeviceToHost, g_stream));
    GPUH_CHECK(cudaStreamSynchronize(g_stream));
    return out;
}

/* kSamples indices in [0, n), 0 and n - 1 first, the others drawn (repeats allowed). */
static std::vector<size_t> sample(std::mt19937_64 &rng, size_t n)
{
    std::vector<size_t> v = {0, n - 1};
    while (v.size() < (size_t)kSamples)
        v.push_back(draw(rng, 0, n - 1));
    return v;
}

template <typename TIn, typename TOut>
static void run_draw(int fi, const Call &c, std::mt19937_64 &rng, void *const pools[4], void *scratch,
                     cublasHandle_t handle)
{
    const Family &f = kFamilies[fi];
    Work<TIn, TOut> w = {&c, (const TIn *)pools[0], (const TIn *)pools[1], (TOut *)pools[2], (TOut *)pools[3],
                         handle, 0, 0, 0, 1, 0};
    const size_t a_elems = c.m * c.k, b_elems = c.k * c.n, c_elems = c.m * c.n;
    w.sa = (a_elems + 127) / 128 * 128, w.sb = (b_elems + 127) / 128 * 128, w.sd = (c_elems + 127) / 128 * 128;
    const double set_bytes = (double)(a_elems + b_elems) * sizeof(TIn) + (double)c_elems * sizeof(TOut);
    const size_t fit = std::min(kPoolBytes / (w.sd * sizeof(TOut)),
                                std::min(kPoolBytes / (w.sa * sizeof(TIn)), kPoolBytes / (w.sb * sizeof(TIn))));
    w.sets = std::max<size_t>(1, std::min(fit, (size_t)std::ceil(g_rotate_bytes / set_bytes)));
    fill((TIn *)pools[0], w.sets * w.sa, rng(), 0.5);
    fill((TIn *)pools[1], w.sets * w.sb, rng(), 0.5);

    /* decode: the copy ceiling for B's bytes, on the same rotation */
    double copy_gbs = NAN;
    if (f.decode) {
        const double ms = median_ms(work_copy<TIn, TOut>, &w);
        copy_gbs = 2.0 * (double)b_elems * sizeof(TIn) / (ms * 1e6);
        w.next = 0;
    }
    /* C: random (the same in cuBLAS's pool) when it is read, else poisoned */
    if (c.beta != 0) {
        fill(w.d, w.sets * w.sd, rng(), 1.0);
        GPUH_CHECK(cudaMemcpyAsync(w.p, w.d, w.sets * w.sd * sizeof(TOut), cudaMemcpyDeviceToDevice, g_stream));
    } else {
        GPUH_CHECK(cudaMemsetAsync(w.d, 0xff, c_elems * sizeof(TOut), g_stream));
    }

    /* the check, on set 0: kSamples rows x kSamples columns of C */
    const std::vector<size_t> rows = sample(rng, c.m), cols = sample(rng, c.n);
    const std::vector<TIn> ha = gather(w.a, c.lda, !c.ta, rows, c.k, scratch); /* rows of op(A) */
    const std::vector<TIn> hb = gather(w.b, c.ldb, c.tb, cols, c.k, scratch);  /* columns of op(B) */
    std::vector<TOut> c0;
    if (c.beta != 0)
        c0 = gather(w.d, c.ldc, true, rows, c.n, scratch);
    GPUH_CHECK(gpuh_call(c, w.a, w.b, w.d, g_stream));
    const std::vector<TOut> got = gather(w.d, c.ldc, true, rows, c.n, scratch);
    const double u = sizeof(TIn) == 8 ? std::ldexp(1.0, -53) : std::ldexp(1.0, -24);
    const Rounding rc = rounding(w.d);
    double worst = 0;
    int bad = 0;
    for (int r = 0; r < kSamples; ++r)
        for (int q = 0; q < kSamples; ++q) {
            long double s = 0, sa = 0; /* 64-bit mantissa: a reference well inside even f64's bound */
            for (size_t k = 0; k < c.k; ++k) {
                const long double x = host_read(ha[r * c.k + k], c.tf32), y = host_read(hb[q * c.k + k], c.tf32);
                s += x * y;
                sa += std::fabs(x * y);
            }
            const double cv = c.beta != 0 ? host_read(c0[r * c.n + cols[q]], false) : 0.0;
            const double ref = c.alpha * (double)s + c.beta * cv;
            const double bound =
                2.0 * (double)(c.k + 3) * u * (std::fabs(c.alpha) * (double)sa + std::fabs(c.beta * cv)) +
                rc.unit * std::fabs(ref) + rc.tiny;
            const double e = std::fabs(host_read(got[r * c.n + cols[q]], false) - ref);
            if (!(e <= bound)) { /* NaN too: an element never written */
                if (bad++ < 3)
                    printf("FAIL %s: C[%zu][%zu] = %.9g, reference %.9g, error %.3g > bound %.3g\n", f.name, rows[r],
                           cols[q], host_read(got[r * c.n + cols[q]], false), ref, e, bound);
            } else {
                worst = std::max(worst, e / bound);
            }
        }

    /* timing: three rounds, the two in turn; the median of the rounds */
    double tg[3] = {NAN, NAN, NAN}, tp[3];
    for (int round = 0; round < 3; ++round) {
        if (round % 2 == 0)
            tp[round] = median_ms(work_peer<TIn, TOut>, &w);
        if (!bad)
            tg[round] = median_ms(work_gpuh<TIn, TOut>, &w);
        if (round % 2 == 1)
            tp[round] = median_ms(work_peer<TIn, TOut>, &w);
    }
    std::sort(tg, tg + 3);
    std::sort(tp, tp + 3);
    const double ms = tg[1], ms_peer = tp[1], flops = 2.0 * c.m * c.n * c.k;

    Result res;
    char call[96], check[64], extra[96] = "";
    snprintf(call, sizeof call, "%zux%zux%zu %c%c", c.m, c.n, c.k, c.ta ? 'T' : 'N', c.tb ? 'T' : 'N');
    res.family = fi;
    res.call = call;
    res.beta_nonzero = c.beta != 0;
    res.failed = bad != 0;
    res.ratio = bad ? 0.0 : ms_peer / ms;
    res.b_to_copy = NAN;
    if (bad)
        snprintf(check, sizeof check, "FAIL %d of %d", bad, kSamples * kSamples);
    else
        snprintf(check, sizeof check, "ok (err/bound %.2g)", worst);
    double b_gbs = NAN;
    if (f.decode && !bad) {
        b_gbs = (double)b_elems * sizeof(TIn) / (ms * 1e6);
        res.b_to_copy = b_gbs / copy_gbs;
        snprintf(extra, sizeof extra, "  B %.0f GB/s, copy %.0f GB/s, B/copy %.3f", b_gbs, copy_gbs, res.b_to_copy);
    }
    printf("%-20s %-18s %8.4g %9.4g %10.4f %10.4f %8.1f %6.3f  %s%s\n", f.name, call, c.alpha, c.beta, ms, ms_peer,
           flops / (ms * 1e9), res.ratio, check, extra);
    fflush(stdout);
    fprintf(g_csv, "%s,%zu,%zu,%zu,%c%c,%g,%g,%.6g,%.6g,%.6g,%.6g,%.4f,%.6g,%.6g,%s\n", f.name, c.m, c.n, c.k,
            c.ta ? 'T' : 'N', c.tb ? 'T' : 'N', c.alpha, c.beta, ms, ms_peer, flops / (ms * 1e9),
            flops / (ms_peer * 1e9), res.ratio, b_gbs, copy_gbs, bad ? "FAIL" : "ok");
    fflush(g_csv);
    snprintf(call + strlen(call), sizeof call - strlen(call), ", beta %g", c.beta);
    res.call = call;
    g_results.push_back(res);
}

/* ===========================================================================
   The targets block
   =========================================================================== */

/* The geometric mean of v (0 if one is 0: a failed check; NaN if empty). */
static double geo_mean(const std::vector<double> &v)
{
    if (v.empty())
        return NAN;
    double logs = 0;
    for (double x : v)
        logs += x > 0 ? std::log(x) : -INFINITY;
    return std::exp(logs / (double)v.size());
}

static void target(const std::string &what, double value, double goal, const char *note = "")
{
    const char *verdict = !(value == value) ? "not measured" : value >= goal ? "met" : "MISSED";
    printf("  %-52s %7.3f   target >= %.2f  %-7s %s\n", what.c_str(), value, goal, verdict, note);
}

static void print_targets(unsigned long long seed)
{
    printf("\n==== gemm-calls targets (seed %llu; ratios = cuBLAS time / gpuh time, same run)\n", seed);
    for (int fi = 0; fi < (int)(sizeof kFamilies / sizeof kFamilies[0]); ++fi) {
        const Family &f = kFamilies[fi];
        std::vector<double> all, zero, nonzero, copy;
        const Result *worst = NULL;
        for (const Result &r : g_results) {
            if (r.family != fi)
                continue;
            all.push_back(r.ratio);
            (r.beta_nonzero ? nonzero : zero).push_back(r.ratio);
            if (r.b_to_copy == r.b_to_copy)
                copy.push_back(r.b_to_copy);
            if (worst == NULL || r.ratio < worst->ratio)
                worst = &r;
        }
        if (all.empty())
            continue;
        target(std::string(f.name) + " (" + std::to_string(all.size()) + "): geo. mean", geo_mean(all), f.goal);
        target(std::string(f.name) + ": worst", worst->ratio, kWorstGoal, ("(" + worst->call + ")").c_str());
        if (f.big) {
            char note[64];
            snprintf(note, sizeof note, "(beta = 0: %.3f, beta != 0: %.3f)", geo_mean(zero), geo_mean(nonzero));
            target(std::string(f.name) + ": mean beta != 0 / mean beta = 0", geo_mean(nonzero) / geo_mean(zero),
                   kBetaGoal, note);
        }
        if (f.decode)
            target(std::string(f.name) + ": B's GB/s / copy ceiling, geo. mean", geo_mean(copy), kDecodeCopyGoal);
    }
    int failed = 0;
    for (const Result &r : g_results)
        failed += r.failed;
    if (failed)
        printf("  checks: %d draws FAILED (the FAIL rows above)\n", failed);
    else
        printf("  checks: all %zu draws passed\n", g_results.size());
}

/* ===========================================================================
   main
   =========================================================================== */

int main(int argc, char **argv)
{
    const char *csv_path = argc > 1 ? argv[1] : "bench/results/gemm_calls.csv";
    const char *why = "";
    if (gpuh_device_count(&why) == 0) {
        printf("gemm_calls: no CUDA device: %s\n", why);
        return 77;
    }
    GPUH_CHECK(gpuh_select_device(0));
    g_csv = fopen(csv_path, "w");
    if (g_csv == NULL) {
        fprintf(stderr, "gemm_calls: cannot write %s\n", csv_path);
        return 2;
    }
    fprintf(g_csv, "family,m,n,k,ops,alpha,beta,gpuh_ms,cublas_ms,gpuh_tflops,cublas_tflops,ratio,b_gbs,copy_gbs,"
                   "check\n");
    cudaDeviceProp prop;
    int runtime = 0, cublas_version = 0;
    GPUH_CHECK(cudaGetDeviceProperties(&prop, 0));
    GPUH_CHECK(cudaRuntimeGetVersion(&runtime));
    g_rotate_bytes = std::max(4.0 * prop.l2CacheSize, 4.0 * 60e6);
    const unsigned long long seed = gpuh_random_seed();
    const char *only = getenv("GPUH_GEMM_CALLS_ONLY");

    GPUH_CHECK(cudaStreamCreateWithFlags(&g_stream, cudaStreamNonBlocking));
    cublasHandle_t handle;
    GPUH_CHECK(from_cublas(cublasCreate(&handle), "cublasCreate"));
    GPUH_CHECK(from_cublas(cublasSetStream(handle, g_stream), "cublasSetStream"));
    GPUH_CHECK(from_cublas(cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH), "cublasSetMathMode"));
    GPUH_CHECK(from_cublas(cublasGetVersion(handle, &cublas_version), "cublasGetVersion"));
    printf("gpuh gemm_calls: %s, %d SMs, L2 %.0f MB, CUDA runtime %d.%d, cuBLAS %d\n", prop.name,
           prop.multiProcessorCount, prop.l2CacheSize / 1e6, runtime / 1000, runtime % 1000 / 10, cublas_version);
    printf("seed %llu (GPUH_SEED=%llu repeats this run); CSV: %s\n", seed, seed, csv_path);

    unsigned char *bytes[5];
    for (int i = 0; i < 5; ++i) /* A, B, gpuh's C, cuBLAS's C; the check's scratch */
        GPUH_CHECK(gpuh_device_array(&bytes[i], i < 4 ? kPoolBytes : kSamples * (sizeof(size_t) + 8 * 8200)));
    void *const pools[4] = {bytes[0], bytes[1], bytes[2], bytes[3]};
    void *const scratch = bytes[4];

    printf("\n%-20s %-18s %8s %9s %10s %10s %8s %6s  %s\n", "family", "MxNxK ops", "alpha", "beta", "gpuh ms",
           "cuBLAS ms", "TFLOP/s", "ratio", "check");
    for (int fi = 0; fi < (int)(sizeof kFamilies / sizeof kFamilies[0]); ++fi) {
        const Family &f = kFamilies[fi];
        if (only != NULL && strstr(f.name, only) == NULL)
            continue;
        std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ull * (unsigned long long)(fi + 1)));
        for (int i = 0; i < f.draws; ++i) {
            const Call c = draw_call(rng, f, i);
            switch (f.pair) {
            case BF16_F32: run_draw<__nv_bfloat16, float>(fi, c, rng, pools, scratch, handle); break;
            case F16_F16: run_draw<__half, __half>(fi, c, rng, pools, scratch, handle); break;
            case BF16_BF16: run_draw<__nv_bfloat16, __nv_bfloat16>(fi, c, rng, pools, scratch, handle); break;
            case F32:
            case TF32: run_draw<float, float>(fi, c, rng, pools, scratch, handle); break;
            case F64: run_draw<double, double>(fi, c, rng, pools, scratch, handle); break;
            }
        }
    }
    print_targets(seed);

    int failed = 0;
    for (const Result &r : g_results)
        failed += r.failed;
    GPUH_CHECK(from_cublas(cublasDestroy(handle), "cublasDestroy"));
    for (unsigned char *p : bytes)
        GPUH_CHECK(gpuh_free(p));
    GPUH_CHECK(cudaStreamDestroy(g_stream));
    fclose(g_csv);
    return failed ? 1 : 0;
}
