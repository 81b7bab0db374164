/* Stand-in for CUDA's <cusolverRf.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuSOLVER is not simulated"
