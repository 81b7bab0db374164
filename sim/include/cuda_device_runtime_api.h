/* Stand-in for CUDA's <cuda_device_runtime_api.h> on gpuh's CPU simulator: what it declares comes from gpuh_sim.h. */
#include "gpuh_sim.h"
