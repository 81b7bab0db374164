# CUDA programs as people write them, on the simulator (included from the tests
# block of CMakeLists.txt), each built by tools/gpuh-simcc as a user would:
#   sim.cuda                 tests/test_sim_cuda.cu (label sim; the same file runs on a GPU as gpu.sim_cuda)
#   sim.cuda.hostptr/.assert/.trap   its diagnostics: the message and the launch's error
#   sim.cdp, sim.cdp.sync    tests/test_sim_cdp.cu: launches from kernels (the same file runs on a
#                            GPU as gpu.sim_cdp); cudaDeviceSynchronize in a kernel refused
#   sim.bf16                 tests/test_sim_bf16.cu: <cuda_bf16.h>'s conversions and arithmetic, bit for bit
#   sim.fp8                  tests/test_sim_fp8.cu: <cuda_fp8.h>'s E4M3 and E5M2 against the formats' definitions
#   sim.arch[.reverse]       tests/test_sim_arch.cu: __CUDA_ARCH__ as nvcc's passes see it, warp
#                            reductions, cuda::barrier, cuda::pipeline, the pipeline primitives
#   sim.surface              tests/test_sim_surface.cu: every vector type, every Math API intrinsic,
#                            volatile qualifiers and casts (the same file runs on a GPU as gpu.sim_surface)
#   sim.graphs               tests/test_sim_graphs.cu: CUDA graphs (capture, explicit, conditional, memory)
#   sim.warpsync[.reverse]   tests/test_sim_warpsync.cu: lanes of a warp sharing plain shared memory with
#                            no __syncwarp read what the others wrote, as in a converged warp; under
#                            GPUH_SIM_SCHEDULE=reverse the missing __syncwarp shows
#   sim.simcc.c              a C main (compiled as C) with its kernels in a .cu file
#   samples.<name>           NVIDIA's cuda-samples, a regression subset vendored unedited
#                            in tests/samples/vendored (label samples; the whole set:
#                            tests/samples/run.sh PATH-TO-cuda-samples)
gpuh_program(test_sim_cuda_gpu ${PROJECT_SOURCE_DIR}/tests/test_sim_cuda.cu)
gpuh_add_test(gpu.sim_cuda gpu test_sim_cuda_gpu)
gpuh_program(test_sim_surface_gpu ${PROJECT_SOURCE_DIR}/tests/test_sim_surface.cu HEADER_ONLY)
# nvcc includes cuda_runtime.h before the file's first line, so the file
# cannot turn off CUDA 13's deprecation of long4, double4 & co. itself
target_compile_definitions(test_sim_surface_gpu PRIVATE __NV_NO_VECTOR_DEPRECATION_DIAG)
gpuh_add_test(gpu.sim_surface gpu test_sim_surface_gpu)
gpuh_program(test_sim_cdp_gpu ${PROJECT_SOURCE_DIR}/tests/test_sim_cdp.cu) # dynamic parallelism: relocatable device code (CMake links cudadevrt)
set_target_properties(test_sim_cdp_gpu PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
gpuh_add_test(gpu.sim_cdp gpu test_sim_cdp_gpu)

if(NOT GPUH_BUILD_SIM)
  return()
endif()

file(GLOB_RECURSE gpuh_simcc_standins CONFIGURE_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/../sim/include/*)
set(gpuh_simcc_deps ${gpuh_simcc} ${CMAKE_CURRENT_LIST_DIR}/../gpuh_sim.h ${gpuh_simcc_standins})

# gpuh_simcc_program(name SOURCES files... [FLAGS flags...]): an executable
# built by gpuh-simcc (with the host compilers CMake found).
function(gpuh_simcc_program name)
  cmake_parse_arguments(arg "" "" "SOURCES;FLAGS" ${ARGN})
  set(exe ${CMAKE_CURRENT_BINARY_DIR}/${name}${CMAKE_EXECUTABLE_SUFFIX})
  add_custom_command(OUTPUT ${exe}
                     COMMAND ${CMAKE_COMMAND} -E env GPUH_SIMCC_CXX=${CMAKE_CXX_COMPILER} GPUH_SIMCC_CC=${CMAKE_C_COMPILER}
                             ${Python3_EXECUTABLE} ${gpuh_simcc} ${arg_FLAGS} ${arg_SOURCES} -o ${exe}
                     DEPENDS ${arg_SOURCES} ${gpuh_simcc_deps} COMMENT "gpuh-simcc ${name}" VERBATIM)
  add_custom_target(build_${name} ALL DEPENDS ${exe})
endfunction()

set(src ${PROJECT_SOURCE_DIR})
gpuh_simcc_program(sim_cuda SOURCES ${src}/tests/test_sim_cuda.cu FLAGS ${gpuh_c_warnings})
set(sim_cuda ${CMAKE_CURRENT_BINARY_DIR}/sim_cuda${CMAKE_EXECUTABLE_SUFFIX})
gpuh_sim_test(sim.cuda ${sim_cuda})
gpuh_sim_test(sim.cuda.reverse ${sim_cuda} ENV GPUH_SIM_SCHEDULE=reverse)
gpuh_sim_test(sim.cuda.hostptr ${sim_cuda} ARGS hostptr EXPECT
  "kernel write_kernel launched at [^\n]*test_sim_cuda.cu:[0-9]+: argument 1 is the pointer 0x[0-9a-f]+, [^\n]*illegal address.*hostptr: cudaErrorIllegalAddress")
gpuh_sim_test(sim.cuda.assert ${sim_cuda} ARGS assert EXPECT
  "test_sim_cuda.cu:[0-9]+: [^\n]*assert_kernel[^\n]*: block: \\[1,0,0\\], thread: \\[5,0,0\\] Assertion [^\n]* failed.*assert: cudaErrorAssert")
gpuh_sim_test(sim.cuda.trap ${sim_cuda} ARGS trap EXPECT
  "__trap\\(\\) in kernel trap_kernel[^\n]*cudaErrorLaunchFailure.*trap: cudaErrorLaunchFailure")
gpuh_simcc_program(sim_cdp SOURCES ${src}/tests/test_sim_cdp.cu FLAGS ${gpuh_c_warnings})
set(sim_cdp ${CMAKE_CURRENT_BINARY_DIR}/sim_cdp${CMAKE_EXECUTABLE_SUFFIX})
gpuh_sim_test(sim.cdp ${sim_cdp})
gpuh_sim_test(sim.cdp.reverse ${sim_cdp} ENV GPUH_SIM_SCHEDULE=reverse)
gpuh_sim_test(sim.cdp.sync ${sim_cdp} ARGS sync EXPECT
  "cudaDeviceSynchronize\\(\\) called in kernel sync_parent_kernel \\(block \\(0, 0, 0\\), thread \\(0, 0, 0\\)\\): CUDA 12 removed it from device code.*sync: cudaErrorNotSupported")

# bfloat16 (<cuda_bf16.h>): rounding bit for bit against integer and float64 references.
gpuh_simcc_program(sim_bf16 SOURCES ${src}/tests/test_sim_bf16.cu FLAGS -I${src} ${gpuh_c_warnings})
gpuh_sim_test(sim.bf16 ${CMAKE_CURRENT_BINARY_DIR}/sim_bf16${CMAKE_EXECUTABLE_SUFFIX} EXPECT "test_sim_bf16: PASS")

# FP8 (<cuda_fp8.h>): every code, every midpoint, saturation, NaN and underflow, in host code and a kernel.
gpuh_simcc_program(sim_fp8 SOURCES ${src}/tests/test_sim_fp8.cu FLAGS -I${src} ${gpuh_c_warnings})
gpuh_sim_test(sim.fp8 ${CMAKE_CURRENT_BINARY_DIR}/sim_fp8${CMAKE_EXECUTABLE_SUFFIX} EXPECT "test_sim_fp8: PASS")

# Compute capability 7.0+ device code: __CUDA_ARCH__ per pass, __reduce_*_sync, cuda::barrier/pipeline.
gpuh_simcc_program(sim_arch SOURCES ${src}/tests/test_sim_arch.cu FLAGS -I${src} ${gpuh_c_warnings})
gpuh_sim_test(sim.arch ${CMAKE_CURRENT_BINARY_DIR}/sim_arch${CMAKE_EXECUTABLE_SUFFIX} EXPECT "test_sim_arch: PASS")
gpuh_sim_test(sim.arch.reverse ${CMAKE_CURRENT_BINARY_DIR}/sim_arch${CMAKE_EXECUTABLE_SUFFIX} ENV GPUH_SIM_SCHEDULE=reverse
              EXPECT "test_sim_arch: PASS")

# What device code names: vector types, the Math API's intrinsics, volatile qualifiers.
gpuh_simcc_program(sim_surface SOURCES ${src}/tests/test_sim_surface.cu FLAGS -I${src}/tests ${gpuh_c_warnings})
gpuh_sim_test(sim.surface ${CMAKE_CURRENT_BINARY_DIR}/sim_surface${CMAKE_EXECUTABLE_SUFFIX} EXPECT "test_sim_surface: PASS")

# CUDA graphs: stream capture, graphs built by hand, conditional nodes, graph memory.
gpuh_simcc_program(sim_graphs SOURCES ${src}/tests/test_sim_graphs.cu FLAGS -I${src} ${gpuh_c_warnings})
gpuh_sim_test(sim.graphs ${CMAKE_CURRENT_BINARY_DIR}/sim_graphs${CMAKE_EXECUTABLE_SUFFIX} EXPECT "test_sim_graphs: PASS")

# Warp-synchronous shared memory: gpuh-simcc's warp steps (simulator only: CUDA promises nothing there).
gpuh_simcc_program(sim_warpsync SOURCES ${src}/tests/test_sim_warpsync.cu FLAGS -I${src}/tests ${gpuh_c_warnings})
set(sim_warpsync ${CMAKE_CURRENT_BINARY_DIR}/sim_warpsync${CMAKE_EXECUTABLE_SUFFIX})
gpuh_sim_test(sim.warpsync ${sim_warpsync} EXPECT "test_sim_warpsync: PASS")
gpuh_sim_test(sim.warpsync.reverse ${sim_warpsync} ENV GPUH_SIM_SCHEDULE=reverse
              EXPECT "a missing __syncwarp exposed.*test_sim_warpsync: PASS")

gpuh_simcc_program(sim_c_main SOURCES ${src}/tests/sim_c_main.c ${src}/tests/sim_c_kernels.cu
                   FLAGS -I${src} -std=c99 ${gpuh_c_warnings})
gpuh_sim_test(sim.simcc.c ${CMAKE_CURRENT_BINARY_DIR}/sim_c_main${CMAKE_EXECUTABLE_SUFFIX} EXPECT "sim_c_main: PASS")

# The vendored samples: folder, sources (as the sample's CMakeLists.txt lists
# them), and the sample's own options that shrink its work. Built only with
# GPUH_SAMPLES_TESTS, as the sanitizer builds are: the README's test command
# leaves the label out, and their builds take minutes on 2 cores.
option(GPUH_SAMPLES_TESTS "Build and run the cuda-samples subset on the simulator (label samples)" OFF)
if(NOT GPUH_SAMPLES_TESTS)
  return()
endif()
set(vendored ${src}/tests/samples/vendored)
set(gpuh_samples
  "0_Introduction/vectorAdd|vectorAdd.cu|"
  "0_Introduction/clock|clock.cu|"
  "0_Introduction/asyncAPI|asyncAPI.cu|"
  "0_Introduction/simpleAssert|simpleAssert.cu|"
  "0_Introduction/simpleAtomicIntrinsics|simpleAtomicIntrinsics.cu,simpleAtomicIntrinsics_cpu.cpp|"
  "0_Introduction/simpleCooperativeGroups|simpleCooperativeGroups.cu|"
  "0_Introduction/simpleCubemapTexture|simpleCubemapTexture.cu|"
  "0_Introduction/simpleLayeredTexture|simpleLayeredTexture.cu|"
  "0_Introduction/simpleOccupancy|simpleOccupancy.cu|"
  "0_Introduction/simpleTemplates|simpleTemplates.cu|"
  "0_Introduction/simpleVoteIntrinsics|simpleVoteIntrinsics.cu|"
  "0_Introduction/template|template.cu,template_cpu.cpp|"
  "0_Introduction/matrixMul|matrixMul.cu|-wA=64,-hA=64,-wB=64,-hB=64"
  "0_Introduction/systemWideAtomics|systemWideAtomics.cu|"
  "2_Concepts_and_Techniques/threadFenceReduction|threadFenceReduction.cu|"
  "2_Concepts_and_Techniques/reductionMultiBlockCG|reductionMultiBlockCG.cu|-n=1000000")
foreach(entry IN LISTS gpuh_samples)
  string(REPLACE "|" ";" parts "${entry}")
  list(GET parts 0 dir)
  list(GET parts 1 files)
  list(GET parts 2 opts)
  get_filename_component(name ${dir} NAME)
  string(REPLACE "," ";" files "${files}")
  string(REPLACE "," ";" opts "${opts}")
  set(srcs "")
  foreach(f IN LISTS files)
    list(APPEND srcs ${vendored}/Samples/${dir}/${f})
  endforeach()
  gpuh_simcc_program(sample_${name} SOURCES ${srcs} FLAGS -I${vendored}/Common)
  add_test(NAME samples.${name} COMMAND ${CMAKE_CURRENT_BINARY_DIR}/sample_${name}${CMAKE_EXECUTABLE_SUFFIX} ${opts}
           WORKING_DIRECTORY ${vendored}/Samples/${dir})
  set_tests_properties(samples.${name} PROPERTIES LABELS samples TIMEOUT 300
                       FAIL_REGULAR_EXPRESSION "FAIL|Test failed|[Mm]ismatch|Waiving")
endforeach()
