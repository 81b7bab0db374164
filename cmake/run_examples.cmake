# Runs each program in EXAMPLES (a list of paths) in order, showing its output,
# and ends with one line per example. Exit code 77 from an example means it found
# no CUDA device; the example has printed why. Then, if SIM_EXAMPLES (a list of
# the same length: each example's CPU-simulator build, or "-" where there is
# none) is given, the simulator build runs in its place, at the examples' quick
# sizes (GPUH_TEST_QUICK=1, unless set). gpuh's leak check is on
# (GPUH_CHECK_LEAKS=1, unless set): an example whose output holds a leak report
# fails. Fails if any example fails. With SIM_ONLY (no CUDA device was found
# when the build was configured, so the GPU builds were not made), each
# example's simulator build runs in its place at once, and an example without
# one is reported as skipped.
if(NOT DEFINED ENV{GPUH_CHECK_LEAKS})
  set(ENV{GPUH_CHECK_LEAKS} 1)
endif()
# run(program): runs it, its output shown as it comes; sets rc (its exit code)
# and why (what failed, for the summary).
macro(run program)
  execute_process(COMMAND ${program} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out
                  ECHO_OUTPUT_VARIABLE ECHO_ERROR_VARIABLE)
  set(why "exit ${rc}")
  string(FIND "${out}" "gpuh: leak check at exit" leaked)
  if(leaked GREATER -1 AND rc EQUAL 0)
    set(rc 1)
    set(why "exit 0, but it leaked: report above")
  endif()
endmacro()
set(failed 0)
set(skipped 0)
set(simulated 0)
set(summary "")
list(LENGTH SIM_EXAMPLES sim_count)
set(index 0)
foreach(exe IN LISTS EXAMPLES)
  get_filename_component(name ${exe} NAME)
  message("==== ${name}")
  if(SIM_ONLY)
    set(rc 77) # what the GPU build finds here: no device
  else()
    run(${exe})
  endif()
  set(where "")
  if(rc EQUAL 77 AND index LESS sim_count)
    list(GET SIM_EXAMPLES ${index} sim)
    if(NOT sim STREQUAL "-")
      if(NOT DEFINED ENV{GPUH_SIM_REPS})
        set(ENV{GPUH_SIM_REPS} 1) # GPU-sized timing loops: one timed run on the CPU
      endif()
      if(NOT DEFINED ENV{GPUH_TEST_QUICK})
        set(ENV{GPUH_TEST_QUICK} 1) # GPU-sized inputs (up to 2^27 elements): the small sizes on the CPU
      endif()
      message("==== ${name}: no CUDA device, so its build for gpuh's CPU simulator (gpuh_sim.h) runs instead, "
              "at its quick sizes (GPUH_TEST_QUICK=1)")
      run(${sim})
      set(where " (on the CPU simulator)")
      math(EXPR simulated "${simulated} + 1")
    elseif(SIM_ONLY)
      message("${name}: no CUDA device was found when the build was configured, and it has no simulator build")
    endif()
  endif()
  math(EXPR index "${index} + 1")
  if(rc EQUAL 0)
    string(APPEND summary "  PASS     ${name}${where}\n")
  elseif(rc EQUAL 77)
    math(EXPR skipped "${skipped} + 1")
    string(APPEND summary "  SKIPPED  ${name} (no CUDA device)\n")
  else()
    math(EXPR failed "${failed} + 1")
    string(APPEND summary "  FAIL     ${name}${where} (${why})\n")
  endif()
endforeach()
message("==== summary\n${summary}")
if(simulated GREATER 0)
  message("No usable CUDA device here, so ${simulated} example(s) ran on gpuh's CPU simulator instead: "
          "their results are checked as on a GPU, their times are the CPU's.")
endif()
if(skipped GREATER 0)
  message("No usable CUDA device here, so ${skipped} example(s) did not run (reason printed above).")
endif()
if(failed GREATER 0)
  message(FATAL_ERROR "${failed} example(s) failed")
endif()
