# Tests under sanitizers, and the thread-safety stress test (included from the
# tests block of CMakeLists.txt). Each label is a CI step of its own:
#   gpu.threads        tests/test_threads.cu on a GPU (label gpu; 77 without one)
#   tsan.threads       the same program on the CPU simulator under ThreadSanitizer
#                      (label tsan): 4 host threads allocate, copy, launch, time,
#                      fail on purpose and free at once; a data race fails it
#   asan.*             the simulator tests (sim_test_kernels and sim_test_gemm quick, test_sim,
#                      test_threads) under AddressSanitizer + UndefinedBehaviorSanitizer
#                      with detect_stack_use_after_return=1 (label asan)
#   fuzz.sim_runtime   libFuzzer on the simulator's runtime (tests/fuzz_sim_runtime.cc):
#                      copy and memset bounds, the pipeline descriptor, gpuh_gemm's
#                      argument checks, each against a verdict computed in the fuzzer;
#                      60 s from the seeds in tests/fuzz_seeds_sim (label fuzz)

#
# The sanitizer builds take minutes to compile and to run, so the README's test
# command leaves them out; CI turns them on in the same build tree:
#   cmake -B build -DGPUH_SANITIZER_TESTS=ON && cmake --build build -j 2
#   ctest --test-dir build -L tsan; ctest --test-dir build -L asan; ctest --test-dir build -R fuzz.sim_runtime
option(GPUH_SANITIZER_TESTS "Build and run the tsan, asan and fuzz.sim_runtime tests (needs the simulator)" OFF)

gpuh_program(test_threads ${PROJECT_SOURCE_DIR}/tests/test_threads.cu)
gpuh_add_test(gpu.threads gpu test_threads)

if(NOT GPUH_BUILD_SIM OR NOT GPUH_SANITIZER_TESTS)
  return()
endif()

include(CheckCXXSourceCompiles)
# gpuh_sanitizer_works(var flags...): var is ON when the C++ compiler builds and links with flags.
function(gpuh_sanitizer_works var)
  set(CMAKE_REQUIRED_FLAGS "${ARGN}")
  set(CMAKE_REQUIRED_LINK_OPTIONS ${ARGN})
  check_cxx_source_compiles("int main() { return 0; }" ${var})
endfunction()

# gpuh_sanitized_sim_program(name flags sources...): a simulator build with flags
# given to both the compiler and the linker.
function(gpuh_sanitized_sim_program name flags)
  gpuh_sim_program(${name} ${ARGN})
  set_target_properties(${name} PROPERTIES CXX_STANDARD 17)
  target_compile_options(${name} PRIVATE ${gpuh_c_warnings} -g -fno-omit-frame-pointer ${flags})
  target_link_options(${name} PRIVATE ${flags})
endfunction()

# gpuh_sanitizer_test(name label program env): a CTest test with the quick sizes.
function(gpuh_sanitizer_test name label program env)
  add_test(NAME ${name} COMMAND ${program})
  set_tests_properties(${name} PROPERTIES LABELS ${label} TIMEOUT 900 ENVIRONMENT "GPUH_TEST_QUICK=1;${env}")
endfunction()

set(gpuh_tsan_flags -fsanitize=thread)
gpuh_sanitizer_works(gpuh_have_tsan -fsanitize=thread)
if(gpuh_have_tsan)
  gpuh_sanitized_sim_program(tsan_test_threads "${gpuh_tsan_flags}" ${PROJECT_SOURCE_DIR}/tests/test_threads.cu)
  gpuh_sanitizer_test(tsan.threads tsan tsan_test_threads "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1")
  gpuh_sanitizer_test(tsan.threads.four tsan tsan_test_threads
                      "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1;GPUH_SIM_THREADS=4")
else()
  message(STATUS "gpuh: no ThreadSanitizer with ${CMAKE_CXX_COMPILER}: tsan.* tests left out")
endif()

set(gpuh_asan_flags -fsanitize=address,undefined -fno-sanitize-recover=undefined)
gpuh_sanitizer_works(gpuh_have_asan_ubsan -fsanitize=address,undefined)
if(gpuh_have_asan_ubsan)
  set(gpuh_asan_env "ASAN_OPTIONS=detect_stack_use_after_return=1:detect_leaks=1;UBSAN_OPTIONS=print_stacktrace=1")
  foreach(t kernels gemm)
    gpuh_sanitized_sim_program(asan_test_${t} "${gpuh_asan_flags}" ${PROJECT_SOURCE_DIR}/tests/test_${t}.cu)
    gpuh_sanitizer_test(asan.${t} asan asan_test_${t} "${gpuh_asan_env}")
  endforeach()
  gpuh_sanitized_sim_program(asan_test_sim "${gpuh_asan_flags}" ${PROJECT_SOURCE_DIR}/tests/test_sim.cu)
  gpuh_sanitized_sim_program(asan_test_threads "${gpuh_asan_flags}" ${PROJECT_SOURCE_DIR}/tests/test_threads.cu)
  gpuh_sanitizer_test(asan.semantics asan asan_test_sim "${gpuh_asan_env}")
  gpuh_sanitizer_test(asan.threads asan asan_test_threads "${gpuh_asan_env};GPUH_SIM_THREADS=4")
else()
  message(STATUS "gpuh: no AddressSanitizer + UBSan with ${CMAKE_CXX_COMPILER}: asan.* tests left out")
endif()

# libFuzzer needs clang (GPUH_CLANG, found for fuzz_geometry); clang++ beside it.
if(GPUH_CLANG)
  get_filename_component(gpuh_clang_dir ${GPUH_CLANG} DIRECTORY)
  get_filename_component(gpuh_clang_name ${GPUH_CLANG} NAME)
  string(REPLACE "clang" "clang++" gpuh_clangxx_name ${gpuh_clang_name})
  find_program(GPUH_CLANGXX NAMES ${gpuh_clangxx_name} clang++ HINTS ${gpuh_clang_dir})
endif()
set(gpuh_fuzz_sim_flags -std=c++17 -g -O1 -Wall -Wextra -Werror -Wno-unknown-pragmas -fno-strict-aliasing
                        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -DGPUH_SIM -DGPUH_USE_CURAND)
set(gpuh_fuzz_sim_ok 1)
if(GPUH_CLANGXX)
  file(WRITE ${CMAKE_BINARY_DIR}/fuzz_probe.cc
       "#include <stddef.h>\n#include <stdint.h>\nextern \"C\" int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n)"
       " { (void)d; (void)n; return 0; }\n")
  execute_process(COMMAND ${GPUH_CLANGXX} ${gpuh_fuzz_sim_flags} fuzz_probe.cc -o fuzz_probe_cc -pthread
                  WORKING_DIRECTORY ${CMAKE_BINARY_DIR} RESULT_VARIABLE gpuh_fuzz_sim_ok OUTPUT_QUIET ERROR_QUIET)
endif()
if(GPUH_CLANGXX AND gpuh_fuzz_sim_ok EQUAL 0)
  set(gpuh_fuzz_sim ${CMAKE_BINARY_DIR}/fuzz/fuzz_sim_runtime)
  add_custom_command(OUTPUT ${gpuh_fuzz_sim}
    COMMAND ${GPUH_CLANGXX} ${gpuh_fuzz_sim_flags} -I${PROJECT_SOURCE_DIR}
            ${PROJECT_SOURCE_DIR}/tests/fuzz_sim_runtime.cc -o ${gpuh_fuzz_sim} -pthread
    DEPENDS ${PROJECT_SOURCE_DIR}/tests/fuzz_sim_runtime.cc ${PROJECT_SOURCE_DIR}/gpuh.h ${PROJECT_SOURCE_DIR}/gpuh_sim.h ${PROJECT_SOURCE_DIR}/gpuh_kernels.cuh VERBATIM)
  add_custom_target(fuzz_sim_runtime ALL DEPENDS ${gpuh_fuzz_sim})
  file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/fuzz/corpus_sim)
  add_test(NAME fuzz.sim_runtime COMMAND ${gpuh_fuzz_sim} -max_total_time=60 -print_final_stats=1
                                         ${CMAKE_BINARY_DIR}/fuzz/corpus_sim ${PROJECT_SOURCE_DIR}/tests/fuzz_seeds_sim)
  # Without detect_stack_use_after_return (the asan label runs with it): the
  # fuzzer fails launches by the thousand, and each abandons fibers whose
  # fake stacks ASan cannot free from outside them, so the RSS passes
  # libFuzzer's 2 GB limit within seconds while 25 MB are live. ASan also
  # gives freed allocator pages back every 200 ms (gpuh_gemm's workspaces
  # come in ever-new sizes).
  set_tests_properties(fuzz.sim_runtime PROPERTIES LABELS fuzz TIMEOUT 180
                       ENVIRONMENT "ASAN_OPTIONS=detect_leaks=1:allocator_release_to_os_interval_ms=200;GPUH_SIM_THREADS=1")
else()
  message(STATUS "fuzz_sim_runtime not built: no clang++ that links -fsanitize=fuzzer")
endif()
