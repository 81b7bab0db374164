/* Stand-in for CUDA's <cusparse.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuSPARSE is not simulated"
