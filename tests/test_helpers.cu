/* test_helpers.cu - GPU tests of gpuh.h's helpers: devices, launches, memory
   (round trips, async copies, pinned and managed memory, the ledger and its
   counters), the timer and the random generators.

   Without a device: exit 77, "no CUDA device: <reason>". Inputs come from the
   printed seed (rerun with GPUH_SEED=<seed>).

   nvcc -std=c++17 -arch=sm_90 -DGPUH_USE_CURAND -I. tests/test_helpers.cu -lcurand
*/
/* A small ledger, so that its full path (untracked allocations) is reachable
   with a handful of allocations. */
#define GPUH_LEDGER_CAPACITY 16
#include "gpuh_test.h"

#include <cmath>
#include <vector>

#ifndef GPUH_USE_CURAND
#error "test_helpers.cu needs -DGPUH_USE_CURAND (and -lcurand)"
#endif

static const size_t sizes[] = {0, 1, 31, 32, 33, 1023, 1025, 2049, (1u << 20) + 3};
static unsigned long long rng;

/* A struct with padding (4 + 4 + 8 + 3 + 5 bytes): copies must move every byte. */
struct record {
    int id;
    double value;
    char tag[3];
};

__global__ void noop_kernel(int *g_flag)
{
    if (g_flag != NULL && threadIdx.x == 0)
        *g_flag = 1;
}

__global__ void __launch_bounds__(96) bounded_kernel(int *g_flag)
{
    if (g_flag != NULL && threadIdx.x == 0)
        *g_flag = 2;
}

__global__ void scale_kernel(float *g_x, size_t n, float factor)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        g_x[i] *= factor;
}

/* Spins one thread for `cycles` SM clock cycles: work of a known length for the timer. */
__global__ void spin_kernel(long long cycles)
{
    const long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
}

static gpuh_memory_stats stats(void)
{
    gpuh_memory_stats s;
    memset(&s, 0, sizeof s);
    TEST_CUDA(gpuh_memory_info(&s));
    return s;
}

/* ===========================================================================
   DEVICES */

static void test_devices(void)
{
    const char *why = NULL;
    const int count = gpuh_device_count(&why);
    char want[128];
    TEST_ASSERT(count > 0 && why != NULL && why[0] == '\0', "count %d, reason \"%s\"", count, why ? why : "(null)");
    TEST_CUDA(gpuh_select_device(0));

    gpuh_test_clear_detail();
    TEST_ERR(gpuh_select_device(count), cudaErrorInvalidDevice);
    snprintf(want, sizeof want, "device %d is out of range (%d visible)", count, count);
    TEST_CONTAINS(gpuh_error_detail(), want);
    TEST_ERR(gpuh_select_device(-1), cudaErrorInvalidDevice);
    TEST_CONTAINS(gpuh_error_detail(), "device -1 is out of range");
    TEST_CUDA(gpuh_select_device(0)); /* the failures changed nothing */

    FILE *f = tmpfile();
    char text[16384];
    TEST_ASSERT(f != NULL, "tmpfile() failed");
    TEST_CUDA(gpuh_print_devices(f));
    gpuh_test_read_back(f, text, sizeof text);
    TEST_CONTAINS(text, "id 0 ");
    TEST_CONTAINS(text, "compute capability");
    if (f)
        fclose(f);

    gpuh_memory_stats s = stats();
    TEST_ASSERT(s.total_bytes > 0 && s.free_bytes > 0 && s.free_bytes <= s.total_bytes, "free %zu of %zu bytes",
                s.free_bytes, s.total_bytes);
    TEST_ERR(gpuh_memory_info(NULL), cudaErrorInvalidValue);
}

/* ===========================================================================
   LAUNCHES */

/* Each thread of a 3-D grid writes its gpuh_global_index_3d() and the
   grid's gpuh_grid_stride_3d() (and the 2-D forms) into its own slot. */
__global__ void index_kernel(unsigned long long *g_out, size_t nx, size_t ny)
{
    const gpuh_size3 i = gpuh_global_index_3d(), s = gpuh_grid_stride_3d();
    const gpuh_size2 i2 = gpuh_global_index_2d(), s2 = gpuh_grid_stride_2d();
    unsigned long long *o = g_out + 7 * ((i.z * ny + i.y) * nx + i.x);
    o[0] = i.x, o[1] = i.y, o[2] = i.z, o[3] = s.x, o[4] = s.y, o[5] = s.z;
    o[6] = (i2.x == i.x && i2.y == i.y && s2.x == s.x && s2.y == s.y) ? 1 : 0;
}

/* The 2-D and 3-D index helpers against the coordinates a CPU computes, on a
   grid of (3, 2, 2) blocks of (4, 3, 2) threads: 12 x 6 x 4 threads. */
static void test_index_helpers(void)
{
    const dim3 grid(3, 2, 2), block(4, 3, 2);
    const size_t nx = 12, ny = 6, nz = 4, n = nx * ny * nz;
    unsigned long long *d = NULL;
    std::vector<unsigned long long> h(7 * n, 0);
    if (!TEST_CUDA(gpuh_device_array(&d, 7 * n)))
        return;
    TEST_CUDA(cudaMemset(d, 0xFF, 7 * n * sizeof *d)); /* poison */
    TEST_CUDA(GPUH_LAUNCH(index_kernel, grid, block, 0, 0, d, nx, ny));
    TEST_CUDA(gpuh_copy_to_host(h.data(), d, 7 * n));
    size_t wrong = 0;
    for (size_t z = 0; z < nz; ++z)
        for (size_t y = 0; y < ny; ++y)
            for (size_t x = 0; x < nx; ++x) {
                const unsigned long long *o = &h[7 * ((z * ny + y) * nx + x)];
                wrong += o[0] != x || o[1] != y || o[2] != z || o[3] != nx || o[4] != ny || o[5] != nz || o[6] != 1;
            }
    TEST_ASSERT(wrong == 0, "%zu of %zu threads got the wrong 2-D/3-D index or stride", wrong, n);
    TEST_CUDA(gpuh_free(d));
}

static void test_launch(void)
{
    int *flag = NULL, h_flag = 0;
    if (!TEST_CUDA(gpuh_device_array(&flag, 1)))
        return;

    /* 2048 threads per block: CUDA refuses the launch, gpuh records it. */
    dim3 big(2048);
    const int line = __LINE__; cudaError_t err = GPUH_LAUNCH(noop_kernel, 1, big, 0, 0, flag);
    TEST_ASSERT(err == cudaErrorInvalidConfiguration, "GPUH_LAUNCH with 2048 threads returned %s",
                cudaGetErrorName(err));
    TEST_CONTAINS(gpuh_error_detail(), "GPUH_LAUNCH of noop_kernel");
    TEST_CONTAINS(gpuh_error_detail(), "(2048, 1, 1)");
    gpuh_launch_record r = gpuh_last_launch();
    TEST_ASSERT(r.kernel != NULL && strcmp(r.kernel, "noop_kernel") == 0, "kernel \"%s\"", r.kernel ? r.kernel : "");
    TEST_ASSERT(r.grid.x == 1 && r.grid.y == 1 && r.grid.z == 1, "grid (%u, %u, %u)", r.grid.x, r.grid.y, r.grid.z);
    TEST_ASSERT(r.block.x == 2048 && r.block.y == 1 && r.block.z == 1, "block (%u, %u, %u)", r.block.x, r.block.y,
                r.block.z);
    TEST_ASSERT(r.shmem_bytes == 0, "shmem %zu", r.shmem_bytes);
    TEST_ASSERT(r.file != NULL && strcmp(r.file, __FILE__) == 0 && r.line == line, "at %s:%d, expected %s:%d",
                r.file ? r.file : "", r.line, __FILE__, line);

    /* The report of a launch error names the launch. */
    char want[512];
    snprintf(want, sizeof want, "last launch: noop_kernel<<<(1,1,1), (2048,1,1), 0>>> at %s:%d", __FILE__, line);
    gpuh_test_capture_begin();
    gpuh_report_error(err, "GPUH_LAUNCH(noop_kernel, ...)", __FILE__, line);
    const char *text = gpuh_test_capture_end();
    TEST_CONTAINS(text, want);

    /* Not sticky: the next launch works. */
    TEST_CUDA(GPUH_LAUNCH(noop_kernel, 1, 32, 0, 0, flag));
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(gpuh_copy_to_host(&h_flag, flag, 1));
    TEST_ASSERT(h_flag == 1, "noop_kernel did not run (flag %d)", h_flag);
    r = gpuh_last_launch();
    TEST_ASSERT(r.block.x == 32 && r.line > line, "record not updated by the second launch");

    /* A raw <<< >>> launch, checked by gpuh_check_launch, which also clears it. */
    noop_kernel<<<1, 2048>>>(flag);
    err = gpuh_check_launch(); /* which of the two the runtime names varies: CUDA 13 says InvalidValue */
    TEST_ASSERT(err == cudaErrorInvalidConfiguration || err == cudaErrorInvalidValue,
                "raw launch with 2048 threads: gpuh_check_launch returned %s", cudaGetErrorName(err));
    TEST_CUDA(gpuh_check_launch());

    /* gpuh_suggest_block_size */
    int block = -1, min_grid = -1;
    TEST_CUDA(gpuh_suggest_block_size((const void *)noop_kernel, 0, &block, &min_grid));
    TEST_ASSERT(block >= 32 && block <= 1024 && block % 32 == 0 && min_grid > 0, "block %d, min grid %d", block,
                min_grid);
    TEST_CUDA(gpuh_suggest_block_size((const void *)noop_kernel, 0, &block, NULL));
    /* A kernel declared __launch_bounds__(96): the suggestion respects its limit. */
    TEST_CUDA(gpuh_suggest_block_size((const void *)bounded_kernel, 0, &block, &min_grid));
    TEST_ASSERT(block >= 32 && block <= 96 && block % 32 == 0 && min_grid > 0,
                "__launch_bounds__(96) kernel: block %d, min grid %d", block, min_grid);
    /* No block size fits 1 GiB of shared memory. */
    block = -1;
    err = gpuh_suggest_block_size((const void *)noop_kernel, (size_t)1 << 30, &block, &min_grid);
    TEST_ASSERT(err != cudaSuccess && block == -1, "1 GiB of shared memory: %s, block %d", cudaGetErrorName(err),
                block);
    cudaGetLastError();

    TEST_CUDA(gpuh_free(flag));
}

/* ===========================================================================
   MEMORY: round trips at the awkward sizes */

template <typename T> static void round_trip(const char *name)
{
    for (size_t n : sizes) {
        const size_t bytes = n * sizeof(T);
        std::vector<T> h(n), back(n);
        gpuh_test_fill_bytes(h.data(), bytes, &rng);
        T dummy, *d = &dummy, *d2 = &dummy;
        gpuh_memory_stats s0 = stats();

        /* host -> new device array -> host */
        if (!TEST_CUDA(gpuh_to_device(&d, h.data(), n)))
            return;
        TEST_ASSERT(n > 0 ? d != NULL : d == NULL, "%s n = %zu: gpuh_to_device gave %p", name, n, (void *)d);
        if (n > 0)
            memset(back.data(), 0xA5, bytes);
        TEST_CUDA(gpuh_copy_to_host(back.data(), d, n));
        TEST_ASSERT(n == 0 || memcmp(h.data(), back.data(), bytes) == 0,
                    "%s n = %zu: to_device/copy_to_host changed the data", name, n);

        /* host -> existing (poisoned) device array -> host */
        if (!TEST_CUDA(gpuh_device_array(&d2, n)))
            return;
        TEST_ASSERT(n > 0 ? d2 != NULL : d2 == NULL, "%s n = %zu: gpuh_device_array gave %p", name, n, (void *)d2);
        if (n > 0)
            TEST_CUDA(cudaMemset(d2, 0xFF, bytes));
        TEST_CUDA(gpuh_copy_to_device(d2, h.data(), n));
        if (n > 0)
            memset(back.data(), 0x5A, bytes);
        TEST_CUDA(gpuh_copy_to_host(back.data(), d2, n));
        TEST_ASSERT(n == 0 || memcmp(h.data(), back.data(), bytes) == 0,
                    "%s n = %zu: device_array/copy_to_device/copy_to_host changed the data", name, n);

        /* The counters moved by exactly the bytes, and back. */
        gpuh_memory_stats s1 = stats();
        TEST_ASSERT(s1.allocated_bytes == s0.allocated_bytes + 2 * bytes, "%s n = %zu: allocated %zu, expected %zu",
                    name, n, s1.allocated_bytes, s0.allocated_bytes + 2 * bytes);
        TEST_ASSERT(s1.live_allocations == s0.live_allocations + (n > 0 ? 2 : 0), "%s n = %zu: live %zu, expected %zu",
                    name, n, s1.live_allocations, s0.live_allocations + (n > 0 ? 2 : 0));
        TEST_CUDA(gpuh_free(d));
        TEST_CUDA(gpuh_free(d2));
        gpuh_memory_stats s2 = stats();
        TEST_ASSERT(s2.allocated_bytes == s0.allocated_bytes && s2.live_allocations == s0.live_allocations,
                    "%s n = %zu: counters not restored (%zu bytes, %zu live)", name, n, s2.allocated_bytes,
                    s2.live_allocations);
    }
}

/* Async copies on a created stream, with pinned host memory. */
static void test_async_pinned(void)
{
    cudaStream_t stream = NULL;
    if (!TEST_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking)))
        return;
    for (size_t n : sizes) {
        const size_t bytes = n * sizeof(double);
        double *hp = NULL, *hq = NULL, *d = NULL;
        gpuh_memory_stats s0 = stats();
        TEST_CUDA(gpuh_pinned_array(&hp, n));
        TEST_CUDA(gpuh_pinned_array(&hq, n));
        if (n > 0 && (hp == NULL || hq == NULL))
            break;
        gpuh_memory_stats s1 = stats();
        TEST_ASSERT(s1.pinned_bytes == s0.pinned_bytes + 2 * bytes, "n = %zu: pinned %zu, expected %zu", n,
                    s1.pinned_bytes, s0.pinned_bytes + 2 * bytes);
        TEST_ASSERT(s1.allocated_bytes == s0.allocated_bytes, "pinned memory counted as device memory");
        gpuh_test_fill_bytes(hp, bytes, &rng);
        if (n > 0)
            memset(hq, 0xFF, bytes);
        TEST_CUDA(gpuh_to_device_async(&d, hp, n, stream));
        TEST_CUDA(gpuh_copy_to_host_async(hq, d, n, stream));
        TEST_CUDA(cudaStreamSynchronize(stream));
        TEST_ASSERT(n == 0 || memcmp(hp, hq, bytes) == 0, "n = %zu: async round trip changed the data", n);
        /* and into the existing array */
        if (n > 0) {
            gpuh_test_fill_bytes(hp, bytes, &rng);
            memset(hq, 0xFF, bytes);
        }
        TEST_CUDA(gpuh_copy_to_device_async(d, hp, n, stream));
        TEST_CUDA(gpuh_copy_to_host_async(hq, d, n, stream));
        TEST_CUDA(cudaStreamSynchronize(stream));
        TEST_ASSERT(n == 0 || memcmp(hp, hq, bytes) == 0, "n = %zu: async copy_to_device changed the data", n);
        TEST_CUDA(gpuh_free(d));
        TEST_CUDA(gpuh_free(hp));
        TEST_CUDA(gpuh_free(hq));
        gpuh_memory_stats s2 = stats();
        TEST_ASSERT(s2.pinned_bytes == s0.pinned_bytes && s2.live_allocations == s0.live_allocations,
                    "n = %zu: pinned %zu, live %zu after freeing", n, s2.pinned_bytes, s2.live_allocations);
    }
    TEST_CUDA(cudaStreamDestroy(stream));
}

/* Managed memory: written on the host, prefetched, scaled by a kernel,
   prefetched back, read on the host. */
static void test_managed(void)
{
    const size_t n = (1u << 20) + 3;
    int dev = 0, concurrent = 0;
    float *m = NULL;
    cudaStream_t stream = NULL;
    TEST_CUDA(cudaGetDevice(&dev));
    TEST_CUDA(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
    if (!TEST_CUDA(cudaStreamCreate(&stream)))
        return;
    gpuh_memory_stats s0 = stats();
    if (!TEST_CUDA(gpuh_managed_array(&m, n)) || m == NULL) {
        TEST_CUDA(cudaStreamDestroy(stream));
        return;
    }
    gpuh_memory_stats s1 = stats();
    TEST_ASSERT(s1.allocated_bytes == s0.allocated_bytes + n * sizeof(float), "managed: allocated %zu, expected %zu",
                s1.allocated_bytes, s0.allocated_bytes + n * sizeof(float));
    std::vector<float> orig(n);
    for (size_t i = 0; i < n; ++i)
        m[i] = orig[i] = (float)(2.0 * gpuh_test_uniform(&rng) - 1.0);
    if (concurrent) {
        TEST_CUDA(gpuh_prefetch_async(m, n, dev, stream));
    } else {
        printf("note: device %d has no concurrent managed access: prefetch not tested\n", dev);
    }
    dim3 grid;
    TEST_CUDA(gpuh_grid_1d(&grid, n, 256));
    TEST_CUDA(GPUH_LAUNCH(scale_kernel, grid, 256, 0, stream, m, n, 2.0f));
    if (concurrent)
        TEST_CUDA(gpuh_prefetch_async(m, n, cudaCpuDeviceId, stream));
    TEST_CUDA(cudaStreamSynchronize(stream));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i)
        bad += m[i] != 2.0f * orig[i];
    TEST_ASSERT(bad == 0, "managed: %zu of %zu elements not doubled", bad, n);
    TEST_CUDA(gpuh_prefetch_async(m, 0, dev, stream)); /* nothing to move */
    float *null = NULL;
    TEST_ERR(gpuh_prefetch_async(null, 4, dev, stream), cudaErrorInvalidValue);
    TEST_CUDA(gpuh_free(m));
    gpuh_memory_stats s2 = stats();
    TEST_ASSERT(s2.allocated_bytes == s0.allocated_bytes && s2.live_allocations == s0.live_allocations,
                "managed: counters not restored");
    TEST_CUDA(cudaStreamDestroy(stream));
}

/* ===========================================================================
   THE LEDGER AND ITS COUNTERS */

static void test_ledger(void)
{
    double *d = NULL;
    int *h = NULL;
    char text[8192], want[256];
    FILE *f = tmpfile();
    TEST_ASSERT(f != NULL, "tmpfile() failed");
    if (f == NULL)
        return;

    const gpuh_memory_stats s0 = stats();
    gpuh_reset_peak_memory();
    gpuh_memory_stats s = stats();
    TEST_ASSERT(s.peak_allocated_bytes == s.allocated_bytes, "after reset: peak %zu, allocated %zu",
                s.peak_allocated_bytes, s.allocated_bytes);

    const int line_d = __LINE__; TEST_CUDA(gpuh_device_array(&d, 1000));
    const int line_h = __LINE__; TEST_CUDA(gpuh_pinned_array(&h, 100));
    s = stats();
    TEST_ASSERT(s.allocated_bytes == s0.allocated_bytes + 8000, "allocated %zu, expected %zu", s.allocated_bytes,
                s0.allocated_bytes + 8000);
    TEST_ASSERT(s.peak_allocated_bytes == s0.allocated_bytes + 8000, "peak %zu, expected %zu", s.peak_allocated_bytes,
                s0.allocated_bytes + 8000);
    TEST_ASSERT(s.pinned_bytes == s0.pinned_bytes + 400, "pinned %zu, expected %zu", s.pinned_bytes,
                s0.pinned_bytes + 400);
    TEST_ASSERT(s.live_allocations == s0.live_allocations + 2, "live %zu, expected %zu", s.live_allocations,
                s0.live_allocations + 2);

    const size_t listed = gpuh_print_allocations(f);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_ASSERT(listed == s.live_allocations, "gpuh_print_allocations returned %zu, expected %zu", listed,
                s.live_allocations);
    snprintf(want, sizeof want, "live device allocation %p of 8000 bytes from %s:%d", (void *)d, __FILE__, line_d);
    TEST_CONTAINS(text, want);
    snprintf(want, sizeof want, "live pinned allocation %p of 400 bytes from %s:%d", (void *)h, __FILE__, line_h);
    TEST_CONTAINS(text, want);

    TEST_CUDA(gpuh_free(d));
    s = stats();
    TEST_ASSERT(s.allocated_bytes == s0.allocated_bytes, "allocated %zu after free, expected %zu", s.allocated_bytes,
                s0.allocated_bytes);
    TEST_ASSERT(s.peak_allocated_bytes == s0.allocated_bytes + 8000, "peak %zu should stay %zu",
                s.peak_allocated_bytes, s0.allocated_bytes + 8000);
    gpuh_reset_peak_memory();
    s = stats();
    TEST_ASSERT(s.peak_allocated_bytes == s0.allocated_bytes, "after reset: peak %zu, expected %zu",
                s.peak_allocated_bytes, s0.allocated_bytes);
    TEST_CUDA(gpuh_free(h));
    s = stats();
    TEST_ASSERT(s.pinned_bytes == s0.pinned_bytes && s.live_allocations == s0.live_allocations,
                "pinned %zu, live %zu after freeing", s.pinned_bytes, s.live_allocations);
    fclose(f);
}

/* Past GPUH_LEDGER_CAPACITY (16 here) allocations still work, counted as
   untracked and left out of the byte counts; gpuh_free frees them by what CUDA
   says they are. */
static void test_ledger_full(void)
{
    const gpuh_memory_stats s0 = stats();
    if (s0.live_allocations > GPUH_LEDGER_CAPACITY) {
        TEST_ASSERT(0, "%zu allocations live before the test", s0.live_allocations);
        return;
    }
    const size_t extra = 4, total = GPUH_LEDGER_CAPACITY - s0.live_allocations + extra;
    std::vector<float *> p(total, (float *)NULL);
    for (size_t i = 0; i < total; ++i)
        TEST_CUDA(gpuh_device_array(&p[i], 256));
    gpuh_memory_stats s = stats();
    TEST_ASSERT(s.live_allocations == s0.live_allocations + total, "live %zu, expected %zu", s.live_allocations,
                s0.live_allocations + total);
    TEST_ASSERT(s.untracked_allocations == extra, "untracked %zu, expected %zu", s.untracked_allocations, extra);
    TEST_ASSERT(s.allocated_bytes == s0.allocated_bytes + (total - extra) * 1024, "allocated %zu, expected %zu",
                s.allocated_bytes, s0.allocated_bytes + (total - extra) * 1024);
    FILE *f = tmpfile();
    char text[16384];
    TEST_ASSERT(f != NULL, "tmpfile() failed");
    const size_t listed = gpuh_print_allocations(f);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_ASSERT(listed == s.live_allocations, "gpuh_print_allocations returned %zu, expected %zu", listed,
                s.live_allocations);
    TEST_CONTAINS(text, "and 4 untracked allocations (ledger of 16 full)");
    if (f)
        fclose(f);
    /* A pointer inside an untracked allocation: cudaFree refuses it, and the
       counters stay as they were. */
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_free(p[total - 1] + 1), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_free: ");
    s = stats();
    TEST_ASSERT(s.live_allocations == s0.live_allocations + total && s.untracked_allocations == extra,
                "a refused free changed the counters: live %zu (expected %zu), untracked %zu (expected %zu)",
                s.live_allocations, s0.live_allocations + total, s.untracked_allocations, extra);
    /* Tracked ones first, then the untracked (found through cudaPointerGetAttributes). */
    for (size_t i = 0; i < total; ++i)
        TEST_CUDA(gpuh_free(p[i]));
    s = stats();
    TEST_ASSERT(s.live_allocations == s0.live_allocations && s.untracked_allocations == 0 &&
                    s.allocated_bytes == s0.allocated_bytes,
                "after freeing: live %zu (expected %zu), untracked %zu, allocated %zu (expected %zu)",
                s.live_allocations, s0.live_allocations, s.untracked_allocations, s.allocated_bytes,
                s0.allocated_bytes);
}

/* More than the device has: cudaErrorMemoryAllocation, a detail with the
   numbers, nothing allocated, and no lasting harm. */
static void test_too_large(void)
{
    const gpuh_memory_stats s0 = stats();
    const size_t ask = s0.total_bytes + ((size_t)1 << 30);
    char dummy = 0, *p = &dummy, want[256];
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_device_array(&p, ask), cudaErrorMemoryAllocation);
    TEST_ASSERT(p == NULL, "p = %p after a failed allocation, expected NULL", (void *)p);
    snprintf(want, sizeof want, "could not allocate %zu bytes", ask);
    TEST_CONTAINS(gpuh_error_detail(), want);
    snprintf(want, sizeof want, "bytes free of %zu", s0.total_bytes);
    TEST_CONTAINS(gpuh_error_detail(), want);
    const gpuh_memory_stats s1 = stats();
    TEST_ASSERT(s1.allocated_bytes == s0.allocated_bytes && s1.live_allocations == s0.live_allocations,
                "a failed allocation changed the counters");
    TEST_CUDA(gpuh_device_array(&p, 16)); /* not sticky */
    TEST_CUDA(gpuh_free(p));
}

/* gpuh_free of memory CUDA did not allocate, or already freed. */
static void test_free_errors(void)
{
    int local = 0;
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_free(&local), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "is not memory CUDA allocated");
    /* the device-set functions clear it before each device's step, so that
       a step's error is not told with an older detail */
    gpuh_impl_clear_detail();
    TEST_ASSERT(gpuh_error_detail()[0] == '\0', "gpuh_impl_clear_detail left \"%s\"", gpuh_error_detail());
    void *heap = malloc(64);
    TEST_ERR(gpuh_free(heap), cudaErrorInvalidValue);
    free(heap);
    float *d = NULL;
    TEST_CUDA(gpuh_device_array(&d, 1000));
    TEST_CUDA(gpuh_free(d));
    TEST_ERR(gpuh_free(d), cudaErrorInvalidValue);
    cudaGetLastError();
    TEST_CUDA(gpuh_free(NULL));
}

/* Errors that need a device (or the simulator) to happen, each with gpuh's
   exact detail: copies checked against the ledger (a count past the end of
   the allocation, host memory where device memory belongs, arguments
   swapped), a misaligned element pointer, a free inside an allocation, a
   prefetch of memory that is not managed or past its end, a timer read
   before it ran, and dynamic shared memory above 48 KiB without opting in. */
static void test_error_details(void)
{
    std::vector<float> h(2000, 1.0f);
    float *d = NULL, *m = NULL, *host = h.data();
    const int line_d = __LINE__ + 1;
    TEST_CUDA(gpuh_device_array(&d, 1000));
    const int line_m = __LINE__ + 1;
    TEST_CUDA(gpuh_managed_array(&m, 16));
    if (d == NULL || m == NULL)
        return;
    TEST_DETAIL(gpuh_copy_to_host(host, d, 2000), cudaErrorInvalidValue, "gpuh_copy_to_host: the source %p is 0 bytes into a 4000-byte device allocation from %s:%d, which leaves room for 1000 elements of 4 bytes; the count is 2000", (void *)d, __FILE__, line_d);
    TEST_DETAIL(gpuh_copy_to_device(d + 600, host, 401), cudaErrorInvalidValue, "gpuh_copy_to_device: the destination %p is 2400 bytes into a 4000-byte device allocation from %s:%d, which leaves room for 400 elements of 4 bytes; the count is 401", (void *)(d + 600), __FILE__, line_d);
    TEST_DETAIL(gpuh_copy_to_device_async(d + 999, host, 2, 0), cudaErrorInvalidValue, "gpuh_copy_to_device_async: the destination %p is 3996 bytes into a 4000-byte device allocation from %s:%d, which leaves room for 1 elements of 4 bytes; the count is 2", (void *)(d + 999), __FILE__, line_d);
    TEST_DETAIL(gpuh_copy_to_device(d + 600, host, 400), cudaSuccess, "%s", ""); /* exactly to the end */
    /* The same check for a kernel's launcher, in bytes. */
    TEST_DETAIL(gpuh_impl_check_device_range(d + 1, 3997, "my_launcher", "d_x"), cudaErrorInvalidValue, "my_launcher: d_x %p is 4 bytes into a 4000-byte device allocation from %s:%d, which leaves 3996 bytes; 3997 bytes are needed", (void *)(d + 1), __FILE__, line_d);
    TEST_DETAIL(gpuh_impl_check_device_range(d + 1, 3996, "my_launcher", "d_x"), cudaSuccess, "%s", "");
    TEST_DETAIL(gpuh_impl_check_device_range(host, 4, "my_launcher", "d_x"), cudaErrorInvalidValue, "my_launcher: d_x %p is host memory CUDA did not allocate, where device memory is needed", (void *)host);
    TEST_DETAIL(gpuh_impl_check_device_range(m, 64, "my_launcher", "d_x"), cudaSuccess, "%s", ""); /* managed: fine */
    TEST_DETAIL(gpuh_copy_to_host(host, host + 1000, 10), cudaErrorInvalidValue, "gpuh_copy_to_host: the source %p is host memory CUDA did not allocate, where device memory is needed", (void *)(host + 1000));
    TEST_DETAIL(gpuh_copy_to_host(d, host, 10), cudaErrorInvalidValue, "gpuh_copy_to_host: the destination %p is device memory (the gpuh allocation from %s:%d), where host memory is needed", (void *)d, __FILE__, line_d);
    TEST_DETAIL(gpuh_copy_to_device(host, d, 10), cudaErrorInvalidValue, "gpuh_copy_to_device: the destination %p is host memory CUDA did not allocate, where device memory is needed", (void *)host);
    float *odd = (float *)((char *)d + 2);
    TEST_DETAIL(gpuh_copy_to_device(odd, host, 4), cudaErrorInvalidValue, "gpuh_copy_to_device: the destination %p is not aligned to its element type (4 bytes)", (void *)odd);
    TEST_DETAIL(gpuh_free(d + 10), cudaErrorInvalidValue, "gpuh_free: %p is 40 bytes into the 4000-byte device allocation %p from %s:%d; free %p, the pointer the allocation returned", (void *)(d + 10), (void *)d, __FILE__, line_d, (void *)d);
    TEST_DETAIL(gpuh_prefetch_async(d, 10, 0, 0), cudaErrorInvalidValue, "gpuh_prefetch_async: ptr %p is device memory (the gpuh allocation from %s:%d), where managed memory is needed", (void *)d, __FILE__, line_d);
    TEST_DETAIL(gpuh_prefetch_async(host, 10, 0, 0), cudaErrorInvalidValue, "gpuh_prefetch_async: ptr %p is host memory, where managed memory is needed", (void *)host);
    int visible = 0;
    TEST_CUDA(cudaGetDeviceCount(&visible));
    TEST_DETAIL(gpuh_prefetch_async(m, 16, -7, 0), cudaErrorInvalidDevice, "gpuh_prefetch_async: device = -7 is neither cudaCpuDeviceId (%d) nor one of the %d visible devices", cudaCpuDeviceId, visible);
    TEST_DETAIL(gpuh_prefetch_async(m, 16, visible, 0), cudaErrorInvalidDevice, "gpuh_prefetch_async: device = %d is neither cudaCpuDeviceId (%d) nor one of the %d visible devices", visible, cudaCpuDeviceId, visible);
    TEST_DETAIL(gpuh_prefetch_async(m, SIZE_MAX / 8, 0, 0), cudaErrorInvalidValue, "gpuh_prefetch_async: ptr %p is 0 bytes into a 64-byte managed allocation from %s:%d, which leaves room for 16 elements of 4 bytes; the count is %zu", (void *)m, __FILE__, line_m, SIZE_MAX / 8);

    gpuh_timer t;
    float ms = -1;
    TEST_CUDA(gpuh_timer_create(&t));
    TEST_DETAIL(gpuh_timer_elapsed_ms(&t, &ms), cudaErrorInvalidResourceHandle, "gpuh_timer_elapsed_ms: the timer was not started and stopped (gpuh_timer_start, gpuh_timer_stop) before this call");
    TEST_CUDA(gpuh_timer_destroy(&t));

    TEST_DETAIL(GPUH_LAUNCH(noop_kernel, 1, 32, 65536, 0, NULL), cudaErrorInvalidValue, "GPUH_LAUNCH of noop_kernel at %s:%d: 65536 bytes of dynamic shared memory is above the 49152 bytes a kernel gets without opting in: call cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 65536) before the launch (up to the device's sharedMemPerBlockOptin)", __FILE__, __LINE__);
    TEST_DETAIL(GPUH_LAUNCH(bounded_kernel, 1, 128, 0, 0, NULL), cudaErrorInvalidValue, "GPUH_LAUNCH of bounded_kernel at %s:%d: the runtime refused the launch: is block (128, 1, 1) above the kernel's __launch_bounds__, or 0 bytes of dynamic shared memory above its cudaFuncAttributeMaxDynamicSharedMemorySize?", __FILE__, __LINE__);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(gpuh_free(d));
    TEST_CUDA(gpuh_free(m));
}

/* Memory gpuh allocated and the program freed with the runtime directly
   (cudaFree, cudaFreeHost) is not a leak: gpuh_print_allocations (and the
   report at exit) asks cudaPointerGetAttributes and drops it. */
static void test_freed_elsewhere(void)
{
    float *d = NULL, *kept = NULL;
    int *pinned = NULL;
    gpuh_memory_stats before, after;
    char text[2048];
    FILE *f = tmpfile();
    if (!TEST_ASSERT(f != NULL, "tmpfile() failed"))
        return;
    const size_t live = gpuh_print_allocations(f);
    TEST_CUDA(gpuh_memory_info(&before));
    TEST_CUDA(gpuh_device_array(&d, 100));
    TEST_CUDA(gpuh_pinned_array(&pinned, 10));
    const int line_kept = __LINE__ + 1;
    TEST_CUDA(gpuh_device_array(&kept, 7));
    TEST_CUDA(cudaFree(d));
    TEST_CUDA(cudaFreeHost(pinned));
    rewind(f);
    const size_t listed = gpuh_print_allocations(f);
    gpuh_test_read_back(f, text, sizeof text);
    char want[256];
    snprintf(want, sizeof want, "gpuh: live device allocation %p of 28 bytes from %s:%d\n", (void *)kept, __FILE__,
             line_kept);
    TEST_ASSERT(listed == live + 1, "%zu allocations listed, expected %zu:\n%s", listed, live + 1, text);
    TEST_CONTAINS(text, want);
    snprintf(want, sizeof want, "%p", (void *)d);
    TEST_ASSERT(strstr(text, want) == NULL, "memory freed with cudaFree is listed:\n%s", text);
    snprintf(want, sizeof want, "%p", (void *)pinned);
    TEST_ASSERT(strstr(text, want) == NULL, "memory freed with cudaFreeHost is listed:\n%s", text);
    TEST_CUDA(gpuh_memory_info(&after));
    TEST_ASSERT(after.allocated_bytes == before.allocated_bytes + 28 && after.pinned_bytes == before.pinned_bytes,
                "counters after the raw frees: %zu device bytes (expected %zu), %zu pinned (expected %zu)",
                after.allocated_bytes, before.allocated_bytes + 28, after.pinned_bytes, before.pinned_bytes);
    TEST_CUDA(gpuh_free(kept));
    fclose(f);
}

/* ===========================================================================
   TIMING (no assertions on the times themselves beyond "positive") */

struct spin_work {
    long long cycles;
    int calls, fail_at; /* fail on this call (1-based); 0: never */
    cudaError_t fail_with;
};

static cudaError_t spin(void *ctx, cudaStream_t stream)
{
    spin_work *w = (spin_work *)ctx;
    if (++w->calls == w->fail_at)
        return w->fail_with;
    return GPUH_LAUNCH(spin_kernel, 1, 1, 0, stream, w->cycles);
}

static void test_timing(void)
{
    cudaStream_t stream = NULL;
    gpuh_timer t;
    float ms = -1.0f;
    if (!TEST_CUDA(cudaStreamCreate(&stream)))
        return;

    /* One timed kernel of a million cycles (about half a millisecond). */
    TEST_CUDA(gpuh_timer_create(&t));
    TEST_CUDA(gpuh_timer_start(&t, stream));
    TEST_CUDA(GPUH_LAUNCH(spin_kernel, 1, 1, 0, stream, 1000000LL));
    TEST_CUDA(gpuh_timer_stop(&t));
    TEST_CUDA(gpuh_timer_elapsed_ms(&t, &ms));
    TEST_ASSERT(ms > 0.0f && std::isfinite(ms), "a million-cycle kernel measured %g ms", ms);
    TEST_CUDA(gpuh_timer_destroy(&t));

    /* The median of repetitions: odd and even counts, and the largest allowed. */
    for (int reps : {9, 10}) {
        spin_work w = {1000000LL, 0, 0, cudaSuccess};
        ms = -1.0f;
        TEST_CUDA(gpuh_time_median_ms(spin, &w, stream, 2, reps, &ms));
        TEST_ASSERT(ms > 0.0f && std::isfinite(ms), "median of %d reps: %g ms", reps, ms);
        TEST_ASSERT(w.calls == 2 + reps, "the work ran %d times, expected %d", w.calls, 2 + reps);
    }
    {
        spin_work w = {1000LL, 0, 0, cudaSuccess}; /* short: only "it runs and returns a time" */
        TEST_CUDA(gpuh_time_median_ms(spin, &w, stream, 0, GPUH_MAX_REPS, &ms));
        TEST_ASSERT(w.calls == GPUH_MAX_REPS && ms >= 0.0f && std::isfinite(ms), "%d reps: %d calls, %g ms",
                    GPUH_MAX_REPS, w.calls, ms);
    }

    /* An error from the work comes back as is, in the warm-up or the timed part. */
    for (int fail_at : {2, 5}) {
        spin_work w = {1000LL, 0, fail_at, cudaErrorNotSupported};
        ms = -1.0f;
        TEST_ERR(gpuh_time_median_ms(spin, &w, stream, 3, 9, &ms), cudaErrorNotSupported);
        TEST_ASSERT(w.calls == fail_at, "work called %d times after failing on call %d", w.calls, fail_at);
        TEST_ASSERT(ms == -1.0f, "median written (%g) despite the error", ms);
    }
    TEST_CUDA(cudaStreamSynchronize(stream));
    TEST_CUDA(cudaStreamDestroy(stream));
}

/* ===========================================================================
   RANDOM INPUTS. Statistical checks use 6 standard errors of the sample
   statistic for this n: a correct generator fails one with probability ~2e-9. */

template <typename T> static void moments(const std::vector<T> &x, double *mean, double *sd)
{
    double s = 0, q = 0;
    for (T v : x)
        s += (double)v;
    *mean = s / (double)x.size();
    for (T v : x)
        q += ((double)v - *mean) * ((double)v - *mean);
    *sd = sqrt(q / (double)(x.size() - 1));
}

static size_t equal_elements(const void *a, const void *b, size_t n, size_t size)
{
    size_t same = 0;
    for (size_t i = 0; i < n; ++i)
        same += memcmp((const char *)a + i * size, (const char *)b + i * size, size) == 0;
    return same;
}

template <typename T> static std::vector<T> fetch(const T *d, size_t n)
{
    std::vector<T> h(n);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(gpuh_copy_to_host(h.data(), d, n));
    return h;
}

template <typename T> static void test_uniform(cudaError_t (*gen)(T *, size_t, unsigned long long, cudaStream_t),
                                               const char *name)
{
    const size_t n = (1u << 20) + 1;
    const unsigned long long seed = gpuh_test_seed() + 101;
    T *d1 = NULL, *d2 = NULL;
    TEST_CUDA(gpuh_device_array(&d1, n));
    TEST_CUDA(gpuh_device_array(&d2, n));
    if (d1 && d2) {
        TEST_CUDA(cudaMemset(d1, 0xFF, n * sizeof(T)));
        TEST_CUDA(cudaMemset(d2, 0xFF, n * sizeof(T)));
        TEST_CUDA(gen(d1, n, seed, 0));
        TEST_CUDA(gen(d2, n, seed, 0));
        std::vector<T> a = fetch(d1, n), b = fetch(d2, n);
        TEST_ASSERT(memcmp(a.data(), b.data(), n * sizeof(T)) == 0, "%s: the same seed gave different numbers", name);
        TEST_CUDA(gen(d2, n, seed + 1, 0));
        b = fetch(d2, n);
        size_t same = equal_elements(a.data(), b.data(), n, sizeof(T));
        TEST_ASSERT(same < n / 1000, "%s: seeds %llu and %llu agree in %zu of %zu elements", name, seed, seed + 1,
                    same, n);
        size_t outside = 0;
        for (T v : a)
            outside += !(v > T(0) && v <= T(1)); /* (0, 1]; NaN (the poison) counts as outside */
        TEST_ASSERT(outside == 0, "%s: %zu values outside (0, 1]", name, outside);
        double mean, sd;
        moments(a, &mean, &sd);
        const double se = sqrt(1.0 / 12.0 / (double)n);
        TEST_ASSERT(fabs(mean - 0.5) <= 6 * se, "%s: mean %.6f, expected 0.5 +- %.6f", name, mean, 6 * se);
        /* Var(s^2) = (mu4 - sigma^4) / n = 1 / (180 n) for U(0, 1]; s's standard error is that / (2 sigma). */
        const double se_sd = sqrt(1.0 / 180.0 / (double)n) / (2.0 * sqrt(1.0 / 12.0));
        TEST_ASSERT(fabs(sd - sqrt(1.0 / 12.0)) <= 6 * se_sd,
                    "%s: standard deviation %.6f, expected %.6f", name, sd, sqrt(1.0 / 12.0));
    }
    TEST_CUDA(gen(NULL, 0, seed, 0)); /* n = 0: nothing to do */
    TEST_ERR(gen(NULL, 10, seed, 0), cudaErrorInvalidValue);
    TEST_CUDA(gpuh_free(d1));
    TEST_CUDA(gpuh_free(d2));
}

template <typename T> static void test_normal(cudaError_t (*gen)(T *, size_t, T, T, unsigned long long, cudaStream_t),
                                              const char *name)
{
    const T mean = T(3), stddev = T(2);
    const unsigned long long seed = gpuh_test_seed() + 202;
    for (size_t n : {(size_t)2, (size_t)3, (size_t)1025, (size_t)(1u << 20) + 1}) { /* odd n: the last pair comes from a second draw */
        T *d = NULL;
        if (!TEST_CUDA(gpuh_device_array(&d, n)))
            return;
        TEST_CUDA(cudaMemset(d, 0xFF, n * sizeof(T))); /* NaN */
        TEST_CUDA(gen(d, n, mean, stddev, seed, 0));
        std::vector<T> a = fetch(d, n);
        size_t unfilled = 0;
        for (T v : a)
            unfilled += !std::isfinite(v);
        TEST_ASSERT(unfilled == 0, "%s n = %zu: %zu elements not written", name, n, unfilled);
        /* The second draw must not repeat the first: the last pair appears
           nowhere else as a consecutive pair. */
        size_t repeats = 0;
        for (size_t i = 0; i + 2 < n; ++i)
            repeats += a[i] == a[n - 2] && a[i + 1] == a[n - 1];
        TEST_ASSERT(repeats == 0, "%s n = %zu: the last pair repeats earlier values %zu times", name, n, repeats);
        /* Same seed, same numbers. */
        TEST_CUDA(cudaMemset(d, 0xFF, n * sizeof(T)));
        TEST_CUDA(gen(d, n, mean, stddev, seed, 0));
        std::vector<T> b = fetch(d, n);
        TEST_ASSERT(memcmp(a.data(), b.data(), n * sizeof(T)) == 0, "%s n = %zu: the same seed gave different numbers",
                    name, n);
        if (n > 1000) {
            double m, s;
            moments(a, &m, &s);
            const double se_mean = (double)stddev / sqrt((double)n), se_sd = (double)stddev / sqrt(2.0 * (double)n);
            TEST_ASSERT(fabs(m - (double)mean) <= 6 * se_mean, "%s n = %zu: mean %.5f, expected %g +- %.5f", name, n,
                        m, (double)mean, 6 * se_mean);
            TEST_ASSERT(fabs(s - (double)stddev) <= 6 * se_sd, "%s n = %zu: standard deviation %.5f, expected %g +- %.5f",
                        name, n, s, (double)stddev, 6 * se_sd);
        }
        TEST_CUDA(gpuh_free(d));
    }
    /* n = 1: cuRAND makes pairs, so the one value comes through gpuh's scratch pair. */
    T *one = NULL;
    TEST_CUDA(gpuh_device_array(&one, 2));
    TEST_CUDA(cudaMemset(one, 0xFF, 2 * sizeof(T)));
    TEST_CUDA(gen(one, 1, mean, stddev, seed, 0));
    std::vector<T> h_one = fetch(one, 2);
    TEST_ASSERT(h_one[0] == h_one[0] && fabs((double)h_one[0] - (double)mean) < 10.0 * (double)stddev,
                "%s n = 1: value %g is not a plausible draw", name, (double)h_one[0]);
    TEST_ASSERT(h_one[1] != h_one[1], "%s n = 1: wrote past the end", name);
    TEST_CUDA(gen(NULL, 0, mean, stddev, seed, 0));
    TEST_ERR(gen(NULL, 10, mean, stddev, seed, 0), cudaErrorInvalidValue);
    TEST_CUDA(gpuh_free(one));
}

static void test_bits(void)
{
    const size_t n = (1u << 20) + 1;
    const unsigned long long seed = gpuh_test_seed() + 303;
    unsigned *d = NULL;
    if (!TEST_CUDA(gpuh_device_array(&d, n)))
        return;
    TEST_CUDA(cudaMemset(d, 0, n * sizeof(unsigned)));
    TEST_CUDA(gpuh_random_u32(d, n, seed, 0));
    std::vector<unsigned> a = fetch(d, n);
    TEST_CUDA(cudaMemset(d, 0, n * sizeof(unsigned)));
    TEST_CUDA(gpuh_random_u32(d, n, seed, 0));
    std::vector<unsigned> b = fetch(d, n);
    TEST_ASSERT(a == b, "gpuh_random_u32: the same seed gave different bits");
    TEST_CUDA(gpuh_random_u32(d, n, seed + 1, 0));
    b = fetch(d, n);
    size_t same = equal_elements(a.data(), b.data(), n, sizeof(unsigned));
    TEST_ASSERT(same < 16, "gpuh_random_u32: seeds %llu and %llu agree in %zu of %zu words", seed, seed + 1, same, n);
    /* Each of the 32n bits is 1 with probability 1/2: 16n ones, standard error sqrt(8n). */
    double ones = 0;
    for (unsigned v : a) {
        int c = 0;
        for (unsigned x = v; x; x &= x - 1)
            ++c;
        ones += c;
    }
    TEST_ASSERT(fabs(ones - 16.0 * (double)n) <= 6 * sqrt(8.0 * (double)n), "gpuh_random_u32: %.0f ones in %zu words",
                ones, n);
    unsigned *null = NULL;
    TEST_ERR(gpuh_random_u32(null, 10, seed, 0), cudaErrorInvalidValue);
    TEST_CUDA(gpuh_free(d));
}

/* =========================================================================== */

int main(void)
{
    GPUH_TEST_REQUIRE_DEVICE();
    rng = gpuh_test_seed();

    test_devices();
    test_launch();
    test_index_helpers();
    round_trip<float>("float");
    round_trip<double>("double");
    round_trip<int>("int");
    round_trip<record>("struct record");
    test_async_pinned();
    test_managed();
    test_ledger();
    test_ledger_full();
    test_too_large();
    test_free_errors();
    test_error_details();
    test_freed_elsewhere();
    test_timing();
    /* cuRAND last: it is the one part that depends on another library. */
    test_uniform<float>(gpuh_random_uniform_f32, "gpuh_random_uniform_f32");
    test_uniform<double>(gpuh_random_uniform_f64, "gpuh_random_uniform_f64");
    test_normal<float>(gpuh_random_normal_f32, "gpuh_random_normal_f32");
    test_normal<double>(gpuh_random_normal_f64, "gpuh_random_normal_f64");
    test_bits();

    TEST_CUDA(cudaDeviceSynchronize());
    TEST_ASSERT(gpuh_print_allocations(NULL) == 0, "allocations left behind (listed above)");
    return gpuh_test_summary("test_helpers");
}
