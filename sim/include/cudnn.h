/* Stand-in for CUDA's <cudnn.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuDNN is not simulated"
