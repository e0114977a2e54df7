# REQUIRES: torch
# F.scaled_dot_product_attention, as nanoGPT and most torch 2 models call
# it, imports as its documented math: q k^T scaled, masked (is_causal, a
# causal boolean mask, a float mask), softmax, times v. Each case compiles
# without a recipe and matches torch's float64 forward and backward (inputs
# and parameters) to 1e-5 on the CPU; nanoGPT's block on the flash path is
# checked under FP8 recipes within their bounds too. What the import cannot
# express (dropout) is refused with the op's source line. On torch before 2.0 the
# function comes from Inputs/sdpa.py, which defers to __torch_function__ as
# torch's own functions do; its math is checked against the explicit
# attention of NanoBlock first.
# RUN: %host_env %python %s | FileCheck %s

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "examples"))
import sdpa  # noqa: E402

sdpa.install()
from error import BOUNDS  # noqa: E402
from models import FlashBlock, NanoBlock, check, check_f32, relative  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402

# The flash path computes what the explicit one does.
torch.manual_seed(0)
explicit = NanoBlock().double().eval()
flash = FlashBlock().double().eval()
flash.load_state_dict(explicit.state_dict())
x = torch.randn(2, 32, 64, dtype=torch.float64)
print("flash path matches the explicit one:",
      relative(flash(x), explicit(x).detach()) < 1e-12)
# CHECK: flash path matches the explicit one: True

torch.manual_seed(0)
check("flash block", FlashBlock(), (torch.randn(2, 32, 64),), ["f32", "tensor-current", "deepseek"],
      BOUNDS, skip=("k.bias",))
# CHECK: flash block f32: y, dx, parameters within (1e-05, 1e-05, 1e-05): True
# CHECK: flash block tensor-current: y, dx, parameters within (0.07, 0.15, 0.3): True
# CHECK: flash block deepseek: y, dx, parameters within (0.07, 0.1, 0.2): True


class Scaled(nn.Module):
    """Positional arguments, an explicit scale, three dimensions."""

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, None, 0.0, True, scale=0.3)


class CrossCausal(nn.Module):
    """Fewer queries than keys: is_causal keeps the lower triangle of the
    L x S matrix."""

    def forward(self, q, kv):
        return F.scaled_dot_product_attention(q, kv, kv * 0.5, is_causal=True)


class BoolMask(nn.Module):
    """A causal boolean mask from a buffer, sliced to the sequence and
    broadcast over batch and heads."""

    def __init__(self):
        super().__init__()
        self.register_buffer("keep", torch.tril(torch.ones(8, 8, dtype=torch.bool)))

    def forward(self, q, k):
        t = q.size(-2)
        return F.scaled_dot_product_attention(q, k, k, attn_mask=self.keep[:t, :t])


class FloatMask(nn.Module):
    """An additive mask (ALiBi-like distances from a buffer), and one that
    is an input of the module."""

    def __init__(self):
        super().__init__()
        distance = torch.arange(6)[None, :] - torch.arange(6)[:, None]
        self.register_buffer("slopes", torch.tensor([0.5, 0.25, 0.125]).view(3, 1, 1))
        self.register_buffer("distance", -distance.abs().float())

    def forward(self, q, k, bias):
        alibi = self.slopes * self.distance
        a = F.scaled_dot_product_attention(q, k, k, attn_mask=alibi)
        return a + F.scaled_dot_product_attention(q, k, q, attn_mask=bias)


class Padded(nn.Module):
    """A padding mask: the last two keys of every sequence not attended."""

    def __init__(self):
        super().__init__()
        self.register_buffer("keep", torch.arange(6) < 4)

    def forward(self, q, k):
        return F.scaled_dot_product_attention(q, k, k, attn_mask=self.keep)


class Broadcast(nn.Module):
    """Batch dimensions that broadcast: one key batch for every query batch,
    values shared by the batch."""

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


class Grouped(nn.Module):
    """Grouped-query attention, four query heads to two key and value heads,
    the three ways models write it: enable_gqa (torch 2.5), LLaMA's
    repeat_kv (a None index, expand, reshape) and repeat_interleave."""

    def forward(self, q, k, v):
        b, kv, s, e = k.size(0), k.size(1), k.size(2), k.size(3)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        k2 = k[:, :, None, :, :].expand(b, kv, 2, s, e).reshape(b, kv * 2, s, e)
        v2 = v[:, :, None].expand(b, kv, 2, s, e).reshape(b, kv * 2, s, e)
        c = F.scaled_dot_product_attention(q, k2, v2, is_causal=True)
        k3 = torch.repeat_interleave(k, 2, dim=1)
        v3 = v.repeat_interleave(2, 1)
        return a + 2 * c + 3 * F.scaled_dot_product_attention(q, k3, v3, is_causal=True)


CASES = [
    ("scale and 3-D", Scaled(), lambda: (torch.randn(3, 5, 8), torch.randn(3, 5, 8),
                                        torch.randn(3, 5, 4))),
    ("fewer queries than keys", CrossCausal(), lambda: (torch.randn(2, 3, 4, 8),
                                                       torch.randn(2, 3, 7, 8))),
    ("boolean mask", BoolMask(), lambda: (torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8))),
    ("padding mask", Padded(), lambda: (torch.randn(2, 3, 5, 8), torch.randn(2, 3, 6, 8))),
    ("broadcast batch", Broadcast(), lambda: (torch.randn(2, 3, 5, 8), torch.randn(1, 3, 7, 8),
                                              torch.randn(3, 7, 4))),
    ("grouped heads", Grouped(), lambda: (torch.randn(2, 4, 6, 8), torch.randn(2, 2, 6, 8),
                                          torch.randn(2, 2, 6, 8))),
    ("float masks", FloatMask(), lambda: (torch.randn(2, 3, 6, 8), torch.randn(2, 3, 6, 8),
                                          torch.randn(2, 1, 6, 6))),
]

check_f32(CASES)
# CHECK: scale and 3-D: 4 results within 1e-5: True
# CHECK: fewer queries than keys: 3 results within 1e-5: True
# CHECK: boolean mask: 3 results within 1e-5: True
# CHECK: padding mask: 3 results within 1e-5: True
# CHECK: broadcast batch: 4 results within 1e-5: True
# CHECK: grouped heads: 4 results within 1e-5: True
# CHECK: float masks: 4 results within 1e-5: True


class Dropout(nn.Module):
    def forward(self, q):
        return F.scaled_dot_product_attention(q, q, q, dropout_p=0.1)


q = torch.randn(2, 4, 6, 8)
for module, inputs in [(Dropout(), (q,))]:
    try:
        fp8_torch.import_module(module.eval(), inputs)
        print(type(module).__name__, "imported")
    except (fp8_torch.UnsupportedError, ValueError) as e:
        print(str(e).replace(HERE + os.sep, ""))
# CHECK: sdpa.py:[[#@LINE-10]]: unsupported op 'scaled_dot_product_attention' (call_function): dropout_p other than 0 (pass 0 when not training)
