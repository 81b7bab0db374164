/* Device code of compute capability 7.0 and later on the simulator (through
   tools/gpuh-simcc) and on a GPU (nvcc): __CUDA_ARCH__ as each of nvcc's
   passes sees it, warp reductions (__reduce_*_sync), cuda::barrier,
   cuda::pipeline (a thread's own and a block's shared one with producer and
   consumer roles), cuda::memcpy_async and the pipeline primitives, and
   `__shared__ alignas(N)`. Semantics from the CUDA C++ Programming Guide
   ("Asynchronous Barrier", "Asynchronous Data Copies", "Warp Reduce
   Functions", "Compilation with NVCC"). Exit 1 on a failure, 77 with no device. */
#include <cstdio>
#include <random>
#include <vector>

#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include "gpuh_test.h"
namespace cg = cooperative_groups;

static std::mt19937 rng;

/* ---- __CUDA_ARCH__: a declaration only the device pass sees, used by device code only. */
#if __CUDA_ARCH__ >= 700
__device__ int arch_only_on_device(int x) { return x + 7; }
#endif
/* A macro both passes define, each its own way: host code sees the host pass's. */
#ifdef __CUDA_ARCH__
#define PASS_NAME 1
#else
#define PASS_NAME 2
#endif
__global__ void arch_kernel(int *out)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    out[0] = arch_only_on_device(35);
#else
    out[0] = -1;
#endif
#ifdef __CUDA_ARCH__
    out[1] = __CUDA_ARCH__;
#else
    out[1] = -1;
#endif
}
static int host_pass_name()
{
#ifdef __CUDA_ARCH__
    return -1;
#else
    return PASS_NAME;
#endif
}
static void test_arch()
{
    int *d = nullptr;
    TEST_CUDA(cudaMallocManaged(&d, 2 * sizeof(int)));
    d[0] = d[1] = 0;
    arch_kernel<<<1, 1>>>(d);
    TEST_CUDA(cudaDeviceSynchronize());
    cudaDeviceProp prop;
    TEST_CUDA(cudaGetDeviceProperties(&prop, 0));
    TEST_ASSERT(d[0] == 42, "device code takes the __CUDA_ARCH__ >= 700 branch: %d", d[0]);
    TEST_ASSERT(d[1] == prop.major * 100 + prop.minor * 10, "__CUDA_ARCH__ in device code is %d, the device is %d.%d",
                d[1], prop.major, prop.minor);
    TEST_ASSERT(host_pass_name() == 2, "host code sees __CUDA_ARCH__ undefined: %d", host_pass_name());
    TEST_CUDA(cudaFree(d));
}

/* ---- Host definitions of device math functions, as a .cu may make where
   __CUDACC__ is not defined (cuda-samples' helper_math.h): they coexist with
   the simulator's own. */
#ifndef __CUDACC__
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
#endif
__global__ void rsqrt_kernel(float *x) { x[threadIdx.x] = rsqrtf(x[threadIdx.x]); }
static void test_host_math()
{
    float *d = nullptr;
    TEST_CUDA(cudaMallocManaged(&d, 2 * sizeof(float)));
    d[0] = 4.0f, d[1] = 0.25f;
    rsqrt_kernel<<<1, 2>>>(d);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_ASSERT(d[0] == 0.5f && d[1] == 2.0f && rsqrtf(16.0f) == 0.25f, "rsqrtf in device and host code");
    TEST_CUDA(cudaFree(d));
}

/* ---- __reduce_*_sync over a full warp and over the odd lanes. */
__global__ void reduce_kernel(const unsigned *in, unsigned *out)
{
    const unsigned lane = threadIdx.x % 32, v = in[threadIdx.x];
    unsigned *o = out + 8 * (threadIdx.x / 32);
    const unsigned add = __reduce_add_sync(0xffffffffu, v), mn = __reduce_min_sync(0xffffffffu, v);
    const unsigned mx = __reduce_max_sync(0xffffffffu, v), x = __reduce_xor_sync(0xffffffffu, v);
    const int sadd = __reduce_add_sync(0xffffffffu, static_cast<int>(v) - 1000);
    if (lane == 5) {
        o[0] = add, o[1] = mn, o[2] = mx, o[3] = x, o[4] = static_cast<unsigned>(sadd);
    }
    if (lane & 1) {
        const unsigned odd = __reduce_add_sync(0xaaaaaaaau, v);
        const unsigned a = __reduce_and_sync(0xaaaaaaaau, v), r = __reduce_or_sync(0xaaaaaaaau, v);
        if (lane == 31)
            o[5] = odd, o[6] = a, o[7] = r;
    }
}
static void test_reduce()
{
    const int warps = 3;
    std::vector<unsigned> in(32 * warps);
    for (unsigned &v : in)
        v = rng() % 100000;
    unsigned *d_in = nullptr, *d_out = nullptr;
    TEST_CUDA(cudaMalloc(&d_in, in.size() * sizeof(unsigned)));
    TEST_CUDA(cudaMalloc(&d_out, 8 * warps * sizeof(unsigned)));
    TEST_CUDA(cudaMemcpy(d_in, in.data(), in.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemset(d_out, 0xff, 8 * warps * sizeof(unsigned)));
    reduce_kernel<<<1, 32 * warps>>>(d_in, d_out);
    std::vector<unsigned> out(8 * warps);
    TEST_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int w = 0; w < warps; ++w) {
        unsigned add = 0, mn = ~0u, mx = 0, x = 0, odd = 0, a = ~0u, r = 0;
        for (int l = 0; l < 32; ++l) {
            const unsigned v = in[32 * w + l];
            add += v, mn = v < mn ? v : mn, mx = v > mx ? v : mx, x ^= v;
            if (l & 1)
                odd += v, a &= v, r |= v;
        }
        const unsigned *o = &out[8 * w];
        TEST_ASSERT(o[0] == add && o[1] == mn && o[2] == mx && o[3] == x, "warp %d: add/min/max/xor", w);
        TEST_ASSERT(static_cast<int>(o[4]) == static_cast<int>(add) - 32000, "warp %d: signed add %d", w,
                    static_cast<int>(o[4]));
        TEST_ASSERT(o[5] == odd && o[6] == a && o[7] == r, "warp %d: add/and/or over the odd lanes", w);
    }
    TEST_CUDA(cudaFree(d_in));
    TEST_CUDA(cudaFree(d_out));
}

/* ---- cuda::barrier: phases, arrive/wait split by work, the completion function,
   arrive_and_drop, and memcpy_async into a phase. */
struct count_phase {
    int *phases;
    __device__ void operator()() const { ++*phases; }
};
__global__ void barrier_kernel(const float *in, float *out, int *phases, int rounds)
{
    __shared__ cuda::barrier<cuda::thread_scope_block, count_phase> bar;
    __shared__ alignas(16) float stage[256];
    __shared__ int s_phases;
    const int t = threadIdx.x, n = blockDim.x;
    if (t == 0) {
        s_phases = 0;
        init(&bar, n, count_phase{&s_phases});
    }
    __syncthreads();
    float acc = 0.0f;
    for (int r = 0; r < rounds; ++r) {
        cuda::memcpy_async(&stage[t], &in[(blockIdx.x * rounds + r) * n + t], sizeof(float), bar);
        bar.arrive_and_wait(); /* every thread's copy is in */
        acc += stage[(t + 1) % n] * (r + 1);
        auto token = bar.arrive(); /* everyone has read the stage ... */
        acc += 0.5f;               /* ... work that needs no one else overlaps the wait */
        bar.wait(std::move(token));
    }
    out[blockIdx.x * n + t] = acc;
    if (t >= n / 2) /* half the block leaves: the next phase needs the other half only */
        bar.arrive_and_drop();
    else
        bar.arrive_and_wait();
    if (t < n / 2)
        bar.arrive_and_wait();
    if (t == 0)
        phases[blockIdx.x] = s_phases;
}
static void test_barrier()
{
    const int blocks = 3, n = 96, rounds = 4;
    std::vector<float> in(static_cast<size_t>(blocks) * rounds * n);
    for (float &v : in)
        v = static_cast<float>(rng() % 1000) / 8.0f;
    float *d_in = nullptr, *d_out = nullptr;
    int *d_phases = nullptr;
    TEST_CUDA(cudaMalloc(&d_in, in.size() * sizeof(float)));
    TEST_CUDA(cudaMalloc(&d_out, blocks * n * sizeof(float)));
    TEST_CUDA(cudaMalloc(&d_phases, blocks * sizeof(int)));
    TEST_CUDA(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemset(d_out, 0xff, blocks * n * sizeof(float)));
    barrier_kernel<<<blocks, n>>>(d_in, d_out, d_phases, rounds);
    TEST_CUDA(cudaGetLastError());
    std::vector<float> out(static_cast<size_t>(blocks) * n);
    std::vector<int> phases(blocks);
    TEST_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    TEST_CUDA(cudaMemcpy(phases.data(), d_phases, blocks * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < blocks; ++b) {
        for (int t = 0; t < n; ++t) {
            double want = 0.0;
            for (int r = 0; r < rounds; ++r)
                want += static_cast<double>(in[(static_cast<size_t>(b) * rounds + r) * n + (t + 1) % n]) * (r + 1) + 0.5;
            bad += std::fabs(out[static_cast<size_t>(b) * n + t] - want) > 1e-3 * (1.0 + std::fabs(want));
        }
        TEST_ASSERT(phases[b] == 2 * rounds + 2, "block %d: the completion ran %d times, want %d", b, phases[b],
                    2 * rounds + 2);
    }
    TEST_ASSERT(bad == 0, "cuda::barrier: %d wrong sums", bad);
    TEST_CUDA(cudaFree(d_in));
    TEST_CUDA(cudaFree(d_out));
    TEST_CUDA(cudaFree(d_phases));
}

/* ---- cuda::pipeline. A thread's own, two stages deep: each thread sums its row
   of tiles, copying tile k+1 while it adds tile k. */
__global__ void own_pipeline_kernel(const float4 *in, float *out, int tiles)
{
    __shared__ float4 buf[2][128];
    auto pipe = cuda::make_pipeline();
    const int t = threadIdx.x, n = blockDim.x;
    const auto shape = cuda::aligned_size_t<alignof(float4)>(sizeof(float4));
    float acc = 0.0f;
    for (int fetch = 0; fetch < 2 && fetch < tiles; ++fetch) {
        pipe.producer_acquire();
        cuda::memcpy_async(&buf[fetch][t], &in[fetch * n + t], shape, pipe);
        pipe.producer_commit();
    }
    for (int k = 0; k < tiles; ++k) {
        pipe.consumer_wait();
        const float4 v = buf[k % 2][t];
        acc += v.x + v.y + v.z + v.w;
        pipe.consumer_release();
        if (k + 2 < tiles) {
            pipe.producer_acquire();
            cuda::memcpy_async(&buf[k % 2][t], &in[(k + 2) * n + t], shape, pipe);
            pipe.producer_commit();
        }
    }
    out[t] = acc;
}
/* A block's shared pipeline: warp 0 produces tiles into a 2-stage ring, the
   other warps consume them, each thread adding its element of every tile. */
__global__ void shared_pipeline_kernel(const float *in, float *out, int tiles)
{
    constexpr int stages = 2, width = 64;
    __shared__ float ring[stages][width];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, stages> state;
    auto block = cg::this_thread_block();
    const bool producer = threadIdx.x < 32;
    auto pipe = cuda::make_pipeline(block, &state, producer ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
    if (producer) {
        for (int k = 0; k < tiles; ++k) {
            pipe.producer_acquire(); /* waits until every consumer released this stage's last tile */
            for (int i = threadIdx.x; i < width; i += 32)
                cuda::memcpy_async(&ring[k % stages][i], &in[k * width + i], sizeof(float), pipe);
            pipe.producer_commit();
        }
    } else {
        const int c = threadIdx.x - 32;
        float acc = 0.0f;
        for (int k = 0; k < tiles; ++k) {
            pipe.consumer_wait(); /* waits until both producer lanes committed this tile */
            acc += ring[k % stages][c % width] * static_cast<float>(k + 1);
            pipe.consumer_release();
        }
        out[c] = acc;
    }
}
/* __pipeline_memcpy_async with zero fill, committed and waited for. */
__global__ void primitives_kernel(const int4 *in, int4 *out)
{
    __shared__ int4 s[64];
    const int t = threadIdx.x;
    __pipeline_memcpy_async(&s[t], &in[t], sizeof(int4), static_cast<size_t>(t % 4) * 4); /* the last t % 4 ints zeroed */
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[t] = s[63 - t];
}
static void test_pipelines()
{
    const int n = 128, tiles = 7;
    std::vector<float4> in(static_cast<size_t>(tiles) * n);
    for (float4 &v : in)
        v = make_float4(rng() % 64 / 4.0f, rng() % 64 / 4.0f, rng() % 64 / 4.0f, rng() % 64 / 4.0f);
    float4 *d_in = nullptr;
    float *d_out = nullptr;
    TEST_CUDA(cudaMalloc(&d_in, in.size() * sizeof(float4)));
    TEST_CUDA(cudaMalloc(&d_out, n * sizeof(float)));
    TEST_CUDA(cudaMemcpy(d_in, in.data(), in.size() * sizeof(float4), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemset(d_out, 0xff, n * sizeof(float)));
    own_pipeline_kernel<<<1, n>>>(d_in, d_out, tiles);
    std::vector<float> out(n);
    TEST_CUDA(cudaMemcpy(out.data(), d_out, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int t = 0; t < n; ++t) {
        double want = 0.0;
        for (int k = 0; k < tiles; ++k) {
            const float4 v = in[static_cast<size_t>(k) * n + t];
            want += static_cast<double>(v.x) + v.y + v.z + v.w;
        }
        bad += out[t] != static_cast<float>(want);
    }
    TEST_ASSERT(bad == 0, "a thread's own cuda::pipeline: %d wrong", bad);

    const int width = 64, consumers = 64, many = 9;
    std::vector<float> flat(static_cast<size_t>(many) * width);
    for (float &v : flat)
        v = static_cast<float>(rng() % 32);
    float *d_flat = nullptr;
    TEST_CUDA(cudaMalloc(&d_flat, flat.size() * sizeof(float)));
    TEST_CUDA(cudaMemcpy(d_flat, flat.data(), flat.size() * sizeof(float), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemset(d_out, 0xff, n * sizeof(float)));
    shared_pipeline_kernel<<<1, 32 + consumers>>>(d_flat, d_out, many);
    TEST_CUDA(cudaMemcpy(out.data(), d_out, consumers * sizeof(float), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int c = 0; c < consumers; ++c) {
        double want = 0.0;
        for (int k = 0; k < many; ++k)
            want += static_cast<double>(flat[static_cast<size_t>(k) * width + c % width]) * (k + 1);
        bad += out[c] != static_cast<float>(want);
    }
    TEST_ASSERT(bad == 0, "a block's shared cuda::pipeline (producer and consumer warps): %d wrong", bad);

    std::vector<int4> iv(64), ov(64);
    for (int4 &v : iv)
        v = make_int4(static_cast<int>(rng() % 1000) + 1, static_cast<int>(rng() % 1000) + 1,
                      static_cast<int>(rng() % 1000) + 1, static_cast<int>(rng() % 1000) + 1);
    int4 *d_iv = nullptr, *d_ov = nullptr;
    TEST_CUDA(cudaMalloc(&d_iv, 64 * sizeof(int4)));
    TEST_CUDA(cudaMalloc(&d_ov, 64 * sizeof(int4)));
    TEST_CUDA(cudaMemcpy(d_iv, iv.data(), 64 * sizeof(int4), cudaMemcpyHostToDevice));
    primitives_kernel<<<1, 64>>>(d_iv, d_ov);
    TEST_CUDA(cudaMemcpy(ov.data(), d_ov, 64 * sizeof(int4), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int t = 0; t < 64; ++t) {
        const int src = 63 - t, keep = 4 - src % 4;
        const int want[4] = {iv[src].x, keep > 1 ? iv[src].y : 0, keep > 2 ? iv[src].z : 0, keep > 3 ? iv[src].w : 0};
        bad += ov[t].x != want[0] || ov[t].y != want[1] || ov[t].z != want[2] || ov[t].w != want[3];
    }
    TEST_ASSERT(bad == 0, "__pipeline_memcpy_async with zero fill: %d wrong", bad);
    TEST_CUDA(cudaFree(d_in));
    TEST_CUDA(cudaFree(d_out));
    TEST_CUDA(cudaFree(d_flat));
    TEST_CUDA(cudaFree(d_iv));
    TEST_CUDA(cudaFree(d_ov));
}

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    rng.seed(static_cast<unsigned>(gpuh_test_seed()));
    test_arch();
    test_host_math();
    test_reduce();
    test_barrier();
    test_pipelines();
    return gpuh_test_summary("test_sim_arch");
}
