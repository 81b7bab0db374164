/* Dynamic parallelism (CUDA 12's CDP2) on the simulator (through tools/gpuh-simcc)
   and on a GPU (nvcc -rdc=true, linked with cudadevrt): the same checks, so
   that the simulator's answers are the GPU's. The rules checked are the CUDA
   C++ Programming Guide's ("CUDA Dynamic Parallelism"): a child grid launched
   from a thread is complete before its parent grid is; memory the parent wrote
   before the launch is visible to the child; a launch into
   cudaStreamTailLaunch starts once the launching grid and all the work it
   launched are complete; streams made in device code are non-blocking ones;
   a launch error is seen by the launching thread's cudaGetLastError.

     test_sim_cdp        every case; exit 1 on a failure, 77 with no device
     test_sim_cdp sync   cudaDeviceSynchronize() in a kernel (simulator: refused
                         with a message, the launch fails; removed from device
                         code in CUDA 12, so nvcc does not build this case) */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cuda_runtime.h>

#include "test_sim_check.h"

/* ---- Recursion: each level writes its depth and the block that launched it,
   then launches the next level from thread 0 of each of its blocks, until
   max_depth. The host checks every level's record. */
__global__ void recurse_kernel(int *g_seen, int *g_count, int depth, int max_depth, int parent_block)
{
    if (threadIdx.x == 0) {
        const int slot = atomicAdd(g_count, 1);
        g_seen[2 * slot] = depth;
        g_seen[2 * slot + 1] = parent_block;
    }
    __syncthreads(); /* every thread of the block reaches the launch below together (not needed for it) */
    if (threadIdx.x == 0 && depth + 1 < max_depth)
        recurse_kernel<<<2, 32>>>(g_seen, g_count, depth + 1, max_depth, static_cast<int>(blockIdx.x));
}
static void test_recursion()
{
    const int max_depth = 6; /* 2 + 4 + ... + 64 blocks: 126 */
    int total = 0;
    for (int d = 0, blocks = 2; d < max_depth; ++d, blocks *= 2)
        total += blocks;
    int *d_seen = NULL, *d_count = NULL;
    CUDA_OK(cudaMalloc(&d_seen, 2 * total * sizeof(int)));
    CUDA_OK(cudaMalloc(&d_count, sizeof(int)));
    CUDA_OK(cudaMemset(d_seen, 0xff, 2 * total * sizeof(int)));
    CUDA_OK(cudaMemset(d_count, 0, sizeof(int)));
    recurse_kernel<<<2, 32>>>(d_seen, d_count, 0, max_depth, -1);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    int count = 0;
    std::vector<int> seen(2 * total);
    CUDA_OK(cudaMemcpy(&count, d_count, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(seen.data(), d_seen, seen.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(count == total, "%d blocks ran, %d expected", count, total);
    std::vector<int> per_depth(max_depth, 0);
    int bad = 0;
    for (int i = 0; i < total && i < count; ++i) {
        const int depth = seen[2 * i], parent = seen[2 * i + 1];
        if (depth < 0 || depth >= max_depth || (depth == 0 ? parent != -1 : (parent < 0 || parent > 1)))
            ++bad;
        else
            ++per_depth[depth];
    }
    CHECK(bad == 0, "%d records with a wrong depth or parent", bad);
    for (int d = 0, blocks = 2; d < max_depth; ++d, blocks *= 2)
        CHECK(per_depth[d] == blocks, "depth %d: %d blocks, %d expected", d, per_depth[d], blocks);
    CUDA_OK(cudaFree(d_seen));
    CUDA_OK(cudaFree(d_count));
}

/* ---- Many children: every thread of the parent writes its input, then
   launches a child grid of its own that reads it (the parent's writes before
   the launch are visible to the child) and writes a result per element. */
__global__ void child_square_kernel(const float *g_in, float *g_out, int first, int n)
{
    const int i = first + static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < first + n)
        g_out[i] = g_in[i] * g_in[i] + 1.0f;
}
__global__ void parent_many_kernel(const float *g_src, float *g_in, float *g_out, int per_thread)
{
    const int t = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    for (int k = 0; k < per_thread; ++k)
        g_in[t * per_thread + k] = 2.0f * g_src[t * per_thread + k];
    child_square_kernel<<<(per_thread + 31) / 32, 32>>>(g_in, g_out, t * per_thread, per_thread);
}
static void test_many_children()
{
    const int blocks = 5, threads = 67, per_thread = 37, n = blocks * threads * per_thread;
    std::uniform_real_distribution<float> u(-4.0f, 4.0f);
    std::vector<float> src(n), out(n);
    for (int i = 0; i < n; ++i)
        src[i] = u(rng);
    float *d = NULL;
    CUDA_OK(cudaMalloc(&d, 3 * n * sizeof(float)));
    CUDA_OK(cudaMemcpy(d, src.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(d + n, 0xff, 2 * n * sizeof(float))); /* NaN until written */
    parent_many_kernel<<<blocks, threads>>>(d, d + n, d + 2 * n, per_thread);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(out.data(), d + 2 * n, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        const double x = 2.0 * static_cast<double>(src[i]), want = x * x + 1.0;
        bad += !(fabs(out[i] - want) <= 1e-5 * want);
    }
    CHECK(bad == 0, "%d of %d children's results wrong", bad, n);
    CUDA_OK(cudaFree(d));
}

/* ---- Streams: a child on a non-blocking stream made in device code, then a
   tail launch that reads what that child wrote (it starts after the parent
   grid and all the work it launched). A stream made in device code without
   cudaStreamNonBlocking is accepted, as CUDA 13's device runtime does on a
   GPU (the programming guide asks for the flag; the runtime does not
   enforce it). */
__global__ void fill_kernel(int *g_a, int n, int value)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        g_a[i] = value + i;
}
__global__ void tail_sum_kernel(const int *g_a, int n, int *g_sum)
{
    int s = 0;
    for (int i = 0; i < n; ++i)
        s += g_a[i];
    *g_sum = s;
}
__global__ void stream_parent_kernel(int *g_a, int n, int value, int *g_sum, int *g_errors)
{
    cudaStream_t s;
    g_errors[0] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    fill_kernel<<<(n + 63) / 64, 64, 0, s>>>(g_a, n, value);
    g_errors[1] = cudaGetLastError();
    g_errors[2] = cudaStreamDestroy(s); /* the work already launched into it still runs */
    tail_sum_kernel<<<1, 1, 0, cudaStreamTailLaunch>>>(g_a, n, g_sum);
    g_errors[3] = cudaGetLastError();
    fill_kernel<<<1, 1, 0, cudaStreamFireAndForget>>>(g_a + n, 1, 7);
    g_errors[4] = cudaGetLastError();
    cudaStream_t plain;
    g_errors[5] = cudaStreamCreateWithFlags(&plain, cudaStreamDefault);
    cudaGetLastError();
}
static void test_streams()
{
    const int n = 1000 + static_cast<int>(rng() % 1000), value = static_cast<int>(rng() % 1000);
    int *d_a = NULL, *d_sum = NULL, *d_errors = NULL;
    CUDA_OK(cudaMalloc(&d_a, (n + 1) * sizeof(int)));
    CUDA_OK(cudaMalloc(&d_sum, sizeof(int)));
    CUDA_OK(cudaMalloc(&d_errors, 6 * sizeof(int)));
    CUDA_OK(cudaMemset(d_a, 0, (n + 1) * sizeof(int)));
    CUDA_OK(cudaMemset(d_errors, 0xff, 6 * sizeof(int)));
    stream_parent_kernel<<<1, 1>>>(d_a, n, value, d_sum, d_errors);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    int sum = 0, last = 0, errors[6];
    CUDA_OK(cudaMemcpy(&sum, d_sum, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(&last, d_a + n, sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(errors, d_errors, sizeof errors, cudaMemcpyDeviceToHost));
    const long long want = static_cast<long long>(n) * value + static_cast<long long>(n) * (n - 1) / 2;
    CHECK(sum == static_cast<int>(want), "the tail launch summed %d, %lld expected", sum, want);
    CHECK(last == 7, "the fire-and-forget child wrote %d, 7 expected", last);
    for (int i = 0; i < 5; ++i)
        CHECK(errors[i] == cudaSuccess, "device call %d returned %s", i,
              cudaGetErrorName(static_cast<cudaError_t>(errors[i])));
    CHECK(errors[5] == cudaSuccess, "a stream made in device code with cudaStreamDefault: %s",
          cudaGetErrorName(static_cast<cudaError_t>(errors[5])));
    CUDA_OK(cudaFree(d_a));
    CUDA_OK(cudaFree(d_sum));
    CUDA_OK(cudaFree(d_errors));
}

/* ---- A launch error in device code: a child block of 2048 threads is
   refused; the launching thread's cudaGetLastError says so, then clears it,
   and the parent grid itself succeeds. */
__global__ void never_kernel(int *g_a) { g_a[0] = 1; }
__global__ void bad_launch_kernel(int *g_a, int *g_errors)
{
    never_kernel<<<1, 2048>>>(g_a);
    g_errors[0] = cudaGetLastError();
    g_errors[1] = cudaGetLastError();
    g_errors[2] = cudaPeekAtLastError();
}
static void test_launch_error()
{
    int *d = NULL, h[4];
    CUDA_OK(cudaMalloc(&d, 4 * sizeof(int)));
    CUDA_OK(cudaMemset(d, 0, 4 * sizeof(int)));
    bad_launch_kernel<<<1, 1>>>(d, d + 1);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaDeviceSynchronize());
    CUDA_OK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 0, "the refused child ran");
    CHECK(h[1] != cudaSuccess, "a child block of 2048 threads was not refused");
    CHECK(h[2] == cudaSuccess && h[3] == cudaSuccess, "cudaGetLastError did not clear the error: %s, %s",
          cudaGetErrorName(static_cast<cudaError_t>(h[2])), cudaGetErrorName(static_cast<cudaError_t>(h[3])));
    CUDA_OK(cudaFree(d));
}

#ifndef __CUDACC__
__global__ void sync_child_kernel(int *g_a) { g_a[0] = 1; }
__global__ void sync_parent_kernel(int *g_a)
{
    sync_child_kernel<<<1, 1>>>(g_a);
    cudaDeviceSynchronize(); /* CUDA 11's way of waiting for the child: gone from device code in CUDA 12 */
}
#endif

int main(int argc, char **argv)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
#ifndef __CUDACC__
    if (argc > 1 && strcmp(argv[1], "sync") == 0) {
        int *d = NULL;
        cudaMalloc(&d, sizeof(int));
        sync_parent_kernel<<<1, 1>>>(d);
        const cudaError_t e = cudaDeviceSynchronize();
        printf("sync: %s\n", cudaGetErrorName(e));
        cudaFree(d);
        return e == cudaErrorNotSupported ? 0 : 1;
    }
#endif
    (void)argc;
    (void)argv;
    test_recursion();
    test_many_children();
    test_streams();
    test_launch_error();
    printf("test_sim_cdp: %s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
