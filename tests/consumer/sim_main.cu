/* A CUDA program built by a consumer for gpuh's CPU simulator with
   gpuh_sim_program(): a <<< >>> launch with dynamic shared memory (rewritten by
   gpuh-simcc), gpuh's helpers and one of its kernels. Prints "consumer sim: PASS"
   when every result is right; exits 1 otherwise. `sim_main leak` does the same
   and does not free one array, which GPUH_CHECK_LEAKS=1 must report at exit
   (gpuh's own build runs it so, as sim.leak_report). */
#include <string.h>
#include "gpuh.h"
#include "gpuh_kernels.cuh"

/* Each block reverses its slice of g_x in place through shared memory. */
__global__ void reverse_blocks(float *g_x, size_t n)
{
    extern __shared__ float s_x[];
    size_t i = gpuh_global_index();
    if (i < n)
        s_x[threadIdx.x] = g_x[i];
    __syncthreads(); /* the whole slice is in shared memory before any thread reads it */
    size_t first = (size_t)blockIdx.x * blockDim.x;
    size_t len = n - first < blockDim.x ? n - first : blockDim.x;
    if (threadIdx.x < len)
        g_x[first + threadIdx.x] = s_x[len - 1 - threadIdx.x];
}

int main(int argc, char **argv)
{
    const size_t n = 1000, block = 128;
    const int leak = argc > 1 && strcmp(argv[1], "leak") == 0;
    float h_x[1000], *d_x = NULL, *d_sum = NULL, h_sum = 0.0f;
    unsigned char *d_temp = NULL;
    size_t i, bad = 0;
    dim3 grid;
    for (i = 0; i < n; ++i)
        h_x[i] = (float)(i % 17);
    GPUH_CHECK(gpuh_to_device(&d_x, h_x, n));
    GPUH_CHECK(gpuh_grid_1d(&grid, n, block));
    reverse_blocks<<<grid, block, block * sizeof(float)>>>(d_x, n);
    GPUH_CHECK(cudaGetLastError());
    GPUH_CHECK(gpuh_device_array(&d_sum, 1));
    GPUH_CHECK(gpuh_device_array(&d_temp, GPUH_REDUCE_TEMP_BYTES));
    GPUH_CHECK(gpuh_sum(d_x, n, d_sum, d_temp, 0));
    GPUH_CHECK(gpuh_copy_to_host(&h_sum, d_sum, 1));
    GPUH_CHECK(gpuh_copy_to_host(h_x, d_x, n));
    for (i = 0; i < n; ++i) {
        size_t first = i / block * block, len = n - first < block ? n - first : block;
        size_t from = first + (len - 1 - (i - first));
        bad += h_x[i] != (float)(from % 17);
    }
    GPUH_CHECK(gpuh_free(d_temp));
    GPUH_CHECK(gpuh_free(d_sum));
    if (!leak)
        GPUH_CHECK(gpuh_free(d_x));
    printf("consumer sim: %zu wrong elements, sum %g (expected %g): %s\n", bad, h_sum, 7979.0,
           bad == 0 && h_sum == 7979.0f ? "PASS" : "FAIL");
    return bad == 0 && h_sum == 7979.0f ? 0 : 1;
}
