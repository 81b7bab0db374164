/* sgemm/common.cuh - what every step of the SGEMM ladder shares.

   Each step of the ladder (01_naive.cuh ... 08_double_buffer.cuh) is one kernel
   and its launcher, all computing the same thing: C = A · B for row-major
   float matrices on the device, A M × K, B K × N, C M × N (leading dimensions
   K, N and N). The launchers have one signature, sgemm_fn, so a runner can
   hold them in a table (examples/10_sgemm_ladder.cu). */
#ifndef SGEMM_COMMON_CUH
#define SGEMM_COMMON_CUH

#include <math.h>
#include "gpuh.h"

/* A step's launcher: enqueues C = A · B on `stream`; sizes in elements. */
typedef cudaError_t (*sgemm_fn)(const float *d_A, const float *d_B, float *d_C, size_t M, size_t N, size_t K,
                                cudaStream_t stream);

/* sgemm_check_args: the checks every launcher makes before it launches.
   Errors (cudaErrorInvalidValue, with the step's name and the sizes in
   gpuh_error_detail()): a NULL matrix that the product would touch (C when
   M, N > 0; A and B as well when K > 0); M, N or K not a multiple of
   tile_m, tile_n or tile_k. Steps 1-3 guard every index and pass 1, 1, 1;
   the later steps drop the guards from their inner loops and ask for
   multiples of their tiles instead (the shipped gpuh_matmul takes any shape). */
static inline cudaError_t sgemm_check_args(const char *step, const float *d_A, const float *d_B,
                                           const float *d_C, size_t M, size_t N, size_t K, size_t tile_m,
                                           size_t tile_n, size_t tile_k)
{
    if (M > 0 && N > 0 && (d_C == NULL || (K > 0 && (d_A == NULL || d_B == NULL))))
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s is NULL (M %zu, N %zu, K %zu)", step,
                         d_C == NULL ? "d_C" : d_A == NULL ? "d_A" : "d_B", M, N, K);
    if (M % tile_m != 0 || N % tile_n != 0 || K % tile_k != 0)
        return gpuh_fail(cudaErrorInvalidValue,
                         "%s: needs M a multiple of %zu, N of %zu and K of %zu (got M %zu, N %zu, K %zu)",
                         step, tile_m, tile_n, tile_k, M, N, K);
    return cudaSuccess;
}

/* sgemm_check_aligned: cudaSuccess if A, B and C start on 16-byte
   boundaries, which the steps that move float4 (6 to 8) need; else
   cudaErrorInvalidValue. cudaMalloc returns 256-byte aligned memory, and with
   K and N multiples of 4 every row then starts aligned too. */
static inline cudaError_t sgemm_check_aligned(const char *step, const float *d_A, const float *d_B,
                                              const float *d_C)
{
    if (((uintptr_t)d_A | (uintptr_t)d_B | (uintptr_t)d_C) % 16 != 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s: d_A %p, d_B %p and d_C %p must be 16-byte aligned",
                         step, (const void *)d_A, (const void *)d_B, (const void *)d_C);
    return cudaSuccess;
}

/* sgemm_tile_grid: the launch preparation of steps 4 to 8, which give one
   block to each tile_m × tile_n tile of C and step along K by tile_k:
   sgemm_check_args, then (when need_aligned) sgemm_check_aligned, then
   *grid = (N / tile_n, M / tile_m), checked against the grid limits
   (cudaErrorInvalidConfiguration when M / tile_m > 65535). With M or N = 0
   it returns cudaSuccess and leaves *grid alone: the caller launches nothing. */
static inline cudaError_t sgemm_tile_grid(const char *step, const float *d_A, const float *d_B,
                                          const float *d_C, size_t M, size_t N, size_t K, size_t tile_m,
                                          size_t tile_n, size_t tile_k, int need_aligned, dim3 *grid)
{
    cudaError_t err = sgemm_check_args(step, d_A, d_B, d_C, M, N, K, tile_m, tile_n, tile_k);
    if (err == cudaSuccess && need_aligned)
        err = sgemm_check_aligned(step, d_A, d_B, d_C);
    if (err != cudaSuccess || M == 0 || N == 0)
        return err;
    return gpuh_grid_2d(grid, N / tile_n, M / tile_m, dim3(1, 1)); /* counts of tiles, one block each */
}

/* sgemm_sample_error: the worst relative error of a host copy of C at the
   sampled entries (ii[s], jj[s]), s < samples: |C[i][j] - ref| / sum_k |A[i][k]·B[k][j]|,
   with ref the float64 dot product (a float times a float is exact in
   double). Dividing by sum|a·b| rather than |ref| makes the measure the one
   that rounding-error bounds use (Higham, Accuracy and Stability of Numerical
   Algorithms, 3.1): any float32 order of summation stays within
   gamma_K = K·u / (1 - K·u), u = 2^-24. A NaN entry (unwritten) makes the
   result NaN, which fails every `<=` test. Host arrays, row-major, leading
   dimensions K (A) and N (B, C). */
static inline double sgemm_sample_error(const float *h_C, const float *h_A, const float *h_B, const int *ii,
                                        const int *jj, int samples, size_t N, size_t K)
{
    double worst = 0.0;
    for (int s = 0; s < samples; ++s) {
        double ref = 0.0, mag = 0.0;
        for (size_t k = 0; k < K; ++k) {
            const double p = (double)h_A[ii[s] * K + k] * h_B[k * N + jj[s]];
            ref += p;
            mag += fabs(p);
        }
        const double err = fabs(h_C[ii[s] * N + jj[s]] - ref) / mag;
        worst = err > worst || err != err ? err : worst; /* a NaN sticks */
    }
    return worst;
}

#endif /* SGEMM_COMMON_CUH */
