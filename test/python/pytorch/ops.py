# REQUIRES: torch
# The PyTorch importer op by op: each module below imports, compiles without
# a recipe (the f32 graph) and matches torch's float64 forward and backward
# (inputs and parameters) to 1e-5 on the CPU. Unsupported ops and uses name
# the op and the line of the module's source.
# RUN: %host_env %python %s | FileCheck %s

import math
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "Inputs"))
from models import check_f32  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402


class Elementwise(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.randn(16))

    def forward(self, x, y):
        a = torch.relu(x) + F.silu(y) * self.scale - torch.tanh(x) / 3.0
        b = 2.0 - x * (y - 1.5) / (y * y + 1.0) + torch.sub(a, x)
        return F.gelu(a) * b + (-x) / 2


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.gelu = nn.GELU(approximate="tanh")
        self.gate = nn.Sigmoid()

    def forward(self, x, y):
        a = F.gelu(x, approximate="tanh") + self.gelu(y) * torch.sigmoid(x)
        b = self.gate(y) - x.sigmoid() * torch.exp(y / 4) + (x / 8).exp()
        c = torch.log(y * y + 0.5) - (x.sigmoid() + 1).log()
        return a * b + c


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(16)
        self.gain = nn.Parameter(1 + 0.1 * torch.randn(16))

    def rms_norm(self, x, eps=1e-6):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * self.gain

    def forward(self, x):
        h = F.layer_norm(x, (16,), eps=1e-5)
        return self.ln(self.rms_norm(x)) + h.sum(dim=-1, keepdim=True) * x.mean(0)


class Shapes(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(4, 8, 8) / 3)

    def forward(self, x):
        h = x.view(2, 3, 4, 8).permute(0, 2, 1, 3).reshape(8, 3, 8)
        h = torch.bmm(h.transpose(1, 2), h)              # [8, 8, 8]
        h = torch.matmul(h.reshape(2, 4, 8, 8), self.w)  # batch dims [2, 4]
        s = F.softmax(h, dim=1) + F.log_softmax(h, dim=-1)
        y = F.dropout(s.flatten(1), p=0.5, training=False)
        return y @ torch.transpose(y, 0, 1)


class Lookup(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(11, 16)
        self.head = nn.Linear(16, 5)

    def forward(self, ids, target):
        logits = self.head(self.embed(ids).reshape(-1, 16))
        return F.cross_entropy(logits, target)


class Masks(nn.Module):
    """Causal masks: nanoGPT's tril buffer sliced to the sequence and
    compared, filled with -inf; torch.where keeping the entries of its
    diagonal and below, and filling those above; a boolean buffer filled
    with a finite number; masked_fill_ in place; padding masks."""

    def __init__(self, block=8):
        super().__init__()
        self.register_buffer("bias", torch.tril(torch.ones(block, block)).view(1, 1, block, block))
        self.register_buffer("above", torch.ones(6, 6, dtype=torch.bool).triu(1))
        self.register_buffer("padded", torch.arange(6) >= 4)
        self.register_buffer("pattern", torch.arange(64).view(8, 8) % 3 == 0)

    def forward(self, q, k):
        t = q.size(-2)
        att = (q @ k.transpose(-2, -1)) * 0.5
        a = att.masked_fill(self.bias[:, :, :t, :t] == 0, float("-inf"))
        keep = self.bias[0, 0, :t, :t].bool()
        b = torch.where(keep, att, float("-inf"))
        c = att.masked_fill(self.above, torch.full([], -1e4).to(att))
        d = torch.where(self.above, -1e4, att)
        # In place: the nodes after it read the filled scores, those before
        # the ones it changed.
        e = q @ k.transpose(-2, -1)
        before = F.softmax(e, dim=-1) @ q
        e.masked_fill_(self.above, float("-inf"))
        # Padding: the last two keys of every query ignored, and a pattern
        # with no structure kept where set.
        f = att.masked_fill(self.padded[:t], float("-inf"))
        h = torch.where(self.pattern[:t, :t], att, 0.0)
        return (F.softmax(a, dim=-1) @ k + F.softmax(b, dim=-1) @ q + F.softmax(c, dim=-1) @ k
                + F.softmax(d, dim=-1) @ q + F.softmax(e, dim=-1) @ k + before
                + F.softmax(f, dim=-1) @ q + h @ k)


class Slices(nn.Module):
    """Rotary embedding's rotate_half, slices of a middle dimension, split
    by sections and by size and chunk, unpacked."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(16))

    def forward(self, x):
        _, _, width = x.size()  # unpacked as nanoGPT's B, T, C = x.size()
        half = width // 2
        x1, x2 = x[..., :half], x[..., half:]
        r = torch.cat((-x2, x1), dim=-1) * self.w
        a, b, c = x.split([4, 4, 8], dim=2)
        d, e = torch.chunk(x, 2, dim=1)
        f, h = torch.split(x, [1, 3], dim=1)
        q, k = x.split(half, dim=2)  # nanoGPT's q, k, v = qkv.split(n_embd, dim=2)
        a = a + q[..., :4] * k[..., 4:]
        s = torch.cat([c, a * b, a], -1) + torch.cat([h, f], 1) - torch.cat((e, d), 1)
        return r + x[:, 1:3].sum(dim=1, keepdim=True) * torch.cat([x[:, 2:], x[:, :2]], 1) * s


class Constants(nn.Module):
    """Float tensors computed from buffers and constants alone, used as
    values: a rotary table of buffers sliced to the sequence, and one
    computed in forward from arange with cos and sin."""

    def __init__(self, seq=8, dim=8):
        super().__init__()
        self.w = nn.Parameter(torch.randn(dim))
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq)
        angles = torch.outer(torch.arange(seq).float(), inv_freq)
        self.register_buffer("cos_cached", torch.cat((angles, angles), -1).cos())
        self.register_buffer("sin_cached", torch.cat((angles, angles), -1).sin())

    def forward(self, x):
        t, half = x.size(2), x.size(-1) // 2
        cos, sin = self.cos_cached[:t], self.sin_cached[:t]
        rotated = x * cos + torch.cat((-x[..., half:], x[..., :half]), -1) * sin
        freqs = torch.outer(torch.arange(t, dtype=torch.float32), self.inv_freq)
        angles = torch.cat((freqs, freqs), dim=-1)
        return (rotated * angles.cos() + angles.sin()) * self.w + cos * sin


class Indexing(nn.Module):
    """Integer indices (the last token, a head), None, an Ellipsis with
    both, expand and expand_as, repeat_interleave."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8))

    def forward(self, x):
        t = x.size(1)
        last = x[:, t - 1] * self.w  # [3, 8]
        first = x[:, 0, None, :]  # [3, 1, 8]
        head = x[-1, ..., None, 2]  # [4, 1]
        wide = last[:, None].expand(3, 4, 8) + first.expand_as(x) * head[None]
        pairs = x.repeat_interleave(2, dim=2)[..., 1:9] + torch.repeat_interleave(x, 2, 0)[1:4]
        return wide * pairs


class Compositions(nn.Module):
    """Ops the importer writes with the graph's own: HF GPT-2's Conv1D
    (addmm) and its GELU (tanh form with pow 3), baddbmm, mm and t, casts
    between floating types, square and pow, leaky_relu, var, stack and
    unbind, zeros_like and full_like, a literal tensor made in forward,
    a 0-d constant as where's fill, products with vectors."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(8, 8) / 3)
        self.bias = nn.Parameter(torch.randn(8))
        self.act = nn.LeakyReLU(0.2)
        self.register_buffer("keep", torch.tril(torch.ones(4, 4, dtype=torch.bool)))

    def forward(self, x):
        h = torch.addmm(self.bias, x.view(-1, 8), self.weight).view(x.size(0), x.size(1), 8)
        gelu = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                           (h + 0.044715 * torch.pow(h, 3.0))))
        s = torch.baddbmm(x.transpose(1, 2) @ x, x.transpose(1, 2), gelu,
                          beta=0.5, alpha=2.0)  # [2, 8, 8]
        mask_value = torch.full([], -1e4).to(x)
        scores = torch.where(self.keep, x @ x.transpose(1, 2), mask_value)  # [2, 4, 4]
        v = (scores.type_as(x) @ x).to(x.dtype)
        w = torch.mm(x[0].t(), x[1]) + self.act(v[1].t() @ v[0]) + F.leaky_relu(s[0], 0.1)
        spread = x.var(dim=-1, keepdim=True) + x.var(1, unbiased=False)[:, None] + x ** 2
        parts = torch.stack([x, spread], dim=1).unbind(1)
        return (w @ torch.tensor([1.0, -1.0, 0.5, 2.0, 0.0, 1.0, 3.0, -2.0]).to(x)
                + (parts[0] * parts[1]).sum() + torch.zeros_like(x).sum()
                + (x.transpose(1, 2) @ torch.full_like(x, 0.5)[0, :, 0]).sum(0)
                + torch.square(x).sum(dim=(0, 1)))


class Roots(nn.Module):
    """LayerNorm written out with sqrt of the variance, BERT's GELU written
    with erf, std, and a power of 0.5."""

    def __init__(self):
        super().__init__()
        self.gain = nn.Parameter(1 + 0.1 * torch.randn(8))

    def forward(self, x):
        mean = x.mean(-1, keepdim=True)
        norm = (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + 1e-5)
        gelu = norm * 0.5 * (1.0 + torch.erf(norm / math.sqrt(2.0)))
        return gelu * self.gain + x.std(0) * (x * x + 1) ** 0.5


class UnitShapes(nn.Module):
    """Reshapes that add or drop unit dimensions besides merging others,
    reductions to a scalar kept as [1, 1] and over an empty list of
    dimensions (all of them, as torch reads it)."""

    def forward(self, x, y):
        a = x.view(12, 1) * 2 + y.view(12, 1)
        b = a.reshape(1, 6, 2) * x.view(1, 6, 2)
        c = x * x.mean((0, 1), keepdim=True) + torch.sum(y, dim=()) - x.mean(dim=[], keepdim=True)
        return b.view(2, 6) + c


class Overloads(nn.Module):
    """var and std by their positional overloads (dim, unbiased, keepdim;
    unbiased alone), activations in place (function and module) read after,
    an in-place fill of a constant, 0-d constants where tensors are taken
    (expand_as, a linear's bias, stack), a bias of one element, and
    `B, T, C = x.shape`."""

    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.randn(8, 8) / 3)
        self.b = nn.Parameter(torch.randn(1))
        self.act = nn.ReLU(inplace=True)
        self.leaky = nn.LeakyReLU(0.2, inplace=True)
        self.register_buffer("above", torch.ones(4, 8, dtype=torch.bool).triu(1))

    def forward(self, x):
        b, t, c = x.shape
        flat = x.view(b * t, c)
        spread = flat.var(1, False)[:, None] + torch.std(flat, 0, False) + flat.var(1, True, True)
        y = flat * 2
        z = F.relu(y, inplace=True)
        u = flat * 3
        self.act(u)
        w = flat - 1
        self.leaky(w)
        m = torch.zeros_like(flat)
        m.masked_fill_(self.above, -5.0)
        half = torch.full([], 0.5).to(x)
        h = F.linear(flat, self.w, self.b) + F.linear(flat, self.w, half) + half.expand_as(flat)
        s = torch.stack([flat.sum(), half]).sum() + flat.var(False)
        return y + z + u + w + m + spread + h * s


CASES = [
    ("elementwise", Elementwise(), lambda: (torch.randn(6, 16), torch.randn(6, 16))),
    ("activations", Activations(), lambda: (torch.randn(6, 16), torch.randn(6, 16))),
    ("norms", Norms(), lambda: (torch.randn(6, 16),)),
    ("shapes", Shapes(), lambda: (torch.randn(6, 4, 8),)),
    ("embedding + cross_entropy", Lookup(),
     lambda: (torch.randint(0, 11, (3, 4)), torch.randint(0, 5, (12,)))),
    ("causal masks", Masks(), lambda: (torch.randn(2, 3, 6, 4), torch.randn(2, 3, 6, 4))),
    ("slices and cat", Slices(), lambda: (torch.randn(3, 4, 16),)),
    ("constants", Constants(), lambda: (torch.randn(2, 3, 6, 8),)),
    ("indexing", Indexing(), lambda: (torch.randn(3, 4, 8),)),
    ("compositions", Compositions(), lambda: (torch.randn(2, 4, 8),)),
    ("roots", Roots(), lambda: (torch.randn(6, 8),)),
    ("unit shapes", UnitShapes(), lambda: (torch.randn(2, 6), torch.randn(12, 1))),
    ("overloads", Overloads(), lambda: (torch.randn(1, 4, 8),)),
]

check_f32(CASES)
# CHECK: elementwise: 4 results within 1e-5: True
# CHECK: activations: 3 results within 1e-5: True
# CHECK: norms: 5 results within 1e-5: True
# CHECK: shapes: 3 results within 1e-5: True
# CHECK: embedding + cross_entropy: 4 results within 1e-5: True
# CHECK: causal masks: 3 results within 1e-5: True
# CHECK: slices and cat: 3 results within 1e-5: True
# CHECK: constants: 3 results within 1e-5: True
# CHECK: indexing: 3 results within 1e-5: True
# CHECK: compositions: 4 results within 1e-5: True
# CHECK: roots: 3 results within 1e-5: True
# CHECK: unit shapes: 3 results within 1e-5: True
# CHECK: overloads: 4 results within 1e-5: True


class Unused(nn.Module):
    """An argument the forward ignores and a parameter read by dead code:
    neither gets a gradient, as in torch, and the others do."""

    def __init__(self):
        super().__init__()
        self.g = nn.Parameter(torch.ones(8))
        self.w = nn.Parameter(torch.randn(8))

    def forward(self, x, mask):
        unused = x * self.g  # noqa: F841
        return x * self.w


module = Unused()
x, mask = torch.randn(4, 8, requires_grad=True), torch.randn(4, 8, requires_grad=True)
y = fp8_torch.compile(module, (x, mask), recipe=None, opt_level=0)(x, mask)
y.backward(torch.ones_like(y))
print("unused:", mask.grad is None, module.g.grad is None,
      torch.allclose(x.grad, module.w.detach().expand(4, 8)),
      torch.allclose(module.w.grad, x.detach().sum(0)))
# CHECK: unused: True True True True


# An output returned twice (also through a cast, an alias) gets the sum of
# both gradients; std's gradient is 0 where the std is 0, as torch's; x / 0
# is inf, -inf or NaN as torch computes it.


class Twice(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        y = self.lin(x)
        return y, y.float(), x.std(dim=0, unbiased=False)


module = Twice()
x = torch.tensor([[1.0, -2.0, 0.0, 3.0, 1.0, 1.0, 1.0, 1.0]]).repeat(2, 1)
grads = []
for run in (fp8_torch.compile(module, (x,), recipe=None, opt_level=0), module):
    arg = x.clone().requires_grad_()
    y, alias, spread = run(arg)
    (y.sum() + 2 * alias.sum() + spread.sum()).backward()
    grads.append(arg.grad)
print("twice:", torch.allclose(grads[0], grads[1]), grads[0].isfinite().all().item())
# CHECK: twice: True True


class ByZero(nn.Module):
    def forward(self, x):
        return torch.cat([x / 0.0, x / torch.full([], -0.0)], 1)


x = torch.tensor([[1.0, -2.0, 0.0]])
print("by zero:", fp8_torch.compile(ByZero(), (x,), recipe=None, opt_level=0)(x).tolist(),
      ByZero()(x).tolist())
# CHECK: by zero: {{\[\[}}inf, -inf, nan, -inf, inf, nan]] {{\[\[}}inf, -inf, nan, -inf, inf, nan]]

# A bf16 module on the CPU: the program computes in f32 from the bf16
# values; outputs come back in torch's dtype, gradients in the inputs'.
linear = nn.Linear(32, 16).to(torch.bfloat16)
x = torch.randn(4, 32, dtype=torch.bfloat16, requires_grad=True)
y = fp8_torch.compile(linear, (x,), recipe=None, opt_level=0)(x)
y.backward(torch.ones_like(y))
exact = x.detach().double() @ linear.weight.detach().double().t() + linear.bias.detach().double()
print("bf16:", y.dtype, x.grad.dtype, linear.weight.grad.dtype,
      bool((y.double() - exact).abs().max() <= 2 ** -8 * exact.abs().max()))
# CHECK: bf16: torch.bfloat16 torch.bfloat16 torch.bfloat16 True


class Sine(nn.Module):
    def forward(self, x):
        return torch.sin(x) * 2


class Training(nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(x)


class Pool(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.MaxPool1d(2)

    def forward(self, x):
        return self.pool(x)


class Flags(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("table", torch.ones(8, 8))

    def forward(self, x):
        return x * (self.table[:4] > 0)


for module in [Sine(), Training().train(), Pool()]:
    try:
        fp8_torch.import_module(module, (torch.randn(2, 4, 8),))
    except fp8_torch.UnsupportedError as e:
        print(str(e).replace(os.path.dirname(__file__) + os.sep, ""))
# CHECK: ops.py:[[#@LINE-35]]: unsupported op 'sin' (call_function)
# CHECK: ops.py:[[#@LINE-27]]: unsupported op 'drop' (call_module): dropout in training mode (call .eval())
# CHECK: ops.py:[[#@LINE-19]]: unsupported module MaxPool1d ('pool')

# A boolean computed from buffers alone, read as values: 1 and 0.
x = torch.randn(2, 4, 8)
print("flags:", torch.equal(fp8_torch.compile(Flags(), (x,), recipe=None, opt_level=0)(x),
                            Flags()(x)))
# CHECK: flags: True


class Strided(nn.Module):
    def forward(self, x):
        return x[:, ::2] * 2


class Gather(nn.Module):
    def forward(self, x, rows):
        return x[rows] * 2


class ViewInPlace(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("above", torch.ones(4, 4, dtype=torch.bool).triu(1))

    def forward(self, x):
        y = x * 2
        y.view(2, 4, 4).masked_fill_(self.above, 0.0)
        return y


class Root(nn.Module):
    def forward(self, x):
        return x ** 1.5


class Cast(nn.Module):
    def forward(self, x):
        return x.to(torch.int32) * 2


for module, inputs in [(Strided(), (torch.randn(2, 4, 8),)),
                       (Gather(), (torch.randn(4, 8), torch.tensor([0, 2]))),
                       (Root(), (torch.randn(4, 8),)), (Cast(), (torch.randn(4, 8),)),
                       (ViewInPlace(), (torch.randn(2, 16),))]:
    try:
        fp8_torch.import_module(module, inputs)
    except fp8_torch.UnsupportedError as e:
        print(str(e).replace(os.path.dirname(__file__) + os.sep, ""))
# CHECK: ops.py:[[#@LINE-37]]: unsupported op 'getitem' (call_function): a slice of step 2
# CHECK: ops.py:[[#@LINE-33]]: unsupported op 'getitem' (call_function): an index by a tensor
# CHECK: ops.py:[[#@LINE-18]]: unsupported op 'pow' (call_function): pow with exponent 1.5 (the integers 1 to 4, and 0.5)
# CHECK: ops.py:[[#@LINE-14]]: unsupported op 'to' (call_method): a cast to a type other than a floating-point one
# CHECK: ops.py:[[#@LINE-26]]: unsupported op 'masked_fill_' (call_method): in place on an input, a parameter, a buffer or a view (write it out of place: x = x.masked_fill(...))
