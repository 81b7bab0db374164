# gpuh::nvrtc: gpuh.h with GPUH_USE_NVRTC (gpuh_module_compile & co.: kernels
# compiled from source at run time), linked to NVRTC. The driver API's calls
# come through cudart (cudaGetDriverEntryPointByVersion), so there is no
# libcuda to link and a program starts where there is no driver. Included
# from CMakeLists.txt; defined where the toolkit has NVRTC.
if(TARGET CUDA::nvrtc)
  add_library(gpuh_nvrtc INTERFACE)
  add_library(gpuh::nvrtc ALIAS gpuh_nvrtc)
  set_target_properties(gpuh_nvrtc PROPERTIES EXPORT_NAME nvrtc)
  target_link_libraries(gpuh_nvrtc INTERFACE gpuh CUDA::nvrtc)
  target_compile_definitions(gpuh_nvrtc INTERFACE GPUH_USE_NVRTC)
endif()

# gpuh_sim_enable_modules(target): what a simulator build that calls
# gpuh_module needs (sim/include/gpuh_sim_nvrtc.h): GPUH_USE_NVRTC, the
# stand-ins' folder on the include path (gpuh-simcc puts it there), its
# symbols exported so that a module's kernels use its simulator
# (ENABLE_EXPORTS, -rdynamic), and dlopen.
function(gpuh_sim_enable_modules target)
  target_compile_definitions(${target} PRIVATE GPUH_USE_NVRTC)
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/sim/include)
  set_target_properties(${target} PROPERTIES ENABLE_EXPORTS ON)
  target_link_libraries(${target} PRIVATE ${CMAKE_DL_LIBS})
endfunction()
