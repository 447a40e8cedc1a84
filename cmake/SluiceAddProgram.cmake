# sluice_add_program(<target> <file.mlir>
#   [BACKENDS <cpu|vulkan|hip>...]  (default: cpu)
#   [LAYOUT <soa|aos>]              (default: soa)
#   [CHECK_BOUNDS]
#   [CPU <generic|native|x86-64-v2|x86-64-v3|x86-64-v4>]  (default: generic)
#   [CPU_SIMD <N>]                  (lanes a CPU stage kernel runs at a time
#                                    in vector registers; default 0: one)
#   [CAPACITIES <NAME=N>...]
#   [HIP_INDEX_BITS <32|64>]        (the width of index inside the HIP
#                                    kernels; default 64, 32 as on SPIR-V:
#                                    docs/hip-backend.md, "Index width")
#   [OUTPUT <path>])                (default: <binary dir>/<target>.sluice)
#
# Compiles the wave program <file.mlir> into a compiled-program artifact at
# build time, with `sluice-translate --sluice-to-artifact` (docs/artifact.md),
# the way mlir_tablegen runs mlir-tblgen: one add_custom_command that DEPENDS
# on the .mlir file (and on sluice-translate), and a custom target <target>
# that builds it. Make your executable depend on it and pass it the path:
#
#   sluice_add_program(shadow shadow_pool.mlir BACKENDS cpu vulkan)
#   add_dependencies(app shadow)
#   target_compile_definitions(app PRIVATE
#     SHADOW_ARTIFACT="$<TARGET_PROPERTY:shadow,SLUICE_ARTIFACT>")
#
# The artifact's absolute path is the target's SLUICE_ARTIFACT property and
# the variable <target>_ARTIFACT in the caller's scope. A relative <file.mlir>
# is relative to the current source directory, a relative OUTPUT to the
# current binary directory.
#
# sluice-translate is the Sluice build's own target when there is one (inside
# the Sluice tree), else the installed Sluice::sluice-translate that
# find_package(Sluice) imports.
function(sluice_add_program target source)
  cmake_parse_arguments(PARSE_ARGV 2 ARG "CHECK_BOUNDS" "LAYOUT;CPU;CPU_SIMD;HIP_INDEX_BITS;OUTPUT"
                        "BACKENDS;CAPACITIES")
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "sluice_add_program(${target}): unknown arguments: "
                        "${ARG_UNPARSED_ARGUMENTS}")
  endif()
  if(TARGET sluice-translate)
    set(translate sluice-translate)
    set(translate_depends sluice-translate)
  elseif(TARGET Sluice::sluice-translate)
    set(translate Sluice::sluice-translate)
    set(translate_depends $<TARGET_FILE:Sluice::sluice-translate>)
  else()
    message(FATAL_ERROR "sluice_add_program(${target}): no sluice-translate "
                        "(this Sluice was built without the compiler, "
                        "SLUICE_BUILD_COMPILER=OFF)")
  endif()

  if(NOT ARG_BACKENDS)
    set(ARG_BACKENDS cpu)
  endif()
  foreach(backend IN LISTS ARG_BACKENDS)
    if(NOT backend MATCHES "^(cpu|vulkan|hip)$")
      message(FATAL_ERROR "sluice_add_program(${target}): BACKENDS takes cpu, "
                          "vulkan and hip, got '${backend}'")
    endif()
  endforeach()
  if(NOT ARG_LAYOUT)
    set(ARG_LAYOUT soa)
  endif()
  if(NOT ARG_LAYOUT MATCHES "^(soa|aos)$")
    message(FATAL_ERROR "sluice_add_program(${target}): LAYOUT must be soa or "
                        "aos, got '${ARG_LAYOUT}'")
  endif()
  if(NOT ARG_CPU)
    set(ARG_CPU generic)
  endif()
  if(NOT ARG_CPU MATCHES "^(generic|native|x86-64-v[234])$")
    message(FATAL_ERROR "sluice_add_program(${target}): CPU must be generic, "
                        "native or x86-64-v2|v3|v4, got '${ARG_CPU}'")
  endif()

  get_filename_component(source "${source}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT ARG_OUTPUT)
    set(ARG_OUTPUT "${target}.sluice")
  endif()
  get_filename_component(output "${ARG_OUTPUT}" ABSOLUTE
                         BASE_DIR "${CMAKE_CURRENT_BINARY_DIR}")
  get_filename_component(output_dir "${output}" DIRECTORY)

  string(REPLACE ";" "," backends "${ARG_BACKENDS}")
  set(flags --sluice-to-artifact --sluice-backends=${backends}
            --sluice-layout=${ARG_LAYOUT} --sluice-cpu=${ARG_CPU})
  if(ARG_CHECK_BOUNDS)
    list(APPEND flags --sluice-check-bounds)
  endif()
  if(ARG_CPU_SIMD)
    if(NOT ARG_CPU_SIMD MATCHES "^[0-9]+$")
      message(FATAL_ERROR "sluice_add_program(${target}): CPU_SIMD takes a "
                          "lane count, got '${ARG_CPU_SIMD}'")
    endif()
    list(APPEND flags --sluice-cpu-simd=${ARG_CPU_SIMD})
  endif()
  foreach(capacity IN LISTS ARG_CAPACITIES)
    list(APPEND flags --sluice-capacity=${capacity})
  endforeach()
  if(ARG_HIP_INDEX_BITS)
    if(NOT ARG_HIP_INDEX_BITS MATCHES "^(32|64)$")
      message(FATAL_ERROR "sluice_add_program(${target}): HIP_INDEX_BITS must "
                          "be 32 or 64, got '${ARG_HIP_INDEX_BITS}'")
    endif()
    list(APPEND flags --sluice-hip-index-bitwidth=${ARG_HIP_INDEX_BITS})
  endif()

  add_custom_command(OUTPUT "${output}"
    COMMAND ${CMAKE_COMMAND} -E make_directory "${output_dir}"
    COMMAND $<TARGET_FILE:${translate}> ${flags} "${source}" -o "${output}"
    DEPENDS "${source}" ${translate_depends}
    COMMENT "Compiling wave program ${source} for ${backends}"
    VERBATIM)
  add_custom_target(${target} DEPENDS "${output}")
  set_target_properties(${target} PROPERTIES SLUICE_ARTIFACT "${output}")
  set(${target}_ARTIFACT "${output}" PARENT_SCOPE)
endfunction()
