# The memory pool (included from the tests block of CMakeLists.txt, after
# cmake/sim_tests.cmake):
#   gpu.pool                tests/test_pool.cu: reuse, trim, counters, errors
#   sim.pool                the same on the CPU simulator
gpuh_program(test_pool ${PROJECT_SOURCE_DIR}/tests/test_pool.cu)
gpuh_add_test(gpu.pool gpu test_pool)
if(GPUH_BUILD_SIM)
  gpuh_sim_program(sim_test_pool ${PROJECT_SOURCE_DIR}/tests/test_pool.cu)
  set_target_properties(sim_test_pool PROPERTIES CXX_STANDARD 17)
  target_compile_options(sim_test_pool PRIVATE ${gpuh_c_warnings})
  gpuh_sim_test(sim.pool sim_test_pool)
endif()

