/* planted_racecheck.cu - a planted bug for compute-sanitizer's racecheck: a
   shared-memory race.

   Each of 64 threads stores its value in s_x[t], then reads its neighbour's
   s_x[(t + 32) % 64], which a thread of the OTHER warp stores, with no
   __syncthreads() in between: nothing orders the store before the load. On a
   given GPU the result often looks right, which is why the bug survives
   testing; racecheck reports the read-after-write hazard.
   scripts/gpu_check.sh runs this under racecheck and fails unless it is
   caught. Built with the tests, never run by CTest. Exit 77 without a GPU. */
#include "planted.h"

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

int main(void) { return planted_run(rotate_unsynchronised, "rotate_unsynchronised", THREADS); }
