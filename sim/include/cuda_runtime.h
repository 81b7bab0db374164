/* Stand-in for CUDA's <cuda_runtime.h> on gpuh's CPU simulator: the runtime
   (gpuh_sim.h) and, in C++, the parts kept in headers of their own here
   (textures, surfaces and arrays; more of the runtime API). gpuh-simcc
   includes it ahead of every source, as nvcc does the real one. */
#ifndef GPUH_SIM_CUDA_RUNTIME_H
#define GPUH_SIM_CUDA_RUNTIME_H
#include "gpuh_sim.h"
#ifdef __cplusplus
#include "gpuh_sim_texture.h"
#include "gpuh_sim_runtime.h"
#include "gpuh_sim_graph.h"
#endif
#endif
