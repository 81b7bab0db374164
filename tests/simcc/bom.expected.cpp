#if __has_include("gpuh_sim_cu.h")
#include "gpuh_sim_cu.h"
#endif
#line 1 "@INPUT@"
// BOM first
__global__ void k(int *p) { *p = 1; }
int main() { int *p; cudaMalloc(&p, 4); GPUH_SIM_KERNEL_CALL(k, 1, 1, 0, 0, p); return cudaDeviceSynchronize() != cudaSuccess; }

static const int gpuh_sim_kernel_k = GPUH_SIM_REGISTER_KERNEL(k);
