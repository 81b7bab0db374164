/* 09_stream_timeline.cu - copies overlapping compute, seen through CUDA events.

   Teaches: what a pipeline of streams buys, and how to see it. A GPU has
   engines that work at the same time: a copy engine for each direction of
   the host link and the SMs. Work on one stream runs in order; work on
   different streams may overlap. gpuh_pipeline cuts the arrays into chunks
   and deals them out to 4 streams, so the copy in of chunk i+1, the kernel on
   chunk i and the copy out of chunk i-1 run at once; CUDA events recorded
   between them say when each ran (gpuh_pipeline_desc.chunks).

   Part 1, kernel time = copy time. y = f(x) with f a chain of `iters` fused
   multiply-adds per element, iters calibrated here so that the kernel on the
   whole array takes as long as copying x in and y out (pinned, one after the
   other). Copy-then-compute-then-copy on one stream takes copy + kernel, about
   twice the copy; the pipeline about max(copy in, kernel, copy out), the copy
   time: at best 2x. Target: >= 1.8x.
   Part 2, copy-bound. c = a + b, 12 bytes moved per element for one add.
   The pipeline against the pure transfer time of the data: the host-to-device
   copies of a and b and the device-to-host copy of c, pinned, back to back on
   one stream, nothing else. Target: within 10% of it. Printed beside it: the
   same copies with c's copy out on a second stream, overlapping a's and b's
   copies in (two copy engines): the floor for any schedule.

   Measures: medians of REPS runs (after one warm-up) between CUDA events on
   stream 0, which gpuh_pipeline's streams wait for and which waits for them:
   the pipeline is timed whole, allocations included. Then one more run with
   per-chunk events gives the timeline: a text strip per stream (H copy in,
   K kernel, D copy out) and per engine, and the overlap ratio, the busy time
   of the copy-in, compute and copy-out engines summed over the wall time
   (1: nothing overlaps; 3: all three busy all the time). The targets are
   reported as measured, never asserted; on gpuh's CPU simulator they are
   left out, since its times are the CPU's.
   Checks: the pipeline's y equals the serial y bit for bit, and both equal a
   CPU fmaf chain on every 16384th element; c equals a + b bit for bit.
   Quick mode (GPUH_TEST_QUICK=1, the small-size switch every example takes;
   scripts/gpu_check.sh sets it under compute-sanitizer): N = 2^20 + 3 in
   chunks of 2^16 (the last one short), at most 64 FMAs per element; the
   checks are the same, the times mean nothing. */
#include <algorithm>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include "gpuh.h"
#include "quick_mode.h"
#include "gpuh_kernels.cuh"

#define REPS 5
#define STREAMS 4
static size_t N = (size_t)1 << 27;     /* elements: 512 MiB per float array */
static size_t CHUNK = (size_t)1 << 22; /* 16 MiB per array per chunk: 32 chunks */

/* y[i] = v after `iters` steps of v <- v * 0.9999 + 0.0001 (one fmaf each),
   from v = x[i]: compute-bound by choice, 8 bytes of memory traffic against
   `iters` dependent FMAs per element. Each thread takes elements i, i +
   stride, ... (grid-stride loop); any 1-D grid, no shared memory. */
__global__ void fma_chain_kernel(const float *g_x, float *g_y, size_t n, int iters)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride()) {
        float v = g_x[i];
        for (int k = 0; k < iters; ++k)
            v = fmaf(v, 0.9999f, 0.0001f);
        g_y[i] = v;
    }
}

static cudaError_t launch_chain(const float *d_x, float *d_y, size_t n, int iters, cudaStream_t stream)
{
    dim3 grid;
    cudaError_t err = gpuh_grid_1d(&grid, n, 256);
    return err != cudaSuccess ? err : GPUH_LAUNCH(fma_chain_kernel, grid, 256, 0, stream, d_x, d_y, n, iters);
}

/* Everything the timed pieces of work use: host arrays pinned. */
struct workload {
    float *p_x, *p_y, *d_x, *d_y;        /* part 1 */
    float *p_a, *p_b, *p_c, *d_a, *d_b, *d_c; /* part 2 */
    int iters;
    cudaStream_t in_stream, out_stream;  /* part 2's two-engine floor */
    gpuh_pipeline_chunk *chunks;         /* NULL while timing */
};

/* ---- The launchers gpuh_pipeline calls for each chunk. */
static cudaError_t chain_chunk(const void *const *d_in, void *const *d_out, size_t count, size_t,
                               cudaStream_t stream, void *user)
{
    return launch_chain((const float *)d_in[0], (float *)d_out[0], count, ((workload *)user)->iters, stream);
}
static cudaError_t add_chunk(const void *const *d_in, void *const *d_out, size_t count, size_t,
                             cudaStream_t stream, void *)
{
    return gpuh_vector_add((const float *)d_in[0], (const float *)d_in[1], (float *)d_out[0], count, stream);
}

static gpuh_pipeline_desc pipeline_of(workload *w, int part)
{
    gpuh_pipeline_desc d;
    memset(&d, 0, sizeof d);
    d.n = N;
    d.chunk = CHUNK;
    d.streams = STREAMS;
    d.in[0] = part == 1 ? w->p_x : w->p_a;
    d.in_elem_bytes[0] = sizeof(float);
    if (part == 2) {
        d.in[1] = w->p_b;
        d.in_elem_bytes[1] = sizeof(float);
    }
    d.out[0] = part == 1 ? w->p_y : w->p_c;
    d.out_elem_bytes[0] = sizeof(float);
    d.launch = part == 1 ? chain_chunk : add_chunk;
    d.user = w;
    d.chunks = w->chunks;
    d.chunks_capacity = w->chunks ? gpuh_ceil_div(N, CHUNK) : 0;
    return d;
}

/* ---- The pieces of work gpuh_time_median_ms times (on stream 0). */
static cudaError_t copy_in(void *ctx, cudaStream_t s)
{
    workload *w = (workload *)ctx;
    return gpuh_copy_to_device_async(w->d_x, w->p_x, N, s);
}
static cudaError_t copy_out(void *ctx, cudaStream_t s)
{
    workload *w = (workload *)ctx;
    return gpuh_copy_to_host_async(w->p_y, w->d_y, N, s);
}
static cudaError_t kernel_only(void *ctx, cudaStream_t s)
{
    workload *w = (workload *)ctx;
    return launch_chain(w->d_x, w->d_y, N, w->iters, s);
}
static cudaError_t serial(void *ctx, cudaStream_t s) /* copy, then compute, then copy */
{
    cudaError_t err = copy_in(ctx, s);
    if (err == cudaSuccess)
        err = kernel_only(ctx, s);
    return err != cudaSuccess ? err : copy_out(ctx, s);
}
static cudaError_t pipeline_1(void *ctx, cudaStream_t)
{
    gpuh_pipeline_desc d = pipeline_of((workload *)ctx, 1);
    return gpuh_pipeline(&d);
}
static cudaError_t pure_transfer(void *ctx, cudaStream_t s) /* a in, b in, c out, back to back */
{
    workload *w = (workload *)ctx;
    cudaError_t err = gpuh_copy_to_device_async(w->d_a, w->p_a, N, s);
    if (err == cudaSuccess)
        err = gpuh_copy_to_device_async(w->d_b, w->p_b, N, s);
    return err != cudaSuccess ? err : gpuh_copy_to_host_async(w->p_c, w->d_c, N, s);
}
/* a and b in on one stream while c goes out on another. Both streams are
   blocking (cudaStreamDefault): they start after the timer's start event on
   stream 0, and its stop event waits for both. */
static cudaError_t two_engines(void *ctx, cudaStream_t)
{
    workload *w = (workload *)ctx;
    cudaError_t err = gpuh_copy_to_device_async(w->d_a, w->p_a, N, w->in_stream);
    if (err == cudaSuccess)
        err = gpuh_copy_to_device_async(w->d_b, w->p_b, N, w->in_stream);
    return err != cudaSuccess ? err : gpuh_copy_to_host_async(w->p_c, w->d_c, N, w->out_stream);
}
static cudaError_t pipeline_2(void *ctx, cudaStream_t)
{
    gpuh_pipeline_desc d = pipeline_of((workload *)ctx, 2);
    return gpuh_pipeline(&d);
}

static float time_ms(gpuh_work_fn fn, workload *w)
{
    float ms = 0;
    GPUH_CHECK(gpuh_time_median_ms(fn, w, 0, 1, REPS, &ms));
    return ms;
}

/* ---- The timeline. */

/* Total length of the union of [begin, end) intervals. */
static double busy_ms(std::vector<std::pair<float, float>> v)
{
    std::sort(v.begin(), v.end());
    double total = 0, end = -1e30;
    for (auto &iv : v) {
        const double b = std::max<double>(iv.first, end);
        if (iv.second > b)
            total += iv.second - b;
        end = std::max<double>(end, iv.second);
    }
    return total;
}

/* One strip per stream (H, K, D or . at the middle of each column's time
   slice), one per engine (# busy), the per-chunk table if asked, and the
   overlap ratio, which it returns. */
static double print_timeline(const gpuh_pipeline_chunk *c, size_t count, bool table)
{
    const int width = 96;
    float wall = 0;
    std::vector<std::pair<float, float>> engine[3];
    for (size_t i = 0; i < count; ++i) {
        wall = std::max(wall, c[i].d2h_end_ms);
        engine[0].push_back({c[i].h2d_begin_ms, c[i].h2d_end_ms});
        engine[1].push_back({c[i].h2d_end_ms, c[i].kernel_end_ms});
        engine[2].push_back({c[i].kernel_end_ms, c[i].d2h_end_ms});
    }
    if (table) {
        printf("  %5s %6s %10s %8s %10s %10s %10s %10s\n", "chunk", "stream", "first", "count", "in from",
               "in to", "kernel to", "out to");
        for (size_t i = 0; i < count; ++i)
            printf("  %5zu %6d %10zu %8zu %10.3f %10.3f %10.3f %10.3f\n", i, c[i].stream, c[i].first, c[i].count,
                   c[i].h2d_begin_ms, c[i].h2d_end_ms, c[i].kernel_end_ms, c[i].d2h_end_ms);
    }
    printf("  %-10s 0 ms %*s%.2f ms\n", "", width - 10, "", wall);
    for (int s = 0; s < STREAMS; ++s) {
        char row[width + 1];
        for (int col = 0; col < width; ++col) {
            const float t = (col + 0.5f) * wall / width;
            row[col] = '.';
            for (size_t i = 0; i < count; ++i)
                if (c[i].stream == s && c[i].h2d_begin_ms <= t && t < c[i].d2h_end_ms)
                    row[col] = t < c[i].h2d_end_ms ? 'H' : t < c[i].kernel_end_ms ? 'K' : 'D';
        }
        row[width] = '\0';
        printf("  stream %-3d|%s|\n", s, row);
    }
    static const char *const names[3] = {"copy in", "compute", "copy out"};
    double sum = 0;
    for (int e = 0; e < 3; ++e) {
        char row[width + 1];
        for (int col = 0; col < width; ++col) {
            const float t = (col + 0.5f) * wall / width;
            row[col] = '.';
            for (auto &iv : engine[e])
                if (iv.first <= t && t < iv.second)
                    row[col] = '#';
        }
        row[width] = '\0';
        const double b = busy_ms(engine[e]);
        sum += b;
        printf("  %-10s|%s| busy %.2f ms\n", names[e], row, b);
    }
    printf("  overlap ratio (busy time of the three engines / wall time) = %.2f / %.2f = %.2f\n", sum, wall,
           sum / wall);
    return sum / wall;
}

int main(void)
{
    const char *why;
    if (gpuh_device_count(&why) == 0) {
        printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("09_stream_timeline"));
        return 77;
    }
#ifdef GPUH_SIM
    /* The simulator runs copies and kernels one after another on the CPU: its
       times show the schedule, not what a GPU's engines would overlap. */
    const bool on_gpu = false;
    printf("On gpuh's CPU simulator the GPU targets are left out: its times say nothing of a GPU's engines.\n");
#else
    const bool on_gpu = true;
#endif
    unsigned long long seed = gpuh_random_seed(); /* GPUH_SEED repeats a run */
    printf("seed %llu (set GPUH_SEED to repeat)\n", seed);
    const bool quick = quick_mode(); /* quick mode: see the top comment */
    if (quick) {
        N = ((size_t)1 << 20) + 3;
        CHUNK = (size_t)1 << 16;
    }
    const size_t count = gpuh_ceil_div(N, CHUNK);
    std::vector<gpuh_pipeline_chunk> chunks(count);
    std::vector<float> y_serial(N);
    workload w;
    memset(&w, 0, sizeof w);
    int ok = 1;

    /* ================= Part 1: kernel time = copy time ================= */
    GPUH_CHECK(gpuh_pinned_array(&w.p_x, N));
    GPUH_CHECK(gpuh_pinned_array(&w.p_y, N));
    GPUH_CHECK(gpuh_device_array(&w.d_x, N));
    GPUH_CHECK(gpuh_device_array(&w.d_y, N));
    GPUH_CHECK(cudaMemset(w.d_y, 0, N * sizeof(float))); /* copy_out is timed before any kernel writes y */
    GPUH_CHECK(gpuh_random_uniform_f32(w.d_x, N, seed, 0)); /* x in (0, 1] */
    GPUH_CHECK(gpuh_copy_to_host(w.p_x, w.d_x, N));

    /* Calibrate: the kernel's time is about a + b * iters; solve for the
       copy time from two points. */
    const float in_ms = time_ms(copy_in, &w), out_ms = time_ms(copy_out, &w);
    w.iters = 256;
    const float k1 = time_ms(kernel_only, &w);
    w.iters = 1024;
    const float k2 = time_ms(kernel_only, &w);
    double per_iter = (k2 - k1) / 768.0, fixed = k1 - 256 * per_iter;
    if (per_iter <= 0) /* timing noise: fall back to proportional */
        per_iter = k2 / 1024.0, fixed = 0;
    w.iters = (int)std::min(quick ? 64.0 : 1e6, std::max(1.0, std::round((in_ms + out_ms - fixed) / per_iter)));
    const float kernel_ms = time_ms(kernel_only, &w);

    const float serial_ms = time_ms(serial, &w);
    memcpy(y_serial.data(), w.p_y, N * sizeof(float));
    const float pipe_ms = time_ms(pipeline_1, &w);
    memset(w.p_y, 0xFF, N * sizeof(float)); /* poison, then the run with per-chunk events */
    w.chunks = chunks.data();
    GPUH_CHECK(pipeline_1(&w, 0));
    w.chunks = NULL;

    size_t bad = 0, bad_cpu = 0;
    for (size_t i = 0; i < N; ++i)
        bad += memcmp(&w.p_y[i], &y_serial[i], sizeof(float)) != 0;
    for (size_t i = 0; i < N; i += 16384) {
        float v = w.p_x[i];
        for (int k = 0; k < w.iters; ++k)
            v = fmaf(v, 0.9999f, 0.0001f);
        bad_cpu += memcmp(&v, &y_serial[i], sizeof v) != 0;
    }
    if (bad || bad_cpu) {
        printf("part 1: %zu elements differ between pipeline and serial, %zu of %zu samples from the CPU\n", bad,
               bad_cpu, gpuh_ceil_div(N, 16384));
        ok = 0;
    }

    printf("\nPart 1: y = %d chained FMAs of x, n = %zu floats (%.0f MB per array), %zu chunks of %zu on %d "
           "streams, pinned\n",
           w.iters, N, N * 4 / 1e6, count, CHUNK, STREAMS);
    printf("  %-52s %9.2f ms\n", "copy x in (host to device)", in_ms);
    printf("  %-52s %9.2f ms\n", "copy y out (device to host)", out_ms);
    printf("  %-52s %9.2f ms  (calibrated to the two copies: %.2f ms)\n", "kernel", kernel_ms, in_ms + out_ms);
    printf("  %-52s %9.2f ms\n", "copy, then compute, then copy (one stream)", serial_ms);
    printf("  %-52s %9.2f ms\n", "gpuh_pipeline (allocations included)", pipe_ms);
    const float best = (in_ms + kernel_ms + out_ms) / std::max(std::max(in_ms, out_ms), kernel_ms);
    printf("  speedup %.2fx (%sat best (in + kernel + out) / max(in, kernel, out) = %.2fx)\n", serial_ms / pipe_ms,
           on_gpu ? "target >= 1.8x; " : "", best);
    printf("Timeline of one more run (events at each chunk's steps; H copy in, K kernel, D copy out):\n");
    print_timeline(chunks.data(), count, true);

    for (float *p : {w.p_x, w.p_y, w.d_x, w.d_y})
        GPUH_CHECK(gpuh_free(p));

    /* ================= Part 2: copy-bound, c = a + b ================= */
    GPUH_CHECK(gpuh_pinned_array(&w.p_a, N));
    GPUH_CHECK(gpuh_pinned_array(&w.p_b, N));
    GPUH_CHECK(gpuh_pinned_array(&w.p_c, N));
    GPUH_CHECK(gpuh_device_array(&w.d_a, N));
    GPUH_CHECK(gpuh_device_array(&w.d_b, N));
    GPUH_CHECK(gpuh_device_array(&w.d_c, N));
    GPUH_CHECK(gpuh_random_uniform_f32(w.d_a, N, seed + 1, 0));
    GPUH_CHECK(gpuh_random_uniform_f32(w.d_b, N, seed + 2, 0));
    GPUH_CHECK(gpuh_random_uniform_f32(w.d_c, N, seed + 3, 0)); /* what the copy out moves while timed */
    GPUH_CHECK(gpuh_copy_to_host(w.p_a, w.d_a, N));
    GPUH_CHECK(gpuh_copy_to_host(w.p_b, w.d_b, N));
    GPUH_CHECK(gpuh_stream_create(&w.in_stream, cudaStreamDefault, 0));
    GPUH_CHECK(gpuh_stream_create(&w.out_stream, cudaStreamDefault, 0));

    const float pure_ms = time_ms(pure_transfer, &w);
    const float overlap_ms = time_ms(two_engines, &w);
    const float pipe2_ms = time_ms(pipeline_2, &w);
    memset(w.p_c, 0xFF, N * sizeof(float));
    w.chunks = chunks.data();
    GPUH_CHECK(pipeline_2(&w, 0));
    w.chunks = NULL;
    bad = 0;
    for (size_t i = 0; i < N; ++i) {
        const float want = w.p_a[i] + w.p_b[i];
        bad += memcmp(&want, &w.p_c[i], sizeof want) != 0;
    }
    if (bad) {
        printf("part 2: %zu elements of c differ from a + b\n", bad);
        ok = 0;
    }

    const double moved = 3.0 * N * sizeof(float);
    printf("\nPart 2: c = a + b, n = %zu floats, %.0f MB moved, %zu chunks of %zu on %d streams, pinned\n", N,
           moved / 1e6, count, CHUNK, STREAMS);
    printf("  %-52s %9.2f ms  (%.1f GB/s)\n", "pure transfer: a in, b in, c out, pinned, 1 stream", pure_ms,
           moved / (pure_ms * 1e-3) / 1e9);
    printf("  %-52s %9.2f ms  (%.1f GB/s)\n", "two copy engines: c out beside a and b in", overlap_ms,
           moved / (overlap_ms * 1e-3) / 1e9);
    printf("  %-52s %9.2f ms  (%.1f GB/s)\n", "gpuh_pipeline (allocations included)", pipe2_ms,
           moved / (pipe2_ms * 1e-3) / 1e9);
    printf("  pipeline / pure transfer = %.3f%s; pipeline / two copy engines = %.3f\n", pipe2_ms / pure_ms,
           on_gpu ? " (target <= 1.10)" : "", pipe2_ms / overlap_ms);
    printf("Timeline of one more run:\n");
    print_timeline(chunks.data(), count, false);

    GPUH_CHECK(gpuh_stream_destroy(&w.in_stream));
    GPUH_CHECK(gpuh_stream_destroy(&w.out_stream));
    for (float *p : {w.p_a, w.p_b, w.p_c, w.d_a, w.d_b, w.d_c})
        GPUH_CHECK(gpuh_free(p));
    if (gpuh_print_allocations(NULL) != 0)
        ok = 0;
    printf("Results equal their references bit for bit: %s\n", ok ? "yes" : "NO");
    printf("Result = %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
