/* Stand-in for CUDA's <builtin_types.h> on gpuh's CPU simulator: what it declares comes from gpuh_sim.h. */
#include "gpuh_sim.h"
