/* test_pool.cu - gpuh's memory pool (gpuh_pool_*, gpuh_empty_cache): memory
   reused across steps without growth, returned by the trim, PyTorch's
   counters, the errors with their details, and hostile use: stale handles,
   memory of no pool or another pool, memory freed after its pool's destroy,
   pool calls under stream capture (GPU only here: the simulator's graphs
   come with gpuh-simcc, so tests/test_sim_reliability.cu's pool case has
   them there). Runs on a GPU (label gpu) and on the CPU simulator (label sim). */
#include "gpuh_test.h"

static unsigned long long rng;

/* Each element gets tag + its index, so a block handed out twice at once, or
   memory a kernel cannot write, shows up in the check. */
__global__ void stamp_kernel(unsigned int *g_out, size_t n, unsigned int tag)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        g_out[i] = tag + (unsigned int)i;
}

static void stats_now(const gpuh_pool *pool, gpuh_pool_stats *st)
{
    TEST_CUDA(gpuh_pool_memory_stats(pool, st));
}

/* Steps of alloc / use / free of the same awkward sizes: reserved memory
   stops growing after the first step, allocated goes back to 0, the peaks
   hold the step's high-water marks, and the trim gives everything back. */
static void test_reuse_and_trim(void)
{
    enum { ARRAYS = 5, STEPS = 100 };
    size_t n[ARRAYS] = {1, 33, 1000, (size_t)1 << 16, ((size_t)1 << 20) + 3};
    unsigned int *d[ARRAYS];
    gpuh_pool pool;
    gpuh_pool_stats st, first;
    cudaStream_t s = NULL;
    size_t requested = 0, step, grown = 0, not_zero = 0;
    unsigned int probe[2];
    int a;
    n[2] += (size_t)(gpuh_test_next(&rng) % 997);
    n[3] += (size_t)(gpuh_test_next(&rng) % 4099);
    for (a = 0; a < ARRAYS; ++a)
        requested += n[a] * sizeof(unsigned int);
    TEST_CUDA(gpuh_stream_create(&s, cudaStreamNonBlocking, 0));
    if (!TEST_CUDA(gpuh_pool_create(&pool, 0, GPUH_POOL_KEEP_ALL)))
        return;
    stats_now(&pool, &st);
    TEST_ASSERT(st.allocated_bytes == 0 && st.reserved_bytes == 0 && st.peak_allocated_bytes == 0 &&
                    st.peak_reserved_bytes == 0,
                "a new pool: allocated %zu reserved %zu peaks %zu %zu", st.allocated_bytes, st.reserved_bytes,
                st.peak_allocated_bytes, st.peak_reserved_bytes);
    memset(&first, 0, sizeof first);
    for (step = 0; step < STEPS; ++step) {
        const unsigned int tag = (unsigned int)gpuh_test_next(&rng);
        for (a = 0; a < ARRAYS; ++a) {
            dim3 grid;
            TEST_CUDA(gpuh_pool_alloc(&pool, &d[a], n[a], s));
            TEST_CUDA(gpuh_grid_1d(&grid, n[a] < 65536 ? n[a] : 65536, 256));
            GPUH_LAUNCH(stamp_kernel, grid, 256, 0, s, d[a], n[a], tag + (unsigned int)a);
            TEST_CUDA(gpuh_check_launch());
        }
        stats_now(&pool, &st);
        if (step == 0) {
            first = st;
            /* The driver counts the bytes asked for (CUDA 13, H200) and reserves in
               larger pieces (32 MiB there); the simulator counts the same. */
            TEST_ASSERT(st.allocated_bytes == requested, "allocated %zu for the %zu bytes asked for",
                        st.allocated_bytes, requested);
            TEST_ASSERT(st.reserved_bytes >= st.allocated_bytes, "reserved %zu < allocated %zu",
                        st.reserved_bytes, st.allocated_bytes);
            printf("pool: %zu bytes asked for in %d arrays: allocated %zu, reserved %zu\n", requested, ARRAYS,
                   st.allocated_bytes, st.reserved_bytes);
        }
        if (st.reserved_bytes != first.reserved_bytes || st.allocated_bytes != first.allocated_bytes)
            ++grown;
        /* The last array and the first element of the largest, as the kernels left them. */
        TEST_CUDA(cudaMemcpyAsync(&probe[0], d[ARRAYS - 1] + n[ARRAYS - 1] - 1, sizeof probe[0],
                                  cudaMemcpyDeviceToHost, s));
        TEST_CUDA(cudaMemcpyAsync(&probe[1], d[0], sizeof probe[1], cudaMemcpyDeviceToHost, s));
        for (a = 0; a < ARRAYS; ++a)
            TEST_CUDA(gpuh_pool_free(&pool, d[a], s));
        TEST_CUDA(gpuh_stream_sync(s));
        TEST_ASSERT(probe[0] == tag + (unsigned int)(ARRAYS - 1) + (unsigned int)(n[ARRAYS - 1] - 1) &&
                        probe[1] == tag,
                    "step %zu: the kernels' stamps read back as %u, %u", step, probe[0], probe[1]);
        stats_now(&pool, &st);
        if (st.allocated_bytes != 0)
            ++not_zero;
    }
    TEST_ASSERT(grown == 0, "reserved or allocated bytes changed in %zu of %d steps (first step: %zu, %zu)",
                grown, STEPS, first.reserved_bytes, first.allocated_bytes);
    TEST_ASSERT(not_zero == 0, "allocated bytes not 0 after the frees in %zu of %d steps", not_zero, STEPS);
    stats_now(&pool, &st);
    TEST_ASSERT(st.reserved_bytes == first.reserved_bytes, "reserved %zu after %d steps, %zu after the first",
                st.reserved_bytes, STEPS, first.reserved_bytes);
    TEST_ASSERT(st.peak_allocated_bytes == first.allocated_bytes && st.peak_reserved_bytes == first.reserved_bytes,
                "peaks %zu, %zu; a step holds %zu, %zu", st.peak_allocated_bytes, st.peak_reserved_bytes,
                first.allocated_bytes, first.reserved_bytes);

    /* The trim keeps what is live: one small array stays (the driver cannot
       release the piece of its reservation that holds it). */
    TEST_CUDA(gpuh_pool_alloc(&pool, &d[1], n[1], s));
    TEST_CUDA(gpuh_empty_cache(&pool));
    stats_now(&pool, &st);
    TEST_ASSERT(st.allocated_bytes == n[1] * sizeof(unsigned int) && st.reserved_bytes >= st.allocated_bytes &&
                    st.reserved_bytes <= first.reserved_bytes,
                "one array live after the trim: allocated %zu, reserved %zu (before: %zu)", st.allocated_bytes,
                st.reserved_bytes, first.reserved_bytes);
    printf("pool: one array of %zu bytes live after gpuh_empty_cache: allocated %zu, reserved %zu\n",
           n[1] * sizeof(unsigned int), st.allocated_bytes, st.reserved_bytes);
    TEST_CUDA(gpuh_pool_free(&pool, d[1], s));
    TEST_CUDA(gpuh_empty_cache(&pool));
    stats_now(&pool, &st);
    TEST_ASSERT(st.allocated_bytes == 0 && st.reserved_bytes == 0, "nothing live, trimmed: allocated %zu, reserved %zu",
                st.allocated_bytes, st.reserved_bytes);
    TEST_ASSERT(st.peak_allocated_bytes == first.allocated_bytes && st.peak_reserved_bytes == first.reserved_bytes,
                "peaks before the reset: %zu, %zu (a step: %zu, %zu)", st.peak_allocated_bytes,
                st.peak_reserved_bytes, first.allocated_bytes, first.reserved_bytes);
    /* The reset takes the peaks down to the current values: nothing. */
    TEST_CUDA(gpuh_pool_reset_peak(&pool));
    stats_now(&pool, &st);
    TEST_ASSERT(st.peak_allocated_bytes == 0 && st.peak_reserved_bytes == 0, "peaks after the reset: %zu, %zu",
                st.peak_allocated_bytes, st.peak_reserved_bytes);
    const gpuh_pool copy = pool;
    TEST_CUDA(gpuh_pool_destroy(&pool));
    TEST_ASSERT(pool.handle == NULL, "gpuh_pool_destroy leaves the handle set");
    TEST_CUDA(gpuh_pool_destroy(&pool)); /* a second time: a no-op */
    /* A copy of the destroyed pool still holds its handle: gpuh refuses it
       before the driver sees it (test_stale_handle: also when a new pool
       has that handle). */
    gpuh_pool stale = copy;
    unsigned int *d_stale = NULL;
    TEST_ERR(gpuh_pool_alloc(&stale, &d_stale, 16, s), cudaErrorInvalidValue);
    TEST_ERR(gpuh_pool_destroy(&stale), cudaErrorInvalidValue);
    TEST_ERR(cudaGetLastError(), cudaSuccess);
    gpuh_stream_destroy(&s);
}

/* A release threshold of 0 (CUDA's default) gives freed memory back at the
   next synchronisation; 64 MiB keeps an 8 MiB array's memory. */
static void test_release_threshold(void)
{
    gpuh_pool keep0, keep64;
    gpuh_pool_stats st;
    float *d = NULL;
    const size_t n = (size_t)2 << 20; /* 8 MiB */
    if (!TEST_CUDA(gpuh_pool_create(&keep0, 0, 0)) || !TEST_CUDA(gpuh_pool_create(&keep64, 0, (size_t)64 << 20)))
        return;
    TEST_CUDA(gpuh_pool_alloc(&keep0, &d, n, 0));
    TEST_CUDA(gpuh_pool_free(&keep0, d, 0));
    TEST_CUDA(cudaStreamSynchronize(0));
    stats_now(&keep0, &st);
    TEST_ASSERT(st.reserved_bytes == 0 && st.peak_reserved_bytes >= n * sizeof(float),
                "threshold 0: reserved %zu after the free and a sync (peak %zu)", st.reserved_bytes,
                st.peak_reserved_bytes);
    TEST_CUDA(gpuh_pool_alloc(&keep64, &d, n, 0));
    TEST_CUDA(gpuh_pool_free(&keep64, d, 0));
    TEST_CUDA(cudaStreamSynchronize(0));
    stats_now(&keep64, &st);
    TEST_ASSERT(st.reserved_bytes >= n * sizeof(float) && st.allocated_bytes == 0,
                "threshold 64 MiB: reserved %zu, allocated %zu after freeing 8 MiB", st.reserved_bytes,
                st.allocated_bytes);
    TEST_CUDA(gpuh_pool_destroy(&keep0));
    TEST_CUDA(gpuh_pool_destroy(&keep64));
}

static void test_errors(void)
{
    gpuh_pool pool, none;
    gpuh_pool_stats st;
    float *d = (float *)&st; /* not NULL: the failed calls must set it to NULL */
    int count = 0;
    memset(&none, 0, sizeof none);
    TEST_CUDA(cudaGetDeviceCount(&count));
    TEST_DETAIL(gpuh_pool_create(NULL, 0, 0), cudaErrorInvalidValue, "gpuh_pool_create: pool is NULL");
    TEST_DETAIL(gpuh_pool_create(&pool, count, 0), cudaErrorInvalidDevice,
                "gpuh_pool_create: device %d is out of range (%d visible)", count, count);
    TEST_ASSERT(pool.handle == NULL, "a failed gpuh_pool_create leaves a handle");
    TEST_DETAIL(gpuh_pool_create(&pool, -1, 0), cudaErrorInvalidDevice,
                "gpuh_pool_create: device -1 is out of range (%d visible)", count);
    TEST_DETAIL(gpuh_pool_alloc((gpuh_pool *)NULL, &d, 10, 0), cudaErrorInvalidValue, "gpuh_pool_alloc: pool is NULL");
    TEST_ASSERT(d == NULL, "gpuh_pool_alloc failed but left the output pointer set");
    TEST_DETAIL(gpuh_pool_alloc(&none, &d, 10, 0), cudaErrorInvalidValue,
                "gpuh_pool_alloc: the pool has no CUDA pool (not created, or destroyed)");
    TEST_DETAIL(gpuh_pool_free(&none, &st, 0), cudaErrorInvalidValue,
                "gpuh_pool_free: the pool has no CUDA pool (not created, or destroyed)");
    TEST_DETAIL(gpuh_pool_memory_stats(&none, &st), cudaErrorInvalidValue,
                "gpuh_pool_memory_stats: the pool has no CUDA pool (not created, or destroyed)");
    TEST_DETAIL(gpuh_pool_memory_stats((gpuh_pool *)NULL, &st), cudaErrorInvalidValue,
                "gpuh_pool_memory_stats: pool is NULL");
    TEST_DETAIL(gpuh_empty_cache(&none), cudaErrorInvalidValue,
                "gpuh_empty_cache: the pool has no CUDA pool (not created, or destroyed)");
    TEST_DETAIL(gpuh_pool_reset_peak(&none), cudaErrorInvalidValue,
                "gpuh_pool_reset_peak: the pool has no CUDA pool (not created, or destroyed)");
    if (!TEST_CUDA(gpuh_pool_create(&pool, 0, GPUH_POOL_KEEP_ALL)))
        return;
    TEST_DETAIL(gpuh_pool_memory_stats(&pool, NULL), cudaErrorInvalidValue, "gpuh_pool_memory_stats: stats is NULL");
    TEST_DETAIL(gpuh_pool_alloc(&pool, &d, SIZE_MAX / 2, 0), cudaErrorInvalidValue,
                "gpuh_pool_alloc: %zu elements of 4 bytes overflow size_t (max %zu bytes)", SIZE_MAX / 2, SIZE_MAX);
    TEST_DETAIL(gpuh_pool_alloc(&pool, (float **)NULL, 10, 0), cudaErrorInvalidValue,
                "gpuh_pool_alloc at %s:%d: the output pointer is NULL", __FILE__, __LINE__ - 1);
    {   /* More than the device has: the detail names the bytes and the free memory. */
        size_t free_b = 0, total_b = 0;
        TEST_CUDA(cudaMemGetInfo(&free_b, &total_b));
        gpuh_test_clear_detail();
        TEST_ERR(gpuh_pool_alloc(&pool, &d, total_b / 2, 0), cudaErrorMemoryAllocation);
        TEST_CONTAINS(gpuh_error_detail(), "could not allocate");
        TEST_CONTAINS(gpuh_error_detail(), "from the pool of device 0");
        TEST_ASSERT(d == NULL, "a failed allocation left the output pointer set");
        TEST_ERR(cudaGetLastError(), cudaSuccess);
    }
    TEST_CUDA(gpuh_pool_alloc(&pool, &d, 0, 0)); /* count 0: NULL, nothing reserved */
    TEST_ASSERT(d == NULL, "count 0 gave %p", (void *)d);
    TEST_CUDA(gpuh_pool_free(&pool, NULL, 0));
    /* A second free of a pool block is refused before the driver sees it
       (cudaFreeAsync's behaviour there is undefined). */
    TEST_CUDA(gpuh_pool_alloc(&pool, &d, 100, 0));
    TEST_CUDA(gpuh_pool_free(&pool, d, 0));
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_pool_free(&pool, d, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "not from a pool, or freed twice?");
#ifdef GPUH_SIM
    {   /* Counters to the byte: allocated as asked for, reserved in blocks of 512 bytes. */
        float *a = NULL, *b = NULL;
        TEST_CUDA(gpuh_empty_cache(&pool));
        TEST_CUDA(gpuh_pool_alloc(&pool, &a, 1, 0));
        TEST_CUDA(gpuh_pool_alloc(&pool, &b, 129, 0));
        stats_now(&pool, &st);
        TEST_ASSERT(st.allocated_bytes == 4 + 516 && st.reserved_bytes == 512 + 1024,
                    "simulator: allocated %zu reserved %zu for 4 + 516 bytes", st.allocated_bytes,
                    st.reserved_bytes);
        TEST_CUDA(gpuh_pool_free(&pool, a, 0));
        TEST_CUDA(gpuh_pool_free(&pool, b, 0));
    }
#endif
    TEST_CUDA(gpuh_pool_destroy(&pool));
}

/* The detail of a refused pool that gpuh_pool_destroy destroyed. */
static const char *gone_fmt = "%s: the pool (handle %p, serial %llu) was destroyed: a copy kept past "
                              "gpuh_pool_destroy, or not made by gpuh_pool_create";

/* A copy of a destroyed pool is refused with a detail saying so, also when
   the driver has given a new pool the same handle: nothing is charged to the
   new pool, and destroying the copy leaves the new pool alive. */
static void test_stale_handle(void)
{
    enum { TRIES = 64 };
    gpuh_pool old, stale, made[TRIES];
    gpuh_pool_stats st;
    float *d = NULL;
    int n = 0, reused = -1, i;
    if (!TEST_CUDA(gpuh_pool_create(&old, 0, GPUH_POOL_KEEP_ALL)))
        return;
    stale = old;
    TEST_CUDA(gpuh_pool_destroy(&old));
    TEST_DETAIL(gpuh_pool_alloc(&stale, &d, 16, 0), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_alloc",
                (void *)stale.handle, stale.serial);
    TEST_ASSERT(d == NULL, "a refused gpuh_pool_alloc left %p", (void *)d);
    TEST_DETAIL(gpuh_pool_memory_stats(&stale, &st), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_memory_stats",
                (void *)stale.handle, stale.serial);
    TEST_DETAIL(gpuh_pool_free(&stale, &st, 0), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_free",
                (void *)stale.handle, stale.serial);
    /* New pools, kept alive so that each takes another handle, until one
       has the destroyed pool's. */
    for (n = 0; n < TRIES && reused < 0; ++n) {
        if (!TEST_CUDA(gpuh_pool_create(&made[n], 0, GPUH_POOL_KEEP_ALL)))
            break;
        TEST_ASSERT(made[n].serial != stale.serial, "a new pool has the destroyed pool's serial %llu", stale.serial);
        if (made[n].handle == stale.handle)
            reused = n;
    }
    if (reused >= 0) {
        gpuh_pool *fresh = &made[reused];
        printf("pool: pool %d made after a destroy has the destroyed pool's handle %p\n", reused + 1,
               (void *)stale.handle);
        TEST_DETAIL(gpuh_pool_alloc(&stale, &d, 16, 0), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_alloc",
                    (void *)stale.handle, stale.serial);
        TEST_DETAIL(gpuh_pool_reset_peak(&stale), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_reset_peak",
                    (void *)stale.handle, stale.serial);
        TEST_DETAIL(gpuh_empty_cache(&stale), cudaErrorInvalidValue, gone_fmt, "gpuh_empty_cache",
                    (void *)stale.handle, stale.serial);
        TEST_DETAIL(gpuh_pool_destroy(&stale), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_destroy",
                    (void *)stale.handle, stale.serial);
        stats_now(fresh, &st);
        TEST_ASSERT(st.allocated_bytes == 0 && st.reserved_bytes == 0,
                    "the new pool was charged for the stale copy: allocated %zu, reserved %zu", st.allocated_bytes,
                    st.reserved_bytes);
        /* Still alive after the copy's destroy was refused. */
        TEST_CUDA(gpuh_pool_alloc(fresh, &d, 16, 0));
        stats_now(fresh, &st);
        TEST_ASSERT(st.allocated_bytes == 16 * sizeof(float), "the new pool: allocated %zu for 64 bytes",
                    st.allocated_bytes);
        TEST_DETAIL(gpuh_pool_free(&stale, d, 0), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_free",
                    (void *)stale.handle, stale.serial);
        TEST_CUDA(gpuh_pool_free(fresh, d, 0));
    } else {
        printf("pool: no new pool took the destroyed pool's handle in %d tries; checked without reuse only\n", n);
    }
#if defined(GPUH_SIM) && !defined(__SANITIZE_ADDRESS__)
    /* The simulator's handle is a heap object: the allocator hands the freed
       one out again, which is the case this test is for (not under ASan,
       whose quarantine holds freed memory back). */
    TEST_ASSERT(reused >= 0, "no new pool took the destroyed handle %p in %d tries", (void *)stale.handle, n);
#endif
    for (i = 0; i < n; ++i)
        TEST_CUDA(gpuh_pool_destroy(&made[i]));
}

/* Memory of no pool (gpuh_device_array's) and of another pool is refused by
   gpuh_pool_free, and left for its owner to use and free. */
static void test_foreign_memory(void)
{
    const size_t n = 1000;
    gpuh_pool pool, other;
    gpuh_pool_stats st;
    unsigned int *d_plain = NULL, *d_other = NULL, probe = 0;
    if (!TEST_CUDA(gpuh_pool_create(&pool, 0, GPUH_POOL_KEEP_ALL)) ||
        !TEST_CUDA(gpuh_pool_create(&other, 0, GPUH_POOL_KEEP_ALL)))
        return;
    TEST_CUDA(gpuh_device_array(&d_plain, n));
    TEST_DETAIL(gpuh_pool_free(&pool, d_plain, 0), cudaErrorInvalidValue,
                "gpuh_pool_free: d_ptr %p is not from this pool (not from a pool, or freed twice?); left as it was",
                (void *)d_plain);
    /* Still the owner's: a kernel writes it, and gpuh_free frees it. */
    GPUH_LAUNCH(stamp_kernel, 4, 256, 0, 0, d_plain, n, 7u);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(cudaMemcpy(&probe, d_plain + n - 1, sizeof probe, cudaMemcpyDeviceToHost));
    TEST_ASSERT(probe == 7u + (unsigned int)(n - 1), "memory refused by gpuh_pool_free reads back %u", probe);
    TEST_CUDA(gpuh_free(d_plain));

    TEST_CUDA(gpuh_pool_alloc(&other, &d_other, n, 0));
    TEST_DETAIL(gpuh_pool_free(&pool, d_other, 0), cudaErrorInvalidValue,
                "gpuh_pool_free: d_ptr %p is not from this pool (serial %llu) but from pool %llu; left as it was",
                (void *)d_other, pool.serial, other.serial);
    stats_now(&other, &st);
    TEST_ASSERT(st.allocated_bytes == n * sizeof(unsigned int), "the owner pool counts %zu after the refusal",
                st.allocated_bytes);
    stats_now(&pool, &st);
    TEST_ASSERT(st.allocated_bytes == 0, "the refusing pool counts %zu", st.allocated_bytes);
    TEST_CUDA(gpuh_pool_free(&other, d_other, 0));
    TEST_CUDA(cudaDeviceSynchronize());
    stats_now(&other, &st);
    TEST_ASSERT(st.allocated_bytes == 0, "the owner pool counts %zu after its own free", st.allocated_bytes);
    TEST_CUDA(gpuh_pool_destroy(&pool));
    TEST_CUDA(gpuh_pool_destroy(&other));
}

/* Memory outlives its pool's gpuh_pool_destroy and is freed through the
   zeroed pool (or a copy kept from before), once; a live pool's counters do
   not move, and the live pool cannot free it. */
static void test_free_after_destroy(void)
{
    const size_t n = (size_t)4 << 20; /* 16 MiB */
    gpuh_pool pool, copy, live;
    gpuh_pool_stats before, after;
    unsigned int *d_big = NULL, *d_small = NULL, *d_live = NULL, probe = 0;
    size_t free0 = 0, free1 = 0, total = 0;
    const unsigned int tag = (unsigned int)gpuh_test_next(&rng);
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(cudaMemGetInfo(&free0, &total));
    if (!TEST_CUDA(gpuh_pool_create(&pool, 0, 0)) || !TEST_CUDA(gpuh_pool_create(&live, 0, GPUH_POOL_KEEP_ALL)))
        return;
    TEST_CUDA(gpuh_pool_alloc(&pool, &d_big, n, 0));
    TEST_CUDA(gpuh_pool_alloc(&pool, &d_small, 33, 0));
    TEST_CUDA(gpuh_pool_alloc(&live, &d_live, 100, 0));
    copy = pool;
    TEST_CUDA(gpuh_pool_destroy(&pool));
    TEST_ASSERT(pool.handle == NULL && pool.serial == 0, "gpuh_pool_destroy left handle %p serial %llu",
                (void *)pool.handle, pool.serial);
    /* Valid until freed: a kernel writes it after the destroy. */
    GPUH_LAUNCH(stamp_kernel, 1024, 256, 0, 0, d_big, n, tag);
    TEST_CUDA(gpuh_check_launch());
    TEST_CUDA(cudaMemcpy(&probe, d_big + n - 1, sizeof probe, cudaMemcpyDeviceToHost));
    TEST_ASSERT(probe == tag + (unsigned int)(n - 1), "memory of the destroyed pool reads back %u", probe);
    stats_now(&live, &before);
    TEST_DETAIL(gpuh_pool_free(&live, d_big, 0), cudaErrorInvalidValue,
                "gpuh_pool_free: d_ptr %p is not from this pool (serial %llu) but from pool %llu, destroyed since; "
                "left as it was",
                (void *)d_big, live.serial, copy.serial);
    TEST_CUDA(gpuh_pool_free(&pool, d_big, 0));  /* the zeroed pool gpuh_pool_destroy left */
    TEST_CUDA(gpuh_pool_free(&copy, d_small, 0)); /* a copy from before the destroy */
    TEST_DETAIL(gpuh_pool_free(&pool, d_big, 0), cudaErrorInvalidValue,
                "gpuh_pool_free: the pool has no CUDA pool (not created, or destroyed)");
    TEST_DETAIL(gpuh_pool_free(&copy, d_small, 0), cudaErrorInvalidValue, gone_fmt, "gpuh_pool_free",
                (void *)copy.handle, copy.serial);
    TEST_CUDA(cudaDeviceSynchronize());
    stats_now(&live, &after);
    TEST_ASSERT(after.allocated_bytes == before.allocated_bytes && after.reserved_bytes == before.reserved_bytes &&
                    after.allocated_bytes == 100 * sizeof(unsigned int),
                "the live pool's counters moved with the destroyed pool's frees: allocated %zu -> %zu, reserved "
                "%zu -> %zu",
                before.allocated_bytes, after.allocated_bytes, before.reserved_bytes, after.reserved_bytes);
    TEST_CUDA(gpuh_pool_free(&live, d_live, 0));
    TEST_CUDA(gpuh_pool_destroy(&live));
    TEST_CUDA(cudaDeviceSynchronize());
    TEST_CUDA(cudaMemGetInfo(&free1, &total));
#ifdef GPUH_SIM
    /* The destroyed pool's memory went back to the device with its last free
       (on a GPU the driver releases it on its own schedule). */
    TEST_ASSERT(free1 == free0, "device memory free: %zu before the pools, %zu after", free0, free1);
#else
    printf("pool: device memory free %zu before the pools, %zu after the destroyed pool's last free\n", free0,
           free1);
#endif
}

#if !defined(GPUH_SIM) || defined(cudaErrorStreamCaptureUnsupported)
/* A pool's alloc or free on a capturing stream is refused at the call, and
   the capture goes on (here, to a graph that launches and runs). */
static void test_capture(void)
{
    gpuh_pool pool;
    gpuh_pool_stats st;
    cudaStream_t s = NULL;
    cudaGraph_t graph = NULL;
    cudaGraphExec_t exec = NULL;
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    unsigned int *d = (unsigned int *)&st, *d_out = NULL, probe = 0;
    if (!TEST_CUDA(gpuh_pool_create(&pool, 0, GPUH_POOL_KEEP_ALL)))
        return;
    TEST_CUDA(gpuh_stream_create(&s, cudaStreamNonBlocking, 0));
    TEST_CUDA(gpuh_pool_alloc(&pool, &d_out, 64, s));
    TEST_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    /* The call on a line of its own: where a macro's arguments span lines,
       compilers differ on the __LINE__ the call site records. */
    char want[512];
    gpuh_clear_error_detail();
    const int line = __LINE__ + 1;
    const cudaError_t refused = gpuh_pool_alloc(&pool, &d, 64, s);
    snprintf(want, sizeof want,
             "gpuh_pool_alloc at %s:%d: stream %p is capturing a graph (capture status 1), and pool memory cannot "
             "be captured: allocate before the capture begins and free after it ends",
             __FILE__, line, (void *)s);
    TEST_ASSERT(refused == cudaErrorStreamCaptureUnsupported && strcmp(gpuh_error_detail(), want) == 0,
                "gpuh_pool_alloc under capture returned %s with the detail \"%s\", expected \"%s\"",
                cudaGetErrorName(refused), gpuh_error_detail(), want);
    TEST_ASSERT(d == NULL, "a refused gpuh_pool_alloc left %p", (void *)d);
    TEST_DETAIL(gpuh_pool_free(&pool, d_out, s), cudaErrorStreamCaptureUnsupported,
                "gpuh_pool_free: stream %p is capturing a graph (capture status 1), and pool memory cannot be "
                "captured: allocate before the capture begins and free after it ends",
                (void *)s);
    TEST_CUDA(cudaStreamIsCapturing(s, &status));
    TEST_ASSERT(status == cudaStreamCaptureStatusActive, "capture status %d after the refusals", (int)status);
    GPUH_LAUNCH(stamp_kernel, 1, 64, 0, s, d_out, 64, 5u);
    TEST_CUDA(cudaStreamEndCapture(s, &graph));
    stats_now(&pool, &st);
    TEST_ASSERT(st.allocated_bytes == 64 * sizeof(unsigned int), "allocated %zu after the capture",
                st.allocated_bytes);
    if (graph != NULL && TEST_CUDA(cudaGraphInstantiate(&exec, graph, 0))) {
        TEST_CUDA(cudaGraphLaunch(exec, s));
        TEST_CUDA(cudaMemcpyAsync(&probe, d_out + 63, sizeof probe, cudaMemcpyDeviceToHost, s));
        TEST_CUDA(cudaStreamSynchronize(s));
        TEST_ASSERT(probe == 5u + 63u, "the captured kernel wrote %u", probe);
        TEST_CUDA(cudaGraphExecDestroy(exec));
    }
    if (graph != NULL)
        TEST_CUDA(cudaGraphDestroy(graph));
    TEST_CUDA(gpuh_pool_free(&pool, d_out, s)); /* outside the capture: fine */
    TEST_CUDA(cudaStreamSynchronize(s));
    TEST_CUDA(gpuh_pool_destroy(&pool));
    gpuh_stream_destroy(&s);
}
#endif

int main(void)
{
    GPUH_TEST_REQUIRE_DEVICE();
    rng = gpuh_test_seed();
    test_reuse_and_trim();
    test_release_threshold();
    test_errors();
    test_stale_handle();
    test_foreign_memory();
    test_free_after_destroy();
#if !defined(GPUH_SIM) || defined(cudaErrorStreamCaptureUnsupported)
    test_capture();
#endif
    TEST_CUDA(cudaDeviceSynchronize());
    return gpuh_test_summary("test_pool");
}
