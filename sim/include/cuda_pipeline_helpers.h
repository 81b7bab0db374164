/* Stand-in for CUDA's <cuda_pipeline_helpers.h> on gpuh's CPU simulator, which does not support it. */
#error "gpuh simulator: cuda_pipeline.h (__pipeline_memcpy_async) is not simulated"
