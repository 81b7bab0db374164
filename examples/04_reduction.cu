/* 04_reduction.cu - sum, min and max of 2^26 floats, and how accurate a float sum is.

   Teaches: many values -> one value with gpuh_sum, gpuh_min and gpuh_max.
   Each thread first folds its share of the input into a register (16-byte
   loads, tile by tile), each block combines its threads with warp shuffles,
   and a second one-block launch combines the blocks' partial results, which
   wait in a scratch buffer of GPUH_REDUCE_TEMP_BYTES (CUB's convention: the
   caller owns temp storage).
   A float sum is rounded at every addition, so it differs from the exact sum;
   how much is bounded by the depth of the addition tree, which
   gpuh_sum_depth documents: |error| <= gpuh_sum_depth(n, 4) * 2^-24 * sum|x|.
   Measures: the sum's device time (CUDA events, median of repetitions after a
   warm-up) and the bandwidth it reaches, counting n * 4 bytes read.
   Checks: the relative error |gpu - ref| / sum|x| against that bound, with
   ref the float64 sum of the same numbers copied back (whose own error,
   below n * 2^-53 ~ 7e-9 relative, is negligible); min and max exactly; a
   second run bit for bit equal to the first (the reduction is deterministic).
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): n = 2^20 + 3 and 5
   timed runs; the checks are the same. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

struct sum_args {
    const float *d_x;
    size_t n;
    float *d_out;
    void *d_temp;
};
static cudaError_t enqueue_sum(void *ctx, cudaStream_t stream)
{
    const sum_args *p = (const sum_args *)ctx;
    return gpuh_sum(p->d_x, p->n, p->d_out, p->d_temp, stream);
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("04_reduction"));
        return 77;
    }
    const unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);
    const int quick = quick_mode(); /* quick mode: see the top comment */

    /* 256 MiB: four times the L2, so every run reads DRAM. Quick: odd, past one block's share. */
    const size_t n = quick ? ((size_t)1 << 20) + 3 : (size_t)1 << 26;
    const int reps = quick ? 5 : 50;
    float *d_x, *d_out, h_out[4];     /* d_out: sum, min, max, second sum */
    unsigned char *d_temp;
    GPUH_CHECK(gpuh_device_array(&d_x, n));
    GPUH_CHECK(gpuh_device_array(&d_out, 4));
    GPUH_CHECK(gpuh_device_array(&d_temp, GPUH_REDUCE_TEMP_BYTES));
    /* N(0, 1): positive and negative values cancel, so the sum is small next to
       sum|x|; that is why the error is measured relative to sum|x|. */
    GPUH_CHECK(gpuh_random_normal_f32(d_x, n, 0.0f, 1.0f, seed, 0));

    GPUH_CHECK(cudaMemset(d_out, 0xFF, 4 * sizeof(float))); /* poison: NaN until written */
    GPUH_CHECK(gpuh_sum(d_x, n, d_out + 0, d_temp, 0));
    GPUH_CHECK(gpuh_min(d_x, n, d_out + 1, d_temp, 0)); /* same stream: may share d_temp */
    GPUH_CHECK(gpuh_max(d_x, n, d_out + 2, d_temp, 0));
    GPUH_CHECK(gpuh_sum(d_x, n, d_out + 3, d_temp, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_out, d_out, 4));

    /* The reference: the same floats, summed in float64 on the CPU. */
    float *h_x = (float *)malloc(n * sizeof(float));
    if (h_x == NULL) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }
    GPUH_CHECK(gpuh_copy_to_host(h_x, d_x, n));
    double ref_sum = 0.0, abs_sum = 0.0;
    float ref_min = h_x[0], ref_max = h_x[0];
    for (size_t i = 0; i < n; ++i) {
        ref_sum += h_x[i];
        abs_sum += fabs((double)h_x[i]);
        ref_min = h_x[i] < ref_min ? h_x[i] : ref_min;
        ref_max = h_x[i] > ref_max ? h_x[i] : ref_max;
    }

    /* The documented bound: each element meets at most gpuh_sum_depth(n, 4)
       roundings (its thread's loop, its block's tree, the second launch),
       each at most 2^-24 relative. */
    const size_t depth = gpuh_sum_depth(n, sizeof(float));
    const double bound = (double)depth * ldexp(1.0, -24);
    const double rel_err = fabs((double)h_out[0] - ref_sum) / abs_sum;
    const int sum_ok = rel_err <= bound; /* false for NaN too */
    const int min_ok = h_out[1] == ref_min, max_ok = h_out[2] == ref_max;
    const int same_bits = memcmp(&h_out[0], &h_out[3], sizeof(float)) == 0;

    sum_args args = {d_x, n, d_out + 3, d_temp};
    float ms = 0.0f;
    GPUH_CHECK(cudaMemset(d_out + 3, 0xFF, sizeof(float)));
    GPUH_CHECK(gpuh_time_median_ms(enqueue_sum, &args, 0, 5, reps, &ms));
    GPUH_CHECK(gpuh_copy_to_host(&h_out[3], d_out + 3, 1));
    const int timed_same_bits = memcmp(&h_out[0], &h_out[3], sizeof(float)) == 0;

    printf("n = %zu floats, N(0, 1)\n", n);
    printf("sum: gpu %.9g, float64 reference %.9g, sum|x| %.9g\n", h_out[0], ref_sum, abs_sum);
    printf("     relative error |gpu - ref| / sum|x| = %.3g, bound %zu * 2^-24 = %.3g: %s\n",
           rel_err, depth, bound, sum_ok ? "within" : "EXCEEDED");
    printf("min: gpu %.9g, cpu %.9g: %s\n", h_out[1], ref_min, min_ok ? "equal" : "DIFFERENT");
    printf("max: gpu %.9g, cpu %.9g: %s\n", h_out[2], ref_max, max_ok ? "equal" : "DIFFERENT");
    printf("second run and last timed run bitwise equal to the first: %s\n",
           same_bits && timed_same_bits ? "yes" : "NO");
    printf("gpuh_sum: %.3f ms (median of %d), %.0f GB/s reading %zu bytes\n", ms, reps,
           n * sizeof(float) / (ms * 1e-3) / 1e9, n * sizeof(float));

    int ok = sum_ok && min_ok && max_ok && same_bits && timed_same_bits;
    free(h_x);
    GPUH_CHECK(gpuh_free(d_x));
    GPUH_CHECK(gpuh_free(d_out));
    GPUH_CHECK(gpuh_free(d_temp));
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
