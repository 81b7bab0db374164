/* test_streams.cu - GPU tests of gpuh.h's streams, events, gpuh_pipeline and
   the pageable-memory warning of the async copies.

   Without a device: exit 77, "no CUDA device: <reason>". Inputs come from the
   printed seed (rerun with GPUH_SEED=<seed>). The argument checks that need no
   device are in test_host.c.

   nvcc -std=c++17 -arch=sm_90 -I. tests/test_streams.cu
*/
#include "gpuh_test.h"

#include <vector>

static unsigned long long rng;

static gpuh_memory_stats stats(void)
{
    gpuh_memory_stats s;
    memset(&s, 0, sizeof s);
    TEST_CUDA(gpuh_memory_info(&s));
    return s;
}

/* The pipeline may hold nothing once it has returned, on any path. */
static void check_nothing_held(const gpuh_memory_stats &before, const char *what)
{
    gpuh_memory_stats after = stats();
    TEST_ASSERT(after.allocated_bytes == before.allocated_bytes && after.pinned_bytes == before.pinned_bytes &&
                    after.live_allocations == before.live_allocations,
                "%s: device %zu -> %zu bytes, pinned %zu -> %zu bytes, live %zu -> %zu", what,
                before.allocated_bytes, after.allocated_bytes, before.pinned_bytes, after.pinned_bytes,
                before.live_allocations, after.live_allocations);
}

/* ===========================================================================
   A user kernel (not one of gpuh's) with two inputs and two outputs of
   different element sizes: thread t of the chunk computes
   g_z[t] = x[t] * y[t] in double and g_index[t] = first + t, the element's
   index in the whole arrays, which shows that `first` is right. 1-D grid of
   any size (grid-stride loop), no shared memory. */
__global__ void product_and_index_kernel(const float *g_x, const double *g_y, double *g_z,
                                         unsigned long long *g_index, size_t count, size_t first)
{
    for (size_t t = gpuh_global_index(); t < count; t += gpuh_grid_stride()) {
        g_z[t] = (double)g_x[t] * g_y[t];
        g_index[t] = first + t;
    }
}

/* What the launcher saw, and which call should fail (-1: none). */
struct launch_log {
    size_t calls, elements, next_first, largest;
    int out_of_order;
    long fail_at;
    int fail_with_launch; /* 1: an invalid block through GPUH_LAUNCH; 0: return cudaErrorNotSupported */
};

static cudaError_t product_and_index(const void *const *d_in, void *const *d_out, size_t count, size_t first,
                                     cudaStream_t stream, void *user)
{
    launch_log *log = (launch_log *)user;
    const long call = (long)log->calls++;
    log->elements += count;
    log->out_of_order |= first != log->next_first || count == 0;
    log->next_first = first + count;
    log->largest = count > log->largest ? count : log->largest;
    if (call == log->fail_at && !log->fail_with_launch)
        return cudaErrorNotSupported;
    const unsigned block = call == log->fail_at ? 2048 : 256; /* 2048 threads: beyond CUDA's limit */
    return GPUH_LAUNCH(product_and_index_kernel, 64, block, 0, stream, (const float *)d_in[0],
                       (const double *)d_in[1], (double *)d_out[0], (unsigned long long *)d_out[1], count, first);
}

enum memory_mode { PAGEABLE, PINNED, PINNED_IN_PAGEABLE_OUT };
static const char *const mode_names[] = {"pageable", "pinned", "pinned inputs, pageable outputs"};

/* Host arrays of n elements (+1 guard element on the outputs), pinned or not. */
struct host_arrays {
    std::vector<float> vx;
    std::vector<double> vy, vz;
    std::vector<unsigned long long> vindex;
    float *x = NULL;
    double *y = NULL, *z = NULL, *pin_y = NULL, *pin_z = NULL;
    float *pin_x = NULL;
    unsigned long long *index = NULL, *pin_index = NULL;

    host_arrays(size_t n, memory_mode mode) : vx(n + 1), vy(n + 1), vz(n + 1), vindex(n + 1)
    {
        x = vx.data(), y = vy.data(), z = vz.data(), index = vindex.data();
        if (mode != PAGEABLE) {
            TEST_CUDA(gpuh_pinned_array(&pin_x, n + 1));
            TEST_CUDA(gpuh_pinned_array(&pin_y, n + 1));
            x = pin_x, y = pin_y;
        }
        if (mode == PINNED) {
            TEST_CUDA(gpuh_pinned_array(&pin_z, n + 1));
            TEST_CUDA(gpuh_pinned_array(&pin_index, n + 1));
            z = pin_z, index = pin_index;
        }
        for (size_t i = 0; i < n; ++i) {
            x[i] = (float)(2.0 * gpuh_test_uniform(&rng) - 1.0);
            y[i] = 2.0 * gpuh_test_uniform(&rng) - 1.0;
        }
        memset(z, 0xFF, (n + 1) * sizeof *z); /* poison: NaN */
        memset(index, 0xFF, (n + 1) * sizeof *index);
    }
    ~host_arrays()
    {
        for (void *p : {(void *)pin_x, (void *)pin_y, (void *)pin_z, (void *)pin_index})
            TEST_CUDA(gpuh_free(p));
    }
};

static void describe(gpuh_pipeline_desc *d, host_arrays &h, size_t n, size_t chunk, int streams, launch_log *log)
{
    memset(d, 0, sizeof *d);
    memset(log, 0, sizeof *log);
    log->fail_at = -1;
    d->n = n;
    d->in[0] = h.x, d->in_elem_bytes[0] = sizeof(float);
    d->in[1] = h.y, d->in_elem_bytes[1] = sizeof(double);
    d->out[0] = h.z, d->out_elem_bytes[0] = sizeof(double);
    d->out[1] = h.index, d->out_elem_bytes[1] = sizeof(unsigned long long);
    d->chunk = chunk;
    d->streams = streams;
    d->launch = product_and_index;
    d->user = log;
}

/* One pipeline run against the host reference; every element exact (one
   double product of the same operands on both sides). */
static void check_pipeline(size_t n, size_t chunk, int streams, memory_mode mode)
{
    host_arrays h(n, mode);
    gpuh_pipeline_desc d;
    launch_log log;
    describe(&d, h, n, chunk, streams, &log);
    const gpuh_memory_stats before = stats();
    char what[160];
    snprintf(what, sizeof what, "n %zu, chunk %zu, %d streams, %s", n, chunk, streams, mode_names[mode]);
    const size_t want_chunk = chunk == 0 ? GPUH_PIPELINE_DEFAULT_CHUNK : chunk;
    if (!TEST_CUDA(gpuh_pipeline(&d)))
        printf("     (%s)\n", what);
    size_t bad = 0, first_bad = n;
    for (size_t i = 0; i < n; ++i)
        if (h.z[i] != (double)h.x[i] * h.y[i] || h.index[i] != i) {
            bad++;
            first_bad = first_bad < i ? first_bad : i;
        }
    TEST_ASSERT(bad == 0, "%s: %zu wrong elements, the first at %zu", what, bad, first_bad);
    TEST_ASSERT(h.index[n] == ~0ull, "%s: the element after the output was written", what);
    TEST_ASSERT(log.calls == gpuh_ceil_div(n, want_chunk) && log.elements == n && !log.out_of_order &&
                    log.largest <= want_chunk,
                "%s: %zu launcher calls (expected %zu) over %zu elements, largest %zu, in order: %s", what,
                log.calls, gpuh_ceil_div(n, want_chunk), log.elements, log.largest, log.out_of_order ? "no" : "yes");
    check_nothing_held(before, what);
}

static void test_pipeline_sizes(void)
{
    const size_t c = 1000;
    const size_t sizes[] = {0, 1, c - 1, c, c + 1, 10 * c + 3};
    const int streams[] = {1, 2, 4};
    for (int mode = PAGEABLE; mode <= PINNED_IN_PAGEABLE_OUT; ++mode)
        for (int k : streams)
            for (size_t n : sizes)
                check_pipeline(n, c, k, (memory_mode)mode);
    /* The defaults (chunk 2^20 elements, 4 streams): two chunks, the second of 3 elements. */
    if (!gpuh_test_quick()) {
        check_pipeline(GPUH_PIPELINE_DEFAULT_CHUNK + 3, 0, 0, PAGEABLE);
        check_pipeline(GPUH_PIPELINE_DEFAULT_CHUNK + 3, 0, 0, PINNED);
    }
}

/* The chunk records: which elements and stream, and times in stream order. */
static void test_pipeline_records(void)
{
    const size_t n = 10003, c = 1000, count = 11;
    const int k = 4;
    host_arrays h(n, PINNED);
    gpuh_pipeline_desc d;
    launch_log log;
    gpuh_pipeline_chunk rec[count];
    describe(&d, h, n, c, k, &log);
    d.chunks = rec;
    d.chunks_capacity = count - 1;
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "need 11");
    TEST_ASSERT(log.calls == 0, "the launcher ran %zu times after an argument error", log.calls);
    d.chunks_capacity = count;
    memset(rec, 0xFF, sizeof rec);
    TEST_CUDA(gpuh_pipeline(&d));
    for (size_t i = 0; i < count; ++i) {
        const gpuh_pipeline_chunk &r = rec[i];
        TEST_ASSERT(r.first == i * c && r.count == (i + 1 < count ? c : 3) && r.stream == (int)(i % k),
                    "chunk %zu: first %zu, count %zu, stream %d", i, r.first, r.count, r.stream);
        TEST_ASSERT(0.0f <= r.h2d_begin_ms && r.h2d_begin_ms <= r.h2d_end_ms && r.h2d_end_ms <= r.kernel_end_ms &&
                        r.kernel_end_ms <= r.d2h_end_ms && r.d2h_end_ms < 10000.0f,
                    "chunk %zu: times %g, %g, %g, %g ms are not in stream order", i, r.h2d_begin_ms, r.h2d_end_ms,
                    r.kernel_end_ms, r.d2h_end_ms);
        if (i >= (size_t)k) /* one stream runs its chunks one after another */
            TEST_ASSERT(rec[i - k].d2h_end_ms <= r.h2d_begin_ms, "chunk %zu began before chunk %zu of its stream ended",
                        i, i - k);
    }
}

/* A launcher that fails: the error comes back with the chunk and the
   launcher's own detail, and the pipeline frees all it made. */
static void test_pipeline_errors(void)
{
    for (int mode = PAGEABLE; mode <= PINNED; ++mode) {
        for (int with_launch = 0; with_launch <= 1; ++with_launch) {
            const size_t n = 10 * 1000 + 3;
            host_arrays h(n, (memory_mode)mode);
            gpuh_pipeline_desc d;
            launch_log log;
            describe(&d, h, n, 1000, 3, &log);
            log.fail_at = with_launch ? 3 : 0;
            log.fail_with_launch = with_launch;
            const gpuh_memory_stats before = stats();
            gpuh_test_clear_detail();
            TEST_ERR(gpuh_pipeline(&d), with_launch ? cudaErrorInvalidConfiguration : cudaErrorNotSupported);
            TEST_CONTAINS(gpuh_error_detail(), "gpuh_pipeline: the launcher returned");
            TEST_CONTAINS(gpuh_error_detail(), with_launch ? "chunk 3 (elements 3000 .. 3999)" : "chunk 0");
            if (with_launch) /* GPUH_LAUNCH's detail, kept (its start: the detail may be cut off) */
                TEST_CONTAINS(gpuh_error_detail(), "on stream 0: GPUH_LAUNCH of product_and_index_kernel at");
            TEST_ASSERT(log.calls == (size_t)log.fail_at + 1, "the launcher ran %zu times, expected %ld", log.calls,
                        log.fail_at + 1);
            check_nothing_held(before, with_launch ? "GPUH_LAUNCH error in chunk 3" : "error in chunk 0");
        }
    }
    /* Device memory is not a host array. */
    float *d_x = NULL;
    TEST_CUDA(gpuh_device_array(&d_x, 10));
    host_arrays h(10, PINNED);
    gpuh_pipeline_desc d;
    launch_log log;
    describe(&d, h, 10, 4, 2, &log);
    d.in[0] = d_x;
    const gpuh_memory_stats before = stats();
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "in[0]");
    TEST_CONTAINS(gpuh_error_detail(), "is device memory");
    check_nothing_held(before, "device memory as input");
    TEST_CUDA(gpuh_free(d_x));
}

/* ===========================================================================
   STREAMS AND EVENTS */

/* One thread spins for `cycles` SM clock cycles, then writes *g_flag = 1. */
__global__ void spin_then_set_kernel(long long cycles, int *g_flag)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    *g_flag = 1;
}

/* One thread: *g_out = *g_flag. */
__global__ void read_flag_kernel(const int *g_flag, int *g_out) { *g_out = *g_flag; }

static void test_streams_and_events(void)
{
    int least = 0, greatest = 0, priority = 1, zero = 0;
    unsigned flags = 0;
    char want[160];
    TEST_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    snprintf(want, sizeof want, "range %d (highest) to %d (lowest)", greatest, least);
    cudaStream_t a = NULL, b = NULL;
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_stream_create(&a, cudaStreamNonBlocking, greatest - 1), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), want);
    TEST_ASSERT(a == NULL, "a failed gpuh_stream_create left a stream");
    TEST_ERR(gpuh_stream_create(&a, cudaStreamDefault, least + 1), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), want);

    TEST_CUDA(gpuh_stream_create(&a, cudaStreamNonBlocking, greatest));
    TEST_CUDA(gpuh_stream_create(&b, cudaStreamDefault, least));
    TEST_CUDA(cudaStreamGetPriority(a, &priority));
    TEST_CUDA(cudaStreamGetFlags(a, &flags));
    TEST_ASSERT(priority == greatest && flags == cudaStreamNonBlocking, "stream a: priority %d, flags %#x", priority,
                flags);
    TEST_CUDA(cudaStreamGetPriority(b, &priority));
    TEST_CUDA(cudaStreamGetFlags(b, &flags));
    TEST_ASSERT(priority == least && flags == cudaStreamDefault, "stream b: priority %d, flags %#x", priority, flags);

    /* b waits for a through an event: b's read must see a's late write. */
    int *flag = NULL, *out = NULL, h_out = 0;
    cudaEvent_t set = NULL, t0 = NULL, t1 = NULL, untimed = NULL;
    TEST_CUDA(gpuh_device_array(&flag, 1));
    TEST_CUDA(gpuh_device_array(&out, 1));
    TEST_CUDA(gpuh_copy_to_device(flag, &zero, 1));
    TEST_CUDA(cudaDeviceSynchronize()); /* a is non-blocking: it would not wait for that copy */
    TEST_CUDA(gpuh_event_create(&set, cudaEventDisableTiming));
    TEST_CUDA(gpuh_event_create(&t0, cudaEventDefault));
    TEST_CUDA(gpuh_event_create(&t1, cudaEventBlockingSync));
    TEST_CUDA(gpuh_event_create(&untimed, cudaEventDisableTiming));
    TEST_CUDA(gpuh_event_record(t0, a));
    TEST_CUDA(GPUH_LAUNCH(spin_then_set_kernel, 1, 1, 0, a, 20000000ll, flag)); /* ~10 ms */
    TEST_CUDA(gpuh_event_record(set, a));
    TEST_CUDA(gpuh_event_record(t1, a));
    TEST_CUDA(gpuh_stream_wait_event(b, set));
    TEST_CUDA(GPUH_LAUNCH(read_flag_kernel, 1, 1, 0, b, flag, out));
    TEST_CUDA(gpuh_stream_sync(b));
    TEST_CUDA(gpuh_copy_to_host(&h_out, out, 1));
    TEST_ASSERT(h_out == 1, "stream b read %d before stream a's event", h_out);

    float ms = -1.0f;
    TEST_CUDA(gpuh_event_elapsed_ms(t0, t1, &ms));
    TEST_ASSERT(ms > 1.0f && ms < 10000.0f, "20M spin cycles took %g ms", ms);
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_event_elapsed_ms(t0, untimed, &ms), cudaErrorInvalidResourceHandle);
    TEST_CONTAINS(gpuh_error_detail(), "cudaEventDisableTiming");

    TEST_CUDA(gpuh_stream_sync(a));
    TEST_CUDA(gpuh_stream_destroy(&a));
    TEST_CUDA(gpuh_stream_destroy(&b));
    TEST_ASSERT(a == NULL && b == NULL, "gpuh_stream_destroy left the handles");
    TEST_CUDA(gpuh_stream_destroy(&a)); /* again: a no-op */
    for (cudaEvent_t *e : {&set, &t0, &t1, &untimed}) {
        TEST_CUDA(gpuh_event_destroy(e));
        TEST_ASSERT(*e == NULL, "gpuh_event_destroy left the handle");
    }
    TEST_CUDA(gpuh_free(flag));
    TEST_CUDA(gpuh_free(out));
}

/* ===========================================================================
   THE PAGEABLE WARNING: once per call site, naming it; none for pinned memory. */

static int count_of(const char *text, const char *needle)
{
    int k = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle))
        ++k;
    return k;
}

static void test_pageable_warning(void)
{
    const size_t n = 4096;
    std::vector<float> pageable(n, 1.0f);
    float *pinned = NULL, *d = NULL, *d2 = NULL;
    cudaStream_t s = NULL;
    char site[512];
    int line_in = 0, line_out = 0, line_to = 0;
    TEST_CUDA(gpuh_pinned_array(&pinned, n));
    TEST_CUDA(gpuh_device_array(&d, n));
    TEST_CUDA(gpuh_stream_create(&s, cudaStreamNonBlocking, 0));

    gpuh_test_capture_begin();
    for (int r = 0; r < 3; ++r) {
        line_in = __LINE__ + 1;
        TEST_CUDA(gpuh_copy_to_device_async(d, pageable.data(), n, s));
    }
    for (int r = 0; r < 3; ++r) {
        line_out = __LINE__ + 1;
        TEST_CUDA(gpuh_copy_to_host_async(pageable.data(), d, n, s));
    }
    for (int r = 0; r < 2; ++r) {
        line_to = __LINE__ + 1;
        TEST_CUDA(gpuh_to_device_async(&d2, pageable.data(), n, s));
        TEST_CUDA(gpuh_stream_sync(s));
        TEST_CUDA(gpuh_free(d2));
    }
    for (int r = 0; r < 3; ++r) { /* pinned: asynchronous, nothing to say */
        TEST_CUDA(gpuh_copy_to_device_async(d, pinned, n, s));
        TEST_CUDA(gpuh_copy_to_host_async(pinned, d, n, s));
    }
    TEST_CUDA(gpuh_stream_sync(s));
    const char *log = gpuh_test_capture_end();

    TEST_ASSERT(count_of(log, "warning:") == 3, "%d warnings, expected 3 (one per pageable call site):\n%s",
                count_of(log, "warning:"), log);
    snprintf(site, sizeof site, "%s:%d: warning: gpuh_copy_to_device_async", __FILE__, line_in);
    TEST_CONTAINS(log, site);
    snprintf(site, sizeof site, "%s:%d: warning: gpuh_copy_to_host_async", __FILE__, line_out);
    TEST_CONTAINS(log, site);
    snprintf(site, sizeof site, "%s:%d: warning: gpuh_to_device_async", __FILE__, line_to);
    TEST_CONTAINS(log, site);
    TEST_CONTAINS(log, "runs synchronously");
    TEST_CONTAINS(log, "gpuh_pinned_array");

    TEST_CUDA(gpuh_stream_destroy(&s));
    TEST_CUDA(gpuh_free(pinned));
    TEST_CUDA(gpuh_free(d));
}

int main(void)
{
    GPUH_TEST_REQUIRE_DEVICE();
    rng = gpuh_test_seed();

    test_streams_and_events();
    test_pageable_warning();
    test_pipeline_sizes();
    test_pipeline_records();
    test_pipeline_errors();

    TEST_CUDA(cudaDeviceSynchronize());
    TEST_ASSERT(gpuh_print_allocations(NULL) == 0, "allocations left behind (listed above)");
    return gpuh_test_summary("test_streams");
}
