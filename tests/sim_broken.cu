/* sim_broken.cu - small, deliberately broken kernels, to show the CPU
   simulator's diagnostics firing (CTest matches what they print).

       sim_broken exit       a thread returns early while the others wait at
                             __syncthreads(): "divergent barrier", the block
                             and both threads named; the launch fails with
                             cudaErrorLaunchFailure, sticky until cudaDeviceReset
       sim_broken barriers   two halves of a block wait at different __syncthreads()
       sim_broken warp       a lane exits before a __shfl_down_sync over the full warp
       sim_broken race       a missing __syncthreads(): each thread reads the
                             shared value its left neighbour wrote; right under
                             GPUH_SIM_SCHEDULE=forward, wrong under reverse/random
       sim_broken oob        an off-by-one write past a device array; built with
                             AddressSanitizer it is caught with a stack trace
                             naming the kernel, and the sim names block and thread
   Simulator only: build with tools/gpuh-simcc (CMake: sim_broken, sim_broken_asan). */
#include "gpuh_test.h"

#ifndef GPUH_SIM
#error "sim_broken.cu shows the CPU simulator's diagnostics: build it with tools/gpuh-simcc"
#endif

/* Block 2's thread 5 leaves before the barrier the others wait at. */
__global__ void early_exit_kernel(int *g_out)
{
    __shared__ int s_x[32];
    if (blockIdx.x == 2 && threadIdx.x == 5)
        return; /* the bug: this thread never reaches the barrier below */
    s_x[threadIdx.x] = static_cast<int>(threadIdx.x);
    __syncthreads(); /* the others wait here for thread 5 */
    g_out[blockIdx.x * 32 + threadIdx.x] = s_x[31 - threadIdx.x];
}

/* Threads 0..15 and 16..31 wait at two different barriers. */
__global__ void two_barriers_kernel(int *g_out)
{
    if (threadIdx.x < 16) {
        g_out[threadIdx.x] = 1;
        __syncthreads();
    } else {
        g_out[threadIdx.x] = 2;
        __syncthreads();
    }
}

/* Lane 7 exits; the other lanes shuffle with a mask that still names it. */
__global__ void warp_exit_kernel(int *g_out)
{
    int v = static_cast<int>(threadIdx.x);
    if (threadIdx.x == 7)
        return;
    v += __shfl_down_sync(0xffffffffu, v, 1);
    g_out[threadIdx.x] = v;
}

/* Each thread writes its value, then (missing barrier) reads its left neighbour's. */
__global__ void missing_barrier_kernel(const int *g_in, int *g_out)
{
    __shared__ int s_x[256];
    const int t = static_cast<int>(threadIdx.x);
    s_x[t] = g_in[t];
    /* the bug: no __syncthreads() here, so s_x[t - 1] may not be written yet */
    g_out[t] = t > 0 ? s_x[t - 1] : 0;
}

/* Off by one: i <= n writes one element past the array. */
__global__ void oob_kernel(float *g_x, size_t n)
{
    const size_t i = gpuh_global_index();
    if (i <= n)
        g_x[i] = 1.0f;
}

static int run_exit(void)
{
    int *d = NULL; /* cudaMalloc, not gpuh's ledger: cudaDeviceReset below frees it */
    TEST_CUDA(cudaMalloc(&d, 4 * 32 * sizeof(int)));
    early_exit_kernel<<<4, 32>>>(d);
    /* A failed kernel is sticky, as after a fault on a GPU: every call reports it. */
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_ERR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    int *again = NULL;
    TEST_ERR(cudaMalloc(&again, 4), cudaErrorLaunchFailure);
    TEST_CUDA(cudaDeviceReset()); /* a new context: allocations gone, error cleared */
    TEST_CUDA(cudaMalloc(&d, 4 * 32 * sizeof(int)));
    early_exit_kernel<<<2, 32>>>(d); /* blocks 0 and 1 are fine */
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaFree(d));
    return gpuh_test_summary("sim_broken exit");
}

/* One block of 32 threads of two_barriers_kernel (warp = 0) or warp_exit_kernel (warp = 1). */
static int run_one_block(int warp, const char *name)
{
    int *d = NULL;
    TEST_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
    if (warp)
        warp_exit_kernel<<<1, 32>>>(d);
    else
        two_barriers_kernel<<<1, 32>>>(d);
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_CUDA(cudaDeviceReset()); /* frees d */
    return gpuh_test_summary(name);
}

static int run_race(void)
{
    int h_in[256], h_out[256], *d_in = NULL, *d_out = NULL, wrong = 0;
    unsigned long long rng = gpuh_test_seed();
    for (int i = 0; i < 256; ++i)
        h_in[i] = static_cast<int>(gpuh_test_next(&rng) % 1000) + 1;
    TEST_CUDA(gpuh_to_device(&d_in, h_in, 256));
    TEST_CUDA(gpuh_device_array(&d_out, 256));
    missing_barrier_kernel<<<1, 256>>>(d_in, d_out);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h_out, d_out, 256));
    for (int i = 1; i < 256; ++i)
        wrong += h_out[i] != h_in[i - 1];
    if (wrong == 0)
        printf("race: every thread read its neighbour's value: the missing barrier is hidden in this order\n");
    else
        printf("race: missing barrier exposed: %d of 255 threads read shared memory before it was written\n", wrong);
    gpuh_free(d_in);
    gpuh_free(d_out);
    return gpuh_test_summary("sim_broken race");
}

static int run_oob(void)
{
    const size_t n = 200; /* 4 blocks of 64: i = 200 is block 3, thread 8 */
    float *d = NULL;
    TEST_CUDA(cudaMalloc(&d, n * sizeof(float)));
    oob_kernel<<<4, 64>>>(d, n);
    TEST_CUDA(gpuh_check_launch());
    printf("oob: no fault seen (build with -fsanitize=address to catch it)\n");
    cudaFree(d);
    return gpuh_test_summary("sim_broken oob");
}

int main(int argc, char **argv)
{
    const char *what = argc > 1 ? argv[1] : "";
    if (strcmp(what, "exit") == 0)
        return run_exit();
    if (strcmp(what, "barriers") == 0)
        return run_one_block(0, "sim_broken barriers");
    if (strcmp(what, "warp") == 0)
        return run_one_block(1, "sim_broken warp");
    if (strcmp(what, "race") == 0)
        return run_race();
    if (strcmp(what, "oob") == 0)
        return run_oob();
    fprintf(stderr, "usage: sim_broken exit|barriers|warp|race|oob\n");
    return 2;
}
