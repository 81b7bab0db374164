# The compile.sim_gxx test: the README's g++ line for the simulator works as
# written, with the three headers it says to copy and nothing else, and gives no
# warning under -Wall -Wextra -Werror. Copies gpuh.h, gpuh_sim.h,
# gpuh_kernels.cuh and the folder gpuh/ into a scratch folder, takes the line that starts with
# "g++ -x c++" from README.md, builds tests/consumer/readme.cu with it, and runs
# the program.
#   cmake -DBIN=build -DSRC=. -DCXX=g++ -P cmake/test_sim_gxx.cmake
set(dir ${BIN}/sim-gxx)
file(REMOVE_RECURSE ${dir})
file(COPY ${SRC}/gpuh.h ${SRC}/gpuh_sim.h ${SRC}/gpuh_kernels.cuh ${SRC}/gpuh ${SRC}/tests/consumer/readme.cu
     DESTINATION ${dir})
file(STRINGS ${SRC}/README.md line REGEX "^g\\+\\+ -x c\\+\\+ ")
list(LENGTH line count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "README.md should have one line starting with 'g++ -x c++ ', not ${count}")
endif()
string(REPLACE "path/to/gpuh" "." line "${line}")
string(REPLACE "prog.cu" "readme.cu" line "${line}")
separate_arguments(args UNIX_COMMAND "${line}")
list(REMOVE_AT args 0) # g++: the compiler CMake found, which the README's g++ stands for
message("+ ${CXX} ${args} -Wall -Wextra -Werror   (in ${dir})")
execute_process(COMMAND ${CXX} ${args} -Wall -Wextra -Werror WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the README's g++ line failed (${rc})")
endif()
execute_process(COMMAND ${dir}/prog WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the program built by the README's g++ line failed (${rc})")
endif()
