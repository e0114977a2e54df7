# REQUIRES: torch, fp8-runtime
# fp8_torch.compile(..., prepare_weights=True) on the CPU: the module's
# parameters are marked fp8.weight, the forward and backward functions are
# one prepare group, fp8-prepare-weights moves their quantization into the
# prepare function they share, and the compiled module runs it only when a
# parameter changed (another tensor, or an in-place update such as an
# optimizer step), reusing its results in between: once for the forward and
# backward calls of a step. Outputs and gradients are bit-identical to the module compiled
# without it, before and after the update. export(..., prepare_weights=True)
# writes each function's prepare manifest beside its own (each function is
# compiled alone there).
# RUN: rm -rf %t && %host_env %python %s %t | FileCheck %s
# RUN: fp8-run --check %t/mlp/mlp.json | FileCheck %s --check-prefix=MAIN
# RUN: fp8-run --check %t/mlp/mlp_prepare.json | FileCheck %s --check-prefix=PREPARE

import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from models import MLP  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402

torch.manual_seed(0)
module = MLP().eval()
x, dy = torch.randn(64, 64), torch.randn(64, 64)


def run(compiled):
    """y, dx and every parameter gradient of one forward and backward call."""
    module.zero_grad()
    xs = x.clone().requires_grad_(True)
    y = compiled(xs)
    y.backward(dy)
    return [y.detach(), xs.grad] + [p.grad.clone() for p in module.parameters()]


def same(a, b):
    return all(torch.equal(u.view(torch.int32), v.view(torch.int32)) for u, v in zip(a, b))


for recipe in ["tensor-current", "deepseek", "mxfp8"]:
    plain = fp8_torch.compile(module, (x,), recipe=recipe, opt_level=0)
    prepared = fp8_torch.compile(module, (x,), recipe=recipe, opt_level=0,
                                 prepare_weights=True)
    calls = []
    call = prepared._program.call
    prepared._program.call = lambda name, *a: calls.append(name) or call(name, *a)
    first = run(prepared)
    again = run(prepared)
    reused = [n for n in calls if n.endswith("_prepare")]
    print(recipe, "prepare functions:", sorted(n for n in prepared._functions
                                               if n.endswith("_prepare")))
    print(recipe, "identical:", same(first, run(plain)), same(again, first),
          "prepare calls over two steps:", len(reused))
    with torch.no_grad():
        module.fc1.weight.mul_(1.5)
    calls.clear()
    updated = run(prepared)
    print(recipe, "after an update: identical", same(updated, run(plain)),
          "changed", not same(updated, first),
          "prepare calls:", len([n for n in calls if n.endswith("_prepare")]))
    with torch.no_grad():
        module.fc1.weight.div_(1.5)
# CHECK: tensor-current prepare functions: ['mlp_prepare']
# CHECK-NEXT: tensor-current identical: True True prepare calls over two steps: 1
# CHECK-NEXT: tensor-current after an update: identical True changed True prepare calls: 1
# CHECK-NEXT: deepseek prepare functions: ['mlp_prepare']
# CHECK-NEXT: deepseek identical: True True prepare calls over two steps: 1
# CHECK-NEXT: deepseek after an update: identical True changed True prepare calls: 1
# CHECK-NEXT: mxfp8 prepare functions: ['mlp_prepare']
# CHECK-NEXT: mxfp8 identical: True True prepare calls over two steps: 1
# CHECK-NEXT: mxfp8 after an update: identical True changed True prepare calls: 1

out = sys.argv[1]
manifests = fp8_torch.export(module, (x,), recipe="tensor-current", chip="sm_90a",
                             artifacts=out, prepare_weights=True)
print(sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: ['mlp/mlp.json', 'mlp/mlp_prepare.json', 'mlp_backward/mlp_backward.json', 'mlp_backward/mlp_backward_prepare.json']
# MAIN: input 5: {{.*}}, result 0 of mlp_prepare
# MAIN: ok: 'mlp' for sm_90a: 9 inputs, 1 outputs
# PREPARE: ok: 'mlp_prepare' for sm_90a: 4 inputs, 4 outputs

# A module without parameters or buffers has nothing to prepare: it compiles
# with the option as without it.


class Stateless(torch.nn.Module):
    def forward(self, x, w):
        return torch.nn.functional.gelu(x @ w)


x, w = torch.randn(64, 64), torch.randn(64, 64)
plain = fp8_torch.compile(Stateless(), (x, w), recipe="mxfp8")(x, w)
prepared = fp8_torch.compile(Stateless(), (x, w), recipe="mxfp8", prepare_weights=True)(x, w)
print("stateless identical:", torch.equal(plain, prepared))
# CHECK: stateless identical: True
