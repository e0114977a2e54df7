#!/usr/bin/env python3
"""Generates a CPU execution test for one recipe, and checks its output.

  recipe_case.py emit RECIPE        the MLIR program, on stdout
  recipe_case.py check RECIPE FILE  compares mlir-runner's output with the
                                    numpy oracle (fp8_mlir.numerics), bit for bit

The program quantizes an activation A [5, 200] and a weight B [200, 70] with
the recipe's granularities and scale rule (ragged last blocks everywhere: 200
and 70 are not multiples of 16, 32 or 128), decodes A, and multiplies the
scaled operands. Inputs span a wide dynamic range and come from a seeded
generator, so emit and check agree.
"""

import sys
import zlib

import numpy as np

from fp8_mlir import numerics as n

M, K, N = 5, 200, 70

# granularity of A ([M, K], scales along K), of B ([K, N], scales along K),
# scale rule, and formats of A and B.
RECIPES = {
    "tensor-current": (None, None, "ratio", "f8E4M3FN", "f8E4M3FN"),
    "tensor-current-hybrid": (None, None, "ratio", "f8E4M3FN", "f8E5M2"),
    "rowwise": ([1, -1], [-1, 1], "pow2", "f8E4M3FN", "f8E4M3FN"),
    "deepseek": ([1, 128], [128, 128], "pow2", "f8E4M3FN", "f8E4M3FN"),
    "mxfp8": ([1, 32], [32, 1], "e8m0_rceil", "f8E4M3FN", "f8E4M3FN"),
    "mxfp8-floor-e5m2": ([1, 32], [32, 1], "e8m0_floor", "f8E4M3FN", "f8E5M2"),
    "nvfp4": ([1, 16], [16, 16], "nvfp4", "f4E2M1FN", "f4E2M1FN"),
    "graphcore": (None, None, "pow2_bias", "f8E4M3FN", "f8E5M2"),
    "unit": (None, None, "static", "f8E4M3FN", "f8E5M2"),
}

SCALE_TYPES = {"f32": "f32", "e8m0": "f8E8M0FNU", "e4m3": "f8E4M3FN"}
WIDTHS = {"f8E4M3FN": 8, "f8E5M2": 8, "f4E2M1FN": 4, "f8E8M0FNU": 8}


def inputs(recipe):
    rng = np.random.default_rng(zlib.crc32(recipe.encode()))
    a = rng.standard_normal((M, K)) * np.exp2(rng.uniform(-6, 6, (M, 1)))
    a *= np.exp2(rng.uniform(-4, 4, (1, K)))
    b = rng.standard_normal((K, N)) * np.exp2(rng.uniform(-6, 6, (1, N)))
    b *= np.exp2(rng.uniform(-4, 4, (K, 1)))
    if recipe == "unit":  # unit scaling keeps values near 1: no scale at run time
        a = rng.standard_normal((M, K))
        b = rng.standard_normal((K, N))
    return a.astype(np.float32), b.astype(np.float32)


def gran(block):
    if block is None:
        return "<tensor>"
    return "<" + "x".join("*" if e == -1 else str(e) for e in block) + ">"


def tensor_type(shape, element):
    return "tensor<" + "x".join(str(d) for d in shape) + "x" + element + ">"


def dense(array):
    return 'dense<"0x' + array.astype("<f4").tobytes().hex().upper() + '">'


class Emitter:
    def __init__(self):
        self.lines = []
        self.prints = 0

    def emit(self, line):
        self.lines.append("  " + line)

    def print_bits(self, value, shape, element):
        """Prints a tensor's elements as i32 bit patterns (codes zero-extended)."""
        i = self.prints
        self.prints += 1
        size = int(np.prod(shape))
        src = tensor_type(shape, element)
        flat = tensor_type([size], element)
        self.emit(f"%flat{i} = tensor.collapse_shape {value} [[{', '.join(str(d) for d in range(len(shape)))}]] : {src} into {flat}")
        width = 32 if element == "f32" else WIDTHS[element]
        ints = tensor_type([size], f"i{width}")
        self.emit(f"%bits{i} = arith.bitcast %flat{i} : {flat} to {ints}")
        wide = f"%bits{i}"
        if width != 32:
            wide = f"%wide{i}"
            self.emit(f"{wide} = arith.extui %bits{i} : {ints} to {tensor_type([size], 'i32')}")
        self.emit(f"%buf{i} = bufferization.to_buffer {wide} : {tensor_type([size], 'i32')} to memref<{size}xi32>")
        self.emit(f"%any{i} = memref.cast %buf{i} : memref<{size}xi32> to memref<*xi32>")
        self.emit(f"call @printMemrefI32(%any{i}) : (memref<*xi32>) -> ()")


def emit(recipe):
    block_a, block_b, rule, fa, fb = RECIPES[recipe]
    a, b = inputs(recipe)
    kind = n.rule_scale_kind(rule)
    scale_el = SCALE_TYPES[kind]
    sa_shape = n.scale_shape(a.shape, block_a)
    sb_shape = n.scale_shape(b.shape, block_b)
    e = Emitter()
    e.emit(f"%a = arith.constant {dense(a)} : {tensor_type(a.shape, 'f32')}")
    e.emit(f"%b = arith.constant {dense(b)} : {tensor_type(b.shape, 'f32')}")
    ta, tb = tensor_type(a.shape, "f32"), tensor_type(b.shape, "f32")
    qa_t, qb_t = tensor_type(a.shape, fa), tensor_type(b.shape, fb)
    sa_t, sb_t = tensor_type(sa_shape, scale_el), tensor_type(sb_shape, scale_el)
    g_t = "tensor<1x1xf32>"
    globals_ = ""
    if rule == "static":
        e.emit(f"%one = arith.constant dense<1.0> : {g_t}")
        e.emit(f"%qa = fp8.quantize %a, %one by <tensor> : {ta}, {g_t} -> {qa_t}")
        e.emit(f"%qb = fp8.quantize %b, %one by <tensor> : {tb}, {g_t} -> {qb_t}")
        sa, sb = "%one", "%one"  # static: the decode scale is 1 as well
    elif rule == "nvfp4":
        e.emit(f"%qa, %sa, %ga = fp8.dynamic_quantize %a by {gran(block_a)} rule <nvfp4> : {ta} -> {qa_t}, {sa_t} global {g_t}")
        e.emit(f"%qb, %sb, %gb = fp8.dynamic_quantize %b by {gran(block_b)} rule <nvfp4> : {tb} -> {qb_t}, {sb_t} global {g_t}")
        sa, sb = "%sa", "%sb"
        globals_ = f" lhs_global(%ga : {g_t}) rhs_global(%gb : {g_t})"
    else:
        e.emit(f"%qa, %sa = fp8.dynamic_quantize %a by {gran(block_a)} rule <{rule}> : {ta} -> {qa_t}, {sa_t}")
        e.emit(f"%qb, %sb = fp8.dynamic_quantize %b by {gran(block_b)} rule <{rule}> : {tb} -> {qb_t}, {sb_t}")
        sa, sb = "%sa", "%sb"
    da_global = f" global(%ga : {g_t})" if rule == "nvfp4" else ""
    e.emit(f"%da = fp8.dequantize %qa, {sa} by {gran(block_a)}{da_global} : {qa_t}, {sa_t} -> {ta}")
    e.emit(f"%c = fp8.scaled_matmul %qa, %qb scales({sa}, {sb}) by({gran(block_a)}, {gran(block_b)}){globals_} : "
           f"{qa_t}, {qb_t}, {sa_t}, {sb_t} -> {tensor_type([M, N], 'f32')}")
    e.print_bits("%qa", a.shape, fa)
    e.print_bits(sa, sa_shape, scale_el)
    e.print_bits("%qb", b.shape, fb)
    e.print_bits(sb, sb_shape, scale_el)
    e.print_bits("%da", a.shape, "f32")
    e.print_bits("%c", [M, N], "f32")
    print("// Generated by recipe_case.py emit " + recipe)
    print("func.func private @printMemrefI32(memref<*xi32>)")
    print("func.func @main() {")
    print("\n".join(e.lines))
    print("  return")
    print("}")


def expected(recipe):
    block_a, block_b, rule, fa, fb = RECIPES[recipe]
    a, b = inputs(recipe)
    kind = n.rule_scale_kind(rule)
    ga = gb = None
    if rule == "static":
        qa = n.quantize(a, np.ones((1, 1), np.float32), None, fa)
        qb = n.quantize(b, np.ones((1, 1), np.float32), None, fb)
        sa = sb = np.ones((1, 1), np.float32)
    elif rule == "nvfp4":
        qa, sa, ga = n.dynamic_quantize(a, block_a, rule, fa)
        qb, sb, gb = n.dynamic_quantize(b, block_b, rule, fb)
    else:
        qa, sa = n.dynamic_quantize(a, block_a, rule, fa)
        qb, sb = n.dynamic_quantize(b, block_b, rule, fb)
    da = n.dequantize(qa, sa, block_a, fa, kind, ga)
    c = n.scaled_matmul(qa, sa, block_a, fa, qb, sb, block_b, fb, kind, kind, ga, gb)

    def bits(x, is_code):
        x = np.asarray(x)
        if is_code:
            return x.astype(np.int64).reshape(-1)
        return x.astype(np.float32).view(np.int32).astype(np.int64).reshape(-1)

    f32_scale = kind == "f32"
    return [("A codes", bits(qa, True)), ("A scales", bits(sa, not f32_scale)),
            ("B codes", bits(qb, True)), ("B scales", bits(sb, not f32_scale)),
            ("dequantized A", bits(da, False)), ("C", bits(c, False))]


def parse(path):
    arrays = []
    for line in open(path):
        line = line.strip()
        if line.startswith("["):
            arrays.append([int(v) for v in line.strip("[]").replace(" ", "").split(",") if v])
    return arrays


def check(recipe, path):
    actual = parse(path)
    ok = True
    for (what, want), got in zip(expected(recipe), actual):
        got = np.array(got, dtype=np.int64)
        if got.shape != want.shape:
            print(f"{recipe}: {what}: {got.size} values, expected {want.size}")
            ok = False
            continue
        bad = np.nonzero(got != want)[0]
        if bad.size:
            ok = False
            print(f"{recipe}: {what}: {bad.size} of {want.size} differ; first at {bad[0]}: "
                  f"got {got[bad[0]]:#x}, expected {want[bad[0]]:#x}")
        else:
            print(f"{recipe}: {what}: {want.size} values match")
    if len(actual) != 6:
        print(f"{recipe}: expected 6 printed arrays, got {len(actual)}")
        ok = False
    print(f"{recipe}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "emit":
        emit(sys.argv[2])
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
