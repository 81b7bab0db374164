/* Stand-in for CUDA's <nvrtc.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: NVRTC (runtime compilation) is not simulated"
