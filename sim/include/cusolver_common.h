/* Stand-in for CUDA's <cusolver_common.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuSOLVER is not simulated"
