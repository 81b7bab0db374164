/* bench/launch_overhead.cu - what gpuh adds to a kernel launch, against a raw
   <<< >>> launch of the same kernel in the same run, with gpuh's NVTX ranges
   compiled in or out and with or without a tool listening to them.

   What it measures. Three calls, each enqueuing one small kernel:
     raw <<< >>>          an empty kernel, grid 1, block 32
     GPUH_LAUNCH          the same kernel through GPUH_LAUNCH (the shape's
                          checks, the thread's launch record, the error check)
     gpuh_vector_add      a gpuh launcher on 32 floats: its range, its argument
                          checks, the allocation ledger's look-up, its launch
   per call, two figures:
     host us/call         the host's time to enqueue a batch of BATCH calls
                          (steady clock, no wait inside the batch) / BATCH: the
                          cost a caller's thread pays, which is what the ranges
                          add to
     stream us/launch     CUDA events around the same batch / BATCH: the time
                          the stream takes per launch, back to back
   Each figure is the median of ROUNDS rounds after a warm-up round; a round
   runs the three calls in a rotated order, and waits for the stream after
   each batch (so no batch waits on a full launch queue).

   The build decides the ranges: the CMake target gpuh_launch_overhead has
   them (GPUH_NVTX=1), gpuh_launch_overhead_nonvtx is the same file with
   -DGPUH_NVTX=0. With them on, a tool that loads through NVTX's injection
   (NVTX_INJECTION64_PATH: Nsight's, or tests/nvtx_inject.c's recorder)
   receives every range; without one, each range is a load and a branch.
   Both programs are header-only (gpuh_vector_add compiled here), so the
   setting covers the launcher too. scripts/gpu_check.sh --bench runs the
   three ways into bench/results/launch_overhead.txt.

   Target: GPUH_LAUNCH within 0.5 us of the raw launch (host us/call), in
   every build. Never a timed assertion: the exit code says only whether
   every launch succeeded and the vector add's result is right. */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "gpuh.h"
#include "gpuh_kernels.cuh"

namespace {

/* Calls per timed batch: few enough that the runtime's launch queue never
   fills, where the host would wait for the GPU and time the GPU instead. */
const int BATCH = 64;
const int ROUNDS = 201; /* timed rounds (odd: a middle element) */
const size_t ADD_N = 32;  /* gpuh_vector_add's elements */
const double TARGET_US = 0.5;

__global__ void empty_kernel(int *p)
{
    if (p == NULL) /* never true: keeps the launch's argument */
        *p = 0;
}

enum Call { RAW, GPUH, ADD, CALLS };
const char *const call_names[CALLS] = {"raw <<< >>>", "GPUH_LAUNCH", "gpuh_vector_add (32 floats)"};

struct Buffers {
    int *flag;
    float *a, *b, *c;
};

/* One call of kind `c` on stream s: its error. */
cudaError_t one_call(Call c, const Buffers &d, cudaStream_t s)
{
    switch (c) {
    case RAW:
        empty_kernel<<<1, 32, 0, s>>>(d.flag);
        return cudaGetLastError();
    case GPUH:
        return GPUH_LAUNCH(empty_kernel, 1, 32, 0, s, d.flag);
    default:
        return gpuh_vector_add(d.a, d.b, d.c, ADD_N, s);
    }
}

/* A batch of BATCH calls of kind c: host and stream time per call, in us. */
cudaError_t batch(Call c, const Buffers &d, cudaStream_t s, cudaEvent_t e0, cudaEvent_t e1, double *host_us,
                  double *stream_us)
{
    cudaError_t err = cudaEventRecord(e0, s);
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < BATCH && err == cudaSuccess; ++i)
        err = one_call(c, d, s);
    const auto t1 = std::chrono::steady_clock::now();
    if (err == cudaSuccess)
        err = cudaEventRecord(e1, s);
    if (err == cudaSuccess)
        err = cudaEventSynchronize(e1);
    float ms = 0.0f;
    if (err == cudaSuccess)
        err = cudaEventElapsedTime(&ms, e0, e1);
    *host_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / BATCH;
    *stream_us = 1e3 * ms / BATCH;
    return err;
}

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main()
{
    const char *why = "";
    if (gpuh_device_count(&why) == 0) {
        printf("launch_overhead: no CUDA device: %s\n", why);
        return 77;
    }
    GPUH_CHECK(gpuh_select_device(0));
    cudaDeviceProp prop;
    int dev = 0, runtime = 0;
    GPUH_CHECK(cudaGetDevice(&dev));
    GPUH_CHECK(cudaGetDeviceProperties(&prop, dev));
    GPUH_CHECK(cudaRuntimeGetVersion(&runtime));
    const char *tool = getenv("NVTX_INJECTION64_PATH");
    printf("gpuh launch overhead: %s, CUDA runtime %d.%d; NVTX ranges %s%s%s\n", prop.name, runtime / 1000,
           runtime % 1000 / 10, GPUH_NVTX ? "compiled in (GPUH_NVTX=1), " : "compiled out (GPUH_NVTX=0)",
           GPUH_NVTX ? (tool != NULL && *tool != '\0' ? "a tool attached: " : "no tool attached") : "",
           GPUH_NVTX && tool != NULL ? tool : "");
    printf("batches of %d calls, median of %d rounds; host: steady clock over the enqueuing, stream: CUDA events\n\n",
           BATCH, ROUNDS);

    Buffers d;
    std::vector<float> ha(ADD_N), hb(ADD_N), hc(ADD_N);
    for (size_t i = 0; i < ADD_N; ++i)
        ha[i] = (float)i - 7.25f, hb[i] = 0.5f * (float)i;
    GPUH_CHECK(gpuh_device_array(&d.flag, 1));
    GPUH_CHECK(gpuh_to_device(&d.a, ha.data(), ADD_N));
    GPUH_CHECK(gpuh_to_device(&d.b, hb.data(), ADD_N));
    GPUH_CHECK(gpuh_device_array(&d.c, ADD_N));
    cudaStream_t s;
    cudaEvent_t e0, e1;
    GPUH_CHECK(gpuh_stream_create(&s, cudaStreamNonBlocking, 0));
    GPUH_CHECK(cudaEventCreate(&e0));
    GPUH_CHECK(cudaEventCreate(&e1));

    std::vector<double> host[CALLS], stream[CALLS];
    double h, t;
    for (int c = 0; c < CALLS; ++c) /* warm-up: module load, clocks */
        GPUH_CHECK(batch((Call)c, d, s, e0, e1, &h, &t));
    for (int r = 0; r < ROUNDS; ++r)
        for (int i = 0; i < CALLS; ++i) {
            const int c = (r + i) % CALLS;
            GPUH_CHECK(batch((Call)c, d, s, e0, e1, &h, &t));
            host[c].push_back(h);
            stream[c].push_back(t);
        }
    GPUH_CHECK(gpuh_copy_to_host(hc.data(), d.c, ADD_N));
    int wrong = 0;
    for (size_t i = 0; i < ADD_N; ++i)
        wrong += hc[i] != ha[i] + hb[i];

    double hm[CALLS];
    printf("%-30s %14s %18s\n", "call", "host us/call", "stream us/launch");
    for (int c = 0; c < CALLS; ++c) {
        hm[c] = median(host[c]);
        printf("%-30s %14.3f %18.3f\n", call_names[c], hm[c], median(stream[c]));
    }
    const double over = hm[GPUH] - hm[RAW];
    printf("\n==== launch-overhead targets (host us per call, this build)\n");
    printf("  GPUH_LAUNCH - raw <<< >>>                    %7.3f   target <= %.1f    %s\n", over, TARGET_US,
           over <= TARGET_US ? "met" : "MISSED");
    printf("  gpuh_vector_add - GPUH_LAUNCH                %7.3f   (informational: the launcher's checks%s)\n",
           hm[ADD] - hm[GPUH], GPUH_NVTX ? " and range" : "");
    printf("  checks: %s\n", wrong == 0 ? "vector add right" : "vector add WRONG");

    GPUH_CHECK(cudaEventDestroy(e0));
    GPUH_CHECK(cudaEventDestroy(e1));
    GPUH_CHECK(gpuh_stream_destroy(&s));
    GPUH_CHECK(gpuh_free(d.flag));
    GPUH_CHECK(gpuh_free(d.a));
    GPUH_CHECK(gpuh_free(d.b));
    GPUH_CHECK(gpuh_free(d.c));
    return wrong == 0 ? 0 : 1;
}
