/* 11_hgemm_ladder.cu - the tensor-core GEMM ladder: bf16 C = A · Bᵀ from one mma.sync to the shipped kernel.

   Teaches: how a bf16 matrix product with float32 accumulation goes from
   the first tensor-core kernel anyone writes to cuBLAS's rate on a Hopper
   GPU, one idea per step. Each step is one file in examples/hgemm/, which
   opens with what it changes and why it pays:
     1  01_mma_naive.cuh          mma.sync m16n8k16, one warp per 16 × 8 tile, fragments from global memory
     2  02_smem_ldmatrix.cuh      128 × 128 tiles in shared memory (padded), fragments by ldmatrix
     3  03_cp_async_pipeline.cuh  cp.async, 3 stages in flight, 128-byte swizzle instead of padding
     4  04_wgmma.cuh              Hopper's wgmma: a warpgroup multiplies tiles straight from shared memory
     5  05_tma_mbarrier.cuh       the TMA copies whole swizzled tiles; mbarriers count the bytes in
     6  06_warp_specialized.cuh   a producer warpgroup feeds two consumers (128 × 256 tiles, setmaxnreg)
   and, last, gpuh_gemm for bf16 (gpuh_kernels.cuh), the kernel gpuh ships.
   Steps 4 to 6 run only where the device runs sm_90a code (wgmma and
   setmaxnreg exist only there: build with CMAKE_CUDA_ARCHITECTURES 90a, or
   nvcc -gencode arch=compute_90a,code=sm_90a); elsewhere they are reported
   as skipped, and steps 1 to 3 need sm_80 or later. The steps need M a
   multiple of 128, N of 256 and K of 64 (they are for reading); the shipped
   kernel takes any shape.

   The product is the layout of a linear layer: A is M × K row-major, B is
   N × K row-major (PyTorch's nn.Linear weight), C = A · Bᵀ is M × N float32.
   Both operands run along K in memory, the layout tensor cores read directly.

   Measures: M = N = K = 8192 by default (the worklog's size), or the size
   given as argv[1] (a multiple of 256; small sizes are for compute-
   sanitizer). TFLOP/s counts 2·M·N·K flops per product, timed with CUDA
   events, median of REPS runs after WARMUP (gpuh_time_median_ms). The peer
   is cuBLAS (cublasGemmEx: bf16 A and B, float32 C, CUBLAS_COMPUTE_32F),
   measured in the same run; each row gives its fraction of cuBLAS, its
   speedup over the step before, and beside it the figure Pranjal
   Shankhdhar's worklog "Outperforming cuBLAS on H100" published for the
   nearest kernel, as published (H100 SXM, bf16, 8192³, its own cuBLAS at
   797.8 TFLOP/s; github.com/pranjalssh/fast.cu, README): they are H100
   figures from that worklog, not measurements of this run.
   Checks: fresh random inputs, uniform in (-1, 1] and rounded to bf16
   (cuRAND; GPUH_SEED repeats a run). cuBLAS's result is checked first, at
   1024 random entries, against float64 dot products of the same bf16
   values: |c - ref| / sum|a·b| within gamma_K = K·u / (1 - K·u), u = 2^-24,
   the worst case of float32 accumulation in any order (Higham, Accuracy and
   Stability of Numerical Algorithms, 3.1). Every step, and gpuh_gemm, is
   then compared with cuBLAS over all of C: ‖C - C_cublas‖_F / ‖C_cublas‖_F
   <= 1e-4, on its first run and on its last timed run, with C poisoned
   (NaN) before each; and again, untimed, at a rectangular shape (a square
   one cannot tell M from N), plus an awkward one for gpuh_gemm alone. The
   products of bf16 values are exact in float32, so the kernels differ only
   in the order of their float32 sums: random rounding errors of relative
   size about 2^-24·sqrt(K), 1e-5 at most here; a wrong index or a slice of
   64 columns of K missed gives an error of order sqrt(64 / K) or more,
   above 0.08 even at K = 8192.
   Quick mode (GPUH_TEST_QUICK=1; scripts/gpu_check.sh sets it under
   compute-sanitizer): n = 256 unless argv[1] gives one, 2 repetitions; the
   checks are the same. */
#include <cublas_v2.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "gpuh_kernels.cuh"
#include "ladder_table.h"
#include "hgemm/01_mma_naive.cuh"
#include "hgemm/02_smem_ldmatrix.cuh"
#include "hgemm/03_cp_async_pipeline.cuh"
#include "hgemm/04_wgmma.cuh"
#include "hgemm/05_tma_mbarrier.cuh"
#include "hgemm/06_warp_specialized.cuh"

static constexpr double TOL = 1e-4;  /* on ‖C - C_cublas‖_F / ‖C_cublas‖_F; see the top comment */
static constexpr int SAMPLES = 1024; /* entries of cuBLAS's C checked against float64 */

/* cuBLAS in the launchers' shape. cuBLAS is column-major: a row-major matrix
   read as column-major is its transpose, so row-major C = A · Bᵀ is
   column-major Cᵀ = B · Aᵀ, with B (read as Bᵀ, K × N) transposed back
   (CUBLAS_OP_T) and A read as Aᵀ as it is (CUBLAS_OP_N): cuBLAS's own
   favourite "TN" case. The handle is made in main. */
static cublasHandle_t g_cublas;
static cudaError_t cublas_bf16(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                               cudaStream_t stream)
{
    const float alpha = 1.0f, beta = 0.0f;
    cublasStatus_t st = cublasSetStream(g_cublas, stream);
    if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasGemmEx(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int)N, (int)M, (int)K, &alpha, d_B, CUDA_R_16BF,
                          (int)K, d_A, CUDA_R_16BF, (int)K, &beta, d_C, CUDA_R_32F, (int)N, CUBLAS_COMPUTE_32F,
                          CUBLAS_GEMM_DEFAULT);
    if (st != CUBLAS_STATUS_SUCCESS)
        return gpuh_fail(cudaErrorUnknown, "cublasGemmEx: %s", cublasGetStatusString(st));
    return cudaSuccess;
}

/* The kernel gpuh ships, in the same shape: B transposed (GPUH_OP_T), as
   gpuh_gemm reads every operand row-major with its leading dimension. */
static cudaError_t shipped_gemm(const bf16 *d_A, const bf16 *d_B, float *d_C, size_t M, size_t N, size_t K,
                                cudaStream_t stream)
{
    return gpuh_gemm(GPUH_OP_N, GPUH_OP_T, M, N, K, 1.0f, d_A, K, d_B, K, 0.0f, d_C, N, stream);
}

enum needs { NEEDS_NOTHING, NEEDS_SM80, NEEDS_SM90A };
struct rung {
    const char *name;
    hgemm_fn fn;
    const char *worklog; /* the worklog's H100 figure for its nearest kernel, or "—" */
    needs code;          /* what the device code must have for the step to run */
    int any_shape;       /* 0: M a multiple of 128, N of 256, K of 64 only */
};
static const rung RUNGS[] = {
    {"cuBLAS bf16 (the reference)", cublas_bf16, "797.8 (K0)", NEEDS_NOTHING, 1},
    {"1 naive mma.sync", hgemm_step1, "—", NEEDS_SM80, 0},
    {"2 shared tiles + ldmatrix", hgemm_step2, "—", NEEDS_SM80, 0},
    {"3 cp.async pipeline, swizzle", hgemm_step3, "—", NEEDS_SM80, 0},
    {"4 wgmma from shared memory", hgemm_step4, "—", NEEDS_SM90A, 0},
    {"5 TMA + mbarrier pipeline", hgemm_step5, "488.5 (K2)", NEEDS_SM90A, 0},
    {"6 warp-specialised 128x256", hgemm_step6, "635.4 (K4)", NEEDS_SM90A, 0},
    {"gpuh_gemm bf16 (shipped)", shipped_gemm, "807.7 (K11)", NEEDS_NOTHING, 1},
};
static const int NRUNGS = (int)(sizeof RUNGS / sizeof RUNGS[0]);

/* Which rungs this device's code can run (see hgemm_probe). */
static int g_runs[NRUNGS];

struct product {
    hgemm_fn fn;
    const bf16 *d_A, *d_B;
    float *d_C;
    size_t M, N, K;
};
static cudaError_t enqueue_product(void *ctx, cudaStream_t stream)
{
    const product *p = (const product *)ctx;
    return p->fn(p->d_A, p->d_B, p->d_C, p->M, p->N, p->K, stream);
}

/* malloc that stops the program when the host is out of memory. */
static void *host_array(size_t bytes)
{
    void *p = malloc(bytes);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        abort();
    }
    return p;
}

/* g_out[i] = bf16(2·g_in[i] - 1): cuRAND's (0, 1] moved to (-1, 1], so that
   C has entries of both signs and no large common part that would hide an
   error. One thread per element. */
static __global__ void to_centred_bf16(const float *__restrict__ g_in, bf16 *__restrict__ g_out, size_t n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        g_out[i] = __float2bfloat16(2.0f * g_in[i] - 1.0f);
}

/* Fresh random bf16 matrix of `count` elements into d_M, and its values as
   float in h_M (NULL: not wanted). */
static void random_bf16(bf16 *d_M, float *h_M, size_t count, unsigned long long seed)
{
    float *d_tmp;
    dim3 grid;
    GPUH_CHECK(gpuh_device_array(&d_tmp, count));
    GPUH_CHECK(gpuh_random_uniform_f32(d_tmp, count, seed, 0));
    GPUH_CHECK(gpuh_grid_1d(&grid, count, 256));
    GPUH_CHECK(GPUH_LAUNCH(to_centred_bf16, grid, dim3(256), 0, 0, d_tmp, d_M, count));
    GPUH_CHECK(gpuh_free(d_tmp));
    if (h_M != NULL) {
        bf16 *h_raw = (bf16 *)host_array(count * sizeof(bf16));
        GPUH_CHECK(gpuh_copy_to_host(h_raw, d_M, count));
        for (size_t i = 0; i < count; ++i)
            h_M[i] = __bfloat162float(h_raw[i]);
        free(h_raw);
    }
}

/* Untimed: every rung that runs here and takes the shape, at M × N × K,
   against cuBLAS on fresh inputs, C poisoned first. Returns 1 if all are
   within TOL, and prints the ones that are not. */
static int check_shape(size_t M, size_t N, size_t K, unsigned long long seed)
{
    const int aligned = M % 128 == 0 && N % 256 == 0 && K % 64 == 0;
    bf16 *d_A, *d_B;
    float *d_C, *d_ref;
    float *h_C = (float *)host_array(M * N * sizeof(float)), *h_ref = (float *)host_array(M * N * sizeof(float));
    int ok = 1;
    GPUH_CHECK(gpuh_device_array(&d_A, M * K));
    GPUH_CHECK(gpuh_device_array(&d_B, N * K));
    GPUH_CHECK(gpuh_device_array(&d_C, M * N));
    GPUH_CHECK(gpuh_device_array(&d_ref, M * N));
    random_bf16(d_A, NULL, M * K, seed);
    random_bf16(d_B, NULL, N * K, seed + 1);
    GPUH_CHECK(cudaMemset(d_ref, 0xFF, M * N * sizeof(float))); /* poisoned: an entry cuBLAS left is a NaN */
    GPUH_CHECK(cublas_bf16(d_A, d_B, d_ref, M, N, K, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_ref, d_ref, M * N));
    for (int r = 1; r < NRUNGS; ++r) {
        product p = {RUNGS[r].fn, d_A, d_B, d_C, M, N, K};
        if (g_runs[r] && (aligned || RUNGS[r].any_shape))
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
    const int exit_code = ladder_begin(argc, argv, 8192, 256, &n, &seed, &prop);
    if (exit_code >= 0)
        return exit_code;
    const int WARMUP = quick ? 1 : 3, REPS = quick ? 2 : 20;
    const size_t count = n * n;
    const double flops = 2.0 * n * n * n;
    int ok = 1;

    /* Ask the device which code it runs: the build may hold several. */
    int *d_flags, flags[2] = {0, 0};
    GPUH_CHECK(gpuh_device_array(&d_flags, 2));
    GPUH_CHECK(cudaMemset(d_flags, 0, 2 * sizeof(int)));
    GPUH_CHECK(GPUH_LAUNCH(hgemm_probe, dim3(1), dim3(1), 0, 0, d_flags));
    GPUH_CHECK(gpuh_copy_to_host(flags, d_flags, 2));
    GPUH_CHECK(gpuh_free(d_flags));
    for (int r = 0; r < NRUNGS; ++r)
        g_runs[r] = RUNGS[r].code == NEEDS_NOTHING || (RUNGS[r].code == NEEDS_SM80 && flags[0] >= 800) ||
                    (RUNGS[r].code == NEEDS_SM90A && flags[1] == 1);

    printf("Tensor-core GEMM ladder on %s: C = A · Bᵀ, M = N = K = %zu, bf16 in, float32 out and accumulation\n",
           prop.name, n);
    printf("device code: sm_%d%s; seed %llu (set GPUH_SEED to repeat)%s; median of %d runs after %d\n",
           flags[0] / 10, flags[1] ? "a" : "", seed, quick ? "; quick mode (GPUH_TEST_QUICK)" : "", REPS, WARMUP);

    bf16 *d_A, *d_B;
    float *d_C, *d_ref;
    float *h_A = (float *)host_array(count * sizeof(float)), *h_B = (float *)host_array(count * sizeof(float));
    float *h_C = (float *)host_array(count * sizeof(float)), *h_ref = (float *)host_array(count * sizeof(float));
    GPUH_CHECK(gpuh_device_array(&d_A, count));
    GPUH_CHECK(gpuh_device_array(&d_B, count));
    GPUH_CHECK(gpuh_device_array(&d_C, count));
    GPUH_CHECK(gpuh_device_array(&d_ref, count));
    random_bf16(d_A, h_A, count, seed);
    random_bf16(d_B, h_B, count, seed + 1);
    if (cublasCreate(&g_cublas) != CUBLAS_STATUS_SUCCESS) {
        printf("cuBLAS could not be set up\nResult = FAIL\n");
        return 1;
    }

    /* The reference: cuBLAS's C, itself checked at sampled entries against
       float64 dot products (B is N × K, so entry (i, j) is row i of A dot
       row j of B). */
    GPUH_CHECK(cudaMemset(d_ref, 0xFF, count * sizeof(float)));
    GPUH_CHECK(cublas_bf16(d_A, d_B, d_ref, n, n, n, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_ref, d_ref, count));
    const double u = ldexp(1.0, -24), gamma_k = n * u / (1.0 - n * u);
    double cublas_worst = 0.0;
    srand((unsigned)seed);
    for (int s = 0; s < SAMPLES; ++s) {
        const size_t i = (size_t)rand() % n, j = (size_t)rand() % n;
        double ref = 0.0, mag = 0.0;
        for (size_t k = 0; k < n; ++k) {
            const double p = (double)h_A[i * n + k] * h_B[j * n + k];
            ref += p;
            mag += fabs(p);
        }
        const double err = fabs(h_ref[i * n + j] - ref) / mag;
        cublas_worst = err > cublas_worst || err != err ? err : cublas_worst; /* a NaN sticks */
    }
    const int cublas_ok = cublas_worst <= gamma_k;
    ok &= cublas_ok;
    printf("cuBLAS vs float64 at %d random entries: worst |c - ref| / sum|a*b| = %.3g, bound gamma_K = %.3g: %s\n",
           SAMPLES, cublas_worst, gamma_k, cublas_ok ? "within" : "EXCEEDED");

    /* Every rung that runs here: checked, timed, checked again. */
    double tflops[NRUNGS], err_first[NRUNGS], err_last[NRUNGS];
    for (int r = 0; r < NRUNGS; ++r) {
        tflops[r] = err_first[r] = err_last[r] = NAN;
        if (!g_runs[r])
            continue;
        product p = {RUNGS[r].fn, d_A, d_B, d_C, n, n, n};
        tflops[r] = rung_run(enqueue_product, &p, d_C, h_C, h_ref, count, flops, WARMUP, REPS, &err_first[r],
                             &err_last[r]);
        ok &= err_first[r] <= TOL && err_last[r] <= TOL; /* false for NaN */
    }

    /* A rectangular shape every step takes, and an awkward one (odd sizes,
       K = 257) that only gpuh_gemm takes. */
    const int shapes_ok = check_shape(384, 512, 192, seed + 2) && check_shape(100, 37, 257, seed + 4);
    ok &= shapes_ok;

    printf("\n%-30s %9s %9s %8s %16s %10s  %s\n", "kernel", "TFLOP/s", "% cuBLAS", "x prev", "worklog H100",
           "rel. error", "check");
    int prev = -1, skipped = 0;
    for (int r = 0; r < NRUNGS; ++r) {
        char frac[16], speedup[16], err[16];
        printf("%-30s", RUNGS[r].name);
        if (!g_runs[r]) {
            printf(" %9s %9s %8s", "—", "—", "—");
            put_cell(RUNGS[r].worklog, 16);
            printf(" %10s  skipped (needs %s device code)\n", "—", RUNGS[r].code == NEEDS_SM80 ? "sm_80" : "sm_90a");
            skipped = 1;
            continue;
        }
        snprintf(frac, sizeof frac, "%.1f%%", 100.0 * tflops[r] / tflops[0]);
        snprintf(speedup, sizeof speedup, "%.2fx", prev >= 1 ? tflops[r] / tflops[prev] : 1.0);
        const double worse = err_last[r] > err_first[r] || err_last[r] != err_last[r] ? err_last[r] : err_first[r];
        snprintf(err, sizeof err, "%.2g", worse);
        printf(" %9.1f", tflops[r]);
        put_cell(frac, 9);
        put_cell(prev >= 1 ? speedup : "—", 8);
        put_cell(RUNGS[r].worklog, 16);
        put_cell(r == 0 ? "—" : err, 10);
        printf("  %s\n", r == 0 ? "reference" : err_first[r] <= TOL && err_last[r] <= TOL ? "ok" : "FAIL");
        if (r > 0)
            prev = r;
    }
    printf("TFLOP/s: 2·%zu^3 flops / median time. x prev: speedup over the step above that ran.\n"
           "worklog H100: TFLOP/s that P. Shankhdhar's \"Outperforming cuBLAS on H100\" published for its nearest "
           "kernel (Kn),\n  on an H100 SXM at 8192^3 with its cuBLAS at 797.8 (its CUDA-core kernel K1: 32.4): "
           "H100 figures from that worklog, not this run.\n"
           "rel. error: ‖C - C_cublas‖_F / ‖C_cublas‖_F, the worse of the first and the last timed run; bound "
           "%.0e\n  (0: the same bits as cuBLAS, which happens when both add the same tensor-core partial sums in "
           "the same order along K).\n",
           n, TOL);
    printf("Also within the bound, untimed: 384 x 512 x 192 (every step that runs) and 100 x 37 x 257 "
           "(gpuh_gemm): %s\n",
           shapes_ok ? "yes" : "NO");
    if (skipped)
        printf("Steps 4-6 need sm_90a device code: build with CMAKE_CUDA_ARCHITECTURES=90a on a Hopper GPU.\n");

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
