/* A C program (C99) whose kernels live in a .cu file: `gpuh-simcc
   sim_c_main.c sim_c_kernels.cu -o prog` compiles this file as C with
   -DGPUH_SIM and links it with the rewritten .cu (label sim). */
#include <stdio.h>
#include <stdlib.h>
#include "gpuh.h"

/* Defined in sim_c_kernels.cu: y[i] = a * x[i] + y[i] on the device. */
cudaError_t sim_c_saxpy(float a, const float *x, float *y, size_t n);

int main(void)
{
    const size_t n = 1000 + (size_t)(rand() % 100);
    float *hx = malloc(n * sizeof *hx), *hy = malloc(n * sizeof *hy), *out = malloc(n * sizeof *out);
    float *dx = NULL, *dy = NULL;
    size_t i, bad = 0;
    if (!hx || !hy || !out)
        return 1;
    for (i = 0; i < n; ++i) {
        hx[i] = (float)(rand() % 1000) / 16.0f;
        hy[i] = (float)(rand() % 1000) / 8.0f;
    }
    if (cudaMalloc((void **)&dx, n * sizeof *dx) != cudaSuccess || cudaMalloc((void **)&dy, n * sizeof *dy) != cudaSuccess ||
        cudaMemcpy(dx, hx, n * sizeof *hx, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(dy, hy, n * sizeof *hy, cudaMemcpyHostToDevice) != cudaSuccess ||
        sim_c_saxpy(2.0f, dx, dy, n) != cudaSuccess ||
        cudaMemcpy(out, dy, n * sizeof *out, cudaMemcpyDeviceToHost) != cudaSuccess) {
        printf("sim_c_main: a CUDA call failed: %s\n", cudaGetErrorString(cudaGetLastError()));
        return 1;
    }
    for (i = 0; i < n; ++i)
        bad += out[i] != 2.0f * hx[i] + hy[i];
    printf("sim_c_main: %s (%zu of %zu wrong)\n", bad ? "FAIL" : "PASS", bad, n);
    cudaFree(dx);
    cudaFree(dy);
    free(hx);
    free(hy);
    free(out);
    return bad ? 1 : 0;
}
