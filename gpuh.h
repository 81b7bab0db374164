/* gpuh.h - v0.1.0 - CUDA launch helpers for C: errors, devices, launch geometry,
   memory with Numba's names, event timing, random inputs.

   MIT licence at the end of this file.

   ============================================================================
   USING IT

   Copy gpuh.h next to your sources (or add this repository with CMake and link
   gpuh::gpuh) and include it. Everything is `static inline`, so any number of
   translation units may include it; there is nothing to build. It compiles as
   C99, C++ and CUDA C++, and links with cudart alone, plus the C library's
   pthreads (in libc since glibc 2.34; add -pthread where they are apart).
   The cuRAND helpers are opt-in: see GPUH_USE_CURAND.

       nvcc -I<dir> prog.cu                    CUDA C++ (kernels + GPUH_LAUNCH)
       gcc -std=c99 -I<dir> -isystem <cuda>/include prog.c -L<cuda>/lib64 -lcudart

   A whole program in C (the kernel comes from gpuh_kernels.cuh, built once in a
   .cu file with GPUH_KERNELS_IMPLEMENTATION defined):

       #include "gpuh.h"
       #include "gpuh_kernels.cuh"
       int main(void) {
           float a[1000], b[1000], c[1000], *d_a, *d_b, *d_c;
           size_t i, n = 1000;
           for (i = 0; i < n; ++i) { a[i] = (float)i; b[i] = 2.0f * (float)i; }
           GPUH_CHECK(gpuh_to_device(&d_a, a, n));       // cuda.to_device(a)
           GPUH_CHECK(gpuh_to_device(&d_b, b, n));
           GPUH_CHECK(gpuh_device_array(&d_c, n));        // cuda.device_array(n)
           GPUH_CHECK(gpuh_vector_add_f32(d_a, d_b, d_c, n, 0));
           GPUH_CHECK(gpuh_copy_to_host(c, d_c, n));      // d_c.copy_to_host(c)
           gpuh_free(d_a); gpuh_free(d_b); gpuh_free(d_c);
           return c[999] == 2997.0f ? 0 : 1;
       }

   ============================================================================
   OVERRIDE MACROS (define before including; the same in every file)

   GPUH_DEF            storage of every function.     default: static inline
   GPUH_ON_ERROR       what GPUH_CHECK does after it has printed a failure.
                                                       default: abort()
   GPUH_LOG(...)       printf-style sink for GPUH_CHECK's reports.
                                                       default: fprintf(stderr, __VA_ARGS__)
   GPUH_DEBUG_SYNC     if defined, GPUH_LAUNCH and GPUH_CHECK_LAUNCH also call
                       cudaDeviceSynchronize(), so that a fault inside a kernel
                       is reported against the launch that raised it. Slow:
                       for debugging.                  default: undefined
   GPUH_USE_CURAND     if defined, declares the gpuh_random_* helpers (include
                       curand.h; link CUDA::curand or -lcurand).
                                                       default: undefined
   GPUH_USE_NCCL       if defined, the collectives (gpuh_all_reduce & co.) go
                       through NCCL (include path of nccl.h; link CMake's
                       gpuh::nccl or -lnccl); undefined, they return
                       cudaErrorNotSupported saying so.  default: undefined
   GPUH_NVTX           1: NVTX ranges in a "gpuh" domain around gpuh's calls
                       that do GPU work or wait (see NOTES); 0: none.
                                                       default: 1 where
                       <nvtx3/nvToolsExt.h> is found (CUDA's include folder),
                       0 without it and on the simulator
   GPUH_USE_NVRTC      if defined, declares gpuh_module_* (kernels compiled from
                       source at run time; link NVRTC: CMake gpuh::nvrtc, or
                       -lnvrtc; no libcuda needed; on the simulator see
                       NOTES).                         default: undefined
   GPUH_MODULE_CACHE_CAPACITY  compiled images gpuh_module keeps in memory.
                                                       default: 64
   GPUH_MAX_DEVICES    most devices in a gpuh_devices set.   default: 16
   GPUH_LEDGER_CAPACITY  live allocations the ledger tracks by name and size
                       (more still work, but are counted as untracked).
                                                       default: 1024
   GPUH_MAX_REPS       largest `reps` gpuh_time_median_ms accepts.  default: 1000
   GPUH_NO_PAGEABLE_WARNING  if defined, the _async copies do not check for
                       pageable host memory (see NOTES).   default: undefined
   GPUH_SIM            if defined, gpuh runs on the CPU simulator: gpuh_sim.h
                       stands in for <cuda_runtime.h> and cuRAND, .cu files are
                       compiled as C++ (see gpuh_sim.h, tools/gpuh-simcc).
                                                       default: undefined

   ============================================================================
   CONVENTIONS (gpuh.h, gpuh_kernels.cuh and gpuh_sim.h all follow them)

   One copy across translation units: every function is GPUH_DEF (static
   inline), so each translation unit has its own copy and nothing clashes at
   link time. State that must be one per process (the allocation ledger, the
   leak-check flag) lives in objects defined in the header as weak (GCC,
   Clang) or selectany (MSVC) symbols: every translation unit defines them
   and the linker keeps one. Per-thread state (the error detail, the last
   launch) is the same, with thread-local storage. The other headers keep
   their code and state the same way.

   Errors: a function returns cudaError_t (or NULL with an error). When gpuh
   itself decides a call fails, it records a detail naming the function, the
   argument and the value, through gpuh_fail(err, fmt, ...), which returns
   err; gpuh_error_detail() reads it and GPUH_CHECK prints it. An error passed
   through from the runtime unchanged carries no detail of gpuh's. Your own
   helpers may use gpuh_fail the same way.

   Private names: gpuh_impl_* and GPUH_IMPL_* are private: they may change or
   go away in any release without notice. Everything else with the gpuh_ /
   GPUH_ prefix is public and documented here.

   Device code: GPUH_HAS_DEVICE_CODE is 1 in a translation unit that can hold
   kernels and device functions (nvcc, or C++ on the simulator), else 0. Test
   it with #if, rather than spelling out the compiler test.

   Threads: gpuh may be called from several host threads at once, as the
   CUDA runtime may. Per host thread: gpuh_error_detail() and
   gpuh_last_launch() (as cudaGetLastError is per thread). Per process, under
   a lock: the allocation ledger and its counters (gpuh_memory_info,
   gpuh_print_allocations, the leak report), the leak-check flag, the
   pageable-copy warnings. The simulator runs launches from several host
   threads at once too.

   ============================================================================
   API (every function returns cudaError_t unless said; none calls exit())

   Version
     GPUH_VERSION                  MAJOR * 10000 + MINOR * 100 + PATCH, e.g. 100 for 0.1.0
                                   (compare with #if GPUH_VERSION >= 200, as CUDART_VERSION)
     GPUH_VERSION_MAJOR, GPUH_VERSION_MINOR, GPUH_VERSION_PATCH   its parts
   Errors
     gpuh_fail(err, fmt, ...)      record a printf-style detail for err; returns err
     gpuh_clear_error_detail()     forget this thread's detail (void)
     GPUH_CHECK(expr)              report expr, file:line, error name + message
                                   (+ gpuh's detail, + last launch), then GPUH_ON_ERROR
     GPUH_CHECK_LAUNCH()           GPUH_CHECK of the last launch (+ sync under GPUH_DEBUG_SYNC)
     gpuh_error_is_sticky(err)     1 if the context is unusable after err (int)
     gpuh_error_detail()           gpuh's message for this thread's last error (const char *)
     gpuh_last_launch()            this thread's last GPUH_LAUNCH (gpuh_launch_record:
                                   kernel, grid, block, shmem_bytes, file, line)
     gpuh_check_launch()           cudaGetLastError (+ cudaDeviceSynchronize under GPUH_DEBUG_SYNC)
     gpuh_report_error(err, expr, file, line)   what GPUH_CHECK prints (void)
   Other CUDA libraries' status (each compiled only when its library's header was
   included before gpuh.h, or gpuh.h is included again after it; same report and
   GPUH_ON_ERROR as GPUH_CHECK; idea: the CUDA samples' helper_cuda.h)
     GPUH_CHECK_CUBLAS(expr)       cublasStatus_t    name + message: cublasGetStatusName/String
     GPUH_CHECK_CUFFT(expr)        cufftResult       name + message: gpuh's table (cuFFT has none)
     GPUH_CHECK_CURAND(expr)       curandStatus_t    gpuh's table (also on the simulator)
     GPUH_CHECK_CUSPARSE(expr)     cusparseStatus_t  cusparseGetErrorName/String
     GPUH_CHECK_CUSOLVER(expr)     cusolverStatus_t  gpuh's table (cusolver_common.h)
     GPUH_CHECK_CU(expr)           CUresult (driver API, cuda.h)   cuGetErrorName/String
     GPUH_CHECK_NVRTC(expr)        nvrtcResult       nvrtcGetErrorString
     GPUH_CHECK_NCCL(expr)         ncclResult_t      gpuh's names, ncclGetErrorString and
                                   ncclGetLastError (also on the simulator)
     gpuh_cublas_status_name(s), gpuh_cufft_, _curand_, _cusparse_, _cusolver_, _cu_, _nvrtc_,
     gpuh_nccl_status_name(s)      the status's enumerator name (const char *, never NULL)
     gpuh_report_status(library, code, name, message, expr, file, line)   their report, for
                                   a library of your own (void)
     GPUH_CHECK_STATUS(expr)       any of these statuses or a cudaError_t, by expr's type
                                   (C++ overloads, C11 _Generic; not in C99)
   Devices
     gpuh_device_count(&reason)    number of devices; 0 and a reason if none (int)
     GPUH_SIM_TWIN_HINT("name")    "its simulator twin runs on the CPU: build/sim_name ..." (a string
                                   literal, for a program's no-device message)
     gpuh_select_device(id)        cudaSetDevice with a range check
     gpuh_print_devices(stream)    every device, like Numba's cuda.detect()
     gpuh_memory_info(&stats)      free/total device memory, bytes held through gpuh now and at
                                   peak (gpuh_memory_stats)
     gpuh_reset_peak_memory()      peak := now (void)
     gpuh_print_allocations(file)  live gpuh allocations with file:line (size_t count)
     gpuh_check_leaks_at_exit()    at exit, list unfreed gpuh allocations (or GPUH_CHECK_LEAKS=1)
   Launch geometry (host)
     gpuh_ceil_div(n, d)           ceil(n/d) without overflow (size_t)
     gpuh_check_block(block)       block within the CUDA limits
     gpuh_grid_1d(&grid, n, block_x), gpuh_grid_2d(&grid, nx, ny, block),
     gpuh_grid_3d(&grid, nx, ny, nz, block)     ceil-divided grid, checked against the limits
     gpuh_suggest_block_size(kernel, shmem, &block, &min_grid)   occupancy API
     GPUH_LAUNCH(kernel, grid, block, shmem, stream, args...)    checked <<< >>> (CUDA C++)
     GPUH_MAX_GRID_X, GPUH_MAX_GRID_YZ, GPUH_MAX_BLOCK_THREADS, GPUH_MAX_BLOCK_XY,
     GPUH_MAX_BLOCK_Z              CUDA's launch limits: 2^31-1, 65535, 1024, 1024, 64
   Launch geometry (device code)
     gpuh_global_index()           blockIdx.x*blockDim.x+threadIdx.x in 64 bits (Numba cuda.grid(1))
     gpuh_grid_stride()            gridDim.x*blockDim.x in 64 bits (Numba cuda.gridsize(1))
     gpuh_global_index_2d(), _3d() this thread's (x, y) / (x, y, z) in the grid (gpuh_size2 /
                                   gpuh_size3, 64-bit fields) (Numba cuda.grid(2), cuda.grid(3))
     gpuh_grid_stride_2d(), _3d()  threads in the grid along x, y (, z) (Numba cuda.gridsize(2), (3))
   Memory (element counts; sizeof is taken from the pointers' types)
     gpuh_device_array(&d, n)              cudaMalloc n elements (Numba cuda.device_array)
     gpuh_to_device(&d, h, n)              allocate + copy host->device (Numba cuda.to_device)
     gpuh_to_device_async(&d, h, n, s)     same, copy on stream s
     gpuh_copy_to_device(d, h, n)          copy into an existing device array (+ _async)
     gpuh_copy_to_host(h, d, n)            copy device->host (Numba copy_to_host) (+ _async)
     gpuh_pinned_array(&h, n)              page-locked host memory (Numba cuda.pinned_array)
     gpuh_managed_array(&m, n)             unified memory (Numba cuda.managed_array)
     gpuh_prefetch_async(m, n, device, s)  migrate managed pages before they are touched
     gpuh_free(p)                          free anything the above returned; NULL is a no-op
   Memory pool (CUDA's stream-ordered allocator, PyTorch's counters)
     gpuh_pool_create(&pool, device, release_threshold)   a cudaMemPool_t (GPUH_POOL_KEEP_ALL: cache all)
     gpuh_pool_alloc(&pool, &d, n, s), gpuh_pool_free(&pool, d, s)   on a stream, reusing freed memory
     gpuh_pool_memory_stats(&pool, &st)    allocated/reserved bytes now and at peak (gpuh_pool_stats)
     gpuh_pool_reset_peak(&pool), gpuh_empty_cache(&pool)   peaks := now; trim to what is live
     gpuh_pool_destroy(&pool)
   Timing
     gpuh_timer_create/destroy/start/stop, gpuh_timer_elapsed_ms   CUDA-event timer (gpuh_timer)
     gpuh_time_median_ms(fn, ctx, stream, warmup, reps, &ms)      warm up, repeat, median
                                   (fn is a gpuh_work_fn; reps <= GPUH_MAX_REPS)
   Streams and events
     gpuh_stream_create(&s, flags, priority)   checked flags and priority range
     gpuh_stream_destroy(&s), gpuh_event_destroy(&e)   NULL-safe, set the handle to NULL
     gpuh_event_create(&e, flags), gpuh_event_record(e, s), gpuh_stream_wait_event(s, e)
     gpuh_stream_sync(s)                       cudaStreamSynchronize with gpuh's detail
     gpuh_event_elapsed_ms(start, stop, &ms)   waits for stop; ms between the two
   Pipeline
     gpuh_pipeline(&desc)                      host arrays through a kernel in chunks on
                                               k streams, copies overlapping compute
     gpuh_pipeline_desc                        what to run: arrays, chunk, streams, launcher
     gpuh_pipeline_launch_fn                   the launcher: one chunk on one stream
     gpuh_pipeline_chunk                       when each chunk's copies and kernel ran
     GPUH_PIPELINE_MAX_ARRAYS (4), GPUH_PIPELINE_MAX_STREAMS (16),
     GPUH_PIPELINE_DEFAULT_CHUNK (2^20 elements), GPUH_PIPELINE_DEFAULT_STREAMS (4)
   Several devices (one host thread; errors name the device)
     gpuh_devices_open(&set, ids, count)       devices (NULL: the first count, all if count <= 0),
                                               a stream each, peer access where possible
     gpuh_devices_report_peers(set, file)      pairs without peer access (int)
     gpuh_devices_run(set, step, ctx)          step(ctx, index, device, stream) on each device
     gpuh_devices_sync(set), gpuh_devices_close(&set)
     gpuh_shards_device_array(&sh, set, rows, row_elems, elem_size)   split by whole rows
     gpuh_shards_to_device(&sh, set, h, rows, row_elems)    split + copy (Numba to_device per device)
     gpuh_replicate_to_device(&sh, set, h, n)  a whole copy on every device
     gpuh_replicate_device_array(&sh, set, n, elem_size)   the same, uninitialised
     gpuh_shards_copy_to_device(h, &sh, set), gpuh_shards_copy_to_host(h, &sh, set)
     gpuh_shards_rows/_elems(&sh, i), gpuh_shards_free(&sh)
     gpuh_shards_gather(&sh, set, index, d_dst)   all shards onto one device (peer copies)
     gpuh_copy_peer(d_dst, d_src, n, stream)   device to device (peer links where they exist)
   Collectives (GPUH_USE_NCCL; without it they return cudaErrorNotSupported)
     gpuh_nccl_available(&reason)              1 if built with NCCL (int)
     gpuh_devices_init_nccl(set)               one communicator per device (one process)
     gpuh_all_reduce(set, send, recv, n, dtype, op), gpuh_broadcast(..., root),
     gpuh_all_gather(set, send, recv, n, dtype)    one buffer per device, on the set's streams
     gpuh_nccl_id_create/_write/_read(&id, ...)    the id ranks share (file, pipe)
     gpuh_comm_init(&comm, &id, nranks, rank, device), gpuh_comm_destroy(&comm)
     gpuh_comm_all_reduce/_broadcast/_all_gather(&comm, ..., stream)   one process per device
   NVTX ranges (GPUH_NVTX; no-ops when 0 and on the simulator)
     gpuh_nvtx_push(name), gpuh_nvtx_pushf(fmt, ...), gpuh_nvtx_pop()   a range of your own
                                   in the "gpuh" domain (void)
     GPUH_NVTX_RANGE(name), GPUH_NVTX_RANGEF(fmt, ...)   a range over a C++ scope
                                   (gpuh_nvtx_scope); C++ only
     GPUH_NVTX_NAME_BYTES          a formatted name's bytes, its zero included: 128
   Run-time compilation (GPUH_USE_NVRTC; PyCUDA SourceModule, CuPy RawModule)
     gpuh_source_module(&m, source, options, n)   compile + load, source in extern "C" (PyCUDA)
     gpuh_module_compile(&m, &desc)   the same from a gpuh_module_desc: options, name
                                   expressions (templates), extern_c; cached by a hash in
                                   memory and in $GPUH_MODULE_CACHE_DIR
     gpuh_module_function(m, name, &k)   a kernel by name or name expression (gpuh_kernel)
     gpuh_module_launch(&k, grid, block, shmem, stream, args, n)   args: gpuh_arg[], GPUH_ARG(x);
                                   count and sizes checked against the kernel's parameters
     gpuh_module_log(m), gpuh_module_destroy(&m)
   Random inputs
     gpuh_random_seed()                          GPUH_SEED, or fresh from the clock (no cuRAND needed)
   Random inputs (GPUH_USE_CURAND)
     gpuh_random_uniform_f32, gpuh_random_uniform_f64(d, n, seed, stream)    (0, 1]
     gpuh_random_normal_f32, gpuh_random_normal_f64(d, n, mean, stddev, seed, stream)
     gpuh_random_u32(d, n, seed, stream)                          32 random bits each

   ============================================================================
   NOTES

   Devices and CUDA_VISIBLE_DEVICES: the runtime sees only the devices listed in
   CUDA_VISIBLE_DEVICES (a comma-separated list of indices or UUIDs), and
   renumbers them from 0 in the order listed: with CUDA_VISIBLE_DEVICES=2,0 the
   physical device 2 is gpuh device 0. An empty value hides every device.

   Errors: a "sticky" error (an illegal address, a failed launch, a device-side
   assert, ...) poisons the CUDA context: every later CUDA call in the process
   returns it, and only restarting the process recovers. GPUH_CHECK says so.
   Kernel faults are asynchronous: they surface at the next synchronising call,
   possibly far from the launch; define GPUH_DEBUG_SYNC to pin them down.

   Pageable memory: an _async copy whose host side is ordinary (pageable)
   memory is staged by the driver through its own pinned buffer and returns
   only when done, so it overlaps nothing. The _async helpers ask
   cudaPointerGetAttributes and, for pageable memory, warn once per call site
   through GPUH_LOG; gpuh_pinned_array gives memory that copies asynchronously.

   Checked memory: the copy and prefetch helpers look each pointer up in
   gpuh's ledger (a count past the end of the allocation it is in is refused
   with both sizes) and, for memory gpuh did not allocate, ask
   cudaPointerGetAttributes (host memory where device memory belongs, or the
   reverse, is refused), and refuse an element pointer off its type's
   alignment. The cost is a ledger scan and one attribute query per side.

   Run-time compilation: gpuh_module_compile keeps each compiled image in
   memory (GPUH_MODULE_CACHE_CAPACITY of them, the oldest replaced first),
   keyed by a 64-bit FNV-1a hash of the source, the options, the name
   expressions, extern_c and the device's architecture, and, when the
   environment variable GPUH_MODULE_CACHE_DIR names a folder, in files
   gpuh-module-<hash>.bin there, read by later processes. Nothing checks a
   file's image beyond its key: clear the folder when NVRTC or the driver
   changes. Headers a source includes are not in the key either: a change to
   them needs a new -D option or a cleared cache. The default architecture
   is the current device's (-arch=sm_XY, a cubin); an -arch option of the
   caller's is used as given (compute_XY gives PTX, which the driver
   compiles at load).
   On the simulator gpuh_module compiles with tools/gpuh-simcc and the host
   C++ compiler into a shared object and loads it (dlopen); the image the
   caches keep is that object, and the key's "device" is gpuh-simcc
   --identity (the compiler and the simulator's headers, so a changed
   gpuh_sim.h misses the cache). It needs at run time python3 and a C++
   compiler on PATH ($GPUH_SIMCC_CXX, else $CXX, else c++) and gpuh-simcc
   ($GPUH_SIMCC, else found from gpuh_sim_nvrtc.h's path); to build, the
   stand-ins' folder (sim/include) on the include path and the program
   linked with -rdynamic (CMake: ENABLE_EXPORTS; gpuh_sim_enable_modules in
   cmake/nvrtc.cmake does both), so that the module's kernels share the
   program's simulator. A compile takes seconds (the source and all of
   gpuh_sim.h); with GPUH_MODULE_CACHE_DIR set, gpuh-simcc keeps a
   precompiled gpuh_sim.h there (about 100 MB, built once), which halves
   it, and a module compiled before loads in milliseconds.

   NVTX ranges: with GPUH_NVTX on, each gpuh call that does GPU work or
   waits opens a range named after itself in the "gpuh" domain: the copies
   (gpuh_copy_to_host & co., gpuh_to_device, gpuh_copy_peer), gpuh_prefetch_async,
   gpuh_pipeline with one range per chunk inside it ("gpuh_pipeline chunk 3"),
   gpuh_stream_sync, gpuh_devices_sync, gpuh_event_elapsed_ms,
   gpuh_timer_elapsed_ms, gpuh_time_median_ms, the shard copies and
   gpuh_shards_gather, the collectives, the random fills, and in
   gpuh_kernels.cuh the launchers (vector add, the reductions, the sharded
   calls, the tensor-core GEMM with its M x N x K). A call refused for its
   arguments still opens and closes its range. NVTX3 is header-only: it
   loads a tool's library at the first range only when one is attached
   (Nsight Systems, Nsight Compute with --nvtx, or NVTX_INJECTION64_PATH);
   otherwise a range costs a load and a branch per push and pop. Its loader
   calls dlopen, which is in the C library since glibc 2.34 (add -ldl on an
   older one). See them with nsys profile, or select one in Nsight Compute:
   ncu --nvtx --nvtx-include "gpuh@gpuh_pipeline chunk 1/" ./prog
   (domain@range, the trailing slash for a push/pop range).

   Threads: see CONVENTIONS. Two threads that fail at once each read their
   own detail; a thread that only launches sees its own launches in
   gpuh_last_launch(). The ledger's lock is a pthread mutex on POSIX systems
   (glibc has it in libc; elsewhere link -pthread) and a spin lock on MSVC.
*/
#ifndef GPUH_H
#define GPUH_H

#define GPUH_VERSION_MAJOR 0
#define GPUH_VERSION_MINOR 1
#define GPUH_VERSION_PATCH 0
#define GPUH_VERSION (GPUH_VERSION_MAJOR * 10000 + GPUH_VERSION_MINOR * 100 + GPUH_VERSION_PATCH)

/* 1 where device code can be compiled: nvcc, or C++ on the simulator. */
#if defined(__CUDACC__) || (defined(GPUH_SIM) && defined(__cplusplus))
#define GPUH_HAS_DEVICE_CODE 1
#else
#define GPUH_HAS_DEVICE_CODE 0
#endif

#ifdef GPUH_SIM
#include "gpuh_sim.h" /* the CPU simulator stands in for the CUDA runtime */
#else
#include <cuda_runtime.h>
#endif
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if !defined(_MSC_VER)
#include <pthread.h> /* the ledger's lock */
#endif
#if defined(GPUH_USE_CURAND) && !defined(GPUH_SIM)
#include <curand.h>
#endif
/* GPUH_NVTX: 1 where NVTX3's header-only API is found (CUDA's include folder
   has nvtx3/), 0 on the simulator; -DGPUH_NVTX=0 turns the ranges off. */
#ifndef GPUH_NVTX
#if defined(GPUH_SIM)
#define GPUH_NVTX 0
#elif defined(__has_include)
#if __has_include(<nvtx3/nvToolsExt.h>)
#define GPUH_NVTX 1
#else
#define GPUH_NVTX 0
#endif
#else
#define GPUH_NVTX 0
#endif
#endif
#if GPUH_NVTX && defined(GPUH_SIM)
#undef GPUH_NVTX
#define GPUH_NVTX 0 /* no profiler sees the simulator's work: the ranges are no-ops there */
#endif
#if GPUH_NVTX
#include <nvtx3/nvToolsExt.h>
#endif
#if defined(GPUH_USE_NVRTC) && !defined(GPUH_SIM)
#include <cuda.h> /* the driver API's types (its calls come through cudart: no libcuda to link) */
#include <nvrtc.h>
#elif defined(GPUH_USE_NVRTC)
#include <dlfcn.h> /* the simulator loads a module as a shared object */
#include <sys/stat.h>
#include <unistd.h>
#endif

#ifndef GPUH_DEF
#define GPUH_DEF static inline
#endif
#ifndef GPUH_ON_ERROR
#define GPUH_ON_ERROR abort()
#endif
#ifndef GPUH_LOG
#define GPUH_LOG(...) fprintf(stderr, __VA_ARGS__)
#endif
#ifndef GPUH_LEDGER_CAPACITY
#define GPUH_LEDGER_CAPACITY 1024
#endif
#ifndef GPUH_MAX_REPS
#define GPUH_MAX_REPS 1000
#endif

/* CUDA's launch limits, the same on every compute capability CUDA 13 supports
   (Programming Guide, "Compute capabilities", table of technical specifications). */
#define GPUH_MAX_GRID_X 2147483647u
#define GPUH_MAX_GRID_YZ 65535u
#define GPUH_MAX_BLOCK_THREADS 1024u
#define GPUH_MAX_BLOCK_XY 1024u
#define GPUH_MAX_BLOCK_Z 64u

#ifdef __cplusplus
extern "C" {
#endif

/* ---------------------------------------------------------------------------
   State (see CONVENTIONS). One copy per process even though every function is
   static inline: a weak (GCC/Clang) or selectany (MSVC) definition lets every
   translation unit define it and the linker keep one. */

#if defined(_MSC_VER)
#define GPUH_IMPL_SHARED __declspec(selectany)
#else
#define GPUH_IMPL_SHARED __attribute__((weak))
#endif

/* Thread-local storage in each language gpuh compiles as: C99 has no keyword
   for it, so GCC and Clang (also as nvcc's host compiler) get __thread, MSVC
   __declspec(thread), other C++11 compilers thread_local. */
#if defined(__GNUC__) || defined(__clang__)
#define GPUH_IMPL_THREAD_LOCAL __thread
#elif defined(_MSC_VER)
#define GPUH_IMPL_THREAD_LOCAL __declspec(thread)
#elif defined(__cplusplus) && __cplusplus >= 201103L
#define GPUH_IMPL_THREAD_LOCAL thread_local
#else
#error "gpuh.h: no thread-local storage known for this compiler (GCC, Clang, MSVC or C++11 needed)"
#endif

/* The lock of the per-process state: a pthread mutex on POSIX, a spin lock
   on MSVC (no <windows.h> in a header users include everywhere). */
#if defined(_MSC_VER)
typedef long gpuh_impl_mutex;
#define GPUH_IMPL_MUTEX_INIT 0L
long _InterlockedExchange(long volatile *target, long value);
#define GPUH_IMPL_LOCK() while (_InterlockedExchange(&gpuh_impl_lock_v, 1L)) {}
#define GPUH_IMPL_UNLOCK() _InterlockedExchange(&gpuh_impl_lock_v, 0L)
#else
typedef pthread_mutex_t gpuh_impl_mutex;
#define GPUH_IMPL_MUTEX_INIT PTHREAD_MUTEX_INITIALIZER
#define GPUH_IMPL_LOCK() pthread_mutex_lock(&gpuh_impl_lock_v)
#define GPUH_IMPL_UNLOCK() pthread_mutex_unlock(&gpuh_impl_lock_v)
#endif

enum { GPUH_IMPL_DEVICE = 1, GPUH_IMPL_MANAGED = 2, GPUH_IMPL_PINNED = 3 };

typedef struct gpuh_impl_record {
    const void *ptr;
    size_t bytes;
    const char *file;
    int line;
    int kind; /* GPUH_IMPL_DEVICE, _MANAGED or _PINNED */
} gpuh_impl_record;

GPUH_DEF const char *gpuh_impl_kind_name(int kind)
{
    return kind == GPUH_IMPL_DEVICE ? "device" : kind == GPUH_IMPL_MANAGED ? "managed" : "pinned";
}

/* gpuh_launch_record: the last kernel this host thread launched through
   GPUH_LAUNCH (kernel is NULL before the first), as gpuh_last_launch()
   returns it. A launch refused for its geometry records the components that
   fit in a dim3 as CUDA would have truncated them; the detail has the real ones. */
typedef struct gpuh_launch_record {
    const char *kernel; /* the kernel expression as written, e.g. "gpuh_add<float>" */
    dim3 grid, block;
    size_t shmem_bytes;
    const char *file;
    int line;
} gpuh_launch_record;

/* Per process, under the lock: the allocation ledger, its counters. */
typedef struct gpuh_impl_state {
    size_t live_count, untracked_count;
    size_t device_bytes, peak_device_bytes, pinned_bytes;
    gpuh_impl_record records[GPUH_LEDGER_CAPACITY];
} gpuh_impl_state;

GPUH_IMPL_SHARED gpuh_impl_state gpuh_impl_state_v;
GPUH_IMPL_SHARED gpuh_impl_mutex gpuh_impl_lock_v = GPUH_IMPL_MUTEX_INIT;

/* Per host thread: the error detail and the last launch. Plain fields (no
   dim3, which has constructors in C++): thread-local storage in C++ without
   thread_local needs a type with no constructor. */
/* Bytes of an error detail, its terminating zero included. */
#define GPUH_IMPL_DETAIL_BYTES 512
typedef struct gpuh_impl_thread_state {
    const char *kernel, *file; /* the last launch: see gpuh_launch_record */
    unsigned grid[3], block[3];
    size_t shmem_bytes;
    int line;
    cudaError_t detail_error;
    char detail[GPUH_IMPL_DETAIL_BYTES];
} gpuh_impl_thread_state;

GPUH_IMPL_SHARED GPUH_IMPL_THREAD_LOCAL gpuh_impl_thread_state gpuh_impl_thread_v;

/* ===========================================================================
   ERRORS
   =========================================================================== */

/* gpuh_fail(err, fmt, ...): records a printf-style detail for `err` in the
   calling thread (what failed, which argument, which value; up to 511
   characters, longer ones are cut) and returns err, so that a helper can
   write `return gpuh_fail(cudaErrorInvalidValue, "my_fn: n %zu is odd", n);`.
   gpuh_error_detail() then returns it and GPUH_CHECK prints it under the
   error's name, as it does for gpuh's own functions. err == cudaSuccess
   records nothing. Idea: errno + strerror, with the call's own values. */
GPUH_DEF cudaError_t gpuh_fail(cudaError_t err, const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

GPUH_DEF cudaError_t gpuh_fail(cudaError_t err, const char *fmt, ...)
{
    gpuh_impl_thread_state *t = &gpuh_impl_thread_v;
    va_list args;
    if (err == cudaSuccess)
        return err;
    va_start(args, fmt);
    vsnprintf(t->detail, sizeof t->detail, fmt, args);
    va_end(args);
    t->detail_error = err;
    return err;
}

/* gpuh_clear_error_detail(): forgets the calling thread's detail, so that
   gpuh_error_detail() returns "" until gpuh fails again (GPUH_CHECK's report
   does this too). For a program that handled an error and goes on. */
GPUH_DEF void gpuh_clear_error_detail(void)
{
    gpuh_impl_thread_v.detail_error = cudaSuccess;
    gpuh_impl_thread_v.detail[0] = '\0';
}

/* gpuh_error_is_sticky: 1 if `err` leaves the CUDA context unusable (every later
   call returns an error until the process restarts), else 0. The list is the
   errors the CUDA Runtime API reference documents with "the process must be
   terminated and relaunched". */
GPUH_DEF int gpuh_error_is_sticky(cudaError_t err)
{
    switch (err) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorAssert:
    case cudaErrorECCUncorrectable:
        return 1;
    default:
        return 0;
    }
}

/* gpuh_error_detail: gpuh's explanation of the last error a gpuh function
   returned in the calling host thread (which function, which argument, which
   value), or "" if gpuh returned none since the last GPUH_CHECK report or
   gpuh_clear_error_detail(). Valid until this thread's next gpuh call. */
GPUH_DEF const char *gpuh_error_detail(void)
{
    return gpuh_impl_thread_v.detail_error != cudaSuccess ? gpuh_impl_thread_v.detail : "";
}

/* gpuh_last_launch: the last launch the calling host thread made through
   GPUH_LAUNCH (kernel == NULL if none). Used in reports of asynchronous and sticky errors. */
GPUH_DEF gpuh_launch_record gpuh_last_launch(void)
{
    const gpuh_impl_thread_state *t = &gpuh_impl_thread_v;
    gpuh_launch_record r;
    r.kernel = t->kernel;
    r.grid.x = t->grid[0];
    r.grid.y = t->grid[1];
    r.grid.z = t->grid[2];
    r.block.x = t->block[0];
    r.block.y = t->block[1];
    r.block.z = t->block[2];
    r.shmem_bytes = t->shmem_bytes;
    r.file = t->file;
    r.line = t->line;
    return r;
}

GPUH_DEF int gpuh_impl_is_launch_error(cudaError_t err)
{
    return gpuh_error_is_sticky(err) || err == cudaErrorInvalidConfiguration ||
           err == cudaErrorLaunchOutOfResources || err == cudaErrorInvalidDeviceFunction ||
           err == cudaErrorNoKernelImageForDevice;
}

/* gpuh_report_error: prints, through GPUH_LOG, what GPUH_CHECK prints for a
   failed `expr` at file:line: the error's name and message, gpuh's own detail
   if it has one for this error, whether the error is sticky, and for launch and
   sticky errors the last GPUH_LAUNCH. Clears the detail afterwards. */
GPUH_DEF void gpuh_report_error(cudaError_t err, const char *expr, const char *file, int line)
{
    gpuh_launch_record r = gpuh_last_launch();
    fflush(stdout); /* keep the program's own output in order before the report */
    GPUH_LOG("gpuh: %s:%d: %s\ngpuh:   failed with %s: %s\n", file, line, expr,
             cudaGetErrorName(err), cudaGetErrorString(err));
    if (gpuh_impl_thread_v.detail_error == err && gpuh_impl_thread_v.detail[0] != '\0')
        GPUH_LOG("gpuh:   %s\n", gpuh_impl_thread_v.detail);
    if (gpuh_error_is_sticky(err))
        GPUH_LOG("gpuh:   this error is sticky: the CUDA context is unusable and every later "
                 "CUDA call will fail until the process restarts\n");
    if (gpuh_impl_is_launch_error(err) && r.kernel != NULL) {
        GPUH_LOG("gpuh:   last launch: %s<<<(%u,%u,%u), (%u,%u,%u), %zu>>> at %s:%d\n", r.kernel,
                 r.grid.x, r.grid.y, r.grid.z, r.block.x, r.block.y, r.block.z, r.shmem_bytes,
                 r.file, r.line);
#ifndef GPUH_DEBUG_SYNC
        if (gpuh_error_is_sticky(err))
            GPUH_LOG("gpuh:   kernel faults are reported late; rebuild with -DGPUH_DEBUG_SYNC "
                     "to stop at the launch that raised it\n");
#endif
    }
    gpuh_clear_error_detail();
}

/* GPUH_CHECK(expr): evaluates expr (a cudaError_t); on failure prints the
   report of gpuh_report_error and runs GPUH_ON_ERROR (default abort()). For
   programs, examples and tests; library code returns the error instead.
   Idea: the CUDA samples' checkCudaErrors, with the expression and the launch. */
#define GPUH_CHECK(expr)                                                                  \
    do {                                                                                  \
        cudaError_t gpuh_impl_err = (expr);                                               \
        if (gpuh_impl_err != cudaSuccess) {                                               \
            gpuh_report_error(gpuh_impl_err, #expr, __FILE__, __LINE__);                  \
            GPUH_ON_ERROR;                                                                \
        }                                                                                 \
    } while (0)

/* gpuh_check_launch: the error of the launch just made (cudaGetLastError,
   which also clears a non-sticky one); with GPUH_DEBUG_SYNC defined, then
   cudaDeviceSynchronize()'s error, so a fault inside the kernel is caught here. */
GPUH_DEF cudaError_t gpuh_check_launch(void)
{
    cudaError_t err = cudaGetLastError();
#ifdef GPUH_DEBUG_SYNC
    if (err == cudaSuccess)
        err = cudaDeviceSynchronize();
#endif
    return err;
}

/* GPUH_CHECK_LAUNCH(): GPUH_CHECK(gpuh_check_launch()), for a raw <<< >>> launch. */
#define GPUH_CHECK_LAUNCH() GPUH_CHECK(gpuh_check_launch())

/* gpuh_report_status(library, code, name, message, expr, file, line): what the
   GPUH_CHECK_<LIBRARY> macros print for a failed status of another CUDA
   library, through GPUH_LOG, in GPUH_CHECK's layout: file:line, the
   expression, the status's name with the library and the status's number
   (code), and the library's message when it has one (message NULL or ""
   prints none). name NULL prints "an unknown status". gpuh's own detail is
   printed when gpuh recorded one (gpuh_fail), then forgotten, as GPUH_CHECK
   does. For a library gpuh has no macro for, call it from your own. Idea: the
   CUDA samples' helper_cuda.h, whose checkCudaErrors names each library's enum. */
GPUH_DEF void gpuh_report_status(const char *library, long long code, const char *name, const char *message,
                                 const char *expr, const char *file, int line)
{
    fflush(stdout); /* keep the program's own output in order before the report */
    GPUH_LOG("gpuh: %s:%d: %s\ngpuh:   failed with %s (%s status %lld)%s%s\n", file, line, expr,
             name != NULL ? name : "an unknown status", library, code,
             message != NULL && message[0] != '\0' ? ": " : "", message != NULL ? message : "");
    if (gpuh_impl_thread_v.detail_error != cudaSuccess && gpuh_impl_thread_v.detail[0] != '\0')
        GPUH_LOG("gpuh:   %s\n", gpuh_impl_thread_v.detail);
    gpuh_clear_error_detail();
}

/* The GPUH_CHECK_<LIBRARY> macros' shape: `type` the library's status type,
   `ok` its success value, report(status, text, file, line) its report; text
   is the expression as written (#expr in the public macro, before its
   arguments' macros, NULL and the like, are expanded). */
#define GPUH_IMPL_CHECK_STATUS(type, ok, report, expr, text)                              \
    do {                                                                                  \
        type gpuh_impl_status = (expr);                                                   \
        if (gpuh_impl_status != (ok)) {                                                   \
            report(gpuh_impl_status, text, __FILE__, __LINE__);                           \
            GPUH_ON_ERROR;                                                                \
        }                                                                                 \
    } while (0)

/* gpuh_impl_failed_<lib>(status, text, file, line): 1 (after the report) if
   status is a failure, else 0: what GPUH_CHECK_STATUS calls for each type.
   GPUH_IMPL_STATUS_FORMS(type, ok, lib) makes one for a library's part from
   its gpuh_impl_report_<lib>, and in C++ the gpuh_impl_failed overload. */
GPUH_DEF int gpuh_impl_failed_cuda(cudaError_t err, const char *text, const char *file, int line)
{
    if (err == cudaSuccess)
        return 0;
    gpuh_report_error(err, text, file, line);
    return 1;
}
#ifdef __cplusplus
#define GPUH_IMPL_STATUS_OVERLOAD(type, lib)                                                        \
    extern "C++" {                                                                                 \
    static inline int gpuh_impl_failed(type status, const char *text, const char *file, int line) \
    {                                                                                              \
        return gpuh_impl_failed_##lib(status, text, file, line);                                  \
    }                                                                                              \
    }
#else
#define GPUH_IMPL_STATUS_OVERLOAD(type, lib)
#endif
#define GPUH_IMPL_STATUS_FORMS(type, ok, lib)                                                        \
    GPUH_DEF int gpuh_impl_failed_##lib(type status, const char *text, const char *file, int line)  \
    {                                                                                              \
        if (status == (ok))                                                                        \
            return 0;                                                                              \
        gpuh_impl_report_##lib(status, text, file, line);                                          \
        return 1;                                                                                  \
    }                                                                                              \
    GPUH_IMPL_STATUS_OVERLOAD(type, lib)
GPUH_IMPL_STATUS_OVERLOAD(cudaError_t, cuda)

/* _Generic's associations of the libraries whose parts are compiled: each
   part redefines its own (", cublasStatus_t: gpuh_impl_failed_cublas"). */
#define GPUH_IMPL_GENERIC_CUBLAS
#define GPUH_IMPL_GENERIC_CUFFT
#define GPUH_IMPL_GENERIC_CURAND
#define GPUH_IMPL_GENERIC_CUSPARSE
#define GPUH_IMPL_GENERIC_CUSOLVER
#define GPUH_IMPL_GENERIC_CU
#define GPUH_IMPL_GENERIC_NVRTC
#define GPUH_IMPL_GENERIC_NCCL

/* GPUH_CHECK_STATUS(expr): GPUH_CHECK for a status of any type GPUH_CHECK
   or a GPUH_CHECK_<LIBRARY> takes (cudaError_t, cublasStatus_t, ...,
   ncclResult_t), chosen by expr's type: C++ overloads, C11's _Generic (in
   C99 use the typed macros). A type with no part compiled does not compile;
   in C an enumerator (CUFFT_SUCCESS) is an int, which selects nothing: pass
   the call's result.
   Idea: helper_cuda.h's checkCudaErrors, one name for every library. */
#if defined(__cplusplus)
#define GPUH_CHECK_STATUS(expr)                                                                   \
    do {                                                                                          \
        if (gpuh_impl_failed((expr), #expr, __FILE__, __LINE__)) {                                \
            GPUH_ON_ERROR;                                                                        \
        }                                                                                         \
    } while (0)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define GPUH_CHECK_STATUS(expr)                                                                   \
    do {                                                                                          \
        if (_Generic((expr), cudaError_t: gpuh_impl_failed_cuda GPUH_IMPL_GENERIC_CUBLAS          \
                         GPUH_IMPL_GENERIC_CUFFT GPUH_IMPL_GENERIC_CURAND GPUH_IMPL_GENERIC_CUSPARSE \
                             GPUH_IMPL_GENERIC_CUSOLVER GPUH_IMPL_GENERIC_CU GPUH_IMPL_GENERIC_NVRTC \
                                 GPUH_IMPL_GENERIC_NCCL)((expr), #expr, __FILE__, __LINE__)) {     \
            GPUH_ON_ERROR;                                                                        \
        }                                                                                         \
    } while (0)
#endif

/* One status of a library without a name function of its own: its number,
   its enumerator's name, and what the library's reference says it means. */
typedef struct gpuh_impl_status_entry {
    int code;
    const char *name, *message;
} gpuh_impl_status_entry;

/* The entry of `code` in a table of n, or NULL. */
GPUH_DEF const gpuh_impl_status_entry *gpuh_impl_status_find(const gpuh_impl_status_entry *table, size_t n,
                                                            int code)
{
    size_t i;
    for (i = 0; i < n; ++i)
        if (table[i].code == code)
            return &table[i];
    return NULL;
}

/* The name of `code` in a table of n, or `unknown`. */
GPUH_DEF const char *gpuh_impl_status_name_in(const gpuh_impl_status_entry *table, size_t n, int code,
                                              const char *unknown)
{
    const gpuh_impl_status_entry *e = gpuh_impl_status_find(table, n, code);
    return e != NULL ? e->name : unknown;
}

/* gpuh_report_status for `code` of a table of n: its name, and `message`
   where the library has its own (else the table's). */
GPUH_DEF void gpuh_impl_report_in(const char *library, const gpuh_impl_status_entry *table, size_t n, int code,
                                  const char *message, const char *expr, const char *file, int line)
{
    const gpuh_impl_status_entry *e = gpuh_impl_status_find(table, n, code);
    if (message == NULL && e != NULL)
        message = e->message;
    gpuh_report_status(library, code, e != NULL ? e->name : NULL, message, expr, file, line);
}
#define GPUH_IMPL_COUNT(table) (sizeof(table) / sizeof((table)[0]))

/* ===========================================================================
   NVTX RANGES
   A range in the "gpuh" domain around each gpuh call that does GPU work or
   waits for it (copies, prefetches, each pipeline chunk and the pipeline,
   stream and device synchronisation, event waits, timing, shard copies and
   gathers, collectives, random fills; the kernels' launchers in
   gpuh_kernels.cuh), so Nsight Systems and Nsight Compute (--nvtx) show gpuh's
   calls under their names. Allocation, geometry and handle calls get none:
   they are too short for a range to tell anything. NVTX3 is header-only (no
   library to link); with no tool attached a range costs a load and a branch
   in each of push and pop. Idea: CCCL's "CCCL" domain with one range per
   algorithm call, libcudf's CUDF_FUNC_RANGE.
   =========================================================================== */

#define GPUH_NVTX_NAME_BYTES 128 /* a formatted range name's bytes, its zero included */

#if GPUH_NVTX
/* The domain, created at the first range (under the ledger's lock, so one
   per process). With no tool attached NVTX gives a NULL domain, so a flag,
   not the handle, says it was made: no range takes the lock after the
   first. */
GPUH_IMPL_SHARED nvtxDomainHandle_t gpuh_impl_nvtx_domain_v;
GPUH_IMPL_SHARED volatile int gpuh_impl_nvtx_domain_made_v;

GPUH_DEF nvtxDomainHandle_t gpuh_impl_nvtx_domain(void)
{
    if (!gpuh_impl_nvtx_domain_made_v) {
        GPUH_IMPL_LOCK();
        if (!gpuh_impl_nvtx_domain_made_v) {
            gpuh_impl_nvtx_domain_v = nvtxDomainCreateA("gpuh");
            gpuh_impl_nvtx_domain_made_v = 1;
        }
        GPUH_IMPL_UNLOCK();
    }
    return gpuh_impl_nvtx_domain_v;
}
#endif

/* gpuh_nvtx_push(name): opens a range called `name` (copied by the tool; may
   be freed after the call) in the "gpuh" domain on the calling thread;
   gpuh_nvtx_pop() closes the innermost one. Ranges nest; every push needs
   its pop on the same thread. For your own code next to gpuh's. No-ops when
   GPUH_NVTX is 0 (and on the simulator). */
GPUH_DEF void gpuh_nvtx_push(const char *name)
{
#if GPUH_NVTX
    nvtxEventAttributes_t a;
    const nvtxDomainHandle_t domain = gpuh_impl_nvtx_domain();
    if (domain == NULL)
        return; /* no tool attached (NVTX gives a tool's domains only): nothing records the range */
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = name;
    nvtxDomainRangePushEx(domain, &a);
#else
    (void)name;
#endif
}

GPUH_DEF void gpuh_nvtx_pop(void)
{
#if GPUH_NVTX
    const nvtxDomainHandle_t domain = gpuh_impl_nvtx_domain();
    if (domain != NULL) /* as gpuh_nvtx_push */
        nvtxDomainRangePop(domain);
#endif
}

/* gpuh_nvtx_pushf(fmt, ...): gpuh_nvtx_push of a printf-formatted name (up
   to GPUH_NVTX_NAME_BYTES - 1 characters, longer ones are cut), e.g.
   gpuh_nvtx_pushf("gpuh_gemm f32 %dx%dx%d", M, N, K). */
GPUH_DEF void gpuh_nvtx_pushf(const char *fmt, ...)
#if defined(__GNUC__) || defined(__clang__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* gpuh_nvtx_push of fmt formatted with args. */
GPUH_DEF void gpuh_impl_nvtx_pushv(const char *fmt, va_list args)
{
#if GPUH_NVTX
    char name[GPUH_NVTX_NAME_BYTES];
    if (gpuh_impl_nvtx_domain() == NULL)
        return; /* no tool: no name to format (gpuh_nvtx_push) */
    vsnprintf(name, sizeof name, fmt, args);
    gpuh_nvtx_push(name);
#else
    (void)fmt;
    (void)args;
#endif
}

GPUH_DEF void gpuh_nvtx_pushf(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    gpuh_impl_nvtx_pushv(fmt, args);
    va_end(args);
}

#ifdef __cplusplus
extern "C++" {
enum gpuh_impl_nvtx_format { GPUH_IMPL_NVTX_FORMAT };
/* gpuh_nvtx_scope: a range over a C++ scope, pushed when it is made and
   popped when it goes out of scope (every return path included); made by
   GPUH_NVTX_RANGE(name) and GPUH_NVTX_RANGEF(fmt, ...). C++ only. */
struct gpuh_nvtx_scope {
    explicit gpuh_nvtx_scope(const char *name) { gpuh_nvtx_push(name); }
    gpuh_nvtx_scope(gpuh_impl_nvtx_format, const char *fmt, ...)
    {
        va_list args;
        va_start(args, fmt);
        gpuh_impl_nvtx_pushv(fmt, args);
        va_end(args);
    }
    ~gpuh_nvtx_scope() { gpuh_nvtx_pop(); }

  private:
    gpuh_nvtx_scope(const gpuh_nvtx_scope &);            /* one pop per push: not copyable */
    gpuh_nvtx_scope &operator=(const gpuh_nvtx_scope &);
};
}
#define GPUH_IMPL_CAT2(a, b) a##b
#define GPUH_IMPL_CAT(a, b) GPUH_IMPL_CAT2(a, b)
/* GPUH_NVTX_RANGE(name): a range named `name` from here to the end of the
   enclosing C++ scope; GPUH_NVTX_RANGEF(fmt, ...) the same with a
   printf-formatted name. One statement, e.g. the first line of a launcher. */
#define GPUH_NVTX_RANGE(name) gpuh_nvtx_scope GPUH_IMPL_CAT(gpuh_impl_nvtx_range_, __LINE__)(name)
#define GPUH_NVTX_RANGEF(...) \
    gpuh_nvtx_scope GPUH_IMPL_CAT(gpuh_impl_nvtx_range_, __LINE__)(GPUH_IMPL_NVTX_FORMAT, __VA_ARGS__)
#endif

GPUH_DEF cudaError_t gpuh_check_block(dim3 block); /* LAUNCH GEOMETRY, below */

/* 1 if a grid of gx × gy × gz blocks is within CUDA's limits (x ≤ 2^31-1, y, z ≤ 65535). */
GPUH_DEF int gpuh_impl_grid_fits(size_t gx, size_t gy, size_t gz)
{
    return gx <= GPUH_MAX_GRID_X && gy <= GPUH_MAX_GRID_YZ && gz <= GPUH_MAX_GRID_YZ;
}

/* A launch's grid or block as given, before any conversion to dim3's
   unsigned fields (which would wrap 2^32 + 5 blocks to 5). */
typedef struct gpuh_impl_dims {
    unsigned long long x, y, z;
} gpuh_impl_dims;

/* A launch's shape against CUDA's limits, with no CUDA call: cudaSuccess,
   or cudaErrorInvalidConfiguration (with the detail) for a block beyond
   them or a grid of 0 blocks or beyond x ≤ 2^31-1, y, z ≤ 65535. The runtime
   would refuse those too (or, for a component past 2^32-1, never see it),
   but names neither the kernel nor the limit. */
GPUH_DEF cudaError_t gpuh_impl_launch_check(const char *kernel, gpuh_impl_dims grid, gpuh_impl_dims block,
                                            const char *file, int line)
{
    const int block_fits = block.x >= 1 && block.y >= 1 && block.z >= 1 && block.x <= GPUH_MAX_BLOCK_XY &&
                           block.y <= GPUH_MAX_BLOCK_XY && block.z <= GPUH_MAX_BLOCK_Z &&
                           block.x * block.y * block.z <= GPUH_MAX_BLOCK_THREADS;
    if (!block_fits || grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > GPUH_MAX_GRID_X ||
        grid.y > GPUH_MAX_GRID_YZ || grid.z > GPUH_MAX_GRID_YZ)
        return gpuh_fail(cudaErrorInvalidConfiguration,
                         "GPUH_LAUNCH of %s at %s:%d: grid (%llu, %llu, %llu), block (%llu, %llu, %llu) is "
                         "beyond CUDA's limits: grid 1..(%u, %u, %u) blocks, block (%u, %u, %u) and %u threads",
                         kernel, file, line, grid.x, grid.y, grid.z, block.x, block.y, block.z, GPUH_MAX_GRID_X,
                         GPUH_MAX_GRID_YZ, GPUH_MAX_GRID_YZ, GPUH_MAX_BLOCK_XY, GPUH_MAX_BLOCK_XY,
                         GPUH_MAX_BLOCK_Z, GPUH_MAX_BLOCK_THREADS);
    return cudaSuccess;
}

/* Records a launch in the calling thread's record (for error reports), then
   gpuh_impl_launch_check. */
GPUH_DEF cudaError_t gpuh_impl_launch_begin(const char *kernel, gpuh_impl_dims grid, gpuh_impl_dims block,
                                            size_t shmem, const char *file, int line)
{
    gpuh_impl_thread_state *r = &gpuh_impl_thread_v;
    cudaGetLastError(); /* a stale error from an earlier call is not this launch's */
    r->kernel = kernel;
    r->grid[0] = grid.x;
    r->grid[1] = grid.y;
    r->grid[2] = grid.z;
    r->block[0] = block.x;
    r->block[1] = block.y;
    r->block[2] = block.z;
    r->shmem_bytes = shmem;
    r->file = file;
    r->line = line;
    return gpuh_impl_launch_check(kernel, grid, block, file, line);
}

/* Dynamic shared memory a kernel may ask for at launch without opting in. */
#define GPUH_IMPL_SHMEM_DEFAULT_LIMIT 49152u

/* The error of a launch that was made (gpuh_check_launch's), with a detail
   naming the kernel: the runtime's own message names neither the kernel nor
   the cause among those it shares one error for. */
GPUH_DEF cudaError_t gpuh_impl_launch_end(cudaError_t err)
{
    const gpuh_impl_thread_state *r = &gpuh_impl_thread_v;
    if (err == cudaSuccess)
        return err;
    if (err == cudaErrorInvalidValue && r->shmem_bytes > GPUH_IMPL_SHMEM_DEFAULT_LIMIT)
        return gpuh_fail(err,
                         "GPUH_LAUNCH of %s at %s:%d: %zu bytes of dynamic shared memory is above the %u bytes a "
                         "kernel gets without opting in: call cudaFuncSetAttribute(kernel, "
                         "cudaFuncAttributeMaxDynamicSharedMemorySize, %zu) before the launch (up to the "
                         "device's sharedMemPerBlockOptin)",
                         r->kernel, r->file, r->line, r->shmem_bytes, GPUH_IMPL_SHMEM_DEFAULT_LIMIT,
                         r->shmem_bytes);
    if (err == cudaErrorInvalidValue)
        return gpuh_fail(err,
                         "GPUH_LAUNCH of %s at %s:%d: the runtime refused the launch: is block (%u, %u, %u) above "
                         "the kernel's __launch_bounds__, or %zu bytes of dynamic shared memory above its "
                         "cudaFuncAttributeMaxDynamicSharedMemorySize?",
                         r->kernel, r->file, r->line, r->block[0], r->block[1], r->block[2], r->shmem_bytes);
    return gpuh_fail(err, "GPUH_LAUNCH of %s at %s:%d failed: %s%s", r->kernel, r->file, r->line,
                     cudaGetErrorString(err),
                     gpuh_error_is_sticky(err) ? " (sticky: possibly from an earlier kernel's fault)" : "");
}

#if GPUH_HAS_DEVICE_CODE && !defined(GPUH_LAUNCH)
#ifdef GPUH_SIM
#define GPUH_IMPL_KERNEL_CALL GPUH_SIM_KERNEL_CALL /* gpuh_sim.h: runs the kernel on the CPU */
#else
#define GPUH_IMPL_KERNEL_CALL(kernel, grid, block, shmem, stream, ...) \
    kernel<<<(grid), (block), (shmem), (stream)>>>(__VA_ARGS__)
#endif
extern "C++" {
/* A grid or block as GPUH_LAUNCH was given it: a dim3, or an integer of any
   width (a negative one becomes huge, and is refused). Overloads, so C++ only. */
static inline gpuh_impl_dims gpuh_impl_dims_of(dim3 d)
{
    gpuh_impl_dims r;
    r.x = d.x;
    r.y = d.y;
    r.z = d.z;
    return r;
}
static inline gpuh_impl_dims gpuh_impl_dims_of(unsigned long long n)
{
    gpuh_impl_dims r;
    r.x = n;
    r.y = r.z = 1;
    return r;
}
}

/* GPUH_LAUNCH(kernel, grid, block, shmem_bytes, stream, args...): launches
   kernel<<<grid, block, shmem_bytes, stream>>>(args...) and evaluates to the
   launch's cudaError_t (gpuh_check_launch), after recording the kernel's name,
   geometry and file:line for error reports (per host thread). A grid or block
   beyond CUDA's limits is not launched: cudaErrorInvalidConfiguration, with
   the kernel and the values in gpuh_error_detail(); grid and block are dim3 or
   integers of any width, checked before they are narrowed to dim3's 32-bit
   fields (a size_t grid of 2^32 + 5 blocks is refused, not launched as 5).
   A launch the runtime refuses gets a detail too, e.g. dynamic shared memory
   above 48 KiB without cudaFuncSetAttribute(kernel,
   cudaFuncAttributeMaxDynamicSharedMemorySize, bytes). grid and block are
   each evaluated twice. Wrap a kernel whose template arguments contain commas
   in parentheses. CUDA C++ (nvcc), or C++ with -DGPUH_SIM (gpuh_sim.h). */
#define GPUH_LAUNCH(kernel, grid, block, shmem, stream, ...)                                            \
    (gpuh_impl_launch_begin(#kernel, gpuh_impl_dims_of(grid), gpuh_impl_dims_of(block), (shmem), __FILE__, \
                            __LINE__) != cudaSuccess                                                    \
         ? cudaErrorInvalidConfiguration                                                                \
         : (GPUH_IMPL_KERNEL_CALL(kernel, (grid), (block), (shmem), (stream), __VA_ARGS__),             \
            gpuh_impl_launch_end(gpuh_check_launch())))
#endif

/* ===========================================================================
   DEVICES
   =========================================================================== */

/* What to do on a machine without a usable GPU. */
#define GPUH_IMPL_SIM_ADVICE                                                                               \
    "; to run CUDA programs without a GPU, build them for gpuh's CPU simulator (CMake: link gpuh::sim; "    \
    "otherwise compile with tools/gpuh-simcc)"

/* Why there is no usable device, as the runtime's error for it shows, and
   what to do: a static string. The runtime reports a machine with no NVIDIA
   driver at all as cudaErrorInsufficientDriver, the same error as a driver
   older than itself; cudaDriverGetVersion tells them apart (0: no driver). */
GPUH_DEF const char *gpuh_impl_no_device_reason(cudaError_t err)
{
    int driver = 0;
    if (err == cudaErrorInsufficientDriver) {
        if (cudaDriverGetVersion(&driver) != cudaSuccess)
            cudaGetLastError();
        return driver == 0 ? "no NVIDIA driver on this machine, so no CUDA device" GPUH_IMPL_SIM_ADVICE
                           : "the NVIDIA driver is older than the CUDA runtime this program was built with: "
                             "update the driver (nvidia-smi shows its CUDA version)";
    }
    if (err == cudaErrorNoDevice)
        return "no CUDA device on this machine (or CUDA_VISIBLE_DEVICES hides them all)" GPUH_IMPL_SIM_ADVICE;
    return cudaGetErrorString(err);
}

/* gpuh_device_count: the number of CUDA devices this process can use. Never
   fails: with no device, no driver, or a driver older than the runtime it
   returns 0 and, if reason is not NULL, sets *reason to what is true (e.g.
   "no NVIDIA driver on this machine, ...") and what to do (update the
   driver, or build for the CPU simulator: gpuh::sim, tools/gpuh-simcc), a
   static string; with devices it sets *reason to "". Honours
   CUDA_VISIBLE_DEVICES (see NOTES). Idea: Numba's cuda.is_available() with
   the reason it gives. */
GPUH_DEF int gpuh_device_count(const char **reason)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err == cudaSuccess && n == 0)
        err = cudaErrorNoDevice;
    if (err != cudaSuccess) {
        cudaGetLastError();
        if (reason)
            *reason = gpuh_impl_no_device_reason(err);
        return 0;
    }
    if (reason)
        *reason = "";
    return n;
}

/* GPUH_SIM_TWIN_HINT("name"): a sentence for a program's no-device path,
   pointing to the same program built for the CPU simulator as this
   repository's CMake builds it, build/sim_<name>. For the examples:
       printf("no CUDA device: %s\n%s\n", why, GPUH_SIM_TWIN_HINT("04_reduction")); */
#define GPUH_SIM_TWIN_HINT(name)                                                                           \
    "its simulator twin runs on the CPU: build/sim_" name " (cmake --build build --target sim_" name ")"

/* gpuh_select_device: makes `device` (0 .. count-1) current for this host
   thread. Errors: cudaErrorInvalidDevice (out of range, with the count),
   cudaErrorNoDevice / cudaErrorInsufficientDriver with no usable device. */
GPUH_DEF cudaError_t gpuh_select_device(int device)
{
    int n = 0;
    cudaError_t err = cudaGetDeviceCount(&n);
    if (err == cudaSuccess && n == 0)
        err = cudaErrorNoDevice;
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gpuh_fail(err, "gpuh_select_device(%d): %s", device, gpuh_impl_no_device_reason(err));
    }
    if (device < 0 || device >= n)
        return gpuh_fail(cudaErrorInvalidDevice,
                         "gpuh_select_device: device %d is out of range (%d visible)", device, n);
    return cudaSetDevice(device);
}

/* gpuh_print_devices: prints every visible device to `out` (stdout if NULL):
   name, compute capability, SMs, memory, L2, clocks, peak memory bandwidth and
   the launch limits. Returns the first CUDA error; with no device prints why and
   returns cudaErrorNoDevice. Idea: Numba's cuda.detect(). */
GPUH_DEF cudaError_t gpuh_print_devices(FILE *out)
{
    const char *why = "";
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int n = gpuh_device_count(&why), dev, driver = 0, runtime = 0;
    if (out == NULL)
        out = stdout;
    if (n == 0) {
        fprintf(out, "No CUDA devices: %s\n", why);
        return gpuh_fail(cudaErrorNoDevice, "gpuh_print_devices: %s", why);
    }
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    fprintf(out, "Found %d CUDA device%s (driver %d.%d, runtime %d.%d, CUDA_VISIBLE_DEVICES=%s)\n", n,
            n == 1 ? "" : "s", driver / 1000, driver % 1000 / 10, runtime / 1000,
            runtime % 1000 / 10, visible ? visible : "<unset>");
    for (dev = 0; dev < n; ++dev) {
        struct cudaDeviceProp p;
        int sm_khz = 0, mem_khz = 0;
        cudaError_t err = cudaGetDeviceProperties(&p, dev);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&sm_khz, cudaDevAttrClockRate, dev);
        if (err == cudaSuccess)
            err = cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, dev);
        if (err != cudaSuccess)
            return err;
        fprintf(out, "id %d  %s  [compute capability %d.%d]\n", dev, p.name, p.major, p.minor);
        fprintf(out, "  SMs                        %d (warp size %d)\n", p.multiProcessorCount, p.warpSize);
        fprintf(out, "  global memory              %.1f GiB\n", p.totalGlobalMem / 1073741824.0);
        fprintf(out, "  L2 cache                   %.1f MiB\n", p.l2CacheSize / 1048576.0);
        fprintf(out, "  SM clock (max)             %d MHz\n", sm_khz / 1000);
        fprintf(out, "  memory clock, bus          %d MHz, %d-bit (peak %.0f GB/s)\n", mem_khz / 1000,
                p.memoryBusWidth, 2.0 * mem_khz * 1e3 * (p.memoryBusWidth / 8) / 1e9);
        fprintf(out, "  threads per block, per SM  %d, %d\n", p.maxThreadsPerBlock,
                p.maxThreadsPerMultiProcessor);
        fprintf(out, "  block dims (max)           (%d, %d, %d)\n", p.maxThreadsDim[0], p.maxThreadsDim[1],
                p.maxThreadsDim[2]);
        fprintf(out, "  grid dims (max)            (%d, %d, %d)\n", p.maxGridSize[0], p.maxGridSize[1],
                p.maxGridSize[2]);
        fprintf(out, "  shared memory per block    %zu KiB (%zu KiB opt-in), per SM %zu KiB\n",
                p.sharedMemPerBlock / 1024, p.sharedMemPerBlockOptin / 1024,
                p.sharedMemPerMultiprocessor / 1024);
        fprintf(out, "  registers per block, SM    %d, %d\n", p.regsPerBlock, p.regsPerMultiprocessor);
        fprintf(out, "  managed memory             %s (concurrent access: %s)\n",
                p.managedMemory ? "yes" : "no", p.concurrentManagedAccess ? "yes" : "no");
        fprintf(out, "  PCI bus                    %04x:%02x:%02x\n", p.pciDomainID, p.pciBusID, p.pciDeviceID);
    }
    return cudaSuccess;
}

/* Memory counters, in bytes. */
typedef struct gpuh_memory_stats {
    size_t free_bytes, total_bytes;  /* cudaMemGetInfo: the whole device, all processes */
    size_t allocated_bytes;          /* device + managed bytes held through gpuh now */
    size_t peak_allocated_bytes;     /* most allocated_bytes since start or the last reset */
    size_t pinned_bytes;             /* pinned host bytes held through gpuh now */
    size_t live_allocations;         /* gpuh allocations still live (all kinds) */
    size_t untracked_allocations;    /* made when the ledger was full: not in the byte counts */
} gpuh_memory_stats;

/* gpuh_memory_info: fills *stats for the current device. The gpuh counters
   cover every allocation made through gpuh in this process. Errors:
   cudaErrorInvalidValue (stats NULL), else cudaMemGetInfo's (its fields are then
   0 and the gpuh counters still filled). Idea: PyTorch's
   torch.cuda.memory_allocated / max_memory_allocated / mem_get_info. */
GPUH_DEF cudaError_t gpuh_memory_info(gpuh_memory_stats *stats)
{
    cudaError_t err;
    if (stats == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_memory_info: stats is NULL");
    memset(stats, 0, sizeof *stats);
    GPUH_IMPL_LOCK();
    stats->allocated_bytes = gpuh_impl_state_v.device_bytes;
    stats->peak_allocated_bytes = gpuh_impl_state_v.peak_device_bytes;
    stats->pinned_bytes = gpuh_impl_state_v.pinned_bytes;
    stats->live_allocations = gpuh_impl_state_v.live_count + gpuh_impl_state_v.untracked_count;
    stats->untracked_allocations = gpuh_impl_state_v.untracked_count;
    GPUH_IMPL_UNLOCK();
    err = cudaMemGetInfo(&stats->free_bytes, &stats->total_bytes);
    if (err != cudaSuccess) {
        cudaGetLastError();
        stats->free_bytes = stats->total_bytes = 0;
    }
    return err;
}

/* gpuh_reset_peak_memory: sets the peak counter to the bytes held now.
   Idea: torch.cuda.reset_peak_memory_stats. */
GPUH_DEF void gpuh_reset_peak_memory(void)
{
    GPUH_IMPL_LOCK();
    gpuh_impl_state_v.peak_device_bytes = gpuh_impl_state_v.device_bytes;
    GPUH_IMPL_UNLOCK();
}

GPUH_DEF int gpuh_impl_ledger_remove(const void *ptr); /* MEMORY, below */

/* Drops from the ledger the allocations CUDA no longer holds: freed behind
   gpuh's back (cudaFree, cudaFreeHost, cudaDeviceReset), which
   cudaPointerGetAttributes reports as unregistered memory or an invalid
   value. When the runtime cannot answer at all (it has shut down, or there is
   no driver), every entry stays: a leak is not hidden. */
GPUH_DEF void gpuh_impl_ledger_forget_freed(void)
{
    size_t i = 0;
    for (;;) { /* one record at a time: no CUDA call under the lock */
        struct cudaPointerAttributes attr;
        const void *p;
        cudaError_t err;
        GPUH_IMPL_LOCK();
        p = i < gpuh_impl_state_v.live_count ? gpuh_impl_state_v.records[i].ptr : NULL;
        GPUH_IMPL_UNLOCK();
        if (p == NULL)
            return;
        err = cudaPointerGetAttributes(&attr, p);
        if (err != cudaSuccess)
            cudaGetLastError();
        if ((err == cudaSuccess && attr.type == cudaMemoryTypeUnregistered) || err == cudaErrorInvalidValue)
            gpuh_impl_ledger_remove(p); /* the last record moves to slot i: look at i again */
        else
            ++i;
    }
}

/* gpuh_print_allocations: prints each live gpuh allocation (kind, bytes,
   file:line of the call that made it) to `out` (stderr if NULL) and returns how
   many are live. Call it before exit to find leaks. Allocations freed behind
   gpuh's back (cudaFree, cudaFreeHost, cudaDeviceReset) are dropped from the
   ledger first, as cudaPointerGetAttributes tells. */
GPUH_DEF size_t gpuh_print_allocations(FILE *out)
{
    size_t i, n;
    if (out == NULL)
        out = stderr;
    gpuh_impl_ledger_forget_freed();
    GPUH_IMPL_LOCK();
    n = gpuh_impl_state_v.live_count;
    for (i = 0; i < n; ++i) {
        const gpuh_impl_record *r = &gpuh_impl_state_v.records[i];
        fprintf(out, "gpuh: live %s allocation %p of %zu bytes from %s:%d\n", gpuh_impl_kind_name(r->kind), r->ptr,
                r->bytes, r->file, r->line);
    }
    if (gpuh_impl_state_v.untracked_count > 0)
        fprintf(out, "gpuh: and %zu untracked allocations (ledger of %d full)\n",
                gpuh_impl_state_v.untracked_count, GPUH_LEDGER_CAPACITY);
    n += gpuh_impl_state_v.untracked_count;
    GPUH_IMPL_UNLOCK();
    return n;
}

/* The leak check at exit: 0 until gpuh_check_leaks_at_exit (or GPUH_CHECK_LEAKS
   at the first allocation) has run, then 1 (handler registered) or 2 (the
   environment variable was looked at and not set). One per process, so that a
   handler is registered once however many translation units include gpuh.h.
   Read and written under the lock. */
GPUH_IMPL_SHARED int gpuh_impl_leak_check_v;

/* Prints the leak report to `out`: a header line, then gpuh_print_allocations'
   lines; nothing when every gpuh allocation was freed. Returns the count. */
GPUH_DEF size_t gpuh_impl_report_leaks(FILE *out)
{
    size_t live, untracked, i, bytes = 0;
    gpuh_impl_ledger_forget_freed();
    GPUH_IMPL_LOCK();
    live = gpuh_impl_state_v.live_count;
    untracked = gpuh_impl_state_v.untracked_count;
    for (i = 0; i < live; ++i)
        bytes += gpuh_impl_state_v.records[i].bytes;
    GPUH_IMPL_UNLOCK();
    if (live + untracked == 0)
        return 0;
    fprintf(out, "gpuh: leak check at exit: %zu gpuh allocation%s (%zu bytes tracked) not freed:\n",
            live + untracked, live + untracked == 1 ? "" : "s", bytes);
    return gpuh_print_allocations(out);
}

GPUH_DEF void gpuh_impl_leak_check_handler(void)
{
    fflush(stdout); /* the program's last lines before the report */
    gpuh_impl_report_leaks(stderr);
    fflush(stderr);
}

/* gpuh_check_leaks_at_exit: asks for a leak report when the process exits
   normally (main returns, or exit() is called; not after abort()): every gpuh
   allocation not freed by then is printed to stderr, one line each with its
   kind, address, bytes and the file:line that made it, after a line
       gpuh: leak check at exit: N gpuh allocations (B bytes tracked) not freed:
   Prints nothing when all were freed. Setting the environment variable
   GPUH_CHECK_LEAKS=1 does the same without a call (read at the first gpuh
   allocation). Safe to call more than once, from any translation unit: one
   report. Memory freed behind gpuh's back (cudaFree, cudaFreeHost,
   cudaDeviceReset) is not a leak: cudaPointerGetAttributes is asked about
   each entry first; if the runtime can no longer answer (it has shut down),
   the report lists every entry. It does not change the exit status.
   Errors: cudaErrorUnknown if atexit() refused the handler.
   Idea: LeakSanitizer's report at exit, for gpuh's own allocations. */
GPUH_DEF cudaError_t gpuh_check_leaks_at_exit(void)
{
    int register_now, refused = 0;
    /* A runtime that tears down with atexit or a static destructor from its
       first call (the simulator) must start before the handler is
       registered, so that it is still there when the handler asks it. */
    cudaPeekAtLastError();
    GPUH_IMPL_LOCK();
    register_now = gpuh_impl_leak_check_v != 1;
    if (register_now && atexit(gpuh_impl_leak_check_handler) != 0)
        refused = 1;
    gpuh_impl_leak_check_v = refused ? 0 : 1;
    GPUH_IMPL_UNLOCK();
    if (refused)
        return gpuh_fail(cudaErrorUnknown, "gpuh_check_leaks_at_exit: atexit() refused the handler");
    return cudaSuccess;
}

/* GPUH_CHECK_LEAKS=1 (any value but "" and "0") turns the check on; looked at once. */
GPUH_DEF void gpuh_impl_leak_check_from_env(void)
{
    const char *env;
    int unread;
    GPUH_IMPL_LOCK();
    unread = gpuh_impl_leak_check_v == 0;
    if (unread)
        gpuh_impl_leak_check_v = 2;
    GPUH_IMPL_UNLOCK();
    if (!unread)
        return;
    env = getenv("GPUH_CHECK_LEAKS");
    if (env != NULL && env[0] != '\0' && strcmp(env, "0") != 0)
        gpuh_check_leaks_at_exit();
}

/* ===========================================================================
   LAUNCH GEOMETRY
   =========================================================================== */

/* gpuh_ceil_div: ceil(n / d) for d > 0, exact for every size_t n (no n + d - 1
   overflow); 0 when d == 0. */
GPUH_DEF size_t gpuh_ceil_div(size_t n, size_t d)
{
    return d == 0 ? 0 : n / d + (n % d != 0);
}

/* gpuh_check_block's test; the detail names `fn`, the public function that
   was given the block (gpuh_check_block, or a gpuh_grid_* helper). */
GPUH_DEF cudaError_t gpuh_impl_check_block(const char *fn, dim3 block)
{
    unsigned long long threads = 1ull * block.x * block.y * block.z;
    if (block.x == 0 || block.y == 0 || block.z == 0 || block.x > GPUH_MAX_BLOCK_XY ||
        block.y > GPUH_MAX_BLOCK_XY || block.z > GPUH_MAX_BLOCK_Z || threads > GPUH_MAX_BLOCK_THREADS)
        return gpuh_fail(cudaErrorInvalidConfiguration,
                         "%s: block (%u, %u, %u) = %llu threads: each dimension must be >= 1, x and y "
                         "<= %u, z <= %u, and x*y*z <= %u",
                         fn, block.x, block.y, block.z, threads, GPUH_MAX_BLOCK_XY, GPUH_MAX_BLOCK_Z,
                         GPUH_MAX_BLOCK_THREADS);
    return cudaSuccess;
}
/* gpuh_check_block(block): cudaSuccess if `block` (threads per dimension) is
   a valid block shape: every dimension ≥ 1, x and y ≤ 1024, z ≤ 64,
   x·y·z ≤ 1024 threads. Else cudaErrorInvalidConfiguration with the shape and
   the limits in gpuh_error_detail(). Idea: the limits table of the CUDA
   Programming Guide (compute capabilities), checked before the launch. */
GPUH_DEF cudaError_t gpuh_check_block(dim3 block)
{
    return gpuh_impl_check_block("gpuh_check_block", block);
}

/* gpuh_grid_3d: *grid = (ceil(nx/block.x), ceil(ny/block.y), ceil(nz/block.z)),
   each at least 1 (so a guarded kernel may be launched for an empty range), so
   that the grid covers nx × ny × nz elements (threads) with one thread each.
   Errors (grid untouched): cudaErrorInvalidValue (grid NULL);
   cudaErrorInvalidConfiguration if the block is invalid (gpuh_check_block) or
   the grid needs x > 2^31-1 or y, z > 65535 blocks: never a wrapped-around grid.
   Then use a grid-stride loop, or a larger block. */
GPUH_DEF cudaError_t gpuh_grid_3d(dim3 *grid, size_t nx, size_t ny, size_t nz, dim3 block)
{
    size_t gx, gy, gz;
    cudaError_t err;
    if (grid == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_grid: grid is NULL");
    if ((err = gpuh_impl_check_block("gpuh_grid", block)) != cudaSuccess)
        return err;
    gx = gpuh_ceil_div(nx, block.x);
    gy = gpuh_ceil_div(ny, block.y);
    gz = gpuh_ceil_div(nz, block.z);
    if (!gpuh_impl_grid_fits(gx, gy, gz))
        return gpuh_fail(cudaErrorInvalidConfiguration,
                         "gpuh_grid: %zu x %zu x %zu elements in blocks of (%u, %u, %u) need a grid "
                         "of (%zu, %zu, %zu) blocks; the limits are (%u, %u, %u)",
                         nx, ny, nz, block.x, block.y, block.z, gx, gy, gz, GPUH_MAX_GRID_X,
                         GPUH_MAX_GRID_YZ, GPUH_MAX_GRID_YZ);
    grid->x = gx > 0 ? gx : 1;
    grid->y = gy > 0 ? gy : 1;
    grid->z = gz > 0 ? gz : 1;
    return cudaSuccess;
}

/* gpuh_grid_2d: gpuh_grid_3d(grid, nx, ny, 1, block). nx is the fast (x, column)
   dimension, ny the row dimension. */
GPUH_DEF cudaError_t gpuh_grid_2d(dim3 *grid, size_t nx, size_t ny, dim3 block)
{
    return gpuh_grid_3d(grid, nx, ny, 1, block);
}

/* gpuh_grid_1d: blocks of block_x threads covering n elements:
   grid.x = ceil(n / block_x) (≥ 1), grid.y = grid.z = 1. Errors as gpuh_grid_3d:
   block_x of 0 or above 1024, or n needing more than 2^31-1 blocks. */
GPUH_DEF cudaError_t gpuh_grid_1d(dim3 *grid, size_t n, unsigned block_x)
{
    dim3 block;
    block.x = block_x;
    block.y = block.z = 1;
    return gpuh_grid_3d(grid, n, 1, 1, block);
}

/* gpuh_suggest_block_size: the block size (a multiple of 32, ≤ the kernel's
   limit) that maximises resident threads per SM for `kernel` (a __global__
   function's address, as const void *) with `dynamic_shmem_bytes` of dynamic
   shared memory per block; *min_grid_size = blocks needed to fill every SM once
   (may be NULL). Errors: cudaErrorInvalidValue (NULL kernel or block_size), and
   the runtime's (e.g. cudaErrorInvalidDeviceFunction). Idea: the C++
   cudaOccupancyMaxPotentialBlockSize, written on the C API so C can call it. */
GPUH_DEF cudaError_t gpuh_suggest_block_size(const void *kernel, size_t dynamic_shmem_bytes,
                                             int *block_size, int *min_grid_size)
{
    struct cudaFuncAttributes attr;
    int dev = 0, sms = 0, b, best_block = 0, best_blocks = 0, best_threads = 0;
    cudaError_t err;
    if (kernel == NULL || block_size == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_suggest_block_size: %s is NULL",
                         kernel == NULL ? "kernel" : "block_size");
    if ((err = cudaFuncGetAttributes(&attr, kernel)) != cudaSuccess ||
        (err = cudaGetDevice(&dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev)) != cudaSuccess)
        return err;
    for (b = attr.maxThreadsPerBlock / 32 * 32; b >= 32; b -= 32) {
        int blocks = 0;
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, b, dynamic_shmem_bytes);
        if (err != cudaSuccess)
            return err;
        if (blocks * b > best_threads) {
            best_threads = blocks * b;
            best_block = b;
            best_blocks = blocks;
        }
    }
    if (best_block == 0)
        return gpuh_fail(cudaErrorInvalidConfiguration,
                         "gpuh_suggest_block_size: no block size fits %zu bytes of dynamic shared "
                         "memory",
                         dynamic_shmem_bytes);
    *block_size = best_block;
    if (min_grid_size)
        *min_grid_size = best_blocks * sms;
    return cudaSuccess;
}

/* A thread's place, or the grid's extent, in two or three dimensions, in
   64-bit fields (what gpuh_global_index_2d / _3d and gpuh_grid_stride_2d /
   _3d return; plain structs, so C code can hold them too). x is the fast
   dimension: in a row-major image, the column. */
typedef struct gpuh_size2 {
    size_t x, y;
} gpuh_size2;
typedef struct gpuh_size3 {
    size_t x, y, z;
} gpuh_size3;

#ifdef __cplusplus
} /* extern "C" */
#endif

#if GPUH_HAS_DEVICE_CODE
/* gpuh_global_index(): this thread's index in a 1-D grid,
   blockIdx.x * blockDim.x + threadIdx.x, computed in 64 bits so that it does
   not wrap past 2^32 threads. Numba: cuda.grid(1). */
static __device__ __forceinline__ size_t gpuh_global_index(void)
{
    size_t i = blockIdx.x;
    return i * blockDim.x + threadIdx.x;
}

/* gpuh_grid_stride(): threads in the 1-D grid, gridDim.x * blockDim.x in 64
   bits: the step of a grid-stride loop. Numba: cuda.gridsize(1). */
static __device__ __forceinline__ size_t gpuh_grid_stride(void)
{
    size_t n = gridDim.x;
    return n * blockDim.x;
}

/* gpuh_global_index_2d(): this thread's (x, y) in a 2-D grid:
   x = blockIdx.x * blockDim.x + threadIdx.x, y likewise from the .y fields,
   in 64 bits. Guard with x < width && y < height: the grid is rounded up to
   whole blocks (gpuh_grid_2d). Numba: x, y = cuda.grid(2). */
static __device__ __forceinline__ gpuh_size2 gpuh_global_index_2d(void)
{
    gpuh_size2 r;
    size_t bx = blockIdx.x, by = blockIdx.y;
    r.x = bx * blockDim.x + threadIdx.x;
    r.y = by * blockDim.y + threadIdx.y;
    return r;
}

/* gpuh_grid_stride_2d(): the grid's threads along x and y,
   (gridDim.x * blockDim.x, gridDim.y * blockDim.y) in 64 bits: the steps of
   a 2-D grid-stride loop, which covers any width × height with any grid:
       for (y = i.y; y < height; y += s.y) for (x = i.x; x < width; x += s.x) ...
   Numba: cuda.gridsize(2). */
static __device__ __forceinline__ gpuh_size2 gpuh_grid_stride_2d(void)
{
    gpuh_size2 r;
    size_t gx = gridDim.x, gy = gridDim.y;
    r.x = gx * blockDim.x;
    r.y = gy * blockDim.y;
    return r;
}

/* gpuh_global_index_3d(): this thread's (x, y, z) in a 3-D grid, each
   blockIdx * blockDim + threadIdx in 64 bits. Numba: cuda.grid(3). */
static __device__ __forceinline__ gpuh_size3 gpuh_global_index_3d(void)
{
    gpuh_size3 r;
    size_t bx = blockIdx.x, by = blockIdx.y, bz = blockIdx.z;
    r.x = bx * blockDim.x + threadIdx.x;
    r.y = by * blockDim.y + threadIdx.y;
    r.z = bz * blockDim.z + threadIdx.z;
    return r;
}

/* gpuh_grid_stride_3d(): the grid's threads along x, y and z, each
   gridDim * blockDim in 64 bits. Numba: cuda.gridsize(3). */
static __device__ __forceinline__ gpuh_size3 gpuh_grid_stride_3d(void)
{
    gpuh_size3 r;
    size_t gx = gridDim.x, gy = gridDim.y, gz = gridDim.z;
    r.x = gx * blockDim.x;
    r.y = gy * blockDim.y;
    r.z = gz * blockDim.z;
    return r;
}
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ===========================================================================
   MEMORY
   Every helper takes element counts; the element size comes from the
   pointers' types, so nobody multiplies by sizeof by hand, and the byte count
   is checked for overflow. A count of 0 is a valid empty array: nothing is
   allocated or copied, and the pointer is set to NULL. gpuh_free frees any of
   them (NULL is a no-op). Each allocation is entered in a ledger with the
   file:line that asked for it (gpuh_memory_info, gpuh_print_allocations).
   =========================================================================== */

GPUH_DEF cudaError_t gpuh_impl_bytes(const char *fn, size_t count, size_t elem_size, size_t *bytes)
{
    if (elem_size != 0 && count > SIZE_MAX / elem_size)
        return gpuh_fail(cudaErrorInvalidValue,
                         "%s: %zu elements of %zu bytes overflow size_t (max %zu bytes)", fn, count,
                         elem_size, SIZE_MAX);
    *bytes = count * elem_size;
    return cudaSuccess;
}

/* An address as a number, without a cast (for ranges and alignment). */
GPUH_DEF uintptr_t gpuh_impl_address(const void *p)
{
    uintptr_t a = 0;
    memcpy(&a, &p, sizeof p < sizeof a ? sizeof p : sizeof a);
    return a;
}

/* Takes record i out of the ledger and its bytes off the counters; returns
   its kind. Call with the lock held. */
GPUH_DEF int gpuh_impl_ledger_drop(gpuh_impl_state *s, size_t i)
{
    const int kind = s->records[i].kind;
    if (kind == GPUH_IMPL_PINNED)
        s->pinned_bytes -= s->records[i].bytes;
    else
        s->device_bytes -= s->records[i].bytes;
    s->records[i] = s->records[--s->live_count];
    return kind;
}

/* Enters a new allocation. CUDA never hands out memory that overlaps a live
   allocation, so a record that overlaps the new one is stale: its memory was
   freed behind gpuh's back (cudaFree, cudaDeviceReset) and reused; it goes. */
GPUH_DEF void gpuh_impl_ledger_add(const void *ptr, size_t bytes, int kind, const char *file, int line)
{
    gpuh_impl_state *s = &gpuh_impl_state_v;
    const uintptr_t start = gpuh_impl_address(ptr);
    size_t i;
    GPUH_IMPL_LOCK();
    for (i = s->live_count; i-- > 0;) {
        const uintptr_t other = gpuh_impl_address(s->records[i].ptr);
        if (other < start + bytes && start < other + s->records[i].bytes)
            gpuh_impl_ledger_drop(s, i);
    }
    if (s->live_count < GPUH_LEDGER_CAPACITY) {
        gpuh_impl_record *r = &s->records[s->live_count++];
        r->ptr = ptr;
        r->bytes = bytes;
        r->kind = kind;
        r->file = file;
        r->line = line;
        if (kind == GPUH_IMPL_PINNED) {
            s->pinned_bytes += bytes;
        } else {
            s->device_bytes += bytes;
            if (s->device_bytes > s->peak_device_bytes)
                s->peak_device_bytes = s->device_bytes;
        }
    } else {
        s->untracked_count++;
    }
    GPUH_IMPL_UNLOCK();
}

/* Removes ptr from the ledger; returns its kind, or 0 if it is not there. */
GPUH_DEF int gpuh_impl_ledger_remove(const void *ptr)
{
    gpuh_impl_state *s = &gpuh_impl_state_v;
    int kind = 0;
    size_t i;
    GPUH_IMPL_LOCK();
    for (i = s->live_count; i-- > 0 && kind == 0;)
        if (s->records[i].ptr == ptr)
            kind = gpuh_impl_ledger_drop(s, i);
    GPUH_IMPL_UNLOCK();
    return kind;
}

/* Copies into *out the ledger entry whose bytes hold the address a (start <=
   a < end); returns 1 if there is one, else 0. */
GPUH_DEF int gpuh_impl_ledger_find_at(uintptr_t a, gpuh_impl_record *out)
{
    const gpuh_impl_state *s = &gpuh_impl_state_v;
    int found = 0;
    size_t i;
    memset(out, 0, sizeof *out); /* filled even when nothing is found: no reader sees garbage */
    GPUH_IMPL_LOCK();
    for (i = 0; i < s->live_count && !found; ++i) {
        const uintptr_t start = gpuh_impl_address(s->records[i].ptr);
        if (a >= start && a - start < s->records[i].bytes) {
            *out = s->records[i];
            found = 1;
        }
    }
    GPUH_IMPL_UNLOCK();
    return found;
}

/* gpuh_impl_ledger_find_at for the pointer p. */
GPUH_DEF int gpuh_impl_ledger_find(const void *p, gpuh_impl_record *out)
{
    return gpuh_impl_ledger_find_at(gpuh_impl_address(p), out);
}

/* The largest power of two dividing an element type's alignment, as the
   typed helpers' macros pass it: __alignof__ where the compiler has it (GCC,
   Clang, nvcc on them; __extension__ keeps -Wpedantic quiet in C99), else 1
   (no check). */
#if defined(__GNUC__) || defined(__clang__)
#define GPUH_IMPL_ALIGNOF(lvalue) (__extension__ __alignof__(lvalue))
#else
#define GPUH_IMPL_ALIGNOF(lvalue) 1
#endif

/* gpuh_impl_check_aligned(p, align, fn, arg): cudaSuccess if p is a multiple
   of align (an element type's alignment; 0 or 1: anything goes), else
   cudaErrorInvalidValue with a detail naming fn, arg, p and align. An
   element pointer off its type's alignment makes a kernel fault
   (cudaErrorMisalignedAddress, sticky) or a host access undefined. */
GPUH_DEF cudaError_t gpuh_impl_check_aligned(const void *p, size_t align, const char *fn, const char *arg)
{
    if (align > 1 && gpuh_impl_address(p) % align != 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s %p is not aligned to its element type (%zu bytes)", fn, arg,
                         p, align);
    return cudaSuccess;
}

/* cudaSuccess if `count` elements of elem_size bytes at p fit in the gpuh
   allocation r that holds p; else cudaErrorInvalidValue, the detail naming
   fn, arg, where p lies in r and both sizes (in bytes when elem_size is 1). */
GPUH_DEF cudaError_t gpuh_impl_check_room(const char *fn, const char *arg, const void *p,
                                          const gpuh_impl_record *r, size_t count, size_t elem_size)
{
    const size_t offset = gpuh_impl_address(p) - gpuh_impl_address(r->ptr);
    const size_t room = elem_size > 0 ? (r->bytes - offset) / elem_size : count;
    if (count <= room)
        return cudaSuccess;
    if (elem_size == 1)
        return gpuh_fail(cudaErrorInvalidValue,
                         "%s: %s %p is %zu bytes into a %zu-byte %s allocation from %s:%d, which leaves %zu "
                         "bytes; %zu bytes are needed",
                         fn, arg, p, offset, r->bytes, gpuh_impl_kind_name(r->kind), r->file, r->line, room, count);
    return gpuh_fail(cudaErrorInvalidValue,
                     "%s: %s %p is %zu bytes into a %zu-byte %s allocation from %s:%d, which leaves room "
                     "for %zu elements of %zu bytes; the count is %zu",
                     fn, arg, p, offset, r->bytes, gpuh_impl_kind_name(r->kind), r->file, r->line, room, elem_size,
                     count);
}

/* gpuh_impl_check_extent(p, count, elem_size, fn, arg): for the kernels'
   launchers: refuses `count` elements at p that run past the end of the gpuh
   allocation holding p (both sizes in the detail, as gpuh_impl_check_room
   says them), and memory a kernel cannot reach: memory gpuh did not
   allocate that cudaPointerGetAttributes calls unregistered (pageable host
   memory, or memory already freed) on a device that does not read pageable
   memory (cudaDevAttrPageableMemoryAccess). A kernel given such a pointer
   would fault, and the fault is sticky: the context and all its memory
   would be lost. gpuh's own arrays cost one scan of the ledger and no CUDA
   call; other memory one cudaPointerGetAttributes. */
GPUH_DEF cudaError_t gpuh_impl_check_extent(const void *p, size_t count, size_t elem_size, const char *fn,
                                            const char *arg)
{
    struct cudaPointerAttributes attr;
    gpuh_impl_record r;
    int dev = 0, pageable = 0;
    if (count == 0)
        return cudaSuccess;
    /* p inside an allocation, or just past the end of one (room for nothing) */
    if (gpuh_impl_ledger_find(p, &r) || (p != NULL && gpuh_impl_ledger_find_at(gpuh_impl_address(p) - 1, &r)))
        return gpuh_impl_check_room(fn, arg, p, &r, count, elem_size);
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError(); /* no verdict (no driver, say): the launch will say what is wrong */
        return cudaSuccess;
    }
    if (attr.type != cudaMemoryTypeUnregistered)
        return cudaSuccess;
    if (cudaGetDevice(&dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, dev) != cudaSuccess)
        cudaGetLastError(), pageable = 0;
    if (pageable)
        return cudaSuccess;
    return gpuh_fail(cudaErrorInvalidValue,
                     "%s: %s %p is not memory a kernel can reach (host memory CUDA did not allocate, or memory "
                     "already freed); pass device, managed or pinned memory",
                     fn, arg, p);
}

/* What memory a helper's pointer must be. */
enum { GPUH_IMPL_WANT_DEVICE = 1, GPUH_IMPL_WANT_HOST = 2, GPUH_IMPL_WANT_MANAGED = 3 };

/* Checks `count` elements of elem_size bytes at p against what gpuh and CUDA
   know of p: gpuh's ledger (the allocation holding p must have room for them
   and be of the kind wanted), else cudaPointerGetAttributes (host memory
   where device memory is wanted and the reverse; without a verdict, e.g.
   with no driver, nothing is refused). The detail names fn, arg and both sizes. */
GPUH_DEF cudaError_t gpuh_impl_check_memory(const char *fn, const char *arg, const void *p, size_t count,
                                            size_t elem_size, int want)
{
    static const char *const wanted[] = {"", "device", "host", "managed"};
    struct cudaPointerAttributes attr;
    gpuh_impl_record r;
    const char *is = NULL;
    if (gpuh_impl_ledger_find(p, &r)) {
        if ((want == GPUH_IMPL_WANT_DEVICE && r.kind == GPUH_IMPL_PINNED) ||
            (want == GPUH_IMPL_WANT_HOST && r.kind == GPUH_IMPL_DEVICE) ||
            (want == GPUH_IMPL_WANT_MANAGED && r.kind != GPUH_IMPL_MANAGED))
            return gpuh_fail(cudaErrorInvalidValue,
                             "%s: %s %p is %s memory (the gpuh allocation from %s:%d), where %s memory is needed",
                             fn, arg, p, gpuh_impl_kind_name(r.kind), r.file, r.line, wanted[want]);
        return gpuh_impl_check_room(fn, arg, p, &r, count, elem_size);
    }
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError(); /* no verdict: the copy itself will say what is wrong */
        return cudaSuccess;
    }
    if (want == GPUH_IMPL_WANT_DEVICE && attr.type == cudaMemoryTypeUnregistered)
        is = "host memory CUDA did not allocate";
    else if (want == GPUH_IMPL_WANT_HOST && attr.type == cudaMemoryTypeDevice)
        is = "device memory";
    else if (want == GPUH_IMPL_WANT_MANAGED && attr.type != cudaMemoryTypeManaged)
        is = attr.type == cudaMemoryTypeDevice ? "device memory" : "host memory";
    if (is != NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s %p is %s, where %s memory is needed", fn, arg, p, is,
                         wanted[want]);
    return cudaSuccess;
}

/* gpuh_impl_check_device_range(p, bytes, fn, arg): cudaSuccess if `bytes`
   bytes at p can be device memory: inside one gpuh allocation that holds
   them (device or managed), or, for memory gpuh did not allocate, not plain
   host memory by cudaPointerGetAttributes. Else cudaErrorInvalidValue with
   the sizes in the detail. For launchers that take device arrays. */
GPUH_DEF cudaError_t gpuh_impl_check_device_range(const void *p, size_t bytes, const char *fn, const char *arg)
{
    return gpuh_impl_check_memory(fn, arg, p, bytes, 1, GPUH_IMPL_WANT_DEVICE);
}

GPUH_DEF cudaError_t gpuh_impl_alloc(const char *fn, int kind, void *out_ptr, size_t count,
                                     size_t elem_size, const char *file, int line)
{
    void *p = NULL;
    size_t bytes = 0;
    cudaError_t err;
    if (out_ptr == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s at %s:%d: the output pointer is NULL", fn, file,
                         line);
    memcpy(out_ptr, &p, sizeof p);
    if ((err = gpuh_impl_bytes(fn, count, elem_size, &bytes)) != cudaSuccess || bytes == 0)
        return err;
    if (kind == GPUH_IMPL_DEVICE)
        err = cudaMalloc(&p, bytes);
    else if (kind == GPUH_IMPL_MANAGED)
        err = cudaMallocManaged(&p, bytes, cudaMemAttachGlobal);
    else
        err = cudaMallocHost(&p, bytes);
    if (err != cudaSuccess) {
        size_t free_b = 0, total_b = 0;
        cudaGetLastError();
        if (err == cudaErrorNoDevice || err == cudaErrorInsufficientDriver)
            return gpuh_fail(err, "%s at %s:%d: no device to allocate %zu bytes (%zu elements of %zu bytes) on: %s",
                             fn, file, line, bytes, count, elem_size, gpuh_impl_no_device_reason(err));
        if (kind != GPUH_IMPL_PINNED && cudaMemGetInfo(&free_b, &total_b) == cudaSuccess)
            return gpuh_fail(err,
                             "%s at %s:%d: could not allocate %zu bytes (%zu elements of %zu "
                             "bytes); the device has %zu bytes free of %zu",
                             fn, file, line, bytes, count, elem_size, free_b, total_b);
        cudaGetLastError();
        return gpuh_fail(err, "%s at %s:%d: could not allocate %zu bytes (%zu elements of %zu bytes)",
                         fn, file, line, bytes, count, elem_size);
    }
    gpuh_impl_leak_check_from_env();
    gpuh_impl_ledger_add(p, bytes, kind, file, line);
    memcpy(out_ptr, &p, sizeof p);
    return cudaSuccess;
}

/* gpuh_device_array(&d_ptr, count): allocates `count` uninitialised elements
   of *d_ptr's type in device memory (cudaMalloc; aligned to 256 bytes) and
   stores the address in d_ptr (NULL when count is 0). Errors: cudaErrorInvalidValue
   (d_ptr NULL, or count × element size overflows size_t);
   cudaErrorMemoryAllocation (the detail names the bytes asked for and free);
   cudaErrorNoDevice / cudaErrorInsufficientDriver. Idea: Numba's
   cuda.device_array(shape, dtype). */
#define gpuh_device_array(d_pptr, count)                                                          \
    gpuh_impl_alloc("gpuh_device_array", GPUH_IMPL_DEVICE, (d_pptr), (count), sizeof **(d_pptr),   \
                    __FILE__, __LINE__)

/* gpuh_pinned_array(&h_ptr, count): `count` elements of page-locked host memory
   (cudaMallocHost): the fast, asynchronous-capable side of a host<->device copy.
   Errors as gpuh_device_array. Idea: Numba's cuda.pinned_array. */
#define gpuh_pinned_array(h_pptr, count)                                                          \
    gpuh_impl_alloc("gpuh_pinned_array", GPUH_IMPL_PINNED, (h_pptr), (count), sizeof **(h_pptr),   \
                    __FILE__, __LINE__)

/* gpuh_managed_array(&m_ptr, count): `count` elements of managed (unified)
   memory (cudaMallocManaged), usable from host and device; pages migrate on
   first touch unless prefetched (gpuh_prefetch_async). Errors as
   gpuh_device_array. Idea: Numba's cuda.managed_array. */
#define gpuh_managed_array(m_pptr, count)                                                         \
    gpuh_impl_alloc("gpuh_managed_array", GPUH_IMPL_MANAGED, (m_pptr), (count), sizeof **(m_pptr), \
                    __FILE__, __LINE__)

/* The checks of a copy of `count` elements, then the copy. align: the
   element type's alignment (GPUH_IMPL_ALIGNOF). Each side is checked against
   the ledger and cudaPointerGetAttributes: a count past the end of a gpuh
   allocation, and a host pointer where a device one belongs (or the
   reverse: arguments swapped, or the helper of the other direction), are
   refused with a detail instead of the runtime's bare cudaErrorInvalidValue
   (or, on a GPU, a copy past the allocation). */
GPUH_DEF cudaError_t gpuh_impl_copy_unranged(const char *fn, void *dst, size_t dst_elem, const void *src,
                                             size_t src_elem, size_t align, size_t count, enum cudaMemcpyKind kind,
                                             int async, cudaStream_t stream)
{
    /* device to device (a peer copy: cudaMemcpyDefault) wants device memory on both sides */
    const int dst_device = kind != cudaMemcpyDeviceToHost, src_device = kind != cudaMemcpyHostToDevice;
    size_t bytes = 0;
    cudaError_t err;
    if (dst_elem != src_elem)
        return gpuh_fail(cudaErrorInvalidValue,
                         "%s: destination elements are %zu bytes but source elements are %zu", fn,
                         dst_elem, src_elem);
    if ((err = gpuh_impl_bytes(fn, count, src_elem, &bytes)) != cudaSuccess || bytes == 0)
        return err;
    if (dst == NULL || src == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %s is NULL (count %zu)", fn,
                         dst == NULL ? "the destination" : "the source", count);
    if ((err = gpuh_impl_check_aligned(dst, align, fn, "the destination")) != cudaSuccess ||
        (err = gpuh_impl_check_aligned(src, align, fn, "the source")) != cudaSuccess ||
        (err = gpuh_impl_check_memory(fn, "the destination", dst, count, dst_elem,
                                      dst_device ? GPUH_IMPL_WANT_DEVICE : GPUH_IMPL_WANT_HOST)) != cudaSuccess ||
        (err = gpuh_impl_check_memory(fn, "the source", src, count, src_elem,
                                      src_device ? GPUH_IMPL_WANT_DEVICE : GPUH_IMPL_WANT_HOST)) != cudaSuccess)
        return err;
    return async ? cudaMemcpyAsync(dst, src, bytes, kind, stream) : cudaMemcpy(dst, src, bytes, kind);
}

/* gpuh_impl_copy: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_copy(const char *fn, void *dst, size_t dst_elem, const void *src,
                                    size_t src_elem, size_t align, size_t count, enum cudaMemcpyKind kind,
                                    int async, cudaStream_t stream)
{
    cudaError_t err;
    gpuh_nvtx_push(fn);
    err = gpuh_impl_copy_unranged(fn, dst, dst_elem, src, src_elem, align, count, kind, async, stream);
    gpuh_nvtx_pop();
    return err;
}

/* Call sites that have warned about pageable memory (gpuh_impl_warn_pageable):
   one copy per process, guarded by the ledger's lock. */
#define GPUH_IMPL_PAGEABLE_SITES 64
typedef struct gpuh_impl_site {
    const char *file;
    int line;
} gpuh_impl_site;
GPUH_IMPL_SHARED gpuh_impl_site gpuh_impl_pageable_sites_v[GPUH_IMPL_PAGEABLE_SITES];
GPUH_IMPL_SHARED size_t gpuh_impl_pageable_count_v;

/* 1 if file:line is among the sites that have warned; call with the lock held. */
GPUH_DEF int gpuh_impl_site_warned(const char *file, int line)
{
    size_t i;
    for (i = 0; i < gpuh_impl_pageable_count_v; ++i) {
        const gpuh_impl_site *w = &gpuh_impl_pageable_sites_v[i];
        if (w->line == line && (w->file == file || strcmp(w->file, file) == 0))
            return 1;
    }
    return 0;
}

/* An async copy to or from pageable host memory is staged by the driver and
   returns only when the host side is done: the caller loses the overlap it
   asked for, silently. Warns through GPUH_LOG once per call site (file:line;
   the first GPUH_IMPL_PAGEABLE_SITES sites, then no more). A site that has
   warned costs one scan under the lock; any other pays one
   cudaPointerGetAttributes (well under a microsecond, against the several of
   the copy's own launch). Define GPUH_NO_PAGEABLE_WARNING to turn it off. */
GPUH_DEF void gpuh_impl_warn_pageable(const char *fn, const void *host, const char *file, int line)
{
    struct cudaPointerAttributes attr;
    int warn;
    GPUH_IMPL_LOCK();
    warn = !gpuh_impl_site_warned(file, line) && gpuh_impl_pageable_count_v < GPUH_IMPL_PAGEABLE_SITES;
    GPUH_IMPL_UNLOCK();
    if (!warn)
        return;
    if (cudaPointerGetAttributes(&attr, host) != cudaSuccess) {
        cudaGetLastError(); /* not this copy's error: no verdict, no warning */
        return;
    }
    if (attr.type != cudaMemoryTypeUnregistered)
        return;
    GPUH_IMPL_LOCK(); /* another thread may have warned for this site meanwhile */
    warn = !gpuh_impl_site_warned(file, line) && gpuh_impl_pageable_count_v < GPUH_IMPL_PAGEABLE_SITES;
    if (warn) {
        gpuh_impl_pageable_sites_v[gpuh_impl_pageable_count_v].file = file;
        gpuh_impl_pageable_sites_v[gpuh_impl_pageable_count_v].line = line;
        gpuh_impl_pageable_count_v++;
    }
    GPUH_IMPL_UNLOCK();
    if (warn)
        GPUH_LOG("gpuh: %s:%d: warning: %s: host memory %p is pageable, so this copy runs synchronously "
                 "(the host waits for it; nothing overlaps it); allocate the host array with "
                 "gpuh_pinned_array for an asynchronous copy (warned once per call site; define "
                 "GPUH_NO_PAGEABLE_WARNING to silence)\n",
                 file, line, fn, host);
}

/* gpuh_impl_copy on `stream`, then the pageable check of the host side. */
GPUH_DEF cudaError_t gpuh_impl_copy_async(const char *fn, void *dst, size_t dst_elem, const void *src,
                                          size_t src_elem, size_t align, size_t count, enum cudaMemcpyKind kind,
                                          cudaStream_t stream, const char *file, int line)
{
    cudaError_t err = gpuh_impl_copy(fn, dst, dst_elem, src, src_elem, align, count, kind, 1, stream);
#ifndef GPUH_NO_PAGEABLE_WARNING
    if (err == cudaSuccess && count > 0)
        gpuh_impl_warn_pageable(fn, kind == cudaMemcpyHostToDevice ? src : dst, file, line);
#endif
    return err;
}

/* gpuh_copy_to_device(d_dst, h_src, count): copies `count` elements from host
   to device memory, both of the same element size, and returns when done
   (gpuh_copy_to_device_async(d_dst, h_src, count, stream) enqueues on
   `stream`; with pageable host memory it waits for the copy, and gpuh warns
   once per call site). Count 0 copies nothing.
   Errors: cudaErrorInvalidValue (a NULL pointer with count > 0, element
   sizes that differ, a byte count that overflows, a pointer off its element
   type's alignment, a count past the end of the gpuh allocation a pointer is
   in (the detail names both sizes), host memory where device memory belongs
   or the reverse), and cudaMemcpy's. Idea: Numba's DeviceNDArray.copy_to_device. */
#define gpuh_copy_to_device(d_dst, h_src, count)                                                   \
    gpuh_impl_copy("gpuh_copy_to_device", (d_dst), sizeof *(d_dst), (h_src), sizeof *(h_src),       \
                   GPUH_IMPL_ALIGNOF(*(d_dst)), (count), cudaMemcpyHostToDevice, 0, 0)
#define gpuh_copy_to_device_async(d_dst, h_src, count, stream)                                     \
    gpuh_impl_copy_async("gpuh_copy_to_device_async", (d_dst), sizeof *(d_dst), (h_src),              \
                         sizeof *(h_src), GPUH_IMPL_ALIGNOF(*(d_dst)), (count), cudaMemcpyHostToDevice,  \
                         (stream), __FILE__, __LINE__)

/* gpuh_copy_to_host(h_dst, d_src, count): copies `count` elements from device
   to host memory; errors as gpuh_copy_to_device.
   gpuh_copy_to_host_async(h_dst, d_src, count, stream) enqueues on `stream`
   (pinned h_dst for a truly asynchronous copy). Idea: Numba's
   DeviceNDArray.copy_to_host. */
#define gpuh_copy_to_host(h_dst, d_src, count)                                                     \
    gpuh_impl_copy("gpuh_copy_to_host", (h_dst), sizeof *(h_dst), (d_src), sizeof *(d_src),         \
                   GPUH_IMPL_ALIGNOF(*(d_src)), (count), cudaMemcpyDeviceToHost, 0, 0)
#define gpuh_copy_to_host_async(h_dst, d_src, count, stream)                                       \
    gpuh_impl_copy_async("gpuh_copy_to_host_async", (h_dst), sizeof *(h_dst), (d_src),                \
                         sizeof *(d_src), GPUH_IMPL_ALIGNOF(*(d_src)), (count), cudaMemcpyDeviceToHost,  \
                         (stream), __FILE__, __LINE__)

GPUH_DEF cudaError_t gpuh_impl_to_device(const char *fn, void *out_ptr, size_t dst_elem,
                                         const void *h_src, size_t src_elem, size_t align, size_t count, int async,
                                         cudaStream_t stream, const char *file, int line)
{
    void *d = NULL;
    cudaError_t err;
    if (out_ptr == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s at %s:%d: the output pointer is NULL", fn, file,
                         line);
    memcpy(out_ptr, &d, sizeof d);
    if (dst_elem != src_elem)
        return gpuh_fail(cudaErrorInvalidValue,
                         "%s at %s:%d: device elements are %zu bytes but host elements are %zu", fn,
                         file, line, dst_elem, src_elem);
    if (h_src == NULL && count > 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s at %s:%d: the host source is NULL (count %zu)",
                         fn, file, line, count);
    if ((err = gpuh_impl_check_aligned(h_src, align, fn, "the host source")) != cudaSuccess ||
        (err = gpuh_impl_alloc(fn, GPUH_IMPL_DEVICE, &d, count, dst_elem, file, line)) != cudaSuccess)
        return err;
    err = async ? gpuh_impl_copy_async(fn, d, dst_elem, h_src, src_elem, align, count, cudaMemcpyHostToDevice,
                                       stream, file, line)
                : gpuh_impl_copy(fn, d, dst_elem, h_src, src_elem, align, count, cudaMemcpyHostToDevice, 0, 0);
    if (err != cudaSuccess) {
        gpuh_impl_ledger_remove(d);
        cudaFree(d);
        return err;
    }
    memcpy(out_ptr, &d, sizeof d);
    return cudaSuccess;
}

/* gpuh_to_device(&d_ptr, h_src, count): allocates `count` elements in device
   memory (as gpuh_device_array) and copies h_src into them; *d_ptr and *h_src
   must have the same element size. On error nothing stays allocated and
   *d_ptr is NULL. The _async form copies on `stream` (returns before the copy
   ends when h_src is pinned: keep h_src alive until the stream gets there).
   Errors: those of gpuh_device_array and gpuh_copy_to_device.
   Idea: Numba's cuda.to_device(ary, stream=0). */
#define gpuh_to_device(d_pptr, h_src, count)                                                       \
    gpuh_impl_to_device("gpuh_to_device", (d_pptr), sizeof **(d_pptr), (h_src), sizeof *(h_src),    \
                        GPUH_IMPL_ALIGNOF(*(h_src)), (count), 0, 0, __FILE__, __LINE__)
#define gpuh_to_device_async(d_pptr, h_src, count, stream)                                         \
    gpuh_impl_to_device("gpuh_to_device_async", (d_pptr), sizeof **(d_pptr), (h_src),              \
                        sizeof *(h_src), GPUH_IMPL_ALIGNOF(*(h_src)), (count), 1, (stream), __FILE__, __LINE__)

/* gpuh_free(ptr): frees memory from gpuh_device_array, gpuh_to_device,
   gpuh_pinned_array or gpuh_managed_array and updates the counters; NULL is a
   no-op. A pointer the ledger does not know (made while it was full, or by
   cudaMalloc directly) is freed by what cudaPointerGetAttributes says it is.
   Like cudaFree, it waits for the device to finish using the memory. (Such
   an unknown pointer is counted off the untracked allocations, so mixing
   plain cudaMalloc'd pointers into gpuh_free while the ledger is full skews
   live_allocations.)
   Errors: cudaErrorInvalidValue for a pointer CUDA did not allocate (or one
   already freed), or one inside a gpuh allocation but not at its start (the
   detail names the allocation; nothing is freed), else cudaFree's /
   cudaFreeHost's. */
GPUH_DEF cudaError_t gpuh_free(void *ptr)
{
    struct cudaPointerAttributes attr;
    gpuh_impl_record inside;
    int kind;
    if (ptr == NULL)
        return cudaSuccess;
    kind = gpuh_impl_ledger_remove(ptr);
    if (kind == GPUH_IMPL_PINNED)
        return cudaFreeHost(ptr);
    if (kind != 0)
        return cudaFree(ptr);
    if (gpuh_impl_ledger_find(ptr, &inside))
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_free: %p is %zu bytes into the %zu-byte %s allocation %p from %s:%d; free %p, "
                         "the pointer the allocation returned",
                         ptr, gpuh_impl_address(ptr) - gpuh_impl_address(inside.ptr), inside.bytes,
                         gpuh_impl_kind_name(inside.kind), inside.ptr, inside.file, inside.line, inside.ptr);
    if (cudaPointerGetAttributes(&attr, ptr) != cudaSuccess || attr.type == cudaMemoryTypeUnregistered) {
        cudaGetLastError();
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_free: %p is not memory CUDA allocated (freed twice?)", ptr);
    }
    {
        const cudaError_t err = attr.type == cudaMemoryTypeHost ? cudaFreeHost(ptr) : cudaFree(ptr);
        if (err != cudaSuccess) { /* e.g. a pointer inside an allocation: nothing freed, nothing counted off */
            cudaGetLastError();
            return gpuh_fail(err, "gpuh_free: %p: %s (not a pointer an allocation returned?)", ptr,
                             cudaGetErrorString(err));
        }
    }
    GPUH_IMPL_LOCK();
    if (gpuh_impl_state_v.untracked_count > 0)
        gpuh_impl_state_v.untracked_count--;
    GPUH_IMPL_UNLOCK();
    return cudaSuccess;
}

GPUH_DEF cudaError_t gpuh_impl_prefetch_unranged(const void *ptr, size_t count, size_t elem_size, size_t align, int device,
                                                 cudaStream_t stream)
{
    size_t bytes = 0;
    cudaError_t err = gpuh_impl_bytes("gpuh_prefetch_async", count, elem_size, &bytes);
    if (err != cudaSuccess || bytes == 0)
        return err;
    if (ptr == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_prefetch_async: ptr is NULL (count %zu)", count);
    if ((err = gpuh_impl_check_aligned(ptr, align, "gpuh_prefetch_async", "ptr")) != cudaSuccess ||
        (err = gpuh_impl_check_memory("gpuh_prefetch_async", "ptr", ptr, count, elem_size, GPUH_IMPL_WANT_MANAGED)) !=
            cudaSuccess)
        return err;
    if (device != cudaCpuDeviceId) {
        int visible = 0;
        if (cudaGetDeviceCount(&visible) != cudaSuccess)
            cudaGetLastError(), visible = -1; /* no verdict: the prefetch will say what is wrong */
        if (visible >= 0 && (device < 0 || device >= visible))
            return gpuh_fail(cudaErrorInvalidDevice,
                             "gpuh_prefetch_async: device = %d is neither cudaCpuDeviceId (%d) nor one of the %d "
                             "visible devices", device, cudaCpuDeviceId, visible);
    }
#if CUDART_VERSION >= 13000
    {
        struct cudaMemLocation loc;
        memset(&loc, 0, sizeof loc);
        loc.type = device == cudaCpuDeviceId ? cudaMemLocationTypeHost : cudaMemLocationTypeDevice;
        loc.id = device == cudaCpuDeviceId ? 0 : device;
        err = cudaMemPrefetchAsync(ptr, bytes, loc, 0, stream);
    }
#else
    err = cudaMemPrefetchAsync(ptr, bytes, device, stream);
#endif
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_prefetch_async: cudaMemPrefetchAsync(%p, %zu bytes, device %d): %s", ptr, bytes,
                         device, cudaGetErrorString(err));
    return cudaSuccess;
}

/* gpuh_impl_prefetch: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_prefetch(const void *ptr, size_t count, size_t elem_size, size_t align, int device,
                                        cudaStream_t stream)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_prefetch_async");
    err = gpuh_impl_prefetch_unranged(ptr, count, elem_size, align, device, stream);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_prefetch_async(m_ptr, count, device, stream): migrates the first
   `count` elements of managed memory to `device` (cudaCpuDeviceId for the
   host) on `stream`, so that kernels do not stall on page faults. Errors:
   cudaErrorInvalidValue (NULL with count > 0, overflow, memory that is not
   managed, a count past the end of the gpuh allocation; named in the detail),
   cudaErrorInvalidDevice for a device that is neither cudaCpuDeviceId nor a
   visible device, and cudaMemPrefetchAsync's (e.g. on devices without
   concurrent managed access).
   Idea: CUDA's unified-memory guidance; Numba has no equivalent. */
#define gpuh_prefetch_async(m_ptr, count, device, stream)                                          \
    gpuh_impl_prefetch((m_ptr), (count), sizeof *(m_ptr), GPUH_IMPL_ALIGNOF(*(m_ptr)), (device), (stream))

/* ===========================================================================
   MEMORY POOL
   A caching allocator with PyTorch's counters, on CUDA's stream-ordered
   allocator: a gpuh_pool owns a cudaMemPool_t; gpuh_pool_alloc takes memory
   from it on a stream (cudaMallocFromPoolAsync) and gpuh_pool_free gives it
   back on a stream (cudaFreeAsync). Freed memory stays reserved by the pool
   (up to its release threshold) and the next allocation of a fitting size on
   the same stream reuses it without a call to the driver's allocator, which
   is what makes per-step allocation of activations affordable. Counters:
     allocated  bytes handed out and still live      (torch.cuda.memory_allocated)
     reserved   bytes the pool holds from the device (torch.cuda.memory_reserved)
     and the peak of each since the pool was made or its peaks reset
     (torch.cuda.max_memory_allocated / max_memory_reserved).
   They are the pool's own attributes (cudaMemPoolAttrUsedMem*, ReservedMem*),
   in the driver's units: the driver may round an allocation up, and reserves
   in larger pieces than it hands out. Pool memory is not in gpuh's ledger
   (gpuh_memory_info, gpuh_free): free it with gpuh_pool_free.
   Idea: PyTorch's CUDA caching allocator (torch.cuda memory management
   notes); CUDA's stream-ordered allocator (Programming Guide, "Stream
   Ordered Memory Allocator").
   =========================================================================== */

/* gpuh_pool: a memory pool on one device, from gpuh_pool_create. `handle` is
   the CUDA pool (usable with the runtime's cudaMemPool* calls); `device` the
   device its memory lives on; `serial` tells this pool from any other gpuh
   has made, a later one the driver gives the same handle included. All
   zero: no pool. */
typedef struct gpuh_pool {
    cudaMemPool_t handle;
    int device;
    unsigned long long serial;
} gpuh_pool;

/* gpuh_pool_stats: what gpuh_pool_memory_stats reports, in bytes, named as
   PyTorch names them. */
typedef struct gpuh_pool_stats {
    size_t allocated_bytes;      /* in use by the program now   (memory_allocated) */
    size_t reserved_bytes;       /* held by the pool now        (memory_reserved) */
    size_t peak_allocated_bytes; /* highest allocated_bytes     (max_memory_allocated) */
    size_t peak_reserved_bytes;  /* highest reserved_bytes      (max_memory_reserved) */
} gpuh_pool_stats;

/* GPUH_POOL_KEEP_ALL: a release threshold that keeps every freed byte
   reserved until gpuh_empty_cache, as PyTorch's caching allocator does. */
#define GPUH_POOL_KEEP_ALL SIZE_MAX

/* What gpuh knows of its pools, per process under the lock (see State): the
   pools made and not destroyed, by handle and serial, and every block
   gpuh_pool_alloc handed out and gpuh_pool_free has not taken back, with the
   serial of its pool. A pool is known by its serial because the driver may
   give a new pool the handle of a destroyed one: a copy of the destroyed
   gpuh_pool must not reach the new pool. The blocks are kept because
   cudaFreeAsync frees any device memory, a pool's or not: gpuh_pool_free
   refuses memory that is not this pool's before the driver sees it, and
   still frees memory of a pool destroyed since (CUDA keeps it valid until
   freed). Blocks sit in an open-addressing table (linear probing, a power of
   two slots, at most half full), so a free costs the same with thousands
   live. Both arrays are given back when no pool and no block is left. */
typedef struct gpuh_impl_pool_live {
    cudaMemPool_t handle;
    unsigned long long serial;
} gpuh_impl_pool_live;
typedef struct gpuh_impl_pool_block {
    uintptr_t address;         /* 0: an empty slot */
    unsigned long long serial; /* of the pool it came from */
} gpuh_impl_pool_block;
typedef struct gpuh_impl_pool_state {
    unsigned long long last_serial; /* serials start at 1; 0 is no pool */
    gpuh_impl_pool_live *pools;
    size_t pool_count, pool_room;
    gpuh_impl_pool_block *blocks;
    size_t block_count, block_slots;
} gpuh_impl_pool_state;

GPUH_IMPL_SHARED gpuh_impl_pool_state gpuh_impl_pool_v;

/* CUDA's error for a call a capturing stream cannot take. The simulator
   names it only where its graphs are in the program (elsewhere nothing
   captures, so the value is never returned); C converts the number. */
#if !defined(GPUH_SIM) || defined(cudaErrorStreamCaptureUnsupported)
#define GPUH_IMPL_CAPTURE_REFUSED cudaErrorStreamCaptureUnsupported
#elif defined(__cplusplus)
#define GPUH_IMPL_CAPTURE_REFUSED gpuh_sim_impl::capture_unsupported
#else
#define GPUH_IMPL_CAPTURE_REFUSED 900
#endif

/* The index of the live pool (handle, serial), or pool_count if there is
   none. Lock held. */
GPUH_DEF size_t gpuh_impl_pool_find(cudaMemPool_t handle, unsigned long long serial)
{
    gpuh_impl_pool_state *s = &gpuh_impl_pool_v;
    size_t i;
    for (i = 0; i < s->pool_count; ++i)
        if (s->pools[i].serial == serial && s->pools[i].handle == handle)
            break;
    return i;
}

/* 1 if the pool with this serial is live. Lock held. */
GPUH_DEF int gpuh_impl_pool_serial_live(unsigned long long serial)
{
    size_t i;
    for (i = 0; i < gpuh_impl_pool_v.pool_count; ++i)
        if (gpuh_impl_pool_v.pools[i].serial == serial)
            return 1;
    return 0;
}

/* Gives both arrays back once nothing is in them. Lock held. */
GPUH_DEF void gpuh_impl_pool_tidy(void)
{
    gpuh_impl_pool_state *s = &gpuh_impl_pool_v;
    if (s->pool_count != 0 || s->block_count != 0)
        return;
    free(s->pools);
    free(s->blocks);
    s->pools = NULL;
    s->blocks = NULL;
    s->pool_room = s->block_slots = 0;
}

/* Adds the live pool (handle, serial); 0 when there is no host memory for it. Lock held. */
GPUH_DEF int gpuh_impl_pool_add(cudaMemPool_t handle, unsigned long long serial)
{
    gpuh_impl_pool_state *s = &gpuh_impl_pool_v;
    if (s->pool_count == s->pool_room) {
        const size_t room = s->pool_room ? 2 * s->pool_room : 8;
        void *mem = realloc(s->pools, room * sizeof *s->pools);
        if (mem == NULL)
            return 0;
        memcpy(&s->pools, &mem, sizeof mem);
        s->pool_room = room;
    }
    s->pools[s->pool_count].handle = handle;
    s->pools[s->pool_count].serial = serial;
    ++s->pool_count;
    return 1;
}

/* The slot a block at `address` would start its probe from (Fibonacci hashing
   of the address without its low bits, which alignment makes all zero). */
GPUH_DEF size_t gpuh_impl_pool_home(uintptr_t address, size_t slots)
{
    unsigned long long h = address >> 4;
    h *= 0x9E3779B97F4A7C15ull;
    return (h >> 32) & (slots - 1);
}

/* The slot holding `address`, or the empty slot where it would go; the table
   has slots (the caller checks block_slots first). Lock held. */
GPUH_DEF size_t gpuh_impl_pool_slot(uintptr_t address)
{
    const gpuh_impl_pool_state *s = &gpuh_impl_pool_v;
    size_t i = gpuh_impl_pool_home(address, s->block_slots);
    while (s->blocks[i].address != 0 && s->blocks[i].address != address)
        i = (i + 1) & (s->block_slots - 1);
    return i;
}

/* The slot of the block at `address`, or block_slots if there is none. Lock held. */
GPUH_DEF size_t gpuh_impl_pool_block_find(uintptr_t address)
{
    size_t i;
    if (gpuh_impl_pool_v.block_slots == 0 || address == 0)
        return gpuh_impl_pool_v.block_slots;
    i = gpuh_impl_pool_slot(address);
    return gpuh_impl_pool_v.blocks[i].address == address ? i : gpuh_impl_pool_v.block_slots;
}

/* Records the block at `address` as the pool `serial`'s; 0 when there is no
   host memory for a larger table. Lock held. */
GPUH_DEF int gpuh_impl_pool_block_add(uintptr_t address, unsigned long long serial)
{
    gpuh_impl_pool_state *s = &gpuh_impl_pool_v;
    size_t i;
    if (2 * (s->block_count + 1) > s->block_slots) {
        const size_t slots = s->block_slots ? 2 * s->block_slots : 64;
        gpuh_impl_pool_block *old = s->blocks;
        const size_t old_slots = s->block_slots;
        void *mem = calloc(slots, sizeof *s->blocks);
        if (mem == NULL)
            return 0;
        memcpy(&s->blocks, &mem, sizeof mem);
        s->block_slots = slots;
        for (i = 0; i < old_slots; ++i)
            if (old[i].address != 0)
                s->blocks[gpuh_impl_pool_slot(old[i].address)] = old[i];
        free(old);
    }
    i = gpuh_impl_pool_slot(address);
    if (s->blocks[i].address == 0)
        ++s->block_count;
    s->blocks[i].address = address;
    s->blocks[i].serial = serial;
    return 1;
}

/* Empties slot i, moving back the blocks after it whose probe passed it, so
   that every probe still reaches its block without tombstones (Knuth, TAOCP
   vol. 3, 6.4, Algorithm R). Lock held. */
GPUH_DEF void gpuh_impl_pool_block_drop(size_t i)
{
    gpuh_impl_pool_state *s = &gpuh_impl_pool_v;
    const size_t mask = s->block_slots - 1;
    size_t j = i;
    s->blocks[i].address = 0;
    --s->block_count;
    for (;;) {
        size_t home;
        j = (j + 1) & mask;
        if (s->blocks[j].address == 0)
            break;
        home = gpuh_impl_pool_home(s->blocks[j].address, s->block_slots);
        /* The block at j may fill the hole at i unless its home lies
           cyclically in (i, j]. */
        if (i <= j ? (home <= i || home > j) : (home <= i && home > j)) {
            s->blocks[i] = s->blocks[j];
            s->blocks[j].address = 0;
            i = j;
        }
    }
    gpuh_impl_pool_tidy();
}

/* gpuh_pool_create(&pool, device, release_threshold): a new memory pool for
   `device` (cudaMemPoolCreate, pinned device memory) that keeps up to
   `release_threshold` bytes reserved across synchronisations (beyond that,
   the driver returns freed memory to the device at the next stream, event
   or device synchronisation); GPUH_POOL_KEEP_ALL keeps everything. On error
   *pool is all zero. Errors: cudaErrorInvalidValue (pool NULL),
   cudaErrorNoDevice and the like (no device: the detail says why),
   cudaErrorInvalidDevice (device out of range), cudaErrorNotSupported (the
   device has no memory pools), cudaErrorMemoryAllocation (no host memory for
   gpuh's table of pools), cudaMemPoolCreate's. Idea: PyTorch's
   per-device caching allocator; cudaMemPoolCreate + cudaMemPoolAttrReleaseThreshold. */
GPUH_DEF cudaError_t gpuh_pool_create(gpuh_pool *pool, int device, size_t release_threshold)
{
    struct cudaMemPoolProps props;
    unsigned long long threshold = release_threshold, serial;
    int n = 0, supported = 0, added;
    cudaError_t err;
    if (pool == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_pool_create: pool is NULL");
    memset(pool, 0, sizeof *pool);
    err = cudaGetDeviceCount(&n);
    if (err == cudaSuccess && n == 0)
        err = cudaErrorNoDevice;
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gpuh_fail(err, "gpuh_pool_create(device %d): %s", device, gpuh_impl_no_device_reason(err));
    }
    if (device < 0 || device >= n)
        return gpuh_fail(cudaErrorInvalidDevice, "gpuh_pool_create: device %d is out of range (%d visible)", device,
                         n);
    if ((err = cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, device)) != cudaSuccess)
        return err;
    if (!supported)
        return gpuh_fail(cudaErrorNotSupported, "gpuh_pool_create: device %d has no memory pools "
                         "(cudaDevAttrMemoryPoolsSupported is 0)", device);
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    if ((err = cudaMemPoolCreate(&pool->handle, &props)) != cudaSuccess) {
        cudaGetLastError();
        pool->handle = NULL;
        return gpuh_fail(err, "gpuh_pool_create: cudaMemPoolCreate on device %d failed", device);
    }
    if ((err = cudaMemPoolSetAttribute(pool->handle, cudaMemPoolAttrReleaseThreshold, &threshold)) != cudaSuccess) {
        cudaGetLastError();
        cudaMemPoolDestroy(pool->handle);
        pool->handle = NULL;
        return gpuh_fail(err, "gpuh_pool_create: release threshold %zu bytes refused", release_threshold);
    }
    GPUH_IMPL_LOCK();
    serial = ++gpuh_impl_pool_v.last_serial;
    added = gpuh_impl_pool_add(pool->handle, serial);
    GPUH_IMPL_UNLOCK();
    if (!added) {
        cudaMemPoolDestroy(pool->handle);
        pool->handle = NULL;
        return gpuh_fail(cudaErrorMemoryAllocation, "gpuh_pool_create: no host memory for gpuh's table of pools");
    }
    pool->device = device;
    pool->serial = serial;
    return cudaSuccess;
}

/* The refusal of a pool that is not live: destroyed (this is a copy kept past
   gpuh_pool_destroy, which zeroes the pool it is given), or filled in by
   hand rather than by gpuh_pool_create. */
GPUH_DEF cudaError_t gpuh_impl_pool_gone(const char *fn, const gpuh_pool *pool)
{
    return gpuh_fail(cudaErrorInvalidValue,
                     "%s: the pool (handle %p, serial %llu) was destroyed: a copy kept past gpuh_pool_destroy, "
                     "or not made by gpuh_pool_create",
                     fn, (const void *)pool->handle, pool->serial);
}

/* cudaSuccess if `pool` is a live pool of gpuh_pool_create; else its detail. */
GPUH_DEF cudaError_t gpuh_impl_pool_check(const char *fn, const gpuh_pool *pool)
{
    int live;
    if (pool == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: pool is NULL", fn);
    if (pool->handle == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the pool has no CUDA pool (not created, or destroyed)", fn);
    GPUH_IMPL_LOCK();
    live = gpuh_impl_pool_find(pool->handle, pool->serial) < gpuh_impl_pool_v.pool_count;
    GPUH_IMPL_UNLOCK();
    return live ? cudaSuccess : gpuh_impl_pool_gone(fn, pool);
}

/* gpuh_pool_destroy(&pool): destroys the pool and zeroes *pool; NULL or a
   zeroed pool is a no-op. Memory still allocated from it stays valid until
   freed with gpuh_pool_free (the zeroed pool will do), after which the
   driver releases it (cudaMemPoolDestroy's rule). Errors:
   cudaErrorInvalidValue (a copy of a pool destroyed already, or one not
   made by gpuh_pool_create: *pool is left as it was, and so is any pool the
   driver has given the same handle since), cudaMemPoolDestroy's. */
GPUH_DEF cudaError_t gpuh_pool_destroy(gpuh_pool *pool)
{
    cudaError_t err;
    size_t i;
    int live;
    if (pool == NULL || pool->handle == NULL)
        return cudaSuccess;
    GPUH_IMPL_LOCK();
    i = gpuh_impl_pool_find(pool->handle, pool->serial);
    live = i < gpuh_impl_pool_v.pool_count;
    if (live)
        gpuh_impl_pool_v.pools[i] = gpuh_impl_pool_v.pools[--gpuh_impl_pool_v.pool_count];
    gpuh_impl_pool_tidy();
    GPUH_IMPL_UNLOCK();
    if (!live)
        return gpuh_impl_pool_gone("gpuh_pool_destroy", pool);
    err = cudaMemPoolDestroy(pool->handle);
    memset(pool, 0, sizeof *pool);
    if (err != cudaSuccess) {
        cudaGetLastError();
        return gpuh_fail(err, "gpuh_pool_destroy: cudaMemPoolDestroy failed");
    }
    return cudaSuccess;
}

/* The one wording of a call refused for its stream (cudaErrorInvalidResourceHandle
   from a call on it): `what` (the call, maybe with its site) names the
   stream, which is not a live stream of the current device; CUDA's message
   follows. */
GPUH_DEF cudaError_t gpuh_impl_stream_fail(cudaError_t err, const char *what, cudaStream_t stream)
{
    return gpuh_fail(err,
                     "%s: stream %p is not a live stream of the current device (destroyed, or another device's): %s",
                     what, (const void *)stream, cudaGetErrorString(err));
}

/* cudaSuccess if `stream` is a valid stream that is not capturing a graph.
   A pool's alloc or free cannot be captured: the graph would take or give
   back the memory at each of its launches, behind the pool's bookkeeping
   (and CUDA refuses such a graph only at its launch). `what` begins the
   detail ("gpuh_pool_alloc at f.cu:12"). */
GPUH_DEF cudaError_t gpuh_impl_pool_stream_check(const char *what, cudaStream_t stream)
{
    enum cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaError_t err = cudaStreamIsCapturing(stream, &status);
    int status_number;
    if (err != cudaSuccess) {
        cudaGetLastError();
        if (err == cudaErrorInvalidResourceHandle)
            return gpuh_impl_stream_fail(err, what, stream);
        return gpuh_fail(err, "%s: cudaStreamIsCapturing(stream %p) failed", what, (const void *)stream);
    }
    status_number = status;
    if (status != cudaStreamCaptureStatusNone)
        return gpuh_fail(GPUH_IMPL_CAPTURE_REFUSED,
                         "%s: stream %p is capturing a graph (capture status %d), and pool memory cannot be "
                         "captured: allocate before the capture begins and free after it ends",
                         what, (const void *)stream, status_number);
    return cudaSuccess;
}

GPUH_DEF cudaError_t gpuh_impl_pool_alloc(const gpuh_pool *pool, void *out_ptr, size_t count, size_t elem_size,
                                          cudaStream_t stream, const char *file, int line)
{
    void *p = NULL;
    size_t bytes = 0, free_b = 0, total_b = 0;
    unsigned long long reserved = 0;
    char what[256];
    cudaError_t err;
    int recorded;
    if (out_ptr == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_pool_alloc at %s:%d: the output pointer is NULL", file, line);
    memcpy(out_ptr, &p, sizeof p);
    if ((err = gpuh_impl_pool_check("gpuh_pool_alloc", pool)) != cudaSuccess ||
        (err = gpuh_impl_bytes("gpuh_pool_alloc", count, elem_size, &bytes)) != cudaSuccess || bytes == 0)
        return err;
    snprintf(what, sizeof what, "gpuh_pool_alloc at %s:%d", file, line);
    if ((err = gpuh_impl_pool_stream_check(what, stream)) != cudaSuccess)
        return err;
    if ((err = cudaMallocFromPoolAsync(&p, bytes, pool->handle, stream)) != cudaSuccess) {
        cudaGetLastError();
        if (err == cudaErrorInvalidResourceHandle)
            return gpuh_impl_stream_fail(err, what, stream);
        cudaMemPoolGetAttribute(pool->handle, cudaMemPoolAttrReservedMemCurrent, &reserved);
        cudaMemGetInfo(&free_b, &total_b);
        cudaGetLastError();
        return gpuh_fail(err,
                         "%s: could not allocate %zu bytes (%zu elements of %zu bytes) "
                         "from the pool of device %d (%llu bytes reserved; the device has %zu bytes free of %zu)",
                         what, bytes, count, elem_size, pool->device, reserved, free_b, total_b);
    }
    GPUH_IMPL_LOCK();
    recorded = gpuh_impl_pool_block_add(gpuh_impl_address(p), pool->serial);
    GPUH_IMPL_UNLOCK();
    if (!recorded) {
        cudaFreeAsync(p, stream);
        cudaGetLastError();
        return gpuh_fail(cudaErrorMemoryAllocation, "%s: no host memory to record the block (%zu bytes)", what,
                         bytes);
    }
    memcpy(out_ptr, &p, sizeof p);
    return cudaSuccess;
}

/* gpuh_pool_alloc(pool, &d_ptr, count, stream): `count` uninitialised
   elements of *d_ptr's type from `pool` (a gpuh_pool *), usable by work on
   `stream` enqueued after this call (other streams: after an event recorded
   on `stream`); NULL when count is 0. Memory the pool holds is reused
   without a driver allocation. Not on a stream that is capturing a graph.
   Errors: cudaErrorInvalidValue (a NULL pool or output pointer, a pool not
   created or destroyed, count × element size overflowing size_t),
   cudaErrorStreamCaptureUnsupported (`stream` is capturing; the capture is
   left as it was), cudaErrorMemoryAllocation (the detail gives the bytes
   asked for, the pool's reserved bytes and the device's free memory), the
   stream's errors. Idea: cudaMallocFromPoolAsync; torch.empty on a CUDA device. */
#define gpuh_pool_alloc(pool, d_pptr, count, stream)                                               \
    gpuh_impl_pool_alloc((pool), (d_pptr), (count), sizeof **(d_pptr), (stream), __FILE__, __LINE__)

/* gpuh_pool_free(pool, d_ptr, stream): gives memory from gpuh_pool_alloc
   back to `pool` once `stream` reaches this point (cudaFreeAsync): work
   enqueued on `stream` before it may still use it, work after it must not.
   NULL is a no-op. After gpuh_pool_destroy, memory of the destroyed pool is
   freed through the zeroed pool destroy left (or a copy of the pool kept
   from before). Memory of another pool, of no pool (gpuh_device_array's,
   cudaMalloc's), or freed already is refused before the driver sees it, and
   left as it was for its owner to free. Not on a stream that is capturing
   a graph. Errors: cudaErrorInvalidValue (a NULL, uncreated or destroyed
   pool; a pointer that is not this pool's: both named in the detail),
   cudaErrorStreamCaptureUnsupported (`stream` is capturing), the stream's
   errors. Idea: cudaFreeAsync; the ownership check of PyTorch's allocator
   ("invalid device pointer"). */
GPUH_DEF cudaError_t gpuh_pool_free(const gpuh_pool *pool, void *d_ptr, cudaStream_t stream)
{
    const uintptr_t address = gpuh_impl_address(d_ptr);
    unsigned long long owner = 0;
    int found, owner_live = 0, pool_live = 0;
    size_t i;
    cudaError_t err;
    if (d_ptr == NULL)
        return cudaSuccess;
    if (pool == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_pool_free: pool is NULL");
    if ((err = gpuh_impl_pool_stream_check("gpuh_pool_free", stream)) != cudaSuccess)
        return err;
    /* The block leaves the table before the driver frees it, so that two
       threads freeing it at once cannot both reach cudaFreeAsync. */
    GPUH_IMPL_LOCK();
    i = gpuh_impl_pool_block_find(address);
    found = i < gpuh_impl_pool_v.block_slots;
    if (found) {
        owner = gpuh_impl_pool_v.blocks[i].serial;
        owner_live = gpuh_impl_pool_serial_live(owner);
    }
    if (pool->handle != NULL)
        pool_live = gpuh_impl_pool_find(pool->handle, pool->serial) < gpuh_impl_pool_v.pool_count;
    /* This pool's block (the pool live, or a copy of it kept past its
       destruction), or a destroyed pool's block given with the zeroed pool. */
    if (found && ((pool->handle != NULL && owner == pool->serial) || (pool->handle == NULL && !owner_live)))
        gpuh_impl_pool_block_drop(i);
    else
        i = SIZE_MAX;
    GPUH_IMPL_UNLOCK();
    if (i == SIZE_MAX) {
        if (pool->handle == NULL)
            return gpuh_fail(cudaErrorInvalidValue,
                             "gpuh_pool_free: the pool has no CUDA pool (not created, or destroyed)");
        if (!pool_live)
            return gpuh_impl_pool_gone("gpuh_pool_free", pool);
        if (found)
            return gpuh_fail(cudaErrorInvalidValue,
                             "gpuh_pool_free: d_ptr %p is not from this pool (serial %llu) but from pool %llu%s; "
                             "left as it was",
                             d_ptr, pool->serial, owner, owner_live ? "" : ", destroyed since");
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_pool_free: d_ptr %p is not from this pool (not from a pool, or freed twice?); "
                         "left as it was",
                         d_ptr);
    }
    if ((err = cudaFreeAsync(d_ptr, stream)) != cudaSuccess) {
        cudaGetLastError();
        GPUH_IMPL_LOCK();
        gpuh_impl_pool_block_add(address, owner); /* not freed: still the pool's */
        GPUH_IMPL_UNLOCK();
        return gpuh_fail(err, "gpuh_pool_free: cudaFreeAsync refused d_ptr %p", d_ptr);
    }
    return cudaSuccess;
}

/* gpuh_pool_memory_stats(pool, &stats): the pool's counters now (see
   gpuh_pool_stats); does not wait for the device, so frees enqueued on a
   stream that has not reached them still count as allocated. Errors:
   cudaErrorInvalidValue (NULL pool or stats, uncreated pool),
   cudaMemPoolGetAttribute's. Idea: torch.cuda.memory_stats. */
GPUH_DEF cudaError_t gpuh_pool_memory_stats(const gpuh_pool *pool, gpuh_pool_stats *stats)
{
    const enum cudaMemPoolAttr attrs[4] = {cudaMemPoolAttrUsedMemCurrent, cudaMemPoolAttrReservedMemCurrent,
                                                  cudaMemPoolAttrUsedMemHigh, cudaMemPoolAttrReservedMemHigh};
    unsigned long long v[4] = {0, 0, 0, 0};
    cudaError_t err;
    int i;
    if (stats == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_pool_memory_stats: stats is NULL");
    memset(stats, 0, sizeof *stats);
    if ((err = gpuh_impl_pool_check("gpuh_pool_memory_stats", pool)) != cudaSuccess)
        return err;
    for (i = 0; i < 4; ++i)
        if ((err = cudaMemPoolGetAttribute(pool->handle, attrs[i], &v[i])) != cudaSuccess)
            return err;
    stats->allocated_bytes = v[0];
    stats->reserved_bytes = v[1];
    stats->peak_allocated_bytes = v[2];
    stats->peak_reserved_bytes = v[3];
    return cudaSuccess;
}

/* gpuh_pool_reset_peak(pool): sets both peaks to the current values (the
   driver's high watermarks can only be reset, by writing 0). Errors: as
   gpuh_pool_memory_stats. Idea: torch.cuda.reset_peak_memory_stats. */
GPUH_DEF cudaError_t gpuh_pool_reset_peak(const gpuh_pool *pool)
{
    unsigned long long zero = 0;
    cudaError_t err;
    if ((err = gpuh_impl_pool_check("gpuh_pool_reset_peak", pool)) != cudaSuccess ||
        (err = cudaMemPoolSetAttribute(pool->handle, cudaMemPoolAttrUsedMemHigh, &zero)) != cudaSuccess)
        return err;
    return cudaMemPoolSetAttribute(pool->handle, cudaMemPoolAttrReservedMemHigh, &zero);
}

/* gpuh_empty_cache(pool): returns to the device every reserved byte that no
   live allocation needs: waits for the pool's device (so that enqueued frees
   have happened; the caller's current device is kept), then trims the pool
   (cudaMemPoolTrimTo with 0 bytes to keep). Afterwards reserved_bytes is
   what live allocations occupy, in the driver's granularity. Errors: as
   gpuh_pool_memory_stats, cudaSetDevice's, cudaDeviceSynchronize's (a
   sticky error from earlier work shows here). Idea: torch.cuda.empty_cache. */
GPUH_DEF cudaError_t gpuh_empty_cache(const gpuh_pool *pool)
{
    int current = 0;
    cudaError_t err, restore;
    if ((err = gpuh_impl_pool_check("gpuh_empty_cache", pool)) != cudaSuccess ||
        (err = cudaGetDevice(&current)) != cudaSuccess)
        return err;
    if (current != pool->device && (err = cudaSetDevice(pool->device)) != cudaSuccess)
        return err;
    err = cudaDeviceSynchronize();
    restore = current != pool->device ? cudaSetDevice(current) : cudaSuccess;
    if (err != cudaSuccess)
        return err;
    if (restore != cudaSuccess)
        return restore;
    return cudaMemPoolTrimTo(pool->handle, 0);
}

/* ===========================================================================
   TIMING
   =========================================================================== */

/* A pair of CUDA events around work enqueued on one stream. */
typedef struct gpuh_timer {
    cudaEvent_t start, stop;
    cudaStream_t stream;
} gpuh_timer;

/* gpuh_timer_create: creates the two events. On error nothing is left created.
   Errors: cudaErrorInvalidValue (t NULL), and cudaEventCreate's. */
GPUH_DEF cudaError_t gpuh_timer_create(gpuh_timer *t)
{
    cudaError_t err;
    if (t == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_timer_create: t is NULL");
    memset(t, 0, sizeof *t);
    if ((err = cudaEventCreate(&t->start)) != cudaSuccess)
        return err;
    if ((err = cudaEventCreate(&t->stop)) != cudaSuccess) {
        cudaEventDestroy(t->start);
        t->start = NULL;
    }
    return err;
}

/* gpuh_timer_destroy: destroys the events (a zeroed timer is fine). */
GPUH_DEF cudaError_t gpuh_timer_destroy(gpuh_timer *t)
{
    cudaError_t a = cudaSuccess, b = cudaSuccess;
    if (t == NULL)
        return cudaSuccess;
    if (t->start)
        a = cudaEventDestroy(t->start);
    if (t->stop)
        b = cudaEventDestroy(t->stop);
    t->start = t->stop = NULL;
    return a != cudaSuccess ? a : b;
}

/* gpuh_timer_start: records the start event on `stream` (0: legacy default). */
GPUH_DEF cudaError_t gpuh_timer_start(gpuh_timer *t, cudaStream_t stream)
{
    if (t == NULL || t->start == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_timer_start: timer not created");
    t->stream = stream;
    return cudaEventRecord(t->start, stream);
}

/* gpuh_timer_stop: records the stop event on the start's stream. Returns at once. */
GPUH_DEF cudaError_t gpuh_timer_stop(gpuh_timer *t)
{
    if (t == NULL || t->stop == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_timer_stop: timer not created");
    return cudaEventRecord(t->stop, t->stream);
}

/* Waits for `stop`, then the milliseconds from `start`; the runtime's error
   for an event without timing or never recorded gets the detail `why_not`. */
GPUH_DEF cudaError_t gpuh_impl_elapsed(cudaEvent_t start, cudaEvent_t stop, float *ms, const char *why_not)
{
    cudaError_t err = cudaEventSynchronize(stop);
    if (err != cudaSuccess)
        return err;
    err = cudaEventElapsedTime(ms, start, stop);
    if (err == cudaErrorInvalidResourceHandle || err == cudaErrorNotReady)
        return gpuh_fail(err, "%s", why_not);
    return err;
}

/* gpuh_timer_elapsed_ms: waits for the stop event and sets *ms to the device
   time between the events, in milliseconds (resolution about 0.5 µs).
   Errors: cudaErrorInvalidValue (NULL, not created),
   cudaErrorInvalidResourceHandle (not started and stopped: the detail says
   so), and those of the work timed (a kernel fault surfaces here). */
GPUH_DEF cudaError_t gpuh_impl_timer_elapsed_ms(gpuh_timer *t, float *ms)
{
    if (t == NULL || ms == NULL || t->stop == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_timer_elapsed_ms: %s",
                         ms == NULL ? "ms is NULL" : "timer not created");
    return gpuh_impl_elapsed(t->start, t->stop, ms,
                             "gpuh_timer_elapsed_ms: the timer was not started and stopped (gpuh_timer_start, "
                             "gpuh_timer_stop) before this call");
}

/* gpuh_timer_elapsed_ms: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_timer_elapsed_ms(gpuh_timer *t, float *ms)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_timer_elapsed_ms");
    err = gpuh_impl_timer_elapsed_ms(t, ms);
    gpuh_nvtx_pop();
    return err;
}

/* The work gpuh_time_median_ms times: enqueue it on `stream`, return its error. */
typedef cudaError_t (*gpuh_work_fn)(void *ctx, cudaStream_t stream);

/* gpuh_time_median_ms: runs fn(ctx, stream) `warmup` times untimed (module
   load, caches, clocks), then `reps` times each between CUDA events, and sets
   *median_ms to the median time in milliseconds. fn must only enqueue work.
   Errors: cudaErrorInvalidValue (fn or median_ms NULL, warmup < 0, reps
   outside 1..GPUH_MAX_REPS), the first error fn returns, and the events'.
   Idea: the median-of-repetitions method of triton.testing.do_bench. */
GPUH_DEF cudaError_t gpuh_impl_time_median_ms(gpuh_work_fn fn, void *ctx, cudaStream_t stream, int warmup,
                                              int reps, float *median_ms)
{
    float times[GPUH_MAX_REPS];
    gpuh_timer t;
    cudaError_t err = cudaSuccess;
    int i, j;
    if (fn == NULL || median_ms == NULL || warmup < 0 || reps < 1 || reps > GPUH_MAX_REPS)
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_time_median_ms: need fn and median_ms, warmup >= 0 and 1 <= reps <= "
                         "%d (got warmup %d, reps %d)",
                         GPUH_MAX_REPS, warmup, reps);
#ifdef GPUH_SIM
    gpuh_sim_limit_reps(&warmup, &reps); /* GPUH_SIM_REPS, see gpuh_sim.h */
#endif
    for (i = 0; i < warmup && err == cudaSuccess; ++i)
        err = fn(ctx, stream);
    if (err != cudaSuccess || (err = gpuh_timer_create(&t)) != cudaSuccess)
        return err;
    for (i = 0; i < reps && err == cudaSuccess; ++i) {
        if ((err = gpuh_timer_start(&t, stream)) == cudaSuccess && (err = fn(ctx, stream)) == cudaSuccess &&
            (err = gpuh_timer_stop(&t)) == cudaSuccess)
            err = gpuh_timer_elapsed_ms(&t, &times[i]);
    }
    gpuh_timer_destroy(&t);
    if (err != cudaSuccess)
        return err;
    for (i = 1; i < reps; ++i) { /* insertion sort: reps is small */
        float v = times[i];
        for (j = i; j > 0 && times[j - 1] > v; --j)
            times[j] = times[j - 1];
        times[j] = v;
    }
    *median_ms = reps % 2 ? times[reps / 2] : 0.5f * (times[reps / 2 - 1] + times[reps / 2]);
    return cudaSuccess;
}

/* gpuh_time_median_ms: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_time_median_ms(gpuh_work_fn fn, void *ctx, cudaStream_t stream, int warmup,
                                         int reps, float *median_ms)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_time_median_ms");
    err = gpuh_impl_time_median_ms(fn, ctx, stream, warmup, reps, median_ms);
    gpuh_nvtx_pop();
    return err;
}

/* ===========================================================================
   STREAMS AND EVENTS
   Thin wrappers that add what the runtime leaves out: argument checks with a
   detail, a priority outside the device's range refused (the runtime clamps it
   silently), destroy functions that accept NULL and clear the handle, the
   milliseconds between two events. For anything else call the runtime
   directly (cudaStreamQuery, cudaEventQuery, ...). Idea: the CUDA Programming
   Guide's "Asynchronous concurrent execution"; the handles are CUDA's own.
   =========================================================================== */

/* gpuh_stream_create(&stream, flags, priority): a new stream. flags:
   cudaStreamDefault (0: the stream waits for, and is waited for by, the
   legacy default stream 0) or cudaStreamNonBlocking (no implicit
   synchronisation with stream 0). priority: lower numbers are scheduled
   first; the device's range is cudaDeviceGetStreamPriorityRange's
   [greatest, least], e.g. [-5, 0] on Hopper, and 0 is always valid. On error
   *stream is NULL. Errors: cudaErrorInvalidValue (stream NULL, other flags, a
   priority outside the range, named in the detail), and the runtime's
   (cudaErrorNoDevice, ...). Idea: cudaStreamCreateWithPriority. */
GPUH_DEF cudaError_t gpuh_stream_create(cudaStream_t *stream, unsigned flags, int priority)
{
    int least = 0, greatest = 0;
    cudaError_t err;
    if (stream == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_stream_create: stream is NULL");
    *stream = NULL;
    if (flags != cudaStreamDefault && flags != cudaStreamNonBlocking)
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_stream_create: flags %#x: must be cudaStreamDefault (0) or "
                         "cudaStreamNonBlocking (%#x)",
                         flags, cudaStreamNonBlocking);
    if ((err = cudaDeviceGetStreamPriorityRange(&least, &greatest)) != cudaSuccess)
        return err;
    if (priority < greatest || priority > least)
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_stream_create: priority %d is outside this device's range %d (highest) "
                         "to %d (lowest)",
                         priority, greatest, least);
    return cudaStreamCreateWithPriority(stream, flags, priority);
}

/* gpuh_stream_destroy(&stream): destroys *stream and sets it to NULL; work
   already enqueued still completes (cudaStreamDestroy). stream NULL, or
   *stream NULL (the default stream), is a no-op. Errors: cudaStreamDestroy's. */
GPUH_DEF cudaError_t gpuh_stream_destroy(cudaStream_t *stream)
{
    cudaError_t err;
    if (stream == NULL || *stream == NULL)
        return cudaSuccess;
    err = cudaStreamDestroy(*stream);
    *stream = NULL;
    return err;
}

/* gpuh_stream_sync(stream): waits until everything enqueued on `stream` has
   finished (cudaStreamSynchronize). Errors: those of the work waited for; the
   detail says they are asynchronous (from an earlier copy or kernel, on this
   stream or, for a sticky error, any). */
GPUH_DEF cudaError_t gpuh_impl_stream_sync(cudaStream_t stream)
{
    const void *s = stream;
    cudaError_t err = cudaStreamSynchronize(stream);
    if (err == cudaErrorInvalidResourceHandle)
        return gpuh_impl_stream_fail(err, "gpuh_stream_sync", stream);
    if (err != cudaSuccess)
        return gpuh_fail(err,
                         "gpuh_stream_sync(%p): the error comes from work enqueued earlier (on this "
                         "stream, or on any if it is sticky), not from the synchronisation",
                         s);
    return cudaSuccess;
}

/* gpuh_stream_sync: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_stream_sync(cudaStream_t stream)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_stream_sync");
    err = gpuh_impl_stream_sync(stream);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_event_create(&event, flags): a new event. flags: any of
   cudaEventBlockingSync (a waiting host thread sleeps instead of spinning),
   cudaEventDisableTiming (cheaper; for ordering only, not for
   gpuh_event_elapsed_ms), cudaEventInterprocess (with DisableTiming), or
   cudaEventDefault (0). On error *event is NULL. Errors:
   cudaErrorInvalidValue (event NULL, other flag bits), the runtime's. */
GPUH_DEF cudaError_t gpuh_event_create(cudaEvent_t *event, unsigned flags)
{
    const unsigned known = cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess;
    if (event == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_event_create: event is NULL");
    *event = NULL;
    if ((flags & ~known) != 0)
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_event_create: flags %#x: only cudaEventBlockingSync (%#x), "
                         "cudaEventDisableTiming (%#x) and cudaEventInterprocess (%#x) are known",
                         flags, cudaEventBlockingSync, cudaEventDisableTiming, cudaEventInterprocess);
    return cudaEventCreateWithFlags(event, flags);
}

/* gpuh_event_destroy(&event): destroys *event and sets it to NULL; NULL is a
   no-op. Errors: cudaEventDestroy's. */
GPUH_DEF cudaError_t gpuh_event_destroy(cudaEvent_t *event)
{
    cudaError_t err;
    if (event == NULL || *event == NULL)
        return cudaSuccess;
    err = cudaEventDestroy(*event);
    *event = NULL;
    return err;
}

/* gpuh_event_record(event, stream): marks the point in `stream` reached when
   all work enqueued on it so far has finished (cudaEventRecord). Errors:
   cudaErrorInvalidValue (event NULL: not created), the runtime's. */
GPUH_DEF cudaError_t gpuh_event_record(cudaEvent_t event, cudaStream_t stream)
{
    if (event == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_event_record: event is NULL (not created?)");
    return cudaEventRecord(event, stream);
}

/* gpuh_stream_wait_event(stream, event): work enqueued on `stream` after this
   call waits until `event`'s last record has completed, without blocking the
   host: the way to order two streams (cudaStreamWaitEvent). An event never
   recorded is complete at once. Errors: cudaErrorInvalidValue (event NULL),
   the runtime's. */
GPUH_DEF cudaError_t gpuh_stream_wait_event(cudaStream_t stream, cudaEvent_t event)
{
    if (event == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_stream_wait_event: event is NULL (not created?)");
    return cudaStreamWaitEvent(stream, event, 0);
}

/* gpuh_event_elapsed_ms(start, stop, &ms): waits for `stop`, then sets *ms to
   the device time from `start` to `stop` in milliseconds (resolution about
   0.5 µs; negative if stop was reached first). Errors: cudaErrorInvalidValue
   (a NULL argument); cudaErrorInvalidResourceHandle (an event created with
   cudaEventDisableTiming, or never recorded: the detail says so); those of
   the work waited for. */
GPUH_DEF cudaError_t gpuh_impl_event_elapsed_ms(cudaEvent_t start, cudaEvent_t stop, float *ms)
{
    if (start == NULL || stop == NULL || ms == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_event_elapsed_ms: %s is NULL",
                         start == NULL ? "start" : stop == NULL ? "stop" : "ms");
    return gpuh_impl_elapsed(start, stop, ms,
                             "gpuh_event_elapsed_ms: both events must be created with timing (not "
                             "cudaEventDisableTiming) and recorded");
}

/* gpuh_event_elapsed_ms: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_event_elapsed_ms(cudaEvent_t start, cudaEvent_t stop, float *ms)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_event_elapsed_ms");
    err = gpuh_impl_event_elapsed_ms(start, stop, ms);
    gpuh_nvtx_pop();
    return err;
}

/* ===========================================================================
   PIPELINE
   Host arrays through a kernel in chunks, copies overlapping compute.

   Chunk i (elements [i·chunk, min((i+1)·chunk, n))) goes to stream i mod k,
   which copies its inputs to that stream's device buffers, runs the user's
   launcher on them and copies the outputs back. Work on one stream runs in
   order, work on different streams may overlap, so with k ≥ 3 the host-to-
   device copy of chunk i+1, the kernel on chunk i and the device-to-host copy
   of chunk i−1 run at once on the two copy engines and the SMs: the run takes
   about max(copy in, compute, copy out) instead of their sum. Copies are
   asynchronous only from page-locked memory: pinned host arrays
   (gpuh_pinned_array) are used directly, pageable ones go through pinned
   staging buffers, one per stream and array, which the host fills and
   empties (memcpy) while the other streams work.

   Idea: the CUDA Programming Guide, "Overlapping behavior"; Harris, "How to
   overlap data transfers in CUDA C/C++" (NVIDIA blog, 2012).
   =========================================================================== */

#define GPUH_PIPELINE_MAX_ARRAYS 4        /* inputs, and outputs, per pipeline */
#define GPUH_PIPELINE_MAX_STREAMS 16
#define GPUH_PIPELINE_DEFAULT_CHUNK 1048576u /* elements (4 MiB of floats) */
#define GPUH_PIPELINE_DEFAULT_STREAMS 4

/* The user's part: enqueue the work on one chunk on `stream` and return its
   error (e.g. GPUH_LAUNCH's). d_in[j] / d_out[j] point at the chunk's
   `count` elements of input / output j in device memory; `first` is the
   index of the chunk's first element in the whole arrays. Must not
   synchronise, and must read and write only those elements. */
typedef cudaError_t (*gpuh_pipeline_launch_fn)(const void *const *d_in, void *const *d_out, size_t count,
                                               size_t first, cudaStream_t stream, void *user);

/* When one chunk's work ran, in ms from an event that every stream waits
   for before its first copy: when the chunk's stream reached the point just
   before its input copy, after it, after the kernel, and after the output
   copy. An interval can include time spent waiting for an engine that
   another stream held. */
typedef struct gpuh_pipeline_chunk {
    size_t first, count; /* elements */
    int stream;          /* 0 .. streams-1 */
    float h2d_begin_ms, h2d_end_ms, kernel_end_ms, d2h_end_ms;
} gpuh_pipeline_chunk;

/* What gpuh_pipeline does. Zero-initialise it (memset, or = {0} in C), then
   set what you need; a zero means the default. Inputs are in[0..], outputs out[0..]:
   array j is in use when its element size is > 0, and the arrays in use come
   first (the first unused one ends the list). */
typedef struct gpuh_pipeline_desc {
    size_t n;                                            /* elements in every array */
    const void *in[GPUH_PIPELINE_MAX_ARRAYS];            /* host inputs, n elements each */
    size_t in_elem_bytes[GPUH_PIPELINE_MAX_ARRAYS];      /* bytes per element of in[j] */
    void *out[GPUH_PIPELINE_MAX_ARRAYS];                 /* host outputs, n elements each */
    size_t out_elem_bytes[GPUH_PIPELINE_MAX_ARRAYS];     /* bytes per element of out[j] */
    size_t chunk;        /* elements per chunk; 0: GPUH_PIPELINE_DEFAULT_CHUNK (at most n) */
    int streams;         /* 1 .. GPUH_PIPELINE_MAX_STREAMS; 0: GPUH_PIPELINE_DEFAULT_STREAMS */
    gpuh_pipeline_launch_fn launch;                      /* required */
    void *user;                                          /* passed to launch */
    gpuh_pipeline_chunk *chunks; /* optional: receives ceil(n / chunk) records (events cost ~µs each) */
    size_t chunks_capacity;      /* records chunks can hold */
} gpuh_pipeline_desc;

/* Everything one gpuh_pipeline call holds; all NULL until made. */
typedef struct gpuh_impl_pipe {
    size_t n, chunk, count_chunks, n_in, n_out, k;
    int staged;
    int stage_in[GPUH_PIPELINE_MAX_ARRAYS], stage_out[GPUH_PIPELINE_MAX_ARRAYS];
    cudaStream_t streams[GPUH_PIPELINE_MAX_STREAMS];
    cudaEvent_t done[GPUH_PIPELINE_MAX_STREAMS]; /* after each stream's last output copy */
    void *d_in[GPUH_PIPELINE_MAX_STREAMS][GPUH_PIPELINE_MAX_ARRAYS];
    const void *d_in_const[GPUH_PIPELINE_MAX_STREAMS][GPUH_PIPELINE_MAX_ARRAYS];
    void *d_out[GPUH_PIPELINE_MAX_STREAMS][GPUH_PIPELINE_MAX_ARRAYS];
    void *h_in[GPUH_PIPELINE_MAX_STREAMS][GPUH_PIPELINE_MAX_ARRAYS]; /* pinned staging */
    void *h_out[GPUH_PIPELINE_MAX_STREAMS][GPUH_PIPELINE_MAX_ARRAYS];
    cudaEvent_t start, *marks; /* with chunks: 4 marks per chunk */
} gpuh_impl_pipe;

/* base + bytes, without casts. */
GPUH_DEF const void *gpuh_impl_at_const(const void *base, size_t bytes)
{
    const unsigned char *b;
    memcpy(&b, &base, sizeof b);
    return b + bytes;
}
GPUH_DEF void *gpuh_impl_at(void *base, size_t bytes)
{
    unsigned char *b;
    memcpy(&b, &base, sizeof b);
    return b + bytes;
}

/* Counts the arrays in use (element size > 0, from index 0) and checks them. */
GPUH_DEF cudaError_t gpuh_impl_pipeline_arrays(const char *what, const void *const *ptrs, const size_t *elem_bytes,
                                               size_t n, size_t *used)
{
    size_t j, bytes;
    *used = 0;
    while (*used < GPUH_PIPELINE_MAX_ARRAYS && elem_bytes[*used] > 0)
        ++*used;
    for (j = 0; j < GPUH_PIPELINE_MAX_ARRAYS; ++j) {
        if (j >= *used && (elem_bytes[j] > 0 || ptrs[j] != NULL))
            return gpuh_fail(cudaErrorInvalidValue,
                             "gpuh_pipeline: %s[%zu] is given (element size %zu, pointer %p) but the list "
                             "of %ss ends at %zu: set %s_elem_bytes[j] for every array, with no gap",
                             what, j, elem_bytes[j], ptrs[j], what, *used, what);
        if (j < *used && ptrs[j] == NULL && n > 0)
            return gpuh_fail(cudaErrorInvalidValue, "gpuh_pipeline: %s[%zu] is NULL (n %zu)", what, j, n);
        if (j < *used && gpuh_impl_bytes("gpuh_pipeline", n, elem_bytes[j], &bytes) != cudaSuccess)
            return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

/* The argument checks: no CUDA call. Fills p's sizes. */
GPUH_DEF cudaError_t gpuh_impl_pipeline_check(const gpuh_pipeline_desc *d, gpuh_impl_pipe *p)
{
    const void *outs[GPUH_PIPELINE_MAX_ARRAYS];
    cudaError_t err;
    size_t j;
    if (d == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_pipeline: desc is NULL");
    if (d->launch == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_pipeline: desc->launch is NULL");
    for (j = 0; j < GPUH_PIPELINE_MAX_ARRAYS; ++j)
        outs[j] = d->out[j];
    if ((err = gpuh_impl_pipeline_arrays("in", d->in, d->in_elem_bytes, d->n, &p->n_in)) != cudaSuccess ||
        (err = gpuh_impl_pipeline_arrays("out", outs, d->out_elem_bytes, d->n, &p->n_out)) != cudaSuccess)
        return err;
    if (p->n_in + p->n_out == 0)
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_pipeline: no array in use (set in_elem_bytes[0] or out_elem_bytes[0])");
    if (d->streams < 0 || d->streams > GPUH_PIPELINE_MAX_STREAMS)
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_pipeline: streams %d: must be 1 .. %d, or 0 for the default %d", d->streams,
                         GPUH_PIPELINE_MAX_STREAMS, GPUH_PIPELINE_DEFAULT_STREAMS);
    p->n = d->n;
    p->chunk = d->chunk > 0 ? d->chunk : GPUH_PIPELINE_DEFAULT_CHUNK;
    if (p->chunk > p->n)
        p->chunk = p->n; /* no buffer larger than the data */
    p->count_chunks = gpuh_ceil_div(p->n, p->chunk);
    p->k = d->streams > 0 ? d->streams : GPUH_PIPELINE_DEFAULT_STREAMS;
    if (p->k > p->count_chunks)
        p->k = p->count_chunks; /* no stream without a chunk */
    if (d->chunks != NULL && d->chunks_capacity < p->count_chunks)
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_pipeline: chunks holds %zu records but %zu elements in chunks of %zu "
                         "need %zu",
                         d->chunks_capacity, p->n, p->chunk, p->count_chunks);
    return cudaSuccess;
}

/* Decides for each host array whether it is staged (pageable or managed) or
   used directly (pinned), then makes the streams, events and buffers. */
GPUH_DEF cudaError_t gpuh_impl_pipeline_setup(const gpuh_pipeline_desc *d, gpuh_impl_pipe *p)
{
    size_t s, j, i;
    cudaError_t err = cudaSuccess;
    for (j = 0; j < p->n_in + p->n_out; ++j) {
        const int is_in = j < p->n_in;
        const size_t a = is_in ? j : j - p->n_in;
        const void *host = is_in ? d->in[a] : d->out[a];
        struct cudaPointerAttributes attr;
        if ((err = cudaPointerGetAttributes(&attr, host)) != cudaSuccess)
            return err;
        if (attr.type == cudaMemoryTypeDevice)
            return gpuh_fail(cudaErrorInvalidValue,
                             "gpuh_pipeline: %s[%zu] (%p) is device memory; the pipeline takes host arrays",
                             is_in ? "in" : "out", a, host);
        if (is_in)
            p->stage_in[a] = attr.type != cudaMemoryTypeHost;
        else
            p->stage_out[a] = attr.type != cudaMemoryTypeHost;
        p->staged |= attr.type != cudaMemoryTypeHost;
    }
    for (s = 0; s < p->k && err == cudaSuccess; ++s) {
        /* cudaStreamDefault: ordered after earlier work on stream 0 that may
           still be writing the inputs. */
        err = gpuh_stream_create(&p->streams[s], cudaStreamDefault, 0);
        if (err == cudaSuccess && p->staged)
            err = gpuh_event_create(&p->done[s], cudaEventDisableTiming);
        for (j = 0; j < p->n_in && err == cudaSuccess; ++j) {
            unsigned char *b = NULL;
            err = gpuh_device_array(&b, p->chunk * d->in_elem_bytes[j]);
            p->d_in[s][j] = b;
            p->d_in_const[s][j] = b;
            if (err == cudaSuccess && p->stage_in[j])
                err = gpuh_pinned_array(&b, p->chunk * d->in_elem_bytes[j]);
            p->h_in[s][j] = p->stage_in[j] ? b : NULL;
        }
        for (j = 0; j < p->n_out && err == cudaSuccess; ++j) {
            unsigned char *b = NULL;
            err = gpuh_device_array(&b, p->chunk * d->out_elem_bytes[j]);
            p->d_out[s][j] = b;
            if (err == cudaSuccess && p->stage_out[j])
                err = gpuh_pinned_array(&b, p->chunk * d->out_elem_bytes[j]);
            p->h_out[s][j] = p->stage_out[j] ? b : NULL;
        }
    }
    if (err == cudaSuccess && d->chunks != NULL) {
        void *mem = calloc(4 * p->count_chunks, sizeof(cudaEvent_t));
        if (mem == NULL)
            return gpuh_fail(cudaErrorMemoryAllocation, "gpuh_pipeline: no host memory for %zu events",
                             4 * p->count_chunks);
        memcpy(&p->marks, &mem, sizeof mem);
        err = gpuh_event_create(&p->start, cudaEventDefault);
        for (i = 0; i < 4 * p->count_chunks && err == cudaSuccess; ++i)
            err = gpuh_event_create(&p->marks[i], cudaEventDefault);
    }
    return err;
}

/* Copies chunk i's outputs from the staging buffers of its stream to the
   user's arrays, once that stream's `done` event has passed. */
GPUH_DEF cudaError_t gpuh_impl_pipeline_unstage(const gpuh_pipeline_desc *d, gpuh_impl_pipe *p, size_t i)
{
    const size_t s = i % p->k, first = i * p->chunk;
    const size_t count = p->n - first < p->chunk ? p->n - first : p->chunk;
    size_t j;
    cudaError_t err = cudaEventSynchronize(p->done[s]);
    for (j = 0; j < p->n_out && err == cudaSuccess; ++j)
        if (p->stage_out[j])
            memcpy(gpuh_impl_at(d->out[j], first * d->out_elem_bytes[j]), p->h_out[s][j],
                   count * d->out_elem_bytes[j]);
    return err;
}

/* Enqueues chunk i on stream i mod k: inputs in, the launcher, outputs out. */
GPUH_DEF cudaError_t gpuh_impl_pipeline_chunk_unranged(const gpuh_pipeline_desc *d, gpuh_impl_pipe *p, size_t i)
{
    const size_t s = i % p->k, first = i * p->chunk;
    const size_t count = p->n - first < p->chunk ? p->n - first : p->chunk;
    cudaStream_t st = p->streams[s];
    cudaEvent_t *mark = p->marks != NULL ? &p->marks[4 * i] : NULL;
    cudaError_t err = cudaSuccess;
    size_t j;
    /* The staging buffers of this stream still hold chunk i-k until its
       output copy has finished and the host has taken the outputs. */
    if (p->staged && i >= p->k && (err = gpuh_impl_pipeline_unstage(d, p, i - p->k)) != cudaSuccess)
        return err;
    for (j = 0; j < p->n_in; ++j)
        if (p->stage_in[j])
            memcpy(p->h_in[s][j], gpuh_impl_at_const(d->in[j], first * d->in_elem_bytes[j]),
                   count * d->in_elem_bytes[j]);
    if (mark != NULL && (err = cudaEventRecord(mark[0], st)) != cudaSuccess)
        return err;
    for (j = 0; j < p->n_in && err == cudaSuccess; ++j) {
        const void *src =
            p->stage_in[j] ? p->h_in[s][j] : gpuh_impl_at_const(d->in[j], first * d->in_elem_bytes[j]);
        err = cudaMemcpyAsync(p->d_in[s][j], src, count * d->in_elem_bytes[j], cudaMemcpyHostToDevice, st);
    }
    if (err == cudaSuccess && mark != NULL)
        err = cudaEventRecord(mark[1], st);
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_pipeline: the input copy of chunk %zu on stream %zu failed: %s", i, s,
                         cudaGetErrorString(err));
    err = d->launch(p->d_in_const[s], p->d_out[s], count, first, st, d->user);
    if (err != cudaSuccess) {
        char why[sizeof gpuh_impl_thread_v.detail] = "";
        if (gpuh_impl_thread_v.detail_error == err)
            memcpy(why, gpuh_impl_thread_v.detail, sizeof why);
        return gpuh_fail(err,
                         "gpuh_pipeline: the launcher returned %s for chunk %zu (elements %zu .. %zu) on "
                         "stream %zu%s%s",
                         cudaGetErrorName(err), i, first, first + count - 1, s, why[0] ? ": " : "", why);
    }
    if (mark != NULL && (err = cudaEventRecord(mark[2], st)) != cudaSuccess)
        return err;
    for (j = 0; j < p->n_out && err == cudaSuccess; ++j) {
        void *dst = p->stage_out[j] ? p->h_out[s][j] : gpuh_impl_at(d->out[j], first * d->out_elem_bytes[j]);
        err = cudaMemcpyAsync(dst, p->d_out[s][j], count * d->out_elem_bytes[j], cudaMemcpyDeviceToHost, st);
    }
    if (err == cudaSuccess && mark != NULL)
        err = cudaEventRecord(mark[3], st);
    if (err == cudaSuccess && p->staged)
        err = cudaEventRecord(p->done[s], st);
    if (err != cudaSuccess)
        return gpuh_fail(err, "gpuh_pipeline: the output copy of chunk %zu on stream %zu failed: %s", i, s,
                         cudaGetErrorString(err));
    return cudaSuccess;
}

/* gpuh_impl_pipeline_chunk: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_pipeline_chunk(const gpuh_pipeline_desc *d, gpuh_impl_pipe *p, size_t i)
{
    cudaError_t err;
    gpuh_nvtx_pushf("gpuh_pipeline chunk %zu", i);
    err = gpuh_impl_pipeline_chunk_unranged(d, p, i);
    gpuh_nvtx_pop();
    return err;
}

/* Every chunk, then the last k chunks' outputs, then the chunk records. */
GPUH_DEF cudaError_t gpuh_impl_pipeline_run(const gpuh_pipeline_desc *d, gpuh_impl_pipe *p)
{
    size_t i, s;
    cudaError_t err = cudaSuccess;
    if (p->marks != NULL) { /* every stream starts after `start` */
        err = cudaEventRecord(p->start, p->streams[0]);
        for (s = 1; s < p->k && err == cudaSuccess; ++s)
            err = cudaStreamWaitEvent(p->streams[s], p->start, 0);
    }
    for (i = 0; i < p->count_chunks && err == cudaSuccess; ++i)
        err = gpuh_impl_pipeline_chunk(d, p, i);
    for (i = p->count_chunks - p->k; i < p->count_chunks && err == cudaSuccess && p->staged; ++i)
        err = gpuh_impl_pipeline_unstage(d, p, i);
    for (s = 0; s < p->k && err == cudaSuccess; ++s)
        err = gpuh_stream_sync(p->streams[s]);
    for (i = 0; i < p->count_chunks && err == cudaSuccess && p->marks != NULL; ++i) {
        gpuh_pipeline_chunk *c = &d->chunks[i];
        c->first = i * p->chunk;
        c->count = p->n - c->first < p->chunk ? p->n - c->first : p->chunk;
        c->stream = i % p->k;
        if ((err = cudaEventElapsedTime(&c->h2d_begin_ms, p->start, p->marks[4 * i])) == cudaSuccess &&
            (err = cudaEventElapsedTime(&c->h2d_end_ms, p->start, p->marks[4 * i + 1])) == cudaSuccess &&
            (err = cudaEventElapsedTime(&c->kernel_end_ms, p->start, p->marks[4 * i + 2])) == cudaSuccess)
            err = cudaEventElapsedTime(&c->d2h_end_ms, p->start, p->marks[4 * i + 3]);
    }
    return err;
}

/* Waits for the streams (work may still be in flight after an error), then
   frees everything; returns the first error. */
GPUH_DEF cudaError_t gpuh_impl_pipeline_free(gpuh_impl_pipe *p)
{
    cudaError_t err = cudaSuccess, e;
    size_t s, j, i;
    for (s = 0; s < p->k; ++s)
        if (p->streams[s] != NULL)
            cudaStreamSynchronize(p->streams[s]);
    for (s = 0; s < p->k; ++s) {
        for (j = 0; j < GPUH_PIPELINE_MAX_ARRAYS; ++j) {
            void *held[4];
            size_t a;
            held[0] = p->d_in[s][j];
            held[1] = p->d_out[s][j];
            held[2] = p->h_in[s][j];
            held[3] = p->h_out[s][j];
            for (a = 0; a < 4; ++a)
                if ((e = gpuh_free(held[a])) != cudaSuccess && err == cudaSuccess)
                    err = e;
        }
        if ((e = gpuh_event_destroy(&p->done[s])) != cudaSuccess && err == cudaSuccess)
            err = e;
        if ((e = gpuh_stream_destroy(&p->streams[s])) != cudaSuccess && err == cudaSuccess)
            err = e;
    }
    for (i = 0; p->marks != NULL && i < 4 * p->count_chunks; ++i)
        if ((e = gpuh_event_destroy(&p->marks[i])) != cudaSuccess && err == cudaSuccess)
            err = e;
    free(p->marks);
    p->marks = NULL;
    if ((e = gpuh_event_destroy(&p->start)) != cudaSuccess && err == cudaSuccess)
        err = e;
    return err;
}

/* gpuh_pipeline(&desc): runs desc->launch over n elements of host arrays in
   chunks of desc->chunk elements on desc->streams streams, overlapping the
   input copies, the kernels and the output copies of successive chunks (see
   above), and returns when every output is in the host arrays. Any n works:
   the last chunk may be short, n below one chunk is one chunk, n = 0 does
   nothing (the pointers may then be NULL), and k = 1 runs the chunks one after
   another. An output may be the same array as an input. It holds,
   for the call only, per stream: chunk × element size bytes of device memory
   for every array and, for every pageable array, as much pinned memory
   (pinning costs about a millisecond per tens of MB: for repeated calls, pass
   pinned arrays). The streams are ordered after work already on stream 0.
   With desc->chunks, fills one gpuh_pipeline_chunk per chunk.
   Errors: cudaErrorInvalidValue (desc or launch NULL; arrays listed with a
   gap, NULL with n > 0, or device memory; streams outside 0..16; chunks too
   small for ceil(n / chunk) records; a byte count beyond size_t); the first
   error of the launcher (its own detail kept after the chunk's), a copy or an
   allocation. On every path all it made is freed before it returns. */
GPUH_DEF cudaError_t gpuh_impl_pipeline(const gpuh_pipeline_desc *desc)
{
    gpuh_impl_pipe p;
    cudaError_t err, freed;
    memset(&p, 0, sizeof p);
    if ((err = gpuh_impl_pipeline_check(desc, &p)) != cudaSuccess || p.n == 0)
        return err;
    if ((err = gpuh_impl_pipeline_setup(desc, &p)) == cudaSuccess)
        err = gpuh_impl_pipeline_run(desc, &p);
    freed = gpuh_impl_pipeline_free(&p);
    return err != cudaSuccess ? err : freed;
}

/* gpuh_pipeline: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_pipeline(const gpuh_pipeline_desc *desc)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_pipeline");
    err = gpuh_impl_pipeline(desc);
    gpuh_nvtx_pop();
    return err;
}

/* ===========================================================================
   SEVERAL DEVICES
   A set of devices driven from one host thread: each device gets its own
   stream, peer access is turned on wherever the hardware allows it, and a
   step runs on every device in turn. Launches return at once, so the devices
   work at the same time; gpuh_devices_sync waits for all of them. Sharded
   arrays split one host array into per-device pieces of whole rows.
   Collectives (all-reduce, broadcast, all-gather) go through NCCL when
   GPUH_USE_NCCL is defined, and otherwise return cudaErrorNotSupported
   saying so. Every error names the device (its CUDA ordinal and its index in
   the set). Each helper leaves the calling thread's current device as it
   found it.
   Idea: the CUDA samples simpleMultiGPU and simpleP2P (one stream per device,
   cudaDeviceEnablePeerAccess); NCCL's two ways of building communicators
   (ncclCommInitAll in one process, ncclCommInitRank with an ncclUniqueId
   passed between processes); PyTorch DistributedDataParallel's all-reduce of
   the gradients.
   =========================================================================== */
#if defined(GPUH_USE_NCCL) && !defined(GPUH_SIM)
#ifdef __cplusplus
} /* extern "C" (nccl.h declares its own) */
#endif
#include <nccl.h>
#ifdef __cplusplus
extern "C" {
#endif
#endif

/* Most devices in a set (gpuh_devices, gpuh_shards). */
#ifndef GPUH_MAX_DEVICES
#define GPUH_MAX_DEVICES 16
#endif
/* Bytes of device scratch each device of a set keeps, aligned to 256 bytes:
   the sharded reductions put their per-block partials and result there. */
#define GPUH_DEVICES_SCRATCH_BYTES 16384u

/* gpuh_devices: the devices a program drives together. Fill it with
   gpuh_devices_open, release it with gpuh_devices_close; read the fields,
   do not write them. peer[i][j] is 1 when device id[i] reads and writes
   id[j]'s memory directly (NVLink or PCIe peer-to-peer); 0 means copies
   between the two go through host memory (the runtime does that itself). */
typedef struct gpuh_devices {
    int count;                                              /* devices in the set */
    int id[GPUH_MAX_DEVICES];                               /* their CUDA ordinals */
    cudaStream_t stream[GPUH_MAX_DEVICES];                  /* one non-blocking stream each */
    unsigned char peer[GPUH_MAX_DEVICES][GPUH_MAX_DEVICES]; /* 1: direct access i -> j */
    void *scratch[GPUH_MAX_DEVICES];                        /* GPUH_DEVICES_SCRATCH_BYTES each */
    void *h_partial;                                        /* pinned, 16 bytes per device */
    void *comm[GPUH_MAX_DEVICES];                           /* NCCL communicators, or NULL */
} gpuh_devices;

/* gpuh_device_step: what gpuh_devices_run calls once per device, with that
   device current: index is its place in the set (0 .. count-1), device its
   CUDA ordinal, stream the set's stream for it. Enqueue work on `stream` and
   return; return an error to stop the run. */
typedef cudaError_t (*gpuh_device_step)(void *ctx, int index, int device, cudaStream_t stream);

/* Element types and reduction operations of the collectives: NCCL's
   ncclDataType_t and ncclRedOp_t under gpuh's names, so that the
   declarations need no nccl.h. gpuh_dtype: GPUH_INT32, GPUH_INT64,
   GPUH_FLOAT32, GPUH_FLOAT64 (ncclInt32 ... ncclFloat64); gpuh_red_op:
   GPUH_SUM, GPUH_PROD, GPUH_MAX, GPUH_MIN, GPUH_AVG (ncclSum, ncclProd,
   ncclMax, ncclMin, ncclAvg: the average divides the sum by the ranks). */
typedef enum gpuh_dtype { GPUH_INT32, GPUH_INT64, GPUH_FLOAT32, GPUH_FLOAT64 } gpuh_dtype;
typedef enum gpuh_red_op { GPUH_SUM, GPUH_PROD, GPUH_MAX, GPUH_MIN, GPUH_AVG } gpuh_red_op;

/* gpuh_shards: one array of `rows` × `row_elems` elements of `elem_size`
   bytes split by whole rows over the devices of a set: shard i holds rows
   first_row[i] .. first_row[i+1]-1 (row-major), at ptr[i] on device
   device[i] (NULL when it holds no row). The first rows % count shards get
   one row more than the others. Replicated (replicated = 1): every shard
   holds the whole array. A vector is rows = n, row_elems = 1. */
typedef struct gpuh_shards {
    int count, replicated;
    size_t rows, row_elems, elem_size;
    size_t first_row[GPUH_MAX_DEVICES + 1];
    int device[GPUH_MAX_DEVICES];
    void *ptr[GPUH_MAX_DEVICES];
} gpuh_shards;

/* gpuh_nccl_id: the unique id that ranks in several processes share to
   build one NCCL communicator (ncclUniqueId's 128 bytes); gpuh_comm: one
   rank's communicator (ncclComm_t with its rank, ranks and device). */
typedef struct gpuh_nccl_id {
    unsigned char bytes[128];
} gpuh_nccl_id;
typedef struct gpuh_comm {
    void *nccl;             /* the ncclComm_t */
    int rank, nranks, device; /* this process's rank, the ranks in all, its CUDA ordinal */
} gpuh_comm;

/* Clears the detail, so that a step's own detail can be told from an older one. */
GPUH_DEF void gpuh_impl_clear_detail(void)
{
    gpuh_clear_error_detail();
}

/* Returns err (a failure of set index i) with a detail that names the
   device and keeps the step's own detail, if it left one. */
GPUH_DEF cudaError_t gpuh_impl_on_device(cudaError_t err, const char *fn, int index, int device)
{
    char inner[GPUH_IMPL_DETAIL_BYTES];
    if (err == cudaSuccess)
        return err;
    if (gpuh_error_detail()[0] != '\0')
        snprintf(inner, sizeof inner, "%s", gpuh_error_detail());
    else
        snprintf(inner, sizeof inner, "%s: %s", cudaGetErrorName(err), cudaGetErrorString(err));
    cudaGetLastError();
    return gpuh_fail(err, "%s: device %d (set index %d): %s", fn, device, index, inner);
}

GPUH_DEF cudaError_t gpuh_impl_set_check(const char *fn, const gpuh_devices *set)
{
    if (set == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the device set is NULL", fn);
    if (set->count <= 0 || set->count > GPUH_MAX_DEVICES)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the device set has %d devices (open it first)", fn,
                              set->count);
    return cudaSuccess;
}

/* gpuh_devices_close: waits for each device's stream, then releases the
   set's communicators, streams and scratch; count becomes 0. NULL or an
   empty set is a no-op. Returns the first error, naming its device; goes on
   releasing after one. */
GPUH_DEF cudaError_t gpuh_devices_close(gpuh_devices *set);

/* gpuh_devices_open(&set, ids, count): the devices ids[0 .. count-1] (CUDA
   ordinals, as CUDA_VISIBLE_DEVICES numbers them), or with ids NULL the
   first `count` visible devices, all of them when count ≤ 0. Creates one
   non-blocking stream and GPUH_DEVICES_SCRATCH_BYTES of scratch per device
   (non-blocking: work on the legacy default stream, such as cudaMemset or a
   launch with stream 0, is not ordered before the set's work; synchronise
   the device, or use the set's streams), and enables peer access for every ordered pair that
   cudaDeviceCanAccessPeer allows (see gpuh_devices_report_peers for the
   others). On error the set is empty. Errors: cudaErrorInvalidValue (set
   NULL, ids with count ≤ 0, more than GPUH_MAX_DEVICES, a device listed
   twice), cudaErrorInvalidDevice (an ordinal out of range, more devices
   asked for than visible), cudaErrorNoDevice, the runtime's (named with the
   device). Idea: the CUDA sample simpleP2P; Numba's cuda.gpus. */
GPUH_DEF cudaError_t gpuh_devices_open(gpuh_devices *set, const int *ids, int count)
{
    const char *reason = "";
    int visible, i, j, prev = 0;
    cudaError_t err = cudaSuccess;
    if (set == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_devices_open: set is NULL");
    memset(set, 0, sizeof *set);
    visible = gpuh_device_count(&reason);
    if (visible == 0)
        return gpuh_fail(cudaErrorNoDevice, "gpuh_devices_open: no CUDA device: %s", reason);
    if (ids != NULL && count <= 0)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_devices_open: a device list with count %d", count);
    if (count <= 0)
        count = visible;
    if (count > GPUH_MAX_DEVICES)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_devices_open: %d devices, more than GPUH_MAX_DEVICES (%d)",
                              count, GPUH_MAX_DEVICES);
    if (ids == NULL && count > visible)
        return gpuh_fail(cudaErrorInvalidDevice, "gpuh_devices_open: %d devices asked for, %d visible", count,
                              visible);
    for (i = 0; i < count; ++i) {
        const int id = ids != NULL ? ids[i] : i;
        if (id < 0 || id >= visible)
            return gpuh_fail(cudaErrorInvalidDevice,
                                  "gpuh_devices_open: ids[%d] = %d is out of range (%d visible)", i, id, visible);
        for (j = 0; j < i; ++j)
            if (set->id[j] == id)
                return gpuh_fail(cudaErrorInvalidValue,
                                      "gpuh_devices_open: device %d is listed twice (ids[%d] and ids[%d])", id, j,
                                      i);
        set->id[i] = id;
    }
    if ((err = cudaGetDevice(&prev)) != cudaSuccess)
        return gpuh_fail(err, "gpuh_devices_open: cudaGetDevice: %s", cudaGetErrorString(err));
    set->count = count;
    for (i = 0; i < count && err == cudaSuccess; ++i) {
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[i]);
        if (err == cudaSuccess)
            err = cudaStreamCreateWithFlags(&set->stream[i], cudaStreamNonBlocking);
        if (err == cudaSuccess)
            err = cudaMalloc(&set->scratch[i], GPUH_DEVICES_SCRATCH_BYTES);
        for (j = 0; j < count && err == cudaSuccess; ++j) {
            int can = 0;
            if (j == i)
                continue;
            err = cudaDeviceCanAccessPeer(&can, set->id[i], set->id[j]);
            if (err == cudaSuccess && can) {
                /* already enabled (earlier in this process) counts as on; any other refusal
                   (e.g. cudaErrorTooManyPeers) leaves the pair off, as gpuh_devices_report_peers says */
                const cudaError_t e = cudaDeviceEnablePeerAccess(set->id[j], 0);
                if (e != cudaSuccess)
                    cudaGetLastError();
                set->peer[i][j] = e == cudaSuccess || e == cudaErrorPeerAccessAlreadyEnabled;
            }
        }
        err = gpuh_impl_on_device(err, "gpuh_devices_open", i, set->id[i]);
    }
    if (err == cudaSuccess && (err = cudaMallocHost(&set->h_partial, 16 * GPUH_MAX_DEVICES)) != cudaSuccess)
        err = gpuh_fail(err, "gpuh_devices_open: %d bytes of pinned memory: %s", 16 * GPUH_MAX_DEVICES,
                             cudaGetErrorString(err));
    if (err != cudaSuccess) {
        char keep[GPUH_IMPL_DETAIL_BYTES];
        snprintf(keep, sizeof keep, "%s", gpuh_error_detail());
        gpuh_devices_close(set);
        gpuh_fail(err, "%s", keep);
    }
    cudaSetDevice(prev);
    return err;
}

GPUH_DEF cudaError_t gpuh_impl_comm_destroy(void *comm); /* with the collectives, below */

GPUH_DEF cudaError_t gpuh_devices_close(gpuh_devices *set)
{
    cudaError_t first = cudaSuccess, err;
    int i, prev = 0;
    if (set == NULL || set->count <= 0)
        return cudaSuccess;
    cudaGetDevice(&prev);
    for (i = 0; i < set->count && i < GPUH_MAX_DEVICES; ++i) {
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[i]);
        if (err == cudaSuccess && set->stream[i] != NULL)
            err = cudaStreamSynchronize(set->stream[i]);
        if (set->comm[i] != NULL) {
            cudaError_t e = gpuh_impl_comm_destroy(set->comm[i]);
            err = err != cudaSuccess ? err : e;
        }
        if (set->stream[i] != NULL)
            cudaStreamDestroy(set->stream[i]);
        if (set->scratch[i] != NULL)
            cudaFree(set->scratch[i]);
        err = gpuh_impl_on_device(err, "gpuh_devices_close", i, set->id[i]);
        if (first == cudaSuccess && err != cudaSuccess) {
            first = err;
            GPUH_LOG("gpuh: %s\n", gpuh_error_detail()); /* later devices may overwrite the detail */
        }
    }
    if (set->h_partial != NULL)
        cudaFreeHost(set->h_partial);
    memset(set, 0, sizeof *set);
    cudaSetDevice(prev);
    return first;
}

/* gpuh_devices_report_peers: prints, to `out` (stdout if NULL), each ordered
   pair of the set's devices without direct peer access ("device 0 -> 1: no
   peer access; copies go through the host"), or that all pairs have it.
   Returns the number of pairs without it (int; 0 for a set of one). */
GPUH_DEF int gpuh_devices_report_peers(const gpuh_devices *set, FILE *out)
{
    int i, j, missing = 0;
    if (out == NULL)
        out = stdout;
    if (set == NULL)
        return 0;
    for (i = 0; i < set->count; ++i)
        for (j = 0; j < set->count; ++j)
            if (i != j && !set->peer[i][j]) {
                fprintf(out, "gpuh: device %d -> %d: no peer access; copies between them go through the host\n",
                        set->id[i], set->id[j]);
                ++missing;
            }
    if (missing == 0 && set->count > 1)
        fprintf(out, "gpuh: peer access between all %d devices\n", set->count);
    return missing;
}

/* gpuh_devices_run(set, step, ctx): for each device of the set in order,
   makes it current and calls step(ctx, index, device, stream). Does not
   wait for the work the steps enqueue (gpuh_devices_sync does). Stops at the
   first step that fails and returns its error, with a detail naming the
   device and keeping the step's own detail. Errors: cudaErrorInvalidValue
   (set or step NULL, an empty set), the steps'. Idea: simpleMultiGPU's loop
   over devices, each with its own stream, from one host thread. */
GPUH_DEF cudaError_t gpuh_devices_run(const gpuh_devices *set, gpuh_device_step step, void *ctx)
{
    cudaError_t err = gpuh_impl_set_check("gpuh_devices_run", set);
    int i, prev = 0;
    if (err != cudaSuccess)
        return err;
    if (step == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_devices_run: step is NULL");
    cudaGetDevice(&prev);
    for (i = 0; i < set->count && err == cudaSuccess; ++i) {
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[i]);
        if (err == cudaSuccess)
            err = step(ctx, i, set->id[i], set->stream[i]);
        err = gpuh_impl_on_device(err, "gpuh_devices_run", i, set->id[i]);
    }
    cudaSetDevice(prev);
    return err;
}

/* gpuh_devices_sync: waits until every device's stream of the set is idle.
   Errors: cudaErrorInvalidValue (an empty set), else the first device's
   error, named with its device (it comes from work enqueued earlier). */
GPUH_DEF cudaError_t gpuh_impl_devices_sync(const gpuh_devices *set)
{
    cudaError_t err = gpuh_impl_set_check("gpuh_devices_sync", set), first = cudaSuccess;
    int i, prev = 0;
    if (err != cudaSuccess)
        return err;
    cudaGetDevice(&prev);
    for (i = 0; i < set->count; ++i) {
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[i]);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(set->stream[i]);
        if (err != cudaSuccess && first == cudaSuccess)
            first = gpuh_impl_on_device(err, "gpuh_devices_sync", i, set->id[i]);
    }
    cudaSetDevice(prev);
    return first;
}

/* gpuh_devices_sync: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_devices_sync(const gpuh_devices *set)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_devices_sync");
    err = gpuh_impl_devices_sync(set);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_shards_rows / gpuh_shards_elems(sh, i): the rows, and elements, that
   shard i holds (size_t; 0 for an index out of range). */
GPUH_DEF size_t gpuh_shards_rows(const gpuh_shards *sh, int i)
{
    if (sh == NULL || i < 0 || i >= sh->count)
        return 0;
    return sh->replicated ? sh->rows : sh->first_row[i + 1] - sh->first_row[i];
}
GPUH_DEF size_t gpuh_shards_elems(const gpuh_shards *sh, int i)
{
    return gpuh_shards_rows(sh, i) * (sh != NULL ? sh->row_elems : 0);
}

GPUH_DEF cudaError_t gpuh_shards_free(gpuh_shards *sh);

GPUH_DEF cudaError_t gpuh_impl_shards_alloc(const char *fn, gpuh_shards *sh, const gpuh_devices *set, size_t rows,
                                            size_t row_elems, size_t elem_size, int replicated, const char *file,
                                            int line)
{
    cudaError_t err;
    size_t bytes = 0;
    int i, prev = 0;
    if (sh == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s at %s:%d: the shards are NULL", fn, file, line);
    memset(sh, 0, sizeof *sh);
    if ((err = gpuh_impl_set_check(fn, set)) != cudaSuccess)
        return err;
    if (elem_size == 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s at %s:%d: elem_size is 0", fn, file, line);
    if (row_elems != 0 && rows > SIZE_MAX / row_elems)
        return gpuh_fail(cudaErrorInvalidValue, "%s at %s:%d: %zu rows of %zu elements overflow size_t", fn,
                              file, line, rows, row_elems);
    if ((err = gpuh_impl_bytes(fn, rows * row_elems, elem_size, &bytes)) != cudaSuccess)
        return err;
    sh->count = set->count;
    sh->replicated = replicated;
    sh->rows = rows;
    sh->row_elems = row_elems;
    sh->elem_size = elem_size;
    for (i = 0; i <= set->count; ++i) /* (rows / count)·i + min(i, rows % count): no overflow */
        sh->first_row[i] = rows / (size_t)set->count * (size_t)i +
                           ((size_t)i < rows % (size_t)set->count ? (size_t)i : rows % (size_t)set->count);
    cudaGetDevice(&prev);
    for (i = 0; i < set->count && err == cudaSuccess; ++i) {
        sh->device[i] = set->id[i];
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[i]);
        if (err == cudaSuccess)
            err = gpuh_impl_alloc(fn, GPUH_IMPL_DEVICE, &sh->ptr[i], gpuh_shards_elems(sh, i), elem_size, file, line);
        err = gpuh_impl_on_device(err, fn, i, set->id[i]);
    }
    cudaSetDevice(prev);
    if (err != cudaSuccess) {
        char keep[GPUH_IMPL_DETAIL_BYTES];
        snprintf(keep, sizeof keep, "%s", gpuh_error_detail());
        gpuh_shards_free(sh);
        gpuh_fail(err, "%s", keep);
    }
    return err;
}

/* The address of element `elem` of an array of elem_size-byte elements at base. */
GPUH_DEF void *gpuh_impl_elem_at(void *base, size_t elem, size_t elem_size)
{
    unsigned char *p = NULL;
    memcpy(&p, &base, sizeof p);
    p += elem * elem_size;
    memcpy(&base, &p, sizeof p);
    return base;
}

/* Copies between the host array h (the whole array) and every shard, each on
   its device's stream, then waits for all of them. to_device: 1 host ->
   shards, 0 shards -> host (for replicated shards, shard 0 only). */
GPUH_DEF cudaError_t gpuh_impl_shards_copy_unranged(const char *fn, gpuh_shards *sh, const gpuh_devices *set, void *h,
                                                    size_t h_elem, int to_device)
{
    cudaError_t err;
    int i, prev = 0, last;
    if (sh == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the shards are NULL", fn);
    if ((err = gpuh_impl_set_check(fn, set)) != cudaSuccess)
        return err;
    if (set->count != sh->count)
        return gpuh_fail(cudaErrorInvalidValue, "%s: %d shards but %d devices in the set", fn, sh->count,
                              set->count);
    if (h_elem != sh->elem_size)
        return gpuh_fail(cudaErrorInvalidValue, "%s: host elements are %zu bytes but shard elements are %zu",
                              fn, h_elem, sh->elem_size);
    if (h == NULL && sh->rows * sh->row_elems > 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the host array is NULL (%zu elements)", fn,
                              sh->rows * sh->row_elems);
    last = sh->replicated && !to_device ? 1 : sh->count;
    cudaGetDevice(&prev);
    for (i = 0; i < last && err == cudaSuccess; ++i) {
        const size_t bytes = gpuh_shards_elems(sh, i) * sh->elem_size;
        void *hp = bytes == 0 ? h : gpuh_impl_elem_at(h, sh->replicated ? 0 : sh->first_row[i] * sh->row_elems,
                                                      sh->elem_size);
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[i]);
        if (err == cudaSuccess && bytes > 0)
            err = to_device ? cudaMemcpyAsync(sh->ptr[i], hp, bytes, cudaMemcpyHostToDevice, set->stream[i])
                            : cudaMemcpyAsync(hp, sh->ptr[i], bytes, cudaMemcpyDeviceToHost, set->stream[i]);
        err = gpuh_impl_on_device(err, fn, i, set->id[i]);
    }
    cudaSetDevice(prev);
    if (err == cudaSuccess)
        err = gpuh_devices_sync(set);
    return err;
}

/* gpuh_impl_shards_copy: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_shards_copy(const char *fn, gpuh_shards *sh, const gpuh_devices *set, void *h,
                                           size_t h_elem, int to_device)
{
    cudaError_t err;
    gpuh_nvtx_push(fn);
    err = gpuh_impl_shards_copy_unranged(fn, sh, set, h, h_elem, to_device);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_shards_device_array(&sh, set, rows, row_elems, elem_size): an
   uninitialised array of rows × row_elems elements of elem_size bytes,
   split by rows over the set's devices (gpuh_shards). Errors: those of
   gpuh_device_array, named with the device; cudaErrorInvalidValue (sh or set
   NULL, an empty set, elem_size 0, rows × row_elems overflowing). On error nothing stays
   allocated. Idea: Numba's cuda.device_array, one piece per device;
   PyTorch's DistributedSampler (contiguous, near-equal pieces). */
#define gpuh_shards_device_array(sh, set, rows, row_elems, elem_size)                                             \
    gpuh_impl_shards_alloc("gpuh_shards_device_array", (sh), (set), (rows), (row_elems), (elem_size), 0, __FILE__, \
                           __LINE__)

/* gpuh_shards_to_device(&sh, set, h_src, rows, row_elems): allocates as
   gpuh_shards_device_array (elements of *h_src's type) and copies each
   device its rows of the host array h_src (rows × row_elems elements,
   row-major), all devices at once; returns when the copies are done.
   Errors: those of gpuh_shards_device_array and of the copies, named with
   the device; h_src NULL with a non-empty array. Idea: Numba's
   cuda.to_device, one piece per device. */
#define gpuh_shards_to_device(sh, set, h_src, rows, row_elems)                                                   \
    gpuh_impl_shards_to_device("gpuh_shards_to_device", (sh), (set), (h_src), (rows), (row_elems),                \
                               sizeof *(h_src), 0, __FILE__, __LINE__)

/* gpuh_replicate_to_device(&sh, set, h_src, count): a whole copy of the
   count elements at h_src on every device of the set (replicated shards:
   the operand every device needs whole, such as B of a GEMM split by rows
   of C, or a model's weights). Errors: as gpuh_shards_to_device. */
#define gpuh_replicate_to_device(sh, set, h_src, count)                                                          \
    gpuh_impl_shards_to_device("gpuh_replicate_to_device", (sh), (set), (h_src), (count), 1, sizeof *(h_src), 1,  \
                               __FILE__, __LINE__)

GPUH_DEF cudaError_t gpuh_impl_shards_to_device(const char *fn, gpuh_shards *sh, const gpuh_devices *set,
                                                const void *h, size_t rows, size_t row_elems, size_t elem_size,
                                                int replicated, const char *file, int line)
{
    void *hv = NULL;
    cudaError_t err = gpuh_impl_shards_alloc(fn, sh, set, rows, row_elems, elem_size, replicated, file, line);
    memcpy(&hv, &h, sizeof hv); /* the copy only reads it */
    if (err == cudaSuccess && (err = gpuh_impl_shards_copy(fn, sh, set, hv, elem_size, 1)) != cudaSuccess) {
        char keep[GPUH_IMPL_DETAIL_BYTES];
        snprintf(keep, sizeof keep, "%s", gpuh_error_detail());
        gpuh_shards_free(sh);
        gpuh_fail(err, "%s", keep);
    }
    return err;
}

/* gpuh_replicate_device_array(&sh, set, count, elem_size): an uninitialised
   array of count elements of elem_size bytes, whole on every device of the
   set (replicated shards). Errors: as gpuh_shards_device_array. */
#define gpuh_replicate_device_array(sh, set, count, elem_size)                                                   \
    gpuh_impl_shards_alloc("gpuh_replicate_device_array", (sh), (set), (count), 1, (elem_size), 1, __FILE__,      \
                           __LINE__)

/* gpuh_shards_copy_to_device(h_src, &sh, set) / gpuh_shards_copy_to_host(h_dst, &sh, set):
   copy between the whole host array (rows × row_elems elements of the
   shards' element size, which must be the host pointer's) and existing
   shards, every device at once; return when done. Replicated shards: to the
   device writes every copy, to the host reads shard 0. Errors:
   cudaErrorInvalidValue (element sizes differ, NULL pointers, a set of
   another size), the copies', named with the device. Idea: Numba's
   copy_to_host. */
#define gpuh_shards_copy_to_device(h_src, sh, set)                                                               \
    gpuh_impl_shards_copy_from("gpuh_shards_copy_to_device", (sh), (set), (h_src), sizeof *(h_src))
#define gpuh_shards_copy_to_host(h_dst, sh, set)                                                                 \
    gpuh_impl_shards_copy("gpuh_shards_copy_to_host", (sh), (set), (h_dst), sizeof *(h_dst), 0)

GPUH_DEF cudaError_t gpuh_impl_shards_copy_from_unranged(const char *fn, gpuh_shards *sh, const gpuh_devices *set,
                                                         const void *h, size_t h_elem)
{
    void *hv = NULL;
    memcpy(&hv, &h, sizeof hv); /* read only */
    return gpuh_impl_shards_copy(fn, sh, set, hv, h_elem, 1);
}

/* gpuh_impl_shards_copy_from: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_shards_copy_from(const char *fn, gpuh_shards *sh, const gpuh_devices *set,
                                                const void *h, size_t h_elem)
{
    cudaError_t err;
    gpuh_nvtx_push(fn);
    err = gpuh_impl_shards_copy_from_unranged(fn, sh, set, h, h_elem);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_shards_free: frees every shard (each on its device); the shards are
   then empty. NULL is a no-op. Returns the first error. */
GPUH_DEF cudaError_t gpuh_shards_free(gpuh_shards *sh)
{
    cudaError_t first = cudaSuccess, err;
    int i, prev = 0;
    if (sh == NULL)
        return cudaSuccess;
    cudaGetDevice(&prev);
    for (i = 0; i < sh->count && i < GPUH_MAX_DEVICES; ++i) {
        if (sh->ptr[i] == NULL)
            continue;
        err = cudaSetDevice(sh->device[i]);
        if (err == cudaSuccess)
            err = gpuh_free(sh->ptr[i]);
        if (first == cudaSuccess)
            first = gpuh_impl_on_device(err, "gpuh_shards_free", i, sh->device[i]);
    }
    memset(sh, 0, sizeof *sh);
    cudaSetDevice(prev);
    return first;
}

/* gpuh_copy_peer(d_dst, d_src, count, stream): copies count elements (of
   the pointers' type) between the memory of two devices (or within one),
   directly over NVLink/PCIe where peer access is on and through the host
   otherwise, ordered on `stream` (a stream of either device; unified
   addressing tells the runtime which devices the pointers belong to, so
   the copy is cudaMemcpyDefault's).
   Errors: as gpuh_copy_to_device. Idea: cudaMemcpyPeerAsync. */
#define gpuh_copy_peer(d_dst, d_src, count, stream)                                                              \
    gpuh_impl_copy("gpuh_copy_peer", (d_dst), sizeof *(d_dst), (d_src), sizeof *(d_src),                         \
                   GPUH_IMPL_ALIGNOF(*(d_dst)), (count), cudaMemcpyDefault, 1, (stream))

/* gpuh_shards_gather(&sh, set, index, d_dst): copies every shard, in row
   order, into d_dst (rows × row_elems elements on device set->id[index]),
   over peer links where they exist. Waits for the set's streams first (the
   shards must be complete), then orders the copies on set->stream[index]
   and waits for them. Errors: cudaErrorInvalidValue (replicated shards, an
   index out of range, d_dst NULL with a non-empty array, too small a gpuh
   array, or host memory), the copies',
   named with the device. Idea: an all-gather onto one device. */
GPUH_DEF cudaError_t gpuh_impl_shards_gather(const gpuh_shards *sh, const gpuh_devices *set, int index, void *d_dst)
{
    cudaError_t err = gpuh_impl_set_check("gpuh_shards_gather", set);
    int i, prev = 0;
    if (err != cudaSuccess)
        return err;
    if (sh == NULL || sh->count != set->count || sh->replicated)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_shards_gather: the shards are %s",
                              sh == NULL ? "NULL" : sh->replicated ? "replicated" : "of a set of another size");
    if (index < 0 || index >= set->count)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_shards_gather: index %d is out of range (%d devices)",
                              index, set->count);
    if (d_dst == NULL && sh->rows * sh->row_elems > 0)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_shards_gather: d_dst is NULL");
    if (sh->rows * sh->row_elems > 0 &&
        (err = gpuh_impl_check_memory("gpuh_shards_gather", "d_dst", d_dst, sh->rows * sh->row_elems, sh->elem_size,
                                      GPUH_IMPL_WANT_DEVICE)) != cudaSuccess)
        return err;
    if ((err = gpuh_devices_sync(set)) != cudaSuccess)
        return err;
    cudaGetDevice(&prev);
    for (i = 0; i < set->count && err == cudaSuccess; ++i) {
        const size_t bytes = gpuh_shards_elems(sh, i) * sh->elem_size;
        gpuh_impl_clear_detail();
        err = cudaSetDevice(set->id[index]);
        if (err == cudaSuccess && bytes > 0)
            err = cudaMemcpyPeerAsync(gpuh_impl_elem_at(d_dst, sh->first_row[i] * sh->row_elems, sh->elem_size),
                                      set->id[index], sh->ptr[i], sh->device[i], bytes, set->stream[index]);
        err = gpuh_impl_on_device(err, "gpuh_shards_gather", i, sh->device[i]);
    }
    cudaSetDevice(prev);
    return err == cudaSuccess ? gpuh_devices_sync(set) : err;
}

/* gpuh_shards_gather: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_shards_gather(const gpuh_shards *sh, const gpuh_devices *set, int index, void *d_dst)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_shards_gather");
    err = gpuh_impl_shards_gather(sh, set, index, d_dst);
    gpuh_nvtx_pop();
    return err;
}

/* ---- Collectives (NCCL) --------------------------------------------------
   One process, several devices: gpuh_devices_init_nccl gives the set one
   communicator per device; gpuh_all_reduce / gpuh_broadcast / gpuh_all_gather
   then take one buffer per device (arrays indexed like the set: a shards'
   ptr array fits) and enqueue the collective on the set's streams, as one
   NCCL group. One process per device (or per machine): rank 0 makes an id
   (gpuh_nccl_id_create), hands it to the others (gpuh_nccl_id_write /
   _read through a file or a pipe, or MPI_Bcast of its bytes), every rank
   calls gpuh_comm_init, then gpuh_comm_all_reduce & co. on its own stream.
   All are asynchronous on the streams. NCCL errors come back as
   cudaErrorInvalidValue (ncclInvalidArgument, ncclInvalidUsage), the CUDA
   error NCCL met (ncclUnhandledCudaError) or cudaErrorUnknown, with a detail
   naming the call, the device, NCCL's error name and its last message.
   Without GPUH_USE_NCCL every one of them returns cudaErrorNotSupported and
   says how to turn NCCL on. Idea: NCCL's user guide ("Creating a
   communicator", "Collective operations", "Group calls"). */

/* gpuh_nccl_available(&reason): 1 if this build of gpuh has the collectives
   (GPUH_USE_NCCL), else 0 and *reason (if not NULL) says how to get them. */
GPUH_DEF int gpuh_nccl_available(const char **reason)
{
#ifdef GPUH_USE_NCCL
    if (reason)
        *reason = "";
    return 1;
#else
    if (reason)
        *reason = "gpuh was built without NCCL: define GPUH_USE_NCCL and link NCCL (CMake: gpuh::nccl; "
                  "by hand: -lnccl)";
    return 0;
#endif
}

/* Bytes of one element of a gpuh_dtype; 0 for none. */
GPUH_DEF size_t gpuh_impl_dtype_bytes(gpuh_dtype t)
{
    return t == GPUH_INT32 || t == GPUH_FLOAT32 ? 4 : t == GPUH_INT64 || t == GPUH_FLOAT64 ? 8 : 0;
}

enum { GPUH_IMPL_ALL_REDUCE, GPUH_IMPL_BROADCAST, GPUH_IMPL_ALL_GATHER };

#ifdef GPUH_USE_NCCL
GPUH_DEF ncclComm_t gpuh_impl_nccl_comm(void *p)
{
    ncclComm_t c;
    memcpy(&c, &p, sizeof c);
    return c;
}

GPUH_DEF const char *gpuh_impl_nccl_name(ncclResult_t r)
{
    switch (r) {
    case ncclSuccess: return "ncclSuccess";
    case ncclUnhandledCudaError: return "ncclUnhandledCudaError";
    case ncclSystemError: return "ncclSystemError";
    case ncclInternalError: return "ncclInternalError";
    case ncclInvalidArgument: return "ncclInvalidArgument";
    case ncclInvalidUsage: return "ncclInvalidUsage";
    case ncclRemoteError: return "ncclRemoteError";
    default: return "an NCCL result gpuh does not know";
    }
}

/* ncclResult_t -> cudaError_t with a detail naming the call, the device and
   NCCL's own message. */
GPUH_DEF cudaError_t gpuh_impl_nccl(const char *fn, const char *call, ncclResult_t r, void *comm, int device)
{
    cudaError_t err = cudaErrorUnknown;
    const char *last;
    if (r == ncclSuccess)
        return cudaSuccess;
    if (r == ncclInvalidArgument || r == ncclInvalidUsage)
        err = cudaErrorInvalidValue;
    else if (r == ncclUnhandledCudaError && (err = cudaGetLastError()) == cudaSuccess)
        err = cudaErrorUnknown;
    last = ncclGetLastError(gpuh_impl_nccl_comm(comm));
    return gpuh_fail(err, "%s: device %d: %s failed with %s: %s%s%s", fn, device, call, gpuh_impl_nccl_name(r),
                          ncclGetErrorString(r), last != NULL && last[0] != '\0' ? "; NCCL says: " : "",
                          last != NULL ? last : "");
}

GPUH_DEF ncclDataType_t gpuh_impl_nccl_type(gpuh_dtype t)
{
    return t == GPUH_INT32 ? ncclInt32 : t == GPUH_INT64 ? ncclInt64 : t == GPUH_FLOAT32 ? ncclFloat32 : ncclFloat64;
}
GPUH_DEF ncclRedOp_t gpuh_impl_nccl_op(gpuh_red_op op)
{
    return op == GPUH_SUM ? ncclSum : op == GPUH_PROD ? ncclProd : op == GPUH_MAX ? ncclMax
                          : op == GPUH_MIN ? ncclMin : ncclAvg;
}

GPUH_DEF cudaError_t gpuh_impl_comm_destroy(void *comm)
{
    return gpuh_impl_nccl("gpuh_devices_close", "ncclCommDestroy", ncclCommDestroy(gpuh_impl_nccl_comm(comm)), NULL,
                          -1);
}

/* One rank's part of a collective. */
GPUH_DEF cudaError_t gpuh_impl_collective_call(const char *fn, int kind, void *comm, int device, const void *send,
                                               void *recv, size_t count, gpuh_dtype dtype, gpuh_red_op op,
                                               int root, cudaStream_t stream)
{
    const ncclComm_t c = gpuh_impl_nccl_comm(comm);
    const ncclDataType_t t = gpuh_impl_nccl_type(dtype);
    if (kind == GPUH_IMPL_ALL_REDUCE)
        return gpuh_impl_nccl(fn, "ncclAllReduce", ncclAllReduce(send, recv, count, t, gpuh_impl_nccl_op(op), c, stream),
                              comm, device);
    if (kind == GPUH_IMPL_BROADCAST)
        return gpuh_impl_nccl(fn, "ncclBroadcast", ncclBroadcast(send, recv, count, t, root, c, stream), comm, device);
    return gpuh_impl_nccl(fn, "ncclAllGather", ncclAllGather(send, recv, count, t, c, stream), comm, device);
}
#else
GPUH_DEF cudaError_t gpuh_impl_comm_destroy(void *comm)
{
    (void)comm;
    return cudaSuccess;
}
#endif /* GPUH_USE_NCCL */

GPUH_DEF cudaError_t gpuh_impl_no_nccl(const char *fn)
{
    const char *reason = "";
    gpuh_nccl_available(&reason);
    return gpuh_fail(cudaErrorNotSupported, "%s: %s", fn, reason);
}

GPUH_DEF cudaError_t gpuh_impl_collective_args(const char *fn, gpuh_dtype dtype, gpuh_red_op op, size_t count)
{
    if (gpuh_impl_dtype_bytes(dtype) == 0)
        return gpuh_fail(cudaErrorInvalidValue, "%s: element type %d is not a gpuh_dtype", fn, (int)dtype);
    if ((int)op < (int)GPUH_SUM || (int)op > (int)GPUH_AVG)
        return gpuh_fail(cudaErrorInvalidValue, "%s: operator %d is not a gpuh_red_op", fn, (int)op);
    if (count > SIZE_MAX / 8)
        return gpuh_fail(cudaErrorInvalidValue, "%s: count %zu overflows size_t in bytes", fn, count);
    return gpuh_nccl_available(NULL) ? cudaSuccess : gpuh_impl_no_nccl(fn);
}

/* gpuh_devices_init_nccl: one NCCL communicator per device of the set
   (ncclCommInitAll), kept in set->comm and released by gpuh_devices_close.
   Calling it again is a no-op. Errors: cudaErrorNotSupported (no NCCL),
   cudaErrorInvalidValue (an empty set), NCCL's (see above). */
GPUH_DEF cudaError_t gpuh_devices_init_nccl(gpuh_devices *set)
{
    cudaError_t err = gpuh_impl_set_check("gpuh_devices_init_nccl", set);
    if (err != cudaSuccess)
        return err;
    if (!gpuh_nccl_available(NULL))
        return gpuh_impl_no_nccl("gpuh_devices_init_nccl");
    if (set->comm[0] != NULL)
        return cudaSuccess;
#ifdef GPUH_USE_NCCL
    {
        ncclComm_t comms[GPUH_MAX_DEVICES];
        int i, prev = 0;
        cudaGetDevice(&prev);
        err = gpuh_impl_nccl("gpuh_devices_init_nccl", "ncclCommInitAll", ncclCommInitAll(comms, set->count, set->id),
                             NULL, set->id[0]);
        cudaSetDevice(prev);
        for (i = 0; i < set->count && err == cudaSuccess; ++i)
            memcpy(&set->comm[i], &comms[i], sizeof comms[i]);
    }
#endif
    return err;
}

/* The set's collective: every device's call in one NCCL group. */
GPUH_DEF cudaError_t gpuh_impl_set_collective_unranged(const char *fn, int kind, const gpuh_devices *set, void *const *send,
                                                       void *const *recv, size_t count, gpuh_dtype dtype, gpuh_red_op op,
                                                       int root)
{
    cudaError_t err = gpuh_impl_set_check(fn, set);
    int i;
    if (err != cudaSuccess || (err = gpuh_impl_collective_args(fn, dtype, op, count)) != cudaSuccess)
        return err;
    if (set->comm[0] == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the set has no communicators (call gpuh_devices_init_nccl)",
                              fn);
    if (kind == GPUH_IMPL_BROADCAST && (root < 0 || root >= set->count))
        return gpuh_fail(cudaErrorInvalidValue, "%s: root %d is out of range (%d devices)", fn, root,
                              set->count);
    if (send == NULL || recv == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the %s array is NULL", fn, send == NULL ? "send" : "recv");
    for (i = 0; i < set->count && count > 0; ++i)
        if ((send[i] == NULL && (kind != GPUH_IMPL_BROADCAST || i == root)) || recv[i] == NULL)
            return gpuh_fail(cudaErrorInvalidValue, "%s: %s[%d] (device %d) is NULL", fn,
                                  recv[i] == NULL ? "recv" : "send", i, set->id[i]);
#ifdef GPUH_USE_NCCL
    {
        int prev = 0;
        cudaGetDevice(&prev);
        err = gpuh_impl_nccl(fn, "ncclGroupStart", ncclGroupStart(), NULL, set->id[0]);
        for (i = 0; i < set->count && err == cudaSuccess; ++i) {
            err = cudaSetDevice(set->id[i]);
            if (err == cudaSuccess)
                err = gpuh_impl_collective_call(fn, kind, set->comm[i], set->id[i], send[i], recv[i], count, dtype, op,
                                                root, set->stream[i]);
        }
        if (err == cudaSuccess)
            err = gpuh_impl_nccl(fn, "ncclGroupEnd", ncclGroupEnd(), NULL, set->id[0]);
        else
            ncclGroupEnd(); /* the group must close; the first error is the one to report */
        cudaSetDevice(prev);
    }
#endif
    return err;
}

/* gpuh_impl_set_collective: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_set_collective(const char *fn, int kind, const gpuh_devices *set, void *const *send,
                                              void *const *recv, size_t count, gpuh_dtype dtype, gpuh_red_op op,
                                              int root)
{
    cudaError_t err;
    gpuh_nvtx_push(fn);
    err = gpuh_impl_set_collective_unranged(fn, kind, set, send, recv, count, dtype, op, root);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_all_reduce(set, send, recv, count, dtype, op): every device's
   recv[i] (count elements) := op over all devices of send[j] (count
   elements), element by element; send[i] == recv[i] works in place. Enqueued
   on the set's streams. Errors: see "Collectives" above; cudaErrorInvalidValue
   (NULL buffers, an unknown dtype or op, no communicators). Idea:
   ncclAllReduce, MPI_Allreduce. */
GPUH_DEF cudaError_t gpuh_all_reduce(const gpuh_devices *set, void *const *send, void *const *recv, size_t count,
                                     gpuh_dtype dtype, gpuh_red_op op)
{
    return gpuh_impl_set_collective("gpuh_all_reduce", GPUH_IMPL_ALL_REDUCE, set, send, recv, count, dtype, op, 0);
}

/* gpuh_broadcast(set, send, recv, count, dtype, root): every device's
   recv[i] := send[root] (count elements; root is an index in the set; only
   send[root] is read, the others may be NULL). Errors: as gpuh_all_reduce;
   a root out of range. Idea: ncclBroadcast. */
GPUH_DEF cudaError_t gpuh_broadcast(const gpuh_devices *set, void *const *send, void *const *recv, size_t count,
                                    gpuh_dtype dtype, int root)
{
    return gpuh_impl_set_collective("gpuh_broadcast", GPUH_IMPL_BROADCAST, set, send, recv, count, dtype, GPUH_SUM,
                                    root);
}

/* gpuh_all_gather(set, send, recv, count, dtype): every device's recv[i]
   (count × set->count elements) := send[0], send[1], ... (count elements
   each) end to end, in the set's order. In place when send[i] is
   recv[i] + i·count. Errors: as gpuh_all_reduce. Idea: ncclAllGather. */
GPUH_DEF cudaError_t gpuh_all_gather(const gpuh_devices *set, void *const *send, void *const *recv, size_t count,
                                     gpuh_dtype dtype)
{
    return gpuh_impl_set_collective("gpuh_all_gather", GPUH_IMPL_ALL_GATHER, set, send, recv, count, dtype,
                                    GPUH_SUM, 0);
}

/* gpuh_nccl_id_create(&id): a new unique id, made by one rank (rank 0) and
   handed to all the others before gpuh_comm_init (ncclGetUniqueId). Errors:
   cudaErrorInvalidValue (id NULL), cudaErrorNotSupported (no NCCL), NCCL's. */
GPUH_DEF cudaError_t gpuh_nccl_id_create(gpuh_nccl_id *id)
{
    if (id == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_nccl_id_create: id is NULL");
    memset(id, 0, sizeof *id);
#ifdef GPUH_USE_NCCL
    {
        ncclUniqueId u;
        cudaError_t err = gpuh_impl_nccl("gpuh_nccl_id_create", "ncclGetUniqueId", ncclGetUniqueId(&u), NULL, -1);
        memcpy(id->bytes, &u, sizeof u < sizeof id->bytes ? sizeof u : sizeof id->bytes);
        return err;
    }
#else
    return gpuh_impl_no_nccl("gpuh_nccl_id_create");
#endif
}

/* gpuh_nccl_id_write(&id, file) / gpuh_nccl_id_read(&id, file): the id as
   one line of 256 hexadecimal digits, so that a file, a pipe or any text
   channel carries it (need no NCCL). read waits for the line as fgets does.
   Errors: cudaErrorInvalidValue (NULL arguments, a short or malformed line,
   a failed write, saying which). */
GPUH_DEF cudaError_t gpuh_nccl_id_write(const gpuh_nccl_id *id, FILE *file)
{
    size_t i;
    if (id == NULL || file == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_nccl_id_write: %s is NULL", id == NULL ? "id" : "file");
    for (i = 0; i < sizeof id->bytes; ++i)
        fprintf(file, "%02x", id->bytes[i]);
    if (fputc('\n', file) == EOF || fflush(file) != 0)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_nccl_id_write: the write failed");
    return cudaSuccess;
}
GPUH_DEF cudaError_t gpuh_nccl_id_read(gpuh_nccl_id *id, FILE *file)
{
    char line[2 * sizeof id->bytes + 8];
    size_t i;
    if (id == NULL || file == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_nccl_id_read: %s is NULL", id == NULL ? "id" : "file");
    if (fgets(line, sizeof line, file) == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_nccl_id_read: end of input before the id");
    for (i = 0; i < sizeof id->bytes; ++i) {
        unsigned v = 0;
        int k;
        for (k = 0; k < 2; ++k) {
            const char c = line[2 * i + (size_t)k];
            const int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
            if (d < 0)
                return gpuh_fail(cudaErrorInvalidValue,
                                      "gpuh_nccl_id_read: character %zu is not a hexadecimal digit (want 256)",
                                      2 * i + (size_t)k);
            v = v * 16u + (unsigned)d;
        }
        id->bytes[i] = (unsigned char)v;
    }
    return cudaSuccess;
}

/* gpuh_comm_init(&comm, &id, nranks, rank, device): this process's
   communicator, rank `rank` of `nranks`, on CUDA device `device` (made
   current for the call); every rank calls it with the same id, and it
   returns when all have joined (ncclCommInitRank). Errors:
   cudaErrorInvalidValue (NULL, rank outside 0 .. nranks-1), cudaErrorNotSupported
   (no NCCL), the device's, NCCL's. */
GPUH_DEF cudaError_t gpuh_comm_init(gpuh_comm *comm, const gpuh_nccl_id *id, int nranks, int rank, int device)
{
    cudaError_t err;
    int prev = 0;
    if (comm == NULL || id == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_comm_init: %s is NULL", comm == NULL ? "comm" : "id");
    memset(comm, 0, sizeof *comm);
    if (nranks < 1 || rank < 0 || rank >= nranks)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_comm_init: rank %d of %d ranks", rank, nranks);
    if (!gpuh_nccl_available(NULL))
        return gpuh_impl_no_nccl("gpuh_comm_init");
    cudaGetDevice(&prev);
    if ((err = cudaSetDevice(device)) != cudaSuccess)
        return gpuh_fail(err, "gpuh_comm_init: device %d: %s", device, cudaGetErrorString(err));
#ifdef GPUH_USE_NCCL
    {
        ncclUniqueId u;
        ncclComm_t c = NULL;
        memcpy(&u, id->bytes, sizeof u < sizeof id->bytes ? sizeof u : sizeof id->bytes);
        err = gpuh_impl_nccl("gpuh_comm_init", "ncclCommInitRank", ncclCommInitRank(&c, nranks, u, rank), NULL, device);
        memcpy(&comm->nccl, &c, sizeof c);
    }
#endif
    if (err == cudaSuccess) {
        comm->rank = rank;
        comm->nranks = nranks;
        comm->device = device;
    }
    cudaSetDevice(prev);
    return err;
}

/* gpuh_comm_destroy: releases the communicator (waits for its pending
   work); NULL or an empty one is a no-op. Errors: NCCL's. */
GPUH_DEF cudaError_t gpuh_comm_destroy(gpuh_comm *comm)
{
    cudaError_t err;
    if (comm == NULL || comm->nccl == NULL)
        return cudaSuccess;
    err = gpuh_impl_comm_destroy(comm->nccl);
    memset(comm, 0, sizeof *comm);
    return err;
}

GPUH_DEF cudaError_t gpuh_impl_comm_collective_unranged(const char *fn, int kind, const gpuh_comm *comm, const void *send,
                                                        void *recv, size_t count, gpuh_dtype dtype, gpuh_red_op op, int root,
                                                        cudaStream_t stream)
{
    cudaError_t err = gpuh_impl_collective_args(fn, dtype, op, count);
    if (err != cudaSuccess)
        return err;
    if (comm == NULL || comm->nccl == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the communicator is %s", fn,
                              comm == NULL ? "NULL" : "not initialised (gpuh_comm_init)");
    if (kind == GPUH_IMPL_BROADCAST && (root < 0 || root >= comm->nranks))
        return gpuh_fail(cudaErrorInvalidValue, "%s: root %d is out of range (%d ranks)", fn, root,
                              comm->nranks);
    if (count > 0 && (recv == NULL || (send == NULL && (kind != GPUH_IMPL_BROADCAST || comm->rank == root))))
        return gpuh_fail(cudaErrorInvalidValue, "%s: rank %d: the %s buffer is NULL", fn, comm->rank,
                              recv == NULL ? "recv" : "send");
#ifdef GPUH_USE_NCCL
    {
        int prev = 0;
        cudaGetDevice(&prev);
        if ((err = cudaSetDevice(comm->device)) == cudaSuccess)
            err = gpuh_impl_collective_call(fn, kind, comm->nccl, comm->device, send, recv, count, dtype, op, root,
                                            stream);
        cudaSetDevice(prev);
    }
#else
    (void)stream;
#endif
    return err;
}

/* gpuh_impl_comm_collective: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_comm_collective(const char *fn, int kind, const gpuh_comm *comm, const void *send,
                                               void *recv, size_t count, gpuh_dtype dtype, gpuh_red_op op, int root,
                                               cudaStream_t stream)
{
    cudaError_t err;
    gpuh_nvtx_push(fn);
    err = gpuh_impl_comm_collective_unranged(fn, kind, comm, send, recv, count, dtype, op, root, stream);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_comm_all_reduce / gpuh_comm_broadcast / gpuh_comm_all_gather: this
   rank's part of the collective (every rank calls it, in the same order),
   enqueued on `stream` (a stream of comm->device). Shapes as gpuh_all_reduce,
   gpuh_broadcast (root is a rank) and gpuh_all_gather (recv holds count ×
   nranks elements). Errors: as those, naming the rank. Idea: ncclAllReduce,
   ncclBroadcast, ncclAllGather in one process per GPU. */
GPUH_DEF cudaError_t gpuh_comm_all_reduce(const gpuh_comm *comm, const void *send, void *recv, size_t count,
                                          gpuh_dtype dtype, gpuh_red_op op, cudaStream_t stream)
{
    return gpuh_impl_comm_collective("gpuh_comm_all_reduce", GPUH_IMPL_ALL_REDUCE, comm, send, recv, count, dtype, op,
                                     0, stream);
}
GPUH_DEF cudaError_t gpuh_comm_broadcast(const gpuh_comm *comm, const void *send, void *recv, size_t count,
                                         gpuh_dtype dtype, int root, cudaStream_t stream)
{
    return gpuh_impl_comm_collective("gpuh_comm_broadcast", GPUH_IMPL_BROADCAST, comm, send, recv, count, dtype,
                                     GPUH_SUM, root, stream);
}
GPUH_DEF cudaError_t gpuh_comm_all_gather(const gpuh_comm *comm, const void *send, void *recv, size_t count,
                                          gpuh_dtype dtype, cudaStream_t stream)
{
    return gpuh_impl_comm_collective("gpuh_comm_all_gather", GPUH_IMPL_ALL_GATHER, comm, send, recv, count, dtype,
                                     GPUH_SUM, 0, stream);
}

/* ===========================================================================
   RANDOM INPUTS
   A seed (always), and with GPUH_USE_CURAND defined (link cuRAND) device
   arrays filled through cuRAND's host API with the Philox4x32-10 generator:
   the same seed gives the same numbers. The fill functions' errors:
   cudaErrorInvalidValue (NULL with n > 0), cudaErrorMemoryAllocation, else
   cudaErrorUnknown with the cuRAND status in gpuh_error_detail(). n = 0 is a no-op.
   =========================================================================== */

/* gpuh_random_seed: a seed for the gpuh_random_* generators below (needs no
   cuRAND): the environment variable GPUH_SEED if it is set (decimal, or 0x...
   hex; to repeat a run), else a fresh one from the clock. Never fails. Print
   it, so that a failing run can be repeated. Idea: the seed-from-environment
   habit of test harnesses (e.g. pytest-randomly's -p seed). */
GPUH_DEF unsigned long long gpuh_random_seed(void)
{
    const char *env = getenv("GPUH_SEED");
    unsigned long long t = time(NULL);
    if (env != NULL && *env != '\0')
        return strtoull(env, NULL, 0);
    return t * 1000003ull ^ clock();
}

#ifdef GPUH_USE_CURAND

GPUH_DEF cudaError_t gpuh_impl_curand(const char *fn, curandStatus_t st)
{
    if (st == CURAND_STATUS_SUCCESS)
        return cudaSuccess;
    if (st == CURAND_STATUS_ALLOCATION_FAILED)
        return gpuh_fail(cudaErrorMemoryAllocation, "%s: cuRAND could not allocate", fn);
    if (st == CURAND_STATUS_LAUNCH_FAILURE) {
        cudaError_t err = cudaGetLastError();
        return err != cudaSuccess ? err : gpuh_fail(cudaErrorLaunchFailure, "%s: cuRAND launch failed", fn);
    }
    return gpuh_fail(cudaErrorUnknown, "%s: cuRAND status %d", fn, st);
}

enum { GPUH_IMPL_UNIFORM, GPUH_IMPL_NORMAL, GPUH_IMPL_BITS };
#define GPUH_IMPL_RANDOM_PIECE 1073741824u /* 2^30: even, as normal variates need */

/* Fills len values at `at` from generator gen. */
GPUH_DEF curandStatus_t gpuh_impl_generate(curandGenerator_t gen, void *at, size_t len, size_t elem_size, int dist,
                                           double mean, double stddev)
{
    float *f, fmean = mean, fstddev = stddev;
    double *g;
    unsigned int *u;
    memcpy(&f, &at, sizeof at); /* the same address as each element type, without casts */
    memcpy(&g, &at, sizeof at);
    memcpy(&u, &at, sizeof at);
    if (dist == GPUH_IMPL_BITS)
        return curandGenerate(gen, u, len);
    if (dist == GPUH_IMPL_UNIFORM)
        return elem_size == 4 ? curandGenerateUniform(gen, f, len) : curandGenerateUniformDouble(gen, g, len);
    return elem_size == 4 ? curandGenerateNormal(gen, f, len, fmean, fstddev)
                          : curandGenerateNormalDouble(gen, g, len, mean, stddev);
}

/* One generator per call: creation costs ~0.1 ms, negligible for inputs.
   Normal variates come in pairs (Box-Muller), so for odd n the last one comes
   from a second, offset draw of two into a small scratch buffer. */
GPUH_DEF cudaError_t gpuh_impl_random_unranged(const char *fn, void *d, size_t n, size_t elem_size, int dist,
                                               double mean, double stddev, unsigned long long seed, cudaStream_t stream)
{
    curandGenerator_t gen;
    curandStatus_t st;
    cudaError_t err = cudaSuccess;
    const size_t len = dist == GPUH_IMPL_NORMAL ? n / 2 * 2 : n;
    size_t done, piece = 0;
    void *scratch = NULL;
    unsigned char *bytes; /* d, addressed in bytes */
    if (n == 0)
        return cudaSuccess;
    if (d == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "%s: the device array is NULL (n %zu)", fn, n);
    memcpy(&bytes, &d, sizeof d);
    if (len < n && (err = cudaMalloc(&scratch, 2 * elem_size)) != cudaSuccess)
        return err;
    st = curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    if (st != CURAND_STATUS_SUCCESS) {
        cudaFree(scratch);
        return gpuh_impl_curand(fn, st);
    }
    st = curandSetPseudoRandomGeneratorSeed(gen, seed);
    if (st == CURAND_STATUS_SUCCESS)
        st = curandSetStream(gen, stream);
    /* In pieces of 2^30 elements, each at its own offset of the sequence: on
       the H200 with CUDA 13.0 one call for 2^31 + 17 uniform floats returned
       success but left the array unwritten. */
    for (done = 0; st == CURAND_STATUS_SUCCESS && done < len; done += piece) {
        piece = len - done < GPUH_IMPL_RANDOM_PIECE ? len - done : GPUH_IMPL_RANDOM_PIECE;
        st = curandSetGeneratorOffset(gen, done);
        if (st == CURAND_STATUS_SUCCESS)
            st = gpuh_impl_generate(gen, bytes + done * elem_size, piece, elem_size, dist, mean, stddev);
    }
    if (st == CURAND_STATUS_SUCCESS && scratch != NULL) {
        unsigned char *last = bytes + (n - 1) * elem_size;
        st = curandSetGeneratorOffset(gen, n); /* past every number used so far */
        if (st == CURAND_STATUS_SUCCESS)
            st = gpuh_impl_generate(gen, scratch, 2, elem_size, dist, mean, stddev);
        if (st == CURAND_STATUS_SUCCESS)
            err = cudaMemcpyAsync(last, scratch, elem_size, cudaMemcpyDeviceToDevice, stream);
        if (err == cudaSuccess && st == CURAND_STATUS_SUCCESS)
            err = cudaStreamSynchronize(stream); /* scratch is freed next */
    }
    curandDestroyGenerator(gen);
    cudaFree(scratch);
    return err != cudaSuccess ? err : gpuh_impl_curand(fn, st);
}

/* gpuh_impl_random: the call above in an NVTX range (NVTX RANGES). */
GPUH_DEF cudaError_t gpuh_impl_random(const char *fn, void *d, size_t n, size_t elem_size, int dist,
                                      double mean, double stddev, unsigned long long seed, cudaStream_t stream)
{
    cudaError_t err;
    gpuh_nvtx_push(fn);
    err = gpuh_impl_random_unranged(fn, d, n, elem_size, dist, mean, stddev, seed, stream);
    gpuh_nvtx_pop();
    return err;
}

/* gpuh_random_uniform_f32 / _f64: n uniform values in (0, 1] into d. */
GPUH_DEF cudaError_t gpuh_random_uniform_f32(float *d, size_t n, unsigned long long seed, cudaStream_t stream)
{
    return gpuh_impl_random("gpuh_random_uniform_f32", d, n, 4, GPUH_IMPL_UNIFORM, 0, 0, seed, stream);
}
GPUH_DEF cudaError_t gpuh_random_uniform_f64(double *d, size_t n, unsigned long long seed, cudaStream_t stream)
{
    return gpuh_impl_random("gpuh_random_uniform_f64", d, n, 8, GPUH_IMPL_UNIFORM, 0, 0, seed, stream);
}
/* gpuh_random_normal_f32 / _f64: n normal values N(mean, stddev²) into d. */
GPUH_DEF cudaError_t gpuh_random_normal_f32(float *d, size_t n, float mean, float stddev,
                                            unsigned long long seed, cudaStream_t stream)
{
    return gpuh_impl_random("gpuh_random_normal_f32", d, n, 4, GPUH_IMPL_NORMAL, mean, stddev, seed, stream);
}
GPUH_DEF cudaError_t gpuh_random_normal_f64(double *d, size_t n, double mean, double stddev,
                                            unsigned long long seed, cudaStream_t stream)
{
    return gpuh_impl_random("gpuh_random_normal_f64", d, n, 8, GPUH_IMPL_NORMAL, mean, stddev, seed, stream);
}
/* gpuh_random_u32: n words of 32 random bits into d (reinterpret for int32). */
GPUH_DEF cudaError_t gpuh_random_u32(unsigned int *d, size_t n, unsigned long long seed, cudaStream_t stream)
{
    return gpuh_impl_random("gpuh_random_u32", d, n, 4, GPUH_IMPL_BITS, 0, 0, seed, stream);
}

#endif /* GPUH_USE_CURAND */

#ifndef GPUH_SIM
/* The address of the driver's `symbol` (as of CUDA `version`) into *fn
   (a function pointer's address), or an error (cudaErrorSymbolNotFound, or
   the runtime's): the driver API's calls come through cudart, so nothing
   beyond it is linked. Used by the run-time compilation below and by
   gpuh_kernels.cuh (TMA's tensor maps, the context's ID). */
GPUH_DEF cudaError_t gpuh_impl_cu_entry(const char *symbol, unsigned version, void *fn)
{
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, version, cudaEnableDefault, &found);
    if (err == cudaSuccess && (found != cudaDriverEntryPointSuccess || p == NULL))
        err = cudaErrorSymbolNotFound;
    memcpy(fn, &p, sizeof p); /* a function's address from a void *, without a cast */
    return err;
}
#endif

/* ===========================================================================
   RUN-TIME COMPILATION (GPUH_USE_NVRTC)
   Kernels compiled from a source string while the program runs, as PyCUDA's
   SourceModule / get_function and CuPy's RawKernel / RawModule do: NVRTC
   compiles, the driver API loads and launches. The driver's functions come
   through cudart's cudaGetDriverEntryPointByVersion, so a program links
   NVRTC and cudart (CMake: gpuh::nvrtc) and no libcuda: without a driver it
   starts and gets an error, as cudart's calls do. On the simulator the same
   calls compile the source with tools/gpuh-simcc into a shared object and
   load it (sim/include/gpuh_sim_nvrtc.h): the checks, names and caches
   below are the same on both.
   =========================================================================== */
#ifdef GPUH_USE_NVRTC

/* GPUH_MODULE_MAX_ARGS: the most arguments a gpuh_module_launch passes. */
#define GPUH_MODULE_MAX_ARGS 64
#define GPUH_MODULE_MAX_NAMES 64    /* most name expressions of one module */
#define GPUH_MODULE_NAME_BYTES 128  /* a gpuh_kernel's name, its zero included */
#ifndef GPUH_MODULE_CACHE_CAPACITY
#define GPUH_MODULE_CACHE_CAPACITY 64 /* compiled images kept in memory (the oldest goes first) */
#endif

/* gpuh_module_desc: what gpuh_module_compile compiles. Zero-initialise it
   and set source; every other field has a default. */
typedef struct gpuh_module_desc {
    const char *source;                  /* CUDA C++ source, zero-terminated (required) */
    const char *name;                    /* its file name in the compile log; NULL: "gpuh_module.cu" */
    const char *const *options;          /* NVRTC options: "-DN=1024", "-I<dir>", "-std=c++17",
                                            "--use_fast_math", "-arch=sm_90" (default: the
                                            current device's real architecture) */
    int num_options;
    const char *const *name_expressions; /* kernels to find by a C++ name: "scale<float>", "ns::k" */
    int num_name_expressions;            /* at most GPUH_MODULE_MAX_NAMES */
    int extern_c;                        /* 1: wrap the source in extern "C" { } (PyCUDA's default),
                                            so kernels are found by their plain names; no templates */
} gpuh_module_desc;

/* gpuh_module: a compiled, loaded module (opaque: use the functions below). */
typedef struct gpuh_module {
    void *handle;     /* the CUmodule (on the simulator, the loaded library) */
    int device;       /* the device it was loaded for */
    unsigned long long key;
    char *names;      /* num_names pairs "expression\0lowered name\0" */
    int num_names;
    char *log;        /* NVRTC's log of the compile ("" when the image came from the cache) */
} gpuh_module;

/* gpuh_kernel: one kernel of a module, as gpuh_module_function fills it. */
typedef struct gpuh_kernel {
    void *handle;                               /* the CUfunction (on the simulator, its launcher) */
    int device;
    int num_params;                             /* -1 where the driver cannot say */
    size_t param_bytes[GPUH_MODULE_MAX_ARGS];   /* each parameter's size in bytes */
    char name[GPUH_MODULE_NAME_BYTES];          /* as asked for (error reports, NVTX range) */
} gpuh_kernel;

/* gpuh_arg: one kernel argument: the address of its value and its size in
   bytes. GPUH_ARG(x) makes one from an lvalue, in an initialiser:
       gpuh_arg args[] = {GPUH_ARG(d_a), GPUH_ARG(d_b), GPUH_ARG(n)}; */
typedef struct gpuh_arg {
    const void *value;
    size_t bytes;
} gpuh_arg;
#define GPUH_ARG(x) {&(x), sizeof(x)}

/* gpuh_module_compile(&module, &desc): compiles desc->source with NVRTC for
   the current device (or desc's -arch), loads it and returns it in *module
   (NULL on error). The compiled image is cached in memory by a 64-bit hash
   of the source, options, name expressions, extern_c and the architecture,
   and, where the environment variable GPUH_MODULE_CACHE_DIR names a folder,
   on disk there (files gpuh-module-<hash>.bin), so a second compile of the
   same program, in this process or a later one, loads without NVRTC.
   Errors: cudaErrorInvalidValue (module, desc or source NULL, a negative or
   missing list, more than GPUH_MODULE_MAX_NAMES names, an option NVRTC
   refuses, a name expression that names nothing), cudaErrorInvalidSource
   (the source did not compile: the detail has NVRTC's log from its start,
   file(line): error: ...), the runtime's and the driver's (no device, an
   image the device cannot run). Idea: PyCUDA's SourceModule, CuPy's
   RawModule (name_expressions) and their caches; NVRTC's guide.
   On the simulator tools/gpuh-simcc and the host C++ compiler compile the
   source into a shared object that is loaded into the program (see NOTES:
   it needs python3 and a C++ compiler on PATH, and a program linked with
   -rdynamic); the compiler's messages are the log, as file(line): error:
   ...; -D, -U, -I, -std and -w are used, the GPU's code generation options
   (-arch, --use_fast_math, -lineinfo, ...) accepted and left unused.
   Errors there besides the above: cudaErrorNotSupported (no python3, no
   C++ compiler or no gpuh-simcc where it looks; a program that does not
   export the simulator's runtime). */
GPUH_DEF cudaError_t gpuh_module_compile(gpuh_module **module, const gpuh_module_desc *desc);

/* gpuh_source_module(&module, source, options, num_options): PyCUDA's
   SourceModule(source, options): gpuh_module_compile with the source
   wrapped in extern "C" { }, so that gpuh_module_function finds "add" by
   its name. options may be NULL when num_options is 0. */
GPUH_DEF cudaError_t gpuh_source_module(gpuh_module **module, const char *source, const char *const *options,
                                        int num_options);

/* gpuh_module_function(module, name, &kernel): finds the kernel `name` (an
   extern "C" name, or one of the module's name expressions) and fills
   *kernel, with its parameters' sizes where the driver reports them.
   Errors: cudaErrorInvalidValue (a NULL argument, a name longer than
   GPUH_MODULE_NAME_BYTES - 1), cudaErrorSymbolNotFound (no such kernel: the
   detail says how kernels are named). Idea: PyCUDA's get_function. */
GPUH_DEF cudaError_t gpuh_module_function(const gpuh_module *module, const char *name, gpuh_kernel *kernel);

/* gpuh_module_launch(&kernel, grid, block, shmem_bytes, stream, args,
   num_args): launches the kernel on grid x block threads with shmem_bytes
   of dynamic shared memory on stream, args[i] its i-th argument, checked
   against the kernel's parameters: their number and each one's size (an
   int passed where a size_t belongs is refused, not read past). Records the
   launch for error reports as GPUH_LAUNCH does and returns the launch's
   error. Errors: cudaErrorInvalidValue (a NULL kernel or argument, a count
   or a size that differ from the kernel's, the current device is not the
   kernel's), cudaErrorInvalidConfiguration (grid or block beyond CUDA's
   limits), the driver's. Idea: PyCUDA's function call with block= and
   grid=, CuPy's RawKernel call; cuLaunchKernel. */
#define gpuh_module_launch(kernel, grid, block, shmem_bytes, stream, args, num_args) \
    gpuh_impl_module_launch((kernel), (grid), (block), (shmem_bytes), (stream), (args), (num_args), __FILE__, __LINE__)
GPUH_DEF cudaError_t gpuh_impl_module_launch(const gpuh_kernel *kernel, dim3 grid, dim3 block, size_t shmem_bytes,
                                             cudaStream_t stream, const gpuh_arg *args, int num_args,
                                             const char *file, int line);

/* gpuh_module_log(module): NVRTC's log of the module's compile (warnings),
   "" if there was none or the image came from a cache (const char *). */
GPUH_DEF const char *gpuh_module_log(const gpuh_module *module)
{
    return module != NULL && module->log != NULL ? module->log : "";
}

/* gpuh_module_destroy(&module): unloads the module and frees it; sets
   *module to NULL; NULL or *module NULL is a no-op. Kernels found in it
   must not be launched afterwards. (On the simulator the shared object's
   code stays mapped until the process ends: its kernels stay registered
   with the simulator by address, and no later object takes that address.) */
GPUH_DEF cudaError_t gpuh_module_destroy(gpuh_module **module);

/* ---- implementation: the checks, the key, the caches ---- */

/* A copy of n bytes of s, zero-terminated, or NULL when out of memory. */
GPUH_DEF char *gpuh_impl_copy_bytes(const void *s, size_t n)
{
    void *m = malloc(n + 1);
    char *c = NULL;
    if (m == NULL)
        return NULL;
    memcpy(&c, &m, sizeof m);
    if (n > 0)
        memcpy(c, s, n);
    c[n] = '\0';
    return c;
}

/* n + 1 zero bytes (room for n characters and their zero), or NULL. */
GPUH_DEF char *gpuh_impl_new_chars(size_t n)
{
    void *m = calloc(n + 1, 1);
    char *c = NULL;
    memcpy(&c, &m, sizeof m);
    return c;
}

/* FNV-1a, 64 bits, over n bytes, from h. */
GPUH_DEF unsigned long long gpuh_impl_fnv1a(unsigned long long h, const void *p, size_t n)
{
    const unsigned char *b;
    size_t i;
    memcpy(&b, &p, sizeof b);
    for (i = 0; i < n; ++i) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

GPUH_DEF unsigned long long gpuh_impl_fnv1a_str(unsigned long long h, const char *s)
{
    return gpuh_impl_fnv1a(h, s, strlen(s) + 1); /* the zero keeps "ab","c" apart from "a","bc" */
}

/* gpuh_module_compile's argument checks. */
GPUH_DEF cudaError_t gpuh_impl_module_desc_check(gpuh_module **module, const gpuh_module_desc *desc)
{
    int i;
    if (module == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: module (the output) is NULL");
    *module = NULL;
    if (desc == NULL || desc->source == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: %s is NULL",
                         desc == NULL ? "desc" : "desc->source");
    if (desc->num_options < 0 || (desc->num_options > 0 && desc->options == NULL))
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: desc->num_options is %d and options is %s",
                         desc->num_options, desc->options == NULL ? "NULL" : "set");
    if (desc->num_name_expressions < 0 || desc->num_name_expressions > GPUH_MODULE_MAX_NAMES ||
        (desc->num_name_expressions > 0 && desc->name_expressions == NULL))
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_module_compile: desc->num_name_expressions is %d (0 to %d, with name_expressions set)",
                         desc->num_name_expressions, GPUH_MODULE_MAX_NAMES);
    for (i = 0; i < desc->num_options; ++i)
        if (desc->options[i] == NULL)
            return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: desc->options[%d] is NULL", i);
    for (i = 0; i < desc->num_name_expressions; ++i)
        if (desc->name_expressions[i] == NULL)
            return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: desc->name_expressions[%d] is NULL", i);
    return cudaSuccess;
}

/* The cache key of a compile for `arch` (e.g. "sm_90"). */
GPUH_DEF unsigned long long gpuh_impl_module_key(const gpuh_module_desc *desc, const char *arch)
{
    unsigned long long h = 14695981039346656037ULL;
    int i;
    h = gpuh_impl_fnv1a_str(h, desc->source);
    for (i = 0; i < desc->num_options; ++i)
        h = gpuh_impl_fnv1a_str(h, desc->options[i]);
    h = gpuh_impl_fnv1a_str(h, "\001names");
    for (i = 0; i < desc->num_name_expressions; ++i)
        h = gpuh_impl_fnv1a_str(h, desc->name_expressions[i]);
    h = gpuh_impl_fnv1a_str(h, desc->extern_c ? "\001extern C" : "\001C++");
    return gpuh_impl_fnv1a_str(h, arch);
}

/* 1 if one of the options names an architecture itself. */
GPUH_DEF int gpuh_impl_module_has_arch(const gpuh_module_desc *desc)
{
    int i;
    for (i = 0; i < desc->num_options; ++i)
        if (strncmp(desc->options[i], "-arch", 5) == 0 || strncmp(desc->options[i], "--gpu-architecture", 18) == 0)
            return 1;
    return 0;
}

/* The source as compiled: wrapped in extern "C" { } when desc asks. */
GPUH_DEF char *gpuh_impl_module_source(const gpuh_module_desc *desc)
{
    static const char head[] = "extern \"C\" {\n", tail[] = "\n}\n";
    const size_t n = strlen(desc->source);
    char *s;
    if (!desc->extern_c)
        return gpuh_impl_copy_bytes(desc->source, n);
    s = gpuh_impl_new_chars(sizeof head - 1 + n + sizeof tail - 1);
    if (s != NULL) {
        memcpy(s, head, sizeof head - 1);
        memcpy(s + sizeof head - 1, desc->source, n);
        memcpy(s + sizeof head - 1 + n, tail, sizeof tail);
    }
    return s;
}

/* The lowered name of `name` among the module's name expressions, or name. */
GPUH_DEF const char *gpuh_impl_module_lowered(const gpuh_module *m, const char *name)
{
    const char *p = m->names;
    int i;
    for (i = 0; p != NULL && i < m->num_names; ++i) {
        const char *lowered = p + strlen(p) + 1;
        if (strcmp(p, name) == 0)
            return lowered;
        p = lowered + strlen(lowered) + 1;
    }
    return name;
}

/* gpuh_module_function's and the launch's argument checks. */
GPUH_DEF cudaError_t gpuh_impl_module_function_check(const gpuh_module *module, const char *name, gpuh_kernel *kernel)
{
    if (module == NULL || name == NULL || kernel == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_function: %s is NULL",
                         module == NULL ? "module" : name == NULL ? "name" : "kernel (the output)");
    memset(kernel, 0, sizeof *kernel);
    if (strlen(name) >= GPUH_MODULE_NAME_BYTES)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_function: the name is %zu characters (at most %d)",
                         strlen(name), GPUH_MODULE_NAME_BYTES - 1);
    memcpy(kernel->name, name, strlen(name) + 1);
    kernel->device = module->device;
    kernel->num_params = -1;
    return cudaSuccess;
}

GPUH_DEF cudaError_t gpuh_impl_module_not_found(const gpuh_module *module, const char *name)
{
    return gpuh_fail(cudaErrorSymbolNotFound,
                     "gpuh_module_function: no kernel \"%s\" in the module: a kernel is found by its extern \"C\" "
                     "name (gpuh_source_module and desc.extern_c wrap the source in extern \"C\") or by one of "
                     "the module's name expressions (%d given)",
                     name, module->num_names);
}

GPUH_DEF cudaError_t gpuh_impl_module_args_check(const gpuh_kernel *k, const gpuh_arg *args, int num_args,
                                                 const char *file, int line)
{
    int i;
    if (k == NULL || k->handle == NULL)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_launch at %s:%d: the kernel is %s", file, line,
                         k == NULL ? "NULL" : "not filled in (gpuh_module_function)");
    if (num_args < 0 || num_args > GPUH_MODULE_MAX_ARGS || (num_args > 0 && args == NULL))
        return gpuh_fail(cudaErrorInvalidValue,
                         "gpuh_module_launch of %s at %s:%d: num_args is %d (0 to %d) and args is %s", k->name,
                         file, line, num_args, GPUH_MODULE_MAX_ARGS, args == NULL ? "NULL" : "set");
    if (k->num_params >= 0 && num_args != k->num_params)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_launch of %s at %s:%d: %d arguments given, the kernel "
                                                "takes %d",
                         k->name, file, line, num_args, k->num_params);
    for (i = 0; i < num_args; ++i) {
        if (args[i].value == NULL)
            return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_launch of %s at %s:%d: args[%d].value is NULL",
                             k->name, file, line, i);
        if (k->num_params >= 0 && args[i].bytes != k->param_bytes[i])
            return gpuh_fail(cudaErrorInvalidValue,
                             "gpuh_module_launch of %s at %s:%d: argument %d is %zu bytes but the kernel's "
                             "parameter %d is %zu bytes (an int where a size_t or a pointer belongs?)",
                             k->name, file, line, i, args[i].bytes, i, k->param_bytes[i]);
    }
    return cudaSuccess;
}

/* Per host thread: the name of the last kernel gpuh_module_launch launched. */
GPUH_IMPL_SHARED GPUH_IMPL_THREAD_LOCAL char gpuh_impl_module_launch_name_v[GPUH_MODULE_NAME_BYTES];

GPUH_DEF gpuh_impl_dims gpuh_impl_dims_from(dim3 d)
{
    gpuh_impl_dims r;
    r.x = d.x;
    r.y = d.y;
    r.z = d.z;
    return r;
}

/* The in-memory cache: images by key, under the ledger's lock. */
typedef struct gpuh_impl_module_image {
    unsigned long long key;
    char *image, *names; /* the image; the name pairs as gpuh_module keeps them */
    size_t bytes, names_bytes;
    int num_names;
} gpuh_impl_module_image;
GPUH_IMPL_SHARED gpuh_impl_module_image gpuh_impl_module_cache_v[GPUH_MODULE_CACHE_CAPACITY];
GPUH_IMPL_SHARED size_t gpuh_impl_module_cache_next_v;

/* Copies of the cached image of `key` into *img (1), or 0 if none. */
GPUH_DEF int gpuh_impl_module_cache_get(unsigned long long key, gpuh_impl_module_image *img)
{
    size_t i;
    int found = 0;
    GPUH_IMPL_LOCK();
    for (i = 0; i < GPUH_MODULE_CACHE_CAPACITY && !found; ++i) {
        const gpuh_impl_module_image *e = &gpuh_impl_module_cache_v[i];
        if (e->image != NULL && e->key == key) {
            *img = *e;
            img->image = gpuh_impl_copy_bytes(e->image, e->bytes);
            img->names = gpuh_impl_copy_bytes(e->names, e->names_bytes);
            found = img->image != NULL && img->names != NULL;
            if (!found) {
                free(img->image);
                free(img->names);
            }
        }
    }
    GPUH_IMPL_UNLOCK();
    return found;
}

/* Keeps a copy of img, in place of the oldest when the cache is full. */
GPUH_DEF void gpuh_impl_module_cache_put(const gpuh_impl_module_image *img)
{
    gpuh_impl_module_image copy = *img;
    copy.image = gpuh_impl_copy_bytes(img->image, img->bytes);
    copy.names = gpuh_impl_copy_bytes(img->names, img->names_bytes);
    if (copy.image == NULL || copy.names == NULL) {
        free(copy.image);
        free(copy.names);
        return;
    }
    GPUH_IMPL_LOCK();
    {
        gpuh_impl_module_image *e = &gpuh_impl_module_cache_v[gpuh_impl_module_cache_next_v++ % GPUH_MODULE_CACHE_CAPACITY];
        free(e->image);
        free(e->names);
        *e = copy;
    }
    GPUH_IMPL_UNLOCK();
}

/* The disk cache's file for key in GPUH_MODULE_CACHE_DIR, or 0 when the
   variable is unset or empty. Format: "gpuh-module 1\n", the key, the
   name pairs' count and bytes, the image's bytes (each a %llu line), then
   the name pairs and the image. */
GPUH_DEF int gpuh_impl_module_cache_path(unsigned long long key, char *path, size_t size)
{
    const char *dir = getenv("GPUH_MODULE_CACHE_DIR");
    if (dir == NULL || dir[0] == '\0')
        return 0;
    {
        const int n = snprintf(path, size, "%s/gpuh-module-%016llx.bin", dir, key);
        size_t written;
        if (n < 0)
            return 0;
        written = n;
        return written < size;
    }
}

GPUH_DEF int gpuh_impl_module_disk_get(unsigned long long key, gpuh_impl_module_image *img)
{
    char path[4096];
    unsigned long long k = 0;
    int num = 0;
    size_t nb = 0, b = 0;
    FILE *f;
    int ok = 0;
    if (!gpuh_impl_module_cache_path(key, path, sizeof path) || (f = fopen(path, "rb")) == NULL)
        return 0;
    if (fscanf(f, "gpuh-module 1\n%llu\n%d\n%zu\n%zu\n", &k, &num, &nb, &b) == 4 && k == key && num >= 0 &&
        num <= GPUH_MODULE_MAX_NAMES && nb < 1073741824u && b < 2147483648u) {
        img->key = key;
        img->num_names = 0;
        img->names_bytes = nb;
        img->bytes = b;
        img->names = gpuh_impl_new_chars(nb);
        img->image = gpuh_impl_new_chars(b);
        ok = img->names != NULL && img->image != NULL && fread(img->names, 1, nb, f) == nb &&
             fread(img->image, 1, b, f) == b;
        if (ok)
            img->num_names = num;
        else {
            free(img->names);
            free(img->image);
        }
    }
    fclose(f);
    return ok;
}

/* Writes img to the disk cache (a temporary file renamed into place, so a
   reader never sees half a file); quietly nothing where it cannot. */
GPUH_DEF void gpuh_impl_module_disk_put(const gpuh_impl_module_image *img)
{
    char path[4096], tmp[4160];
    FILE *f;
    int ok;
    if (!gpuh_impl_module_cache_path(img->key, path, sizeof path))
        return;
    void *self = &f;     /* with the clock, a name no other writer uses at the same time */
    const double ticks = clock();
    snprintf(tmp, sizeof tmp, "%s.%p.%.0f.tmp", path, self, ticks);
    if ((f = fopen(tmp, "wb")) == NULL)
        return;
    ok = fprintf(f, "gpuh-module 1\n%llu\n%d\n%zu\n%zu\n", img->key, img->num_names, img->names_bytes,
                 img->bytes) > 0 &&
         fwrite(img->names, 1, img->names_bytes, f) == img->names_bytes &&
         fwrite(img->image, 1, img->bytes, f) == img->bytes;
    ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
        remove(tmp);
}

/* Compiles desc into *img (image and name pairs) and *log: NVRTC for
   arch_option (NULL: desc's own -arch), or on the simulator gpuh-simcc. */
GPUH_DEF cudaError_t gpuh_impl_module_build(const gpuh_module_desc *desc, const char *arch_option,
                                            gpuh_impl_module_image *img, char **log);

/* The image of desc for `arch` into *img, and the compile's log into *log
   (NULL when the image came from a cache): from the in-memory cache, else
   the disk cache, else compiled and kept in both. */
GPUH_DEF cudaError_t gpuh_impl_module_image_get(const gpuh_module_desc *desc, const char *arch,
                                                const char *arch_option, gpuh_impl_module_image *img, char **log)
{
    cudaError_t err;
    *log = NULL;
    memset(img, 0, sizeof *img);
    img->key = gpuh_impl_module_key(desc, arch);
    if (gpuh_impl_module_cache_get(img->key, img))
        return cudaSuccess;
    if (gpuh_impl_module_disk_get(img->key, img)) {
        gpuh_impl_module_cache_put(img);
        return cudaSuccess;
    }
    err = gpuh_impl_module_build(desc, arch_option, img, log);
    if (err != cudaSuccess) {
        free(*log);
        *log = NULL;
        return err;
    }
    gpuh_impl_module_cache_put(img);
    gpuh_impl_module_disk_put(img);
    return cudaSuccess;
}

/* A new module in *module for the loaded `handle`, taking img's names and
   log (freed here on error, when the caller unloads handle). */
GPUH_DEF cudaError_t gpuh_impl_module_new(gpuh_module **module, void *handle, int device,
                                          const gpuh_impl_module_image *img, char *log)
{
    void *mem = calloc(1, sizeof **module);
    gpuh_module *m = NULL;
    if (mem == NULL) {
        free(img->names);
        free(log);
        return gpuh_fail(cudaErrorMemoryAllocation, "gpuh_module_compile: no memory for the module");
    }
    memcpy(&m, &mem, sizeof mem);
    m->handle = handle;
    m->device = device;
    m->key = img->key;
    m->names = img->names;
    m->num_names = img->num_names;
    m->log = log;
    *module = m;
    return cudaSuccess;
}

/* What a launch checks after its arguments, then records (GPUH_LAUNCH's
   record: error reports name the kernel and the call site). */
GPUH_DEF cudaError_t gpuh_impl_module_launch_begin(const gpuh_kernel *kernel, dim3 grid, dim3 block,
                                                   size_t shmem_bytes, const char *file, int line)
{
    int dev = -1;
    if (cudaGetDevice(&dev) != cudaSuccess || dev != kernel->device)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_launch of %s at %s:%d: the current device is %d, the "
                                                "kernel's module was loaded on device %d",
                         kernel->name, file, line, dev, kernel->device);
    /* the launch record names the kernel by this thread's copy of its name,
       which outlives the caller's gpuh_kernel */
    memcpy(gpuh_impl_module_launch_name_v, kernel->name, sizeof gpuh_impl_module_launch_name_v);
    if (gpuh_impl_launch_begin(gpuh_impl_module_launch_name_v, gpuh_impl_dims_from(grid),
                               gpuh_impl_dims_from(block), shmem_bytes, file, line) != cudaSuccess)
        return cudaErrorInvalidConfiguration;
    return cudaSuccess;
}

#ifdef GPUH_SIM
#include "gpuh_sim_nvrtc.h" /* the compile, the load and the launch on the simulator */
#else

/* The driver API's calls gpuh_module makes, found once through cudart. */
typedef CUresult(CUDAAPI *gpuh_impl_cu_load_fn)(CUmodule *, const void *);
typedef CUresult(CUDAAPI *gpuh_impl_cu_get_function_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult(CUDAAPI *gpuh_impl_cu_unload_fn)(CUmodule);
typedef CUresult(CUDAAPI *gpuh_impl_cu_launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                                                  unsigned, unsigned, CUstream, void **, void **);
typedef CUresult(CUDAAPI *gpuh_impl_cu_param_info_fn)(CUfunction, size_t, size_t *, size_t *);
typedef CUresult(CUDAAPI *gpuh_impl_cu_error_name_fn)(CUresult, const char **);
typedef struct gpuh_impl_cu_api {
    int loaded; /* 0: not looked for; 1: every call found; -1: not available (err says why) */
    cudaError_t err;
    gpuh_impl_cu_load_fn load;
    gpuh_impl_cu_get_function_fn get_function;
    gpuh_impl_cu_unload_fn unload;
    gpuh_impl_cu_launch_fn launch;
    gpuh_impl_cu_param_info_fn param_info; /* NULL before CUDA 12.4's driver: no parameter checks */
    gpuh_impl_cu_error_name_fn error_name;
} gpuh_impl_cu_api;
GPUH_IMPL_SHARED gpuh_impl_cu_api gpuh_impl_cu_api_v;

GPUH_DEF const gpuh_impl_cu_api *gpuh_impl_cu(cudaError_t *err)
{
    gpuh_impl_cu_api *a = &gpuh_impl_cu_api_v;
    GPUH_IMPL_LOCK();
    if (a->loaded == 0) {
        cudaError_t e = gpuh_impl_cu_entry("cuModuleLoadData", 12000, &a->load);
        if (e == cudaSuccess)
            e = gpuh_impl_cu_entry("cuModuleGetFunction", 12000, &a->get_function);
        if (e == cudaSuccess)
            e = gpuh_impl_cu_entry("cuModuleUnload", 12000, &a->unload);
        if (e == cudaSuccess)
            e = gpuh_impl_cu_entry("cuLaunchKernel", 12000, &a->launch);
        if (e == cudaSuccess)
            e = gpuh_impl_cu_entry("cuGetErrorName", 12000, &a->error_name);
        if (e == cudaSuccess && gpuh_impl_cu_entry("cuFuncGetParamInfo", 12040, &a->param_info) != cudaSuccess)
            a->param_info = NULL;
        a->err = e;
        a->loaded = e == cudaSuccess ? 1 : -1;
    }
    *err = a->err;
    GPUH_IMPL_UNLOCK();
    return a->loaded == 1 ? a : NULL;
}

/* cudaError_t for a CUresult, the detail naming the driver's call and error. */
GPUH_DEF cudaError_t gpuh_impl_cu_fail(const gpuh_impl_cu_api *a, CUresult r, const char *fn, const char *call)
{
    const char *name = NULL;
    cudaError_t err;
    switch (r) {
    case CUDA_ERROR_INVALID_VALUE: err = cudaErrorInvalidValue; break;
    case CUDA_ERROR_OUT_OF_MEMORY: err = cudaErrorMemoryAllocation; break;
    case CUDA_ERROR_NOT_INITIALIZED: err = cudaErrorInitializationError; break;
    case CUDA_ERROR_NO_DEVICE: err = cudaErrorNoDevice; break;
    case CUDA_ERROR_INVALID_CONTEXT: err = cudaErrorDeviceUninitialized; break;
    case CUDA_ERROR_INVALID_IMAGE: err = cudaErrorInvalidKernelImage; break;
    case CUDA_ERROR_NO_BINARY_FOR_GPU: err = cudaErrorNoKernelImageForDevice; break;
    case CUDA_ERROR_INVALID_PTX: err = cudaErrorInvalidPtx; break;
    case CUDA_ERROR_UNSUPPORTED_PTX_VERSION: err = cudaErrorUnsupportedPtxVersion; break;
    case CUDA_ERROR_NOT_FOUND: err = cudaErrorSymbolNotFound; break;
    case CUDA_ERROR_INVALID_HANDLE: err = cudaErrorInvalidResourceHandle; break;
    case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: err = cudaErrorLaunchOutOfResources; break;
    case CUDA_ERROR_ILLEGAL_ADDRESS: err = cudaErrorIllegalAddress; break;
    case CUDA_ERROR_LAUNCH_FAILED: err = cudaErrorLaunchFailure; break;
    default: err = cudaErrorUnknown; break;
    }
    if (a->error_name(r, &name) != CUDA_SUCCESS || name == NULL)
        name = "an unknown CUresult";
    return gpuh_fail(err, "%s: %s failed with %s (driver API status %d)", fn, call, name, r);
}

/* cudaError_t for a failed NVRTC call. */
GPUH_DEF cudaError_t gpuh_impl_nvrtc_fail(nvrtcResult r, const char *call)
{
    const cudaError_t err = r == NVRTC_ERROR_OUT_OF_MEMORY ? cudaErrorMemoryAllocation
                            : r == NVRTC_ERROR_INVALID_OPTION || r == NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID ||
                                      r == NVRTC_ERROR_INVALID_INPUT
                                ? cudaErrorInvalidValue
                                : cudaErrorUnknown;
    return gpuh_fail(err, "gpuh_module_compile: %s failed with %s", call, nvrtcGetErrorString(r));
}

/* The program's log (a new string; "" if none), or NULL when out of memory. */
GPUH_DEF char *gpuh_impl_nvrtc_log(nvrtcProgram prog)
{
    size_t bytes = 0;
    char *log;
    if (nvrtcGetProgramLogSize(prog, &bytes) != NVRTC_SUCCESS || bytes == 0)
        return gpuh_impl_new_chars(0);
    log = gpuh_impl_new_chars(bytes);
    if (log != NULL && nvrtcGetProgramLog(prog, log) != NVRTC_SUCCESS)
        log[0] = '\0';
    return log;
}

GPUH_DEF cudaError_t gpuh_impl_module_build(const gpuh_module_desc *desc, const char *arch_option,
                                            gpuh_impl_module_image *img, char **log)
{
    const char *opts[GPUH_MODULE_MAX_ARGS + 1];
    nvrtcProgram prog = NULL;
    nvrtcResult r;
    char *source = gpuh_impl_module_source(desc);
    int i, n = 0;
    size_t names_bytes = 0, bytes = 0;
    cudaError_t err = cudaSuccess;
    *log = NULL;
    if (desc->num_options > GPUH_MODULE_MAX_ARGS) {
        free(source);
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: %d options (at most %d)", desc->num_options,
                         GPUH_MODULE_MAX_ARGS);
    }
    for (i = 0; i < desc->num_options; ++i)
        opts[n++] = desc->options[i];
    if (arch_option != NULL)
        opts[n++] = arch_option;
    if (source == NULL)
        return gpuh_fail(cudaErrorMemoryAllocation, "gpuh_module_compile: no memory for the source");
    r = nvrtcCreateProgram(&prog, source, desc->name != NULL ? desc->name : "gpuh_module.cu", 0, NULL, NULL);
    free(source);
    if (r != NVRTC_SUCCESS)
        return gpuh_impl_nvrtc_fail(r, "nvrtcCreateProgram");
    for (i = 0; i < desc->num_name_expressions && err == cudaSuccess; ++i)
        if ((r = nvrtcAddNameExpression(prog, desc->name_expressions[i])) != NVRTC_SUCCESS)
            err = gpuh_impl_nvrtc_fail(r, "nvrtcAddNameExpression");
    if (err == cudaSuccess) {
        r = nvrtcCompileProgram(prog, n, opts);
        *log = gpuh_impl_nvrtc_log(prog);
        if (r == NVRTC_ERROR_COMPILATION)
            err = gpuh_fail(cudaErrorInvalidSource, "gpuh_module_compile: %s did not compile: %s",
                            desc->name != NULL ? desc->name : "gpuh_module.cu", *log != NULL ? *log : "");
        else if (r != NVRTC_SUCCESS)
            err = gpuh_fail(r == NVRTC_ERROR_INVALID_OPTION ? cudaErrorInvalidValue : cudaErrorUnknown,
                            "gpuh_module_compile: nvrtcCompileProgram failed with %s: %s", nvrtcGetErrorString(r),
                            *log != NULL ? *log : "");
    }
    /* the name pairs: each expression, then the name NVRTC lowered it to */
    for (i = 0; i < desc->num_name_expressions && err == cudaSuccess; ++i) {
        const char *lowered = NULL;
        if ((r = nvrtcGetLoweredName(prog, desc->name_expressions[i], &lowered)) != NVRTC_SUCCESS)
            err = gpuh_fail(cudaErrorInvalidValue, "gpuh_module_compile: the name expression \"%s\" names no "
                                                   "kernel of the source (%s)",
                            desc->name_expressions[i], nvrtcGetErrorString(r));
        else
            names_bytes += strlen(desc->name_expressions[i]) + strlen(lowered) + 2;
    }
    img->names = err == cudaSuccess ? gpuh_impl_new_chars(names_bytes) : NULL;
    img->names_bytes = names_bytes;
    img->num_names = desc->num_name_expressions;
    for (i = 0, names_bytes = 0; i < desc->num_name_expressions && img->names != NULL; ++i) {
        const char *lowered = NULL;
        const size_t e = strlen(desc->name_expressions[i]) + 1;
        nvrtcGetLoweredName(prog, desc->name_expressions[i], &lowered);
        memcpy(img->names + names_bytes, desc->name_expressions[i], e);
        memcpy(img->names + names_bytes + e, lowered, strlen(lowered) + 1);
        names_bytes += e + strlen(lowered) + 1;
    }
    /* a real architecture gives a cubin; a virtual one (compute_XX) PTX */
    if (err == cudaSuccess && img->names != NULL) {
        if (nvrtcGetCUBINSize(prog, &bytes) == NVRTC_SUCCESS && bytes > 0) {
            img->image = gpuh_impl_new_chars(bytes);
            if (img->image != NULL && (r = nvrtcGetCUBIN(prog, img->image)) != NVRTC_SUCCESS)
                err = gpuh_impl_nvrtc_fail(r, "nvrtcGetCUBIN");
        } else if ((r = nvrtcGetPTXSize(prog, &bytes)) == NVRTC_SUCCESS) {
            img->image = gpuh_impl_new_chars(bytes);
            if (img->image != NULL && (r = nvrtcGetPTX(prog, img->image)) != NVRTC_SUCCESS)
                err = gpuh_impl_nvrtc_fail(r, "nvrtcGetPTX");
        } else {
            img->image = NULL;
            err = gpuh_impl_nvrtc_fail(r, "nvrtcGetPTXSize");
        }
        img->bytes = bytes;
        if (err == cudaSuccess && img->image == NULL)
            err = gpuh_fail(cudaErrorMemoryAllocation, "gpuh_module_compile: no memory for the %zu-byte image", bytes);
    } else if (err == cudaSuccess) {
        err = gpuh_fail(cudaErrorMemoryAllocation, "gpuh_module_compile: no memory for the names");
    }
    nvrtcDestroyProgram(&prog);
    if (err != cudaSuccess) {
        free(img->names);
        free(img->image);
        img->names = img->image = NULL;
    }
    return err;
}

/* gpuh_module_compile without its NVTX range. */
GPUH_DEF cudaError_t gpuh_impl_module_compile(gpuh_module **module, const gpuh_module_desc *desc)
{
    const gpuh_impl_cu_api *a;
    gpuh_impl_module_image img;
    char arch[32], arch_option[48], *log = NULL;
    int dev = 0, major = 0, minor = 0;
    CUmodule cm = NULL;
    CUresult r;
    int own_arch;
    cudaError_t err = gpuh_impl_module_desc_check(module, desc);
    if (err != cudaSuccess)
        return err;
    own_arch = gpuh_impl_module_has_arch(desc);
    /* the current device (its primary context made current: cudaSetDevice
       does that), unless the options name the architecture; then a source
       compiles, or fails with its log, even where there is no device */
    if ((err = cudaGetDevice(&dev)) != cudaSuccess || (err = cudaSetDevice(dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)) != cudaSuccess ||
        (err = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev)) != cudaSuccess) {
        if (!own_arch)
            return gpuh_fail(err, "gpuh_module_compile: no current device: %s", cudaGetErrorString(err));
        cudaGetLastError(); /* not sticky: the compile goes on */
    }
    snprintf(arch, sizeof arch, "sm_%d%d", major, minor);
    snprintf(arch_option, sizeof arch_option, "-arch=%s", arch);
    err = gpuh_impl_module_image_get(desc, own_arch ? "" : arch, own_arch ? NULL : arch_option, &img, &log);
    if (err != cudaSuccess)
        return err;
    if ((a = gpuh_impl_cu(&err)) == NULL) {
        free(img.image);
        free(img.names);
        free(log);
        return gpuh_fail(err, "gpuh_module_compile: the source compiled, but the driver API's calls are not "
                              "available through cudaGetDriverEntryPointByVersion (%s): is an NVIDIA driver "
                              "installed?",
                         cudaGetErrorName(err));
    }
    if ((r = a->load(&cm, img.image)) != CUDA_SUCCESS)
        err = gpuh_impl_cu_fail(a, r, "gpuh_module_compile", "cuModuleLoadData");
    free(img.image);
    if (err != cudaSuccess) {
        free(img.names);
        free(log);
        return err;
    }
    if ((err = gpuh_impl_module_new(module, cm, dev, &img, log)) != cudaSuccess)
        a->unload(cm);
    return err;
}

GPUH_DEF cudaError_t gpuh_module_function(const gpuh_module *module, const char *name, gpuh_kernel *kernel)
{
    const gpuh_impl_cu_api *a;
    CUfunction f = NULL;
    CUmodule cm;
    CUresult r;
    int i;
    cudaError_t err = gpuh_impl_module_function_check(module, name, kernel);
    if (err != cudaSuccess)
        return err;
    if ((a = gpuh_impl_cu(&err)) == NULL)
        return gpuh_fail(err, "gpuh_module_function: the driver API is not available");
    memcpy(&cm, &module->handle, sizeof cm);
    r = a->get_function(&f, cm, gpuh_impl_module_lowered(module, name));
    if (r == CUDA_ERROR_NOT_FOUND)
        return gpuh_impl_module_not_found(module, name);
    if (r != CUDA_SUCCESS)
        return gpuh_impl_cu_fail(a, r, "gpuh_module_function", "cuModuleGetFunction");
    kernel->handle = f;
    if (a->param_info != NULL) { /* the parameters, until the driver says there are no more */
        for (i = 0; i < GPUH_MODULE_MAX_ARGS; ++i) {
            size_t offset = 0, bytes = 0;
            if (a->param_info(f, i, &offset, &bytes) != CUDA_SUCCESS)
                break;
            kernel->param_bytes[i] = bytes;
        }
        kernel->num_params = i < GPUH_MODULE_MAX_ARGS ? i : -1;
    }
    return cudaSuccess;
}

GPUH_DEF cudaError_t gpuh_impl_module_launch_unranged(const gpuh_kernel *kernel, dim3 grid, dim3 block,
                                                      size_t shmem_bytes, cudaStream_t stream, const gpuh_arg *args,
                                                      int num_args, const char *file, int line)
{
    const gpuh_impl_cu_api *a;
    void *params[GPUH_MODULE_MAX_ARGS];
    CUfunction f;
    CUresult r;
    int i;
    cudaError_t err = gpuh_impl_module_args_check(kernel, args, num_args, file, line);
    if (err != cudaSuccess)
        return err;
    if ((a = gpuh_impl_cu(&err)) == NULL)
        return gpuh_fail(err, "gpuh_module_launch: the driver API is not available");
    if (shmem_bytes > 4294967295u)
        return gpuh_fail(cudaErrorInvalidValue, "gpuh_module_launch of %s at %s:%d: %zu bytes of shared memory",
                         kernel->name, file, line, shmem_bytes);
    if ((err = gpuh_impl_module_launch_begin(kernel, grid, block, shmem_bytes, file, line)) != cudaSuccess)
        return err;
    for (i = 0; i < num_args; ++i)
        memcpy(&params[i], &args[i].value, sizeof params[i]); /* cuLaunchKernel's void ** reads them only */
    memcpy(&f, &kernel->handle, sizeof f);
    r = a->launch(f, grid.x, grid.y, grid.z, block.x, block.y, block.z, shmem_bytes, stream,
                  num_args > 0 ? params : NULL, NULL);
    if (r != CUDA_SUCCESS) {
        char why[GPUH_IMPL_DETAIL_BYTES];
        err = gpuh_impl_cu_fail(a, r, "cuLaunchKernel", "the launch");
        snprintf(why, sizeof why, "%s", gpuh_error_detail()); /* the detail may be "" */
        return gpuh_fail(err, "gpuh_module_launch of %s at %s:%d: %s%s", kernel->name, file, line, why,
                         shmem_bytes > GPUH_IMPL_SHMEM_DEFAULT_LIMIT
                             ? " (above 48 KiB of dynamic shared memory a kernel must opt in: cuFuncSetAttribute "
                               "with CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)"
                             : "");
    }
    return cudaSuccess;
}

GPUH_DEF cudaError_t gpuh_module_destroy(gpuh_module **module)
{
    const gpuh_impl_cu_api *a;
    cudaError_t err = cudaSuccess;
    CUmodule cm;
    if (module == NULL || *module == NULL)
        return cudaSuccess;
    if ((a = gpuh_impl_cu(&err)) != NULL) {
        CUresult r;
        memcpy(&cm, &(*module)->handle, sizeof cm);
        if ((r = a->unload(cm)) != CUDA_SUCCESS)
            err = gpuh_impl_cu_fail(a, r, "gpuh_module_destroy", "cuModuleUnload");
    }
    free((*module)->names);
    free((*module)->log);
    free(*module);
    *module = NULL;
    return err;
}

#endif /* GPUH_SIM */

/* The ranges, the short form. */
GPUH_DEF cudaError_t gpuh_module_compile(gpuh_module **module, const gpuh_module_desc *desc)
{
    cudaError_t err;
    gpuh_nvtx_push("gpuh_module_compile");
    err = gpuh_impl_module_compile(module, desc);
    gpuh_nvtx_pop();
    return err;
}

GPUH_DEF cudaError_t gpuh_impl_module_launch(const gpuh_kernel *kernel, dim3 grid, dim3 block, size_t shmem_bytes,
                                             cudaStream_t stream, const gpuh_arg *args, int num_args,
                                             const char *file, int line)
{
    cudaError_t err;
    gpuh_nvtx_push(kernel != NULL ? kernel->name : "gpuh_module_launch");
    err = gpuh_impl_module_launch_unranged(kernel, grid, block, shmem_bytes, stream, args, num_args, file, line);
    gpuh_nvtx_pop();
    return err;
}

GPUH_DEF cudaError_t gpuh_source_module(gpuh_module **module, const char *source, const char *const *options,
                                        int num_options)
{
    gpuh_module_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.source = source;
    desc.options = options;
    desc.num_options = num_options;
    desc.extern_c = 1;
    return gpuh_module_compile(module, &desc);
}

#endif /* GPUH_USE_NVRTC */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GPUH_H */

/* ===========================================================================
   OTHER CUDA LIBRARIES' STATUS
   Outside GPUH_H's guard, each part under its own: a part is compiled when
   its library's header came first (its include guard is seen), so gpuh.h
   still links with cudart alone. Including gpuh.h again after a library's
   header adds that library's part. See "Errors" in API.
   =========================================================================== */
#ifdef __cplusplus
extern "C" {
#endif

/* ---- cuBLAS (cublas_v2.h or cublas.h: both include cublas_api.h) ---- */
#if defined(CUBLAS_API_H_) && !defined(GPUH_CHECK_CUBLAS)
/* gpuh_cublas_status_name(status): the enumerator's name, e.g.
   "CUBLAS_STATUS_INVALID_VALUE" (cuBLAS's own cublasGetStatusName). */
GPUH_DEF const char *gpuh_cublas_status_name(cublasStatus_t status)
{
    return cublasGetStatusName(status);
}
GPUH_DEF void gpuh_impl_report_cublas(cublasStatus_t status, const char *expr, const char *file, int line)
{
    gpuh_report_status("cuBLAS", status, cublasGetStatusName(status), cublasGetStatusString(status), expr, file,
                       line);
}
/* GPUH_CHECK_CUBLAS(expr): GPUH_CHECK for a cublasStatus_t. */
#define GPUH_CHECK_CUBLAS(expr) \
    GPUH_IMPL_CHECK_STATUS(cublasStatus_t, CUBLAS_STATUS_SUCCESS, gpuh_impl_report_cublas, expr, #expr)
GPUH_IMPL_STATUS_FORMS(cublasStatus_t, CUBLAS_STATUS_SUCCESS, cublas)
#undef GPUH_IMPL_GENERIC_CUBLAS
#define GPUH_IMPL_GENERIC_CUBLAS , cublasStatus_t: gpuh_impl_failed_cublas
#endif

/* ---- cuFFT (cufft.h): no name function of its own, so gpuh's table, whose
   messages say what cuFFT's API reference says each result means ---- */
#if defined(_CUFFT_H_) && !defined(GPUH_CHECK_CUFFT)
static const gpuh_impl_status_entry gpuh_impl_cufft_statuses[] = {
    {0, "CUFFT_SUCCESS", "the operation succeeded"},
    {1, "CUFFT_INVALID_PLAN", "the plan handle is not a valid plan"},
    {2, "CUFFT_ALLOC_FAILED", "cuFFT could not allocate GPU or CPU memory"},
    {3, "CUFFT_INVALID_TYPE", "the transform type is not supported"},
    {4, "CUFFT_INVALID_VALUE", "a pointer or parameter is invalid"},
    {5, "CUFFT_INTERNAL_ERROR", "a driver or internal cuFFT error"},
    {6, "CUFFT_EXEC_FAILED", "the transform failed to run on the GPU"},
    {7, "CUFFT_SETUP_FAILED", "the cuFFT library failed to initialise"},
    {8, "CUFFT_INVALID_SIZE", "a transform size is not supported (zero, negative, too large)"},
    {9, "CUFFT_UNALIGNED_DATA", "the data are not aligned as the transform needs"},
    {11, "CUFFT_INVALID_DEVICE", "the plan was made on another device than the current one"},
    {13, "CUFFT_NO_WORKSPACE", "no work area was given before the transform ran"},
    {14, "CUFFT_NOT_IMPLEMENTED", "the feature is not implemented"},
    {16, "CUFFT_NOT_SUPPORTED", "the operation is not supported for these parameters"},
    {17, "CUFFT_MISSING_DEPENDENCY", "a library cuFFT needs is missing"},
    {18, "CUFFT_NVRTC_FAILURE", "cuFFT's run-time compilation (NVRTC) failed"},
    {19, "CUFFT_NVJITLINK_FAILURE", "cuFFT's run-time linking (nvJitLink) failed"},
    {20, "CUFFT_NVSHMEM_FAILURE", "cuFFT's NVSHMEM call failed"}};
/* gpuh_cufft_status_name(result): "CUFFT_INVALID_PLAN" & co.; "an unknown
   cuFFT result" for a number the table does not hold. */
GPUH_DEF const char *gpuh_cufft_status_name(cufftResult result)
{
    return gpuh_impl_status_name_in(gpuh_impl_cufft_statuses, GPUH_IMPL_COUNT(gpuh_impl_cufft_statuses), result, "an unknown cuFFT result");
}
GPUH_DEF void gpuh_impl_report_cufft(cufftResult result, const char *expr, const char *file, int line)
{
    gpuh_impl_report_in("cuFFT", gpuh_impl_cufft_statuses, GPUH_IMPL_COUNT(gpuh_impl_cufft_statuses), result, NULL, expr, file, line);
}
/* GPUH_CHECK_CUFFT(expr): GPUH_CHECK for a cufftResult. */
#define GPUH_CHECK_CUFFT(expr) \
    GPUH_IMPL_CHECK_STATUS(cufftResult, CUFFT_SUCCESS, gpuh_impl_report_cufft, expr, #expr)
GPUH_IMPL_STATUS_FORMS(cufftResult, CUFFT_SUCCESS, cufft)
#undef GPUH_IMPL_GENERIC_CUFFT
#define GPUH_IMPL_GENERIC_CUFFT , cufftResult: gpuh_impl_failed_cufft
#endif

/* ---- cuRAND (curand.h; on the simulator, gpuh_sim.h's stand-in) ---- */
#if (defined(CURAND_H_) || defined(GPUH_SIM)) && !defined(GPUH_CHECK_CURAND)
static const gpuh_impl_status_entry gpuh_impl_curand_statuses[] = {
    {0, "CURAND_STATUS_SUCCESS", "no error"},
    {100, "CURAND_STATUS_VERSION_MISMATCH", "the header and the linked library are of different versions"},
    {101, "CURAND_STATUS_NOT_INITIALIZED", "the generator was never created"},
    {102, "CURAND_STATUS_ALLOCATION_FAILED", "memory could not be allocated"},
    {103, "CURAND_STATUS_TYPE_ERROR", "the generator is of the wrong type for the call"},
    {104, "CURAND_STATUS_OUT_OF_RANGE", "an argument is out of range"},
    {105, "CURAND_STATUS_LENGTH_NOT_MULTIPLE", "the count is not a multiple of the dimension (or odd, for normal numbers)"},
    {106, "CURAND_STATUS_DOUBLE_PRECISION_REQUIRED", "the GPU has no double precision"},
    {201, "CURAND_STATUS_LAUNCH_FAILURE", "a cuRAND kernel failed to launch"},
    {202, "CURAND_STATUS_PREEXISTING_FAILURE", "an earlier kernel launch had already failed"},
    {203, "CURAND_STATUS_INITIALIZATION_FAILED", "CUDA failed to initialise"},
    {204, "CURAND_STATUS_ARCH_MISMATCH", "the GPU does not support the feature asked for"},
    {999, "CURAND_STATUS_INTERNAL_ERROR", "an internal cuRAND error"}};
/* gpuh_curand_status_name(status): "CURAND_STATUS_TYPE_ERROR" & co.; "an
   unknown cuRAND status" for a number the table does not hold. */
GPUH_DEF const char *gpuh_curand_status_name(curandStatus_t status)
{
    return gpuh_impl_status_name_in(gpuh_impl_curand_statuses, GPUH_IMPL_COUNT(gpuh_impl_curand_statuses), status, "an unknown cuRAND status");
}
GPUH_DEF void gpuh_impl_report_curand(curandStatus_t status, const char *expr, const char *file, int line)
{
    gpuh_impl_report_in("cuRAND", gpuh_impl_curand_statuses, GPUH_IMPL_COUNT(gpuh_impl_curand_statuses), status, NULL, expr, file, line);
}
/* GPUH_CHECK_CURAND(expr): GPUH_CHECK for a curandStatus_t. */
#define GPUH_CHECK_CURAND(expr) \
    GPUH_IMPL_CHECK_STATUS(curandStatus_t, CURAND_STATUS_SUCCESS, gpuh_impl_report_curand, expr, #expr)
GPUH_IMPL_STATUS_FORMS(curandStatus_t, CURAND_STATUS_SUCCESS, curand)
#undef GPUH_IMPL_GENERIC_CURAND
#define GPUH_IMPL_GENERIC_CURAND , curandStatus_t: gpuh_impl_failed_curand
#endif

/* ---- cuSPARSE (cusparse.h) ---- */
#if defined(CUSPARSE_H_) && !defined(GPUH_CHECK_CUSPARSE)
/* gpuh_cusparse_status_name(status): "CUSPARSE_STATUS_INVALID_VALUE" & co.
   (cuSPARSE's own cusparseGetErrorName). */
GPUH_DEF const char *gpuh_cusparse_status_name(cusparseStatus_t status)
{
    return cusparseGetErrorName(status);
}
GPUH_DEF void gpuh_impl_report_cusparse(cusparseStatus_t status, const char *expr, const char *file, int line)
{
    gpuh_report_status("cuSPARSE", status, cusparseGetErrorName(status), cusparseGetErrorString(status), expr, file,
                       line);
}
/* GPUH_CHECK_CUSPARSE(expr): GPUH_CHECK for a cusparseStatus_t. */
#define GPUH_CHECK_CUSPARSE(expr) \
    GPUH_IMPL_CHECK_STATUS(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, gpuh_impl_report_cusparse, expr, #expr)
GPUH_IMPL_STATUS_FORMS(cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, cusparse)
#undef GPUH_IMPL_GENERIC_CUSPARSE
#define GPUH_IMPL_GENERIC_CUSPARSE , cusparseStatus_t: gpuh_impl_failed_cusparse
#endif

/* ---- cuSOLVER (cusolverDn.h & co.: all include cusolver_common.h): no name
   function of its own, so gpuh's table, from cuSOLVER's API reference ---- */
#if defined(CUSOLVER_COMMON_H_) && !defined(GPUH_CHECK_CUSOLVER)
static const gpuh_impl_status_entry gpuh_impl_cusolver_statuses[] = {
    {0, "CUSOLVER_STATUS_SUCCESS", "the operation completed successfully"},
    {1, "CUSOLVER_STATUS_NOT_INITIALIZED", "the handle was not created (cusolver*Create)"},
    {2, "CUSOLVER_STATUS_ALLOC_FAILED", "resources could not be allocated"},
    {3, "CUSOLVER_STATUS_INVALID_VALUE", "an unsupported value or parameter was passed (a negative size, ...)"},
    {4, "CUSOLVER_STATUS_ARCH_MISMATCH", "the device lacks a feature the function needs"},
    {5, "CUSOLVER_STATUS_MAPPING_ERROR", "a texture or memory mapping failed"},
    {6, "CUSOLVER_STATUS_EXECUTION_FAILED", "a kernel failed to run on the GPU"},
    {7, "CUSOLVER_STATUS_INTERNAL_ERROR", "an internal cuSOLVER operation failed"},
    {8, "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED", "the matrix type is not supported by this function"},
    {9, "CUSOLVER_STATUS_NOT_SUPPORTED", "the parameter combination is not supported"},
    {10, "CUSOLVER_STATUS_ZERO_PIVOT", "a zero pivot was met"},
    {11, "CUSOLVER_STATUS_INVALID_LICENSE", "the licence is invalid"},
    {12, "CUSOLVER_STATUS_IRS_PARAMS_NOT_INITIALIZED", "the iterative-refinement parameters were not created"},
    {13, "CUSOLVER_STATUS_IRS_PARAMS_INVALID", "the iterative-refinement parameters are invalid"},
    {14, "CUSOLVER_STATUS_IRS_PARAMS_INVALID_PREC", "the iterative-refinement precisions are invalid"},
    {15, "CUSOLVER_STATUS_IRS_PARAMS_INVALID_REFINE", "the iterative-refinement solver is invalid"},
    {16, "CUSOLVER_STATUS_IRS_PARAMS_INVALID_MAXITER", "the iterative-refinement iteration limit is invalid"},
    {20, "CUSOLVER_STATUS_IRS_INTERNAL_ERROR", "an internal error of iterative refinement"},
    {21, "CUSOLVER_STATUS_IRS_NOT_SUPPORTED", "iterative refinement does not support this case"},
    {22, "CUSOLVER_STATUS_IRS_OUT_OF_RANGE", "an iterative-refinement value is out of range"},
    {23, "CUSOLVER_STATUS_IRS_NRHS_NOT_SUPPORTED_FOR_REFINE_GMRES", "GMRES refinement takes one right-hand side"},
    {25, "CUSOLVER_STATUS_IRS_INFOS_NOT_INITIALIZED", "the iterative-refinement information was not created"},
    {26, "CUSOLVER_STATUS_IRS_INFOS_NOT_DESTROYED", "the iterative-refinement information was not destroyed"},
    {30, "CUSOLVER_STATUS_IRS_MATRIX_SINGULAR", "the matrix is singular"},
    {31, "CUSOLVER_STATUS_INVALID_WORKSPACE", "the workspace is too small or was not allocated"}};
/* gpuh_cusolver_status_name(status): "CUSOLVER_STATUS_INVALID_VALUE" & co.;
   "an unknown cuSOLVER status" for a number the table does not hold. */
GPUH_DEF const char *gpuh_cusolver_status_name(cusolverStatus_t status)
{
    return gpuh_impl_status_name_in(gpuh_impl_cusolver_statuses, GPUH_IMPL_COUNT(gpuh_impl_cusolver_statuses), status, "an unknown cuSOLVER status");
}
GPUH_DEF void gpuh_impl_report_cusolver(cusolverStatus_t status, const char *expr, const char *file, int line)
{
    gpuh_impl_report_in("cuSOLVER", gpuh_impl_cusolver_statuses, GPUH_IMPL_COUNT(gpuh_impl_cusolver_statuses), status, NULL, expr, file, line);
}
/* GPUH_CHECK_CUSOLVER(expr): GPUH_CHECK for a cusolverStatus_t. */
#define GPUH_CHECK_CUSOLVER(expr) \
    GPUH_IMPL_CHECK_STATUS(cusolverStatus_t, CUSOLVER_STATUS_SUCCESS, gpuh_impl_report_cusolver, expr, #expr)
GPUH_IMPL_STATUS_FORMS(cusolverStatus_t, CUSOLVER_STATUS_SUCCESS, cusolver)
#undef GPUH_IMPL_GENERIC_CUSOLVER
#define GPUH_IMPL_GENERIC_CUSOLVER , cusolverStatus_t: gpuh_impl_failed_cusolver
#endif

/* ---- the driver API (cuda.h; link libcuda: CMake CUDA::cuda_driver) ---- */
#if defined(__cuda_cuda_h__) && !defined(GPUH_SIM) && !defined(GPUH_CHECK_CU)
/* gpuh_cu_status_name(result): "CUDA_ERROR_INVALID_VALUE" & co. (the
   driver's cuGetErrorName, which needs no cuInit); "an unknown CUresult"
   for a number the driver does not know. */
GPUH_DEF const char *gpuh_cu_status_name(CUresult result)
{
    const char *name = NULL;
    return cuGetErrorName(result, &name) == CUDA_SUCCESS && name != NULL ? name : "an unknown CUresult";
}
GPUH_DEF void gpuh_impl_report_cu(CUresult result, const char *expr, const char *file, int line)
{
    const char *name = NULL, *message = NULL;
    if (cuGetErrorName(result, &name) != CUDA_SUCCESS)
        name = NULL;
    if (cuGetErrorString(result, &message) != CUDA_SUCCESS)
        message = NULL;
    gpuh_report_status("driver API", result, name, message, expr, file, line);
}
/* GPUH_CHECK_CU(expr): GPUH_CHECK for a CUresult of the driver API. */
#define GPUH_CHECK_CU(expr) GPUH_IMPL_CHECK_STATUS(CUresult, CUDA_SUCCESS, gpuh_impl_report_cu, expr, #expr)
GPUH_IMPL_STATUS_FORMS(CUresult, CUDA_SUCCESS, cu)
#undef GPUH_IMPL_GENERIC_CU
#define GPUH_IMPL_GENERIC_CU , CUresult: gpuh_impl_failed_cu
#endif

/* ---- NVRTC (nvrtc.h; link libnvrtc: CMake CUDA::nvrtc) ---- */
#if defined(__NVRTC_H__) && !defined(GPUH_CHECK_NVRTC)
/* gpuh_nvrtc_status_name(result): "NVRTC_ERROR_COMPILATION" & co.
   (nvrtcGetErrorString, which returns the enumerator's name). */
GPUH_DEF const char *gpuh_nvrtc_status_name(nvrtcResult result)
{
    return nvrtcGetErrorString(result);
}
GPUH_DEF void gpuh_impl_report_nvrtc(nvrtcResult result, const char *expr, const char *file, int line)
{
    gpuh_report_status("NVRTC", result, nvrtcGetErrorString(result),
                       result == NVRTC_ERROR_COMPILATION ? "the program did not compile: nvrtcGetProgramLog has the "
                                                           "compiler's messages"
                                                         : NULL,
                       expr, file, line);
}
/* GPUH_CHECK_NVRTC(expr): GPUH_CHECK for an nvrtcResult. */
#define GPUH_CHECK_NVRTC(expr) \
    GPUH_IMPL_CHECK_STATUS(nvrtcResult, NVRTC_SUCCESS, gpuh_impl_report_nvrtc, expr, #expr)
GPUH_IMPL_STATUS_FORMS(nvrtcResult, NVRTC_SUCCESS, nvrtc)
#undef GPUH_IMPL_GENERIC_NVRTC
#define GPUH_IMPL_GENERIC_NVRTC , nvrtcResult: gpuh_impl_failed_nvrtc
#endif

/* ---- NCCL (nccl.h; on the simulator, gpuh_sim.h's stand-in) ---- */
#if (defined(NCCL_H_) || defined(GPUH_SIM)) && !defined(GPUH_CHECK_NCCL)
static const gpuh_impl_status_entry gpuh_impl_nccl_statuses[] = {
    {0, "ncclSuccess", NULL},
    {1, "ncclUnhandledCudaError", NULL},
    {2, "ncclSystemError", NULL},
    {3, "ncclInternalError", NULL},
    {4, "ncclInvalidArgument", NULL},
    {5, "ncclInvalidUsage", NULL},
    {6, "ncclRemoteError", NULL},
    {7, "ncclInProgress", NULL}};
/* gpuh_nccl_status_name(result): "ncclInvalidArgument" & co. (NCCL has a
   message function, ncclGetErrorString, but none for names); "an unknown
   ncclResult_t" for a number the table does not hold. */
GPUH_DEF const char *gpuh_nccl_status_name(ncclResult_t result)
{
    return gpuh_impl_status_name_in(gpuh_impl_nccl_statuses, GPUH_IMPL_COUNT(gpuh_impl_nccl_statuses), result, "an unknown ncclResult_t");
}
/* The report adds ncclGetLastError(NULL), NCCL's own sentence on the last
   failure in this process (NCCL 2.13 and later, and the simulator). */
GPUH_DEF void gpuh_impl_report_nccl(ncclResult_t result, const char *expr, const char *file, int line)
{
    const char *last = NULL;
#if defined(GPUH_SIM) || (defined(NCCL_VERSION_CODE) && NCCL_VERSION_CODE >= 21300)
    last = ncclGetLastError(NULL);
#endif
    gpuh_impl_report_in("NCCL", gpuh_impl_nccl_statuses, GPUH_IMPL_COUNT(gpuh_impl_nccl_statuses), result,
                        ncclGetErrorString(result), expr, file, line);
    if (last != NULL && last[0] != '\0')
        GPUH_LOG("gpuh:   NCCL's last error: %s\n", last);
}
/* GPUH_CHECK_NCCL(expr): GPUH_CHECK for an ncclResult_t. */
#define GPUH_CHECK_NCCL(expr) \
    GPUH_IMPL_CHECK_STATUS(ncclResult_t, ncclSuccess, gpuh_impl_report_nccl, expr, #expr)
GPUH_IMPL_STATUS_FORMS(ncclResult_t, ncclSuccess, nccl)
#undef GPUH_IMPL_GENERIC_NCCL
#define GPUH_IMPL_GENERIC_NCCL , ncclResult_t: gpuh_impl_failed_nccl
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

/*
------------------------------------------------------------------------------
MIT License

Copyright (c) 2026 the gpuh authors

Permission is hereby granted, free of charge, to any person obtaining a copy of
this software and associated documentation files (the "Software"), to deal in
the Software without restriction, including without limitation the rights to
use, copy, modify, merge, publish, distribute, sublicense, and/or sell copies
of the Software, and to permit persons to whom the Software is furnished to do
so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in all
copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN THE
SOFTWARE.
*/
