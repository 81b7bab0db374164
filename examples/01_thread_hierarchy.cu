/* 01_thread_hierarchy.cu - grids, blocks, threads, and the bounds guard.

   Teaches: a launch creates a grid of blocks of threads; each thread finds
   its place from blockIdx, blockDim and threadIdx. Part 1 is Numba's
   gpu_print[2, 4](): 2 blocks of 4 threads each print who they are. Part 2
   covers n = 5 elements with blocks of 4 threads: ceil(5 / 4) = 2 blocks, so 8
   threads for 5 elements, and the `if (idx < n)` guard keeps the 3 spare
   threads from touching memory past the array. Part 3 does the same in two
   dimensions, Numba's cuda.grid(2): a 37 x 23 image in 8 x 8 blocks, one
   thread per pixel from gpuh_global_index_2d(), guarded on both axes; then a
   2-D grid-stride loop (gpuh_grid_stride_2d(), Numba's cuda.gridsize(2))
   lets a grid of only 2 x 2 blocks cover the whole image.
   Shows the raw launch kernel<<<grid, block>>>(...) followed by
   GPUH_CHECK_LAUNCH(), next to GPUH_LAUNCH, which does the same in one
   checked expression. Every later example uses GPUH_LAUNCH only.
   Measures: nothing.
   Checks: every one of the 8 printing threads recorded its global index (the
   printed lines themselves are not parsed); the 5 elements are doubled exactly
   as the CPU doubles them, and 3 canary slots after the array are unchanged;
   every pixel of the image is doubled by the one-thread-per-pixel kernel and
   halved back by the grid-stride kernel, exactly, with the canaries after
   the image unchanged.
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

/* One thread per pixel of a row-major width x height image: the grid is
   rounded up to whole blocks on both axes, so both coordinates are guarded. */
__global__ void double_pixels(float *g_img, size_t width, size_t height)
{
    const gpuh_size2 p = gpuh_global_index_2d(); /* Numba: x, y = cuda.grid(2) */
    if (p.x < width && p.y < height)
        g_img[p.y * width + p.x] *= 2.0f;
}

/* Any grid covers the image: each thread starts at its own (x, y) and steps
   by the grid's extent on each axis until it leaves the image. */
__global__ void halve_pixels_strided(float *g_img, size_t width, size_t height)
{
    const gpuh_size2 start = gpuh_global_index_2d(), step = gpuh_grid_stride_2d(); /* cuda.gridsize(2) */
    for (size_t y = start.y; y < height; y += step.y)
        for (size_t x = start.x; x < width; x += step.x)
            g_img[y * width + x] *= 0.5f;
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
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("01_thread_hierarchy"));
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

    /* Part 3: a width x height image, 8 x 8 blocks, then a 2 x 2 grid. */
    const size_t width = 37, height = 23, pixels = width * height;
    float *d_img, *h_orig = (float *)malloc((pixels + canaries) * sizeof(float));
    float *h_img = (float *)malloc((pixels + canaries) * sizeof(float));
    if (h_orig == NULL || h_img == NULL) {
        printf("out of host memory\n");
        return 1;
    }
    const dim3 block2(8, 8);
    GPUH_CHECK(gpuh_device_array(&d_img, pixels + canaries));
    GPUH_CHECK(gpuh_random_uniform_f32(d_img, pixels + canaries, seed + 1, 0));
    GPUH_CHECK(gpuh_copy_to_host(h_orig, d_img, pixels + canaries));
    GPUH_CHECK(gpuh_grid_2d(&grid, width, height, block2)); /* (ceil(37/8), ceil(23/8)) = (5, 3) */
    printf("image %zu x %zu, grid of (%u, %u) blocks of (8, 8) = %u x %u threads\n", width, height, grid.x,
           grid.y, grid.x * 8, grid.y * 8);
    GPUH_CHECK(GPUH_LAUNCH(double_pixels, grid, block2, 0, 0, d_img, width, height));
    GPUH_CHECK(gpuh_copy_to_host(h_img, d_img, pixels + canaries));
    int doubled_2d = 1;
    for (i = 0; i < pixels; ++i)
        doubled_2d &= h_img[i] == 2.0f * h_orig[i];
    GPUH_CHECK(GPUH_LAUNCH(halve_pixels_strided, dim3(2, 2), block2, 0, 0, d_img, width, height));
    GPUH_CHECK(gpuh_copy_to_host(h_img, d_img, pixels + canaries));
    const int restored = memcmp(h_orig, h_img, pixels * sizeof(float)) == 0;
    const int canaries_2d = memcmp(h_orig + pixels, h_img + pixels, canaries * sizeof(float)) == 0;
    printf("every pixel doubled by one thread each: %s; halved back by a 2 x 2 grid striding over the image: %s; "
           "canaries untouched: %s\n",
           doubled_2d ? "yes" : "NO", restored ? "yes" : "NO", canaries_2d ? "yes" : "NO");
    ok &= doubled_2d & restored & canaries_2d;
    free(h_orig);
    free(h_img);

    GPUH_CHECK(gpuh_free(d_seen));
    GPUH_CHECK(gpuh_free(d_x));
    GPUH_CHECK(gpuh_free(d_img));
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
