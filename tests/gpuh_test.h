/* gpuh_test.h - small helpers shared by gpuh's tests (C99, C++ and CUDA C++).

   Include this instead of gpuh.h: it routes GPUH_LOG into a buffer the tests
   can read (unless the test defined GPUH_LOG itself), then includes gpuh.h.
   Define other override macros (GPUH_ON_ERROR, GPUH_LEDGER_CAPACITY, ...)
   before including it.

   TEST_ASSERT(cond, fmt, ...)   count a check; on failure print file:line,
                                 the condition and the formatted values; never
                                 aborts, so one run reports every failure
   TEST_CUDA(expr)               TEST_ASSERT that expr returns cudaSuccess
   TEST_ERR(expr, err)           TEST_ASSERT that expr returns exactly err
   TEST_CONTAINS(text, needle)   TEST_ASSERT that needle occurs in text
   TEST_DETAIL(expr, err, fmt, ...)  TEST_ASSERT that expr returns err and leaves
                                 exactly that printf-formatted gpuh_error_detail()
   GPUH_TEST_REQUIRE_DEVICE()    return 77 (CTest's skip) with the reason when
                                 the process sees no CUDA device
   gpuh_test_seed()              GPUH_SEED from the environment, else time-based;
                                 printed once, so a failure can be rerun
   gpuh_test_quick()             1 if GPUH_TEST_QUICK is set: leave out the big sizes
   gpuh_test_rel_err_f32/_f64    ||out - ref||_2 / ||ref||_2 against a double reference
   gpuh_test_summary(name)       print PASS/FAIL and return 0 or 1 from main
*/
#ifndef GPUH_TEST_H
#define GPUH_TEST_H

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__GNUC__) || defined(__clang__)
#define GPUH_TEST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define GPUH_TEST_PRINTF(f, a)
#endif

/* ---- GPUH_LOG capture: gpuh_report_error's text lands here while capturing. */
static char gpuh_test_log_buf[16384];
static size_t gpuh_test_log_len;
static int gpuh_test_log_capturing;

static inline void gpuh_test_log(const char *fmt, ...) GPUH_TEST_PRINTF(1, 2);
static inline void gpuh_test_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (gpuh_test_log_capturing) {
        size_t room = sizeof gpuh_test_log_buf - gpuh_test_log_len;
        int k = vsnprintf(gpuh_test_log_buf + gpuh_test_log_len, room, fmt, ap);
        if (k > 0)
            gpuh_test_log_len += (size_t)k < room ? (size_t)k : room - 1;
    } else {
        vfprintf(stderr, fmt, ap);
    }
    va_end(ap);
}
/* Starts capturing (and empties the buffer); gpuh_test_capture_end() stops and
   returns what was logged. */
static inline void gpuh_test_capture_begin(void)
{
    gpuh_test_log_len = 0;
    gpuh_test_log_buf[0] = '\0';
    gpuh_test_log_capturing = 1;
}
static inline const char *gpuh_test_capture_end(void)
{
    gpuh_test_log_capturing = 0;
    return gpuh_test_log_buf;
}

#ifndef GPUH_LOG
#define GPUH_LOG(...) gpuh_test_log(__VA_ARGS__)
#endif
#include "gpuh.h"

/* ---- Checks ------------------------------------------------------------- */
static int gpuh_test_checks, gpuh_test_failures;
static unsigned long long gpuh_test_seed_value;
static int gpuh_test_seed_used;

static inline int gpuh_test_check(int ok, const char *cond, const char *file, int line, const char *fmt, ...)
    GPUH_TEST_PRINTF(5, 6);
static inline int gpuh_test_check(int ok, const char *cond, const char *file, int line, const char *fmt, ...)
{
    ++gpuh_test_checks;
    if (!ok) {
        va_list ap;
        ++gpuh_test_failures;
        printf("FAIL %s:%d: %s\n     ", file, line, cond);
        va_start(ap, fmt);
        vprintf(fmt, ap);
        va_end(ap);
        printf("\n");
        fflush(stdout);
    }
    return ok;
}
/* The format string is the first of the variadic arguments, so that a bare
   message needs no dummy argument under -Wpedantic. Evaluates to 1 or 0. */
#define TEST_ASSERT(cond, ...) gpuh_test_check((cond) ? 1 : 0, #cond, __FILE__, __LINE__, __VA_ARGS__)

static inline int gpuh_test_expect(cudaError_t got, cudaError_t want, const char *expr, const char *file, int line)
{
    return gpuh_test_check(got == want, expr, file, line, "returned %s (%s), expected %s; gpuh detail: \"%s\"",
                           cudaGetErrorName(got), cudaGetErrorString(got), cudaGetErrorName(want),
                           gpuh_error_detail());
}
#define TEST_CUDA(expr) gpuh_test_expect((expr), cudaSuccess, #expr, __FILE__, __LINE__)
#define TEST_ERR(expr, want) gpuh_test_expect((expr), (want), #expr, __FILE__, __LINE__)
#define TEST_CONTAINS(text, needle)                                                                 \
    gpuh_test_check(strstr((text), (needle)) != NULL, "\"" #text "\" contains " #needle, __FILE__, __LINE__, \
                    "\"%s\" not found in:\n%s", (needle), (text))

/* gpuh_error_detail() keeps its last message until a report clears it; tests
   that check "this call set a detail" clear it first. */
static inline void gpuh_test_clear_detail(void)
{
    gpuh_clear_error_detail();
}

/* Checks that expr returns `want` and that gpuh's detail is exactly the
   printf-formatted message that follows. Clears the detail first. */
static inline int gpuh_test_check_detail(cudaError_t got, cudaError_t want, const char *expr, const char *file,
                                         int line, const char *fmt, ...) GPUH_TEST_PRINTF(6, 7);
static inline int gpuh_test_check_detail(cudaError_t got, cudaError_t want, const char *expr, const char *file,
                                         int line, const char *fmt, ...)
{
    char expected[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(expected, sizeof expected, fmt, ap);
    va_end(ap);
    return gpuh_test_check(got == want && strcmp(gpuh_error_detail(), expected) == 0, expr, file, line,
                           "returned %s (expected %s) with the detail\n       \"%s\"\n     expected\n       \"%s\"",
                           cudaGetErrorName(got), cudaGetErrorName(want), gpuh_error_detail(), expected);
}
#define TEST_DETAIL(expr, want, ...)                                                                        \
    (gpuh_test_clear_detail(), gpuh_test_check_detail((expr), (want), #expr, __FILE__, __LINE__, __VA_ARGS__))

/* ---- Skip without a device (CTest: SKIP_RETURN_CODE 77) ------------------ */
#define GPUH_TEST_REQUIRE_DEVICE()                                                                  \
    do {                                                                                            \
        const char *gpuh_test_why = "";                                                             \
        if (gpuh_device_count(&gpuh_test_why) == 0) {                                               \
            printf("no CUDA device: %s\n", gpuh_test_why);                                          \
            return 77;                                                                              \
        }                                                                                           \
    } while (0)

/* ---- Seed and a host generator (splitmix64) ------------------------------ */
static inline unsigned long long gpuh_test_seed(void)
{
    if (!gpuh_test_seed_used) {
        gpuh_test_seed_value = gpuh_random_seed();
        gpuh_test_seed_used = 1;
        printf("seed %llu (rerun with GPUH_SEED=%llu)\n", gpuh_test_seed_value, gpuh_test_seed_value);
    }
    return gpuh_test_seed_value;
}
static inline unsigned long long gpuh_test_next(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
/* A double uniform in [0, 1) with 53 random bits. */
static inline double gpuh_test_uniform(unsigned long long *state)
{
    return (double)(gpuh_test_next(state) >> 11) * (1.0 / 9007199254740992.0);
}
/* Fills `bytes` bytes at p with random bits. */
static inline void gpuh_test_fill_bytes(void *p, size_t bytes, unsigned long long *state)
{
    unsigned char *b = (unsigned char *)p;
    size_t i;
    for (i = 0; i < bytes; i += 8) {
        unsigned long long r = gpuh_test_next(state);
        memcpy(b + i, &r, bytes - i < 8 ? bytes - i : 8);
    }
}

/* GPUH_TEST_QUICK=1 (set by scripts/gpu_check.sh under compute-sanitizer, which
   slows kernels 10-100x): the GPU tests leave out their largest sizes. */
static inline int gpuh_test_quick(void)
{
    const char *env = getenv("GPUH_TEST_QUICK");
    return env != NULL && env[0] != '\0' && strcmp(env, "0") != 0;
}

/* ---- Relative error ||out - ref||_2 / ||ref||_2 against a float64 reference.
   An all-zero reference gives the absolute ||out||_2. NaN in out gives NaN,
   which fails every `err <= tol` check. */
static inline double gpuh_test_rel_err_f64(const double *out, const double *ref, size_t n)
{
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        double d = out[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}
static inline double gpuh_test_rel_err_f32(const float *out, const double *ref, size_t n)
{
    double num = 0, den = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        double d = (double)out[i] - ref[i];
        num += d * d;
        den += ref[i] * ref[i];
    }
    return den > 0 ? sqrt(num / den) : sqrt(num);
}

/* ---- Reads what was written to a tmpfile() into buf (NUL-terminated). */
static inline const char *gpuh_test_read_back(FILE *f, char *buf, size_t cap)
{
    size_t k;
    buf[0] = '\0';
    if (f == NULL)
        return buf;
    fflush(f);
    rewind(f);
    k = fread(buf, 1, cap - 1, f);
    buf[k] = '\0';
    return buf;
}

/* ---- Summary: the exit status of main (0 pass, 1 fail). */
static inline int gpuh_test_summary(const char *name)
{
    if (gpuh_test_failures == 0) {
        printf("%s: PASS (%d checks)\n", name, gpuh_test_checks);
        return 0;
    }
    printf("%s: FAIL (%d of %d checks failed", name, gpuh_test_failures, gpuh_test_checks);
    if (gpuh_test_seed_used)
        printf("; rerun with GPUH_SEED=%llu", gpuh_test_seed_value);
    printf(")\n");
    return 1;
}

#endif /* GPUH_TEST_H */
