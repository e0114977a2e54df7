#!/usr/bin/env python3
"""CPU execution of math.erf on f32 against the numpy oracle (numerics.md
section 16).

  erf_case.py emit        the MLIR program, on stdout
  erf_case.py check FILE  compares mlir-runner's output in FILE with the
                          oracle, bit for bit (f32, and bf16: erf of the
                          exact f32 value rounded once), and the oracle with
                          the exact erf within the section's bound

The inputs: a dense grid over [-5, 5], every f32 within 8 units of the
branch points 1 and f32(3.925) and of the worst case the section names, tiny
and subnormal magnitudes, large ones, zeros, infinities and NaN.
"""

import math
import sys

import numpy as np

from fp8_mlir import numerics as n
from fp8_mlir.recipes import dense, tensor_type

MAX_ULP = 1.4611


def inputs():
    rng = np.random.default_rng(20261126)
    near = []
    for point in (1.0, n.ERF_ONE, float.fromhex("0x1.093f6cp+0"), 0.5, 2.5):
        bits = np.float32(point).view(np.uint32).astype(np.int64)
        near.append((bits + np.arange(-8, 9)).astype(np.uint32).view(np.float32))
    x = np.concatenate([
        np.linspace(-5, 5, 4001, dtype=np.float32),
        *near,
        rng.uniform(-4, 4, 2000).astype(np.float32),
        (np.exp2(rng.uniform(-149, -100, 64)) * rng.choice([-1, 1], 64)).astype(np.float32),
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1e-45, 10.0],
                 np.float32),
    ])
    return np.concatenate([x, -x[:200]]).astype(np.float32)


def bf16_bits(x):
    """The bf16 codes of f32 values that are bf16 values."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype("<u2")


def emit():
    x = inputs()
    xb = n.round_to(x, "bf16")
    t, tb = tensor_type([x.size], "f32"), tensor_type([x.size], "bf16")
    ints, shorts = tensor_type([x.size], "i32"), tensor_type([x.size], "i16")
    lines = [f"// math.erf on {x.size} f32 inputs and their bf16 roundings",
             "func.func private @printMemrefI32(memref<*xi32>)"]
    # erf in functions of their own: their inputs are not constants there,
    # so no folder computes them with the host's libm.
    for name, ty in (("erf", t), ("erf_bf16", tb)):
        lines += [f"func.func @{name}(%x: {ty}) -> {ty} {{",
                  f"  %y = math.erf %x : {ty}",
                  f"  return %y : {ty}",
                  "}"]
    bf16_hex = bf16_bits(xb).tobytes().hex().upper()
    lines += [
        "func.func @main() {",
        f"  %x = arith.constant {dense(x)} : {t}",
        f"  %y = call @erf(%x) : ({t}) -> {t}",
        f"  %bits = arith.bitcast %y : {t} to {ints}",
        f"  %xb = arith.constant dense<\"0x{bf16_hex}\"> : {tb}",
        f"  %yb = call @erf_bf16(%xb) : ({tb}) -> {tb}",
        f"  %bitsb = arith.bitcast %yb : {tb} to {shorts}",
        f"  %wideb = arith.extui %bitsb : {shorts} to {ints}"]
    for i, value in enumerate(("%bits", "%wideb")):
        lines += [
            f"  %buf{i} = bufferization.to_buffer {value} : {ints} to memref<{x.size}xi32>",
            f"  %any{i} = memref.cast %buf{i} : memref<{x.size}xi32> to memref<*xi32>",
            f"  call @printMemrefI32(%any{i}) : (memref<*xi32>) -> ()"]
    lines += ["  return", "}", ""]
    return "\n".join(lines)


def check(path):
    from fp8_mlir.recipes import parse_runner_output
    x = inputs()
    arrays = parse_runner_output(open(path).read())
    ok = len(arrays) == 2 and all(a.size == x.size for a in arrays)
    if not ok:
        print("erf: the output is not two arrays of the inputs' size")
        print("erf: FAIL")
        return 1
    got = (arrays[0] & 0xFFFFFFFF).astype(np.uint32)
    want = n.erf_f32(x).view(np.uint32)
    nan = lambda bits: (bits & 0x7FFFFFFF) > 0x7F800000
    bad = np.nonzero((got != want) & ~(nan(got) & nan(want)))[0]
    if len(bad):
        ok = False
        i = bad[0]
        print(f"erf: {len(bad)} of {x.size} differ from the oracle; first at "
              f"{float(x[i]).hex()}: got {got[i]:#x}, expected {want[i]:#x}")
    else:
        print(f"erf: {x.size} values match the oracle")
    # bf16: erf of the exact f32 value, rounded once.
    xb = n.round_to(x, "bf16")
    want_b = bf16_bits(n.round_to(n.erf_f32(xb), "bf16")).astype(np.uint32)
    got_b = (arrays[1] & 0xFFFF).astype(np.uint32)
    nan_b = lambda bits: (bits & 0x7FFF) > 0x7F80
    bad = np.nonzero((got_b != want_b) & ~(nan_b(got_b) & nan_b(want_b)))[0]
    if len(bad):
        ok = False
        i = bad[0]
        print(f"erf bf16: {len(bad)} of {x.size} differ from the oracle; first at "
              f"{float(xb[i]).hex()}: got {got_b[i]:#x}, expected {want_b[i]:#x}")
    else:
        print(f"erf bf16: {x.size} values match the oracle")
    # The oracle against the exact erf.
    y = want.view(np.float32).astype(np.float64)
    finite = np.isfinite(x)
    exact = np.array([math.erf(float(v)) for v in x[finite]])
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    spacing[exact == 0] = 2.0 ** -149
    ulps = np.abs(y[finite] - exact) / spacing
    specials = {0.0: 0.0, np.inf: 1.0, -np.inf: -1.0}
    for v, e in specials.items():
        r = y[(x == v) & (np.signbit(x) == np.signbit(v))]
        if not np.all((r == e) & (np.signbit(r) == np.signbit(e))):
            ok = False
            print(f"erf({v}) is {r}, expected {e}")
    if not np.all(np.isnan(y[np.isnan(x)])):
        ok = False
        print("erf(NaN) is not NaN")
    if ulps.max() > MAX_ULP:
        ok = False
    print(f"erf: at most {ulps.max():.3f} ulp from the exact erf (bound {MAX_ULP})")
    print(f"erf: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "emit":
        sys.stdout.write(emit())
    else:
        sys.exit(check(sys.argv[2]))
