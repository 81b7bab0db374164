/* planted_initcheck.cu - a planted bug for compute-sanitizer's initcheck: a
   read of global memory nothing has written.

   gpuh_device_array (cudaMalloc) returns memory with whatever bytes were there
   before; the program forgets to copy its input in and the kernel reads those
   bytes. It runs without any error, computing garbage; initcheck tracks which
   bytes were ever written and reports each read of one that was not.
   scripts/gpu_check.sh runs this under initcheck and fails unless it is
   caught. Built with the tests, never run by CTest. Exit 77 without a GPU. */
#include <stdio.h>
#include "gpuh.h"

__global__ void twice(const float *g_in, float *g_out, size_t n)
{
    const size_t i = gpuh_global_index();
    if (i < n)
        g_out[i] = 2.0f * g_in[i];
}

int main(void)
{
    const char *why;
    const size_t n = 256;
    float *d_in, *d_out;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    GPUH_CHECK(gpuh_device_array(&d_in, n));
    GPUH_CHECK(gpuh_device_array(&d_out, n));
    /* BUG (on purpose): gpuh_copy_to_device(d_in, h_in, n) is missing. */
    GPUH_CHECK(GPUH_LAUNCH(twice, 1, 256, 0, 0, d_in, d_out, n));
    printf("twice: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    gpuh_free(d_in);
    gpuh_free(d_out);
    return 0;
}
