/* gpuh/kernels_tf32.cu, a part of the compiled mode (gpuh/instances.cuh):
   gpuh_gemm_tf32. */
#include "gpuh_kernels.cuh"

#if GPUH_IMPL_TC
GPUH_IMPL_PART_TF32()
#endif
