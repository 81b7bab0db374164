/* 07_from_c.c - gpuh from plain C99: no nvcc, no templates, no <<< >>>.

   Teaches: a C program uses gpuh.h (devices, memory, errors, random inputs)
   and calls the kernels through the typed C entry points that
   gpuh_kernels.cuh declares (gpuh_vector_add_f32, gpuh_sum_f64,
   gpuh_min_i32, gpuh_max_i32, gpuh_matmul_f32). Their definitions come from
   07_from_c_kernels.cu, the one file compiled by nvcc. Build:
       nvcc -I. -c examples/07_from_c_kernels.cu -o k.o
       gcc -std=c99 -DGPUH_USE_CURAND -I. -isystem <cuda>/include -c examples/07_from_c.c -o c.o
       g++ c.o k.o -L<cuda>/lib64 -lcudart -lcurand
   (linked by g++ or nvcc: nvcc's host code in k.o needs the C++ runtime).
   Measures: nothing.
   Checks, against CPU results on the same random inputs (poisoned outputs):
   vector add exactly (one float addition each, rounded the same way on both);
   int32 min and max exactly; a float64 sum and a float matmul within their
   rounding-error bounds, explained where they are computed.
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): n = 10007 and a
   45 x 33 x 20 matmul; the checks are the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

/* No <math.h>: the program then links without libm on every platform. */
static double abs_d(double x) { return x < 0.0 ? -x : x; }
#define UNIT_F64 (1.0 / 9007199254740992.0) /* 2^-53: unit roundoff of double */
#define UNIT_F32 (1.0 / 16777216.0)         /* 2^-24: unit roundoff of float */

int main(void)
{
    const char *why;
    unsigned long long seed;
    const int quick = quick_mode(); /* quick mode: see the top comment */
    const size_t n = quick ? 10007 : 1000003; /* not a multiple of any block size */
    const size_t M = quick ? 45 : 300, N = quick ? 33 : 257, K = quick ? 20 : 100;
    float *d_a, *d_b, *d_c, *h_a, *h_b, *h_c, *d_A, *d_B, *d_C, *h_A, *h_B, *h_C;
    double *d_x, *d_sum, *h_x, h_sum, ref_sum = 0.0, sum_tol, worst_mm = 0.0, mm_tol;
    int *d_i, *d_minmax, *h_i, h_minmax[2], ref_min, ref_max, ok = 1, add_ok = 1;
    unsigned char *d_temp;
    size_t i, j, k;

    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("07_from_c"));
        return 77;
    }
    seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);
    h_a = malloc(n * sizeof *h_a), h_b = malloc(n * sizeof *h_b), h_c = malloc(n * sizeof *h_c);
    h_x = malloc(n * sizeof *h_x), h_i = malloc(n * sizeof *h_i);
    h_A = malloc(M * K * sizeof *h_A), h_B = malloc(K * N * sizeof *h_B), h_C = malloc(M * N * sizeof *h_C);
    if (!h_a || !h_b || !h_c || !h_x || !h_i || !h_A || !h_B || !h_C) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }

    /* Vector add: c = a + b. */
    GPUH_CHECK(gpuh_device_array(&d_a, n));
    GPUH_CHECK(gpuh_device_array(&d_b, n));
    GPUH_CHECK(gpuh_device_array(&d_c, n));
    GPUH_CHECK(gpuh_random_uniform_f32(d_a, n, seed, 0));
    GPUH_CHECK(gpuh_random_uniform_f32(d_b, n, seed + 1, 0));
    GPUH_CHECK(cudaMemset(d_c, 0xFF, n * sizeof *d_c)); /* poison: NaN until written */
    GPUH_CHECK(gpuh_vector_add_f32(d_a, d_b, d_c, n, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_a, d_a, n));
    GPUH_CHECK(gpuh_copy_to_host(h_b, d_b, n));
    GPUH_CHECK(gpuh_copy_to_host(h_c, d_c, n));
    for (i = 0; i < n; ++i)
        add_ok &= h_c[i] == h_a[i] + h_b[i];
    printf("vector_add_f32, n = %zu: %s\n", n, add_ok ? "equal to the CPU" : "DIFFERENT");
    ok &= add_ok;

    /* Sum of doubles; the scratch buffer holds the blocks' partial sums. */
    GPUH_CHECK(gpuh_device_array(&d_x, n));
    GPUH_CHECK(gpuh_device_array(&d_sum, 1));
    GPUH_CHECK(gpuh_device_array(&d_temp, GPUH_REDUCE_TEMP_BYTES));
    GPUH_CHECK(gpuh_random_uniform_f64(d_x, n, seed + 2, 0));
    GPUH_CHECK(cudaMemset(d_sum, 0xFF, sizeof *d_sum));
    GPUH_CHECK(gpuh_sum_f64(d_x, n, d_sum, d_temp, 0));
    GPUH_CHECK(gpuh_copy_to_host(&h_sum, d_sum, 1));
    GPUH_CHECK(gpuh_copy_to_host(h_x, d_x, n));
    for (i = 0; i < n; ++i)
        ref_sum += h_x[i]; /* all x > 0, so this is also sum|x| */
    /* Any order of adding n numbers rounds each at most n - 1 times, so each
       answer is within gamma_(n-1) sum|x| of the exact sum, gamma_m = m u /
       (1 - m u) (the CPU's loop is that worst order; the GPU's tree is far
       shallower): the two differ by at most twice that. */
    sum_tol = 2.0 * (n - 1) * UNIT_F64 / (1.0 - (n - 1) * UNIT_F64) * ref_sum;
    printf("sum_f64: gpu %.17g, cpu %.17g, |diff| %.3g <= %.3g: %s\n", h_sum, ref_sum, abs_d(h_sum - ref_sum),
           sum_tol, abs_d(h_sum - ref_sum) <= sum_tol ? "yes" : "NO");
    ok &= abs_d(h_sum - ref_sum) <= sum_tol;

    /* Min and max of int32: 32 random bits each, read as signed. */
    GPUH_CHECK(gpuh_device_array(&d_i, n));
    GPUH_CHECK(gpuh_device_array(&d_minmax, 2));
    GPUH_CHECK(gpuh_random_u32((unsigned int *)d_i, n, seed + 3, 0));
    GPUH_CHECK(cudaMemset(d_minmax, 0xFF, 2 * sizeof *d_minmax));
    GPUH_CHECK(gpuh_min_i32(d_i, n, d_minmax + 0, d_temp, 0));
    GPUH_CHECK(gpuh_max_i32(d_i, n, d_minmax + 1, d_temp, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_minmax, d_minmax, 2));
    GPUH_CHECK(gpuh_copy_to_host(h_i, d_i, n));
    ref_min = ref_max = h_i[0];
    for (i = 1; i < n; ++i) {
        ref_min = h_i[i] < ref_min ? h_i[i] : ref_min;
        ref_max = h_i[i] > ref_max ? h_i[i] : ref_max;
    }
    printf("min_i32 %d (cpu %d), max_i32 %d (cpu %d): %s\n", h_minmax[0], ref_min, h_minmax[1], ref_max,
           h_minmax[0] == ref_min && h_minmax[1] == ref_max ? "equal" : "DIFFERENT");
    ok &= h_minmax[0] == ref_min && h_minmax[1] == ref_max;

    /* Matmul, C (M x N) = A (M x K) * B (K x N), row-major, awkward sizes. */
    GPUH_CHECK(gpuh_device_array(&d_A, M * K));
    GPUH_CHECK(gpuh_device_array(&d_B, K * N));
    GPUH_CHECK(gpuh_device_array(&d_C, M * N));
    GPUH_CHECK(gpuh_random_normal_f32(d_A, M * K, 0.0f, 1.0f, seed + 4, 0));
    GPUH_CHECK(gpuh_random_normal_f32(d_B, K * N, 0.0f, 1.0f, seed + 5, 0));
    GPUH_CHECK(cudaMemset(d_C, 0xFF, M * N * sizeof *d_C));
    GPUH_CHECK(gpuh_matmul_f32(d_A, d_B, d_C, M, N, K, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_A, d_A, M * K));
    GPUH_CHECK(gpuh_copy_to_host(h_B, d_B, K * N));
    GPUH_CHECK(gpuh_copy_to_host(h_C, d_C, M * N));
    /* A float dot product of length K errs by at most gamma_K sum|a b|,
       gamma_K = K u / (1 - K u); the float64 reference is exact by comparison. */
    mm_tol = K * UNIT_F32 / (1.0 - K * UNIT_F32);
    for (i = 0; i < M; ++i)
        for (j = 0; j < N; ++j) {
            double ref = 0.0, mag = 0.0, err;
            for (k = 0; k < K; ++k) {
                ref += (double)h_A[i * K + k] * h_B[k * N + j];
                mag += abs_d((double)h_A[i * K + k] * h_B[k * N + j]);
            }
            err = abs_d(h_C[i * N + j] - ref) / mag;
            worst_mm = err > worst_mm || err != err ? err : worst_mm; /* a NaN (unwritten) sticks */
        }
    printf("matmul_f32 %zux%zux%zu: worst relative error %.3g <= %.3g: %s\n", M, N, K, worst_mm, mm_tol,
           worst_mm <= mm_tol ? "yes" : "NO");
    ok &= worst_mm <= mm_tol;

    GPUH_CHECK(gpuh_free(d_a));
    GPUH_CHECK(gpuh_free(d_b));
    GPUH_CHECK(gpuh_free(d_c));
    GPUH_CHECK(gpuh_free(d_x));
    GPUH_CHECK(gpuh_free(d_sum));
    GPUH_CHECK(gpuh_free(d_temp));
    GPUH_CHECK(gpuh_free(d_i));
    GPUH_CHECK(gpuh_free(d_minmax));
    GPUH_CHECK(gpuh_free(d_A));
    GPUH_CHECK(gpuh_free(d_B));
    GPUH_CHECK(gpuh_free(d_C));
    free(h_a), free(h_b), free(h_c), free(h_x), free(h_i), free(h_A), free(h_B), free(h_C);
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
