/* multi_gpu.cu - gpuh on several GPUs against its peers, in one run:
     1. all-reduce bus bandwidth, gpuh_all_reduce against ncclAllReduce called
        directly on the same communicators, streams and buffers (float sum,
        out of place), 1 MiB to 1 GiB per device;
     2. the speed-up of the kernels on shards on all visible devices against
        the same call on one device: split vector add (2^28 floats per
        operand), sum (2^30 floats) and GEMM (8192³ float, split by rows of C).
   Method: inputs random (cuRAND, on each device), resident before timing;
   each timed run is the call plus a synchronisation of every device, timed
   on the host's steady clock; median of REPS runs after WARMUP; the two
   all-reduces alternate run by run so that drift hits both alike. Bus
   bandwidth as nccl-tests defines it for all-reduce: algbw = bytes / time,
   busbw = algbw · 2(n-1)/n for n devices (the bytes each link carries in a
   ring, so that the figure compares with the link speed).
   Targets (printed beside the figures, never asserted): speed-up ≥ 1.9x on
   2 GPUs, ≥ 3.6x on 4; gpuh's all-reduce ≥ 0.95x NCCL's bus bandwidth at
   256 MiB. NVLink multicast stays off: NCCL_NVLS_ENABLE=0 unless set.

   ./build/gpuh_multi_gpu           (GPUH_TEST_QUICK=1: small sizes, a smoke run) */
#include <algorithm>
#include <chrono>
#include <stdio.h>
#include <stdlib.h>
#include <vector>
#include "gpuh.h"
#include "gpuh_kernels.cuh"

#ifndef GPUH_USE_NCCL
#error "bench/multi_gpu.cu compares against NCCL: build with GPUH_USE_NCCL (CMake: link gpuh::nccl)"
#endif

static int REPS = 20, WARMUP = 3;

/* Median host milliseconds of fn() followed by a synchronisation of every device of `set`. */
template <typename F> static double median_ms(const gpuh_devices *set, F fn)
{
    std::vector<double> t;
    for (int k = 0; k < WARMUP + REPS; ++k) {
        GPUH_CHECK(gpuh_devices_sync(set));
        auto a = std::chrono::steady_clock::now();
        fn();
        GPUH_CHECK(gpuh_devices_sync(set));
        auto b = std::chrono::steady_clock::now();
        if (k >= WARMUP)
            t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

/* Fills every shard with uniform random floats on its own device. */
static void fill(const gpuh_devices *set, gpuh_shards *sh, unsigned long long seed)
{
    int prev = 0;
    cudaGetDevice(&prev);
    for (int i = 0; i < set->count; ++i) {
        GPUH_CHECK(cudaSetDevice(set->id[i]));
        GPUH_CHECK(gpuh_random_uniform_f32(static_cast<float *>(sh->ptr[i]), gpuh_shards_elems(sh, i), seed + i,
                                           set->stream[i]));
    }
    GPUH_CHECK(gpuh_devices_sync(set));
    cudaSetDevice(prev);
}

static void all_reduce_table(gpuh_devices *all, bool quick)
{
    const int n = all->count;
    std::vector<size_t> sizes = {(size_t)1 << 20, (size_t)1 << 22, (size_t)1 << 24, (size_t)1 << 26,
                                 (size_t)1 << 28, (size_t)1 << 30};
    if (quick)
        sizes = {(size_t)1 << 12, (size_t)1 << 16};
    printf("\nAll-reduce, float sum, out of place, %d device%s (median of %d; busbw = algbw * 2(n-1)/n)\n", n,
           n == 1 ? "" : "s", REPS);
    printf("  %10s %14s %14s %14s %14s %8s\n", "bytes", "gpuh ms", "gpuh busbw", "NCCL ms", "NCCL busbw",
           "ratio");
    GPUH_CHECK(gpuh_devices_init_nccl(all));
    double ratio_256 = -1;
    for (size_t bytes : sizes) {
        const size_t count = bytes / sizeof(float);
        gpuh_shards send, recv;
        GPUH_CHECK(gpuh_replicate_device_array(&send, all, count, sizeof(float)));
        GPUH_CHECK(gpuh_replicate_device_array(&recv, all, count, sizeof(float)));
        fill(all, &send, 7);
        /* alternate the two, run by run */
        std::vector<double> tg, tn;
        for (int k = 0; k < WARMUP + REPS; ++k)
            for (int which = 0; which < 2; ++which) {
                GPUH_CHECK(gpuh_devices_sync(all));
                auto a = std::chrono::steady_clock::now();
                if (which == 0) {
                    GPUH_CHECK(gpuh_all_reduce(all, send.ptr, recv.ptr, count, GPUH_FLOAT32, GPUH_SUM));
                } else {
                    ncclGroupStart();
                    for (int i = 0; i < n; ++i) {
                        ncclComm_t c;
                        memcpy(&c, &all->comm[i], sizeof c);
                        if (ncclAllReduce(send.ptr[i], recv.ptr[i], count, ncclFloat32, ncclSum, c,
                                          all->stream[i]) != ncclSuccess)
                            printf("ncclAllReduce failed\n");
                    }
                    ncclGroupEnd();
                }
                GPUH_CHECK(gpuh_devices_sync(all));
                const double ms =
                    std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
                if (k >= WARMUP)
                    (which == 0 ? tg : tn).push_back(ms);
            }
        std::sort(tg.begin(), tg.end());
        std::sort(tn.begin(), tn.end());
        const double mg = tg[tg.size() / 2], mn = tn[tn.size() / 2], factor = 2.0 * (n - 1) / n;
        const double bg = bytes / (mg * 1e6) * factor, bn = bytes / (mn * 1e6) * factor;
        printf("  %10zu %14.4f %11.1f GB/s %14.4f %11.1f GB/s %8.3f\n", bytes, mg, bg, mn, bn,
               n > 1 ? bg / bn : mn / mg);
        if (bytes == (size_t)1 << 28)
            ratio_256 = n > 1 ? bg / bn : mn / mg;
        gpuh_shards_free(&send);
        gpuh_shards_free(&recv);
    }
    if (ratio_256 >= 0)
        printf("  target: gpuh >= 0.95x NCCL's bus bandwidth at 256 MiB: %.3fx  %s\n", ratio_256,
               ratio_256 >= 0.95 ? "met" : "NOT met");
}

static void report(const char *what, double one, double all, int n)
{
    const double s = one / all, target = n >= 4 ? 3.6 : n == 2 ? 1.9 : 0;
    printf("  %-30s %10.3f %10.3f %8.2fx", what, one, all, s);
    if (target > 0)
        printf("   target >= %.1fx on %d GPUs: %s\n", target, n, s >= target ? "met" : "NOT met");
    else
        printf("   (targets are for 2 and 4 GPUs)\n");
}

static void speedup_table(gpuh_devices *all, gpuh_devices *one, bool quick)
{
    const int n = all->count;
    const size_t n_add = quick ? (size_t)1 << 20 : (size_t)1 << 28, n_sum = quick ? (size_t)1 << 20 : (size_t)1 << 30;
    const size_t G = quick ? 512 : 8192;
    printf("\nSpeed-up on %d devices against 1 (median ms of %d, host wall time after syncing every device)\n", n,
           REPS);
    printf("  %-30s %10s %10s %9s\n", "", "1 device", "all", "speed-up");
    gpuh_devices *sets[2] = {one, all};
    double t[2];
    char label[64];

    /* vector add */
    for (int k = 0; k < 2; ++k) {
        gpuh_shards a, b, c;
        GPUH_CHECK(gpuh_shards_device_array(&a, sets[k], n_add, 1, sizeof(float)));
        GPUH_CHECK(gpuh_shards_device_array(&b, sets[k], n_add, 1, sizeof(float)));
        GPUH_CHECK(gpuh_shards_device_array(&c, sets[k], n_add, 1, sizeof(float)));
        fill(sets[k], &a, 11);
        fill(sets[k], &b, 13);
        t[k] = median_ms(sets[k], [&] { GPUH_CHECK(gpuh_sharded_vector_add<float>(sets[k], &a, &b, &c)); });
        gpuh_shards_free(&a);
        gpuh_shards_free(&b);
        gpuh_shards_free(&c);
    }
    snprintf(label, sizeof label, "vector add 2^%d floats", quick ? 20 : 28);
    report(label, t[0], t[1], n);

    /* sum */
    float results[2] = {0, 0};
    for (int k = 0; k < 2; ++k) {
        gpuh_shards x;
        GPUH_CHECK(gpuh_shards_device_array(&x, sets[k], n_sum, 1, sizeof(float)));
        fill(sets[k], &x, 17);
        t[k] = median_ms(sets[k], [&] { GPUH_CHECK(gpuh_sharded_sum<float>(sets[k], &x, &results[k])); });
        gpuh_shards_free(&x);
    }
    snprintf(label, sizeof label, "sum 2^%d floats", quick ? 20 : 30);
    report(label, t[0], t[1], n);
    printf("  %-30s (inputs differ per split, each uniform in (0, 1]: %.6g and %.6g, expected ~%.6g)\n", "",
           results[0], results[1], 0.5 * (double)n_sum);

    /* GEMM split by rows of C */
    for (int k = 0; k < 2; ++k) {
        gpuh_shards A, B, C;
        GPUH_CHECK(gpuh_shards_device_array(&A, sets[k], G, G, sizeof(float)));
        GPUH_CHECK(gpuh_replicate_device_array(&B, sets[k], G * G, sizeof(float)));
        GPUH_CHECK(gpuh_shards_device_array(&C, sets[k], G, G, sizeof(float)));
        fill(sets[k], &A, 19);
        fill(sets[k], &B, 23);
        t[k] = median_ms(sets[k], [&] {
            GPUH_CHECK(gpuh_sharded_gemm<float>(sets[k], G, G, G, 1.0f, &A, &B, 0.0f, &C));
        });
        gpuh_shards_free(&A);
        gpuh_shards_free(&B);
        gpuh_shards_free(&C);
    }
    snprintf(label, sizeof label, "GEMM %zu^3 float", G);
    report(label, t[0], t[1], n);
    printf("  %-30s (%.1f and %.1f TFLOP/s)\n", "", 2.0 * G * G * G / (t[0] * 1e9), 2.0 * G * G * G / (t[1] * 1e9));
}

int main(void)
{
    const char *reason = "", *q = getenv("GPUH_TEST_QUICK");
    const bool quick = q != NULL && q[0] != '\0' && q[0] != '0';
    gpuh_devices all, one;
    if (gpuh_device_count(&reason) == 0) {
        printf("no CUDA device: %s\n", reason);
        return 77;
    }
    setenv("NCCL_NVLS_ENABLE", "0", 0); /* before NCCL's first call */
    printf("NCCL_NVLS_ENABLE=%s\n", getenv("NCCL_NVLS_ENABLE"));
    if (quick) {
        REPS = 10;
        WARMUP = 1;
    }
    GPUH_CHECK(gpuh_devices_open(&all, NULL, 0));
    GPUH_CHECK(gpuh_devices_open(&one, NULL, 1));
    for (int i = 0; i < all.count; ++i) {
        cudaDeviceProp p;
        GPUH_CHECK(cudaGetDeviceProperties(&p, all.id[i]));
        printf("device %d: %s\n", all.id[i], p.name);
    }
    gpuh_devices_report_peers(&all, stdout);
    all_reduce_table(&all, quick);
    speedup_table(&all, &one, quick);
    GPUH_CHECK(gpuh_devices_close(&all));
    GPUH_CHECK(gpuh_devices_close(&one));
    return 0;
}
