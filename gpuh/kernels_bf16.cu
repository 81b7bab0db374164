/* gpuh/kernels_bf16.cu, a part of the compiled mode (gpuh/instances.cuh): the
   tensor-core gpuh_gemm for bfloat16 inputs, C float or bfloat16. */
#include "gpuh_kernels.cuh"

#if GPUH_IMPL_TC
GPUH_IMPL_PART_BF16()
#endif
