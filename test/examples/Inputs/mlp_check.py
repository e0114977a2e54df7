#!/usr/bin/env python3
"""Checks the output of examples/mlp/mlp.mlir's @main against the numpy oracle.

The example prints the f32 MLP result, the FP8 (per-tensor current scaling)
result and the relative L2 error between them, with printMemrefF32 (six
significant digits). This recomputes all three from the same inputs with
fp8_mlir.numerics and compares the printed strings exactly.
"""

import re
import sys

import numpy as np

from fp8_mlir import numerics as n

E4M3 = "f8E4M3FN"


def pattern(rows, cols, scale):
    """The integer hash of @pattern, in uint32 arithmetic."""
    i = np.arange(rows, dtype=np.uint32)[:, None]
    j = np.arange(cols, dtype=np.uint32)[None, :]
    with np.errstate(over="ignore"):
        h = (i * np.uint32(73856093)) ^ (j * np.uint32(19349663))
        h = h * np.uint32(1103515245) + np.uint32(12345)
    h = (h >> np.uint32(8)) & np.uint32(0xFFFF)
    u = h.astype(np.float32) * np.float32(3.0517578125e-05)
    return ((u - np.float32(1.0)) * np.float32(scale)).astype(np.float32)


def matmul_f32(a, b):
    """f32 products accumulated in K order from 0, as linalg.matmul on loops."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        acc = (acc + (a[:, k:k + 1] * b[k:k + 1, :]).astype(np.float32)).astype(np.float32)
    return acc


def scaled_layer(x, w):
    qx, sx = n.dynamic_quantize(x, None, "ratio", E4M3)
    qw, sw = n.dynamic_quantize(w, None, "ratio", E4M3)
    return n.scaled_matmul(qx, sx, None, E4M3, qw, sw, None, E4M3)


def main(path):
    x, w1, w2 = pattern(4, 64, 3.0), pattern(64, 128, 0.125), pattern(128, 8, 0.0625)
    relu = lambda v: np.maximum(v, np.float32(0)).astype(np.float32)  # noqa: E731
    y = matmul_f32(relu(matmul_f32(x, w1)), w2)
    y8 = scaled_layer(relu(scaled_layer(x, w1)), w2)
    err = ref = np.float32(0)
    for a, b in zip(y.reshape(-1), y8.reshape(-1)):  # the reduction's order
        d = np.float32(b - a)
        err = np.float32(err + np.float32(d * d))
        ref = np.float32(ref + np.float32(a * a))
    rel = np.float32(np.sqrt(np.float32(err / ref)))
    expected = [f"{float(v):g}" for v in np.concatenate([y.reshape(-1), y8.reshape(-1), [rel]])]
    printed = re.findall(r"-?[0-9][0-9.e+-]*|-?nan|-?inf",
                         " ".join(line for line in open(path) if not line.startswith("Unranked")))
    if printed != expected:
        for k, (p, e) in enumerate(zip(printed, expected)):
            if p != e:
                print(f"value {k}: printed {p}, oracle {e}")
                break
        print(f"FAIL ({len(printed)} values printed, {len(expected)} expected)")
        return 1
    print(f"f32, FP8 and relative error ({expected[-1]}) match the oracle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
