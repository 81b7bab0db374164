/* sim_broken.cu - small, deliberately broken kernels, to show the CPU
   simulator's diagnostics firing (CTest matches what they print).

       sim_broken exit       a thread returns early while the others wait at
                             __syncthreads(): they go on, as on a GPU since
                             Volta, with a warning naming kernel and barrier;
                             then threads exit while the rest wait at two
                             different barriers: "divergent barrier", the block
                             and both waiting threads named; the launch fails
                             with cudaErrorLaunchFailure, sticky until cudaDeviceReset
       sim_broken barriers   two halves of a block wait at different __syncthreads()
       sim_broken warp       a lane exits before a __shfl_down_sync over the full
                             warp: the others go on without it, with a warning
       sim_broken race       a missing __syncthreads(): each thread reads the
                             shared value its left neighbour wrote; right under
                             GPUH_SIM_SCHEDULE=forward, wrong under reverse/random
       sim_broken oob        an off-by-one write past a device array; built with
                             AddressSanitizer it is caught with a stack trace
                             naming the kernel, and the sim names block and thread
       sim_broken width      a warp shuffle with width 0: "warp misuse", the
                             thread and call named; the launch fails
       sim_broken dynshm     a kernel writes dynamic shared memory its launch
                             did not ask for (after a launch that did): a fault
                             naming the kernel (with ASan, ASan's report), and
                             the launch fails with cudaErrorIllegalAddress
       sim_broken stack      a thread's locals overflow its stack (run with a small
                             GPUH_SIM_STACK_KB): the kernel and GPUH_SIM_STACK_KB named
       sim_broken cast       a float out of range converted to unsigned implicitly,
                             where gpuh-simcc cannot see it: x86's answer, not
                             the GPU's saturation; built with
                             -fsanitize=float-cast-overflow, UBSan reports it
                             and the sim names kernel, block and thread
       sim_broken deadlock   block 0 spins until the grid's last block, which
                             cannot start while the blocks before it fill the
                             device: "deadlock", the kernel named; the launch fails
                             with cudaErrorLaunchTimeout (run with a short
                             GPUH_SIM_DEADLOCK_S)
       sim_broken threads    a few launches, run with an absurd GPUH_SIM_THREADS:
                             clamped with a message, not an uncaught exception
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

/* Threads below `exiting` return; the others, below 16 and from 16 on, wait
   at two different barriers, which no GPU allows, exited threads or not. */
__global__ void two_barriers_kernel(int *g_out, unsigned exiting)
{
    if (threadIdx.x < exiting)
        return;
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

/* Each thread writes its value, then (missing barrier) reads its left
   neighbour's. Between a warp shuffle and a barrier: the order shown is the
   one in which threads that wait take their turns, not only the one they
   start in. */
__global__ void missing_barrier_kernel(const int *g_in, int *g_out)
{
    __shared__ int s_x[256];
    const int t = static_cast<int>(threadIdx.x);
    s_x[t] = 0;
    __syncthreads();
    s_x[t] = __shfl_sync(0xffffffffu, g_in[t], t % 32); /* its own value, once its warp has met */
    /* the bug: no __syncthreads() here, so s_x[t - 1] may still be unwritten */
    const int left = t > 0 ? s_x[t - 1] : 0;
    __syncthreads();
    g_out[t] = left;
}

/* Off by one: i <= n writes one element past the array. */
__global__ void oob_kernel(float *g_x, size_t n)
{
    const size_t i = gpuh_global_index();
    if (i <= n)
        g_x[i] = 1.0f;
}

/* Each lane adds a value from another lane of its group of `width`. */
__global__ void shuffle_width_kernel(int *g_out, int width)
{
    int v = static_cast<int>(threadIdx.x);
    v += __shfl_xor_sync(0xffffffffu, v, 1, width);
    g_out[threadIdx.x] = v;
}

/* Writes dynamic shared memory, whether or not the launch asked for any. */
__global__ void dyn_write_kernel(int *g_out)
{
    extern __shared__ int s_dyn[];
    s_dyn[threadIdx.x] = static_cast<int>(threadIdx.x);
    __syncthreads();
    g_out[threadIdx.x] = s_dyn[blockDim.x - 1 - threadIdx.x];
}

/* 200 KiB of locals per thread. */
__global__ void deep_stack_kernel(int *g_out)
{
    volatile unsigned char local[200 * 1024];
    for (size_t i = 0; i < sizeof local; i += 1024)
        local[sizeof local - 1 - i] = static_cast<unsigned char>(i);
    g_out[threadIdx.x] = local[0];
}

static int run_exit(void)
{
    int *d = NULL, h[4 * 32]; /* cudaMalloc, not gpuh's ledger: cudaDeviceReset below frees it */
    TEST_CUDA(cudaMalloc(&d, 4 * 32 * sizeof(int)));
    TEST_CUDA(cudaMemset(d, 0xAB, 4 * 32 * sizeof(int)));
    early_exit_kernel<<<4, 32>>>(d); /* block 2's barrier goes on without thread 5 */
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4 * 32; ++i)
        if (i != 2 * 32 + 5 && i != 2 * 32 + 26) /* thread 5 wrote nothing, thread 26 read its slot */
            TEST_ASSERT(h[i] == 31 - i % 32, "element %d: %d", i, h[i]);
    two_barriers_kernel<<<1, 32>>>(d, 4); /* threads 0..3 exit, the rest split */
    /* A failed kernel is sticky, as after a fault on a GPU: every call reports it. */
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_ERR(cudaDeviceSynchronize(), cudaErrorLaunchFailure);
    int *again = NULL;
    TEST_ERR(cudaMalloc(&again, 4), cudaErrorLaunchFailure);
    TEST_CUDA(cudaDeviceReset()); /* a new context: allocations gone, error cleared */
    TEST_CUDA(cudaMalloc(&d, 4 * 32 * sizeof(int)));
    early_exit_kernel<<<2, 32>>>(d); /* blocks 0 and 1 have no early exit */
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaFree(d));
    return gpuh_test_summary("sim_broken exit");
}

/* One block of 32 threads of two_barriers_kernel: the launch fails. */
static int run_barriers(void)
{
    int *d = NULL;
    TEST_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
    two_barriers_kernel<<<1, 32>>>(d, 0);
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_CUDA(cudaDeviceReset()); /* frees d */
    return gpuh_test_summary("sim_broken barriers");
}

/* One warp of warp_exit_kernel: the 31 lanes left shuffle without lane 7. */
static int run_warp(void)
{
    int *d = NULL, h[32];
    TEST_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
    TEST_CUDA(cudaMemset(d, 0xAB, sizeof h));
    warp_exit_kernel<<<1, 32>>>(d);
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int t = 0; t < 32; ++t) /* lane 6 read exited lane 7: undefined; lane 31 keeps its own value */
        if (t != 6 && t != 7)
            TEST_ASSERT(h[t] == (t == 31 ? 62 : 2 * t + 1), "lane %d: %d", t, h[t]);
    TEST_CUDA(cudaFree(d));
    return gpuh_test_summary("sim_broken warp");
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

/* Thread 2 converts 2^32 to unsigned without a cast: a GPU saturates it (UINT_MAX). */
__global__ void implicit_cast_kernel(const float *g_in, unsigned *g_out)
{
    const float x = g_in[threadIdx.x];
    const unsigned u = x;
    g_out[threadIdx.x] = u;
}

static int run_cast(void)
{
    const float h_in[4] = {0.0f, 1.0f, 4294967296.0f, 3.0f};
    unsigned h_out[4];
    float *d_in = NULL;
    unsigned *d_out = NULL;
    TEST_CUDA(gpuh_to_device(&d_in, h_in, 4));
    TEST_CUDA(gpuh_device_array(&d_out, 4));
    fflush(stdout);
    implicit_cast_kernel<<<1, 4>>>(d_in, d_out);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h_out, d_out, 4));
    printf("cast: 2^32 converted implicitly gives %u here (a GPU gives 4294967295)\n", h_out[2]);
    gpuh_free(d_in);
    gpuh_free(d_out);
    return gpuh_test_summary("sim_broken cast");
}

/* Every block but the last spins until the last block raises the flag. */
__global__ void wait_for_last_kernel(volatile int *g_flag)
{
    if (threadIdx.x != 0)
        return;
    if (blockIdx.x + 1 == gridDim.x)
        *g_flag = 1;
    else
        while (*g_flag == 0) {
        }
}

static int run_deadlock(void)
{
    int *d = NULL; /* cudaMalloc, not gpuh's ledger: cudaDeviceReset below frees it */
    TEST_CUDA(cudaMalloc(&d, sizeof(int)));
    TEST_CUDA(cudaMemset(d, 0, sizeof(int)));
    fflush(stdout);
    /* 1024-thread blocks: 2 per SM fit on a GPU; far more blocks than fit */
    wait_for_last_kernel<<<2000, 1024>>>(d);
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchTimeout);
    TEST_CUDA(cudaDeviceReset());
    return gpuh_test_summary("sim_broken deadlock");
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

static int run_width(void)
{
    int *d = NULL, h[32];
    TEST_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
    shuffle_width_kernel<<<1, 32>>>(d, 8); /* a valid width first */
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    TEST_ASSERT(h[0] == 1 && h[1] == 1 && h[30] == 61, "width 8: %d %d %d", h[0], h[1], h[30]);
    shuffle_width_kernel<<<1, 32>>>(d, 0);
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_CUDA(cudaDeviceReset());
    TEST_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
    shuffle_width_kernel<<<1, 32>>>(d, 12); /* not a power of two */
    TEST_ERR(cudaGetLastError(), cudaErrorLaunchFailure);
    TEST_CUDA(cudaDeviceReset());
    return gpuh_test_summary("sim_broken width");
}

static int run_dynshm(void)
{
    int *d = NULL;
    TEST_CUDA(cudaMalloc(&d, 64 * sizeof(int)));
    dyn_write_kernel<<<2, 64, 64 * sizeof(int)>>>(d); /* asks for its buffer: fine */
    TEST_CUDA(gpuh_check_launch());
    fflush(stdout);
    dyn_write_kernel<<<2, 64>>>(d); /* the bug: 0 bytes asked for */
    TEST_ERR(cudaGetLastError(), cudaErrorIllegalAddress); /* ASan stops the process before */
    TEST_ERR(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    TEST_CUDA(cudaDeviceReset()); /* frees d */
    return gpuh_test_summary("sim_broken dynshm");
}

static int run_stack(void)
{
    int *d = NULL;
    TEST_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
    fflush(stdout);
    deep_stack_kernel<<<1, 32>>>(d);
    const cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        printf("stack: no overflow (GPUH_SIM_STACK_KB is large enough)\n");
    else
        TEST_ERR(err, cudaErrorIllegalAddress);
    TEST_CUDA(cudaDeviceReset()); /* frees d */
    return gpuh_test_summary("sim_broken stack");
}

static int run_threads(void)
{
    int *d = NULL, h[64];
    TEST_CUDA(cudaMalloc(&d, 64 * sizeof(int)));
    for (int tag = 0; tag < 3; ++tag) {
        early_exit_kernel<<<2, 32>>>(d); /* blocks 0 and 1: no early exit */
        TEST_CUDA(cudaGetLastError());
    }
    TEST_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i)
        TEST_ASSERT(h[i] == 31 - i % 32, "element %d: %d", i, h[i]);
    TEST_CUDA(cudaFree(d));
    return gpuh_test_summary("sim_broken threads");
}


int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(void);
    } cases[] = {{"exit", run_exit},   {"barriers", run_barriers}, {"warp", run_warp},   {"race", run_race},
                 {"oob", run_oob},     {"width", run_width},       {"dynshm", run_dynshm}, {"stack", run_stack},
                 {"threads", run_threads}, {"cast", run_cast}, {"deadlock", run_deadlock}};
    const char *what = argc > 1 ? argv[1] : "";
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k)
        if (strcmp(what, cases[k].name) == 0)
            return cases[k].run();
    fprintf(stderr, "usage: sim_broken exit|barriers|warp|race|oob|width|dynshm|stack|threads|cast|deadlock\n");
    return 2;
}
