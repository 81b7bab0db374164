# The compile.dropin test: gpuh used as the README's "Use it" section says, from
# a scratch folder holding only what an install copies (gpuh.h, gpuh_kernels.cuh
# and the folder gpuh/), with nvcc and no CMake: tests/dropin/main.cu built
# header-only, and in the compiled mode (every file but one defines
# GPUH_KERNELS_LIBRARY; gpuh/kernels_memory.cu compiles the kernels it needs),
# each for one architecture, then run (exit 77, no device, counts as built).
#   cmake -DBIN=build -DSRC=. -DNVCC=nvcc [-DARCH=compute_75] -P cmake/test_dropin.cmake
if(NOT ARCH)
  set(ARCH compute_75) # PTX alone: the quickest build that runs on every GPU since Turing
endif()
set(dir ${BIN}/dropin)
file(REMOVE_RECURSE ${dir})
file(COPY ${SRC}/gpuh.h ${SRC}/gpuh_kernels.cuh ${SRC}/gpuh ${SRC}/tests/dropin/main.cu DESTINATION ${dir}/include)
set(flags -O2 -arch=${ARCH} -I ${dir}/include -Xcompiler=-Wall,-Wextra --Werror all-warnings)
# step(what, args...): runs nvcc with the flags and args, shown first; fails the test if it fails.
function(step what)
  list(JOIN flags " " shown_flags)
  list(JOIN ARGN " " shown)
  message("+ ${what}: ${NVCC} ${shown_flags} ${shown}")
  execute_process(COMMAND ${NVCC} ${flags} ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endfunction()
step("header-only" ${dir}/include/main.cu -o ${dir}/header_only)
step("compiled mode, the kernels" -c ${dir}/include/gpuh/kernels_memory.cu -o ${dir}/kernels_memory.o)
step("compiled mode, the program" -DGPUH_KERNELS_LIBRARY ${dir}/include/main.cu ${dir}/kernels_memory.o
     -o ${dir}/compiled)
# The compiled-mode program must hold no kernel of gpuh's own beside the library's.
execute_process(COMMAND ${NVCC} ${flags} -DGPUH_KERNELS_LIBRARY -c ${dir}/include/main.cu -o ${dir}/main.o
                RESULT_VARIABLE rc)
execute_process(COMMAND nm -C ${dir}/main.o OUTPUT_VARIABLE syms RESULT_VARIABLE nm_rc)
if(NOT rc EQUAL 0 OR (nm_rc EQUAL 0 AND syms MATCHES "gpuh_[a-z_]*_kernel<"))
  message(FATAL_ERROR "a file of the compiled mode compiled a gpuh kernel of its own")
endif()
foreach(prog header_only compiled)
  execute_process(COMMAND ${dir}/${prog} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  message("+ ${prog}\n${out}")
  if(NOT (rc EQUAL 0 OR rc EQUAL 77))
    message(FATAL_ERROR "${prog} failed (${rc})")
  endif()
endforeach()
