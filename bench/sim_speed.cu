/* sim_speed.cu: what the CPU simulator spends per simulated thread, per
   barrier, per warp operation and per atomic, and on a grid-stride copy, the
   costs that decide how long a real CUDA program runs on it. Plain CUDA:
   build it with tools/gpuh-simcc (or nvcc, where the figures mean nothing).

       tools/gpuh-simcc bench/sim_speed.cu -o sim_speed && ./sim_speed

   Each case prints the process's CPU time and nanoseconds of it per unit of
   work (the median of 5 runs), and checks its result, so that a faster
   simulator cannot be a wrong one.
   Figures: bench/results/sim_speed.md. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>

#include <cuda_runtime.h>

static int failures = 0;

/* Per thread: start, one load, one store, exit. */
__global__ void start_kernel(const int *g_in, int *g_out, int n)
{
    const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    if (i < n)
        g_out[i] = g_in[i] + 1;
}
/* Per thread: `rounds` barriers, a shared-memory exchange between them. */
__global__ void barrier_kernel(int *g_out, int rounds)
{
    __shared__ int s[256];
    const int t = static_cast<int>(threadIdx.x);
    int v = t;
    for (int r = 0; r < rounds; ++r) {
        s[t] = v;
        __syncthreads();
        v += s[(t + 1) % blockDim.x];
        __syncthreads();
    }
    g_out[blockIdx.x * blockDim.x + t] = v;
}
/* Per thread: `rounds` warp sums of five shuffles each. */
__global__ void shuffle_kernel(int *g_out, int rounds)
{
    int v = static_cast<int>(threadIdx.x & 31);
    for (int r = 0; r < rounds; ++r)
        for (int o = 16; o > 0; o /= 2)
            v += __shfl_xor_sync(0xffffffffu, v, o) & 1;
    g_out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
/* Per byte: a shared-memory histogram with atomics, then one global atomic per bin. */
__global__ void histogram_kernel(const unsigned char *g_in, unsigned int *g_bins, int n)
{
    __shared__ unsigned int s_bins[256];
    s_bins[threadIdx.x] = 0;
    __syncthreads();
    for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&s_bins[g_in[i]], 1u);
    __syncthreads();
    atomicAdd(&g_bins[threadIdx.x], s_bins[threadIdx.x]);
}
/* Per thread: `rounds` atomicAdd on int and on float bins of shared memory
   (no global memory in the loop: the atomics' own cost); each bin's float
   sum is a whole number below 2^24, so it equals the bin's count exactly. */
__global__ void shared_atomic_kernel(unsigned int *g_bins, float *g_sums, int rounds)
{
    __shared__ unsigned int s_bins[256];
    __shared__ float s_sum[256];
    s_bins[threadIdx.x] = 0;
    s_sum[threadIdx.x] = 0.0f;
    __syncthreads();
    unsigned int x = threadIdx.x * 2654435761u;
    for (int r = 0; r < rounds; ++r) {
        x = x * 1664525u + 1013904223u;
        atomicAdd(&s_bins[x >> 24], 1u);
        atomicAdd(&s_sum[x >> 24], 1.0f);
    }
    __syncthreads();
    atomicAdd(&g_bins[threadIdx.x], s_bins[threadIdx.x]);
    atomicAdd(&g_sums[threadIdx.x], s_sum[threadIdx.x]);
}
/* Per byte: a grid-stride copy of bytes (each thread's accesses lie a whole grid apart). */
__global__ void stride_copy_kernel(unsigned char *g_out, const unsigned char *g_in, int n)
{
    for (int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += blockDim.x * gridDim.x)
        g_out[i] = g_in[i];
}

/* Process CPU time (every host thread), in ms: on a machine shared with other
   work, the wall clock says more about the neighbours than about the simulator. */
static double cpu_ms()
{
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Runs run() 5 times; the median CPU time. */
template <class F> static double median_ms(F run)
{
    std::vector<double> ms;
    for (int k = 0; k < 5; ++k) {
        const double t0 = cpu_ms();
        run();
        cudaDeviceSynchronize();
        ms.push_back(cpu_ms() - t0);
    }
    std::sort(ms.begin(), ms.end());
    return ms[2];
}

static void report(const char *what, double ms, double units, const char *unit, bool ok)
{
    printf("%-46s %8.1f ms CPU %8.2f ns per %s  %s\n", what, ms, ms * 1e6 / units, unit, ok ? "ok" : "WRONG");
    failures += !ok;
}

int main()
{
    const int n = 1 << 22, blocks = 512, rounds = 32, bytes = 1 << 26;
    int *d_in = NULL, *d_out = NULL;
    unsigned char *d_bytes = NULL;
    unsigned int *d_bins = NULL;
    cudaMalloc(&d_in, n * sizeof(int));
    cudaMalloc(&d_out, n * sizeof(int));
    cudaMalloc(&d_bytes, 2 * static_cast<size_t>(bytes));
    cudaMalloc(&d_bins, 256 * sizeof(unsigned int));
    std::vector<int> h(n);
    std::vector<unsigned char> hb(bytes);
    unsigned int seed = static_cast<unsigned int>(std::chrono::steady_clock::now().time_since_epoch().count());
    for (int i = 0; i < n; ++i)
        h[i] = static_cast<int>((seed = seed * 1664525u + 1013904223u) >> 8);
    for (int i = 0; i < bytes; ++i)
        hb[i] = static_cast<unsigned char>((seed = seed * 1664525u + 1013904223u) >> 24);
    cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_bytes, hb.data(), bytes, cudaMemcpyHostToDevice);

    double ms = median_ms([&] { start_kernel<<<n / 256, 256>>>(d_in, d_out, n); });
    std::vector<int> o(n);
    cudaMemcpy(o.data(), d_out, n * sizeof(int), cudaMemcpyDeviceToHost);
    bool ok = true;
    for (int i = 0; i < n; ++i)
        ok = ok && o[i] == h[i] + 1;
    report("thread start (4M threads, 256 per block)", ms, n, "thread", ok);

    ms = median_ms([&] { barrier_kernel<<<blocks, 256>>>(d_out, rounds); });
    cudaMemcpy(o.data(), d_out, blocks * 256 * sizeof(int), cudaMemcpyDeviceToHost);
    ok = true;
    for (int t = 0; t < 256; ++t) { /* v_r+1(t) = v_r(t) + v_r(t + 1): binomial sums of t .. t + rounds */
        std::vector<long long> v(256);
        for (int k = 0; k < 256; ++k)
            v[k] = k;
        for (int r = 0; r < rounds; ++r) {
            std::vector<long long> w(256);
            for (int k = 0; k < 256; ++k)
                w[k] = v[k] + v[(k + 1) % 256];
            v = w;
        }
        for (int b = 0; b < blocks; b += 97)
            ok = ok && o[b * 256 + t] == static_cast<int>(v[t]);
    }
    report("__syncthreads (512 blocks x 256 threads x 64)", ms, 2.0 * rounds * blocks * 256, "thread-barrier", ok);

    ms = median_ms([&] { shuffle_kernel<<<blocks, 256>>>(d_out, rounds); });
    cudaMemcpy(o.data(), d_out, blocks * 256 * sizeof(int), cudaMemcpyDeviceToHost);
    ok = true;
    { /* every lane adds the low bit of its partner's value, five partners a round */
        std::vector<int> lanes(32);
        for (int l = 0; l < 32; ++l)
            lanes[l] = l;
        for (int r = 0; r < rounds; ++r)
            for (int off = 16; off > 0; off /= 2) {
                std::vector<int> next(32);
                for (int l = 0; l < 32; ++l)
                    next[l] = lanes[l] + (lanes[l ^ off] & 1);
                lanes = next;
            }
        for (int i = 0; i < blocks * 256; ++i)
            ok = ok && o[i] == lanes[i & 31];
    }
    report("__shfl_xor_sync (512 x 256 threads x 160)", ms, 5.0 * rounds * blocks * 256, "thread-shuffle", ok);

    std::vector<unsigned int> want(256, 0), bins(256);
    for (int i = 0; i < bytes; ++i)
        ++want[hb[i]];
    ms = median_ms([&] {
        cudaMemset(d_bins, 0, 256 * sizeof(unsigned int));
        histogram_kernel<<<64, 256>>>(d_bytes, d_bins, bytes);
    });
    cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    report("shared-memory histogram (64 MiB, atomics)", ms, bytes, "byte", bins == want);

    float *d_sums = NULL;
    cudaMalloc(&d_sums, 256 * sizeof(float));
    const int atomic_rounds = 1024;
    ms = median_ms([&] {
        cudaMemset(d_bins, 0, 256 * sizeof(unsigned int));
        cudaMemset(d_sums, 0, 256 * sizeof(float));
        shared_atomic_kernel<<<blocks, 256>>>(d_bins, d_sums, atomic_rounds);
    });
    std::vector<float> sums(256);
    cudaMemcpy(bins.data(), d_bins, 256 * sizeof(unsigned int), cudaMemcpyDeviceToHost);
    cudaMemcpy(sums.data(), d_sums, 256 * sizeof(float), cudaMemcpyDeviceToHost);
    unsigned long long counted = 0;
    ok = true;
    for (int i = 0; i < 256; ++i) {
        counted += bins[i];
        ok = ok && sums[i] == static_cast<float>(bins[i]);
    }
    const double atomics = 2.0 * blocks * 256 * atomic_rounds;
    report("shared-memory atomics (int, float; 512 x 256)", ms, atomics, "atomic",
           ok && counted == static_cast<unsigned long long>(blocks) * 256 * atomic_rounds);
    cudaFree(d_sums);

    ms = median_ms([&] { stride_copy_kernel<<<64, 256>>>(d_bytes + bytes, d_bytes, bytes); });
    std::vector<unsigned char> back(bytes);
    cudaMemcpy(back.data(), d_bytes + bytes, bytes, cudaMemcpyDeviceToHost);
    report("grid-stride byte copy (64 MiB, 64 x 256)", ms, bytes, "byte", back == hb);

    cudaFree(d_in);
    cudaFree(d_out);
    cudaFree(d_bytes);
    cudaFree(d_bins);
    printf("sim_speed: %s\n", failures ? "FAIL" : "PASS");
    return failures ? 1 : 0;
}
