# REQUIRES: torch
# A pre-norm transformer block in PyTorch (LayerNorm, causal multi-head
# attention with heads split by view/transpose and an additive mask buffer,
# softmax, GELU MLP, residuals) imported, compiled and run on the CPU,
# forward and backward, against torch's float64 within each recipe's bounds
# (BOUNDS of bench/examples/error.py; f32 1e-5). The key bias's gradient is
# identically zero (softmax ignores a constant shift of its row): left out.
# The same block with nanoGPT's mask (a tril buffer sliced to the sequence,
# scores filled with -inf) imports as the same causal fill. A LLaMA-style
# block (RMSNorm, rotary embedding from cos and sin buffers sliced to the
# sequence, SwiGLU) imports its sliced tables as constant inputs; with two
# key and value heads for four query heads (LLaMA's repeat_kv), too.
# RUN: %host_env %python %s | FileCheck %s
# CHECK: block f32: y, dx, parameters within (1e-05, 1e-05, 1e-05): True
# CHECK: block tensor-current: y, dx, parameters within (0.07, 0.15, 0.3): True
# CHECK: block mxfp8: y, dx, parameters within (0.07, 0.1, 0.2): True
# CHECK: block nvfp4: y, dx, parameters within (0.25, 0.45, 0.7): True
# CHECK: nanogpt block f32: y, dx, parameters within (1e-05, 1e-05, 1e-05): True
# CHECK: nanogpt block deepseek: y, dx, parameters within (0.07, 0.1, 0.2): True
# CHECK: llama block f32: y, dx, parameters within (1e-05, 1e-05, 1e-05): True
# CHECK: llama block tensor-current: y, dx, parameters within (0.07, 0.15, 0.3): True
# CHECK: llama block deepseek: y, dx, parameters within (0.07, 0.1, 0.2): True
# CHECK: llama block mxfp8: y, dx, parameters within (0.07, 0.1, 0.2): True
# CHECK: gqa llama block f32: y, dx, parameters within (1e-05, 1e-05, 1e-05): True
# CHECK: gqa llama block deepseek: y, dx, parameters within (0.07, 0.1, 0.2): True

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "examples"))
from error import BOUNDS  # noqa: E402
from models import Block, LlamaBlock, NanoBlock, check  # noqa: E402

torch.manual_seed(0)
check("block", Block(), (torch.randn(2, 32, 64),), ["f32", "tensor-current", "mxfp8", "nvfp4"],
      BOUNDS, skip=("k.bias",))
torch.manual_seed(0)
check("nanogpt block", NanoBlock(), (torch.randn(2, 32, 64),), ["f32", "deepseek"], BOUNDS,
      skip=("k.bias",))
torch.manual_seed(0)
check("llama block", LlamaBlock(), (torch.randn(2, 32, 64),),
      ["f32", "tensor-current", "deepseek", "mxfp8"], BOUNDS)
torch.manual_seed(0)
check("gqa llama block", LlamaBlock(kv_heads=2), (torch.randn(2, 32, 64),), ["f32", "deepseek"],
      BOUNDS)
