/* test_fault.cu - what gpuh reports after a kernel has faulted.

   A kernel launched through GPUH_LAUNCH writes through a NULL pointer. The
   launch itself succeeds (kernels run asynchronously); the fault
   (cudaErrorIllegalAddress) surfaces at the next call that waits for the
   device, here a gpuh_copy_to_host some lines later. The test checks that
   GPUH_CHECK's report of that later call names the launch that faulted
   (kernel, grid, block, dynamic shared memory, file:line of the GPUH_LAUNCH),
   the call that saw it (its expression and file:line), and says that the
   context is now unusable; and that it is: later CUDA calls keep failing.
   A process can fault only once, so this is a test of its own, and it is left
   out of the compute-sanitizer passes (it faults on purpose).
   Without a device: exit 77.

   nvcc -std=c++17 -arch=sm_90 -DGPUH_USE_CURAND -I. tests/test_fault.cu
*/
/* GPUH_CHECK must not abort here: count its failures instead. */
#define GPUH_ON_ERROR ++on_error_calls
static int on_error_calls;
#include "gpuh_test.h"

/* Writes i into g_x[i] for i < n: fine with a real array, a fault with NULL. */
__global__ void store_index(int *g_x, size_t n)
{
    for (size_t i = gpuh_global_index(); i < n; i += gpuh_grid_stride())
        g_x[i] = (int)i;
}

int main()
{
    GPUH_TEST_REQUIRE_DEVICE();
    TEST_CUDA(gpuh_select_device(0));

    const size_t n = 1000;
    int *d_ok = nullptr, *d_bad = nullptr, h[4] = {0, 0, 0, 0};
    if (!TEST_CUDA(gpuh_device_array(&d_ok, n)))
        return gpuh_test_summary("test_fault");

    /* A healthy launch first: the record must then move to the faulting one. */
    TEST_CUDA(GPUH_LAUNCH(store_index, 2, 64, 0, 0, d_ok, n));
    TEST_CUDA(cudaDeviceSynchronize());

    /* The faulting launch: grid (3, 1, 1), block (128, 1, 1), 16 bytes of
       (unused) dynamic shared memory. It returns cudaSuccess: nothing has run at that point. */
    const int launch_line = __LINE__; cudaError_t err = GPUH_LAUNCH(store_index, 3, 128, 16, 0, d_bad, n);
    TEST_ASSERT(err == cudaSuccess, "the faulting launch itself returned %s", cudaGetErrorName(err));

    /* The fault surfaces at a later, synchronising call, reported by GPUH_CHECK. */
    gpuh_test_capture_begin();
    const int check_line = __LINE__; GPUH_CHECK(gpuh_copy_to_host(h, d_ok, 4));
    const char *text = gpuh_test_capture_end();
    TEST_ASSERT(on_error_calls == 1, "GPUH_ON_ERROR ran %d times, expected once", on_error_calls);

    char want[512];
    snprintf(want, sizeof want, "gpuh: %s:%d: gpuh_copy_to_host(h, d_ok, 4)", __FILE__, check_line);
    TEST_CONTAINS(text, want);
    TEST_CONTAINS(text, "failed with cudaErrorIllegalAddress");
    TEST_CONTAINS(text, "this error is sticky: the CUDA context is unusable and every later CUDA call will "
                        "fail until the process restarts");
    snprintf(want, sizeof want, "last launch: store_index<<<(3,1,1), (128,1,1), 16>>> at %s:%d", __FILE__,
             launch_line);
    TEST_CONTAINS(text, want);
    TEST_CONTAINS(text, "rebuild with -DGPUH_DEBUG_SYNC");
    printf("GPUH_CHECK's report of the late fault:\n%s", text);

    /* The same through the accessors. */
    const gpuh_launch_record r = gpuh_last_launch();
    TEST_ASSERT(r.kernel != nullptr && strcmp(r.kernel, "store_index") == 0 && r.grid.x == 3 && r.block.x == 128 &&
                    r.shmem_bytes == 16 && r.file != nullptr && strcmp(r.file, __FILE__) == 0 &&
                    r.line == launch_line,
                "gpuh_last_launch: %s grid %u block %u shmem %zu at %s:%d", r.kernel ? r.kernel : "(null)",
                r.grid.x, r.block.x, r.shmem_bytes, r.file ? r.file : "(null)", r.line);

    /* Sticky: the context stays broken. */
    err = cudaDeviceSynchronize();
    TEST_ASSERT(err == cudaErrorIllegalAddress && gpuh_error_is_sticky(err),
                "cudaDeviceSynchronize after the fault returned %s, expected cudaErrorIllegalAddress (sticky)",
                cudaGetErrorName(err));
    int *d_more = nullptr;
    err = gpuh_device_array(&d_more, 10);
    TEST_ASSERT(err != cudaSuccess && d_more == nullptr, "an allocation after the fault returned %s, %p",
                cudaGetErrorName(err), (void *)d_more);
    err = GPUH_LAUNCH(store_index, 1, 32, 0, 0, d_ok, n);
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
    TEST_ASSERT(err != cudaSuccess, "a launch after the fault succeeded");
    /* d_ok cannot be freed any more: the context is gone (the process exit reclaims it). */
    return gpuh_test_summary("test_fault");
}
