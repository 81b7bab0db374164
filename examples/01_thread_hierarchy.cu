/* 01_thread_hierarchy.cu - grids, blocks, threads, and the bounds guard.

   Teaches: a launch creates a grid of blocks of threads; each thread finds
   its place from blockIdx, blockDim and threadIdx. Part 1 is Numba's
   gpu_print[2, 4](): 2 blocks of 4 threads each print who they are. Part 2
   covers n = 5 elements with blocks of 4 threads: ceil(5 / 4) = 2 blocks, so 8
   threads for 5 elements, and the `if (idx < n)` guard keeps the 3 spare
   threads from touching memory past the array.
   Shows the raw launch kernel<<<grid, block>>>(...) followed by
   GPUH_CHECK_LAUNCH(), next to GPUH_LAUNCH, which does the same in one
   checked expression. Every later example uses GPUH_LAUNCH only.
   Measures: nothing.
   Checks: every one of the 8 printing threads recorded its global index (the
   printed lines themselves are not parsed); the 5 elements are doubled exactly
   as the CPU doubles them, and 3 canary slots after the array are unchanged.
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): nothing changes,
   this example is already that small. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gpuh.h"

/* Each thread prints its coordinates and writes its global index into the
   slot it owns, so the host can check that all of them ran. Blocks run in
   no guaranteed order, so the lines may come out in any block order. */
__global__ void gpu_print(int *g_seen)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    printf("  blockIdx.x = %d, threadIdx.x = %d, global index = %d\n", (int)blockIdx.x,
           (int)threadIdx.x, idx);
    g_seen[idx] = idx;
}

/* The grid is rounded up to whole blocks, so it usually has more threads than
   elements. Without the guard, threads 5..7 would write past the array:
   nothing stops them, and the damage shows up somewhere else, later. */
__global__ void double_elements(float *g_x, size_t n)
{
    const size_t idx = gpuh_global_index(); /* blockIdx.x * blockDim.x + threadIdx.x, 64-bit */
    if (idx < n)
        g_x[idx] *= 2.0f;
}

/* Copies back the 8 recorded indices and checks that thread i wrote i. */
static int all_threads_ran(const int *d_seen, int threads)
{
    int h_seen[8], i, ok = 1;
    GPUH_CHECK(gpuh_copy_to_host(h_seen, d_seen, threads));
    for (i = 0; i < threads; ++i)
        ok &= h_seen[i] == i;
    return ok;
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    const unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    int ok = 1, *d_seen;
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);

    /* Part 1: 2 blocks x 4 threads. */
    const int blocks = 2, threads_per_block = 4, threads = blocks * threads_per_block;
    GPUH_CHECK(gpuh_device_array(&d_seen, threads));

    printf("raw launch gpu_print<<<2, 4>>>:\n");
    fflush(stdout); /* so this line precedes the kernel's lines even when stdout is a pipe */
    GPUH_CHECK(cudaMemset(d_seen, 0xFF, threads * sizeof(int))); /* poison: -1 in every slot */
    gpu_print<<<blocks, threads_per_block>>>(d_seen);
    /* <<< >>> returns nothing: a bad configuration is only seen by asking. */
    GPUH_CHECK_LAUNCH();
    /* Device printf fills a buffer that the host prints at a synchronisation. */
    GPUH_CHECK(cudaDeviceSynchronize());
    ok &= all_threads_ran(d_seen, threads);

    printf("GPUH_LAUNCH(gpu_print, 2, 4, 0, 0, d_seen):\n");
    fflush(stdout);
    GPUH_CHECK(cudaMemset(d_seen, 0xFF, threads * sizeof(int)));
    GPUH_CHECK(GPUH_LAUNCH(gpu_print, blocks, threads_per_block, 0, 0, d_seen));
    GPUH_CHECK(cudaDeviceSynchronize());
    ok &= all_threads_ran(d_seen, threads);
    printf("all %d threads ran, twice: %s\n", threads, ok ? "yes" : "NO");

    /* Part 2: n = 5 elements, blocks of 4 threads. The array is followed by 3
       canary slots that no thread may touch. */
    const size_t n = 5, canaries = 3;
    float h_before[8], h_after[8], *d_x;
    dim3 grid;
    size_t i;
    GPUH_CHECK(gpuh_device_array(&d_x, n + canaries));
    GPUH_CHECK(gpuh_random_uniform_f32(d_x, n + canaries, seed, 0)); /* (0, 1]: never 0 */
    GPUH_CHECK(gpuh_copy_to_host(h_before, d_x, n + canaries));
    GPUH_CHECK(gpuh_grid_1d(&grid, n, threads_per_block)); /* ceil(5 / 4) = 2 blocks */
    printf("n = %zu elements, grid of %u blocks x %d threads = %u threads\n", n, grid.x,
           threads_per_block, grid.x * threads_per_block);
    GPUH_CHECK(GPUH_LAUNCH(double_elements, grid, threads_per_block, 0, 0, d_x, n));
    GPUH_CHECK(gpuh_copy_to_host(h_after, d_x, n + canaries)); /* waits for the kernel */

    int doubled = 1, untouched = 1;
    for (i = 0; i < n; ++i) {
        printf("  x[%zu] = %.7f -> %.7f\n", i, h_before[i], h_after[i]);
        doubled &= h_after[i] == 2.0f * h_before[i]; /* doubling is exact in float */
    }
    untouched = memcmp(h_before + n, h_after + n, canaries * sizeof(float)) == 0;
    printf("elements doubled as on the CPU: %s; canaries behind the array untouched: %s\n",
           doubled ? "yes" : "NO", untouched ? "yes" : "NO");
    ok &= doubled & untouched;

    GPUH_CHECK(gpuh_free(d_seen));
    GPUH_CHECK(gpuh_free(d_x));
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
