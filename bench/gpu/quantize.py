#!/usr/bin/env python3
"""Checks the paired quantize kernels bit for bit and measures their bandwidth.

One `fp8.dynamic_quantize` of a bf16 matrix into E4M3 codes, row-wise and
column-wise (the column-wise copy transposed), per CASE below: DeepSeek's
1x128 activation blocks with 128x1 blocks for the transposed copy under the
pow2 rule (the kernel being optimized,
fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused_vs_pair_b128x1_fused_t_vs_r128_nanignore_vl
at aligned shapes) and under ratio, 128x128 weight blocks, MXFP8's 1x32 and
32x1 blocks with E8M0 scales, whole rows and columns, and the whole tensor;
and into E5M2 codes, DeepSeek's blocks under pow2 and the whole tensor under
ratio (E5M2's NaN codes keep a payload bit: docs/numerics.md section 2).
`fp8-gpu-pipeline` writes both copies from one read of the input: one paired
kernel for the block cases, an amax kernel before it for rows/columns and
the tensor (docs/numerics.md sections 3 to 5 give the numerics). Two steps,
like the other GPU scripts (bench/gpu/README.md):

  * on a development machine, `compile` writes and compiles each case at the
    timing shape (--shape, 8192 x 8192) and at the check shapes
    (--check-shape, 520x392 and 528x400: neither side a multiple of 128, so
    every copy ends in ragged blocks and tiles; 520x392 has rows of codes
    that are not a multiple of 16 bytes (stored element by element),
    528x400 rows that are, which gives the vector-store variants that the
    timing shape compiles to) into build-gpu/quantize/<case>/<shape>/ (PTX,
    cubin, manifest) and index.json. For each check shape it also runs every
    case's module through the CPU pipeline in this process (fp8_mlir's
    compiler and JIT) on a seeded input and stores the input and the CPU's
    outputs in check-<shape>.npz:

      python3 bench/gpu/quantize.py compile [--shape 8192x8192] [--check-shape 520x392,528x400]

  * on any CUDA machine with torch, from the repository root with that folder
    copied along, `run` builds the runtime if needed (cmake), runs each check
    program on the stored input and compares every output (both copies'
    codes and scales) bit for bit with the CPU's, runs each timing program
    once on random bf16 input and checks that it wrote every output, then
    times it against a device-to-device copy of the input (torch's copy_),
    both the median of --repeats runs after --warmup runs, CUDA events, L2
    flushed between runs:

      python3 bench/gpu/quantize.py run [--out DIR]

The check input is mostly normal values of varied magnitude (standard normal
times 2^k, k set per band of rows plus per band of columns, from about 2^-40
to 2^40, a row of bf16 subnormals whose scale reaches the rule's cap and a
row near 2^120), with an all-zero row, an all-zero 128 x 128 region, a row
whose blocks have amax 448 * 2^j exactly, NaNs of several payloads (one
negative: the CPU pipeline keeps a NaN's sign in its code, 0xFF), +inf and
-inf, and finite values beyond 448 in the block of the +inf (scale 1: they
saturate). The CPU pipeline takes NaN and infinities under every rule here.
The per-tensor cases get an input of the same normal values over a
narrower range (2^-5 to 2^5), with the same zeros and NaNs and no
infinities nor values beyond 448: an infinity would make its one scale 1,
and a range of 2^80 would flush almost every code to zero. The E5M2 cases
take these inputs with ten more NaNs, quiet and signalling, of either sign,
with and without the payload bit that E5M2 keeps, so that the CPU's codes
hold each E5M2 NaN code, 0x7E, 0x7F, 0xFE and 0xFF.

A quantization's bandwidth counts the bytes it must move: the input read
(2 bytes per element), both copies' codes written (1 byte per element each)
and both scale tensors written; the copy's, the bytes it reads and writes.
The target is 80% of the copy's bandwidth. The report goes to
DIR/quantize.md (and results.json) or stdout; the exit status is 1 when an
output differs from the CPU's by a bit or was not written, whatever the
bandwidth.

`run --dry-run` needs neither torch nor a GPU: it reads the manifests,
checks their signatures and each program's launches (pinned per case in
LAUNCHES), and checks every stored CPU output against a numpy oracle of the
scale rules, vectorized over the whole check shape (scales and codes bit for
bit, NaN ignored by the amax, E5M2's NaN codes, docs/numerics.md sections 2
to 4).
"""

import argparse
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from compile import git  # noqa: E402  (bench/gpu/compile.py)
from bitexact import (GpuPrograms, add_compile_arguments, add_run_arguments,  # noqa: E402
                      bit_differences, difference_table, kernels_of, launch_names, ratio_text,
                      read_manifest, report_header, result_status, run_each, run_program,
                      use_cpu_pipeline)
from reductions import ensure_runtime, finish_run, load_index, parse_shape  # noqa: E402

TARGET = 0.8
SEED = 0
# Each code format's largest finite value and its code.
FORMAT_MAX = {"e4m3": (448.0, 0x7E), "e5m2": (57344.0, 0x7B)}
FLT_MAX = np.float32(np.finfo(np.float32).max)

# (id, row-wise block, column-wise block, rule, codes of both copies): the
# column-wise copy is transposed in every case; "*" is the whole extent,
# "tensor" the matrix.
CASES = (
    ("deepseek", "1x128", "128x1", "pow2", "e4m3"),
    ("deepseek-ratio", "1x128", "128x1", "ratio", "e4m3"),
    ("weight", "128x128", "128x128", "pow2", "e4m3"),
    ("mxfp8", "1x32", "32x1", "e8m0_rceil", "e4m3"),
    ("rowwise", "1x*", "*x1", "ratio", "e4m3"),
    ("tensor", "tensor", "tensor", "ratio", "e4m3"),
    ("deepseek-e5m2", "1x128", "128x1", "pow2", "e5m2"),
    ("tensor-e5m2", "tensor", "tensor", "ratio", "e5m2"),
)
CASE = {c[0]: c for c in CASES}
# Each case's check input (check_input): the per-tensor cases take the
# narrow one, the E5M2 cases the ones with more NaN payloads (docstring).
INPUT = {"tensor": "x_narrow", "deepseek-e5m2": "x_nan", "tensor-e5m2": "x_narrow_nan"}

# The launches of each case's program, pinned: (kind, kernel name pattern);
# {S} stands for the vector-store tag of a copy and {L} for the
# vector-load tag, which depend on the shape (rows of codes and of the
# input a multiple of 16 bytes). Fills zero the amax buffers.
LAUNCHES = {
    "deepseek": [("kernel", "fp8_quantize_bf16_e4m3_b1x128_pow2_sat_fused{S}_pair_b128x1_fused"
                  "_t{S}_r128_nanignore{L}")],
    "deepseek-ratio": [("kernel", "fp8_quantize_bf16_e4m3_b1x128_ratio_sat_fused{S}_pair"
                        "_b128x1_fused_t{S}_r128_nanignore{L}")],
    "weight": [("kernel", "fp8_quantize_bf16_e4m3_b128x128_pow2_sat_fused{S}_pair_b128x128"
                "_fused_t{S}_r128_nanignore{L}")],
    "mxfp8": [("kernel", "fp8_quantize_bf16_e4m3_b1x32_e8m0_rceil_sat_e8m0_fused{S}_pair"
               "_b32x1_fused_t{S}_r32_nanignore{L}")],
    "rowwise": [("fill", None), ("fill", None),
                ("kernel", "fp8_amax_bf16_b1x128_pair_b32x1_r32_nanignore{L}"),
                ("kernel", "fp8_quantize_bf16_e4m3_b1x128_ratio_sat{S}_pair_b32x1_t{S}_r32"
                 "_nanignore{L}")],
    "tensor": [("fill", None),
               ("kernel", "fp8_amax_bf16_b32x128_nanignore{L}_gs"),
               ("kernel", "fp8_quantize_bf16_e4m3_b32x128_ratio_sat{S}_pair_b32x128_t{S}_r32"
                "_nanignore{L}")],
    "deepseek-e5m2": [("kernel", "fp8_quantize_bf16_e5m2_b1x128_pow2_sat_fused{S}_pair_b128x1_fused"
                       "_t{S}_r128_nanignore{L}")],
    "tensor-e5m2": [("fill", None),
                    ("kernel", "fp8_amax_bf16_b32x128_nanignore{L}_gs"),
                    ("kernel", "fp8_quantize_bf16_e5m2_b32x128_ratio_sat{S}_pair_b32x128_t{S}"
                     "_r32_nanignore{L}")],
}
# Output fill before a run: a value no kernel writes for finite inputs (a
# NaN scale, the code 0xFF: -NaN in E4M3 and E5M2, NaN in E8M0).
SENTINEL = {"f32": float("nan"), "f8e4m3": 255, "f8e5m2": 255, "f8e8m0": 255}
NUMPY_DTYPE = {"f32": np.float32, "f8e4m3": np.uint8, "f8e5m2": np.uint8, "f8e8m0": np.uint8}
MLIR_TYPE = {"f32": "f32", "f8e4m3": "f8E4M3FN", "f8e5m2": "f8E5M2", "f8e8m0": "f8E8M0FNU"}


def function_of(case):
    return case.replace("-", "_")


def block_dims(block, rows, cols):
    """A block's (rows, cols) in a [rows, cols] matrix."""
    if block == "tensor":
        return rows, cols
    r, c = block.split("x")
    return (rows if r == "*" else int(r)), (cols if c == "*" else int(c))


def ceil_div(a, b):
    return -(-a // b)


def copies(case, rows, cols):
    """Each copy's (matrix it quantizes, its blocks): the row-wise copy
    quantizes x [rows, cols], the column-wise one x^T [cols, rows] (it is
    stored transposed) with its blocks transposed."""
    row_block, col_block = CASE[case][1:3]
    br, bc = block_dims(row_block, rows, cols)
    cr, cc = block_dims(col_block, rows, cols)
    return [((rows, cols), (br, bc)), ((cols, rows), (cc, cr))]


def outputs_of(case, rows, cols):
    """[(name, manifest dtype, shape)] of the results, in order."""
    scale = "f8e8m0" if CASE[case][3].startswith("e8m0") else "f32"
    codes = "f8" + CASE[case][4]
    result = []
    for suffix, (shape, block) in zip(("", "_t"), copies(case, rows, cols)):
        result.append(("codes" + suffix, codes, list(shape)))
        result.append(("scales" + suffix, scale,
                       [ceil_div(shape[0], block[0]), ceil_div(shape[1], block[1])]))
    return result


def generate_ir(case, rows, cols):
    """func.func @<case>(x: bf16 [rows, cols]) -> (codes, scales, transposed
    codes, their scales): one fp8.dynamic_quantize."""
    row_block, col_block, rule = CASE[case][1:4]
    x = "tensor<%dx%dxbf16>" % (rows, cols)
    types = ["tensor<%s>" % "x".join([str(d) for d in shape] + [MLIR_TYPE[dtype]])
             for _, dtype, shape in outputs_of(case, rows, cols)]
    results = ", ".join(types)
    return "\n".join([
        "func.func @%s(%%x: %s) -> (%s) {" % (function_of(case), x, results),
        "  %%q, %%s, %%qt, %%st = fp8.dynamic_quantize %%x by <%s> colwise <%s> transposed "
        "rule <%s> : %s -> %s, %s colwise %s, %s" % ((row_block, col_block, rule, x) +
                                                     tuple(types)),
        "  return %%q, %%s, %%qt, %%st : %s" % results,
        "}", ""])


# ---------------------------------------------------------------------------
# The check input and the CPU reference
# ---------------------------------------------------------------------------

# bf16 NaNs of either sign and several payloads: f32 mantissa bit 22 (the
# quiet bit) and bit 21 (the low bit of an E5M2 NaN code) both set and both
# clear, low payload bits, signalling NaNs (a multiply quiets them: bit 22
# set, bit 21 kept). Under saturate every E4M3 NaN code is 0x7F or 0xFF;
# the E5M2 code is 0x7E | bit 21, with the sign (docs/numerics.md section 2).
BF16_NANS = (0x7FC0, 0x7FE0, 0x7FC1, 0xFFA0)  # x's NaNs, one per NaN site
BF16_MORE_NANS = (0xFFC0, 0x7F81, 0xFFE0, 0xFF81, 0x7FA0, 0x7FFF, 0xFFFF, 0xFFC1, 0x7FC0,
                  0xFFA0)  # x_nan's besides
BF16_INF, BF16_NEG_INF = 0x7F80, 0xFF80


def bf16_bits(values):
    """float32 values rounded to bf16 (RNE), as uint16 bits."""
    from fp8_mlir.numerics import round_to

    return (round_to(values, "bf16").view(np.uint32) >> 16).astype(np.uint16)


def bf16_values(bits):
    """uint16 bf16 bits as float32 values (exact)."""
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def check_input(rows, cols, seed=SEED):
    """The seeded check inputs as bf16 bits ({"x": ..., "x_narrow": ...})
    and where their special values are. x: normal values N(0, 1) * 2^k, k
    the sum of a power per band of 40 rows (-30..30) and one per band of 72
    columns (-10..10), bands that do not line up with the blocks; then,
    where the shape has room: row 4's 128-blocks of amax 448 * 2^(j - 3)
    exactly, row 5 bf16 subnormals (amax about 2^-128: the scale's cap), row
    6 values near 2^120; row 1 zero; a 128 x 128 zero region at the middle
    multiples of 128; NaN at (2, 5), (rows - 1, cols - 1) and (1, 20) (in a
    zero block), -NaN at (rows // 2, 3), +inf at (3, 7) with 1e4, -3e5 and
    the largest bf16 beside it (a block of scale 1 under the block rules:
    they saturate), -inf at (rows - 2, cols // 2); the NaNs' bits are
    BF16_NANS, in that order. x_narrow, for the per-tensor case: the same
    normal values times 2^(k // 8), the same zeros and NaNs, no infinities
    nor values beyond 448. x_nan and x_narrow_nan, for the E5M2 cases: x and
    x_narrow with BF16_MORE_NANS at row rows - 4, columns 11, 13, ...
    (blocks of normal values), the last two in the zero region and at
    (rows - 3, cols - 2) (ragged blocks), so that every E5M2 NaN code
    occurs."""
    rng = np.random.default_rng(seed)
    row_power = rng.integers(-30, 31, ceil_div(rows, 40))
    col_power = rng.integers(-10, 11, ceil_div(cols, 72))
    power = row_power[np.arange(rows) // 40][:, None] + col_power[np.arange(cols) // 72][None, :]
    normal = rng.standard_normal((rows, cols))
    values = normal * np.exp2(power)
    special = {}
    if rows > 4:
        for j in range(ceil_div(cols, 128)):
            block = values[4, 128 * j:128 * (j + 1)]
            amax = 448 * 2.0 ** (j - 3)
            block *= 0.99 * amax / np.abs(block).max()
            block[0] = amax
        special["exact amax row"] = 4
    if rows > 5:
        values[5] = rng.standard_normal(cols) * 2.0 ** -130
        special["subnormal row"] = 5
    if rows > 6:
        values[6] = rng.standard_normal(cols) * 2.0 ** 120
        special["large row"] = 6
    wide = bf16_bits(values.astype(np.float32))
    narrow = bf16_bits((normal * np.exp2(power // 8)).astype(np.float32))
    zr, zc = 128 * ((rows // 128) // 2), 128 * ((cols // 128) // 2)
    special["zero region"] = [zr, min(rows, zr + 128), zc, min(cols, zc + 128)]
    if rows > 1:
        special["zero row"] = 1

    def put(r, c, value, what, inputs=(wide, narrow)):
        if 0 <= r < rows and 0 <= c < cols:
            for bits in inputs:
                bits[r, c] = value
            special.setdefault(what, []).append([r, c])

    for bits in (wide, narrow):
        bits[zr:zr + 128, zc:zc + 128] = 0
        bits[1:2] = 0
    put(2, 5, BF16_NANS[0], "nan")
    put(rows - 1, cols - 1, BF16_NANS[1], "nan")
    put(1, 20, BF16_NANS[2], "nan")
    put(rows // 2, 3, BF16_NANS[3], "-nan")
    put(3, 7, BF16_INF, "+inf", [wide])
    put(rows - 2, cols // 2, BF16_NEG_INF, "-inf", [wide])
    for c, value in ((8, 1e4), (9, -3e5), (10, 3.3895e38)):
        put(3, c, bf16_bits(np.array([value], np.float32))[0], "saturating", [wide])
    wide_nan, narrow_nan = wide.copy(), narrow.copy()
    sites = [(rows - 4, 11 + 2 * i) for i in range(len(BF16_MORE_NANS) - 2)]
    sites += [(zr + 1, zc + 2), (rows - 3, cols - 2)]
    for (r, c), value in zip(sites, BF16_MORE_NANS):
        put(r, c, value, "more nans (x_nan, x_narrow_nan)", [wide_nan, narrow_nan])
    return dict(x=wide, x_narrow=narrow, x_nan=wide_nan, x_narrow_nan=narrow_nan), special


def cpu_reference(inputs, rows, cols, cases):
    """The CPU pipeline's outputs of each case on its input (fp8-cpu-pipeline
    through the JIT) as {"<case>.<output>": array}."""
    from fp8_mlir import compiler

    expected = {}
    for case in cases:
        module = compiler.parse(generate_ir(case, rows, cols), case + ".mlir")
        function = compiler.jit(module)[function_of(case)]
        want = [(tuple(shape), MLIR_TYPE[dtype]) for _, dtype, shape in
                outputs_of(case, rows, cols)]
        got = [(tuple(t.shape), t.element) for t in function.signature.results]
        if want != got:
            raise RuntimeError("@%s's results are %s, expected %s"
                               % (function_of(case), got, want))
        values = function(bf16_values(inputs[INPUT.get(case, "x")]))
        for (name, dtype, _), value in zip(outputs_of(case, rows, cols), values):
            expected["%s.%s" % (case, name)] = np.asarray(value).astype(NUMPY_DTYPE[dtype])
    return expected


def nan_codes(expected):
    """The NaN codes in the row-wise copies of the CPU's outputs, per code
    format: how many and which ("24 E4M3 0x7f 0xff, ...")."""
    found = []
    for fmt in ("e4m3", "e5m2"):
        codes = [v for k, v in expected.items() if k.endswith(".codes")
                 and CASE[k.split(".")[0]][4] == fmt]
        if codes:
            top = FORMAT_MAX[fmt][1]
            nan = [v[(v & 0x7F) > top + (1 if fmt == "e5m2" else 0)] for v in codes]
            distinct = sorted(set(int(c) for v in nan for c in v.ravel()))
            found.append(" ".join(["%d %s" % (sum(v.size for v in nan), fmt.upper())] +
                                  ["0x%02x" % c for c in distinct]))
    return ", ".join(found)


def shape_name(shape):
    return "%dx%d" % tuple(shape)


def compile_all(args):
    os.makedirs(args.artifacts, exist_ok=True)
    cases = args.cases
    shapes = [("check", s) for s in args.check_shape] + [("timing", args.shape)]
    if len(set(s for _, s in shapes)) != len(shapes):
        sys.exit("quantize.py: the timing and check shapes must differ")
    entries, failed = [], 0
    for case in cases:
        for role, (rows, cols) in shapes:
            shape = shape_name((rows, cols))
            folder = os.path.join(case, shape)
            out_dir = os.path.join(args.artifacts, folder)
            if os.path.isdir(out_dir):
                shutil.rmtree(out_dir)
            os.makedirs(out_dir)
            source = os.path.join(out_dir, function_of(case) + ".mlir")
            with open(source, "w") as f:
                f.write(generate_ir(case, rows, cols))
            command = [args.fp8_opt, source, "--fp8-gpu-pipeline=chip=%s num-sms=%d artifacts=%s"
                       % (args.chip, args.num_sms, out_dir), "-o", os.devnull]
            p = subprocess.run(command, capture_output=True, text=True)
            status = "ok" if p.returncode == 0 else "failed"
            failed += status != "ok"
            print("%-7s %s %s %s%s" % (status, case, role, shape,
                                       "" if status == "ok" else ": " + p.stderr.strip()))
            entries.append(dict(id="%s/%s/%s" % (case, role, shape), case=case, role=role,
                                rows=rows, cols=cols, input=INPUT.get(case, "x"),
                                manifest=os.path.join(folder, function_of(case) + ".json"),
                                check=("check-%s.npz" % shape) if role == "check" else None,
                                status=status,
                                error=None if status == "ok" else p.stderr.strip()))

    checks = []
    for rows, cols in args.check_shape:
        shape = shape_name((rows, cols))
        check = dict(shape=[rows, cols], file="check-%s.npz" % shape, seed=SEED)
        try:
            inputs, special = check_input(rows, cols)
            expected = cpu_reference(inputs, rows, cols, cases)
            arrays = {"in_" + k: v for k, v in inputs.items()}
            arrays.update({"out_" + k: v for k, v in expected.items()})
            np.savez_compressed(os.path.join(args.artifacts, check["file"]), **arrays)
            check.update(status="ok", special=special)
            print("ok      CPU reference %s (%d cases; NaN codes in the row-wise copies: %s)"
                  % (shape, len(cases), nan_codes(expected)))
        except Exception as e:  # reported, and the exit status says so
            check.update(status="failed", error=str(e))
            failed += 1
            print("failed  CPU reference %s: %s" % (shape, e))
        checks.append(check)

    index = dict(format="fp8-mlir-quantize", chip=args.chip,
                 commit=git("rev-parse", "HEAD") or "unknown",
                 dirty=bool(git("status", "--porcelain", "--untracked-files=no")),
                 cases=cases, entries=entries, checks=checks)
    with open(os.path.join(args.artifacts, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print("summary: %d compiled, %d failed; CPU reference %s"
          % (sum(e["status"] == "ok" for e in entries),
             sum(e["status"] != "ok" for e in entries),
             "ok" if all(c["status"] == "ok" for c in checks) else "failed"))
    return 1 if failed else 0


# ---------------------------------------------------------------------------
# The numpy oracle (docs/numerics.md sections 2 to 4)
# ---------------------------------------------------------------------------


def code_values(fmt):
    """The magnitudes of the finite codes of `fmt` (E4M3: 0x00..0x7E, E5M2:
    0x00..0x7B), increasing (float64)."""
    mantissa_bits, bias = {"e4m3": (3, 7), "e5m2": (2, 15)}[fmt]
    codes = np.arange(FORMAT_MAX[fmt][1] + 1)
    exponent, mantissa = codes >> mantissa_bits, codes & ((1 << mantissa_bits) - 1)
    fraction = mantissa / float(1 << mantissa_bits)
    return np.where(exponent == 0, fraction * 2.0 ** (1 - bias),
                    (1 + fraction) * np.exp2(exponent - float(bias)))


def encode(y, negative, fmt):
    """f32 values to E4M3 or E5M2 codes under saturate: RNE on the magnitude
    (ties to the even code), finite overflow and infinities the largest
    finite code (0x7E, 0x7B); NaN 0x7F in E4M3, the quiet NaN 0x7E | p in
    E5M2, p the top two bits of y's f32 mantissa; the sign bit from
    `negative`."""
    values = code_values(fmt)
    top = FORMAT_MAX[fmt][1]
    a = np.abs(y).astype(np.float64)
    nan = np.isnan(a)
    a = np.where(nan, 0, a)
    lo = np.clip(np.searchsorted(values, a, side="right") - 1, 0, top)
    hi = np.minimum(lo + 1, top)
    middle = (values[lo] + values[hi]) / 2  # exact in float64
    code = np.where(a > middle, hi, np.where(a < middle, lo, np.where(lo % 2 == 0, lo, hi)))
    code = np.where(lo == top, top, code)
    if fmt == "e4m3":
        nan_code = 0x7F
    else:
        bits = np.asarray(y, np.float32).view(np.uint32)
        nan_code = 0x7C | 0x02 | ((bits >> 21) & 3).astype(np.int64)
    code = np.where(nan, nan_code, code)
    return (code | np.where(negative, 0x80, 0)).astype(np.uint8)


def block_amax(x, block):
    """max |x| per block, NaN ignored (an all-NaN block has amax 0); ragged
    blocks cover the valid elements only."""
    rows, cols = x.shape
    br, bc = block
    a = np.abs(x)
    a[np.isnan(a)] = 0
    padded = np.zeros((ceil_div(rows, br) * br, ceil_div(cols, bc) * bc), np.float32)
    padded[:rows, :cols] = a
    return padded.reshape(padded.shape[0] // br, br, padded.shape[1] // bc, bc).max(axis=(1, 3))


def scale_rule(amax, rule, fmax):
    """(stored scales, element multipliers) of each block's amax, fmax the
    codes' largest finite value (448, 57344): ratio s = fl32(fmax / amax),
    1 for amax 0 or inf, FLT_MAX where it overflows; pow2 that s with its
    mantissa bits cleared; scales stored as fl32(1 / s). e8m0_rceil:
    v = fl32(amax * fl32(1/fmax)), e its exponent field plus one
    when a mantissa bit is set (not at 254, nor for a subnormal v <= 2^-127),
    inf 254, 0 0; multipliers 2^(127 - e)."""
    amax = amax.astype(np.float32)
    if rule == "e8m0_rceil":
        with np.errstate(over="ignore"):
            v = amax * np.float32(1.0 / np.float32(fmax))
        bits = v.view(np.uint32)
        exponent, mantissa = (bits >> 23) & 0xFF, bits & 0x7FFFFF
        up = (mantissa != 0) & (exponent != 254) & ~((exponent == 0) & (mantissa <= 0x400000))
        e = np.where(exponent == 0xFF, np.where(mantissa == 0, 254, 255), exponent + up)
        multiplier = np.exp2(127.0 - np.minimum(e, 254)).astype(np.float32)
        multiplier[e == 255] = np.nan
        return e.astype(np.uint8), multiplier
    with np.errstate(divide="ignore", over="ignore"):
        s = np.float32(fmax) / amax
    s = np.where((amax == 0) | np.isinf(amax), np.float32(1), s).astype(np.float32)
    s = np.where(np.isinf(s), FLT_MAX, s).astype(np.float32)
    if rule == "pow2":
        s = (s.view(np.uint32) & np.uint32(0xFF800000)).view(np.float32)
    elif rule != "ratio":
        raise ValueError("no oracle for rule %s" % rule)
    return np.float32(1) / s, s


def oracle_quantize(x, block, rule, fmt):
    """(codes, scales) of float32 x quantized to `fmt` per block by `rule`
    (the multiply keeps a NaN's sign and payload, quieting it)."""
    scales, multiplier = scale_rule(block_amax(x, block), rule, FORMAT_MAX[fmt][0])
    br, bc = block
    rows, cols = x.shape
    m = np.repeat(np.repeat(multiplier, br, axis=0), bc, axis=1)[:rows, :cols]
    with np.errstate(over="ignore", invalid="ignore"):
        y = x * m
    return encode(y, np.signbit(x), fmt), scales


def oracle_check(case, x, expected):
    """The stored CPU outputs of `case` on bf16 bits `x` against the oracle,
    bit for bit: {output: differing elements}."""
    values = bf16_values(x)
    rows, cols = x.shape
    rule, fmt = CASE[case][3:5]
    differing = {}
    for suffix, (matrix, (_, block)) in zip(("", "_t"), zip((values, values.T.copy()),
                                                          copies(case, rows, cols))):
        codes, scales = oracle_quantize(matrix, block, rule, fmt)
        for name, value in (("codes", codes), ("scales", scales)):
            key = "%s.%s%s" % (case, name, suffix)
            differing[name + suffix], _ = bit_differences(value, expected[key])
    return differing


# ---------------------------------------------------------------------------
# Manifests
# ---------------------------------------------------------------------------


def structure_errors(entry, io, manifest):
    """What is wrong with a program's signature and launch list (empty when
    they are the case's, LAUNCHES)."""
    case, rows, cols = entry["case"], entry["rows"], entry["cols"]
    errors = []
    want = ([("bf16", [rows, cols])], [(d, s) for _, d, s in outputs_of(case, rows, cols)])
    for what, got, expected in zip(("inputs", "outputs"), io, want):
        if got != expected:
            errors.append("unexpected %s %s (expected %s)" % (what, got, expected))
    launches = manifest.get("launches", [])
    pinned = LAUNCHES[case]
    ok = len(launches) == len(pinned)
    for launch, (kind, pattern) in zip(launches, pinned):
        if launch.get("kind") != kind:
            ok = False
        elif pattern is not None:
            regex = "^%s$" % re.escape(pattern).replace(re.escape("{S}"), "(_vs)?").replace(
                re.escape("{L}"), "(_vl)?")
            ok = ok and re.match(regex, launch.get("kernel", "")) is not None
    if not ok:
        errors.append("launches %s, expected %s" % (
            launch_names(manifest),
            ", ".join(kind if p is None else p.replace("{S}", "[_vs]").replace("{L}", "[_vl]")
                      for kind, p in pinned)))
    return errors


def coverage(args, index):
    """{case: the check shape whose program runs the timing program's
    kernels, or None}."""
    kernels = {}
    for e in index["entries"]:
        if e["status"] == "ok":
            try:
                with open(os.path.join(args.artifacts, e["manifest"])) as f:
                    names = launch_names(json.load(f))
                kernels[e["id"]] = set(n for n in names if n.startswith("fp8_"))
            except (OSError, ValueError):
                pass
    covered = {}
    for e in index["entries"]:
        if e["role"] != "timing" or e["id"] not in kernels:
            continue
        covered[e["case"]] = next(
            (shape_name((c["rows"], c["cols"])) for c in index["entries"]
             if c["case"] == e["case"] and c["role"] == "check" and c["id"] in kernels
             and kernels[e["id"]] <= kernels[c["id"]]), None)
    return covered


def load_check(args, entry):
    """The stored input of a check program and the CPU's outputs of its case."""
    names = [name for name, _, _ in outputs_of(entry["case"], entry["rows"], entry["cols"])]
    with np.load(os.path.join(args.artifacts, entry["check"])) as data:
        x = data["in_" + entry["input"]]
        expected = {"%s.%s" % (entry["case"], n): data["out_%s.%s" % (entry["case"], n)]
                    for n in names}
    return x, expected


def check_status(index, entry):
    for c in index["checks"]:
        if shape_name(c["shape"]) == shape_name((entry["rows"], entry["cols"])):
            return c
    return dict(status="failed", error="no CPU reference at this shape")


def dry_check(args, index, entry):
    """Without a GPU: the manifest's signature and launch list, and for a
    check program the stored CPU outputs against the oracle."""
    io, manifest = read_manifest(args, entry)
    result = dict(id=entry["id"], kernel=kernels_of(manifest))
    errors = structure_errors(entry, io, manifest)
    if entry["role"] == "check":
        check = check_status(index, entry)
        if check["status"] != "ok":
            errors.append("no CPU reference: " + check.get("error", "?"))
        else:
            x, expected = load_check(args, entry)
            if list(x.shape) != [entry["rows"], entry["cols"]]:
                errors.append("%s: input %s has shape %s" % (entry["check"], entry["input"],
                                                             list(x.shape)))
            if not errors:
                differing = oracle_check(entry["case"], x, expected)
                result["oracle"] = differing
                bad = {k: n for k, n in differing.items() if n}
                if bad:
                    errors.append("the CPU's outputs differ from the numpy oracle's: %s"
                                  % ", ".join("%s %d" % kv for kv in bad.items()))
                else:
                    result["note"] = "the CPU's outputs are the oracle's"
    result.update(status="FAIL" if errors else "dry", error="; ".join(errors) or None)
    return result


def bytes_moved(case, rows, cols):
    """What one quantization must read and write: the bf16 input, both
    copies' codes and both scale tensors."""
    moved = 2 * rows * cols
    for _, dtype, shape in outputs_of(case, rows, cols):
        moved += shape[0] * shape[1] * np.dtype(NUMPY_DTYPE[dtype]).itemsize
    return moved


# ---------------------------------------------------------------------------
# The GPU
# ---------------------------------------------------------------------------


class Gpu(GpuPrograms):
    """torch and the runtime on the GPU."""

    def __init__(self, args):
        super().__init__(args, {"f32": "float32", "f8e4m3": "uint8", "f8e5m2": "uint8",
                                "f8e8m0": "uint8"})

    def outputs(self, entry):
        """The outputs, filled with SENTINEL."""
        outs = []
        for _, dtype, shape in outputs_of(entry["case"], entry["rows"], entry["cols"]):
            out = self.torch.empty(shape, dtype=self.dtypes[dtype], device="cuda")
            outs.append(out.fill_(SENTINEL[dtype]))
        return outs

    def check(self, entry):
        """The check program on the stored input against the CPU's outputs."""
        torch = self.torch
        x, expected = load_check(self.args, entry)
        xd = torch.from_numpy(x.view(np.int16).copy()).view(torch.bfloat16).cuda()
        outs = self.outputs(entry)
        program, launch = self.load(entry, [xd], outs)
        try:
            launch(sync=True)
            torch.cuda.synchronize()
            differing, first = {}, {}
            names = outputs_of(entry["case"], entry["rows"], entry["cols"])
            for (name, _, _), out in zip(names, outs):
                count, where = bit_differences(out.cpu().numpy(),
                                               expected["%s.%s" % (entry["case"], name)])
                differing[name] = count
                if where is not None:
                    first[name] = where
        finally:
            program.close()
        ok = not any(differing.values())
        return dict(id=entry["id"], check=dict(ok=ok, differing=differing, first=first),
                    status="pass" if ok else "FAIL")

    def time(self, entry):
        """The timing program on random bf16 input: run once (every output
        must be written), then timed against a copy of the input."""
        torch = self.torch
        rows, cols = entry["rows"], entry["cols"]
        gen = torch.Generator(device="cuda")
        gen.manual_seed(1)
        x = torch.randn((rows, cols), device="cuda", generator=gen).to(torch.bfloat16)
        outputs = [(name, dtype) for name, dtype, _ in outputs_of(entry["case"], rows, cols)]
        return self.time_against_copy(entry, [x], self.outputs(entry), outputs, SENTINEL,
                                      bytes_moved(entry["case"], rows, cols))

# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def report(args, index, results, env, covered):
    lines = report_header(
        "# fp8-mlir paired quantize kernels: bit-exact check and bandwidth against a "
        "device-to-device copy",
        "Dry run: no GPU; manifests, launch lists and the CPU's outputs against the numpy "
        "oracle checked only.", args, index, env)
    lines += ["* Cases: bf16 input, column-wise copy transposed: %s" % "; ".join(
                  "%s `by <%s> colwise <%s> rule <%s>` (%s codes)"
                  % (CASE[c][:4] + (CASE[c][4].upper(),)) for c in index["cases"]),
              "* Bytes moved: the input read (2 per element), both copies' codes (1 per "
              "element each) and both scale tensors written",
              "* Target: %d%% of the copy's bandwidth" % round(TARGET * 100), "",
              "| case | program | shape | launches | check | ours (us) | ours (GB/s) "
              "| copy (GB/s) | ours / copy |", "|---|---|---|---|---|---|---|---|---|"]
    details = []
    for e in index["entries"]:
        r = results.get(e["id"], dict(status="not compiled", error=e.get("error")))
        shape = shape_name((e["rows"], e["cols"]))
        kernel = r.get("kernel", "-")
        note = ""
        if e["role"] == "timing" and e["case"] in covered:
            where = covered[e["case"]]
            note = ("; its kernels checked at %s" % where if where else
                    "; its kernels **not checked** (no check shape compiles to them)")
        status = result_status(r)
        if "check" in r:
            details.append((e["id"], r["check"]))
        elif "written" in r or r["status"] == "dry":
            status += note
        if "ours" in r:
            ratio = ratio_text(r, TARGET)
            lines.append("| %s | %s | %s | %s | %s | %.1f | %.0f | %.0f | %s |" % (
                e["case"], e["role"], shape, kernel, status, 1e3 * r["ours"]["median_ms"],
                r["ours"]["gbps"], r["copy"]["gbps"], ratio))
        else:
            lines.append("| %s | %s | %s | %s | %s | - | - | - | - |" % (
                e["case"], e["role"], shape, kernel, status))
    for program, c in details:
        if not c["ok"]:
            lines += difference_table(program, c)
    return "\n".join(lines) + "\n"


def run_all(args):
    index = load_index(args.artifacts, "quantize.py")
    env = {}
    entries = [e for e in index["entries"] if e["status"] == "ok"]
    covered = coverage(args, index)
    if args.dry_run:
        results = run_each(entries, lambda e: dry_check(args, index, e))
    else:
        args.lib = ensure_runtime(args.lib, args.runtime_build)
        gpu = Gpu(args)
        env = gpu.environment()

        def measure(e):
            if e["role"] != "check":
                return gpu.time(e)
            check = check_status(index, e)
            if check["status"] != "ok":
                raise RuntimeError("no CPU reference: " + check.get("error", "?"))
            return gpu.check(e)
        results = run_each(entries, lambda e: run_program(args, e, structure_errors,
                                                          lambda: measure(e)))
    return finish_run(args.out, "quantize.md", report(args, index, results, env, covered),
                      env, index, results)


def parse_shapes(text):
    return [parse_shape(item) for item in text.split(",")]


def parse_cases(text):
    cases = [c for c in text.split(",") if c]
    unknown = [c for c in cases if c not in CASE]
    if unknown or not cases:
        raise argparse.ArgumentTypeError("unknown cases %s (cases: %s)" % (
            unknown, ",".join(CASE)))
    return cases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    default_art = os.path.join(ROOT, "build-gpu", "quantize")
    c = sub.add_parser("compile", help="compile the quantizations and compute the CPU "
                       "references (development machine)")
    add_compile_arguments(c, default_art)
    c.add_argument("--shape", type=parse_shape, default=(8192, 8192),
                   help="the timing shape (default 8192x8192)")
    c.add_argument("--check-shape", type=parse_shapes, default=[(520, 392), (528, 400)],
                   help="the shapes checked bit for bit, comma-separated (default "
                   "520x392,528x400)")
    c.add_argument("--cases", type=parse_cases, default=[c[0] for c in CASES],
                   help="comma-separated cases (default all: %s)" % ",".join(CASE))
    r = sub.add_parser("run", help="check and time them (CUDA machine with torch)")
    add_run_arguments(r, default_art)
    args = parser.parse_args()
    if args.command == "compile":
        use_cpu_pipeline(args)
        sys.exit(compile_all(args))
    sys.exit(run_all(args))


if __name__ == "__main__":
    main()
