/* Stand-in for CUDA's <cublas_v2.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuBLAS is not simulated"
