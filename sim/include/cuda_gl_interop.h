/* Stand-in for CUDA's <cuda_gl_interop.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: OpenGL interop is not simulated"
