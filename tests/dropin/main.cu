/* A program of the compile.dropin test (cmake/test_dropin.cmake), built from a
   folder that holds only the files an install copies (gpuh.h,
   gpuh_kernels.cuh, gpuh/): vector add and a sum, checked on the host. Built
   twice: header-only, and in the compiled mode (GPUH_KERNELS_LIBRARY, linked
   with gpuh/kernels_memory.cu). Exit 77 without a CUDA device. */
#include <stdio.h>
#include "gpuh.h"
#include "gpuh_kernels.cuh"

int main(void)
{
    enum { n = 1000003 };
    static float h_a[n], h_b[n], h_c[n];
    float *d_a, *d_b, *d_c, *d_sum, sum = 0.0f;
    void *d_temp;
    size_t i, wrong = 0;
    double want = 0.0;
    const char *why = "";
    if (gpuh_device_count(&why) == 0) {
        printf("drop-in: no CUDA device (%s): built, not run\n", why);
        return 77;
    }
    for (i = 0; i < n; ++i) {
        h_a[i] = (float)(i % 1000) * 0.25f, h_b[i] = 1.0f - (float)(i % 7);
        want += (double)h_a[i];
    }
    GPUH_CHECK(gpuh_to_device(&d_a, h_a, n));
    GPUH_CHECK(gpuh_to_device(&d_b, h_b, n));
    GPUH_CHECK(gpuh_device_array(&d_c, n));
    GPUH_CHECK(gpuh_device_array(&d_sum, 1));
    GPUH_CHECK(cudaMalloc(&d_temp, GPUH_REDUCE_TEMP_BYTES));
    GPUH_CHECK(gpuh_vector_add(d_a, d_b, d_c, n, 0));
    GPUH_CHECK(gpuh_sum(d_a, n, d_sum, d_temp, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_c, d_c, n));
    GPUH_CHECK(gpuh_copy_to_host(&sum, d_sum, 1));
    for (i = 0; i < n; ++i)
        wrong += h_c[i] != h_a[i] + h_b[i];
    GPUH_CHECK(cudaFree(d_temp));
    GPUH_CHECK(gpuh_free(d_a));
    GPUH_CHECK(gpuh_free(d_b));
    GPUH_CHECK(gpuh_free(d_c));
    GPUH_CHECK(gpuh_free(d_sum));
    const double rel = (sum - want) / want;
    printf("drop-in: %zu wrong sums of n = %d, sum relative error %.2e: %s\n", wrong, (int)n, rel,
           wrong == 0 && rel < 1e-5 && rel > -1e-5 ? "PASS" : "FAIL");
    return wrong == 0 && rel < 1e-5 && rel > -1e-5 ? 0 : 1;
}
