# REQUIRES: torch
# Comparisons and boolean ops inside the graph, and the ops built on them
# (clamp, abs, maximum and minimum, max and min along a dimension with
# their indices, of a whole tensor, argmax and argmin): masks computed from the
# activations and from integer arguments (Hugging Face's
# `attention_mask == 0`), torch.where of two tensors, logical and, or, xor
# and not, `.bool()`, isnan, a number on the left. A boolean tensor is 1 or 0
# in f32; comparisons and conditions have no gradient. Each case matches
# torch's float64 forward and backward to 1e-5 on the CPU; inputs read only
# by comparisons get no gradient, as in torch.
# RUN: %host_env %python %s | FileCheck %s

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
from models import relative  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402
from fp8_mlir.torch import UnsupportedError  # noqa: E402


class Padded(nn.Module):
    """Scores masked where an integer attention mask is 0, as HF models
    write it, and where they are below the row's mean."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)

    def forward(self, x, attention_mask):
        scores = self.q(x) @ x.transpose(-2, -1)
        padding = (attention_mask == 0)[:, None, :]
        low = scores < scores.mean(-1, keepdim=True)
        masked = scores.masked_fill(padding | (low & ~padding.bool()), float("-inf"))
        return F.softmax(masked.masked_fill(padding, -1e4), -1) @ x


class Branches(nn.Module):
    """where of two tensors, conditions from the activations, other inputs
    and numbers."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, gate):
        h = self.fc(x)
        leaky = torch.where(h > 0, h, 0.1 * h)
        either = torch.where(torch.logical_xor(0.5 < gate, h.ge(0)), leaky, x * h)
        kept = (gate.le(1.0) & torch.logical_not(torch.isnan(x))).float()
        return either * kept + (h != x).to(x.dtype) + torch.where(gate.bool(), h, -h)


def run(module, inputs, check_grads):
    torch.manual_seed(1)
    compiled = fp8_torch.compile(module, inputs, recipe=None, opt_level=0)
    ref = type(module)().double().eval()
    ref.load_state_dict(module.state_dict())
    got = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
    want = [t.double().requires_grad_() if t.is_floating_point() else t for t in inputs]
    y, y_ref = compiled(*got), ref(*want)
    dy = torch.randn_like(y)
    y.backward(dy)
    y_ref.backward(dy.double())
    errors = [relative(y, y_ref.detach())]
    for g, w in zip(got, want):
        if w.is_floating_point() and w.grad is not None:
            errors.append(relative(g.grad, w.grad))
    errors += [relative(p.grad, r.grad) for p, r in zip(module.parameters(), ref.parameters())]
    none = [i for i, g in enumerate(got) if g.is_floating_point() and g.grad is None]
    none_ref = [i for i, w in enumerate(want) if w.is_floating_point() and w.grad is None]
    print(f"{type(module).__name__}: {len(errors)} results within 1e-5: {max(errors) < 1e-5}; "
          f"no gradient for inputs {none}{'' if none == none_ref else f', torch: {none_ref}'}")


torch.manual_seed(0)
x = torch.randn(2, 6, 8)
attention_mask = torch.tensor([[1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 0]])
run(Padded().eval(), (x, attention_mask), True)
# CHECK: Padded: 4 results within 1e-5: True; no gradient for inputs []{{$}}

gate = torch.randn(2, 6, 8)
gate[0, 0, :4] = 0.5
gate[1, 2, :] = 0.0
run(Branches().eval(), (x, gate), True)
# `gate` is read by comparisons alone.
# CHECK: Branches: 4 results within 1e-5: True; no gradient for inputs [1]{{$}}


class Bounds(nn.Module):
    """clamp (and clip, hardtanh, ReLU6), abs, and the elementwise maximum
    and minimum, built on comparisons; ties and bounds hit exactly (x's
    values at the clamp bounds and 0, y equal to x in places): torch gives
    clamp's gradient at a bound but not hardtanh's or relu6's, none at 0
    through abs, and half to each side of a tie."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.act = nn.ReLU6()

    def forward(self, x, y):
        h = self.fc(x)
        a = torch.clamp(h, -0.5, 0.75) + h.clamp(min=0.1) - h.clip(max=0.2) + F.hardtanh(h)
        a = a + self.act(4 * h) + x.clamp(-0.5, 0.5) + F.relu6(x * 8) + torch.clamp(y, 1, -1)
        b = torch.maximum(h, y) * torch.minimum(x, y.abs()) + torch.max(x, y) - torch.abs(x)
        return a * b + torch.min(y, x) * x.abs()


y = torch.randn(2, 6, 8)
x[0, 0, :3] = torch.tensor([-0.5, 0.5, 0.0])
x[1, 3, :] = 0.75
y[0, 1, :4] = x[0, 1, :4]
y[1, 3, :] = x[1, 3, :]
run(Bounds().eval(), (x, y), True)
# CHECK: Bounds: 5 results within 1e-5: True; no gradient for inputs []{{$}}


class Booleans(nn.Module):
    """Booleans as torch types them: two added are their or; a boolean
    buffer, a comparison of buffers and a 0-d integer constant read as
    values; True in a comparison; one float constant read both as a
    condition and as values; the function forms of the comparisons'
    aliases."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("keep", torch.rand(6, 8) > 0.3)
        self.register_buffer("w", torch.randn(8).masked_fill(torch.arange(8) % 3 == 0, 0.0))

    def forward(self, x, y):
        h = self.fc(x)
        either = (h > 0) + (y > 0)
        w = self.w * 2.0
        gate = torch.logical_and(w, x > 0).float()
        a = either.float() * h + x * self.keep + ((h > 0) == True) * (self.keep == 0)  # noqa: E712
        b = gate + x * w + torch.greater(h, y) * torch.less_equal(x, torch.tensor(0))
        return a * b


run(Booleans().eval(), (x, y), True)
# CHECK: Booleans: 4 results within 1e-5: True; no gradient for inputs [1]{{$}}


class Gate(nn.Module):
    """Outputs computed through comparisons alone take no gradient, as in
    torch; relu passes the gradient at NaN, as torch's does."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.fc(x)) * 2, (self.fc(x) > 0).float(), self.fc(x) > 1


compiled = fp8_torch.compile(Gate().eval(), (x,), recipe=None, opt_level=0)
print("requires grad:", [t.requires_grad for t in compiled(x)],
      [t.requires_grad for t in Gate()(x)])
# CHECK: requires grad: [True, False, False] [True, False, False]


class Relu(nn.Module):
    def forward(self, x):
        return torch.relu(x) * 2


z = torch.tensor([[1.0, float("nan"), -1.0, 0.0, 2.0]], requires_grad=True)
fp8_torch.compile(Relu(), (z,), recipe=None, opt_level=0)(z).sum().backward()
print("relu gradient:", z.grad.tolist())
# CHECK: relu gradient: {{\[\[}}2.0, 2.0, 0.0, 0.0, 2.0]]


class TensorBounds(nn.Module):
    """clamp by tensors (low > high in places, x at a bound in places),
    and a number divided by a tensor: the gradient reaches x and both
    bounds as torch's does."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x, low, high):
        h = self.fc(x)
        a = torch.clamp(h, low, high) * x + x.clamp(min=low) - torch.clip(x, max=high) * h
        return a + 1.0 / (high.abs() + 1.0) - 2.0 / (h * h + 0.5)


low, high = torch.randn(2, 6, 8) - 0.5, torch.randn(2, 6, 8) + 0.5
x[0, 0, :4] = low[0, 0, :4]
x[1, 1, :4] = high[1, 1, :4]
run(TensorBounds().eval(), (x, low, high), True)
# CHECK: TensorBounds: 6 results within 1e-5: True; no gradient for inputs []{{$}}


class Extrema(nn.Module):
    """amax and amin over one or several dimensions, kept or not (a row's
    maximum subtracted, as a softmax written out does); a tie shares the
    gradient evenly, as torch's."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        s = torch.exp(h - h.amax(dim=-1, keepdim=True)) * x
        return s + torch.amin(x, 1, keepdim=True) * h + x.amax(dim=(0, 2)).sum() * h


x = torch.randn(2, 6, 8)
x[0, 1, 3] = x[0, 1, 5] = 5.0
run(Extrema().eval(), (x,), True)
# CHECK: Extrema: 4 results within 1e-5: True; no gradient for inputs []{{$}}


class Maxima(nn.Module):
    """max and min along a dimension (values and indices, kept or not, by
    position and by keyword, and their fields), of a whole tensor, and
    argmax and argmin: along a dimension the first maximum takes all of the
    gradient, of a whole tensor a tie shares it, as torch's."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        h = self.fc(x)
        v, i = torch.max(x, -1)
        low = x.min(dim=1, keepdim=True)
        y = v.unsqueeze(-1) * h + low.values * x + h.max() * x + torch.min(x) * h
        return (y + i.unsqueeze(-1) * h + low.indices.float(), h.argmax(-1),
                torch.argmin(x), x.max(1, True)[1])


def run_maxima(inputs):
    torch.manual_seed(1)
    module = Maxima().eval()
    compiled = fp8_torch.compile(module, inputs, recipe=None, opt_level=0)
    ref = Maxima().double().eval()
    ref.load_state_dict(module.state_dict())
    got, want = inputs[0].clone().requires_grad_(), inputs[0].double().requires_grad_()
    ys, ys_ref = compiled(got), ref(want)
    dy = torch.randn_like(ys[0])
    ys[0].backward(dy)
    ys_ref[0].backward(dy.double())
    errors = [relative(ys[0], ys_ref[0].detach()), relative(got.grad, want.grad)]
    errors += [relative(p.grad, r.grad) for p, r in zip(module.parameters(), ref.parameters())]
    same = all(a.dtype == torch.int64 and torch.equal(a, b) for a, b in zip(ys[1:], ys_ref[1:]))
    print(f"Maxima: {len(errors)} results within 1e-5: {max(errors) < 1e-5}; "
          f"{len(ys) - 1} index results equal: {same}")


x = torch.randn(2, 6, 8)
# Ties along both reduced dimensions, and of the whole tensor.
x[0, 1, 3] = x[0, 1, 5] = x[1, 4, 2] = 5.0
x[0, 2, 0] = x[0, 4, 0] = -5.0
run_maxima((x,))
# CHECK: Maxima: 4 results within 1e-5: True; 3 index results equal: True


class Special(nn.Module):
    """Gradients at NaN, zeros and bounds, which the random cases do not
    reach."""

    def forward(self, x, low, high):
        return (torch.clamp(x, -1.0, 1.0) + x.clamp(min=0.0) + torch.clamp(x, low, high)
                + torch.maximum(x, x * 0) - torch.minimum(x, low)
                + F.leaky_relu(x, 0.1) + torch.rsqrt(x * x * x))


nan = float("nan")
special = [torch.tensor([[nan, 0.0, -0.0, -2.0, 1.0, 2.0, 0.5, 3.0]]),
           torch.tensor([[0.0, nan, 0.0, -1.0, 1.0, 3.0, -1.0, 1.0]]),
           torch.tensor([[1.0, 1.0, nan, 1.0, 1.0, 1.0, 0.25, 1.0]])]
got = [t.clone().requires_grad_() for t in special]
want = [t.double().requires_grad_() for t in special]
out = fp8_torch.compile(Special(), special, recipe=None, opt_level=0)(*got)
out_ref = Special()(*want)
out.sum().backward()
out_ref.sum().backward()
print("special points:", all(torch.allclose(a.double(), b, rtol=1e-6, equal_nan=True)
                             for a, b in zip([out] + [t.grad for t in got],
                                             [out_ref.detach()] + [t.grad for t in want])))
# CHECK: special points: True


class SpecialMaxima(nn.Module):
    """max and min along a dimension, of the whole tensor, argmax, at ties,
    NaNs, zeros of both signs and infinities: the first NaN (or maximum)
    takes the gradient and gives the index; of a whole tensor that is NaN,
    the NaNs share the gradient."""

    def forward(self, x, y):
        top, first = x.max(1)
        bottom, last = torch.min(x, dim=1)
        return (top + bottom + y.max() + x.argmax(1) + last, x[0].max(), first,
                torch.argmin(y))


special = [torch.tensor([[nan, 1.0, nan, 0.0], [3.0, 3.0, 1.0, 3.0], [-0.0, 0.0, -1.0, -0.0],
                         [float("-inf")] * 4, [1.0, float("inf"), 2.0, float("inf")]]),
           torch.tensor([[1.0, 4.0, 4.0, -2.0, -2.0]])]
got = [t.clone().requires_grad_() for t in special]
want = [t.double().requires_grad_() for t in special]
outs = fp8_torch.compile(SpecialMaxima(), special, recipe=None, opt_level=0)(*got)
outs_ref = SpecialMaxima()(*want)
(outs[0].sum() + outs[1]).backward()
(outs_ref[0].sum() + outs_ref[1]).backward()
print("special maxima:", all(torch.allclose(a.double(), b, rtol=1e-6, equal_nan=True)
                             for a, b in zip(list(outs[:2]) + [t.grad for t in got],
                                             [o.detach() for o in outs_ref[:2]] +
                                             [t.grad for t in want])),
      all(torch.equal(a, b) for a, b in zip(outs[2:], outs_ref[2:])))
# CHECK: special maxima: True True


class Method(nn.Module):
    """x.where(condition, other) is torch.where(condition, x, other)."""

    def forward(self, x, y):
        return x.where(x > 0, y) + y.where(y < x, torch.tensor(0.5))


x = torch.randn(2, 6, 8)
print("where method:", torch.equal(
    fp8_torch.compile(Method(), (x, y), recipe=None, opt_level=0)(x, y), Method()(x, y)))
# CHECK: where method: True


class Bitwise(nn.Module):
    def forward(self, x, ids):
        return x * (~ids).float()


class Count(nn.Module):
    def forward(self, x, ids):
        return x * (ids != 0).sum().item()


class Branch(nn.Module):
    def forward(self, x):
        return x * float((x > 2.5).any())


# Refused: bitwise ops on integers, and numbers read from a tensor's values
# (the program is specialized to shapes), at import or at tracing.
ids = torch.ones(2, 6, 8, dtype=torch.long)
for module, inputs in ((Bitwise(), (x, ids)), (Count(), (x, ids)), (Branch(), (x,))):
    try:
        fp8_torch.import_module(module, inputs)
    except UnsupportedError as e:
        print(str(e).replace(os.path.dirname(os.path.abspath(__file__)) + os.sep, ""))
# CHECK: comparisons.py:[[#]]: unsupported op 'invert' (call_function): bitwise not of integers
# CHECK: comparisons.py:[[#]]: unsupported op 'item' (call_method): a number read from a tensor's values: the program is specialized to the example inputs' shapes, not their values
# CHECK: <Branch>: torch.fx cannot trace the module:
