/* test_status_generic.c - GPUH_CHECK_STATUS, the one check for every library's
   status, chosen by the expression's type: C11's _Generic here, C++'s
   overloads in test_status_generic_cpp.cpp (label host, no device).
   Each form: a success runs nothing; a cuFFT, a cuRAND, an NVRTC status and
   a cudaError_t each get their own library's report (name, library, number)
   and GPUH_ON_ERROR once; a header included after gpuh.h, with gpuh.h
   included again, adds its library (cuSOLVER here). */
#include <cufft.h>
#include <curand.h>
#include <nvrtc.h>

int on_error_count;
#define GPUH_ON_ERROR (++on_error_count)
#include "gpuh_test.h"
#include <cusolver_common.h>
#include "gpuh.h"

int generic_cpp_case(char *report, size_t size); /* test_status_generic_cpp.cpp: the C++ form */

static cufftResult fft_fails(void) { return CUFFT_INVALID_PLAN; }
static curandStatus_t rand_fails(void) { return CURAND_STATUS_OUT_OF_RANGE; }
static nvrtcResult rtc_fails(void) { return NVRTC_ERROR_INVALID_OPTION; }
static cudaError_t cuda_fails(void) { return cudaErrorInvalidValue; }
static cusolverStatus_t solver_fails(void) { return CUSOLVER_STATUS_ZERO_PIVOT; }
/* Calls, not enumerators: in C an enumerator's type is int, which selects nothing. */
static cufftResult fft_succeeds(void) { return CUFFT_SUCCESS; }
static cudaError_t cuda_succeeds(void) { return cudaSuccess; }
static nvrtcResult rtc_succeeds(void) { return NVRTC_SUCCESS; }

#define EXPECT_REPORT(call, want)                                                                  \
    do {                                                                                           \
        const char *text;                                                                          \
        int before = on_error_count;                                                               \
        gpuh_test_capture_begin();                                                                 \
        GPUH_CHECK_STATUS(call);                                                                   \
        text = gpuh_test_capture_end();                                                            \
        TEST_ASSERT(on_error_count == before + 1, "%s: GPUH_ON_ERROR ran %d times", #call,          \
                    on_error_count - before);                                                      \
        TEST_CONTAINS(text, #call);                                                                \
        TEST_CONTAINS(text, want);                                                                 \
    } while (0)

int main(void)
{
    char report[2048];
    on_error_count = 0;
    GPUH_CHECK_STATUS(fft_succeeds());
    GPUH_CHECK_STATUS(cuda_succeeds());
    GPUH_CHECK_STATUS(rtc_succeeds());
    TEST_ASSERT(on_error_count == 0, "a success ran GPUH_ON_ERROR %d times", on_error_count);
    EXPECT_REPORT(fft_fails(), "failed with CUFFT_INVALID_PLAN (cuFFT status 1)");
    EXPECT_REPORT(rand_fails(), "failed with CURAND_STATUS_OUT_OF_RANGE (cuRAND status 104)");
    EXPECT_REPORT(rtc_fails(), "failed with NVRTC_ERROR_INVALID_OPTION (NVRTC status 5)");
    EXPECT_REPORT(cuda_fails(), "failed with cudaErrorInvalidValue");
    EXPECT_REPORT(solver_fails(), "failed with CUSOLVER_STATUS_ZERO_PIVOT (cuSOLVER status 10)");
    /* the C++ form, in its own translation unit */
    TEST_ASSERT(generic_cpp_case(report, sizeof report) == 2, "the C++ form ran GPUH_ON_ERROR %d times, want 2",
                generic_cpp_case(report, sizeof report));
    TEST_CONTAINS(report, "failed with CUFFT_INVALID_SIZE (cuFFT status 8)");
    TEST_CONTAINS(report, "failed with cudaErrorMemoryAllocation");
    return gpuh_test_summary("test_status_generic");
}
