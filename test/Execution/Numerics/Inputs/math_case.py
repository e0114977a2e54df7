#!/usr/bin/env python3
"""CPU execution of math.erf, math.exp, math.tanh and math.log on f32 and
bf16 against the numpy oracles (numerics.md sections 16 to 18).

  math_case.py emit FUNCTION        the MLIR program, on stdout
  math_case.py check FUNCTION FILE  compares mlir-runner's output in FILE with
                                    the oracle, bit for bit (f32, and bf16:
                                    the function of the exact f32 value
                                    rounded once), and the oracle with the
                                    exact function within its section's bound
  math_case.py rounding [STRIDE]    checks that exp's k, floor(k / 2) and
                                    k - floor(k / 2), as fp8-expand-math
                                    computes them (a sum with 1.5 * 2^23 and
                                    integer instructions), equal
                                    numerics.md's roundeven and floor for
                                    every STRIDE-th f32 in [-104, 89]
                                    (default 1: all 2239889410 of them)

FUNCTION is erf, exp, tanh or log. The inputs: a dense grid over the function's
interesting range, every f32 within 8 units of its branch points and of the
worst case its section names, tiny and subnormal magnitudes, large ones,
zeros, infinities and NaN.
"""

import math
import sys

import numpy as np

from fp8_mlir import numerics as n
from fp8_mlir.recipes import dense, tensor_type


def _around(points):
    near = []
    for point in points:
        bits = np.float32(point).view(np.uint32).astype(np.int64)
        near.append((bits + np.arange(-8, 9)).astype(np.uint32).view(np.float32))
    return near


# The largest distance from the exact function over every f32 input, in units
# in the last place, and where it is (numerics.md section 18).
TANH_BOUND, TANH_WORST = 4.8963, float.fromhex("0x1.481106p+2")
LOG_BOUND, LOG_WORST = 0.9000, float.fromhex("0x1.66cb32p-1")

# oracle, exact function, bound in ulp, the grid's extent, points to probe.
FUNCTIONS = {
    "erf": (n.erf_f32, math.erf, 1.4611, 5.0,
            (1.0, n.ERF_ONE, float.fromhex("0x1.093f6cp+0"), 0.5, 2.5)),
    "exp": (n.exp_f32, math.exp, 0.9543, 110.0,
            (float.fromhex("0x1.4cf1d8p+2"), float.fromhex("0x1.62e42ep+6"),
             float.fromhex("0x1.62e43p+6"), -87.33654, -103.27893, -103.97208, -104.0,
             89.0, 0.34657359, -0.34657359, 1.0)),
    "tanh": (n.tanh_f32, math.tanh, TANH_BOUND, 10.0,
             (n.TANH_TINY, n.TANH_CLAMP, TANH_WORST, 0.5, 1.0)),
    "log": (n.log_f32, math.log, LOG_BOUND, 10.0,
            (1.0, n.LOG_SQRT_HALF, 2.0 * n.LOG_SQRT_HALF, LOG_WORST, 2.0 ** -126,
             3.4e38)),
}
# Inputs where the exact function is compared: log's below 2^-126 count as
# 2^-126 (numerics.md section 18), checked among the special values instead.
DOMAIN = {"log": lambda v: v >= 2.0 ** -126}


def inputs(function):
    _, _, _, extent, points = FUNCTIONS[function]
    rng = np.random.default_rng(20261126)
    x = np.concatenate([
        np.linspace(-extent, extent, 4001, dtype=np.float32),
        *_around(points),
        rng.uniform(-extent, extent, 2000).astype(np.float32),
        (np.exp2(rng.uniform(-149, -100, 64)) * rng.choice([-1, 1], 64)).astype(np.float32),
        np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38, 1e-45, 10.0],
                 np.float32),
        # Every binade, for log.
        np.exp2(np.linspace(-149, 127.9, 2001)).astype(np.float32),
    ])
    return np.concatenate([x, -x[:200]]).astype(np.float32)


def bf16_bits(x):
    """The bf16 codes of f32 values that are bf16 values."""
    return (np.asarray(x, np.float32).view(np.uint32) >> 16).astype("<u2")


def emit(function):
    x = inputs(function)
    xb = n.round_to(x, "bf16")
    t, tb = tensor_type([x.size], "f32"), tensor_type([x.size], "bf16")
    ints, shorts = tensor_type([x.size], "i32"), tensor_type([x.size], "i16")
    lines = [f"// math.{function} on {x.size} f32 inputs and their bf16 roundings",
             "func.func private @printMemrefI32(memref<*xi32>)"]
    # The function in functions of their own: their inputs are not constants
    # there, so no folder computes them with the host's libm.
    for name, ty in (("f32", t), ("bf16", tb)):
        lines += [f"func.func @{name}(%x: {ty}) -> {ty} {{",
                  f"  %y = math.{function} %x : {ty}",
                  f"  return %y : {ty}",
                  "}"]
    bf16_hex = bf16_bits(xb).tobytes().hex().upper()
    lines += [
        "func.func @main() {",
        f"  %x = arith.constant {dense(x)} : {t}",
        f"  %y = call @f32(%x) : ({t}) -> {t}",
        f"  %bits = arith.bitcast %y : {t} to {ints}",
        f"  %xb = arith.constant dense<\"0x{bf16_hex}\"> : {tb}",
        f"  %yb = call @bf16(%xb) : ({tb}) -> {tb}",
        f"  %bitsb = arith.bitcast %yb : {tb} to {shorts}",
        f"  %wideb = arith.extui %bitsb : {shorts} to {ints}"]
    for i, value in enumerate(("%bits", "%wideb")):
        lines += [
            f"  %buf{i} = bufferization.to_buffer {value} : {ints} to memref<{x.size}xi32>",
            f"  %any{i} = memref.cast %buf{i} : memref<{x.size}xi32> to memref<*xi32>",
            f"  call @printMemrefI32(%any{i}) : (memref<*xi32>) -> ()"]
    lines += ["  return", "}", ""]
    return "\n".join(lines)


def mismatches(got, want, nan):
    """Indices where bit patterns differ; any NaN matches a NaN."""
    return np.nonzero((got != want) & ~(nan(got) & nan(want)))[0]


def check(function, path):
    from fp8_mlir.recipes import parse_runner_output
    oracle, exact_function, bound, _, _ = FUNCTIONS[function]
    x = inputs(function)
    arrays = parse_runner_output(open(path).read())
    ok = len(arrays) == 2 and all(a.size == x.size for a in arrays)
    if not ok:
        print(f"{function}: the output is not two arrays of the inputs' size")
        print(f"{function}: FAIL")
        return 1
    xb = n.round_to(x, "bf16")
    cases = [
        ("", x, (arrays[0] & 0xFFFFFFFF).astype(np.uint32), oracle(x).view(np.uint32),
         lambda bits: (bits & 0x7FFFFFFF) > 0x7F800000),
        (" bf16", xb, (arrays[1] & 0xFFFF).astype(np.uint32),
         bf16_bits(n.round_to(oracle(xb), "bf16")).astype(np.uint32),
         lambda bits: (bits & 0x7FFF) > 0x7F80),
    ]
    for tag, inp, got, want, nan in cases:
        bad = mismatches(got, want, nan)
        if len(bad):
            ok = False
            i = bad[0]
            print(f"{function}{tag}: {len(bad)} of {x.size} differ from the oracle; first at "
                  f"{float(inp[i]).hex()}: got {got[i]:#x}, expected {want[i]:#x}")
        else:
            print(f"{function}{tag}: {x.size} values match the oracle")
    # The oracle against the exact function, where that is a finite f32.
    y = oracle(x).astype(np.float64)
    worst = 0.0
    in_domain = DOMAIN.get(function, lambda v: True)
    for v, r in zip(x, y):
        if not np.isfinite(v) or not in_domain(v):
            continue
        try:
            e = exact_function(float(v))
        except OverflowError:
            e = math.inf
        if abs(e) > float(np.finfo(np.float32).max):
            if not (np.isinf(r) and r > 0):
                ok = False
                print(f"{function}({float(v).hex()}) is {r}, expected +inf")
            continue
        spacing = float(np.spacing(np.float32(abs(e))))
        if abs(e) < 2.0 ** -126:
            spacing = 2.0 ** -149
        worst = max(worst, abs(r - e) / spacing)
    # (input, result) pairs: +0 and -0 are different inputs.
    log_smallest = float(n.log_f32(np.float32(2.0 ** -126)))
    specials = {"erf": [(0.0, 0.0), (-0.0, -0.0), (np.inf, 1.0), (-np.inf, -1.0)],
                "exp": [(0.0, 1.0), (-0.0, 1.0), (np.inf, np.inf), (-np.inf, 0.0)],
                "tanh": [(0.0, 0.0), (-0.0, -0.0), (np.inf, 1.0), (-np.inf, -1.0),
                         (10.0, 1.0), (-10.0, -1.0)],
                "log": [(0.0, -np.inf), (-0.0, -np.inf), (np.inf, np.inf), (1.0, 0.0),
                        (-1.0, np.nan), (-np.inf, np.nan), (1e-45, log_smallest),
                        (2.0 ** -126, log_smallest)]}[function]
    for v, e in specials:
        r = y[(x == np.float32(v)) & (np.signbit(x) == np.signbit(v))]
        same = np.isnan(r) if np.isnan(e) else (r == e) & (np.signbit(r) == np.signbit(e))
        if r.size == 0 or not np.all(same):
            ok = False
            print(f"{function}({v}) is {r}, expected {e}")
    if not np.all(np.isnan(y[np.isnan(x)])):
        ok = False
        print(f"{function}(NaN) is not NaN")
    if worst > bound:
        ok = False
    print(f"{function}: at most {worst:.3f} ulp from the exact {function} (bound {bound})")
    print(f"{function}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


def rounding(stride):
    """Counts the f32 values c in [-104, 89] (every `stride`-th bit pattern)
    whose k, k1, k2 by the sum with 1.5 * 2^23 differ from numerics.md's."""
    shift = np.float32(float.fromhex("0x1.8p+23"))
    shift_bits = np.int32(shift.view(np.int32))
    log2e = np.float32(n.EXP_LOG2E)
    # Bit patterns: +0 to 89, then -0 to -104.
    spans = [(0, int(np.float32(89).view(np.uint32)) + 1),
             (0x80000000, int(np.float32(-104).view(np.uint32)) + 1)]
    checked = bad = 0
    chunk = stride << 24
    with np.errstate(all="ignore"):
        for first, end in spans:
            for start in range(first, end, chunk):
                bits = np.arange(start, min(start + chunk, end), stride,
                                 dtype=np.uint64).astype(np.uint32)
                t = bits.view(np.float32) * log2e
                k = np.rint(t)
                k1 = np.floor(k * np.float32(0.5))
                k2 = k - k1
                s = t + shift
                k_int = s.view(np.int32) - shift_bits
                k1_int = k_int >> 1
                same = ((s - shift == k) & (k_int == k.astype(np.int32))
                        & (k1_int == k1.astype(np.int32))
                        & (k_int - k1_int == k2.astype(np.int32)))
                checked += same.size
                bad += int(same.size - np.count_nonzero(same))
    print(f"exp rounding: {checked} values, {bad} differ")
    return 0 if bad == 0 and checked else 1


if __name__ == "__main__":
    if sys.argv[1] == "rounding":
        sys.exit(rounding(int(sys.argv[2]) if len(sys.argv) > 2 else 1))
    if sys.argv[1] == "emit":
        sys.stdout.write(emit(sys.argv[2]))
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
