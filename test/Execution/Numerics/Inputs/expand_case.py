#!/usr/bin/env python3
"""CPU execution of fp8.expand_quantize and fp8.expand_dequantize against the
numpy oracle (numerics.md section 14).

  expand_case.py emit FORMAT LIMIT        the MLIR program, on stdout
  expand_case.py check FORMAT LIMIT FILE  compares mlir-runner's output in
                                          FILE with the oracle, bit for bit

X [7, 300] in groups of <1x128> leaves a ragged last group of 44 in every
row. The rows are the cases the specification names: moments spanning a few
binades (expanded), spanning more than the format holds (compressed), equal
magnitudes, zeros among values, all zeros, f32 subnormals, and NaN and
infinities among values.
"""

import sys

import numpy as np

from fp8_mlir import numerics as n
from fp8_mlir.recipes import Program, dense, tensor_type

SHAPE = (7, 300)
BLOCK = [1, 128]


def inputs():
    rng = np.random.default_rng(20241025)
    rows, cols = SHAPE
    x = np.empty(SHAPE, np.float64)
    x[0] = np.exp(rng.normal(size=cols) * 0.7) * 1e-7             # second moment
    x[1] = rng.standard_normal(cols) * np.exp2(rng.uniform(-30, 0, cols))  # wide range
    x[2] = np.where(rng.uniform(size=cols) < 0.5, -3.0, 3.0)      # equal magnitudes
    x[3] = rng.standard_normal(cols) * 1e-3
    x[3, ::5] = 0.0                                                # zeros among values
    x[3, 1::7] = -0.0
    x[4] = 0.0                                                     # all zeros
    x[4, 130] = -0.0
    x[5] = rng.uniform(1, 2, cols) * 2.0**-140                     # f32 subnormals
    x[5, 200:] *= 2.0**100                                         # and a mixed group
    x[6] = rng.standard_normal(cols)
    x[6, 3], x[6, 140], x[6, 141], x[6, 299] = np.nan, np.inf, -np.inf, -np.nan
    return x.astype(np.float32)


def emit(name, limit):
    x = inputs()
    scale_shape = n.scale_shape(SHAPE, BLOCK)
    tx, tq = tensor_type(SHAPE, "f32"), tensor_type(SHAPE, name)
    ta, tj = tensor_type(scale_shape, "f32"), tensor_type(scale_shape, "i8")
    p = Program()
    p.op(f"%x = arith.constant {dense(x)} : {tx}")
    p.op(f"%q, %a, %j = fp8.expand_quantize %x by <1x128> limit({limit}) : "
         f"{tx} -> {tq}, {ta}, {tj}")
    p.op(f"%y = fp8.expand_dequantize %q, %a, %j by <1x128> : {tq}, {ta}, {tj} -> {tx}")
    p.print_bits("%q", SHAPE, name)
    p.print_bits("%a", scale_shape, "f32")
    p.print_bits("%j", scale_shape, "i8")
    p.print_bits("%y", SHAPE, "f32")
    return p.text(f"expand_quantize {name} limit {limit} on X {list(SHAPE)}")


def differ(got, want, floats):
    """Bit patterns that differ; for f32 values any NaN matches a NaN of the
    same sign (the payload is not specified)."""
    if not floats:
        return got != want
    nan = lambda bits: (bits & 0x7FFFFFFF) > 0x7F800000
    same_nan = nan(got) & nan(want) & ((got >> 31) == (want >> 31))
    return (got != want) & ~same_nan


def check(name, limit, path):
    from fp8_mlir.recipes import parse_runner_output
    actual = [a & 0xFFFFFFFF for a in parse_runner_output(open(path).read())]
    q, a, j = n.expand_quantize(inputs(), BLOCK, name, limit)
    y = n.expand_dequantize(q, a, j, BLOCK, name)
    expected = [q.reshape(-1), a.reshape(-1).view(np.uint32).astype(np.int64),
                j.reshape(-1) & 0xFF, y.reshape(-1).view(np.uint32).astype(np.int64)]
    ok = len(actual) == len(expected)
    for what, want, got in zip(["codes", "amax", "exponents", "decoded"], expected, actual):
        bad = np.nonzero(differ(got, want, what == "decoded"))[0] if got.shape == want.shape \
            else [0]
        if len(bad):
            ok = False
            print(f"{name} limit {limit}: {what}: {len(bad)} of {want.size} differ; first at "
                  f"{bad[0]}: got {got[bad[0]]:#x}, expected {want[bad[0]]:#x}")
        else:
            print(f"{name} limit {limit}: {what}: {want.size} values match")
    # The cases must exercise what they claim: expansion, compression, and
    # the limit.
    exponents = set(int(v) for v in j.reshape(-1))
    if limit and not (max(exponents) == limit and min(exponents) < 0 and 1 in exponents):
        ok = False
        print(f"{name} limit {limit}: exponents {sorted(exponents)} miss a case")
    print(f"{name} limit {limit}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "emit":
        sys.stdout.write(emit(sys.argv[2], int(sys.argv[3])))
    else:
        sys.exit(check(sys.argv[2], int(sys.argv[3]), sys.argv[4]))
