/* gpuh_sim_nvrtc.h - gpuh_module (GPUH_USE_NVRTC) on gpuh's CPU simulator.

   gpuh.h includes this file instead of its RUN-TIME COMPILATION section when
   GPUH_SIM and GPUH_USE_NVRTC are both defined. The simulator has no
   gpuh_module: a program that asks for it stops here, at compile time, as
   the simulator stops at every feature it does not provide.

   The form it is to take:
   - gpuh.h's section compiled for the simulator too (its argument checks,
     cache key, name lookup and caches need nothing of the GPU's), with this
     file in place of the NVRTC and driver-API calls;
   - gpuh_module_compile writes the source (wrapped in extern "C" when
     desc->extern_c) to a .cu file with one launcher per kernel appended,
         extern "C" cudaError_t gpuh_sim_module_launch_<i>(dim3, dim3, void **, size_t, cudaStream_t)
     calling the simulator's cudaLaunchKernel(kernel, grid, block, args,
     shmem, stream) for kernel <i> (an extern "C" name found in the source,
     or a name expression such as scale<float>), and one giving its
     parameters' sizes ({sizeof(P)...} of the kernel's type); runs
     tools/gpuh-simcc -shared -fPIC on it with the -D, -I and -std options
     (a C++ compiler on PATH at run time; its messages become the error's
     detail, as NVRTC's log does on the GPU), and dlopens the result;
   - the program must export the simulator's runtime (linked with
     -rdynamic, CMake ENABLE_EXPORTS) so that the loaded kernels use the
     program's simulator, its allocations and streams, not a second copy in
     the shared object (which refuses the program's pointers as host
     memory); a launcher reporting the cudaMalloc it sees lets
     gpuh_module_compile refuse a program that does not export it.
   Tried by hand, the launch path works as described. What stops it is the
   compile: each module compiles all of gpuh_sim.h for a few lines of
   kernel, seconds per module, too slow for example 15's three modules in a
   CI test. gpuh-simcc needs a mode that compiles a module against a
   precompiled gpuh_sim.h (or against the program's simulator alone). */
#error "gpuh simulator: gpuh_module (GPUH_USE_NVRTC, kernels compiled from source at run time) is not simulated"
