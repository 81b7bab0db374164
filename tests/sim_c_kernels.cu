/* The kernels of tests/sim_c_main.c, called from C through an extern "C" launcher. */
#include <cuda_runtime.h>

__global__ void saxpy_kernel(float a, const float *x, float *y, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

extern "C" cudaError_t sim_c_saxpy(float a, const float *x, float *y, size_t n)
{
    saxpy_kernel<<<(unsigned)((n + 255) / 256), 256>>>(a, x, y, n);
    cudaError_t e = cudaGetLastError();
    return e != cudaSuccess ? e : cudaDeviceSynchronize();
}
