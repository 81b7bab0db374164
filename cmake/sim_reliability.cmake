# The simulator under hostile use (included at the end of cmake/sim_tests.cmake),
# all labelled sim: tests/test_sim_reliability.cu, built by tools/gpuh-simcc with
# the NCCL stand-in on (GPUH_USE_NCCL), one CTest test per case:
#   sim.reliability.nccl      a timed-out collective withdrawn, a bad call in a group
#                             failing alone, byte counts that wrap refused
#   sim.reliability.symbols   symbol copies' bounds and kinds
#   sim.reliability.streams   stream-ordered copies and sets: their stream checked, captured
#   sim.reliability.capture   synchronising a capturing stream invalidates the capture
#   sim.reliability.devices   streams and events tied to their device (2 devices)
#   sim.reliability.pool      gpuh_pool_alloc/_free refused under capture; pool calls from 8 threads
#   sim.reliability.texture   a texture object destroyed twice
#   sim.reliability.env_devices  GPUH_SIM_DEVICES=4x refused
#   sim.reliability.threads   gpuh_gemm under GPUH_SIM_THREADS=132
# and sim.reliability.asan.nccl: the nccl case under AddressSanitizer (no write into a
# freed buffer of an abandoned call), where the compiler has ASan.
set(gpuh_rel_src ${PROJECT_SOURCE_DIR}/tests/test_sim_reliability.cu)
file(GLOB_RECURSE gpuh_rel_standins CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/sim/include/*)
set(gpuh_rel_deps ${gpuh_rel_src} ${gpuh_simcc} ${PROJECT_SOURCE_DIR}/gpuh_sim.h
                  ${PROJECT_SOURCE_DIR}/gpuh.h ${PROJECT_SOURCE_DIR}/gpuh_kernels.cuh ${gpuh_rel_standins})
function(gpuh_rel_program name)
  set(exe ${CMAKE_CURRENT_BINARY_DIR}/${name}${CMAKE_EXECUTABLE_SUFFIX})
  add_custom_command(OUTPUT ${exe}
                     COMMAND ${CMAKE_COMMAND} -E env GPUH_SIMCC_CXX=${CMAKE_CXX_COMPILER}
                             ${Python3_EXECUTABLE} ${gpuh_simcc} -I${PROJECT_SOURCE_DIR} -I${PROJECT_SOURCE_DIR}/tests
                             -DGPUH_USE_NCCL ${gpuh_c_warnings} ${ARGN} ${gpuh_rel_src} -o ${exe}
                     DEPENDS ${gpuh_rel_deps} COMMENT "gpuh-simcc ${name}" VERBATIM)
  add_custom_target(build_${name} ALL DEPENDS ${exe})
endfunction()
gpuh_rel_program(sim_reliability)
set(rel ${CMAKE_CURRENT_BINARY_DIR}/sim_reliability${CMAKE_EXECUTABLE_SUFFIX})
gpuh_sim_test(sim.reliability.nccl ${rel} ARGS nccl ENV GPUH_SIM_DEVICES=2 GPUH_SIM_NCCL_TIMEOUT=1
              EXPECT "nccl: PASS")
if(gpuh_have_asan)
  gpuh_rel_program(sim_reliability_asan -g -fsanitize=address -fno-omit-frame-pointer)
  set(rel_asan ${CMAKE_CURRENT_BINARY_DIR}/sim_reliability_asan${CMAKE_EXECUTABLE_SUFFIX})
  gpuh_sim_test(sim.reliability.asan.nccl ${rel_asan} ARGS nccl ENV GPUH_SIM_DEVICES=2 GPUH_SIM_NCCL_TIMEOUT=1
                EXPECT "nccl: PASS")
endif()
foreach(case symbols streams capture pool texture)
  gpuh_sim_test(sim.reliability.${case} ${rel} ARGS ${case} EXPECT "${case}: PASS")
endforeach()
gpuh_sim_test(sim.reliability.devices ${rel} ARGS devices ENV GPUH_SIM_DEVICES=2 EXPECT "devices: PASS")
foreach(value 4x 3.5 0x2 -1)
  gpuh_sim_test(sim.reliability.env_devices.${value} ${rel} ARGS env_devices ENV GPUH_SIM_DEVICES=${value}
                EXPECT "GPUH_SIM_DEVICES=${value} is not 1 \\.\\. 64; using 1.*env_devices: PASS")
endforeach()
gpuh_sim_test(sim.reliability.threads ${rel} ARGS threads ENV GPUH_SIM_THREADS=132 EXPECT "threads: PASS")
