/* Stand-in for CUDA's <cufft.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuFFT is not simulated"
