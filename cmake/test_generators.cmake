# The compile.generators test: gpuh's own build (examples and tests included)
# must have no rule cycle under Ninja or make. A custom target whose output file
# has the target's own name is one: Ninja refuses the whole build ("multiple
# rules generate ..."), make warns ("Circular ... dependency dropped"). Dry-runs
# the build tree BIN with its own tool (BIN_GENERATOR: Ninja or Unix Makefiles),
# and, when BIN is not a Ninja build, generates one under BIN/generator-ninja and
# dry-runs it too. Without ninja that second check is left out; when nothing
# could be checked, it prints a line that CTest reads as "skipped".
#   cmake -DBIN=build -DSRC=. -DBIN_GENERATOR="Unix Makefiles" -P cmake/test_generators.cmake
set(cycle "multiple rules generate|names itself as an input|Circular[^\n]*dependency dropped")
set(checked 0)
function(dry_run dir tool)
  message("+ ${tool} -n (in ${dir})")
  execute_process(COMMAND ${tool} -n WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR out MATCHES "${cycle}")
    string(REGEX MATCHALL "[^\n]*(${cycle}|error)[^\n]*" bad "${out}")
    string(REPLACE ";" "\n" bad "${bad}")
    message(FATAL_ERROR "${tool} -n in ${dir} failed (${rc}) or found a rule cycle:\n${bad}")
  endif()
endfunction()

find_program(ninja_tool ninja)
find_program(make_tool NAMES gmake make)
if(BIN_GENERATOR STREQUAL "Unix Makefiles" AND make_tool)
  dry_run(${BIN} ${make_tool})
  math(EXPR checked "${checked} + 1")
elseif(BIN_GENERATOR STREQUAL "Ninja" AND ninja_tool)
  dry_run(${BIN} ${ninja_tool})
  math(EXPR checked "${checked} + 1")
endif()
if(NOT BIN_GENERATOR STREQUAL "Ninja")
  if(ninja_tool)
    set(dir ${BIN}/generator-ninja)
    file(REMOVE_RECURSE ${dir})
    message("+ cmake -G Ninja -S ${SRC} -B ${dir}")
    execute_process(COMMAND ${CMAKE_COMMAND} -G Ninja -S ${SRC} -B ${dir} RESULT_VARIABLE rc
                    OUTPUT_VARIABLE out ERROR_VARIABLE out)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "${out}\ncmake -G Ninja failed (${rc})")
    endif()
    dry_run(${dir} ${ninja_tool})
    file(REMOVE_RECURSE ${dir})
    math(EXPR checked "${checked} + 1")
  else()
    message("no ninja on PATH (apt-get install ninja-build): the Ninja build is not checked")
  endif()
endif()
if(checked EQUAL 0)
  message("gpuh test skipped: neither ninja nor the build tree's make to check with")
endif()
