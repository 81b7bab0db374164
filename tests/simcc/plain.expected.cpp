#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// A plain launch: two to four configuration values, a qualified kernel, a
// launch spread over lines (the line count is kept), one with no arguments.
__global__ void add(const float *a, float *b, int n) { if (threadIdx.x < n) b[threadIdx.x] += a[threadIdx.x]; }
__global__ void tick() {}
namespace ns { __global__ void k(int *p) { *p = 1; } }

void run(const float *a, float *b, int n, int *p, cudaStream_t s)
{
    GPUH_SIM_KERNEL_CALL(add, 1, 32, 0, 0, a, b, n);
    GPUH_SIM_KERNEL_CALL(add, dim3(1, 1), dim3(32), 0, 0, a, b, n);
    GPUH_SIM_KERNEL_CALL(ns::k, 1, 1, 0, s, p);
    GPUH_SIM_KERNEL_CALL(add, (n + 255) / 256, 256, 0, s, a,
                                                     b,
                                                     n);
    GPUH_SIM_KERNEL_CALL0(tick, 1, 1, 0, 0);
    GPUH_SIM_KERNEL_CALL(add, 1, 32, 0, 0, a, b, n);
}

static const int gpuh_sim_kernel_add = GPUH_SIM_REGISTER_KERNEL(add);
static const int gpuh_sim_kernel_tick = GPUH_SIM_REGISTER_KERNEL(tick);
