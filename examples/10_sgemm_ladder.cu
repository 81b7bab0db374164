/* 10_sgemm_ladder.cu - the SGEMM ladder: from the tutorials' matmul towards cuBLAS, on this GPU.

   Teaches: how C = A · B in float32 goes from the first kernel everyone
   writes to a good fraction of cuBLAS, one change per step. Each step is one
   file in examples/sgemm/, which opens with what it changes and why it pays:
     1  01_naive.cuh          one thread per element, threadIdx.x down the rows (uncoalesced)
     2  02_coalesced.cuh      threadIdx.x along a row: a warp reads 128 contiguous bytes
     3  03_shared_tiles.cuh   16 × 16 tiles in shared memory: each load serves 16 threads
     4  04_register_1d.cuh    8 results per thread (a column): about 1 shared load per FMA
     5  05_register_2d.cuh    8 × 8 results per thread: 64 FMAs per 16 shared loads
     6  06_vectorized.cuh     float4 loads, A tile transposed: 4 shared loads per 64 FMAs
     7  07_warp_tiles.cuh     each warp owns a 64 × 32 tile: conflict-free shared reads
     8  08_double_buffer.cuh  the next K slice loads while this one is multiplied
   and, last, gpuh_matmul, the kernel gpuh ships (gpuh_kernels.cuh).
   Steps 4 to 8 need M, N, K multiples of their tiles (128 covers all); they
   are for reading, and the shipped kernel handles any shape.

   Measures: M = N = K = 4096 by default, or the size given as argv[1] (a
   multiple of 128; small sizes are for compute-sanitizer). TFLOP/s counts
   2·M·N·K flops per product, timed with CUDA events, median of REPS runs after
   WARMUP (gpuh_time_median_ms); the inputs are not rotated: a product of this
   size does 2n flops per element it reads, so it is bound by arithmetic and
   shared memory, not by DRAM. The peer is cuBLAS SGEMM with
   CUBLAS_DEFAULT_MATH (float32 FMAs on the CUDA cores, no TF32), measured in
   the same run; each row gives its fraction of cuBLAS, its speedup over the
   step before, and the fraction of cuBLAS that Simon Boehm's worklog "How to
   Optimize a CUDA Matmul Kernel for cuBLAS-like Performance" (2022) measured
   for the matching kernel on an RTX A6000 ("—" where it has no match).
   Checks: fresh random inputs, uniform in (0, 1] (cuRAND; GPUH_SEED repeats a
   run). cuBLAS's result is checked first, at 1024 random entries, against
   float64 dot products: |c - ref| / sum|a·b| within gamma_K = K·u / (1 - K·u),
   u = 2^-24, the worst case of any summation order (Higham, Accuracy and
   Stability of Numerical Algorithms, 3.1). Every step, and gpuh_matmul, is
   then compared with cuBLAS over all of C: ‖C - C_cublas‖_F / ‖C_cublas‖_F
   <= 1e-5, on its first run and on its last timed run, with C poisoned (NaN)
   before each; and again, untimed, at two rectangular shapes (a square one
   cannot tell M from N). Every kernel sums K float32 products in its own
   order, and random rounding errors grow like 2^-24·sqrt(K), a few 1e-6
   relative at K = 4096, so 1e-5 leaves a margin, while a wrong index or an
   unwritten element gives an error of order 1e-2 or more.
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): n = 256 unless
   argv[1] gives one, and 2 repetitions; the checks are the same. */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "gpuh_kernels.cuh"
#include "ladder_table.h"
#include "sgemm/01_naive.cuh"
#include "sgemm/02_coalesced.cuh"
#include "sgemm/03_shared_tiles.cuh"
#include "sgemm/04_register_1d.cuh"
#include "sgemm/05_register_2d.cuh"
#include "sgemm/08_double_buffer.cuh" /* includes 07 and 06, whose helpers it reuses */

static constexpr double TOL = 1e-5;  /* on ‖C - C_cublas‖_F / ‖C_cublas‖_F; see the top comment */
static constexpr int SAMPLES = 1024; /* entries of cuBLAS's C checked against float64 */

/* cuBLAS in the launchers' shape. cuBLAS is column-major; a row-major matrix
   read as column-major is its transpose, so C = A · B (row-major) is
   computed as C^T = B^T · A^T (column-major): B first, dimensions N, M, K,
   leading dimensions N, K, N. The handle is made in main. */
static cublasHandle_t g_cublas;
static cudaError_t cublas_sgemm(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N, size_t K,
                                cudaStream_t stream)
{
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = cublasSetStream(g_cublas, stream);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasSgemm(g_cublas, CUBLAS_OP_N, CUBLAS_OP_N, (int)N, (int)M, (int)K, &alpha, d_B, (int)N, d_A,
                         (int)K, &beta, d_C, (int)N);
    if (st != CUBLAS_STATUS_SUCCESS)
        return gpuh_fail(cudaErrorUnknown, "cublasSgemm: %s", cublasGetStatusString(st));
    return cudaSuccess;
}

/* The kernel gpuh ships, in the same shape. */
static cudaError_t shipped_matmul(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N, size_t K,
                                  cudaStream_t stream)
{
    return gpuh_matmul(d_A, d_B, d_C, M, N, K, stream);
}

struct rung {
    const char *name;
    sgemm_fn fn;
    const char *a6000; /* Boehm's RTX A6000 fraction of cuBLAS at 4096, or "—" */
    int any_shape;     /* 0: M, N multiples of 128 and K of 8 only */
};
static const rung RUNGS[] = {
    {"cuBLAS SGEMM (the reference)", cublas_sgemm, "100%", 1},
    {"1 naive", sgemm_step1, "1.3%", 1},
    {"2 coalesced", sgemm_step2, "—", 1},
    {"3 shared-memory tiles", sgemm_step3, "12.8%", 1},
    {"4 1-D register blocking", sgemm_step4, "36.5%", 0},
    {"5 2-D register blocking", sgemm_step5, "68.7%", 0},
    {"6 vectorised, A transposed", sgemm_step6, "78.4%", 0},
    {"7 warp tiling", sgemm_step7, "93.7%", 0},
    {"8 double-buffered", sgemm_step8, "—", 0},
    {"gpuh_matmul (shipped)", shipped_matmul, "—", 1},
};
static const int NRUNGS = (int)(sizeof RUNGS / sizeof RUNGS[0]);

struct product {
    sgemm_fn fn;
    const float *d_A, *d_B;
    float *d_C;
    size_t M, N, K;
};
static cudaError_t enqueue_product(void *ctx, cudaStream_t stream)
{
    const product *p = (const product *)ctx;
    return p->fn(p->d_A, p->d_B, p->d_C, p->M, p->N, p->K, stream);
}

/* Untimed: every rung that takes the shape, at M × N × K, against cuBLAS
   on fresh inputs, C poisoned first. A square product cannot tell M from N
   or A from B; these can. Returns 1 if all are within TOL, and prints the
   ones that are not. */
static int check_shape(size_t M, size_t N, size_t K, unsigned long long seed)
{
    const int aligned = M % 128 == 0 && N % 128 == 0 && K % 8 == 0;
    float *d_A, *d_B, *d_C, *d_ref;
    float *h_C = (float *)malloc(M * N * sizeof(float)), *h_ref = (float *)malloc(M * N * sizeof(float));
    int ok = 1;
    if (h_C == NULL || h_ref == NULL) {
        printf("out of host memory\n");
        free(h_C), free(h_ref);
        return 0;
    }
    GPUH_CHECK(gpuh_device_array(&d_A, M * K));
    GPUH_CHECK(gpuh_device_array(&d_B, K * N));
    GPUH_CHECK(gpuh_device_array(&d_C, M * N));
    GPUH_CHECK(gpuh_device_array(&d_ref, M * N));
    GPUH_CHECK(gpuh_random_uniform_f32(d_A, M * K, seed, 0));
    GPUH_CHECK(gpuh_random_uniform_f32(d_B, K * N, seed + 1, 0));
    GPUH_CHECK(cublas_sgemm(d_A, d_B, d_ref, M, N, K, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_ref, d_ref, M * N));
    for (int r = 1; r < NRUNGS; ++r) {
        product p = {RUNGS[r].fn, d_A, d_B, d_C, M, N, K};
        if (aligned || RUNGS[r].any_shape)
            ok &= rung_checked(RUNGS[r].name, enqueue_product, &p, d_C, h_C, h_ref, M, N, K, TOL);
    }
    shape_free(d_A, d_B, d_C, d_ref, h_C, h_ref);
    return ok;
}

int main(int argc, char **argv)
{
    const int quick = quick_mode(); /* quick mode: see the top comment */
    size_t n;
    unsigned long long seed;
    struct cudaDeviceProp prop;
    const int exit_code = ladder_begin(argc, argv, 4096, 128, &n, &seed, &prop);
    if (exit_code >= 0)
        return exit_code;
    const int WARMUP = quick ? 1 : 2, REPS = quick ? 2 : 10;
    const size_t count = n * n;
    const double flops = 2.0 * n * n * n;
    int ok = 1;
    printf("SGEMM ladder on %s: C = A · B, M = N = K = %zu, float32, row-major\n", prop.name, n);
    printf("seed %llu (set GPUH_SEED to repeat)%s; median of %d runs after %d\n", seed,
           quick ? "; quick mode (GPUH_TEST_QUICK)" : "", REPS, WARMUP);

    float *d_A, *d_B, *d_C, *d_ref;
    float *h_A = (float *)malloc(count * sizeof(float)), *h_B = (float *)malloc(count * sizeof(float));
    float *h_C = (float *)malloc(count * sizeof(float)), *h_ref = (float *)malloc(count * sizeof(float));
    if (!h_A || !h_B || !h_C || !h_ref) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }
    GPUH_CHECK(gpuh_device_array(&d_A, count));
    GPUH_CHECK(gpuh_device_array(&d_B, count));
    GPUH_CHECK(gpuh_device_array(&d_C, count));
    GPUH_CHECK(gpuh_device_array(&d_ref, count));
    GPUH_CHECK(gpuh_random_uniform_f32(d_A, count, seed, 0));
    GPUH_CHECK(gpuh_random_uniform_f32(d_B, count, seed + 1, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_A, d_A, count));
    GPUH_CHECK(gpuh_copy_to_host(h_B, d_B, count));
    if (cublasCreate(&g_cublas) != CUBLAS_STATUS_SUCCESS ||
        cublasSetMathMode(g_cublas, CUBLAS_DEFAULT_MATH) != CUBLAS_STATUS_SUCCESS) {
        printf("cuBLAS could not be set up\nResult = FAIL\n");
        return 1;
    }

    /* The reference: cuBLAS's C, itself checked at sampled entries. */
    GPUH_CHECK(cudaMemset(d_ref, 0xFF, count * sizeof(float)));
    GPUH_CHECK(cublas_sgemm(d_A, d_B, d_ref, n, n, n, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_ref, d_ref, count));
    const double u = ldexp(1.0, -24), gamma_k = n * u / (1.0 - n * u);
    int ii[SAMPLES], jj[SAMPLES];
    srand((unsigned)seed);
    for (int s = 0; s < SAMPLES; ++s) {
        ii[s] = rand() % (int)n;
        jj[s] = rand() % (int)n;
    }
    const double cublas_worst = sgemm_sample_error(h_ref, h_A, h_B, ii, jj, SAMPLES, n, n);
    const int cublas_ok = cublas_worst <= gamma_k;
    ok &= cublas_ok;
    printf("cuBLAS vs float64 at %d random entries: worst |c - ref| / sum|a*b| = %.3g, bound gamma_K = %.3g: %s\n",
           SAMPLES, cublas_worst, gamma_k, cublas_ok ? "within" : "EXCEEDED");

    /* Every rung: checked, timed, checked again. */
    double tflops[NRUNGS], err_first[NRUNGS], err_last[NRUNGS];
    for (int r = 0; r < NRUNGS; ++r) {
        product p = {RUNGS[r].fn, d_A, d_B, d_C, n, n, n};
        tflops[r] = rung_run(enqueue_product, &p, d_C, h_C, h_ref, count, flops, WARMUP, REPS, &err_first[r],
                             &err_last[r]);
        ok &= err_first[r] <= TOL && err_last[r] <= TOL; /* false for NaN */
    }

    /* Rectangular shapes: 384 x 256 x 136 suits every step; 100 x 37 x 257
       suits steps 1-3 and gpuh_matmul, which take any shape. */
    const int shapes_ok = check_shape(384, 256, 136, seed + 2) && check_shape(100, 37, 257, seed + 4);
    ok &= shapes_ok;

    printf("\n%-30s %9s %9s %9s %11s %11s  %s\n", "kernel", "TFLOP/s", "% cuBLAS", "x prev", "Boehm A6000",
           "rel. error", "check");
    for (int r = 0; r < NRUNGS; ++r) {
        char frac[16], prev[16], err[16];
        snprintf(frac, sizeof frac, "%.1f%%", 100.0 * tflops[r] / tflops[0]);
        snprintf(prev, sizeof prev, "%.2fx", r >= 2 ? tflops[r] / tflops[r - 1] : 1.0);
        const double worse = err_last[r] > err_first[r] || err_last[r] != err_last[r] ? err_last[r] : err_first[r];
        snprintf(err, sizeof err, "%.2g", worse);
        printf("%-30s %9.2f", RUNGS[r].name, tflops[r]);
        put_cell(frac, 9);
        put_cell(r >= 2 ? prev : "—", 9);
        put_cell(RUNGS[r].a6000, 11);
        put_cell(r == 0 ? "—" : err, 11);
        printf("  %s\n", r == 0 ? "reference" : err_first[r] <= TOL && err_last[r] <= TOL ? "ok" : "FAIL");
    }
    printf("TFLOP/s: 2·%zu^3 flops / median time. x prev: speedup over the row above (gpuh_matmul: over step 8).\n"
           "Boehm A6000: the fraction of cuBLAS his kernels 1, 3, 4, 5, 6 and 10 reached on an RTX A6000.\n"
           "rel. error: ‖C - C_cublas‖_F / ‖C_cublas‖_F, the worse of the first and the last timed run; "
           "bound %.0e.\n",
           n, TOL);
    printf("Also within the bound, untimed: 384 x 256 x 136 (every step) and 100 x 37 x 257 (steps 1-3, "
           "gpuh_matmul): %s\n",
           shapes_ok ? "yes" : "NO");

    cublasDestroy(g_cublas);
    GPUH_CHECK(gpuh_free(d_A));
    GPUH_CHECK(gpuh_free(d_B));
    GPUH_CHECK(gpuh_free(d_C));
    GPUH_CHECK(gpuh_free(d_ref));
    free(h_A), free(h_B), free(h_C), free(h_ref);
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
