/* Stand-in for CUDA's <curand.h> on gpuh's CPU simulator: the cuRAND host API subset gpuh_sim.h stands in for. */
#include "gpuh_sim.h"
