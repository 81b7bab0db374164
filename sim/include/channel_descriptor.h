/* Stand-in for CUDA's <channel_descriptor.h> on gpuh's CPU simulator: it comes with the stand-in <cuda_runtime.h>. */
#include "cuda_runtime.h"
