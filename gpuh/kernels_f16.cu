/* gpuh/kernels_f16.cu, a part of the compiled mode (gpuh/instances.cuh): the
   tensor-core gpuh_gemm for fp16 inputs, C float or fp16. */
#include "gpuh_kernels.cuh"

#if GPUH_IMPL_TC
GPUH_IMPL_PART_F16()
#endif
