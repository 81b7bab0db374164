/* planted_memcheck.cu - a planted bug for compute-sanitizer's memcheck: an
   out-of-bounds write to global memory.

   The kernel has no `if (i < n)` guard, and the grid is rounded up to whole
   blocks (1 block of 128 threads for 100 elements), so threads 100..127 write
   past the end of a 100-int array. cudaMalloc hands out memory in larger
   pieces, so those writes land in memory the process owns: nothing faults,
   the program ends normally and the bug goes unseen. That is what memcheck is
   for: it knows each allocation's exact size and reports every one of the 28
   writes. scripts/gpu_check.sh runs this under memcheck and fails unless it
   is caught. Built with the tests, never run by CTest. Exit 77 without a GPU. */
#include <stdio.h>
#include "gpuh.h"

/* BUG (on purpose): every thread writes, also those past n. */
__global__ void fill_unguarded(int *g_x)
{
    const size_t i = gpuh_global_index();
    g_x[i] = (int)i;
}

int main(void)
{
    const char *why;
    const size_t n = 100;
    int *d_x;
    dim3 grid;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n", why);
        return 77;
    }
    GPUH_CHECK(gpuh_device_array(&d_x, n));
    GPUH_CHECK(gpuh_grid_1d(&grid, n, 128));
    GPUH_CHECK(GPUH_LAUNCH(fill_unguarded, grid, 128, 0, 0, d_x));
    printf("fill_unguarded: %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    gpuh_free(d_x);
    return 0;
}
