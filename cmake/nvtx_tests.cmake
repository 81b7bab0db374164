# gpuh's NVTX ranges through NVTX's injection mechanism (included from tests/CMakeLists.txt):
#   nvtx_inject     tests/nvtx_inject.c: a shared library NVTX loads from NVTX_INJECTION64_PATH;
#                   it records each push and pop (domain, name, depth)
#   host.nvtx       tests/nvtx_ranges.c + nvtx_scope.cpp: the ranges' names and nesting, without
#                   a device (with one, the pipeline's chunk ranges too)
#   host.nvtx.off   the same program built with -DGPUH_NVTX=0: no range at all
add_library(nvtx_inject SHARED ${PROJECT_SOURCE_DIR}/tests/nvtx_inject.c)
target_include_directories(nvtx_inject SYSTEM PRIVATE ${CUDAToolkit_INCLUDE_DIRS})
target_compile_options(nvtx_inject PRIVATE ${gpuh_c_warnings})
foreach(variant nvtx_ranges nvtx_ranges_off)
  gpuh_program(${variant} HEADER_ONLY ${PROJECT_SOURCE_DIR}/tests/nvtx_ranges.c ${PROJECT_SOURCE_DIR}/tests/nvtx_scope.cpp)
  target_link_libraries(${variant} PRIVATE ${CMAKE_DL_LIBS})
  add_dependencies(${variant} nvtx_inject)
endforeach()
target_compile_definitions(nvtx_ranges_off PRIVATE GPUH_NVTX=0)
gpuh_add_test(host.nvtx host nvtx_ranges)
gpuh_add_test(host.nvtx.off host nvtx_ranges_off)
set_property(TEST host.nvtx host.nvtx.off APPEND PROPERTY ENVIRONMENT NVTX_INJECTION64_PATH=$<TARGET_FILE:nvtx_inject>)
