# gpuh_module (included from cmake/library_tests.cmake):
#   host.module   tests/test_module.c: the compile's errors and the disk cache without a
#                 device; with one, launches by name and by name expression, argument checks
#   sim.module    the same on the simulator, launches included (gpuh-simcc compiles each
#                 module; the cache folder is shared with sim.example.15_source_module)
if(TARGET gpuh_nvrtc)
  gpuh_program(test_module HEADER_ONLY ${PROJECT_SOURCE_DIR}/tests/test_module.c)
  target_link_libraries(test_module PRIVATE gpuh::nvrtc)
  gpuh_add_test(host.module host test_module)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/module_cache)
  set_property(TEST host.module APPEND PROPERTY ENVIRONMENT GPUH_MODULE_CACHE_DIR=${CMAKE_BINARY_DIR}/module_cache)
endif()
if(GPUH_BUILD_SIM)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/module_cache)
  gpuh_sim_program(sim_test_module ${PROJECT_SOURCE_DIR}/tests/test_module.c ${PROJECT_SOURCE_DIR}/tests/sim_runtime.cpp)
  gpuh_sim_enable_modules(sim_test_module)
  target_compile_options(sim_test_module PRIVATE ${gpuh_c_warnings})
  gpuh_sim_test(sim.module sim_test_module ENV GPUH_MODULE_CACHE_DIR=${CMAKE_BINARY_DIR}/module_cache)
  set_tests_properties(sim.module PROPERTIES RESOURCE_LOCK gpuh_module_cache)
endif()
