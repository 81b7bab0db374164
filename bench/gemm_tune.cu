/* gemm_tune.cu - picks gpuh_gemm's tile sizes: one table, one GPU run.

   Every row is one instantiation of gpuh_gemm_simt_kernel (float) or
   gpuh_gemm_dmma_kernel (double) through gpuh_gemm_with<Big, Small>, with
   the shipped small configuration for the ragged strips. For each row:
     regs, lmem   registers per thread and local-memory bytes (spills) of the
                  16-byte-load kernel, from cudaFuncGetAttributes
     err          ||C - C_cuBLAS||_F / ||C_cuBLAS||_F at M = N = K = 4096 on
                  random inputs in (0, 1] (float: expect ~1e-6, must be
                  <= 1e-5; double: ~1e-15, must be <= 1e-12; FAIL otherwise)
     TF/s, x      TFLOP/s (2·n³ / time) at n = 4096 and 8192 and the ratio to
                  cuBLAS (SGEMM / DGEMM, CUBLAS_DEFAULT_MATH: no TF32) timed
                  in the same run
     2048 x       the ratio to cuBLAS at n = 2048 (one wave or less of big
                  tiles on 132 SMs: how a tile fills the GPU)
     4097/4096    rate at n = 4097 (odd leading dimensions: scalar loads, and
                  one-row strips) over the rate at 4096
     mix x        geometric mean of the ratios to cuBLAS over kMix, shapes
                  drawn once from the bench's random sweep (big and medium
                  families, packed, untransposed): how a configuration fares
                  beside the dispatch (split-K, strips) at shapes that are not
                  squares
   Timing: CUDA events around each call, 3 warm-up calls, median of 15 (4096,
   4097) or 10 (8192) calls. The inputs (3 · 268 MB at 8192 floats) are
   larger than the 60 MB L2, so no rotation is needed.
   Exit status 1 if any row fails its error check.

   Build and run (from the repository root):
     cmake -B build-gpu -DCMAKE_CUDA_ARCHITECTURES=90 && cmake --build build-gpu -j16 --target gemm_tune
     ./build-gpu/gemm_tune
   It first prints a table of fixed costs at small shapes (host time per
   call, and one call between two events, gpuh_gemm and cuBLAS).
   `gemm_tune profile` makes one call of cuBLAS and of gpuh_gemm at four
   shapes, float then double, for ncu (which kernels cuBLAS picks, their
   counters beside gpuh's), and nothing else; `gemm_tune profile-sgemm` one
   call of cuBLAS SGEMM and of gpuh_sgemm_big at 4096³ (ncu's stall reasons
   of both, bench/results/NOTES.md). `gemm_tune float` prints the float rows
   only, without the fixed-cost table; `gemm_tune double` the double rows only.
*/
#include "gpuh_kernels.cuh"

#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cmath>
#include <cstdio>
#include <type_traits>
#include <vector>

#ifndef GPUH_USE_CURAND
#error "gemm_tune.cu needs -DGPUH_USE_CURAND (and -lcurand) for its random inputs"
#endif

static cublasHandle_t g_handle;
static int g_failed;

/* The device buffers: A, B, C and cuBLAS's C, n_max² elements each. */
template <typename T> struct buffers {
    T *a = nullptr, *b = nullptr, *c = nullptr, *ref = nullptr;
};

/* Row-major C (m × n) = A (m × k) · B (k × n), packed: column-major
   Cᵀ = Bᵀ·Aᵀ. */
static cublasStatus_t gemm_cublas(int m, int n, int k, const float *A, const float *B, float *C)
{
    const float one = 1, zero = 0;
    return cublasSgemm(g_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n);
}
static cublasStatus_t gemm_cublas(int m, int n, int k, const double *A, const double *B, double *C)
{
    const double one = 1, zero = 0;
    return cublasDgemm(g_handle, CUBLAS_OP_N, CUBLAS_OP_N, n, m, k, &one, B, n, A, k, &zero, C, n);
}
template <typename T> static cublasStatus_t gemm_cublas(int n, const T *A, const T *B, T *C)
{
    return gemm_cublas(n, n, n, A, B, C);
}

/* Median milliseconds of `reps` timed calls of f() after 3 warm-up calls. */
template <typename F> static double median_ms(F f, int reps)
{
    cudaEvent_t start, stop;
    std::vector<float> ms(reps);
    GPUH_CHECK(cudaEventCreate(&start));
    GPUH_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < 3; ++i)
        GPUH_CHECK(f());
    for (int i = 0; i < reps; ++i) {
        GPUH_CHECK(cudaEventRecord(start));
        GPUH_CHECK(f());
        GPUH_CHECK(cudaEventRecord(stop));
        GPUH_CHECK(cudaEventSynchronize(stop));
        GPUH_CHECK(cudaEventElapsedTime(&ms[i], start, stop));
    }
    GPUH_CHECK(cudaEventDestroy(start));
    GPUH_CHECK(cudaEventDestroy(stop));
    std::sort(ms.begin(), ms.end());
    return ms[reps / 2];
}
static double tflops(size_t n, double ms) { return 2.0 * (double)n * n * n / (ms * 1e-3) / 1e12; }
static double tflops3(const size_t (&s)[3], double ms) { return 2.0 * (double)s[0] * s[1] * s[2] / (ms * 1e-3) / 1e12; }

/* ||x - y||_F / ||y||_F over n² elements of device memory. */
template <typename T> static double rel_err(const T *d_x, const T *d_y, size_t n)
{
    std::vector<T> x(n * n), y(n * n);
    GPUH_CHECK(gpuh_copy_to_host(x.data(), d_x, n * n));
    GPUH_CHECK(gpuh_copy_to_host(y.data(), d_y, n * n));
    double num = 0, den = 0;
    for (size_t i = 0; i < n * n; ++i) {
        const double d = (double)x[i] - (double)y[i];
        num += d * d;
        den += (double)y[i] * y[i];
    }
    return std::sqrt(num / den);
}

/* The non-square shapes of the "mix" column (M, N, K). */
static const size_t kMix[][3] = {{1954, 4119, 1802}, {4107, 3795, 365}, {4967, 1305, 3868}, {1618, 5848, 538},
                                 {2595, 2468, 3842}, {838, 758, 1615},   {379, 556, 1596},   {5712, 5085, 3466}};
enum { kMixCount = sizeof kMix / sizeof kMix[0] };

struct peer_rates {
    double r2048, r4096, r8192, mix[kMixCount];
};

static cudaError_t from_status(cublasStatus_t st)
{
    return st == CUBLAS_STATUS_SUCCESS ? cudaSuccess : cudaErrorUnknown;
}

template <typename T> static peer_rates time_cublas(const buffers<T> &m)
{
    peer_rates r;
    r.r2048 = tflops(2048, median_ms([&] { return from_status(gemm_cublas(2048, m.a, m.b, m.ref)); }, 15));
    r.r4096 = tflops(4096, median_ms([&] { return from_status(gemm_cublas(4096, m.a, m.b, m.ref)); }, 15));
    r.r8192 = tflops(8192, median_ms([&] { return from_status(gemm_cublas(8192, m.a, m.b, m.ref)); }, 10));
    for (int i = 0; i < kMixCount; ++i) {
        const size_t(&s)[3] = kMix[i];
        r.mix[i] = tflops3(s, median_ms([&] {
            return from_status(gemm_cublas((int)s[0], (int)s[1], (int)s[2], m.a, m.b, m.ref));
        }, 15));
    }
    printf("%-44s %-6s %5s %5s %10s %6.2f %6.3f %7.2f %6.3f %9s %6.3f %6.3f\n", "cuBLAS",
           std::is_same<T, float>::value ? "float" : "double", "-", "-", "-", r.r4096, 1.0, r.r8192, 1.0, "-", 1.0,
           1.0);
    return r;
}

/* Registers and local memory of the 16-byte-load kernel of a configuration. */
template <typename T, int BM, int BN, int BK, int WM, int WN, int LM, int MB>
static cudaFuncAttributes attributes(gpuh_gemm_simt_config<BM, BN, BK, WM, WN, LM, MB>)
{
    cudaFuncAttributes a;
    GPUH_CHECK(cudaFuncGetAttributes(
        &a, gpuh_gemm_simt_kernel<T, gpuh_gemm_simt_config<BM, BN, BK, WM, WN, LM, MB>, false, false>));
    return a;
}
template <typename T, int BM, int BN, int BK, int WM, int WN, int S, int MB, int KS, int FR>
static cudaFuncAttributes attributes(gpuh_gemm_dmma_config<BM, BN, BK, WM, WN, S, MB, KS, FR>)
{
    cudaFuncAttributes a;
    GPUH_CHECK(cudaFuncGetAttributes(
        &a, gpuh_gemm_dmma_kernel<gpuh_gemm_dmma_config<BM, BN, BK, WM, WN, S, MB, KS, FR>, false, false>));
    return a;
}

/* One row of the table: Big for the whole tiles, Small for the strips. */
template <typename Big, typename Small, typename T>
static void tune_row(const char *name, const buffers<T> &m, const peer_rates &peer)
{
    const bool is_f = std::is_same<T, float>::value;
    auto run = [&](size_t n) {
        return [&m, n] {
            return gpuh_gemm_with<Big, Small, T>(n, n, n, T(1), m.a, n, m.b, n, T(0), m.c, n);
        };
    };
    const cudaFuncAttributes attr = attributes<T>(Big());
    GPUH_CHECK(from_status(gemm_cublas(4096, m.a, m.b, m.ref)));
    GPUH_CHECK(run(4096)());
    GPUH_CHECK(cudaDeviceSynchronize());
    const double err = rel_err(m.c, m.ref, 4096);
    const bool ok = err <= (is_f ? 1e-5 : 1e-12);
    g_failed += !ok;
    const double r4096 = tflops(4096, median_ms(run(4096), 15));
    const double r8192 = tflops(8192, median_ms(run(8192), 10));
    const double r4097 = tflops(4097, median_ms(run(4097), 15));
    const double r2048 = tflops(2048, median_ms(run(2048), 15));
    double log_mix = 0;
    for (int i = 0; i < kMixCount; ++i) {
        const size_t(&s)[3] = kMix[i];
        const double r = tflops3(s, median_ms([&] {
            return gpuh_gemm_with<Big, Small, T>(s[0], s[1], s[2], T(1), m.a, s[2], m.b, s[1], T(0), m.c, s[1]);
        }, 15));
        log_mix += std::log(r / peer.mix[i]);
    }
    printf("%-44s %-6s %5d %5zu %9.2e%s %6.2f %6.3f %7.2f %6.3f %9.3f %6.3f %6.3f\n", name, is_f ? "float" : "double",
           attr.numRegs, attr.localSizeBytes, err, ok ? " " : "!", r4096, r4096 / peer.r4096, r8192,
           r8192 / peer.r8192, r4097 / r4096, r2048 / peer.r2048, std::exp(log_mix / kMixCount));
    fflush(stdout);
}

#define SIMT(bm, bn, bk, wm, wn, lm, mb)                                                                           \
    tune_row<gpuh_gemm_simt_config<bm, bn, bk, wm, wn, lm, mb>, gpuh_sgemm_small, float>(                         \
        "simt " #bm "x" #bn "x" #bk " warps " #wm "x" #wn " lanes " #lm " min " #mb, fm, fpeer)
#define DMMA(bm, bn, bk, wm, wn, s, mb, ks, fr)                                                                    \
    tune_row<gpuh_gemm_dmma_config<bm, bn, bk, wm, wn, s, mb, ks, fr>, gpuh_dgemm_small, double>(                 \
        "dmma " #bm "x" #bn "x" #bk " w " #wm "x" #wn " st " #s " min " #mb " k" #ks " fr " #fr, dm, dpeer)

/* Host time per call (the mean over 200 calls issued back to back, no
   synchronisation in between: what the CPU spends in the call, launches
   included) and the median time of one call between two events (as the
   bench times it: host work before the first kernel counts), for gpuh_gemm
   and cuBLAS at small shapes, where fixed costs weigh. */
template <typename T> static void overheads(const buffers<T> &m)
{
    static const size_t shapes[][3] = {{64, 64, 64},     {331, 10, 388},  {727, 86, 1528}, {838, 758, 1615},
                                       {20, 5530, 7006}, {1435, 37, 3108}, {379, 556, 1596}, {133, 697, 215}};
    printf("\n%-22s %-6s %12s %12s %12s %12s %7s\n", "shape (M x N x K)", "type", "host us gpuh", "host us cuBLAS",
           "call us gpuh", "call us cuBLAS", "x");
    for (const auto &s : shapes) {
        auto g = [&] { return gpuh_gemm<T>(s[0], s[1], s[2], T(1), m.a, s[2], m.b, s[1], T(0), m.c, s[1]); };
        auto c = [&] { return from_status(gemm_cublas((int)s[0], (int)s[1], (int)s[2], m.a, m.b, m.ref)); };
        double host[2];
        for (int w = 0; w < 2; ++w) {
            GPUH_CHECK(w ? c() : g());
            GPUH_CHECK(cudaDeviceSynchronize());
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < 200; ++i)
                GPUH_CHECK(w ? c() : g());
            const auto t1 = std::chrono::steady_clock::now();
            GPUH_CHECK(cudaDeviceSynchronize());
            host[w] = std::chrono::duration<double, std::micro>(t1 - t0).count() / 200;
        }
        const double call_g = median_ms(g, 25) * 1e3, call_c = median_ms(c, 25) * 1e3;
        printf("%5zu x %5zu x %5zu    %-6s %12.2f %12.2f %12.2f %12.2f %7.3f\n", s[0], s[1], s[2],
               std::is_same<T, float>::value ? "float" : "double", host[0], host[1], call_g, call_c, call_c / call_g);
    }
}

/* The float rows: cuBLAS SGEMM, then the candidate CUDA-core tiles. */
static void float_rows(const buffers<float> &fm)
{
    const peer_rates fpeer = time_cublas(fm);
    SIMT(256, 128, 16, 4, 2, 8, 1); /* shipped: 8 × 16 per thread */
    SIMT(256, 128, 16, 4, 2, 4, 1); /* 16 × 8 per thread */
    SIMT(128, 128, 8, 2, 4, 8, 2); /* 8 × 8 per thread, 2 blocks per SM (128 registers) */
    SIMT(128, 128, 8, 4, 2, 4, 2);
    SIMT(64, 64, 16, 2, 4, 8, 2); /* the shipped small one, alone */
    /* the narrow tiles alone (their rates beside the big tiles': GPUH_GEMM_NARROW_RATE, _TALL_RATE,
       _NARROW64_RATE), and 32-row candidates */
    SIMT(16, 128, 16, 1, 2, 2, 4);
    SIMT(128, 16, 16, 2, 1, 16, 4);
    SIMT(32, 128, 16, 1, 2, 4, 4);
    SIMT(128, 32, 16, 2, 1, 8, 4);
}

int main(int argc, char **argv)
{
    const char *why = "";
    const size_t nmax = 8192, elems = nmax * nmax + 4 * nmax; /* 8192² and 4097² */
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    GPUH_CHECK(gpuh_print_devices(stdout));
    if (cublasCreate(&g_handle) != CUBLAS_STATUS_SUCCESS || cublasSetMathMode(g_handle, CUBLAS_DEFAULT_MATH) !=
                                                                 CUBLAS_STATUS_SUCCESS) {
        fprintf(stderr, "gemm_tune: cuBLAS did not start\n");
        return 1;
    }
    const unsigned long long seed = gpuh_random_seed();
    printf("seed %llu\n\n", seed);
    printf("%-44s %-6s %5s %5s %10s %6s %6s %7s %6s %9s %6s %6s\n", "configuration (Big; strips: the shipped small)",
           "type", "regs", "lmem", "err 4096", "TF/s", "x", "8192", "x", "4097/4096", "2048 x", "mix x");

    buffers<double> dm;
    GPUH_CHECK(gpuh_device_array(&dm.a, elems));
    GPUH_CHECK(gpuh_device_array(&dm.b, elems));
    GPUH_CHECK(gpuh_device_array(&dm.c, elems));
    GPUH_CHECK(gpuh_device_array(&dm.ref, elems));
    GPUH_CHECK(gpuh_random_uniform_f64(dm.a, elems, seed, 0));
    GPUH_CHECK(gpuh_random_uniform_f64(dm.b, elems, seed + 1, 0));
    /* The float matrices live in the same memory: their own random bits. */
    buffers<float> fm;
    fm.a = reinterpret_cast<float *>(dm.a), fm.b = reinterpret_cast<float *>(dm.b);
    fm.c = reinterpret_cast<float *>(dm.c), fm.ref = reinterpret_cast<float *>(dm.ref);
    GPUH_CHECK(gpuh_random_uniform_f32(fm.a, elems, seed + 2, 0));
    GPUH_CHECK(gpuh_random_uniform_f32(fm.b, elems, seed + 3, 0));

    if (argc > 1 && std::strcmp(argv[1], "profile-sgemm") == 0) {
        /* one call each at 4096³, for ncu's stall reasons: cuBLAS, then the shipped big tiles */
        const size_t n = 4096;
        GPUH_CHECK(from_status(gemm_cublas((int)n, (int)n, (int)n, fm.a, fm.b, fm.ref)));
        GPUH_CHECK((gpuh_gemm_with<gpuh_sgemm_big, gpuh_sgemm_small, float>(n, n, n, 1.0f, fm.a, n, fm.b, n, 0.0f,
                                                                              fm.c, n)));
        GPUH_CHECK(cudaDeviceSynchronize());
        return 0;
    }
    const bool only_float = argc > 1 && std::strcmp(argv[1], "float") == 0;
    if (argc > 1 && std::strcmp(argv[1], "profile") == 0) {
        /* one call each, for ncu: cuBLAS then gpuh_gemm at each shape, float, then double */
        const size_t shapes[][3] = {{4096, 4096, 4096}, {838, 758, 1615}, {20, 5530, 7006}, {4107, 3795, 365}};
        for (const auto &s : shapes) {
            GPUH_CHECK(from_status(gemm_cublas((int)s[0], (int)s[1], (int)s[2], fm.a, fm.b, fm.ref)));
            GPUH_CHECK(gpuh_gemm<float>(s[0], s[1], s[2], 1.0f, fm.a, s[2], fm.b, s[1], 0.0f, fm.c, s[1]));
        }
        for (const auto &s : shapes) {
            GPUH_CHECK(from_status(gemm_cublas((int)s[0], (int)s[1], (int)s[2], dm.a, dm.b, dm.ref)));
            GPUH_CHECK(gpuh_gemm<double>(s[0], s[1], s[2], 1.0, dm.a, s[2], dm.b, s[1], 0.0, dm.c, s[1]));
        }
        GPUH_CHECK(cudaDeviceSynchronize());
        return 0;
    }
    const bool only_double = argc > 1 && std::strcmp(argv[1], "double") == 0;
    if (!only_float && !only_double)
        overheads(fm);
    if (!only_double)
        float_rows(fm);
    if (only_float) {
        cublasDestroy(g_handle);
        return g_failed ? 1 : 0;
    }

    GPUH_CHECK(gpuh_random_uniform_f64(dm.a, elems, seed + 4, 0));
    GPUH_CHECK(gpuh_random_uniform_f64(dm.b, elems, seed + 5, 0));
    const peer_rates dpeer = time_cublas(dm);
    DMMA(64, 128, 16, 2, 2, 3, 2, 8, 1); /* shipped */
    DMMA(64, 128, 16, 2, 2, 3, 2, 8, 2);
    DMMA(64, 128, 16, 2, 2, 4, 2, 8, 2);
    DMMA(64, 128, 16, 2, 2, 3, 2, 16, 1);
    DMMA(64, 128, 32, 2, 2, 2, 2, 16, 1);
    DMMA(64, 128, 32, 2, 2, 2, 2, 8, 2);
    DMMA(128, 64, 16, 2, 2, 3, 2, 8, 1);
    DMMA(128, 64, 16, 2, 2, 3, 2, 8, 2);
    DMMA(128, 64, 16, 2, 2, 3, 2, 16, 1);
    DMMA(64, 64, 16, 2, 2, 3, 3, 8, 2);
    DMMA(64, 64, 16, 2, 2, 4, 2, 8, 2);
    DMMA(64, 64, 16, 2, 2, 3, 3, 16, 1);
    DMMA(64, 64, 32, 2, 2, 2, 3, 16, 1);
    DMMA(64, 64, 16, 2, 2, 3, 3, 8, 1); /* shipped small */

    GPUH_CHECK(gpuh_free(dm.a));
    GPUH_CHECK(gpuh_free(dm.b));
    GPUH_CHECK(gpuh_free(dm.c));
    GPUH_CHECK(gpuh_free(dm.ref));
    cublasDestroy(g_handle);
    printf("\n%s\n", g_failed ? "FAIL: a configuration is off cuBLAS by more than its bound (marked !)"
                              : "all configurations agree with cuBLAS");
    return g_failed ? 1 : 0;
}
