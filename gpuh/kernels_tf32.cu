/* gpuh/kernels_tf32.cu: one part of gpuh_kernels.cuh's compiled mode (its
   manual, USING IT): gpuh_gemm_tf32, with their C entry points. CMake's
   gpuh::kernels builds every gpuh/kernels_*.cu; without CMake, compile them
   into the program (or one file with GPUH_KERNELS_IMPLEMENTATION instead) and
   define GPUH_KERNELS_LIBRARY in its other files. The include path names the
   folder of gpuh_kernels.cuh, as for any file that includes it. */
#include "gpuh_kernels.cuh"

#if GPUH_IMPL_TC
GPUH_IMPL_PART_TF32()
#endif
