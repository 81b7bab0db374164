/* planted_racecheck.cu - a planted bug for compute-sanitizer's racecheck: a
   shared-memory race.

   Each of 64 threads stores its value in s_x[t], then reads its neighbour's
   s_x[(t + 32) % 64], which a thread of the OTHER warp stores, with no
   __syncthreads() in between: nothing orders the store before the load. On a
   given GPU the result often looks right, which is why the bug survives
   testing; racecheck reports the read-after-write hazard.
   scripts/gpu_check.sh runs this under racecheck and fails unless it is
   caught. Built with the tests, never run by CTest. Exit 77 without a GPU. */
#include <stdio.h>
#include "gpuh.h"

#define THREADS 64

/* Block: THREADS threads; one block. */
__global__ void rotate_unsynchronised(const int *g_in, int *g_out)
{
    __shared__ int s_x[THREADS];
    const unsigned t = threadIdx.x;
    s_x[t] = g_in[t];
    /* BUG (on purpose): a __syncthreads() belongs here, because the next line
       reads a slot another warp writes. */
    g_out[t] = s_x[(t + THREADS / 2) % THREADS];
}

int main(void)
{
    const char *why;
    int h_in[THREADS], *d_in, *d_out, i;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    for (i = 0; i < THREADS; ++i)
        h_in[i] = i;
    GPUH_CHECK(gpuh_to_device(&d_in, h_in, THREADS));
    GPUH_CHECK(gpuh_device_array(&d_out, THREADS));
    GPUH_CHECK(GPUH_LAUNCH(rotate_unsynchronised, 1, THREADS, 0, 0, d_in, d_out));
    printf("rotate_unsynchronised: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    gpuh_free(d_in);
    gpuh_free(d_out);
    return 0;
}
