# Runs one sluice_add_command_test (cmake/SluiceTesting.cmake). SPEC is a file
# that sets TEST_COMMAND, TEST_EXIT_CODE and TEST_MATCH. Prints the command's
# output, then fails unless the exit status is exactly TEST_EXIT_CODE and every
# TEST_MATCH regex matches stdout and stderr together.
include(${SPEC})
execute_process(COMMAND ${TEST_COMMAND}
  RESULT_VARIABLE status OUTPUT_VARIABLE output ERROR_VARIABLE output)
message("${output}")
set(problems)
if(NOT "${status}" STREQUAL "${TEST_EXIT_CODE}")
  list(APPEND problems "exit status '${status}', expected ${TEST_EXIT_CODE}")
endif()
foreach(regex IN LISTS TEST_MATCH)
  if(NOT output MATCHES "${regex}")
    list(APPEND problems "no match in the output for: ${regex}")
  endif()
endforeach()
list(LENGTH TEST_MATCH patterns)
if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "command test failed:\n  ${text}")
endif()
message(STATUS "exit status ${status} as expected; ${patterns} pattern(s) matched")
