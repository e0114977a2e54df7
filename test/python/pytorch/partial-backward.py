# REQUIRES: torch
# Outputs left out of the loss get no gradient in torch (None reaches
# backward), and the compiled backward leaves them out: a backward function
# of the outputs with a gradient, compiled when first needed. A zero seed
# would not do: 0 x inf is NaN (here sqrt's derivative at 0), and inputs
# reaching only those outputs would get a gradient of zeros where torch
# gives none. Checked against torch's float64 backward, with and without a
# recipe and prepared weights.
# RUN: %host_env %python %s | FileCheck %s

import torch
import torch.nn as nn

from fp8_mlir import torch as fp8_torch


class Aux(nn.Module):
    """A result and a side output whose derivative is infinite where h is
    0; z reaches only the side output."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.side = nn.Linear(16, 16)

    def forward(self, x, z):
        h = self.fc(x)
        return h * 2.0, torch.sqrt(h.abs()) + self.side(z)


def check(recipe, prepare_weights, loss, zero_row=True):
    torch.manual_seed(0)
    module = Aux()
    with torch.no_grad():
        module.fc.bias.zero_()
    x, z = torch.randn(32, 16), torch.randn(32, 16)
    if zero_row:
        x[0] = 0.0  # h[0] = 0 exactly
    compiled = fp8_torch.compile(module, (x, z), recipe=recipe, opt_level=0,
                                 prepare_weights=prepare_weights)
    ref = Aux().double()
    ref.load_state_dict(module.state_dict())
    got = [x.clone().requires_grad_(), z.clone().requires_grad_()]
    want = [x.double().requires_grad_(), z.double().requires_grad_()]
    loss(*compiled(*got)).backward()
    loss(*ref(*want)).backward()
    grads = [t.grad for t in got] + [p.grad for p in module.parameters()]
    grads_ref = [t.grad for t in want] + [p.grad for p in ref.parameters()]
    none = [g is None for g in grads]
    same_none = none == [g is None for g in grads_ref]
    finite = all(torch.isfinite(g).all() for g in grads if g is not None)
    error = max(((g.double() - r).norm() / r.norm()).item()
                for g, r in zip(grads, grads_ref) if g is not None and r.norm() > 0)
    # f32 to 1e-5; the recipe within the example models' bounds.
    bound = 1e-5 if recipe is None else 0.1
    print(f"{recipe} prepare={prepare_weights}: no gradient {none} "
          f"(as torch: {same_none}), finite: {finite}, error within {bound}: {error < bound}")


def first(y, side):
    return (y * y).sum()


def second(y, side):
    return side.sum()


check(None, False, first)
# x, z, fc.weight, fc.bias, side.weight, side.bias
# CHECK: None prepare=False: no gradient [False, True, False, False, True, True] (as torch: True), finite: True, error within {{.*}}: True
check(None, False, second, zero_row=False)
# CHECK: None prepare=False: no gradient [False, False, False, False, False, False] (as torch: True), finite: True, error within {{.*}}: True
check("tensor-current", True, first)
# CHECK: tensor-current prepare=True: no gradient [False, True, False, False, True, True] (as torch: True), finite: True, error within {{.*}}: True
