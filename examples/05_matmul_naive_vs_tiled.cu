/* 05_matmul_naive_vs_tiled.cu - C = A * B, 1024 x 1024 floats: naive, tiled, CPU.

   Teaches: the first rungs of the matrix-multiply optimisation ladder. The
   naive kernel (sgemm/01_naive.cuh, the tutorials' first kernel) gives each
   thread one element of C and has it read a whole row of A and column of B
   from global memory; its warps run down the columns of C, so their loads of
   A are scattered. The tiled kernel (sgemm/03_shared_tiles.cuh, the CUDA
   Programming Guide's) lets a warp run along a row and stages 16 x 16 tiles
   of A and B in shared memory, so each element loaded from global memory
   serves 16 threads instead of one. 10_sgemm_ladder.cu separates the two
   changes (its step 2) and climbs further, to cuBLAS.
   Measures: GFLOP/s = 2 * M * N * K / time of each GPU kernel (CUDA events,
   median of repetitions after a warm-up) and of a full single-core CPU loop
   (host clock; CPU work is synchronous). A, B and C total 12 MiB, which stays
   in the L2 cache across repetitions, as it would in a program that uses them.
   Checks: 1000 random entries C[i][j] of each result (both GPU kernels and
   the CPU loop) against a float64 dot product, with the tolerance explained
   at `tol` below. Outputs are poisoned with NaN before the kernels run.
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): 100 x 100 x 100,
   2 timed runs; the checks are the same. */
#include <chrono>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpuh.h"
#include "quick_mode.h"
#include "sgemm/01_naive.cuh"
#include "sgemm/03_shared_tiles.cuh"

struct mm_args {
    sgemm_fn fn; /* sgemm_step1 or sgemm_step3 */
    const float *d_A, *d_B;
    float *d_C;
    size_t M, N, K;
};
static cudaError_t enqueue_matmul(void *ctx, cudaStream_t stream)
{
    const mm_args *p = (const mm_args *)ctx;
    return p->fn(p->d_A, p->d_B, p->d_C, p->M, p->N, p->K, stream);
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("05_matmul_naive_vs_tiled"));
        return 77;
    }
    const unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);

    const int quick = quick_mode(); /* quick mode: see the top comment */
    const size_t M = quick ? 100 : 1024, N = M, K = M;
    const double flops = 2.0 * M * N * K;
    /* Each entry is a float sum of K products. In any order, with or without
       FMA, its error is at most gamma_K * sum|a * b|, gamma_K = K u / (1 - K u),
       u = 2^-24 (Higham, Accuracy and Stability of Numerical Algorithms, 3.1):
       6.1e-5 here. Random rounding errors partly cancel, so the observed error
       is far smaller; a wrong index or an unwritten element gives one of order 1. */
    const double u = ldexp(1.0, -24), tol = K * u / (1.0 - K * u);
    const int samples = 1000;
    float *d_A, *d_B, *d_C;
    float *h_A = (float *)malloc(M * K * sizeof(float)), *h_B = (float *)malloc(K * N * sizeof(float));
    float *h_C = (float *)malloc(M * N * sizeof(float)), *h_C_cpu = (float *)calloc(M * N, sizeof(float));
    int ii[samples], jj[samples], ok = 1;
    if (!h_A || !h_B || !h_C || !h_C_cpu) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }
    GPUH_CHECK(gpuh_device_array(&d_A, M * K));
    GPUH_CHECK(gpuh_device_array(&d_B, K * N));
    GPUH_CHECK(gpuh_device_array(&d_C, M * N));
    GPUH_CHECK(gpuh_random_normal_f32(d_A, M * K, 0.0f, 1.0f, seed, 0));
    GPUH_CHECK(gpuh_random_normal_f32(d_B, K * N, 0.0f, 1.0f, seed + 1, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_A, d_A, M * K));
    GPUH_CHECK(gpuh_copy_to_host(h_B, d_B, K * N));
    srand((unsigned)seed);
    for (int s = 0; s < samples; ++s) {
        ii[s] = rand() % (int)M;
        jj[s] = rand() % (int)N;
    }

    const char *names[2] = {"naive (global memory)", "tiled (16 x 16, shared memory)"};
    const sgemm_fn fns[2] = {sgemm_step1, sgemm_step3};
    double gflops[2], err[2];
    for (int v = 0; v < 2; ++v) {
        mm_args args = {fns[v], d_A, d_B, d_C, M, N, K};
        float ms = 0.0f;
        GPUH_CHECK(cudaMemset(d_C, 0xFF, M * N * sizeof(float))); /* NaN until written */
        GPUH_CHECK(gpuh_time_median_ms(enqueue_matmul, &args, 0, quick ? 1 : 3, quick ? 2 : 20, &ms));
        GPUH_CHECK(gpuh_copy_to_host(h_C, d_C, M * N));
        gflops[v] = flops / (ms * 1e-3) / 1e9;
        err[v] = sgemm_sample_error(h_C, h_A, h_B, ii, jj, samples, N, K);
    }

    /* The CPU in i-k-j order: the inner loop walks rows of B and C with
       stride 1, which the cache and the vector units like. */
    auto t0 = std::chrono::steady_clock::now();
    for (size_t i = 0; i < M; ++i)
        for (size_t k = 0; k < K; ++k) {
            const float a = h_A[i * K + k];
            for (size_t j = 0; j < N; ++j)
                h_C_cpu[i * N + j] += a * h_B[k * N + j];
        }
    const double cpu_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double cpu_err = sgemm_sample_error(h_C_cpu, h_A, h_B, ii, jj, samples, N, K);

    printf("C = A * B, M = N = K = %zu, float; %d sampled entries vs float64, tolerance %.2g\n", M, samples,
           tol);
    printf("  %-36s %10s %14s\n", "version", "GFLOP/s", "worst rel err");
    for (int v = 0; v < 2; ++v) {
        printf("  %-36s %10.1f %14.3g\n", names[v], gflops[v], err[v]);
        ok &= err[v] <= tol;
    }
    printf("  %-36s %10.2f %14.3g\n", "CPU, i-k-j loop, 1 core", flops / cpu_s / 1e9, cpu_err);
    ok &= cpu_err <= tol;
    /* Two significant digits below 10 (the simulator's kernels run slower than the CPU loop). */
    const double vs_cpu = gflops[1] / (flops / cpu_s / 1e9);
    printf("tiled / naive: %.2fx; tiled / CPU: %.*gx\n", gflops[1] / gflops[0], vs_cpu < 10 ? 2 : 6, vs_cpu);

    GPUH_CHECK(gpuh_free(d_A));
    GPUH_CHECK(gpuh_free(d_B));
    GPUH_CHECK(gpuh_free(d_C));
    free(h_A), free(h_B), free(h_C), free(h_C_cpu);
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
