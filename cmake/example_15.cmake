# Example 15, kernels compiled from source at run time (included from
# examples/CMakeLists.txt): built where NVRTC is found (gpuh::nvrtc), with its
# test example.15_source_module (77 without a device), and for the simulator
# (GPUH_BUILD_SIM), with its test sim.example.15_source_module. It is not in
# gpuh_examples, whose simulator builds are made alike: this one is built as
# gpuh_sim_enable_modules (cmake/nvrtc.cmake) says, and run_examples does not run it.
if(TARGET gpuh_nvrtc)
  gpuh_program(15_source_module HEADER_ONLY ${PROJECT_SOURCE_DIR}/examples/15_source_module.cu)
  target_link_libraries(15_source_module PRIVATE gpuh::nvrtc)
  gpuh_add_test(example.15_source_module example 15_source_module)
endif()

if(GPUH_BUILD_SIM)
  # the module cache the simulator's tests share (RESOURCE_LOCK: one at a time, so
  # that the first builds the precompiled gpuh_sim.h there and the others read it)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/module_cache)
  gpuh_sim_program(sim_15_source_module ${PROJECT_SOURCE_DIR}/examples/15_source_module.cu)
  gpuh_sim_enable_modules(sim_15_source_module)
  set_target_properties(sim_15_source_module PROPERTIES CXX_STANDARD 17)
  target_compile_options(sim_15_source_module PRIVATE ${gpuh_c_warnings})
  add_test(NAME sim.example.15_source_module COMMAND sim_15_source_module)
  set_tests_properties(sim.example.15_source_module PROPERTIES LABELS sim TIMEOUT 600 RESOURCE_LOCK gpuh_module_cache
                       ENVIRONMENT "GPUH_TEST_QUICK=1;GPUH_CHECK_LEAKS=1;GPUH_MODULE_CACHE_DIR=${CMAKE_BINARY_DIR}/module_cache"
                       FAIL_REGULAR_EXPRESSION "${gpuh_leak_report}")
endif()
