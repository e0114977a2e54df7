# REQUIRES: torch
# A PyTorch MLP (Linear, GELU, Dropout in eval mode, Linear) imported,
# compiled by every recipe and run on the CPU, forward and backward: the
# output, the input gradient and every parameter gradient match torch's
# float64 within each recipe's bounds of relative L2 error, those the
# example models are held to (BOUNDS of bench/examples/error.py: about
# twice the worst error measured on them; f32 1e-5).
# RUN: %host_env %python %s | FileCheck %s
# CHECK: mlp f32: y, dx, parameters within (1e-05, 1e-05, 1e-05): True
# CHECK: mlp tensor-delayed: {{.*}}: True
# CHECK: mlp tensor-current: {{.*}}: True
# CHECK: mlp rowwise: {{.*}}: True
# CHECK: mlp deepseek: {{.*}}: True
# CHECK: mlp mxfp8: y, dx, parameters within (0.07, 0.1, 0.2): True
# CHECK: mlp nvfp4: y, dx, parameters within (0.25, 0.45, 0.7): True
# CHECK: mlp graphcore: {{.*}}: True
# CHECK: mlp unit: {{.*}}: True

import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "bench", "examples"))
from error import BOUNDS  # noqa: E402
from models import MLP, check  # noqa: E402

torch.manual_seed(0)
check("mlp", MLP(), (torch.randn(64, 64),),
      ["f32", "tensor-delayed", "tensor-current", "rowwise", "deepseek", "mxfp8", "nvfp4",
       "graphcore", "unit"], BOUNDS)
