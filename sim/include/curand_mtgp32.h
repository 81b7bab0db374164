/* Stand-in for CUDA's <curand_mtgp32.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: the cuRAND device API is not simulated"
