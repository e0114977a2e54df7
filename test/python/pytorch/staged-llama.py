# REQUIRES: torch, mlir-runner
# The LLaMA-style block of the front end (RMSNorm, rotary embedding whose
# rotate_half is two slices, a negation and torch.cat, causal attention,
# SwiGLU), forward and backward, after fp8-gpu-pipeline's graph stages runs
# through fp8-cpu-pipeline bit-identically to the unstaged graph: the
# concatenations and the slices' gradients that the stages read piecewise
# (fp8-fuse-elementwise) move the same values.
# RUN: %host_env %python %s | FileCheck %s
# CHECK: llama deepseek sm_90a: 12 insertions, 0 left after the stages, identical (12 outputs)
# CHECK: llama tensor-current sm_90a: 12 insertions, 0 left after the stages, identical (12 outputs)

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "examples"))
import programs  # noqa: E402
from models import LlamaBlock  # noqa: E402

from fp8_mlir import compiler  # noqa: E402
from fp8_mlir import torch as fp8_torch  # noqa: E402

torch.manual_seed(0)
text = fp8_torch.import_module(LlamaBlock().eval(), (torch.randn(2, 32, 64),)).mlir()
for recipe in ["deepseek", "tensor-current"]:
    module = compiler.parse(text, "<llama>").run(programs.autocast(recipe))
    signatures = programs.entry_points(module)
    names = [s.name for s in signatures]
    feeds = {s.name: programs.inputs("llama", "small", s.name, s.inputs) for s in signatures}
    staged = module.clone().run("fp8-gpu-graph-pipeline{chip=sm_90a}")
    insertions = str(module).count("tensor.insert_slice")
    left = str(staged).count("tensor.insert_slice")
    want = programs.cpu_run(module, names, feeds, 1)
    have = programs.cpu_run(staged, names, feeds, 1)
    count, bad = 0, []
    for name in names:
        for i, (a, b) in enumerate(zip(want[name][0], have[name][0])):
            count += 1
            difference = programs.differing(a, b)
            if difference:
                bad.append(f"@{name} result {i}: {difference}")
    status = "DIFFERENT: " + "; ".join(bad) if bad else f"identical ({count} outputs)"
    print(f"llama {recipe} sm_90a: {insertions} insertions, {left} left after the stages, "
          f"{status}")
