/* gpuh_sim.h - v0.1.0 - gpuh's CPU simulator: run CUDA programs with no GPU.

   MIT licence (see gpuh.h).

   Every kernel runs on the CPU: each CUDA thread on its own small stack (a
   fiber), the blocks of a grid spread over a pool of CPU threads, barriers
   real, warp operations over 32 lanes. The idea is Numba's
   NUMBA_ENABLE_CUDASIM=1: debug kernels where there is no GPU, with checks a
   GPU does not make (see DIAGNOSTICS).

   ============================================================================
   USING IT

       tools/gpuh-simcc prog.cu -o prog                                  (any .cu, <<< >>> too)
       g++ -std=c++11 -DGPUH_SIM -I<gpuh> -x c++ prog.cu -pthread      (gpuh programs)
       cmake: target_link_libraries(app PRIVATE gpuh::sim), sources through gpuh_sim_sources()

   With -DGPUH_SIM, gpuh.h includes this header instead of <cuda_runtime.h>
   and GPUH_LAUNCH runs kernels here. A plain CUDA program
   (kernel<<<grid, block, shmem, stream>>>(args)) goes through
   tools/gpuh-simcc, which rewrites the launches and each
   `extern __shared__ T s[];`, puts the stand-ins for CUDA's headers
   (sim/include: cooperative groups, textures, half precision, cuRAND's
   device API, ...) first on the include path, and runs the C++ compiler.

   C files may include gpuh.h with -DGPUH_SIM too (C99): the runtime is
   declared in C and defined, as weak symbols, in every C++ file that includes
   this header, so a C program needs one such file (its kernels' .cu is one).

   ============================================================================
   CONTENTS (search for the anchor in brackets)

   The public front: what a program touches.
     [SECTION: RUNTIME API]           CUDA's types and the runtime subset (C), several
                                      devices, the NCCL stand-in, memory pools
     [SECTION: DEVICE SURFACE]        qualifiers, vector types, threadIdx & co.,
                                      __syncthreads, warp operations, fences, clocks,
                                      atomics, math and bit intrinsics
     [SECTION: LAUNCHES]              GPUH_SIM_KERNEL_CALL (what <<< >>> becomes),
                                      GPUH_SIM_KERNEL_CALL_EXPR, cudaLaunchKernel,
                                      cudaLaunchCooperativeKernel
     [SECTION: RUNTIME C++ OVERLOADS] typed cudaMalloc, kernels as functions, symbols
   The implementation, in the order a launch reaches it. Its names
   (gpuh_sim_impl::, GPUH_IMPL_SIM_) are private: they may change without notice.
     [SECTION: IMPLEMENTATION]        the handles, then one namespace:
       [SECTION: FIBERS]              the context switch
       [SECTION: STATE AND ERRORS]    configuration read from the environment, errors
       [SECTION: SCHEDULER]           runners and their stacks, one block on one CPU
                                      worker, divergence reports
       [SECTION: HOST THREADS]        the pool of CPU workers, faults, the launch,
                                      the kernel's arguments
       [SECTION: BARRIERS AND WARPS]  __syncthreads, the warp operations, atomics
       [SECTION: MEMORY LEDGER]       allocations, copies' checks
       [SECTION: LAUNCH CHECKS]       launches from kernels, host pointers, symbols,
                                      cooperative launches, coalesced groups,
                                      kernels by address
       [SECTION: SEVERAL DEVICES]  [SECTION: NCCL]  [SECTION: MEMORY POOLS]
       [SECTION: CURAND]
     [SECTION: RUNTIME DEFINITIONS]   the runtime's functions (weak, extern "C"),
                                      the device functions declared in the front

   ============================================================================
   ENVIRONMENT (read once, at the first use; a value out of range is said on
   stderr and the default used)
     GPUH_SIM_THREADS       CPU threads that run blocks (default: all cores; 1 .. 1024; where
                            vm.max_map_count leaves too little room for the thread stacks
                            of large blocks, such launches use fewer, said once)
     GPUH_SIM_STACK_KB      stack of each simulated thread, KiB (default 768, 1536 under
                            ASan: CUDA's 512 KiB of local memory per thread fits; 16 .. 1048576)
     GPUH_SIM_SCHEDULE      forward (default) | reverse | random: the order the threads
                            of a block run between barriers (see DIAGNOSTICS)
     GPUH_SIM_SEED          the random schedule's seed (default: from the clock, printed)
     GPUH_SIM_REPS          at most this many timed runs in gpuh_time_median_ms, no
                            warm-up (unset: no limit)
     GPUH_SIM_DEVICES       devices presented, all alike (default 1; 1 .. 64; anything
                            but a whole number, such as 4x, is refused)
     GPUH_SIM_NCCL_TIMEOUT  seconds a collective waits for the other ranks (default 30)
     GPUH_SIM_DEADLOCK_S    seconds a launch whose blocks spin, with blocks that cannot
                            start, may finish no block before it is failed as a deadlock
                            (default 10; see "blocks that wait for blocks" below)
   No override macro: the simulator is set up at run time. The macros a
   program uses are GPUH_SIM (given to the compiler: gpuh.h picks this header),
   and the launch forms of [SECTION: LAUNCHES].

   ============================================================================
   WHAT IS SIMULATED
     device   __global__/__device__/__host__, __shared__ (static: one copy per
              CPU worker, which runs one block at a time; extern: the launch's
              dynamic buffer), threadIdx/blockIdx/blockDim/gridDim/warpSize,
              __syncthreads (+ _count/_and/_or) as a true barrier, __syncwarp,
              __shfl*_sync, __match_any/__match_all_sync and
              __ballot/__any/__all_sync over the 32 lanes of a warp, atomics
              that are real CPU atomics, __threadfence*, __ldg and the
              cache-hint loads and stores (plain accesses),
              clock64 and clock (cycles at the reported 1 GHz clock rate),
              __nanosleep, assert (a failed one fails the launch with
              cudaErrorAssert), every vector type of CUDA's
              vector_types.h (with make_*, sizes and alignments), every
              intrinsic of the Math API (single, double, integer, type
              casts; half precision in cuda_fp16.h), its named roundings
              (_rn, _rz, _ru, _rd) exact.
     conversions  float to integer as a GPU converts: out of range
              saturates to the type's limit; NaN gives 0 from a float
              into a 32-bit integer, and the type's minimum otherwise (a
              double, or a 64-bit integer), as an H200 converts (x86
              gives 0x80000000 or wraps), in the conversion intrinsics
              (__float2int_rz & co.) and in each explicit cast to an
              integer type that gpuh-simcc sees in device code ((int)x,
              static_cast<unsigned>(x): gpuh_sim_int_convert). An implicit
              one (unsigned u = x;) it cannot see: it gives x86's value.
              Build with -fsanitize=float-cast-overflow to find those:
              UBSan reports each with file, line and value, and the
              simulator adds the kernel, block and thread.
     launches from kernels (dynamic parallelism), with CUDA 12's rules:
              a child grid runs after every block of its parent grid, and
              before the parent's launch is complete; children of one
              grid run in the order they were launched, then its tail
              launches (cudaStreamTailLaunch); cudaStreamFireAndForget,
              streams made in device code (non-blocking, as on a GPU), the
              launching thread's cudaGetLastError; nesting up to 24 deep.
              cudaDeviceSynchronize in a kernel (removed in CUDA 12) is
              refused with a message: the launch fails with
              cudaErrorNotSupported.
     host     the part of the CUDA 13 runtime that gpuh, its examples and
              NVIDIA's samples call: memory (device, managed, pinned: all host
              memory, tracked), copies and sets, streams and events (work runs
              in order when issued; events time it on the host clock; a handle
              destroyed or never made is cudaErrorInvalidResourceHandle),
              device properties (the device is named "gpuh CPU simulator"),
              errors (the last one per host thread, the sticky one for all),
              occupancy, the launch-configuration limits of the GPU; and a
              Philox4x32-10 stand-in for the cuRAND host API gpuh uses.
              Several host threads may call it at once, launches included:
              each launch returns once all its blocks have run.
     stand-ins (sim/include, through gpuh-simcc): cooperative groups (block,
              tiles up to 32, partitions, reduce, grid sync under
              cudaLaunchCooperativeKernel), textures, surfaces and CUDA
              arrays, half precision, FP8 (E4M3, E5M2: cuda_fp8.h),
              complex numbers (cuComplex.h), the
              cuRAND device API (Philox numbers),
              memory pools, CUDA graphs (stream capture, graphs built node by
              node, conditional nodes, graph memory: gpuh_sim_graph.h),
              cuda::barrier, cuda::pipeline and the pipeline primitives
              (<cuda/barrier>, <cuda/pipeline>, <cuda_pipeline.h>).

   DIAGNOSTICS (a GPU gives none of these)
     divergent barrier   threads that wait at __syncthreads() or a warp
                         operation while a thread still running waits at
                         another one: printed with kernel, block and both
                         threads, and the launch fails with
                         cudaErrorLaunchFailure (sticky, as after a GPU fault).
     barrier after exit  threads that exited no longer hold a barrier back,
                         as on a GPU since Volta (PTX: barriers and the .sync
                         warp operations wait for the non-exited threads): a
                         __syncthreads() or warp operation that every thread
                         still running reaches goes on without the exited
                         ones, with a warning naming kernel, block and call
                         (once per kernel and call). A shuffle reading an
                         exited lane gets the reader's own value (undefined
                         on a GPU); a ballot counts exited lanes as 0.
     warp misuse         a shuffle whose width is not a power of two from 1
                         to 32: printed likewise, the launch fails the same way.
     host pointer        a kernel argument that points into no allocation,
                         registration or global of the program: printed with
                         the kernel, the argument's position and the pointer;
                         the launch fails with cudaErrorIllegalAddress.
     segmentation fault  in a kernel: kernel, block and thread printed, with
                         the cause when it is known (the thread's stack
                         overflowed: raise GPUH_SIM_STACK_KB; dynamic shared
                         memory the launch did not ask for); the launch fails
                         with cudaErrorIllegalAddress (sticky) and the
                         process goes on. Under ASan, ASan reports it.
     schedules           GPUH_SIM_SCHEDULE=reverse or random runs a block's
                         threads in another order between barriers: a missing
                         barrier shows up as a wrong result. The lanes of a
                         warp do not meet at warp steps then, so a missing
                         __syncwarp shows too.
     AddressSanitizer,   fiber switches are announced to them, so an
     ThreadSanitizer     out-of-bounds access in a kernel gives a stack trace;
                         the sim then names the kernel, block and thread.

   LIMITS
     Kernels run to completion when launched (streams are in order anyway);
     an error inside a kernel is therefore seen at the launch. Static
     __shared__ variables are `static thread_local`: a block sees what the
     previous block on its CPU worker left there (uninitialised, as on a
     GPU), a constructor would run once per worker, not per block, and ASan
     does not guard their bounds (it does guard the dynamic buffer, which is
     allocated to the byte). `extern __shared__ T s[];` needs gpuh-simcc's
     rewrite (or T *s = (T *)gpuh_sim_dynamic_shared(); by hand); sizeof(s)
     is then a pointer's. gpuh-simcc rewrites .cu files and the headers they
     include from beside them; other headers launch with GPUH_LAUNCH /
     GPUH_SIM_KERNEL_CALL. __syncthreads & co. are macros; min and max are
     templates in the global namespace, as CUDA has them.
     A simulated thread runs until it waits at a barrier, a warp operation,
     __nanosleep or a warp step (gpuh_sim_warp_step, which gpuh-simcc puts
     where lanes of a warp share plain shared memory with no __syncwarp: in
     the default schedule the warp's lanes meet there, as a converged warp's
     do; through a pointer given to another function it sees no access, and
     there a lane runs ahead of its warp): one that spins on a flag another thread of its block sets,
     without sleeping in the loop, hangs (a GPU since Volta would let the
     other thread run).
     blocks that wait for blocks  the pool runs as many blocks at once as it
     has CPU threads; when a launch with blocks still to start finishes none
     for 200 ms, more CPU threads join it, doubling, up to the blocks an H200
     keeps resident (132 SMs by the occupancy of the block's threads and
     dynamic shared memory) and the room for thread stacks, so persistent
     kernels, flags between blocks and hand-written grid barriers finish as on
     a GPU; a block spinning through a volatile pointer or __nanosleep yields
     the CPU now and then. A launch whose blocks spin that way, with blocks
     that cannot start, and that finishes no block for GPUH_SIM_DEADLOCK_S,
     is a deadlock (on a GPU too): said with the kernel, and the launch fails
     with cudaErrorLaunchTimeout (sticky). One that spins on atomics only
     is not detected: it hangs.
     GPUH_LAUNCH takes a single function: name a template kernel's
     arguments (k<float>), as gpuh does (gpuh-simcc also launches template
     kernels with deduced arguments and kernels with default arguments).
     A kernel that changes the floating-point environment (fesetround)
     changes it for the simulated threads that run after it on its CPU
     worker; every launch starts from the default one.
     Not simulated: tiles of more than 32 threads, cuBLAS and other CUDA
     libraries (their stand-in headers stop the build with an #error naming
     them). Graphs and cuda::barrier / cuda::pipeline are simulated through
     the stand-in headers (see "stand-ins" above), not through this header
     alone; a graph's memory is allocated when its node is made and kept
     for the graph's life (sim/include/gpuh_sim_graph.h says how that
     differs from CUDA).
     Fibers switch by hand on x86-64; elsewhere through ucontext (slower).

   IDEAS FROM
     Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM: kernels on the CPU for
     debugging, one host thread per CUDA thread); the schedule switch from the
     cuda4cpu project; one fiber per CUDA thread, switched only at barriers,
     so that a thread keeps its locals across __syncthreads() as on a GPU.
*/
#ifndef GPUH_SIM_H
#define GPUH_SIM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>

/* ===========================================================================
   [SECTION: RUNTIME API]
   The C-compatible part (C99 and C++): CUDA's types and the runtime subset,
   declared as cuda_runtime.h declares them. Semantics are CUDA 13's; each
   definition in [SECTION: RUNTIME DEFINITIONS] notes where the simulator
   differs (work runs when issued, host memory is device memory).
   =========================================================================== */

#define CUDART_VERSION 13000

typedef enum cudaError {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInitializationError = 3,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorInvalidSymbol = 13,
    cudaErrorInvalidDevicePointer = 17,
    cudaErrorInvalidMemcpyDirection = 21,
    cudaErrorInsufficientDriver = 35,
    cudaErrorLaunchMaxDepthExceeded = 65,
    cudaErrorInvalidDeviceFunction = 98,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
    cudaErrorInvalidKernelImage = 200, /* these three: gpuh_module's (sim/include/gpuh_sim_nvrtc.h) */
    cudaErrorNoKernelImageForDevice = 209,
    cudaErrorInvalidSource = 300,
    cudaErrorECCUncorrectable = 214,
    cudaErrorInvalidResourceHandle = 400,
    cudaErrorSymbolNotFound = 500,
    cudaErrorNotReady = 600,
    cudaErrorIllegalAddress = 700,
    cudaErrorLaunchOutOfResources = 701,
    cudaErrorLaunchTimeout = 702,
    cudaErrorPeerAccessAlreadyEnabled = 704,
    cudaErrorPeerAccessNotEnabled = 705,
    cudaErrorAssert = 710,
    cudaErrorHostMemoryAlreadyRegistered = 712,
    cudaErrorHostMemoryNotRegistered = 713,
    cudaErrorHardwareStackError = 714,
    cudaErrorIllegalInstruction = 715,
    cudaErrorMisalignedAddress = 716,
    cudaErrorInvalidAddressSpace = 717,
    cudaErrorInvalidPc = 718,
    cudaErrorLaunchFailure = 719,
    cudaErrorNotSupported = 801,
    cudaErrorUnknown = 999
} cudaError_t;

typedef enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
} cudaMemcpyKind;

enum cudaMemoryType {
    cudaMemoryTypeUnregistered = 0,
    cudaMemoryTypeHost = 1,
    cudaMemoryTypeDevice = 2,
    cudaMemoryTypeManaged = 3
};

enum cudaMemLocationType { cudaMemLocationTypeInvalid = 0, cudaMemLocationTypeDevice = 1, cudaMemLocationTypeHost = 2 };
struct cudaMemLocation {
    enum cudaMemLocationType type;
    int id;
};

/* Hints for managed memory (cudaMemAdvise). */
enum cudaMemoryAdvise {
    cudaMemAdviseSetReadMostly = 1,
    cudaMemAdviseUnsetReadMostly = 2,
    cudaMemAdviseSetPreferredLocation = 3,
    cudaMemAdviseUnsetPreferredLocation = 4,
    cudaMemAdviseSetAccessedBy = 5,
    cudaMemAdviseUnsetAccessedBy = 6
};

enum cudaDeviceAttr {
    cudaDevAttrMaxThreadsPerBlock = 1,
    cudaDevAttrMaxBlockDimX = 2,
    cudaDevAttrMaxBlockDimY = 3,
    cudaDevAttrMaxBlockDimZ = 4,
    cudaDevAttrMaxGridDimX = 5,
    cudaDevAttrMaxGridDimY = 6,
    cudaDevAttrMaxGridDimZ = 7,
    cudaDevAttrMaxSharedMemoryPerBlock = 8,
    cudaDevAttrTotalConstantMemory = 9,
    cudaDevAttrWarpSize = 10,
    cudaDevAttrMaxRegistersPerBlock = 12,
    cudaDevAttrClockRate = 13,
    cudaDevAttrGpuOverlap = 15,
    cudaDevAttrMultiProcessorCount = 16,
    cudaDevAttrKernelExecTimeout = 17,
    cudaDevAttrIntegrated = 18,
    cudaDevAttrCanMapHostMemory = 19,
    cudaDevAttrComputeMode = 20,
    cudaDevAttrConcurrentKernels = 31,
    cudaDevAttrPciBusId = 33,
    cudaDevAttrMemoryClockRate = 36,
    cudaDevAttrGlobalMemoryBusWidth = 37,
    cudaDevAttrL2CacheSize = 38,
    cudaDevAttrMaxThreadsPerMultiProcessor = 39,
    cudaDevAttrAsyncEngineCount = 40,
    cudaDevAttrUnifiedAddressing = 41,
    cudaDevAttrComputePreemptionSupported = 90,
    cudaDevAttrHostNativeAtomicSupported = 86,
    cudaDevAttrCooperativeLaunch = 95,
    cudaDevAttrComputeCapabilityMajor = 75,
    cudaDevAttrComputeCapabilityMinor = 76,
    cudaDevAttrMaxSharedMemoryPerMultiprocessor = 81,
    cudaDevAttrMaxRegistersPerMultiprocessor = 82,
    cudaDevAttrManagedMemory = 83,
    cudaDevAttrPageableMemoryAccess = 88,
    cudaDevAttrConcurrentManagedAccess = 89,
    cudaDevAttrMaxSharedMemoryPerBlockOptin = 97,
    cudaDevAttrHostRegisterSupported = 99,
    cudaDevAttrMaxBlocksPerMultiprocessor = 106,
    cudaDevAttrMemoryPoolsSupported = 115,
    cudaDevAttrTexturePitchAlignment = 51,
    cudaDevAttrStreamPrioritiesSupported = 78,
    cudaDevAttrGlobalL1CacheSupported = 79,
    cudaDevAttrLocalL1CacheSupported = 80,
    cudaDevAttrCanUseHostPointerForRegisteredMem = 91,
    cudaDevAttrDirectManagedMemAccessFromHost = 101,
    cudaDevAttrReservedSharedMemoryPerBlock = 111,
    cudaDevAttrNumaId = 131,
    cudaDevAttrHostNumaId = 134
};

enum cudaFuncAttribute {
    cudaFuncAttributeMaxDynamicSharedMemorySize = 8,
    cudaFuncAttributePreferredSharedMemoryCarveout = 9
};

#define cudaStreamDefault 0x00
#define cudaStreamNonBlocking 0x01
#define cudaEventDefault 0x00
#define cudaEventBlockingSync 0x01
#define cudaEventDisableTiming 0x02
#define cudaEventInterprocess 0x04
#define cudaHostAllocDefault 0x00
#define cudaHostAllocPortable 0x01
#define cudaHostAllocMapped 0x02
#define cudaHostAllocWriteCombined 0x04
#define cudaHostRegisterDefault 0x00
#define cudaHostRegisterPortable 0x01
#define cudaHostRegisterMapped 0x02
#define cudaMemAttachGlobal 0x01
#define cudaMemAttachHost 0x02
#define cudaCpuDeviceId (-1)

typedef struct uint3 {
    unsigned int x, y, z;
} uint3;

/* dim3: a grid or block shape; unset components are 1 (C++). */
struct dim3 {
    unsigned int x, y, z;
#ifdef __cplusplus
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    operator uint3() const
    {
        uint3 t = {x, y, z};
        return t;
    }
#endif
};
typedef struct dim3 dim3;

typedef struct CUstream_st *cudaStream_t;
/* The special stream handles, CUDA's values: the legacy and the per-thread
   default stream (both the default stream here, where work runs in order when
   issued), and two that only device code launches into (dynamic parallelism):
   a tail launch starts once the launching grid and all the work it launched
   are complete; a fire-and-forget launch runs apart from it. */
#define cudaStreamLegacy ((cudaStream_t)0x1)
#define cudaStreamPerThread ((cudaStream_t)0x2)
#define cudaStreamTailLaunch ((cudaStream_t)0x3)
#define cudaStreamFireAndForget ((cudaStream_t)0x4)
typedef struct CUevent_st *cudaEvent_t;
typedef void (*cudaHostFn_t)(void *user_data);

/* A device's 16-byte UUID, as cudaDeviceProp::uuid holds it. */
typedef struct CUuuid_st {
    char bytes[16];
} cudaUUID_t;

/* CUDA 13's fields, in its order (cooperativeMultiDeviceLaunch, removed in
   CUDA 13, kept last for older programs); those the simulator has no value
   for are zero. */
struct cudaDeviceProp {
    char name[256];
    cudaUUID_t uuid;
    char luid[8];
    unsigned int luidDeviceNodeMask;
    size_t totalGlobalMem, sharedMemPerBlock;
    int regsPerBlock, warpSize;
    size_t memPitch;
    int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3];
    size_t totalConstMem;
    int major, minor;
    size_t textureAlignment, texturePitchAlignment;
    int multiProcessorCount, integrated, canMapHostMemory;
    int maxTexture1D, maxTexture1DMipmap, maxTexture2D[2], maxTexture2DMipmap[2], maxTexture2DLinear[3];
    int maxTexture2DGather[2], maxTexture3D[3], maxTexture3DAlt[3], maxTextureCubemap, maxTexture1DLayered[2];
    int maxTexture2DLayered[3], maxTextureCubemapLayered[2];
    int maxSurface1D, maxSurface2D[2], maxSurface3D[3], maxSurface1DLayered[2], maxSurface2DLayered[3];
    int maxSurfaceCubemap, maxSurfaceCubemapLayered[2];
    size_t surfaceAlignment;
    int concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID, tccDriver, asyncEngineCount;
    int unifiedAddressing, memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor;
    int streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported;
    size_t sharedMemPerMultiprocessor;
    int regsPerMultiprocessor, managedMemory, isMultiGpuBoard, multiGpuBoardGroupID, hostNativeAtomicSupported;
    int pageableMemoryAccess, concurrentManagedAccess, computePreemptionSupported;
    int canUseHostPointerForRegisteredMem, cooperativeLaunch;
    size_t sharedMemPerBlockOptin;
    int pageableMemoryAccessUsesHostPageTables, directManagedMemAccessFromHost, maxBlocksPerMultiProcessor;
    int accessPolicyMaxWindowSize;
    size_t reservedSharedMemPerBlock;
    int hostRegisterSupported, sparseCudaArraySupported, hostRegisterReadOnlySupported;
    int timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported;
    unsigned int gpuDirectRDMAFlushWritesOptions;
    int gpuDirectRDMAWritesOrdering;
    unsigned int memoryPoolSupportedHandleTypes;
    int deferredMappingCudaArraySupported, ipcEventSupported, clusterLaunch, unifiedFunctionPointers;
    int deviceNumaConfig, deviceNumaId, mpsEnabled, hostNumaId;
    unsigned int gpuPciDeviceID, gpuPciSubsystemID;
    int hostNumaMultinodeIpcSupported;
    int reserved[56];
    int cooperativeMultiDeviceLaunch;
};

struct cudaPointerAttributes {
    enum cudaMemoryType type;
    int device;
    void *devicePointer, *hostPointer;
};

struct cudaFuncAttributes {
    size_t sharedSizeBytes, constSizeBytes, localSizeBytes;
    int maxThreadsPerBlock, numRegs, ptxVersion, binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes;
    int preferredShmemCarveout;
};

#ifdef __cplusplus
extern "C" {
#endif

/* The simulated CUDA runtime. Semantics are CUDA 13's; notes in the definitions. */
cudaError_t cudaGetLastError(void);
cudaError_t cudaPeekAtLastError(void);
const char *cudaGetErrorName(cudaError_t err);
const char *cudaGetErrorString(cudaError_t err);
cudaError_t cudaGetDeviceCount(int *count);
cudaError_t cudaGetDevice(int *device);
cudaError_t cudaSetDevice(int device);
cudaError_t cudaDeviceSynchronize(void);
cudaError_t cudaDeviceReset(void);
cudaError_t cudaDriverGetVersion(int *version);
cudaError_t cudaRuntimeGetVersion(int *version);
cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device);
cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device);
cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest);
cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes);
cudaError_t cudaMalloc(void **ptr, size_t bytes);
cudaError_t cudaMallocManaged(void **ptr, size_t bytes, unsigned int flags);
cudaError_t cudaMallocHost(void **ptr, size_t bytes);
cudaError_t cudaHostAlloc(void **ptr, size_t bytes, unsigned int flags);
cudaError_t cudaFree(void *ptr);
cudaError_t cudaFreeHost(void *ptr);
cudaError_t cudaMallocAsync(void **ptr, size_t bytes, cudaStream_t stream);
cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream);
cudaError_t cudaHostRegister(void *ptr, size_t bytes, unsigned int flags);
cudaError_t cudaHostUnregister(void *ptr);
cudaError_t cudaHostGetDevicePointer(void **device_ptr, void *host_ptr, unsigned int flags);
cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data);
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *ptr);
cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind);
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                         enum cudaMemcpyKind kind);
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height,
                              enum cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset(void *ptr, int value, size_t bytes);
cudaError_t cudaMemsetAsync(void *ptr, int value, size_t bytes, cudaStream_t stream);
cudaError_t cudaMemPrefetchAsync(const void *ptr, size_t bytes, struct cudaMemLocation location, unsigned int flags,
                                 cudaStream_t stream);
cudaError_t cudaMemAdvise(const void *ptr, size_t bytes, enum cudaMemoryAdvise advice,
                          struct cudaMemLocation location);
cudaError_t cudaStreamCreate(cudaStream_t *stream);
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *stream, unsigned int flags);
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *stream, unsigned int flags, int priority);
cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int *flags);
cudaError_t cudaStreamGetPriority(cudaStream_t stream, int *priority);
cudaError_t cudaStreamDestroy(cudaStream_t stream);
/* Whether work issued to stream is being captured into a graph (the graphs
   themselves are in the stand-in <cuda_runtime.h>, sim/include). */
enum cudaStreamCaptureStatus {
    cudaStreamCaptureStatusNone = 0,
    cudaStreamCaptureStatusActive = 1,
    cudaStreamCaptureStatusInvalidated = 2
};
cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
cudaError_t cudaStreamQuery(cudaStream_t stream);
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags);
cudaError_t cudaEventCreate(cudaEvent_t *event);
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
cudaError_t cudaEventDestroy(cudaEvent_t event);
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
cudaError_t cudaEventSynchronize(cudaEvent_t event);
cudaError_t cudaEventQuery(cudaEvent_t event);
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end);
cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func);
cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value);
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                          size_t dynamic_shmem_bytes);
/* gpuh_time_median_ms calls it: with GPUH_SIM_REPS=<n> in the environment,
   at most n timed runs and no warm-up (the examples time GPU-sized work, and
   a CPU's times say nothing of a GPU's); without it, nothing changes. */
void gpuh_sim_limit_reps(int *warmup, int *reps);
/* Records a kernel's __launch_bounds__ maximum, in threads per block
   (tools/gpuh-simcc emits the calls); returns max_threads, so that the call
   can initialise a static. A later launch of func with more threads per block
   fails with cudaErrorInvalidValue, as on a GPU with CUDA 13. */
int gpuh_sim_register_launch_bounds(const void *func, int max_threads);

/* ---- cuRAND host API stand-in (the part gpuh_random_* uses): Philox4x32-10,
   counter-based, so a seed and an offset give the same numbers in any order. */
typedef enum curandStatus {
    CURAND_STATUS_SUCCESS = 0,
    CURAND_STATUS_NOT_INITIALIZED = 101,
    CURAND_STATUS_ALLOCATION_FAILED = 102,
    CURAND_STATUS_TYPE_ERROR = 103,
    CURAND_STATUS_OUT_OF_RANGE = 104,
    CURAND_STATUS_LENGTH_NOT_MULTIPLE = 105,
    CURAND_STATUS_LAUNCH_FAILURE = 201
} curandStatus_t;
typedef enum curandRngType { CURAND_RNG_PSEUDO_PHILOX4_32_10 = 141 } curandRngType_t;
typedef struct gpuh_sim_curand *curandGenerator_t;
curandStatus_t curandCreateGenerator(curandGenerator_t *gen, curandRngType_t type);
curandStatus_t curandDestroyGenerator(curandGenerator_t gen);
curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t gen, unsigned long long seed);
curandStatus_t curandSetGeneratorOffset(curandGenerator_t gen, unsigned long long offset);
curandStatus_t curandSetStream(curandGenerator_t gen, cudaStream_t stream);
curandStatus_t curandGenerate(curandGenerator_t gen, unsigned int *out, size_t n);
curandStatus_t curandGenerateUniform(curandGenerator_t gen, float *out, size_t n);
curandStatus_t curandGenerateUniformDouble(curandGenerator_t gen, double *out, size_t n);
curandStatus_t curandGenerateNormal(curandGenerator_t gen, float *out, size_t n, float mean, float stddev);
curandStatus_t curandGenerateNormalDouble(curandGenerator_t gen, double *out, size_t n, double mean, double stddev);

#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---------------------------------------------------------------------------
   SEVERAL DEVICES AND THE NCCL STAND-IN
   GPUH_SIM_DEVICES=<n> (1 .. 64, default 1) presents n devices, all alike;
   the current device belongs to the calling host thread, as in CUDA. All
   of them share the host's memory, so every pair can access each other
   (cudaDeviceCanAccessPeer says 1) and a peer copy is a copy. The part of
   NCCL that gpuh calls is here too: communicators from ncclCommInitAll (one
   thread drives every rank, inside ncclGroupStart/End) or ncclCommInitRank
   (one host thread per rank; ranks in other processes are refused with a
   message), and all-reduce, broadcast and all-gather over host memory.
   A collective runs when the last rank has called it: deterministic (an
   all-reduce adds the ranks' values in rank order), and checked: ranks that
   call different collectives, or buffers that are not device memory of the
   simulator, fail with ncclInvalidUsage / ncclInvalidArgument and a message
   in ncclGetLastError; a rank left waiting more than GPUH_SIM_NCCL_TIMEOUT
   seconds (default 30) for the others fails with ncclInvalidUsage instead
   of hanging, and withdraws its call: a rank that makes the same call later
   fails at once, and no buffer of the withdrawn call is touched. An
   argument error inside ncclGroupStart/End (a buffer too small on one
   device) fails the group at ncclGroupEnd with none of its calls run, as
   NCCL does; the next collectives are unaffected. Idea: NCCL's API and semantics (user guide, "Collective
   operations", "Group calls"), run on the CPU as the rest of this file runs
   CUDA. */
#ifdef __cplusplus
extern "C" {
#endif
cudaError_t cudaDeviceCanAccessPeer(int *can_access, int device, int peer_device);
cudaError_t cudaDeviceEnablePeerAccess(int peer_device, unsigned int flags);
cudaError_t cudaDeviceDisablePeerAccess(int peer_device);
cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device, size_t bytes);
cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device, size_t bytes,
                                cudaStream_t stream);

/* ---- NCCL stand-in (nccl.h's names and values) */
#define NCCL_UNIQUE_ID_BYTES 128
typedef struct gpuh_sim_nccl_comm *ncclComm_t;
typedef struct {
    char internal[NCCL_UNIQUE_ID_BYTES];
} ncclUniqueId;
typedef enum {
    ncclSuccess = 0,
    ncclUnhandledCudaError = 1,
    ncclSystemError = 2,
    ncclInternalError = 3,
    ncclInvalidArgument = 4,
    ncclInvalidUsage = 5,
    ncclRemoteError = 6,
    ncclInProgress = 7
} ncclResult_t;
typedef enum {
    ncclInt8 = 0, ncclChar = 0, ncclUint8 = 1, ncclInt32 = 2, ncclInt = 2, ncclUint32 = 3, ncclInt64 = 4,
    ncclUint64 = 5, ncclFloat16 = 6, ncclHalf = 6, ncclFloat32 = 7, ncclFloat = 7, ncclFloat64 = 8, ncclDouble = 8
} ncclDataType_t;
typedef enum { ncclSum = 0, ncclProd = 1, ncclMax = 2, ncclMin = 3, ncclAvg = 4 } ncclRedOp_t;
ncclResult_t ncclGetVersion(int *version);
ncclResult_t ncclGetUniqueId(ncclUniqueId *id);
ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclCommCount(const ncclComm_t comm, int *count);
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device);
ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank);
const char *ncclGetErrorString(ncclResult_t result);
const char *ncclGetLastError(ncclComm_t comm);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type, int root,
                           ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclAllGather(const void *send, void *recv, size_t send_count, ncclDataType_t type, ncclComm_t comm,
                           cudaStream_t stream);
#ifdef __cplusplus
} /* extern "C" */
#endif

/* ---------------------------------------------------------------------------
   MEMORY POOLS (CUDA's stream-ordered allocator)
   cudaMemPoolCreate / Destroy, cudaMallocFromPoolAsync, cudaFreeAsync on a
   pool's memory, cudaMemPoolTrimTo and the pool attributes gpuh uses (the
   release threshold; reserved and used memory, current and high), with
   the runtime's names and values. A pool holds blocks of simulated device
   memory: an allocation is rounded up to GPUH_IMPL_SIM_POOL_ALIGN bytes and
   reuses a freed block of exactly that size, else takes a new one; a block
   stays reserved when freed. Work runs when issued, so a free has happened
   when cudaFreeAsync returns: blocks above the release threshold go back at
   once (a GPU waits for the next synchronisation), and cudaMemPoolTrimTo
   needs no synchronisation first. Better than a GPU at two things: a pool
   block freed twice, and a pool handle destroyed (through a copy of it) or
   never made, fail with cudaErrorInvalidValue. Not simulated: the
   device's default pool (cudaMallocAsync takes plain device memory), pool
   access from other devices, IPC export, graphs.
   Idea: the CUDA runtime's memory-pool API (Programming Guide, "Stream
   Ordered Memory Allocator"). */
#ifdef __cplusplus
extern "C" {
#endif
typedef struct CUmemPoolHandle_st *cudaMemPool_t;
enum cudaMemPoolAttr {
    cudaMemPoolReuseFollowEventDependencies = 0x1,
    cudaMemPoolReuseAllowOpportunistic = 0x2,
    cudaMemPoolReuseAllowInternalDependencies = 0x3,
    cudaMemPoolAttrReleaseThreshold = 0x4,
    cudaMemPoolAttrReservedMemCurrent = 0x5,
    cudaMemPoolAttrReservedMemHigh = 0x6,
    cudaMemPoolAttrUsedMemCurrent = 0x7,
    cudaMemPoolAttrUsedMemHigh = 0x8
};
enum cudaMemAllocationType { cudaMemAllocationTypeInvalid = 0x0, cudaMemAllocationTypePinned = 0x1 };
enum cudaMemAllocationHandleType { cudaMemHandleTypeNone = 0x0 };
struct cudaMemPoolProps {
    enum cudaMemAllocationType allocType;
    enum cudaMemAllocationHandleType handleTypes;
    struct cudaMemLocation location;
    void *win32SecurityAttributes;
    size_t maxSize;
    unsigned short usage;
    unsigned char reserved[54];
};
cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props);
cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool);
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t bytes, cudaMemPool_t pool, cudaStream_t stream);
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep);
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value);
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value);
#ifdef __cplusplus
} /* extern "C" */
#endif

/* The include guards of cuda_runtime.h and driver_types.h: programs test them
   to know the runtime is there (the samples' helper_cuda.h defines
   checkCudaErrors and findCudaDevice only then). */
#ifndef __CUDA_RUNTIME_H__
#define __CUDA_RUNTIME_H__
#endif
#ifndef __DRIVER_TYPES_H__
#define __DRIVER_TYPES_H__
#endif
enum cudaComputeMode {
    cudaComputeModeDefault = 0,
    cudaComputeModeExclusive = 1,
    cudaComputeModeProhibited = 2,
    cudaComputeModeExclusiveProcess = 3
};
#ifdef __cplusplus
#include <algorithm>
#include <atomic>
#include <functional>
#include <tuple>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <thread>
#include <type_traits>
#include <limits>
#include <vector>
#include <set>
#include <system_error>
#include <fenv.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>
#include <deque>
#include <string>

#if defined(__SANITIZE_ADDRESS__)
#define GPUH_IMPL_SIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GPUH_IMPL_SIM_ASAN 1
#endif
#endif
#ifdef GPUH_IMPL_SIM_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
/* ThreadSanitizer: fiber switches are announced to it too, each switch
   ordering the fibers' accesses (they run on one CPU thread, one at a time). */
#if defined(__SANITIZE_THREAD__)
#define GPUH_IMPL_SIM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define GPUH_IMPL_SIM_TSAN 1
#endif
#endif
#ifdef GPUH_IMPL_SIM_TSAN
#include <sanitizer/tsan_interface.h>
#endif
#if defined(__x86_64__)
#include <link.h>
#else
#include <ucontext.h>
#endif

/* ===========================================================================
   [SECTION: DEVICE SURFACE]
   What a kernel sees: qualifiers, vector types, the built-in variables,
   barriers and warp operations, fences, clocks, atomics and intrinsics.
   =========================================================================== */

/* ---- Device-side qualifiers: plain C++ on the CPU. */
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n))) /* GNU form: allowed among decl-specifiers */
/* Each CPU worker runs one block at a time, so a thread_local is one block's shared memory. */
#define __shared__ static thread_local

/* Vector types: every one of CUDA's vector_types.h, with its make_*
   function, size and alignment (2 and 4 components aligned to their size,
   as CUDA's __builtin_align__ does; 1 and 3 to their component; CUDA 13's
   4-wide 64-bit types also as _16a and _32a, aligned to 16 and 32 bytes).
   uint3 is in the C part above, with dim3. */
#define GPUH_IMPL_SIM_VEC1(V, T)                                                                                       \
    struct V##1 { T x; };                                                                                              \
    inline V##1 make_##V##1(T x) { V##1 v = {x}; return v; }
#define GPUH_IMPL_SIM_VEC2(V, T)                                                                                       \
    struct alignas(2 * sizeof(T)) V##2 { T x, y; };                                                                    \
    inline V##2 make_##V##2(T x, T y) { V##2 v = {x, y}; return v; }
#define GPUH_IMPL_SIM_VEC3_TYPE(V, T) struct V##3 { T x, y, z; };
#define GPUH_IMPL_SIM_VEC3_MAKE(V, T) inline V##3 make_##V##3(T x, T y, T z) { V##3 v = {x, y, z}; return v; }
#define GPUH_IMPL_SIM_VEC4_AS(name, T, align)                                                                          \
    struct alignas(align) name { T x, y, z, w; };                                                                      \
    inline name make_##name(T x, T y, T z, T w) { name v = {x, y, z, w}; return v; }
#define GPUH_IMPL_SIM_VEC(V, T)                                                                                        \
    GPUH_IMPL_SIM_VEC1(V, T) GPUH_IMPL_SIM_VEC2(V, T) GPUH_IMPL_SIM_VEC3_TYPE(V, T) GPUH_IMPL_SIM_VEC3_MAKE(V, T)      \
    GPUH_IMPL_SIM_VEC4_AS(V##4, T, 4 * sizeof(T) < 16 ? 4 * sizeof(T) : 16)
#define GPUH_IMPL_SIM_VEC_WIDE(V, T)                                                                                   \
    GPUH_IMPL_SIM_VEC(V, T) GPUH_IMPL_SIM_VEC4_AS(V##4_16a, T, 16) GPUH_IMPL_SIM_VEC4_AS(V##4_32a, T, 32)
GPUH_IMPL_SIM_VEC(char, signed char)
GPUH_IMPL_SIM_VEC(uchar, unsigned char)
GPUH_IMPL_SIM_VEC(short, short)
GPUH_IMPL_SIM_VEC(ushort, unsigned short)
GPUH_IMPL_SIM_VEC(int, int)
GPUH_IMPL_SIM_VEC1(uint, unsigned int)
GPUH_IMPL_SIM_VEC2(uint, unsigned int)
GPUH_IMPL_SIM_VEC3_MAKE(uint, unsigned int)
GPUH_IMPL_SIM_VEC4_AS(uint4, unsigned int, 16)
GPUH_IMPL_SIM_VEC(float, float)
GPUH_IMPL_SIM_VEC_WIDE(long, long)
GPUH_IMPL_SIM_VEC_WIDE(ulong, unsigned long)
GPUH_IMPL_SIM_VEC_WIDE(longlong, long long)
GPUH_IMPL_SIM_VEC_WIDE(ulonglong, unsigned long long)
GPUH_IMPL_SIM_VEC_WIDE(double, double)

/* ---- Built-in variables, per simulated thread. Variables, not macros, as
   in CUDA (host code may name a local blockDim): each CPU worker's copy
   (thread_local), which the scheduler writes as it switches simulated
   threads (set_thread), blocks (run_block) and launches (run_blocks). Weak
   definitions, so that every translation unit that includes this header
   names the same objects. Objects with constant initial values, not
   references to the scheduler's state: reading a thread_local reference goes
   through a call that initialises it at a thread's first use, which also
   keeps the compiler from taking blockDim.x * gridDim.x out of a
   grid-stride loop (a load and a call per element). */
__attribute__((weak)) thread_local uint3 threadIdx;
__attribute__((weak)) thread_local uint3 blockIdx;
__attribute__((weak)) thread_local dim3 blockDim;
__attribute__((weak)) thread_local dim3 gridDim;

/* The simulator's side of the built-in variables (the rest of what a
   simulated thread sees), and the helpers the inline functions of this
   front call; all defined in [SECTION: IMPLEMENTATION]. */
namespace gpuh_sim_impl {
struct worker;
struct nccl_clique;
/* What a simulated thread sees besides threadIdx & co. */
struct thread_view {
    int lin; /* the thread's linear index in its block */
    worker *w;
    unsigned char *dynamic_shared;
};
template <int N> struct thread_state_holder {
    static thread_local thread_view v;
};
template <int N> thread_local thread_view thread_state_holder<N>::v;
inline thread_view &thread_state() { return thread_state_holder<0>::v; }
/* The running block's shared memory, for block_private: plain data, so
   that reading it is a load (thread_view's constructor would put a call to
   its thread-local initialiser before each one). All 0 outside a kernel. */
struct shared_range {
    uintptr_t dynamic_lo;
    size_t dynamic_bytes, tls_span;
};
template <int N> struct shared_range_holder {
    static thread_local shared_range r;
};
template <int N> thread_local shared_range shared_range_holder<N>::r;
inline size_t program_tls_span();
template <class T> inline uint64_t to_bits(T v);
template <class T> inline T from_bits(uint64_t u);
template <class T, class F> inline T atomic_update(T *addr, F f);
template <class T, class F> inline T atomic_cas_loop(T *addr, F f);
template <class T> inline T atomic_add(T *addr, T v);
template <class T> inline T atomic_sub(T *addr, T v);
template <class F> const void *key_of(F f);
template <class F> inline cudaError_t potential_block(int *min_grid, int *block, int limit, F blocks_at);
inline cudaError_t symbol_copy(char *sym, size_t size, size_t offset, void *other, size_t bytes,
                               enum cudaMemcpyKind kind, bool to_symbol);
inline cudaError_t symbol_check(char *sym, size_t size, size_t offset, void *other, size_t bytes,
                                enum cudaMemcpyKind kind, bool to_symbol);
inline void register_symbol(const void *sym, size_t size);
template <class... P> inline int register_kernel(void (*kernel)(P...));
inline cudaError_t launch_erased(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                                 cudaStream_t stream, bool cooperative);
} /* namespace gpuh_sim_impl */

static const int warpSize = 32;

/* ---- Barriers and warp-level primitives (the macros capture the call site). */
#define __syncthreads() ((void)gpuh_sim_impl::sync_block("__syncthreads", __FILE__, __LINE__, 0))
#define __syncthreads_count(p) gpuh_sim_impl::sync_block("__syncthreads_count", __FILE__, __LINE__, (p) != 0)
#define __syncthreads_and(p) \
    (gpuh_sim_impl::sync_block("__syncthreads_and", __FILE__, __LINE__, (p) != 0) == gpuh_sim_impl::thread_state().w->block->n)
#define __syncthreads_or(p) (gpuh_sim_impl::sync_block("__syncthreads_or", __FILE__, __LINE__, (p) != 0) != 0)
#define __syncwarp(...) gpuh_sim_impl::syncwarp_at(__FILE__, __LINE__)(__VA_ARGS__)
#define __shfl_sync(...) gpuh_sim_impl::shfl("__shfl_sync", gpuh_sim_impl::W_SHFL, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_up_sync(...) gpuh_sim_impl::shfl("__shfl_up_sync", gpuh_sim_impl::W_UP, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_down_sync(...) \
    gpuh_sim_impl::shfl("__shfl_down_sync", gpuh_sim_impl::W_DOWN, __FILE__, __LINE__, __VA_ARGS__)
#define __shfl_xor_sync(...) \
    gpuh_sim_impl::shfl("__shfl_xor_sync", gpuh_sim_impl::W_XOR, __FILE__, __LINE__, __VA_ARGS__)
#define __ballot_sync(mask, p) \
    static_cast<unsigned>(gpuh_sim_impl::warp_op(gpuh_sim_impl::W_BALLOT, "__ballot_sync", __FILE__, __LINE__, (mask), (p) != 0, 0, 32))
#define __any_sync(mask, p) \
    static_cast<int>(gpuh_sim_impl::warp_op(gpuh_sim_impl::W_ANY, "__any_sync", __FILE__, __LINE__, (mask), (p) != 0, 0, 32))
#define __all_sync(mask, p) \
    static_cast<int>(gpuh_sim_impl::warp_op(gpuh_sim_impl::W_ALL, "__all_sync", __FILE__, __LINE__, (mask), (p) != 0, 0, 32))
/* Lanes of this thread's warp that have not exited. */
inline unsigned __activemask();
/* ---- volatile pointers in device code. gpuh-simcc rewrites `volatile T *`
   in the signatures and bodies of __global__ and __device__ functions to
   gpuh_sim_volatile_ptr<T>, through which every read and write ends the
   thread's turn: the threads of a block then take their volatile accesses
   in rounds, one access each, as the lanes of a converged warp execute an
   instruction together. Warp-synchronous code from before Volta (a
   shared-memory reduction's last 32 sums through a volatile pointer with no
   __syncwarp, Harris, "Optimizing Parallel Reduction in CUDA") computes here
   what it computes on a GPU that keeps the warp converged, not one lane's
   whole sequence before the next lane's first read; a spin on a volatile
   flag lets the other threads run. */
namespace gpuh_sim_impl {
inline void volatile_turn();
}
/* gpuh_sim_warp_step(): where gpuh-simcc finds a read of shared memory after
   a write to it in device code with no barrier between (or a loop that reads
   and writes it with none in its body), it puts this call first, so that
   warp-synchronous code that shares data through plain shared memory with
   no __syncwarp (NVIDIA's older samples transpose 8x8 blocks that way) reads
   what the other lanes wrote, as the lanes of a converged warp do on a GPU.
   The thread waits until every other lane of its warp has reached a step, a
   barrier or a warp operation, or exited; then the warp's lanes go on in
   order. No lane outside the warp is waited for, so a __syncthreads missing
   between warps still shows. Under GPUH_SIM_SCHEDULE=reverse and random it
   does nothing: a missing __syncwarp shows then too. Outside a kernel it
   does nothing. */
inline void gpuh_sim_warp_step();
template <class T> struct gpuh_sim_volatile_ptr;
template <class T> struct gpuh_sim_volatile_ref {
    volatile T *p;
    explicit gpuh_sim_volatile_ref(volatile T *q) : p(q) {}
    gpuh_sim_volatile_ref(const gpuh_sim_volatile_ref &) = default;
    operator T() const
    {
        gpuh_sim_impl::volatile_turn();
        return *p;
    }
    const gpuh_sim_volatile_ref &operator=(const T &v) const
    {
        gpuh_sim_impl::volatile_turn();
        *p = v;
        return *this;
    }
    const gpuh_sim_volatile_ref &operator=(const gpuh_sim_volatile_ref &o) const { return *this = static_cast<T>(o); }
#define GPUH_IMPL_SIM_VOLATILE_OP(op)                                                                                  \
    template <class U> const gpuh_sim_volatile_ref &operator op##=(const U &v) const                                   \
    {                                                                                                                  \
        return *this = static_cast<T>(static_cast<T>(*this) op v);                                                     \
    }
    GPUH_IMPL_SIM_VOLATILE_OP(+)
    GPUH_IMPL_SIM_VOLATILE_OP(-)
    GPUH_IMPL_SIM_VOLATILE_OP(*)
    GPUH_IMPL_SIM_VOLATILE_OP(/)
    GPUH_IMPL_SIM_VOLATILE_OP(%)
    GPUH_IMPL_SIM_VOLATILE_OP(&)
    GPUH_IMPL_SIM_VOLATILE_OP(|)
    GPUH_IMPL_SIM_VOLATILE_OP(^)
    GPUH_IMPL_SIM_VOLATILE_OP(<<)
    GPUH_IMPL_SIM_VOLATILE_OP(>>)
#undef GPUH_IMPL_SIM_VOLATILE_OP
    const gpuh_sim_volatile_ref &operator++() const { return *this += 1; }
    const gpuh_sim_volatile_ref &operator--() const { return *this -= 1; }
    T operator++(int) const
    {
        const T old = *this;
        *this = static_cast<T>(old + 1);
        return old;
    }
    T operator--(int) const
    {
        const T old = *this;
        *this = static_cast<T>(old - 1);
        return old;
    }
    gpuh_sim_volatile_ptr<T> operator&() const { return gpuh_sim_volatile_ptr<T>(p); }
};
/* What an access through gpuh_sim_volatile_ptr<T> gives: the turn-taking
   reference for a scalar T; for a struct (volatile float2 *: a member read
   or written), the plain volatile reference, as before the rewrite. */
template <class T, bool = std::is_scalar<T>::value> struct gpuh_impl_sim_volatile_access {
    typedef gpuh_sim_volatile_ref<T> type;
    static type at(volatile T *p) { return type(p); }
};
template <class T> struct gpuh_impl_sim_volatile_access<T, false> {
    typedef volatile T &type;
    static type at(volatile T *p) { return *p; }
};
template <class T> struct gpuh_sim_volatile_ptr {
    volatile T *p;
    gpuh_sim_volatile_ptr() : p(NULL) {}
    gpuh_sim_volatile_ptr(volatile T *q) : p(q) {}
    gpuh_sim_volatile_ptr(std::nullptr_t) : p(NULL) {}
    template <class U> explicit gpuh_sim_volatile_ptr(U *q) : p((volatile T *)q) {} /* (volatile T *)other */
    template <class U>
    explicit gpuh_sim_volatile_ptr(const gpuh_sim_volatile_ptr<U> &q) : p((volatile T *)q.p) {} /* another's */
    /* The casts nvcc takes on a volatile pointer: (int *)p, (const char *)p,
       (void *)p, and to an integer, (uintptr_t)p; a bool tests it. */
    template <class U> explicit operator U *() const { return (U *)p; }
    template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type> explicit operator I() const
    {
        return (I)(uintptr_t)p;
    }
    template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
    typename gpuh_impl_sim_volatile_access<T>::type operator[](I i) const
    {
        return gpuh_impl_sim_volatile_access<T>::at(p + i);
    }
    typename gpuh_impl_sim_volatile_access<T>::type operator*() const { return gpuh_impl_sim_volatile_access<T>::at(p); }
    volatile T *operator->() const { return p; }
    operator volatile T *() const { return p; }
    template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
    gpuh_sim_volatile_ptr operator+(I i) const { return gpuh_sim_volatile_ptr(p + i); }
    template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
    gpuh_sim_volatile_ptr operator-(I i) const { return gpuh_sim_volatile_ptr(p - i); }
    std::ptrdiff_t operator-(const gpuh_sim_volatile_ptr &o) const { return p - o.p; }
    template <class I> gpuh_sim_volatile_ptr &operator+=(I i) { p += i; return *this; }
    template <class I> gpuh_sim_volatile_ptr &operator-=(I i) { p -= i; return *this; }
    gpuh_sim_volatile_ptr &operator++() { ++p; return *this; }
    gpuh_sim_volatile_ptr &operator--() { --p; return *this; }
    gpuh_sim_volatile_ptr operator++(int) { gpuh_sim_volatile_ptr old = *this; ++p; return old; }
    gpuh_sim_volatile_ptr operator--(int) { gpuh_sim_volatile_ptr old = *this; --p; return old; }
};
/* ---- Memory fences, read-only loads, clocks. */
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_system() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <class T> inline T __ldg(const T *p) { return *p; }
/* Lets the block's other threads run (a simulated thread is never preempted):
   a spin-wait on another thread of the block must sleep in its loop. */
inline void __nanosleep(unsigned ns);
/* The SM clock, in cycles at the rate cudaDevAttrClockRate reports (1 GHz):
   a kernel that waits N cycles waits about N / rate seconds, as on a GPU.
   clock() in a kernel reads the same clock; on the host it stays the C
   library's processor time ([SECTION: RUNTIME DEFINITIONS]). */
inline long long clock64();
/* ---- Atomics on int, unsigned, unsigned long long, long long, float, double:
   one overload per type, as CUDA declares them (so atomicAdd(float *, 1) converts). */
#define GPUH_IMPL_SIM_ATOMICS(T)                                                                                    \
    inline T atomicAdd(T *a, T v) { return gpuh_sim_impl::atomic_add(a, v); }                                       \
    inline T atomicSub(T *a, T v) { return gpuh_sim_impl::atomic_sub(a, v); }                                       \
    inline T atomicMin(T *a, T v) { return gpuh_sim_impl::atomic_update(a, [v](T o) { return v < o ? v : o; }); }   \
    inline T atomicMax(T *a, T v) { return gpuh_sim_impl::atomic_update(a, [v](T o) { return v > o ? v : o; }); }   \
    inline T atomicExch(T *a, T v) { return gpuh_sim_impl::atomic_update(a, [v](T) { return v; }); }                \
    inline T atomicCAS(T *a, T c, T v)                                                                              \
    {                                                                                                               \
        return gpuh_sim_impl::atomic_update(a, [c, v](T o) { return o == c ? v : o; });                             \
    }
GPUH_IMPL_SIM_ATOMICS(int)
GPUH_IMPL_SIM_ATOMICS(unsigned int)
GPUH_IMPL_SIM_ATOMICS(unsigned long long)
GPUH_IMPL_SIM_ATOMICS(long long)
GPUH_IMPL_SIM_ATOMICS(float)
GPUH_IMPL_SIM_ATOMICS(double)
#undef GPUH_IMPL_SIM_ATOMICS
inline unsigned atomicInc(unsigned *a, unsigned limit)
{
    return gpuh_sim_impl::atomic_update(a, [limit](unsigned o) { return o >= limit ? 0u : o + 1u; });
}
inline unsigned atomicDec(unsigned *a, unsigned limit)
{
    return gpuh_sim_impl::atomic_update(a, [limit](unsigned o) { return o == 0 || o > limit ? limit : o - 1u; });
}
/* The operand converts to the pointee's type, as with CUDA's overloads (atomicAnd(int *, unsigned) is one). */
template <class T, class U> inline T atomicAnd(T *a, U v) { return __atomic_fetch_and(a, static_cast<T>(v), __ATOMIC_SEQ_CST); }
template <class T, class U> inline T atomicOr(T *a, U v) { return __atomic_fetch_or(a, static_cast<T>(v), __ATOMIC_SEQ_CST); }
template <class T, class U> inline T atomicXor(T *a, U v) { return __atomic_fetch_xor(a, static_cast<T>(v), __ATOMIC_SEQ_CST); }

/* ---- Math, conversion and bit intrinsics: every intrinsic of the CUDA Math
   API's single, double and type-cast sections (half precision: cuda_fp16.h).
   The fast approximate forms (__expf, __sinf, ...) compute the accurate
   function: a result is within the GPU's stated error of them. A rounding
   suffix is honoured: _rn to nearest even, _rz toward zero, _ru up, _rd down
   (the operation runs under that rounding mode of the CPU). */
namespace gpuh_sim_impl {
/* The CPU's rounding mode set to `mode` (FE_*) for the scope's life. */
struct rounding_scope {
    int old;
    explicit rounding_scope(int mode) : old(fegetround()) { fesetround(mode); }
    ~rounding_scope() { fesetround(old); }
};
/* An empty asm that says it may change x in memory: an operation on x
   cannot be computed before it, nor its result after a later pin. This keeps
   the operation inside the rounding scope, which the compiler does not know
   of (it assumes the default mode and may fold or move floating point). */
inline void pin() {}
template <class T, class... R> inline void pin(T &x, R &...rest)
{
    asm volatile("" : "+m"(x));
    pin(rest...);
}
/* An integral-valued v, converted from the floating type F, as the integer
   type I, as a GPU's cvt does: out of range saturates to I's limits. NaN
   gives 0 from a float into a 32-bit integer and I's minimum otherwise
   (INT_MIN from a double, LLONG_MIN into long long; 0 for unsigned types):
   what an H200 returned for (int)NaNf, (long long)NaNf and
   __double2int_rz(NaN) (tests/test_sim.cu, test_sim_surface.cu). */
template <class I, class F> inline I saturate_to(double v)
{
    if (v != v)
        return sizeof(F) == 4 && sizeof(I) == 4 ? I(0) : std::numeric_limits<I>::min();
    if (v <= static_cast<double>(std::numeric_limits<I>::min()))
        return std::numeric_limits<I>::min();
    if (v >= ldexp(1.0, std::numeric_limits<I>::digits)) /* max + 1, exactly */
        return std::numeric_limits<I>::max();
    return static_cast<I>(v);
}
} /* namespace gpuh_sim_impl */
/* Arithmetic in a named rounding: GPUH_IMPL_SIM_ROUNDINGS(name, T, params,
   names, expr) makes name_rn, _rz, _ru and _rd from one expression. */
#define GPUH_IMPL_SIM_ROUNDED(name, T, params, names, mode, expr)                                                      \
    inline T name params                                                                                               \
    {                                                                                                                  \
        gpuh_sim_impl::rounding_scope in_mode(mode);                                                                   \
        gpuh_sim_impl::pin names;                                                                                      \
        T r = expr;                                                                                                    \
        gpuh_sim_impl::pin(r);                                                                                         \
        return r;                                                                                                      \
    }
#define GPUH_IMPL_SIM_ROUNDINGS(name, T, params, names, expr)                                                          \
    GPUH_IMPL_SIM_ROUNDED(name##_rn, T, params, names, FE_TONEAREST, expr)                                             \
    GPUH_IMPL_SIM_ROUNDED(name##_rz, T, params, names, FE_TOWARDZERO, expr)                                            \
    GPUH_IMPL_SIM_ROUNDED(name##_ru, T, params, names, FE_UPWARD, expr)                                                \
    GPUH_IMPL_SIM_ROUNDED(name##_rd, T, params, names, FE_DOWNWARD, expr)
/* One type's arithmetic: the names of its add, sub, mul, div, rcp, sqrt and
   fma intrinsics, then the type and its C library's sqrt and fma. */
#define GPUH_IMPL_SIM_ROUNDED_ARITH(add, sub, mul, div, rcp, sqrt_name, fma_name, T, sqrt_fn, fma_fn)                  \
    GPUH_IMPL_SIM_ROUNDINGS(add, T, (T a, T b), (a, b), a + b)                                                         \
    GPUH_IMPL_SIM_ROUNDINGS(sub, T, (T a, T b), (a, b), a - b)                                                         \
    GPUH_IMPL_SIM_ROUNDINGS(mul, T, (T a, T b), (a, b), a * b)                                                         \
    GPUH_IMPL_SIM_ROUNDINGS(div, T, (T a, T b), (a, b), a / b)                                                         \
    GPUH_IMPL_SIM_ROUNDINGS(rcp, T, (T a), (a), T(1) / a)                                                              \
    GPUH_IMPL_SIM_ROUNDINGS(sqrt_name, T, (T a), (a), sqrt_fn(a))                                                      \
    GPUH_IMPL_SIM_ROUNDINGS(fma_name, T, (T a, T b, T c), (a, b, c), fma_fn(a, b, c))
GPUH_IMPL_SIM_ROUNDED_ARITH(__fadd, __fsub, __fmul, __fdiv, __frcp, __fsqrt, __fmaf, float, sqrtf, fmaf)
GPUH_IMPL_SIM_ROUNDED_ARITH(__dadd, __dsub, __dmul, __ddiv, __drcp, __dsqrt, __fma, double, sqrt, fma)
GPUH_IMPL_SIM_ROUNDINGS(__fmaf_ieee, float, (float a, float b, float c), (a, b, c), fmaf(a, b, c))
/* Integer to floating point: the conversion rounds in the mode. */
GPUH_IMPL_SIM_ROUNDINGS(__int2float, float, (int a), (a), static_cast<float>(a))
GPUH_IMPL_SIM_ROUNDINGS(__uint2float, float, (unsigned int a), (a), static_cast<float>(a))
GPUH_IMPL_SIM_ROUNDINGS(__ll2float, float, (long long a), (a), static_cast<float>(a))
GPUH_IMPL_SIM_ROUNDINGS(__ull2float, float, (unsigned long long a), (a), static_cast<float>(a))
GPUH_IMPL_SIM_ROUNDINGS(__ll2double, double, (long long a), (a), static_cast<double>(a))
GPUH_IMPL_SIM_ROUNDINGS(__ull2double, double, (unsigned long long a), (a), static_cast<double>(a))
GPUH_IMPL_SIM_ROUNDINGS(__double2float, float, (double a), (a), static_cast<float>(a))
inline double __int2double_rn(int a) { return a; }
inline double __uint2double_rn(unsigned int a) { return a; }
/* Floating point to integer: rounded in the named way, then saturated as a
   GPU's cvt saturates (gpuh_sim_impl::saturate_to). */
#define GPUH_IMPL_SIM_TO_INT(name, F, I)                                                                               \
    inline I name##_rn(F x) { return gpuh_sim_impl::saturate_to<I, F>(nearbyint(static_cast<double>(x))); }          \
    inline I name##_rz(F x) { return gpuh_sim_impl::saturate_to<I, F>(trunc(static_cast<double>(x))); }              \
    inline I name##_ru(F x) { return gpuh_sim_impl::saturate_to<I, F>(ceil(static_cast<double>(x))); }               \
    inline I name##_rd(F x) { return gpuh_sim_impl::saturate_to<I, F>(floor(static_cast<double>(x))); }
GPUH_IMPL_SIM_TO_INT(__float2int, float, int)
GPUH_IMPL_SIM_TO_INT(__float2uint, float, unsigned int)
GPUH_IMPL_SIM_TO_INT(__float2ll, float, long long)
GPUH_IMPL_SIM_TO_INT(__float2ull, float, unsigned long long)
GPUH_IMPL_SIM_TO_INT(__double2int, double, int)
GPUH_IMPL_SIM_TO_INT(__double2uint, double, unsigned int)
GPUH_IMPL_SIM_TO_INT(__double2ll, double, long long)
GPUH_IMPL_SIM_TO_INT(__double2ull, double, unsigned long long)
#undef GPUH_IMPL_SIM_TO_INT
namespace gpuh_sim_impl {
/* The value a read of an X gives: T for a volatile reference to T. */
template <class X> struct value_of {
    typedef X type;
};
template <class T> struct value_of<gpuh_sim_volatile_ref<T>> {
    typedef T type;
};
template <class I, class X> inline I int_conversion(const X &x, std::true_type)
{
    typedef typename value_of<X>::type F;
    return saturate_to<I, F>(trunc(static_cast<double>(static_cast<F>(x))));
}
template <class I, class X> inline I int_conversion(const X &x, std::false_type) { return (I)x; }
} /* namespace gpuh_sim_impl */
/* gpuh_sim_int_convert<I>(x): x converted to the integer type I as device
   code converts it. gpuh-simcc writes each explicit cast to an integer type
   in device code, (int)x or static_cast<int>(x), as this: a floating-point x
   saturates (out of range: I's limit; NaN as gpuh_sim_impl::saturate_to
   says; x86 gives 0x80000000 or a wrapped value instead), anything else converts as
   the C cast does. */
template <class I, class X> inline I gpuh_sim_int_convert(X &&x)
{
    typedef typename gpuh_sim_impl::value_of<typename std::decay<X>::type>::type V;
    return gpuh_sim_impl::int_conversion<I>(x, std::is_floating_point<V>());
}
/* The fast approximate forms, and those C's library lacks. */
inline float __fdividef(float a, float b) { return a / b; }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline float __tanhf(float x) { return tanhf(x); }
inline void __sincosf(float x, float *s, float *c) { *s = sinf(x), *c = cosf(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __saturatef(float x) { return x < 0.0f ? 0.0f : x > 1.0f ? 1.0f : x == x ? x : 0.0f; }
inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
/* Templates, so that host code may define its own (as cuda-samples'
   helper_math.h does where nvcc's __CUDACC__ is not defined): a
   non-template function of the same signature is a different function and
   wins the call. */
template <class = void> inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
template <class = void> inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline unsigned __float_as_uint(float x) { return gpuh_sim_impl::from_bits<unsigned>(gpuh_sim_impl::to_bits(x)); }
inline int __float_as_int(float x) { return gpuh_sim_impl::from_bits<int>(gpuh_sim_impl::to_bits(x)); }
inline float __uint_as_float(unsigned x) { return gpuh_sim_impl::from_bits<float>(x); }
inline float __int_as_float(int x) { return gpuh_sim_impl::from_bits<float>(gpuh_sim_impl::to_bits(x)); }
inline long long __double_as_longlong(double x) { return gpuh_sim_impl::from_bits<long long>(gpuh_sim_impl::to_bits(x)); }
inline double __longlong_as_double(long long x) { return gpuh_sim_impl::from_bits<double>(gpuh_sim_impl::to_bits(x)); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; ++i)
        r |= (x >> i & 1u) << (31 - i);
    return r;
}
inline int __mul24(int a, int b) { return a * b; }
inline unsigned __umul24(unsigned a, unsigned b) { return a * b; }
inline int __mulhi(int a, int b) { return static_cast<int>((static_cast<long long>(a) * b) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b)
{
    return static_cast<unsigned>((static_cast<unsigned long long>(a) * b) >> 32);
}
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b)
{
    const unsigned long long lo = 0xffffffffull, a0 = a & lo, a1 = a >> 32, b0 = b & lo, b1 = b >> 32;
    const unsigned long long mid = (a0 * b0 >> 32) + (a1 * b0 & lo) + a0 * b1;
    return a1 * b1 + (a1 * b0 >> 32) + (mid >> 32);
}
/* min and max as CUDA has them: any mix of arithmetic types. */
template <class A, class B> inline typename std::common_type<A, B>::type min(A a, B b)
{
    return b < a ? b : a;
}
template <class A, class B> inline typename std::common_type<A, B>::type max(A a, B b)
{
    return a < b ? b : a;
}

/* ===========================================================================
   [SECTION: LAUNCHES]
   kernel<<<grid, block, shmem, stream>>>(args...) as gpuh-simcc rewrites it,
   GPUH_LAUNCH's form, and cudaLaunchKernel.
   =========================================================================== */

/* The launch's dynamic shared memory (what `extern __shared__ T s[];` names). */
inline void *gpuh_sim_dynamic_shared() { return gpuh_sim_impl::thread_state().dynamic_shared; }

/* GPUH_SIM_KERNEL_CALL(kernel, grid, block, shmem, stream, args...): the
   simulator's kernel<<<grid, block, shmem, stream>>>(args...), a void
   expression; errors are left for cudaGetLastError, as with <<< >>>.
   GPUH_SIM_KERNEL_CALL0 is the same for a kernel with no arguments. */
#define GPUH_SIM_KERNEL_CALL(kernel, grid, block, shmem, stream, ...) \
    gpuh_sim_impl::launch_call(#kernel, __FILE__, __LINE__, (grid), (block), (shmem), (stream), kernel, __VA_ARGS__)
#define GPUH_SIM_KERNEL_CALL0(kernel, grid, block, shmem, stream) \
    gpuh_sim_impl::launch_call(#kernel, __FILE__, __LINE__, (grid), (block), (shmem), (stream), kernel)

/* GPUH_SIM_KERNEL_CALL_EXPR(kernel, grid, block, shmem, stream, args...):
   kernel<<<...>>>(args...) for a template kernel (its template arguments
   given, given in part or deduced), an overloaded kernel or a kernel with
   default arguments (gpuh-simcc picks it for those); needs C++14 (before
   that, it is GPUH_SIM_KERNEL_CALL). Where the name is one function (a
   template with all its arguments given) or exactly one function takes the
   arguments' own types, the launch is GPUH_SIM_KERNEL_CALL's through that
   address; otherwise it is a call expression, which deduces and resolves as
   a call does, and the launch has no kernel address: the occupancy and
   attribute calls' per-kernel settings do not apply to it. */
#if __cplusplus >= 201402L
#define GPUH_SIM_KERNEL_CALL_EXPR(kernel, grid, block, shmem, stream, ...)                                            \
    gpuh_sim_impl::launch_pick(#kernel, __FILE__, __LINE__, (grid), (block), (shmem), (stream),                        \
                               GPUH_IMPL_SIM_KERNEL_ADDRESS(kernel), [=](auto &...gpuh_sim_a) { kernel(gpuh_sim_a...); }, \
                               __VA_ARGS__)
#define GPUH_SIM_KERNEL_CALL_EXPR0(kernel, grid, block, shmem, stream)                                                 \
    gpuh_sim_impl::launch_pick(#kernel, __FILE__, __LINE__, (grid), (block), (shmem), (stream),                        \
                               GPUH_IMPL_SIM_KERNEL_ADDRESS(kernel), [=]() { kernel(); })
/* The kernel's address as a function of a tag (gpuh_sim_impl::kernel_address):
   the call is dependent, so a name that no pointer can take is a substitution
   failure, not an error. Both lambdas capture by default: g++ takes a local
   constexpr in a generic lambda's template arguments (k<N> in a dispatch
   lambda) for a capture; the call's copies outlive the launch's scope. */
#define GPUH_IMPL_SIM_KERNEL_ADDRESS(kernel)                                                                           \
    [&](auto gpuh_sim_t) -> decltype(gpuh_sim_impl::kernel_address<decltype(gpuh_sim_t)>(kernel)) {                    \
        return gpuh_sim_impl::kernel_address<decltype(gpuh_sim_t)>(kernel);                                           \
    }
#else
#define GPUH_SIM_KERNEL_CALL_EXPR GPUH_SIM_KERNEL_CALL
#define GPUH_SIM_KERNEL_CALL_EXPR0 GPUH_SIM_KERNEL_CALL0
#endif

/* cudaLaunchKernel / cudaLaunchCooperativeKernel: the kernel, its grid and
   block, an array of pointers to its arguments; the cooperative launch runs
   every block at once (at most 1024 blocks), so that grid-wide sync works. */
template <class... P>
inline cudaError_t cudaLaunchKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args, size_t shmem = 0,
                                    cudaStream_t stream = 0)
{
    gpuh_sim_impl::register_kernel(kernel);
    return gpuh_sim_impl::launch_erased(gpuh_sim_impl::key_of(kernel), grid, block, args, shmem, stream, false);
}
inline cudaError_t cudaLaunchKernel(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem = 0,
                                    cudaStream_t stream = 0)
{
    return gpuh_sim_impl::launch_erased(kernel, grid, block, args, shmem, stream, false);
}
template <class... P>
inline cudaError_t cudaLaunchCooperativeKernel(void (*kernel)(P...), dim3 grid, dim3 block, void **args,
                                               size_t shmem = 0, cudaStream_t stream = 0)
{
    gpuh_sim_impl::register_kernel(kernel);
    return gpuh_sim_impl::launch_erased(gpuh_sim_impl::key_of(kernel), grid, block, args, shmem, stream, true);
}
inline cudaError_t cudaLaunchCooperativeKernel(const void *kernel, dim3 grid, dim3 block, void **args,
                                               size_t shmem = 0, cudaStream_t stream = 0)
{
    return gpuh_sim_impl::launch_erased(kernel, grid, block, args, shmem, stream, true);
}
/* gpuh-simcc's registration of a file's kernels (for launches by void pointer). */
#define GPUH_SIM_REGISTER_KERNEL(kernel) gpuh_sim_impl::register_kernel(kernel)

/* ===========================================================================
   [SECTION: RUNTIME C++ OVERLOADS]
   The C++ conveniences of cuda_runtime.h: typed pointers, kernels as
   functions, default arguments, __device__ variables as symbols.
   =========================================================================== */

template <class T> inline cudaError_t cudaMalloc(T **p, size_t bytes)
{
    return cudaMalloc(static_cast<void **>(static_cast<void *>(p)), bytes); /* T may be const, as CUDA allows */
}
template <class T> inline cudaError_t cudaMallocManaged(T **p, size_t bytes, unsigned int flags = cudaMemAttachGlobal)
{
    return cudaMallocManaged(reinterpret_cast<void **>(p), bytes, flags);
}
template <class T> inline cudaError_t cudaMallocAsync(T **p, size_t bytes, cudaStream_t stream)
{
    return cudaMallocAsync(reinterpret_cast<void **>(p), bytes, stream);
}
template <class T> inline cudaError_t cudaMallocHost(T **p, size_t bytes)
{
    return cudaMallocHost(reinterpret_cast<void **>(p), bytes);
}
template <class T> inline cudaError_t cudaHostAlloc(T **p, size_t bytes, unsigned int flags)
{
    return cudaHostAlloc(reinterpret_cast<void **>(p), bytes, flags);
}
template <class... P> inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, void (*f)(P...))
{
    return cudaFuncGetAttributes(attr, gpuh_sim_impl::key_of(f));
}
template <class... P> inline cudaError_t cudaFuncSetAttribute(void (*f)(P...), enum cudaFuncAttribute attr, int v)
{
    return cudaFuncSetAttribute(gpuh_sim_impl::key_of(f), attr, v);
}
template <class... P>
inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, void (*f)(P...), int block_size,
                                                                 size_t shmem)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks, gpuh_sim_impl::key_of(f), block_size, shmem);
}
template <class... P>
inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *min_grid, int *block, void (*f)(P...), size_t shmem = 0,
                                                      int limit = 0)
{
    return gpuh_sim_impl::potential_block(min_grid, block, limit, [&](int *n, int b) {
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(n, f, b, shmem);
    });
}
/* A __device__ or __constant__ variable is a global of the program here, not
   an allocation: the copy checks the range against the variable's size. */
template <class T> inline cudaError_t cudaMemcpyToSymbol(T &symbol, const void *src, size_t bytes, size_t offset = 0,
                                                         enum cudaMemcpyKind kind = cudaMemcpyHostToDevice)
{
    return gpuh_sim_impl::symbol_copy(reinterpret_cast<char *>(&symbol), sizeof(T), offset, const_cast<void *>(src),
                                      bytes, kind, true);
}
template <class T> inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t bytes, size_t offset = 0,
                                                           enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost)
{
    return gpuh_sim_impl::symbol_copy(reinterpret_cast<char *>(const_cast<T *>(&symbol)), sizeof(T), offset, dst,
                                      bytes, kind, false);
}

/* ===========================================================================
   [SECTION: IMPLEMENTATION]
   Everything below is private (gpuh_sim_impl::, GPUH_IMPL_SIM_): it may change
   without notice. First the runtime's handles (C declares them opaque), then
   the machinery in one namespace, in the order a launch reaches it.
   =========================================================================== */

/* The runtime's definitions are weak: every C++ file may include this header
   and the program keeps one copy. */
#define GPUH_IMPL_SIM_API extern "C" __attribute__((weak))
/* A memory pool rounds each allocation up to this many bytes. */
#define GPUH_IMPL_SIM_POOL_ALIGN 512

/* ---- The handles: streams, events, cuRAND generators, memory pools, NCCL
   communicators. */
/* A stream and an event belong to the device current when they were made
   (CUDA Programming Guide, "Stream and Event Behavior"). */
struct CUstream_st {
    unsigned int flags;
    int priority;
    int device;
};
struct CUevent_st {
    unsigned int flags;
    double ms;
    int recorded;
    int device;
};
struct gpuh_sim_curand {
    unsigned long long seed, offset;
};
struct CUmemPoolHandle_st {
    int device;
    bool destroyed;                     /* destroyed with blocks still live: goes when they are freed */
    unsigned long long threshold;       /* cudaMemPoolAttrReleaseThreshold */
    size_t reserved, used, reserved_high, used_high;
    std::multimap<size_t, void *> idle; /* freed blocks, by size */
};
struct gpuh_sim_nccl_comm {
    gpuh_sim_impl::nccl_clique *clique;
    int rank, device;
};

namespace gpuh_sim_impl {

/* ---------------------------------------------------------------------------
   [SECTION: FIBERS] Context switch between fibers: x86-64 by hand (the
   callee-saved registers), ucontext elsewhere. The floating-point control
   words (MXCSR, x87) are not switched: no kernel changes them (CUDA rounds per
   instruction), and run_blocks sets the defaults once for all the fibers of a
   CPU worker; loading them at every switch cost more than the rest of it. The
   switch leaves by an indirect jump, not a return: a return would always be
   mispredicted (it lands in another fiber than the call it pairs with), and
   the jump's target repeats (the same resume points, fiber after fiber). */
#if defined(__x86_64__)
extern "C" void gpuh_sim_impl_swap(void **save_sp, void *load_sp);
__asm__(".text\n"
        ".weak gpuh_sim_impl_swap\n"
        ".type gpuh_sim_impl_swap, @function\n"
        "gpuh_sim_impl_swap:\n"
        "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
        "  movq %rsp, (%rdi)\n  movq %rsi, %rsp\n"
        "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
        "  popq %rcx\n  jmpq *%rcx\n"
        ".size gpuh_sim_impl_swap, .-gpuh_sim_impl_swap\n");
struct fiber_context {
    void *sp;
};
inline void fiber_switch(fiber_context *from, fiber_context *to) { gpuh_sim_impl_swap(&from->sp, to->sp); }
inline void fiber_make(fiber_context *c, char *lo, size_t size, void (*entry)())
{
    uintptr_t top = (reinterpret_cast<uintptr_t>(lo) + size) & ~uintptr_t(15);
    uint64_t *p = reinterpret_cast<uint64_t *>(top);
    p[-1] = 0; /* entry's return address: never used */
    p[-2] = reinterpret_cast<uint64_t>(entry);
    for (int i = 3; i <= 8; ++i)
        p[-i] = 0; /* rbp, rbx, r12-r15 */
    c->sp = &p[-8];
}
#else
struct fiber_context {
    ucontext_t uc;
};
inline void fiber_switch(fiber_context *from, fiber_context *to) { swapcontext(&from->uc, &to->uc); }
inline void fiber_make(fiber_context *c, char *lo, size_t size, void (*entry)())
{
    getcontext(&c->uc);
    c->uc.uc_stack.ss_sp = lo;
    c->uc.uc_stack.ss_size = size;
    c->uc.uc_link = NULL;
    makecontext(&c->uc, entry, 0);
}
#endif

/* ---------------------------------------------------------------------------
   [SECTION: STATE AND ERRORS] Process-wide state lives in function-local
   statics of inline functions (one copy per program); each CPU worker has a
   thread_local one. */

struct call_site {
    const char *what, *file;
    int line;
};

/* A simulated thread's state. T_STEP: at gpuh_sim_warp_step, waiting for the
   other lanes of its warp (run_warp_steps). */
enum { T_NEW, T_RUNNING, T_READY, T_BARRIER, T_WARP, T_DONE, T_FAULT, T_STEP };
/* W_MATCH: __match_any_sync, each lane's result the lanes of its mask whose
   value has the same bits (PTX's match.any compares b32 and b64 values).
   W_REDUCE: __reduce_*_sync, each lane's result the reduction (its param, an
   R_ kind) of the 32-bit values of the lanes of its mask (PTX's redux.sync). */
enum { W_SYNC, W_SHFL, W_UP, W_DOWN, W_XOR, W_BALLOT, W_ANY, W_ALL, W_MATCH, W_REDUCE };
enum { R_ADD, R_MIN, R_MAX, R_MIN_SIGNED, R_MAX_SIGNED, R_AND, R_OR, R_XOR };

struct runner {
    fiber_context ctx;
    char *lo;
    size_t size;
    size_t color; /* bytes left unused at the top of its stack (see new_runner) */
    int thread;   /* the simulated thread it runs, or -1 */
    void *asan_fake;
    void *tsan_fiber;
};

struct lane_op {
    int op, param, width;
    unsigned mask;
    uint64_t value, result;
    call_site where;
};

/* What a launch runs: the kernel's name and call site (for messages), its
   shape, and thunk(closure), which runs one simulated thread. A grid launched
   from a kernel (dynamic parallelism) is kept as one, its closure a bytewise
   copy (the arguments as at the launch), with the launching grid until every
   block of that grid has run (run_children): CUDA lets a child grid run at
   any time after its launch and only promises that it completes before its
   parent grid does, so running it after the parent's blocks is one of the
   schedules a GPU may pick. */
struct grid_launch {
    const char *kernel, *file;
    int line;
    dim3 grid, block;
    size_t shmem;
    void (*thunk)(const void *closure);
    const void *closure;
};

struct launch_job : grid_launch {
    uint64_t blocks, chunk;
    std::atomic<uint64_t> next;
    std::atomic<int> failed; /* the first error of a block (a cudaError_t), 0 while none */
    int active;              /* pool threads running its blocks (guarded by the pool's mutex) */
    std::atomic<uint64_t> finished; /* blocks run to their end: the watch's measure of progress */
    /* the pool's watch (host_thread_pool::watch), under the pool's mutex: the
       progress it last saw and when, the extra CPU threads it started, and
       whether it has reported the launch as stuck */
    uint64_t seen_finished, seen_spins;
    std::chrono::steady_clock::time_point seen_at, grown_at;
    std::atomic<uint64_t> spins; /* spin_point's count of its threads' volatile accesses and sleeps, /256 */
    int extra;
    bool reported;
    int depth;               /* 0 for a grid the host launched; its parent's + 1 for one a kernel did */
    std::mutex children_m;
    std::vector<grid_launch> children, tail; /* launched by its threads: they run once its blocks have */
};

struct block_state {
    int n;                 /* threads in the block */
    int next_new, done, at_barrier;
    int barrier_result;
    int fault; /* a thread misused a warp operation or faulted (reported): the launch fails with this error */
    unsigned char state[1024];
    runner *runner_of[1024];
    int order[1024];
    call_site barrier_at[1024];
    int vote[1024];
    lane_op lane[1024];
    cudaError_t last_error[1024]; /* each thread's, for device code's cudaGetLastError */
    bool errors_recorded;         /* some last_error[] is set: cleared before the next block */
    unsigned warp_arrived[32];
    uint64_t rng;
    /* threadIdx of each linear index, for blocks of tid_shape: made once per
       shape, not with three divisions at every switch */
    uint3 tid[1024];
    dim3 tid_shape;
    int order_forward; /* order[0, order_forward) is 0, 1, 2, ...: kept from block to block */
    /* the running thread's place in order[], where the scheduler's loop
       (run_block) is; -1 where no other thread may follow it directly
       (run_warp_steps runs the lanes of one warp) */
    int pos;
};

struct worker {
    fiber_context sched;
    void *sched_fake;
    const void *sched_lo;
    size_t sched_size;
    std::vector<runner *> all, free_list;
    void *sched_tsan; /* ThreadSanitizer's name for the scheduler: the CPU thread itself */
    runner *current;
    launch_job *job;
    block_state *block;
    unsigned char *dynamic_shared;
    size_t dynamic_shared_bytes;
    void *alt_stack; /* where the fault handler runs when a fiber's stack is exhausted */
    size_t promised; /* stacks this pool thread may map (see stack_budget) */
};


struct alloc_info {
    size_t bytes;
    enum cudaMemoryType type;
    bool owned; /* false: host memory the program registered (cudaHostRegister) */
};

struct runtime_globals {
    std::mutex m;
    std::map<uintptr_t, alloc_info> allocs;
    size_t used = 0, total = 0;
    cudaError_t sticky = cudaSuccess; /* the last error is per host thread: last_error() */
    std::map<const void *, int> bounds, max_dyn_shmem;
    std::set<const void *> streams, events; /* live handles: a destroyed or made-up one is refused */
    int threads = 0, schedule = 0;
    size_t stack_bytes = 0;
    unsigned long long seed = 0;
    runtime_globals()
    {
        const char *e = getenv("GPUH_SIM_THREADS");
        const long asked = e ? strtol(e, NULL, 10) : 0;
        threads = asked > 0 ? static_cast<int>(std::min(asked, 1024L))
                            : static_cast<int>(std::thread::hardware_concurrency());
        if (threads < 1)
            threads = 1;
        if (asked > 1024) /* a GPU has a few hundred SMs at most; a thread each costs a block's state */
            fprintf(stderr, "gpuh sim: GPUH_SIM_THREADS=%s is more than 1024; using 1024\n", e);
        e = getenv("GPUH_SIM_SCHEDULE");
        schedule = !e || !*e || !strcmp(e, "forward") ? 0 : !strcmp(e, "reverse") ? 1 : !strcmp(e, "random") ? 2 : -1;
        if (schedule < 0) {
            fprintf(stderr, "gpuh sim: GPUH_SIM_SCHEDULE=%s is not forward, reverse or random; using forward\n", e);
            schedule = 0;
        }
        e = getenv("GPUH_SIM_SEED");
        seed = e && *e ? strtoull(e, NULL, 0)
                       : static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count());
        if (schedule == 2)
            fprintf(stderr, "gpuh sim: random schedule, GPUH_SIM_SEED=%llu repeats it\n", seed);
        /* CUDA gives a thread up to 512 KiB of local memory; the rest is for the
           calls around it (ASan's red zones need more). Pages never touched cost
           no memory. */
#ifdef GPUH_IMPL_SIM_ASAN
        stack_bytes = 1536 * 1024;
#else
        stack_bytes = 768 * 1024;
#endif
        e = getenv("GPUH_SIM_STACK_KB");
        const unsigned long kb = e ? strtoul(e, NULL, 10) : 0;
        if (kb >= 16 && kb <= (1ul << 20))
            stack_bytes = static_cast<size_t>(kb) * 1024;
        else if (e != NULL)
            fprintf(stderr, "gpuh sim: GPUH_SIM_STACK_KB=%s is not 16 .. 1048576; using %zu\n", e,
                    stack_bytes / 1024);
        long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
        total = pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : (size_t(16) << 30);
    }
};
inline runtime_globals &runtime_state()
{
    static runtime_globals r;
    return r;
}

/* The calling host thread's last error, as cudaGetLastError keeps one per thread. */
inline cudaError_t &last_error()
{
    static thread_local cudaError_t last = cudaSuccess;
    return last;
}
inline bool in_kernel();
inline cudaError_t &device_last_error();
/* Records err as the last error (as the CUDA runtime does) and returns it:
   the host thread's, or in a kernel the simulated thread's (device code's
   cudaGetLastError reads that one). */
inline cudaError_t record_error(cudaError_t err)
{
    if (err == cudaSuccess)
        return err;
    if (in_kernel()) {
        device_last_error() = err;
        thread_state().w->block->errors_recorded = true;
    } else {
        last_error() = err;
    }
    return err;
}
/* The sticky error, if a kernel has failed: every later call returns it. */
inline cudaError_t sticky()
{
    std::lock_guard<std::mutex> g(runtime_state().m);
    return runtime_state().sticky;
}

inline double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/* ---------------------------------------------------------------------------
   [SECTION: SCHEDULER] Fibers and the block scheduler. A runner is a fiber
   that runs simulated threads one after another, as a plain loop, until one of
   them waits at a barrier; that thread keeps the runner, and the scheduler
   starts another runner for the next thread. Runners and their stacks are
   reused. A thread that waits passes the CPU worker straight to the next
   thread in the schedule's order when that one is ready (pass_turn), as the
   scheduler's loop would. */

inline void to_runner(worker &w, runner *r)
{
#ifdef GPUH_IMPL_SIM_ASAN
    __sanitizer_start_switch_fiber(&w.sched_fake, r->lo, r->size);
#endif
    w.current = r;
#ifdef GPUH_IMPL_SIM_TSAN
    w.sched_tsan = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(r->tsan_fiber, 0);
#endif
    fiber_switch(&w.sched, &r->ctx);
#ifdef GPUH_IMPL_SIM_ASAN
    __sanitizer_finish_switch_fiber(w.sched_fake, NULL, NULL);
#endif
}

inline void to_scheduler(worker &w, runner *r)
{
#ifdef GPUH_IMPL_SIM_ASAN
    __sanitizer_start_switch_fiber(&r->asan_fake, w.sched_lo, w.sched_size);
#endif
#ifdef GPUH_IMPL_SIM_TSAN
    __tsan_switch_to_fiber(w.sched_tsan, 0);
#endif
    fiber_switch(&r->ctx, &w.sched);
#ifdef GPUH_IMPL_SIM_ASAN
    __sanitizer_finish_switch_fiber(r->asan_fake, &w.sched_lo, &w.sched_size);
#endif
}

inline void set_thread(thread_view &v, const block_state &b, int i)
{
    v.lin = i;
    threadIdx = b.tid[i];
}

/* Asks for the top of r's stack, where it resumes (the switch's frame and the
   frames of the calls it returns through), to be brought into the cache
   while another thread runs. */
inline void prefetch_stack(const runner *r)
{
#if defined(__x86_64__)
    const char *sp = static_cast<const char *>(r->ctx.sp);
    for (int line = 0; line < 8; ++line)
        __builtin_prefetch(sp + 64 * line);
#else
    (void)r;
#endif
}

/* The running thread r, which now waits (at a barrier or a warp operation),
   gives the CPU worker to the thread that follows it in the schedule's order
   where that one is ready, as the scheduler's loop would (run_block), without
   going through the scheduler's fiber: one switch, not two, and no pass of
   that loop. Otherwise, and under the sanitizers (whose fiber switches are
   announced as going to and from the scheduler), to the scheduler. */
inline void pass_turn(worker &w, block_state &b, runner *r)
{
#if !defined(GPUH_IMPL_SIM_ASAN) && !defined(GPUH_IMPL_SIM_TSAN)
    const int k = b.pos + 1;
    if (b.pos >= 0 && k < b.n && b.fault == 0) {
        const int i = b.order[k];
        if (b.state[i] == T_READY) {
            runner *next = b.runner_of[i];
            /* the stack of the thread that follows next, and the runner of the one after it */
            if (k + 1 < b.n && b.state[b.order[k + 1]] == T_READY)
                prefetch_stack(b.runner_of[b.order[k + 1]]);
            if (k + 2 < b.n && b.state[b.order[k + 2]] == T_READY)
                __builtin_prefetch(b.runner_of[b.order[k + 2]]);
            b.pos = k;
            b.state[i] = T_RUNNING;
            set_thread(thread_state(), b, i);
            w.current = next;
            fiber_switch(&r->ctx, &next->ctx);
            return;
        }
    }
#else
    (void)b;
#endif
    to_scheduler(w, r);
}

inline void runner_main()
{
    thread_view &v = thread_state();
    worker &w = *v.w;
    runner *r = w.current;
#ifdef GPUH_IMPL_SIM_ASAN
    __sanitizer_finish_switch_fiber(NULL, &w.sched_lo, &w.sched_size);
#endif
    for (;;) {
        block_state &b = *w.block;
        while (b.next_new < b.n) {
            b.pos = b.next_new;
            int i = b.order[b.next_new++];
            b.state[i] = T_RUNNING;
            b.runner_of[i] = r;
            r->thread = i;
            set_thread(v, b, i);
            w.job->thunk(w.job->closure);
            b.state[i] = T_DONE;
            b.done++;
        }
        r->thread = -1;
        w.free_list.push_back(r);
        to_scheduler(w, r);
    }
}

/* Below each stack: inaccessible, and larger than CUDA's 512 KiB of local
   memory, so that an overflowing frame lands in it rather than in the stack
   below (compilers need not touch every page of a large frame). */
enum { STACK_GUARD = 1 << 20 };

/* A runner from the free list, or a new one with a fresh stack; NULL (with a
   message) when no stack can be mapped: the launch then fails, the process goes on. */
inline runner *new_runner(worker &w)
{
    if (!w.free_list.empty()) {
        runner *r = w.free_list.back();
        w.free_list.pop_back();
        return r;
    }
    const size_t guard = STACK_GUARD;
    const size_t size = runtime_state().stack_bytes;
    void *mem = mmap(NULL, size + guard, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        fprintf(stderr, "gpuh sim: out of memory for a thread stack (%zu KiB)\n", size / 1024);
        return NULL;
    }
    mprotect(mem, guard, PROT_NONE); /* a stack overflow faults instead of corrupting */
#ifdef GPUH_IMPL_SIM_ASAN
    /* the mapping may reuse the addresses of a stack unmapped when another
       host thread ended, whose frames ASan still marks */
    __asan_unpoison_memory_region(static_cast<char *>(mem) + guard, size);
#endif
    runner *r = new runner();
    r->lo = static_cast<char *>(mem) + guard;
    r->size = size;
    /* Stacks are page-aligned and equally sized, so without this every
       fiber's top frames would map to the same cache sets and evict each
       other at each switch: each starts 17 cache lines further down than the
       last, in turn over 64 KiB (every set of L1 and of a 1 MiB L2), or over
       a quarter of a smaller stack. */
    const size_t span = std::min<size_t>(65536, size / 4) & ~size_t(63);
    r->color = span > 0 ? w.all.size() * 17 * 64 % span : 0;
    r->thread = -1;
    r->asan_fake = NULL;
#ifdef GPUH_IMPL_SIM_TSAN
    r->tsan_fiber = __tsan_create_fiber(0);
#endif
    fiber_make(&r->ctx, r->lo, r->size - r->color, runner_main);
    w.all.push_back(r);
    return r;
}

/* After a failed block: its runners are stuck mid-kernel; restart them empty. */
inline void reset_runners(worker &w, block_state &b)
{
    for (int i = 0; i < b.n; ++i) {
        runner *r = b.runner_of[i];
        if (r != NULL && r->thread == i && b.state[i] != T_DONE) {
            r->thread = -1;
#ifdef GPUH_IMPL_SIM_ASAN
            __asan_unpoison_memory_region(r->lo, r->size); /* the abandoned frames' red zones */
#endif
#ifdef GPUH_IMPL_SIM_TSAN
            __tsan_destroy_fiber(r->tsan_fiber); /* and its record of the abandoned calls */
            r->tsan_fiber = __tsan_create_fiber(0);
#endif
            fiber_make(&r->ctx, r->lo, r->size - r->color, runner_main);
            w.free_list.push_back(r);
        }
    }
}

/* Whether two call sites' names (__FILE__, a barrier's name) are the same:
   mostly the same literal, so the pointers decide without a strcmp. */
inline bool same_text(const char *a, const char *b) { return a == b || strcmp(a, b) == 0; }

inline uint64_t next_random(uint64_t &s)
{
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
}

inline void format_thread(char *buf, size_t cap, const dim3 &bdim, int i)
{
    unsigned u = static_cast<unsigned>(i);
    snprintf(buf, cap, "thread (%u, %u, %u)", u % bdim.x, u / bdim.x % bdim.y, u / (bdim.x * bdim.y));
}

inline const char *op_name(int op)
{
    static const char *names[] = {"__syncwarp",      "__shfl_sync",   "__shfl_up_sync", "__shfl_down_sync",
                                  "__shfl_xor_sync", "__ballot_sync", "__any_sync",     "__all_sync"};
    return names[op];
}

inline bool release_converged(block_state &b); /* in [SECTION: LAUNCH CHECKS] */
inline void finish_warp_op(block_state &b, int base, unsigned eff); /* in [SECTION: BARRIERS AND WARPS] */

/* Says once per kernel and call site that a barrier or warp operation went
   on without threads that had exited. */
inline void warn_released(const launch_job &job, const call_site &s, bool warp, unsigned mask, int exited, int of)
{
    static std::mutex m;
    static std::set<std::string> said;
    char key[512];
    snprintf(key, sizeof key, "%s\n%s:%d", job.kernel, s.file, s.line);
    {
        std::lock_guard<std::mutex> g(m);
        if (!said.insert(key).second)
            return;
    }
    if (warp)
        fprintf(stderr,
                "gpuh sim: warning: in kernel %s (launched at %s:%d), block (%u, %u, %u): %s(0x%08x, ...) at %s:%d "
                "went on without %d exited lane%s of its mask (as on a GPU since Volta; a value read from an "
                "exited lane is undefined); said once for this call\n",
                job.kernel, job.file, job.line, blockIdx.x, blockIdx.y, blockIdx.z, s.what, mask, s.file, s.line,
                exited,
                exited == 1 ? "" : "s");
    else
        fprintf(stderr,
                "gpuh sim: warning: in kernel %s (launched at %s:%d), block (%u, %u, %u): %s() at %s:%d went on "
                "without %d of the block's %d threads, which had exited (as on a GPU since Volta: exited threads "
                "no longer hold a barrier back); said once for this barrier\n",
                job.kernel, job.file, job.line, blockIdx.x, blockIdx.y, blockIdx.z, s.what, s.file, s.line, exited, of);
}

/* Nobody can run: releases what waits only for threads that have exited, as
   a GPU since Volta does. A __syncthreads() that every thread still running
   waits at goes on (its count, and and or over those threads); a warp
   operation that every lane of its mask still running waits at goes on
   without the exited lanes. Threads that wait at different barriers, or for
   a thread that waits elsewhere, are left for report_divergence. */
inline bool release_past_exits(worker &w, block_state &b)
{
    bool any = false;
    int first = -1, running = 0;
    for (int i = 0; i < b.n; ++i)
        if (b.state[i] != T_DONE) {
            ++running;
            if (first < 0)
                first = i;
        }
    if (first >= 0 && b.state[first] == T_BARRIER) {
        const call_site s = b.barrier_at[first];
        bool same = b.state[0] != T_DONE || !same_text(s.what, "grid_group::sync"); /* thread 0 waits for the grid */
        int votes = 0;
        for (int i = first; i < b.n && same; ++i)
            if (b.state[i] != T_DONE) {
                same = b.state[i] == T_BARRIER && b.barrier_at[i].line == s.line &&
                       same_text(b.barrier_at[i].what, s.what) && same_text(b.barrier_at[i].file, s.file);
                votes += b.vote[i] != 0;
            }
        if (same) {
            warn_released(*w.job, s, false, 0, b.n - running, b.n);
            b.at_barrier = 0;
            b.barrier_result = votes;
            for (int i = first; i < b.n; ++i)
                if (b.state[i] == T_BARRIER)
                    b.state[i] = T_READY;
            return true;
        }
    }
    for (int base = 0; base < b.n; base += 32) {
        const int lanes = std::min(32, b.n - base);
        unsigned exited = 0;
        for (int k = 0; k < lanes; ++k)
            exited |= static_cast<unsigned>(b.state[base + k] == T_DONE) << k;
        if (exited == 0)
            continue;
        for (int k = 0; k < lanes; ++k) {
            const lane_op &a = b.lane[base + k];
            if (b.state[base + k] != T_WARP || a.op > W_REDUCE)
                continue;
            const unsigned exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
            const unsigned eff = a.mask & exists & ~exited;
            bool same = (a.mask & exited) != 0;
            for (int j = 0; j < lanes && same; ++j)
                if (eff >> j & 1u)
                    same = b.state[base + j] == T_WARP && b.lane[base + j].op == a.op &&
                           b.lane[base + j].mask == a.mask;
            if (same) {
                warn_released(*w.job, a.where, true, a.mask, __builtin_popcount(a.mask & exists & exited), 0);
                finish_warp_op(b, base, eff);
                any = true;
                break;
            }
        }
    }
    return any;
}

/* Nobody can run, but the block is not done: a thread waits for one that has
   exited or waits elsewhere. Prints which, with block and thread indices. */
inline void report_divergence(worker &w, block_state &b)
{
    char a[64], c[64], msg[1024];
    int waiter = -1, other = -1;
    for (int i = 0; i < b.n && waiter < 0; ++i)
        if (b.state[i] == T_BARRIER || b.state[i] == T_WARP)
            waiter = i;
    if (waiter < 0)
        return;
    format_thread(a, sizeof a, blockDim, waiter);
    const bool warp = b.state[waiter] == T_WARP;
    const call_site s = warp ? b.lane[waiter].where : b.barrier_at[waiter];
    int lo = 0, hi = b.n;
    unsigned mask = 0;
    if (warp) {
        lo = waiter / 32 * 32;
        hi = std::min(lo + 32, b.n);
        mask = b.lane[waiter].mask;
    }
    for (int pass = 0; pass < 2 && other < 0; ++pass) /* one still running is the cause; then one exited */
        for (int i = lo; i < hi && other < 0; ++i) {
            if ((warp && !(mask >> (i - lo) & 1u)) || (pass == 0) == (b.state[i] == T_DONE))
                continue;
            const bool same = warp ? b.state[i] == T_WARP && b.lane[i].op == b.lane[waiter].op &&
                                         b.lane[i].mask == mask
                                   : b.state[i] == T_BARRIER && b.barrier_at[i].line == s.line &&
                                         same_text(b.barrier_at[i].file, s.file);
            if (!same)
                other = i;
        }
    int k = warp ? snprintf(msg, sizeof msg,
                            "gpuh sim: divergent barrier in kernel %s (launched at %s:%d), block (%u, %u, %u):\n"
                            "gpuh sim:   %s (warp %d, lane %d) waits at %s(0x%08x, ...) at %s:%d\n",
                            w.job->kernel, w.job->file, w.job->line, blockIdx.x, blockIdx.y, blockIdx.z, a, waiter / 32,
                            waiter % 32, s.what, mask, s.file, s.line)
                 : snprintf(msg, sizeof msg,
                            "gpuh sim: divergent barrier in kernel %s (launched at %s:%d), block (%u, %u, %u):\n"
                            "gpuh sim:   %s waits at %s() at %s:%d\n",
                            w.job->kernel, w.job->file, w.job->line, blockIdx.x, blockIdx.y, blockIdx.z, a, s.what,
                            s.file,
                            s.line);
    if (other >= 0 && k > 0 && static_cast<size_t>(k) < sizeof msg) {
        format_thread(c, sizeof c, blockDim, other);
        if (b.state[other] == T_DONE)
            snprintf(msg + k, sizeof msg - k, "gpuh sim:   but %s has exited without reaching it\n", c);
        else if (b.state[other] == T_BARRIER)
            snprintf(msg + k, sizeof msg - k, "gpuh sim:   but %s waits at %s() at %s:%d\n", c,
                     b.barrier_at[other].what, b.barrier_at[other].file, b.barrier_at[other].line);
        else if (b.state[other] == T_WARP)
            snprintf(msg + k, sizeof msg - k, "gpuh sim:   but %s waits at %s(0x%08x, ...) at %s:%d\n", c,
                     b.lane[other].where.what, b.lane[other].mask, b.lane[other].where.file,
                     b.lane[other].where.line);
    }
    fputs(msg, stderr);
}

/* The warp of thread i (which waits at gpuh_sim_warp_step) once none of its
   lanes can run before it: no lane new, ready or running, each at a step, a
   barrier, a warp operation or exited. Then the lanes at a step go on, in
   lane order, each to its next step, barrier, warp operation or exit, and so
   on while the whole warp keeps meeting at steps: a converged warp's lanes
   take each part between steps together. Returns whether a lane ran. */
inline bool run_warp_steps(worker &w, block_state &b, thread_view &v, int i)
{
    const int base = i / 32 * 32, lanes = std::min(32, b.n - base);
    bool ran = false;
    for (;;) {
        bool stepped = false;
        for (int k = 0; k < lanes; ++k) {
            const int s = b.state[base + k];
            if (s == T_NEW || s == T_READY || s == T_RUNNING)
                return ran;
            stepped |= s == T_STEP;
        }
        if (!stepped)
            return ran;
        for (int k = 0; k < lanes; ++k)
            if (b.state[base + k] == T_STEP)
                b.state[base + k] = T_READY;
        for (int k = 0; k < lanes && !b.fault; ++k)
            if (b.state[base + k] == T_READY) {
                b.state[base + k] = T_RUNNING;
                set_thread(v, b, base + k);
                b.pos = -1;
                to_runner(w, b.runner_of[base + k]);
                ran = true;
            }
        if (b.fault)
            return ran;
    }
}

/* After a runner comes back: if the thread it ran waits at a step, its warp
   may now be able to go on (run_warp_steps). */
inline bool after_run(worker &w, block_state &b, thread_view &v, runner *r)
{
    const int t = r->thread;
    return t >= 0 && !b.fault && b.state[t] == T_STEP && run_warp_steps(w, b, v, t);
}

/* Runs one block to completion: cudaSuccess, cudaErrorLaunchFailure (a
   divergent barrier, reported) or cudaErrorMemoryAllocation (no stack for a
   thread, reported). */
inline cudaError_t run_block(worker &w, launch_job &job, uint64_t linear)
{
    thread_view &v = thread_state();
    blockIdx.x = static_cast<unsigned>(linear % job.grid.x);
    blockIdx.y = static_cast<unsigned>(linear / job.grid.x % job.grid.y);
    blockIdx.z = static_cast<unsigned>(linear / (static_cast<uint64_t>(job.grid.x) * job.grid.y));
    block_state &b = *w.block;
    const int n = static_cast<int>(job.block.x * job.block.y * job.block.z);
    const int schedule = runtime_state().schedule;
    b.n = n;
    b.next_new = b.done = b.at_barrier = b.fault = 0;
    if (b.tid_shape.x != job.block.x || b.tid_shape.y != job.block.y || b.tid_shape.z != job.block.z) {
        const unsigned bx = job.block.x, by = job.block.y;
        for (unsigned i = 0; i < static_cast<unsigned>(n); ++i) {
            b.tid[i].x = i % bx;
            b.tid[i].y = i / bx % by;
            b.tid[i].z = i / (bx * by);
        }
        b.tid_shape = job.block;
    }
    b.rng = (runtime_state().seed ^ (linear * 0x9E3779B97F4A7C15ull)) | 1u;
    /* (runner_of is not cleared: it is read only for threads that have started) */
    memset(b.state, T_NEW, static_cast<size_t>(n));
    if (schedule != 0 || b.order_forward < n) {
        for (int i = 0; i < n; ++i)
            b.order[i] = schedule == 1 ? n - 1 - i : i;
        b.order_forward = schedule == 0 ? n : 0;
    }
    for (int i = 0; i < 32; ++i)
        b.warp_arrived[i] = 0;
    if (b.errors_recorded) { /* rare: only a kernel whose launches or runtime calls failed */
        for (int i = 0; i < 1024; ++i)
            b.last_error[i] = cudaSuccess;
        b.errors_recorded = false;
    }
    for (;;) {
        if (schedule == 2)
            for (int i = n - 1; i > 0; --i)
                std::swap(b.order[i], b.order[next_random(b.rng) % static_cast<uint64_t>(i + 1)]);
        bool ran = false;
        for (int k = 0; k < n; ++k) {
            const int i = b.order[k];
            if (b.state[i] == T_NEW) {
                /* the new runner takes order[next_new..], starting here */
                runner *r = new_runner(w);
                if (r == NULL) {
                    reset_runners(w, b);
                    return cudaErrorMemoryAllocation;
                }
                b.next_new = k;
                to_runner(w, r);
                k = std::max(k, b.pos);
                after_run(w, b, v, w.current);
                ran = true;
            } else if (b.state[i] == T_READY) {
                b.state[i] = T_RUNNING;
                set_thread(v, b, i);
                b.pos = k;
                to_runner(w, b.runner_of[i]);
                k = std::max(k, b.pos); /* the threads up to order[b.pos] have had their turn (pass_turn) */
                after_run(w, b, v, w.current);
                ran = true;
            } else if (b.state[i] == T_STEP) {
                ran |= run_warp_steps(w, b, v, i);
            }
            if (b.fault || b.done == n) /* a block with no barrier ends in its first runner */
                break;
        }
        if (b.fault) {
            reset_runners(w, b);
            return static_cast<cudaError_t>(b.fault);
        }
        if (b.done == n)
            return cudaSuccess;
        if (!ran) {
            if (release_converged(b)) /* coalesced_threads(): who got there is the group */
                continue;
            if (release_past_exits(w, b))
                continue;
            report_divergence(w, b);
            reset_runners(w, b);
            return cudaErrorLaunchFailure;
        }
    }
}

/* ---------------------------------------------------------------------------
   [SECTION: HOST THREADS] The CPU workers that run blocks, the launch, and
   the copy of a kernel's arguments. */

/* The buffer a launch with 0 bytes of dynamic shared memory sees: a page that
   can be neither read nor written, so that a kernel using dynamic shared
   memory it did not ask for faults (under ASan, a report naming the kernel)
   instead of reaching the buffer of an earlier launch. */
inline unsigned char *no_dynamic_shared()
{
    static unsigned char *const page = [] {
        void *p = mmap(NULL, static_cast<size_t>(sysconf(_SC_PAGESIZE)), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return p == MAP_FAILED ? static_cast<unsigned char *>(NULL) : static_cast<unsigned char *>(p);
    }();
    return page;
}

/* Owns a CPU thread's worker: freed (stacks unmapped) when the thread ends. */
struct worker_owner {
    worker *w = NULL;
    ~worker_owner()
    {
        if (w == NULL)
            return;
        const size_t guard = STACK_GUARD;
        for (size_t i = 0; i < w->all.size(); ++i) {
#ifdef GPUH_IMPL_SIM_ASAN
            __asan_unpoison_memory_region(w->all[i]->lo, w->all[i]->size);
#endif
            munmap(w->all[i]->lo - guard, w->all[i]->size + guard);
#ifdef GPUH_IMPL_SIM_TSAN
            __tsan_destroy_fiber(w->all[i]->tsan_fiber);
#endif
            delete w->all[i];
        }
        free(w->dynamic_shared);
        if (w->alt_stack != NULL) {
            stack_t off;
            memset(&off, 0, sizeof off);
            off.ss_flags = SS_DISABLE;
            sigaltstack(&off, NULL);
            free(w->alt_stack);
        }
        delete w->block;
        delete w;
        thread_state().w = NULL;
    }
};

inline worker &this_worker()
{
    static thread_local worker_owner owner;
    thread_view &v = thread_state();
    if (v.w == NULL) {
        v.w = owner.w = new worker();
        v.w->block = new block_state();
        v.w->block->tid_shape = dim3(0, 0, 0);
        v.w->block->order_forward = 0;
        v.w->dynamic_shared = NULL;
        v.w->dynamic_shared_bytes = 0;
        v.w->sched_fake = NULL;
        v.w->sched_lo = NULL;
        v.w->sched_size = 0;
        v.w->sched_tsan = NULL;
        v.w->alt_stack = NULL;
#ifndef GPUH_IMPL_SIM_ASAN
        stack_t now;
        if (sigaltstack(NULL, &now) == 0 && (now.ss_flags & SS_DISABLE)) { /* the program's own one stays */
            stack_t alt;
            memset(&alt, 0, sizeof alt);
            alt.ss_size = 64 * 1024;
            alt.ss_sp = v.w->alt_stack = malloc(alt.ss_size);
            if (alt.ss_sp == NULL || sigaltstack(&alt, NULL) != 0) {
                free(v.w->alt_stack);
                v.w->alt_stack = NULL;
            }
        }
#endif
    }
    return *v.w;
}

/* Stops the launch's other blocks and records err: a kernel failure
   (cudaErrorLaunchFailure, cudaErrorIllegalAddress) is sticky, as after a GPU
   fault; running out of host memory is not. */
inline void fail_launch(launch_job &job, cudaError_t err)
{
    int none = 0;
    job.failed.compare_exchange_strong(none, static_cast<int>(err));
    if (err == cudaErrorLaunchFailure || err == cudaErrorIllegalAddress) {
        std::lock_guard<std::mutex> g(runtime_state().m);
        runtime_state().sticky = err;
    }
}

/* The floating-point environment kernels run in, whatever the host thread's
   is: round to nearest, exceptions masked (a GPU rounds per instruction and
   traps on nothing). The thread's own environment comes back at the end. */
struct default_fp_env {
    fenv_t saved;
    default_fp_env()
    {
        fegetenv(&saved);
        fesetenv(FE_DFL_ENV);
    }
    ~default_fp_env() { fesetenv(&saved); }
};

/* The blocks of this shape that an H200 keeps resident at once: 132 SMs,
   each with up to 32 blocks, 2048 threads and 228 KiB of shared memory (the
   dynamic part and 1 KiB the system keeps per block; static shared memory
   is not known here). A program sized for a GPU fits in it. */
inline int resident_blocks(dim3 block, size_t shmem)
{
    const unsigned threads = block.x * block.y * block.z;
    int per_sm = std::min<int>(32, static_cast<int>(2048 / std::max(threads, 1u)));
    per_sm = std::min<int>(per_sm, static_cast<int>((228 * 1024) / (shmem + 1024)));
    return 132 * std::max(per_sm, 1);
}

/* Runs blocks of job until none is left (every worker and the launching thread). */
inline void run_blocks(launch_job &job)
{
    const default_fp_env fp_env;
    worker &w = this_worker();
    thread_view &v = thread_state();
    blockDim = job.block;
    gridDim = job.grid;
    if (job.shmem > w.dynamic_shared_bytes || (job.shmem < w.dynamic_shared_bytes && job.shmem > 0)) {
        free(w.dynamic_shared); /* sized exactly, so that ASan sees an overflow of it */
        w.dynamic_shared = static_cast<unsigned char *>(malloc(job.shmem));
        w.dynamic_shared_bytes = w.dynamic_shared != NULL ? job.shmem : 0;
        if (w.dynamic_shared == NULL && job.shmem > 0) {
            fprintf(stderr, "gpuh sim: out of memory for %zu bytes of dynamic shared memory\n", job.shmem);
            fail_launch(job, cudaErrorMemoryAllocation);
            return;
        }
    }
    /* a launch with no dynamic shared memory gets none: not the previous launch's buffer */
    v.dynamic_shared = job.shmem > 0 ? w.dynamic_shared : no_dynamic_shared();
    shared_range &range = shared_range_holder<0>::r;
    range.dynamic_lo = reinterpret_cast<uintptr_t>(w.dynamic_shared);
    range.dynamic_bytes = job.shmem;
    range.tls_span = program_tls_span();
    w.job = &job;
    for (;;) {
        uint64_t first = job.next.fetch_add(job.chunk);
        if (first >= job.blocks || job.failed.load())
            break;
        uint64_t last = std::min(job.blocks, first + job.chunk);
        for (uint64_t blk = first; blk < last; ++blk) {
            const cudaError_t err = run_block(w, job, blk);
            if (err != cudaSuccess) {
                fail_launch(job, err);
                w.job = NULL;
                range = shared_range();
                return;
            }
            job.finished.fetch_add(1, std::memory_order_relaxed);
        }
    }
    w.job = NULL; /* the job lives in its launcher's frame, which ends when the launch returns */
    range = shared_range();
}

/* The pool of CPU workers: runtime_state().threads - 1 threads, and each launching
   thread works on its own launch. Several host threads may launch at once:
   every launch is a job of its own on the list, a pool thread takes blocks of
   any job that has some left, and a launch returns once its job is off the
   list and no pool thread still runs one of its blocks (the job lives in the
   launcher's frame). */
/* Thread stacks the pool threads may map in all. Each stack is two
   mappings (the stack and its guard), and Linux allows a process
   vm.max_map_count of them (65530 by default): 132 CPU threads with a
   stack for each of 1024 or even 256 threads of a block would pass it, and
   the launch fail with cudaErrorMemoryAllocation. So a pool thread joins a
   launch only while the stacks its blocks need fit in this budget (a quarter
   of the mappings left to the program and the launching threads); the
   launch then runs on fewer CPU threads, said once. */
inline size_t stack_budget()
{
    static const size_t n = [] {
        long max_maps = 65530;
        if (FILE *f = fopen("/proc/sys/vm/max_map_count", "r")) {
            if (fscanf(f, "%ld", &max_maps) != 1)
                max_maps = 65530;
            fclose(f);
        }
        return static_cast<size_t>(std::max<long>(max_maps / 4 * 3 / 2, 2048));
    }();
    return n;
}
struct host_thread_pool {
    std::mutex m;
    std::condition_variable wake, finished;
    std::vector<std::thread> threads;
    std::vector<launch_job *> jobs;
    bool quit = false, short_of_threads = false, short_of_stacks = false;
    size_t promised = 0;     /* stacks promised to pool threads (worker::promised), under m */
    size_t extra_stacks = 0; /* stacks of the watch's threads now running (see watch), under m */
    /* under m: whether the calling pool thread may run blocks of j, its stacks in the budget */
    bool may_run(const launch_job &j)
    {
        worker &w = this_worker();
        const size_t need = static_cast<size_t>(j.block.x) * j.block.y * j.block.z;
        if (need <= w.promised)
            return true;
        if (promised + extra_stacks + (need - w.promised) > stack_budget()) {
            if (!short_of_stacks)
                fprintf(stderr, "gpuh sim: room for %zu thread stacks (vm.max_map_count): blocks of %zu threads "
                                "run on fewer CPU threads than the %d asked for\n",
                        stack_budget(), need, runtime_state().threads);
            short_of_stacks = true;
            return false;
        }
        promised += need - w.promised;
        w.promised = need;
        return true;
    }
    launch_job *open_job() /* under m */
    {
        for (size_t i = 0; i < jobs.size(); ++i)
            if (jobs[i]->next.load() < jobs[i]->blocks && jobs[i]->failed.load() == 0 && may_run(*jobs[i]))
                return jobs[i];
        return NULL;
    }
    void loop()
    {
        std::unique_lock<std::mutex> g(m);
        for (;;) {
            launch_job *j = NULL;
            wake.wait(g, [&] { return quit || (j = open_job()) != NULL; });
            if (quit)
                return;
            ++j->active;
            g.unlock();
            run_blocks(*j);
            g.lock();
            if (--j->active == 0)
                finished.notify_all();
        }
    }
    /* under m: starts the pool threads not running; a system that refuses
       a thread leaves fewer (said once), and the launching threads do the rest */
    void start_threads()
    {
        while (!short_of_threads && static_cast<int>(threads.size()) < runtime_state().threads - 1) {
            try {
                threads.push_back(std::thread([this] { loop(); }));
            } catch (const std::system_error &e) {
                short_of_threads = true;
                fprintf(stderr, "gpuh sim: could not start CPU thread %zu of %d (%s); running blocks on %zu\n",
                        threads.size() + 2, runtime_state().threads, e.what(), threads.size() + 1);
            }
        }
    }
    /* The watch: CUDA does not promise that a grid's blocks run at once, but
       a GPU runs as many as fit, and programs rely on it (persistent kernels,
       flags between blocks, hand-written grid barriers). The pool runs as
       many blocks as it has CPU threads; when a launch with blocks still to
       start has finished none for WATCH_STALL_MS, its blocks may be waiting
       for blocks that have not started, so the watch starts more CPU threads
       for it (doubling each time) up to the blocks that fit on an H200 at
       once (resident_blocks). When even those have finished nothing for
       WATCH_REPORT_S, it says so once, naming the kernel: blocks that wait
       for more blocks than fit deadlock on a GPU too. */
    enum { WATCH_STALL_MS = 200, WATCH_REPORT_S = 10, WATCH_MAX_EXTRA = 2048 };
    std::thread watcher;
    std::condition_variable watch_wake;
    int extra_threads = 0; /* the watch's threads now running, under m */
    void watch()
    {
        std::unique_lock<std::mutex> g(m);
        while (!quit) {
            watch_wake.wait_for(g, std::chrono::milliseconds(WATCH_STALL_MS / 2));
            const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();
            for (size_t i = 0; i < jobs.size(); ++i) {
                launch_job &j = *jobs[i];
                const uint64_t done = j.finished.load(std::memory_order_relaxed);
                if (done != j.seen_finished || j.failed.load() != 0) {
                    j.seen_finished = done;
                    j.seen_spins = j.spins.load(std::memory_order_relaxed);
                    j.seen_at = now;
                    continue;
                }
                const uint64_t started = std::min(j.next.load(), j.blocks);
                const long long idle_ms =
                    std::chrono::duration_cast<std::chrono::milliseconds>(now - j.seen_at).count();
                const uint64_t fit = static_cast<uint64_t>(resident_blocks(j.block, j.shmem));
                const size_t need = static_cast<size_t>(j.block.x) * j.block.y * j.block.z;
                /* blocks running: one per CPU thread on the launch (blocks are taken in chunks) */
                const uint64_t running = std::min<uint64_t>(started - done, static_cast<uint64_t>(j.active) + 1);
                if (started < j.blocks && running < fit &&
                    now - std::max(j.seen_at, j.grown_at) >= std::chrono::milliseconds(WATCH_STALL_MS)) {
                    uint64_t more = std::min<uint64_t>(std::max<uint64_t>(running, 1), fit - running);
                    more = std::min<uint64_t>(more, j.blocks - started);
                    /* within the stacks the pool's threads leave: past them a
                       block's thread stacks could not be had, and the launch
                       would fail where fewer threads finish it */
                    while (more-- > 0 && extra_threads < WATCH_MAX_EXTRA &&
                           promised + extra_stacks + need <= stack_budget()) {
                        ++j.active; /* the job outlives the thread: run() waits for active == 0 */
                        ++j.extra;
                        ++extra_threads;
                        extra_stacks += need;
                        try {
                            std::thread([this, &j, need] {
                                run_blocks(j);
                                std::lock_guard<std::mutex> lock(m);
                                --extra_threads;
                                extra_stacks -= need;
                                if (--j.active == 0)
                                    finished.notify_all();
                            }).detach();
                        } catch (const std::system_error &) {
                            --j.active;
                            --j.extra;
                            --extra_threads;
                            extra_stacks -= need;
                            break;
                        }
                    }
                    j.grown_at = now; /* give them time before growing again */
                }
                /* stuck: blocks wait to start (or needed the watch's threads), none has
                   finished for the deadline, and its threads spin: the launch fails */
                const uint64_t spun = j.spins.load(std::memory_order_relaxed) - j.seen_spins;
                if (!j.reported && idle_ms >= deadlock_ms() && running > 0 && (started < j.blocks || j.extra > 0) &&
                    spun >= 64) {
                    j.reported = true;
                    fprintf(stderr,
                            "gpuh sim: deadlock in kernel %s (launched at %s:%d): no block has finished for %.3g s "
                            "while %llu blocks spin and %llu of its %llu blocks wait to start (at most %llu fit on a "
                            "GPU at once); blocks that wait for blocks that cannot start hang on a GPU too; the "
                            "launch fails with cudaErrorLaunchTimeout\n",
                            j.kernel, j.file, j.line, deadlock_ms() / 1000.0, static_cast<unsigned long long>(running),
                            static_cast<unsigned long long>(j.blocks - started),
                            static_cast<unsigned long long>(j.blocks), static_cast<unsigned long long>(fit));
                    int none = 0;
                    j.failed.compare_exchange_strong(none, static_cast<int>(cudaErrorLaunchTimeout));
                    std::lock_guard<std::mutex> lock(runtime_state().m); /* sticky, as after a GPU's watchdog */
                    runtime_state().sticky = cudaErrorLaunchTimeout;
                }
            }
        }
    }
    /* GPUH_SIM_DEADLOCK_S in milliseconds (default 10 s), read once. */
    static long long deadlock_ms()
    {
        static const long long ms = [] {
            const char *e = getenv("GPUH_SIM_DEADLOCK_S");
            const double v = e ? atof(e) : 0;
            if (e && !(v > 0 && v <= 86400))
                fprintf(stderr, "gpuh sim: GPUH_SIM_DEADLOCK_S=%s is not a number of seconds; using 10\n", e);
            return v > 0 && v <= 86400 ? static_cast<long long>(v * 1000) : 10000LL;
        }();
        return ms;
    }
    void run(launch_job &j)
    {
        if (j.blocks <= 1) {
            run_blocks(j);
            return;
        }
        {
            std::lock_guard<std::mutex> g(m);
            start_threads();
            if (!watcher.joinable()) {
                try {
                    watcher = std::thread([this] { watch(); });
                } catch (const std::system_error &) { /* no watch: blocks that wait for others may hang */
                }
            }
            jobs.push_back(&j);
        }
        wake.notify_all();
        run_blocks(j);
        std::unique_lock<std::mutex> g(m);
        jobs.erase(std::find(jobs.begin(), jobs.end(), &j));
        finished.wait(g, [&] { return j.active == 0; });
    }
    ~host_thread_pool()
    {
        {
            std::lock_guard<std::mutex> g(m);
            quit = true;
        }
        wake.notify_all();
        watch_wake.notify_all();
        for (size_t i = 0; i < threads.size(); ++i)
            threads[i].join();
        if (watcher.joinable())
            watcher.join();
    }
};
inline host_thread_pool &host_threads()
{
    static host_thread_pool p;
    return p;
}

#ifdef GPUH_IMPL_SIM_ASAN
/* ASan's death callback: name the simulated thread that was running. */
inline void asan_death()
{
    const thread_view &v = thread_state();
    if (v.w == NULL || v.w->job == NULL || v.w->current == NULL || v.w->current->thread < 0)
        return;
    char t[64];
    format_thread(t, sizeof t, blockDim, v.lin);
    fprintf(stderr, "gpuh sim: the fault above happened in kernel %s (launched at %s:%d), block (%u, %u, %u), %s\n"
                    "gpuh sim: if it is a stack-overflow: each simulated thread has %zu KiB of stack; "
                    "raise GPUH_SIM_STACK_KB\n",
            v.w->job->kernel, v.w->job->file, v.w->job->line, blockIdx.x, blockIdx.y, blockIdx.z, t,
            runtime_state().stack_bytes / 1024);
}
#else
inline struct sigaction &previous_segv()
{
    static struct sigaction a;
    return a;
}
/* SIGSEGV in a simulated thread: name the kernel, block and thread, and say
   when the address is in the guard below the thread's stack (an overflow) or
   in the dynamic shared memory of a launch that asked for none; then abandon
   the thread (its block fails, the launch returns cudaErrorIllegalAddress,
   sticky, as after a GPU fault) and go on. A fault elsewhere goes to the
   previous handler: it recurs on return. */
inline void on_segv(int sig, siginfo_t *info, void *context)
{
    (void)sig;
    (void)context;
    const thread_view &v = thread_state();
    if (v.w != NULL && v.w->job != NULL && v.w->current != NULL && v.w->current->thread >= 0) {
        const uintptr_t a = reinterpret_cast<uintptr_t>(info->si_addr), lo = reinterpret_cast<uintptr_t>(v.w->current->lo);
        const uintptr_t none = reinterpret_cast<uintptr_t>(no_dynamic_shared());
        char t[64], msg[768];
        format_thread(t, sizeof t, blockDim, v.lin);
        int k = snprintf(msg, sizeof msg,
                         "gpuh sim: segmentation fault in kernel %s (launched at %s:%d), block (%u, %u, %u), %s\n",
                         v.w->job->kernel, v.w->job->file, v.w->job->line, blockIdx.x, blockIdx.y, blockIdx.z, t);
        if (k > 0 && static_cast<size_t>(k) < sizeof msg && a < lo && lo - a <= STACK_GUARD)
            snprintf(msg + k, sizeof msg - k,
                     "gpuh sim:   the thread's stack overflowed: it has %zu KiB (GPUH_SIM_STACK_KB); CUDA allows "
                     "512 KiB of local memory per thread: raise GPUH_SIM_STACK_KB\n", runtime_state().stack_bytes / 1024);
        else if (k > 0 && static_cast<size_t>(k) < sizeof msg && a - none < static_cast<uintptr_t>(sysconf(_SC_PAGESIZE)))
            snprintf(msg + k, sizeof msg - k,
                     "gpuh sim:   it used dynamic shared memory, but the launch asked for 0 bytes of it\n");
        if (write(2, msg, strlen(msg)) < 0)
            msg[0] = 0;
        v.w->block->fault = cudaErrorIllegalAddress;
        v.w->block->state[v.lin] = T_FAULT;
        to_scheduler(*v.w, v.w->current); /* never resumed: reset_runners remakes its fiber */
    }
    sigaction(SIGSEGV, &previous_segv(), NULL);
}
#endif

inline int lookup_or(const std::map<const void *, int> &m, const void *key, int fallback)
{
    std::map<const void *, int>::const_iterator it = m.find(key);
    return it == m.end() ? fallback : it->second;
}

enum { SHMEM_DEFAULT = 48 * 1024, SHMEM_OPTIN = 227 * 1024, SMS_SHMEM = 228 * 1024 };

inline cudaError_t check_stream(cudaStream_t s);
inline int stream_device(cudaStream_t s);
inline int &current_device();
inline bool run_cooperative_if_asked(launch_job &job); /* in [SECTION: LAUNCH CHECKS] */

/* CUDA's limit on how deep launches from kernels nest (a grid the host
   launched is at depth 0). */
enum { MAX_LAUNCH_DEPTH = 24 };

inline void run_grid(const grid_launch &g, int depth);
inline void keep_child_launch(const grid_launch &g, cudaStream_t stream, size_t closure_bytes);

/* Checks a launch as CUDA 13 does and runs it: every block to completion,
   then the grids its threads launched. A launch from a kernel is checked the
   same way and kept for later (keep_child_launch). closure_bytes: the size of
   *closure, which a launch from a kernel copies. */
inline void launch(const char *kernel, const char *file, int line, const void *key, dim3 grid, dim3 block,
                   size_t shmem, cudaStream_t stream, void (*thunk)(const void *), const void *closure,
                   size_t closure_bytes)
{
    static std::once_flag once;
#ifdef GPUH_IMPL_SIM_ASAN
    std::call_once(once, [] { __sanitizer_set_death_callback(asan_death); });
#else
    std::call_once(once, [] {
        struct sigaction a;
        memset(&a, 0, sizeof a);
        a.sa_sigaction = on_segv;
        a.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER; /* the handler leaves by a fiber switch */
        sigemptyset(&a.sa_mask);
        sigaction(SIGSEGV, &a, &previous_segv());
    });
#endif
    if (sticky() != cudaSuccess) {
        record_error(sticky());
        return;
    }
    if (check_stream(stream) != cudaSuccess) /* recorded as the last error */
        return;
    if (!in_kernel() && stream_device(stream) != current_device()) { /* the Programming Guide's rule */
        record_error(cudaErrorInvalidResourceHandle);
        return;
    }
    const uint64_t threads = static_cast<uint64_t>(block.x) * block.y * block.z;
    int max_dyn, max_threads;
    {
        std::lock_guard<std::mutex> g(runtime_state().m);
        max_dyn = key ? lookup_or(runtime_state().max_dyn_shmem, key, SHMEM_DEFAULT) : SHMEM_OPTIN;
        max_threads = key ? lookup_or(runtime_state().bounds, key, 1024) : 1024;
    }
    /* CUDA 13 on an H200 returns cudaErrorInvalidValue for every one of these
       (tests/test_sim.cu checks the same cases on a GPU), including a block
       beyond the kernel's __launch_bounds__. */
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || block.x == 0 || block.y == 0 || block.z == 0 ||
        grid.x > 2147483647u || grid.y > 65535u || grid.z > 65535u || threads > 1024 || block.x > 1024 ||
        block.y > 1024 || block.z > 64 || shmem > static_cast<size_t>(max_dyn) ||
        threads > static_cast<uint64_t>(max_threads)) {
        record_error(cudaErrorInvalidValue);
        return;
    }
    const grid_launch g = {kernel, file, line, grid, block, shmem, thunk, closure};
    if (in_kernel())
        keep_child_launch(g, stream, closure_bytes);
    else
        run_grid(g, 0);
}

/* Runs the children a grid's threads launched, in the order they launched
   them (launches into one stream run in that order on a GPU too; grids in
   different streams may run in any order), then its tail launches, which
   CUDA starts once the grid and all the work it launched are complete. Each
   child runs its own children before the next starts. A child is skipped
   once the context has a sticky error or the parent failed. */
inline void run_children(launch_job &job)
{
    for (int tail = 0; tail < 2; ++tail) {
        std::vector<grid_launch> &list = tail ? job.tail : job.children;
        for (size_t i = 0; i < list.size(); ++i) {
            if (job.failed.load() == 0 && sticky() == cudaSuccess)
                run_grid(list[i], job.depth + 1);
            free(const_cast<void *>(list[i].closure)); /* keep_child_launch's copy */
        }
        list.clear();
    }
}

/* Runs a checked launch: every block, then its children; a failure is the
   launching host thread's last error. */
inline void run_grid(const grid_launch &g, int depth)
{
    launch_job job;
    static_cast<grid_launch &>(job) = g;
    job.blocks = static_cast<uint64_t>(g.grid.x) * g.grid.y * g.grid.z;
    /* blocks that fit on the device at once are taken one at a time: one of
       them may wait for another (see host_thread_pool::watch) */
    job.chunk = job.blocks <= static_cast<uint64_t>(resident_blocks(g.block, g.shmem))
                    ? 1
                    : std::max<uint64_t>(1, job.blocks / (static_cast<uint64_t>(runtime_state().threads) * 16));
    job.next.store(0);
    job.failed.store(0);
    job.active = 0;
    job.finished.store(0);
    job.seen_finished = job.seen_spins = 0;
    job.spins.store(0);
    job.seen_at = job.grown_at = std::chrono::steady_clock::now();
    job.extra = 0;
    job.reported = false;
    job.depth = depth;
    if (!run_cooperative_if_asked(job)) /* cudaLaunchCooperativeKernel: every block at once */
        host_threads().run(job);
    run_children(job);
    if (job.failed.load() != 0) /* the launching thread's last error, whichever thread ran the block */
        record_error(static_cast<cudaError_t>(job.failed.load()));
}

/* A launch from a kernel, already checked: copied (the closure holds the
   arguments as at the launch) onto the running grid's list of children, or of
   tail launches for cudaStreamTailLaunch. A launch nested deeper than CUDA
   allows is the launching thread's error cudaErrorLaunchMaxDepthExceeded. */
inline void keep_child_launch(const grid_launch &g, cudaStream_t stream, size_t closure_bytes)
{
    launch_job &parent = *thread_state().w->job;
    if (parent.depth + 1 > MAX_LAUNCH_DEPTH) {
        record_error(cudaErrorLaunchMaxDepthExceeded);
        return;
    }
    void *copy = NULL;
    if (posix_memalign(&copy, 64, std::max<size_t>(closure_bytes, 1)) != 0) {
        record_error(cudaErrorMemoryAllocation);
        return;
    }
    memcpy(copy, g.closure, closure_bytes);
    grid_launch c = g;
    c.closure = copy;
    std::lock_guard<std::mutex> lock(parent.children_m);
    (stream == cudaStreamTailLaunch ? parent.tail : parent.children).push_back(c);
}

template <class L> void call_closure(const void *closure) { (*static_cast<const L *>(closure))(); }

/* In [SECTION: LAUNCH CHECKS]. */
inline bool launch_allowed(const char *kernel, const char *file, int line, const void *const *ptrs, int n);
inline cudaError_t symbol_copy(char *sym, size_t size, size_t offset, void *other, size_t bytes,
                               enum cudaMemcpyKind kind, bool to_symbol);
template <class A> inline const void *object_pointer(const A &a, typename std::enable_if<
    std::is_pointer<A>::value && std::is_object<typename std::remove_pointer<A>::type>::value>::type * = 0)
{
    return const_cast<const void *>(static_cast<const volatile void *>(a));
}
template <class A> inline const void *object_pointer(const A &, typename std::enable_if<
    !(std::is_pointer<A>::value && std::is_object<typename std::remove_pointer<A>::type>::value)>::type * = 0)
{
    return NULL;
}

/* One simulated thread's copy of one kernel argument: the launch's value,
   copied as bytes (CUDA copies a kernel's arguments to the device bytewise
   and runs no constructor or destructor there). */
template <class A> struct arg_bytes {
    alignas(A) unsigned char b[sizeof(A)];
    explicit arg_bytes(const A &a) { memcpy(b, static_cast<const void *>(&a), sizeof(A)); }
    A &get() { return *reinterpret_cast<A *>(b); }
};
/* How a parameter of type P receives that copy: a type copied by its bytes
   and destroyed by nothing is passed by value; a reference binds to the copy;
   a class with a copy constructor or destructor is passed by reference, which
   is how the x86-64 and AArch64 C++ ABIs pass such a class by value anyway,
   so the kernel sees the copy itself and nobody destroys it. */
template <class P> struct param_pass {
    typedef typename std::decay<P>::type A;
    typedef typename std::conditional<std::is_reference<P>::value || (std::is_trivially_copy_constructible<A>::value &&
                                                                       std::is_trivially_destructible<A>::value),
                                      P, A &>::type type;
};
template <class... P> struct kernel_args {
    template <class... B> static void call_copies(void (*f)(typename param_pass<P>::type...), B... b)
    {
        f(b.get()...);
    }
    static void call(void (*kernel)(P...), const typename std::decay<P>::type &...args)
    {
        call_copies(reinterpret_cast<void (*)(typename param_pass<P>::type...)>(reinterpret_cast<void (*)()>(kernel)),
                    arg_bytes<typename std::decay<P>::type>(args)...);
    }
};

template <class F> const void *key_of(F f) { return reinterpret_cast<const void *>(f); }

/* Stream capture and graph memory (CUDA graphs, in the stand-in
   <cuda_runtime.h>'s gpuh_sim_graph.h, which sets capture_hook): while a
   stream captures, work issued to it is handed to the hook as a closure over
   the stream it will run in, instead of running. kind: CAPTURE_WORK; an event
   recorded in / waited for by the stream; an allocation or free in it
   (*ptr, bytes); CAPTURE_RELEASE, a free of *ptr outside any capture (a
   graph's memory keeps its address for the graph's next launch);
   CAPTURE_UNSUPPORTED, a call that a capturing stream cannot take
   (cudaStreamSynchronize, a peer copy): the capture is invalidated, as
   CUDA does, and the caller returns cudaErrorStreamCaptureUnsupported;
   CAPTURE_QUERY, whether the stream captures (nothing changes; *ptr is
   set non-NULL when the capture is invalidated). The hook
   returns true when it took the call (for the last two: when the stream
   is capturing). */
enum {
    CAPTURE_WORK,
    CAPTURE_EVENT_RECORD,
    CAPTURE_EVENT_WAIT,
    CAPTURE_ALLOC,
    CAPTURE_FREE,
    CAPTURE_RELEASE,
    CAPTURE_UNSUPPORTED,
    CAPTURE_QUERY
};
static const cudaError_t capture_unsupported = static_cast<cudaError_t>(900); /* cudaErrorStreamCaptureUnsupported */
typedef std::function<void(cudaStream_t)> stream_work;
typedef bool (*capture_fn)(int kind, cudaStream_t stream, cudaEvent_t event, stream_work *work, void **ptr,
                           size_t bytes);
inline std::atomic<capture_fn> &capture_hook()
{
    static std::atomic<capture_fn> h(NULL);
    return h;
}
inline bool captured(int kind, cudaStream_t stream, cudaEvent_t event, stream_work work, void **ptr = NULL,
                     size_t bytes = 0)
{
    const capture_fn h = capture_hook().load();
    return h != NULL && h(kind, stream, event, &work, ptr, bytes);
}
/* The closure is made only while a hook is set (no cost to a launch otherwise). */
#define GPUH_IMPL_SIM_CAPTURE(stream, ...)                                                                    \
    if (gpuh_sim_impl::capture_hook().load() != NULL &&                                                     \
        gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_WORK, (stream), NULL, [=](cudaStream_t gpuh_sim_s) { \
            (void)gpuh_sim_s;                                                                               \
            __VA_ARGS__;                                                                                    \
        }))

/* kernel<<<grid, block, shmem, stream>>>(args...): the arguments are
   converted to the kernel's parameter types once, at the launch, as CUDA
   does; every simulated thread gets its own bytewise copy of them
   (kernel_args below), and no constructor or destructor runs per thread. */
template <class... P>
void launch_call(const char *name, const char *file, int line, dim3 grid, dim3 block, size_t shmem,
                 cudaStream_t stream, void (*kernel)(P...), typename std::decay<P>::type... args)
{
    GPUH_IMPL_SIM_CAPTURE(stream, launch_call(name, file, line, grid, block, shmem, gpuh_sim_s, kernel, args...))
        return;
    const void *ptrs[] = {object_pointer(args)..., NULL};
    if (!launch_allowed(name, file, line, ptrs, static_cast<int>(sizeof...(P))))
        return;
    auto body = [=]() { kernel_args<P...>::call(kernel, args...); };
    launch(name, file, line, key_of(kernel), grid, block, shmem, stream, &call_closure<decltype(body)>, &body,
           sizeof body);
}

/* ---------------------------------------------------------------------------
   [SECTION: BARRIERS AND WARPS] The waiting thread yields its runner to the
   scheduler; the last to arrive releases the others. */

inline int sync_block(const char *what, const char *file, int line, int vote)
{
    thread_view &v = thread_state();
    worker &w = *v.w;
    block_state &b = *w.block;
    const int me = v.lin;
    call_site s = {what, file, line};
    b.state[me] = T_BARRIER;
    b.barrier_at[me] = s;
    b.vote[me] = vote;
    if (++b.at_barrier == b.n) {
        bool same = true;
        int votes = 0;
        for (int i = 0; i < b.n; ++i) {
            same = same && b.barrier_at[i].line == line && same_text(b.barrier_at[i].what, what) &&
                   same_text(b.barrier_at[i].file, file);
            votes += b.vote[i] != 0;
        }
        if (same) { /* everyone is here: release the block */
            b.at_barrier = 0;
            b.barrier_result = votes;
            for (int i = 0; i < b.n; ++i)
                b.state[i] = T_READY;
        }
    }
    pass_turn(w, b, w.current);
    return b.barrier_result;
}

inline uint64_t warp_op(int op, const char *what, const char *file, int line, unsigned mask, uint64_t value,
                        int param, int width)
{
    thread_view &v = thread_state();
    worker &w = *v.w;
    block_state &b = *w.block;
    const int me = v.lin, warp = me / 32, lane = me % 32, base = warp * 32;
    const int lanes = std::min(32, b.n - base);
    const unsigned exists = lanes == 32 ? 0xffffffffu : (1u << lanes) - 1u;
    const unsigned eff = mask & exists;
    if (op >= W_SHFL && op <= W_XOR && (width < 1 || width > 32 || (width & (width - 1)) != 0)) {
        char t[64];
        format_thread(t, sizeof t, blockDim, me);
        fprintf(stderr,
                "gpuh sim: warp misuse in kernel %s (launched at %s:%d), block (%u, %u, %u):\n"
                "gpuh sim:   %s (warp %d, lane %d) calls %s(0x%08x, ..., width %d) at %s:%d: "
                "the width must be a power of two from 1 to 32\n",
                w.job->kernel, w.job->file, w.job->line, blockIdx.x, blockIdx.y, blockIdx.z, t, warp, lane, what, mask,
                width,
                file, line);
        b.fault = cudaErrorLaunchFailure;
        b.state[me] = T_FAULT; /* never resumed: the block is abandoned */
        to_scheduler(w, w.current);
    }
    lane_op &l = b.lane[me];
    l.op = op;
    l.mask = mask;
    l.value = value;
    l.param = param;
    l.width = width;
    l.where.what = what;
    l.where.file = file;
    l.where.line = line;
    b.state[me] = T_WARP;
    b.warp_arrived[warp] |= 1u << lane;
    if ((b.warp_arrived[warp] & eff) == eff) {
        bool same = true;
        for (int k = 0; k < lanes; ++k)
            if (eff >> k & 1u)
                same = same && b.lane[base + k].op == op && b.lane[base + k].mask == mask;
        if (same)
            finish_warp_op(b, base, eff);
    }
    pass_turn(w, b, w.current);
    return l.result;
}

/* The reduction of kind (an R_ kind) over the 32-bit values of the lanes of
   eff in the warp starting at thread base: in 32 bits, an addition wrapping
   around as the GPU's does, a signed minimum or maximum comparing the bits as
   int. */
inline uint64_t warp_reduction(const block_state &b, int base, unsigned eff, int kind)
{
    uint32_t r = kind == R_MIN || kind == R_AND ? 0xffffffffu /* each one's identity */
               : kind == R_MIN_SIGNED           ? 0x7fffffffu
               : kind == R_MAX_SIGNED           ? 0x80000000u
                                                : 0u;
    for (unsigned m = eff; m != 0; m &= m - 1) {
        const uint32_t v = static_cast<uint32_t>(b.lane[base + __builtin_ctz(m)].value);
        switch (kind) {
        case R_ADD: r += v; break;
        case R_MIN: r = v < r ? v : r; break;
        case R_MAX: r = v > r ? v : r; break;
        case R_MIN_SIGNED: r = static_cast<int32_t>(v) < static_cast<int32_t>(r) ? v : r; break;
        case R_MAX_SIGNED: r = static_cast<int32_t>(v) > static_cast<int32_t>(r) ? v : r; break;
        case R_AND: r &= v; break;
        case R_OR: r |= v; break;
        default: r ^= v; break;
        }
    }
    return r;
}

/* Gives every lane of eff (all waiting at one warp operation, of the warp
   starting at thread base) its result and lets it run on. Lanes outside eff
   (not in the mask, or exited) give nothing: a ballot counts them as 0. */
inline void finish_warp_op(block_state &b, int base, unsigned eff)
{
    const int lanes = std::min(32, b.n - base);
    uint64_t ballot = 0, reduced = 0;
    int reduced_kind = -1;
    for (int k = 0; k < lanes; ++k)
        if (eff >> k & 1u)
            ballot |= static_cast<uint64_t>(b.lane[base + k].value != 0) << k;
    for (int k = 0; k < lanes; ++k) {
        if (!(eff >> k & 1u))
            continue;
        lane_op &o = b.lane[base + k];
        /* the width is a power of two (warp_op checks it): a mask, not a division */
        const int op = o.op, wd = o.width, seg = k & -wd;
        int src = k;
        switch (op) {
        case W_SHFL: src = seg + (o.param & (wd - 1)); break;
        case W_UP: src = k - seg >= o.param ? k - o.param : k; break;
        case W_DOWN: src = k - seg + o.param < wd ? k + o.param : k; break;
        case W_XOR: src = (k ^ o.param) < seg + wd ? k ^ o.param : k; break;
        default: break;
        }
        if (src >= lanes || !(eff >> src & 1u))
            src = k; /* an inactive or exited source: undefined on a GPU; the lane's own value here */
        uint64_t same = 0;
        if (op == W_MATCH)
            for (int j = 0; j < lanes; ++j)
                same |= static_cast<uint64_t>((eff >> j & 1u) && b.lane[base + j].value == o.value) << j;
        if (op == W_REDUCE && o.param != reduced_kind) { /* once per kind, not once per lane */
            reduced_kind = o.param;
            reduced = warp_reduction(b, base, eff, o.param);
        }
        o.result = op == W_MATCH  ? same
                 : op == W_REDUCE ? reduced
                 : op == W_BALLOT ? ballot
                 : op == W_ANY    ? (ballot != 0)
                 : op == W_ALL    ? (ballot == eff)
                                  : b.lane[base + src].value;
        b.state[base + k] = T_READY;
    }
    b.warp_arrived[base / 32] &= ~eff;
}

template <class T> inline uint64_t to_bits(T v)
{
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value, "warp shuffles move up to 8 bytes");
    uint64_t u = 0;
    memcpy(&u, &v, sizeof v);
    return u;
}
template <class T> inline T from_bits(uint64_t u)
{
    T v;
    memcpy(&v, &u, sizeof v);
    return v;
}

template <class T> inline T shfl(const char *what, int op, const char *file, int line, unsigned mask, T v, int p,
                                 int width = 32)
{
    return from_bits<T>(warp_op(op, what, file, line, mask, to_bits(v), p, width));
}

/* Atomics: GCC/Clang builtins on integers, compare-and-swap loops on floats
   (and for min, max and the others, which have no builtin). An atomic on the
   running block's shared memory is a plain read-modify-write: only this CPU
   thread touches that memory while the block runs, one simulated thread at
   a time, and a locked instruction would also stall the loads around it
   (a shared-memory histogram's, a reduction's). */
typedef std::true_type integer_atomic;
typedef std::false_type float_atomic;

/* Bytes of the program's own thread-local storage, which lies just below
   the thread pointer on x86-64 (the ELF TLS ABI, variant II); static
   __shared__ variables are in it. 0 where that cannot be read. */
inline size_t program_tls_span()
{
    static const size_t span = [] {
        size_t n = 0;
#if defined(__x86_64__)
        dl_iterate_phdr(
            [](struct dl_phdr_info *info, size_t, void *out) {
                for (int i = 0; i < info->dlpi_phnum; ++i)
                    if (info->dlpi_phdr[i].p_type == PT_TLS) {
                        const size_t align = std::max<size_t>(info->dlpi_phdr[i].p_align, 1);
                        *static_cast<size_t *>(out) = (info->dlpi_phdr[i].p_memsz + align - 1) / align * align;
                    }
                return 1; /* the first object is the program */
            },
            &n);
#endif
        return n;
    }();
    return span;
}
/* Whether p is in the shared memory of the block this CPU thread runs (its
   dynamic buffer, or a static __shared__ variable). */
inline bool block_private(const volatile void *p)
{
    const shared_range &r = shared_range_holder<0>::r;
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    if (a - r.dynamic_lo < r.dynamic_bytes)
        return true;
#if defined(__x86_64__)
    uintptr_t tp;
    __asm__("movq %%fs:0, %0" : "=r"(tp));
    return tp - a - 1 < r.tls_span;
#else
    return false;
#endif
}
/* f(old) stored at addr, atomically; old returned. */
template <class T, class F> inline T atomic_update(T *addr, F f)
{
    if (block_private(addr)) {
        const T o = *addr;
        *addr = f(o);
        return o;
    }
    return atomic_cas_loop(addr, f);
}
template <class T> inline T atomic_add_of(T *addr, T v, integer_atomic)
{
    if (block_private(addr)) {
        const T o = *addr;
        *addr = static_cast<T>(o + v);
        return o;
    }
    return __atomic_fetch_add(addr, v, __ATOMIC_SEQ_CST);
}
template <class T> inline T atomic_sub_of(T *addr, T v, integer_atomic)
{
    if (block_private(addr)) {
        const T o = *addr;
        *addr = static_cast<T>(o - v);
        return o;
    }
    return __atomic_fetch_sub(addr, v, __ATOMIC_SEQ_CST);
}
template <class T> inline T atomic_add_of(T *addr, T v, float_atomic)
{
    return atomic_update(addr, [v](T o) { return static_cast<T>(o + v); });
}
template <class T> inline T atomic_sub_of(T *addr, T v, float_atomic)
{
    return atomic_update(addr, [v](T o) { return static_cast<T>(o - v); });
}
template <class T> inline T atomic_add(T *addr, T v)
{
    return atomic_add_of(addr, v, std::integral_constant<bool, std::is_integral<T>::value>());
}
template <class T> inline T atomic_sub(T *addr, T v)
{
    return atomic_sub_of(addr, v, std::integral_constant<bool, std::is_integral<T>::value>());
}
template <class T, class F> inline T atomic_cas_loop(T *addr, F f)
{
    typedef typename std::conditional<sizeof(T) == 4, uint32_t, uint64_t>::type U;
    U *p = reinterpret_cast<U *>(addr);
    U old = __atomic_load_n(p, __ATOMIC_RELAXED), want;
    do {
        T o;
        memcpy(&o, &old, sizeof o);
        T n = f(o);
        memcpy(&want, &n, sizeof want);
    } while (!__atomic_compare_exchange_n(p, &old, want, true, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
    T o;
    memcpy(&o, &old, sizeof o);
    return o;
}


/* ---------------------------------------------------------------------------
   __syncwarp(mask = all lanes): the macro captures the call site, this object
   takes the optional mask. */
struct syncwarp_at {
    const char *file;
    int line;
    syncwarp_at(const char *f, int l) : file(f), line(l) {}
    void operator()(unsigned mask = 0xffffffffu) const { warp_op(W_SYNC, "__syncwarp", file, line, mask, 0, 0, 32); }
};
/* The block size (a multiple of 32, at most limit) that keeps the most threads
   resident on an SM, and the grid that fills the device with it. */
template <class F> inline cudaError_t potential_block(int *min_grid, int *block, int limit, F blocks_at)
{
    int best = 0, best_b = 0, sms = 0;
    if (min_grid == NULL || block == NULL)
        return record_error(cudaErrorInvalidValue);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    for (int b = 32; b <= (limit > 0 ? limit : 1024); b += 32) {
        int n = 0;
        cudaError_t err = blocks_at(&n, b);
        if (err != cudaSuccess)
            return err;
        if (n * b > best) {
            best = n * b;
            best_b = b;
        }
    }
    *block = best_b;
    *min_grid = best_b ? best / best_b * sms : 0;
    return cudaSuccess;
}
/* ---------------------------------------------------------------------------
   [SECTION: MEMORY LEDGER] Every allocation and registration the program
   made, with its kind; the checks of copies and handles. */

/* The allocation holding p, or NULL; *base gets its start. */
inline const alloc_info *find_alloc(const void *p, uintptr_t *base)
{
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    std::map<uintptr_t, alloc_info> &m = runtime_state().allocs;
    std::map<uintptr_t, alloc_info>::iterator it = m.upper_bound(a);
    if (it == m.begin())
        return NULL;
    --it;
    if (a >= it->first + std::max<size_t>(it->second.bytes, 1))
        return NULL;
    *base = it->first;
    return &it->second;
}
/* Whether [p, p + bytes) lies inside the allocation a that starts at base,
   computed without forming p + bytes (which wraps for an absurd count). */
inline bool range_inside(const alloc_info *a, uintptr_t base, const void *p, size_t bytes)
{
    const uintptr_t at = reinterpret_cast<uintptr_t>(p);
    return a != NULL && at >= base && at - base <= a->bytes && bytes <= a->bytes - (at - base);
}
/* cudaSuccess for the default stream (NULL) or a live stream; a destroyed or
   made-up handle is recorded and returned as cudaErrorInvalidResourceHandle. */
inline cudaError_t check_stream(cudaStream_t s)
{
    if (s == NULL || s == cudaStreamLegacy || s == cudaStreamPerThread)
        return cudaSuccess; /* the default stream: work runs in order when issued */
    if ((s == cudaStreamTailLaunch || s == cudaStreamFireAndForget) && in_kernel())
        return cudaSuccess;
    {
        std::lock_guard<std::mutex> g(runtime_state().m);
        if (runtime_state().streams.count(s) != 0)
            return cudaSuccess;
    }
    return record_error(cudaErrorInvalidResourceHandle);
}
/* Whether s is one of the special handles, which point at no stream object. */
inline bool special_stream(cudaStream_t s) { return reinterpret_cast<uintptr_t>(s) <= 4; }
/* The device a live stream belongs to; a default stream is the current device's. */
inline int stream_device(cudaStream_t s) { return special_stream(s) ? current_device() : s->device; }
/* The same for an event; NULL is no event. */
inline cudaError_t check_event(cudaEvent_t e)
{
    std::lock_guard<std::mutex> g(runtime_state().m);
    if (e != NULL && runtime_state().events.count(e) != 0)
        return cudaSuccess;
    last_error() = cudaErrorInvalidResourceHandle;
    return cudaErrorInvalidResourceHandle;
}
inline cudaError_t allocate(void **p, size_t bytes, enum cudaMemoryType type)
{
    if (p == NULL)
        return record_error(cudaErrorInvalidValue);
    *p = NULL;
    if (sticky() != cudaSuccess)
        return record_error(sticky());
    if (bytes == 0)
        return cudaSuccess;
    {
        /* Checked before the allocator is asked: pinned memory is physical memory
           too, and ASan's allocator aborts on a size it cannot serve. */
        std::lock_guard<std::mutex> g(runtime_state().m);
        size_t limit = type != cudaMemoryTypeHost ? runtime_state().total - runtime_state().used : runtime_state().total;
#ifdef GPUH_IMPL_SIM_ASAN
        limit = std::min<size_t>(limit, size_t(1) << 40); /* ASan's largest allocation */
#endif
        if (bytes > limit) {
            last_error() = cudaErrorMemoryAllocation;
            return cudaErrorMemoryAllocation;
        }
    }
    /* An array of 2 MiB or more starts on a 2 MiB boundary and asks for huge
       pages: a kernel whose threads each stride across it (a grid-stride
       loop, run one simulated thread after another) otherwise misses the TLB
       at nearly every access. */
    const size_t huge = size_t(2) << 20;
    void *mem = NULL;
    if (posix_memalign(&mem, bytes >= huge ? huge : 256, bytes) != 0 || mem == NULL)
        return record_error(cudaErrorMemoryAllocation);
#ifdef MADV_HUGEPAGE
    if (bytes >= huge)
        madvise(mem, (bytes + 4095) & ~size_t(4095), MADV_HUGEPAGE); /* advice: its failure changes nothing */
#endif
    std::lock_guard<std::mutex> g(runtime_state().m);
    alloc_info info = {bytes, type, true};
    runtime_state().allocs[reinterpret_cast<uintptr_t>(mem)] = info;
    if (type != cudaMemoryTypeHost)
        runtime_state().used += bytes;
    *p = mem;
    return cudaSuccess;
}
inline cudaError_t release(void *p, bool host)
{
    if (p == NULL)
        return cudaSuccess;
    if (!host && captured(CAPTURE_RELEASE, NULL, NULL, NULL, &p))
        return cudaSuccess;
    std::unique_lock<std::mutex> g(runtime_state().m);
    std::map<uintptr_t, alloc_info>::iterator it = runtime_state().allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == runtime_state().allocs.end() || (it->second.type == cudaMemoryTypeHost) != host || !it->second.owned) {
        last_error() = cudaErrorInvalidValue;
        return cudaErrorInvalidValue;
    }
    if (!host)
        runtime_state().used -= it->second.bytes;
    runtime_state().allocs.erase(it);
    g.unlock();
    free(p);
    return cudaSuccess;
}
/* Checks a copy's direction against where its pointers live (cudaMemcpyDefault
   infers it), and that each side's span (dst_bytes, src_bytes: they differ for
   a 2-D copy) lies in one allocation where the sim knows the memory. */
inline cudaError_t copy_check(void *dst, size_t dst_bytes, const void *src, size_t src_bytes, enum cudaMemcpyKind kind)
{
    if (sticky() != cudaSuccess)
        return record_error(sticky());
    if (dst_bytes == 0 && src_bytes == 0)
        return cudaSuccess;
    if ((dst == NULL || src == NULL) || static_cast<unsigned>(kind) > 4u)
        return record_error(kind > 4 ? cudaErrorInvalidMemcpyDirection : cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(runtime_state().m);
    uintptr_t dbase = 0, sbase = 0;
    const alloc_info *d = find_alloc(dst, &dbase), *s = find_alloc(src, &sbase);
    const bool dst_ok = range_inside(d, dbase, dst, dst_bytes), src_ok = range_inside(s, sbase, src, src_bytes);
    const bool dst_dev = d && d->type != cudaMemoryTypeHost, src_dev = s && s->type != cudaMemoryTypeHost;
    /* A device side must be device (or managed) memory of the sim, whole; a
       side in memory the sim knows (pinned, registered) must fit in it too. */
    if (((kind == cudaMemcpyHostToDevice || kind == cudaMemcpyDeviceToDevice) && !(dst_dev && dst_ok)) ||
        ((kind == cudaMemcpyDeviceToHost || kind == cudaMemcpyDeviceToDevice) && !(src_dev && src_ok)) ||
        (d != NULL && !dst_ok) || (s != NULL && !src_ok)) {
        last_error() = cudaErrorInvalidValue;
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* ---------------------------------------------------------------------------
   [SECTION: LAUNCH CHECKS] What every launch passes first (a launch from a
   kernel, host pointers), __device__ symbols, cooperative launches,
   coalesced groups, kernels launched by address. */

/* True on a simulated thread's stack (inside a kernel). */
inline bool in_kernel()
{
    const thread_view &v = thread_state();
    if (v.w == NULL || v.w->current == NULL)
        return false;
    const char *sp = static_cast<const char *>(__builtin_frame_address(0));
    return sp >= v.w->current->lo && sp < v.w->current->lo + v.w->current->size;
}

/* "block (x, y, z), thread (x, y, z)" of the calling simulated thread. */
inline void format_where(char *buf, size_t cap)
{
    snprintf(buf, cap, "block (%u, %u, %u), thread (%u, %u, %u)", blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x,
             threadIdx.y, threadIdx.z);
}

/* The calling simulated thread's last error (in a kernel only). */
inline cudaError_t &device_last_error()
{
    const thread_view &v = thread_state();
    return v.w->block->last_error[v.lin];
}

/* Ends the running launch from inside a kernel with err (sticky, as a GPU
   fault is): the block stops where it is, no other block starts. */
[[noreturn]] inline void kill_launch(cudaError_t err)
{
    thread_view &v = thread_state();
    worker &w = *v.w;
    {
        std::lock_guard<std::mutex> g(runtime_state().m);
        runtime_state().sticky = err;
    }
    int none = 0;
    w.job->failed.compare_exchange_strong(none, static_cast<int>(err));
    w.block->fault = err;
    w.block->state[v.lin] = T_FAULT; /* never resumed: run_block abandons the block */
    to_scheduler(w, w.current);
    abort();
}

/* Ends the launch with a message when a kernel calls a runtime function that
   device code cannot call; why: the reason, for the message. */
inline void refuse_in_kernel(const char *call, const char *why)
{
    char where[96];
    format_where(where, sizeof where);
    fprintf(stderr, "gpuh sim: %s called in kernel %s (%s): %s; the launch fails with cudaErrorNotSupported\n",
            call, thread_state().w->job->kernel, where, why);
    kill_launch(cudaErrorNotSupported);
}

template <class F, class... B> inline void expr_call(const F &call, B... b) { call(b.get()...); }

/* Every launch goes through here first: a pointer argument that no
   allocation, registration or global variable of the program holds (a host
   pointer, on a GPU an illegal address; from a kernel, also a pointer to the
   launching thread's local or shared memory, which CUDA forbids passing to a
   child) is reported with the kernel, the argument's position and the
   pointer, and the launch fails with cudaErrorIllegalAddress (from a kernel:
   the launching grid fails with it). */
inline bool launch_allowed(const char *kernel, const char *file, int line, const void *const *ptrs, int n)
{
    extern char __executable_start[] __attribute__((weak)), _end[] __attribute__((weak));
    for (int i = 0; i < n; ++i) {
        const char *p = static_cast<const char *>(ptrs[i]);
        if (p == NULL)
            continue;
        if (__executable_start && _end && p >= __executable_start && p < _end)
            continue; /* a global: __device__ and __constant__ variables are globals here */
        uintptr_t base = 0;
        bool known;
        {
            std::lock_guard<std::mutex> g(runtime_state().m);
            known = find_alloc(p, &base) != NULL || find_alloc(p - 1, &base) != NULL; /* or one past its end */
        }
        if (known)
            continue;
        fprintf(stderr,
                "gpuh sim: kernel %s launched at %s:%d: argument %d is the pointer %p, which no cudaMalloc, "
                "cudaMallocManaged, cudaMallocHost/cudaHostAlloc or cudaHostRegister gave (a host pointer: on a GPU "
                "an illegal address); the launch fails with cudaErrorIllegalAddress\n",
                kernel, file, line, i + 1, static_cast<const void *>(p));
        if (in_kernel())
            kill_launch(cudaErrorIllegalAddress);
        {
            std::lock_guard<std::mutex> g(runtime_state().m);
            runtime_state().sticky = cudaErrorIllegalAddress;
        }
        record_error(cudaErrorIllegalAddress); /* the launching thread's last error */
        return false;
    }
    return true;
}

/* cudaGetSymbolAddress's part: the symbol's bytes become device memory of the
   ledger (not the program's to free), so that copies and kernels given its
   address treat it as they would on a GPU. A symbol is registered once. */
inline void register_symbol(const void *sym, size_t size)
{
    std::lock_guard<std::mutex> g(runtime_state().m);
    uintptr_t base = 0;
    if (size == 0 || find_alloc(sym, &base) != NULL)
        return;
    alloc_info info = {size, cudaMemoryTypeDevice, false};
    runtime_state().allocs[reinterpret_cast<uintptr_t>(sym)] = info;
}
/* A symbol copy's checks: the symbol's range (offset, bytes within size),
   the direction (to a symbol: host-to-device, device-to-device or default;
   from one: device-to-host, device-to-device or default), then the other
   side as cudaMemcpy checks it, the symbol being device memory: a
   device-to-device copy needs device memory there, and memory the sim knows
   must hold the bytes (CUDA's answer to either: cudaErrorInvalidValue). */
inline cudaError_t symbol_check(char *sym, size_t size, size_t offset, void *other, size_t bytes,
                                enum cudaMemcpyKind kind, bool to_symbol)
{
    if (sticky() != cudaSuccess)
        return record_error(sticky());
    if (offset > size || bytes > size - offset || (bytes > 0 && other == NULL))
        return record_error(cudaErrorInvalidValue);
    const bool kind_ok = kind == cudaMemcpyDefault || kind == cudaMemcpyDeviceToDevice ||
                         kind == (to_symbol ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost);
    if (!kind_ok)
        return record_error(cudaErrorInvalidMemcpyDirection);
    if (bytes == 0)
        return cudaSuccess;
    register_symbol(sym, size);
    return to_symbol ? copy_check(sym + offset, bytes, other, bytes, kind)
                     : copy_check(other, bytes, sym + offset, bytes, kind);
}
inline cudaError_t symbol_copy(char *sym, size_t size, size_t offset, void *other, size_t bytes,
                               enum cudaMemcpyKind kind, bool to_symbol)
{
    const cudaError_t err = symbol_check(sym, size, offset, other, bytes, kind, to_symbol);
    if (err != cudaSuccess)
        return err;
    if (to_symbol)
        memmove(sym + offset, other, bytes);
    else
        memmove(other, sym + offset, bytes);
    return cudaSuccess;
}

/* A launch through a call expression (GPUH_SIM_KERNEL_CALL_EXPR): the
   arguments are copied once, at the launch, as the caller gave them; each
   simulated thread calls call(args...) on its bytewise copies, which
   deduces a template kernel's arguments and fills in default arguments as a
   call does (a class argument is then copied into the parameter per thread). */
template <class F, class... A>
void launch_expr(const char *name, const char *file, int line, dim3 grid, dim3 block, size_t shmem,
                 cudaStream_t stream, F call, const A &...args)
{
    GPUH_IMPL_SIM_CAPTURE(stream, launch_expr(name, file, line, grid, block, shmem, gpuh_sim_s, call, args...))
        return;
    const void *ptrs[] = {object_pointer(args)..., NULL};
    if (!launch_allowed(name, file, line, ptrs, static_cast<int>(sizeof...(A))))
        return;
    auto body = [=]() { expr_call(call, arg_bytes<A>(args)...); };
    launch(name, file, line, NULL, grid, block, shmem, stream, &call_closure<decltype(body)>, &body, sizeof body);
}

/* GPUH_SIM_KERNEL_CALL_EXPR's address: with the tag deduce_signature, the
   one function the name denotes (a template-id with all its arguments, or a
   name that is not overloaded); with signature<A...>, the one function whose
   parameters are the types A... (a template deduced from them, one of an
   overload set). Either fails to substitute where no such function is. */
struct deduce_signature {
};
template <class... A> struct signature {
    typedef void (*pointer)(A...);
};
template <class Tag, class... P>
auto kernel_address(void (*k)(P...)) ->
    typename std::enable_if<std::is_same<Tag, deduce_signature>::value, void (*)(P...)>::type
{
    return k;
}
template <class Tag> typename Tag::pointer kernel_address(typename Tag::pointer k) { return k; }
template <class Probe, class Tag> auto probe_address(Probe probe, Tag tag, int) -> decltype(probe(tag))
{
    return probe(tag);
}
template <class Probe, class Tag> std::nullptr_t probe_address(Probe, Tag, long) { return nullptr; }
/* Whether launch_call takes the arguments A... for a kernel of type K: as
   many as its parameters, each converted implicitly (as in a call). */
template <class... B> struct all_of : std::true_type {
};
template <class B0, class... B> struct all_of<B0, B...> : std::integral_constant<bool, B0::value && all_of<B...>::value> {
};
template <bool same_count, class K, class... A> struct args_convert : std::false_type {
};
template <class... P, class... A>
struct args_convert<true, void (*)(P...), A...>
    : all_of<std::is_convertible<const A &, typename std::decay<P>::type>...> {
};
template <class K, class... A> struct kernel_takes : std::false_type {
};
template <class... P, class... A>
struct kernel_takes<void (*)(P...), A...> : args_convert<sizeof...(P) == sizeof...(A), void (*)(P...), A...> {
};
/* The launch through the first address that takes the arguments (tag 1: the
   name's, 2: the arguments' types'), else through the call expression (0). */
template <class N, class T, class F, class... A>
void launch_picked(std::integral_constant<int, 1>, const char *name, const char *file, int line, dim3 grid,
                   dim3 block, size_t shmem, cudaStream_t stream, N named, T, F, const A &...args)
{
    launch_call(name, file, line, grid, block, shmem, stream, named, args...);
}
template <class N, class T, class F, class... A>
void launch_picked(std::integral_constant<int, 2>, const char *name, const char *file, int line, dim3 grid,
                   dim3 block, size_t shmem, cudaStream_t stream, N, T typed, F, const A &...args)
{
    launch_call(name, file, line, grid, block, shmem, stream, typed, args...);
}
template <class N, class T, class F, class... A>
void launch_picked(std::integral_constant<int, 0>, const char *name, const char *file, int line, dim3 grid,
                   dim3 block, size_t shmem, cudaStream_t stream, N, T, F call, const A &...args)
{
    launch_expr(name, file, line, grid, block, shmem, stream, call, args...);
}
template <class Probe, class F, class... A>
void launch_pick(const char *name, const char *file, int line, dim3 grid, dim3 block, size_t shmem,
                 cudaStream_t stream, Probe probe, F call, const A &...args)
{
    const auto named = probe_address(probe, deduce_signature(), 0);
    const auto typed = probe_address(probe, signature<A...>(), 0);
    constexpr int pick = kernel_takes<typename std::decay<decltype(named)>::type, A...>::value   ? 1
                     : kernel_takes<typename std::decay<decltype(typed)>::type, A...>::value ? 2
                                                                                             : 0;
    launch_picked(std::integral_constant<int, pick>(), name, file, line, grid, block, shmem, stream, named, typed,
                  call, args...);
}

/* ---- Cooperative launches (cudaLaunchCooperativeKernel): every block of
   the grid runs at once, each on a CPU thread of its own, so that
   this_grid().sync() can wait for all of them (a grid-wide barrier). */
struct grid_barrier {
    std::mutex m;
    std::condition_variable cv;
    uint64_t total = 0, arrived = 0, generation = 0;
};
inline bool &cooperative_next()
{
    static thread_local bool next = false;
    return next;
}
inline grid_barrier *&this_grid_barrier()
{
    static thread_local grid_barrier *b = NULL;
    return b;
}
enum { MAX_COOPERATIVE_BLOCKS = 1024 };
inline bool run_cooperative_if_asked(launch_job &job)
{
    if (!cooperative_next())
        return false;
    cooperative_next() = false;
    grid_barrier gb;
    gb.total = job.blocks;
    job.chunk = 1;
    std::vector<std::thread> threads;
    for (uint64_t i = 0; i < job.blocks; ++i)
        threads.emplace_back([&job, &gb] {
            this_grid_barrier() = &gb;
            run_blocks(job);
        });
    for (size_t i = 0; i < threads.size(); ++i)
        threads[i].join();
    return true;
}
/* The grid-wide barrier: the block's threads meet, one of them waits for
   every other block, then the block's threads meet again. */
inline void grid_sync(const char *file, int line)
{
    grid_barrier *gb = this_grid_barrier();
    if (gb == NULL) {
        char where[96];
        format_where(where, sizeof where);
        fprintf(stderr,
                "gpuh sim: this_grid().sync() at %s:%d in kernel %s (%s), which was not launched with "
                "cudaLaunchCooperativeKernel; the launch fails with cudaErrorCooperativeLaunchTooLarge\n",
                file, line, thread_state().w->job->kernel, where);
        kill_launch(static_cast<cudaError_t>(720));
    }
    sync_block("grid_group::sync", file, line, 0);
    if (thread_state().lin == 0) {
        std::unique_lock<std::mutex> g(gb->m);
        const uint64_t gen = gb->generation;
        if (++gb->arrived == gb->total) {
            gb->arrived = 0;
            gb->generation++;
            gb->cv.notify_all();
        } else {
            while (gb->generation == gen) {
                gb->cv.wait_for(g, std::chrono::milliseconds(50));
                if (thread_state().w->job->failed.load()) { /* another block failed: this one stops too */
                    g.unlock();
                    kill_launch(cudaErrorLaunchFailure);
                }
            }
        }
    }
    sync_block("grid_group::sync", file, line + 1000000, 0);
}

/* ---- coalesced_threads(): the lanes of a warp that reach the call together.
   A lane waits there; when no thread of the block can run any more, the
   lanes waiting at the same call are released as one group (lanes that took
   another path have by then exited or wait elsewhere). */
enum { W_CONVERGE = 100 };
inline unsigned converge(const char *file, int line)
{
    thread_view &v = thread_state();
    worker &w = *v.w;
    block_state &b = *w.block;
    const int me = v.lin;
    lane_op &l = b.lane[me];
    l.op = W_CONVERGE;
    l.mask = 0;
    l.where.what = "coalesced_threads";
    l.where.file = file;
    l.where.line = line;
    b.state[me] = T_WARP;
    to_scheduler(w, w.current);
    return static_cast<unsigned>(l.result);
}
inline bool release_converged(block_state &b)
{
    bool any = false;
    for (int base = 0; base < b.n; base += 32) {
        const int lanes = std::min(32, b.n - base);
        unsigned done = 0;
        for (int k = 0; k < lanes; ++k) {
            const lane_op &a = b.lane[base + k];
            if ((done >> k & 1u) || b.state[base + k] != T_WARP || a.op != W_CONVERGE)
                continue;
            unsigned mask = 0;
            for (int j = k; j < lanes; ++j) {
                const lane_op &o = b.lane[base + j];
                if (b.state[base + j] == T_WARP && o.op == W_CONVERGE && o.where.line == a.where.line &&
                    same_text(o.where.file, a.where.file))
                    mask |= 1u << j;
            }
            for (int j = k; j < lanes; ++j)
                if (mask >> j & 1u) {
                    b.lane[base + j].result = mask;
                    b.state[base + j] = T_READY;
                }
            done |= mask;
            any = true;
        }
    }
    return any;
}

template <std::size_t... I> struct index_list {};
template <std::size_t N, std::size_t... I> struct make_index_list : make_index_list<N - 1, N - 1, I...> {};
template <std::size_t... I> struct make_index_list<0, I...> {
    typedef index_list<I...> type;
};
/* A launch whose arguments come as CUDA's array of pointers to them. */
template <class... P, std::size_t... I>
void launch_from_pointers(const char *name, void (*kernel)(P...), dim3 grid, dim3 block, size_t shmem,
                          cudaStream_t stream, void **args, index_list<I...>)
{
    launch_call(name, "<cudaLaunchKernel>", 0, grid, block, shmem, stream, kernel,
                *static_cast<typename std::decay<P>::type *>(args[I])...);
}
typedef void (*erased_launch)(const void *kernel, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream,
                              void **args);
template <class... P>
void erased_launch_of(const void *kernel, dim3 grid, dim3 block, size_t shmem, cudaStream_t stream, void **args)
{
    launch_from_pointers("<kernel>", reinterpret_cast<void (*)(P...)>(const_cast<void *>(kernel)), grid, block, shmem,
                         stream, args, typename make_index_list<sizeof...(P)>::type());
}
/* A launch bound to copies of its arguments (taken now, through CUDA's array
   of pointers to them), to run later in a stream: a CUDA graph's kernel node. */
template <class... P, std::size_t... I>
stream_work bind_from_pointers(void (*kernel)(P...), dim3 grid, dim3 block, size_t shmem, void **args,
                               index_list<I...>)
{
    const std::tuple<typename std::decay<P>::type...> v(*static_cast<typename std::decay<P>::type *>(args[I])...);
    (void)args;
    return [=](cudaStream_t s) { launch_call("<kernel node>", "<graph>", 0, grid, block, shmem, s, kernel, std::get<I>(v)...); };
}
typedef stream_work (*erased_bind)(const void *kernel, dim3 grid, dim3 block, size_t shmem, void **args);
template <class... P> stream_work erased_bind_of(const void *kernel, dim3 grid, dim3 block, size_t shmem, void **args)
{
    return bind_from_pointers(reinterpret_cast<void (*)(P...)>(const_cast<void *>(kernel)), grid, block, shmem, args,
                              typename make_index_list<sizeof...(P)>::type());
}
/* Kernels by address, for launches given a void pointer (gpuh-simcc registers
   every kernel of a file that is not a template), and for graph nodes. */
inline std::map<const void *, erased_launch> &kernel_registry()
{
    static std::map<const void *, erased_launch> r;
    return r;
}
inline std::map<const void *, erased_bind> &kernel_binders()
{
    static std::map<const void *, erased_bind> r;
    return r;
}
template <class... P> inline int register_kernel(void (*kernel)(P...))
{
    std::lock_guard<std::mutex> g(runtime_state().m);
    kernel_registry()[key_of(kernel)] = &erased_launch_of<P...>;
    kernel_binders()[key_of(kernel)] = &erased_bind_of<P...>;
    return 0;
}
/* A registered kernel's launch bound to copies of its arguments; empty for a kernel not registered. */
inline stream_work bind_kernel(const void *kernel, dim3 grid, dim3 block, size_t shmem, void **args)
{
    erased_bind f = NULL;
    {
        std::lock_guard<std::mutex> g(runtime_state().m);
        std::map<const void *, erased_bind>::iterator it = kernel_binders().find(kernel);
        if (it != kernel_binders().end())
            f = it->second;
    }
    return f ? f(kernel, grid, block, shmem, args) : stream_work();
}
inline cudaError_t launch_erased(const void *kernel, dim3 grid, dim3 block, void **args, size_t shmem,
                                 cudaStream_t stream, bool cooperative)
{
    erased_launch f = NULL;
    {
        std::lock_guard<std::mutex> g(runtime_state().m);
        std::map<const void *, erased_launch>::iterator it = kernel_registry().find(kernel);
        if (it != kernel_registry().end())
            f = it->second;
    }
    if (f == NULL) {
        fprintf(stderr, "gpuh sim: cudaLaunchKernel of %p: not a kernel gpuh-simcc registered (a template kernel "
                        "needs its typed launch: cudaLaunchKernel(kernel<T>, ...) without the void * cast)\n",
                kernel);
        return record_error(cudaErrorInvalidDeviceFunction);
    }
    if (cooperative && static_cast<uint64_t>(grid.x) * grid.y * grid.z > MAX_COOPERATIVE_BLOCKS)
        return record_error(static_cast<cudaError_t>(720));
    cooperative_next() = cooperative;
    cudaGetLastError();
    f(kernel, grid, block, shmem, stream, args);
    cooperative_next() = false;
    return cudaGetLastError();
}


/* ---------------------------------------------------------------------------
   [SECTION: SEVERAL DEVICES] GPUH_SIM_DEVICES, the current device, peer
   access. */
inline int device_count()
{
    static const int n = [] {
        const char *e = getenv("GPUH_SIM_DEVICES");
        char *end = NULL;
        const long asked = e && *e ? strtol(e, &end, 10) : 1;
        int v = e && *e && *end != '\0' ? 0 : static_cast<int>(std::max(-1L, std::min(asked, 65L))); /* "4x": refused */
        if (v < 1 || v > 64) {
            fprintf(stderr, "gpuh sim: GPUH_SIM_DEVICES=%s is not 1 .. 64; using 1\n", e);
            v = 1;
        }
        return v;
    }();
    return n;
}
inline int &current_device()
{
    static thread_local int d = 0;
    return d;
}
inline bool valid_device(int d) { return d >= 0 && d < device_count(); }
/* (device, peer) pairs with peer access enabled; guarded by the mutex. */
struct peer_table {
    std::mutex m;
    std::set<std::pair<int, int>> on;
};
inline peer_table &peer_access()
{
    static peer_table t;
    return t;
}

/* ---------------------------------------------------------------------------
   [SECTION: NCCL] Cliques of ranks, the queue of collectives, their checks. */
struct nccl_op {
    int kind; /* 0 all-reduce, 1 broadcast, 2 all-gather */
    const void *send;
    void *recv;
    size_t count;
    int type, op, root;
    unsigned long long seq; /* its number in the clique's sequence (nccl_post) */
};
/* The ranks of one communicator. Each rank's calls queue in its own list;
   collective k runs when every rank has queued its k-th call, and `done`
   counts the collectives settled (run, failed or abandoned), in order. A
   rank that gives up waiting (GPUH_SIM_NCCL_TIMEOUT) withdraws its call and
   abandons collective k: the calls of k that others queued are dropped
   unrun, a rank that calls it later fails at once, and no buffer of an
   abandoned call is touched (its owner may have freed it). */
struct nccl_clique {
    std::mutex m;
    std::condition_variable cv;
    int nranks = 0, joined = 0, refs = 0;
    std::string key; /* the unique id's bytes (ncclCommInitRank), or empty */
    std::vector<std::deque<nccl_op>> pending;
    std::vector<unsigned long long> posted;
    unsigned long long done = 0;
    std::map<unsigned long long, std::string> failed;    /* collective number -> why */
    std::map<unsigned long long, std::string> abandoned; /* collective number -> who gave up */
};
struct nccl_registry {
    std::mutex m;
    std::map<std::string, nccl_clique *> by_id;
    std::atomic<unsigned long long> ids{0};
};
inline nccl_registry &nccl_cliques()
{
    static nccl_registry r;
    return r;
}
inline std::string &nccl_last_error()
{
    static thread_local std::string s;
    return s;
}
inline ncclResult_t nccl_fail(ncclResult_t r, const std::string &why)
{
    nccl_last_error() = "gpuh sim: " + why;
    return r;
}
inline double nccl_timeout_s()
{
    const char *e = getenv("GPUH_SIM_NCCL_TIMEOUT");
    return e && atof(e) > 0 ? atof(e) : 30.0;
}
inline size_t nccl_size(int type)
{
    switch (type) {
    case ncclInt8: case ncclUint8: return 1;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0; /* ncclFloat16: no half precision in the simulator */
    }
}
template <class T> void nccl_reduce(T *acc, const T *in, size_t n, int op)
{
    for (size_t i = 0; i < n; ++i)
        acc[i] = op == ncclProd ? T(acc[i] * in[i])
                 : op == ncclMax ? (in[i] > acc[i] ? in[i] : acc[i])
                 : op == ncclMin ? (in[i] < acc[i] ? in[i] : acc[i])
                                 : T(acc[i] + in[i]);
}
template <class T> void nccl_divide(T *acc, size_t n, int by)
{
    for (size_t i = 0; i < n; ++i)
        acc[i] = T(acc[i] / T(by));
}
template <class T> void nccl_all_reduce(std::vector<unsigned char> &acc, const std::vector<nccl_op> &ops)
{
    T *a = reinterpret_cast<T *>(acc.data());
    for (size_t r = 1; r < ops.size(); ++r) /* rank order: the same bits every run */
        nccl_reduce<T>(a, static_cast<const T *>(ops[r].send), ops[0].count, ops[0].op);
    if (ops[0].op == ncclAvg)
        nccl_divide<T>(a, ops[0].count, static_cast<int>(ops.size()));
}
/* Runs every collective that all ranks have called; call with c.m held. */
inline void nccl_run_ready(nccl_clique &c)
{
    for (;;) {
        if (c.abandoned.count(c.done) != 0) {
            for (int r = 0; r < c.nranks; ++r)
                if (!c.pending[r].empty() && c.pending[r].front().seq == c.done)
                    c.pending[r].pop_front();
            ++c.done;
            continue;
        }
        for (int r = 0; r < c.nranks; ++r)
            if (c.pending[r].empty() || c.pending[r].front().seq != c.done)
                return;
        std::vector<nccl_op> ops;
        for (int r = 0; r < c.nranks; ++r) {
            ops.push_back(c.pending[r].front());
            c.pending[r].pop_front();
        }
        const nccl_op &o = ops[0];
        static const char *const names[] = {"ncclAllReduce", "ncclBroadcast", "ncclAllGather"};
        std::string why;
        for (int r = 1; r < c.nranks && why.empty(); ++r)
            if (ops[r].kind != o.kind || ops[r].count != o.count || ops[r].type != o.type ||
                (o.kind == 0 && ops[r].op != o.op) || (o.kind == 1 && ops[r].root != o.root))
                why = "collective " + std::to_string(c.done) + ": rank 0 calls " + names[o.kind] + " of " +
                      std::to_string(o.count) + " elements but rank " + std::to_string(r) + " calls " +
                      names[ops[r].kind] + " of " + std::to_string(ops[r].count) +
                      " (or another type, operator or root): every rank must make the same calls in the same order";
        if (!why.empty()) {
            c.failed[c.done++] = why;
            continue;
        }
        const size_t bytes = o.count * nccl_size(o.type);
        if (bytes == 0) { /* nothing to move (the buffers may be NULL) */
            ++c.done;
            continue;
        }
        if (o.kind == 0) {
            std::vector<unsigned char> acc(static_cast<const unsigned char *>(o.send),
                                           static_cast<const unsigned char *>(o.send) + bytes);
            switch (o.type) {
            case ncclInt8: nccl_all_reduce<int8_t>(acc, ops); break;
            case ncclUint8: nccl_all_reduce<uint8_t>(acc, ops); break;
            case ncclInt32: nccl_all_reduce<int32_t>(acc, ops); break;
            case ncclUint32: nccl_all_reduce<uint32_t>(acc, ops); break;
            case ncclInt64: nccl_all_reduce<int64_t>(acc, ops); break;
            case ncclUint64: nccl_all_reduce<uint64_t>(acc, ops); break;
            case ncclFloat32: nccl_all_reduce<float>(acc, ops); break;
            default: nccl_all_reduce<double>(acc, ops); break;
            }
            for (int r = 0; r < c.nranks; ++r)
                memcpy(ops[r].recv, acc.data(), bytes);
        } else if (o.kind == 1) {
            const unsigned char *s = static_cast<const unsigned char *>(ops[o.root].send);
            std::vector<unsigned char> v(s, s + bytes);
            for (int r = 0; r < c.nranks; ++r)
                memcpy(ops[r].recv, v.data(), bytes);
        } else {
            std::vector<unsigned char> v(bytes * c.nranks); /* staged: in-place gathers overlap */
            for (int r = 0; r < c.nranks; ++r)
                memcpy(v.data() + bytes * r, ops[r].send, bytes);
            for (int r = 0; r < c.nranks; ++r)
                memcpy(ops[r].recv, v.data(), v.size());
        }
        ++c.done;
    }
}
/* True if [p, p + bytes) lies inside one device (or managed) allocation
   (computed without forming p + bytes, which wraps for an absurd count). */
inline bool nccl_device_range(const void *p, size_t bytes)
{
    std::lock_guard<std::mutex> g(runtime_state().m);
    uintptr_t base = 0;
    const alloc_info *a = find_alloc(p, &base);
    return a && a->type != cudaMemoryTypeHost && range_inside(a, base, p, bytes);
}
/* The calling thread's group (ncclGroupStart .. ncclGroupEnd): its calls,
   queued at the outermost end, and the first argument error among them,
   which fails the whole group at its end with none of its calls run (NCCL's
   rule: an error inside a group is returned by ncclGroupEnd, which then
   launches nothing). */
struct nccl_group {
    int depth = 0;
    std::vector<std::pair<ncclComm_t, nccl_op>> ops;
    ncclResult_t error = ncclSuccess;
    std::string why;
};
inline nccl_group &nccl_thread_group()
{
    static thread_local nccl_group g;
    return g;
}
/* Queues one rank's call; returns its number in the clique's sequence. */
/* Queues one rank's call; returns its number in the clique's sequence. A
   call of an abandoned collective is not queued (nccl_wait fails it). */
inline unsigned long long nccl_post(ncclComm_t comm, const nccl_op &op)
{
    nccl_clique &c = *comm->clique;
    std::lock_guard<std::mutex> g(c.m);
    const unsigned long long seq = c.posted[comm->rank]++;
    if (c.abandoned.count(seq) == 0) {
        c.pending[comm->rank].push_back(op);
        c.pending[comm->rank].back().seq = seq;
    }
    nccl_run_ready(c);
    c.cv.notify_all();
    return seq;
}
typedef std::chrono::steady_clock nccl_clock;
inline nccl_clock::time_point nccl_deadline()
{
    return nccl_clock::now() + std::chrono::duration_cast<nccl_clock::duration>(
                                   std::chrono::duration<double>(nccl_timeout_s()));
}
/* Waits for call seq of comm's rank until deadline; on time-out the call is
   withdrawn and its collective abandoned (see nccl_clique). */
inline ncclResult_t nccl_wait(ncclComm_t comm, unsigned long long seq, nccl_clock::time_point deadline)
{
    nccl_clique &c = *comm->clique;
    std::unique_lock<std::mutex> g(c.m);
    const bool settled =
        c.cv.wait_until(g, deadline, [&] { return c.done > seq || c.abandoned.count(seq) != 0; });
    std::map<unsigned long long, std::string>::iterator ab = c.abandoned.find(seq);
    if (ab != c.abandoned.end())
        return nccl_fail(ncclInvalidUsage, "rank " + std::to_string(comm->rank) + ": collective " +
                                               std::to_string(seq) + " was abandoned: " + ab->second +
                                               "; this call is not run");
    if (!settled) {
        std::string missing;
        for (int r = 0; r < c.nranks; ++r)
            if (c.posted[r] <= seq)
                missing += (missing.empty() ? "" : ", ") + std::to_string(r);
        const std::string waited = std::to_string(static_cast<int>(nccl_timeout_s())) + " s for ranks " + missing;
        std::deque<nccl_op> &q = c.pending[comm->rank];
        for (std::deque<nccl_op>::iterator it = q.begin(); it != q.end(); ++it)
            if (it->seq == seq) {
                q.erase(it);
                break;
            }
        c.abandoned[seq] = "rank " + std::to_string(comm->rank) + " gave up after waiting " + waited;
        nccl_run_ready(c);
        c.cv.notify_all();
        return nccl_fail(ncclInvalidUsage, "rank " + std::to_string(comm->rank) + " waited " + waited +
                                               " to call the collective (number " + std::to_string(seq) +
                                               ") and withdrew its call (one thread driving several ranks must "
                                               "call them between ncclGroupStart and ncclGroupEnd)");
    }
    std::map<unsigned long long, std::string>::iterator it = c.failed.find(seq);
    return it == c.failed.end() ? ncclSuccess : nccl_fail(ncclInvalidUsage, it->second);
}
/* One call's checks, before anything is queued: every argument, and the
   bytes it spans computed without wrapping. */
inline ncclResult_t nccl_check(ncclComm_t comm, const nccl_op &op, const char *name)
{
    const size_t size = nccl_size(op.type);
    if (comm == NULL || comm->clique == NULL)
        return nccl_fail(ncclInvalidArgument, std::string(name) + ": the communicator is NULL");
    if (op.type < ncclInt8 || op.type > ncclFloat64 || size == 0)
        return nccl_fail(ncclInvalidArgument, std::string(name) + ": data type " + std::to_string(op.type) +
                                                  " is not simulated (no half precision)");
    if (op.kind == 0 && (op.op < ncclSum || op.op > ncclAvg))
        return nccl_fail(ncclInvalidArgument, std::string(name) + ": operator " + std::to_string(op.op));
    if (op.kind == 1 && (op.root < 0 || op.root >= comm->clique->nranks))
        return nccl_fail(ncclInvalidArgument, std::string(name) + ": root " + std::to_string(op.root));
    const size_t nranks = static_cast<size_t>(comm->clique->nranks);
    if (op.count > SIZE_MAX / size || (op.kind == 2 && op.count * size > SIZE_MAX / nranks))
        return nccl_fail(ncclInvalidArgument, std::string(name) + ": rank " + std::to_string(comm->rank) +
                                                  ": count " + std::to_string(op.count) + " of " +
                                                  std::to_string(size) + "-byte elements" +
                                                  (op.kind == 2 ? " times " + std::to_string(nranks) + " ranks" : "") +
                                                  " overflows size_t in bytes");
    const size_t in = op.count * size, out = op.kind == 2 ? in * nranks : in;
    if (op.count > 0 && (!nccl_device_range(op.recv, out) ||
                         ((op.kind != 1 || op.root == comm->rank) && !nccl_device_range(op.send, in))))
        return nccl_fail(ncclInvalidArgument, std::string(name) + ": rank " + std::to_string(comm->rank) + ": the " +
                                                  (nccl_device_range(op.recv, out) ? "send" : "recv") +
                                                  " buffer is not device memory of its size");
    if (sticky() != cudaSuccess)
        return nccl_fail(ncclUnhandledCudaError, std::string(name) + ": the CUDA context has a sticky error");
    return ncclSuccess;
}
inline ncclResult_t nccl_collective(ncclComm_t comm, const nccl_op &op, const char *name)
{
    nccl_group &grp = nccl_thread_group();
    const ncclResult_t r = nccl_check(comm, op, name);
    if (r != ncclSuccess) {
        if (grp.depth > 0 && grp.error == ncclSuccess) {
            grp.error = r;
            grp.why = nccl_last_error();
        }
        return r;
    }
    if (grp.depth > 0) {
        grp.ops.push_back(std::make_pair(comm, op));
        return ncclSuccess;
    }
    return nccl_wait(comm, nccl_post(comm, op), nccl_deadline());
}
inline nccl_clique *nccl_new_clique(int nranks)
{
    nccl_clique *c = new nccl_clique;
    c->nranks = nranks;
    c->pending.resize(nranks);
    c->posted.assign(nranks, 0);
    return c;
}

/* ---------------------------------------------------------------------------
   [SECTION: MEMORY POOLS] Blocks of device memory a pool keeps; its trim. */
struct mem_pool_block {
    CUmemPoolHandle_st *pool;
    size_t bytes, asked; /* the block's size; the bytes the allocation asked for */
    bool live;
};
struct mem_pool_registry {
    std::mutex m;
    std::map<uintptr_t, mem_pool_block> blocks; /* every block a pool holds */
    std::set<const CUmemPoolHandle_st *> live;  /* pools made and not destroyed: a stale handle is refused */
};
inline mem_pool_registry &mem_pools()
{
    static mem_pool_registry r;
    return r;
}
/* Gives idle blocks back until the pool holds at most keep bytes. Lock held. */
inline void mem_pool_trim(CUmemPoolHandle_st *pl, unsigned long long keep)
{
    while (pl->reserved > keep && !pl->idle.empty()) {
        std::multimap<size_t, void *>::iterator it = --pl->idle.end(); /* the largest first */
        mem_pools().blocks.erase(reinterpret_cast<uintptr_t>(it->second));
        release(it->second, false);
        pl->reserved -= it->first;
        pl->idle.erase(it);
    }
}
/* cudaFreeAsync's part for pool memory: 1 if p was a live pool block (now
   idle), -1 if it is an idle one (a second free), 0 if no pool holds it. */
inline int mem_pool_free(void *p)
{
    std::lock_guard<std::mutex> g(mem_pools().m);
    std::map<uintptr_t, mem_pool_block>::iterator it = mem_pools().blocks.find(reinterpret_cast<uintptr_t>(p));
    if (it == mem_pools().blocks.end())
        return 0;
    if (!it->second.live)
        return -1;
    CUmemPoolHandle_st *pl = it->second.pool;
    pl->used -= it->second.asked;
    if (pl->destroyed) {
        pl->reserved -= it->second.bytes;
        mem_pools().blocks.erase(it);
        release(p, false);
        if (pl->used == 0)
            delete pl;
        return 1;
    }
    it->second.live = false;
    pl->idle.insert(std::make_pair(it->second.bytes, p));
    mem_pool_trim(pl, pl->threshold);
    return 1;
}

/* ---------------------------------------------------------------------------
   [SECTION: CURAND] Philox4x32-10 (Salmon et al., SC'11) keyed by the seed;
   number i of the stream is word i % 4 of the block at counter i / 4. */
inline uint32_t philox_word(unsigned long long seed, unsigned long long i)
{
    uint32_t c[4] = {static_cast<uint32_t>(i / 4), static_cast<uint32_t>(i / 4 >> 32), 0, 0};
    uint32_t k0 = static_cast<uint32_t>(seed), k1 = static_cast<uint32_t>(seed >> 32);
    for (int r = 0; r < 10; ++r) {
        const uint64_t p0 = static_cast<uint64_t>(0xD2511F53u) * c[0], p1 = static_cast<uint64_t>(0xCD9E8D57u) * c[2];
        const uint32_t n0 = static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k0, n2 = static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k1;
        c[0] = n0;
        c[1] = static_cast<uint32_t>(p1);
        c[2] = n2;
        c[3] = static_cast<uint32_t>(p0);
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    return c[i % 4];
}
/* Uniform in (0, 1], as cuRAND's. */
inline double uniform01(unsigned long long seed, unsigned long long i)
{
    uint64_t u = (static_cast<uint64_t>(philox_word(seed, 2 * i)) << 21) ^ philox_word(seed, 2 * i + 1);
    return (static_cast<double>(u & ((uint64_t(1) << 53) - 1)) + 1.0) / 9007199254740992.0;
}
template <class F> inline curandStatus_t curand_fill(curandGenerator_t g, size_t n, F f)
{
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    if (sticky() != cudaSuccess)
        return CURAND_STATUS_LAUNCH_FAILURE;
    const unsigned long long seed = g->seed, off = g->offset;
    std::vector<std::thread> t;
    const size_t parts = n < (size_t(1) << 16) ? 1 : static_cast<size_t>(runtime_state().threads);
    for (size_t p = 0; p < parts; ++p)
        t.push_back(std::thread([=] {
            for (size_t i = n * p / parts; i < n * (p + 1) / parts; ++i)
                f(seed, off + i, i);
        }));
    for (size_t p = 0; p < t.size(); ++p)
        t[p].join();
    return CURAND_STATUS_SUCCESS;
}
inline double normal(unsigned long long seed, unsigned long long i)
{
    /* Box-Muller on the pair (i & ~1, i | 1): the two values of a pair share their uniforms. */
    const double u1 = uniform01(seed, i & ~1ull), u2 = uniform01(seed, i | 1ull);
    const double r = sqrt(-2.0 * log(u1)), a = 6.283185307179586 * u2;
    return (i & 1) ? r * sin(a) : r * cos(a);
}

} /* namespace gpuh_sim_impl */

/* ===========================================================================
   [SECTION: RUNTIME DEFINITIONS]
   The runtime's functions: weak, so every C++ file may include this header
   and the program keeps one copy; C files call them like cudart's.
   =========================================================================== */

/* The calling thread's last error, then cleared; a sticky error stays and is
   seen by every thread. */
GPUH_IMPL_SIM_API cudaError_t cudaGetLastError(void)
{
    const cudaError_t e = cudaPeekAtLastError();
    (gpuh_sim_impl::in_kernel() ? gpuh_sim_impl::device_last_error() : gpuh_sim_impl::last_error()) = cudaSuccess;
    return e;
}
/* In a kernel: the calling thread's last error (a launch it made that was refused). */
GPUH_IMPL_SIM_API cudaError_t cudaPeekAtLastError(void)
{
    if (gpuh_sim_impl::in_kernel())
        return gpuh_sim_impl::device_last_error();
    const cudaError_t e = gpuh_sim_impl::last_error();
    return e != cudaSuccess ? e : gpuh_sim_impl::sticky();
}
GPUH_IMPL_SIM_API const char *cudaGetErrorName(cudaError_t err)
{
    switch (err) {
#define GPUH_IMPL_SIM_NAME(e) \
    case e: return #e;
        GPUH_IMPL_SIM_NAME(cudaSuccess) GPUH_IMPL_SIM_NAME(cudaErrorInvalidValue) GPUH_IMPL_SIM_NAME(cudaErrorMemoryAllocation)
        GPUH_IMPL_SIM_NAME(cudaErrorInitializationError) GPUH_IMPL_SIM_NAME(cudaErrorInvalidConfiguration)
        GPUH_IMPL_SIM_NAME(cudaErrorInvalidSymbol) GPUH_IMPL_SIM_NAME(cudaErrorInvalidDevicePointer)
        GPUH_IMPL_SIM_NAME(cudaErrorInvalidMemcpyDirection) GPUH_IMPL_SIM_NAME(cudaErrorInsufficientDriver)
        GPUH_IMPL_SIM_NAME(cudaErrorLaunchMaxDepthExceeded) GPUH_IMPL_SIM_NAME(cudaErrorInvalidDeviceFunction) GPUH_IMPL_SIM_NAME(cudaErrorNoDevice)
        GPUH_IMPL_SIM_NAME(cudaErrorInvalidDevice) GPUH_IMPL_SIM_NAME(cudaErrorNoKernelImageForDevice)
        GPUH_IMPL_SIM_NAME(cudaErrorECCUncorrectable) GPUH_IMPL_SIM_NAME(cudaErrorInvalidResourceHandle)
        GPUH_IMPL_SIM_NAME(cudaErrorInvalidKernelImage) GPUH_IMPL_SIM_NAME(cudaErrorInvalidSource)
        GPUH_IMPL_SIM_NAME(cudaErrorSymbolNotFound)
        GPUH_IMPL_SIM_NAME(cudaErrorNotReady) GPUH_IMPL_SIM_NAME(cudaErrorIllegalAddress)
        GPUH_IMPL_SIM_NAME(cudaErrorLaunchOutOfResources) GPUH_IMPL_SIM_NAME(cudaErrorLaunchTimeout)
        GPUH_IMPL_SIM_NAME(cudaErrorPeerAccessAlreadyEnabled) GPUH_IMPL_SIM_NAME(cudaErrorPeerAccessNotEnabled)
        GPUH_IMPL_SIM_NAME(cudaErrorAssert) GPUH_IMPL_SIM_NAME(cudaErrorHostMemoryAlreadyRegistered)
        GPUH_IMPL_SIM_NAME(cudaErrorHostMemoryNotRegistered) GPUH_IMPL_SIM_NAME(cudaErrorHardwareStackError)
        GPUH_IMPL_SIM_NAME(cudaErrorIllegalInstruction) GPUH_IMPL_SIM_NAME(cudaErrorMisalignedAddress)
        GPUH_IMPL_SIM_NAME(cudaErrorInvalidAddressSpace) GPUH_IMPL_SIM_NAME(cudaErrorInvalidPc)
        GPUH_IMPL_SIM_NAME(cudaErrorLaunchFailure) GPUH_IMPL_SIM_NAME(cudaErrorNotSupported) GPUH_IMPL_SIM_NAME(cudaErrorUnknown)
#undef GPUH_IMPL_SIM_NAME
    }
    return "cudaErrorUnknown";
}
GPUH_IMPL_SIM_API const char *cudaGetErrorString(cudaError_t err)
{
    switch (err) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorNoDevice: return "no CUDA-capable device is detected";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorLaunchOutOfResources: return "too many resources requested for launch";
    case cudaErrorLaunchFailure: return "unspecified launch failure (gpuh sim: the kernel failed; see above)";
    case cudaErrorNotSupported: return "operation not supported";
    default: return cudaGetErrorName(err);
    }
}
GPUH_IMPL_SIM_API cudaError_t cudaGetDeviceCount(int *count)
{
    if (count == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *count = gpuh_sim_impl::device_count();
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaGetDevice(int *device)
{
    if (device == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *device = gpuh_sim_impl::current_device();
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaSetDevice(int device)
{
    if (device < 0 || device >= gpuh_sim_impl::device_count())
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    gpuh_sim_impl::current_device() = device;
    return gpuh_sim_impl::sticky();
}
/* In a kernel: refused with a message, the launch fails with
   cudaErrorNotSupported (CUDA 12 removed it from device code). */
GPUH_IMPL_SIM_API cudaError_t cudaDeviceSynchronize(void)
{
    if (gpuh_sim_impl::in_kernel())
        gpuh_sim_impl::refuse_in_kernel("cudaDeviceSynchronize()",
                                        "CUDA 12 removed it from device code (a parent grid does not wait for the "
                                        "grids it launches; they complete before it does)");
    return gpuh_sim_impl::sticky();
}
/* Frees every allocation and clears the sticky error, as a new context would. */
GPUH_IMPL_SIM_API cudaError_t cudaDeviceReset(void)
{
    gpuh_sim_impl::runtime_globals &r = gpuh_sim_impl::runtime_state();
    std::lock_guard<std::mutex> g(r.m);
    for (std::map<uintptr_t, gpuh_sim_impl::alloc_info>::iterator it = r.allocs.begin(); it != r.allocs.end(); ++it)
        if (it->second.owned)
            free(reinterpret_cast<void *>(it->first));
    r.allocs.clear();
    r.used = 0;
    gpuh_sim_impl::last_error() = r.sticky = cudaSuccess;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaDriverGetVersion(int *version)
{
    if (version == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaRuntimeGetVersion(int *version) { return cudaDriverGetVersion(version); }
GPUH_IMPL_SIM_API cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    if (value == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (device < 0 || device >= gpuh_sim_impl::device_count())
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: *value = 1024; break;
    case cudaDevAttrMaxBlockDimX:
    case cudaDevAttrMaxBlockDimY: *value = 1024; break;
    case cudaDevAttrMaxBlockDimZ: *value = 64; break;
    case cudaDevAttrMaxGridDimX: *value = 2147483647; break;
    case cudaDevAttrMaxGridDimY:
    case cudaDevAttrMaxGridDimZ: *value = 65535; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: *value = gpuh_sim_impl::SHMEM_DEFAULT; break;
    case cudaDevAttrTotalConstantMemory: *value = 65536; break;
    case cudaDevAttrWarpSize: *value = 32; break;
    case cudaDevAttrMaxRegistersPerBlock:
    case cudaDevAttrMaxRegistersPerMultiprocessor: *value = 65536; break;
    case cudaDevAttrClockRate: *value = 1000000; break; /* kHz: clock64() counts nanoseconds */
    case cudaDevAttrMultiProcessorCount: *value = gpuh_sim_impl::runtime_state().threads; break;
    case cudaDevAttrIntegrated:
    case cudaDevAttrCanMapHostMemory:
    case cudaDevAttrConcurrentKernels:
    case cudaDevAttrUnifiedAddressing:
    case cudaDevAttrHostRegisterSupported:
    case cudaDevAttrMemoryPoolsSupported: *value = 1; break;
    case cudaDevAttrAsyncEngineCount: *value = 2; break;
    case cudaDevAttrPciBusId: *value = 0; break;
    case cudaDevAttrMemoryClockRate: *value = 1000000; break;
    case cudaDevAttrGlobalMemoryBusWidth: *value = 64; break;
    case cudaDevAttrL2CacheSize: *value = 32 << 20; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: *value = 2048; break;
    case cudaDevAttrComputeCapabilityMajor: *value = 9; break;
    case cudaDevAttrComputeCapabilityMinor: *value = 0; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: *value = gpuh_sim_impl::SMS_SHMEM; break;
    case cudaDevAttrManagedMemory:
    case cudaDevAttrConcurrentManagedAccess: *value = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: *value = gpuh_sim_impl::SHMEM_OPTIN; break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: *value = 32; break;
    case cudaDevAttrComputeMode: *value = 0; break; /* cudaComputeModeDefault */
    case cudaDevAttrPageableMemoryAccess: *value = 0; break; /* malloc'd memory in a kernel is reported */
    case cudaDevAttrKernelExecTimeout: *value = 0; break;
    case cudaDevAttrGpuOverlap:
    case cudaDevAttrHostNativeAtomicSupported:
    case cudaDevAttrComputePreemptionSupported:
    case cudaDevAttrCooperativeLaunch:
    case cudaDevAttrStreamPrioritiesSupported:
    case cudaDevAttrGlobalL1CacheSupported:
    case cudaDevAttrLocalL1CacheSupported:
    case cudaDevAttrCanUseHostPointerForRegisteredMem:
    case cudaDevAttrDirectManagedMemAccessFromHost: *value = 1; break; /* managed memory is host memory */
    case cudaDevAttrTexturePitchAlignment: *value = 32; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: *value = 1024; break; /* sm_90's, as the occupancy calls count */
    case cudaDevAttrNumaId:
    case cudaDevAttrHostNumaId: *value = -1; break; /* no NUMA node */
    default: return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}
/* The device: compute capability 9.0 (the limits of an H100/H200), one "SM"
   per CPU worker, host memory as global memory. */
GPUH_IMPL_SIM_API cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int device)
{
    if (p == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (device < 0 || device >= gpuh_sim_impl::device_count())
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "gpuh CPU simulator (%d threads)", gpuh_sim_impl::runtime_state().threads);
    p->totalGlobalMem = gpuh_sim_impl::runtime_state().total;
    p->sharedMemPerBlock = gpuh_sim_impl::SHMEM_DEFAULT;
    p->sharedMemPerBlockOptin = gpuh_sim_impl::SHMEM_OPTIN;
    p->sharedMemPerMultiprocessor = gpuh_sim_impl::SMS_SHMEM;
    p->regsPerBlock = p->regsPerMultiprocessor = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = p->maxThreadsDim[1] = 1024;
    p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647;
    p->maxGridSize[1] = p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = 9;
    p->minor = 0;
    p->textureAlignment = 512;
    p->multiProcessorCount = gpuh_sim_impl::runtime_state().threads;
    p->integrated = p->canMapHostMemory = p->unifiedAddressing = p->managedMemory = 1;
    p->concurrentKernels = 1; /* as cudaDeviceGetAttribute says them */
    p->asyncEngineCount = 2;
    p->concurrentManagedAccess = 1; /* pageableMemoryAccess 0: a kernel given malloc'd memory is reported */
    p->memoryBusWidth = 64;
    p->l2CacheSize = 32 << 20;
    p->maxThreadsPerMultiProcessor = 2048;
    p->maxBlocksPerMultiProcessor = 32;
    p->maxTexture1D = 131072; /* an H100's texture limits (sim/include/gpuh_sim_texture.h) */
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->surfaceAlignment = 512;
    p->computePreemptionSupported = p->cooperativeLaunch = 1;
    p->persistingL2CacheMaxSize = p->l2CacheSize / 2; /* accepted by cudaStreamSetAttribute, no effect on a CPU */
    memcpy(p->uuid.bytes, "gpuh-sim-device", 15); /* not all zero, as no GPU's is; one per device */
    p->uuid.bytes[15] = static_cast<char>(device + 1);
    /* the rest as cudaDeviceGetAttribute reports them */
    p->texturePitchAlignment = 32;
    p->streamPrioritiesSupported = p->globalL1CacheSupported = p->localL1CacheSupported = 1;
    p->hostNativeAtomicSupported = p->canUseHostPointerForRegisteredMem = p->directManagedMemAccessFromHost = 1;
    p->reservedSharedMemPerBlock = 1024;
    p->hostRegisterSupported = p->memoryPoolsSupported = 1;
    p->deviceNumaId = p->hostNumaId = -1;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaDeviceGetStreamPriorityRange(int *least, int *greatest)
{
    if (least)
        *least = 0;
    if (greatest)
        *greatest = -5;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaMemGetInfo(size_t *free_bytes, size_t *total_bytes)
{
    if (free_bytes == NULL || total_bytes == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    *total_bytes = gpuh_sim_impl::runtime_state().total;
    *free_bytes = gpuh_sim_impl::runtime_state().total - gpuh_sim_impl::runtime_state().used;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaMalloc(void **p, size_t bytes)
{
    return gpuh_sim_impl::allocate(p, bytes, cudaMemoryTypeDevice);
}
GPUH_IMPL_SIM_API cudaError_t cudaMallocManaged(void **p, size_t bytes, unsigned int flags)
{
    if (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    return gpuh_sim_impl::allocate(p, bytes, cudaMemoryTypeManaged);
}
GPUH_IMPL_SIM_API cudaError_t cudaMallocHost(void **p, size_t bytes)
{
    return gpuh_sim_impl::allocate(p, bytes, cudaMemoryTypeHost);
}
GPUH_IMPL_SIM_API cudaError_t cudaHostAlloc(void **p, size_t bytes, unsigned int flags)
{
    (void)flags;
    return gpuh_sim_impl::allocate(p, bytes, cudaMemoryTypeHost);
}
GPUH_IMPL_SIM_API cudaError_t cudaFree(void *p) { return gpuh_sim_impl::release(p, false); }
GPUH_IMPL_SIM_API cudaError_t cudaFreeHost(void *p) { return gpuh_sim_impl::release(p, true); }
/* Stream-ordered allocation: work runs when issued, so these are cudaMalloc and cudaFree. */
GPUH_IMPL_SIM_API cudaError_t cudaMallocAsync(void **p, size_t bytes, cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (p != NULL && gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_ALLOC, stream, NULL, NULL, p, bytes))
        return cudaSuccess;
    return gpuh_sim_impl::allocate(p, bytes, cudaMemoryTypeDevice);
}
GPUH_IMPL_SIM_API cudaError_t cudaFreeAsync(void *p, cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_FREE, stream, NULL, NULL, &p))
        return cudaSuccess;
    const int pooled = gpuh_sim_impl::mem_pool_free(p); /* a pool's block goes back to its pool */
    return pooled < 0 ? gpuh_sim_impl::record_error(cudaErrorInvalidValue) : pooled ? cudaSuccess : gpuh_sim_impl::release(p, false);
}
/* Registers bytes of the program's memory at p as pinned (cudaMemoryTypeHost);
   errors: cudaErrorInvalidValue (NULL, 0 bytes), cudaErrorHostMemoryAlreadyRegistered
   (overlaps a registration or the sim's own memory). */
GPUH_IMPL_SIM_API cudaError_t cudaHostRegister(void *p, size_t bytes, unsigned int flags)
{
    if (p == NULL || bytes == 0 || flags > (cudaHostRegisterPortable | cudaHostRegisterMapped))
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    const uintptr_t a = reinterpret_cast<uintptr_t>(p);
    std::map<uintptr_t, gpuh_sim_impl::alloc_info> &m = gpuh_sim_impl::runtime_state().allocs;
    std::map<uintptr_t, gpuh_sim_impl::alloc_info>::iterator next = m.lower_bound(a);
    uintptr_t base = 0;
    if (bytes > UINTPTR_MAX - a) /* a range past the end of the address space */
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::find_alloc(p, &base) != NULL || (next != m.end() && next->first - a < bytes)) {
        gpuh_sim_impl::last_error() = cudaErrorHostMemoryAlreadyRegistered;
        return cudaErrorHostMemoryAlreadyRegistered;
    }
    gpuh_sim_impl::alloc_info info = {bytes, cudaMemoryTypeHost, false};
    m[a] = info;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaHostUnregister(void *p)
{
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    std::map<uintptr_t, gpuh_sim_impl::alloc_info>::iterator it =
        gpuh_sim_impl::runtime_state().allocs.find(reinterpret_cast<uintptr_t>(p));
    if (it == gpuh_sim_impl::runtime_state().allocs.end() || it->second.owned ||
        it->second.type != cudaMemoryTypeHost) {
        gpuh_sim_impl::last_error() = cudaErrorHostMemoryNotRegistered;
        return cudaErrorHostMemoryNotRegistered;
    }
    gpuh_sim_impl::runtime_state().allocs.erase(it);
    return cudaSuccess;
}
/* Pinned memory is addressed by kernels at its host address, as with UVA. */
GPUH_IMPL_SIM_API cudaError_t cudaHostGetDevicePointer(void **device_ptr, void *host_ptr, unsigned int flags)
{
    if (device_ptr == NULL || flags != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    uintptr_t base = 0;
    const gpuh_sim_impl::alloc_info *a = gpuh_sim_impl::find_alloc(host_ptr, &base);
    if (a == NULL || a->type != cudaMemoryTypeHost) {
        gpuh_sim_impl::last_error() = cudaErrorInvalidValue;
        return cudaErrorInvalidValue;
    }
    *device_ptr = host_ptr;
    return cudaSuccess;
}
/* Runs fn(user_data) now: everything issued to the stream before it has run. */
GPUH_IMPL_SIM_API cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *user_data)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    GPUH_IMPL_SIM_CAPTURE(stream, cudaLaunchHostFunc(gpuh_sim_s, fn, user_data))
        return cudaSuccess;
    if (fn == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::sticky() != cudaSuccess)
        return gpuh_sim_impl::record_error(gpuh_sim_impl::sticky());
    fn(user_data);
    return cudaSuccess;
}
/* Memory the sim did not allocate is cudaMemoryTypeUnregistered (pageable), as in CUDA 11+. */
GPUH_IMPL_SIM_API cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attr, const void *p)
{
    if (attr == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    uintptr_t base = 0;
    const gpuh_sim_impl::alloc_info *a = gpuh_sim_impl::find_alloc(p, &base);
    attr->type = a ? a->type : cudaMemoryTypeUnregistered;
    attr->device = a ? 0 : -2;
    attr->devicePointer = a && a->type != cudaMemoryTypeUnregistered ? const_cast<void *>(p) : NULL;
    attr->hostPointer = a && a->type != cudaMemoryTypeDevice ? const_cast<void *>(p) : NULL;
    if (a == NULL)
        attr->hostPointer = const_cast<void *>(p);
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaMemcpy(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind)
{
    cudaError_t err = gpuh_sim_impl::copy_check(dst, bytes, src, bytes, kind);
    if (err == cudaSuccess && bytes > 0)
        memmove(dst, src, bytes);
    return err;
}
GPUH_IMPL_SIM_API cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t bytes, enum cudaMemcpyKind kind,
                                         cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    GPUH_IMPL_SIM_CAPTURE(stream, cudaMemcpyAsync(dst, src, bytes, kind, gpuh_sim_s))
        return cudaSuccess;
    return cudaMemcpy(dst, src, bytes, kind);
}
/* height rows of width bytes, rows dpitch and spitch bytes apart. */
GPUH_IMPL_SIM_API cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                      size_t height, enum cudaMemcpyKind kind)
{
    if (width > dpitch || width > spitch)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (width == 0 || height == 0)
        return gpuh_sim_impl::sticky();
    unsigned char *d = static_cast<unsigned char *>(dst);
    const unsigned char *s = static_cast<const unsigned char *>(src);
    /* the whole span of each side (rows apart by its pitch) must pass the
       checks of a plain copy; a span that does not fit in an address fits in
       no allocation */
    size_t dspan = 0, sspan = 0;
    if (__builtin_mul_overflow(height - 1, dpitch, &dspan) || __builtin_mul_overflow(height - 1, spitch, &sspan) ||
        width > UINTPTR_MAX - reinterpret_cast<uintptr_t>(d) || width > UINTPTR_MAX - reinterpret_cast<uintptr_t>(s) ||
        dspan > UINTPTR_MAX - reinterpret_cast<uintptr_t>(d) - width ||
        sspan > UINTPTR_MAX - reinterpret_cast<uintptr_t>(s) - width)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    cudaError_t err = gpuh_sim_impl::copy_check(d, dspan + width, s, sspan + width, kind);
    for (size_t r = 0; err == cudaSuccess && r < height; ++r)
        memmove(d + r * dpitch, s + r * spitch, width);
    return err;
}
GPUH_IMPL_SIM_API cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                           size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    GPUH_IMPL_SIM_CAPTURE(stream, cudaMemcpy2DAsync(dst, dpitch, src, spitch, width, height, kind, gpuh_sim_s))
        return cudaSuccess;
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
GPUH_IMPL_SIM_API cudaError_t cudaMemset(void *p, int value, size_t bytes)
{
    if (gpuh_sim_impl::sticky() != cudaSuccess)
        return gpuh_sim_impl::record_error(gpuh_sim_impl::sticky());
    if (bytes == 0)
        return cudaSuccess;
    {
        std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
        uintptr_t base = 0;
        const gpuh_sim_impl::alloc_info *a = gpuh_sim_impl::find_alloc(p, &base);
        if (a == NULL || a->type == cudaMemoryTypeHost || !gpuh_sim_impl::range_inside(a, base, p, bytes)) {
            gpuh_sim_impl::last_error() = cudaErrorInvalidValue;
            return cudaErrorInvalidValue;
        }
    }
    memset(p, value, bytes);
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaMemsetAsync(void *p, int value, size_t bytes, cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    GPUH_IMPL_SIM_CAPTURE(stream, cudaMemsetAsync(p, value, bytes, gpuh_sim_s))
        return cudaSuccess;
    return cudaMemset(p, value, bytes);
}
/* Managed memory is host memory here: a prefetch only checks its arguments. */
GPUH_IMPL_SIM_API cudaError_t cudaMemPrefetchAsync(const void *p, size_t bytes, struct cudaMemLocation loc,
                                              unsigned int flags, cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (gpuh_sim_impl::sticky() != cudaSuccess)
        return gpuh_sim_impl::record_error(gpuh_sim_impl::sticky());
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    uintptr_t base = 0;
    const gpuh_sim_impl::alloc_info *a = gpuh_sim_impl::find_alloc(p, &base);
    if (flags != 0 || a == NULL || a->type != cudaMemoryTypeManaged ||
        !gpuh_sim_impl::range_inside(a, base, p, bytes) ||
        (loc.type == cudaMemLocationTypeDevice && loc.id != 0) ||
        (loc.type != cudaMemLocationTypeDevice && loc.type != cudaMemLocationTypeHost)) {
        gpuh_sim_impl::last_error() = cudaErrorInvalidValue;
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}
/* Managed memory is host memory here: advice only has its arguments checked
   (a whole managed range; a device or the host where the advice names a
   location: the read-mostly ones and cudaMemAdviseUnsetPreferredLocation
   ignore it, as CUDA does). */
GPUH_IMPL_SIM_API cudaError_t cudaMemAdvise(const void *p, size_t bytes, enum cudaMemoryAdvise advice,
                                            struct cudaMemLocation loc)
{
    if (gpuh_sim_impl::sticky() != cudaSuccess)
        return gpuh_sim_impl::record_error(gpuh_sim_impl::sticky());
    const bool located = advice == cudaMemAdviseSetPreferredLocation || advice == cudaMemAdviseSetAccessedBy ||
                         advice == cudaMemAdviseUnsetAccessedBy;
    if (located && loc.type == cudaMemLocationTypeDevice && (loc.id < 0 || loc.id >= gpuh_sim_impl::device_count()))
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    uintptr_t base = 0;
    const gpuh_sim_impl::alloc_info *a = gpuh_sim_impl::find_alloc(p, &base);
    if (a == NULL || a->type != cudaMemoryTypeManaged || !gpuh_sim_impl::range_inside(a, base, p, bytes) ||
        advice < cudaMemAdviseSetReadMostly || advice > cudaMemAdviseUnsetAccessedBy ||
        (located && loc.type != cudaMemLocationTypeDevice && loc.type != cudaMemLocationTypeHost)) {
        gpuh_sim_impl::last_error() = cudaErrorInvalidValue;
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}
/* A stream made in a kernel is non-blocking whatever the flags say: CUDA's
   programming guide asks for cudaStreamNonBlocking there, but its device
   runtime also accepts cudaStreamDefault (gpu.sim_cdp checks this on a GPU). */
GPUH_IMPL_SIM_API cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int flags, int priority)
{
    if (s == NULL || flags > cudaStreamNonBlocking)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *s = new CUstream_st();
    (*s)->flags = gpuh_sim_impl::in_kernel() ? cudaStreamNonBlocking : flags;
    (*s)->priority = priority > 0 ? 0 : priority < -5 ? -5 : priority; /* clamped to the range, as CUDA does */
    (*s)->device = gpuh_sim_impl::current_device();
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    gpuh_sim_impl::runtime_state().streams.insert(*s);
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int flags)
{
    return cudaStreamCreateWithPriority(s, flags, 0);
}
GPUH_IMPL_SIM_API cudaError_t cudaStreamCreate(cudaStream_t *s) { return cudaStreamCreateWithPriority(s, 0, 0); }
GPUH_IMPL_SIM_API cudaError_t cudaStreamGetFlags(cudaStream_t s, unsigned int *flags)
{
    if (flags == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::check_stream(s) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    *flags = gpuh_sim_impl::special_stream(s) ? 0 : s->flags;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaStreamGetPriority(cudaStream_t s, int *priority)
{
    if (priority == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::check_stream(s) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    *priority = gpuh_sim_impl::special_stream(s) ? 0 : s->priority;
    return cudaSuccess;
}
namespace gpuh_sim_impl {
/* Destroys stream or event handle h, which `live` (the runtime's table of
   them) must hold: a handle destroyed twice (through a copy of it) or never
   made is refused, as the table, not the handle, decides. */
template <class Table, class H> inline cudaError_t destroy_handle(Table &live, H h)
{
    {
        std::lock_guard<std::mutex> g(runtime_state().m);
        if (h == NULL || live.erase(h) == 0) {
            last_error() = cudaErrorInvalidResourceHandle;
            return cudaErrorInvalidResourceHandle;
        }
    }
    delete h;
    return cudaSuccess;
}
} /* namespace gpuh_sim_impl */
GPUH_IMPL_SIM_API cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    return gpuh_sim_impl::destroy_handle(gpuh_sim_impl::runtime_state().streams, s);
}
/* None unless the stand-in <cuda_runtime.h>'s graphs are in the program
   and stream captures (Invalidated after a call the capture cannot take). */
GPUH_IMPL_SIM_API cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *status)
{
    if (status == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::check_stream(s) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    void *invalidated = NULL;
    *status = !gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_QUERY, s, NULL, NULL, &invalidated)
                  ? cudaStreamCaptureStatusNone
              : invalidated != NULL ? cudaStreamCaptureStatusInvalidated
                                    : cudaStreamCaptureStatusActive;
    return cudaSuccess;
}
/* On a capturing stream: cudaErrorStreamCaptureUnsupported, and the capture
   is invalidated (its cudaStreamEndCapture fails), as on a GPU. */
GPUH_IMPL_SIM_API cudaError_t cudaStreamSynchronize(cudaStream_t s)
{
    if (gpuh_sim_impl::check_stream(s) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_UNSUPPORTED, s, NULL, NULL))
        return gpuh_sim_impl::record_error(gpuh_sim_impl::capture_unsupported);
    return gpuh_sim_impl::sticky();
}
GPUH_IMPL_SIM_API cudaError_t cudaStreamQuery(cudaStream_t s) { return cudaStreamSynchronize(s); }
/* Work runs when issued, so every stream is always caught up: nothing to wait for. */
GPUH_IMPL_SIM_API cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int flags)
{
    if (flags != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::check_stream(s) != cudaSuccess || gpuh_sim_impl::check_event(e) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_EVENT_WAIT, s, e, NULL))
        return cudaSuccess;
    return gpuh_sim_impl::sticky();
}
GPUH_IMPL_SIM_API cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int flags)
{
    if (e == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *e = new CUevent_st();
    (*e)->flags = flags;
    (*e)->ms = 0;
    (*e)->recorded = 0;
    (*e)->device = gpuh_sim_impl::current_device();
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    gpuh_sim_impl::runtime_state().events.insert(*e);
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaEventCreate(cudaEvent_t *e) { return cudaEventCreateWithFlags(e, 0); }
GPUH_IMPL_SIM_API cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    return gpuh_sim_impl::destroy_handle(gpuh_sim_impl::runtime_state().events, e);
}
/* The event and the stream must belong to one device (the Programming
   Guide's rule; cudaErrorInvalidResourceHandle otherwise). */
GPUH_IMPL_SIM_API cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s)
{
    if (gpuh_sim_impl::check_event(e) != cudaSuccess || gpuh_sim_impl::check_stream(s) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (!gpuh_sim_impl::in_kernel() && e->device != gpuh_sim_impl::stream_device(s))
        return gpuh_sim_impl::record_error(cudaErrorInvalidResourceHandle);
    if (gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_EVENT_RECORD, s, e, NULL))
        return cudaSuccess;
    e->ms = gpuh_sim_impl::now_ms();
    e->recorded = 1;
    return gpuh_sim_impl::sticky();
}
GPUH_IMPL_SIM_API cudaError_t cudaEventSynchronize(cudaEvent_t e)
{
    if (gpuh_sim_impl::check_event(e) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    return gpuh_sim_impl::sticky();
}
GPUH_IMPL_SIM_API cudaError_t cudaEventQuery(cudaEvent_t e) { return cudaEventSynchronize(e); }
GPUH_IMPL_SIM_API cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    if (ms == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (gpuh_sim_impl::check_event(start) != cudaSuccess || gpuh_sim_impl::check_event(end) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (!start->recorded || !end->recorded || start->device != end->device) /* events of two devices: refused */
        return gpuh_sim_impl::record_error(cudaErrorInvalidResourceHandle);
    if ((start->flags | end->flags) & cudaEventDisableTiming)
        return gpuh_sim_impl::record_error(cudaErrorInvalidResourceHandle);
    *ms = static_cast<float>(end->ms - start->ms);
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    if (attr == NULL || func == NULL)
        return gpuh_sim_impl::record_error(attr == NULL ? cudaErrorInvalidValue : cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    attr->maxThreadsPerBlock = gpuh_sim_impl::lookup_or(gpuh_sim_impl::runtime_state().bounds, func, 1024);
    attr->maxDynamicSharedSizeBytes =
        gpuh_sim_impl::lookup_or(gpuh_sim_impl::runtime_state().max_dyn_shmem, func, gpuh_sim_impl::SHMEM_DEFAULT);
    attr->numRegs = 32;
    attr->ptxVersion = attr->binaryVersion = 0; /* host code: no PTX or GPU binary of any version */
    attr->preferredShmemCarveout = -1;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    if (func == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidDeviceFunction);
    if (attr == cudaFuncAttributePreferredSharedMemoryCarveout)
        return cudaSuccess;
    if (attr != cudaFuncAttributeMaxDynamicSharedMemorySize || value < 0 || value > gpuh_sim_impl::SHMEM_OPTIN)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    gpuh_sim_impl::runtime_state().max_dyn_shmem[func] = value;
    return cudaSuccess;
}
/* Blocks per "SM": limited by 2048 threads, 32 blocks and 228 KiB of shared memory, as on Hopper. */
GPUH_IMPL_SIM_API cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                                                       size_t shmem)
{
    struct cudaFuncAttributes a;
    if (blocks == NULL || block_size <= 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    cudaError_t err = cudaFuncGetAttributes(&a, func);
    if (err != cudaSuccess)
        return err;
    if (block_size > a.maxThreadsPerBlock || shmem > static_cast<size_t>(a.maxDynamicSharedSizeBytes)) {
        *blocks = 0;
        return cudaSuccess;
    }
    int n = std::min(2048 / block_size, 32);
    if (shmem > 0)
        n = std::min<int>(n, static_cast<int>(gpuh_sim_impl::SMS_SHMEM / (shmem + 1024)));
    *blocks = n;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API void gpuh_sim_limit_reps(int *warmup, int *reps)
{
    const char *e = getenv("GPUH_SIM_REPS");
    static std::once_flag once;
    if (e == NULL || atoi(e) < 1)
        return;
    std::call_once(once, [e] {
        fprintf(stderr, "gpuh sim: GPUH_SIM_REPS=%s: timings run at most %s time(s), without warm-up; "
                        "the times are the CPU's\n", e, e);
    });
    *warmup = 0;
    *reps = std::min(*reps, atoi(e));
}
GPUH_IMPL_SIM_API int gpuh_sim_register_launch_bounds(const void *func, int max_threads)
{
    std::lock_guard<std::mutex> g(gpuh_sim_impl::runtime_state().m);
    gpuh_sim_impl::runtime_state().bounds[func] = max_threads;
    return max_threads;
}

GPUH_IMPL_SIM_API curandStatus_t curandCreateGenerator(curandGenerator_t *g, curandRngType_t type)
{
    if (g == NULL || type != CURAND_RNG_PSEUDO_PHILOX4_32_10)
        return CURAND_STATUS_TYPE_ERROR;
    *g = new gpuh_sim_curand();
    (*g)->seed = (*g)->offset = 0;
    return CURAND_STATUS_SUCCESS;
}
GPUH_IMPL_SIM_API curandStatus_t curandDestroyGenerator(curandGenerator_t g)
{
    delete g;
    return CURAND_STATUS_SUCCESS;
}
GPUH_IMPL_SIM_API curandStatus_t curandSetPseudoRandomGeneratorSeed(curandGenerator_t g, unsigned long long seed)
{
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    g->seed = seed;
    return CURAND_STATUS_SUCCESS;
}
GPUH_IMPL_SIM_API curandStatus_t curandSetGeneratorOffset(curandGenerator_t g, unsigned long long offset)
{
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    g->offset = offset;
    return CURAND_STATUS_SUCCESS;
}
GPUH_IMPL_SIM_API curandStatus_t curandSetStream(curandGenerator_t g, cudaStream_t s)
{
    if (g == NULL)
        return CURAND_STATUS_NOT_INITIALIZED;
    return gpuh_sim_impl::check_stream(s) == cudaSuccess ? CURAND_STATUS_SUCCESS : CURAND_STATUS_LAUNCH_FAILURE;
}
GPUH_IMPL_SIM_API curandStatus_t curandGenerate(curandGenerator_t g, unsigned int *out, size_t n)
{
    return gpuh_sim_impl::curand_fill(g, n, [out](unsigned long long s, unsigned long long i, size_t k) {
        out[k] = gpuh_sim_impl::philox_word(s, i);
    });
}
GPUH_IMPL_SIM_API curandStatus_t curandGenerateUniform(curandGenerator_t g, float *out, size_t n)
{
    return gpuh_sim_impl::curand_fill(g, n, [out](unsigned long long s, unsigned long long i, size_t k) {
        out[k] = (static_cast<float>(gpuh_sim_impl::philox_word(s, i) >> 8) + 1.0f) / 16777216.0f;
    });
}
GPUH_IMPL_SIM_API curandStatus_t curandGenerateUniformDouble(curandGenerator_t g, double *out, size_t n)
{
    return gpuh_sim_impl::curand_fill(g, n, [out](unsigned long long s, unsigned long long i, size_t k) {
        out[k] = gpuh_sim_impl::uniform01(s, i);
    });
}
GPUH_IMPL_SIM_API curandStatus_t curandGenerateNormal(curandGenerator_t g, float *out, size_t n, float mean, float sd)
{
    if (n % 2)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    return gpuh_sim_impl::curand_fill(g, n, [=](unsigned long long s, unsigned long long i, size_t k) {
        out[k] = static_cast<float>(mean + sd * gpuh_sim_impl::normal(s, i));
    });
}
GPUH_IMPL_SIM_API curandStatus_t curandGenerateNormalDouble(curandGenerator_t g, double *out, size_t n, double mean,
                                                       double sd)
{
    if (n % 2)
        return CURAND_STATUS_LENGTH_NOT_MULTIPLE;
    return gpuh_sim_impl::curand_fill(g, n, [=](unsigned long long s, unsigned long long i, size_t k) {
        out[k] = mean + sd * gpuh_sim_impl::normal(s, i);
    });
}

/* ---- Several devices, NCCL, memory pools. */
GPUH_IMPL_SIM_API cudaError_t cudaDeviceCanAccessPeer(int *can, int device, int peer)
{
    if (can == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (!gpuh_sim_impl::valid_device(device) || !gpuh_sim_impl::valid_device(peer))
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    *can = device != peer; /* one host memory: every pair; a device is not its own peer */
    return cudaSuccess;
}
/* Errors as CUDA's: cudaErrorInvalidDevice (out of range, or the current
   device itself), cudaErrorInvalidValue (flags not 0),
   cudaErrorPeerAccessAlreadyEnabled (the second time). */
GPUH_IMPL_SIM_API cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags)
{
    const int self = gpuh_sim_impl::current_device();
    if (flags != 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (!gpuh_sim_impl::valid_device(peer) || peer == self)
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    std::unique_lock<std::mutex> g(gpuh_sim_impl::peer_access().m);
    if (!gpuh_sim_impl::peer_access().on.insert(std::make_pair(self, peer)).second) {
        g.unlock();
        return gpuh_sim_impl::record_error(cudaErrorPeerAccessAlreadyEnabled);
    }
    return gpuh_sim_impl::sticky();
}
GPUH_IMPL_SIM_API cudaError_t cudaDeviceDisablePeerAccess(int peer)
{
    std::unique_lock<std::mutex> g(gpuh_sim_impl::peer_access().m);
    if (gpuh_sim_impl::peer_access().on.erase(std::make_pair(gpuh_sim_impl::current_device(), peer)) == 0) {
        g.unlock();
        return gpuh_sim_impl::record_error(cudaErrorPeerAccessNotEnabled);
    }
    return cudaSuccess;
}
/* Both sides must be whole device allocations of the simulator, as in cudaMemcpy. */
GPUH_IMPL_SIM_API cudaError_t cudaMemcpyPeer(void *dst, int dst_device, const void *src, int src_device, size_t bytes)
{
    if (!gpuh_sim_impl::valid_device(dst_device) || !gpuh_sim_impl::valid_device(src_device))
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToDevice);
}
/* Under stream capture: cudaErrorStreamCaptureUnsupported, the capture
   invalidated (an H200 with CUDA 13 answers so). */
GPUH_IMPL_SIM_API cudaError_t cudaMemcpyPeerAsync(void *dst, int dst_device, const void *src, int src_device,
                                                  size_t bytes, cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess)
        return cudaErrorInvalidResourceHandle;
    if (gpuh_sim_impl::captured(gpuh_sim_impl::CAPTURE_UNSUPPORTED, stream, NULL, NULL))
        return gpuh_sim_impl::record_error(gpuh_sim_impl::capture_unsupported);
    return cudaMemcpyPeer(dst, dst_device, src, src_device, bytes);
}
GPUH_IMPL_SIM_API ncclResult_t ncclGetVersion(int *version)
{
    if (version == NULL)
        return ncclInvalidArgument;
    *version = 22800;
    return ncclSuccess;
}
GPUH_IMPL_SIM_API const char *ncclGetErrorString(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error (run with NCCL_DEBUG=INFO for details)";
    case ncclSystemError: return "unhandled system error (run with NCCL_DEBUG=INFO for details)";
    case ncclInternalError: return "internal error - please report this issue to the NCCL developers";
    case ncclInvalidArgument: return "invalid argument (run with NCCL_DEBUG=WARN for details)";
    case ncclInvalidUsage: return "invalid usage (run with NCCL_DEBUG=WARN for details)";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    }
    return "unknown result code";
}
GPUH_IMPL_SIM_API const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm;
    return gpuh_sim_impl::nccl_last_error().c_str();
}
/* The id: a tag, this process's id and a counter. */
GPUH_IMPL_SIM_API ncclResult_t ncclGetUniqueId(ncclUniqueId *id)
{
    if (id == NULL)
        return gpuh_sim_impl::nccl_fail(ncclInvalidArgument, "ncclGetUniqueId: id is NULL");
    memset(id, 0, sizeof *id);
    snprintf(id->internal, sizeof id->internal, "gpuh-sim-nccl %ld %llu", static_cast<long>(getpid()),
             gpuh_sim_impl::nccl_cliques().ids++);
    return ncclSuccess;
}
/* Waits until all nranks ranks of this process have joined (one host thread each). */
GPUH_IMPL_SIM_API ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    using namespace gpuh_sim_impl;
    long pid = -1;
    if (comm == NULL || nranks < 1 || rank < 0 || rank >= nranks)
        return nccl_fail(ncclInvalidArgument, "ncclCommInitRank: rank " + std::to_string(rank) + " of " +
                                                  std::to_string(nranks));
    *comm = NULL;
    id.internal[NCCL_UNIQUE_ID_BYTES - 1] = '\0';
    if (sscanf(id.internal, "gpuh-sim-nccl %ld", &pid) != 1)
        return nccl_fail(ncclInvalidArgument, "ncclCommInitRank: the id does not come from ncclGetUniqueId");
    if (pid != static_cast<long>(getpid()))
        return nccl_fail(ncclInvalidUsage, "ncclCommInitRank: the id comes from process " + std::to_string(pid) +
                                               "; the simulator joins the ranks of one process only (one host "
                                               "thread per rank)");
    nccl_clique *c = NULL;
    {
        std::lock_guard<std::mutex> g(nccl_cliques().m);
        nccl_clique *&slot = nccl_cliques().by_id[id.internal];
        if (slot == NULL) {
            slot = nccl_new_clique(nranks);
            slot->key = id.internal;
        }
        c = slot;
    }
    std::unique_lock<std::mutex> g(c->m);
    if (c->nranks != nranks)
        return nccl_fail(ncclInvalidUsage, "ncclCommInitRank: rank " + std::to_string(rank) + " says " +
                                               std::to_string(nranks) + " ranks, another said " +
                                               std::to_string(c->nranks));
    ++c->joined;
    ++c->refs;
    c->cv.notify_all();
    const double limit = nccl_timeout_s();
    if (!c->cv.wait_for(g, std::chrono::duration<double>(limit), [&] { return c->joined >= c->nranks; })) {
        --c->joined;
        --c->refs;
        return nccl_fail(ncclInvalidUsage, "ncclCommInitRank: rank " + std::to_string(rank) + " waited " +
                                               std::to_string(static_cast<int>(limit)) + " s for " +
                                               std::to_string(c->nranks - c->joined) + " more ranks to join");
    }
    *comm = new gpuh_sim_nccl_comm;
    (*comm)->clique = c;
    (*comm)->rank = rank;
    (*comm)->device = current_device();
    return ncclSuccess;
}
GPUH_IMPL_SIM_API ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    using namespace gpuh_sim_impl;
    if (comms == NULL || ndev < 1)
        return nccl_fail(ncclInvalidArgument, "ncclCommInitAll: " + std::to_string(ndev) + " devices");
    for (int i = 0; i < ndev; ++i)
        if (!valid_device(devlist ? devlist[i] : i))
            return nccl_fail(ncclInvalidArgument, "ncclCommInitAll: device " +
                                                      std::to_string(devlist ? devlist[i] : i) + " of " +
                                                      std::to_string(device_count()) + " simulated");
    nccl_clique *c = nccl_new_clique(ndev);
    c->joined = c->refs = ndev;
    for (int i = 0; i < ndev; ++i) {
        comms[i] = new gpuh_sim_nccl_comm;
        comms[i]->clique = c;
        comms[i]->rank = i;
        comms[i]->device = devlist ? devlist[i] : i;
    }
    return ncclSuccess;
}
GPUH_IMPL_SIM_API ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    using namespace gpuh_sim_impl;
    if (comm == NULL)
        return ncclSuccess;
    nccl_clique *c = comm->clique;
    bool last;
    {
        std::lock_guard<std::mutex> g(c->m);
        last = --c->refs == 0;
    }
    if (last) {
        if (!c->key.empty()) {
            std::lock_guard<std::mutex> g(nccl_cliques().m);
            nccl_cliques().by_id.erase(c->key);
        }
        delete c;
    }
    delete comm;
    return ncclSuccess;
}
GPUH_IMPL_SIM_API ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (comm == NULL || count == NULL)
        return ncclInvalidArgument;
    *count = comm->clique->nranks;
    return ncclSuccess;
}
GPUH_IMPL_SIM_API ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (comm == NULL || device == NULL)
        return ncclInvalidArgument;
    *device = comm->device;
    return ncclSuccess;
}
GPUH_IMPL_SIM_API ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (comm == NULL || rank == NULL)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}
GPUH_IMPL_SIM_API ncclResult_t ncclGroupStart(void)
{
    ++gpuh_sim_impl::nccl_thread_group().depth;
    return ncclSuccess;
}
/* The outermost end posts every queued call, then waits for each. */
GPUH_IMPL_SIM_API ncclResult_t ncclGroupEnd(void)
{
    using namespace gpuh_sim_impl;
    nccl_group &grp = nccl_thread_group();
    if (grp.depth == 0)
        return nccl_fail(ncclInvalidUsage, "ncclGroupEnd without ncclGroupStart");
    if (--grp.depth > 0)
        return ncclSuccess;
    std::vector<std::pair<ncclComm_t, nccl_op>> ops;
    ops.swap(grp.ops);
    if (grp.error != ncclSuccess) { /* an argument error in the group: none of its calls runs */
        const ncclResult_t err = grp.error;
        nccl_last_error() = grp.why + " (ncclGroupEnd runs none of the group's calls)";
        grp.error = ncclSuccess;
        grp.why.clear();
        return err;
    }
    std::vector<unsigned long long> seqs;
    for (size_t i = 0; i < ops.size(); ++i)
        seqs.push_back(nccl_post(ops[i].first, ops[i].second));
    const nccl_clock::time_point deadline = nccl_deadline(); /* one time-out for the whole group */
    ncclResult_t first = ncclSuccess;
    for (size_t i = 0; i < ops.size(); ++i) {
        ncclResult_t r = nccl_wait(ops[i].first, seqs[i], deadline);
        if (first == ncclSuccess)
            first = r;
    }
    return first;
}
GPUH_IMPL_SIM_API ncclResult_t ncclAllReduce(const void *send, void *recv, size_t count, ncclDataType_t type,
                                             ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    (void)stream; /* work runs when issued */
    gpuh_sim_impl::nccl_op o = {0, send, recv, count, type, op, 0, 0};
    return gpuh_sim_impl::nccl_collective(comm, o, "ncclAllReduce");
}
GPUH_IMPL_SIM_API ncclResult_t ncclBroadcast(const void *send, void *recv, size_t count, ncclDataType_t type, int root,
                                             ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    gpuh_sim_impl::nccl_op o = {1, send, recv, count, type, ncclSum, root, 0};
    return gpuh_sim_impl::nccl_collective(comm, o, "ncclBroadcast");
}
GPUH_IMPL_SIM_API ncclResult_t ncclAllGather(const void *send, void *recv, size_t count, ncclDataType_t type,
                                             ncclComm_t comm, cudaStream_t stream)
{
    (void)stream;
    gpuh_sim_impl::nccl_op o = {2, send, recv, count, type, ncclSum, 0, 0};
    return gpuh_sim_impl::nccl_collective(comm, o, "ncclAllGather");
}
GPUH_IMPL_SIM_API cudaError_t cudaMemPoolCreate(cudaMemPool_t *pool, const struct cudaMemPoolProps *props)
{
    if (pool == NULL || props == NULL || props->allocType != cudaMemAllocationTypePinned ||
        props->handleTypes != cudaMemHandleTypeNone || props->location.type != cudaMemLocationTypeDevice)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    if (props->location.id < 0 || props->location.id >= gpuh_sim_impl::device_count())
        return gpuh_sim_impl::record_error(cudaErrorInvalidDevice);
    CUmemPoolHandle_st *pl = new CUmemPoolHandle_st();
    pl->device = props->location.id;
    pl->destroyed = false;
    pl->threshold = 0; /* CUDA's default */
    pl->reserved = pl->used = pl->reserved_high = pl->used_high = 0;
    {
        std::lock_guard<std::mutex> g(gpuh_sim_impl::mem_pools().m);
        gpuh_sim_impl::mem_pools().live.insert(pl);
    }
    *pool = pl;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool)
{
    std::lock_guard<std::mutex> g(gpuh_sim_impl::mem_pools().m);
    if (gpuh_sim_impl::mem_pools().live.erase(pool) == 0) /* NULL, destroyed already, or never made */
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::mem_pool_trim(pool, 0);
    if (pool->used == 0)
        delete pool;
    else
        pool->destroyed = true;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaMallocFromPoolAsync(void **p, size_t bytes, cudaMemPool_t pool, cudaStream_t stream)
{
    if (gpuh_sim_impl::check_stream(stream) != cudaSuccess) /* work runs when issued: the stream is only checked */
        return cudaErrorInvalidResourceHandle;
    if (p == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    *p = NULL;
    if (gpuh_sim_impl::sticky() != cudaSuccess)
        return gpuh_sim_impl::record_error(gpuh_sim_impl::sticky());
    if (bytes == 0)
        return cudaSuccess;
    if (bytes > SIZE_MAX - GPUH_IMPL_SIM_POOL_ALIGN)
        return gpuh_sim_impl::record_error(cudaErrorMemoryAllocation);
    const size_t size = (bytes + GPUH_IMPL_SIM_POOL_ALIGN - 1) / GPUH_IMPL_SIM_POOL_ALIGN * GPUH_IMPL_SIM_POOL_ALIGN;
    std::lock_guard<std::mutex> g(gpuh_sim_impl::mem_pools().m);
    if (gpuh_sim_impl::mem_pools().live.count(pool) == 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    std::multimap<size_t, void *>::iterator it = pool->idle.find(size);
    void *mem = NULL;
    if (it != pool->idle.end()) {
        mem = it->second;
        pool->idle.erase(it);
    } else {
        cudaError_t err = gpuh_sim_impl::allocate(&mem, size, cudaMemoryTypeDevice);
        if (err != cudaSuccess) {
            gpuh_sim_impl::mem_pool_trim(pool, 0); /* give back what is idle and try once more */
            cudaGetLastError();
            if ((err = gpuh_sim_impl::allocate(&mem, size, cudaMemoryTypeDevice)) != cudaSuccess)
                return err;
        }
        pool->reserved += size;
        pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    }
    gpuh_sim_impl::mem_pool_block b = {pool, size, bytes, true};
    gpuh_sim_impl::mem_pools().blocks[reinterpret_cast<uintptr_t>(mem)] = b;
    pool->used += bytes;
    pool->used_high = std::max(pool->used_high, pool->used);
    *p = mem;
    return cudaSuccess;
}
GPUH_IMPL_SIM_API cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t min_bytes_to_keep)
{
    std::lock_guard<std::mutex> g(gpuh_sim_impl::mem_pools().m);
    if (gpuh_sim_impl::mem_pools().live.count(pool) == 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    gpuh_sim_impl::mem_pool_trim(pool, min_bytes_to_keep);
    return cudaSuccess;
}
/* Values are unsigned long long (cuuint64_t), or int for the reuse flags;
   the high watermarks accept only 0, which resets them to the current value. */
GPUH_IMPL_SIM_API cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    if (value == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    const unsigned long long v = *static_cast<unsigned long long *>(value);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::mem_pools().m);
    if (gpuh_sim_impl::mem_pools().live.count(pool) == 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: return cudaSuccess; /* one stream order: nothing to choose */
    case cudaMemPoolAttrReleaseThreshold: pool->threshold = v; return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh:
    case cudaMemPoolAttrUsedMemHigh:
        if (v != 0)
            break;
        if (attr == cudaMemPoolAttrReservedMemHigh)
            pool->reserved_high = pool->reserved;
        else
            pool->used_high = pool->used;
        return cudaSuccess;
    default: break;
    }
    return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
}
GPUH_IMPL_SIM_API cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value)
{
    if (value == NULL)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    unsigned long long *out = static_cast<unsigned long long *>(value);
    std::lock_guard<std::mutex> g(gpuh_sim_impl::mem_pools().m);
    if (gpuh_sim_impl::mem_pools().live.count(pool) == 0)
        return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
    switch (attr) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: *static_cast<int *>(value) = 1; return cudaSuccess;
    case cudaMemPoolAttrReleaseThreshold: *out = pool->threshold; return cudaSuccess;
    case cudaMemPoolAttrReservedMemCurrent: *out = pool->reserved; return cudaSuccess;
    case cudaMemPoolAttrReservedMemHigh: *out = pool->reserved_high; return cudaSuccess;
    case cudaMemPoolAttrUsedMemCurrent: *out = pool->used; return cudaSuccess;
    case cudaMemPoolAttrUsedMemHigh: *out = pool->used_high; return cudaSuccess;
    }
    return gpuh_sim_impl::record_error(cudaErrorInvalidValue);
}
/* ---- The device functions declared in [SECTION: DEVICE SURFACE]. */
inline unsigned __activemask()
{
    const gpuh_sim_impl::thread_view &v = gpuh_sim_impl::thread_state();
    const gpuh_sim_impl::block_state &b = *v.w->block;
    const int base = v.lin / 32 * 32;
    unsigned m = 0;
    for (int k = 0; k < 32 && base + k < b.n; ++k)
        m |= static_cast<unsigned>(b.state[base + k] != gpuh_sim_impl::T_DONE) << k;
    return m;
}
namespace gpuh_sim_impl {
/* Every so many volatile accesses or __nanosleep calls, the CPU thread
   yields to the others, so that a block spinning on a flag lets the block
   that will set it run (the pool may run more blocks than there are cores:
   host_thread_pool::watch). A thread of a launch that has failed elsewhere
   stops there: the flag it waits for may never come. */
inline void spin_point(worker &w)
{
    static thread_local unsigned count = 0;
    if ((++count & 255u) == 0) {
        w.job->spins.fetch_add(1, std::memory_order_relaxed);
        if (w.job->failed.load(std::memory_order_relaxed) != 0)
            kill_launch(static_cast<cudaError_t>(w.job->failed.load()));
        std::this_thread::yield();
    }
}
/* The end of a thread's turn at a volatile access (gpuh_sim_volatile_ptr):
   the scheduler runs every other ready thread of the block once first. */
inline void volatile_turn()
{
    thread_view &v = thread_state();
    if (v.w == NULL || v.w->current == NULL)
        return; /* not in a kernel */
    v.w->block->state[v.lin] = T_READY;
    to_scheduler(*v.w, v.w->current);
    spin_point(*v.w);
}
} // namespace gpuh_sim_impl
inline void gpuh_sim_warp_step()
{
    gpuh_sim_impl::thread_view &v = gpuh_sim_impl::thread_state();
    if (v.w == NULL || v.w->current == NULL || gpuh_sim_impl::runtime_state().schedule != 0)
        return; /* not in a kernel, or a schedule that shows a missing __syncwarp */
    v.w->block->state[v.lin] = gpuh_sim_impl::T_STEP;
    gpuh_sim_impl::to_scheduler(*v.w, v.w->current);
}
inline void __nanosleep(unsigned ns)
{
    (void)ns;
    gpuh_sim_impl::worker &w = *gpuh_sim_impl::thread_state().w;
    w.block->state[gpuh_sim_impl::thread_state().lin] = gpuh_sim_impl::T_READY;
    gpuh_sim_impl::to_scheduler(w, w.current);
    gpuh_sim_impl::spin_point(w);
}
/* Nanoseconds: cudaDevAttrClockRate reports 1 GHz, so cycles and ns agree. */
inline long long clock64()
{
    return static_cast<long long>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                      std::chrono::steady_clock::now().time_since_epoch())
                                      .count());
}
/* clock(): in a kernel, the SM clock (clock64()'s cycles, as CUDA's device
   clock() counts them); on the host, the C library's processor time, which
   this definition computes as glibc does, since it takes the C library's
   place for the whole program (as __assert_fail's below does). */
extern "C" __attribute__((weak)) clock_t clock(void) noexcept
{
    if (gpuh_sim_impl::in_kernel())
        return static_cast<clock_t>(clock64());
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0)
        return static_cast<clock_t>(-1);
    return static_cast<clock_t>(t.tv_sec) * CLOCKS_PER_SEC +
           static_cast<clock_t>(t.tv_nsec / (1000000000 / CLOCKS_PER_SEC));
}

/* A failed assert(): in a kernel, CUDA prints the assertion with the block
   and thread and fails the launch with cudaErrorAssert (sticky); on the host,
   the C library's behaviour (message, abort). This definition takes the C
   library's place for the whole program. */
extern "C" __attribute__((weak, noreturn)) void __assert_fail(const char *expr, const char *file, unsigned int line,
                                                               const char *func) noexcept
{
    if (gpuh_sim_impl::in_kernel()) {
        fprintf(stderr, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file, line, func,
                blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z, expr);
        gpuh_sim_impl::kill_launch(cudaErrorAssert);
    }
    fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, func, expr);
    abort();
}

/* UndefinedBehaviorSanitizer's hook, called as it reports (a float out of an
   integer type's range under -fsanitize=float-cast-overflow, among others):
   in a kernel, the simulator names the kernel, block and thread, which
   UBSan's report (file, line and value) lacks. Never called without UBSan. */
extern "C" __attribute__((weak)) void __ubsan_on_report(void)
{
    if (gpuh_sim_impl::in_kernel()) {
        char where[96];
        gpuh_sim_impl::format_where(where, sizeof where);
        fprintf(stderr, "gpuh sim: UBSan report in kernel %s (%s)\n", gpuh_sim_impl::thread_state().w->job->kernel,
                where);
    }
}
#endif /* __cplusplus */

#endif /* GPUH_SIM_H */
