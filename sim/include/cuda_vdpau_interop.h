/* Stand-in for CUDA's <cuda_vdpau_interop.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: VDPAU interop is not simulated"
