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
     pool      gpuh_pool_alloc / gpuh_pool_free on a capturing stream are
               refused at the call and the capture goes on (tests/test_pool.cu
               has the rest of the pool's hostile use: its simulator build has
               no graphs); pool calls from several host threads at once
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
    TEST_ERR(gpuh_comm_all_reduce(&comm[0], send[0], recv[0], n, GPUH_FLOAT32, GPUH_SUM, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "withdrew its call");
    const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    TEST_ASSERT(waited >= 0.9, "rank 0 gave up after %.2f s, before GPUH_SIM_NCCL_TIMEOUT=1", waited);
    std::thread late([&] {
        TEST_ERR(gpuh_comm_all_reduce(&comm[1], send[1], recv[1], n, GPUH_FLOAT32, GPUH_SUM, 0),
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
        TEST_ERR(gpuh_comm_all_reduce(&comm[0], gone_send, gone_recv, n, GPUH_FLOAT32, GPUH_SUM, 0),
                 cudaErrorInvalidValue);
        gpuh_free(gone_send);
        gpuh_free(gone_recv);
        std::thread late2([&] {
            TEST_ERR(gpuh_comm_all_reduce(&comm[1], send[1], recv[1], n, GPUH_FLOAT32, GPUH_SUM, 0),
                     cudaErrorInvalidValue);
        });
        late2.join();
    }
    /* The next collective pairs up again. */
    std::thread again([&] { TEST_CUDA(gpuh_comm_all_reduce(&comm[1], send[1], recv[1], n, GPUH_FLOAT32, GPUH_SUM, 0)); });
    TEST_CUDA(gpuh_comm_all_reduce(&comm[0], send[0], recv[0], n, GPUH_FLOAT32, GPUH_SUM, 0));
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
    TEST_ERR(gpuh_all_reduce(&set, sends, bad_recv, n, GPUH_FLOAT32, GPUH_SUM), cudaErrorInvalidValue);
    TEST_ASSERT(all_bytes(recv[0], n * sizeof(float), poison), "device 0's half of the refused call ran");
    TEST_ASSERT(all_bytes(small, (n - short_by) * sizeof(float), poison), "the too-small buffer was written");
    for (int round = 0; round < 2; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        TEST_CUDA(gpuh_all_reduce(&set, sends, recvs, n, GPUH_FLOAT32, GPUH_SUM));
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

/* ---- symbols ------------------------------------------------------------- */

__device__ float d_big[256]; /* 1024 bytes */
__device__ int d_word;

/* A symbol copy whose other side is an allocation too small for it, for
   every kind that names device memory there, and a host pointer where the
   kind says device: cudaErrorInvalidValue, and neither side changes. */
static void case_symbols(void)
{
    std::vector<float> h(256);
    for (int i = 0; i < 256; ++i)
        h[i] = static_cast<float>(i) + 0.5f;
    TEST_CUDA(cudaMemcpyToSymbol(d_big, h.data(), sizeof h[0] * 256));
    const enum cudaMemcpyKind from_kinds[] = {cudaMemcpyDeviceToHost, cudaMemcpyDeviceToDevice, cudaMemcpyDefault};
    const enum cudaMemcpyKind to_kinds[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToDevice, cudaMemcpyDefault};
    for (size_t alloc : {size_t(1), size_t(16), size_t(1000), size_t(1023)}) {
        unsigned char *small = NULL;
        TEST_CUDA(cudaMalloc(&small, alloc));
        TEST_CUDA(cudaMemset(small, poison, alloc));
        for (size_t bytes : {alloc + 1, size_t(1024)})
            for (int async = 0; async < 2; ++async)
                for (int k = 0; k < 3; ++k) {
                    const cudaError_t from = async ? cudaMemcpyFromSymbolAsync(small, d_big, bytes, 0, from_kinds[k], 0)
                                                   : cudaMemcpyFromSymbol(small, d_big, bytes, 0, from_kinds[k]);
                    TEST_ASSERT(from == cudaErrorInvalidValue,
                                "cudaMemcpyFromSymbol%s of %zu bytes into a %zu-byte allocation, kind %d: %s",
                                async ? "Async" : "", bytes, alloc, from_kinds[k], cudaGetErrorName(from));
                    const cudaError_t to = async ? cudaMemcpyToSymbolAsync(d_big, small, bytes, 0, to_kinds[k], 0)
                                                 : cudaMemcpyToSymbol(d_big, small, bytes, 0, to_kinds[k]);
                    TEST_ASSERT(to == cudaErrorInvalidValue,
                                "cudaMemcpyToSymbol%s of %zu bytes from a %zu-byte allocation, kind %d: %s",
                                async ? "Async" : "", bytes, alloc, to_kinds[k], cudaGetErrorName(to));
                    cudaGetLastError();
                }
        TEST_ASSERT(all_bytes(small, alloc, poison), "a refused symbol copy wrote the %zu-byte allocation", alloc);
        /* What fits is copied. */
        TEST_CUDA(cudaMemcpyFromSymbol(small, d_big, alloc, 0, cudaMemcpyDeviceToDevice));
        TEST_ASSERT(memcmp(small, h.data(), alloc) == 0, "a %zu-byte symbol copy that fits went wrong", alloc);
        TEST_CUDA(cudaFree(small));
    }
    /* A host (pageable) pointer with cudaMemcpyDeviceToDevice. */
    std::vector<float> host(256, -1.0f);
    for (int async = 0; async < 2; ++async)
        for (size_t bytes : {size_t(4), size_t(64), size_t(1024)}) {
            TEST_ERR(async ? cudaMemcpyToSymbolAsync(d_big, host.data(), bytes, 0, cudaMemcpyDeviceToDevice, 0)
                           : cudaMemcpyToSymbol(d_big, host.data(), bytes, 0, cudaMemcpyDeviceToDevice),
                     cudaErrorInvalidValue);
            TEST_ERR(async ? cudaMemcpyFromSymbolAsync(host.data(), d_big, bytes, 0, cudaMemcpyDeviceToDevice, 0)
                           : cudaMemcpyFromSymbol(host.data(), d_big, bytes, 0, cudaMemcpyDeviceToDevice),
                     cudaErrorInvalidValue);
            cudaGetLastError();
        }
    TEST_ASSERT(host[0] == -1.0f && host[255] == -1.0f, "a refused copy from a symbol wrote host memory");
    std::vector<float> back(256, 0.0f);
    TEST_CUDA(cudaMemcpyFromSymbol(back.data(), d_big, sizeof back[0] * 256));
    TEST_ASSERT(back == h, "a refused copy to a symbol changed it");
    /* The symbol's own bounds, and an offset past it. */
    volatile size_t word = sizeof(int); /* not a constant: the compiler would see the overrun itself */
    TEST_ERR(cudaMemcpyToSymbol(d_word, h.data(), word + 1), cudaErrorInvalidValue);
    TEST_ERR(cudaMemcpyToSymbol(d_word, h.data(), 1, word), cudaErrorInvalidValue);
    cudaGetLastError();
}

/* ---- streams ------------------------------------------------------------- */

struct copy_targets {
    unsigned char *d2 = NULL; /* rows x pitch bytes of device memory */
    size_t pitch = 64, rows = 4, width = 48;
    cudaArray_t arr = NULL;    /* width x rows unsigned chars */
    unsigned char *d_src = NULL, *d_dst = NULL;
};

static cudaError_t try_each(const copy_targets &t, cudaStream_t s, const int *value, int *out, int which,
                            const unsigned char *h_rows)
{
    switch (which) {
    case 0: return cudaMemcpyToSymbolAsync(d_word, value, sizeof(int), 0, cudaMemcpyHostToDevice, s);
    case 1: return cudaMemcpyFromSymbolAsync(out, d_word, sizeof(int), 0, cudaMemcpyDeviceToHost, s);
    case 2: return cudaMemset2DAsync(t.d2, t.pitch, 0x3C, t.width, t.rows, s);
    case 3: {
        cudaMemcpy3DParms p;
        memset(&p, 0, sizeof p);
        p.srcPtr = make_cudaPitchedPtr(const_cast<unsigned char *>(h_rows), t.width, t.width, t.rows);
        p.dstPtr = make_cudaPitchedPtr(t.d2, t.pitch, t.width, t.rows);
        p.extent = make_cudaExtent(t.width, t.rows, 1);
        p.kind = cudaMemcpyHostToDevice;
        return cudaMemcpy3DAsync(&p, s);
    }
    case 4: return cudaMemcpy2DToArrayAsync(t.arr, 0, 0, h_rows, t.width, t.width, t.rows, cudaMemcpyHostToDevice, s);
    default: return cudaMemcpyPeerAsync(t.d_dst, 0, t.d_src, 0, 16, s);
    }
}
static const char *const call_names[] = {"cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbolAsync", "cudaMemset2DAsync",
                                         "cudaMemcpy3DAsync", "cudaMemcpy2DToArrayAsync", "cudaMemcpyPeerAsync"};

static void case_streams(void)
{
    copy_targets t;
    TEST_CUDA(cudaMalloc(&t.d2, t.pitch * t.rows));
    TEST_CUDA(cudaMalloc(&t.d_src, 16));
    TEST_CUDA(cudaMalloc(&t.d_dst, 16));
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<unsigned char>();
    TEST_CUDA(cudaMallocArray(&t.arr, &desc, t.width, t.rows));
    std::vector<unsigned char> h_rows(t.width * t.rows, 7);
    int value = 11, out = 0;
    /* A destroyed stream: every call refuses it. */
    cudaStream_t dead = NULL;
    TEST_CUDA(cudaStreamCreate(&dead));
    TEST_CUDA(cudaStreamDestroy(dead));
    for (int w = 0; w < 6; ++w) {
        const cudaError_t e = try_each(t, dead, &value, &out, w, h_rows.data());
        TEST_ASSERT(e == cudaErrorInvalidResourceHandle, "%s on a destroyed stream: %s", call_names[w],
                    cudaGetErrorName(e));
        cudaGetLastError();
    }
    /* Under capture: nothing runs until the graph does; the symbol copy reads
       the host value when the graph is launched. */
    cudaStream_t s = NULL;
    TEST_CUDA(cudaStreamCreate(&s));
    const int before = -5;
    TEST_CUDA(cudaMemcpyToSymbol(d_word, &before, sizeof before));
    TEST_CUDA(cudaMemset(t.d2, 0, t.pitch * t.rows));
    TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    value = 0;
    out = 0;
    for (int w = 0; w < 5; ++w)
        TEST_CUDA(try_each(t, s, &value, &out, w, h_rows.data()));
    int now = 0;
    TEST_CUDA(cudaMemcpyFromSymbol(&now, d_word, sizeof now));
    TEST_ASSERT(now == before && out == 0, "captured symbol copies ran at capture (symbol %d, out %d)", now, out);
    TEST_ASSERT(all_bytes(t.d2, t.pitch * t.rows, 0), "a captured cudaMemset2DAsync or cudaMemcpy3DAsync ran at capture");
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    TEST_CUDA(cudaStreamEndCapture(s, &graph));
    TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    for (int v : {3, -77, 123456}) {
        value = v;
        out = 0;
        TEST_CUDA(cudaGraphLaunch(exec, s));
        TEST_CUDA(cudaStreamSynchronize(s));
        TEST_CUDA(cudaMemcpyFromSymbol(&now, d_word, sizeof now));
        TEST_ASSERT(now == v && out == v, "graph launched with the host value %d: symbol %d, copied back %d", v, now, out);
    }
    std::vector<unsigned char> rows(t.pitch * t.rows), arr(t.width * t.rows);
    TEST_CUDA(cudaMemcpy(rows.data(), t.d2, rows.size(), cudaMemcpyDeviceToHost));
    TEST_CUDA(cudaMemcpy2DFromArray(arr.data(), t.width, t.arr, 0, 0, t.width, t.rows, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (size_t r = 0; r < t.rows; ++r)
        for (size_t x = 0; x < t.width; ++x)
            bad += rows[r * t.pitch + x] != 7 || arr[r * t.width + x] != 7;
    TEST_ASSERT(bad == 0, "%d bytes wrong after the graph's memset, 3-D copy and copy to an array", bad);
    TEST_CUDA(cudaGraphExecDestroy(exec));
    TEST_CUDA(cudaGraphDestroy(graph));
    /* A peer copy under capture: cudaErrorStreamCaptureUnsupported, and the capture is invalidated. */
    TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    TEST_ERR(try_each(t, s, &value, &out, 5, h_rows.data()), cudaErrorStreamCaptureUnsupported);
    cudaGetLastError();
    graph = reinterpret_cast<cudaGraph_t>(1);
    TEST_ERR(cudaStreamEndCapture(s, &graph), cudaErrorStreamCaptureInvalidated);
    TEST_ASSERT(graph == NULL, "an invalidated capture handed out a graph");
    cudaGetLastError();
    TEST_CUDA(try_each(t, s, &value, &out, 5, h_rows.data())); /* after the capture, it runs */
    TEST_CUDA(cudaStreamDestroy(s));
    TEST_CUDA(cudaFreeArray(t.arr));
    TEST_CUDA(cudaFree(t.d2));
    TEST_CUDA(cudaFree(t.d_src));
    TEST_CUDA(cudaFree(t.d_dst));
}

/* ---- capture ------------------------------------------------------------- */

__global__ void add_one_kernel(int *p) { atomicAdd(p, 1); }

static void case_capture(void)
{
    int *d = NULL;
    TEST_CUDA(cudaMalloc(&d, sizeof(int)));
    TEST_CUDA(cudaMemset(d, 0, sizeof(int)));
    cudaStream_t s = NULL;
    TEST_CUDA(cudaStreamCreate(&s));
    for (int query = 0; query < 2; ++query)
        for (int before = 0; before < 3; ++before) { /* 0, 1 or 2 kernels captured first */
            TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
            for (int k = 0; k < before; ++k)
                add_one_kernel<<<1, 1, 0, s>>>(d);
            const cudaError_t e = query ? cudaStreamQuery(s) : cudaStreamSynchronize(s);
            TEST_ASSERT(e == cudaErrorStreamCaptureUnsupported, "%s on a capturing stream: %s",
                        query ? "cudaStreamQuery" : "cudaStreamSynchronize", cudaGetErrorName(e));
            cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
            TEST_CUDA(cudaStreamIsCapturing(s, &st));
            TEST_ASSERT(st == cudaStreamCaptureStatusInvalidated, "capture status %d after the failed call", st);
            add_one_kernel<<<1, 1, 0, s>>>(d); /* into an invalidated capture: not run */
            cudaGetLastError();
            cudaGraph_t g = reinterpret_cast<cudaGraph_t>(1);
            TEST_ERR(cudaStreamEndCapture(s, &g), cudaErrorStreamCaptureInvalidated);
            TEST_ASSERT(g == NULL, "an invalidated capture handed out a graph");
            cudaGetLastError();
            TEST_CUDA(cudaStreamIsCapturing(s, &st));
            TEST_ASSERT(st == cudaStreamCaptureStatusNone, "capture status %d after the capture ended", st);
            TEST_CUDA(cudaStreamSynchronize(s)); /* outside a capture: fine */
        }
    int h = -1;
    TEST_CUDA(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    TEST_ASSERT(h == 0, "kernels of invalidated captures ran %d times", h);
    TEST_CUDA(cudaStreamDestroy(s));
    TEST_CUDA(cudaFree(d));
}

/* ---- devices ------------------------------------------------------------- */

static void case_devices(void)
{
    int n = 0;
    TEST_CUDA(cudaGetDeviceCount(&n));
    if (!TEST_ASSERT(n >= 2, "run with GPUH_SIM_DEVICES=2 (%d devices)", n))
        return;
    cudaStream_t s[2];
    cudaEvent_t e[2], e0b;
    int *d = NULL;
    for (int dev = 1; dev >= 0; --dev) {
        TEST_CUDA(cudaSetDevice(dev));
        TEST_CUDA(cudaStreamCreate(&s[dev]));
        TEST_CUDA(cudaEventCreate(&e[dev]));
    }
    TEST_CUDA(cudaEventCreate(&e0b));
    TEST_CUDA(cudaMalloc(&d, sizeof(int)));
    TEST_CUDA(cudaMemset(d, 0, sizeof(int)));
    for (int cur = 0; cur < 2; ++cur) {
        const int other = 1 - cur;
        TEST_CUDA(cudaSetDevice(cur));
        cudaGetLastError();
        add_one_kernel<<<1, 1, 0, s[other]>>>(d);
        TEST_ERR(cudaGetLastError(), cudaErrorInvalidResourceHandle);
        add_one_kernel<<<1, 1, 0, s[cur]>>>(d);
        TEST_CUDA(cudaGetLastError());
        TEST_ERR(cudaEventRecord(e[other], s[cur]), cudaErrorInvalidResourceHandle);
        TEST_ERR(cudaEventRecord(e[cur], s[other]), cudaErrorInvalidResourceHandle);
        TEST_ERR(cudaEventRecord(e[other], 0), cudaErrorInvalidResourceHandle); /* the current device's default stream */
        cudaGetLastError();
        TEST_CUDA(cudaEventRecord(e[cur], s[cur]));
        TEST_CUDA(cudaEventRecord(e[cur], 0));
        /* What the guide says succeeds across devices. */
        int h = 0;
        TEST_CUDA(cudaMemcpyAsync(&h, d, sizeof h, cudaMemcpyDeviceToHost, s[other]));
        TEST_CUDA(cudaStreamWaitEvent(s[cur], e[cur], 0));
        TEST_CUDA(cudaEventSynchronize(e[cur]));
        TEST_CUDA(cudaStreamSynchronize(s[other]));
    }
    TEST_CUDA(cudaSetDevice(1));
    TEST_CUDA(cudaEventRecord(e[1], s[1]));
    TEST_CUDA(cudaSetDevice(0));
    TEST_CUDA(cudaEventRecord(e[0], s[0]));
    TEST_CUDA(cudaEventRecord(e0b, s[0]));
    float ms = -1.0f;
    TEST_ERR(cudaEventElapsedTime(&ms, e[0], e[1]), cudaErrorInvalidResourceHandle);
    TEST_ERR(cudaEventElapsedTime(&ms, e[1], e[0]), cudaErrorInvalidResourceHandle);
    cudaGetLastError();
    TEST_CUDA(cudaEventElapsedTime(&ms, e[0], e0b));
    int h = 0;
    TEST_CUDA(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    TEST_ASSERT(h == 2, "%d launches ran, 2 on streams of the current device", h);
    for (int dev = 0; dev < 2; ++dev) {
        TEST_CUDA(cudaStreamDestroy(s[dev]));
        TEST_CUDA(cudaEventDestroy(e[dev]));
    }
    TEST_CUDA(cudaEventDestroy(e0b));
    TEST_CUDA(cudaFree(d));
}

/* ---- pool ---------------------------------------------------------------- */

__global__ void pool_stamp_kernel(unsigned int *g_out, unsigned int n, unsigned int tag)
{
    const unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        g_out[i] = tag + i;
}

/* A pool allocation captured into a graph would fail only at the graph's
   launch: gpuh_pool_alloc refuses it at the call, gpuh_pool_free likewise,
   and the capture stays active, so the graph still builds and runs. */
static void pool_capture(void)
{
    gpuh_pool pool;
    gpuh_pool_stats st;
    cudaStream_t s = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned int *d = reinterpret_cast<unsigned int *>(&st), *d_out = NULL, probe = 0;
    if (!TEST_CUDA(gpuh_pool_create(&pool, 0, GPUH_POOL_KEEP_ALL)))
        return;
    TEST_CUDA(cudaStreamCreate(&s));
    TEST_CUDA(gpuh_pool_alloc(&pool, &d_out, 64, s));
    for (int mode = 0; mode < 2; ++mode) {
        TEST_CUDA(cudaStreamBeginCapture(s, mode ? cudaStreamCaptureModeGlobal : cudaStreamCaptureModeThreadLocal));
        const int line = __LINE__ + 1;
        TEST_ERR(gpuh_pool_alloc(&pool, &d, 64, s), cudaErrorStreamCaptureUnsupported);
        char want[512];
        snprintf(want, sizeof want,
                 "gpuh_pool_alloc at %s:%d: stream %p is capturing a graph (capture status 1), and pool memory "
                 "cannot be captured: allocate before the capture begins and free after it ends",
                 __FILE__, line, static_cast<void *>(s));
        TEST_ASSERT(strcmp(gpuh_error_detail(), want) == 0, "detail \"%s\", expected \"%s\"", gpuh_error_detail(),
                    want);
        TEST_ASSERT(d == NULL, "a refused gpuh_pool_alloc left %p", static_cast<void *>(d));
        TEST_DETAIL(gpuh_pool_free(&pool, d_out, s), cudaErrorStreamCaptureUnsupported,
                    "gpuh_pool_free: stream %p is capturing a graph (capture status 1), and pool memory cannot be "
                    "captured: allocate before the capture begins and free after it ends",
                    static_cast<void *>(s));
        TEST_CUDA(cudaStreamIsCapturing(s, &status));
        TEST_ASSERT(status == cudaStreamCaptureStatusActive, "capture status %d after the refusals",
                    static_cast<int>(status));
        pool_stamp_kernel<<<1, 64, 0, s>>>(d_out, 64, 5u + static_cast<unsigned int>(mode));
        TEST_CUDA(cudaStreamEndCapture(s, &graph));
        TEST_CUDA(gpuh_pool_memory_stats(&pool, &st));
        TEST_ASSERT(st.allocated_bytes == 64 * sizeof(unsigned int), "allocated %zu after the capture",
                    st.allocated_bytes);
        if (graph != NULL && TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0))) {
            TEST_CUDA(cudaGraphLaunch(exec, s));
            TEST_CUDA(cudaMemcpyAsync(&probe, d_out + 63, sizeof probe, cudaMemcpyDeviceToHost, s));
            TEST_CUDA(cudaStreamSynchronize(s));
            TEST_ASSERT(probe == 5u + static_cast<unsigned int>(mode) + 63u, "the captured kernel wrote %u", probe);
            TEST_CUDA(cudaGraphExecDestroy(exec));
        }
        if (graph != NULL)
            TEST_CUDA(cudaGraphDestroy(graph));
        graph = NULL;
    }
    TEST_CUDA(gpuh_pool_free(&pool, d_out, s)); /* outside the capture: fine */
    TEST_CUDA(cudaStreamSynchronize(s));
    TEST_CUDA(gpuh_pool_destroy(&pool));
    TEST_CUDA(cudaStreamDestroy(s));
}

/* Host threads each make a pool, allocate from it and from one shared pool,
   try to free their own blocks through the shared pool (refused) and through
   a copy of a pool another thread destroyed (refused), then free them; the
   shared table of pools and blocks must come out of it exact. */
static void pool_threads(void)
{
    enum { THREADS = 8, ROUNDS = 200, BLOCKS = 6 };
    gpuh_pool shared, gone;
    if (!TEST_CUDA(gpuh_pool_create(&shared, 0, GPUH_POOL_KEEP_ALL)) ||
        !TEST_CUDA(gpuh_pool_create(&gone, 0, GPUH_POOL_KEEP_ALL)))
        return;
    const gpuh_pool stale = gone;
    TEST_CUDA(gpuh_pool_destroy(&gone));
    std::atomic<int> wrong(0);
    std::vector<std::thread> threads;
    for (int t = 0; t < THREADS; ++t)
        threads.push_back(std::thread([&, t]() {
            gpuh_pool own;
            if (gpuh_pool_create(&own, 0, 0) != cudaSuccess) {
                ++wrong;
                return;
            }
            for (int r = 0; r < ROUNDS; ++r) {
                float *mine[BLOCKS], *ours[BLOCKS];
                for (int b = 0; b < BLOCKS; ++b) {
                    const size_t n = 1 + static_cast<size_t>((t * 131 + r * 17 + b * 7) % 3000);
                    wrong += gpuh_pool_alloc(&own, &mine[b], n, 0) != cudaSuccess;
                    wrong += gpuh_pool_alloc(&shared, &ours[b], n, 0) != cudaSuccess;
                }
                wrong += gpuh_pool_free(&shared, mine[0], 0) != cudaErrorInvalidValue;
                wrong += strstr(gpuh_error_detail(), "is not from this pool") == NULL;
                wrong += gpuh_pool_free(&stale, mine[1], 0) != cudaErrorInvalidValue;
                wrong += strstr(gpuh_error_detail(), "was destroyed") == NULL;
                wrong += gpuh_pool_free(&own, ours[0], 0) != cudaErrorInvalidValue;
                for (int b = BLOCKS - 1; b >= 0; --b) {
                    wrong += gpuh_pool_free(&own, mine[b], 0) != cudaSuccess;
                    wrong += gpuh_pool_free(&shared, ours[b], 0) != cudaSuccess;
                }
            }
            gpuh_pool_stats st;
            wrong += gpuh_pool_memory_stats(&own, &st) != cudaSuccess || st.allocated_bytes != 0;
            wrong += gpuh_pool_destroy(&own) != cudaSuccess;
        }));
    for (size_t i = 0; i < threads.size(); ++i)
        threads[i].join();
    TEST_ASSERT(wrong.load() == 0, "%d wrong results from %d threads of %d rounds", wrong.load(), THREADS, ROUNDS);
    gpuh_pool_stats st;
    TEST_CUDA(gpuh_pool_memory_stats(&shared, &st));
    TEST_ASSERT(st.allocated_bytes == 0, "the shared pool counts %zu after every block was freed", st.allocated_bytes);
    TEST_CUDA(gpuh_pool_destroy(&shared));
}

static void case_pool(void)
{
    pool_capture();
    pool_threads();
}

/* ---- texture ------------------------------------------------------------- */

static void case_texture(void)
{
    float *d = NULL;
    TEST_CUDA(cudaMalloc(&d, 64 * sizeof(float)));
    for (int round = 0; round < 3; ++round) {
        cudaResourceDesc res;
        memset(&res, 0, sizeof res);
        res.resType = cudaResourceTypeLinear;
        res.res.linear.devPtr = d;
        res.res.linear.desc = cudaCreateChannelDesc<float>();
        res.res.linear.sizeInBytes = 64 * sizeof(float);
        cudaTextureDesc tex;
        memset(&tex, 0, sizeof tex);
        cudaTextureObject_t t = 0;
        TEST_CUDA(cudaCreateTextureObject(&t, &res, &tex, NULL));
        for (int again = 0; again <= round; ++again) /* once, then twice more, then three times more */
            TEST_CUDA(cudaDestroyTextureObject(t));
    }
    TEST_CUDA(cudaDestroyTextureObject(0));
    TEST_CUDA(cudaFree(d));
}

/* ---- env_devices, threads ------------------------------------------------ */

/* Run with GPUH_SIM_DEVICES set to something that is not a whole number: the
   simulator says so (CTest checks the message) and presents one device. */
static void case_env_devices(void)
{
    int n = 0;
    TEST_CUDA(cudaGetDeviceCount(&n));
    TEST_ASSERT(n == 1, "GPUH_SIM_DEVICES=%s gave %d devices, not the default 1", getenv("GPUH_SIM_DEVICES"), n);
}

/* The simulator's CPU threads that have run a block of fill_kernel (this
   test is for the simulator only: a thread_local in device code counts the
   CPU threads, which a GPU does not have). */
__device__ unsigned d_cpu_threads;
__device__ unsigned long long d_hold_from; /* clock64() when the first block began to wait, or 0 */
__device__ void count_cpu_thread(void)
{
    static thread_local bool counted = false;
    if (!counted) {
        counted = true;
        atomicAdd(&d_cpu_threads, 1u);
    }
}

/* Every thread of every block writes its index after a barrier (so that all
   of a block's threads, and their stacks, are live at once); thread 0 then
   holds its block until `want` CPU threads run one at once, or 3 s after
   the first block began to wait. */
__global__ void fill_kernel(unsigned *out, unsigned want)
{
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    __shared__ unsigned s_first;
    if (threadIdx.x == 0)
        s_first = i;
    __syncthreads(); /* s_first is read by every thread below */
    out[i] = i - s_first + blockIdx.x * blockDim.x;
    if (threadIdx.x == 0) {
        count_cpu_thread();
        atomicCAS(&d_hold_from, 0ull, static_cast<unsigned long long>(clock64()));
        const unsigned long long t0 = atomicAdd(&d_hold_from, 0ull);
        while (atomicAdd(&d_cpu_threads, 0u) < want && static_cast<unsigned long long>(clock64()) - t0 < 3000000000ull)
            ;
    }
}

/* Blocks of 1024 and 256 threads held until all GPUH_SIM_THREADS=132 CPU
   threads run one each: that is more threads' stacks (two mappings each)
   than Linux's default vm.max_map_count allows at once. Every launch must
   still succeed (on fewer CPU threads if it must). */
static void case_threads(void)
{
    const char *e = getenv("GPUH_SIM_THREADS");
    const unsigned cpu = e ? static_cast<unsigned>(atoi(e)) : 1u;
    for (unsigned block : {1024u, 256u, 33u}) {
        const unsigned zero = 0, blocks = cpu + 3;
        const unsigned long long never = 0;
        TEST_CUDA(cudaMemcpyToSymbol(d_hold_from, &never, sizeof never));
        const size_t n = static_cast<size_t>(block) * blocks;
        unsigned *d = NULL;
        TEST_CUDA(cudaMemcpyToSymbol(d_cpu_threads, &zero, sizeof zero));
        TEST_CUDA(cudaMalloc(&d, n * sizeof(unsigned)));
        TEST_CUDA(cudaMemset(d, 0xFF, n * sizeof(unsigned)));
        fill_kernel<<<blocks, block>>>(d, block == 33u ? 0u : cpu);
        TEST_CUDA(cudaGetLastError());
        std::vector<unsigned> h(n);
        TEST_CUDA(cudaMemcpy(h.data(), d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i)
            bad += h[i] != i;
        TEST_ASSERT(bad == 0, "blocks of %u threads: %zu of %zu elements wrong", block, bad, n);
        TEST_CUDA(cudaFree(d));
    }
}

int main(int argc, char **argv)
{
    const char *which = argc > 1 ? argv[1] : "";
    struct {
        const char *name;
        void (*run)(void);
    } cases[] = {{"nccl", case_nccl},       {"symbols", case_symbols}, {"streams", case_streams},
                 {"capture", case_capture}, {"devices", case_devices}, {"pool", case_pool},
                 {"texture", case_texture},
                 {"env_devices", case_env_devices}, {"threads", case_threads}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        if (strcmp(which, cases[i].name) == 0) {
            cases[i].run();
            return gpuh_test_summary(which);
        }
    fprintf(stderr, "usage: %s CASE (see the top of tests/test_sim_reliability.cu)\n", argv[0]);
    return 2;
}
