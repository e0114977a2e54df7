"""Recipe programs: an fp8 IR program per recipe, and its oracle results.

`emit_program` writes a self-contained MLIR program that quantizes an
activation A [M, K] and a weight B [K, N] with a recipe's granularities and
scale rule, decodes both, and multiplies the scaled operands; it prints every
result as i32 bit patterns (codes zero-extended) with printMemrefI32, one
line per array. `run_program` compiles it with fp8-opt --fp8-cpu-pipeline and
runs it with mlir-runner; `oracle_results` computes the same arrays with
fp8_mlir.numerics. Tests compare the two bit for bit; bench/numerics uses the
compiled results to measure error against f32.
"""

import os
import subprocess

import numpy as np

from . import numerics as n

# Granularity of A ([M, K], scales along K) and of B ([K, N], scales along
# K), scale rule, formats of A and B (the second operand of a backward GEMM is
# the gradient, hence E5M2 in the hybrid recipes).
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
WIDTHS = {"f8E4M3FN": 8, "f8E5M2": 8, "f4E2M1FN": 4, "f8E8M0FNU": 8, "f32": 32, "i8": 8}
ARRAYS = ["A codes", "A scales", "B codes", "B scales", "decoded A", "decoded B", "C"]


def granularity(block):
    if block is None:
        return "<tensor>"
    return "<" + "x".join("*" if e == -1 else str(e) for e in block) + ">"


def tensor_type(shape, element):
    return "tensor<" + "".join(f"{d}x" for d in shape) + element + ">"


def dense(array):
    return 'dense<"0x' + np.asarray(array, dtype="<f4").tobytes().hex().upper() + '">'


class Program:
    """The body of a @main that prints arrays as i32 bit patterns."""

    def __init__(self):
        self.lines = []
        self.prints = 0

    def op(self, line):
        self.lines.append("  " + line)

    def print_bits(self, value, shape, element):
        i = self.prints
        self.prints += 1
        size = int(np.prod(shape))
        flat = tensor_type([size], element)
        if shape:
            dims = ", ".join(str(d) for d in range(len(shape)))
            self.op(f"%flat{i} = tensor.collapse_shape {value} [[{dims}]] : "
                    f"{tensor_type(shape, element)} into {flat}")
        else:
            self.op(f"%flat{i} = tensor.expand_shape {value} [] output_shape [1] : "
                    f"{tensor_type(shape, element)} into {flat}")
        width = WIDTHS[element]
        ints = tensor_type([size], f"i{width}")
        i32 = tensor_type([size], "i32")
        self.op(f"%bits{i} = arith.bitcast %flat{i} : {flat} to {ints}")
        wide = f"%bits{i}"
        if width != 32:
            wide = f"%wide{i}"
            self.op(f"{wide} = arith.extui %bits{i} : {ints} to {i32}")
        self.op(f"%buf{i} = bufferization.to_buffer {wide} : {i32} to memref<{size}xi32>")
        self.op(f"%any{i} = memref.cast %buf{i} : memref<{size}xi32> to memref<*xi32>")
        self.op(f"call @printMemrefI32(%any{i}) : (memref<*xi32>) -> ()")

    def text(self, comment):
        return "\n".join([f"// {comment}", "func.func private @printMemrefI32(memref<*xi32>)",
                          "func.func @main() {"] + self.lines + ["  return", "}", ""])


def emit_program(recipe, a, b):
    """The MLIR program for `recipe` on f32 inputs a [M, K] and b [K, N]."""
    block_a, block_b, rule, fa, fb = RECIPES[recipe]
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    m, n_ = a.shape[0], b.shape[1]
    scale_el = SCALE_TYPES[n.rule_scale_kind(rule)]
    sa_shape = n.scale_shape(a.shape, block_a)
    sb_shape = n.scale_shape(b.shape, block_b)
    ta, tb = tensor_type(a.shape, "f32"), tensor_type(b.shape, "f32")
    qa_t, qb_t = tensor_type(a.shape, fa), tensor_type(b.shape, fb)
    sa_t, sb_t = tensor_type(sa_shape, scale_el), tensor_type(sb_shape, scale_el)
    g_t = "tensor<1x1xf32>"
    ga_, gb_ = granularity(block_a), granularity(block_b)
    p = Program()
    p.op(f"%a = arith.constant {dense(a)} : {ta}")
    p.op(f"%b = arith.constant {dense(b)} : {tb}")
    global_a = global_b = pair = ""
    if rule == "static":
        # Unit scaling: a compile-time scale of 1, no amax at run time.
        p.op(f"%one = arith.constant dense<1.0> : {g_t}")
        p.op(f"%qa = fp8.quantize %a, %one by <tensor> : {ta}, {g_t} -> {qa_t}")
        p.op(f"%qb = fp8.quantize %b, %one by <tensor> : {tb}, {g_t} -> {qb_t}")
        sa, sb = "%one", "%one"
    elif rule == "nvfp4":
        p.op(f"%qa, %sa, %ga = fp8.dynamic_quantize %a by {ga_} rule <nvfp4> : "
             f"{ta} -> {qa_t}, {sa_t} global {g_t}")
        p.op(f"%qb, %sb, %gb = fp8.dynamic_quantize %b by {gb_} rule <nvfp4> : "
             f"{tb} -> {qb_t}, {sb_t} global {g_t}")
        sa, sb = "%sa", "%sb"
        global_a, global_b = f" global(%ga : {g_t})", f" global(%gb : {g_t})"
        pair = f" lhs_global(%ga : {g_t}) rhs_global(%gb : {g_t})"
    else:
        p.op(f"%qa, %sa = fp8.dynamic_quantize %a by {ga_} rule <{rule}> : {ta} -> {qa_t}, {sa_t}")
        p.op(f"%qb, %sb = fp8.dynamic_quantize %b by {gb_} rule <{rule}> : {tb} -> {qb_t}, {sb_t}")
        sa, sb = "%sa", "%sb"
    p.op(f"%da = fp8.dequantize %qa, {sa} by {ga_}{global_a} : {qa_t}, {sa_t} -> {ta}")
    p.op(f"%db = fp8.dequantize %qb, {sb} by {gb_}{global_b} : {qb_t}, {sb_t} -> {tb}")
    p.op(f"%c = fp8.scaled_matmul %qa, %qb scales({sa}, {sb}) by({ga_}, {gb_}){pair} : "
         f"{qa_t}, {qb_t}, {sa_t}, {sb_t} -> {tensor_type([m, n_], 'f32')}")
    p.print_bits("%qa", a.shape, fa)
    p.print_bits(sa, sa_shape, scale_el)
    p.print_bits("%qb", b.shape, fb)
    p.print_bits(sb, sb_shape, scale_el)
    p.print_bits("%da", a.shape, "f32")
    p.print_bits("%db", b.shape, "f32")
    p.print_bits("%c", [m, n_], "f32")
    return p.text(f"recipe {recipe}: A {list(a.shape)}, B {list(b.shape)}")


def parse_runner_output(text):
    """The i32 arrays printed by printMemrefI32, in order."""
    arrays = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("["):
            arrays.append(np.array([int(v) for v in line.strip("[]").replace(" ", "").split(",")
                                    if v], dtype=np.int64))
    return arrays


def run_program(text, build_dir, llvm_dir="/usr/lib/llvm-22", passes=()):
    """Compiles with `passes` then fp8-cpu-pipeline, runs with mlir-runner,
    parses the output."""
    fp8_opt = os.path.join(build_dir, "bin", "fp8-opt")
    lowered = subprocess.run([fp8_opt, *passes, "--fp8-cpu-pipeline"], input=text,
                             capture_output=True, text=True, check=True).stdout
    libs = ",".join(os.path.join(llvm_dir, "lib", name)
                    for name in ("libmlir_runner_utils.so", "libmlir_c_runner_utils.so"))
    out = subprocess.run([os.path.join(llvm_dir, "bin", "mlir-runner"), "-e", "main",
                          "-entry-point-result=void", "-O2", f"-shared-libs={libs}"],
                         input=lowered, capture_output=True, text=True, check=True).stdout
    return parse_runner_output(out)


def as_f32(bits):
    return np.asarray(bits, dtype=np.int64).astype(np.uint32).view(np.float32)


def oracle_results(recipe, a, b):
    """The arrays emit_program prints, computed by the numpy oracle."""
    block_a, block_b, rule, fa, fb = RECIPES[recipe]
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    kind = n.rule_scale_kind(rule)
    ga = gb = None
    if rule == "static":
        one = np.ones((1,) * a.ndim, np.float32)
        qa, qb, sa, sb = n.quantize(a, one, None, fa), n.quantize(b, one, None, fb), one, one
    elif rule == "nvfp4":
        qa, sa, ga = n.dynamic_quantize(a, block_a, rule, fa)
        qb, sb, gb = n.dynamic_quantize(b, block_b, rule, fb)
    else:
        qa, sa = n.dynamic_quantize(a, block_a, rule, fa)
        qb, sb = n.dynamic_quantize(b, block_b, rule, fb)
    da = n.dequantize(qa, sa, block_a, fa, kind, ga)
    db = n.dequantize(qb, sb, block_b, fb, kind, gb)
    c = n.scaled_matmul(qa, sa, block_a, fa, qb, sb, block_b, fb, kind, kind, ga, gb)

    def bits(x, is_code):
        x = np.asarray(x)
        if is_code:
            return x.astype(np.int64).reshape(-1)
        return x.astype(np.float32).view(np.int32).astype(np.int64).reshape(-1)

    f32_scale = kind == "f32"
    return [bits(qa, True), bits(sa, not f32_scale), bits(qb, True), bits(sb, not f32_scale),
            bits(da, False), bits(db, False), bits(c, False)]


# --------------------------------------------------------------------------
# fp8-autocast programs: an ordinary linalg contraction, autocast by recipe
# --------------------------------------------------------------------------

# The fprop plan of fp8-autocast for each recipe name: granularity of A
# [M, K] and of B [K, N] as stored untransposed, the rule and the formats.
AUTOCAST = {
    "tensor-current": RECIPES["tensor-current"],
    "rowwise": RECIPES["rowwise"],
    "deepseek": RECIPES["deepseek"],
    "mxfp8": RECIPES["mxfp8"],
    "nvfp4": RECIPES["nvfp4"],
    "graphcore": (None, None, "pow2_bias", "f8E4M3FN", "f8E4M3FN"),
    "unit": (None, None, "static", "f8E4M3FN", "f8E4M3FN"),
    # The first call: every delayed scale still has its initial value 1.
    "tensor-delayed": (None, None, "static", "f8E4M3FN", "f8E4M3FN"),
}

_NP_TYPES = {"f32": "<f4", "bf16": None, "f16": "<f2"}


def _dense_as(array, dtype):
    """A dense attribute of `array` (f32 values) stored as `dtype`."""
    array = np.asarray(array, np.float32)
    if dtype == "f32":
        raw = array.astype("<f4").tobytes()
    elif dtype == "f16":
        raw = array.astype("<f2").tobytes()
    else:  # bf16: the values are already bf16-exact; keep the top 16 bits
        raw = (array.view(np.uint32) >> 16).astype("<u2").tobytes()
    return 'dense<"0x' + raw.hex().upper() + '">'


def _transposed_block(block):
    return None if block is None else [block[1], block[0]]


# Gradient formats of the recipes (numerics.md section 6).
GRADIENT_FORMAT = {"tensor-delayed": "f8E5M2", "tensor-current": "f8E5M2", "graphcore": "f8E5M2",
                   "unit": "f8E5M2", "rowwise": "f8E4M3FN", "deepseek": "f8E4M3FN", "mxfp8": "f8E4M3FN",
                   "nvfp4": "f4E2M1FN"}


def random_bits(shape, stream, call=0):
    """fp8-autocast's stochastic-rounding bits: a murmur3 finalizer over the
    row-major element index mixed with the stream number, moved by the
    function's call counter (random-state; 0 on the first call)."""
    with np.errstate(over="ignore"):
        h = np.arange(int(np.prod(shape)), dtype=np.uint32) * np.uint32(0x9E3779B1)
        h ^= np.uint32((stream + call * 0x27D4EB2F) & 0xFFFFFFFF)
        for shift, multiplier in ((16, 0x85EBCA6B), (13, 0xC2B2AE35)):
            h ^= h >> np.uint32(shift)
            h *= np.uint32(multiplier)
        h ^= h >> np.uint32(16)
    return h.reshape(shape)


def stream_number(seed, ordinal=0):
    """The stream of the `ordinal`-th stochastically rounded operand."""
    return (seed * 0x9E3779B9 + (seed >> 32) + ordinal) & 0xFFFFFFFF


def emit_matmul_program(a, b, in_type="f32", out_type="f32", transpose_b=False,
                        role="fprop"):
    """A framework-style program: C = A x B with linalg.matmul into a
    zero-filled accumulator (B stored [N, K] with transpose_b), printing the
    bits of C. `a` and `b` must be exact in `in_type`."""
    m, k = a.shape
    n = b.shape[0] if transpose_b else b.shape[1]
    b_shape = b.shape
    ta, tb = tensor_type(a.shape, in_type), tensor_type(b_shape, in_type)
    tc = tensor_type([m, n], out_type)
    maps = ""
    if transpose_b:
        maps = ("indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, "
                "affine_map<(d0, d1, d2) -> (d1, d2)>, "
                "affine_map<(d0, d1, d2) -> (d0, d1)>] ")
    attrs = "" if role == "fprop" else f"{{fp8.role = #fp8.gemm_role<{role}>}} "
    p = Program()
    p.op(f"%a = arith.constant {_dense_as(a, in_type)} : {ta}")
    p.op(f"%b = arith.constant {_dense_as(b, in_type)} : {tb}")
    p.op(f"%c = call @gemm(%a, %b) : ({ta}, {tb}) -> {tc}")
    if out_type != "f32":
        p.op(f"%c32 = arith.extf %c : {tc} to {tensor_type([m, n], 'f32')}")
        p.print_bits("%c32", [m, n], "f32")
    else:
        p.print_bits("%c", [m, n], "f32")
    gemm = "\n".join([
        f"func.func @gemm(%a: {ta}, %b: {tb}) -> {tc} {{",
        f"  %zero = arith.constant 0.0 : {out_type}",
        f"  %empty = tensor.empty() : {tc}",
        f"  %init = linalg.fill ins(%zero : {out_type}) outs(%empty : {tc}) -> {tc}",
        f"  %c = linalg.matmul {maps}{attrs}ins(%a, %b : {ta}, {tb}) outs(%init : {tc}) -> {tc}",
        f"  return %c : {tc}",
        "}", ""])
    return gemm + p.text(f"linalg.matmul {m}x{n}x{k}, {in_type} -> {out_type}")


def oracle_matmul(recipe, a, b, out_type="f32", transpose_b=False, role="fprop", seed=0,
                  transpose_a=False, init=None, call=0):
    """The bits of C that fp8-autocast=recipe gives: each operand quantized by
    the recipe (blocks along K, per batch when batched), decoded, multiplied
    with f32 accumulation, added in f32 to `init` (if given), and rounded to
    `out_type`. In dgrad, A is the gradient: it gets the gradient format, and
    NVFP4 rounds it stochastically, with the bits of the function's
    `call`-th call (random-state counts from 0)."""
    block_a, block_b, rule, fa, fb = AUTOCAST[recipe]
    if role == "dgrad":
        fa = GRADIENT_FORMAT[recipe]
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    if transpose_a:
        block_a = _transposed_block(block_a)
    if transpose_b:
        block_b = _transposed_block(block_b)
    kind = n.rule_scale_kind(rule)
    ga = gb = None
    if rule == "static":
        one = np.ones((1,) * a.ndim, np.float32)
        qa, qb, sa, sb = n.quantize(a, one, None, fa), n.quantize(b, one, None, fb), one, one
    elif rule == "nvfp4" and role == "dgrad":
        global_encode = n.rule_nvfp4_global(n.amax(a, None).reshape(-1)[0])
        ga = np.float32(np.float32(1.0) / global_encode)
        amax_a = n.amax(a, block_a)
        sa = np.vectorize(lambda v: n.rule_nvfp4_block(v, global_encode))(amax_a)
        qa = n.quantize(a, sa, block_a, fa, "saturate", "e4m3", global_encode,
                        rounding="stochastic", rbits=random_bits(a.shape, stream_number(seed), call))
        qb, sb, gb = n.dynamic_quantize(b, block_b, rule, fb)
    elif rule == "nvfp4":
        qa, sa, ga = n.dynamic_quantize(a, block_a, rule, fa)
        qb, sb, gb = n.dynamic_quantize(b, block_b, rule, fb)
    else:
        qa, sa = n.dynamic_quantize(a, block_a, rule, fa)
        qb, sb = n.dynamic_quantize(b, block_b, rule, fb)
    c = n.scaled_matmul(qa, sa, block_a, fa, qb, sb, block_b, fb, kind, kind, ga, gb,
                        transpose_b=transpose_b, transpose_a=transpose_a)
    if init is not None:
        c = (c + np.asarray(init, np.float32)).astype(np.float32)
    c = n.round_to(c, out_type)
    return c.astype(np.float32).view(np.int32).astype(np.int64).reshape(-1)
