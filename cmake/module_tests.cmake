# gpuh_module (included from cmake/library_tests.cmake):
#   host.module   tests/test_module.c: the compile's errors and the disk cache without a
#                 device; with one, launches by name and by name expression, argument checks
if(TARGET gpuh_nvrtc)
  gpuh_program(test_module HEADER_ONLY ${PROJECT_SOURCE_DIR}/tests/test_module.c)
  target_link_libraries(test_module PRIVATE gpuh::nvrtc)
  gpuh_add_test(host.module host test_module)
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/module_cache)
  set_property(TEST host.module APPEND PROPERTY ENVIRONMENT GPUH_MODULE_CACHE_DIR=${CMAKE_BINARY_DIR}/module_cache)
endif()
