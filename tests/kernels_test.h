/* kernels_test.h - what test_kernels.cu and test_gemm.cu share (it includes
   gpuh_kernels.cuh, after the file's own mode macros): quick mode,
   the units of roundoff, device arrays that free themselves, poisoning,
   downloads, seeds and random inputs, and the reduction references. */
#ifndef GPUH_TESTS_KERNELS_TEST_H
#define GPUH_TESTS_KERNELS_TEST_H
#include "gpuh_test.h"
#include "gpuh_kernels.cuh"

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

static int quick;
/* Quick mode on the CPU simulator, where each CUDA thread is a fiber: the same
   kernels and dispatch paths with fewer repetitions and fewer rows (see
   test_determinism and test_gemm_tall), so that its three schedules run in CTest
   in seconds. */
#ifdef GPUH_SIM
static const int on_simulator = 1;
#else
static const int on_simulator = 0;
#endif
static const double u_f32 = 1.0 / 16777216.0;          /* 2^-24, unit roundoff of float */
static const double u_f64 = 1.0 / 9007199254740992.0;  /* 2^-53, unit roundoff of double */

/* The awkward sizes every kernel test uses: empty, single, around a warp, around a
   reduction block's 1024 elements, just past GPUH_REDUCE_SINGLE_BLOCK_MAX, and
   a large odd one. */
static const size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 2049, (1u << 20) + 3};

/* ---------------------------------------------------------------------------
   Small tools */

template <typename T> const char *type_name();
template <> inline const char *type_name<float>() { return "float"; }
template <> inline const char *type_name<double>() { return "double"; }
template <> inline const char *type_name<int>() { return "int"; }

/* A device array that frees itself, so early returns leak nothing (the
   sanitizer run checks for leaks). */
template <typename T> struct dev_array {
    T *p = nullptr;
    size_t n = 0;
    explicit dev_array(size_t count) : n(count) { TEST_CUDA(gpuh_device_array(&p, count)); }
    ~dev_array() { TEST_CUDA(gpuh_free(p)); }
    dev_array(const dev_array &) = delete;
    dev_array &operator=(const dev_array &) = delete;
    bool ok() const { return n == 0 || p != nullptr; }
};

template <typename T> static inline void poison(T *d, size_t n)
{
    if (n > 0)
        TEST_CUDA(cudaMemset(d, 0xFF, n * sizeof(T)));
}
template <typename T> static inline std::vector<T> download(const T *d, size_t n)
{
    std::vector<T> h(n);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(gpuh_copy_to_host(h.data(), d, n));
    return h;
}
template <typename T> static inline T download1(const T *d)
{
    return download(d, 1)[0];
}
template <typename T> static inline bool same_bits(T a, T b) { return memcmp(&a, &b, sizeof(T)) == 0; }
/* ||out - ref||_F / ||ref||_F over n elements (gpuh_test_rel_err_f32 / _f64). */
template <typename T> static inline double rel_err(const T *out, const double *ref, size_t n)
{
    if constexpr (std::is_same<T, float>::value)
        return gpuh_test_rel_err_f32(out, ref, n);
    else
        return gpuh_test_rel_err_f64(out, ref, n);
}

static inline unsigned long long next_seed()
{
    static unsigned long long k;
    return gpuh_test_seed() + ++k; /* Philox streams of nearby seeds are independent */
}

enum input_kind {
    UNIT,      /* floats in (0, 1], as cuRAND makes them */
    SYMMETRIC, /* floats in (-1, 1]: sums cancel, products change sign */
    ADDABLE,   /* ints in [-2^29, 2^29): a + b cannot overflow */
    ANY_BITS   /* ints of 32 random bits */
};

/* Fills d with fresh random values of the given kind and returns the same
   values on the host. cuRAND makes the raw numbers; the host reshapes them. */
template <typename T> static inline std::vector<T> random_input(T *d, size_t n, input_kind kind)
{
    std::vector<T> h;
    if (n == 0)
        return h;
    if constexpr (std::is_same<T, float>::value)
        TEST_CUDA(gpuh_random_uniform_f32(d, n, next_seed(), 0));
    else if constexpr (std::is_same<T, double>::value)
        TEST_CUDA(gpuh_random_uniform_f64(d, n, next_seed(), 0));
    else
        TEST_CUDA(gpuh_random_u32(reinterpret_cast<unsigned *>(d), n, next_seed(), 0));
    h = download(d, n);
    if (kind == SYMMETRIC || kind == ADDABLE) {
        for (T &x : h) {
            if constexpr (std::is_same<T, int>::value)
                x = (int)((unsigned)x >> 2) - (1 << 29); /* [0, 2^30) - 2^29 */
            else
                x = T(2) * x - T(1);
        }
        TEST_CUDA(gpuh_copy_to_device(d, h.data(), n));
    }
    return h;
}

/* Sum of x in float64, compensated (Neumaier), and sum of |x|. */
template <typename T> static inline void reference_sum(const std::vector<T> &x, double *sum, double *abs_sum)
{
    double s = 0, c = 0, a = 0;
    for (T v : x) {
        double y = (double)v, t = s + y;
        c += fabs(s) >= fabs(y) ? (s - t) + y : (y - t) + s;
        s = t;
        a += fabs(y);
    }
    *sum = s + c;
    *abs_sum = a;
}

/* Dot product in float64, compensated (Ogita, Rump & Oishi's Dot2: the
   product's rounding error recovered with an FMA, the sum's with TwoSum), so
   the reference is good to about 2^-53 relative; *abs_out = Σ|x·y|. */
static inline double dot2(const double *x, size_t sx, const double *y, size_t sy, size_t n, double *abs_out)
{
    double s = 0, c = 0, a = 0;
    for (size_t k = 0; k < n; ++k) {
        const double p = x[k * sx] * y[k * sy], pe = std::fma(x[k * sx], y[k * sy], -p), t = s + p, z = t - s;
        c += pe + ((s - (t - z)) + (p - z));
        s = t;
        a += fabs(p);
    }
    *abs_out = a;
    return s + c;
}

/* Sequential roundings an element goes through in gpuh's sum of n elements
   of elem_size bytes, as documented at gpuh_sum_depth in gpuh_kernels.cuh
   (elem_size 16: the element-by-element path). */
static inline double sum_terms(size_t n, size_t elem_size) { return (double)gpuh_sum_depth(n, elem_size); }

/* The documented bound, sum_terms(n, elem_size) · u · Σ|x|, plus the
   reference's own error (Neumaier in float64: 2u|s| + O(n u^2) Σ|x|). */
static inline double sum_bound(size_t n, size_t elem_size, double u, double ref, double abs_sum)
{
    return sum_terms(n, elem_size) * u * abs_sum + 2.0 * u_f64 * fabs(ref) +
           4.0 * (double)n * u_f64 * u_f64 * abs_sum;
}

#endif
