/* gpuh/kernels_memory.cu, a part of the compiled mode (gpuh/instances.cuh):
   vector add and the reductions (float, double and int; dot and norm2 float
   and double), on one device and sharded. */
#include "gpuh_kernels.cuh"

GPUH_IMPL_PART_MEMORY()
