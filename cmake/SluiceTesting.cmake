# Helpers shared by the runtime's GoogleTest suites.
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
find_package(Threads REQUIRED)

function(sluice_add_runtime_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LIB_SOURCES;SANITIZER_ENV" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} GTest::gtest_main Threads::Threads)
  sluice_add_warnings(${name})
  gtest_discover_tests(${name} DISCOVERY_TIMEOUT 120 PROPERTIES LABELS "runtime")

  if(NOT SLUICE_ENABLE_SANITIZER_TESTS)
    return()
  endif()
  foreach(kind asan tsan)
    if(kind STREQUAL "asan")
      set(flags -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
    else()
      set(flags -fsanitize=thread -fno-omit-frame-pointer)
    endif()
    add_executable(${name}-${kind} ${ARG_SOURCES} ${ARG_LIB_SOURCES})
    target_include_directories(${name}-${kind} PRIVATE ${SLUICE_RUNTIME_INCLUDE_DIRS})
    target_compile_options(${name}-${kind} PRIVATE ${flags} -O1 -g)
    target_link_options(${name}-${kind} PRIVATE ${flags})
    target_link_libraries(${name}-${kind} PRIVATE GTest::gtest_main Threads::Threads)
    sluice_add_warnings(${name}-${kind})
    add_test(NAME ${name}-${kind} COMMAND ${name}-${kind})
    set_tests_properties(${name}-${kind} PROPERTIES
      LABELS "runtime;sanitizer"
      ENVIRONMENT "SLUICE_UNDER_SANITIZER=${kind};${ARG_SANITIZER_ENV}"
      TIMEOUT 900)
  endforeach()
endfunction()
