/* Stand-in for CUDA's <cuda_runtime.h> on gpuh's CPU simulator: the runtime, from gpuh_sim.h. */
#include "gpuh_sim.h"
