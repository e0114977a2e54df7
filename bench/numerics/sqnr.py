#!/usr/bin/env python3
"""SQNR versus f32 of every recipe, measured on the compiled CPU code.

For each recipe, quantizes an activation A [128, 1024] and a weight B
[1024, 256] with the recipe's scaling (fp8-opt --fp8-cpu-pipeline, run by
mlir-runner), decodes them, and multiplies the scaled operands. It reports
the signal-to-quantization-noise ratio, 10 log10(sum x^2 / sum (x - x')^2), of
the decoded A and B and of the GEMM result against the f32 reference (numpy,
float64 accumulation of the f32 inputs).

The data spans more binades than E4M3 holds (2^-9..2^8.8), as activations and
gradients in training do: row magnitudes of A spread over 2^-12..2^12 and
column magnitudes of B over 2^-12..2^12, and both vary smoothly along K by
2^-8..2^8.

SQNR weights errors by energy, so the largest values dominate it. Three
numbers per tensor show where precision is lost: the whole tensor, the mean
of per-row SQNR (columns for B), and the mean of per-block SQNR over 1x32
blocks along K, which also counts the small values that one scale per tensor
or per row flushes to zero. Fine-grained recipes (1x128, MX 1x32, NVFP4 1x16)
keep the local numbers high where per-tensor and row-wise scaling lose them.

With --oracle it also checks the compiled results against the numpy oracle bit
for bit (slow: a few minutes).

  python3 bench/numerics/sqnr.py [--build build] [--markdown] [--oracle]
"""

import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from fp8_mlir import recipes  # noqa: E402

M, K, N = 128, 1024, 256


def data(seed=2026):
    rng = np.random.default_rng(seed)
    along_k = np.exp2(8 * np.sin(2 * np.pi * 3 * np.arange(K) / K))
    a = rng.standard_normal((M, K)) * np.exp2(rng.uniform(-12, 12, (M, 1))) * along_k[None, :]
    b = rng.standard_normal((K, N)) * np.exp2(rng.uniform(-12, 12, (1, N))) * along_k[:, None]
    return a.astype(np.float32), b.astype(np.float32)


def sqnr(reference, approximation):
    reference = np.asarray(reference, np.float64)
    error = reference - np.asarray(approximation, np.float64)
    noise = np.sum(error * error)
    if not np.isfinite(noise):
        return float("-inf")
    return float("inf") if noise == 0 else 10 * np.log10(np.sum(reference ** 2) / noise)


def mean_block_sqnr(reference, approximation, block):
    """Mean over blocks of shape `block` (rows, cols) of their SQNR in dB; an
    exact block counts as 100 dB, a block decoded as all zeros as 0 dB."""
    reference = np.asarray(reference, np.float64)
    error = reference - np.asarray(approximation, np.float64)
    rows, cols = reference.shape
    br, bc = block
    shape = (rows // br, br, cols // bc, bc)
    signal = np.sum((reference ** 2).reshape(shape), axis=(1, 3))
    noise = np.sum((error ** 2).reshape(shape), axis=(1, 3))
    with np.errstate(divide="ignore", invalid="ignore"):
        values = 10 * np.log10(signal / noise)
    values = np.clip(np.nan_to_num(values, nan=0.0, posinf=100.0, neginf=0.0), 0.0, 100.0)
    return float(np.mean(values))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--markdown", action="store_true", help="print a markdown table")
    parser.add_argument("--oracle", action="store_true",
                        help="also check every result against the numpy oracle")
    args = parser.parse_args()

    a, b = data()
    c_ref = (a.astype(np.float64) @ b.astype(np.float64))
    rows = []
    for recipe, (block_a, block_b, rule, fa, fb) in recipes.RECIPES.items():
        arrays = recipes.run_program(recipes.emit_program(recipe, a, b), args.build)
        da = recipes.as_f32(arrays[4]).reshape(a.shape)
        db = recipes.as_f32(arrays[5]).reshape(b.shape)
        c = recipes.as_f32(arrays[6]).reshape(M, N)
        exact = "not checked"
        if args.oracle:
            expected = recipes.oracle_results(recipe, a, b)
            exact = "yes" if all(np.array_equal(x, y) for x, y in zip(arrays, expected)) else "NO"
        rows.append((recipe, recipes.granularity(block_a), recipes.granularity(block_b), rule,
                     f"{fa} x {fb}",
                     f"{sqnr(a, da):.1f} / {mean_block_sqnr(a, da, (1, K)):.1f} / "
                     f"{mean_block_sqnr(a, da, (1, 32)):.1f}",
                     f"{sqnr(b, db):.1f} / {mean_block_sqnr(b, db, (K, 1)):.1f} / "
                     f"{mean_block_sqnr(b, db, (32, 1)):.1f}",
                     f"{sqnr(c_ref, c):.1f} / {mean_block_sqnr(c_ref, c, (1, N)):.1f}", exact))

    header = ("recipe", "A blocks", "B blocks", "rule", "formats",
              "A: tensor / row / 1x32", "B: tensor / col / 32x1", "C: tensor / row",
              "= oracle")
    if args.markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
        for r in rows:
            print(f"| {r[0]} | `{r[1]}` | `{r[2]}` | {r[3]} | {r[4]} | {r[5]} | {r[6]} | {r[7]} | "
                  f"{r[8]} |")
    else:
        print("SQNR in dB: whole tensor / mean per row (column of B) / mean per 32-block")
        print(f"{'recipe':24s}{'A blocks':>11s}{'B blocks':>11s}{'rule':>12s}{'A':>22s}"
              f"{'B':>22s}{'C':>14s}  oracle")
        for r in rows:
            print(f"{r[0]:24s}{r[1]:>11s}{r[2]:>11s}{r[3]:>12s}{r[5]:>22s}{r[6]:>22s}{r[7]:>14s}"
                  f"  {r[8]}")
    return 0 if all(r[8] != "NO" for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
