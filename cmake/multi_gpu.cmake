# Several GPUs (included at top level from CMakeLists.txt, after gpuh::sim):
#   gpuh::nccl        gpuh.h with GPUH_USE_NCCL, linked to NCCL: the collectives
#                     (gpuh_all_reduce & co.). Defined when nccl.h and libnccl are
#                     found (CUDA's own folders, /usr/local, or -DGPUH_NCCL_ROOT=<dir>);
#                     gpuh::gpuh alone never needs NCCL.
# and, at the end of the top-level file (so that gpuh_program & co. exist), the
# programs, each only where it can be built:
#   test_multi        tests/test_multi.cu with NCCL           gpu.multi
#   test_nccl_procs   2 processes, 1 GPU each, id by a pipe    gpu.multi.procs (77 with < 2 GPUs)
#   compile.nccl_c    gpuh.h with GPUH_USE_NCCL as C99 -Werror compile
#   sim_test_multi    the same test on the simulator           sim.multi (4 devices), .three, .one
#   sim_test_multi_no_nccl  built without NCCL on purpose      sim.multi.no_nccl
#   14_data_parallel  examples/14_data_parallel.cu (+ sim_)    example.14_data_parallel, sim.example.14_...
#   gpuh_multi_gpu    bench/multi_gpu.cu                       (run by hand or by scripts/gpu_check.sh)
find_path(GPUH_NCCL_INCLUDE_DIR nccl.h HINTS ${GPUH_NCCL_ROOT}/include ${CUDAToolkit_INCLUDE_DIRS} /usr/local/include)
find_library(GPUH_NCCL_LIBRARY nccl HINTS ${GPUH_NCCL_ROOT}/lib ${GPUH_NCCL_ROOT}/lib64 ${CUDAToolkit_LIBRARY_DIR}
                                          /usr/local/lib)
if(GPUH_NCCL_INCLUDE_DIR AND GPUH_NCCL_LIBRARY)
  add_library(gpuh_nccl INTERFACE)
  add_library(gpuh::nccl ALIAS gpuh_nccl)
  set_target_properties(gpuh_nccl PROPERTIES EXPORT_NAME nccl)
  target_include_directories(gpuh_nccl INTERFACE $<BUILD_INTERFACE:${GPUH_NCCL_INCLUDE_DIR}>
                                                 $<INSTALL_INTERFACE:${GPUH_NCCL_INCLUDE_DIR}>)
  target_link_libraries(gpuh_nccl INTERFACE gpuh ${GPUH_NCCL_LIBRARY})
  target_compile_definitions(gpuh_nccl INTERFACE GPUH_USE_NCCL)
  install(TARGETS gpuh_nccl EXPORT gpuhTargets)
  message(STATUS "gpuh: NCCL found (${GPUH_NCCL_LIBRARY}): gpuh::nccl defined")
else()
  message(STATUS "gpuh: NCCL not found (nccl.h: ${GPUH_NCCL_INCLUDE_DIR}; libnccl: ${GPUH_NCCL_LIBRARY}): "
                 "no gpuh::nccl, so no collectives on the GPU (the simulator still has them); "
                 "set GPUH_NCCL_ROOT=<dir> to point at an NCCL install")
endif()

function(gpuh_multi_gpu_programs)
  if(NOT COMMAND gpuh_program) # the top-level file stopped early (no examples, tests or bench)
    return()
  endif()
  if(GPUH_BUILD_TESTS)
    if(TARGET gpuh_nccl)
      gpuh_program(test_multi tests/test_multi.cu)
      target_link_libraries(test_multi PRIVATE gpuh::nccl)
      gpuh_add_test(gpu.multi gpu test_multi)
      gpuh_program(test_nccl_procs tests/test_nccl_procs.cu)
      target_link_libraries(test_nccl_procs PRIVATE gpuh::nccl)
      gpuh_add_test(gpu.multi.procs gpu test_nccl_procs)
      gpuh_program(test_nccl_c tests/test_nccl_c.c)
      target_link_libraries(test_nccl_c PRIVATE gpuh::nccl)
      gpuh_add_test(compile.nccl_c compile test_nccl_c)
    endif()
    if(GPUH_BUILD_SIM)
      foreach(variant test_multi test_multi_no_nccl)
        gpuh_sim_program(sim_${variant} tests/test_multi.cu)
        set_target_properties(sim_${variant} PROPERTIES CXX_STANDARD 17)
        target_compile_options(sim_${variant} PRIVATE ${gpuh_c_warnings})
        target_link_libraries(sim_${variant} PRIVATE gpuh_sim_kernels)
      endforeach()
      target_compile_definitions(sim_test_multi PRIVATE GPUH_USE_NCCL) # the simulator's NCCL stand-in
      gpuh_sim_test(sim.multi sim_test_multi ENV GPUH_SIM_DEVICES=4)
      gpuh_sim_test(sim.multi.three sim_test_multi ENV GPUH_SIM_DEVICES=3)
      gpuh_sim_test(sim.multi.one sim_test_multi ENV GPUH_SIM_DEVICES=1)
      gpuh_sim_test(sim.multi.no_nccl sim_test_multi_no_nccl ENV GPUH_SIM_DEVICES=2)
    endif()
  endif()
  if(GPUH_BUILD_EXAMPLES)
    if(TARGET gpuh_nccl)
      gpuh_program(14_data_parallel examples/14_data_parallel.cu)
      target_link_libraries(14_data_parallel PRIVATE gpuh::nccl)
      gpuh_add_test(example.14_data_parallel example 14_data_parallel)
    endif()
    if(GPUH_BUILD_SIM)
      gpuh_sim_program(sim_14_data_parallel examples/14_data_parallel.cu)
      set_target_properties(sim_14_data_parallel PROPERTIES CXX_STANDARD 17)
      target_compile_options(sim_14_data_parallel PRIVATE ${gpuh_c_warnings})
      target_compile_definitions(sim_14_data_parallel PRIVATE GPUH_USE_NCCL)
      target_link_libraries(sim_14_data_parallel PRIVATE gpuh_sim_kernels)
      add_test(NAME sim.example.14_data_parallel COMMAND sim_14_data_parallel)
      set_tests_properties(sim.example.14_data_parallel PROPERTIES LABELS sim TIMEOUT 600
                           ENVIRONMENT "GPUH_TEST_QUICK=1;GPUH_SIM_REPS=1;GPUH_SIM_DEVICES=4")
    endif()
  endif()
  if(GPUH_BUILD_BENCH AND TARGET gpuh_nccl)
    gpuh_program(gpuh_multi_gpu bench/multi_gpu.cu)
    target_link_libraries(gpuh_multi_gpu PRIVATE gpuh::nccl)
  endif()
endfunction()
cmake_language(DEFER CALL gpuh_multi_gpu_programs)
