/* 03_vector_add_four_ways.cu - where the data lives decides the time.

   Teaches: the tutorials' c = a + b over 20,000,000 floats, from inputs in
   host memory to the result in host memory, four ways:
   (a) Managed (unified) memory, gpuh_managed_array, no prefetch: a managed
       page starts where it was last touched (the host, which filled a and b);
       the kernel's first touch of each page raises a GPU page fault and the
       driver migrates the data in small units while the warps that need it
       wait; the host's read of c faults every page back.
   (b) Managed memory with cudaMemPrefetchAsync (gpuh_prefetch_async): the
       same arrays moved in bulk before the kernel needs them, and c moved back
       before the host reads it. No faults, one migration per array.
   (c) Explicit copies (Numba's cuda.to_device / copy_to_host): each array is
       one bulk DMA transfer. From pageable memory (malloc) the driver stages
       it through a pinned buffer of its own; from pinned memory
       (gpuh_pinned_array) the copy engine reads the host array directly.
   (d) gpuh_pipeline: the arrays in chunks of 2^20 elements on 4 streams, so
       that the copy in of one chunk, the kernel on another and the copy back
       of a third run at once: the time is about that of the copies alone.
       From pageable arrays gpuh stages the chunks through pinned buffers.
   and the host-to-device bandwidth from pinned and from pageable memory.
   Measures: every path end to end with CUDA events on stream 0: the start is
   recorded with the data in host memory, the stop after the host holds the
   result (on an idle stream, so it is stamped at once and the interval
   covers the host-side page faults of (a) too). Device arrays for (c) are
   allocated once, outside the timing; gpuh_pipeline allocates its buffers on
   each call, inside it (pinning (d)'s staging buffers costs milliseconds).
   Median of REPS runs after one warm-up run of each.
   Checks: every result equals the CPU's bit for bit (one float addition of
   the same operands, rounded the same way on both).
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): n = 2^20 + 3; the
   checks are the same. */
#include <algorithm>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

#define REPS 5

static float median(float *v, int n) { std::sort(v, v + n); return v[n / 2]; }

/* splitmix64, a small seeded generator: the inputs are made on the host. */
static unsigned long long splitmix64(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Starts the end-to-end clock on stream 0; stop_clock waits for the stop. */
static void start_clock(gpuh_timer *t)
{
    GPUH_CHECK(gpuh_timer_create(t));
    GPUH_CHECK(gpuh_timer_start(t, 0));
}
static float stop_clock(gpuh_timer *t)
{
    float ms;
    GPUH_CHECK(gpuh_timer_stop(t));
    GPUH_CHECK(gpuh_timer_elapsed_ms(t, &ms));
    GPUH_CHECK(gpuh_timer_destroy(t));
    return ms;
}

/* (a) and (b): returns end-to-end milliseconds and, in *kernel_ms, the
   kernel's share; h_c gets the result. */
static float run_managed(const float *h_a, const float *h_b, float *h_c, size_t n, float *m_a, float *m_b,
                         float *m_c, int prefetch, float *kernel_ms)
{
    gpuh_timer all, kernel;
    /* Writing on the host (re)places every page of a, b and c in host memory,
       as a fresh program's initialisation would. Poison c: NaN everywhere. */
    memcpy(m_a, h_a, n * sizeof(float));
    memcpy(m_b, h_b, n * sizeof(float));
    memset(m_c, 0xFF, n * sizeof(float));
    start_clock(&all);
    if (prefetch)
        for (float *m : {m_a, m_b, m_c})
            GPUH_CHECK(gpuh_prefetch_async(m, n, 0, 0));
    GPUH_CHECK(gpuh_timer_create(&kernel));
    GPUH_CHECK(gpuh_timer_start(&kernel, 0));
    GPUH_CHECK(gpuh_vector_add(m_a, m_b, m_c, n, 0)); /* without prefetch: faults a, b, c onto the GPU */
    GPUH_CHECK(gpuh_timer_stop(&kernel));
    if (prefetch)
        GPUH_CHECK(gpuh_prefetch_async(m_c, n, cudaCpuDeviceId, 0));
    /* The host must not read m_c before the kernel (and the prefetch) are done. */
    GPUH_CHECK(cudaStreamSynchronize(0));
    memcpy(h_c, m_c, n * sizeof(float)); /* without prefetch: faults c back to the host */
    const float ms = stop_clock(&all);
    GPUH_CHECK(gpuh_timer_elapsed_ms(&kernel, kernel_ms));
    GPUH_CHECK(gpuh_timer_destroy(&kernel));
    return ms;
}

/* (c): h_* are pageable or pinned; d_* are allocated already. */
static float run_explicit(const float *h_a, const float *h_b, float *h_c, size_t n, float *d_a, float *d_b,
                          float *d_c)
{
    gpuh_timer all;
    start_clock(&all);
    GPUH_CHECK(gpuh_copy_to_device(d_a, h_a, n)); /* one bulk DMA each */
    GPUH_CHECK(gpuh_copy_to_device(d_b, h_b, n));
    GPUH_CHECK(gpuh_vector_add(d_a, d_b, d_c, n, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_c, d_c, n)); /* waits for the kernel, then one DMA back */
    return stop_clock(&all);
}

/* (d): the launcher gpuh_pipeline calls for each chunk of `count` elements. */
static cudaError_t add_chunk(const void *const *d_in, void *const *d_out, size_t count, size_t first,
                             cudaStream_t stream, void *user)
{
    (void)first, (void)user;
    return gpuh_vector_add((const float *)d_in[0], (const float *)d_in[1], (float *)d_out[0], count, stream);
}

static float run_pipeline(const float *h_a, const float *h_b, float *h_c, size_t n)
{
    gpuh_pipeline_desc desc;
    gpuh_timer all;
    memset(&desc, 0, sizeof desc); /* zero: the defaults, chunks of 2^20 elements on 4 streams */
    desc.n = n;
    desc.in[0] = h_a, desc.in_elem_bytes[0] = sizeof(float);
    desc.in[1] = h_b, desc.in_elem_bytes[1] = sizeof(float);
    desc.out[0] = h_c, desc.out_elem_bytes[0] = sizeof(float);
    desc.launch = add_chunk;
    start_clock(&all);
    GPUH_CHECK(gpuh_pipeline(&desc)); /* returns with the result in h_c */
    return stop_clock(&all);
}

/* The host-to-device copy gpuh_time_median_ms times (on stream 0). */
struct h2d_args { float *d; const float *h; size_t n; };
static cudaError_t copy_h2d(void *ctx, cudaStream_t)
{
    const h2d_args *p = (const h2d_args *)ctx;
    return gpuh_copy_to_device(p->d, p->h, p->n);
}

struct add_args { float *d_a, *d_b, *d_c; size_t n; };
static cudaError_t enqueue_add(void *ctx, cudaStream_t stream)
{
    const add_args *p = (const add_args *)ctx;
    return gpuh_vector_add(p->d_a, p->d_b, p->d_c, p->n, stream);
}

enum { MANAGED, PREFETCH, EXPLICIT_PAGEABLE, EXPLICIT_PINNED, PIPELINE_PAGEABLE, PIPELINE_PINNED, PATHS };
static const char *const path_names[PATHS] = {
    "(a) managed, no prefetch",          "(b) managed + cudaMemPrefetchAsync",
    "(c) explicit copies, pageable",     "    explicit copies, pinned",
    "(d) gpuh_pipeline, pageable",       "    gpuh_pipeline, pinned"};

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("03_vector_add_four_ways"));
        return 77;
    }
    unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);

    const int quick = quick_mode(); /* quick mode: see the top comment */
    const size_t n = quick ? ((size_t)1 << 20) + 3 : 20000000, bytes = n * sizeof(float);
    float *h_a = (float *)malloc(bytes), *h_b = (float *)malloc(bytes); /* pageable */
    float *h_ref = (float *)malloc(bytes), *h_c = (float *)malloc(bytes);
    float *p_a, *p_b, *p_c, *m_a, *m_b, *m_c, *d_a, *d_b, *d_c;
    int ok = 1, can_prefetch = 0;
    if (!h_a || !h_b || !h_ref || !h_c) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }
    for (size_t i = 0; i < n; ++i) { /* uniform in [-1, 1) */
        h_a[i] = (float)(splitmix64(&seed) >> 40) * 0x1p-23f - 1.0f;
        h_b[i] = (float)(splitmix64(&seed) >> 40) * 0x1p-23f - 1.0f;
        h_ref[i] = h_a[i] + h_b[i];
    }
    memset(h_c, 0, bytes); /* touch the pages first, as a program would have */
    GPUH_CHECK(cudaDeviceGetAttribute(&can_prefetch, cudaDevAttrConcurrentManagedAccess, 0));

    GPUH_CHECK(gpuh_pinned_array(&p_a, n));
    GPUH_CHECK(gpuh_pinned_array(&p_b, n));
    GPUH_CHECK(gpuh_pinned_array(&p_c, n));
    memcpy(p_a, h_a, bytes);
    memcpy(p_b, h_b, bytes);
    GPUH_CHECK(gpuh_managed_array(&m_a, n));
    GPUH_CHECK(gpuh_managed_array(&m_b, n));
    GPUH_CHECK(gpuh_managed_array(&m_c, n));
    GPUH_CHECK(gpuh_device_array(&d_a, n));
    GPUH_CHECK(gpuh_device_array(&d_b, n));
    GPUH_CHECK(gpuh_device_array(&d_c, n));

    /* Run r = 0 is the warm-up: context, module load and driver pools are
       first-time costs, not what is compared. */
    float ms[PATHS][REPS], managed_kernel_ms[REPS], prefetch_kernel_ms[REPS];
    for (int r = 0; r <= REPS; ++r) {
        float t[PATHS], k_a = 0, k_b = 0;
        for (int p = 0; p < PATHS; ++p) {
            float *out = p == EXPLICIT_PINNED || p == PIPELINE_PINNED ? p_c : h_c;
            memset(out, 0xFF, bytes); /* poison: NaN */
            t[p] = 0;
            if (p == MANAGED)
                t[p] = run_managed(h_a, h_b, h_c, n, m_a, m_b, m_c, 0, &k_a);
            else if (p == PREFETCH && can_prefetch)
                t[p] = run_managed(h_a, h_b, h_c, n, m_a, m_b, m_c, 1, &k_b);
            else if (p == PREFETCH)
                memcpy(h_c, h_ref, bytes); /* skipped: nothing to check */
            else if (p == EXPLICIT_PAGEABLE)
                t[p] = run_explicit(h_a, h_b, h_c, n, d_a, d_b, d_c);
            else if (p == EXPLICIT_PINNED)
                t[p] = run_explicit(p_a, p_b, p_c, n, d_a, d_b, d_c);
            else if (p == PIPELINE_PAGEABLE)
                t[p] = run_pipeline(h_a, h_b, h_c, n);
            else
                t[p] = run_pipeline(p_a, p_b, p_c, n);
            if (memcmp(out, h_ref, bytes) != 0) {
                printf("%s: the result differs from the CPU's\n", path_names[p]);
                ok = 0;
            }
        }
        if (r > 0) {
            for (int p = 0; p < PATHS; ++p)
                ms[p][r - 1] = t[p];
            managed_kernel_ms[r - 1] = k_a;
            prefetch_kernel_ms[r - 1] = k_b;
        }
    }

    /* The kernel alone on device arrays, and host-to-device bandwidth. */
    add_args args = {d_a, d_b, d_c, n};
    float kernel_ms = 0, pinned_ms = 0, pageable_ms = 0;
    GPUH_CHECK(gpuh_copy_to_device(d_a, h_a, n));
    GPUH_CHECK(gpuh_copy_to_device(d_b, h_b, n));
    GPUH_CHECK(gpuh_time_median_ms(enqueue_add, &args, 0, 3, 20, &kernel_ms));
    h2d_args pinned = {d_a, p_a, n}, pageable = {d_a, h_a, n};
    GPUH_CHECK(gpuh_time_median_ms(copy_h2d, &pinned, 0, 2, 10, &pinned_ms));
    GPUH_CHECK(gpuh_time_median_ms(copy_h2d, &pageable, 0, 2, 10, &pageable_ms));

    printf("\nc = a + b, n = %zu float (%.0f MB per array), host memory to host memory,\n"
           "median of %d runs, CUDA events\n", n, bytes / 1e6, REPS);
    printf("  %-44s %10s %10s\n", "path", "ms", "vs (c)");
    const float base = median(ms[EXPLICIT_PAGEABLE], REPS);
    for (int p = 0; p < PATHS; ++p) {
        if (p == PREFETCH && !can_prefetch) {
            printf("  %-44s %10s   (no concurrent managed access on this device)\n", path_names[p], "-");
            continue;
        }
        const float m = median(ms[p], REPS);
        printf("  %-44s %10.2f %9.2fx\n", path_names[p], m, base / m);
        if (p == MANAGED || p == PREFETCH)
            printf("  %-44s %10.2f\n", "    of which the kernel",
                   median(p == MANAGED ? managed_kernel_ms : prefetch_kernel_ms, REPS));
    }
    printf("  %-44s %10.3f  (%.0f GB/s)\n", "kernel alone, data already on the device", kernel_ms,
           3.0 * bytes / (kernel_ms * 1e-3) / 1e9);
    printf("host-to-device copy of %.0f MB, median of 10:\n", bytes / 1e6);
    printf("  %-44s %10.2f  (%.1f GB/s)\n", "from pinned memory", pinned_ms, bytes / (pinned_ms * 1e-3) / 1e9);
    printf("  %-44s %10.2f  (%.1f GB/s)\n", "from pageable memory", pageable_ms,
           bytes / (pageable_ms * 1e-3) / 1e9);
    printf("The copies alone at the pinned rate: 3 x %.2f = %.2f ms one after another; the pipeline\n"
           "hides the kernel behind them and runs the copy back beside the copies in (each direction\n"
           "has its own copy engine), so with pinned arrays it can beat that sum.\n",
           pinned_ms, 3.0f * pinned_ms);
    printf("GPU results equal the CPU result exactly: %s\n", ok ? "yes" : "NO");

    for (float *p : {m_a, m_b, m_c, d_a, d_b, d_c, p_a, p_b, p_c})
        GPUH_CHECK(gpuh_free(p));
    free(h_a), free(h_b), free(h_ref), free(h_c);
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
