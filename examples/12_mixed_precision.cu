/* 12_mixed_precision.cu - one matrix product in fp64, fp32, TF32, bf16 and fp16: what each costs, what each loses.

   Teaches: the trade behind "train in half precision" (PyTorch's autocast,
   the tutorials' mixed precision). The same product C = A · Bᵀ (A M × K,
   B N × K, the layout of a linear layer) runs through gpuh in five
   precisions:
       fp64   gpuh_gemm<double>       53-bit significands, FP64 tensor cores on sm_90
       fp32   gpuh_gemm<float>        24 bits, CUDA cores (FFMA), exact float32 arithmetic
       TF32   gpuh_gemm_tf32          float inputs cut to 11 bits on the tensor cores, fp32 sums
       bf16   gpuh_gemm (bf16 → f32)  8-bit significands, fp32's exponent range, fp32 sums
       fp16   gpuh_gemm (half → f32)  11-bit significands, largest value 65504, fp32 sums
   and the table shows, as K grows, the time, the TFLOP/s and the error
   against a float64 product computed on the host.

   The inputs are float32 numbers (the data), given to each precision
   rounded to its format (float → bf16 and float → half to nearest on the
   host, float → TF32 by the tensor cores' truncation), so every row
   computes the same product. Three kinds of data:
     random     entries ±[2^-6, 1), uniform: a well-behaved product;
     wide       entries ±[1, 2) · 2^e, e uniform in -20 … 20 (12 decimal
                orders): beyond fp16's range (above 65504 it has only
                infinity, below 2^-24 only zero), within bf16's;
     cancel     C's entries are sums that nearly cancel: A's second half of
                columns repeats its first, B's second half is minus its first
                times (1 + 2^-12·r), r uniform in (-1, 1), so each entry is
                about 2^-12 of the size of its terms.

   Errors, over 32 sampled rows of C (all columns) against the float64
   product of the float32 data (exact products, float64 sums):
     rel. error   ‖Ĉ - C‖_F / ‖C‖_F, what a user of the result sees;
     worst/bound  max |ĉ - c| / Σ_k |a·b| over the entries, divided by the
                  precision's bound (below): ≤ 1 is what theory promises.
   The bound (Higham, Accuracy and Stability of Numerical Algorithms, 3.1,
   with rounded inputs): rounding a and b each to the format's unit
   roundoff u_in (2^-8 bf16, 2^-11 fp16, 2^-10 TF32 by truncation, 0 for
   fp32 and fp64, whose data is exact) and summing K products with unit
   roundoff u_acc gives
       |ĉ - c| ≤ ((1 + u_in)² - 1 + γ_K (1 + u_in)² + γ_K,64) · Σ_k |a·b|,
       γ_K = K·u_acc / (1 - K·u_acc),
   u_acc = 2^-53 for fp64, 2^-24 for fp32 on the CUDA cores, and 2^-23 for
   the tensor-core precisions (their fp32 adders truncate rather than round:
   Fasi, Higham, Mikaitis and Pranesh, "Numerical behavior of NVIDIA tensor
   cores", PeerJ Computer Science 2021); γ_K,64 is the float64 reference's
   own error. The products of two 16-bit or TF32 values are exact in fp32.
   The bound does not hold where an input leaves the format's range (fp16
   with the wide data): that row says so, and is not checked against it.
   What to read in the table: on a Hopper GPU with gpuh's sm_90a path
   (wgmma), bf16 and fp16 run many times faster than fp32 and TF32 several
   times (elsewhere the three take a CUDA-core path of the same rounding,
   and gain nothing); their error grows little with K (fp32 sums) and is set
   by the input rounding, about 2^-9 and 2^-12 relative; the error relative to C
   is that bound times Σ|a·b| / |C|, so where C cancels it grows by the
   same factor (cancel: bf16 loses every digit, fp32 keeps most), and fp16
   cannot hold the wide data at all while bf16 can: why bf16 trains without
   loss scaling and fp16 does not.

   Sizes: M = N = 4096, K = 64, 256, 1024, 4096 on a GPU; quick mode
   (GPUH_TEST_QUICK=1) and the CPU simulator's CTest twin use M = 80,
   N = 72, K = 16, 64, 256 (leading dimensions not multiples of 8, which
   take gpuh's unaligned paths). Times: CUDA events, median of REPS runs
   after WARMUP (gpuh_time_median_ms), random data only (the time does not
   depend on the values); C poisoned (NaN) before each checked run.
   Prints Result = PASS when every checked row is within its bound. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"
#include "gpuh/half.cuh" /* __nv_bfloat16 and __half: CUDA's headers, or the simulator's stand-ins */

enum precision { P_FP64, P_FP32, P_TF32, P_BF16, P_FP16, NPREC };
static const char *const PREC_NAME[NPREC] = {"fp64", "fp32", "TF32", "bf16", "fp16"};
/* Unit roundoff of the inputs' rounding from float32 data, and of the sums. */
static const double U_IN_LOG2[NPREC] = {0, 0, -10, -8, -11};     /* 0: no rounding (exact data) */
static const double U_ACC_LOG2[NPREC] = {-53, -24, -23, -23, -23};

enum data_kind { D_RANDOM, D_WIDE, D_CANCEL, NKINDS };
static const char *const KIND_NAME[NKINDS] = {"random", "wide", "cancel"};

static const int SAMPLE_ROWS = 32;

/* The error bound above, relative to Σ|a·b|, for precision p and K terms. */
static double error_bound(int p, size_t K)
{
    const double u_in = U_IN_LOG2[p] == 0 ? 0.0 : ldexp(1.0, (int)U_IN_LOG2[p]);
    const double u_acc = ldexp(1.0, (int)U_ACC_LOG2[p]), u64 = ldexp(1.0, -53);
    const double gamma = K * u_acc / (1.0 - K * u_acc), gamma64 = K * u64 / (1.0 - K * u64);
    const double in = (1.0 + u_in) * (1.0 + u_in);
    return in - 1.0 + gamma * in + gamma64;
}

/* A small reproducible generator (splitmix64), so that the GPU and the
   simulator see the same data for a seed: uniform in [0, 1). */
static uint64_t g_state;
static double uniform01(void)
{
    uint64_t z = (g_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (double)((z ^ (z >> 31)) >> 11) * ldexp(1.0, -53);
}
static double random_sign(void) { return uniform01() < 0.5 ? -1.0 : 1.0; }

/* Fills A (M × K) and B (N × K), row-major float32, with data of `kind`. */
static void make_data(int kind, float *A, float *B, size_t M, size_t N, size_t K)
{
    if (kind == D_WIDE) {
        for (size_t i = 0; i < M * K; ++i)
            A[i] = (float)(random_sign() * (1.0 + uniform01()) * ldexp(1.0, (int)floor(uniform01() * 41) - 20));
        for (size_t i = 0; i < N * K; ++i)
            B[i] = (float)(random_sign() * (1.0 + uniform01()) * ldexp(1.0, (int)floor(uniform01() * 41) - 20));
        return;
    }
    const double low = ldexp(1.0, -6);
    for (size_t i = 0; i < M * K; ++i)
        A[i] = (float)(random_sign() * (low + (1.0 - low) * uniform01()));
    for (size_t i = 0; i < N * K; ++i)
        B[i] = (float)(random_sign() * (low + (1.0 - low) * uniform01()));
    if (kind == D_CANCEL) {
        const size_t h = K / 2; /* K is even */
        for (size_t i = 0; i < M; ++i)
            for (size_t k = 0; k < h; ++k)
                A[i * K + h + k] = A[i * K + k];
        for (size_t j = 0; j < N; ++j)
            for (size_t k = 0; k < h; ++k)
                B[j * K + h + k] = (float)(-(double)B[j * K + k] * (1.0 + ldexp(2.0 * uniform01() - 1.0, -12)));
    }
}

/* How many of the `count` values fp16 cannot hold as normal numbers
   (above 65504, or nonzero below 2^-14, where its relative precision
   is lost). */
static size_t outside_fp16(const float *x, size_t count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; ++i) {
        const double a = fabs((double)x[i]);
        n += a > 65504.0 || (a != 0.0 && a < ldexp(1.0, -14));
    }
    return n;
}

/* The device copies of one data set, in every input format, and C. */
struct operands {
    double *A64, *B64, *C64;
    float *A32, *B32, *C32; /* fp32 and TF32 inputs; C of every precision but fp64 */
    __nv_bfloat16 *Abf, *Bbf;
    __half *Ah, *Bh;
    size_t M, N, K;
};

/* One product in precision p into C64 (fp64) or C32 (the others). */
static cudaError_t run_product(int p, const operands *o, cudaStream_t stream)
{
    const size_t M = o->M, N = o->N, K = o->K;
    switch (p) {
    case P_FP64:
        return gpuh_gemm(GPUH_OP_N, GPUH_OP_T, M, N, K, 1.0, o->A64, K, o->B64, K, 0.0, o->C64, N, stream);
    case P_FP32:
        return gpuh_gemm(GPUH_OP_N, GPUH_OP_T, M, N, K, 1.0f, o->A32, K, o->B32, K, 0.0f, o->C32, N, stream);
    case P_TF32:
        return gpuh_gemm_tf32(GPUH_OP_N, GPUH_OP_T, M, N, K, 1.0f, o->A32, K, o->B32, K, 0.0f, o->C32, N, stream);
    case P_BF16:
        return gpuh_gemm(GPUH_OP_N, GPUH_OP_T, M, N, K, 1.0f, o->Abf, K, o->Bbf, K, 0.0f, o->C32, N, stream);
    default:
        return gpuh_gemm(GPUH_OP_N, GPUH_OP_T, M, N, K, 1.0f, o->Ah, K, o->Bh, K, 0.0f, o->C32, N, stream);
    }
}

struct timed_product {
    int p;
    const operands *o;
};
static cudaError_t enqueue_product(void *ctx, cudaStream_t stream)
{
    const timed_product *t = (const timed_product *)ctx;
    return run_product(t->p, t->o, stream);
}

/* Uploads A and B (float32 data) in every format; the 16-bit copies are
   rounded to nearest on the host (the same rounding the GPU's
   __float2bfloat16 and __float2half do). */
static void upload(operands *o, const float *A, const float *B)
{
    const size_t nA = o->M * o->K, nB = o->N * o->K, n = nA > nB ? nA : nB;
    double *h64 = (double *)malloc(n * sizeof(double));
    __nv_bfloat16 *hbf = (__nv_bfloat16 *)malloc(n * sizeof(__nv_bfloat16));
    __half *hh = (__half *)malloc(n * sizeof(__half));
    if (h64 == NULL || hbf == NULL || hh == NULL) {
        fprintf(stderr, "out of host memory\n");
        abort();
    }
    for (int m = 0; m < 2; ++m) {
        const float *x = m == 0 ? A : B;
        const size_t count = m == 0 ? nA : nB;
        for (size_t i = 0; i < count; ++i) {
            h64[i] = x[i];
            hbf[i] = __float2bfloat16(x[i]);
            hh[i] = __float2half(x[i]);
        }
        GPUH_CHECK(cudaMemcpy(m == 0 ? o->A64 : o->B64, h64, count * sizeof(double), cudaMemcpyHostToDevice));
        GPUH_CHECK(cudaMemcpy(m == 0 ? o->A32 : o->B32, x, count * sizeof(float), cudaMemcpyHostToDevice));
        GPUH_CHECK(cudaMemcpy(m == 0 ? o->Abf : o->Bbf, hbf, count * sizeof(__nv_bfloat16), cudaMemcpyHostToDevice));
        GPUH_CHECK(cudaMemcpy(m == 0 ? o->Ah : o->Bh, hh, count * sizeof(__half), cudaMemcpyHostToDevice));
    }
    free(h64), free(hbf), free(hh);
}

/* The float64 reference at the sampled rows: ref[s·N + j] = Σ_k A[row_s][k]·B[j][k]
   and mag[s·N + j] = Σ_k |A[row_s][k]·B[j][k]| (float products are exact in double). */
static void reference(const float *A, const float *B, const size_t *rows, int samples, size_t N, size_t K,
                      double *ref, double *mag)
{
    for (int s = 0; s < samples; ++s)
        for (size_t j = 0; j < N; ++j) {
            double sum = 0.0, abs_sum = 0.0;
            const float *a = A + rows[s] * K, *b = B + j * K;
            for (size_t k = 0; k < K; ++k) {
                const double t = (double)a[k] * b[k];
                sum += t;
                abs_sum += fabs(t);
            }
            ref[s * N + j] = sum;
            mag[s * N + j] = abs_sum;
        }
}

/* The measured errors of precision p's C (on the device) at the sampled
   rows: *rel = ‖Ĉ - C‖_F / ‖C‖_F, *worst = max |ĉ - c| / Σ|a·b|. NaN
   anywhere (a poisoned entry left, an overflow) makes both NaN. row64 and
   row32 hold one row of C. */
static void measure(int p, const operands *o, const size_t *rows, int samples, const double *ref,
                    const double *mag, double *row64, float *row32, double *rel, double *worst)
{
    const size_t N = o->N;
    double diff = 0.0, norm = 0.0, w = 0.0;
    for (int s = 0; s < samples; ++s) {
        if (p == P_FP64)
            GPUH_CHECK(cudaMemcpy(row64, o->C64 + rows[s] * N, N * sizeof(double), cudaMemcpyDeviceToHost));
        else
            GPUH_CHECK(cudaMemcpy(row32, o->C32 + rows[s] * N, N * sizeof(float), cudaMemcpyDeviceToHost));
        for (size_t j = 0; j < N; ++j) {
            const double c = p == P_FP64 ? row64[j] : (double)row32[j];
            const double d = c - ref[s * N + j], e = fabs(d) / mag[s * N + j];
            diff += d * d;
            norm += ref[s * N + j] * ref[s * N + j];
            w = e > w || e != e ? e : w; /* a NaN sticks */
        }
    }
    *rel = sqrt(diff / norm);
    *worst = w;
}

int main(void)
{
    const int quick = quick_mode();
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n" GPUH_SIM_TWIN_HINT("12_mixed_precision") "\n", why);
        return 77;
    }
    const size_t M = quick ? 80 : 4096, N = quick ? 72 : 4096;
    const size_t KS_GPU[] = {64, 256, 1024, 4096}, KS_QUICK[] = {16, 64, 256};
    const size_t *Ks = quick ? KS_QUICK : KS_GPU;
    const int nK = quick ? 3 : 4;
    const size_t Kmax = Ks[nK - 1];
    const int WARMUP = quick ? 1 : 2, REPS = quick ? 2 : 10;
    const unsigned long long seed = gpuh_random_seed();
    int dev = 0, ok = 1;
    struct cudaDeviceProp prop;
    GPUH_CHECK(cudaGetDevice(&dev));
    GPUH_CHECK(cudaGetDeviceProperties(&prop, dev));
    printf("Mixed precision on %s: C = A · Bᵀ, M = %zu, N = %zu, K up to %zu; seed %llu (GPUH_SEED repeats)%s\n",
           prop.name, M, N, Kmax, seed, quick ? "; quick mode" : "");
#ifdef GPUH_SIM
    printf("On gpuh's CPU simulator: the times are the simulation's, not a GPU's; the errors are the same "
           "arithmetic's.\n");
#endif

    operands o = {};
    o.M = M, o.N = N;
    GPUH_CHECK(gpuh_device_array(&o.A64, M * Kmax));
    GPUH_CHECK(gpuh_device_array(&o.B64, N * Kmax));
    GPUH_CHECK(gpuh_device_array(&o.C64, M * N));
    GPUH_CHECK(gpuh_device_array(&o.A32, M * Kmax));
    GPUH_CHECK(gpuh_device_array(&o.B32, N * Kmax));
    GPUH_CHECK(gpuh_device_array(&o.C32, M * N));
    GPUH_CHECK(gpuh_device_array(&o.Abf, M * Kmax));
    GPUH_CHECK(gpuh_device_array(&o.Bbf, N * Kmax));
    GPUH_CHECK(gpuh_device_array(&o.Ah, M * Kmax));
    GPUH_CHECK(gpuh_device_array(&o.Bh, N * Kmax));
    float *A = (float *)malloc(M * Kmax * sizeof(float)), *B = (float *)malloc(N * Kmax * sizeof(float));
    double *ref = (double *)malloc(SAMPLE_ROWS * N * sizeof(double));
    double *mag = (double *)malloc(SAMPLE_ROWS * N * sizeof(double));
    double *row64 = (double *)malloc(N * sizeof(double));
    float *row32 = (float *)malloc(N * sizeof(float));
    if (!A || !B || !ref || !mag || !row64 || !row32) {
        printf("out of host memory\nResult = FAIL\n");
        return 1;
    }
    g_state = seed;
    size_t rows[SAMPLE_ROWS];
    const int samples = (int)(M < (size_t)SAMPLE_ROWS ? M : (size_t)SAMPLE_ROWS);
    for (int s = 0; s < samples; ++s) /* distinct rows, spread over C */
        rows[s] = (size_t)s * M / samples + (size_t)(uniform01() * (double)(M / samples));

    for (int kind = 0; kind < NKINDS; ++kind) {
        printf("\n%s data%s\n", KIND_NAME[kind],
               kind == D_RANDOM ? ": entries ±[2^-6, 1)"
               : kind == D_WIDE ? ": entries ±[1, 2)·2^e, e in -20 … 20"
                                : ": C's entries cancel to about 2^-12 of their terms");
        printf("%6s %5s %10s %9s %11s %11s %10s  %s\n", "K", "prec", "time ms", "TFLOP/s", "rel. error",
               "worst/bound", "bound", "check");
        for (int ik = 0; ik < nK; ++ik) {
            const size_t K = Ks[ik];
            o.K = K;
            make_data(kind, A, B, M, N, K);
            upload(&o, A, B);
            reference(A, B, rows, samples, N, K, ref, mag);
            const size_t fp16_out = outside_fp16(A, M * K) + outside_fp16(B, N * K);
            for (int p = 0; p < NPREC; ++p) {
                double rel, worst;
                float ms = NAN;
                /* Poisoned first: all bits set is a NaN in float and double. */
                GPUH_CHECK(cudaMemset(p == P_FP64 ? (void *)o.C64 : (void *)o.C32, 0xFF,
                                      M * N * (p == P_FP64 ? sizeof(double) : sizeof(float))));
                GPUH_CHECK(run_product(p, &o, 0));
                measure(p, &o, rows, samples, ref, mag, row64, row32, &rel, &worst);
                if (kind == D_RANDOM) {
                    timed_product t = {p, &o};
                    GPUH_CHECK(gpuh_time_median_ms(enqueue_product, &t, 0, WARMUP, REPS, &ms));
                }
                const double bound = error_bound(p, K), ratio = worst / bound;
                const int out_of_range = p == P_FP16 && fp16_out > 0;
                char t_ms[16] = "—", t_tf[16] = "—", check[80];
                if (kind == D_RANDOM) {
                    snprintf(t_ms, sizeof t_ms, "%.3f", ms);
                    snprintf(t_tf, sizeof t_tf, "%.1f", 2.0 * M * N * K / (ms * 1e-3) / 1e12);
                }
                if (out_of_range)
                    snprintf(check, sizeof check, "not checked: %zu inputs outside fp16's range", fp16_out);
                else
                    snprintf(check, sizeof check, "%s", ratio <= 1.0 ? "ok" : "FAIL");
                ok &= out_of_range || ratio <= 1.0; /* false for NaN */
                printf("%6zu %5s %10s %9s %11.2e %11.3f %10.2e  %s\n", K, PREC_NAME[p], t_ms, t_tf, rel, ratio, bound,
                       check);
            }
        }
    }
    printf("\nrel. error: ‖Ĉ - C‖_F / ‖C‖_F over %d sampled rows; worst/bound: max |ĉ - c| / Σ|a·b| over them,\n"
           "divided by the bound (≤ 1 is what theory promises; see the top of examples/12_mixed_precision.cu).\n",
           samples);

    GPUH_CHECK(gpuh_free(o.A64));
    GPUH_CHECK(gpuh_free(o.B64));
    GPUH_CHECK(gpuh_free(o.C64));
    GPUH_CHECK(gpuh_free(o.A32));
    GPUH_CHECK(gpuh_free(o.B32));
    GPUH_CHECK(gpuh_free(o.C32));
    GPUH_CHECK(gpuh_free(o.Abf));
    GPUH_CHECK(gpuh_free(o.Bbf));
    GPUH_CHECK(gpuh_free(o.Ah));
    GPUH_CHECK(gpuh_free(o.Bh));
    free(A), free(B), free(ref), free(mag), free(row64), free(row32);
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
