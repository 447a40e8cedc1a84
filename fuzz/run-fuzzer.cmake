# One fuzz test (fuzz/CMakeLists.txt): runs every regression input of
# REGRESSIONS, then RUNS inputs mutated from a copy of CORPUS with -seed=SEED
# (stopped after SECONDS), and prints the coverage. Any crash, sanitizer
# report or timeout fails the test; its input is left in WORK/findings/.
# Inputs that found new coverage are left in WORK/corpus/, where
# scripts/fuzz-corpus merges them into CORPUS.
foreach(var FUZZER NAME CORPUS REGRESSIONS WORK SEED RUNS SECONDS MAX_LEN)
  if("${${var}}" STREQUAL "")
    message(FATAL_ERROR "fuzz: ${var} is not set")
  endif()
endforeach()
# libFuzzer reads -max_total_time=0 and -runs=-1 as "no limit".
foreach(var RUNS SECONDS)
  if(NOT ${var} GREATER 0)
    message(FATAL_ERROR "fuzz: ${var} must be a positive number, got '${${var}}'")
  endif()
endforeach()

file(GLOB corpus_inputs ${CORPUS}/*)
list(LENGTH corpus_inputs corpus_count)
if(corpus_count EQUAL 0)
  message(FATAL_ERROR "fuzz: no input in ${CORPUS} (scripts/fuzz-corpus seeds it from test/)")
endif()
file(GLOB regression_inputs ${REGRESSIONS}/*)
list(FILTER regression_inputs EXCLUDE REGEX "/README[^/]*$")
list(LENGTH regression_inputs regression_count)

file(REMOVE_RECURSE ${WORK}/corpus ${WORK}/findings)
file(MAKE_DIRECTORY ${WORK}/corpus ${WORK}/findings)
file(COPY ${corpus_inputs} DESTINATION ${WORK}/corpus)
set(options -timeout=20 -rss_limit_mb=4096 -max_len=${MAX_LEN}
    -artifact_prefix=${WORK}/findings/)

# Each regression input once, by name, so a failure names the input.
if(regression_count GREATER 0)
  execute_process(COMMAND ${FUZZER} ${options} ${regression_inputs}
    RESULT_VARIABLE rc ERROR_VARIABLE log OUTPUT_VARIABLE out)
  if(NOT rc EQUAL 0)
    message("${out}${log}")
    message(FATAL_ERROR "fuzz ${NAME}: a regression input of ${REGRESSIONS} fails again (exit ${rc}): see above")
  endif()
endif()
message(STATUS "fuzz ${NAME}: ${regression_count} regression inputs pass")

execute_process(
  COMMAND ${FUZZER} ${options} -seed=${SEED} -runs=${RUNS}
          -max_total_time=${SECONDS} -print_final_stats=1 ${WORK}/corpus
  RESULT_VARIABLE rc ERROR_VARIABLE log OUTPUT_VARIABLE out)
message("${out}${log}")
if(NOT rc EQUAL 0)
  file(GLOB findings ${WORK}/findings/*)
  message(FATAL_ERROR "fuzz ${NAME}: the fuzzer exited with ${rc} on ${findings}: "
    "fix it and keep the input in ${REGRESSIONS}/")
endif()
# A run that executed no input checked nothing.
if(NOT log MATCHES "stat::number_of_executed_units: ([0-9]+)" OR CMAKE_MATCH_1 EQUAL 0)
  message(FATAL_ERROR "fuzz ${NAME}: the fuzzer executed no input (no stat::number_of_executed_units > 0 in its final stats)")
endif()
set(executed ${CMAKE_MATCH_1})
# The last status line: "#N DONE cov: C ft: F corp: U/S ...".
string(REGEX MATCHALL "cov: [0-9]+ ft: [0-9]+ corp: [0-9]+" coverage "${log}")
list(POP_BACK coverage final)
file(GLOB grown ${WORK}/corpus/*)
list(LENGTH grown grown_count)
math(EXPR new_count "${grown_count} - ${corpus_count}")
message(STATUS "fuzz ${NAME}: ${executed} inputs executed (seed ${SEED}), "
  "${corpus_count} corpus inputs, ${new_count} new; final ${final}")
