# The compile.generators test: generates gpuh's own build (examples and tests
# included) with Ninja and with Unix Makefiles in scratch folders under BIN, and
# asks each tool for a dry run of the whole build. Fails on any error or on a
# dependency cycle (Ninja: "multiple rules generate", "names itself as an
# input"; make: "Circular ... dependency dropped"), as a custom target whose
# output file has the target's own name gives. Without ninja or make, that one
# is left out, said in a line that CTest reads as "skipped" when both are.
#   cmake -DBIN=build -DSRC=. -P cmake/test_generators.cmake
set(ran 0)
foreach(gen "Ninja" "Unix Makefiles")
  if(gen STREQUAL "Ninja")
    find_program(tool ninja)
    set(dry_run ${tool} -n)
  else()
    find_program(tool NAMES gmake make)
    set(dry_run ${tool} -n)
  endif()
  if(NOT tool)
    message("no ${gen} tool on PATH: the ${gen} build is not checked")
    unset(tool CACHE)
    unset(tool)
    continue()
  endif()
  string(MAKE_C_IDENTIFIER ${gen} id)
  set(dir ${BIN}/generator-${id})
  file(REMOVE_RECURSE ${dir})
  message("+ cmake -G \"${gen}\" -S ${SRC} -B ${dir}")
  execute_process(COMMAND ${CMAKE_COMMAND} -G ${gen} -S ${SRC} -B ${dir} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${out}\ncmake -G \"${gen}\" failed (${rc})")
  endif()
  message("+ ${dry_run}")
  execute_process(COMMAND ${dry_run} WORKING_DIRECTORY ${dir} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0 OR out MATCHES "multiple rules generate|names itself as an input|Circular[^\n]*dependency dropped")
    string(REGEX MATCHALL "[^\n]*(multiple rules generate|names itself as an input|Circular|error)[^\n]*" bad "${out}")
    string(REPLACE ";" "\n" bad "${bad}")
    message(FATAL_ERROR "${gen}: the dry run of the whole build failed (${rc}) or found a cycle:\n${bad}")
  endif()
  math(EXPR ran "${ran} + 1")
  unset(tool CACHE)
  unset(tool)
endforeach()
if(ran EQUAL 0)
  message("gpuh test skipped: neither ninja nor make on PATH")
endif()
