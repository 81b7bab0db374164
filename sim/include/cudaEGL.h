/* Stand-in for CUDA's <cudaEGL.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: the driver API is not simulated"
