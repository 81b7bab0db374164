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

/* ---- __reduce_*_sync: each of CUDA's nine overloads against a loop over the
   lanes of the caller's mask. Each warp of the block is split in two groups,
   its mask (a full warp, the odd lanes, a random one, a single lane, the two
   ends, most of a short last warp) and the other lanes that exist, and each
   group reduces over its own lanes only, at the same call. The values are
   random 32-bit patterns: the sums wrap around, and a signed minimum or
   maximum differs from an unsigned one. Then the overload each argument type
   picks, as the result's type shows: and, or and xor give unsigned even for
   an int; add, min and max give int for an int, a short or a char. */
enum { REDUCTIONS = 9, REDUCE_TYPES = 8 };
__global__ void reduce_kernel(const unsigned *in, const unsigned *masks, unsigned *out, long long *types)
{
    const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32, v = in[threadIdx.x];
    const unsigned lanes = blockDim.x - 32 * warp < 32 ? blockDim.x - 32 * warp : 32;
    const unsigned exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    const unsigned group = masks[warp] >> lane & 1u ? masks[warp] : exists & ~masks[warp];
    const int s = static_cast<int>(v);
    unsigned *o = out + REDUCTIONS * threadIdx.x;
    o[0] = __reduce_add_sync(group, v);
    o[1] = static_cast<unsigned>(__reduce_add_sync(group, s));
    o[2] = __reduce_min_sync(group, v);
    o[3] = static_cast<unsigned>(__reduce_min_sync(group, s));
    o[4] = __reduce_max_sync(group, v);
    o[5] = static_cast<unsigned>(__reduce_max_sync(group, s));
    o[6] = __reduce_and_sync(group, v);
    o[7] = __reduce_or_sync(group, v);
    o[8] = __reduce_xor_sync(group, v);
    if (warp == 0) {
        const int minus8 = lane == 0 ? -8 : 0;
        const long long t[REDUCE_TYPES] = {
            __reduce_and_sync(0xffffffffu, -1),
            __reduce_or_sync(0xffffffffu, minus8),
            __reduce_xor_sync(0xffffffffu, minus8),
            __reduce_add_sync(0xffffffffu, minus8),
            __reduce_min_sync(0xffffffffu, static_cast<short>(minus8)),
            __reduce_max_sync(0xffffffffu, static_cast<signed char>(-8)),
            __reduce_add_sync(0xffffffffu, static_cast<unsigned>(minus8)),
            __reduce_max_sync(0xffffffffu, static_cast<unsigned>(minus8)),
        };
        if (lane == 3)
            for (int k = 0; k < REDUCE_TYPES; ++k)
                types[k] = t[k];
    }
}
static void test_reduce()
{
    const int threads = 32 * 5 + 13, warps = (threads + 31) / 32;
    std::vector<unsigned> in(threads);
    for (unsigned &v : in)
        v = static_cast<unsigned>(rng());
    const unsigned masks[warps] = {0xffffffffu, 0xaaaaaaaau, static_cast<unsigned>(rng()) | 1u, 1u << 7, 0x80000001u,
                                   0x1fffu & ~(1u << 4)};
    unsigned *d_in = nullptr, *d_masks = nullptr, *d_out = nullptr;
    long long *d_types = nullptr;
    TEST_CUDA(cudaMalloc(&d_in, in.size() * sizeof(unsigned)));
    TEST_CUDA(cudaMalloc(&d_masks, sizeof masks));
    TEST_CUDA(cudaMalloc(&d_out, REDUCTIONS * threads * sizeof(unsigned)));
    TEST_CUDA(cudaMalloc(&d_types, REDUCE_TYPES * sizeof(long long)));
    TEST_CUDA(cudaMemcpy(d_in, in.data(), in.size() * sizeof(unsigned), cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemcpy(d_masks, masks, sizeof masks, cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemset(d_out, 0x5a, REDUCTIONS * threads * sizeof(unsigned)));
    TEST_CUDA(cudaMemset(d_types, 0x5a, REDUCE_TYPES * sizeof(long long)));
    reduce_kernel<<<1, threads>>>(d_in, d_masks, d_out, d_types);
    TEST_CUDA(cudaGetLastError());
    std::vector<unsigned> out(REDUCTIONS * threads);
    long long types[REDUCE_TYPES];
    TEST_CUDA(cudaMemcpy(out.data(), d_out, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    TEST_CUDA(cudaMemcpy(types, d_types, sizeof types, cudaMemcpyDeviceToHost));
    static const char *const names[REDUCTIONS] = {"add (unsigned)", "add (int)", "min (unsigned)", "min (int)",
                                                  "max (unsigned)", "max (int)", "and", "or", "xor"};
    int bad = 0;
    for (int t = 0; t < threads; ++t) {
        const int w = t / 32, lane = t % 32, lanes = threads - 32 * w < 32 ? threads - 32 * w : 32;
        const unsigned exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
        const unsigned group = masks[w] >> lane & 1u ? masks[w] : exists & ~masks[w];
        unsigned add = 0, umin = 0xffffffffu, umax = 0, all = 0xffffffffu, any = 0, x = 0;
        int smin = 0x7fffffff, smax = -0x7fffffff - 1;
        for (int l = 0; l < 32; ++l)
            if (group >> l & 1u) {
                const unsigned v = in[32 * w + l];
                const int sv = static_cast<int>(v);
                add += v, umin = v < umin ? v : umin, umax = v > umax ? v : umax;
                smin = sv < smin ? sv : smin, smax = sv > smax ? sv : smax;
                all &= v, any |= v, x ^= v;
            }
        const unsigned want[REDUCTIONS] = {add,  add, umin, static_cast<unsigned>(smin), umax, static_cast<unsigned>(smax),
                                           all, any, x};
        for (int k = 0; k < REDUCTIONS; ++k)
            if (out[REDUCTIONS * t + k] != want[k] && bad++ < 8)
                TEST_ASSERT(false, "thread %d (warp %d, mask 0x%08x): __reduce_%s_sync gave 0x%08x, want 0x%08x", t, w,
                            group, names[k], out[REDUCTIONS * t + k], want[k]);
    }
    TEST_ASSERT(bad == 0, "__reduce_*_sync: %d wrong results", bad);
    const long long want_types[REDUCE_TYPES] = {0xffffffffll, 0xfffffff8ll, 0xfffffff8ll, -8, -8, -8, 0xfffffff8ll,
                                                0xfffffff8ll};
    for (int k = 0; k < REDUCE_TYPES; ++k)
        TEST_ASSERT(types[k] == want_types[k], "result type, case %d: %lld, want %lld", k, types[k], want_types[k]);
    TEST_CUDA(cudaFree(d_in));
    TEST_CUDA(cudaFree(d_masks));
    TEST_CUDA(cudaFree(d_out));
    TEST_CUDA(cudaFree(d_types));
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
