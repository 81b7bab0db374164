// test_status_generic_cpp.cpp - GPUH_CHECK_STATUS's C++ form (overloads), for
// test_status_generic.c: a cuFFT and a cudaError_t failure, each reported once.
#include <cufft.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

static int cpp_on_error_count;
static char *cpp_report;
static size_t cpp_report_size, cpp_report_len;

static void cpp_log(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (cpp_report_len < cpp_report_size) {
        int k = vsnprintf(cpp_report + cpp_report_len, cpp_report_size - cpp_report_len, fmt, ap);
        if (k > 0)
            cpp_report_len += (size_t)k;
    }
    va_end(ap);
}

#define GPUH_ON_ERROR (++cpp_on_error_count)
#define GPUH_LOG(...) cpp_log(__VA_ARGS__)
#include "gpuh.h"

extern "C" int generic_cpp_case(char *report, size_t size);

int generic_cpp_case(char *report, size_t size)
{
    cpp_on_error_count = 0;
    cpp_report = report;
    cpp_report_size = size;
    cpp_report_len = 0;
    report[0] = '\0';
    GPUH_CHECK_STATUS(CUFFT_SUCCESS);
    GPUH_CHECK_STATUS(CUFFT_INVALID_SIZE);
    GPUH_CHECK_STATUS(cudaErrorMemoryAllocation);
    return cpp_on_error_count;
}
