# The tests built for the CPU simulator (included from the tests block of
# CMakeLists.txt), all labelled sim:
#   sim.kernels, sim.helpers, sim.streams   the GPU tests, run on the CPU (quick sizes);
#                              sim.kernels.reverse and .random again in other thread orders
#   sim.semantics              tests/test_sim.cu: warps, votes, atomics, launch errors, runtime
#                              (the same file runs on a GPU as gpu.sim_semantics)
#   sim.simcc                  a plain <<< >>> program built by tools/gpuh-simcc, run
#   sim.diag.*                 divergent barriers reported, barriers and warp operations going on
#                              past exited threads with a warning (tests/sim_broken.cu)
#   sim.schedule.*             a missing barrier hidden in forward order, exposed in reverse/random
#   sim.asan.oob               an out-of-bounds write caught by ASan, kernel/block/thread named
#   sim.asan.cast              (ASan build, with UBSan's float-cast-overflow) an implicit
#                              float-to-unsigned conversion out of range reported, kernel/block/thread named
#   sim.diag.deadlock          blocks that spin on a block that cannot start: failed, the kernel named
#   sim.diag.width/dynshm/stack/threads  warp shuffle width 0, dynamic shared memory not asked
#                              for, a stack overflow, GPUH_SIM_THREADS=100000: each named
#   sim.consumer, .leak_report tests/consumer/sim_main.cu; a leak it makes on purpose is reported
# Each runs with GPUH_CHECK_LEAKS=1: a leak report fails it (but sim.leak_report's).
function(gpuh_sim_test name program)
  cmake_parse_arguments(arg "" "EXPECT" "ARGS;ENV" ${ARGN})
  add_test(NAME ${name} COMMAND ${program} ${arg_ARGS})
  set_tests_properties(${name} PROPERTIES LABELS sim TIMEOUT 600 ENVIRONMENT "GPUH_TEST_QUICK=1;GPUH_CHECK_LEAKS=1;${arg_ENV}"
                                          FAIL_REGULAR_EXPRESSION "${gpuh_leak_report}")
  if(arg_EXPECT) # the output must show it (the exit code is then not looked at)
    set_tests_properties(${name} PROPERTIES PASS_REGULAR_EXPRESSION "${arg_EXPECT}")
  endif()
endfunction()

foreach(t kernels gemm helpers streams)
  gpuh_sim_program(sim_test_${t} ${PROJECT_SOURCE_DIR}/tests/test_${t}.cu)
  set_target_properties(sim_test_${t} PROPERTIES CXX_STANDARD 17)
  target_compile_options(sim_test_${t} PRIVATE ${gpuh_c_warnings})
  gpuh_sim_test(sim.${t} sim_test_${t})
endforeach()
target_link_libraries(sim_test_kernels PRIVATE gpuh_sim_kernels) # as test_kernels links gpuh::kernels
# gpuh's kernels must not depend on the order threads run in between barriers.
foreach(t kernels gemm)
  gpuh_sim_test(sim.${t}.reverse sim_test_${t} ENV GPUH_SIM_SCHEDULE=reverse)
  gpuh_sim_test(sim.${t}.random sim_test_${t} ENV GPUH_SIM_SCHEDULE=random)
endforeach()

gpuh_sim_program(test_sim ${PROJECT_SOURCE_DIR}/tests/test_sim.cu)
set_target_properties(test_sim PROPERTIES CXX_STANDARD 11) # gpuh_sim.h is C++11
target_compile_options(test_sim PRIVATE ${gpuh_c_warnings})
gpuh_sim_test(sim.semantics test_sim)
gpuh_sim_test(sim.semantics.reverse test_sim ENV GPUH_SIM_SCHEDULE=reverse)
gpuh_sim_test(sim.semantics.one_thread test_sim ENV GPUH_SIM_THREADS=1)

# A plain CUDA program (no gpuh.h, <<< >>> launches) through the wrapper, as a user would.
# The program goes in a folder of its own: a file named like its custom target
# (build/sim_plain beside the target sim_plain) is a rule cycle, which Ninja refuses.
set(plain ${CMAKE_CURRENT_BINARY_DIR}/gpuh_simcc/sim_plain${CMAKE_EXECUTABLE_SUFFIX})
get_filename_component(plain_dir ${plain} DIRECTORY)
add_custom_command(OUTPUT ${plain}
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${plain_dir}
                   COMMAND ${CMAKE_COMMAND} -E env GPUH_SIMCC_CXX=${CMAKE_CXX_COMPILER} ${Python3_EXECUTABLE}
                           ${gpuh_simcc} ${gpuh_c_warnings} ${PROJECT_SOURCE_DIR}/tests/sim_plain.cu -o ${plain}
                   DEPENDS ${PROJECT_SOURCE_DIR}/tests/sim_plain.cu ${gpuh_simcc} ${PROJECT_SOURCE_DIR}/gpuh_sim.h COMMENT "gpuh-simcc tests/sim_plain.cu" VERBATIM)
add_custom_target(sim_plain ALL DEPENDS ${plain})
gpuh_sim_test(sim.simcc ${plain})

# The consumer's simulator program (tests/consumer/sim_main.cu), built here too: with
# its `leak` argument it leaves one array allocated, and the leak check must say so.
gpuh_sim_program(sim_consumer ${PROJECT_SOURCE_DIR}/tests/consumer/sim_main.cu)
target_compile_options(sim_consumer PRIVATE ${gpuh_c_warnings})
gpuh_sim_test(sim.consumer sim_consumer)
gpuh_sim_test(sim.leak_report sim_consumer ARGS leak EXPECT
  "consumer sim: 0 wrong elements[^\n]*PASS.*${gpuh_leak_report}: 1 gpuh allocation \\(4000 bytes tracked\\) not freed:\n[^\n]*live device allocation [^\n]* of 4000 bytes from [^\n]*sim_main.cu:[0-9]+")
set_property(TEST sim.leak_report PROPERTY FAIL_REGULAR_EXPRESSION)

gpuh_sim_program(sim_broken ${PROJECT_SOURCE_DIR}/tests/sim_broken.cu)
target_compile_options(sim_broken PRIVATE ${gpuh_c_warnings})
set(at "[^\n]*sim_broken.cu:[0-9]+\n")
gpuh_sim_test(sim.diag.exit sim_broken ARGS exit EXPECT
  "warning: in kernel early_exit_kernel [^\n]*block \\(2, 0, 0\\): __syncthreads\\(\\) at [^\n]*sim_broken.cu:[0-9]+ went on without 1 of the block's 32 threads, which had exited[^\n]*\ngpuh sim: divergent barrier in kernel two_barriers_kernel [^\n]*\n[^\n]*thread \\(4, 0, 0\\) waits at __syncthreads\\(\\) at${at}[^\n]*but thread \\(16, 0, 0\\) waits at __syncthreads\\(\\) at${at}.*sim_broken exit: PASS")
gpuh_sim_test(sim.diag.barriers sim_broken ARGS barriers EXPECT
  "divergent barrier in kernel two_barriers_kernel [^\n]*\n[^\n]*thread \\(0, 0, 0\\) waits at __syncthreads\\(\\) at${at}[^\n]*but thread \\(16, 0, 0\\) waits at __syncthreads\\(\\) at${at}.*sim_broken barriers: PASS")
gpuh_sim_test(sim.diag.warp sim_broken ARGS warp EXPECT
  "warning: in kernel warp_exit_kernel [^\n]*block \\(0, 0, 0\\): __shfl_down_sync\\(0xffffffff, \\.\\.\\.\\) at [^\n]*sim_broken.cu:[0-9]+ went on without 1 exited lane of its mask.*sim_broken warp: PASS")
gpuh_sim_test(sim.schedule.forward sim_broken ARGS race ENV GPUH_SIM_SCHEDULE=forward EXPECT
  "the missing barrier is hidden in this order.*sim_broken race: PASS")
gpuh_sim_test(sim.schedule.reverse sim_broken ARGS race ENV GPUH_SIM_SCHEDULE=reverse EXPECT
  "missing barrier exposed: 255 of 255 threads.*sim_broken race: PASS")
gpuh_sim_test(sim.schedule.random sim_broken ARGS race ENV GPUH_SIM_SCHEDULE=random GPUH_SIM_SEED=1 EXPECT
  "missing barrier exposed: [1-9][0-9]* of 255 threads.*sim_broken race: PASS")
gpuh_sim_test(sim.diag.width sim_broken ARGS width EXPECT
  "warp misuse in kernel shuffle_width_kernel [^\n]*\n[^\n]*thread \\(0, 0, 0\\) \\(warp 0, lane 0\\) calls __shfl_xor_sync\\(0xffffffff, \\.\\.\\., width 0\\) at[^\n]*sim_broken.cu:[0-9]+: the width must be a power of two.*width 12.*sim_broken width: PASS")
gpuh_sim_test(sim.diag.dynshm sim_broken ARGS dynshm EXPECT
  "segmentation fault in kernel dyn_write_kernel [^\n]*\n[^\n]*the launch asked for 0 bytes.*sim_broken dynshm: PASS")
gpuh_sim_test(sim.diag.stack sim_broken ARGS stack ENV GPUH_SIM_STACK_KB=64 EXPECT
  "segmentation fault in kernel deep_stack_kernel [^\n]*\n[^\n]*stack overflowed: it has 64 KiB \\(GPUH_SIM_STACK_KB\\).*sim_broken stack: PASS")
gpuh_sim_test(sim.diag.deadlock sim_broken ARGS deadlock ENV GPUH_SIM_DEADLOCK_S=1 EXPECT
  "deadlock in kernel wait_for_last_kernel \\(launched at [^)]*sim_broken.cu:[0-9]+\\): no block has finished for 1 s[^\n]*cudaErrorLaunchTimeout.*sim_broken deadlock: PASS")
gpuh_sim_test(sim.diag.threads sim_broken ARGS threads ENV GPUH_SIM_THREADS=100000 EXPECT
  "GPUH_SIM_THREADS=100000 is more than 1024; using 1024.*sim_broken threads: PASS")

include(CheckCXXSourceCompiles)
set(CMAKE_REQUIRED_FLAGS -fsanitize=address)
set(CMAKE_REQUIRED_LINK_OPTIONS -fsanitize=address)
check_cxx_source_compiles("int main() { return 0; }" gpuh_have_asan)
unset(CMAKE_REQUIRED_FLAGS)
unset(CMAKE_REQUIRED_LINK_OPTIONS)
if(gpuh_have_asan)
  gpuh_sim_program(sim_broken_asan ${PROJECT_SOURCE_DIR}/tests/sim_broken.cu)
  target_compile_options(sim_broken_asan PRIVATE ${gpuh_c_warnings} -g -fsanitize=address,float-cast-overflow
                         -fno-omit-frame-pointer)
  target_link_options(sim_broken_asan PRIVATE -fsanitize=address,float-cast-overflow)
  gpuh_sim_test(sim.asan.oob sim_broken_asan ARGS oob EXPECT
    "heap-buffer-overflow.*oob_kernel.*the fault above happened in kernel oob_kernel \\(launched at [^)]*\\), block \\(3, 0, 0\\), thread \\(8, 0, 0\\)")
  gpuh_sim_test(sim.asan.diag sim_broken_asan ARGS exit EXPECT "went on without 1 of the block's 32 threads.*divergent barrier in kernel two_barriers_kernel.*sim_broken exit: PASS")
  gpuh_sim_test(sim.asan.cast sim_broken_asan ARGS cast EXPECT
    "UBSan report in kernel implicit_cast_kernel \\(block \\(0, 0, 0\\), thread \\(2, 0, 0\\)\\).*outside the range of representable values of type 'unsigned int'.*sim_broken cast: PASS")
  gpuh_sim_test(sim.asan.dynshm sim_broken_asan ARGS dynshm EXPECT
    "AddressSanitizer: SEGV.*the fault above happened in kernel dyn_write_kernel")
  gpuh_sim_test(sim.asan.stack sim_broken_asan ARGS stack ENV GPUH_SIM_STACK_KB=64 EXPECT
    "AddressSanitizer: stack-overflow.*kernel deep_stack_kernel.*each simulated thread has 64 KiB of stack")
else()
  message(STATUS "gpuh: no AddressSanitizer with ${CMAKE_CXX_COMPILER}: sim.asan.* tests left out")
endif()

# The tensor-core GEMM's test on the CPU path, with the simulator's half-precision
# stand-ins (sim/include) found first, as gpuh-simcc finds them.
gpuh_sim_program(sim_test_tc_gemm ${PROJECT_SOURCE_DIR}/tests/test_tc_gemm.cu)
set_target_properties(sim_test_tc_gemm PROPERTIES CXX_STANDARD 17)
target_compile_options(sim_test_tc_gemm PRIVATE ${gpuh_c_warnings})
target_include_directories(sim_test_tc_gemm BEFORE PRIVATE ${PROJECT_SOURCE_DIR}/sim/include)
gpuh_sim_test(sim.tc_gemm sim_test_tc_gemm)
include(${PROJECT_SOURCE_DIR}/cmake/sim_reliability.cmake)
include(${PROJECT_SOURCE_DIR}/cmake/simcc_tests.cmake) # gpuh-simcc: golden rewrites (tests/simcc) and a program its lexer must read
