/* planted_synccheck.cu - a planted bug for compute-sanitizer's synccheck: a
   __syncthreads() that not every thread of the block reaches.

   A block of 64 threads adds up 4 chunks of 64 ints in shared memory, with a
   barrier inside the loop's bounds check. The input has 255 ints, not 256, so
   in the last chunk thread 63 fails the check and skips the barrier that the
   other 63 threads (31 of them in its own warp) wait at. CUDA allows
   __syncthreads() in a branch only when the whole block takes the same path;
   here it does not, which may hang or corrupt results on some GPU and work on
   another. synccheck reports the divergent barrier. (The skipping thread then
   exits, which releases the barrier, so the program ends without the tool.)
   scripts/gpu_check.sh runs this under synccheck and fails unless it is
   caught. Built with the tests, never run by CTest. Exit 77 without a GPU. */
#include <stdio.h>
#include "gpuh.h"

#define THREADS 64
#define CHUNKS 4

/* Block: THREADS threads; one block. Thread t adds elements t, t + 64, ...
   into s_acc[t]; thread 0 then adds the 64 slots. */
__global__ void chunked_sum(const int *g_in, size_t n, int *g_out)
{
    __shared__ int s_acc[THREADS];
    const unsigned t = threadIdx.x;
    int c;
    s_acc[t] = 0;
    for (c = 0; c < CHUNKS; ++c) {
        const size_t i = (size_t)c * THREADS + t;
        if (i < n) {
            s_acc[t] += g_in[i];
            /* BUG (on purpose): inside `if (i < n)`, which some threads of the
               block fail in the last chunk. */
            __syncthreads();
        }
    }
    if (t == 0) {
        int total = 0, k;
        for (k = 0; k < THREADS; ++k)
            total += s_acc[k];
        *g_out = total;
    }
}

int main(void)
{
    const char *why;
    const size_t n = CHUNKS * THREADS - 1;
    int h_in[CHUNKS * THREADS], *d_in, *d_out;
    size_t i;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    for (i = 0; i < n; ++i)
        h_in[i] = 1;
    GPUH_CHECK(gpuh_to_device(&d_in, h_in, n));
    GPUH_CHECK(gpuh_device_array(&d_out, 1));
    GPUH_CHECK(GPUH_LAUNCH(chunked_sum, 1, THREADS, 0, 0, d_in, n, d_out));
    printf("chunked_sum: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    gpuh_free(d_in);
    gpuh_free(d_out);
    return 0;
}
