/* Stand-in for CUDA's <cufftw.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuFFT is not simulated"
