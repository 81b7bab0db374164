/* Stand-in for CUDA's <device_functions.h> on gpuh's CPU simulator: the device intrinsics, from gpuh_sim.h. */
#include "gpuh_sim.h"
