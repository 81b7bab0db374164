/* 03_vector_add_managed_vs_explicit.cu - where the data lives decides the time.

   Teaches: c = a + b over 20,000,000 int32, three ways.
   (a) Managed (unified) memory, gpuh_managed_array: the host fills a and b,
       the kernel reads them, the host reads c. No prefetch.
   (b) Explicit copies: gpuh_to_device, gpuh_device_array, kernel,
       gpuh_copy_to_host (Numba's cuda.to_device / device_array / copy_to_host).
   (c) The CPU loop, one core.
   Why (b) beats (a): a managed page starts on the host; the kernel's first
   touch of it raises a GPU page fault, and the driver migrates the data in
   small units (4 KiB to about 2 MiB) while the warps that need it wait; the
   host's read of c then faults every page back. cudaMemcpy hands each whole
   array to the copy engines as one bulk DMA transfer, with no faults (from
   pageable memory, as here, staged through pinned buffers; gpuh_pinned_array
   would save that step).
   Measures: both GPU paths end to end (inputs on the host -> result in host
   memory) with CUDA events; the stop event is recorded after the host has
   finished, on an idle stream, so it is stamped at once and the interval
   covers the host-side page faults too. The kernel alone on device arrays
   (gpuh_time_median_ms); the CPU loop with a host clock (it is synchronous).
   Median of REPS runs after one warm-up run.
   Checks: every GPU result equals the CPU result exactly (integer adds of
   values at most 2^30 in magnitude: no overflow). */
#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpuh.h"
#include "gpuh_kernels.cuh"

#define REPS 5

static float median(float *v, int n) { std::sort(v, v + n); return v[n / 2]; }

/* splitmix64, a small seeded generator: (a) needs its inputs made on the host. */
static unsigned long long splitmix64(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* (a): returns end-to-end and in-kernel milliseconds; h_c gets the result. */
static void run_managed(const int *h_a, const int *h_b, int *h_c, size_t n, int *m_a, int *m_b, int *m_c,
                        float *all_ms, float *kernel_ms)
{
    gpuh_timer all, kernel;
    GPUH_CHECK(gpuh_timer_create(&all));
    GPUH_CHECK(gpuh_timer_create(&kernel));
    /* Writing on the host (re)places every page of a, b and c in host memory,
       as a fresh program's initialisation would. Poison c: -1 everywhere. */
    memcpy(m_a, h_a, n * sizeof(int));
    memcpy(m_b, h_b, n * sizeof(int));
    memset(m_c, 0xFF, n * sizeof(int));
    GPUH_CHECK(gpuh_timer_start(&all, 0));
    GPUH_CHECK(gpuh_timer_start(&kernel, 0));
    GPUH_CHECK(gpuh_vector_add(m_a, m_b, m_c, n, 0)); /* faults a, b, c onto the GPU */
    GPUH_CHECK(gpuh_timer_stop(&kernel));
    /* The host must not read m_c before the kernel has written it. */
    GPUH_CHECK(cudaDeviceSynchronize());
    memcpy(h_c, m_c, n * sizeof(int)); /* the host read: faults c back to the host */
    GPUH_CHECK(gpuh_timer_stop(&all));
    GPUH_CHECK(gpuh_timer_elapsed_ms(&all, all_ms));
    GPUH_CHECK(gpuh_timer_elapsed_ms(&kernel, kernel_ms));
    GPUH_CHECK(gpuh_timer_destroy(&all));
    GPUH_CHECK(gpuh_timer_destroy(&kernel));
}

/* (b): returns end-to-end milliseconds; h_c gets the result. The device
   allocations are inside the interval: that only handicaps this path. */
static float run_explicit(const int *h_a, const int *h_b, int *h_c, size_t n)
{
    int *d_a, *d_b, *d_c;
    float ms;
    gpuh_timer all;
    GPUH_CHECK(gpuh_timer_create(&all));
    GPUH_CHECK(gpuh_timer_start(&all, 0));
    GPUH_CHECK(gpuh_to_device(&d_a, h_a, n)); /* one bulk DMA each */
    GPUH_CHECK(gpuh_to_device(&d_b, h_b, n));
    GPUH_CHECK(gpuh_device_array(&d_c, n));
    GPUH_CHECK(cudaMemset(d_c, 0xFF, n * sizeof(int))); /* poison; ~0.03 ms of 80 MB */
    GPUH_CHECK(gpuh_vector_add(d_a, d_b, d_c, n, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_c, d_c, n)); /* waits for the kernel, then one DMA back */
    GPUH_CHECK(gpuh_timer_stop(&all));
    GPUH_CHECK(gpuh_timer_elapsed_ms(&all, &ms));
    GPUH_CHECK(gpuh_timer_destroy(&all));
    for (int *p : {d_a, d_b, d_c})
        GPUH_CHECK(gpuh_free(p));
    return ms;
}

struct add_args { int *d_a, *d_b, *d_c; size_t n; };
static cudaError_t enqueue_add(void *ctx, cudaStream_t stream)
{
    const add_args *p = (const add_args *)ctx;
    return gpuh_vector_add(p->d_a, p->d_b, p->d_c, p->n, stream);
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);

    const size_t n = 20000000, bytes = n * sizeof(int);
    int *h_a = (int *)malloc(bytes), *h_b = (int *)malloc(bytes);
    int *h_ref = (int *)malloc(bytes), *h_c = (int *)malloc(bytes);
    int *m_a, *m_b, *m_c, ok = 1, r;
    if (!h_a || !h_b || !h_ref || !h_c) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }
    for (size_t i = 0; i < n; ++i) { /* uniform in [-2^30, 2^30): a + b fits in int32 */
        h_a[i] = (int)(splitmix64(&seed) >> 33) - (1 << 30);
        h_b[i] = (int)(splitmix64(&seed) >> 33) - (1 << 30);
    }
    memset(h_ref, 0, bytes); /* touch the pages first, so the timed loop only adds */
    memset(h_c, 0, bytes);

    /* (c) the CPU loop */
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < n; ++i)
        h_ref[i] = h_a[i] + h_b[i];
    double cpu_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

    GPUH_CHECK(gpuh_managed_array(&m_a, n));
    GPUH_CHECK(gpuh_managed_array(&m_b, n));
    GPUH_CHECK(gpuh_managed_array(&m_c, n));

    /* One run of each path first: context, module load and driver pools are
       first-time costs, not what is compared. */
    float managed_ms[REPS], managed_kernel_ms[REPS], explicit_ms[REPS], kernel_ms = 0.0f, unused_a, unused_b;
    run_managed(h_a, h_b, h_c, n, m_a, m_b, m_c, &unused_a, &unused_b);
    run_explicit(h_a, h_b, h_c, n);
    for (r = 0; r < REPS; ++r) {
        run_managed(h_a, h_b, h_c, n, m_a, m_b, m_c, &managed_ms[r], &managed_kernel_ms[r]);
        ok &= memcmp(h_c, h_ref, bytes) == 0;
        memset(h_c, 0xFF, bytes); /* poison the host result before the next path fills it */
        explicit_ms[r] = run_explicit(h_a, h_b, h_c, n);
        ok &= memcmp(h_c, h_ref, bytes) == 0;
    }

    add_args args;
    args.n = n;
    GPUH_CHECK(gpuh_to_device(&args.d_a, h_a, n));
    GPUH_CHECK(gpuh_to_device(&args.d_b, h_b, n));
    GPUH_CHECK(gpuh_device_array(&args.d_c, n));
    GPUH_CHECK(cudaMemset(args.d_c, 0xFF, bytes));
    GPUH_CHECK(gpuh_time_median_ms(enqueue_add, &args, 0, 3, 20, &kernel_ms));
    GPUH_CHECK(gpuh_copy_to_host(h_c, args.d_c, n));
    ok &= memcmp(h_c, h_ref, bytes) == 0;

    const float m_all = median(managed_ms, REPS), m_kernel = median(managed_kernel_ms, REPS);
    const float e_all = median(explicit_ms, REPS);
    printf("\nc = a + b, n = %zu int32 (%.0f MB per array), median of %d runs\n", n, bytes / 1e6, REPS);
    printf("  %-44s %10s\n", "path", "ms");
    printf("  %-44s %10.2f\n", "CPU loop, 1 core (host clock)", cpu_ms);
    printf("  %-44s %10.2f\n", "(a) managed, end to end", m_all);
    printf("  %-44s %10.2f\n", "    of which the kernel, faulting pages in", m_kernel);
    printf("  %-44s %10.2f\n", "(b) explicit copies, end to end", e_all);
    printf("  %-44s %10.3f  (%.0f GB/s)\n", "kernel alone, data already on the device", kernel_ms,
           3.0 * bytes / (kernel_ms * 1e-3) / 1e9);
    if (e_all < m_all)
        printf("Explicit copies are %.1fx faster end to end: cudaMemcpy moves each array in one bulk\n"
               "DMA transfer, while managed pages migrate on demand, page fault by page fault in small\n"
               "units, on the kernel's first touch and again on the host's read.\n", m_all / e_all);
    else
        printf("Managed memory was not slower here: this system migrates or shares pages without\n"
               "fault-by-fault copies (hardware coherence or prefetching), unlike PCIe-attached GPUs.\n");
    printf("GPU results equal the CPU result exactly: %s\n", ok ? "yes" : "NO");

    for (int *p : {m_a, m_b, m_c, args.d_a, args.d_b, args.d_c})
        GPUH_CHECK(gpuh_free(p));
    free(h_a), free(h_b), free(h_ref), free(h_c);
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
