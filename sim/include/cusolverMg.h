/* Stand-in for CUDA's <cusolverMg.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuSOLVER is not simulated"
