/* Stand-in for CUDA's <curand_kernel.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: the cuRAND device API (curand_kernel.h) is not simulated"
