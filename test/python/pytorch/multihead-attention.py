# REQUIRES: torch
# nn.MultiheadAttention imports as its documented math (the packed input
# projection sliced into queries, keys and values, scaled scores, masks,
# softmax, the output projection): batch first or not, unbatched, cross
# attention with another key length, nn.Transformer's float causal mask
# (recognized as a causal fill), a causal boolean mask, is_causal, and the
# attention weights averaged over the heads or not where the caller reads
# them. Each case matches torch's float64 forward and backward (inputs and
# parameters) to 1e-5 on the CPU; a pre-norm block built on it is checked
# under tensor-current within its bounds. What the import does not cover is
# refused with the module's line.
# RUN: %host_env %python %s | FileCheck %s

import os
import sys

import torch
import torch.nn as nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "examples"))
from error import BOUNDS  # noqa: E402
from models import check, check_f32  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402


def square_subsequent_mask(n):
    """nn.Transformer's causal mask: -inf above the diagonal, 0 elsewhere."""
    return torch.triu(torch.full((n, n), float("-inf")), diagonal=1)


class SelfAttention(nn.Module):
    """Batch first, nn.Transformer's float mask made in forward for the
    sequence, the weights discarded."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x):
        mask = square_subsequent_mask(x.size(1))
        return self.attn(x, x, x, attn_mask=mask, need_weights=False)[0]


class SequenceFirst(nn.Module):
    """[L, N, E] inputs, a boolean mask (True: not attended), the averaged
    weights read."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 2)
        self.register_buffer("blocked", torch.ones(5, 5, dtype=torch.bool).triu(1))

    def forward(self, x):
        out, weights = self.attn(x, x, x, attn_mask=self.blocked)
        return out + weights.sum(-1, keepdim=True).transpose(0, 1) * x


class Padded(nn.Module):
    """Padded sequences: key_padding_mask from a buffer, boolean (True: not
    attended; the first sequence's last two keys, the second's last one)
    with a causal float mask, then float (added to the scores)."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)
        self.register_buffer("lengths", torch.tensor([[4], [5]]))

    def forward(self, x):
        t = x.size(1)
        padded = torch.arange(t)[None, :] >= self.lengths
        causal = square_subsequent_mask(t)
        a = self.attn(x, x, x, key_padding_mask=padded, attn_mask=causal, need_weights=False)[0]
        b = self.attn(x, x, x, key_padding_mask=padded.float() * -3.0)[0]
        return a + b


class Cross(nn.Module):
    """Queries attending to a longer memory, no biases, the weights of each
    head read, then an unbatched call."""

    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, bias=False, batch_first=True)

    def forward(self, x, memory):
        out, weights = self.attn(x, memory, memory, average_attn_weights=False)
        single = self.attn(x[0], memory[0], memory[0], need_weights=False)[0]
        return out + weights.sum(1) @ memory + single


CASES = [
    ("self-attention, float causal mask", SelfAttention(), lambda: (torch.randn(3, 6, 16),)),
    ("sequence first, boolean mask, weights", SequenceFirst(), lambda: (torch.randn(5, 2, 16),)),
    ("padded sequences", Padded(), lambda: (torch.randn(2, 6, 16),)),
    ("cross attention, per-head weights, unbatched", Cross(),
     lambda: (torch.randn(2, 4, 16), torch.randn(2, 7, 16))),
]

check_f32(CASES)
# CHECK: self-attention, float causal mask: 6 results within 1e-5: True
# CHECK: sequence first, boolean mask, weights: 6 results within 1e-5: True
# CHECK: padded sequences: 6 results within 1e-5: True
# CHECK: cross attention, per-head weights, unbatched: 5 results within 1e-5: True

# nn.Transformer's mask made in forward is the graph's causal fill, not an
# input (a mask buffer read directly is an input, read at each call).
imported = fp8_torch.import_module(SelfAttention().eval(), (torch.randn(3, 6, 16),))
print("inputs:", [s[0] for s in imported.sources],
      "causal fill:", any(t.op == "causal_fill" for t in imported.forward.nodes))
# CHECK: inputs: ['input', 'param', 'param', 'param', 'param'] causal fill: True


class Block(nn.Module):
    """A pre-norm block on nn.MultiheadAttention, as nn.TransformerEncoderLayer
    with norm_first computes it."""

    def __init__(self):
        super().__init__()
        self.ln_1 = nn.LayerNorm(64)
        self.attn = nn.MultiheadAttention(64, 4, batch_first=True)
        self.ln_2 = nn.LayerNorm(64)
        self.fc1 = nn.Linear(64, 256)
        self.fc2 = nn.Linear(256, 64)

    def forward(self, x):
        h = self.ln_1(x)
        mask = square_subsequent_mask(x.size(1))
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.fc2(torch.relu(self.fc1(self.ln_2(x))))


torch.manual_seed(0)
check("mha block", Block(), (torch.randn(2, 32, 64),), ["f32", "tensor-current"], BOUNDS)
# CHECK: mha block f32: y, dx, parameters within (1e-05, 1e-05, 1e-05): True
# CHECK: mha block tensor-current: y, dx, parameters within (0.07, 0.15, 0.3): True


class Training(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(16, 4, dropout=0.1, batch_first=True)

    def forward(self, x):
        return self.attn(x, x, x)[0]


x = torch.randn(2, 6, 16)
for module, inputs in [(Training().train(), (x,))]:
    try:
        fp8_torch.import_module(module, inputs)
        print(type(module).__name__, "imported")
    except fp8_torch.UnsupportedError as e:
        print(str(e).replace(HERE + os.sep, ""))
# CHECK: multihead-attention.py:[[#@LINE-10]]: unsupported op 'attn' (call_module): dropout in training mode in 'attn' (call .eval())
