/* ladder_table.h: what the two GEMM ladders (examples 10 and 11) share:
   reading the size, running, timing and checking a rung's C against the
   reference, and printing the table. */
#ifndef GPUH_EXAMPLES_LADDER_TABLE_H
#define GPUH_EXAMPLES_LADDER_TABLE_H
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "quick_mode.h"

/* Copies the count-element result d_C back into h_C and returns
   ‖C - ref‖_F / ‖ref‖_F; NaN if any entry is NaN (such as an entry left
   poisoned). */
static double error_vs_reference(const float *d_C, float *h_C, const float *h_ref, size_t count)
{
    double diff = 0.0, norm = 0.0;
    GPUH_CHECK(gpuh_copy_to_host(h_C, d_C, count));
    for (size_t i = 0; i < count; ++i) {
        const double d = (double)h_C[i] - h_ref[i];
        diff += d * d;
        norm += (double)h_ref[i] * h_ref[i];
    }
    return sqrt(diff / norm);
}

/* M = N = K: argv[1] if given (a multiple of `multiple` up to 32768), else
   256 in quick mode and `full` otherwise. Returns 0, with the usage printed,
   for any other argument. */
static size_t ladder_size(int argc, char **argv, size_t full, size_t multiple)
{
    if (argc <= 1)
        return quick_mode() ? 256 : full;
    char *end;
    const unsigned long long v = strtoull(argv[1], &end, 10);
    if (*end != '\0' || v == 0 || v % multiple != 0 || v > 32768) {
        fprintf(stderr, "usage: %s [n]   (M = N = K = n, a multiple of %zu up to 32768; default %zu)\n", argv[0],
                multiple, full);
        return 0;
    }
    return (size_t)v;
}

/* The start of a ladder's main: M = N = K = *n (ladder_size), the seed (GPUH_SEED
   repeats a run) and the device's properties, with a device required.
   Returns -1 to go on, else main's exit code (2: a bad argument; 77: no
   device, the reason printed). */
static int ladder_begin(int argc, char **argv, size_t full, size_t multiple, size_t *n, unsigned long long *seed,
                        struct cudaDeviceProp *prop)
{
    const char *why;
    int dev = 0;
    *n = ladder_size(argc, argv, full, multiple);
    if (*n == 0)
        return 2;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    *seed = gpuh_random_seed();
    GPUH_CHECK(cudaGetDevice(&dev));
    GPUH_CHECK(cudaGetDeviceProperties(prop, dev));
    return -1;
}

/* Checks an untimed M × N result d_C against h_ref (error_vs_reference):
   returns 1 within tol, else prints which rung and shape failed and returns 0. */
static int rung_within(const char *name, const float *d_C, float *h_C, const float *h_ref, size_t M, size_t N, size_t K,
                       double tol)
{
    const double err = error_vs_reference(d_C, h_C, h_ref, M * N);
    if (err <= tol)
        return 1;
    printf("%s at %zu x %zu x %zu: relative error %.3g, bound %.0e: FAIL\n", name, M, N, K, err, tol);
    return 0;
}

/* One rung of a ladder, checked, timed and checked again: C (count floats at
   d_C) is poisoned (all bits set: a NaN, so an entry the kernel leaves
   cannot pass), enqueue(ctx) runs once and is checked against h_ref
   (*err_first), then C is poisoned again and gpuh_time_median_ms times
   `reps` runs after `warmup`, and the last timed run's C is checked
   (*err_last). Returns the rate in TFLOP/s for `flops` per run. */
static double rung_run(gpuh_work_fn enqueue, void *ctx, float *d_C, float *h_C, const float *h_ref, size_t count,
                       double flops, int warmup, int reps, double *err_first, double *err_last)
{
    float ms = 0.0f;
    GPUH_CHECK(cudaMemset(d_C, 0xFF, count * sizeof(float)));
    GPUH_CHECK(enqueue(ctx, 0));
    *err_first = error_vs_reference(d_C, h_C, h_ref, count);
    GPUH_CHECK(cudaMemset(d_C, 0xFF, count * sizeof(float)));
    GPUH_CHECK(gpuh_time_median_ms(enqueue, ctx, 0, warmup, reps, &ms));
    *err_last = error_vs_reference(d_C, h_C, h_ref, count);
    return flops / (ms * 1e-3) / 1e12;
}

/* One rung untimed: enqueue(ctx) with C poisoned first, its M × N result
   checked against h_ref (rung_within). */
static int rung_checked(const char *name, gpuh_work_fn enqueue, void *ctx, float *d_C, float *h_C, const float *h_ref,
                        size_t M, size_t N, size_t K, double tol)
{
    GPUH_CHECK(cudaMemset(d_C, 0xFF, M * N * sizeof(float)));
    GPUH_CHECK(enqueue(ctx, 0));
    return rung_within(name, d_C, h_C, h_ref, M, N, K, tol);
}

/* Frees a shape check's arrays: A, B, C and the reference on the device,
   C and the reference on the host. */
static void shape_free(void *d_A, void *d_B, float *d_C, float *d_ref, float *h_C, float *h_ref)
{
    GPUH_CHECK(gpuh_free(d_A));
    GPUH_CHECK(gpuh_free(d_B));
    GPUH_CHECK(gpuh_free(d_C));
    GPUH_CHECK(gpuh_free(d_ref));
    free(h_C);
    free(h_ref);
}

/* Prints s right-aligned in `width` terminal columns (s may hold UTF-8). */
static void put_cell(const char *s, int width)
{
    int columns = 0;
    for (const char *c = s; *c != '\0'; ++c)
        columns += (*c & 0xC0) != 0x80; /* count every byte but UTF-8 continuations */
    printf(" %*s", width + (int)strlen(s) - columns, s);
}
#endif
