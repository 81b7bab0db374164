/* 06_row_norms.cu - the norm of every row, and how to time a GPU honestly.

   Teaches: the CuPy tutorial's cp.sqrt(cp.sum(x**2, axis=-1)) on x of shape
   (1000, 100, 1000), float64: 10^8 doubles (800 MB), one norm for each of the
   100,000 rows of 1000. One kernel does square, sum and square root, reading x
   once; CuPy's expression runs three kernels and writes x**2 (another 800 MB)
   in between.
   And the timing trap. A kernel launch is asynchronous: it returns as soon as
   the work is queued, long before the GPU has done it. The tutorial timed
   the expression with a host clock and no synchronisation, so its clock
   stopped when the work had been queued, not when the GPU had finished it:
   its 532x speedup over NumPy compared finished CPU work with unfinished GPU
   work. This program prints that wrong measurement too, labelled, next to
   the honest one: CUDA events around the work, median of repetitions, after
   a warm-up.
   Measures: GPU time (and GB/s of x read), CPU time of the same loop on one
   core (host clock: CPU work is synchronous), their ratio; the wrong figure.
   Checks: every one of the 100,000 norms against a float64 CPU loop, relative
   error <= 1e-12 (both sum 1000 squares in float64: their errors are below
   about 1000 * 2^-53 = 1.1e-13). The output is poisoned with NaN first.
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): 1000 rows and 3
   timed runs; the checks are the same. */
#include <algorithm>
#include <chrono>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

/* One warp per row: warp w of the grid owns row w. Its 32 lanes read elements
   lane, lane + 32, lane + 64, ... so at every step the warp reads 32
   consecutive doubles (256 bytes): coalesced. Each lane adds its squares in a
   register; gpuh_warp_reduce then adds the 32 lane totals in 5 register
   shuffles, with no shared memory and no __syncthreads() (the lanes of a warp
   exchange registers directly). Lane 0 holds the total and writes the root.
   Grid: ceil(rows * 32 / block) blocks; block: a multiple of 32 threads. */
__global__ void row_norms(const double *__restrict__ g_x, size_t rows, size_t cols, double *__restrict__ g_norm)
{
    const size_t row = gpuh_global_index() / 32;
    const unsigned lane = threadIdx.x % 32;
    /* row is the same for all 32 lanes, so whole warps leave together and the
       shuffles below still find every lane present. */
    if (row >= rows)
        return;
    const double *g_row = g_x + row * cols;
    double acc = 0.0;
    for (size_t c = lane; c < cols; c += 32)
        acc += g_row[c] * g_row[c];
    acc = gpuh_warp_reduce<gpuh_plus<double> >(acc);
    if (lane == 0)
        g_norm[row] = sqrt(acc);
}

struct norm_args {
    const double *d_x;
    size_t rows, cols;
    double *d_norm;
    dim3 grid;
    unsigned block;
};
static cudaError_t enqueue_norms(void *ctx, cudaStream_t stream)
{
    const norm_args *p = (const norm_args *)ctx;
    return GPUH_LAUNCH(row_norms, p->grid, p->block, 0, stream, p->d_x, p->rows, p->cols, p->d_norm);
}

static double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("06_row_norms"));
        return 77;
    }
    const unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);

    const int quick = quick_mode(); /* quick mode: see the top comment */
    const size_t rows = quick ? 1000 : 1000 * 100, cols = 1000, n = rows * cols;
    const int reps = quick ? 3 : 20;
    double *d_x, *d_norm;
    double *h_x = (double *)malloc(n * sizeof(double));
    double *h_norm = (double *)malloc(rows * sizeof(double)), *h_ref = (double *)malloc(rows * sizeof(double));
    if (!h_x || !h_norm || !h_ref) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }
    GPUH_CHECK(gpuh_device_array(&d_x, n));
    GPUH_CHECK(gpuh_device_array(&d_norm, rows));
    GPUH_CHECK(gpuh_random_uniform_f64(d_x, n, seed, 0)); /* (0, 1], like cp.random.random */
    GPUH_CHECK(gpuh_copy_to_host(h_x, d_x, n));
    GPUH_CHECK(cudaMemset(d_norm, 0xFF, rows * sizeof(double))); /* NaN until written */

    norm_args args = {d_x, rows, cols, d_norm, dim3(), 256};
    GPUH_CHECK(gpuh_grid_1d(&args.grid, rows * 32, args.block)); /* 32 threads per row */

    /* Honest: events around the work on the GPU's own clock. 800 MB is far
       beyond the L2, so every repetition reads x from DRAM. */
    float gpu_ms = 0.0f;
    GPUH_CHECK(gpuh_time_median_ms(enqueue_norms, &args, 0, 3, reps, &gpu_ms));
    GPUH_CHECK(gpuh_copy_to_host(h_norm, d_norm, rows));

    /* WRONG, on purpose: a host clock around the launch alone. It stops when
       the launch returns, while the GPU has barely started. */
    double wrong_s[21];
    for (int r = 0; r < 21; ++r) {
        GPUH_CHECK(cudaDeviceSynchronize()); /* each from an idle GPU, nothing queued before */
        auto t0 = std::chrono::steady_clock::now();
        GPUH_CHECK(enqueue_norms(&args, 0));
        wrong_s[r] = seconds_since(t0);
    }
    GPUH_CHECK(cudaDeviceSynchronize());
    std::sort(wrong_s, wrong_s + 21);

    auto t0 = std::chrono::steady_clock::now();
    for (size_t r = 0; r < rows; ++r) {
        double acc = 0.0;
        for (size_t c = 0; c < cols; ++c)
            acc += h_x[r * cols + c] * h_x[r * cols + c];
        h_ref[r] = sqrt(acc);
    }
    const double cpu_s = seconds_since(t0);

    double worst = 0.0;
    for (size_t r = 0; r < rows; ++r) {
        const double err = fabs(h_norm[r] - h_ref[r]) / h_ref[r];
        worst = err > worst || err != err ? err : worst; /* a NaN (unwritten) sticks */
    }
    const int ok_values = worst <= 1e-12;

    printf("norms of %zu rows of %zu doubles (%.0f MB)\n", rows, cols, n * sizeof(double) / 1e6);
    printf("  CPU, 1 core (host clock)                    %10.3f ms\n", cpu_s * 1e3);
    printf("  GPU, CUDA events, median of %-2d              %10.3f ms  (%.0f GB/s)  speedup %.0fx\n",
           reps, gpu_ms, n * sizeof(double) / (gpu_ms * 1e-3) / 1e9, cpu_s * 1e3 / gpu_ms);
    printf("  WRONG: host clock around the launch only    %10.3f ms  'speedup' %.0fx  (median of 21;\n"
           "         the clock stopped before the GPU finished: this is the launch's cost, not the work's)\n",
           wrong_s[10] * 1e3, cpu_s / wrong_s[10]);
    printf("worst relative error vs the CPU over all rows: %.3g (limit 1e-12): %s\n", worst,
           ok_values ? "ok" : "EXCEEDED");

    int ok = ok_values;
    GPUH_CHECK(gpuh_free(d_x));
    GPUH_CHECK(gpuh_free(d_norm));
    free(h_x), free(h_norm), free(h_ref);
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
