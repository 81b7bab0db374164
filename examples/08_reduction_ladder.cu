/* 08_reduction_ladder.cu - the classic reduction ladder, one change per step, on Hopper.

   Teaches: how a sum over n ints goes from slow to memory-bound, following the
   seven kernels of Mark Harris, "Optimizing Parallel Reduction in CUDA"
   (NVIDIA, 2007), then the form gpuh_sum uses today. Each step removes what
   held the step before it back:
     1  interleaved addressing, divergent branch     (tid % (2s) == 0)
     2  interleaved addressing, strided index        no divergence; bank conflicts
     3  sequential addressing                        conflict-free; half the threads idle
     4  first add during the global load             every thread adds from the start
     5  last warp by __shfl_down_sync                six barriers fewer per block
     6  completely unrolled                          block size a template parameter
     7  many elements per thread                     a fixed grid strides over the input
     8  gpuh_sum                                     16-byte loads, 8 in flight, shuffles
   Steps 1-6 are multi-pass, as in the paper: a pass writes one partial sum per
   block, and the host launches again over the partials until one value is
   left. Steps 7 and 8 launch a fixed grid, then one block over its partials.
   Every block has BLOCK = 256 threads (the paper used 128; 256 is gpuh_sum's).
   Step 5 does NOT use the paper's warp-synchronous last warp (volatile shared
   memory, no barrier): that is a data race since Volta; see its comment.

   Measures: each step's whole reduction to one value (all its launches) with
   CUDA events, median of REPS runs after WARMUP (gpuh_time_median_ms), at 2^22
   ints (the paper's size, 16.8 MB) and 2^26 ints (268 MB). GB/s counts the 4n
   bytes read. 16.8 MB would sit in the H200's 60 MB L2 from one run to the
   next, so the runs rotate over identical copies of the input, at least 4x the
   L2 in all: every run reads DRAM, as on the paper's G80, which had no cache
   for global loads. The paper's G80 figures (2^22 ints) are printed beside,
   and a device-to-device copy of 2^26 ints gives this GPU's measured ceiling.
   Checks: every step's result, from its first run and from its last timed
   run, equals the exact int64 CPU sum of the same data. The data are fresh
   random ints in [-16, 15] (|any partial sum| <= 2^30: no int32 overflow);
   the result and every partial-sum buffer are poisoned before each checked
   run. All eight steps are also checked, untimed, at awkward sizes.
   GPUH_SEED=<n> repeats a run. Quick mode (GPUH_TEST_QUICK=1, the small-size
   switch every example takes; scripts/gpu_check.sh sets it under
   compute-sanitizer): 2^18 ints only, 3 repetitions, no comparison with the
   paper; the checks are the same. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

static constexpr unsigned BLOCK = 256; /* threads per block, every step: a power of two, >= 64 */
static constexpr int STEPS = 8;
static constexpr int MAX_COPIES = 16;            /* most rotation copies of one input */
static constexpr unsigned POISON_BYTE = 0xA5;    /* an int of 0xA5A5A5A5 is below -2^30: never a valid sum */

/* ===========================================================================
   THE LADDER
   Each kernel reduces a slice of g_in to one int per block, written to
   g_out[blockIdx.x]; elements past n count as 0, so any n works (the paper
   assumed n a multiple of the block's share). 64-bit indices throughout.
   =========================================================================== */

/* Step 1. This version is the starting point: the plainest tree in shared
   memory. The block copies blockDim.x consecutive elements into s_data; then,
   at levels s = 1, 2, 4, ..., each thread whose index is a multiple of 2s adds
   the value s places to its right. After log2(blockDim.x) levels s_data[0]
   holds the block's sum.
   Why it is slow: the busy threads are scattered over every warp. At s = 1
   the even lanes of every warp add and the odd lanes wait; at s = 2 one lane
   in four works, and so on: until s = 32 every warp still issues the add, for
   a shrinking fraction of its lanes (branch divergence). And `%` on a
   run-time divisor is not one instruction but a software division routine.
   Grid: ceil(n / blockDim.x); block: a power of two; dynamic shared memory:
   blockDim.x ints. */
__global__ void reduce1_divergent(const int *__restrict__ g_in, int *__restrict__ g_out, size_t n)
{
    extern __shared__ int s_data[];
    const unsigned tid = threadIdx.x;
    const size_t i = gpuh_global_index();
    s_data[tid] = i < n ? g_in[i] : 0;
    /* Every element must be in shared memory before any thread reads a neighbour's. */
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        if (tid % (2 * s) == 0)
            s_data[tid] += s_data[tid + s];
        /* The next level reads sums this level wrote, many of them in other warps. */
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = s_data[0];
}

/* Step 2. This version removes step 1's divergence and its modulo: thread t
   now handles the pair that starts at 2·s·t. The additions are the same ones,
   at the same places, but the busy threads are now the lowest-numbered ones,
   packed into as few warps as possible; the other warps skip the add as a
   whole. Lanes of one warp disagree only once fewer than 32 threads are busy.
   What it costs instead: bank conflicts. Shared memory has 32 banks, each
   serving one 4-byte word per cycle; word w lives in bank w % 32. At s = 1
   lane t reads word 2t, so lanes t and t + 16 need the same bank and the
   access takes two passes; at s = 2 (word 4t) four lanes share a bank; the
   degree doubles with each level until too few lanes are busy to collide.
   Grid, block and shared memory as step 1. */
__global__ void reduce2_strided(const int *__restrict__ g_in, int *__restrict__ g_out, size_t n)
{
    extern __shared__ int s_data[];
    const unsigned tid = threadIdx.x;
    const size_t i = gpuh_global_index();
    s_data[tid] = i < n ? g_in[i] : 0;
    /* Every element must be in shared memory before any thread reads another's. */
    __syncthreads();
    for (unsigned s = 1; s < blockDim.x; s *= 2) {
        const unsigned index = 2 * s * tid;
        if (index < blockDim.x)
            s_data[index] += s_data[index + s];
        /* The next level reads sums this level wrote, in other warps. */
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = s_data[0];
}

/* Step 3. This version turns the tree around to remove step 2's bank
   conflicts: at level s = blockDim.x / 2, then half that, down to 1, thread
   t < s adds the element s places above its own. A warp's 32 lanes now read
   and write 32 consecutive words, one in each bank: no conflicts at any level,
   and still no divergence until fewer than 32 threads are busy.
   What is left: idle threads. Every thread loads one element, and at the very
   first level half of them already have nothing more to do; after four levels
   fifteen in sixteen are idle, holding warp slots and registers that could
   have been streaming data. Grid, block and shared memory as step 1. */
__global__ void reduce3_sequential(const int *__restrict__ g_in, int *__restrict__ g_out, size_t n)
{
    extern __shared__ int s_data[];
    const unsigned tid = threadIdx.x;
    const size_t i = gpuh_global_index();
    s_data[tid] = i < n ? g_in[i] : 0;
    /* Every element must be in shared memory before the upper half is read. */
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        /* The next level reads what this one wrote, across warps. */
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = s_data[0];
}

/* Step 4. This version gives step 3's idle half real work before the tree
   starts: a block now covers 2·blockDim.x elements, and each thread loads two
   of them, blockDim.x apart (both loads coalesced, and independent, so both
   are in flight at once), and stores their sum. The tree is unchanged, but it
   now runs once per 2·blockDim.x elements instead of once per blockDim.x, and
   half as many blocks are launched for the same n.
   Grid: ceil(n / (2·blockDim.x)); block and shared memory as step 1. */
__global__ void reduce4_add_on_load(const int *__restrict__ g_in, int *__restrict__ g_out, size_t n)
{
    extern __shared__ int s_data[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    int v = i < n ? g_in[i] : 0;
    if (i + blockDim.x < n)
        v += g_in[i + blockDim.x];
    s_data[tid] = v;
    /* Every pair sum must be in shared memory before the upper half is read. */
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        /* The next level reads what this one wrote, across warps. */
        __syncthreads();
    }
    if (tid == 0)
        g_out[blockIdx.x] = s_data[0];
}

/* The sum of v over the 32 lanes of a warp, valid in lane 0. Each
   __shfl_down_sync(mask, v, d) gives every lane the v of the lane d above it
   (lanes with no such lane get their own v back, and their results go
   unused), so five exchanges, d = 16, 8, 4, 2, 1, fold 32 values into lane 0.
   The values move register to register: no shared memory, no barrier. All 32
   lanes named in the mask must call it. gpuh_warp_reduce in gpuh_kernels.cuh
   is the same, for any operator. */
__device__ __forceinline__ int warp_sum(int v)
{
    v += __shfl_down_sync(0xffffffffu, v, 16);
    v += __shfl_down_sync(0xffffffffu, v, 8);
    v += __shfl_down_sync(0xffffffffu, v, 4);
    v += __shfl_down_sync(0xffffffffu, v, 2);
    v += __shfl_down_sync(0xffffffffu, v, 1);
    return v;
}

/* Step 5. This version stops the shared-memory tree at 64 values and lets one
   warp finish with register shuffles. Why: in step 4, once s <= 32 only warp 0
   has any adding to do, but each of the last six levels still costs every
   thread of the block a compare, a branch, a loop step and a __syncthreads.
   At this point the kernel is no longer limited by memory but by these
   bookkeeping instructions, so removing them is what pays.
   Why not the paper's version of this step: it unrolled the last six levels
   as plain shared-memory adds with no barrier at all, trusting that the 32
   threads of a warp execute in lockstep (and marking s_data volatile so each
   read went to shared memory). The programming model never promised that
   lockstep, and since Volta (sm_70) it does not hold: with independent thread
   scheduling every lane has its own program counter, and the lanes of a warp
   may run the steps interleaved in any order, so lane 0 can read s_data[16]
   before lane 16 has stored its sum there. That is a data race, and the CUDA
   Programming Guide (Independent Thread Scheduling, compute capability 7.x)
   names such warp-synchronous code as invalid. __shfl_down_sync is the
   correct tool: its lanes meet at the instruction before they exchange, so
   each step sees the previous step's values by construction.
   Grid: ceil(n / (2·blockDim.x)); block: a power of two >= 64; dynamic shared
   memory: blockDim.x ints. */
__global__ void reduce5_last_warp(const int *__restrict__ g_in, int *__restrict__ g_out, size_t n)
{
    extern __shared__ int s_data[];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * blockDim.x) + tid;
    int v = i < n ? g_in[i] : 0;
    if (i + blockDim.x < n)
        v += g_in[i + blockDim.x];
    s_data[tid] = v;
    /* Every pair sum must be in shared memory before the upper half is read. */
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 32; s /= 2) {
        if (tid < s)
            s_data[tid] += s_data[tid + s];
        /* The next level (or warp 0 below) reads what this one wrote, across warps. */
        __syncthreads();
    }
    if (tid < 32) { /* exactly warp 0, all 32 lanes: the shuffles' full mask holds */
        v = warp_sum(s_data[tid] + s_data[tid + 32]);
        if (tid == 0)
            g_out[blockIdx.x] = v;
    }
}

/* One level of step 6's unrolled tree: the lower S threads add the upper S
   values. A level the block is too small for vanishes at compile time,
   barrier included. */
template <unsigned THREADS, unsigned S> __device__ __forceinline__ void tree_level(int *s_data, unsigned tid)
{
    if constexpr (THREADS >= 2 * S) {
        if (tid < S)
            s_data[tid] += s_data[tid + S];
        /* The next level (or warp 0) reads what this one wrote, across warps. */
        __syncthreads();
    }
}

/* The block's sum of s_data[0 .. THREADS-1], valid in thread 0, for a block of
   THREADS threads (a power of two, 64 .. 1024). s_data must be filled and the
   block past a barrier. Shared by steps 6 and 7. */
template <unsigned THREADS> __device__ __forceinline__ int block_sum_unrolled(int *s_data, unsigned tid)
{
    static_assert(THREADS >= 64 && THREADS <= 1024 && (THREADS & (THREADS - 1)) == 0,
                  "the unrolled tree needs a power-of-two block of 64 to 1024 threads");
    tree_level<THREADS, 512>(s_data, tid);
    tree_level<THREADS, 256>(s_data, tid);
    tree_level<THREADS, 128>(s_data, tid);
    tree_level<THREADS, 64>(s_data, tid);
    int v = 0;
    if (tid < 32) /* warp 0, whole */
        v = warp_sum(s_data[tid] + s_data[tid + 32]);
    return v;
}

/* Step 6. This version makes the block size a template parameter, so the
   compiler knows every level of the tree: the loop of step 5 (its counter,
   shift, compare and branch per level) disappears, each `tid < S` compares
   with a constant, levels too big for the block are dropped, and the shared
   array gets a static size. Step 5's remaining cost was exactly that loop
   overhead, paid by every thread at every level. The price: one compiled
   kernel per block size; a library picks one with a switch on the block size
   it launches (here there is one, BLOCK).
   Grid: ceil(n / (2·THREADS)); block: THREADS threads exactly. */
template <unsigned THREADS>
__global__ void __launch_bounds__(THREADS)
    reduce6_unrolled(const int *__restrict__ g_in, int *__restrict__ g_out, size_t n)
{
    __shared__ int s_data[THREADS];
    const unsigned tid = threadIdx.x;
    const size_t i = (size_t)blockIdx.x * (2 * THREADS) + tid;
    int v = i < n ? g_in[i] : 0;
    if (i + THREADS < n)
        v += g_in[i + THREADS];
    s_data[tid] = v;
    /* Every pair sum must be in shared memory before the tree reads it. */
    __syncthreads();
    v = block_sum_unrolled<THREADS>(s_data, tid);
    if (tid == 0)
        g_out[blockIdx.x] = v;
}

/* Step 7. This version gives each thread many elements instead of two. The
   grid is fixed, just enough blocks to fill every SM once, and each thread
   walks the input in steps of the whole grid's share (grid-stride), adding
   two elements per step into a register. Only then does the block run the
   tree, once. Up to step 6 every 512 elements paid for a whole block: its
   start, its tree of log2(256) levels with their barriers, and a partial sum
   written and read back by the next pass. Now the tree and the partials are
   paid once per block for millions of elements, so each element costs
   little more than its load and its add (Brent's theorem: do the work
   sequentially per thread, the tree only across threads; the paper calls it
   algorithm cascading). And the whole input takes one launch, not a chain of
   launches that each wait for the one before.
   Grid: any (the launcher uses SMs × resident blocks per SM); block: THREADS. */
template <unsigned THREADS>
__global__ void __launch_bounds__(THREADS)
    reduce7_many_per_thread(const int *__restrict__ g_in, int *__restrict__ g_out, size_t n)
{
    __shared__ int s_data[THREADS];
    const unsigned tid = threadIdx.x;
    const size_t stride = (size_t)2 * THREADS * gridDim.x;
    int v = 0;
    for (size_t i = (size_t)blockIdx.x * (2 * THREADS) + tid; i < n; i += stride) {
        v += g_in[i];
        if (i + THREADS < n)
            v += g_in[i + THREADS];
    }
    s_data[tid] = v;
    /* Every thread's total must be in shared memory before the tree reads it. */
    __syncthreads();
    v = block_sum_unrolled<THREADS>(s_data, tid);
    if (tid == 0)
        g_out[blockIdx.x] = v;
}

/* Step 8. This version is gpuh_sum<int> from gpuh_kernels.cuh, called as is.
   It keeps step 7's shape (a fixed grid, here up to GPUH_REDUCE_MAX_BLOCKS
   blocks of 256, then one block over the partials) and changes three things.
   Runs: each block reads one contiguous run of the input instead of
   striding through all of it with the others (CUB's even share). Loads: each
   thread reads int4, 16 bytes per instruction, so a warp moves 512 bytes per
   load and there are 4x fewer load instructions and address computations;
   and it issues GPUH_REDUCE_UNROLL (8) of them before its first add. That
   is 128 bytes in flight per thread where step 7 had 8. A memory system that delivers ~4.8 TB/s with a latency of several
   hundred ns must have megabytes in flight (Little's law: bytes in flight =
   bandwidth × latency), and an SM holds at most 2048 threads, so more bytes
   per thread is the only way to get there; with 8 bytes per thread step 7
   leaves part of the latency exposed.
   Block combine: each warp sums itself with shuffles, the 8 warp
   totals meet in shared memory across one barrier, and warp 0 adds them: one
   __syncthreads where step 7 had three.
   (Also: the kernel handles any alignment and any n, and sums in unsigned
   arithmetic, so an int32 overflow wraps instead of being undefined.) */

/* Turns 32 random bits into a small int in [-16, 15], in place. */
__global__ void bits_to_small_ints(int *g_x, size_t n)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        g_x[i] = (int)((unsigned)g_x[i] & 31u) - 16;
}

/* ===========================================================================
   HOST SIDE
   =========================================================================== */

static const char *const STEP_NAMES[STEPS] = {
    "interleaved, divergent branch", "interleaved, strided index", "sequential addressing",
    "first add during load",         "last warp by shuffles",      "completely unrolled",
    "many elements per thread",      "gpuh_sum: int4 + shuffles"};

/* The paper's table for 2^22 ints on a G80 (GeForce 8800 GTX, 86.4 GB/s peak),
   kernels 1-7: time ms, GB/s, step speedup, cumulative speedup. */
static const double PAPER_G80[7][4] = {{8.054, 2.083, 0.0, 1.0},      {3.456, 4.854, 2.33, 2.33},
                                       {1.722, 9.741, 2.01, 4.68},    {0.965, 17.377, 1.78, 8.34},
                                       {0.536, 31.289, 1.8, 15.01},   {0.381, 43.996, 1.41, 21.16},
                                       {0.268, 62.671, 1.42, 30.04}};

/* One problem size and everything its reductions need. */
struct ladder {
    int step;                      /* 1 .. STEPS: what enqueue_step runs */
    size_t n;                      /* ints to sum */
    int *d_copies[MAX_COPIES];     /* identical inputs; run k reads copy k % copies */
    int copies, next;
    int *d_part[2];                /* per-block partial sums, alternated between passes */
    size_t part_count;             /* ints in each: ceil(n / BLOCK), the most any pass writes */
    int *d_out;                    /* the one result */
    unsigned char *d_temp;         /* gpuh_sum's scratch */
    unsigned step7_blocks;         /* step 7's fixed grid */
    int launches;                  /* kernel launches the last run made */
};

/* One pass of steps 1-6: `count` values at d_in -> `blocks` partial sums at d_out. */
static cudaError_t launch_pass(int step, const int *d_in, int *d_out, size_t count, unsigned blocks,
                               cudaStream_t stream)
{
    const size_t shmem = BLOCK * sizeof(int); /* steps 1-5 size s_data at launch */
    switch (step) {
    case 1: return GPUH_LAUNCH(reduce1_divergent, blocks, BLOCK, shmem, stream, d_in, d_out, count);
    case 2: return GPUH_LAUNCH(reduce2_strided, blocks, BLOCK, shmem, stream, d_in, d_out, count);
    case 3: return GPUH_LAUNCH(reduce3_sequential, blocks, BLOCK, shmem, stream, d_in, d_out, count);
    case 4: return GPUH_LAUNCH(reduce4_add_on_load, blocks, BLOCK, shmem, stream, d_in, d_out, count);
    case 5: return GPUH_LAUNCH(reduce5_last_warp, blocks, BLOCK, shmem, stream, d_in, d_out, count);
    case 6: return GPUH_LAUNCH(reduce6_unrolled<BLOCK>, blocks, BLOCK, 0, stream, d_in, d_out, count);
    default: return cudaErrorInvalidValue;
    }
}

/* Steps 1-6, the paper's multi-pass scheme: while more values are left than
   one block reduces, a pass turns them into one partial sum per block (into
   d_part[0], then d_part[1], alternately); a last one-block pass writes d_out.
   For 2^22 ints and 256 threads: 2^22 -> 16384 -> 64 -> 1 (steps 1-3), or
   2^22 -> 8192 -> 16 -> 1 (steps 4-6, two elements per thread). */
static cudaError_t run_multipass(ladder *r, const int *d_in, cudaStream_t stream)
{
    const size_t per_block = r->step <= 3 ? BLOCK : 2 * BLOCK;
    size_t count = r->n;
    int k = 0;
    cudaError_t err;
    r->launches = 1;
    while (count > per_block) {
        const size_t blocks = gpuh_ceil_div(count, per_block);
        if (blocks > GPUH_MAX_GRID_X)
            return cudaErrorInvalidConfiguration;
        if ((err = launch_pass(r->step, d_in, r->d_part[k], count, (unsigned)blocks, stream)) != cudaSuccess)
            return err;
        ++r->launches;
        d_in = r->d_part[k];
        k ^= 1;
        count = blocks;
    }
    return launch_pass(r->step, d_in, r->d_out, count, 1, stream);
}

/* The work gpuh_time_median_ms times: one whole reduction of r->step, to one
   value in r->d_out, reading the next copy of the input. Enqueues only. */
static cudaError_t enqueue_step(void *ctx, cudaStream_t stream)
{
    ladder *r = (ladder *)ctx;
    const int *d_in = r->d_copies[r->next];
    r->next = (r->next + 1) % r->copies;
    if (r->step <= 6)
        return run_multipass(r, d_in, stream);
    if (r->step == 7) { /* a fixed grid, then one block over its partials */
        const size_t wanted = gpuh_ceil_div(r->n, 2 * BLOCK);
        const unsigned blocks = wanted < r->step7_blocks ? (unsigned)wanted : r->step7_blocks;
        cudaError_t err;
        r->launches = blocks <= 1 ? 1 : 2;
        if (blocks <= 1)
            return GPUH_LAUNCH(reduce7_many_per_thread<BLOCK>, 1, BLOCK, 0, stream, d_in, r->d_out, r->n);
        err = GPUH_LAUNCH(reduce7_many_per_thread<BLOCK>, blocks, BLOCK, 0, stream, d_in, r->d_part[0], r->n);
        if (err != cudaSuccess)
            return err;
        return GPUH_LAUNCH(reduce7_many_per_thread<BLOCK>, 1, BLOCK, 0, stream, r->d_part[0], r->d_out,
                           (size_t)blocks);
    }
    /* Step 8 (see its comment above): one launch when one block covers n. */
    r->launches = r->n > (size_t)GPUH_REDUCE_BLOCK * GPUH_REDUCE_UNROLL * (sizeof(int4) / sizeof(int)) ? 2 : 1;
    return gpuh_sum(d_in, r->n, r->d_out, r->d_temp, stream);
}

/* Draws n fresh ints in [-16, 15] on the device (seeded), makes `copies`
   copies, allocates the partial buffers, result and scratch, and returns the
   exact CPU sum of the data in int64. */
static long long setup(ladder *r, size_t n, unsigned long long seed, int copies, unsigned step7_blocks)
{
    dim3 grid;
    long long sum = 0;
    int *h_x = (int *)malloc((n + 1) * sizeof(int));
    memset(r, 0, sizeof *r);
    r->n = n;
    r->copies = copies;
    r->step7_blocks = step7_blocks;
    r->part_count = gpuh_ceil_div(n, BLOCK);
    if (h_x == NULL) {
        printf("out of host memory\nResult = FAIL\n");
        exit(1);
    }
    GPUH_CHECK(gpuh_device_array(&r->d_copies[0], n));
    GPUH_CHECK(gpuh_random_u32(reinterpret_cast<unsigned *>(r->d_copies[0]), n, seed, 0));
    GPUH_CHECK(gpuh_grid_1d(&grid, n, 256));
    GPUH_CHECK(GPUH_LAUNCH(bits_to_small_ints, grid, 256, 0, 0, r->d_copies[0], n));
    GPUH_CHECK(gpuh_copy_to_host(h_x, r->d_copies[0], n));
    for (size_t i = 0; i < n; ++i)
        sum += h_x[i];
    free(h_x);
    for (int c = 1; c < copies; ++c) {
        GPUH_CHECK(gpuh_device_array(&r->d_copies[c], n));
        GPUH_CHECK(cudaMemcpy(r->d_copies[c], r->d_copies[0], n * sizeof(int), cudaMemcpyDeviceToDevice));
    }
    GPUH_CHECK(gpuh_device_array(&r->d_part[0], r->part_count));
    GPUH_CHECK(gpuh_device_array(&r->d_part[1], r->part_count));
    GPUH_CHECK(gpuh_device_array(&r->d_out, 1));
    GPUH_CHECK(gpuh_device_array(&r->d_temp, GPUH_REDUCE_TEMP_BYTES));
    return sum;
}

static void teardown(ladder *r)
{
    for (int c = 0; c < r->copies; ++c)
        GPUH_CHECK(gpuh_free(r->d_copies[c]));
    GPUH_CHECK(gpuh_free(r->d_part[0]));
    GPUH_CHECK(gpuh_free(r->d_part[1]));
    GPUH_CHECK(gpuh_free(r->d_out));
    GPUH_CHECK(gpuh_free(r->d_temp));
    memset(r, 0, sizeof *r);
}

/* Fills the result, the partial buffers and the scratch with POISON_BYTE, so
   that a value some launch failed to write cannot pass for a right one. */
static void poison(const ladder *r)
{
    GPUH_CHECK(cudaMemset(r->d_out, POISON_BYTE, sizeof(int)));
    GPUH_CHECK(cudaMemset(r->d_temp, POISON_BYTE, GPUH_REDUCE_TEMP_BYTES));
    for (int k = 0; k < 2; ++k)
        if (r->d_part[k] != NULL)
            GPUH_CHECK(cudaMemset(r->d_part[k], POISON_BYTE, r->part_count * sizeof(int)));
}

/* 1 if the value in r->d_out is `want`; else prints what it is. */
static int result_is(const ladder *r, long long want, const char *when)
{
    int got = 0;
    GPUH_CHECK(gpuh_copy_to_host(&got, r->d_out, 1)); /* waits for the reduction */
    if ((long long)got == want)
        return 1;
    printf("  WRONG: step %d, n = %zu, %s: got %d, the CPU sum is %lld\n", r->step, r->n, when, got, want);
    return 0;
}

struct copy_args {
    int *d_dst;
    const int *d_src;
    size_t n;
};
/* The ceiling: a device-to-device copy, which reads and writes every byte. */
static cudaError_t enqueue_copy(void *ctx, cudaStream_t stream)
{
    const copy_args *c = (const copy_args *)ctx;
    return cudaMemcpyAsync(c->d_dst, c->d_src, c->n * sizeof(int), cudaMemcpyDeviceToDevice, stream);
}

static const char *size_name(size_t n, char *buf, size_t cap)
{
    int k = 0;
    while (k < 63 && ((size_t)1 << k) < n)
        ++k;
    if (((size_t)1 << k) == n)
        snprintf(buf, cap, "2^%d", k);
    else
        snprintf(buf, cap, "%zu", n);
    return buf;
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("08_reduction_ladder"));
        return 77;
    }
    const unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    const int quick = quick_mode();
    const int WARMUP = quick ? 1 : 3, REPS = quick ? 3 : 30;
    const size_t sizes[2] = {(size_t)1 << (quick ? 18 : 22), (size_t)1 << 26};
    const int nsizes = quick ? 1 : 2;

    int dev = 0, sms = 0, l2_bytes = 0, per_sm = 0, ok = 1;
    struct cudaDeviceProp prop;
    GPUH_CHECK(cudaGetDevice(&dev));
    GPUH_CHECK(cudaGetDeviceProperties(&prop, dev));
    GPUH_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    GPUH_CHECK(cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, dev));
    /* Step 7's grid: as many blocks as fit on the GPU at once, so every SM is
       busy and no block waits for a second wave. */
    GPUH_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, reduce7_many_per_thread<BLOCK>, BLOCK, 0));
    const unsigned step7_blocks = (unsigned)(sms * (per_sm > 0 ? per_sm : 1));

    printf("Reduction ladder (Harris 2007) on %s: %d SMs, %.0f MiB L2\n", prop.name, sms, l2_bytes / 1048576.0);
    printf("seed %llu (set GPUH_SEED to repeat)%s\n", seed, quick ? "; quick mode (GPUH_TEST_QUICK)" : "");
    printf("int32 data uniform in [-16, 15]; block %u threads; step 7 grid %u blocks (%d per SM); "
           "median of %d runs after %d\n",
           BLOCK, step7_blocks, per_sm, REPS, WARMUP);

    float ms[2][STEPS];
    int launches[2][STEPS];
    double copy_gbs = 0.0;
    ladder r;
    for (int z = 0; z < nsizes; ++z) {
        const size_t n = sizes[z], bytes = n * sizeof(int);
        /* Rotate over copies totalling >= 4x the L2, so no run finds its input cached. */
        size_t want = gpuh_ceil_div(4 * (size_t)l2_bytes, bytes);
        const int copies = want < 1 ? 1 : want > (size_t)MAX_COPIES ? MAX_COPIES : (int)want;
        const long long ref = setup(&r, n, seed + z, copies, step7_blocks);
        char nb[32];
        printf("n = %s ints (%.1f MB): CPU sum %lld; %d cop%s of the input rotated (%.0f MB)\n",
               size_name(n, nb, sizeof nb), bytes / 1e6, ref, copies, copies == 1 ? "y" : "ies",
               copies * bytes / 1e6);
        for (int s = 1; s <= STEPS; ++s) {
            r.step = s;
            poison(&r);
            GPUH_CHECK(enqueue_step(&r, 0));
            ok &= result_is(&r, ref, "first run");
            poison(&r);
            GPUH_CHECK(gpuh_time_median_ms(enqueue_step, &r, 0, WARMUP, REPS, &ms[z][s - 1]));
            ok &= result_is(&r, ref, "last timed run");
            launches[z][s - 1] = r.launches;
        }
        if (z == 1) { /* the ceiling, on the large size */
            copy_args c;
            float copy_ms = 0.0f;
            c.d_src = r.d_copies[0];
            c.n = n;
            GPUH_CHECK(gpuh_device_array(&c.d_dst, n));
            GPUH_CHECK(gpuh_time_median_ms(enqueue_copy, &c, 0, WARMUP, REPS, &copy_ms));
            GPUH_CHECK(gpuh_free(c.d_dst));
            copy_gbs = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;
        }
        teardown(&r);
    }

    /* Untimed: every step at sizes that are not multiples of anything. */
    const size_t awkward[] = {0, 1, 33, 1025, 100003, ((size_t)1 << 20) + 3};
    const int nawk = (int)(sizeof awkward / sizeof awkward[0]);
    int awkward_ok = 1;
    for (int a = 0; a < nawk; ++a) {
        const long long ref = setup(&r, awkward[a], seed + 2 + a, 1, step7_blocks);
        for (int s = 1; s <= STEPS; ++s) {
            r.step = s;
            poison(&r);
            GPUH_CHECK(enqueue_step(&r, 0));
            awkward_ok &= result_is(&r, ref, "awkward size");
        }
        teardown(&r);
    }
    ok &= awkward_ok;

    /* The table: two rows per step (the two sizes), the paper beside the 2^22 row. */
    printf("\n%-4s %-29s %-5s %7s %9s %8s %7s %8s | %s\n", "", "", "", "", "", "", "", "",
           "paper: G80, 2^22 ints");
    printf("%-4s %-29s %-5s %7s %9s %8s %7s %8s | %7s %7s %7s %8s\n", "step", "name", "n", "kernels", "time ms",
           "GB/s", "step x", "cumul x", "ms", "GB/s", "step x", "cumul x");
    for (int s = 1; s <= STEPS; ++s) {
        for (int z = 0; z < nsizes; ++z) {
            const double t = ms[z][s - 1], gbs = 4.0 * sizes[z] / (t * 1e-3) / 1e9;
            char num[8] = "", nb[32], stepx[16] = "-", paper[64] = "";
            if (z == 0)
                snprintf(num, sizeof num, "%d", s);
            if (s > 1)
                snprintf(stepx, sizeof stepx, "%.2fx", ms[z][s - 2] / t);
            if (z == 0 && s <= 7 && !quick) {
                const double *p = PAPER_G80[s - 1];
                char px[16] = "-";
                if (s > 1)
                    snprintf(px, sizeof px, "%.2fx", p[2]);
                snprintf(paper, sizeof paper, "%7.3f %7.3f %7s %7.2fx", p[0], p[1], px, p[3]);
            }
            printf("%-4s %-29s %-5s %7d %9.4f %8.1f %7s %7.2fx | %s\n", num, z == 0 ? STEP_NAMES[s - 1] : "",
                   size_name(sizes[z], nb, sizeof nb), launches[z][s - 1], t, gbs, stepx, ms[z][0] / t, paper);
        }
    }
    printf("GB/s counts the 4n bytes read once; \"kernels\" is the launches one reduction makes.\n");
    printf("Every result equals the exact CPU sum (first run and last timed run, both sizes): %s\n",
           ok ? "yes" : "NO");
    printf("Also exact, untimed, at n = 0, 1, 33, 1025, 100003, 2^20 + 3, every step: %s\n",
           awkward_ok ? "yes" : "NO");

    if (!quick) {
        const double small_us = 1e3 * ms[0][STEPS - 1], read_us = 4.0 * sizes[0] / copy_gbs / 1e3;
        const double big_gbs8 = 4.0 * sizes[1] / (ms[1][STEPS - 1] * 1e-3) / 1e9;
        const double big_gbs1 = 4.0 * sizes[1] / (ms[1][0] * 1e-3) / 1e9;
        printf("\nCeiling: a device-to-device copy of 2^26 ints moves %.0f GB/s (read + write counted).\n",
               copy_gbs);
        printf("What differs on Hopper:\n");
        printf("- The paper's 2^22 ints are 16.8 MB, which this GPU streams in about %.1f us at that rate.\n"
               "  Steps 1-6 chain %d dependent launches, and even step 8 takes %.1f us: each launch has a\n"
               "  fixed cost of microseconds (start, filling %d SMs, draining the last blocks), so at the\n"
               "  paper's size fixed costs are a large part of every time and the ladder is squeezed:\n"
               "  step 8 is %.1fx step 1 at 2^22 but %.1fx at 2^26. The large size tells more.\n",
               read_us, launches[0][0], small_us, sms, ms[0][0] / ms[0][STEPS - 1], ms[1][0] / ms[1][STEPS - 1]);
        printf("- At 2^26 ints (268 MB) the bytes dominate: step 8 reads %.0f GB/s, %.0f%% of the copy rate;\n"
               "  steps 1 to 7 gain %.1fx together (the G80: 30.04x at 2^22), and step 8 another %.2fx.\n",
               big_gbs8, 100.0 * big_gbs8 / copy_gbs, ms[1][0] / ms[1][6], ms[1][6] / ms[1][7]);
        printf("- Divergence, bank conflicts and barriers still cost (warps are still 32 lanes, shared memory\n"
               "  still 32 banks): step 1 reads %.0f GB/s at 2^26, %.1f%% of the copy rate.\n",
               big_gbs1, 100.0 * big_gbs1 / copy_gbs);
        printf("- The G80's best (kernel 7) took 268 us on 2^22 ints at 62.7 of its 86.4 GB/s; step 8 here\n"
               "  takes %.1f us on the same size, and streams %.0fx the G80's bandwidth at 2^26.\n",
               small_us, big_gbs8 / 62.671);
    }

    if (gpuh_print_allocations(NULL) != 0) {
        printf("device memory is still allocated at exit (listed above)\n");
        ok = 0;
    }
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
