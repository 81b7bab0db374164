# The compile.install test: installs gpuh from the build tree BIN into a scratch
# prefix, then configures, builds and runs tests/consumer against it with
# find_package(gpuh). Fails at the first step that fails.
set(prefix ${BIN}/install-test)
set(consumer ${BIN}/install-test-consumer)
file(REMOVE_RECURSE ${prefix} ${consumer})
foreach(step
    "${CMAKE_COMMAND};--install;${BIN};--prefix;${prefix}"
    "${CMAKE_COMMAND};-S;${SRC}/tests/consumer;-B;${consumer};-DCMAKE_PREFIX_PATH=${prefix}"
    "${CMAKE_COMMAND};--build;${consumer}"
    "${consumer}/consumer")
  execute_process(COMMAND ${step} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "step failed (${rc}): ${step}")
  endif()
endforeach()
