/* Stand-in for CUDA's <vector_types.h> on gpuh's CPU simulator: the vector types, from gpuh_sim.h. */
#include "gpuh_sim.h"
