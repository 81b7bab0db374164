/* test_bad_input.cu - bad input gets a clear error: the exact detail message
   (function, argument, value) of every kind of bad input: NULL, zero and
   overflowing sizes, grids past the limits, no device, several host threads.

   Runs anywhere, CI included: every check here is made before gpuh touches
   the device (pointers that are never dereferenced stand in for device
   arrays), except the last part, which needs a device: an allocation larger
   than the free memory must name the bytes asked for and the bytes free.
   Without a device (or with a driver older than the runtime, which CI's
   missing driver looks like to the runtime) it checks what gpuh says then.
   CTest runs it twice: as is, and as host.no_device with CUDA_VISIBLE_DEVICES
   set to no device, so that the no-device path runs on a GPU machine too.
   Exits 0 or 1, never 77.

   Elsewhere: matmul's leading dimensions (gpuh_gemm); kernels on
   offset (not 16-byte aligned) pointers in test_kernels (test_vector_add_offsets,
   test_reduction_offsets); byte-size overflow of every memory helper and
   n = 0 for each in test_host (test_memory_arguments); grids beyond the
   device limits in test_host (test_grids) and fuzz_geometry.

   nvcc -std=c++17 -arch=sm_90 -DGPUH_USE_CURAND -I. tests/test_bad_input.cu -lcurand
*/
#include "gpuh_test.h"
#include "gpuh_kernels.cuh"

#include <stdint.h>

__global__ void noop(int *g_x)
{
    if (g_x != NULL)
        g_x[threadIdx.x] = 0;
}

/* ===========================================================================
   NULL pointers, n = 0, byte-size overflow, element sizes that differ */

static void test_memory()
{
    float host[8] = {0}, *fake_dev = host, *d = host, *null = NULL, **null_pp = NULL;
    double dhost[8] = {0}, *dd = dhost;
    int local = 0;
    const size_t too_many = SIZE_MAX / sizeof(double) + 1;

    /* NULL where an output or a source is needed. */
    TEST_DETAIL(gpuh_device_array(null_pp, 10), cudaErrorInvalidValue, "gpuh_device_array at %s:%d: the output pointer is NULL", __FILE__, __LINE__);
    TEST_DETAIL(gpuh_to_device(&d, null, 4), cudaErrorInvalidValue, "gpuh_to_device at %s:%d: the host source is NULL (count 4)", __FILE__, __LINE__);
    TEST_ASSERT(d == NULL, "gpuh_to_device left %p in its output after failing", (void *)d);
    TEST_DETAIL(gpuh_copy_to_host(host, null, 4), cudaErrorInvalidValue, "gpuh_copy_to_host: the source is NULL (count 4)");
    TEST_DETAIL(gpuh_copy_to_device(null, host, 4), cudaErrorInvalidValue, "gpuh_copy_to_device: the destination is NULL (count 4)");
    TEST_DETAIL(gpuh_copy_to_host_async(null, fake_dev, 5, 0), cudaErrorInvalidValue, "gpuh_copy_to_host_async: the destination is NULL (count 5)");
    TEST_DETAIL(gpuh_prefetch_async(null, 4, 0, 0), cudaErrorInvalidValue, "gpuh_prefetch_async: ptr is NULL (count 4)");
    TEST_DETAIL(gpuh_memory_info(NULL), cudaErrorInvalidValue, "gpuh_memory_info: stats is NULL");

    /* n = 0: a no-op, even with NULL pointers, and no detail left behind. */
    d = host;
    TEST_DETAIL(gpuh_device_array(&d, 0), cudaSuccess, "%s", "");
    TEST_ASSERT(d == NULL, "gpuh_device_array(&d, 0) gave %p, expected NULL", (void *)d);
    TEST_DETAIL(gpuh_copy_to_host(null, null, 0), cudaSuccess, "%s", "");
    TEST_DETAIL(gpuh_copy_to_device_async(null, null, 0, 0), cudaSuccess, "%s", "");
    TEST_DETAIL(gpuh_free(NULL), cudaSuccess, "%s", "");

    /* count × element size past SIZE_MAX: refused before any CUDA call. */
    TEST_DETAIL(gpuh_device_array(&dd, too_many), cudaErrorInvalidValue, "gpuh_device_array: %zu elements of 8 bytes overflow size_t (max %zu bytes)", too_many, SIZE_MAX);
    TEST_ASSERT(dd == NULL, "gpuh_device_array left %p in its output after failing", (void *)dd);
    TEST_DETAIL(gpuh_copy_to_device(dhost, dhost, too_many), cudaErrorInvalidValue, "gpuh_copy_to_device: %zu elements of 8 bytes overflow size_t (max %zu bytes)", too_many, SIZE_MAX);
    TEST_DETAIL(gpuh_managed_array(&dd, too_many), cudaErrorInvalidValue, "gpuh_managed_array: %zu elements of 8 bytes overflow size_t (max %zu bytes)", too_many, SIZE_MAX);

    /* A float array copied into a double array. */
    TEST_DETAIL(gpuh_copy_to_host(dhost, fake_dev, 4), cudaErrorInvalidValue, "gpuh_copy_to_host: destination elements are 8 bytes but source elements are 4");

    /* An element pointer off its type's alignment: refused before CUDA sees it. */
    float *odd = (float *)((char *)host + 2);
    double *odd_d = (double *)((char *)dhost + 4);
    TEST_DETAIL(gpuh_copy_to_host(host, odd, 2), cudaErrorInvalidValue, "gpuh_copy_to_host: the source %p is not aligned to its element type (4 bytes)", (void *)odd);
    TEST_DETAIL(gpuh_copy_to_device_async(odd_d, dhost, 2, 0), cudaErrorInvalidValue, "gpuh_copy_to_device_async: the destination %p is not aligned to its element type (8 bytes)", (void *)odd_d);
    TEST_DETAIL(gpuh_to_device(&dd, odd_d, 2), cudaErrorInvalidValue, "gpuh_to_device: the host source %p is not aligned to its element type (8 bytes)", (void *)odd_d);
    TEST_DETAIL(gpuh_prefetch_async(odd, 2, 0, 0), cudaErrorInvalidValue, "gpuh_prefetch_async: ptr %p is not aligned to its element type (4 bytes)", (void *)odd);
    TEST_DETAIL(gpuh_impl_check_aligned(odd, 16, "my_launcher", "d_x"), cudaErrorInvalidValue, "my_launcher: d_x %p is not aligned to its element type (16 bytes)", (void *)odd);
    TEST_DETAIL(gpuh_impl_check_aligned(odd, 1, "my_launcher", "d_x"), cudaSuccess, "%s", "");

    /* Not memory CUDA allocated (the same message without a driver). */
    TEST_DETAIL(gpuh_free(&local), cudaErrorInvalidValue, "gpuh_free: %p is not memory CUDA allocated (freed twice?)", (void *)&local);
}

/* ===========================================================================
   Blocks above 1024 threads, grids beyond the limits, in the helpers and in
   GPUH_LAUNCH (which refuses before calling the runtime) */

static void test_geometry()
{
    dim3 grid(7, 8, 9);
    TEST_DETAIL(gpuh_check_block(dim3(1025)), cudaErrorInvalidConfiguration, "gpuh_check_block: block (1025, 1, 1) = 1025 threads: each dimension must be >= 1, x and y <= 1024, z <= 64, and x*y*z <= 1024");
    TEST_DETAIL(gpuh_check_block(dim3(32, 32, 2)), cudaErrorInvalidConfiguration, "gpuh_check_block: block (32, 32, 2) = 2048 threads: each dimension must be >= 1, x and y <= 1024, z <= 64, and x*y*z <= 1024");
    TEST_DETAIL(gpuh_grid_1d(&grid, 100, 2048), cudaErrorInvalidConfiguration, "gpuh_grid: block (2048, 1, 1) = 2048 threads: each dimension must be >= 1, x and y <= 1024, z <= 64, and x*y*z <= 1024");
    TEST_DETAIL(gpuh_grid_1d(&grid, 100, 0), cudaErrorInvalidConfiguration, "gpuh_grid: block (0, 1, 1) = 0 threads: each dimension must be >= 1, x and y <= 1024, z <= 64, and x*y*z <= 1024");
    TEST_DETAIL(gpuh_grid_2d(&grid, 1, 65536u * 16u, dim3(16, 16)), cudaErrorInvalidConfiguration, "gpuh_grid: 1 x 1048576 x 1 elements in blocks of (16, 16, 1) need a grid of (1, 65536, 1) blocks; the limits are (2147483647, 65535, 65535)");
    TEST_DETAIL(gpuh_grid_1d(&grid, SIZE_MAX, 1), cudaErrorInvalidConfiguration, "gpuh_grid: %zu x 1 x 1 elements in blocks of (1, 1, 1) need a grid of (%zu, 1, 1) blocks; the limits are (2147483647, 65535, 65535)", SIZE_MAX, SIZE_MAX);
    TEST_DETAIL(gpuh_grid_1d(NULL, 100, 256), cudaErrorInvalidValue, "gpuh_grid: grid is NULL");
    TEST_ASSERT(grid.x == 7 && grid.y == 8 && grid.z == 9, "a failing gpuh_grid call changed the grid to (%u, %u, %u)",
                grid.x, grid.y, grid.z);

    TEST_DETAIL(GPUH_LAUNCH(noop, 1, 2048, 0, 0, NULL), cudaErrorInvalidConfiguration, "GPUH_LAUNCH of noop at %s:%d: grid (1, 1, 1), block (2048, 1, 1) is beyond CUDA's limits: grid 1..(2147483647, 65535, 65535) blocks, block (1024, 1024, 64) and 1024 threads", __FILE__, __LINE__);
    TEST_DETAIL(GPUH_LAUNCH(noop, dim3(1, 65536), 32, 0, 0, NULL), cudaErrorInvalidConfiguration, "GPUH_LAUNCH of noop at %s:%d: grid (1, 65536, 1), block (32, 1, 1) is beyond CUDA's limits: grid 1..(2147483647, 65535, 65535) blocks, block (1024, 1024, 64) and 1024 threads", __FILE__, __LINE__);
    TEST_DETAIL(GPUH_LAUNCH(noop, 0, 32, 0, 0, NULL), cudaErrorInvalidConfiguration, "GPUH_LAUNCH of noop at %s:%d: grid (0, 1, 1), block (32, 1, 1) is beyond CUDA's limits: grid 1..(2147483647, 65535, 65535) blocks, block (1024, 1024, 64) and 1024 threads", __FILE__, __LINE__);

    /* Integers wider than dim3's fields: checked before they are narrowed
       (2^32 + 5 would launch 5 blocks), and a negative int is refused.
       Variables, not constants: nvcc warns about a constant that the launch
       narrows, at compile time. */
    size_t huge = 4294967301u, blocks_of_32 = (size_t)1 << 32;
    long long minus_one = -1, two_to_31 = 2147483648ll;
    TEST_DETAIL(GPUH_LAUNCH(noop, huge, 32, 0, 0, NULL), cudaErrorInvalidConfiguration, "GPUH_LAUNCH of noop at %s:%d: grid (4294967301, 1, 1), block (32, 1, 1) is beyond CUDA's limits: grid 1..(2147483647, 65535, 65535) blocks, block (1024, 1024, 64) and 1024 threads", __FILE__, __LINE__);
    TEST_DETAIL(GPUH_LAUNCH(noop, 1, blocks_of_32 + 32, 0, 0, NULL), cudaErrorInvalidConfiguration, "GPUH_LAUNCH of noop at %s:%d: grid (1, 1, 1), block (4294967328, 1, 1) is beyond CUDA's limits: grid 1..(2147483647, 65535, 65535) blocks, block (1024, 1024, 64) and 1024 threads", __FILE__, __LINE__);
    TEST_DETAIL(GPUH_LAUNCH(noop, minus_one, 32, 0, 0, NULL), cudaErrorInvalidConfiguration, "GPUH_LAUNCH of noop at %s:%d: grid (18446744073709551615, 1, 1), block (32, 1, 1) is beyond CUDA's limits: grid 1..(2147483647, 65535, 65535) blocks, block (1024, 1024, 64) and 1024 threads", __FILE__, __LINE__);
    TEST_DETAIL(GPUH_LAUNCH(noop, two_to_31, 32, 0, 0, NULL), cudaErrorInvalidConfiguration, "GPUH_LAUNCH of noop at %s:%d: grid (2147483648, 1, 1), block (32, 1, 1) is beyond CUDA's limits: grid 1..(2147483647, 65535, 65535) blocks, block (1024, 1024, 64) and 1024 threads", __FILE__, __LINE__);
    const gpuh_launch_record r = gpuh_last_launch();
    TEST_ASSERT(r.kernel != NULL && strcmp(r.kernel, "noop") == 0 && r.grid.x == 2147483648u && r.block.x == 32,
                "last launch %s grid.x %u block.x %u", r.kernel ? r.kernel : "(none)", r.grid.x, r.block.x);
}

/* ===========================================================================
   The kernels' launchers: NULL pointers, n = 0, scratch missing or
   misaligned. The "device" arrays are host arrays: every one of these calls
   must fail (or finish) before launching anything. */

static void test_kernel_arguments()
{
    static float big[1 << 20]; /* large enough to need d_temp; never read */
    static double scratch[16];
    const size_t n = sizeof big / sizeof big[0];
    float out = 0, *null = NULL;
    const float *cnull = NULL;
    unsigned char *temp = (unsigned char *)scratch;

    TEST_DETAIL(gpuh_vector_add(cnull, big, big, 16), cudaErrorInvalidValue, "gpuh_vector_add: d_a is NULL (n 16)");
    TEST_DETAIL(gpuh_vector_add(big, cnull, big, 16), cudaErrorInvalidValue, "gpuh_vector_add: d_b is NULL (n 16)");
    TEST_DETAIL(gpuh_vector_add(big, big, null, 16), cudaErrorInvalidValue, "gpuh_vector_add: d_c is NULL (n 16)");
    TEST_DETAIL(gpuh_vector_add(cnull, cnull, null, 0), cudaSuccess, "%s", ""); /* n = 0: nothing to do */

    TEST_DETAIL(gpuh_sum(big, 16, null, NULL), cudaErrorInvalidValue, "gpuh_sum: d_out is NULL (n 16)");
    TEST_DETAIL(gpuh_sum(cnull, 16, &out, NULL), cudaErrorInvalidValue, "gpuh_sum: the input is NULL (n 16)");
    TEST_DETAIL(gpuh_max(cnull, 3, &out, NULL), cudaErrorInvalidValue, "gpuh_max: the input is NULL (n 3)");
    TEST_DETAIL(gpuh_dot(big, cnull, 16, &out, NULL), cudaErrorInvalidValue, "gpuh_dot: the second input is NULL (n 16)");
    TEST_DETAIL(gpuh_norm2(big, 16, null, NULL), cudaErrorInvalidValue, "gpuh_norm2: d_out is NULL (n 16)");
    /* min and max of nothing have no answer; a sum of nothing is 0 (needs a device to write it). */
    TEST_DETAIL(gpuh_min(big, 0, &out, NULL), cudaErrorInvalidValue, "gpuh_min: n is 0 and the operation has no identity");
    TEST_DETAIL(gpuh_max(cnull, 0, &out, NULL), cudaErrorInvalidValue, "gpuh_max: n is 0 and the operation has no identity");

    TEST_DETAIL(gpuh_sum(big, n, &out, NULL), cudaErrorInvalidValue, "gpuh_sum: d_temp is NULL; n = %zu needs GPUH_REDUCE_TEMP_BYTES of scratch", n);
    TEST_DETAIL(gpuh_dot(big, big, n, &out, NULL), cudaErrorInvalidValue, "gpuh_dot: d_temp is NULL; n = %zu needs GPUH_REDUCE_TEMP_BYTES of scratch", n);
    TEST_DETAIL(gpuh_sum(big, n, &out, temp + 2), cudaErrorInvalidValue, "gpuh_sum: d_temp %p is not aligned to 4 bytes", (void *)(temp + 2));
    TEST_DETAIL(gpuh_min(big, n, &out, temp + 1), cudaErrorInvalidValue, "gpuh_min: d_temp %p is not aligned to 4 bytes", (void *)(temp + 1));
}

/* ===========================================================================
   The device: none, or an allocation larger than its free memory */

/* No device, or no usable driver: CI has no driver at all, which the runtime
   reports as cudaErrorInsufficientDriver, the same error as a driver older
   than the runtime; CUDA_VISIBLE_DEVICES=-1 gives cudaErrorNoDevice. */
static void test_no_device(const char *why)
{
    int count = -1;
    const cudaError_t count_err = cudaGetDeviceCount(&count);
    const cudaError_t none = count_err != cudaSuccess ? count_err : cudaErrorNoDevice;
    float *d = NULL;
    FILE *f = tmpfile();
    char text[1024], want[512];
    int driver = -1;
    cudaDriverGetVersion(&driver);
    cudaGetLastError();
    printf("no CUDA device (%s, %s): checking what gpuh says\n", cudaGetErrorName(none), why);
    /* What is true, and what to do: never "driver version is insufficient"
       when there is no driver at all. */
    const char *advice = "; to run CUDA programs without a GPU, build them for gpuh's CPU simulator (CMake: link "
                         "gpuh::sim; otherwise compile with tools/gpuh-simcc)";
    char want_why[512];
    if (count_err == cudaErrorInsufficientDriver && driver == 0)
        snprintf(want_why, sizeof want_why, "no NVIDIA driver on this machine, so no CUDA device%s", advice);
    else if (count_err == cudaErrorInsufficientDriver)
        snprintf(want_why, sizeof want_why, "the NVIDIA driver is older than the CUDA runtime this program was built "
                 "with: update the driver (nvidia-smi shows its CUDA version)");
    else if (count_err == cudaSuccess || count_err == cudaErrorNoDevice)
        snprintf(want_why, sizeof want_why, "no CUDA device on this machine (or CUDA_VISIBLE_DEVICES hides them all)%s",
                 advice);
    else
        snprintf(want_why, sizeof want_why, "%s", cudaGetErrorString(count_err));
    TEST_ASSERT(strcmp(why, want_why) == 0, "gpuh_device_count's reason (driver %d, %s)\n       \"%s\"\n     expected\n"
                "       \"%s\"", driver, cudaGetErrorName(count_err), why, want_why);
    TEST_ASSERT(strstr(GPUH_SIM_TWIN_HINT("04_reduction"), "build/sim_04_reduction ") != NULL, "the hint \"%s\"",
                GPUH_SIM_TWIN_HINT("04_reduction"));
    TEST_DETAIL(gpuh_select_device(0), none, "gpuh_select_device(0): %s", why);
    d = (float *)text;
    TEST_DETAIL(gpuh_device_array(&d, 10), none, "gpuh_device_array at %s:%d: no device to allocate 40 bytes (10 elements of 4 bytes) on: %s", __FILE__, __LINE__, why);
    TEST_ASSERT(d == NULL, "a failed allocation left %p", (void *)d);
    if (!TEST_ASSERT(f != NULL, "tmpfile() failed"))
        return;
    TEST_DETAIL(gpuh_print_devices(f), cudaErrorNoDevice, "gpuh_print_devices: %s", why);
    snprintf(want, sizeof want, "No CUDA devices: %s\n", why);
    TEST_ASSERT(strcmp(gpuh_test_read_back(f, text, sizeof text), want) == 0, "gpuh_print_devices printed \"%s\"",
                text);
    fclose(f);
}

static void test_device(int count)
{
    TEST_DETAIL(gpuh_select_device(count), cudaErrorInvalidDevice, "gpuh_select_device: device %d is out of range (%d visible)", count, count);
    TEST_DETAIL(gpuh_select_device(-1), cudaErrorInvalidDevice, "gpuh_select_device: device -1 is out of range (%d visible)", count);
    TEST_CUDA(gpuh_select_device(0));

    /* An allocation 4 GiB larger than the memory free now (a margin: other
       processes may free memory meanwhile, e.g. the sanitizer runs beside this one). */
    gpuh_memory_stats s;
    if (!TEST_CUDA(gpuh_memory_info(&s)))
        return;
    const size_t ask = s.free_bytes + ((size_t)4 << 30);
    unsigned char *p = (unsigned char *)&s;
    gpuh_test_clear_detail();
    const int line = __LINE__; const cudaError_t err = gpuh_device_array(&p, ask);
    if (!TEST_ASSERT(err == cudaErrorMemoryAllocation && p == NULL, "gpuh_device_array of %zu bytes (%zu free) "
                     "returned %s, %p", ask, s.free_bytes, cudaGetErrorName(err), (void *)p)) {
        gpuh_free(err == cudaSuccess ? p : NULL);
        return;
    }
    /* The free bytes move with other processes: read them from the message,
       then check the whole message and the numbers. */
    const char *detail = gpuh_error_detail(), *at = strstr(detail, "; the device has ");
    size_t free_b = 0, total_b = 0;
    char want[512];
    TEST_ASSERT(at != NULL && sscanf(at, "; the device has %zu bytes free of %zu", &free_b, &total_b) == 2,
                "no free/total bytes in \"%s\"", detail);
    snprintf(want, sizeof want, "gpuh_device_array at %s:%d: could not allocate %zu bytes (%zu elements of 1 bytes); "
             "the device has %zu bytes free of %zu", __FILE__, line, ask, ask, free_b, total_b);
    TEST_ASSERT(strcmp(detail, want) == 0, "detail\n       \"%s\"\n     expected\n       \"%s\"", detail, want);
    TEST_ASSERT(total_b == s.total_bytes && free_b < ask && free_b <= total_b,
                "the message says %zu bytes free of %zu; asked %zu, the device has %zu in all", free_b, total_b, ask,
                s.total_bytes);
    /* Not sticky: a small allocation still works, and the ledger holds nothing. */
    TEST_CUDA(gpuh_device_array(&p, 16));
    TEST_CUDA(gpuh_free(p));
    TEST_ASSERT(gpuh_print_allocations(NULL) == 0, "allocations left behind (listed above)");
}

int main()
{
    const char *why = NULL;
    const int count = gpuh_device_count(&why);
    test_memory();
    test_geometry();
    test_kernel_arguments();
    if (count == 0)
        test_no_device(why);
    else
        test_device(count);
    return gpuh_test_summary("test_bad_input");
}
