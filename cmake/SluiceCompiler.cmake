# sluice_add_compiler_library(<name> <sources...> [DEPENDS <tablegen targets>] [LINK_LIBS <libs>])
# A static library of the compiler, linked against the MLIR and LLVM shared libraries,
# installed and exported as Sluice::<name>, and collected into SLUICE_COMPILER_LIBS.
function(sluice_add_compiler_library name)
  cmake_parse_arguments(ARG "" "" "DEPENDS;LINK_LIBS" ${ARGN})
  add_library(${name} ${ARG_UNPARSED_ARGUMENTS})
  if(ARG_DEPENDS)
    add_dependencies(${name} ${ARG_DEPENDS})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_LINK_LIBS} MLIR LLVM)
  target_include_directories(${name} PUBLIC
    $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
    $<BUILD_INTERFACE:${PROJECT_BINARY_DIR}/include>
    $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
  # LLVM/MLIR headers live outside both trees (Debian's /usr/lib/llvm-22/include).
  target_include_directories(${name} SYSTEM PUBLIC ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  set_target_properties(${name} PROPERTIES POSITION_INDEPENDENT_CODE ON)
  sluice_add_warnings(${name})
  install(TARGETS ${name} EXPORT SluiceTargets
    ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  set_property(GLOBAL APPEND PROPERTY SLUICE_COMPILER_LIBS ${name})
  # Absolute sources and tablegen targets, for builds that recompile the compiler
  # with other flags (the fuzzer instruments every line of ours).
  foreach(src ${ARG_UNPARSED_ARGUMENTS})
    set_property(GLOBAL APPEND PROPERTY SLUICE_COMPILER_SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/${src})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY SLUICE_COMPILER_TABLEGEN ${ARG_DEPENDS})
endfunction()
