# gpuh-simcc's lexer and rewrite (included at the end of cmake/sim_tests.cmake), label sim:
#   sim.simcc.golden.<case>   tests/simcc/<case>.cu through `gpuh-simcc --rewrite`, compared
#                             byte for byte with <case>.expected.cpp (tests/simcc/run_golden.py;
#                             its --update rewrites them): a plain launch, raw strings, launches
#                             in multi-line #defines (splices before <<< and before the closing
#                             parenthesis among them), digit separators, template arguments,
#                             operator templates, comments and literals, a non-UTF-8 CRLF file,
#                             a UTF-8 byte order mark, explicit integer casts in device code
#   sim.simcc.lexer           tests/simcc/e2e_lexer.cu built by gpuh-simcc and run
file(GLOB gpuh_simcc_cases CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/tests/simcc/*.expected.cpp)
foreach(expected IN LISTS gpuh_simcc_cases)
  get_filename_component(case ${expected} NAME)
  string(REPLACE ".expected.cpp" "" case ${case})
  add_test(NAME sim.simcc.golden.${case}
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/simcc/run_golden.py ${gpuh_simcc} ${case})
  set_tests_properties(sim.simcc.golden.${case} PROPERTIES LABELS sim TIMEOUT 60)
endforeach()

# Built as sim.simcc builds tests/sim_plain.cu, in the same folder of its own.
set(lexer_e2e ${CMAKE_CURRENT_BINARY_DIR}/gpuh_simcc/sim_simcc_lexer${CMAKE_EXECUTABLE_SUFFIX})
get_filename_component(lexer_e2e_dir ${lexer_e2e} DIRECTORY)
add_custom_command(OUTPUT ${lexer_e2e}
                   COMMAND ${CMAKE_COMMAND} -E make_directory ${lexer_e2e_dir}
                   COMMAND ${CMAKE_COMMAND} -E env GPUH_SIMCC_CXX=${CMAKE_CXX_COMPILER} ${Python3_EXECUTABLE}
                           ${gpuh_simcc} ${gpuh_c_warnings} ${PROJECT_SOURCE_DIR}/tests/simcc/e2e_lexer.cu
                           -o ${lexer_e2e}
                   DEPENDS ${PROJECT_SOURCE_DIR}/tests/simcc/e2e_lexer.cu ${gpuh_simcc} ${PROJECT_SOURCE_DIR}/gpuh_sim.h COMMENT "gpuh-simcc tests/simcc/e2e_lexer.cu"
                   VERBATIM)
add_custom_target(sim_simcc_lexer ALL DEPENDS ${lexer_e2e})
gpuh_sim_test(sim.simcc.lexer ${lexer_e2e} EXPECT "e2e_lexer: 0 wrong values: PASS")
