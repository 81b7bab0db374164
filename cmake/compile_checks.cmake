# Checks that need no GPU (included from the tests block of CMakeLists.txt), label compile:
#   compile.budget      every kernel gpuh::kernels ships within its registers and shared
#                       memory, with no spills (the library build's ptxas -v for sm_90a:
#                       tools/check_budget.py)
#   compile.no_history  the code's comments keep reasons, not history: the patterns
#                       are in tools/check_no_history.py (the figures live in
#                       bench/results/NOTES.md)
#   compile.public_names every gpuh_ / GPUH_ name gpuh.h and gpuh_kernels.cuh (with gpuh/)
#                       declare without impl_ is named in its front's comments
#                       (tools/check_public_names.py)
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
  set_tests_properties(compile.no_history PROPERTIES LABELS compile SKIP_REGULAR_EXPRESSION "gpuh test skipped: ")
  add_test(NAME compile.public_names
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tools/check_public_names.py ${PROJECT_SOURCE_DIR})
  set_tests_properties(compile.public_names PROPERTIES LABELS compile)
else()
  message(STATUS "gpuh: no python3, so no compile.budget, compile.no_history or compile.public_names test")
endif()
