/* Stand-in for CUDA's <cudaVDPAU.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: the driver API is not simulated"
