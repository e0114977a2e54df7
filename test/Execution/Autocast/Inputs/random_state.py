#!/usr/bin/env python3
"""fp8-autocast's random-state on the CPU: an NVFP4 dgrad GEMM (its gradient
operand rounded stochastically) called several times in one program. Call k
rounds with the bits of the oracle's call k (fp8_mlir.recipes.random_bits);
with random-state=false every call rounds with the bits of call 0; a module
that declares the counter's global starts from its value.

  random_state.py
"""

import sys
import zlib

import numpy as np

from fp8_mlir import compiler
from fp8_mlir import recipes
from fp8_mlir import numerics as n

SEED = 12345
M, K, N = 33, 96, 20


def module(declared=None):
    """@gemm(a, b) = a x b, marked dgrad; with `declared`, the module also
    declares the call counter's global with that value."""
    counter = ("" if declared is None else
               "ml_program.global private mutable @__fp8_rng_gemm"
               f"(dense<{declared}> : tensor<1xi32>) : tensor<1xi32>\n")
    return counter + f"""
func.func @gemm(%a: tensor<{M}x{K}xf32>, %b: tensor<{K}x{N}xf32>) -> tensor<{M}x{N}xf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<{M}x{N}xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  %c = linalg.matmul {{fp8.role = #fp8.gemm_role<dgrad>}} ins(%a, %b : tensor<{M}x{K}xf32>, tensor<{K}x{N}xf32>) outs(%init : tensor<{M}x{N}xf32>) -> tensor<{M}x{N}xf32>
  return %c : tensor<{M}x{N}xf32>
}}
"""


def calls(text, options, count):
    """The bits of C of `count` calls of @gemm in one program."""
    lowered = compiler.parse(text).run(f"fp8-autocast{{recipe=nvfp4 seed={SEED}{options}}}")
    program = compiler.jit(lowered, opt_level=0)
    return [program.call("gemm", A, B)[0].view(np.int32).astype(np.int64).reshape(-1)
            for _ in range(count)]


rng = np.random.default_rng(zlib.crc32(b"random-state"))
A = (rng.standard_normal((M, K)) * np.exp2(rng.uniform(-4, 4, (M, 1)))).astype(np.float32)
B = (rng.standard_normal((K, N)) * np.exp2(rng.uniform(-4, 4, (1, N)))).astype(np.float32)
want = [recipes.oracle_matmul("nvfp4", A, B, role="dgrad", seed=SEED, call=k) for k in range(6)]
assert not np.array_equal(want[0], want[1]), "the oracle's calls round alike"

got = calls(module(), "", 3)
print("random-state: calls 0..2 match the oracle's:",
      [bool(np.array_equal(g, w)) for g, w in zip(got, want)])
got = calls(module(), " random-state=false", 3)
print("random-state=false: every call matches the oracle's call 0:",
      [bool(np.array_equal(g, want[0])) for g in got])
got = calls(module(declared=4), "", 2)
print("declared counter 4: calls match the oracle's calls 4, 5:",
      [bool(np.array_equal(g, w)) for g, w in zip(got, want[4:])])
