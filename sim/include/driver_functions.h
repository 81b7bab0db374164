/* Stand-in for CUDA's <driver_functions.h> on gpuh's CPU simulator: what it declares comes from gpuh_sim.h. */
#include "gpuh_sim.h"
