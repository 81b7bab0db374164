/* test_status_host.c - the GPUH_CHECK_<LIBRARY> macros without a GPU (label host).

   Every library's header comes before gpuh.h, so every part of gpuh.h's
   "other CUDA libraries' status" is compiled. The checks:
   - each name function against the enumerators of the library's own header
     (gpuh's tables for cuFFT, cuRAND, cuSOLVER and NCCL; the libraries' own
     functions for cuBLAS, cuSPARSE and NVRTC, which run without a device);
   - a number no library uses gets the "unknown" name, never NULL;
   - the report's layout, captured through gpuh_test.h's GPUH_LOG, and the
     GPUH_ON_ERROR policy (counted here instead of abort());
   - a real failing call that needs no device: NVRTC compiling a syntax error.
   The driver API's names need libcuda, so they are checked in test_status_gpu.c. */
#include <cublas_v2.h>
#include <cufft.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <nvrtc.h>
#ifdef GPUH_TEST_HAVE_NCCL
#include <nccl.h>
#endif

static int on_error_count;
#define GPUH_ON_ERROR (++on_error_count)
#include "gpuh_test.h"

#define NAME_IS(got, want) TEST_ASSERT(strcmp((got), (want)) == 0, "name %s, want %s", (got), (want))

static void test_names(void)
{
    NAME_IS(gpuh_cublas_status_name(CUBLAS_STATUS_SUCCESS), "CUBLAS_STATUS_SUCCESS");
    NAME_IS(gpuh_cublas_status_name(CUBLAS_STATUS_INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE");
    NAME_IS(gpuh_cublas_status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");

    NAME_IS(gpuh_cufft_status_name(CUFFT_SUCCESS), "CUFFT_SUCCESS");
    NAME_IS(gpuh_cufft_status_name(CUFFT_INVALID_PLAN), "CUFFT_INVALID_PLAN");
    NAME_IS(gpuh_cufft_status_name(CUFFT_INVALID_SIZE), "CUFFT_INVALID_SIZE");
    NAME_IS(gpuh_cufft_status_name(CUFFT_INVALID_DEVICE), "CUFFT_INVALID_DEVICE");
    NAME_IS(gpuh_cufft_status_name(CUFFT_NOT_SUPPORTED), "CUFFT_NOT_SUPPORTED");
    NAME_IS(gpuh_cufft_status_name(CUFFT_NVSHMEM_FAILURE), "CUFFT_NVSHMEM_FAILURE");

    NAME_IS(gpuh_curand_status_name(CURAND_STATUS_SUCCESS), "CURAND_STATUS_SUCCESS");
    NAME_IS(gpuh_curand_status_name(CURAND_STATUS_TYPE_ERROR), "CURAND_STATUS_TYPE_ERROR");
    NAME_IS(gpuh_curand_status_name(CURAND_STATUS_LENGTH_NOT_MULTIPLE), "CURAND_STATUS_LENGTH_NOT_MULTIPLE");
    NAME_IS(gpuh_curand_status_name(CURAND_STATUS_ARCH_MISMATCH), "CURAND_STATUS_ARCH_MISMATCH");
    NAME_IS(gpuh_curand_status_name(CURAND_STATUS_INTERNAL_ERROR), "CURAND_STATUS_INTERNAL_ERROR");

    NAME_IS(gpuh_cusparse_status_name(CUSPARSE_STATUS_INVALID_VALUE), "CUSPARSE_STATUS_INVALID_VALUE");
    NAME_IS(gpuh_cusparse_status_name(CUSPARSE_STATUS_NOT_INITIALIZED), "CUSPARSE_STATUS_NOT_INITIALIZED");

    NAME_IS(gpuh_cusolver_status_name(CUSOLVER_STATUS_SUCCESS), "CUSOLVER_STATUS_SUCCESS");
    NAME_IS(gpuh_cusolver_status_name(CUSOLVER_STATUS_INVALID_VALUE), "CUSOLVER_STATUS_INVALID_VALUE");
    NAME_IS(gpuh_cusolver_status_name(CUSOLVER_STATUS_ZERO_PIVOT), "CUSOLVER_STATUS_ZERO_PIVOT");
    NAME_IS(gpuh_cusolver_status_name(CUSOLVER_STATUS_IRS_MATRIX_SINGULAR), "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR");
    NAME_IS(gpuh_cusolver_status_name(CUSOLVER_STATUS_INVALID_WORKSPACE), "CUSOLVER_STATUS_INVALID_WORKSPACE");

    NAME_IS(gpuh_nvrtc_status_name(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION");
    NAME_IS(gpuh_nvrtc_status_name(NVRTC_ERROR_INVALID_OPTION), "NVRTC_ERROR_INVALID_OPTION");

#ifdef GPUH_TEST_HAVE_NCCL
    NAME_IS(gpuh_nccl_status_name(ncclSuccess), "ncclSuccess");
    NAME_IS(gpuh_nccl_status_name(ncclInvalidArgument), "ncclInvalidArgument");
    NAME_IS(gpuh_nccl_status_name(ncclInProgress), "ncclInProgress");
#endif
}

/* A number a library does not use has a name that says so, never NULL (C
   converts an int to an enum without a cast). */
static void test_unknown(void)
{
    cufftResult f = 4242;
    curandStatus_t r = 4242;
    cusolverStatus_t s = 4242;
    NAME_IS(gpuh_cufft_status_name(f), "an unknown cuFFT result");
    NAME_IS(gpuh_curand_status_name(r), "an unknown cuRAND status");
    NAME_IS(gpuh_cusolver_status_name(s), "an unknown cuSOLVER status");
}

static cufftResult fails_with_invalid_size(void) { return CUFFT_INVALID_SIZE; }
static curandStatus_t succeeds(void) { return CURAND_STATUS_SUCCESS; }

/* The report: file:line, the expression, the name, the library and number, the message. */
static void test_report(void)
{
    const char *text;
    int line;
    on_error_count = 0;
    gpuh_test_capture_begin();
    GPUH_CHECK_CURAND(succeeds());
    text = gpuh_test_capture_end();
    TEST_ASSERT(on_error_count == 0 && text[0] == '\0', "a success reported: %d, '%s'", on_error_count, text);

    gpuh_test_capture_begin();
    line = __LINE__ + 1;
    GPUH_CHECK_CUFFT(fails_with_invalid_size());
    text = gpuh_test_capture_end();
    TEST_ASSERT(on_error_count == 1, "GPUH_ON_ERROR ran %d times, want 1", on_error_count);
    {
        char where[256];
        snprintf(where, sizeof where, "%s:%d: fails_with_invalid_size()", __FILE__, line);
        TEST_CONTAINS(text, where);
    }
    TEST_CONTAINS(text, "failed with CUFFT_INVALID_SIZE (cuFFT status 8): a transform size is not supported");

    gpuh_test_capture_begin();
    gpuh_report_status("myLib", -3, NULL, NULL, "my_call(x)", "f.c", 7);
    text = gpuh_test_capture_end();
    TEST_CONTAINS(text, "gpuh: f.c:7: my_call(x)\ngpuh:   failed with an unknown status (myLib status -3)\n");

    /* gpuh's own detail, when gpuh recorded one, is printed and then forgotten. */
    gpuh_fail(cudaErrorInvalidValue, "my_wrapper: plan size %d is negative", -5);
    gpuh_test_capture_begin();
    gpuh_report_status("cuFFT", 8, "CUFFT_INVALID_SIZE", "", "plan(-5)", "g.c", 9);
    text = gpuh_test_capture_end();
    TEST_CONTAINS(text, "failed with CUFFT_INVALID_SIZE (cuFFT status 8)\ngpuh:   my_wrapper: plan size -5 is negative\n");
    TEST_ASSERT(gpuh_error_detail()[0] == '\0', "the detail was kept: %s", gpuh_error_detail());
}

/* A real failure without a device: NVRTC compiling a syntax error. */
static void test_nvrtc_failure(void)
{
    nvrtcProgram prog;
    const char *text;
    on_error_count = 0;
    GPUH_CHECK_NVRTC(nvrtcCreateProgram(&prog, "__global__ void k( { }", "broken.cu", 0, NULL, NULL));
    TEST_ASSERT(on_error_count == 0, "nvrtcCreateProgram failed");
    gpuh_test_capture_begin();
    GPUH_CHECK_NVRTC(nvrtcCompileProgram(prog, 0, NULL));
    text = gpuh_test_capture_end();
    TEST_ASSERT(on_error_count == 1, "GPUH_ON_ERROR ran %d times, want 1", on_error_count);
    TEST_CONTAINS(text, "nvrtcCompileProgram(prog, 0, NULL)");
    TEST_CONTAINS(text, "failed with NVRTC_ERROR_COMPILATION (NVRTC status 6): the program did not compile");
    nvrtcDestroyProgram(&prog);
}

#ifdef GPUH_TEST_HAVE_NCCL
/* NCCL's message comes from NCCL itself. */
static void test_nccl_message(void)
{
    const char *text;
    gpuh_test_capture_begin();
    gpuh_impl_report_nccl(ncclInvalidArgument, "ncclAllReduce(...)", "h.c", 3);
    text = gpuh_test_capture_end();
    TEST_CONTAINS(text, "failed with ncclInvalidArgument (NCCL status 4): ");
    TEST_CONTAINS(text, ncclGetErrorString(ncclInvalidArgument));
}
#endif

int main(void)
{
    test_names();
    test_unknown();
    test_report();
    test_nvrtc_failure();
#ifdef GPUH_TEST_HAVE_NCCL
    test_nccl_message();
#endif
    return gpuh_test_summary("test_status_host");
}
