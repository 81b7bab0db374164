/* Stand-in for CUDA's <cuda_fp16.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: half precision (cuda_fp16.h) is not simulated"
