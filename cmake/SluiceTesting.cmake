# Helpers shared by the test suites.
#
# sluice_add_runtime_test(<name>
#   SOURCES <test sources...>
#   LIBS <runtime library targets to link in the plain build...>
#   LIB_SOURCES <runtime sources recompiled into the sanitizer variants...>
#   [SANITIZER_ENV <VAR=VALUE...>])
#
# Builds <name> (tests discovered one by one into ctest) and, when
# SLUICE_ENABLE_SANITIZER_TESTS is on, <name>-asan (ASan+UBSan) and <name>-tsan (TSan),
# each registered as a single ctest that runs the whole binary. The sanitizer variants
# compile the library sources themselves so every runtime line is instrumented.
# SANITIZER_ENV lets a suite shrink its randomized workloads under the sanitizers.
#
# sluice_add_asan_test(<name>
#   SOURCES <test sources...>
#   LIB_SOURCES <runtime sources under test, instrumented...>
#   LIBS <plain libraries for everything else...>
#   [LABELS <labels...>] [ENVIRONMENT <VAR=VALUE...>])
#
# Only when SLUICE_ENABLE_SANITIZER_TESTS is on: <name> under ASan+UBSan,
# compiling the test and LIB_SOURCES instrumented and linking the rest of the
# runtime uninstrumented (so a suite builds only what it checks), registered
# as one ctest with leak detection on and the Vulkan driver's own leaks
# suppressed (SLUICE_LSAN_SUPPRESSIONS). Otherwise <name> is left out.
#
# sluice_add_command_test(NAME <name> COMMAND <command...> EXIT_CODE <code>
#   [MATCH <regex...>] [LABELS <labels...>] [PROPERTIES <ctest properties...>])
#
# Passes iff the command exits with exactly <code> and every regex matches its
# stdout and stderr together (cmake/run-command-test.cmake), so neither a crash
# nor another exit status passes for the expected text. A target name as the
# first word of COMMAND becomes its file.
#
# sluice_left_out(<name> <reason> [LABELS <labels...>])
#
# For a test that configure does not build here: prints
# "-- Sluice: left out <name>: <reason>" and registers <name> as a ctest entry
# that ctest reports as skipped, printing "skipped: <reason>".
#
# sluice_discover_tests(<target> DISCOVERY_TIMEOUT <seconds> LABELS <labels...>)
#
# gtest_discover_tests with every label on every discovered test (its
# PROPERTIES option keeps only the first item of a list).
#
# Every GoogleTest binary links SluiceGTestMain (unittests/SluiceGTestMain.cpp):
# a run whose filter selects no test fails, and a run whose tests all skipped
# exits 77 (SLUICE_SKIP_RETURN_CODE).
#
# Tests labelled ci-required must run in CI: scripts/ctest-summary (make check)
# fails when CI=true and one of them was skipped.
set(SLUICE_SKIP_RETURN_CODE 77)
set(SLUICE_GTEST_MAIN ${PROJECT_SOURCE_DIR}/unittests/SluiceGTestMain.cpp)
set(SLUICE_RUN_COMMAND_TEST ${CMAKE_CURRENT_LIST_DIR}/run-command-test.cmake)
set(SLUICE_LSAN_SUPPRESSIONS ${CMAKE_CURRENT_LIST_DIR}/lsan-vulkan-driver.supp)
set(SLUICE_ASAN_FLAGS -fsanitize=address,undefined -fno-sanitize-recover=all
  -fno-omit-frame-pointer)
find_package(Threads REQUIRED)

function(sluice_add_runtime_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LIB_SOURCES;SANITIZER_ENV" ${ARGN})
  add_executable(${name} ${ARG_SOURCES} ${SLUICE_GTEST_MAIN})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest Threads::Threads)
  sluice_add_warnings(${name})
  sluice_discover_tests(${name} DISCOVERY_TIMEOUT 120 LABELS runtime)

  if(NOT SLUICE_ENABLE_SANITIZER_TESTS)
    foreach(kind asan tsan)
      sluice_left_out(${name}-${kind} "SLUICE_ENABLE_SANITIZER_TESTS is OFF"
        LABELS "runtime;sanitizer;ci-required")
    endforeach()
    return()
  endif()
  foreach(kind asan tsan)
    if(kind STREQUAL "asan")
      set(flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    else()
      set(flags -fsanitize=thread -fno-omit-frame-pointer)
    endif()
    add_executable(${name}-${kind} ${ARG_SOURCES} ${ARG_LIB_SOURCES} ${SLUICE_GTEST_MAIN})
    target_include_directories(${name}-${kind} PRIVATE ${SLUICE_RUNTIME_INCLUDE_DIRS})
    target_compile_options(${name}-${kind} PRIVATE ${flags} -O1 -g)
    target_link_options(${name}-${kind} PRIVATE ${flags})
    target_link_libraries(${name}-${kind} PRIVATE GTest::gtest Threads::Threads)
    sluice_add_warnings(${name}-${kind})
    add_test(NAME ${name}-${kind} COMMAND ${name}-${kind})
    set_tests_properties(${name}-${kind} PROPERTIES
      LABELS "runtime;sanitizer;ci-required"
      ENVIRONMENT "SLUICE_UNDER_SANITIZER=${kind};${ARG_SANITIZER_ENV}"
      SKIP_RETURN_CODE ${SLUICE_SKIP_RETURN_CODE}
      TIMEOUT 900)
  endforeach()
endfunction()

function(sluice_add_asan_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIB_SOURCES;LIBS;LABELS;ENVIRONMENT" ${ARGN})
  if(NOT SLUICE_ENABLE_SANITIZER_TESTS)
    sluice_left_out(${name} "SLUICE_ENABLE_SANITIZER_TESTS is OFF"
      LABELS "sanitizer;${ARG_LABELS}")
    return()
  endif()
  add_executable(${name} ${ARG_SOURCES} ${ARG_LIB_SOURCES} ${SLUICE_GTEST_MAIN})
  target_include_directories(${name} PRIVATE ${SLUICE_RUNTIME_INCLUDE_DIRS})
  target_compile_options(${name} PRIVATE ${SLUICE_ASAN_FLAGS} -O1 -g)
  target_link_options(${name} PRIVATE ${SLUICE_ASAN_FLAGS})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest Threads::Threads)
  sluice_add_warnings(${name})
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES
    LABELS "sanitizer;${ARG_LABELS}"
    ENVIRONMENT "SLUICE_UNDER_SANITIZER=asan;ASAN_OPTIONS=detect_leaks=1;LSAN_OPTIONS=suppressions=${SLUICE_LSAN_SUPPRESSIONS}:print_suppressions=0;${ARG_ENVIRONMENT}"
    SKIP_RETURN_CODE ${SLUICE_SKIP_RETURN_CODE}
    TIMEOUT 900)
endfunction()

function(sluice_discover_tests target)
  cmake_parse_arguments(ARG "" "DISCOVERY_TIMEOUT" "LABELS" ${ARGN})
  gtest_discover_tests(${target} DISCOVERY_TIMEOUT ${ARG_DISCOVERY_TIMEOUT}
    TEST_LIST ${target}_TESTS)
  # Read by ctest after the discovered tests (TEST_INCLUDE_FILES in order).
  set(labels_file ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${labels_file}
    "if(DEFINED ${target}_TESTS)\n"
    "  set_tests_properties(\${${target}_TESTS} PROPERTIES LABELS \"${ARG_LABELS}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${labels_file})
endfunction()

function(sluice_add_command_test)
  cmake_parse_arguments(PARSE_ARGV 0 ARG "" "NAME;EXIT_CODE" "COMMAND;MATCH;LABELS;PROPERTIES")
  if(NOT ARG_NAME OR NOT ARG_COMMAND OR NOT DEFINED ARG_EXIT_CODE)
    message(FATAL_ERROR "sluice_add_command_test needs NAME, COMMAND and EXIT_CODE")
  endif()
  list(GET ARG_COMMAND 0 program)
  if(TARGET ${program})
    list(REMOVE_AT ARG_COMMAND 0)
    list(PREPEND ARG_COMMAND "$<TARGET_FILE:${program}>")
  endif()
  # Bracket arguments keep the words and regexes verbatim in the spec file.
  set(spec "set(TEST_EXIT_CODE ${ARG_EXIT_CODE})\n")
  foreach(field COMMAND MATCH)
    string(APPEND spec "set(TEST_${field}")
    foreach(item IN LISTS ARG_${field})
      string(APPEND spec "\n  [==[${item}]==]")
    endforeach()
    string(APPEND spec ")\n")
  endforeach()
  set(spec_file ${CMAKE_CURRENT_BINARY_DIR}/command-tests/${ARG_NAME}.cmake)
  file(GENERATE OUTPUT ${spec_file} CONTENT "${spec}")
  add_test(NAME ${ARG_NAME}
    COMMAND ${CMAKE_COMMAND} -DSPEC=${spec_file} -P ${SLUICE_RUN_COMMAND_TEST})
  # PARSE_ARGV keeps a quoted "a;b" as one escaped item: labels are a list.
  string(REPLACE "\\;" ";" labels "${ARG_LABELS}")
  set_tests_properties(${ARG_NAME} PROPERTIES LABELS "${labels}" ${ARG_PROPERTIES})
endfunction()

function(sluice_left_out name reason)
  cmake_parse_arguments(ARG "" "" "LABELS" ${ARGN})
  message(STATUS "Sluice: left out ${name}: ${reason}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} -E echo "skipped: ${reason}")
  set_tests_properties(${name} PROPERTIES
    LABELS "${ARG_LABELS}" SKIP_REGULAR_EXPRESSION "^skipped: ")
endfunction()
