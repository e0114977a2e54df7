# -*- Python -*-
# Lit configuration of the fp8-mlir regression suite.

import os
import subprocess

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "FP8MLIR"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test", ".py", ".c"]
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
# The numpy oracle (python/fp8_mlir) for execution tests, and the C API
# library the package's compiler binds.
config.environment["PYTHONPATH"] = os.path.join(config.fp8_src_root, "python")
config.environment["FP8_MLIR_LIBRARY"] = os.path.join(config.fp8_lib_dir, "libFP8MLIR-C.so")
config.substitutions.append(("%fp8_capi_lib", config.environment["FP8_MLIR_LIBRARY"]))
# The PyTorch front end's tests need torch in the test interpreter.
if (
    subprocess.run(
        [config.python_executable, "-c", "import torch"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    ).returncode
    == 0
):
    config.available_features.add("torch")
    # Whether torch's CPU bf16 matmul sums in f32 and rounds once, as eager
    # PyTorch's bf16 baseline is taken to (some builds, such as Debian's
    # torch 1.13 on CPUs without AVX-512, sum in bf16: 256 + 4095 ones stays
    # 256).
    probe = (
        "import torch; a = torch.ones(1, 4096, dtype=torch.bfloat16); "
        "a[0, 0] = 256; b = torch.ones(4096, 1, dtype=torch.bfloat16); "
        "raise SystemExit(0 if (a @ b).item() == 4352.0 else 1)"
    )
    if (
        subprocess.run(
            [config.python_executable, "-c", probe],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        ).returncode
        == 0
    ):
        config.available_features.add("torch-bf16-f32-sums")
# Runs the output of fp8-cpu-pipeline on the CPU with the runner libraries
# only: fp8-opt %s --fp8-cpu-pipeline | %cpu_runner | FileCheck %s
config.substitutions.append(
    (
        "%cpu_runner",
        "mlir-runner -e main -entry-point-result=void -shared-libs=%s,%s"
        % (config.fp8_runner_utils, config.fp8_c_runner_utils),
    )
)
llvm_config.use_default_substitutions()

# Sanitized builds run instrumented code of ours against the uninstrumented
# libMLIR.so. Inline LLVM containers and allocators are then instantiated in
# both, and their manual (container, bump allocator) poisoning disagrees, so
# those two checks are off; every other ASan and UBSan check stays on.
# %host_env preloads the runtimes into uninstrumented hosts (Debian's mlir-opt
# loading our plugin) and %consumer_flags instruments the CMake consumer.
asan_options = "detect_container_overflow=0:allow_user_poisoning=0"
if config.fp8_sanitizers:
    config.environment["ASAN_OPTIONS"] = asan_options + ":detect_leaks=1"
    config.environment["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    config.available_features.add("sanitizers")
    config.substitutions.append(
        (
            "%host_env",
            "env LD_PRELOAD=%s ASAN_OPTIONS=%s:detect_leaks=0"
            % (config.fp8_sanitizer_preload, asan_options),
        )
    )
    config.substitutions.append(
        (
            "%consumer_flags",
            '"-DCMAKE_CXX_FLAGS=-fsanitize=address,undefined" '
            '"-DCMAKE_EXE_LINKER_FLAGS=-fsanitize=address,undefined"',
        )
    )
else:
    config.substitutions.append(("%host_env", ""))
    config.substitutions.append(("%consumer_flags", ""))

tool_dirs = [config.fp8_tools_dir, config.llvm_tools_dir]
tools = [
    "fp8-opt",
    "fp8-capi-test",
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

# The GPU runtime (runtime/): fp8-run (in the tools directory, which is put on
# PATH), libfp8rt.so and its ctypes binding. `cuda-stub`: the CUDA toolkit's
# stub libcuda.so, which runtime tests link in as libcuda.so.1 to check what
# the runtime says on a machine without a driver; `cuda-driver`: the NVIDIA
# driver's libcuda.so.1 loads here.
if config.fp8_has_runtime:
    config.available_features.add("fp8-runtime")
    llvm_config.with_environment("PATH", config.fp8_tools_dir, append_path=True)
    config.substitutions.append(("%fp8rt_lib", config.fp8_runtime_lib))
    config.substitutions.append(
        ("%fp8rt_python", os.path.join(config.fp8_src_root, "runtime", "python"))
    )
    if config.fp8_cuda_stub and os.path.exists(config.fp8_cuda_stub):
        config.available_features.add("cuda-stub")
        config.substitutions.append(("%cuda_stub", config.fp8_cuda_stub))
try:
    import ctypes

    ctypes.CDLL("libcuda.so.1")
    config.available_features.add("cuda-driver")
except OSError:
    pass
