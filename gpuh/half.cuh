/* gpuh/half.cuh - part of gpuh_kernels.cuh: the half-precision types
   (__nv_bfloat16, __half) for the tensor-core GEMM. gpuh_kernels.cuh
   includes it where it defines the kernels; a file of the compiled mode
   (GPUH_KERNELS_LIBRARY) that calls the 16-bit gpuh_gemm includes it
   itself, after gpuh_kernels.cuh or before it: it names the right headers
   for the GPU and for the simulator alike. */
#ifndef GPUH_IMPL_HALF_CUH
#define GPUH_IMPL_HALF_CUH

/* The half-precision types: CUDA's headers; on the simulator its stand-ins,
   named by their path beside gpuh_kernels.cuh (sim/include in a checkout,
   gpuh_sim/ in an install), never CUDA's own, which would clash with the
   simulator even where a toolkit is on the default include path. Without
   them (the headers copied alone) this section is left out there.
   GPUH_IMPL_TC: 1 where the tensor-core GEMM is compiled. */
#ifdef GPUH_SIM
#ifdef __has_include
#if __has_include("../sim/include/cuda_bf16.h")
#include "../sim/include/cuda_fp16.h"
#include "../sim/include/cuda_bf16.h"
#elif __has_include("../gpuh_sim/cuda_bf16.h")
#include "../gpuh_sim/cuda_fp16.h"
#include "../gpuh_sim/cuda_bf16.h"
#endif
#endif
#if defined(GPUH_SIM_CUDA_FP16_H) && defined(GPUH_SIM_CUDA_BF16_H)
#define GPUH_IMPL_TC 1
#else
#define GPUH_IMPL_TC 0
#endif
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define GPUH_IMPL_TC 1
#endif

#endif /* GPUH_IMPL_HALF_CUH */
