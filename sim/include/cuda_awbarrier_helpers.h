/* Stand-in for CUDA's <cuda_awbarrier_helpers.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: the arrive/wait barrier (cuda_awbarrier.h) is not simulated"
