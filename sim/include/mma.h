/* Stand-in for CUDA's <mma.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: tensor-core wmma (nvcuda::wmma) is not simulated"
