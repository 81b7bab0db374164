/* gpuh/kernels_gemm_f32.cu, a part of the compiled mode (gpuh/instances.cuh):
   gpuh_gemm, gpuh_matmul and gpuh_sharded_gemm for float. */
#include "gpuh_kernels.cuh"

GPUH_IMPL_PART_GEMM(f32, float)
