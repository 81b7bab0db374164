/* Stand-in for CUDA's <cudaGL.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: the driver API is not simulated"
