/* test_link_b.cu - the second translation unit of the link test (see
   test_link_a.cu). It includes both headers the way a user's .cu file would,
   instantiates the same templates as test_link_a.cu, and hands
   test_link_a.cu what it needs to look at this file's view of gpuh's state. */
#include "gpuh.h"
#include "gpuh_kernels.cuh"

/* Declared in test_link_a.cu, which calls them. */

gpuh_impl_state *link_b_state(void) { return &gpuh_impl_state_v; }

/* An allocation whose ledger entry names this file. */
cudaError_t link_b_alloc(float **d, size_t n) { return gpuh_device_array(d, n); }

/* Leaves a gpuh detail behind (block of 0 threads), as seen from this file. */
cudaError_t link_b_fail(void)
{
    dim3 grid;
    return gpuh_grid_1d(&grid, 10, 0);
}
const char *link_b_detail(void) { return gpuh_error_detail(); }

/* A launch made here, through GPUH_LAUNCH: its record (kernel name,
   file:line) is the process-wide one test_link_a.cu reads. */
__global__ void link_b_kernel(int *g_x)
{
    if (g_x != NULL && threadIdx.x == 0)
        *g_x = 7;
}
cudaError_t link_b_launch(int *d_x) { return GPUH_LAUNCH(link_b_kernel, 1, 32, 0, 0, d_x); }

/* The same template instantiations as test_link_a.cu: if their kernels or
   launchers were not mergeable (inline/weak), the link would fail here. */
cudaError_t link_b_add(const float *d_a, const float *d_b, float *d_c, size_t n)
{
    return gpuh_vector_add<float>(d_a, d_b, d_c, n, 0);
}
cudaError_t link_b_sum(const float *d_in, size_t n, float *d_out, void *d_temp)
{
    return gpuh_sum<float>(d_in, n, d_out, d_temp, 0);
}
cudaError_t link_b_max(const int *d_in, size_t n, int *d_out, void *d_temp)
{
    return gpuh_max<int>(d_in, n, d_out, d_temp, 0);
}
cudaError_t link_b_matmul(const double *d_A, const double *d_B, double *d_C, size_t M, size_t N, size_t K)
{
    return gpuh_matmul<double>(d_A, d_B, d_C, M, N, K, 0);
}
