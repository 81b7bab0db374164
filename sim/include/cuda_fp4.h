/* Stand-in for CUDA's <cuda_fp4.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: FP4/FP6 types are not simulated"
