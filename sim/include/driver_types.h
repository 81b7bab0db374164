/* Stand-in for CUDA's <driver_types.h> on gpuh's CPU simulator: the runtime's types, from gpuh_sim.h. */
#include "gpuh_sim.h"
