/* Stand-in for CUDA's <sm_20_intrinsics.h> on gpuh's CPU simulator: what it declares comes from gpuh_sim.h. */
#include "gpuh_sim.h"
