/* Stand-in for CUDA's <cuda_egl_interop.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: EGL interop is not simulated"
