/* CUDA programs as people write them, on the simulator (through tools/gpuh-simcc)
   and on a GPU (nvcc): the same checks, so that the simulator's answers are
   the GPU's. Each case names the CUDA behaviour it checks (CUDA C++
   Programming Guide) and fails loudly.

     test_sim_cuda            every portable case; exit 1 on a failure, 77 with no device
     test_sim_cuda hostptr    a malloc'd pointer given to a kernel (simulator: reported, launch fails)
     test_sim_cuda assert     a failing device assert(): cudaErrorAssert, block and thread printed
     test_sim_cuda trap       __trap() in a kernel: cudaErrorLaunchFailure
   Launches from kernels (dynamic parallelism): tests/test_sim_cdp.cu. */
#include <cassert>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

#include "test_sim_check.h"

/* ---- cudaMemcpyToSymbol / FromSymbol into __constant__ and __device__ variables. */
__constant__ float c_table[37];
__device__ int d_total;
__global__ void table_kernel(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = c_table[i % 37] * 2.0f;
        atomicAdd(&d_total, 1);
    }
}
static void test_symbols()
{
    float h[37], out_h[100];
    std::uniform_real_distribution<float> u(-10, 10);
    for (int i = 0; i < 37; ++i)
        h[i] = u(rng);
    CUDA_OK(cudaMemcpyToSymbol(c_table, h, sizeof h));
    float patch[3] = {1.5f, 2.5f, 3.5f};
    CUDA_OK(cudaMemcpyToSymbol(c_table, patch, sizeof patch, 30 * sizeof(float)));
    memcpy(h + 30, patch, sizeof patch);
    int zero = 0;
    CUDA_OK(cudaMemcpyToSymbol(d_total, &zero, sizeof zero));
    float *out;
    CUDA_OK(cudaMalloc(&out, sizeof out_h));
    CUDA_OK(cudaMemset(out, 0xff, sizeof out_h));
    table_kernel<<<4, 32>>>(out, 100);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(out_h, out, sizeof out_h, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < 100; ++i)
        bad += out_h[i] != h[i % 37] * 2.0f;
    CHECK(bad == 0, "%d of 100 values read from a __constant__ array are wrong", bad);
    int total = -1;
    CUDA_OK(cudaMemcpyFromSymbol(&total, d_total, sizeof total));
    CHECK(total == 100, "__device__ counter %d, expected 100", total);
    float back[37];
    CUDA_OK(cudaMemcpyFromSymbol(back, c_table, sizeof back));
    CHECK(memcmp(back, h, sizeof h) == 0, "the __constant__ array read back differs");
    /* beyond the variable's end: an error, nothing copied */
    CHECK(cudaMemcpyToSymbol(c_table, h, sizeof h, 4) == cudaErrorInvalidValue, "a copy past the end");
    cudaGetLastError();
    CUDA_OK(cudaFree(out));
}

/* ---- A launch configuration with a comma inside a comment; a kernel with a default argument. */
__global__ void scale_kernel(float *p, int n, float factor = 3.0f)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] *= factor;
}
static void test_launch_syntax()
{
    const int n = 1000;
    std::vector<float> h(n), r(n);
    std::uniform_real_distribution<float> u(-1, 1);
    for (int i = 0; i < n; ++i)
        h[i] = u(rng);
    float *d;
    CUDA_OK(cudaMalloc(&d, n * sizeof(float)));
    CUDA_OK(cudaMemcpy(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    int blocks = (n + 127) / 128;
    scale_kernel<<<blocks, 128 /* 480, 128 */>>>(d, n); /* the default factor, 3 */
    CUDA_OK(cudaGetLastError());
    scale_kernel<<<blocks, 128>>>(d, n, 0.5f);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(r.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += r[i] != h[i] * 3.0f * 0.5f;
    CHECK(bad == 0, "%d of %d wrong after the two launches", bad, n);
    CUDA_OK(cudaFree(d));
}

/* ---- atomicAnd/Or/Xor with an operand of another integer type (CUDA's overloads convert it). */
__global__ void bits_kernel(int *word, unsigned long long *wide)
{
    const unsigned bit = 1u << (threadIdx.x % 32);
    atomicOr(word, bit);
    atomicAnd(word, ~(1u << 31));
    atomicXor(wide, 1ull << threadIdx.x);
}
static void test_bit_atomics()
{
    int *w;
    unsigned long long *x;
    CUDA_OK(cudaMalloc(&w, sizeof(int)));
    CUDA_OK(cudaMalloc(&x, sizeof(unsigned long long)));
    CUDA_OK(cudaMemset(w, 0, sizeof(int)));
    CUDA_OK(cudaMemset(x, 0, sizeof(unsigned long long)));
    bits_kernel<<<1, 48>>>(w, x);
    CUDA_OK(cudaGetLastError());
    int hw = 0;
    unsigned long long hx = 0;
    CUDA_OK(cudaMemcpy(&hw, w, sizeof hw, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(&hx, x, sizeof hx, cudaMemcpyDeviceToHost));
    CHECK(hw == 0x7fffffff, "atomicOr/atomicAnd gave %#x", hw);
    CHECK(hx == (1ull << 48) - 1, "atomicXor gave %#llx", hx);
    CUDA_OK(cudaFree(w));
    CUDA_OK(cudaFree(x));
}

/* ---- Kernel arguments: copied once per launch, bytewise; no destructor runs on
   the device; every thread has its own copy of a by-value parameter. */
struct counted {
    int *data;
    int base;
    static int destructions;
    __host__ __device__ counted(int *d, int b) : data(d), base(b) {}
    __host__ __device__ counted(const counted &o) : data(o.data), base(o.base) {}
    __host__ __device__ ~counted()
    {
#ifndef __CUDA_ARCH__
        ++destructions; /* a device destructor would count here on the simulator */
#endif
    }
};
int counted::destructions = 0;
__global__ void counted_kernel(counted c)
{
    c.base += static_cast<int>(threadIdx.x); /* this thread's copy only */
    c.data[blockIdx.x * blockDim.x + threadIdx.x] = c.base;
}
static void test_argument_copies()
{
    const int threads = 256, blocks = 3;
    int *d;
    CUDA_OK(cudaMalloc(&d, threads * blocks * sizeof(int)));
    const int base = static_cast<int>(rng() % 1000);
    {
        counted c(d, base);
        counted::destructions = 0;
        counted_kernel<<<blocks, threads>>>(c);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaDeviceSynchronize());
        CHECK(counted::destructions < 8, "%d destructor calls for one launch of %d threads", counted::destructions,
              threads * blocks);
    }
    std::vector<int> h(threads * blocks);
    CUDA_OK(cudaMemcpy(h.data(), d, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < threads * blocks; ++i)
        bad += h[i] != base + i % threads;
    CHECK(bad == 0, "%d threads saw another thread's change to their parameter", bad);
    CUDA_OK(cudaFree(d));
}

/* ---- Template kernels launched with deduced arguments; an array of kernel pointers. */
template <class T> __global__ void fill_kernel(T *p, T value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = value;
}
__global__ void add_one(int *p) { p[threadIdx.x] += 1; }
__global__ void add_ten(int *p) { p[threadIdx.x] += 10; }
static void test_kernel_forms()
{
    const int n = 77;
    double *d;
    CUDA_OK(cudaMalloc(&d, n * sizeof(double)));
    const double v = std::uniform_real_distribution<double>(1, 2)(rng);
    fill_kernel<<<2, 64>>>(d, v, n); /* T = double, deduced */
    CUDA_OK(cudaGetLastError());
    std::vector<double> h(n);
    CUDA_OK(cudaMemcpy(h.data(), d, n * sizeof(double), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += h[i] != v;
    CHECK(bad == 0, "deduced template launch: %d wrong", bad);
    int *p;
    CUDA_OK(cudaMalloc(&p, 32 * sizeof(int)));
    CUDA_OK(cudaMemset(p, 0, 32 * sizeof(int)));
    void (*table[2])(int *) = {add_one, add_ten};
    for (int k = 0; k < 2; ++k)
        table[k]<<<1, 32>>>(p);
    CUDA_OK(cudaGetLastError());
    int hp[32];
    CUDA_OK(cudaMemcpy(hp, p, sizeof hp, cudaMemcpyDeviceToHost));
    CHECK(hp[0] == 11 && hp[31] == 11, "launches through a table of kernels gave %d, %d", hp[0], hp[31]);
    CUDA_OK(cudaFree(d));
    CUDA_OK(cudaFree(p));
}

/* ---- Template and overloaded kernels launched as nvcc takes them: template
   arguments given in part and the rest deduced from the arguments (a const T *
   parameter given a T *), arguments converted to the parameters' types, an
   overloaded kernel name resolved by its arguments; a template kernel with all
   its arguments given is one function, whose cudaFuncSetAttribute limit on
   dynamic shared memory applies to its launches. */
template <int scale, class T, class I> __global__ void scale_into(const T *in, T *out, I n)
{
    const I i = blockIdx.x * static_cast<I>(blockDim.x) + threadIdx.x;
    if (i < n)
        out[i] = in[i] * static_cast<T>(scale);
}
__global__ void shift(int *p, int by) { p[threadIdx.x] += by; }
__global__ void shift(int *p, int by, int times) { p[threadIdx.x] += by * times; }
template <class T, int N> __global__ void shared_sum(const T *in, T *out)
{
    extern __shared__ unsigned char s_raw[];
    T *s_v = reinterpret_cast<T *>(s_raw);
    for (int i = threadIdx.x; i < N; i += blockDim.x)
        s_v[i] = in[i];
    __syncthreads(); /* every element is in shared memory before thread 0 sums them */
    if (threadIdx.x == 0) {
        T sum = 0;
        for (int i = 0; i < N; ++i)
            sum += s_v[i];
        *out = sum;
    }
}
static void test_template_launches()
{
    const int n = 300 + static_cast<int>(rng() % 200);
    std::vector<int> h_in(n);
    for (int &v : h_in)
        v = static_cast<int>(rng() % 1000) - 500;
    int *in, *out;
    CUDA_OK(cudaMalloc(&in, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&out, n * sizeof(int)));
    CUDA_OK(cudaMemcpy(in, h_in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemset(out, 0xff, n * sizeof(int)));
    scale_into<3><<<(n + 127) / 128, 128>>>(in, out, n); /* T = int from a non-const int *, I = int */
    CUDA_OK(cudaGetLastError());
    std::vector<int> h(n);
    CUDA_OK(cudaMemcpy(h.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i)
        bad += h[i] != 3 * h_in[i];
    CHECK(bad == 0, "scale_into<3> (T and I deduced): %d of %d wrong", bad, n);
    CUDA_OK(cudaMemset(out, 0xff, n * sizeof(int)));
    scale_into<-2, int><<<(n + 63) / 64, 64>>>(in, out, static_cast<size_t>(n)); /* I = size_t deduced */
    scale_into<5, int, unsigned><<<1, 32>>>(in, out, 7L); /* all given: 7L converted to unsigned */
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(h.data(), out, n * sizeof(int), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; ++i)
        bad += h[i] != (i < 7 ? 5 : -2) * h_in[i];
    CHECK(bad == 0, "scale_into<-2, int> then <5, int, unsigned>: %d of %d wrong", bad, n);

    const int by = 1 + static_cast<int>(rng() % 50), times = 2 + static_cast<int>(rng() % 5);
    CUDA_OK(cudaMemset(out, 0, 32 * sizeof(int)));
    shift<<<1, 32>>>(out, by);
    shift<<<1, 16>>>(out, by, times);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(h.data(), out, 32 * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(h[0] == by + by * times && h[15] == by + by * times && h[16] == by && h[31] == by,
          "the overloads of shift gave %d %d %d %d, not %d and %d", h[0], h[15], h[16], h[31], by + by * times, by);

    /* 64 KiB of dynamic shared memory: above the default limit of 48 KiB until the kernel's attribute raises it */
    enum { N = 64 * 1024 / 4 };
    std::vector<int> h_big(N);
    long long want = 0;
    for (int &v : h_big) {
        v = static_cast<int>(rng() % 2001) - 1000;
        want += v;
    }
    int *big;
    CUDA_OK(cudaMalloc(&big, N * sizeof(int)));
    CUDA_OK(cudaMemcpy(big, h_big.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    shared_sum<int, N><<<1, 256, N * sizeof(int)>>>(big, out);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue, "shared_sum<int, N> ran with 64 KiB of dynamic shared memory"
                                                       " before its attribute allowed it");
    CUDA_OK(cudaFuncSetAttribute(shared_sum<int, N>, cudaFuncAttributeMaxDynamicSharedMemorySize, N * sizeof(int)));
    CUDA_OK(cudaMemset(out, 0xff, sizeof(int)));
    shared_sum<int, N><<<1, 256, N * sizeof(int)>>>(big, out);
    CUDA_OK(cudaGetLastError());
    int got = 0;
    CUDA_OK(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(got == want, "shared_sum<int, N> after cudaFuncSetAttribute: %d, not %lld", got, want);
    CUDA_OK(cudaFree(big));
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(out));
}

/* ---- threadIdx & co. are variables, not macros: host code may use their names. */
static int host_names()
{
    int blockDim = 3, threadIdx = 4; /* legal host code in CUDA */
    dim3 gridDim(2, 1, 1);
    return blockDim * threadIdx + static_cast<int>(gridDim.x);
}

/* ---- Cooperative groups: tiles, shuffles, reduce, ballot, partitions, grid sync. */
__global__ void groups_kernel(const int *in, int *tile_sums, int *ballots, int *part_sizes)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    const int v = in[block.thread_rank()];
    const int sum = cg::reduce(tile, v, cg::plus<int>());
    const int first = tile.shfl(v, 0);
    const unsigned odd = tile.ballot(v & 1);
    cg::coalesced_group same = cg::binary_partition(tile, v & 1);
    if (tile.thread_rank() == 0) {
        tile_sums[tile.meta_group_rank()] = sum + 0 * first;
        ballots[tile.meta_group_rank()] = static_cast<int>(odd);
    }
    part_sizes[block.thread_rank()] = static_cast<int>(same.size());
    cg::thread_group dyn = cg::tiled_partition(block, 8);
    block.sync();
    if (dyn.thread_rank() == 0 && dyn.size() != 8)
        part_sizes[block.thread_rank()] = -1;
}
__global__ void multi_warp_kernel(const int *in, int *out)
{
    __shared__ cg::block_tile_memory<256> scratch;
    cg::thread_block cta = cg::this_thread_block(scratch);
    cg::thread_block_tile<64> tile = cg::tiled_partition<64>(cta);
    const int s = cg::reduce(tile, in[threadIdx.x], cg::plus<int>());
    if (tile.thread_rank() == 0)
        out[tile.meta_group_rank()] = s;
}
__global__ void coalesced_kernel(const int *in, int *rank, int *size)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    rank[i] = size[i] = -1;
    if (in[i] & 1) { /* the odd lanes of each warp, in lane order */
        cg::coalesced_group odd = cg::coalesced_threads();
        rank[i] = static_cast<int>(odd.thread_rank());
        size[i] = static_cast<int>(odd.size());
        if (odd.shfl(i, 0) > i) /* rank 0 is the group's lowest lane */
            rank[i] = -2;
    }
}
__global__ void grid_sum_kernel(const int *in, int n, int *partial, int *total)
{
    cg::grid_group grid = cg::this_grid();
    int s = 0;
    for (int i = static_cast<int>(grid.thread_rank()); i < n; i += static_cast<int>(grid.size()))
        s += in[i];
    atomicAdd(&partial[blockIdx.x], s);
    grid.sync(); /* every block's partial sum is in */
    if (grid.thread_rank() == 0) {
        int t = 0;
        for (unsigned b = 0; b < gridDim.x; ++b)
            t += partial[b];
        *total = t;
    }
}
static void test_groups()
{
    const int n = 64;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i)
        h[i] = static_cast<int>(rng() % 100);
    int *in, *sums, *ballots, *sizes;
    CUDA_OK(cudaMalloc(&in, n * sizeof(int)));
    CUDA_OK(cudaMalloc(&sums, 4 * sizeof(int)));
    CUDA_OK(cudaMalloc(&ballots, 4 * sizeof(int)));
    CUDA_OK(cudaMalloc(&sizes, n * sizeof(int)));
    CUDA_OK(cudaMemcpy(in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    groups_kernel<<<1, n>>>(in, sums, ballots, sizes);
    CUDA_OK(cudaGetLastError());
    int hs[4], hb[4];
    std::vector<int> hz(n);
    CUDA_OK(cudaMemcpy(hs, sums, sizeof hs, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(hb, ballots, sizeof hb, cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(hz.data(), sizes, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 4; ++t) {
        int s = 0, odd = 0;
        unsigned b = 0;
        for (int k = 0; k < 16; ++k) {
            s += h[t * 16 + k];
            odd += h[t * 16 + k] & 1;
            b |= static_cast<unsigned>(h[t * 16 + k] & 1) << k;
        }
        CHECK(hs[t] == s, "tile %d: reduce gave %d, expected %d", t, hs[t], s);
        CHECK(static_cast<unsigned>(hb[t]) == b, "tile %d: ballot %#x, expected %#x", t, hb[t], b);
        for (int k = 0; k < 16; ++k) {
            const int want = (h[t * 16 + k] & 1) ? odd : 16 - odd;
            CHECK(hz[t * 16 + k] == want, "thread %d: binary_partition size %d, expected %d", t * 16 + k,
                  hz[t * 16 + k], want);
        }
    }
    {
        std::vector<int> r(n), z(n);
        int *rank, *size;
        CUDA_OK(cudaMalloc(&rank, n * sizeof(int)));
        CUDA_OK(cudaMalloc(&size, n * sizeof(int)));
        coalesced_kernel<<<1, n>>>(in, rank, size);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpy(r.data(), rank, n * sizeof(int), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaMemcpy(z.data(), size, n * sizeof(int), cudaMemcpyDeviceToHost));
        for (int wbase = 0; wbase < n; wbase += 32) {
            int odd = 0, seen = 0;
            for (int k = 0; k < 32; ++k)
                odd += h[wbase + k] & 1;
            for (int k = 0; k < 32; ++k) {
                const int i = wbase + k;
                if (h[i] & 1) {
                    CHECK(r[i] == seen && z[i] == odd, "lane %d: coalesced rank %d size %d, expected %d of %d", i,
                          r[i], z[i], seen, odd);
                    ++seen;
                } else {
                    CHECK(r[i] == -1 && z[i] == -1, "lane %d did not take the branch", i);
                }
            }
        }
        CUDA_OK(cudaFree(rank));
        CUDA_OK(cudaFree(size));
    }
    {
        std::vector<int> hin(256);
        int want[4] = {0, 0, 0, 0}, got[4] = {-1, -1, -1, -1};
        for (int i = 0; i < 256; ++i)
            want[i / 64] += hin[i] = static_cast<int>(rng() % 1000);
        int *din, *dout;
        CUDA_OK(cudaMalloc(&din, 256 * sizeof(int)));
        CUDA_OK(cudaMalloc(&dout, 4 * sizeof(int)));
        CUDA_OK(cudaMemcpy(din, hin.data(), 256 * sizeof(int), cudaMemcpyHostToDevice));
        multi_warp_kernel<<<1, 256>>>(din, dout);
        CUDA_OK(cudaGetLastError());
        CUDA_OK(cudaMemcpy(got, dout, sizeof got, cudaMemcpyDeviceToHost));
        for (int t = 0; t < 4; ++t)
            CHECK(got[t] == want[t], "64-thread tile %d: reduce gave %d, expected %d", t, got[t], want[t]);
        CUDA_OK(cudaFree(din));
        CUDA_OK(cudaFree(dout));
    }
    int coop = 0;
    CUDA_OK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, 0));
    if (coop) {
        const int m = 10007, grid = 4;
        std::vector<int> hm(m);
        long long want = 0;
        for (int i = 0; i < m; ++i)
            want += hm[i] = static_cast<int>(rng() % 1000);
        int *dm, *partial, *total;
        CUDA_OK(cudaMalloc(&dm, m * sizeof(int)));
        CUDA_OK(cudaMalloc(&partial, grid * sizeof(int)));
        CUDA_OK(cudaMalloc(&total, sizeof(int)));
        CUDA_OK(cudaMemcpy(dm, hm.data(), m * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_OK(cudaMemset(partial, 0, grid * sizeof(int)));
        CUDA_OK(cudaMemset(total, 0xff, sizeof(int)));
        int mm = m;
        void *args[] = {&dm, &mm, &partial, &total};
        CUDA_OK(cudaLaunchCooperativeKernel((void *)grid_sum_kernel, dim3(grid), dim3(128), args, 0, 0));
        int ht = 0;
        CUDA_OK(cudaMemcpy(&ht, total, sizeof ht, cudaMemcpyDeviceToHost));
        CHECK(ht == want, "grid-wide sum after this_grid().sync(): %d, expected %lld", ht, want);
        CUDA_OK(cudaFree(dm));
        CUDA_OK(cudaFree(partial));
        CUDA_OK(cudaFree(total));
    }
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(sums));
    CUDA_OK(cudaFree(ballots));
    CUDA_OK(cudaFree(sizes));
}

/* ---- Textures: point and linear fetches of a 2D float array, clamped at the edges. */
__global__ void tex_kernel(cudaTextureObject_t t, float *out, int w, int h)
{
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h)
        out[y * w + x] = tex2D<float>(t, x + 0.75f, y + 0.5f);
}
static void test_textures()
{
    const int w = 13, h = 5;
    std::vector<float> img(w * h), out(w * h);
    for (int i = 0; i < w * h; ++i)
        img[i] = static_cast<float>(rng() % 1000) / 8.0f;
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t arr = NULL;
    CUDA_OK(cudaMallocArray(&arr, &desc, w, h));
    CUDA_OK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), w * sizeof(float), w * sizeof(float), h,
                                cudaMemcpyHostToDevice));
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    CUDA_OK(cudaCreateTextureObject(&t, &res, &td, NULL));
    float *d;
    CUDA_OK(cudaMalloc(&d, w * h * sizeof(float)));
    tex_kernel<<<h, w>>>(t, d, w, h);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(out.data(), d, w * h * sizeof(float), cudaMemcpyDeviceToHost));
    /* x + 0.75 is a quarter of the way from texel x to texel x + 1 (the last one clamped) */
    double err = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const double a = img[y * w + x], b = img[y * w + (x + 1 < w ? x + 1 : x)];
            err = fmax(err, fabs(out[y * w + x] - (a + 0.25 * (b - a))));
        }
    CHECK(err < 1e-3, "linear texture fetch off by %g", err);
    CUDA_OK(cudaDestroyTextureObject(t));
    CUDA_OK(cudaFreeArray(arr));
    CUDA_OK(cudaFree(d));
}

/* ---- Half precision: conversions round to nearest even; every half survives a round trip. */
__global__ void half_kernel(const __half2 *a, const __half2 *b, __half2 *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = __hfma2(a[i], b[i], c[i]);
}
static void test_half()
{
    int bad = 0;
    for (unsigned u = 0; u < 65536; ++u) {
        __half_raw r;
        r.x = static_cast<unsigned short>(u);
        const float f = __half2float(__half(r));
        if (f == f && __half_as_ushort(__float2half(f)) != u)
            ++bad;
    }
    CHECK(bad == 0, "%d halves changed in a round trip through float", bad);
    CHECK(__half_as_ushort(__float2half(1.0f + 1.0f / 2048)) == 0x3c00, "a tie rounds to even (down)");
    CHECK(__half_as_ushort(__float2half(1.0f + 3.0f / 2048)) == 0x3c02, "a tie rounds to even (up)");
    CHECK(__half_as_ushort(__float2half(65519.0f)) == 0x7bff && __half_as_ushort(__float2half(65520.0f)) == 0x7c00,
          "the largest half and overflow");
    CHECK(__half_as_ushort(__float2half(5.9604645e-8f)) == 0x0001, "the smallest subnormal");
    const int n = 100;
    std::vector<__half2> a(n), b(n), c(n), r(n);
    std::uniform_real_distribution<float> u(-4, 4);
    for (int i = 0; i < n; ++i) {
        a[i] = __floats2half2_rn(u(rng), u(rng));
        b[i] = __floats2half2_rn(u(rng), u(rng));
        c[i] = __floats2half2_rn(u(rng), u(rng));
    }
    __half2 *d;
    CUDA_OK(cudaMalloc(&d, 3 * n * sizeof(__half2)));
    CUDA_OK(cudaMemcpy(d, a.data(), n * sizeof(__half2), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d + n, b.data(), n * sizeof(__half2), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d + 2 * n, c.data(), n * sizeof(__half2), cudaMemcpyHostToDevice));
    half_kernel<<<1, 128>>>(d, d + n, d + 2 * n, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(r.data(), d + 2 * n, n * sizeof(__half2), cudaMemcpyDeviceToHost));
    bad = 0;
    for (int i = 0; i < n; ++i) { /* fma of halves is exact in double: one rounding, as the hardware's */
        const double x = static_cast<double>(__low2float(a[i])) * __low2float(b[i]) + __low2float(c[i]);
        bad += __half_as_ushort(__low2half(r[i])) != __half_as_ushort(__double2half(x));
    }
    CHECK(bad == 0, "%d of %d __hfma2 results not the correctly rounded fma", bad, n);
    CUDA_OK(cudaFree(d));
}

/* ---- clock() and clock64() in device code count cycles at the rate
   cudaDevAttrClockRate reports: a kernel that waits for 30 ms worth of them
   takes about 30 ms (a GPU may run faster than the rate it reports, so only
   an order of magnitude is checked). */
__global__ void clock_wait_kernel(long long cycles, long long *g_waited)
{
    const clock_t start = clock();
    const long long start64 = clock64();
    while (static_cast<long long>(clock() - start) < cycles) {
    }
    while (clock64() - start64 < cycles) {
    }
    *g_waited = clock64() - start64;
}
static void test_clock()
{
    int rate_khz = 0;
    CUDA_OK(cudaDeviceGetAttribute(&rate_khz, cudaDevAttrClockRate, 0));
    CHECK(rate_khz > 0, "cudaDevAttrClockRate %d kHz", rate_khz);
    const long long cycles = 30LL * rate_khz; /* 30 ms */
    long long *d = NULL, waited = 0;
    CUDA_OK(cudaMalloc(&d, sizeof(long long)));
    clock_wait_kernel<<<1, 1>>>(cycles / 1000, d); /* warm-up */
    CUDA_OK(cudaDeviceSynchronize());
    const auto t0 = std::chrono::steady_clock::now();
    clock_wait_kernel<<<1, 1>>>(cycles, d);
    CUDA_OK(cudaDeviceSynchronize());
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CUDA_OK(cudaMemcpy(&waited, d, sizeof waited, cudaMemcpyDeviceToHost));
    CHECK(waited >= cycles, "clock64 advanced %lld cycles, at least %lld expected", waited, cycles);
    CHECK(ms > 5.0 && ms < 3000.0, "waiting 30 ms of clock cycles at %d kHz took %.1f ms", rate_khz, ms);
    CUDA_OK(cudaFree(d));
}

/* ---- Diagnostics, each in a process of its own (they leave a sticky error). */
__global__ void write_kernel(float *p) { p[threadIdx.x] = 1.0f; }
__global__ void assert_kernel(int *p)
{
    assert(!(blockIdx.x == 1 && threadIdx.x == 5));
    p[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

/* __trap(): the launch fails with cudaErrorLaunchFailure (sticky). */
__global__ void trap_kernel(int *p)
{
    if (blockIdx.x == 2 && threadIdx.x == 7)
        __trap();
    p[blockIdx.x * blockDim.x + threadIdx.x] = 1;
}

static int diagnostic(const char *what)
{
    if (strcmp(what, "hostptr") == 0) {
        float *host = static_cast<float *>(malloc(64 * sizeof(float)));
        write_kernel<<<1, 64>>>(host);
        cudaError_t e = cudaDeviceSynchronize();
        if (e == cudaSuccess)
            e = cudaGetLastError();
        printf("hostptr: %s\n", cudaGetErrorName(e));
        free(host);
        return e == cudaErrorIllegalAddress ? 0 : 1;
    }
    if (strcmp(what, "assert") == 0) {
        int *d;
        cudaMalloc(&d, 4 * 32 * sizeof(int));
        assert_kernel<<<4, 32>>>(d);
        cudaError_t e = cudaDeviceSynchronize();
        printf("assert: %s\n", cudaGetErrorName(e));
        return e == cudaErrorAssert ? 0 : 1;
    }
    if (strcmp(what, "trap") == 0) {
        int *d;
        cudaMalloc(&d, 4 * 32 * sizeof(int));
        trap_kernel<<<4, 32>>>(d);
        cudaError_t e = cudaDeviceSynchronize();
        printf("trap: %s\n", cudaGetErrorName(e));
        return e == cudaErrorLaunchFailure ? 0 : 1;
    }
    printf("unknown case %s\n", what);
    return 2;
}

/* ---- Idioms of programs found in the wild (llm.c's dev/cuda, NVIDIA's
   blockReduceSum): `static __shared__`, a kernel and a host launcher (or two
   kernels) of one name, cudaMemcpy at a __device__ array's address from
   cudaGetSymbolAddress, the properties' copy engines, and the intrinsics they
   use (cache-hint loads and stores, byte and funnel shifts, dp4a, warp
   matches, C-library-less math). */
__device__ float block_total(float v)
{
    static __shared__ float partial[32]; /* nvcc takes the redundant static */
    const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
    if (lane == 0)
        partial[wid] = v;
    __syncthreads();
    v = threadIdx.x < blockDim.x / 32 ? partial[lane] : 0.0f;
    if (wid == 0)
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}
__global__ void total_kernel(const float *x, float *out)
{
    __shared__ static int arrived; /* the other order of the two */
    if (threadIdx.x == 0)
        arrived = 0;
    __syncthreads();
    atomicAdd(&arrived, 1);
    const float t = block_total(x[threadIdx.x]);
    if (threadIdx.x == 0)
        out[0] = t, out[1] = (float)arrived;
}
__global__ void scale_by(float *x, float s, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= s;
}
static void scale_by(float *x, float s, int n, int block) /* the launcher, named as its kernel */
{
    scale_by<<<(n + block - 1) / block, block>>>(x, s, n);
}
__global__ void set_to(int *p) { *p = 1; }
__global__ void set_to(int *p, int v) { *p = v; }
__device__ float d_pair[2];
__global__ void pair_kernel() { d_pair[0] += 2.0f, d_pair[1] += 3.0f; }
__global__ void intrinsics_kernel(float *f, unsigned *u, int *pred)
{
    const unsigned lane = threadIdx.x;
    const float a = __ldcs(f), b = __ldcg(f + 1);
    if (lane == 0) {
        __stcs(f + 2, a + b);
        __stcg(f + 3, __frcp_rn(4.0f) + normcdff(0.0f) + norm3df(1.0f, 2.0f, 2.0f));
        u[0] = __byte_perm(0x11223344u, 0x55667788u, 0x7351u);
        u[1] = __funnelshift_l(0x80000001u, 0x00000003u, 4);
        u[2] = __funnelshift_r(0x80000001u, 0x00000003u, 4);
        u[3] = (unsigned)(__brevll(0x1ull) >> 32);
        u[4] = __sad(-3, 5, 10u);
        u[5] = (unsigned)__dp4a(0x01FF0203, 0x0102FF04, 5);
        u[40] = __uhadd(0xffffffffu, 1u), u[41] = __urhadd(1u, 2u), u[42] = (unsigned)__rhadd(-3, 0);
        u[43] = (unsigned)__mul64hi(1ll << 62, 8);
        u[44] = (unsigned)__double2hiint(1.0), u[45] = (unsigned)__double2loint(1.0);
        float sp = -1, cp = -1;
        sincospif(0.5f, &sp, &cp);
        f[4] = (float)__hiloint2double(0x40000000, 0) + (float)__dsqrt_rn(2.25);
        f[6] = sp, f[7] = cp;
    }
    u[8 + lane] = __match_any_sync(0xffffffffu, lane % 3);
    /* a float's bits are matched, not its value: -0.0 is not 0.0, a NaN matches the same NaN */
    const unsigned zeros = __match_any_sync(0xffffffffu, lane < 16 ? 0.0f : -0.0f);
    const unsigned nans = __match_any_sync(0xffffffffu, lane % 2 ? __int_as_float(0x7fc00000) : 1.0f);
    if (lane == 1)
        u[46] = zeros, u[47] = nans;
    int all = -1;
    const unsigned same = __match_all_sync(0xffffffffu, 42, &all);
    const unsigned differ = __match_all_sync(0xffffffffu, lane, &pred[lane]);
    if (lane == 0)
        u[6] = same, u[7] = differ, pred[32] = all;
}
static void test_wild_idioms()
{
    float *x = NULL, *out = NULL;
    CUDA_OK(cudaMallocManaged(&x, 256 * sizeof(float)));
    CUDA_OK(cudaMallocManaged(&out, 2 * sizeof(float)));
    for (int i = 0; i < 256; ++i)
        x[i] = (float)(i % 7);
    total_kernel<<<1, 256>>>(x, out);
    CUDA_OK(cudaDeviceSynchronize());
    float want = 0;
    for (int i = 0; i < 256; ++i)
        want += (float)(i % 7);
    CHECK(out[0] == want && out[1] == 256.0f, "static __shared__ block sum %g, want %g; %g arrived", out[0], want,
          out[1]);
    scale_by(x, 2.0f, 256, 64);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(x[6] == 12.0f && x[255] == 2.0f * (255 % 7), "the kernel launched by its namesake: %g %g", x[6], x[255]);
    int *p = NULL;
    CUDA_OK(cudaMallocManaged(&p, 33 * sizeof(int)));
    set_to<<<1, 1>>>(p, 7);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(*p == 7, "set_to(p, 7) of two overloads: %d", *p);
    set_to<<<1, 1>>>(p);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(*p == 1, "set_to(p) of two overloads: %d", *p);

    float *d_addr = NULL, h[2] = {3.0f, 4.0f};
    CUDA_OK(cudaGetSymbolAddress((void **)&d_addr, d_pair));
    CUDA_OK(cudaMemcpy(d_addr, h, sizeof h, cudaMemcpyHostToDevice));
    pair_kernel<<<1, 1>>>();
    CUDA_OK(cudaMemcpy(h, d_addr, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 5.0f && h[1] == 7.0f, "a __device__ array through cudaGetSymbolAddress: %g %g", h[0], h[1]);

    cudaDeviceProp prop;
    int engines = -1, concurrent = -1;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    CUDA_OK(cudaDeviceGetAttribute(&engines, cudaDevAttrAsyncEngineCount, 0));
    CUDA_OK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentKernels, 0));
    CHECK(prop.asyncEngineCount == engines && prop.concurrentKernels == concurrent,
          "properties %d %d against attributes %d %d", prop.asyncEngineCount, prop.concurrentKernels, engines,
          concurrent);

    unsigned *u = NULL;
    CUDA_OK(cudaMallocManaged(&u, 48 * sizeof(unsigned)));
    x[0] = 1.5f, x[1] = 2.25f;
    intrinsics_kernel<<<1, 32>>>(x, u, p);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(x[2] == 3.75f, "__ldcs + __ldcg then __stcs: %g", x[2]);
    CHECK(std::fabs(x[3] - 3.75f) < 1e-6f, "__frcp_rn(4) + normcdff(0) + norm3df(1, 2, 2): %g, want 3.75", x[3]);
    /* selector 0x7351: bytes 1, 5, 3, 7 of y:x = 0x33, 0x77, 0x11, 0x55, low byte first */
    CHECK(u[0] == 0x55117733u, "__byte_perm %#x", u[0]);
    CHECK(u[1] == 0x38u && u[2] == 0x38000000u, "__funnelshift_l %#x, _r %#x", u[1], u[2]);
    CHECK(u[3] == 0x80000000u, "__brevll's high word %#x", u[3]);
    CHECK(u[4] == 18u, "__sad(-3, 5, 10) %u", u[4]);
    /* bytes (low first) 03 02 FF 01 and 04 FF 02 01: 12 - 2 - 2 + 1 + 5 */
    CHECK(u[5] == 14u, "__dp4a %d", (int)u[5]);
    CHECK(u[40] == 0x80000000u && u[41] == 2u && (int)u[42] == -1, "__uhadd %#x, __urhadd %u, __rhadd %d", u[40],
          u[41], (int)u[42]);
    CHECK(u[43] == 2u, "__mul64hi %u", u[43]);
    CHECK(u[44] == 0x3ff00000u && u[45] == 0u, "__double2hiint %#x, __double2loint %#x", u[44], u[45]);
    CHECK(x[4] == 3.5f, "__hiloint2double(0x40000000, 0) + __dsqrt_rn(2.25): %g", x[4]);
    CHECK(x[6] == 1.0f && std::fabs(x[7]) < 1e-7f, "sincospif(0.5): %g, %g", x[6], x[7]);
#ifdef GPUH_SIM /* deprecated: nvcc warns, and the tests build with warnings as errors */
    cudaSharedMemConfig bank = cudaSharedMemBankSizeDefault;
    CUDA_OK(cudaDeviceSetSharedMemConfig(cudaSharedMemBankSizeEightByte));
    CUDA_OK(cudaDeviceGetSharedMemConfig(&bank));
    CHECK(bank == cudaSharedMemBankSizeFourByte, "shared memory banks %d", (int)bank);
#endif
    bool match_ok = true;
    for (unsigned lane = 0; lane < 32; ++lane) {
        unsigned w = 0;
        for (unsigned o = 0; o < 32; ++o)
            w |= (o % 3 == lane % 3 ? 1u : 0u) << o;
        match_ok = match_ok && u[8 + lane] == w && p[lane] == 0;
    }
    CHECK(match_ok, "__match_any_sync, or __match_all_sync's predicate on unequal values");
    CHECK(u[6] == 0xffffffffu && p[32] == 1 && u[7] == 0u, "__match_all_sync %#x %d %#x", u[6], p[32], u[7]);
    CHECK(u[46] == 0x0000ffffu && u[47] == 0xaaaaaaaau, "__match_any_sync on 0.0 and -0.0: %#x; on NaN: %#x", u[46],
          u[47]);
    CUDA_OK(cudaFree(u));
    CUDA_OK(cudaFree(p));
    CUDA_OK(cudaFree(x));
    CUDA_OK(cudaFree(out));
}

/* ---- More of what public CUDA programs do: launches spelled as some
   editors' formatters leave them (nvcc reads << < and >> > as <<< and >>>,
   and a space may stand between a kernel and its template arguments), advice
   on managed memory (CUDA 13's cudaMemAdvise), and CUDA 13's cudaDeviceProp
   fields, which say what the attributes say. */
template <int step>
__global__ void add_step(int *p)
{
    p[threadIdx.x] += step;
}
static void test_wild_programs()
{
    int *p = NULL;
    CUDA_OK(cudaMallocManaged(&p, 64 * sizeof(int)));
    for (int i = 0; i < 64; ++i)
        p[i] = i;
    // clang-format off
    add_step <3><< <1, 64 >> >(p);
    add_step<4> << < 1, 32 >>> (p);
    // clang-format on
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(p[0] == 7 && p[31] == 38 && p[32] == 35 && p[63] == 66, "launches as << < >> >: %d %d %d %d", p[0], p[31],
          p[32], p[63]);

    cudaMemLocation device = {cudaMemLocationTypeDevice, 0}, host = {cudaMemLocationTypeHost, 0};
    CUDA_OK(cudaMemAdvise(p, 64 * sizeof(int), cudaMemAdviseSetPreferredLocation, device));
    CUDA_OK(cudaMemAdvise(p, 32 * sizeof(int), cudaMemAdviseSetPreferredLocation, host));
    CUDA_OK(cudaMemAdvise(p, 64 * sizeof(int), cudaMemAdviseSetAccessedBy, device));
    CUDA_OK(cudaMemAdvise(p, 64 * sizeof(int), cudaMemAdviseSetReadMostly, device));
    CUDA_OK(cudaMemAdvise(p, 64 * sizeof(int), cudaMemAdviseUnsetReadMostly, device));
    CUDA_OK(cudaMemAdvise(p, 64 * sizeof(int), cudaMemAdviseUnsetPreferredLocation, device));
    CUDA_OK(cudaMemAdvise(p, 64 * sizeof(int), cudaMemAdviseUnsetAccessedBy, device));
    add_step<1><<<1, 64>>>(p);
    CUDA_OK(cudaDeviceSynchronize());
    CHECK(p[0] == 8 && p[63] == 67, "managed memory after cudaMemAdvise: %d %d", p[0], p[63]);
    CUDA_OK(cudaFree(p));

    cudaEvent_t untimed = NULL, timed = NULL; /* cudaEventCreate with flags: the C++ API's overload */
    float ms = 0;
    CUDA_OK(cudaEventCreate(&untimed, cudaEventDisableTiming));
    CUDA_OK(cudaEventCreate(&timed, cudaEventDefault));
    CUDA_OK(cudaEventRecord(untimed));
    CUDA_OK(cudaEventRecord(timed));
    CUDA_OK(cudaEventSynchronize(timed));
    CHECK(cudaEventElapsedTime(&ms, untimed, timed) == cudaErrorInvalidResourceHandle,
          "an event made with cudaEventDisableTiming timed");
    (void)cudaGetLastError(); /* that error, recorded */
    CUDA_OK(cudaEventDestroy(untimed));
    CUDA_OK(cudaEventDestroy(timed));

    cudaDeviceProp prop;
    CUDA_OK(cudaGetDeviceProperties(&prop, 0));
    const struct {
        cudaDeviceAttr attr;
        long long field;
        const char *name;
    } same[] = {
        {cudaDevAttrTexturePitchAlignment, (long long)prop.texturePitchAlignment, "texturePitchAlignment"},
        {cudaDevAttrStreamPrioritiesSupported, prop.streamPrioritiesSupported, "streamPrioritiesSupported"},
        {cudaDevAttrGlobalL1CacheSupported, prop.globalL1CacheSupported, "globalL1CacheSupported"},
        {cudaDevAttrLocalL1CacheSupported, prop.localL1CacheSupported, "localL1CacheSupported"},
        {cudaDevAttrHostNativeAtomicSupported, prop.hostNativeAtomicSupported, "hostNativeAtomicSupported"},
        {cudaDevAttrCanUseHostPointerForRegisteredMem, prop.canUseHostPointerForRegisteredMem,
         "canUseHostPointerForRegisteredMem"},
        {cudaDevAttrDirectManagedMemAccessFromHost, prop.directManagedMemAccessFromHost,
         "directManagedMemAccessFromHost"},
        {cudaDevAttrReservedSharedMemoryPerBlock, (long long)prop.reservedSharedMemPerBlock,
         "reservedSharedMemPerBlock"},
        {cudaDevAttrHostRegisterSupported, prop.hostRegisterSupported, "hostRegisterSupported"},
        {cudaDevAttrMemoryPoolsSupported, prop.memoryPoolsSupported, "memoryPoolsSupported"},
        {cudaDevAttrHostNumaId, prop.hostNumaId, "hostNumaId"},
    };
    for (size_t k = 0; k < sizeof same / sizeof same[0]; ++k) {
        int value = -2;
        CUDA_OK(cudaDeviceGetAttribute(&value, same[k].attr, 0));
        CHECK(value == same[k].field, "cudaDeviceProp::%s %lld, the attribute %d", same[k].name, same[k].field, value);
    }
    int priorities = -1, least = 0, greatest = 0;
    CUDA_OK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    priorities = least != greatest;
    CHECK(prop.streamPrioritiesSupported == priorities, "streamPrioritiesSupported %d, priorities %d to %d",
          prop.streamPrioritiesSupported, least, greatest);
    bool uuid = false;
    for (int k = 0; k < 16; ++k)
        uuid = uuid || prop.uuid.bytes[k] != 0;
    CHECK(uuid, "cudaDeviceProp::uuid is all zero");
}

/* ---- Warp-synchronous code from before Volta: the last 32 sums of a
   shared-memory reduction through a volatile pointer, with no __syncwarp
   (Harris, "Optimizing Parallel Reduction in CUDA", kernel 6), and a
   statement whose lanes each read a neighbour's element before any writes
   its own. A converged warp runs each access for all its lanes together;
   the simulator takes volatile accesses in rounds, one per thread, to match. */
__device__ void last_warp_sum(volatile int *s, unsigned t)
{
    s[t] += s[t + 32];
    s[t] += s[t + 16];
    s[t] += s[t + 8];
    s[t] += s[t + 4];
    s[t] += s[t + 2];
    s[t] += s[t + 1];
}
__global__ void volatile_sum_kernel(const int *in, int *out, unsigned n)
{
    __shared__ int s[256];
    const unsigned t = threadIdx.x;
    int v = 0;
    for (unsigned i = blockIdx.x * 256 + t; i < n; i += 256 * gridDim.x)
        v += in[i];
    s[t] = v;
    __syncthreads();
    for (unsigned h = 128; h > 32; h >>= 1) {
        if (t < h)
            s[t] += s[t + h];
        __syncthreads();
    }
    if (t < 32)
        last_warp_sum(s, t);
    if (t == 0)
        out[blockIdx.x] = s[0];
}
__global__ void volatile_neighbour_kernel(int *out)
{
    __shared__ int s[32];
    volatile int *vs = s;
    const int t = threadIdx.x;
    s[t] = t * t;
    __syncwarp();
    vs[t] += vs[t ^ 1]; /* every lane's read of t ^ 1 comes before any lane's write */
    __syncwarp();
    out[t] = vs[t];
}
/* A volatile pointer to a struct: its members read and written as through
   any pointer; a pointer to const volatile moved along an array. */
__device__ float sum_of_x(const volatile float2 *p, int n)
{
    float s = 0.0f;
    while (n-- > 0)
        s += (p++)->x;
    return s;
}
__global__ void volatile_struct_kernel(float2 *p)
{
    volatile float2 *v = p;
    const int t = threadIdx.x;
    v[t].x = v[t].x + 1.0f;
    v[t].y = 2.0f * t;
    __syncthreads();
    if (t == 0)
        v[0].y = sum_of_x(p, 32);
}
static void test_warp_synchronous()
{
    const unsigned n = 100003, blocks = 7;
    int *in = NULL, *out = NULL;
    CUDA_OK(cudaMallocManaged(&in, n * sizeof(int)));
    CUDA_OK(cudaMallocManaged(&out, 32 * sizeof(int)));
    std::mt19937 gen(std::random_device{}());
    long long want = 0, got = 0;
    for (unsigned i = 0; i < n; ++i)
        want += in[i] = static_cast<int>(gen() % 2001) - 1000;
    volatile_sum_kernel<<<blocks, 256>>>(in, out, n);
    CUDA_OK(cudaDeviceSynchronize());
    for (unsigned b = 0; b < blocks; ++b)
        got += out[b];
    CHECK(got == want, "volatile warp-synchronous sum %lld, want %lld", got, want);
    volatile_neighbour_kernel<<<1, 32>>>(out);
    CUDA_OK(cudaDeviceSynchronize());
    int bad = 0;
    for (int t = 0; t < 32; ++t)
        bad += out[t] != t * t + (t ^ 1) * (t ^ 1);
    CHECK(bad == 0, "volatile neighbour sums: %d lanes wrong (lane 1: %d, want %d)", bad, out[1], 1 + 0);
    float2 *pairs = NULL;
    CUDA_OK(cudaMallocManaged(&pairs, 32 * sizeof(float2)));
    for (int t = 0; t < 32; ++t)
        pairs[t] = make_float2(static_cast<float>(t), -1.0f);
    volatile_struct_kernel<<<1, 32>>>(pairs);
    CUDA_OK(cudaDeviceSynchronize());
    bad = 0;
    for (int t = 0; t < 32; ++t)
        bad += pairs[t].x != static_cast<float>(t + 1) || pairs[t].y != (t == 0 ? 528.0f : 2.0f * t);
    CHECK(bad == 0, "members through a volatile float2 pointer: %d wrong", bad);
    CUDA_OK(cudaFree(pairs));
    CUDA_OK(cudaFree(in));
    CUDA_OK(cudaFree(out));
}

/* ---- The SIMD video intrinsics (CUDA Math API, "SIMD Intrinsics"), the
   vector forms of __dp4a and __dp2a, and __fns, against their bitwise
   definitions computed here lane by lane. */
enum { SIMD_OPS = 26 };
__global__ void simd_kernel(const unsigned *a, const unsigned *b, unsigned *out, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const unsigned x = a[i], y = b[i];
    unsigned *o = out + (size_t)i * SIMD_OPS;
    o[0] = __vadd2(x, y), o[1] = __vadd4(x, y), o[2] = __vsub2(x, y), o[3] = __vsub4(x, y);
    o[4] = __vabsdiffu2(x, y), o[5] = __vabsdiffu4(x, y), o[6] = __vabsdiffs2(x, y), o[7] = __vabsdiffs4(x, y);
    o[8] = __vavgu2(x, y), o[9] = __vavgu4(x, y), o[10] = __vcmpeq2(x, y), o[11] = __vcmpeq4(x, y);
    o[12] = __vmaxu4(x, y), o[13] = __vminu4(x, y), o[14] = __vsads2(x, y), o[15] = __vsads4(x, y);
    o[16] = __vaddss4(x, y), o[17] = __vsubus2(x, y), o[18] = __vcmplts4(x, y), o[19] = __vsetgeu2(x, y);
    o[20] = __vabsss4(x), o[21] = __vneg2(x), o[22] = __vmaxs2(x, y);
    char4 c = make_char4((signed char)x, (signed char)(x >> 8), (signed char)(x >> 16), (signed char)(x >> 24));
    char4 d = make_char4((signed char)y, (signed char)(y >> 8), (signed char)(y >> 16), (signed char)(y >> 24));
    o[23] = (unsigned)__dp4a(c, d, (int)i);
    o[24] = (unsigned)__dp2a_lo((int)x, (int)y, 7) ^ (unsigned)__dp2a_hi(x, y, 3u);
    o[25] = __fns(x, y & 31u, (int)(y >> 8 & 15u) - 8);
}
/* lane l of v, B bits wide, as unsigned and as signed */
static long long lane_u(unsigned v, int B, int l) { return v >> (l * B) & ((1u << B) - 1u); }
static long long lane_s(unsigned v, int B, int l)
{
    const long long u = lane_u(v, B, l);
    return u >= (1ll << (B - 1)) ? u - (1ll << B) : u;
}
template <class F> static unsigned lanes(unsigned x, unsigned y, int B, F f)
{
    unsigned r = 0;
    for (int l = 0; l < 32 / B; ++l)
        r |= ((unsigned)f(lane_u(x, B, l), lane_u(y, B, l), lane_s(x, B, l), lane_s(y, B, l), B) & ((1u << B) - 1u))
             << (l * B);
    return r;
}
static void simd_reference(unsigned x, unsigned y, int i, unsigned *o)
{
    typedef long long L;
    auto add = [](L u, L v, L, L, int) { return u + v; };
    auto sub = [](L u, L v, L, L, int) { return u - v; };
    auto adu = [](L u, L v, L, L, int) { return u > v ? u - v : v - u; };
    auto ads = [](L, L, L s, L t, int) { return s > t ? s - t : t - s; };
    auto avg = [](L u, L v, L, L, int) { return (u + v + 1) / 2; };
    auto eq = [](L u, L v, L, L, int) { return u == v ? -1ll : 0ll; };
    auto sat = [](L v, int B) {
        const L hi = (1ll << (B - 1)) - 1, lo = -(1ll << (B - 1));
        return v > hi ? hi : v < lo ? lo : v;
    };
    o[0] = lanes(x, y, 16, add), o[1] = lanes(x, y, 8, add), o[2] = lanes(x, y, 16, sub), o[3] = lanes(x, y, 8, sub);
    o[4] = lanes(x, y, 16, adu), o[5] = lanes(x, y, 8, adu), o[6] = lanes(x, y, 16, ads), o[7] = lanes(x, y, 8, ads);
    o[8] = lanes(x, y, 16, avg), o[9] = lanes(x, y, 8, avg), o[10] = lanes(x, y, 16, eq), o[11] = lanes(x, y, 8, eq);
    o[12] = lanes(x, y, 8, [](L u, L v, L, L, int) { return u > v ? u : v; });
    o[13] = lanes(x, y, 8, [](L u, L v, L, L, int) { return u < v ? u : v; });
    o[14] = o[15] = 0;
    for (int l = 0; l < 2; ++l)
        o[14] += (unsigned)std::llabs(lane_s(x, 16, l) - lane_s(y, 16, l));
    for (int l = 0; l < 4; ++l)
        o[15] += (unsigned)std::llabs(lane_s(x, 8, l) - lane_s(y, 8, l));
    o[16] = lanes(x, y, 8, [&](L, L, L s, L t, int B) { return sat(s + t, B); });
    o[17] = lanes(x, y, 16, [](L u, L v, L, L, int) { return u > v ? u - v : 0; });
    o[18] = lanes(x, y, 8, [](L, L, L s, L t, int) { return s < t ? -1ll : 0ll; });
    o[19] = lanes(x, y, 16, [](L u, L v, L, L, int) { return u >= v ? 1ll : 0ll; });
    o[20] = lanes(x, 0, 8, [&](L, L, L s, L, int B) { return sat(s < 0 ? -s : s, B); });
    o[21] = lanes(x, 0, 16, [](L, L, L s, L, int) { return -s; });
    o[22] = lanes(x, y, 16, [](L, L, L s, L t, int) { return s > t ? s : t; });
    int dp = i;
    for (int l = 0; l < 4; ++l)
        dp += (int)(lane_s(x, 8, l) * lane_s(y, 8, l));
    o[23] = (unsigned)dp;
    const int lo = (int)(7 + lane_s(x, 16, 0) * lane_s(y, 8, 0) + lane_s(x, 16, 1) * lane_s(y, 8, 1));
    const unsigned hi = (unsigned)(3 + lane_u(x, 16, 0) * lane_u(y, 8, 2) + lane_u(x, 16, 1) * lane_u(y, 8, 3));
    o[24] = (unsigned)lo ^ hi;
    const unsigned base = y & 31u;
    const int offset = (int)(y >> 8 & 15u) - 8;
    unsigned found = 0xffffffffu;
    if (offset == 0)
        found = (x >> base & 1u) ? base : found;
    for (int pos = (int)base, left = std::abs(offset); offset != 0 && pos >= 0 && pos < 32; pos += offset > 0 ? 1 : -1)
        if ((x >> pos & 1u) && --left == 0) {
            found = (unsigned)pos;
            break;
        }
    o[25] = found;
}
static void test_simd_intrinsics()
{
    const int n = 4096;
    std::vector<unsigned> a(n), b(n), out(n * SIMD_OPS), want(SIMD_OPS);
    const unsigned edges[] = {0u, 0xffffffffu, 0x80008000u, 0x7fff7fffu, 0x80808080u, 0x7f7f7f7fu, 0x00010001u};
    for (int i = 0; i < n; ++i) {
        a[i] = i < 49 ? edges[i % 7] : (unsigned)rng();
        b[i] = i < 49 ? edges[i / 7] : (unsigned)rng();
    }
    unsigned *d = NULL;
    CUDA_OK(cudaMalloc(&d, (2 * n + n * SIMD_OPS) * sizeof(unsigned)));
    CUDA_OK(cudaMemcpy(d, a.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    CUDA_OK(cudaMemcpy(d + n, b.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    simd_kernel<<<(n + 127) / 128, 128>>>(d, d + n, d + 2 * n, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(out.data(), d + 2 * n, out.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        simd_reference(a[i], b[i], i, want.data());
        for (int k = 0; k < SIMD_OPS; ++k)
            if (out[(size_t)i * SIMD_OPS + k] != want[k] && bad++ < 5)
                printf("  SIMD op %d of (%08x, %08x): %08x, want %08x\n", k, a[i], b[i], out[(size_t)i * SIMD_OPS + k],
                       want[k]);
    }
    CHECK(bad == 0, "%d SIMD, dp4a/dp2a or __fns results differ from their bitwise definitions", bad);
    CUDA_OK(cudaFree(d));
}

/* ---- erfinv, erfcinv, normcdfinv and the modified Bessel functions I0 and
   I1 (CUDA Math API), within their documented error: the inverses checked
   through the host's erf/erfc, the Bessel functions against their series. */
__global__ void special_kernel(const double *y, float *f, double *g, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    f[6 * i + 0] = erfcinvf((float)y[i]), g[6 * i + 0] = erfcinv(y[i]);
    f[6 * i + 1] = erfinvf((float)y[i] - 1.0f), g[6 * i + 1] = erfinv(y[i] - 1.0);
    f[6 * i + 2] = normcdfinvf((float)y[i] / 2.0f), g[6 * i + 2] = normcdfinv(y[i] / 2.0);
    const double x = (y[i] - 1.0) * 40.0;
    f[6 * i + 3] = cyl_bessel_i0f((float)x), g[6 * i + 3] = cyl_bessel_i0(x);
    f[6 * i + 4] = cyl_bessel_i1f((float)x), g[6 * i + 4] = cyl_bessel_i1(x);
}
static double bessel_series(double x, int order)
{
    long double term = order == 0 ? 1.0L : x / 2.0L, sum = term;
    for (int k = 1; k < 400; ++k)
        term *= (long double)x * x / 4.0L / ((long double)k * (k + order)), sum += term;
    return (double)sum;
}
static void test_special_functions()
{
    const int n = 200;
    std::vector<double> y(n), g(6 * n);
    std::vector<float> f(6 * n);
    for (int i = 0; i < n; ++i)
        y[i] = i == 0 ? 1e-30 : i == 1 ? 1e-9 : (double)(float)((i - 1) / (double)(n - 1) * 2.0 * 0.999);
    double *yd = NULL, *gd = NULL;
    float *fd = NULL;
    CUDA_OK(cudaMalloc(&yd, n * sizeof(double)));
    CUDA_OK(cudaMalloc(&gd, 6 * n * sizeof(double)));
    CUDA_OK(cudaMalloc(&fd, 6 * n * sizeof(float)));
    CUDA_OK(cudaMemcpy(yd, y.data(), n * sizeof(double), cudaMemcpyHostToDevice));
    special_kernel<<<(n + 63) / 64, 64>>>(yd, fd, gd, n);
    CUDA_OK(cudaGetLastError());
    CUDA_OK(cudaMemcpy(f.data(), fd, f.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(g.data(), gd, g.size() * sizeof(double), cudaMemcpyDeviceToHost));
    int bad = 0;
    auto near = [&](double got, double want, double tol, const char *what, int i) {
        if (!(std::fabs(got - want) <= tol * std::fabs(want) + 1e-300) && bad++ < 5)
            printf("  %s at %d (y = %.17g): %.17g, want %.17g\n", what, i, y[i], got, want);
    };
    for (int i = 0; i < n; ++i) {
        const double yf = (float)y[i];
        if (yf > 0) {
            near(std::erfc((double)f[6 * i + 0]), yf, 1e-5 + 1e-6 * f[6 * i] * f[6 * i], "erfcinvf", i);
            near(std::erfc(g[6 * i + 0]), y[i], 1e-13 * (1 + 2 * g[6 * i] * g[6 * i]), "erfcinv", i);
            near(std::erf(g[6 * i + 1]), y[i] - 1.0, 1e-13 * (1 + 2 * g[6 * i + 1] * g[6 * i + 1]), "erfinv", i);
            near(0.5 * std::erfc(-g[6 * i + 2] / std::sqrt(2.0)), y[i] / 2.0, 1e-13 * (1 + g[6 * i + 2] * g[6 * i + 2]),
                 "normcdfinv", i);
        }
        const double x = (y[i] - 1.0) * 40.0, xf = (float)x;
        near(f[6 * i + 3], bessel_series(xf, 0), 1e-6, "cyl_bessel_i0f", i);
        near(f[6 * i + 4], bessel_series(xf, 1), 1e-6, "cyl_bessel_i1f", i);
        near(g[6 * i + 3], bessel_series(x, 0), 1e-14, "cyl_bessel_i0", i);
        near(g[6 * i + 4], bessel_series(x, 1), 1e-14, "cyl_bessel_i1", i);
    }
    CHECK(bad == 0, "%d results of erfinv, erfcinv, normcdfinv or cyl_bessel_i0/i1 are out of tolerance", bad);
    CUDA_OK(cudaFree(yd));
    CUDA_OK(cudaFree(gd));
    CUDA_OK(cudaFree(fd));
}

int main(int argc, char **argv)
{
    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("no CUDA device: skipped\n");
        return 77;
    }
    if (argc > 1)
        return diagnostic(argv[1]);
    CHECK(host_names() == 14, "host variables named blockDim and threadIdx");
    test_symbols();
    test_launch_syntax();
    test_bit_atomics();
    test_argument_copies();
    test_kernel_forms();
    test_template_launches();
    test_groups();
    test_textures();
    test_half();
    test_clock();
    test_wild_idioms();
    test_wild_programs();
    test_warp_synchronous();
    test_simd_intrinsics();
    test_special_functions();
    printf("test_sim_cuda: %s (%d failures)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}
