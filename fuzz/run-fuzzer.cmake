# Seeds a fresh corpus from every .mlir file under SEEDS (split at `// -----`), then
# runs the fuzzer for SECONDS. Any crash, sanitizer report or timeout fails the test.
file(REMOVE_RECURSE ${CORPUS})
file(MAKE_DIRECTORY ${CORPUS})
file(GLOB_RECURSE seeds ${SEEDS}/*.mlir)
set(count 0)
foreach(seed ${seeds})
  file(READ ${seed} text)
  string(REPLACE "// -----" ";" pieces "${text}")
  foreach(piece ${pieces})
    math(EXPR count "${count} + 1")
    file(WRITE ${CORPUS}/seed-${count}.mlir "${piece}")
  endforeach()
endforeach()
message(STATUS "fuzz: ${count} seed inputs from ${SEEDS}")
if(count EQUAL 0)
  message(FATAL_ERROR "fuzz: no seed input under ${SEEDS}")
endif()
# libFuzzer reads -max_total_time=0 as "no limit".
if(NOT SECONDS GREATER 0)
  message(FATAL_ERROR "fuzz: SECONDS must be a positive number of seconds, got '${SECONDS}'")
endif()
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=20 -rss_limit_mb=4096
          -max_len=8192 -print_final_stats=1 ${CORPUS}
  RESULT_VARIABLE rc ERROR_VARIABLE log)
message("${log}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer exited with ${rc}: see the crash input above")
endif()
# A run that executed no input checked nothing.
if(NOT log MATCHES "stat::number_of_executed_units: ([0-9]+)" OR CMAKE_MATCH_1 EQUAL 0)
  message(FATAL_ERROR "fuzz: the fuzzer executed no input (no stat::number_of_executed_units > 0 in its final stats)")
endif()
message(STATUS "fuzz: ${CMAKE_MATCH_1} inputs executed")
