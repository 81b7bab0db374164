/* Stand-in for CUDA's <cuda_pipeline_helpers.h>: the primitives are in <cuda_pipeline_primitives.h>. */
#include "cuda_pipeline_primitives.h"
