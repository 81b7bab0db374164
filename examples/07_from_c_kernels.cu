/* 07_from_c_kernels.cu - the one CUDA translation unit of example 07.

   A C compiler can neither compile kernels nor instantiate C++ templates, so
   gpuh_kernels.cuh offers C callers plain extern "C" entry points
   (gpuh_vector_add_f32, gpuh_sum_f64, gpuh_matmul_f32, ...). It declares them
   in every file that includes it, but emits their definitions only where
   GPUH_KERNELS_IMPLEMENTATION is defined (the stb convention): in exactly one
   .cu file of the program, compiled by nvcc. In none, the C program fails to
   link (undefined symbols); in two, each entry point is defined twice.
   07_from_c.c then needs only this object, cudart and (for gpuh_random_*)
   cuRAND at link time. A CMake build that links gpuh::kernels has them
   already, compiled once for the whole project: it defines
   GPUH_KERNELS_LIBRARY, and this file then emits nothing of its own. */
#ifndef GPUH_KERNELS_LIBRARY
#define GPUH_KERNELS_IMPLEMENTATION
#endif
#include "gpuh_kernels.cuh"
