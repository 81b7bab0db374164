/* Stand-in for CUDA's <cuda_bf16.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: bfloat16 (cuda_bf16.h) is not simulated"
