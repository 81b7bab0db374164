/* Stand-in for CUDA's <device_launch_parameters.h> on gpuh's CPU simulator: threadIdx and the other built-in variables, from gpuh_sim.h. */
#include "gpuh_sim.h"
