# Checks that need no GPU (included from the tests block of CMakeLists.txt), label compile:
#   compile.budget      every kernel gpuh::kernels ships within its registers and shared
#                       memory, with no spills (the library build's ptxas -v for sm_90a:
#                       tools/check_budget.py)
#   compile.no_history  no dates or before/after history in the headers' comments
#                       (tools/check_no_history.py; the figures live in bench/results/NOTES.md)
if(Python3_Interpreter_FOUND)
  # gpuh::kernels' sources compile through check_budget.py's capture, which
  # keeps ptxas's report of each kernel in build/budget: the check reads the
  # kernels the library ships, as built, and compiles none of its own.
  set(gpuh_budget_dir ${CMAKE_BINARY_DIR}/budget)
  set_property(TARGET gpuh_kernels PROPERTY CUDA_COMPILER_LAUNCHER ${Python3_EXECUTABLE}
               ${PROJECT_SOURCE_DIR}/tools/check_budget.py capture ${gpuh_budget_dir} --)
  set_property(TARGET gpuh_kernels APPEND PROPERTY COMPILE_OPTIONS $<$<COMPILE_LANGUAGE:CUDA>:-Xptxas=-v>)
  add_test(NAME compile.budget
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_budget.py check ${CMAKE_CUDA_COMPILER}
                   ${PROJECT_SOURCE_DIR}/tools/kernel_budget.cu ${PROJECT_SOURCE_DIR} ${gpuh_budget_dir})
  set_tests_properties(compile.budget PROPERTIES LABELS compile SKIP_REGULAR_EXPRESSION "gpuh test skipped: ")
  add_test(NAME compile.no_history
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_no_history.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(compile.no_history PROPERTIES LABELS compile)
else()
  message(STATUS "gpuh: no python3, so no compile.budget or compile.no_history test")
endif()
