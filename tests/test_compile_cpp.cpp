/* test_compile_cpp.cpp - gpuh.h compiled as C++ (g++ -std=c++11 -Wall -Wextra
   -Wpedantic -Werror), using a representative piece of each API group, so that
   the extern "C" block, the macros and the implicit conversions C allows but
   C++ does not are all exercised. It also runs: exit 0 with or without a
   device (1 if a check fails).

   g++ -std=c++11 -Wall -Wextra -Wpedantic -Werror -I. -isystem <cuda>/include \
       tests/test_compile_cpp.cpp -L<cuda>/lib64 -lcudart
*/

/* GPUH_CHECK counts instead of aborting. */
#define GPUH_ON_ERROR (++cpp_on_error_calls)
/* The cuRAND section compiles as C++ too; nothing in it is called, so no cuRAND at link time. */
#ifndef GPUH_USE_CURAND
#define GPUH_USE_CURAND
#endif
static int cpp_on_error_calls;

#include "gpuh_test.h" /* includes gpuh.h after routing GPUH_LOG into a buffer */

#include <vector>

namespace {

cudaError_t no_work(void *, cudaStream_t) { return cudaSuccess; }

/* Errors: the sticky list, the detail, GPUH_CHECK and its hook. */
void errors()
{
    TEST_ASSERT(gpuh_error_is_sticky(cudaErrorIllegalAddress) == 1, "illegal address is sticky");
    TEST_ASSERT(gpuh_error_is_sticky(cudaErrorInvalidValue) == 0, "invalid value is not sticky");
    dim3 grid(7, 8, 9);
    gpuh_test_capture_begin();
    GPUH_CHECK(gpuh_grid_1d(&grid, 10, 0));
    const char *text = gpuh_test_capture_end();
    TEST_ASSERT(cpp_on_error_calls == 1, "GPUH_ON_ERROR ran %d times, expected 1", cpp_on_error_calls);
    TEST_CONTAINS(text, "gpuh_grid_1d(&grid, 10, 0)");
    TEST_CONTAINS(text, "cudaErrorInvalidConfiguration");
    TEST_ASSERT(gpuh_error_detail()[0] == '\0', "GPUH_CHECK's report did not clear the detail");
    gpuh_launch_record r = gpuh_last_launch();
    TEST_ASSERT(r.kernel == NULL, "no GPUH_LAUNCH ran, but the record names %s", r.kernel ? r.kernel : "");
}

/* Launch geometry. */
void geometry()
{
    dim3 grid;
    TEST_CUDA(gpuh_grid_2d(&grid, 1000, 3, dim3(16, 16)));
    TEST_ASSERT(grid.x == 63 && grid.y == 1 && grid.z == 1, "grid (%u, %u, %u), expected (63, 1, 1)", grid.x,
                grid.y, grid.z);
    TEST_CUDA(gpuh_grid_3d(&grid, 100, 200, 33, dim3(8, 4, 4)));
    TEST_ASSERT(grid.x == 13 && grid.y == 50 && grid.z == 9, "grid (%u, %u, %u), expected (13, 50, 9)", grid.x,
                grid.y, grid.z);
    TEST_ASSERT(gpuh_ceil_div(SIZE_MAX, 2) == SIZE_MAX / 2 + 1, "gpuh_ceil_div(SIZE_MAX, 2)");
    TEST_ERR(gpuh_check_block(dim3(32, 32, 2)), cudaErrorInvalidConfiguration);
}

/* Memory: the macros with typed C++ pointers, std::vector data, empty arrays,
   and, with a device, a round trip through the ledger. */
void memory(bool have_device)
{
    std::vector<double> host(1000), back(1000, -1.0);
    for (size_t i = 0; i < host.size(); ++i)
        host[i] = 0.5 * static_cast<double>(i) - 3.0;

    double *d = NULL;
    TEST_CUDA(gpuh_device_array(&d, 0));
    TEST_ASSERT(d == NULL, "count 0 gave %p", static_cast<void *>(d));
    float *f = NULL;
    TEST_ERR(gpuh_copy_to_host(back.data(), f, 4), cudaErrorInvalidValue); /* 8-byte vs 4-byte elements */

    if (!have_device)
        return;
    gpuh_memory_stats before, during, after;
    TEST_CUDA(gpuh_memory_info(&before));
    TEST_CUDA(gpuh_to_device(&d, host.data(), host.size()));
    TEST_CUDA(gpuh_memory_info(&during));
    TEST_ASSERT(during.allocated_bytes == before.allocated_bytes + 8000, "allocated %zu, expected %zu",
                during.allocated_bytes, before.allocated_bytes + 8000);
    TEST_CUDA(gpuh_copy_to_host(back.data(), d, back.size()));
    TEST_ASSERT(back == host, "round trip changed the data");
    int *pinned = NULL;
    TEST_CUDA(gpuh_pinned_array(&pinned, 16));
    TEST_CUDA(gpuh_free(pinned));
    TEST_CUDA(gpuh_free(d));
    TEST_CUDA(gpuh_memory_info(&after));
    TEST_ASSERT(after.allocated_bytes == before.allocated_bytes && after.pinned_bytes == before.pinned_bytes &&
                    after.live_allocations == before.live_allocations,
                "counters not restored");
}

/* Devices and timing. */
void devices_and_timing(int count)
{
    float ms = -1.0f;
    TEST_ERR(gpuh_time_median_ms(no_work, NULL, 0, 0, 0, &ms), cudaErrorInvalidValue);
    TEST_ERR(gpuh_time_median_ms(NULL, NULL, 0, 0, 1, &ms), cudaErrorInvalidValue);
    FILE *out = tmpfile();
    TEST_ASSERT(out != NULL, "tmpfile() failed");
    if (count == 0) {
        TEST_ERR(gpuh_print_devices(out), cudaErrorNoDevice);
    } else {
        TEST_CUDA(gpuh_select_device(0));
        TEST_CUDA(gpuh_print_devices(out));
        gpuh_timer t;
        TEST_CUDA(gpuh_timer_create(&t));
        TEST_CUDA(gpuh_timer_start(&t, 0));
        TEST_CUDA(gpuh_timer_stop(&t));
        TEST_CUDA(gpuh_timer_elapsed_ms(&t, &ms));
        TEST_ASSERT(ms >= 0.0f, "elapsed %g ms", ms);
        TEST_CUDA(gpuh_timer_destroy(&t));
        TEST_CUDA(gpuh_time_median_ms(no_work, NULL, 0, 1, 3, &ms));
    }
    if (out)
        fclose(out);
    TEST_ASSERT(gpuh_print_allocations(NULL) == 0, "allocations left behind");
}

} // namespace

int main()
{
    const char *why = "";
    int count = gpuh_device_count(&why);
    printf("gpuh %d.%d.%d as C++: %d CUDA device(s)%s%s\n", GPUH_VERSION_MAJOR, GPUH_VERSION_MINOR,
           GPUH_VERSION_PATCH, count, count ? "" : ": ", why);
    errors();
    geometry();
    memory(count > 0);
    devices_and_timing(count);
    return gpuh_test_summary("test_compile_cpp");
}
