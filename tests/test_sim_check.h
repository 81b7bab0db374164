/* test_sim_check.h: what the simulator's plain-CUDA tests share
   (tests/test_sim_cuda.cu, tests/test_sim_cdp.cu; built by gpuh-simcc and by
   nvcc alike).

   CHECK(cond, fmt, ...)   count a failure and print file:line, the condition
                           and the formatted values; never aborts, so one run
                           reports every failure (main returns failures != 0)
   CUDA_OK(call)           CHECK that call returns cudaSuccess
   rng                     a generator seeded afresh each run */
#ifndef TEST_SIM_CHECK_H
#define TEST_SIM_CHECK_H

#include <cstdio>
#include <random>

#include <cuda_runtime.h>

static int failures = 0;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                                     \
            printf(__VA_ARGS__);                                                                                       \
            printf("\n");                                                                                              \
            ++failures;                                                                                                \
        }                                                                                                              \
    } while (0)
#define CUDA_OK(call) CHECK((call) == cudaSuccess, "%s", cudaGetErrorName(cudaGetLastError()))

static std::mt19937 rng(std::random_device{}());

#endif /* TEST_SIM_CHECK_H */
