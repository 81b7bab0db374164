# gpuh::sim, the CPU simulator (gpuh_sim.h): link it and compile .cu sources as
# C++ with gpuh_sim_sources(), and the kernels run on the CPU. No CUDA needed.
#   gpuh_sim_sources(out_var sources...)  .cu files rewritten by tools/gpuh-simcc
#                                         (<<< >>>, extern __shared__, __launch_bounds__)
#                                         into C++ files in the build tree; others unchanged
#   gpuh_sim_program(name sources...)     an executable of those, linked to gpuh::sim
# Both need python3 (for gpuh-simcc); they look for it themselves, in the scope of
# the project that calls them, so they work wherever gpuh came from: its source
# tree (add_subdirectory, FetchContent) or an install (find_package(gpuh), whose
# gpuhConfig.cmake includes this file after setting gpuh_simcc).
find_package(Threads REQUIRED)
find_package(Python3 COMPONENTS Interpreter) # gpuh's own simulator builds (GPUH_BUILD_SIM)

if(NOT TARGET gpuh::sim) # gpuh's source tree; an installed gpuh has it from gpuhTargets.cmake
  add_library(gpuh_sim INTERFACE)
  add_library(gpuh::sim ALIAS gpuh_sim)
  set_target_properties(gpuh_sim PROPERTIES EXPORT_NAME sim)
  target_include_directories(gpuh_sim INTERFACE $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}/..>
                                                $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # GPUH_USE_CURAND: gpuh_sim.h brings its own stand-in for the cuRAND calls gpuh makes.
  # -Wno-unknown-pragmas: #pragma unroll; -fno-strict-aliasing: kernels read float
  # arrays through float4 (16-byte loads), which C++'s aliasing rules do not allow.
  target_compile_definitions(gpuh_sim INTERFACE GPUH_SIM GPUH_USE_CURAND)
  target_compile_options(gpuh_sim INTERFACE $<$<COMPILE_LANGUAGE:C,CXX>:-Wno-unknown-pragmas>
                                            $<$<COMPILE_LANGUAGE:CXX>:-fno-strict-aliasing>)
  target_link_libraries(gpuh_sim INTERFACE Threads::Threads)
  # A cache entry, so that the functions find it when called from the parent project.
  set(gpuh_simcc ${CMAKE_CURRENT_LIST_DIR}/../tools/gpuh-simcc CACHE INTERNAL "gpuh's compiler wrapper for the simulator")
endif()

function(gpuh_sim_sources out)
  # Looked for here: a find_package() in gpuh's directory is not seen by its parent project.
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(NOT Python3_Interpreter_FOUND)
    message(FATAL_ERROR "gpuh_sim_sources needs python3 for gpuh-simcc (${gpuh_simcc})")
  endif()
  set(result "")
  foreach(src IN LISTS ARGN)
    get_filename_component(abs ${src} ABSOLUTE)
    if(abs MATCHES "\\.cu$")
      file(RELATIVE_PATH id ${CMAKE_CURRENT_SOURCE_DIR} ${abs})
      string(MAKE_C_IDENTIFIER ${id} id)
      set(cpp ${CMAKE_CURRENT_BINARY_DIR}/gpuh_sim/${id}.cpp)
      get_property(done DIRECTORY PROPERTY gpuh_sim_rewritten)
      if(NOT cpp IN_LIST done) # one rule per file, however many programs use it
        add_custom_command(OUTPUT ${cpp} COMMAND ${Python3_EXECUTABLE} ${gpuh_simcc} --rewrite ${abs} ${cpp}
                           DEPENDS ${abs} ${gpuh_simcc} COMMENT "gpuh-simcc --rewrite ${src}" VERBATIM)
        set_property(DIRECTORY APPEND PROPERTY gpuh_sim_rewritten ${cpp})
      endif()
      list(APPEND result ${cpp})
    else()
      list(APPEND result ${abs})
    endif()
  endforeach()
  set(${out} ${result} PARENT_SCOPE)
endfunction()

function(gpuh_sim_program name)
  gpuh_sim_sources(srcs ${ARGN})
  add_executable(${name} ${srcs})
  target_link_libraries(${name} PRIVATE gpuh::sim)
  set_target_properties(${name} PROPERTIES LINKER_LANGUAGE CXX)
  if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    target_compile_options(${name} PRIVATE -O2) # kernels on the CPU: unoptimised they crawl
  endif()
  foreach(src IN LISTS ARGN) # a rewritten file still finds the headers beside its .cu
    get_filename_component(dir ${src} ABSOLUTE)
    get_filename_component(dir ${dir} DIRECTORY)
    target_include_directories(${name} PRIVATE ${dir})
  endforeach()
endfunction()
