#!/usr/bin/env python3
"""Three AdamW steps with COAT's FP8 optimizer state, built from
fp8.expand_dequantize, f32 arithmetic in a linalg.generic and
fp8.expand_quantize, compared bit for bit with the numpy oracle
(numerics.md sections 13 and 14).

  coat_step_case.py emit         the MLIR program, on stdout
  coat_step_case.py check FILE   compares mlir-runner's output in FILE
"""

import sys

import numpy as np

from fp8_mlir import numerics as n
from fp8_mlir.recipes import Program, dense, parse_runner_output, tensor_type

SHAPE = (4, 200)
BLOCK = [1, 128]
STEPS = 3
LR, B1, B2, EPS, WD = 1e-3, 0.9, 0.999, 1e-8, 0.01


def inputs():
    rng = np.random.default_rng(1543)
    w = rng.standard_normal(SHAPE).astype(np.float32)
    # Gradients whose rows differ in scale by 2^-20..2^0, with a few zeros.
    scale = np.exp2(rng.uniform(-20, 0, (SHAPE[0], 1)))
    grads = []
    for _ in range(STEPS):
        g = rng.standard_normal(SHAPE) * scale
        g[:, ::9] = 0.0
        grads.append(g.astype(np.float32))
    return w, grads


def corrections(t):
    return np.float32(1 - B1**t), np.float32(1 - B2**t)


def f32_hex(value):
    return "0x%08X" % int(np.array(value, np.float32).view(np.uint32))


def emit():
    w, grads = inputs()
    scale_shape = n.scale_shape(SHAPE, BLOCK)
    tx, tq = tensor_type(SHAPE, "f32"), tensor_type(SHAPE, "f8E4M3FN")
    ta, tj = tensor_type(scale_shape, "f32"), tensor_type(scale_shape, "i8")
    state = f"{tq}, {ta}, {tj}"
    p = Program()
    p.op(f"%w0 = arith.constant {dense(w)} : {tx}")
    p.op(f"%zero = arith.constant dense<0.0> : {tx}")
    for name in ("m", "v"):
        p.op(f"%{name}q0, %{name}a0, %{name}j0 = fp8.expand_quantize %zero by <1x128> : "
             f"{tx} -> {state}")
    weight = "%w0"
    one = np.float32(1)
    decay = np.float32(one - np.float32(np.float32(LR) * np.float32(WD)))
    for t in range(1, STEPS + 1):
        b1t, b2t = corrections(t)
        step = np.float32(np.float32(LR) / b1t)
        c = {"decay": decay, "b1": B1, "omb1": one - np.float32(B1), "b2": B2,
             "omb2": one - np.float32(B2), "rb2t": np.sqrt(b2t), "eps": EPS, "step": step}
        s = t - 1
        p.op(f"%g{t} = arith.constant {dense(grads[s])} : {tx}")
        for name in ("m", "v"):
            p.op(f"%{name}d{t} = fp8.expand_dequantize %{name}q{s}, %{name}a{s}, %{name}j{s} "
                 f"by <1x128> : {state} -> {tx}")
        p.op(f"%u{t}:3 = linalg.generic {{indexing_maps = [#id, #id, #id, #id, #id, #id, #id], "
             f"iterator_types = [\"parallel\", \"parallel\"]}} "
             f"ins({weight}, %g{t}, %md{t}, %vd{t} : {tx}, {tx}, {tx}, {tx}) "
             f"outs(%zero, %zero, %zero : {tx}, {tx}, {tx}) {{")
        p.op("^bb0(%w: f32, %g: f32, %m: f32, %v: f32, %o0: f32, %o1: f32, %o2: f32):")
        for key, value in c.items():
            p.op(f"  %{key} = arith.constant {f32_hex(value)} : f32")
        p.op("  %wd = arith.mulf %w, %decay : f32")
        p.op("  %m1 = arith.mulf %b1, %m : f32")
        p.op("  %m2 = arith.mulf %omb1, %g : f32")
        p.op("  %mn = arith.addf %m1, %m2 : f32")
        p.op("  %v1 = arith.mulf %b2, %v : f32")
        p.op("  %v2 = arith.mulf %omb2, %g : f32")
        p.op("  %v3 = arith.mulf %v2, %g : f32")
        p.op("  %vn = arith.addf %v1, %v3 : f32")
        p.op("  %r = math.sqrt %vn : f32")
        p.op("  %r2 = arith.divf %r, %rb2t : f32")
        p.op("  %d = arith.addf %r2, %eps : f32")
        p.op("  %md = arith.divf %mn, %d : f32")
        p.op("  %up = arith.mulf %step, %md : f32")
        p.op("  %wn = arith.subf %wd, %up : f32")
        p.op("  linalg.yield %wn, %mn, %vn : f32, f32, f32")
        p.op(f"}} -> ({tx}, {tx}, {tx})")
        weight = f"%u{t}#0"
        for i, name in ((1, "m"), (2, "v")):
            p.op(f"%{name}q{t}, %{name}a{t}, %{name}j{t} = fp8.expand_quantize %u{t}#{i} "
                 f"by <1x128> : {tx} -> {state}")
    p.print_bits(weight, SHAPE, "f32")
    for name in ("m", "v"):
        p.print_bits(f"%{name}q{STEPS}", SHAPE, "f8E4M3FN")
        p.print_bits(f"%{name}a{STEPS}", scale_shape, "f32")
        p.print_bits(f"%{name}j{STEPS}", scale_shape, "i8")
    return "#id = affine_map<(d0, d1) -> (d0, d1)>\n" + p.text(
        f"{STEPS} AdamW steps with COAT state on W {list(SHAPE)}")


def oracle():
    w, grads = inputs()
    zeros = np.zeros(SHAPE, np.float32)
    m = n.expand_quantize(zeros, BLOCK)
    v = n.expand_quantize(zeros, BLOCK)
    for t in range(1, STEPS + 1):
        b1t, b2t = corrections(t)
        w, m, v = n.coat_adamw_step(w, grads[t - 1], m, v, BLOCK, LR, B1, B2, EPS, WD, b1t, b2t)
    bits = lambda a: np.asarray(a, np.float32).reshape(-1).view(np.uint32).astype(np.int64)
    arrays = [bits(w)]
    for codes, amax, exponents in (m, v):
        arrays += [codes.reshape(-1), bits(amax), exponents.reshape(-1) & 0xFF]
    return arrays, m[2], v[2]


def check(path):
    actual = [a & 0xFFFFFFFF for a in parse_runner_output(open(path).read())]
    expected, m_exponents, v_exponents = oracle()
    ok = len(actual) == len(expected)
    names = ["w", "m codes", "m amax", "m exponents", "v codes", "v amax", "v exponents"]
    for what, want, got in zip(names, expected, actual):
        bad = np.nonzero(got != want)[0] if got.shape == want.shape else [0]
        if len(bad):
            ok = False
            print(f"{what}: {len(bad)} of {want.size} differ; first at {bad[0]}: "
                  f"got {got[bad[0]]:#x}, expected {want[bad[0]]:#x}")
        else:
            print(f"{what}: {want.size} values match")
    # The state must actually be expanded for the test to mean anything.
    if not (v_exponents > 0).any():
        ok = False
        print(f"no expanded group: v exponents {v_exponents.tolist()}")
    print("coat step:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "emit":
        sys.stdout.write(emit())
    else:
        sys.exit(check(sys.argv[2]))
