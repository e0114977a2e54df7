#!/usr/bin/env python3
"""A PyTorch MLP trained in FP8 through fp8-mlir.

    python3 torch_mlp.py [--recipe mxfp8]

Traces the module with torch.fx, compiles forward and backward by the
recipe, and runs them on the CPU (the bit-exact reference of the recipe;
on CUDA tensors the same call runs the GPU kernels). Prints the error of
the output and of the gradients against PyTorch in float64, then takes a
few SGD steps with the compiled gradients.
"""

import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F

import fp8_mlir.torch as fp8_torch


class MLP(nn.Module):
    def __init__(self, width=128, hidden=512):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.fc2 = nn.Linear(hidden, width)

    def forward(self, x):
        return x + self.fc2(F.gelu(self.fc1(x)))


def relative(got, want):
    return (torch.linalg.norm(got.double() - want) / torch.linalg.norm(want)).item()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", default="mxfp8")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = MLP()
    x = torch.randn(64, 128)
    compiled = fp8_torch.compile(model, (x,), recipe=args.recipe)

    # float64 reference
    reference = MLP().double()
    reference.load_state_dict(model.state_dict())
    x64 = x.double().requires_grad_(True)
    y64 = reference(x64)
    dy = torch.randn_like(y64)
    y64.backward(dy)

    xin = x.clone().requires_grad_(True)
    y = compiled(xin)
    y.backward(dy.float())
    print(f"{args.recipe}: output error {relative(y, y64.detach()):.4f}, "
          f"input gradient {relative(xin.grad, x64.grad):.4f}")
    for (name, p), q in zip(model.named_parameters(), reference.parameters()):
        print(f"  {name} gradient error {relative(p.grad, q.grad):.4f}")

    # A few SGD steps on a regression loss, every forward and backward
    # through the compiled FP8 program.
    target = torch.randn(64, 128)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    for step in range(3):
        optimizer.zero_grad()
        loss = F.mse_loss(compiled(x), target)
        loss.backward()
        optimizer.step()
        print(f"step {step}: loss {loss.item():.4f}")

if __name__ == "__main__":
    main()
