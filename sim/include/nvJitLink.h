/* Stand-in for CUDA's <nvJitLink.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: nvJitLink is not simulated"
