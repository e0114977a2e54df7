# -*- Python -*-
# Lit configuration of the fp8-mlir regression suite.

import os

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FP8MLIR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fp8_obj_root, "test")
# Unit/ has its own configuration (GoogleTest format); Inputs/ hold data.
config.excludes = ["Inputs", "Unit", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%shlibext", config.llvm_shlib_ext))
config.substitutions.append(("%fp8_src_root", config.fp8_src_root))
config.substitutions.append(("%fp8_obj_root", config.fp8_obj_root))
config.substitutions.append(("%fp8_lib_dir", config.fp8_lib_dir))
config.substitutions.append(("%mlir_cmake_dir", config.mlir_cmake_dir))
config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%cmake", config.cmake_command))
config.substitutions.append(("%cxx", config.cxx_compiler))
config.substitutions.append(("%cc", config.c_compiler))
config.substitutions.append(("%generator", config.cmake_generator))
config.substitutions.append(("%make_program", config.make_program))
config.substitutions.append(
    ("%fp8_plugin", os.path.join(config.fp8_lib_dir, "fp8-plugin.so"))
)
config.substitutions.append(("%runner_utils", config.fp8_runner_utils))
config.substitutions.append(("%c_runner_utils", config.fp8_c_runner_utils))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Sanitized builds: uninstrumented libMLIR.so allocates what instrumented code
# frees and vice versa, which trips the container-overflow check spuriously.
if config.fp8_sanitizers:
    config.environment["ASAN_OPTIONS"] = "detect_container_overflow=0:detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.available_features.add("sanitizers")

tool_dirs = [config.fp8_tools_dir, config.llvm_tools_dir]
tools = [
    "fp8-opt",
    ToolSubst("not", unresolved="fatal"),
    ToolSubst("split-file", unresolved="fatal"),
    ToolSubst("mlir-opt", unresolved="fatal"),
    ToolSubst("mlir-runner", unresolved="ignore"),
]
llvm_config.add_tool_substitutions(tools, tool_dirs)

if config.fp8_ptxas and os.path.exists(config.fp8_ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", config.fp8_ptxas))
if (
    config.fp8_mlir_runner
    and os.path.exists(config.fp8_mlir_runner)
    and os.path.exists(config.fp8_runner_utils)
    and os.path.exists(config.fp8_c_runner_utils)
):
    config.available_features.add("mlir-runner")
if config.fp8_has_cuda_gpu:
    config.available_features.add("cuda-gpu")
