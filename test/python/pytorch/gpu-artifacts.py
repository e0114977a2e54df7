# REQUIRES: torch, fp8-runtime
# The GPU path of the PyTorch front end without a GPU: an MLP's forward
# function compiled for each chip, its forward and backward functions for
# training, a pre-norm transformer block's (causal attention: batched
# products, softmax, LayerNorm) and rotary embedding's rotate_half for
# sm_90a, and a LLaMA-style block (RMSNorm, rotary tables as constant
# inputs, SwiGLU) for both chips and with grouped-query attention, an
# HF-style MLP, a block on nn.MultiheadAttention and comparisons in the
# graph, into launch manifests that fp8-run accepts.
# RUN: rm -rf %t && %host_env %python %s %t | FileCheck %s
# RUN: fp8-run --check %t/sm_90a/mlp/mlp.json | FileCheck %s --check-prefix=HOPPER
# RUN: fp8-run --check %t/sm_100a/mlp/mlp.json | FileCheck %s --check-prefix=BLACKWELL
# RUN: fp8-run --check %t/train/mlp_backward/mlp_backward.json | FileCheck %s --check-prefix=BACKWARD
# HOPPER: ok: 'mlp' for sm_90a: 5 inputs, 1 outputs
# BLACKWELL: ok: 'mlp' for sm_100a: 5 inputs, 1 outputs
# BACKWARD: ok: 'mlp_backward' for sm_90a: 6 inputs, 6 outputs
# RUN: fp8-run --check %t/block/block_backward/block_backward.json | FileCheck %s --check-prefix=BLOCK
# BLOCK: ok: 'block_backward' for sm_90a:
# nanoGPT's mask: the scores above the diagonal filled with -inf in the
# kernel that computes them.
# RUN: fp8-run --check %t/nano/nanoblock/nanoblock.json | FileCheck %s --check-prefix=NANO
# RUN: FileCheck %s --check-prefix=NANO-PTX --input-file=%t/nano/nanoblock/fp8_kernels.ptx
# NANO: ok: 'nanoblock' for sm_90a:
# NANO-PTX: 0fFF800000
# Rotary embedding's rotate_half (slices and torch.cat) after a linear, forward
# and backward: the slices and the concatenation become layout copies.
# RUN: fp8-run --check %t/rotary/rotary/rotary.json | FileCheck %s --check-prefix=ROTARY
# RUN: fp8-run --check %t/rotary/rotary_backward/rotary_backward.json | FileCheck %s --check-prefix=ROTARY
# ROTARY: ok: 'rotary{{(_backward)?}}' for sm_90a:
# The LLaMA-style block: its inputs are x, the ten parameters and the cos and
# sin tables sliced to the sequence (one input each, for queries and keys).
# RUN: fp8-run --check %t/llama/llamablock/llamablock.json | FileCheck %s --check-prefix=LLAMA
# RUN: fp8-run --check %t/llama/llamablock_backward/llamablock_backward.json | FileCheck %s --check-prefix=LLAMA-BACKWARD
# RUN: fp8-run --check %t/llama-sm100/llamablock/llamablock.json | FileCheck %s --check-prefix=LLAMA-SM100
# LLAMA: ok: 'llamablock' for sm_90a: 12 inputs, 1 outputs
# LLAMA-BACKWARD: ok: 'llamablock_backward' for sm_90a: 13 inputs, 11 outputs
# LLAMA-SM100: ok: 'llamablock' for sm_100a: 12 inputs, 1 outputs
# Grouped-query attention (two key and value heads for four query heads):
# the repeated heads are a broadcast the batched GEMMs read, summed back in
# the backward.
# RUN: fp8-run --check %t/gqa/llamablock_backward/llamablock_backward.json | FileCheck %s --check-prefix=GQA
# GQA: ok: 'llamablock_backward' for sm_90a: 13 inputs, 11 outputs
# An MLP as HF's GPT-2 writes it (Conv1D as addmm, GELU's tanh form with
# pow 3) after a LayerNorm written with sqrt, and BERT's erf GELU.
# RUN: fp8-run --check %t/hf/hfmlp_backward/hfmlp_backward.json | FileCheck %s --check-prefix=HF
# HF: ok: 'hfmlp_backward' for sm_90a:
# nn.MultiheadAttention: its packed projection weight sliced into three
# GEMM operands (their gradients placed back into one), and a padding mask
# (an input: 15 with the mask).
# RUN: fp8-run --check %t/mha/mhablock_backward/mhablock_backward.json | FileCheck %s --check-prefix=MHA
# MHA: ok: 'mhablock_backward' for sm_90a: 15 inputs, 14 outputs
# Comparisons in the graph: a where of two tensors after a linear (its
# gradient a fill of dy by the condition) and HF's `attention_mask == 0` of
# an integer argument.
# RUN: fp8-run --check %t/compare/gated_backward/gated_backward.json | FileCheck %s --check-prefix=COMPARE
# COMPARE: ok: 'gated_backward' for sm_90a: 7 inputs, 6 outputs

import math
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "Inputs"))
from models import MLP, Block, Gated, LlamaBlock, NanoBlock  # noqa: E402

from fp8_mlir import torch as fp8_torch  # noqa: E402

out = sys.argv[1]
module, x = MLP().eval(), torch.randn(128, 64)
for chip in ["sm_90a", "sm_100a"]:
    manifests = fp8_torch.export(module, (x,), recipe="mxfp8", chip=chip,
                                 artifacts=os.path.join(out, chip), backward=False)
    print(chip, {k: os.path.relpath(v, out) for k, v in manifests.items()})
# CHECK: sm_90a {'mlp': 'sm_90a/mlp/mlp.json'}
# CHECK: sm_100a {'mlp': 'sm_100a/mlp/mlp.json'}
manifests = fp8_torch.export(module, (x,), chip="sm_90a",
                             artifacts=os.path.join(out, "train"))
print("train", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: train [{{.*}}'train/mlp_backward/mlp_backward.json'{{.*}}]

manifests = fp8_torch.export(Block().eval(), (torch.randn(2, 32, 64),), recipe="deepseek",
                             chip="sm_90a", artifacts=os.path.join(out, "block"))
print("block", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: block ['block/block/block.json', 'block/block_backward/block_backward.json']

manifests = fp8_torch.export(NanoBlock().eval(), (torch.randn(2, 32, 64),), recipe="deepseek",
                             chip="sm_90a", artifacts=os.path.join(out, "nano"), backward=False)
print("nano", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: nano ['nano/nanoblock/nanoblock.json']


class Rotary(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(64, 64)
        self.cos = torch.nn.Parameter(torch.randn(64))
        self.sin = torch.nn.Parameter(torch.randn(64))

    def forward(self, x):
        q = self.proj(x)
        half = q.size(-1) // 2
        return q * self.cos + torch.cat((-q[..., half:], q[..., :half]), dim=-1) * self.sin


manifests = fp8_torch.export(Rotary().eval(), (torch.randn(128, 64),), recipe="deepseek",
                             chip="sm_90a", artifacts=os.path.join(out, "rotary"))
print("rotary", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: rotary ['rotary/rotary/rotary.json', 'rotary/rotary_backward/rotary_backward.json']

llama, x = LlamaBlock().eval(), torch.randn(2, 32, 64)
print("llama", [s[0] for s in fp8_torch.import_module(llama, (x,)).sources])
# CHECK: llama ['input', 'param', 'param', 'param', 'param', 'constant', 'constant', 'param', 'param', 'param', 'param', 'param']
manifests = fp8_torch.export(llama, (x,), recipe="deepseek", chip="sm_90a",
                             artifacts=os.path.join(out, "llama"))
print("llama", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: llama ['llama/llamablock/llamablock.json', 'llama/llamablock_backward/llamablock_backward.json']
manifests = fp8_torch.export(llama, (x,), recipe="mxfp8", chip="sm_100a",
                             artifacts=os.path.join(out, "llama-sm100"), backward=False)
print("llama sm_100a", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: llama sm_100a ['llama-sm100/llamablock/llamablock.json']

manifests = fp8_torch.export(LlamaBlock(kv_heads=2).eval(), (x,), recipe="deepseek",
                             chip="sm_90a", artifacts=os.path.join(out, "gqa"))
print("gqa", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: gqa ['gqa/llamablock/llamablock.json', 'gqa/llamablock_backward/llamablock_backward.json']


class HFMLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w_fc = torch.nn.Parameter(torch.randn(64, 256) / 8)
        self.b_fc = torch.nn.Parameter(torch.zeros(256))
        self.w_proj = torch.nn.Parameter(torch.randn(256, 64) / 16)
        self.b_proj = torch.nn.Parameter(torch.zeros(64))

    def forward(self, x):
        x = (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + 1e-5)
        h = torch.addmm(self.b_fc, x.view(-1, 64), self.w_fc)
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))
        h = h * 0.5 * (1.0 + torch.erf(h / math.sqrt(2.0)))
        return torch.addmm(self.b_proj, h, self.w_proj).view(x.size())


manifests = fp8_torch.export(HFMLP().eval(), (torch.randn(2, 32, 64),), recipe="deepseek",
                             chip="sm_90a", artifacts=os.path.join(out, "hf"))
print("hf", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: hf ['hf/hfmlp/hfmlp.json', 'hf/hfmlp_backward/hfmlp_backward.json']


class MHABlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = torch.nn.LayerNorm(64)
        self.attn = torch.nn.MultiheadAttention(64, 4, batch_first=True)
        self.ln_2 = torch.nn.LayerNorm(64)
        self.fc1 = torch.nn.Linear(64, 256)
        self.fc2 = torch.nn.Linear(256, 64)
        self.register_buffer("lengths", torch.tensor([[28], [32]]))

    def forward(self, x):
        h = self.ln(x)
        mask = torch.triu(torch.full((x.size(1), x.size(1)), float("-inf")), diagonal=1)
        padded = torch.arange(x.size(1))[None, :] >= self.lengths
        x = x + self.attn(h, h, h, attn_mask=mask, key_padding_mask=padded,
                          need_weights=False)[0]
        return x + self.fc2(torch.relu(self.fc1(self.ln_2(x))))


manifests = fp8_torch.export(MHABlock().eval(), (torch.randn(2, 32, 64),), recipe="deepseek",
                             chip="sm_90a", artifacts=os.path.join(out, "mha"))
print("mha", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: mha ['mha/mhablock/mhablock.json', 'mha/mhablock_backward/mhablock_backward.json']


attention_mask = torch.ones(2, 32, dtype=torch.long)
attention_mask[0, 20:] = 0
manifests = fp8_torch.export(Gated().eval(), (torch.randn(2, 32, 64), attention_mask),
                             recipe="deepseek", chip="sm_90a",
                             artifacts=os.path.join(out, "compare"))
print("compare", sorted(os.path.relpath(v, out) for v in manifests.values()))
# CHECK: compare ['compare/gated/gated.json', 'compare/gated_backward/gated_backward.json']
