/* Stand-in for CUDA's <nccl.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: NCCL is not simulated"
