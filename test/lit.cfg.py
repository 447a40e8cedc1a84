# -*- Python -*-
import os
import sys

import lit.formats
from lit.llvm import llvm_config

config.name = "Sluice"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.sluice_obj_root, "test")

config.substitutions.append(("%sluice_src_root", config.sluice_src_root))
config.substitutions.append(("%sluice_obj_root", config.sluice_obj_root))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
# `%expect-exit CODE tool ...` passes iff the tool exits with exactly CODE, so
# that neither a crash nor another error status can pass for the documented
# error (`not` accepts any non-zero status).
config.substitutions.append(
    ("%expect-exit",
     "%s %s" % (sys.executable,
                os.path.join(config.test_source_root, "lit-tools", "expect-exit"))))

llvm_config.with_system_environment(["HOME", "PATH", "TMPDIR", "CCACHE_DIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.sluice_tools_dir, append_path=True)

tools = ["sluice-opt", "sluice-translate", "sluice-run", "sluice-vulkan-run"]
llvm_config.add_tool_substitutions(tools, [config.sluice_tools_dir])

# The ASan+UBSan build of sluice-vulkan-run (SLUICE_ENABLE_SANITIZER_TESTS).
if os.path.exists(os.path.join(config.sluice_tools_dir, "sluice-vulkan-run-asan")):
    config.available_features.add("sluice-vulkan-run-asan")
    llvm_config.add_tool_substitutions(["sluice-vulkan-run-asan"], [config.sluice_tools_dir])

# SPIR-V validator and disassembler (SPIRV-Tools, from PATH), for test/Target/SPIRV.
spirv_tools = ["spirv-val", "spirv-dis"]
llvm_config.add_tool_substitutions(spirv_tools,
                                   config.environment["PATH"].split(os.pathsep))
