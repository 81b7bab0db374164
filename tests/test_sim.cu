/* test_sim.cu - the CPU simulator's semantics (gpuh_sim.h), checked against
   plain C expectations: warp shuffles (all four kinds, with widths), votes,
   __syncthreads_count/_and/_or, atomics contended by many blocks, a
   spin-wait with __nanosleep on another thread of the block, barriers and
   warp operations after some threads have exited, 24 blocks that wait
   for each other (all resident, as on a GPU), explicit float-to-integer
   casts out of range (saturating, as PTX's cvt.rzi), the
   launch-configuration errors of CUDA 13 (none sticky), and the host
   runtime's memory (device, managed, pinned, registered, stream-ordered),
   stream, event and host-function calls, absurd sizes (range checks that
   must not wrap), freed pointers, stream and event handles destroyed twice
   or made up, 400 KiB of local memory per thread, and launches from four
   host threads at once. The same file builds for a GPU
   (nvcc; CTest gpu.sim_semantics), where it checks the expectations
   themselves against the hardware; checks of what only the simulator defines
   (its device name, its memory accounting, its copy checks) are under
   #ifdef GPUH_SIM. It uses <<< >>>, so the simulator build goes through
   tools/gpuh-simcc:
       tools/gpuh-simcc -DGPUH_USE_CURAND -Itests tests/test_sim.cu -o test_sim
       nvcc -std=c++17 -arch=sm_90 -DGPUH_USE_CURAND -I. tests/test_sim.cu -lcurand
   Inputs are fresh random numbers (GPUH_SEED repeats a run); outputs are
   poisoned before every launch. */
#include "gpuh_test.h"
#include <climits>
#include <limits>
#include <thread>
#include <type_traits>
#include <vector>

#ifdef GPUH_SIM
/* The built-in variables are thread-local objects, as CUDA's are objects: a
   reference would be read through its initialiser's call at every use, which
   keeps a grid-stride loop from loading blockDim and gridDim once. */
static_assert(!std::is_reference<decltype(threadIdx)>::value && !std::is_reference<decltype(blockIdx)>::value &&
                  !std::is_reference<decltype(blockDim)>::value && !std::is_reference<decltype(gridDim)>::value,
              "threadIdx, blockIdx, blockDim and gridDim are objects, not references");
#endif

enum { WARP_OUTS = 12 };

/* Each thread does every warp operation on its value v = g_in[i] and writes
   the results to g_out[i * WARP_OUTS + k]. Grid: 1 block of any multiple of 32. */
__global__ void warp_ops_kernel(const int *g_in, int *g_out, double *g_dout)
{
    const unsigned full = 0xffffffffu;
    const int i = threadIdx.x, lane = i % 32;
    const int v = g_in[i];
    int *o = g_out + i * WARP_OUTS;
    o[0] = __shfl_sync(full, v, (lane * 7 + 3) % 32);
    o[1] = __shfl_up_sync(full, v, 3);
    o[2] = __shfl_down_sync(full, v, 5);
    o[3] = __shfl_xor_sync(full, v, 9);
    o[4] = __shfl_sync(full, v, 2, 8);       /* lane 2 of each group of 8 */
    o[5] = __shfl_down_sync(full, v, 3, 8);  /* stays inside the group of 8 */
    o[6] = __shfl_xor_sync(full, v, 12, 8);  /* a later group of 8 is out of reach: own value */
    o[7] = static_cast<int>(__ballot_sync(full, v & 1));
    o[8] = __any_sync(full, v > 1000);
    o[9] = __all_sync(full, v >= 0);
    if (lane < 16) /* two half-warps, each with its own mask */
        o[10] = __shfl_sync(0x0000ffffu, v, 15);
    else
        o[10] = __shfl_sync(0xffff0000u, v, 16);
    __syncwarp();
    o[11] = static_cast<int>(__activemask());
    g_dout[i] = __shfl_down_sync(full, 0.5 * v, 1); /* 8-byte values move whole */
}

/* What warp_ops_kernel must write, lane by lane, computed in plain C. */
static void warp_ops_expect(const int *in, int n, int *out, double *dout)
{
    for (int i = 0; i < n; ++i) {
        const int w = i / 32 * 32, lane = i % 32;
        int *o = out + i * WARP_OUTS;
        unsigned ballot = 0;
        int any = 0, all = 1;
        for (int k = 0; k < 32; ++k) {
            ballot |= static_cast<unsigned>(in[w + k] & 1) << k;
            any |= in[w + k] > 1000;
            all &= in[w + k] >= 0;
        }
        o[0] = in[w + (lane * 7 + 3) % 32];
        o[1] = lane >= 3 ? in[i - 3] : in[i];
        o[2] = lane + 5 < 32 ? in[i + 5] : in[i];
        o[3] = in[w + (lane ^ 9)];
        o[4] = in[w + lane / 8 * 8 + 2];
        o[5] = lane % 8 + 3 < 8 ? in[i + 3] : in[i];
        o[6] = (lane ^ 12) >= (lane / 8 + 1) * 8 ? in[i] : in[w + (lane ^ 12)];
        o[7] = static_cast<int>(ballot);
        o[8] = any;
        o[9] = all;
        o[10] = lane < 16 ? in[w + 15] : in[w + 16];
        o[11] = -1;
        dout[i] = 0.5 * (lane + 1 < 32 ? in[i + 1] : in[i]);
    }
}

static void test_warp_ops(unsigned long long *rng)
{
    const int n = 96; /* three warps */
    int h_in[n], h_out[n * WARP_OUTS], want[n * WARP_OUTS];
    double h_dout[n], dwant[n];
    for (int i = 0; i < n; ++i)
        h_in[i] = static_cast<int>(gpuh_test_next(rng) % 2001) - (i == 40 ? 2000 : 0); /* warp 1 has a negative */
    warp_ops_expect(h_in, n, want, dwant);
    int *d_in = NULL, *d_out = NULL;
    double *d_dout = NULL;
    TEST_CUDA(gpuh_to_device(&d_in, h_in, n));
    TEST_CUDA(gpuh_device_array(&d_out, n * WARP_OUTS));
    TEST_CUDA(gpuh_device_array(&d_dout, n));
    TEST_CUDA(cudaMemset(d_out, 0xAB, n * WARP_OUTS * sizeof(int))); /* poison */
    TEST_CUDA(cudaMemset(d_dout, 0xAB, n * sizeof(double)));
    warp_ops_kernel<<<1, n>>>(d_in, d_out, d_dout);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h_out, d_out, n * WARP_OUTS));
    TEST_CUDA(gpuh_copy_to_host(h_dout, d_dout, n));
    static const char *what[WARP_OUTS] = {"shfl",        "shfl_up",     "shfl_down", "shfl_xor",
                                          "shfl width 8", "down width 8", "xor width 8", "ballot",
                                          "any",         "all",         "half-warp masks", "activemask"};
    int bad[WARP_OUTS] = {0}, dbad = 0;
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < WARP_OUTS; ++k)
            bad[k] += h_out[i * WARP_OUTS + k] != want[i * WARP_OUTS + k];
        dbad += h_dout[i] != dwant[i];
    }
    for (int k = 0; k < WARP_OUTS; ++k)
        TEST_ASSERT(bad[k] == 0, "%s: %d of %d lanes wrong", what[k], bad[k], n);
    TEST_ASSERT(dbad == 0, "__shfl_down_sync of a double: %d of %d lanes wrong", dbad, n);
    gpuh_free(d_in);
    gpuh_free(d_out);
    gpuh_free(d_dout);
}

/* Block-wide votes: g_out[3 * block + {0,1,2}] = count, and, or of (g_in[i] odd). */
__global__ void block_votes_kernel(const int *g_in, int *g_out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int odd = g_in[i] & 1;
    const int count = __syncthreads_count(odd);
    const int all = __syncthreads_and(odd);
    const int any = __syncthreads_or(odd);
    if (threadIdx.x == 0) {
        g_out[3 * blockIdx.x] = count;
        g_out[3 * blockIdx.x + 1] = all;
        g_out[3 * blockIdx.x + 2] = any;
    }
}

static void test_block_votes(unsigned long long *rng)
{
    const int blocks = 5, threads = 200, n = blocks * threads;
    int h_in[n], h_out[3 * blocks];
    for (int i = 0; i < n; ++i)
        h_in[i] = static_cast<int>(gpuh_test_next(rng) % 1000);
    for (int i = 0; i < threads; ++i) {
        h_in[i] |= 1;             /* block 0: all odd */
        h_in[threads + i] &= ~1;  /* block 1: all even */
    }
    int *d_in = NULL, *d_out = NULL;
    TEST_CUDA(gpuh_to_device(&d_in, h_in, n));
    TEST_CUDA(gpuh_device_array(&d_out, 3 * blocks));
    TEST_CUDA(cudaMemset(d_out, 0xAB, sizeof h_out));
    block_votes_kernel<<<blocks, threads>>>(d_in, d_out);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h_out, d_out, 3 * blocks));
    for (int b = 0; b < blocks; ++b) {
        int count = 0;
        for (int t = 0; t < threads; ++t)
            count += h_in[b * threads + t] & 1;
        TEST_ASSERT(h_out[3 * b] == count && h_out[3 * b + 1] == (count == threads) &&
                        h_out[3 * b + 2] == (count > 0),
                    "block %d: count/and/or %d %d %d, expected %d %d %d", b, h_out[3 * b], h_out[3 * b + 1],
                    h_out[3 * b + 2], count, count == threads, count > 0);
    }
    gpuh_free(d_in);
    gpuh_free(d_out);
}

/* Every thread adds its value into shared counters of every atomic type. */
struct counters {
    int sum_i, min_i, max_i, exch_hits, cas_wins, sub_i;
    unsigned sum_u;
    unsigned long long sum_ull;
    float sum_f;
    double sum_d;
};
__global__ void atomics_kernel(const int *g_in, size_t n, counters *c, int *g_slot)
{
    const size_t i = gpuh_global_index();
    if (i >= n)
        return;
    const int v = g_in[i];
    atomicAdd(&c->sum_i, v);
    atomicSub(&c->sub_i, v);
    atomicAdd(&c->sum_u, static_cast<unsigned>(v));
    atomicAdd(&c->sum_ull, static_cast<unsigned long long>(v) << 20);
    atomicAdd(&c->sum_f, static_cast<float>(v)); /* small integers: every partial sum is exact */
    atomicAdd(&c->sum_d, 0.25 * v);
    atomicMin(&c->min_i, v);
    atomicMax(&c->max_i, v);
    if (atomicCAS(g_slot, -1, static_cast<int>(i)) == -1) /* exactly one thread wins */
        atomicAdd(&c->cas_wins, 1);
    if (atomicExch(g_slot + 1, static_cast<int>(i)) >= 0) /* all but the first see an earlier index */
        atomicAdd(&c->exch_hits, 1);
}

static void test_atomics(unsigned long long *rng)
{
    const size_t n = 300007; /* many blocks, so several CPU threads contend */
    int *h_in = static_cast<int *>(malloc(n * sizeof(int)));
    long long sum = 0;
    int mn = 1 << 30, mx = -(1 << 30);
    for (size_t i = 0; i < n; ++i) {
        h_in[i] = static_cast<int>(gpuh_test_next(rng) % 101) - 50;
        sum += h_in[i];
        mn = h_in[i] < mn ? h_in[i] : mn;
        mx = h_in[i] > mx ? h_in[i] : mx;
    }
    counters h_c;
    memset(&h_c, 0, sizeof h_c);
    h_c.min_i = 1 << 30;
    h_c.max_i = -(1 << 30);
    int h_slot[2] = {-1, -1};
    int *d_in = NULL, *d_slot = NULL;
    counters *d_c = NULL;
    TEST_CUDA(gpuh_to_device(&d_in, h_in, n));
    TEST_CUDA(gpuh_to_device(&d_c, &h_c, 1));
    TEST_CUDA(gpuh_to_device(&d_slot, h_slot, 2));
    atomics_kernel<<<static_cast<unsigned>((n + 255) / 256), 256>>>(d_in, n, d_c, d_slot);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(&h_c, d_c, 1));
    TEST_ASSERT(h_c.sum_i == sum && h_c.sub_i == -sum, "int add %d, sub %d, expected %lld", h_c.sum_i, h_c.sub_i,
                sum);
    TEST_ASSERT(h_c.sum_u == static_cast<unsigned>(sum), "unsigned add %u", h_c.sum_u);
    TEST_ASSERT(h_c.sum_ull == static_cast<unsigned long long>(sum) << 20, "unsigned long long add %llu",
                h_c.sum_ull);
    TEST_ASSERT(h_c.sum_f == static_cast<float>(sum), "float add %.1f, expected %lld", h_c.sum_f, sum);
    TEST_ASSERT(h_c.sum_d == 0.25 * static_cast<double>(sum), "double add %.2f, expected %.2f", h_c.sum_d,
                0.25 * static_cast<double>(sum));
    TEST_ASSERT(h_c.min_i == mn && h_c.max_i == mx, "min %d max %d, expected %d %d", h_c.min_i, h_c.max_i, mn, mx);
    TEST_ASSERT(h_c.cas_wins == 1, "atomicCAS: %d winners", h_c.cas_wins);
    TEST_ASSERT(h_c.exch_hits == static_cast<int>(n) - 1, "atomicExch: %d of %zu saw an earlier value",
                h_c.exch_hits, n - 1);
    free(h_in);
    gpuh_free(d_in);
    gpuh_free(d_c);
    gpuh_free(d_slot);
}

/* Thread 0 of each block waits, sleeping, for the last thread to raise a flag
   (no barrier between them): the simulator must let the other thread run. */
__global__ void handoff_kernel(int *g_out)
{
    __shared__ volatile int s_flag;
    if (threadIdx.x == 0)
        s_flag = 0;
    __syncthreads(); /* the flag is cleared before anyone raises it */
    if (threadIdx.x == blockDim.x - 1)
        s_flag = static_cast<int>(blockIdx.x) + 1;
    if (threadIdx.x == 0) {
        while (s_flag == 0)
            __nanosleep(100);
        g_out[blockIdx.x] = s_flag;
    }
}

static void test_handoff(void)
{
    const int blocks = 7;
    int h[blocks], *d = NULL;
    TEST_CUDA(gpuh_device_array(&d, blocks));
    TEST_CUDA(cudaMemset(d, 0xAB, blocks * sizeof(int)));
    handoff_kernel<<<blocks, 96>>>(d);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h, d, blocks));
    for (int b = 0; b < blocks; ++b)
        TEST_ASSERT(h[b] == b + 1, "block %d: thread 0 saw flag %d", b, h[b]);
    gpuh_free(d);
}

/* Threads from `live` on return at once; the others run a prefix sum whose
   barriers they reach without them (a list-ranking loop does the same). Since
   Volta exited threads no longer hold a barrier back (PTX ISA: barriers wait
   for the non-exited threads), so the loop finishes on a GPU.
   g_out[t] = 0 + 1 + ... + t, g_out[blockDim.x + t] = __syncthreads_count(1). */
__global__ void barrier_after_exit_kernel(int *g_out, int live)
{
    __shared__ int s_sum[128];
    const int t = static_cast<int>(threadIdx.x);
    if (t >= live)
        return;
    s_sum[t] = t;
    for (int step = 1; step < live; step *= 2) {
        __syncthreads(); /* every sum of the last step is written */
        const int add = t >= step ? s_sum[t - step] : 0;
        __syncthreads(); /* every thread has read before anyone adds */
        s_sum[t] += add;
    }
    const int arrived = __syncthreads_count(1);
    g_out[t] = s_sum[t];
    g_out[blockDim.x + t] = arrived;
}

/* Lanes from 20 on exit; the 20 left use warp operations whose mask still
   names the exited lanes. PTX ISA: shfl.sync and vote.sync wait for the
   non-exited threads of the mask, and a ballot sets bits of those only.
   Sources stay among the live lanes (a value from an exited lane is undefined).
   g_out[3 * lane + {0, 1, 2}] = xor-1 neighbour's value, ballot, all. */
__global__ void warp_after_exit_kernel(const int *g_in, int *g_out)
{
    const int lane = static_cast<int>(threadIdx.x);
    if (lane >= 20)
        return;
    const int v = g_in[lane];
    g_out[3 * lane] = __shfl_xor_sync(0xffffffffu, v, 1);
    g_out[3 * lane + 1] = static_cast<int>(__ballot_sync(0xffffffffu, 1));
    g_out[3 * lane + 2] = __all_sync(0xffffffffu, v >= 0);
}

static void test_barrier_after_exit(unsigned long long *rng)
{
    const int n = 128, live = 100;
    int h[2 * n], *d = NULL;
    TEST_CUDA(gpuh_device_array(&d, 2 * n));
    TEST_CUDA(cudaMemset(d, 0xAB, 2 * n * sizeof(int)));
    barrier_after_exit_kernel<<<2, n>>>(d, live);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h, d, 2 * n));
    int bad = 0, count = 0;
    for (int t = 0; t < live; ++t) {
        bad += h[t] != t * (t + 1) / 2;
        count += h[n + t] != live;
    }
    TEST_ASSERT(bad == 0, "barriers after %d of %d threads exited: %d of %d prefix sums wrong", n - live, n, bad, live);
    TEST_ASSERT(count == 0, "__syncthreads_count(1) after exits: %d threads did not get %d (thread 0 got %d)", count,
                live, h[n]);
    gpuh_free(d);

    int h_in[32], h_out[3 * 32], *d_in = NULL, *d_out = NULL;
    for (int i = 0; i < 32; ++i)
        h_in[i] = static_cast<int>(gpuh_test_next(rng) % 1000);
    TEST_CUDA(gpuh_to_device(&d_in, h_in, 32));
    TEST_CUDA(gpuh_device_array(&d_out, 3 * 32));
    TEST_CUDA(cudaMemset(d_out, 0xAB, 3 * 32 * sizeof(int)));
    warp_after_exit_kernel<<<1, 32>>>(d_in, d_out);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h_out, d_out, 3 * 32));
    int shfl = 0, ballot = 0, all = 0;
    for (int lane = 0; lane < 20; ++lane) {
        shfl += h_out[3 * lane] != h_in[lane ^ 1];
        ballot += h_out[3 * lane + 1] != 0x000fffff;
        all += h_out[3 * lane + 2] != 1;
    }
    TEST_ASSERT(shfl == 0, "__shfl_xor_sync(0xffffffff) with 12 lanes exited: %d of 20 lanes wrong", shfl);
    TEST_ASSERT(ballot == 0, "__ballot_sync(0xffffffff, 1) with lanes 20..31 exited: %d of 20 lanes wrong (lane 0: 0x%08x)",
                ballot, static_cast<unsigned>(h_out[1]));
    TEST_ASSERT(all == 0, "__all_sync(0xffffffff) with 12 lanes exited: %d of 20 lanes wrong", all);
    gpuh_free(d_in);
    gpuh_free(d_out);
}

/* Blocks that wait for each other: block b spins until block b + 1 has
   raised its flag, then raises its own, so block 0 finishes last and only if
   every block is resident. CUDA does not promise that, but a GPU runs as
   many blocks as fit, and 24 small blocks fit on any of them; persistent
   kernels and hand-written grid barriers rely on it. Thread 0 of each block
   does the waiting; g_order[b] = how many blocks had finished before it. */
__global__ void chained_blocks_kernel(volatile int *g_flags, int *g_count, int *g_order)
{
    const int b = static_cast<int>(blockIdx.x);
    if (threadIdx.x != 0)
        return;
    if (b + 1 < static_cast<int>(gridDim.x))
        while (g_flags[b + 1] == 0) {
        }
    g_order[b] = atomicAdd(g_count, 1);
    __threadfence(); /* the count is out before the flag */
    g_flags[b] = 1;
}

static void test_chained_blocks(void)
{
    const int blocks = 24;
    int h_order[blocks], *d_flags = NULL, *d_count = NULL, *d_order = NULL;
    TEST_CUDA(gpuh_device_array(&d_flags, blocks));
    TEST_CUDA(gpuh_device_array(&d_count, 1));
    TEST_CUDA(gpuh_device_array(&d_order, blocks));
    TEST_CUDA(cudaMemset(d_flags, 0, blocks * sizeof(int)));
    TEST_CUDA(cudaMemset(d_count, 0, sizeof(int)));
    TEST_CUDA(cudaMemset(d_order, 0xAB, blocks * sizeof(int)));
    chained_blocks_kernel<<<blocks, 64>>>(d_flags, d_count, d_order);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h_order, d_order, blocks));
    int bad = 0;
    for (int b = 0; b < blocks; ++b)
        bad += h_order[b] != blocks - 1 - b;
    TEST_ASSERT(bad == 0, "blocks waiting for each other: %d of %d finished out of turn (block 0 was %d-th)", bad,
                blocks, h_order[0]);
    gpuh_free(d_flags);
    gpuh_free(d_count);
    gpuh_free(d_order);
}

/* Explicit conversions of floats out of the integer type's range. PTX's
   cvt.rzi (what (int)x and static_cast compile to) saturates: a value above
   the range gives the type's maximum, below it the minimum; NaN gives 0
   into int and unsigned, and LLONG_MIN into long long (an H200's results). A
   sort that pads its keys with 2^32 relies on it. Thread t converts g_in[t]. */
__global__ void saturating_casts_kernel(const float *g_in, unsigned *g_u, int *g_i, long long *g_ll, int n)
{
    const int t = static_cast<int>(threadIdx.x);
    if (t >= n)
        return;
    const float x = g_in[t];
    g_u[t] = (unsigned)x;
    g_i[t] = static_cast<int>(x);
    g_ll[t] = (long long)(x * x);
}

static void test_saturating_casts(void)
{
    const int n = 6;
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float h_in[n] = {4294967296.0f, -1.0f, 3e9f, -3e9f, nan, 123.75f};
    const unsigned want_u[n] = {0xffffffffu, 0u, 3000000000u, 0u, 0u, 123u};
    const int want_i[n] = {INT_MAX, -1, INT_MAX, INT_MIN, 0, 123};
    const long long want_ll[n] = {LLONG_MAX, 1, 9000000202358128640ll, 9000000202358128640ll, LLONG_MIN,
                                  15314}; /* 3e9f squared, in float */
    unsigned h_u[n];
    int h_i[n];
    long long h_ll[n];
    float *d_in = NULL;
    unsigned *d_u = NULL;
    int *d_i = NULL;
    long long *d_ll = NULL;
    TEST_CUDA(gpuh_to_device(&d_in, h_in, n));
    TEST_CUDA(gpuh_device_array(&d_u, n));
    TEST_CUDA(gpuh_device_array(&d_i, n));
    TEST_CUDA(gpuh_device_array(&d_ll, n));
    saturating_casts_kernel<<<1, 32>>>(d_in, d_u, d_i, d_ll, n);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h_u, d_u, n));
    TEST_CUDA(gpuh_copy_to_host(h_i, d_i, n));
    TEST_CUDA(gpuh_copy_to_host(h_ll, d_ll, n));
    for (int t = 0; t < n; ++t) {
        TEST_ASSERT(h_u[t] == want_u[t], "(unsigned)%g = %u, want %u", h_in[t], h_u[t], want_u[t]);
        TEST_ASSERT(h_i[t] == want_i[t], "static_cast<int>(%g) = %d, want %d", h_in[t], h_i[t], want_i[t]);
        TEST_ASSERT(h_ll[t] == want_ll[t], "(long long)(%g * %g) = %lld, want %lld", h_in[t], h_in[t], h_ll[t],
                    want_ll[t]);
    }
    gpuh_free(d_in);
    gpuh_free(d_u);
    gpuh_free(d_i);
    gpuh_free(d_ll);
}

__global__ void noop_kernel(int *g_x)
{
    if (g_x != NULL && threadIdx.x == 0 && blockIdx.x == 0)
        *g_x += 1;
}
__global__ void __launch_bounds__(64) bounded_kernel(int *g_x)
{
    if (threadIdx.x == 0)
        g_x[0] = 7;
}

/* The launch-configuration errors, as CUDA 13 reports them for <<< >>>; none is sticky. */
static void test_launch_errors(void)
{
    int *d_x = NULL, h_x = 0;
    TEST_CUDA(gpuh_device_array(&d_x, 1));
    TEST_CUDA(cudaMemset(d_x, 0, sizeof(int)));
    struct {
        dim3 grid, block;
        size_t shmem;
        cudaError_t want;
        const char *what;
    } cases[] = {
        {dim3(1), dim3(1025), 0, cudaErrorInvalidValue, "1025 threads"},
        {dim3(1), dim3(32, 32, 2), 0, cudaErrorInvalidValue, "2048 threads in 3-D"},
        {dim3(1), dim3(1, 1, 65), 0, cudaErrorInvalidValue, "block z 65"},
        {dim3(0), dim3(32), 0, cudaErrorInvalidValue, "grid x 0"},
        {dim3(1, 65536), dim3(32), 0, cudaErrorInvalidValue, "grid y 65536"},
        {dim3(1, 1, 65536), dim3(32), 0, cudaErrorInvalidValue, "grid z 65536"},
        {dim3(1), dim3(0, 32), 0, cudaErrorInvalidValue, "block x 0"},
        {dim3(1), dim3(32), 48 * 1024 + 1, cudaErrorInvalidValue, "dynamic shared memory 48 KiB + 1"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; ++k) {
        noop_kernel<<<cases[k].grid, cases[k].block, cases[k].shmem>>>(d_x);
        const cudaError_t got = cudaGetLastError();
        TEST_ASSERT(got == cases[k].want, "%s: %s, expected %s", cases[k].what, cudaGetErrorName(got),
                    cudaGetErrorName(cases[k].want));
        TEST_CUDA(cudaGetLastError()); /* read once, then gone: not sticky */
    }
    /* The opt-in raises the dynamic shared memory limit up to 227 KiB. */
    TEST_CUDA(cudaFuncSetAttribute(noop_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 100 * 1024));
    noop_kernel<<<1, 32, 100 * 1024>>>(d_x);
    TEST_CUDA(cudaGetLastError());
    TEST_ERR(cudaFuncSetAttribute(noop_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 227 * 1024 + 1),
             cudaErrorInvalidValue);
    cudaGetLastError();
    /* __launch_bounds__(64): the kernel cannot run with more threads per block. */
    struct cudaFuncAttributes attr;
    TEST_CUDA(cudaFuncGetAttributes(&attr, bounded_kernel));
    TEST_ASSERT(attr.maxThreadsPerBlock == 64, "maxThreadsPerBlock %d", attr.maxThreadsPerBlock);
    bounded_kernel<<<1, 128>>>(d_x);
    TEST_ERR(cudaGetLastError(), cudaErrorInvalidValue);
    bounded_kernel<<<1, 64>>>(d_x);
    TEST_CUDA(cudaGetLastError());
    TEST_CUDA(gpuh_copy_to_host(&h_x, d_x, 1));
    TEST_ASSERT(h_x == 7, "bounded_kernel wrote %d", h_x);
    gpuh_free(d_x);
}

/* The host runtime: where pointers live, copy directions, frees, streams, events. */
static void test_runtime(void)
{
    float *d = NULL, *m = NULL, *p = NULL, h[4] = {1, 2, 3, 4}, back[4] = {0, 0, 0, 0};
    size_t free0 = 0, total = 0, free1 = 0;
    TEST_CUDA(cudaMemGetInfo(&free0, &total));
    TEST_CUDA(cudaMalloc(&d, 1 << 20));
    TEST_CUDA(cudaMemGetInfo(&free1, &total));
#ifdef GPUH_SIM /* a GPU allocates in pages of its own size */
    TEST_ASSERT(free0 - free1 == 1 << 20, "cudaMalloc of 1 MiB took %zu bytes of free memory", free0 - free1);
#else
    TEST_ASSERT(free1 < free0 && free1 <= total, "free memory %zu before, %zu after cudaMalloc", free0, free1);
#endif
    TEST_CUDA(cudaMallocManaged(&m, 16, cudaMemAttachGlobal));
    TEST_CUDA(cudaMallocHost(&p, 16));
    TEST_ASSERT(reinterpret_cast<uintptr_t>(d) % 256 == 0, "cudaMalloc alignment %p", static_cast<void *>(d));
    struct cudaPointerAttributes a;
    const struct {
        const void *ptr;
        enum cudaMemoryType want;
    } where[] = {{d + 5, cudaMemoryTypeDevice}, {m, cudaMemoryTypeManaged}, {p, cudaMemoryTypeHost},
                 {h, cudaMemoryTypeUnregistered}};
    for (size_t k = 0; k < 4; ++k) {
        TEST_CUDA(cudaPointerGetAttributes(&a, where[k].ptr));
        TEST_ASSERT(a.type == where[k].want, "pointer %zu: type %d, expected %d", k, a.type, where[k].want);
    }
    TEST_CUDA(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    TEST_CUDA(cudaMemcpy(back, d, sizeof h, cudaMemcpyDefault));
    TEST_ASSERT(memcmp(back, h, sizeof h) == 0, "round trip through device memory changed the data");
    TEST_ERR(cudaFree(h), cudaErrorInvalidValue);
    cudaGetLastError();
#ifdef GPUH_SIM /* checks the simulator makes where a GPU's behaviour is unspecified */
    TEST_ERR(cudaMemcpy(h, back, sizeof h, cudaMemcpyHostToDevice), cudaErrorInvalidValue); /* h is not device memory */
    TEST_ERR(cudaMemcpy(back, d + (1 << 18) - 2, sizeof h, cudaMemcpyDeviceToHost), cudaErrorInvalidValue); /* overrun */
    TEST_ERR(cudaFree(p), cudaErrorInvalidValue); /* pinned memory is freed with cudaFreeHost */
    cudaGetLastError();
#endif
    struct cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
    TEST_CUDA(cudaMemPrefetchAsync(m, 16, loc, 0, 0));
    TEST_CUDA(cudaStreamSynchronize(0));

    cudaStream_t s = NULL;
    int prio = 1, least = 1, greatest = 1;
    unsigned flags = 9;
    TEST_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    TEST_CUDA(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest - 3));
    TEST_CUDA(cudaStreamGetPriority(s, &prio));
    TEST_CUDA(cudaStreamGetFlags(s, &flags));
    TEST_ASSERT(prio == greatest && flags == cudaStreamNonBlocking, "priority %d (range %d..%d), flags %u", prio,
                least, greatest, flags);
    cudaEvent_t e0, e1;
    float ms = -1;
    TEST_CUDA(cudaEventCreate(&e0));
    TEST_CUDA(cudaEventCreateWithFlags(&e1, cudaEventDisableTiming));
    TEST_CUDA(cudaEventRecord(e0, s));
    TEST_CUDA(cudaEventRecord(e1, s));
    TEST_CUDA(cudaStreamWaitEvent(0, e1, 0));
    TEST_ERR(cudaEventElapsedTime(&ms, e0, e1), cudaErrorInvalidResourceHandle); /* e1 keeps no time */
    cudaGetLastError();
    TEST_CUDA(cudaEventDestroy(e1));
    TEST_CUDA(cudaEventCreate(&e1));
    noop_kernel<<<1000, 256, 0, s>>>(NULL);
    TEST_CUDA(cudaEventRecord(e1, s));
    TEST_CUDA(cudaEventSynchronize(e1));
    TEST_CUDA(cudaEventElapsedTime(&ms, e0, e1));
    TEST_ASSERT(ms >= 0.0f && ms < 60000.0f, "elapsed %.3f ms", ms);
    TEST_CUDA(cudaEventDestroy(e0));
    TEST_CUDA(cudaEventDestroy(e1));
    TEST_CUDA(cudaStreamDestroy(s));

    /* Registered (pinned) host memory, host functions, stream-ordered allocation. */
    float *buf = static_cast<float *>(malloc(4096)), *dbuf = NULL, *dasync = NULL;
    TEST_CUDA(cudaHostRegister(buf, 4096, cudaHostRegisterDefault));
    TEST_CUDA(cudaPointerGetAttributes(&a, buf + 10));
    TEST_ASSERT(a.type == cudaMemoryTypeHost, "registered memory: type %d", a.type);
    TEST_ERR(cudaHostRegister(buf + 8, 64, cudaHostRegisterDefault), cudaErrorHostMemoryAlreadyRegistered);
    cudaGetLastError();
    TEST_CUDA(cudaHostGetDevicePointer(reinterpret_cast<void **>(&dbuf), buf, 0));
    TEST_ASSERT(dbuf != NULL, "no device address for registered memory");
    TEST_CUDA(cudaHostUnregister(buf));
    TEST_ERR(cudaHostUnregister(buf), cudaErrorHostMemoryNotRegistered);
    cudaGetLastError();
    free(buf);
    TEST_CUDA(cudaStreamCreate(&s));
    int host_calls = 0;
    TEST_CUDA(cudaMallocAsync(&dasync, 1024, s));
    TEST_CUDA(cudaMemsetAsync(dasync, 0, 1024, s));
    TEST_CUDA(cudaLaunchHostFunc(s, [](void *p) { ++*static_cast<int *>(p); }, &host_calls));
    TEST_CUDA(cudaFreeAsync(dasync, s));
    TEST_CUDA(cudaStreamSynchronize(s));
    TEST_ASSERT(host_calls == 1, "cudaLaunchHostFunc ran %d times", host_calls);
    TEST_CUDA(cudaStreamDestroy(s));

    struct cudaDeviceProp prop;
    TEST_CUDA(cudaGetDeviceProperties(&prop, 0));
#ifdef GPUH_SIM
    TEST_CONTAINS(prop.name, "gpuh CPU simulator");
    TEST_ERR(cudaSetDevice(1), cudaErrorInvalidDevice);
    cudaGetLastError();
#endif
    TEST_ASSERT(prop.warpSize == 32 && prop.maxThreadsPerBlock == 1024, "warp %d, block %d", prop.warpSize,
                prop.maxThreadsPerBlock);
    TEST_CUDA(cudaFree(d));
    TEST_CUDA(cudaFree(m));
    TEST_CUDA(cudaFreeHost(p));
}

/* Absurd counts: each range check must refuse them without wrapping, however
   the address and the count add up. */
static void test_absurd_sizes(void)
{
    float *d = NULL, *m = NULL, *pinned = NULL, h[16] = {0};
    TEST_CUDA(gpuh_device_array(&d, 16));
    TEST_CUDA(gpuh_managed_array(&m, 16));
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_copy_to_device(d, h, SIZE_MAX / 4), cudaErrorInvalidValue);
    TEST_ERR(gpuh_copy_to_host(h, d, SIZE_MAX / 4), cudaErrorInvalidValue);
#ifdef GPUH_SIM /* the runtime's own calls: on a GPU an absurd count is undefined behaviour (a fault) */
    TEST_ERR(cudaMemcpy(d + 4, h, SIZE_MAX - 8, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    TEST_ERR(cudaMemset(d, 0, SIZE_MAX - 8), cudaErrorInvalidValue);
    TEST_ERR(cudaMemset(d + 8, 0, SIZE_MAX / 2), cudaErrorInvalidValue);
    TEST_ERR(cudaMemcpy2D(d, 64, h, 64, 16, SIZE_MAX / 32, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    {   /* a 2-D copy whose last row lands in another allocation: each side's span must lie in one */
        unsigned char *lo = NULL, *hi = NULL, rows[32] = {0};
        TEST_CUDA(cudaMalloc(&lo, 64));
        TEST_CUDA(cudaMalloc(&hi, 64));
        if (hi < lo)
            std::swap(lo, hi);
        const size_t apart = reinterpret_cast<uintptr_t>(hi) - reinterpret_cast<uintptr_t>(lo);
        TEST_ERR(cudaMemcpy2D(lo, apart, rows, 16, 16, 2, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
        TEST_CUDA(cudaFree(lo));
        TEST_CUDA(cudaFree(hi));
    }
#endif
    TEST_ASSERT(gpuh_prefetch_async(m, SIZE_MAX / 4, 0, 0) != cudaSuccess, "prefetch of SIZE_MAX / 4 floats passed");
    TEST_ERR(gpuh_pinned_array(&pinned, SIZE_MAX / 8), cudaErrorMemoryAllocation);
    TEST_ASSERT(pinned == NULL, "a failed pinned allocation left %p", static_cast<void *>(pinned));
    cudaGetLastError();
    /* the arrays are untouched and still work */
    for (int i = 0; i < 16; ++i)
        h[i] = static_cast<float>(i);
    TEST_CUDA(gpuh_copy_to_device(d, h, 16));
    TEST_CUDA(gpuh_copy_to_host(h, d, 16));
    TEST_ASSERT(h[15] == 15.0f, "round trip gave %g", h[15]);
    gpuh_free(d);
    gpuh_free(m);
}

/* Where a freed pointer lives: nowhere (cudaMemoryTypeUnregistered), as CUDA
   says, whichever call freed it. */
static void test_freed_pointers(void)
{
    void *d = NULL, *p = NULL;
    struct cudaPointerAttributes a;
    TEST_CUDA(cudaMalloc(&d, 4096));
    TEST_CUDA(cudaMallocHost(&p, 4096));
    TEST_CUDA(cudaFree(d));
    TEST_CUDA(cudaFreeHost(p));
    TEST_CUDA(cudaPointerGetAttributes(&a, d));
    TEST_ASSERT(a.type == cudaMemoryTypeUnregistered, "freed device memory: type %d", a.type);
    TEST_CUDA(cudaPointerGetAttributes(&a, p));
    TEST_ASSERT(a.type == cudaMemoryTypeUnregistered, "freed pinned memory: type %d", a.type);
}

#ifdef GPUH_SIM
/* A stream or event destroyed through a copy of its handle, or a handle never
   made: refused, not a double free (on a GPU this is undefined behaviour). */
static void test_handles(void)
{
    cudaStream_t s = NULL, copy = NULL, made_up = reinterpret_cast<cudaStream_t>(static_cast<uintptr_t>(0x1230));
    cudaEvent_t e = NULL, ecopy = NULL;
    int *d = NULL;
    TEST_CUDA(gpuh_device_array(&d, 1));
    TEST_CUDA(cudaStreamCreate(&s));
    copy = s;
    TEST_CUDA(cudaStreamDestroy(s));
    TEST_ERR(cudaStreamDestroy(copy), cudaErrorInvalidResourceHandle);
    TEST_ERR(cudaStreamSynchronize(copy), cudaErrorInvalidResourceHandle);
    TEST_ERR(cudaStreamSynchronize(made_up), cudaErrorInvalidResourceHandle);
    TEST_ERR(cudaMemsetAsync(d, 0, sizeof(int), made_up), cudaErrorInvalidResourceHandle);
    noop_kernel<<<1, 32, 0, copy>>>(d);
    TEST_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    TEST_CUDA(cudaGetLastError()); /* not sticky */
    TEST_CUDA(cudaEventCreate(&e));
    ecopy = e;
    TEST_CUDA(cudaEventDestroy(e));
    TEST_ERR(cudaEventDestroy(ecopy), cudaErrorInvalidResourceHandle);
    TEST_ERR(cudaEventRecord(ecopy, 0), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    gpuh_free(d);
}

/* 400 KiB of local memory per thread: CUDA allows 512 KiB, so must the sim's stacks. */
__global__ void big_local_kernel(int *g_out)
{
    volatile unsigned char local[400 * 1024];
    for (size_t i = 0; i < sizeof local; i += 4096)
        local[i] = static_cast<unsigned char>(i / 4096 + threadIdx.x);
    int sum = 0;
    for (size_t i = 0; i < sizeof local; i += 4096)
        sum += local[i];
    g_out[blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

static void test_big_local(void)
{
    int h[2 * 4], *d = NULL;
    TEST_CUDA(gpuh_device_array(&d, 8));
    big_local_kernel<<<2, 4>>>(d);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(gpuh_copy_to_host(h, d, 8));
    for (int i = 0; i < 8; ++i) {
        int want = 0;
        for (int k = 0; k < 100; ++k)
            want += static_cast<unsigned char>(k + i % 4);
        TEST_ASSERT(h[i] == want, "thread %d: sum %d, expected %d", i, h[i], want);
    }
    gpuh_free(d);
}
#endif

/* Each block writes its index plus a tag to its own element. */
__global__ void tag_kernel(int *g_out, int tag)
{
    if (threadIdx.x == 0)
        g_out[blockIdx.x] = static_cast<int>(blockIdx.x) + tag;
}

/* Several host threads launching at once: every launch runs all its blocks
   before it returns, whatever the others do. */
static void test_concurrent_launches(void)
{
    enum { THREADS = 4, LAUNCHES = 2000, BLOCKS = 9 }; /* enough for a pool that mixes up launches to hang */
    int wrong[THREADS] = {0}, failed[THREADS] = {0};
    std::vector<std::thread> t;
    for (int k = 0; k < THREADS; ++k)
        t.push_back(std::thread([k, &wrong, &failed] {
            int *d = NULL, h[BLOCKS];
            if (cudaMalloc(&d, BLOCKS * sizeof(int)) != cudaSuccess) {
                failed[k] = 1;
                return;
            }
            for (int r = 0; r < LAUNCHES; ++r) {
                const int tag = 1000 * k + r;
                tag_kernel<<<BLOCKS, 32>>>(d, tag);
                failed[k] += cudaGetLastError() != cudaSuccess;
                failed[k] += cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) != cudaSuccess;
                for (int b = 0; b < BLOCKS; ++b)
                    wrong[k] += h[b] != b + tag;
            }
            cudaFree(d);
        }));
    for (int k = 0; k < THREADS; ++k) {
        t[static_cast<size_t>(k)].join();
        TEST_ASSERT(wrong[k] == 0 && failed[k] == 0, "host thread %d: %d wrong blocks, %d failed calls", k, wrong[k],
                    failed[k]);
    }
}

int main(void)
{
    GPUH_TEST_REQUIRE_DEVICE();
    unsigned long long rng = gpuh_test_seed();
    test_warp_ops(&rng);
    test_block_votes(&rng);
    test_atomics(&rng);
    test_handoff();
    test_barrier_after_exit(&rng);
    test_saturating_casts();
    test_chained_blocks();
    test_launch_errors();
    test_runtime();
    test_absurd_sizes();
    test_freed_pointers();
    test_concurrent_launches();
#ifdef GPUH_SIM
    test_handles();
    test_big_local();
#endif
    return gpuh_test_summary("test_sim");
}
