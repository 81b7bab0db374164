# The memory pool and the dense network of example 13 (included from the tests
# block of CMakeLists.txt, after cmake/sim_tests.cmake):
#   gpu.pool                tests/test_pool.cu: reuse, trim, counters, errors
#   sim.pool                the same on the CPU simulator
#   example.13_dense_network  examples/13_dense_network.cu (built with the examples)
#   sim.example.13_dense_network  a small network trained on the CPU: the loss must fall
gpuh_program(test_pool tests/test_pool.cu)
gpuh_add_test(gpu.pool gpu test_pool)
if(GPUH_BUILD_SIM)
  gpuh_sim_program(sim_test_pool tests/test_pool.cu)
  set_target_properties(sim_test_pool PROPERTIES CXX_STANDARD 17)
  target_compile_options(sim_test_pool PRIVATE ${gpuh_c_warnings})
  gpuh_sim_test(sim.pool sim_test_pool)
endif()

# Example 13 needs gpuh_gemm's transposes (GPUH_OP_T); without them it is left out.
file(READ ${CMAKE_CURRENT_SOURCE_DIR}/gpuh_kernels.cuh gpuh_nn_kernels)
string(FIND "${gpuh_nn_kernels}" "GPUH_OP_T" gpuh_nn_has_ops)
if(GPUH_BUILD_EXAMPLES AND gpuh_nn_has_ops EQUAL -1)
  message(STATUS "gpuh: gpuh_gemm has no transposes (GPUH_OP_T) yet: example 13 not built")
elseif(GPUH_BUILD_EXAMPLES)
  set(gpuh_digits ${CMAKE_CURRENT_SOURCE_DIR}/examples/data/digits.bin)
  gpuh_program(13_dense_network examples/13_dense_network.cu)
  add_test(NAME example.13_dense_network COMMAND 13_dense_network all ${gpuh_digits})
  set_tests_properties(example.13_dense_network PROPERTIES LABELS example SKIP_RETURN_CODE 77 TIMEOUT 600)
  if(GPUH_BUILD_SIM)
    gpuh_sim_program(sim_13_dense_network examples/13_dense_network.cu)
    set_target_properties(sim_13_dense_network PROPERTIES CXX_STANDARD 17)
    target_compile_options(sim_13_dense_network PRIVATE ${gpuh_c_warnings})
    gpuh_sim_test(sim.example.13_dense_network sim_13_dense_network ARGS all ${gpuh_digits})
  endif()
endif()
