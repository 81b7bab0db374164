/* The README's first program, with a check: built by the compile.sim_gxx test
   with the README's g++ line for the simulator (see cmake/test_sim_gxx.cmake),
   from a folder that holds only the files the README says to copy. */
#include "gpuh.h"
#include "gpuh_kernels.cuh"

__global__ void scale(float *g_x, float s, size_t n)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        g_x[i] *= s;
}

int main(void)
{
    float h_x[1000], *d_x;
    size_t n = 1000, bad = 0;
    dim3 grid;
    for (size_t i = 0; i < n; ++i) h_x[i] = (float)i;
    GPUH_CHECK(gpuh_to_device(&d_x, h_x, n));
    GPUH_CHECK(gpuh_grid_1d(&grid, n, 256));
    GPUH_CHECK(GPUH_LAUNCH(scale, grid, 256, 0, 0, d_x, 2.0f, n));
    GPUH_CHECK(gpuh_copy_to_host(h_x, d_x, n));
    GPUH_CHECK(gpuh_free(d_x));
    for (size_t i = 0; i < n; ++i)
        bad += h_x[i] != 2.0f * (float)i;
    printf("README program on the simulator: %zu wrong elements: %s\n", bad, bad ? "FAIL" : "PASS");
    return bad ? 1 : 0;
}
