#!/usr/bin/env python3
"""fp8-mlir from Python: a GEMM through a recipe, run on the CPU on numpy
arrays and compiled for a GPU.

    python3 cpu_reference.py [--recipe mxfp8] [--chip sm_100a] [--artifacts DIR]

Parses a linalg GEMM, converts it with fp8-autocast, runs the CPU reference
(fp8-cpu-pipeline, JIT-compiled in this process) and prints its error
against float64; then compiles the same module for the chip and lists the
artifacts (PTX, cubin when ptxas is found, the launch manifest that
fp8-run and fp8_mlir.runtime read).
"""

import argparse
import os
import tempfile

import numpy as np

from fp8_mlir import compiler

GEMM = """
func.func @gemm(%a: tensor<128x512xf32>, %b: tensor<512x256xf32>) -> tensor<128x256xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<128x256xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<128x256xf32>) -> tensor<128x256xf32>
  %c = linalg.matmul ins(%a, %b : tensor<128x512xf32>, tensor<512x256xf32>)
                     outs(%init : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %c : tensor<128x256xf32>
}
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--recipe", default="mxfp8")
    parser.add_argument("--chip", default="sm_100a")
    parser.add_argument("--artifacts", default=None)
    args = parser.parse_args()

    module = compiler.parse(GEMM, "gemm.mlir")
    module.run(f"fp8-autocast{{recipe={args.recipe}}}")

    rng = np.random.default_rng(0)
    a = rng.standard_normal((128, 512)).astype(np.float32)
    b = (rng.standard_normal((512, 256)) / np.sqrt(512)).astype(np.float32)
    c, = compiler.jit(module).call("gemm", a, b)
    exact = a.astype(np.float64) @ b
    error = np.linalg.norm(c - exact) / np.linalg.norm(exact)
    print(f"{args.recipe} on the CPU: relative error {error:.4f} against float64")

    artifacts = args.artifacts or tempfile.mkdtemp(prefix="fp8-artifacts-")
    manifests = module.compile(args.chip, artifacts)
    print(f"compiled for {args.chip} into {artifacts}: "
          f"{', '.join(sorted(os.listdir(artifacts)))}; manifest {manifests['gemm']}")


if __name__ == "__main__":
    main()
