# The compile.dropin test: gpuh used as the README's "Use it" section says, from
# a scratch folder holding only what an install copies (gpuh.h, gpuh_kernels.cuh
# and the folder gpuh/), with nvcc and no CMake: tests/dropin/main.cu built
# header-only, and in the compiled mode (every file but one defines
# GPUH_KERNELS_LIBRARY; gpuh/kernels_memory.cu compiles the kernels it needs),
# each for one architecture, then run (exit 77, no device, counts as built).
#   cmake -DBIN=build -DSRC=. -DNVCC=nvcc [-DARCH=sm_90a] -P cmake/test_dropin.cmake
if(NOT ARCH)
  set(ARCH sm_90a)
endif()
set(dir ${BIN}/dropin)
file(REMOVE_RECURSE ${dir})
file(COPY ${SRC}/gpuh.h ${SRC}/gpuh_kernels.cuh ${SRC}/gpuh ${SRC}/tests/dropin/main.cu DESTINATION ${dir}/include)
set(flags -O2 -arch=${ARCH} -I ${dir}/include -Xcompiler=-Wall,-Wextra --Werror all-warnings)
set(steps
  "header-only|${NVCC}|${flags}|${dir}/include/main.cu|-o|${dir}/header_only"
  "compiled mode, the kernels|${NVCC}|${flags}|-c|${dir}/include/gpuh/kernels_memory.cu|-o|${dir}/kernels_memory.o"
  "compiled mode, the program|${NVCC}|${flags}|-DGPUH_KERNELS_LIBRARY|${dir}/include/main.cu|${dir}/kernels_memory.o|-o|${dir}/compiled")
foreach(entry IN LISTS steps)
  string(REPLACE "|" ";" step "${entry}")
  list(POP_FRONT step what)
  string(REPLACE ";" " " shown "${step}")
  message("+ ${what}: ${shown}")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc})")
  endif()
endforeach()
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
