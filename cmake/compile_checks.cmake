# Checks that need no GPU (included from the tests block of CMakeLists.txt), label compile:
#   compile.budget      every shipped kernel of gpuh_kernels.cuh within its registers and
#                       shared memory, with no spills (ptxas -v for sm_90: tools/check_budget.py)
#   compile.no_history  no dates or before/after history in the headers' comments
#                       (tools/check_no_history.py; the figures live in bench/results/NOTES.md)
if(Python3_Interpreter_FOUND)
  add_test(NAME compile.budget
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_budget.py ${CMAKE_CUDA_COMPILER}
                   ${PROJECT_SOURCE_DIR}/tools/kernel_budget.cu ${PROJECT_SOURCE_DIR})
  set_tests_properties(compile.budget PROPERTIES LABELS compile TIMEOUT 600)
  add_test(NAME compile.no_history
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_no_history.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(compile.no_history PROPERTIES LABELS compile)
else()
  message(STATUS "gpuh: no python3, so no compile.budget or compile.no_history test")
endif()
