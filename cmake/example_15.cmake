# Example 15, kernels compiled from source at run time (included from
# examples/CMakeLists.txt): built where NVRTC is found (gpuh::nvrtc), with its
# test example.15_source_module (77 without a device). It is not in
# gpuh_examples: that list also makes a simulator build of each example, and
# gpuh_module has no simulator side (sim/include/gpuh_sim_nvrtc.h says
# what it needs), so run_examples does not run it either.
if(TARGET gpuh_nvrtc)
  gpuh_program(15_source_module HEADER_ONLY ${PROJECT_SOURCE_DIR}/examples/15_source_module.cu)
  target_link_libraries(15_source_module PRIVATE gpuh::nvrtc)
  gpuh_add_test(example.15_source_module example 15_source_module)
endif()
