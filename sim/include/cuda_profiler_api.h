/* Stand-in for CUDA's <cuda_profiler_api.h> on gpuh's CPU simulator: there is
   no profiler to start or stop, so both calls succeed and do nothing. */
#ifndef GPUH_SIM_CUDA_PROFILER_API_H
#define GPUH_SIM_CUDA_PROFILER_API_H
#include "gpuh_sim.h"
static inline cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
static inline cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
#endif
