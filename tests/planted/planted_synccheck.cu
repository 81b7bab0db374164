/* planted_synccheck.cu - a planted bug for compute-sanitizer's synccheck: a
   __syncwarp() whose member mask leaves out a lane that calls it.

   Each warp of a 64-thread block rotates its values by one lane through
   shared memory: every lane writes its slot, the warp synchronises, every
   lane reads its neighbour's slot. Lane 0 only collects (it writes its slot
   for lane 31 but its own result is thrown away), and the author, thinking
   "lane 0 does not take part", built the mask without it, although lane 0
   calls __syncwarp like the others. A mask must name the calling lane (CUDA
   Programming Guide, "__syncwarp"); calling with one that does not is
   undefined behaviour, which may pass on one GPU and hang or read stale
   values on another. synccheck reports it as an invalid argument to a
   barrier. (The planted bug of an earlier draft, a __syncthreads() that one
   thread skipped, and a shuffle whose mask left out its caller, were not
   reported by synccheck on an H200 with compute-sanitizer 2025.3.)
   scripts/gpu_check.sh runs this under synccheck and fails unless it is
   caught. Built with the tests, never run by CTest. Exit 77 without a GPU. */
#include "planted.h"

#define THREADS 64

/* Block: THREADS threads (whole warps), one block. g_out[t] = g_in of the
   next lane of the same warp, for lanes 1 .. 31 of each warp. */
__global__ void rotate_in_warp(const int *g_in, int *g_out)
{
    __shared__ int s_val[THREADS];
    const unsigned t = threadIdx.x, lane = t % 32;
    /* BUG (on purpose): lane 0 calls __syncwarp below but is not in the mask. */
    const unsigned mask = 0xfffffffeu;
    s_val[t] = g_in[t];
    __syncwarp(mask);
    if (lane != 0)
        g_out[t] = s_val[t - lane + (lane + 1) % 32];
}

int main(void) { return planted_run(rotate_in_warp, "rotate_in_warp", THREADS); }
