/* Stand-in for CUDA's <cuda.h> on gpuh's CPU simulator. The driver API (cu*
   calls, CUmodule, CUcontext) is not simulated: a program that uses it fails
   to compile at the first such name. The runtime comes from gpuh_sim.h. */
#include "gpuh_sim.h"
