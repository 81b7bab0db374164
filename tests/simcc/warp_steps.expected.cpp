#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// Warp steps: where lanes share plain shared memory with no barrier, gpuh_sim_warp_step() before the
// statement that reads what others wrote (or writes what others read): after a #pragma (beside the
// statement before it, so that the lines stay), after else, in a case, in a do-while's condition, at
// the top of a loop that reads and writes; none after a barrier, none for an address or a member call.
__global__ void steps(const float *in, float *out, int n)
{
    __shared__ float s_a[64];
    __shared__ int s_flag;
    float *row = &s_a[threadIdx.x / 8 * 8];
    s_a[threadIdx.x] = in[threadIdx.x]; gpuh_sim_warp_step();
#pragma unroll
    for (int i = 0; i < 8; ++i)
        out[i] = row[i];
    if (n < 0)
        out[0] = 0.0f;
    else if (gpuh_sim_warp_step(), true)
        s_a[threadIdx.x] = 2.0f;
    switch (n) {
    case 1: gpuh_sim_warp_step();
        out[1] = s_a[1];
        break;
    default: gpuh_sim_warp_step();
        out[1] = s_a[2];
    }
    gpuh_sim_warp_step(); s_flag = 1;
    do {
        n--;
    } while (gpuh_sim_warp_step(), s_flag == 0 && n > 0);
    gpuh_sim_warp_step(); for (int d = 32; d > 0; gpuh_sim_warp_step(), d >>= 1)
        if (threadIdx.x < d)
            s_a[threadIdx.x] += s_a[threadIdx.x + d];
    __syncthreads();
    out[2] = s_a[0];
    atomicAdd(&s_flag, 1);
}

static const int gpuh_sim_kernel_steps = GPUH_SIM_REGISTER_KERNEL(steps);
