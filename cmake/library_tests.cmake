# The tests of what gpuh adds next to CUDA's other libraries and tools
# (included from tests/CMakeLists.txt; each file's top comment lists its tests):
include(${PROJECT_SOURCE_DIR}/cmake/status_tests.cmake) # host.status, gpu.status: every library's status in GPUH_CHECK
include(${PROJECT_SOURCE_DIR}/cmake/nvtx_tests.cmake)   # host.nvtx, host.nvtx.off: NVTX ranges through NVTX's injection
include(${PROJECT_SOURCE_DIR}/cmake/module_tests.cmake) # host.module: gpuh_module (NVRTC)
