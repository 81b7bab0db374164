/* gpuh/kernels_bf16.cu: one part of gpuh_kernels.cuh's compiled mode (its
   manual, USING IT): the tensor-core gpuh_gemm for bfloat16 inputs, C float or
   bfloat16, with their C entry points. CMake's gpuh::kernels builds every
   gpuh/kernels_*.cu; without CMake, compile them into the program (or one file
   with GPUH_KERNELS_IMPLEMENTATION instead) and define GPUH_KERNELS_LIBRARY in
   its other files. The include path names the folder of gpuh_kernels.cuh, as
   for any file that includes it. */
#include "gpuh_kernels.cuh"

#if GPUH_IMPL_TC
GPUH_IMPL_PART_BF16()
#endif
