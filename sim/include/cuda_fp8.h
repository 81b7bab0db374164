/* Stand-in for CUDA's <cuda_fp8.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: FP8 types (cuda_fp8.h) are not simulated"
