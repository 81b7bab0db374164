/* test_sim_reliability.cu - the simulator under hostile use: what a wrong or
   abandoned call must leave behind (nothing), and where CUDA's answer is an
   error, that error. One case per argument, each a CTest test of its own
   (cmake/sim_reliability.cmake, label sim), built by tools/gpuh-simcc with
   gpuh.h's collectives on (GPUH_USE_NCCL: the simulator's NCCL stand-in).
   The values CUDA gives are those of an H200 with CUDA 13.0, or the CUDA
   Programming Guide's where it states them.

     nccl      a timed-out collective is withdrawn (its buffer never written, a
               late partner fails); an argument error in a group fails only
               that call; counts whose bytes wrap size_t are refused
     symbols   cudaMemcpy{To,From}Symbol[Async]: the other side's bounds and
               kind are checked as cudaMemcpy checks them
     streams   the stream-ordered copies and sets check their stream and are
               captured into graphs (a captured value is read at launch)
     capture   cudaStreamSynchronize / cudaStreamQuery on a capturing stream
               fail and invalidate the capture
     devices   streams and events belong to the device current when made
     pool      gpuh_pool_*: stale handles, memory from no pool, memory of a
               destroyed pool, pool allocation under capture
     texture   destroying a texture object twice
     env_devices  GPUH_SIM_DEVICES=4x is refused (prints the refusal; the
               program checks that one device is presented)
     threads   gpuh_gemm with every GPUH_SIM_THREADS count (the test runs
               under GPUH_SIM_THREADS=132)
   Exit 0 and "<case>: PASS" when every check holds. */
#include <cuda_runtime.h>
#include <nccl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "gpuh_test.h"

static const unsigned char poison = 0xA5;

static bool all_bytes(const void *p, size_t n, unsigned char v)
{
    for (size_t i = 0; i < n; ++i)
        if (static_cast<const unsigned char *>(p)[i] != v)
            return false;
    return true;
}

/* ---- nccl ---------------------------------------------------------------- */

/* Two ranks, one host thread each (gpuh_comm_init). Rank 0 calls alone and
   times out; rank 1 calls after rank 0 has given up: it must fail, and rank
   0's receive buffer must keep its poison (no write into a buffer whose call
   failed). Then both call again: that collective runs, with the right sum. */
static void nccl_timeout_withdraws(size_t n)
{
    gpuh_nccl_id id;
    gpuh_comm comm[2];
    float *send[2] = {NULL, NULL}, *recv[2] = {NULL, NULL};
    if (!TEST_CUDA(gpuh_nccl_id_create(&id)))
        return;
    std::thread t1([&] { TEST_CUDA(gpuh_comm_init(&comm[1], &id, 2, 1, 1)); });
    TEST_CUDA(gpuh_comm_init(&comm[0], &id, 2, 0, 0));
    t1.join();
    for (int r = 0; r < 2; ++r) {
        TEST_CUDA(cudaSetDevice(r));
        TEST_CUDA(gpuh_device_array(&send[r], n));
        TEST_CUDA(gpuh_device_array(&recv[r], n));
        std::vector<float> h(n, static_cast<float>(r + 1));
        TEST_CUDA(cudaMemcpy(send[r], h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        TEST_CUDA(cudaMemset(recv[r], poison, n * sizeof(float)));
    }
    TEST_CUDA(cudaSetDevice(0));
    const auto t0 = std::chrono::steady_clock::now();
    TEST_ERR(gpuh_comm_all_reduce(&comm[0], send[0], recv[0], n, GPUH_FLOAT32, GPUH_OP_SUM, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "withdrew its call");
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    TEST_ASSERT(waited >= 0.9, "rank 0 gave up after %.2f s, before GPUH_SIM_NCCL_TIMEOUT=1", waited);
    std::thread late([&] {
        TEST_ERR(gpuh_comm_all_reduce(&comm[1], send[1], recv[1], n, GPUH_FLOAT32, GPUH_OP_SUM, 0),
                 cudaErrorInvalidValue);
        TEST_CONTAINS(gpuh_error_detail(), "abandoned");
    });
    late.join();
    TEST_ASSERT(all_bytes(recv[0], n * sizeof(float), poison),
                "rank 0's receive buffer of the call that timed out was written (n = %zu)", n);
    TEST_ASSERT(all_bytes(recv[1], n * sizeof(float), poison),
                "the late partner's receive buffer was written (n = %zu)", n);
    /* Again with rank 0's buffers freed once its call has failed: under ASan a
       write by the late partner's call is a heap-use-after-free. */
    {
        float *gone_send = NULL, *gone_recv = NULL;
        TEST_CUDA(gpuh_device_array(&gone_send, n));
        TEST_CUDA(gpuh_device_array(&gone_recv, n));
        TEST_ERR(gpuh_comm_all_reduce(&comm[0], gone_send, gone_recv, n, GPUH_FLOAT32, GPUH_OP_SUM, 0),
                 cudaErrorInvalidValue);
        gpuh_free(gone_send);
        gpuh_free(gone_recv);
        std::thread late2([&] {
            TEST_ERR(gpuh_comm_all_reduce(&comm[1], send[1], recv[1], n, GPUH_FLOAT32, GPUH_OP_SUM, 0),
                     cudaErrorInvalidValue);
        });
        late2.join();
    }
    /* The next collective pairs up again. */
    std::thread again([&] { TEST_CUDA(gpuh_comm_all_reduce(&comm[1], send[1], recv[1], n, GPUH_FLOAT32, GPUH_OP_SUM, 0)); });
    TEST_CUDA(gpuh_comm_all_reduce(&comm[0], send[0], recv[0], n, GPUH_FLOAT32, GPUH_OP_SUM, 0));
    again.join();
    for (int r = 0; r < 2; ++r) {
        std::vector<float> h(n, 0.0f);
        TEST_CUDA(cudaMemcpy(h.data(), recv[r], n * sizeof(float), cudaMemcpyDeviceToHost));
        int bad = 0;
        for (size_t i = 0; i < n; ++i)
            bad += h[i] != 3.0f;
        TEST_ASSERT(bad == 0, "rank %d: %d of %zu sums wrong after the abandoned collective", r, bad, n);
    }
    for (int r = 0; r < 2; ++r) {
        gpuh_free(send[r]);
        gpuh_free(recv[r]);
        TEST_CUDA(gpuh_comm_destroy(&comm[r]));
    }
}

/* gpuh_all_reduce over two devices with recv[1] too small by `short_by`
   elements: that call fails; the next valid one runs at once (well inside
   the time-out) and is right, because nothing of the bad call stayed queued. */
static void nccl_group_error_fails_one_call(size_t n, size_t short_by)
{
    const int ids[2] = {0, 1};
    gpuh_devices set;
    if (!TEST_CUDA(gpuh_devices_open(&set, ids, 2)) || !TEST_CUDA(gpuh_devices_init_nccl(&set)))
        return;
    float *send[2], *recv[2], *small = NULL;
    for (int r = 0; r < 2; ++r) {
        TEST_CUDA(cudaSetDevice(r));
        TEST_CUDA(gpuh_device_array(&send[r], n));
        TEST_CUDA(gpuh_device_array(&recv[r], n));
        std::vector<float> h(n, static_cast<float>(10 * (r + 1)));
        TEST_CUDA(cudaMemcpy(send[r], h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        TEST_CUDA(cudaMemset(recv[r], poison, n * sizeof(float)));
    }
    TEST_CUDA(gpuh_device_array(&small, n - short_by));
    TEST_CUDA(cudaMemset(small, poison, (n - short_by) * sizeof(float)));
    void *bad_recv[2] = {recv[0], small}, *sends[2] = {send[0], send[1]}, *recvs[2] = {recv[0], recv[1]};
    TEST_ERR(gpuh_all_reduce(&set, sends, bad_recv, n, GPUH_FLOAT32, GPUH_OP_SUM), cudaErrorInvalidValue);
    TEST_ASSERT(all_bytes(recv[0], n * sizeof(float), poison), "device 0's half of the refused call ran");
    TEST_ASSERT(all_bytes(small, (n - short_by) * sizeof(float), poison), "the too-small buffer was written");
    for (int round = 0; round < 2; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        TEST_CUDA(gpuh_all_reduce(&set, sends, recvs, n, GPUH_FLOAT32, GPUH_OP_SUM));
        const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        TEST_ASSERT(took < 0.5, "a valid all-reduce after a refused one took %.2f s (waited for a stale call)", took);
        for (int r = 0; r < 2; ++r) {
            std::vector<float> h(n, 0.0f);
            TEST_CUDA(cudaMemcpy(h.data(), recv[r], n * sizeof(float), cudaMemcpyDeviceToHost));
            int bad = 0;
            for (size_t i = 0; i < n; ++i)
                bad += h[i] != 30.0f;
            TEST_ASSERT(bad == 0, "round %d, device %d: %d of %zu sums wrong", round, r, bad, n);
        }
    }
    for (int r = 0; r < 2; ++r) {
        gpuh_free(send[r]);
        gpuh_free(recv[r]);
    }
    gpuh_free(small);
    TEST_CUDA(gpuh_devices_close(&set));
}

/* Counts whose byte size wraps size_t (for each element size, and for an
   all-gather the count times the ranks), on 16-byte buffers: refused with
   ncclInvalidArgument, and the buffers keep their poison. */
static void nccl_counts_that_wrap(void)
{
    ncclComm_t comms[2];
    const int devs[2] = {0, 1};
    if (ncclCommInitAll(comms, 2, devs) != ncclSuccess) {
        TEST_ASSERT(0, "ncclCommInitAll failed: %s", ncclGetLastError(NULL));
        return;
    }
    const ncclDataType_t types[] = {ncclInt8, ncclInt32, ncclFloat32, ncclInt64, ncclFloat64};
    const size_t sizes[] = {1, 4, 4, 8, 8};
    void *a = NULL, *b = NULL;
    TEST_CUDA(cudaMalloc(&a, 16));
    TEST_CUDA(cudaMalloc(&b, 16));
    TEST_CUDA(cudaMemset(a, poison, 16));
    TEST_CUDA(cudaMemset(b, poison, 16));
    for (size_t t = 0; t < sizeof types / sizeof types[0]; ++t) {
        std::vector<size_t> counts;
        if (sizes[t] > 1) { /* the smallest count that wraps, 2^62 + 1, and the largest */
            counts.push_back(SIZE_MAX / sizes[t] + 1);
            counts.push_back((size_t(1) << 62) + 1);
            counts.push_back(SIZE_MAX);
        }
        counts.push_back(SIZE_MAX / (2 * sizes[t]) + 1); /* an all-gather of 2 ranks wraps */
        for (size_t c : counts) {
            const bool wraps = c > SIZE_MAX / sizes[t];
            TEST_ASSERT(ncclGroupStart() == ncclSuccess, "ncclGroupStart");
            ncclResult_t r0 = ncclAllGather(a, b, c, types[t], comms[0], 0);
            ncclResult_t r1 = ncclAllGather(a, b, c, types[t], comms[1], 0);
            ncclResult_t end = ncclGroupEnd();
            TEST_ASSERT(r0 == ncclInvalidArgument && r1 == ncclInvalidArgument && end == ncclInvalidArgument,
                        "ncclAllGather of %zu elements of %zu bytes, 2 ranks: %d, %d, end %d", c, sizes[t], r0, r1, end);
            TEST_CONTAINS(ncclGetLastError(NULL), "overflows size_t");
            if (!wraps)
                continue;
            TEST_ASSERT(ncclAllReduce(a, b, c, types[t], ncclSum, comms[0], 0) == ncclInvalidArgument,
                        "ncclAllReduce of %zu elements of %zu bytes accepted", c, sizes[t]);
            TEST_CONTAINS(ncclGetLastError(NULL), "overflows size_t");
            TEST_ASSERT(ncclBroadcast(a, b, c, types[t], 0, comms[0], 0) == ncclInvalidArgument,
                        "ncclBroadcast of %zu elements of %zu bytes accepted", c, sizes[t]);
        }
    }
    TEST_ASSERT(all_bytes(a, 16, poison) && all_bytes(b, 16, poison), "a refused collective wrote its buffers");
    TEST_CUDA(cudaFree(a));
    TEST_CUDA(cudaFree(b));
    ncclCommDestroy(comms[0]);
    ncclCommDestroy(comms[1]);
}

static void case_nccl(void)
{
    int n = 0;
    TEST_CUDA(cudaGetDeviceCount(&n));
    if (!TEST_ASSERT(n >= 2, "run with GPUH_SIM_DEVICES=2 (%d devices)", n))
        return;
    for (size_t count : {size_t(1), size_t(33), size_t(1000)})
        nccl_timeout_withdraws(count);
    nccl_group_error_fails_one_call(257, 1);
    nccl_group_error_fails_one_call(64, 63);
    nccl_counts_that_wrap();
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"nccl", case_nccl}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        if (strcmp(which, cases[i].name) == 0) {
            cases[i].run();
            return gpuh_test_summary(which);
        }
    fprintf(stderr, "usage: %s CASE (nccl)\n", argv[0]);
    return 2;
}
