/* test_host.c - host-side tests of gpuh.h, in C99.

   Launch geometry, size and argument checks, error formatting and the
   behaviour with no CUDA device. Runs anywhere: CI has no GPU and no driver
   (cudaGetDeviceCount returns cudaErrorInsufficientDriver there). Exits 0 or 1,
   never 77: without a device it checks the no-device path, with one it checks
   a real allocation against the counters and the ledger instead.

   gcc -std=c99 -Wall -Wextra -Wpedantic -Werror -I. -isystem <cuda>/include \
       tests/test_host.c -L<cuda>/lib64 -lcudart
*/

/* GPUH_CHECK must not abort here: count instead, so the test can check that
   GPUH_CHECK ran the hook exactly once per failure. */
#define GPUH_ON_ERROR host_on_error()
/* Compiles gpuh.h's cuRAND section as C99 too. Nothing in it is called, and
   static inline functions that are never called are not emitted, so the
   program needs no cuRAND at link time. (CMake's gpuh::random defines it too.) */
#ifndef GPUH_USE_CURAND
#define GPUH_USE_CURAND
#endif
#include "gpuh_test.h"

#include <stdint.h>

static int on_error_calls;
static void host_on_error(void) { ++on_error_calls; }

static int have_device;

static dim3 mk_dim3(unsigned x, unsigned y, unsigned z)
{
    dim3 d;
    d.x = x;
    d.y = y;
    d.z = z;
    return d;
}

/* A grid value no correct call produces, to see that failing calls leave the
   grid untouched. */
static dim3 sentinel_grid(void) { return mk_dim3(7, 8, 9); }

#define TEST_GRID(g, X, Y, Z)                                                                        \
    TEST_ASSERT((g).x == (X) && (g).y == (Y) && (g).z == (Z), "grid (%u, %u, %u), expected (%u, %u, %u)", \
                (g).x, (g).y, (g).z, (unsigned)(X), (unsigned)(Y), (unsigned)(Z))

/* ceil(n / d) by another formula than the library's (no n % d), for d > 0. */
static size_t ref_ceil_div(size_t n, size_t d) { return n == 0 ? 0 : (n - 1) / d + 1; }

/* =========================================================================== */

static void test_ceil_div(void)
{
    /* SIZE_MAX = 2^64 - 1 = 3 * 5 * 17 * 257 * 641 * 65537 * 6700417, and
       2^32 - 1 = 3 * 5 * 17 * 257 * 65537: divisible by 3 and 5 but not by 2,
       7 or 256, on 64-bit and 32-bit size_t alike. */
    static const struct {
        size_t n, d, want;
    } cases[] = {
        {0, 1, 0},
        {0, 7, 0},
        {1, 1, 1},
        {1, 7, 1},
        {6, 7, 1},
        {7, 7, 1},
        {8, 7, 2},
        {14, 7, 2},
        {1024, 256, 4},
        {1025, 256, 5},
        {SIZE_MAX, 1, SIZE_MAX},
        {SIZE_MAX, 2, SIZE_MAX / 2 + 1},
        {SIZE_MAX, 3, SIZE_MAX / 3},
        {SIZE_MAX, 5, SIZE_MAX / 5},
        {SIZE_MAX, 7, SIZE_MAX / 7 + 1},
        {SIZE_MAX, 256, SIZE_MAX / 256 + 1},
        {SIZE_MAX - 1, SIZE_MAX, 1},
        {SIZE_MAX, SIZE_MAX, 1},
        {SIZE_MAX, SIZE_MAX - 1, 2},
        {SIZE_MAX, SIZE_MAX / 2, 3},
        {5, 0, 0}, /* documented: 0 when d == 0 */
        {0, 0, 0},
        {SIZE_MAX, 0, 0},
    };
    unsigned long long rng = gpuh_test_seed();
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        size_t got = gpuh_ceil_div(cases[i].n, cases[i].d);
        TEST_ASSERT(got == cases[i].want, "gpuh_ceil_div(%zu, %zu) = %zu, expected %zu", cases[i].n, cases[i].d,
                    got, cases[i].want);
    }
    /* Random n and d of every magnitude, against the other formula. */
    for (i = 0; i < 20000; ++i) {
        size_t n = (size_t)gpuh_test_next(&rng) >> (gpuh_test_next(&rng) % 64);
        size_t d = (size_t)gpuh_test_next(&rng) >> (gpuh_test_next(&rng) % 64);
        if (d == 0)
            d = 1;
        if (!TEST_ASSERT(gpuh_ceil_div(n, d) == ref_ceil_div(n, d), "gpuh_ceil_div(%zu, %zu) = %zu, expected %zu",
                         n, d, gpuh_ceil_div(n, d), ref_ceil_div(n, d)))
            break;
    }
}

/* =========================================================================== */

static void test_check_block(void)
{
    static const unsigned valid[][3] = {{1, 1, 1},  {1024, 1, 1}, {1, 1024, 1}, {1, 1, 64}, {32, 32, 1},
                                        {8, 8, 16}, {2, 512, 1},  {16, 1, 64},  {256, 4, 1}};
    static const unsigned invalid[][3] = {{0, 1, 1},      {1, 0, 1},     {1, 1, 0},    {1025, 1, 1},
                                          {1, 1025, 1},   {1, 1, 65},    {32, 32, 2},  {33, 32, 1},
                                          {1024, 1024, 64}, {4294967295u, 1, 1}, {1, 1, 4294967295u}, {2, 2, 257}};
    size_t i;
    for (i = 0; i < sizeof valid / sizeof valid[0]; ++i) {
        cudaError_t err = gpuh_check_block(mk_dim3(valid[i][0], valid[i][1], valid[i][2]));
        TEST_ASSERT(err == cudaSuccess, "block (%u, %u, %u) is valid but got %s", valid[i][0], valid[i][1],
                    valid[i][2], cudaGetErrorName(err));
    }
    for (i = 0; i < sizeof invalid / sizeof invalid[0]; ++i) {
        cudaError_t err;
        char shape[64];
        gpuh_test_clear_detail();
        err = gpuh_check_block(mk_dim3(invalid[i][0], invalid[i][1], invalid[i][2]));
        TEST_ASSERT(err == cudaErrorInvalidConfiguration, "block (%u, %u, %u): got %s, expected "
                    "cudaErrorInvalidConfiguration", invalid[i][0], invalid[i][1], invalid[i][2], cudaGetErrorName(err));
        sprintf(shape, "(%u, %u, %u)", invalid[i][0], invalid[i][1], invalid[i][2]);
        TEST_CONTAINS(gpuh_error_detail(), shape);
    }
    /* The thread count is named too. */
    gpuh_check_block(mk_dim3(32, 32, 2));
    TEST_CONTAINS(gpuh_error_detail(), "2048 threads");
    gpuh_check_block(mk_dim3(1025, 1, 1));
    TEST_CONTAINS(gpuh_error_detail(), "1025 threads");
}

/* =========================================================================== */

static void test_grids(void)
{
    dim3 g;
    unsigned long long rng = gpuh_test_seed() ^ 0x5eedull;
    int i;

    /* Awkward sizes: one thread per element, the last block partly used. */
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 1, 1024)); TEST_GRID(g, 1, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 31, 32)); TEST_GRID(g, 1, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 32, 32)); TEST_GRID(g, 1, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 33, 32)); TEST_GRID(g, 2, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 1000, 256)); TEST_GRID(g, 4, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 1023, 256)); TEST_GRID(g, 4, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 1025, 256)); TEST_GRID(g, 5, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, (1u << 20) + 3, 256)); TEST_GRID(g, 4097, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 1000, 1)); TEST_GRID(g, 1000, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_2d(&g, 1000, 3, mk_dim3(16, 16, 1))); TEST_GRID(g, 63, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_2d(&g, 17, 257, mk_dim3(16, 16, 1))); TEST_GRID(g, 2, 17, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_3d(&g, 100, 200, 33, mk_dim3(8, 4, 4))); TEST_GRID(g, 13, 50, 9);
    /* 2-D passes nz = 1; a 3-D block of depth > 1 then still needs one z block. */
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_2d(&g, 5, 5, mk_dim3(4, 4, 4))); TEST_GRID(g, 2, 2, 1);

    /* n = 0: one block, so a guarded kernel may still be launched. */
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_1d(&g, 0, 256)); TEST_GRID(g, 1, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_2d(&g, 0, 0, mk_dim3(16, 16, 1))); TEST_GRID(g, 1, 1, 1);
    g = sentinel_grid(); TEST_CUDA(gpuh_grid_3d(&g, 0, 17, 0, mk_dim3(8, 8, 8))); TEST_GRID(g, 1, 3, 1);

    /* Random shapes against the reference formula. */
    for (i = 0; i < 2000; ++i) {
        dim3 b = mk_dim3(1u + (unsigned)(gpuh_test_next(&rng) % 32), 1u + (unsigned)(gpuh_test_next(&rng) % 8),
                         1u + (unsigned)(gpuh_test_next(&rng) % 4));
        size_t nx = (size_t)(gpuh_test_next(&rng) % 100000000u), ny = (size_t)(gpuh_test_next(&rng) % 100000u),
               nz = (size_t)(gpuh_test_next(&rng) % 100000u);
        size_t ex = ref_ceil_div(nx, b.x), ey = ref_ceil_div(ny, b.y), ez = ref_ceil_div(nz, b.z);
        cudaError_t err;
        ex = ex ? ex : 1;
        ey = ey ? ey : 1;
        ez = ez ? ez : 1;
        g = sentinel_grid();
        err = gpuh_grid_3d(&g, nx, ny, nz, b);
        if (ey <= 65535 && ez <= 65535) {
            if (!TEST_ASSERT(err == cudaSuccess && g.x == ex && g.y == ey && g.z == ez,
                             "gpuh_grid_3d(%zu, %zu, %zu, block (%u, %u, %u)) = %s, (%u, %u, %u); expected (%zu, "
                             "%zu, %zu)", nx, ny, nz, b.x, b.y, b.z, cudaGetErrorName(err), g.x, g.y, g.z, ex, ey, ez))
                break;
        } else if (!TEST_ASSERT(err == cudaErrorInvalidConfiguration && g.x == 7 && g.y == 8 && g.z == 9,
                                "gpuh_grid_3d(%zu, %zu, %zu, block (%u, %u, %u)) needs (%zu, %zu, %zu) blocks but "
                                "returned %s, (%u, %u, %u)", nx, ny, nz, b.x, b.y, b.z, ex, ey, ez,
                                cudaGetErrorName(err), g.x, g.y, g.z)) {
            break;
        }
    }

#if SIZE_MAX > 0xffffffffu
    /* x: exactly 2^31 - 1 blocks is fine; one element more needs 2^31 blocks. */
    g = sentinel_grid();
    TEST_CUDA(gpuh_grid_1d(&g, (size_t)2147483647u * 1024u, 1024));
    TEST_GRID(g, 2147483647u, 1, 1);
    g = sentinel_grid();
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_grid_1d(&g, (size_t)2147483647u * 1024u + 1u, 1024), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    TEST_CONTAINS(gpuh_error_detail(), "2199023254529"); /* the elements asked for */
    TEST_CONTAINS(gpuh_error_detail(), "(2147483648, 1, 1)"); /* the grid they need */
    TEST_CONTAINS(gpuh_error_detail(), "(2147483647, 65535, 65535)"); /* the limits */
    g = sentinel_grid();
    TEST_CUDA(gpuh_grid_1d(&g, 2147483647u, 1));
    TEST_GRID(g, 2147483647u, 1, 1);
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_1d(&g, 2147483648u, 1), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    /* Counts that a 32-bit grid would wrap to something small: 2^32 + 5 blocks
       (would wrap to 5) and 2^32 blocks (would wrap to 0, then 1). */
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_1d(&g, ((size_t)1 << 32) + 5u, 1), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_1d(&g, (size_t)1 << 42, 1024), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_1d(&g, SIZE_MAX, 1024), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    /* x in 2-D */
    g = sentinel_grid();
    TEST_CUDA(gpuh_grid_2d(&g, (size_t)2147483647u * 32u, 1, mk_dim3(32, 32, 1)));
    TEST_GRID(g, 2147483647u, 1, 1);
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_2d(&g, (size_t)2147483647u * 32u + 1u, 1, mk_dim3(32, 32, 1)), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
#endif
    /* y: 65535 blocks at most. */
    g = sentinel_grid();
    TEST_CUDA(gpuh_grid_2d(&g, 1, 65535u * 32u, mk_dim3(32, 32, 1)));
    TEST_GRID(g, 1, 65535, 1);
    g = sentinel_grid();
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_grid_2d(&g, 1, 65535u * 32u + 1u, mk_dim3(32, 32, 1)), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    TEST_CONTAINS(gpuh_error_detail(), "2097121"); /* ny */
    TEST_CONTAINS(gpuh_error_detail(), "(1, 65536, 1)");
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_3d(&g, 1, 65536, 1, mk_dim3(1, 1, 1)), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    /* z: 65535 blocks at most. */
    g = sentinel_grid();
    TEST_CUDA(gpuh_grid_3d(&g, 4, 4, 65535u * 64u, mk_dim3(4, 4, 64)));
    TEST_GRID(g, 1, 1, 65535);
    g = sentinel_grid();
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_grid_3d(&g, 4, 4, 65535u * 64u + 1u, mk_dim3(4, 4, 64)), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    TEST_CONTAINS(gpuh_error_detail(), "(1, 1, 65536)");
    g = sentinel_grid();
    TEST_CUDA(gpuh_grid_3d(&g, 65535, 65535, 65535, mk_dim3(1, 1, 1)));
    TEST_GRID(g, 65535, 65535, 65535);

    /* Invalid blocks: the error is the block's, the grid untouched. */
    g = sentinel_grid();
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_grid_1d(&g, 100, 0), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    TEST_CONTAINS(gpuh_error_detail(), "(0, 1, 1)");
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_1d(&g, 100, 1025), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    TEST_CONTAINS(gpuh_error_detail(), "1025");
    g = sentinel_grid();
    TEST_CUDA(gpuh_grid_1d(&g, 100, 1024));
    TEST_GRID(g, 1, 1, 1);
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_2d(&g, 100, 100, mk_dim3(32, 32, 2)), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    TEST_CONTAINS(gpuh_error_detail(), "(32, 32, 2)");
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_3d(&g, 1, 1, 1000, mk_dim3(1, 1, 65)), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);
    TEST_CONTAINS(gpuh_error_detail(), "(1, 1, 65)");
    g = sentinel_grid();
    TEST_ERR(gpuh_grid_3d(&g, 1, 1, 1000, mk_dim3(1, 0, 1)), cudaErrorInvalidConfiguration);
    TEST_GRID(g, 7, 8, 9);

    /* No grid to write to. */
    TEST_ERR(gpuh_grid_1d(NULL, 100, 256), cudaErrorInvalidValue);
    TEST_ERR(gpuh_grid_3d(NULL, 1, 1, 1, mk_dim3(1, 1, 1)), cudaErrorInvalidValue);
}

/* =========================================================================== */

/* Argument checks of the memory helpers. None of these may reach the device:
   without a driver any CUDA call would fail with cudaErrorInsufficientDriver,
   so getting cudaErrorInvalidValue shows the check came first; with a device
   the byte counters must not move. */
static void test_memory_arguments(void)
{
    double host_d[4] = {1, 2, 3, 4};
    float host_f[4] = {1, 2, 3, 4};
    double dummy_d = 0;
    float dummy_f = 0;
    double *d = &dummy_d, *null_d = NULL, **null_pp = NULL;
    float *f = &dummy_f, *null_f = NULL;
    /* A "device" pointer for copies that must fail before using it. */
    float *fake_dev_f = host_f;
    double *fake_dev_d = host_d;
    const size_t too_many_d = SIZE_MAX / sizeof(double) + 1; /* one more than size_t can count in bytes */
    const size_t too_many_f = SIZE_MAX / sizeof(float) + 1;
    char num[32];
    gpuh_memory_stats before, after;
    cudaError_t info_err = gpuh_memory_info(&before);
    int local = 0;

    TEST_ASSERT(info_err == cudaSuccess || !have_device, "gpuh_memory_info: %s", cudaGetErrorName(info_err));

    /* count x element size overflows size_t */
    sprintf(num, "%zu", too_many_d);
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_device_array(&d, too_many_d), cudaErrorInvalidValue);
    TEST_ASSERT(d == NULL, "d = %p after a failed gpuh_device_array, expected NULL", (void *)d);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_device_array");
    TEST_CONTAINS(gpuh_error_detail(), "overflow");
    TEST_CONTAINS(gpuh_error_detail(), num);
    d = &dummy_d;
    TEST_ERR(gpuh_to_device(&d, host_d, too_many_d), cudaErrorInvalidValue);
    TEST_ASSERT(d == NULL, "d = %p after a failed gpuh_to_device, expected NULL", (void *)d);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_to_device");
    TEST_CONTAINS(gpuh_error_detail(), "overflow");
    d = &dummy_d;
    TEST_ERR(gpuh_to_device_async(&d, host_d, too_many_d, 0), cudaErrorInvalidValue);
    TEST_ASSERT(d == NULL, "d = %p after a failed gpuh_to_device_async, expected NULL", (void *)d);
    TEST_ERR(gpuh_copy_to_host(host_d, fake_dev_d, too_many_d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_copy_to_host");
    TEST_CONTAINS(gpuh_error_detail(), "overflow");
    TEST_ERR(gpuh_copy_to_host_async(host_f, fake_dev_f, too_many_f, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_copy_to_device(fake_dev_d, host_d, too_many_d), cudaErrorInvalidValue);
    TEST_ERR(gpuh_copy_to_device_async(fake_dev_f, host_f, too_many_f, 0), cudaErrorInvalidValue);
    f = &dummy_f;
    TEST_ERR(gpuh_pinned_array(&f, too_many_f), cudaErrorInvalidValue);
    TEST_ASSERT(f == NULL, "f = %p after a failed gpuh_pinned_array, expected NULL", (void *)f);
    f = &dummy_f;
    TEST_ERR(gpuh_managed_array(&f, too_many_f), cudaErrorInvalidValue);
    TEST_ASSERT(f == NULL, "f = %p after a failed gpuh_managed_array, expected NULL", (void *)f);
    TEST_ERR(gpuh_prefetch_async(fake_dev_f, too_many_f, 0, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "overflow");

    /* One element fewer does not overflow (SIZE_MAX - 7 bytes): that is no
       longer an argument error but an allocation nobody can satisfy. */
    d = &dummy_d;
    gpuh_test_clear_detail();
    {
        cudaError_t err = gpuh_device_array(&d, SIZE_MAX / sizeof(double));
        TEST_ASSERT(err != cudaSuccess, "gpuh_device_array of SIZE_MAX - 7 bytes succeeded");
        TEST_ASSERT(d == NULL, "d = %p after a failed allocation, expected NULL", (void *)d);
        TEST_CONTAINS(gpuh_error_detail(), have_device ? "could not allocate" : "no device to allocate");
        TEST_ASSERT(strstr(gpuh_error_detail(), "overflow") == NULL, "detail \"%s\" speaks of overflow",
                    gpuh_error_detail());
    }

    /* count 0: a valid empty array, NULL pointers allowed */
    d = &dummy_d;
    TEST_CUDA(gpuh_device_array(&d, 0));
    TEST_ASSERT(d == NULL, "count 0: d = %p, expected NULL", (void *)d);
    d = &dummy_d;
    TEST_CUDA(gpuh_to_device(&d, null_d, 0));
    TEST_ASSERT(d == NULL, "count 0: d = %p, expected NULL", (void *)d);
    d = &dummy_d;
    TEST_CUDA(gpuh_to_device(&d, host_d, 0));
    TEST_ASSERT(d == NULL, "count 0: d = %p, expected NULL", (void *)d);
    d = &dummy_d;
    TEST_CUDA(gpuh_to_device_async(&d, host_d, 0, 0));
    TEST_ASSERT(d == NULL, "count 0: d = %p, expected NULL", (void *)d);
    f = &dummy_f;
    TEST_CUDA(gpuh_pinned_array(&f, 0));
    TEST_ASSERT(f == NULL, "count 0: f = %p, expected NULL", (void *)f);
    f = &dummy_f;
    TEST_CUDA(gpuh_managed_array(&f, 0));
    TEST_ASSERT(f == NULL, "count 0: f = %p, expected NULL", (void *)f);
    TEST_CUDA(gpuh_copy_to_host(null_d, null_d, 0));
    TEST_CUDA(gpuh_copy_to_device(null_f, null_f, 0));
    TEST_CUDA(gpuh_copy_to_host_async(null_f, null_f, 0, 0));
    TEST_CUDA(gpuh_copy_to_device_async(null_d, null_d, 0, 0));
    TEST_CUDA(gpuh_prefetch_async(null_f, 0, 0, 0));

    /* NULL output pointer */
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_device_array(null_pp, 10), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "output pointer is NULL");
    TEST_ERR(gpuh_to_device(null_pp, host_d, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "output pointer is NULL");
    TEST_ERR(gpuh_pinned_array(null_pp, 4), cudaErrorInvalidValue);
    TEST_ERR(gpuh_managed_array(null_pp, 4), cudaErrorInvalidValue);

    /* NULL source or destination with count > 0 */
    d = &dummy_d;
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_to_device(&d, null_d, 4), cudaErrorInvalidValue);
    TEST_ASSERT(d == NULL, "d = %p after gpuh_to_device from NULL, expected NULL", (void *)d);
    TEST_CONTAINS(gpuh_error_detail(), "host source is NULL");
    TEST_ERR(gpuh_copy_to_host(host_d, null_d, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "the source is NULL");
    TEST_ERR(gpuh_copy_to_host(null_d, fake_dev_d, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "the destination is NULL");
    TEST_ERR(gpuh_copy_to_device(null_f, host_f, 4), cudaErrorInvalidValue);
    TEST_ERR(gpuh_copy_to_device(fake_dev_f, null_f, 4), cudaErrorInvalidValue);
    TEST_ERR(gpuh_copy_to_host_async(host_f, null_f, 4, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_prefetch_async(null_f, 4, 0, 0), cudaErrorInvalidValue);

    /* Element sizes that differ: double on the host, float on the device. */
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_copy_to_host(host_d, fake_dev_f, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "destination elements are 8 bytes but source elements are 4");
    TEST_ERR(gpuh_copy_to_device(fake_dev_f, host_d, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "destination elements are 4 bytes but source elements are 8");
    TEST_ERR(gpuh_copy_to_host_async(host_f, fake_dev_d, 4, 0), cudaErrorInvalidValue);
    /* gpuh_to_device documents "On error nothing stays allocated and *d_ptr is NULL". */
    f = &dummy_f;
    TEST_ERR(gpuh_to_device(&f, host_d, 4), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "device elements are 4 bytes but host elements are 8");
    TEST_ASSERT(f == NULL, "f = %p after gpuh_to_device with mismatched element sizes, expected NULL "
                "(documented: on error *d_ptr is NULL)", (void *)f);

    /* Freeing */
    TEST_CUDA(gpuh_free(NULL));
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_free(&local), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "is not memory CUDA allocated");

    TEST_ERR(gpuh_memory_info(NULL), cudaErrorInvalidValue);

    /* Nothing above reached the allocator. */
    info_err = gpuh_memory_info(&after);
    TEST_ASSERT(info_err == cudaSuccess || !have_device, "gpuh_memory_info: %s", cudaGetErrorName(info_err));
    TEST_ASSERT(after.allocated_bytes == before.allocated_bytes && after.pinned_bytes == before.pinned_bytes &&
                    after.live_allocations == before.live_allocations,
                "counters moved: allocated %zu -> %zu, pinned %zu -> %zu, live %zu -> %zu", before.allocated_bytes,
                after.allocated_bytes, before.pinned_bytes, after.pinned_bytes, before.live_allocations,
                after.live_allocations);
}

/* =========================================================================== */

static void test_sticky(void)
{
    static const cudaError_t sticky[] = {cudaErrorIllegalAddress, cudaErrorLaunchFailure, cudaErrorAssert,
                                         cudaErrorMisalignedAddress, cudaErrorIllegalInstruction,
                                         cudaErrorHardwareStackError, cudaErrorInvalidPc, cudaErrorLaunchTimeout};
    static const cudaError_t not_sticky[] = {cudaSuccess, cudaErrorInvalidValue, cudaErrorMemoryAllocation,
                                             cudaErrorInvalidConfiguration, cudaErrorNoDevice,
                                             cudaErrorInsufficientDriver, cudaErrorLaunchOutOfResources,
                                             cudaErrorInvalidDevice, cudaErrorNotReady};
    size_t i;
    for (i = 0; i < sizeof sticky / sizeof sticky[0]; ++i)
        TEST_ASSERT(gpuh_error_is_sticky(sticky[i]) == 1, "%s should be sticky", cudaGetErrorName(sticky[i]));
    for (i = 0; i < sizeof not_sticky / sizeof not_sticky[0]; ++i)
        TEST_ASSERT(gpuh_error_is_sticky(not_sticky[i]) == 0, "%s should not be sticky",
                    cudaGetErrorName(not_sticky[i]));
}

/* gpuh_report_error's text, captured through the GPUH_LOG override of gpuh_test.h. */
static void test_report_error(void)
{
    dim3 g;
    char detail[512];
    const char *text;

    /* A gpuh error with its detail. */
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_grid_1d(&g, 10, 0), cudaErrorInvalidConfiguration);
    strcpy(detail, gpuh_error_detail());
    TEST_ASSERT(detail[0] != '\0', "gpuh_grid_1d left no detail");
    gpuh_test_capture_begin();
    gpuh_report_error(cudaErrorInvalidConfiguration, "launch_it(x, y)", "some/file.c", 4321);
    text = gpuh_test_capture_end();
    TEST_CONTAINS(text, "launch_it(x, y)");
    TEST_CONTAINS(text, "some/file.c:4321");
    TEST_CONTAINS(text, "cudaErrorInvalidConfiguration");
    TEST_CONTAINS(text, cudaGetErrorString(cudaErrorInvalidConfiguration));
    TEST_CONTAINS(text, detail);
    TEST_ASSERT(strstr(text, "sticky") == NULL, "a non-sticky error reported as sticky:\n%s", text);
    /* No GPUH_LAUNCH ran in this process, so there is no launch to name. */
    TEST_ASSERT(strstr(text, "last launch") == NULL, "report names a launch that never happened:\n%s", text);
    TEST_ASSERT(gpuh_error_detail()[0] == '\0', "the report did not clear the detail: \"%s\"", gpuh_error_detail());

    /* A sticky error says so. */
    gpuh_test_capture_begin();
    gpuh_report_error(cudaErrorIllegalAddress, "d_x[i] = 1", "k.cu", 7);
    text = gpuh_test_capture_end();
    TEST_CONTAINS(text, "d_x[i] = 1");
    TEST_CONTAINS(text, "k.cu:7");
    TEST_CONTAINS(text, "cudaErrorIllegalAddress");
    TEST_CONTAINS(text, "this error is sticky");
    TEST_CONTAINS(text, "every later CUDA call will fail until the process restarts");

    /* A detail belongs to its own error: reporting another error omits it (and
       still clears it). */
    TEST_ERR(gpuh_grid_1d(&g, 10, 2048), cudaErrorInvalidConfiguration);
    strcpy(detail, gpuh_error_detail());
    gpuh_test_capture_begin();
    gpuh_report_error(cudaErrorInvalidValue, "other()", "o.c", 1);
    text = gpuh_test_capture_end();
    TEST_CONTAINS(text, "cudaErrorInvalidValue");
    TEST_ASSERT(strstr(text, detail) == NULL, "the detail of another error was printed:\n%s", text);
    TEST_ASSERT(gpuh_error_detail()[0] == '\0', "the report did not clear the detail");
}

/* The conventions of the manual: the version number, gpuh_fail for users'
   own helpers (printf-style, cut at 511 characters, nothing recorded for
   cudaSuccess), gpuh_clear_error_detail, and GPUH_HAS_DEVICE_CODE (0 in C). */
static cudaError_t my_helper(int n)
{
    return n % 2 ? gpuh_fail(cudaErrorInvalidValue, "my_helper: n %d is odd", n) : cudaSuccess;
}

static void test_conventions(void)
{
    char long_text[600];
    dim3 g;
    TEST_ASSERT(GPUH_VERSION == GPUH_VERSION_MAJOR * 10000 + GPUH_VERSION_MINOR * 100 + GPUH_VERSION_PATCH &&
                    GPUH_VERSION == 100,
                "GPUH_VERSION %d for %d.%d.%d", GPUH_VERSION, GPUH_VERSION_MAJOR, GPUH_VERSION_MINOR,
                GPUH_VERSION_PATCH);
#if GPUH_HAS_DEVICE_CODE
    TEST_ASSERT(0, "GPUH_HAS_DEVICE_CODE is 1 in a C file");
#endif
    gpuh_test_clear_detail();
    TEST_ERR(my_helper(7), cudaErrorInvalidValue);
    TEST_ASSERT(strcmp(gpuh_error_detail(), "my_helper: n 7 is odd") == 0, "detail \"%s\"", gpuh_error_detail());
    gpuh_test_capture_begin();
    gpuh_report_error(my_helper(9), "my_helper(9)", "mine.c", 3);
    TEST_CONTAINS(gpuh_test_capture_end(), "gpuh:   my_helper: n 9 is odd\n");
    TEST_ERR(gpuh_grid_1d(&g, 10, 0), cudaErrorInvalidConfiguration);
    TEST_ERR(my_helper(2), cudaSuccess);
    TEST_ERR(gpuh_fail(cudaSuccess, "not an error"), cudaSuccess);
    TEST_ASSERT(strncmp(gpuh_error_detail(), "gpuh_grid: block (0, 1, 1)", 26) == 0,
                "success replaced the detail: \"%s\"", gpuh_error_detail());
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    TEST_ERR(gpuh_fail(cudaErrorUnknown, "%s", long_text), cudaErrorUnknown);
    TEST_ASSERT(strlen(gpuh_error_detail()) == 511 && strncmp(gpuh_error_detail(), long_text, 511) == 0,
                "a long detail kept %zu characters", strlen(gpuh_error_detail()));
    gpuh_clear_error_detail();
    TEST_ASSERT(gpuh_error_detail()[0] == '\0', "gpuh_clear_error_detail left \"%s\"", gpuh_error_detail());
}

static int counted_calls;
static cudaError_t counted(cudaError_t err)
{
    ++counted_calls;
    return err;
}

/* GPUH_CHECK evaluates its expression once and runs GPUH_ON_ERROR (overridden
   above to count) once per failure, after printing the report. */
static void test_check_macro(void)
{
    const char *text;
    char where[128];
    int line;
    dim3 g;

    on_error_calls = 0;
    counted_calls = 0;
    gpuh_test_capture_begin();
    GPUH_CHECK(counted(cudaSuccess));
    text = gpuh_test_capture_end();
    TEST_ASSERT(counted_calls == 1, "expression evaluated %d times, expected 1", counted_calls);
    TEST_ASSERT(on_error_calls == 0, "GPUH_ON_ERROR ran %d times on success", on_error_calls);
    TEST_ASSERT(text[0] == '\0', "GPUH_CHECK printed on success:\n%s", text);

    gpuh_test_capture_begin();
    line = __LINE__; GPUH_CHECK(counted(cudaErrorInvalidValue));
    text = gpuh_test_capture_end();
    TEST_ASSERT(counted_calls == 2, "expression evaluated %d times, expected 2 in all", counted_calls);
    TEST_ASSERT(on_error_calls == 1, "GPUH_ON_ERROR ran %d times, expected 1", on_error_calls);
    TEST_CONTAINS(text, "counted(cudaErrorInvalidValue)");
    TEST_CONTAINS(text, "cudaErrorInvalidValue");
    sprintf(where, "%s:%d", __FILE__, line);
    TEST_CONTAINS(text, where);

    /* With gpuh's detail. */
    gpuh_test_capture_begin();
    GPUH_CHECK(gpuh_grid_1d(&g, 10, 2048));
    text = gpuh_test_capture_end();
    TEST_ASSERT(on_error_calls == 2, "GPUH_ON_ERROR ran %d times, expected 2 in all", on_error_calls);
    TEST_CONTAINS(text, "gpuh_grid_1d(&g, 10, 2048)");
    TEST_CONTAINS(text, "block (2048, 1, 1)");
}

/* =========================================================================== */

static int work_calls;
static cudaError_t count_work(void *ctx, cudaStream_t stream)
{
    (void)ctx;
    (void)stream;
    ++work_calls;
    return cudaSuccess;
}

static void test_timing_arguments(void)
{
    float ms = -1.0f;
    gpuh_timer t;
    int block = -1, min_grid = -1;

    work_calls = 0;
    gpuh_test_clear_detail();
    TEST_ERR(gpuh_time_median_ms(count_work, NULL, 0, 0, 0, &ms), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "reps 0");
    TEST_ERR(gpuh_time_median_ms(count_work, NULL, 0, 0, GPUH_MAX_REPS + 1, &ms), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "reps 1001");
    TEST_ERR(gpuh_time_median_ms(count_work, NULL, 0, 0, -1, &ms), cudaErrorInvalidValue);
    TEST_ERR(gpuh_time_median_ms(NULL, NULL, 0, 1, 10, &ms), cudaErrorInvalidValue);
    TEST_ERR(gpuh_time_median_ms(count_work, NULL, 0, 1, 10, NULL), cudaErrorInvalidValue);
    TEST_ERR(gpuh_time_median_ms(count_work, NULL, 0, -1, 10, &ms), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "warmup -1");
    TEST_ASSERT(work_calls == 0, "the work ran %d times despite bad arguments", work_calls);
    TEST_ASSERT(ms == -1.0f, "median written (%g) despite bad arguments", ms);

    TEST_ERR(gpuh_timer_create(NULL), cudaErrorInvalidValue);
    memset(&t, 0, sizeof t);
    TEST_ERR(gpuh_timer_start(&t, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_timer_start(NULL, 0), cudaErrorInvalidValue);
    TEST_ERR(gpuh_timer_stop(&t), cudaErrorInvalidValue);
    TEST_ERR(gpuh_timer_elapsed_ms(&t, &ms), cudaErrorInvalidValue);
    TEST_ERR(gpuh_timer_elapsed_ms(&t, NULL), cudaErrorInvalidValue);
    TEST_CUDA(gpuh_timer_destroy(&t)); /* a zeroed timer is fine */
    TEST_CUDA(gpuh_timer_destroy(NULL));

    /* The kernel is never used when block_size is NULL: any non-NULL address. */
    TEST_ERR(gpuh_suggest_block_size(NULL, 0, &block, &min_grid), cudaErrorInvalidValue);
    TEST_ERR(gpuh_suggest_block_size(&work_calls, 0, NULL, &min_grid), cudaErrorInvalidValue);
    TEST_ASSERT(block == -1 && min_grid == -1, "outputs written on error: %d, %d", block, min_grid);
}

/* =========================================================================== */

static int launcher_calls;
static cudaError_t count_launches(const void *const *d_in, void *const *d_out, size_t count, size_t first,
                                  cudaStream_t stream, void *user)
{
    (void)d_in;
    (void)d_out;
    (void)count;
    (void)first;
    (void)stream;
    (void)user;
    ++launcher_calls;
    return cudaSuccess;
}

/* Streams, events and gpuh_pipeline: every argument error is found before
   any CUDA call, so these hold with and without a device. */
static void test_stream_arguments(void)
{
    cudaStream_t s = NULL;
    cudaEvent_t e = NULL;
    float ms = -1.0f, in[8] = {0}, out[8] = {0};
    gpuh_pipeline_desc d;
    gpuh_pipeline_chunk rec[10];

    gpuh_test_clear_detail();
    TEST_ERR(gpuh_stream_create(NULL, 0, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_stream_create: stream is NULL");
    TEST_ERR(gpuh_stream_create(&s, 0x4, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "flags 0x4");
    TEST_ASSERT(s == NULL, "a stream handle after a failed gpuh_stream_create");
    TEST_CUDA(gpuh_stream_destroy(NULL));
    TEST_CUDA(gpuh_stream_destroy(&s));
    TEST_ERR(gpuh_event_create(NULL, cudaEventDefault), cudaErrorInvalidValue);
    TEST_ERR(gpuh_event_create(&e, 0x100), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "flags 0x100");
    TEST_ASSERT(e == NULL, "an event handle after a failed gpuh_event_create");
    TEST_CUDA(gpuh_event_destroy(NULL));
    TEST_CUDA(gpuh_event_destroy(&e));
    TEST_ERR(gpuh_event_record(NULL, 0), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_event_record: event is NULL");
    TEST_ERR(gpuh_stream_wait_event(0, NULL), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_stream_wait_event: event is NULL");
    TEST_ERR(gpuh_event_elapsed_ms(NULL, NULL, &ms), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "start is NULL");
    TEST_ASSERT(ms == -1.0f, "ms written (%g) despite bad arguments", ms);

    /* gpuh_pipeline */
    launcher_calls = 0;
    TEST_ERR(gpuh_pipeline(NULL), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "desc is NULL");
    memset(&d, 0, sizeof d);
    d.n = 8;
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "desc->launch is NULL");
    d.launch = count_launches;
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "no array in use");
    d.in[0] = in; /* given, but without its element size */
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "in[0] is given");
    d.in_elem_bytes[0] = sizeof in[0];
    d.out_elem_bytes[1] = sizeof out[0]; /* out[1] without out[0] */
    d.out[1] = out;
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "out[1] is given");
    d.out_elem_bytes[1] = 0;
    d.out[1] = NULL;
    d.out_elem_bytes[0] = sizeof out[0]; /* out[0] NULL with n > 0 */
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "out[0] is NULL (n 8)");
    d.out[0] = out;
    d.streams = -1;
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "streams -1: must be 1 .. 16");
    d.streams = GPUH_PIPELINE_MAX_STREAMS + 1;
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "streams 17");
    d.streams = 2;
    d.n = SIZE_MAX / 2; /* x 4 bytes overflows */
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "overflow");
    d.n = 1003; /* chunks of 100: 11 records, room for 10 */
    d.chunk = 100;
    d.chunks = rec;
    d.chunks_capacity = 10;
    TEST_ERR(gpuh_pipeline(&d), cudaErrorInvalidValue);
    TEST_CONTAINS(gpuh_error_detail(), "chunks holds 10 records but 1003 elements in chunks of 100 need 11");
    /* n = 0: nothing to do, and nothing is touched, not even the device */
    d.n = 0;
    d.in[0] = NULL;
    d.out[0] = NULL;
    TEST_CUDA(gpuh_pipeline(&d));
    TEST_ASSERT(launcher_calls == 0, "the launcher ran %d times", launcher_calls);
}

/* =========================================================================== */

/* White-box: drives gpuh's private ledger with fake pointers (never
   dereferenced or freed) so the bookkeeping behind gpuh_memory_info and
   gpuh_print_allocations is checked without a device. */
/* Addresses for fake ledger records, FAKE_APART bytes apart (the ledger
   drops a record that a new one overlaps). The ledger also drops records
   that CUDA says are not allocated (freed behind gpuh's back), so with a
   device they point into a real device allocation; without one nothing is
   dropped. */
#define FAKE_APART 4096
static char no_device_cells[3 * FAKE_APART];
static char *fake_cells(void)
{
    void *p = NULL;
    char *cells = no_device_cells;
    if (have_device && TEST_CUDA(cudaMalloc(&p, sizeof no_device_cells)))
        cells = p;
    return cells;
}
static void free_fake_cells(char *cells)
{
    if (cells != no_device_cells)
        TEST_CUDA(cudaFree(cells));
}

static void test_ledger_bookkeeping(void)
{
    char *fake = fake_cells();
    gpuh_memory_stats s0, s;
    FILE *f = tmpfile();
    char text[4096];
    size_t listed;
    cudaError_t err = gpuh_memory_info(&s0);

    TEST_ASSERT(err == cudaSuccess || !have_device, "gpuh_memory_info: %s", cudaGetErrorName(err));
    TEST_ASSERT(f != NULL, "tmpfile() failed");
    gpuh_reset_peak_memory();
    gpuh_impl_ledger_add(&fake[0 * FAKE_APART], 1000, GPUH_IMPL_DEVICE, "a.cu", 11);
    gpuh_impl_ledger_add(&fake[1 * FAKE_APART], 300, GPUH_IMPL_MANAGED, "b.cu", 22);
    gpuh_impl_ledger_add(&fake[2 * FAKE_APART], 50, GPUH_IMPL_PINNED, "c.cu", 33);
    gpuh_memory_info(&s);
    TEST_ASSERT(s.allocated_bytes == s0.allocated_bytes + 1300, "allocated %zu, expected %zu", s.allocated_bytes,
                s0.allocated_bytes + 1300);
    TEST_ASSERT(s.peak_allocated_bytes == s0.allocated_bytes + 1300, "peak %zu, expected %zu",
                s.peak_allocated_bytes, s0.allocated_bytes + 1300);
    TEST_ASSERT(s.pinned_bytes == s0.pinned_bytes + 50, "pinned %zu, expected %zu", s.pinned_bytes,
                s0.pinned_bytes + 50);
    TEST_ASSERT(s.live_allocations == s0.live_allocations + 3, "live %zu, expected %zu", s.live_allocations,
                s0.live_allocations + 3);
    listed = gpuh_print_allocations(f);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_ASSERT(listed == s.live_allocations, "gpuh_print_allocations returned %zu, expected %zu", listed,
                s.live_allocations);
    TEST_CONTAINS(text, "device allocation");
    TEST_CONTAINS(text, "1000 bytes from a.cu:11");
    TEST_CONTAINS(text, "managed allocation");
    TEST_CONTAINS(text, "300 bytes from b.cu:22");
    TEST_CONTAINS(text, "pinned allocation");
    TEST_CONTAINS(text, "50 bytes from c.cu:33");

    TEST_ASSERT(gpuh_impl_ledger_remove(&fake[0 * FAKE_APART]) == GPUH_IMPL_DEVICE, "removing the device record");
    TEST_ASSERT(gpuh_impl_ledger_remove(&fake[0 * FAKE_APART]) == 0, "a removed pointer was found again");
    gpuh_memory_info(&s);
    TEST_ASSERT(s.allocated_bytes == s0.allocated_bytes + 300, "allocated %zu, expected %zu", s.allocated_bytes,
                s0.allocated_bytes + 300);
    TEST_ASSERT(s.peak_allocated_bytes == s0.allocated_bytes + 1300, "peak %zu should stay %zu",
                s.peak_allocated_bytes, s0.allocated_bytes + 1300);
    gpuh_reset_peak_memory();
    gpuh_memory_info(&s);
    TEST_ASSERT(s.peak_allocated_bytes == s.allocated_bytes, "after reset, peak %zu != allocated %zu",
                s.peak_allocated_bytes, s.allocated_bytes);
    /* The records left must still be the right ones after the removal. */
    TEST_ASSERT(gpuh_impl_ledger_remove(&fake[2 * FAKE_APART]) == GPUH_IMPL_PINNED, "removing the pinned record");
    TEST_ASSERT(gpuh_impl_ledger_remove(&fake[1 * FAKE_APART]) == GPUH_IMPL_MANAGED, "removing the managed record");
    gpuh_reset_peak_memory(); /* leave no trace of the fake records for later checks */
    gpuh_memory_info(&s);
    TEST_ASSERT(s.allocated_bytes == s0.allocated_bytes && s.pinned_bytes == s0.pinned_bytes &&
                    s.live_allocations == s0.live_allocations,
                "counters not restored: allocated %zu/%zu, pinned %zu/%zu, live %zu/%zu", s.allocated_bytes,
                s0.allocated_bytes, s.pinned_bytes, s0.pinned_bytes, s.live_allocations, s0.live_allocations);
    if (f)
        fclose(f);
    free_fake_cells(fake);
}

/* Memory freed behind gpuh's back and handed out again: the new record
   replaces every record it overlaps (CUDA never hands out live memory twice). */
static void test_ledger_reuse(void)
{
    char *fake = fake_cells();
    gpuh_memory_stats s0, s;
    gpuh_memory_info(&s0);
    gpuh_impl_ledger_add(&fake[0], 1000, GPUH_IMPL_DEVICE, "old.cu", 1);
    gpuh_impl_ledger_add(&fake[1000], 8, GPUH_IMPL_PINNED, "next.cu", 2); /* adjacent: kept */
    gpuh_impl_ledger_add(&fake[500], 100, GPUH_IMPL_MANAGED, "new.cu", 3);
    gpuh_memory_info(&s);
    TEST_ASSERT(s.live_allocations == s0.live_allocations + 2 && s.allocated_bytes == s0.allocated_bytes + 100 &&
                    s.pinned_bytes == s0.pinned_bytes + 8,
                "after a reused address: %zu live (expected %zu), %zu bytes (expected %zu), %zu pinned (expected %zu)",
                s.live_allocations, s0.live_allocations + 2, s.allocated_bytes, s0.allocated_bytes + 100,
                s.pinned_bytes, s0.pinned_bytes + 8);
    TEST_ASSERT(gpuh_impl_ledger_remove(&fake[0]) == 0, "the stale record is still there");
    TEST_ASSERT(gpuh_impl_ledger_remove(&fake[500]) == GPUH_IMPL_MANAGED, "the new record is missing");
    TEST_ASSERT(gpuh_impl_ledger_remove(&fake[1000]) == GPUH_IMPL_PINNED, "the adjacent record is missing");
    gpuh_reset_peak_memory();
    free_fake_cells(fake);
}

/* The leak report that gpuh_check_leaks_at_exit prints at exit,
   driven with fake ledger records as above: its header counts allocations and
   bytes, each line names kind, bytes and file:line, and with nothing live it
   prints nothing at all. test_leak runs the real thing at exit, on a GPU. */
static void test_leak_report(void)
{
    char *fake = fake_cells();
    FILE *f = tmpfile();
    char text[4096], want[256];
    const char *header = "gpuh: leak check at exit: 2 gpuh allocations (4120 bytes tracked) not freed:\n";
    size_t listed;
    if (!TEST_ASSERT(f != NULL, "tmpfile() failed"))
        return;
    listed = gpuh_impl_report_leaks(f);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_ASSERT(listed == 0 && text[0] == '\0', "with nothing live the report listed %zu and printed \"%s\"", listed,
                text);
    gpuh_impl_ledger_add(&fake[0 * FAKE_APART], 4096, GPUH_IMPL_DEVICE, "leaky.cu", 12);
    gpuh_impl_ledger_add(&fake[1 * FAKE_APART], 24, GPUH_IMPL_PINNED, "leaky.cu", 34);
    rewind(f);
    listed = gpuh_impl_report_leaks(f);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_ASSERT(listed == 2, "the report listed %zu allocations, expected 2", listed);
    TEST_ASSERT(strncmp(text, header, strlen(header)) == 0, "report header:\n%s", text);
    sprintf(want, "gpuh: live device allocation %p of 4096 bytes from leaky.cu:12\n", (void *)&fake[0 * FAKE_APART]);
    TEST_CONTAINS(text, want);
    sprintf(want, "gpuh: live pinned allocation %p of 24 bytes from leaky.cu:34\n", (void *)&fake[1 * FAKE_APART]);
    TEST_CONTAINS(text, want);
    gpuh_impl_ledger_remove(&fake[0 * FAKE_APART]);
    gpuh_impl_ledger_remove(&fake[1 * FAKE_APART]);
    gpuh_reset_peak_memory();
    fclose(f);
    free_fake_cells(fake);
}

/* =========================================================================== */

static void test_no_device(const char *why)
{
    float dummy = 0, *d = &dummy, *h = &dummy;
    float src[10] = {0};
    gpuh_memory_stats s;
    FILE *f = tmpfile();
    char text[2048];
    cudaError_t err;

    TEST_ASSERT(why != NULL && why[0] != '\0', "gpuh_device_count gave no reason for 0 devices");
    TEST_ASSERT(strstr(why, "insufficient") == NULL, "the reason \"%s\" reads as an old driver", why);
    printf("no CUDA device (%s): checking the no-device path\n", why ? why : "(null)");

    gpuh_test_clear_detail();
    err = gpuh_device_array(&d, 10);
    TEST_ASSERT(err != cudaSuccess, "gpuh_device_array succeeded without a device");
    TEST_ASSERT(d == NULL, "d = %p after a failed allocation, expected NULL", (void *)d);
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_device_array");
    TEST_CONTAINS(gpuh_error_detail(), "40 bytes");
    TEST_CONTAINS(gpuh_error_detail(), why);
    TEST_ASSERT(strstr(gpuh_error_detail(), "could not allocate") == NULL, "no device reads as out of memory: \"%s\"",
                gpuh_error_detail());
    d = &dummy;
    err = gpuh_to_device(&d, src, 10);
    TEST_ASSERT(err != cudaSuccess, "gpuh_to_device succeeded without a device");
    TEST_ASSERT(d == NULL, "d = %p after a failed gpuh_to_device, expected NULL", (void *)d);
    err = gpuh_pinned_array(&h, 10);
    TEST_ASSERT(err != cudaSuccess, "gpuh_pinned_array succeeded without a device");
    TEST_ASSERT(h == NULL, "h = %p after a failed gpuh_pinned_array, expected NULL", (void *)h);

    TEST_ASSERT(f != NULL, "tmpfile() failed");
    TEST_ERR(gpuh_print_devices(f), cudaErrorNoDevice);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_CONTAINS(text, "No CUDA devices: ");
    TEST_CONTAINS(text, why);

    gpuh_test_clear_detail();
    err = gpuh_select_device(0);
    TEST_ASSERT(err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver,
                "gpuh_select_device(0) returned %s, expected cudaErrorNoDevice or cudaErrorInsufficientDriver",
                cudaGetErrorName(err));
    TEST_CONTAINS(gpuh_error_detail(), "gpuh_select_device");
    TEST_CONTAINS(gpuh_error_detail(), why);

    /* The CUDA fields fail, the gpuh counters are filled all the same. */
    memset(&s, 0xAB, sizeof s);
    err = gpuh_memory_info(&s);
    TEST_ASSERT(err != cudaSuccess, "gpuh_memory_info succeeded without a device");
    TEST_ASSERT(s.free_bytes == 0 && s.total_bytes == 0, "free %zu, total %zu: expected 0", s.free_bytes,
                s.total_bytes);
    TEST_ASSERT(s.allocated_bytes == 0 && s.peak_allocated_bytes == 0 && s.pinned_bytes == 0 &&
                    s.live_allocations == 0 && s.untracked_allocations == 0,
                "counters not filled: allocated %zu, peak %zu, pinned %zu, live %zu, untracked %zu",
                s.allocated_bytes, s.peak_allocated_bytes, s.pinned_bytes, s.live_allocations,
                s.untracked_allocations);
    if (f)
        fclose(f);
}

static void test_with_device(int count)
{
    double *d = NULL;
    gpuh_memory_stats s0, s1, s2;
    FILE *f = tmpfile();
    char text[8192], where[128];
    size_t listed;
    int line;

    printf("%d CUDA device(s): checking a real allocation\n", count);
    TEST_ASSERT(f != NULL, "tmpfile() failed");
    TEST_CUDA(gpuh_select_device(0));
    TEST_CUDA(gpuh_memory_info(&s0));
    TEST_ASSERT(s0.total_bytes > 0 && s0.free_bytes <= s0.total_bytes, "free %zu of total %zu", s0.free_bytes,
                s0.total_bytes);

    line = __LINE__; TEST_CUDA(gpuh_device_array(&d, 1000));
    TEST_ASSERT(d != NULL, "gpuh_device_array returned NULL");
    TEST_CUDA(gpuh_memory_info(&s1));
    TEST_ASSERT(s1.allocated_bytes == s0.allocated_bytes + 8000, "allocated %zu, expected %zu", s1.allocated_bytes,
                s0.allocated_bytes + 8000);
    TEST_ASSERT(s1.peak_allocated_bytes >= s1.allocated_bytes, "peak %zu < allocated %zu", s1.peak_allocated_bytes,
                s1.allocated_bytes);
    TEST_ASSERT(s1.live_allocations == s0.live_allocations + 1, "live %zu, expected %zu", s1.live_allocations,
                s0.live_allocations + 1);
    listed = gpuh_print_allocations(f);
    gpuh_test_read_back(f, text, sizeof text);
    TEST_ASSERT(listed == s1.live_allocations, "gpuh_print_allocations returned %zu, expected %zu", listed,
                s1.live_allocations);
    sprintf(where, "8000 bytes from %s:%d", __FILE__, line);
    TEST_CONTAINS(text, where);

    TEST_CUDA(gpuh_free(d));
    TEST_CUDA(gpuh_memory_info(&s2));
    TEST_ASSERT(s2.allocated_bytes == s0.allocated_bytes && s2.live_allocations == s0.live_allocations,
                "after gpuh_free: allocated %zu (expected %zu), live %zu (expected %zu)", s2.allocated_bytes,
                s0.allocated_bytes, s2.live_allocations, s0.live_allocations);
    /* Freed twice: no longer memory CUDA allocated. */
    TEST_ERR(gpuh_free(d), cudaErrorInvalidValue);

    TEST_ERR(gpuh_select_device(count), cudaErrorInvalidDevice);
    if (f)
        fclose(f);
}

int main(void)
{
    const char *why = NULL;
    int count;

    gpuh_test_seed();
    count = gpuh_device_count(&why);
    have_device = count > 0;

    test_ceil_div();
    test_check_block();
    test_grids();
    test_memory_arguments();
    test_sticky();
    test_report_error();
    test_conventions();
    test_check_macro();
    test_timing_arguments();
    test_stream_arguments();
    test_ledger_bookkeeping();
    test_ledger_reuse();
    test_leak_report();
    if (count == 0)
        test_no_device(why);
    else
        test_with_device(count);
    return gpuh_test_summary("test_host");
}
