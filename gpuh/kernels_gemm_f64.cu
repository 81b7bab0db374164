/* gpuh/kernels_gemm_f64.cu, a part of the compiled mode (gpuh/instances.cuh):
   gpuh_gemm, gpuh_matmul and gpuh_sharded_gemm for double. */
#include "gpuh_kernels.cuh"

GPUH_IMPL_PART_GEMM(f64, double)
