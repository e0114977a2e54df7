# REQUIRES: torch, cuda-stub
# Ahead-of-time artifacts: `export` records beside each function's
# artifacts what they were compiled from (the function's text, recipe, chip
# and options), and `compile` on CUDA tensors with the same `artifacts` runs
# them without compiling, so that the GPU machine needs the runtime alone.
# The second run has no compiler library (FP8_MLIR_LIBRARY names a missing
# file) and the CUDA toolkit's stub as libcuda.so.1: the exported functions
# are found and handed to the runtime, whose driver calls then fail (no
# GPU); a function exported for another recipe, or not at all, is an error
# naming the directory.
# RUN: rm -rf %t && mkdir -p %t/stub && ln -s %cuda_stub %t/stub/libcuda.so.1
# RUN: %host_env %python %s export %t | FileCheck %s --check-prefix=EXPORT
# RUN: %host_env env FP8_MLIR_LIBRARY=%t/missing.so FP8RT_LIBRARY=%fp8rt_lib LD_LIBRARY_PATH=%t/stub %python %s run %t | FileCheck %s --check-prefix=LOAD

import os
import sys
import types

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from models import MLP  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402

mode, out = sys.argv[1], sys.argv[2]
torch.manual_seed(0)
module, x = MLP().eval(), torch.randn(128, 64)
imported = fp8_torch.import_module(module, (x,))
graphs = [imported.forward, imported.backward]


def found(recipe, artifacts, chip="sm_90a", prepare_weights=False, of=imported):
    return [fp8_torch.exported(g, recipe, chip, artifacts, of, prepare_weights) is not None
            for g in (of.forward, of.backward)]


if mode == "export":
    manifests = fp8_torch.export(module, (x,), recipe="deepseek", chip="sm_90a",
                                 artifacts=os.path.join(out, "art"))
    lookups = [fp8_torch.exported(g, "deepseek", "sm_90a", os.path.join(out, "art"), imported)
               for g in graphs]
    print("found:", [m == {k: v for k, v in manifests.items()
                           if os.path.basename(os.path.dirname(v)) == g.name}
                     for m, g in zip(lookups, graphs)])
    # EXPORT: found: [True, True]
    print("another recipe:", found("tensor-current", os.path.join(out, "art")))
    # EXPORT: another recipe: [False, False]
    print("another chip:", found("deepseek", os.path.join(out, "art"), chip="sm_100a"))
    # EXPORT: another chip: [False, False]
    print("prepared weights:", found("deepseek", os.path.join(out, "art"),
                                     prepare_weights=True))
    # EXPORT: prepared weights: [False, False]
    other = fp8_torch.import_module(module, (torch.randn(256, 64),))
    print("other shapes:", found("deepseek", os.path.join(out, "art"), of=other))
    # EXPORT: other shapes: [False, False]
    fp8_torch.export(module, (x,), recipe="deepseek", chip="sm_90a", prepare_weights=True,
                     artifacts=os.path.join(out, "prepared"))
    print("prepare functions:", sorted(
        fp8_torch.exported(imported.forward, "deepseek", "sm_90a",
                           os.path.join(out, "prepared"), imported, True)))
    # EXPORT: prepare functions: ['mlp', 'mlp_prepare']
    sys.exit(0)

# The machine has no compiler: the lookup is Python alone.
print("found without the compiler:", found("deepseek", os.path.join(out, "art")))
# LOAD: found without the compiler: [True, True]
compiled = types.SimpleNamespace(imported=imported, recipe="deepseek", prepare_weights=False,
                                 _source="<MLP>")
for recipe, artifacts in (("deepseek", "art"), ("tensor-current", "art"),
                          ("deepseek", "none")):
    compiled.recipe = recipe
    programs = fp8_torch._GPUPrograms(compiled, "sm_90a", os.path.join(out, artifacts))
    try:
        programs.program(imported.forward.name)
    except RuntimeError as e:
        print(f"{recipe} from {artifacts}: {type(e).__name__}: {e}")
# LOAD: deepseek from art: Fp8rtError: {{.*}}mlp.json: cuInit: CUDA_ERROR_STUB_LIBRARY
# LOAD: tensor-current from art: FP8MLIRLibraryError: {{.*}}art/mlp holds no artifacts exported for 'mlp' by this recipe, chip and options, and the compiler is not available to compile them: cannot find libFP8MLIR-C.so
# LOAD: deepseek from none: FP8MLIRLibraryError: {{.*}}none/mlp holds no artifacts exported for 'mlp'
