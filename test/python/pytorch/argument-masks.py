# REQUIRES: torch
# Masks given at each call, as Hugging Face models take `attention_mask`:
# an integer mask extended and added to the scores (BERT's (1 - mask) *
# -10000), a boolean mask in masked_fill and where, as
# scaled_dot_product_attention's attn_mask, and as nn.MultiheadAttention's
# key_padding_mask. Integer and boolean arguments read as values become f32
# inputs (1 for True) that the callable converts at each call. Each case
# matches torch's float64 forward and backward to 1e-5 on the CPU, then again
# with other masks at the next call.
# RUN: %host_env %python %s | FileCheck %s

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
import sdpa  # noqa: E402

sdpa.install()
from models import relative  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402


class Masked(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(16, 16)
        self.attn = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x, attention_mask, keep, pad):
        heads = x[:, None]
        extended = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        scores = self.q(x)[:, None] @ heads.transpose(-2, -1) + extended
        a = F.softmax(scores, -1) @ heads
        b = F.scaled_dot_product_attention(heads, heads, heads, attn_mask=keep[:, None, None, :])
        c = self.attn(x, x, x, key_padding_mask=pad, need_weights=False)[0]
        d = x.masked_fill(pad[:, :, None], 0.0) + torch.where(keep[:, :, None], x, -1.0)
        return (a + b).squeeze(1) + c + d


def masks(lengths):
    attention_mask = (torch.arange(6)[None, :] < torch.tensor(lengths)[:, None]).long()
    return attention_mask, attention_mask.bool(), attention_mask == 0


torch.manual_seed(0)
module = Masked().eval()
x = torch.randn(2, 6, 16)
compiled = fp8_torch.compile(module, (x,) + masks([4, 5]), recipe=None, opt_level=0)
ref = Masked().double().eval()
ref.load_state_dict(module.state_dict())
for lengths in ([4, 5], [2, 6]):
    m = masks(lengths)
    got_x, want_x = x.clone().requires_grad_(), x.double().requires_grad_()
    y, y_ref = compiled(got_x, *m), ref(want_x, *m)
    dy = torch.randn_like(y)
    y.backward(dy)
    y_ref.backward(dy.double())
    errors = [relative(y, y_ref.detach()), relative(got_x.grad, want_x.grad)]
    errors += [relative(p.grad, r.grad) for p, r in zip(module.parameters(), ref.parameters())]
    module.zero_grad()
    ref.zero_grad()
    print(f"lengths {lengths}: {len(errors)} results within 1e-5: {max(errors) < 1e-5}")
# CHECK: lengths [4, 5]: 8 results within 1e-5: True
# CHECK: lengths [2, 6]: 8 results within 1e-5: True

sources = [s[0] for s in fp8_torch.import_module(module, (x,) + masks([4, 5])).sources]
print("inputs:", sources.count("as_float"), "masks of", len(sources))
# CHECK: inputs: 3 masks of 10
