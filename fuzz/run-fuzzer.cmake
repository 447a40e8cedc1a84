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
execute_process(
  COMMAND ${FUZZER} -max_total_time=${SECONDS} -timeout=20 -rss_limit_mb=4096
          -max_len=8192 -print_final_stats=1 ${CORPUS}
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "fuzzer exited with ${rc}: see the crash input above")
endif()
