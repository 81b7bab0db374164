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
