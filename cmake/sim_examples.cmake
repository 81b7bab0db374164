# The examples built for the CPU simulator (included from the examples block of
# CMakeLists.txt): sim_<example> programs and sim.example.<example> tests; sets
# gpuh_sim_example_files (one entry per example in gpuh_examples, "-" where an
# example cannot run on the simulator) and gpuh_sim_example_targets.
# Left out, with the reason:
#   10_sgemm_ladder   calls cuBLAS, which the simulator does not provide
#   11_hgemm_ladder   calls cuBLAS, and its steps are PTX (mma.sync, wgmma, TMA)
set(gpuh_sim_left_out 10_sgemm_ladder 11_hgemm_ladder)
set(gpuh_sim_example_files "")
set(gpuh_sim_example_targets "")
foreach(ex IN LISTS gpuh_examples)
  if(ex IN_LIST gpuh_sim_left_out)
    list(APPEND gpuh_sim_example_files -)
    continue()
  endif()
  if(ex STREQUAL "07_from_c")
    gpuh_sim_program(sim_${ex} ${PROJECT_SOURCE_DIR}/examples/07_from_c.c ${PROJECT_SOURCE_DIR}/examples/07_from_c_kernels.cu)
  else()
    gpuh_sim_program(sim_${ex} ${PROJECT_SOURCE_DIR}/examples/${ex}.cu)
  endif()
  set_target_properties(sim_${ex} PROPERTIES CXX_STANDARD 17) # as the .cu files are built (CUDA_STANDARD)
  target_link_libraries(sim_${ex} PRIVATE gpuh_sim_kernels)
  target_compile_options(sim_${ex} PRIVATE ${gpuh_c_warnings})
  # GPU-sized work: quick sizes, and one timed run (GPUH_SIM_REPS) where the example times many.
  add_test(NAME sim.example.${ex} COMMAND sim_${ex} ${gpuh_example_args_${ex}})
  set_tests_properties(sim.example.${ex} PROPERTIES LABELS sim TIMEOUT 600
                       ENVIRONMENT "GPUH_TEST_QUICK=1;GPUH_SIM_REPS=1;GPUH_CHECK_LEAKS=1"
                       FAIL_REGULAR_EXPRESSION "${gpuh_leak_report}")
  list(APPEND gpuh_sim_example_files $<TARGET_FILE:sim_${ex}>)
  # On the simulator an example says so, and prints no GPU target as if it meant something.
  if(ex STREQUAL "02_device_list")
    set_tests_properties(sim.example.${ex} PROPERTIES PASS_REGULAR_EXPRESSION
                         "gpuh's CPU simulator, not a GPU.*Result = PASS")
  elseif(ex STREQUAL "05_matmul_naive_vs_tiled")
    set_property(TEST sim.example.${ex} APPEND PROPERTY FAIL_REGULAR_EXPRESSION "/ CPU: 0x")
  elseif(ex STREQUAL "09_stream_timeline")
    set_property(TEST sim.example.${ex} APPEND PROPERTY FAIL_REGULAR_EXPRESSION "target [<>]=")
  endif()
  list(APPEND gpuh_sim_example_targets sim_${ex})
endforeach()
