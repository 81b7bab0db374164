/* planted_synccheck.cu - a planted bug for compute-sanitizer's synccheck: a
   warp shuffle whose member mask leaves out a lane that calls it.

   A block of 52 threads sums its values with warp shuffles. Warp 1 is partial
   (20 active lanes), so it must pass the mask of exactly its active lanes,
   (1 << 20) - 1. The mask below is computed from the count minus one, an
   off-by-one that drops lane 19: lane 19 calls __shfl_down_sync with a mask
   that does not name it. Since Volta, warp lanes are scheduled independently
   and the mask says which lanes must meet; a caller outside its own mask is
   undefined behaviour (CUDA Programming Guide, "Warp Shuffle Functions"),
   which may work on one GPU and hang or give garbage on another. synccheck
   reports it as an invalid argument to a warp synchronisation.
   scripts/gpu_check.sh runs this under synccheck and fails unless it is
   caught. Built with the tests, never run by CTest. Exit 77 without a GPU. */
#include <stdio.h>
#include "gpuh.h"

#define THREADS 52

/* Block: THREADS threads, one block. Each warp sums its lanes' values into
   lane 0 with __shfl_down_sync; lane 0 of each warp adds its total to *g_out. */
__global__ void warp_sums(const int *g_in, int *g_out)
{
    const unsigned lane = threadIdx.x % 32, warp_first = threadIdx.x - lane;
    const unsigned active = blockDim.x - warp_first < 32 ? blockDim.x - warp_first : 32;
    /* BUG (on purpose): should be (1u << active) - 1 for a partial warp. */
    const unsigned mask = active == 32 ? 0xffffffffu : (1u << (active - 1)) - 1;
    int v = g_in[threadIdx.x];
    for (unsigned offset = 16; offset > 0; offset /= 2) {
        const int other = __shfl_down_sync(mask, v, offset);
        if (lane + offset < active)
            v += other;
    }
    if (lane == 0)
        atomicAdd(g_out, v);
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
        h_in[i] = 1;
    GPUH_CHECK(gpuh_to_device(&d_in, h_in, THREADS));
    GPUH_CHECK(gpuh_device_array(&d_out, 1));
    GPUH_CHECK(cudaMemset(d_out, 0, sizeof(int)));
    GPUH_CHECK(GPUH_LAUNCH(warp_sums, 1, THREADS, 0, 0, d_in, d_out));
    printf("warp_sums: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    gpuh_free(d_in);
    gpuh_free(d_out);
    return 0;
}
