# REQUIRES: torch
# nn.RMSNorm and F.rms_norm (torch 2.4) import as their documented math,
# x / sqrt(mean(x^2) + eps) * weight over the normalized dimensions, eps None
# being f32's machine epsilon: one or two normalized dimensions, with and
# without a weight. Each case matches torch's float64 forward and backward
# (inputs and parameters) to 1e-5 on the CPU. On torch before 2.4 the
# module and the function come from Inputs/rmsnorm.py, which computes the
# same math (checked against RMSNorm written out first).
# RUN: %host_env %python %s | FileCheck %s

import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "Inputs"))
import rmsnorm  # noqa: E402

rmsnorm.install()
from models import RMSNorm, check_f32, relative  # noqa: E402

# The module computes what LLaMA's written-out RMSNorm does.
torch.manual_seed(0)
written = RMSNorm(16).double()
module = nn.RMSNorm(16, eps=1e-6).double()
module.weight.data.copy_(written.weight.data)
x = torch.randn(3, 16, dtype=torch.float64)
print("matches the written-out form:", relative(module(x), written(x).detach()) < 1e-12)
# CHECK: matches the written-out form: True


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.last = nn.RMSNorm(16)
        self.two = nn.RMSNorm((4, 16), eps=1e-5)
        self.plain = nn.RMSNorm(16, elementwise_affine=False)
        self.gain = nn.Parameter(1 + 0.1 * torch.randn(16))
        with torch.no_grad():
            self.last.weight.add_(0.1 * torch.randn(16))
            self.two.weight.add_(0.1 * torch.randn(4, 16))

    def forward(self, x):
        return (self.last(x) * self.two(x) + self.plain(x * 3)
                + F.rms_norm(x, (16,), self.gain, 1e-6) - F.rms_norm(x, [4, 16]))


check_f32([("rms norms", Norms(), lambda: (torch.randn(2, 4, 16),))])
# CHECK: rms norms: 5 results within 1e-5: True
