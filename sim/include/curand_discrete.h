/* Stand-in for CUDA's <curand_discrete.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: the cuRAND device API is not simulated"
