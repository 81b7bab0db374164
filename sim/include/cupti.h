/* Stand-in for CUDA's <cupti.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: CUPTI is not simulated"
