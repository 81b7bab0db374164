/* Stand-in for CUDA's <sm_32_intrinsics.h> on gpuh's CPU simulator: what it declares comes from gpuh_sim.h. */
#include "gpuh_sim.h"
