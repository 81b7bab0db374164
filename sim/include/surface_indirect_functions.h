/* Stand-in for CUDA's <surface_indirect_functions.h> on gpuh's CPU simulator: it comes with the stand-in <cuda_runtime.h>. */
#include "cuda_runtime.h"
