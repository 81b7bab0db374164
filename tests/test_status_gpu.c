/* test_status_gpu.c - each GPUH_CHECK_<LIBRARY> on a real failing call of its
   library (label gpu; exits 77 without a device). In C99, as a C program
   that calls the libraries next to gpuh would be.

   Each call fails on purpose (a negative size, a handle never created, a
   device that does not exist); the test reads the report captured through
   gpuh_test.h's GPUH_LOG and counts GPUH_ON_ERROR instead of aborting:
   the expression, the status's name and number, the library's message. */
#include <cublas_v2.h>
#include <cuda.h>
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

/* Runs one GPUH_CHECK_<LIB>(call) that must fail, and checks its report
   holds the call's text and `want` (the status's name and library). */
#define EXPECT_FAILS(check, call, want)                                                            \
    do {                                                                                           \
        const char *text;                                                                          \
        int before = on_error_count;                                                               \
        gpuh_test_capture_begin();                                                                 \
        check(call);                                                                               \
        text = gpuh_test_capture_end();                                                            \
        TEST_ASSERT(on_error_count == before + 1, "%s did not fail", #call);                       \
        TEST_CONTAINS(text, #call);                                                                \
        TEST_CONTAINS(text, want);                                                                 \
        printf("%s", text);                                                                        \
    } while (0)

int main(void)
{
    cublasHandle_t blas = NULL;
    cusparseHandle_t sparse = NULL;
    cusolverDnHandle_t solver = NULL;
    cusparseDnVecDescr_t vec = NULL;
    cufftHandle plan = 0;
    curandGenerator_t gen = NULL;
    nvrtcProgram prog = NULL;
    CUdevice dev = 0;
    float *d = NULL;
    int lwork = 0;
    GPUH_TEST_REQUIRE_DEVICE();
    GPUH_CHECK(gpuh_device_array(&d, 64));

    /* cuBLAS: a handle, then a GEMM with m = -1. */
    GPUH_CHECK_CUBLAS(cublasCreate(&blas));
    {
        const float one = 1.0f;
        /* cublasSgemm is a macro for cublasSgemm_v2, which the report shows */
        EXPECT_FAILS(GPUH_CHECK_CUBLAS,
                     cublasSgemm_v2(blas, CUBLAS_OP_N, CUBLAS_OP_N, -1, 4, 4, &one, d, 4, d, 4, &one, d, 4),
                     "failed with CUBLAS_STATUS_INVALID_VALUE (cuBLAS status 7): ");
        TEST_CONTAINS(gpuh_test_log_buf, cublasGetStatusString(CUBLAS_STATUS_INVALID_VALUE));
    }
    cublasDestroy(blas);

    /* cuFFT: a plan of 0 points. */
    EXPECT_FAILS(GPUH_CHECK_CUFFT, cufftPlan1d(&plan, 0, CUFFT_C2C, 1),
                 "failed with CUFFT_INVALID_SIZE (cuFFT status 8): ");

    /* cuRAND: normal numbers come in pairs, so an odd count is refused. */
    GPUH_CHECK_CURAND(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
    EXPECT_FAILS(GPUH_CHECK_CURAND, curandGenerateNormal(gen, d, 63, 0.0f, 1.0f),
                 "failed with CURAND_STATUS_LENGTH_NOT_MULTIPLE (cuRAND status 105): ");
    curandDestroyGenerator(gen);

    /* cuSPARSE: a dense vector of -1 elements. */
    GPUH_CHECK_CUSPARSE(cusparseCreate(&sparse));
    EXPECT_FAILS(GPUH_CHECK_CUSPARSE, cusparseCreateDnVec(&vec, -1, d, CUDA_R_32F),
                 "failed with CUSPARSE_STATUS_INVALID_VALUE (cuSPARSE status 3): ");
    cusparseDestroy(sparse);

    /* cuSOLVER: an LU workspace query without a handle (the query does not
       check its sizes: m = -1 passed on an H200). */
    EXPECT_FAILS(GPUH_CHECK_CUSOLVER, cusolverDnSgetrf_bufferSize(solver, 4, 4, d, 4, &lwork),
                 "failed with CUSOLVER_STATUS_NOT_INITIALIZED (cuSOLVER status 1): ");

    /* The driver API: a device past the last one. */
    GPUH_CHECK_CU(cuInit(0));
    EXPECT_FAILS(GPUH_CHECK_CU, cuDeviceGet(&dev, 9999), "failed with CUDA_ERROR_INVALID_DEVICE (driver API status 101): ");
    TEST_ASSERT(strcmp(gpuh_cu_status_name(CUDA_ERROR_INVALID_VALUE), "CUDA_ERROR_INVALID_VALUE") == 0, "%s",
                gpuh_cu_status_name(CUDA_ERROR_INVALID_VALUE));
    TEST_ASSERT(strcmp(gpuh_cu_status_name(CUDA_ERROR_ILLEGAL_ADDRESS), "CUDA_ERROR_ILLEGAL_ADDRESS") == 0, "%s",
                gpuh_cu_status_name(CUDA_ERROR_ILLEGAL_ADDRESS));

    /* NVRTC: an option it does not know. */
    GPUH_CHECK_NVRTC(nvrtcCreateProgram(&prog, "__global__ void k() {}", "k.cu", 0, NULL, NULL));
    {
        const char *bad[] = {"--no-such-option"};
        EXPECT_FAILS(GPUH_CHECK_NVRTC, nvrtcCompileProgram(prog, 1, bad),
                     "failed with NVRTC_ERROR_INVALID_OPTION (NVRTC status 5)");
    }
    nvrtcDestroyProgram(&prog);

#ifdef GPUH_TEST_HAVE_NCCL
    /* NCCL: a communicator of 0 ranks. */
    {
        ncclUniqueId id;
        ncclComm_t comm = NULL;
        GPUH_CHECK_NCCL(ncclGetUniqueId(&id));
        EXPECT_FAILS(GPUH_CHECK_NCCL, ncclCommInitRank(&comm, 0, id, 0),
                     "failed with ncclInvalidArgument (NCCL status 4): ");
    }
#endif
    gpuh_free(d);
    return gpuh_test_summary("test_status_gpu");
}
