#!/usr/bin/env python3
"""Checks and benchmarks the compiled GEMMs on a GPU (bench/gpu/README.md).

For every variant compiled by bench/gpu/compile.py (build-gpu/index.json),
through the runtime's ctypes binding (runtime/python/fp8rt.py) on
libfp8rt.so and torch in one process:

  * correctness: random inputs (fp8 codes of randn, positive f32 scales
    2^U(-2,2), E8M0 scales 2^-3..2^3, randn bias), our kernel against
    - the exact reference: dequantize each operand to f32 (fl32(q * s), as
      docs/numerics.md specifies), multiply in float64 on the GPU;
    - torch._scaled_mm where torch has the recipe (per-tensor, row-wise,
      DeepSeek 1x128/128x128 on sm_90), for information;
    - the numpy oracle (python/fp8_mlir/numerics.py scaled_matmul, bit-exact
      to our CPU pipeline) for small shapes;
  * performance on the benchmark shapes: median of >= 20 timed runs (CUDA
    events, warm-up first, a 256 MiB buffer written between runs to flush
    L2) of our kernel, torch._scaled_mm with the same recipe, and a bf16
    torch.mm for scale, as TFLOP/s;
  * SASS of the main kernels (cuobjdump -sass) and compute-sanitizer memcheck
    of the ragged shapes, when the tools exist.

The tasks run in worker processes; a fault that kills the CUDA context (an
illegal address, say) or the process is recorded against its variant, a
kernel that never finishes is killed after --check-timeout / --bench-timeout
seconds, and a new worker goes on with the rest. Everything lands in a markdown report ($OUT/report.md
when OUT or --out is set, else stdout) and results.json.

  python3 bench/gpu/check_and_bench.py --lib build-gpu-rt/lib/libfp8rt.so \\
      [--artifacts build-gpu] [--out DIR] [--commit SHA] [--only REGEX]

--dry-run needs neither torch nor a GPU: it checks the manifests against the
index, builds inputs with numpy, computes the float64 reference and the
oracle, checks that the oracle passes the same tolerances our kernels must
pass, and writes the report with the oracle standing in for the kernels.
"""

import argparse
import datetime
import json
import math
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import traceback
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))

import numpy as np  # noqa: E402

import fp8rt  # noqa: E402
import workers  # noqa: E402  (bench/gpu/workers.py)
from fp8_mlir import numerics  # noqa: E402

ORACLE_FORMATS = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}

# ---------------------------------------------------------------------------
# Tolerances
# ---------------------------------------------------------------------------

# Relative rounding of the result type (half an ulp, as a bound relative to
# the value), an absolute floor for f16 subnormals, and the limit of the
# relative Frobenius error.
OUT_UNIT = {"bf16": 2.0 ** -8, "f16": 2.0 ** -11, "f32": 2.0 ** -23}
ABS_FLOOR = {"bf16": 0.0, "f16": 2.0 ** -24, "f32": 0.0}
FRO_LIMIT = {"bf16": 2.0 ** -7, "f16": 2.0 ** -9, "f32": 2.0 ** -10}

TOLERANCE_TEXT = """\
The reference dequantizes A and B to f32 exactly as docs/numerics.md says
(fl32(q * s) per element) and multiplies them in float64, so it is exact up to
the final rounding. An element passes when

    |ours - ref| <= u * |ref| + gamma * (|A| |B|) + floor

with u the rounding of the result (2^-8 bf16, 2^-11 f16, 2^-23 f32: half an
ulp relative to the value), (|A| |B|) the product of the absolute dequantized
operands (the size of what was summed) and gamma the accumulation error:
2^-10 when partial sums are promoted into f32 (promote_interval >= 1 and all
block-scaled recipes: the tensor cores' reduced-precision accumulation over
one promotion window plus f32 reordering), 2^-13 * ceil(K/32) without
promotion (worst case of K/32 reduced-precision wgmma accumulations); floor is
2^-24 for f16 (subnormals), else 0. A NaN fails. A check also needs the
relative Frobenius error ||ours - ref|| / ||ref|| <= 2^-7 (bf16), 2^-9 (f16),
2^-10 (f32), four times that without promotion: the elementwise bound alone
is loose for large K without promotion. Against the numpy oracle (f32
accumulation in K order, rounded like ours) u counts twice, since both round.
torch._scaled_mm is compared for information (it has its own accumulation)."""


def promoted(entry):
    return entry["scaling"] in ("deepseek", "blockwise", "mxfp8") or (entry["promote"] or 0) > 0


def gamma(entry):
    return 2.0 ** -10 if promoted(entry) else 2.0 ** -13 * math.ceil(entry["K"] / 32)


def fro_limit(entry):
    return FRO_LIMIT[entry["out"]] * (1 if promoted(entry) else 4)


# ---------------------------------------------------------------------------
# Array backends: numpy (dry run) and torch on the GPU
# ---------------------------------------------------------------------------


def decode_tables():
    """f32 value of every 8-bit code of each format (from the oracle)."""
    tables = {}
    for fmt, name in ORACLE_FORMATS.items():
        tables[fmt] = np.array([numerics.decode(c, name) for c in range(256)], np.float32)
    tables["e8m0"] = np.array([numerics.e8m0_decode(c) for c in range(256)], np.float32)
    return tables


def finish_stats(got, ref, tol, bad, to_numpy, worst_flat, **stats):
    """Adds where the errors are: the worst element (by error / tolerance)
    and the rows and columns holding elements beyond tolerance, which point
    at tile edges and ragged borders."""
    bad = to_numpy(bad)
    stats["violations"] = int(bad.sum())
    if worst_flat >= 0 and got.shape and len(got.shape) == 2:
        i, j = divmod(worst_flat, got.shape[1])
        stats["worst_at"] = [i, j, float(got[i, j]), float(ref[i, j]), float(tol[i, j])]
    if stats["violations"] and bad.ndim == 2:
        rows = np.nonzero(bad.any(axis=1))[0]
        cols = np.nonzero(bad.any(axis=0))[0]
        stats["bad_rows"] = [int(len(rows)), int(rows[0]), int(rows[-1])]
        stats["bad_cols"] = [int(len(cols)), int(cols[0]), int(cols[-1])]
    return stats


def describe_errors(s):
    """One line on where a comparison failed."""
    parts = ["%d elements beyond tolerance" % s["violations"]]
    if s.get("nan"):
        parts.append("%d NaN (the output is NaN-filled before the run: NaN means "
                     "unwritten or NaN computed)" % s["nan"])
    if "bad_rows" in s:
        parts.append("in %d rows (%d..%d) and %d columns (%d..%d)" % tuple(
            s["bad_rows"] + s["bad_cols"]))
    if "worst_at" in s:
        parts.append("worst at [%d, %d]: ours %.6g, reference %.6g, tolerance %.3g"
                     % tuple(s["worst_at"]))
    parts.append("relative Frobenius error %.3g" % s["fro"])
    return "; ".join(parts)


class NumpyOps:
    """Inputs as numpy arrays: uint8 codes, float32 scales, bias as float32,
    float16 or bfloat16 bit patterns (uint16)."""

    name = "numpy"

    def __init__(self):
        self.tables = decode_tables()

    def lookup(self, codes, table):
        return self.tables[table][codes]

    def wide(self, values, dtype):
        if dtype == "bf16":
            return (values.astype(np.uint32) << 16).view(np.float32)
        return values.astype(np.float32)

    def repeat(self, x, n, axis):
        return np.repeat(x, n, axis=axis)

    def f64(self, x):
        return np.asarray(x, dtype=np.float64)

    def matmul_nt(self, a, b):
        return a @ b.T

    def abs(self, x):
        return np.abs(x)

    def numpy(self, x):
        return np.asarray(x)

    def stats(self, got, ref, tol):
        diff = np.abs(got - ref)
        nan = np.isnan(diff)
        finite = np.where(nan, 0.0, diff)
        ratio = np.where(nan, np.inf, diff / np.maximum(tol, 1e-300))
        ref_norm = float(np.sqrt((ref * ref).sum()))
        return finish_stats(
            got, ref, tol, bad=(diff > tol) | nan, nan=int(np.isnan(got).sum()),
            max_abs=float(finite.max()) if finite.size else 0.0,
            ref_max=float(np.abs(ref).max()) if ref.size else 0.0,
            fro=float(np.sqrt((finite * finite).sum())) / max(ref_norm, 1e-300),
            worst_flat=int(ratio.argmax()) if ratio.size else -1,
            worst=float(ratio.max()) if ratio.size else 0.0, to_numpy=np.asarray)


class TorchOps:
    """Inputs as CUDA tensors: uint8 codes, float32 scales, bias in its
    dtype."""

    name = "torch"

    def __init__(self, torch):
        self.torch = torch
        self.tables = {k: torch.from_numpy(v).cuda() for k, v in decode_tables().items()}

    def lookup(self, codes, table):
        return self.tables[table][codes.long()]

    def wide(self, values, dtype):
        return values.float()

    def repeat(self, x, n, axis):
        return self.torch.repeat_interleave(x, n, dim=axis)

    def f64(self, x):
        return x.double()

    def matmul_nt(self, a, b):
        return a @ b.t()

    def abs(self, x):
        return x.abs()

    def numpy(self, x):
        if x.dtype == self.torch.bfloat16:
            x = x.float()
        return x.cpu().numpy()

    def stats(self, got, ref, tol):
        t = self.torch
        diff = (got - ref).abs()
        isnan = t.isnan(diff)
        finite = t.where(isnan, t.zeros_like(diff), diff)
        ratio = t.where(isnan, t.full_like(diff, math.inf), diff / tol.clamp_min(1e-300))
        ref_norm = float(t.linalg.vector_norm(ref))
        return finish_stats(
            got, ref, tol, bad=(diff > tol) | isnan, nan=int(t.isnan(got).sum()),
            max_abs=float(finite.max()) if finite.numel() else 0.0,
            ref_max=float(ref.abs().max()) if ref.numel() else 0.0,
            fro=float(t.linalg.vector_norm(finite)) / max(ref_norm, 1e-300),
            worst_flat=int(ratio.argmax()) if ratio.numel() else -1,
            worst=float(ratio.max()) if ratio.numel() else 0.0, to_numpy=self.numpy)


# ---------------------------------------------------------------------------
# Inputs and the reference
# ---------------------------------------------------------------------------


def seed_of(entry):
    return zlib.crc32(entry["id"].encode()) & 0x7FFFFFFF


def encode_numpy(x, fmt):
    """RNE encoding of finite f32 values to fp8 codes, saturating (numpy, for
    the dry run: the same codes as torch's .to(float8))."""
    table = decode_tables()[fmt]
    positive = [c for c in range(128) if np.isfinite(table[c])]
    values = table[positive].astype(np.float64)
    order = np.argsort(values, kind="stable")
    values, codes = values[order], np.array(positive)[order]
    mag = np.abs(x.astype(np.float64))
    hi = np.clip(np.searchsorted(values, mag), 1, len(values) - 1)
    lo = hi - 1
    d_lo, d_hi = mag - values[lo], values[hi] - mag
    pick_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (codes[hi] % 2 == 0))
    code = np.where(pick_hi, codes[hi], codes[lo])
    code = np.where(mag >= values[-1], codes[-1], code)
    return (code | np.where(x < 0, 0x80, 0)).astype(np.uint8)


def make_inputs_numpy(entry):
    rng = np.random.default_rng(seed_of(entry))
    m, n, k = entry["M"], entry["N"], entry["K"]

    def scales(shape):
        if entry["scale"] == "e8m0":
            return rng.integers(124, 131, size=shape).astype(np.uint8)
        return np.exp2(rng.random(shape) * 4 - 2).astype(np.float32)

    inputs = dict(
        a=encode_numpy(rng.standard_normal((m, k)).astype(np.float32), entry["a"]),
        b=encode_numpy(rng.standard_normal((n, k)).astype(np.float32), entry["b"]),
        sa=scales(tuple(entry["scale_a_shape"])), sb=scales(tuple(entry["scale_b_shape"])))
    if entry["bias"]:
        values = rng.standard_normal(n).astype(np.float32)
        if entry["bias"] == "bf16":
            bits = numerics.round_to(values, "bf16").view(np.uint32) >> 16
            inputs["bias"] = bits.astype(np.uint16)
        elif entry["bias"] == "f16":
            inputs["bias"] = values.astype(np.float16)
        else:
            inputs["bias"] = values
    return inputs


TORCH_WIDE = {}


def make_inputs_torch(torch, entry):
    g = torch.Generator(device="cuda")
    g.manual_seed(seed_of(entry))
    m, n, k = entry["M"], entry["N"], entry["K"]
    fp8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}

    def codes(rows, fmt):
        x = torch.randn((rows, k), device="cuda", generator=g)
        return x.to(fp8[fmt]).view(torch.uint8)

    def scales(shape):
        if entry["scale"] == "e8m0":
            return torch.randint(124, 131, shape, device="cuda", generator=g,
                                 dtype=torch.uint8)
        return torch.exp2(torch.rand(shape, device="cuda", generator=g) * 4 - 2)

    inputs = dict(a=codes(m, entry["a"]), b=codes(n, entry["b"]),
                  sa=scales(tuple(entry["scale_a_shape"])),
                  sb=scales(tuple(entry["scale_b_shape"])))
    if entry["bias"]:
        inputs["bias"] = torch.randn(n, device="cuda", generator=g).to(
            TORCH_WIDE[entry["bias"]])
    return inputs


def expand(ops, scale, block, shape):
    """Per-element scales of a [rows, cols] operand from its scale tensor."""
    blocks = numerics.block_shape(shape, block)
    full = ops.repeat(scale, blocks[0], 0)[:shape[0]]
    return ops.repeat(full, blocks[1], 1)[:, :shape[1]]


def dequantize(ops, entry, inputs, which):
    """fl32(q * s) per element of A or B (numerics.md)."""
    m, n, k = entry["M"], entry["N"], entry["K"]
    codes = inputs[which]
    rows = m if which == "a" else n
    values = ops.lookup(codes, entry[which])
    scale = inputs["s" + which]
    scale = ops.lookup(scale, "e8m0") if entry["scale"] == "e8m0" else scale
    return values * expand(ops, scale, entry["block_" + which], (rows, k))


def reference(ops, entry, inputs):
    """The float64 product of the dequantized operands (plus bias), and the
    product of their absolute values."""
    a = ops.f64(dequantize(ops, entry, inputs, "a"))
    b = ops.f64(dequantize(ops, entry, inputs, "b"))
    ref = ops.matmul_nt(a, b)
    bound = ops.matmul_nt(ops.abs(a), ops.abs(b))
    if entry["bias"]:
        ref = ref + ops.f64(ops.wide(inputs["bias"], entry["bias"]))[None, :]
    return ref, bound


def compare(ops, entry, got, ref, bound, unit_factor=1.0):
    tol = OUT_UNIT[entry["out"]] * unit_factor * ops.abs(ref) + gamma(entry) * bound \
        + ABS_FLOOR[entry["out"]]
    s = ops.stats(got, ref, tol)
    s["rel_max"] = s["max_abs"] / s["ref_max"] if s["ref_max"] else 0.0
    s["ok"] = s["violations"] == 0 and s["fro"] <= fro_limit(entry)
    return s


def run_oracle(ops, entry, inputs):
    """python/fp8_mlir/numerics.py scaled_matmul on the same inputs."""
    kind = "e8m0" if entry["scale"] == "e8m0" else "f32"

    def scale(x):
        x = ops.numpy(x)
        return x.astype(np.int64) if kind == "e8m0" else x.astype(np.float32)

    bias = None
    if entry["bias"]:
        bias = ops.numpy(ops.wide(inputs["bias"], entry["bias"])).astype(np.float32)
    return numerics.scaled_matmul(
        ops.numpy(inputs["a"]).astype(np.int64), scale(inputs["sa"]), entry["block_a"],
        ORACLE_FORMATS[entry["a"]],
        ops.numpy(inputs["b"]).astype(np.int64), scale(inputs["sb"]), entry["block_b"],
        ORACLE_FORMATS[entry["b"]], kind_a=kind, kind_b=kind, transpose_b=True,
        bias=bias, out=entry["out"])


def expected_io(entry):
    """The manifest's arguments and result as the index describes them."""
    m, n, k = entry["M"], entry["N"], entry["K"]
    dtype = fp8rt.manifest_dtype
    scale = dtype(entry["scale"])
    inputs = [(dtype(entry["a"]), (m, k)), (dtype(entry["b"]), (n, k)),
              (scale, tuple(entry["scale_a_shape"])), (scale, tuple(entry["scale_b_shape"]))]
    if entry["bias"]:
        inputs.append((dtype(entry["bias"]), (n,)))
    return inputs, [(dtype(entry["out"]), (m, n))]


def check_io(entry, inputs, outputs):
    """Raises when the manifest's signature is not what the index says."""
    want_in, want_out = expected_io(entry)
    got_in = [(t.dtype, tuple(t.shape)) for t in inputs]
    got_out = [(t.dtype, tuple(t.shape)) for t in outputs]
    if got_in != want_in or got_out != want_out:
        raise RuntimeError("the manifest's signature %s -> %s is not the index's %s -> %s"
                           % (got_in, got_out, want_in, want_out))


def read_manifest_io(path):
    """Inputs and outputs of a manifest without libfp8rt.so (dry run)."""
    with open(path) as f:
        manifest = json.load(f)
    buffers = manifest["buffers"]

    def of(kind):
        chosen = sorted((b for b in buffers if b["kind"] == kind), key=lambda b: b["index"])
        return [fp8rt.Tensor(b["dtype"], tuple(b["shape"]), b["bytes"]) for b in chosen]

    return of("input"), of("output")


# ---------------------------------------------------------------------------
# torch baselines
# ---------------------------------------------------------------------------


def torch_scaled_mm(torch, entry, inputs, ref, ops):
    """A function computing the entry with torch._scaled_mm, checked against
    the reference; raises with the reason when torch has no such recipe."""
    fp8 = {"e4m3": torch.float8_e4m3fn, "e5m2": torch.float8_e5m2}
    a = inputs["a"].view(fp8[entry["a"]])
    b = inputs["b"].view(fp8[entry["b"]])
    out_dtype = TORCH_WIDE[entry["out"]]
    bias = inputs.get("bias")
    fast = entry["scaling"] == "tensor" and entry["promote"] == 0
    m, n = entry["M"], entry["N"]
    candidates = []
    if entry["scaling"] == "tensor":
        candidates.append(("per-tensor", inputs["sa"].reshape(()), inputs["sb"].reshape(())))
    elif entry["scaling"] == "rowwise":
        candidates.append(("row-wise", inputs["sa"].reshape(m, 1).contiguous(),
                           inputs["sb"].reshape(1, n).contiguous()))
    elif entry["scaling"] == "deepseek":
        # cuBLAS's blockwise layouts (CUDA >= 12.9, sm_90): A's 1x128 scales
        # outer-dim-major; B's 128x128 scales K-major, K blocks padded to 4.
        sa = inputs["sa"].t().contiguous().t()
        sb = inputs["sb"]
        pad = (-sb.shape[1]) % 4
        sb_padded = torch.nn.functional.pad(sb, (0, pad)) if pad else sb
        candidates += [("1x128/128x128, B scales padded K-major", sa, sb_padded.t()),
                       ("1x128/128x128, B scales K-major", sa, sb.t()),
                       ("1x128/128x128, B scales as stored", sa, sb)]
    elif entry["scaling"] == "blockwise":
        # 1x128 on both operands: each operand's scales outer-dim-major.
        sa = inputs["sa"].t().contiguous().t()
        sb = inputs["sb"].t().contiguous().t()
        candidates += [("1x128/1x128, scales outer-dim-major", sa, sb.t()),
                       ("1x128/1x128, scales as stored", inputs["sa"], inputs["sb"])]
    else:
        raise RuntimeError("torch._scaled_mm has no 1x32 E8M0 recipe on sm_90")
    reasons = []
    for name, sa, sb in candidates:
        def fn(sa=sa, sb=sb):
            return torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb, bias=bias,
                                    out_dtype=out_dtype, use_fast_accum=fast)
        try:
            out = fn()
            torch.cuda.synchronize()
        except Exception as e:  # torch has no such kernel
            reasons.append("%s: %s" % (name, str(e).strip().splitlines()[0][:160]))
            continue
        s = ops.stats(out.double(), ref, ref.abs() * 0 + math.inf)
        if s["fro"] <= 4 * fro_limit(entry):
            return fn, name + (" fast_accum" if fast else "")
        reasons.append("%s: result differs from the reference (rel. error %.3g)"
                       % (name, s["fro"]))
    raise RuntimeError("; ".join(reasons))


def time_gpu(torch, fn, flush, warmup, repeats):
    """Median, min of `repeats` timed calls (ms), L2 flushed before each."""
    return time_interleaved(torch, dict(fn=fn), flush, warmup, repeats, 1)["fn"]


def time_interleaved(torch, fns, flush, warmup, repeats, rounds):
    """time_gpu of each callable of `fns` (name -> callable), in `rounds`
    rounds that each time every one of them in turn, a share of the
    `repeats` calls each: with the clocks not locked, a GPU that warms up
    over a run weighs on all of them alike, where timing one after the
    other gave the last one the warmest GPU."""
    for fn in fns.values():
        for _ in range(warmup):
            fn()
    torch.cuda.synchronize()
    events = {name: [] for name in fns}
    for r in range(rounds):
        count = repeats // rounds + (1 if r < repeats % rounds else 0)
        for name, fn in fns.items():
            for _ in range(count):
                flush.zero_()
                start = torch.cuda.Event(enable_timing=True)
                stop = torch.cuda.Event(enable_timing=True)
                start.record()
                fn()
                stop.record()
                events[name].append((start, stop))
    torch.cuda.synchronize()
    result = {}
    for name, pairs in events.items():
        times = sorted(s.elapsed_time(e) for s, e in pairs)
        result[name] = dict(median_ms=times[len(times) // 2], min_ms=times[0],
                            runs=len(times))
    return result


def tflops(entry, ms):
    return 2.0 * entry["M"] * entry["N"] * entry["K"] / (ms * 1e-3) / 1e12


# ---------------------------------------------------------------------------
# Tasks
# ---------------------------------------------------------------------------


class GpuContext:
    def __init__(self, args):
        import torch
        self.torch = torch
        for name, dtype in (("bf16", torch.bfloat16), ("f16", torch.float16),
                            ("f32", torch.float32)):
            TORCH_WIDE[name] = dtype
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.cuda.init()
        torch.zeros(1, device="cuda")
        torch.cuda.synchronize()
        self.ops = TorchOps(torch)
        self.library = fp8rt.Library(args.lib)
        self.flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
        self.args = args

    def environment(self):
        torch = self.torch
        p = torch.cuda.get_device_properties(0)
        return dict(device=p.name, capability="%d.%d" % (p.major, p.minor),
                    sms=p.multi_processor_count, memory_gib=round(p.total_memory / 2**30, 1),
                    torch=torch.__version__, torch_cuda=torch.version.cuda,
                    python=platform.python_version())

    def run_ours(self, entry, inputs):
        torch = self.torch
        program = self.library.load(os.path.join(self.args.artifacts, entry["manifest"]))
        check_io(entry, program.inputs, program.outputs)
        out = torch.empty((entry["M"], entry["N"]), dtype=TORCH_WIDE[entry["out"]],
                          device="cuda")
        out.fill_(float("nan"))  # unwritten elements show
        launch = program.bind([inputs[name] for name in entry["args"]], [out],
                              torch.cuda.current_stream())
        launch(sync=True)
        torch.cuda.synchronize()
        return program, launch, out

    def check(self, entry):
        torch, ops = self.torch, self.ops
        result = dict(module=None)
        inputs = make_inputs_torch(torch, entry)
        program, _, out = self.run_ours(entry, inputs)
        result["module"] = program.module_kind
        result["kernels"] = entry.get("kernels")
        ref, bound = reference(ops, entry, inputs)
        result["ref"] = compare(ops, entry, out.double(), ref, bound)
        try:
            fn, how = torch_scaled_mm(torch, entry, inputs, ref, ops)
            theirs = fn().double()
            result["torch"] = dict(how=how, vs_ref=compare(ops, entry, theirs, ref, bound),
                                   ours_vs_torch=ops.stats(out.double(), theirs,
                                                           theirs.abs() * 0 + math.inf)["fro"])
        except Exception as e:
            result["torch"] = dict(na=str(e).strip().splitlines()[0][:300] if str(e) else
                                   type(e).__name__)
        macs = entry["M"] * entry["N"] * entry["K"]
        if macs <= self.args.oracle_limit:
            t = time.time()
            oracle = torch.from_numpy(run_oracle(ops, entry, inputs)).cuda().double()
            result["oracle"] = compare(ops, entry, out.double(), oracle, bound, 2.0)
            result["oracle"]["seconds"] = round(time.time() - t, 2)
        program.close()
        result["status"] = "pass" if result["ref"]["ok"] and result.get(
            "oracle", {"ok": True})["ok"] else "FAIL"
        return result

    def bench(self, entry):
        torch, ops, args = self.torch, self.ops, self.args
        result = dict()
        inputs = make_inputs_torch(torch, entry)
        program, launch, out = self.run_ours(entry, inputs)
        result["module"] = program.module_kind
        ref, bound = reference(ops, entry, inputs)
        result["ref"] = compare(ops, entry, out.double(), ref, bound)
        torch_fn = None
        try:
            torch_fn, how = torch_scaled_mm(torch, entry, inputs, ref, ops)
            result["torch_how"] = how
        except Exception as e:
            result["torch_na"] = str(e).strip().splitlines()[0][:300] if str(e) else \
                type(e).__name__
        del ref, bound
        torch.cuda.empty_cache()
        result["ours"] = time_gpu(torch, launch, self.flush, args.warmup, args.repeats)
        result["ours"]["tflops"] = tflops(entry, result["ours"]["median_ms"])
        if torch_fn:
            result["torch"] = time_gpu(torch, torch_fn, self.flush, args.warmup, args.repeats)
            result["torch"]["tflops"] = tflops(entry, result["torch"]["median_ms"])
        # Dense bf16 for scale (what the FP8 kernels should beat).
        a16 = ops.lookup(inputs["a"], entry["a"]).to(torch.bfloat16)
        b16 = ops.lookup(inputs["b"], entry["b"]).to(torch.bfloat16)
        result["bf16"] = time_gpu(torch, lambda: a16 @ b16.t(), self.flush, args.warmup,
                                  args.repeats)
        result["bf16"]["tflops"] = tflops(entry, result["bf16"]["median_ms"])
        program.close()
        result["status"] = "pass" if result["ref"]["ok"] else "FAIL"
        return result


def dry_check(args, entry, library):
    """The dry run of one entry: manifest, inputs, reference and oracle with
    numpy; the oracle stands in for our kernel."""
    ops = NumpyOps()
    path = os.path.join(args.artifacts, entry["manifest"])
    if library:
        with library.load(path, manifest_only=True) as program:
            check_io(entry, program.inputs, program.outputs)
            module = program.module_kind
    else:
        check_io(entry, *read_manifest_io(path))
        module = "none"
    result = dict(module=module + " (dry run)")
    if entry["purpose"] == "bench" or entry["M"] * entry["N"] * entry["K"] > args.oracle_limit:
        result["status"] = "dry"
        return result
    inputs = make_inputs_numpy(entry)
    for name, (dtype, shape) in zip(entry["args"], expected_io(entry)[0]):
        if tuple(inputs[name].shape) != shape:
            raise RuntimeError("input %s has shape %s, expected %s"
                               % (name, inputs[name].shape, shape))
    ref, bound = reference(ops, entry, inputs)
    t = time.time()
    oracle = run_oracle(ops, entry, inputs).astype(np.float64)
    seconds = round(time.time() - t, 2)
    # The oracle stands in for our kernel: it must pass the tolerances our
    # kernels must pass. The reference rounded to the result type stands in
    # for our kernel against the oracle.
    result["ref"] = compare(ops, entry, oracle, ref, bound)
    rounded = numerics.round_to(ref.astype(np.float32), entry["out"]).astype(np.float64)
    result["oracle"] = compare(ops, entry, rounded, oracle, bound, 2.0)
    result["oracle"]["seconds"] = seconds
    result["torch"] = dict(na="dry run")
    result["status"] = "pass" if result["ref"]["ok"] and result["oracle"]["ok"] else "FAIL"
    return result


# ---------------------------------------------------------------------------
# Workers
# ---------------------------------------------------------------------------


def worker(args):
    """Runs tasks in order, one JSON line per start and per result."""
    with open(args.tasks) as f:
        tasks = json.load(f)
    emit = workers.emitter(args.results)
    try:
        gpu = GpuContext(args)
    except Exception as e:
        emit(dict(event="fatal", error="cannot start: %s" % e,
                  trace=traceback.format_exc()[-2000:]))
        return 2
    emit(dict(event="env", env=gpu.environment()))
    for task in tasks:
        entry = task["entry"]
        emit(dict(event="start", task=task["id"]))
        print("[%s] %s" % (task["kind"], entry["id"]), flush=True)
        t = time.time()
        try:
            result = gpu.check(entry) if task["kind"] == "check" else gpu.bench(entry)
        except Exception as e:
            message = str(e) or type(e).__name__
            result = dict(status="error", error=message,
                          trace=traceback.format_exc()[-2000:])
        result["seconds"] = round(time.time() - t, 2)
        emit(dict(event="done", task=task["id"], result=result))
        print("    %s (%.1f s)%s" % (result["status"], result["seconds"],
                                     ": " + result["error"].splitlines()[0][:200]
                                     if "error" in result else ""), flush=True)
        gpu.torch.cuda.empty_cache()
        if result["status"] == "error" and workers.is_sticky(result["error"]):
            print("    the CUDA context is lost; a new worker takes the rest", flush=True)
            return 3
    return 0


def run_workers(args, tasks, deadline):
    """Runs the tasks in worker processes until all are done, restarting
    after a worker dies, loses its CUDA context or hangs; returns ({task id:
    result}, environment)."""
    hung_kernels = {}  # kernel name -> the task it hung in
    work_dir = os.path.join(args.out or os.path.join(ROOT, "build-gpu-rt"), "work")
    # Seconds one task may take before its worker is presumed hung (a kernel
    # that never finishes) and killed; a new worker goes on with the rest.
    task_timeout = {"check": args.check_timeout, "bench": args.bench_timeout}

    def command(tasks_file, results_file):
        return [sys.executable, os.path.abspath(__file__), "--worker", "--tasks", tasks_file,
                "--results", results_file, "--lib", args.lib, "--artifacts", args.artifacts,
                "--repeats", str(args.repeats), "--warmup", str(args.warmup),
                "--oracle-limit", str(args.oracle_limit)]

    def skip(task, results):
        hung = [k for k in task["entry"].get("kernels", []) if k in hung_kernels]
        if hung:
            return dict(status="skipped", error="kernel %s hung in %s"
                        % (hung[0], hung_kernels[hung[0]]))
        return None

    def interrupted(task, stopped, rc):
        if stopped == "hung":
            for k in task["entry"].get("kernels", []):
                hung_kernels.setdefault(k, task["entry"]["id"])
            print("    hung; killed the worker, a new one takes the rest", flush=True)
            return dict(status="hung", error=(
                "no result after %d s: the kernel probably never finishes (a deadlock); "
                "the worker was killed" % task_timeout[task["kind"]]))
        if stopped == "budget":
            return dict(status="timeout", error="the time budget ran out during this task")
        return dict(status="crashed", error=(
            "the worker died (exit status %s) during this task; see the log" % rc))

    return workers.supervise(tasks, work_dir, command, lambda task: task_timeout[task["kind"]],
                             deadline, interrupted, skip)


# ---------------------------------------------------------------------------
# SASS and compute-sanitizer
# ---------------------------------------------------------------------------


def find_tool(name):
    found = shutil.which(name)
    if found:
        return found
    for base in (os.environ.get("CUDA_HOME", ""), "/usr/local/cuda"):
        path = os.path.join(base, "bin", name)
        if base and os.access(path, os.X_OK):
            return path
    return None


SASS_COUNTS = [("QGMMA", r"\bQGMMA\b"), ("HGMMA", r"\bHGMMA\b"), ("FFMA", r"\bFFMA\b"),
               ("FADD", r"\bFADD\b"), ("FMUL", r"\bFMUL\b"), ("UTMALDG", r"\bUTMALDG\b"),
               ("WARPGROUP", r"\bWARPGROUP\."), ("SYNCS", r"\bSYNCS\."),
               ("STG", r"\bSTG\."), ("BRA", r"\bBRA\b")]


def dump_sass(args, index, out_dir):
    """cuobjdump -sass of one cubin per kernel: instruction counts of every
    kernel, the full listing of the benchmarked ones."""
    tool = find_tool("cuobjdump")
    if not tool:
        return dict(note="cuobjdump not found")
    rows, seen = [], set()
    entries = [e for e in index["entries"] if e["status"] == "ok" and e.get("cubin")]
    entries.sort(key=lambda e: (e["purpose"] != "bench", e["M"] * e["N"] * e["K"]))
    for e in entries:
        for kernel in e.get("kernels", []):
            if kernel in seen:
                continue
            seen.add(kernel)
            cubin = os.path.join(args.artifacts, e["dir"], "fp8_kernels.cubin")
            try:
                text = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True,
                                      timeout=120).stdout
            except (OSError, subprocess.TimeoutExpired) as err:
                rows.append(dict(kernel=kernel, error=str(err)))
                continue
            if out_dir and e["purpose"] == "bench":  # the main kernels' full listings
                os.makedirs(os.path.join(out_dir, "sass"), exist_ok=True)
                with open(os.path.join(out_dir, "sass", kernel + ".sass"), "w") as f:
                    f.write(text)
            counts = {name: len(re.findall(pattern, text)) for name, pattern in SASS_COUNTS}
            rows.append(dict(kernel=kernel, variant=e["variant"], counts=counts,
                             registers=e.get("registers"), spill_bytes=e.get("spill_bytes")))
    return dict(rows=rows)


def run_sanitizer(args, index, deadline, out_dir, results):
    """compute-sanitizer memcheck of fp8-run on the smallest ragged shape of
    each recipe (out-of-bounds accesses at the M, N and K edges), except
    kernels that hung."""
    tool = find_tool("compute-sanitizer")
    if not tool or not args.fp8_run or not os.access(args.fp8_run, os.X_OK):
        return dict(note="compute-sanitizer or fp8-run not available")
    chosen = {}
    for e in index["entries"]:
        status = results.get("check:" + e["id"], {}).get("status")
        if e["status"] == "ok" and e["purpose"] == "check" and status not in (
                "hung", "skipped", "timeout", None):
            best = chosen.get(e["scaling"])
            if not best or e["M"] * e["N"] * e["K"] < best["M"] * best["N"] * best["K"]:
                chosen[e["scaling"]] = e
    rows = []
    for scaling, e in sorted(chosen.items()):
        if time.time() > deadline - 30:
            rows.append(dict(id=e["id"], summary="skipped: time budget"))
            continue
        command = [tool, "--tool", "memcheck", "--error-exitcode", "9", args.fp8_run,
                   os.path.join(args.artifacts, e["manifest"]), "--random-inputs", "1",
                   "--warmup", "0"]
        try:
            p = subprocess.run(command, capture_output=True, text=True,
                               timeout=min(60, max(10, deadline - time.time())))
            text = p.stdout + p.stderr
            m = re.search(r"ERROR SUMMARY: (\d+) error", text)
            summary = ("%s errors" % m.group(1)) if m else "exit status %d" % p.returncode
        except subprocess.TimeoutExpired:
            text, summary = "", "timed out"
        if out_dir:
            os.makedirs(os.path.join(out_dir, "sanitizer"), exist_ok=True)
            with open(os.path.join(out_dir, "sanitizer", e["id"].replace("/", "_") + ".txt"),
                      "w") as f:
                f.write(" ".join(command) + "\n" + text)
        rows.append(dict(id=e["id"], summary=summary))
    return dict(rows=rows)


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, float):
        if x == 0:
            return "0"
        if math.isinf(x) or math.isnan(x):
            return str(x)
        return "%.*g" % (digits, x)
    return str(x)


def nvidia_smi():
    tool = shutil.which("nvidia-smi")
    if not tool:
        return ""
    try:
        return subprocess.run([tool, "--query-gpu=name,driver_version,clocks.max.sm,"
                               "clocks.max.mem,power.limit", "--format=csv,noheader"],
                              capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def report(args, index, tasks, results, env, sass, sanitizer, started):
    lines = []
    add = lines.append
    title = "fp8-mlir GPU check and benchmark" + (" (dry run: no GPU)" if args.dry_run else "")
    add("# " + title)
    add("")
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    add("* Date: %s; run took %.0f s" % (now, time.time() - started))
    if env:
        add("* Device: %s (compute capability %s, %s SMs, %s GiB); torch %s (CUDA %s); "
            "Python %s" % (env.get("device"), env.get("capability"), env.get("sms"),
                           env.get("memory_gib"), env.get("torch"), env.get("torch_cuda"),
                           env.get("python")))
    smi = nvidia_smi()
    if smi:
        add("* nvidia-smi (name, driver, max SM clock, max memory clock, power limit): " + smi)
    add("* Commit: %s (run); artifacts compiled from %s%s on %s with `%s`" % (
        args.commit or "unknown", index.get("commit"), " (dirty)" if index.get("dirty") else "",
        index.get("date"), index.get("command")))
    add("* Command: `%s`" % " ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]))
    add("* Runtime library: %s; artifacts: %s (chip %s, num-sms %s)" % (
        args.lib, args.artifacts, index.get("chip"), index.get("num_sms")))
    add("")

    failed = [e for e in index["entries"] if e["status"] != "ok"]
    add("## Compilation")
    add("")
    add("%d of %d GEMMs compiled." % (len(index["entries"]) - len(failed), len(index["entries"])))
    for e in failed:
        first = (e.get("error") or "?").strip().splitlines()
        add("* **%s** failed: `%s`" % (e["id"], first[0][:300] if first else "?"))
    add("")

    checks = [t for t in tasks if t["kind"] == "check"]
    benches = [t for t in tasks if t["kind"] == "bench"]
    if checks:
        add("## Correctness")
        add("")
        add(TOLERANCE_TEXT)
        add("")
        add("| variant | M x N x K | module | max abs err | max err / max abs ref | rel. Frobenius "
            "| bound violations (worst err/tol) | numpy oracle | torch._scaled_mm "
            "(ours vs torch, rel. Frobenius) | status |")
        add("|---|---|---|---|---|---|---|---|---|---|")
        for t in checks:
            e, r = t["entry"], results.get(t["id"], {})
            shape = "%dx%dx%d" % (e["M"], e["N"], e["K"])
            if "ref" not in r:
                add("| %s | %s | %s | | | | | | | **%s**: %s |" % (
                    e["variant"], shape, r.get("module") or "-", r.get("status", "?"),
                    (r.get("error") or "").splitlines()[0][:200] if r.get("error") else ""))
                continue
            ref = r["ref"]
            oracle = r.get("oracle")
            oracle_text = "-" if not oracle else "%s (%d viol., rel. %s, %ss)" % (
                "ok" if oracle["ok"] else "**differs**", oracle["violations"],
                fmt(oracle["fro"]), oracle.get("seconds"))
            torch_r = r.get("torch", {})
            if "na" in torch_r:
                torch_text = "n/a: " + torch_r["na"][:120].replace("|", "/")
            else:
                torch_text = "%s (torch vs ref %s)" % (fmt(torch_r["ours_vs_torch"]),
                                                       fmt(torch_r["vs_ref"]["fro"]))
            add("| %s | %s | %s | %s | %s | %s | %d (%s) | %s | %s | %s |" % (
                e["variant"], shape, r.get("module"), fmt(ref["max_abs"]), fmt(ref["rel_max"]),
                fmt(ref["fro"]), ref["violations"], fmt(ref["worst"]), oracle_text, torch_text,
                r["status"] if r["status"] == "pass" else "**%s**" % r["status"]))
        add("")

    if benches:
        add("## Performance")
        add("")
        add("TFLOP/s = 2 M N K / median time; median of %d runs after %d warm-up runs, CUDA "
            "events, a 256 MiB buffer written between runs to flush L2. Clocks not locked. "
            "torch._scaled_mm runs the same recipe (use_fast_accum only for "
            "promote_interval 0); bf16 is a dense torch.mm of the same shape for scale."
            % (args.repeats, args.warmup))
        add("")
        add("| variant | M x N x K | ours ms | ours TFLOP/s | torch._scaled_mm ms | TFLOP/s | "
            "speed ours / torch | bf16 mm TFLOP/s | correct |")
        add("|---|---|---|---|---|---|---|---|---|")
        for t in benches:
            e, r = t["entry"], results.get(t["id"], {})
            shape = "%dx%dx%d" % (e["M"], e["N"], e["K"])
            if "ours" not in r:
                add("| %s | %s | | | | | | | **%s** %s |" % (
                    e["variant"], shape, r.get("status", "?"),
                    (r.get("error") or "").splitlines()[0][:200] if r.get("error") else ""))
                continue
            ours, theirs = r["ours"], r.get("torch")
            add("| %s | %s | %.4f | %s | %s | %s | %s | %s | %s |" % (
                e["variant"], shape, ours["median_ms"], fmt(ours["tflops"], 4),
                "%.4f" % theirs["median_ms"] if theirs else "n/a",
                fmt(theirs["tflops"], 4) if theirs else "n/a",
                "%.2f" % (theirs["median_ms"] / ours["median_ms"]) if theirs else "-",
                fmt(r["bf16"]["tflops"], 4),
                "yes (rel. %s)" % fmt(r["ref"]["fro"]) if r["ref"]["ok"] else
                "**NO** (%d viol., rel. %s)" % (r["ref"]["violations"], fmt(r["ref"]["fro"]))))
        notes = sorted({"%s: %s" % (t["entry"]["variant"], results[t["id"]]["torch_na"])
                        for t in benches if "torch_na" in results.get(t["id"], {})})
        if notes:
            add("")
            add("No torch._scaled_mm baseline:")
            for note in notes:
                add("* " + note.replace("|", "/"))
        add("")

    if sass:
        add("## SASS")
        add("")
        if "note" in sass:
            add(sass["note"])
        else:
            add("`cuobjdump -sass` of each kernel (the benchmarked ones in full in sass/ next "
                "to this report): instruction counts, ptxas registers and spill bytes. QGMMA "
                "is the FP8 wgmma; the FFMA/FADD count the promotion and epilogue work.")
            add("")
            names = [n for n, _ in SASS_COUNTS]
            add("| kernel | " + " | ".join(names) + " | registers | spill bytes |")
            add("|---|" + "---|" * (len(names) + 2))
            for row in sass["rows"]:
                if "error" in row:
                    add("| %s | %s |" % (row["kernel"], row["error"]))
                    continue
                add("| %s | %s | %s | %s |" % (
                    row["kernel"], " | ".join(str(row["counts"][n]) for n in names),
                    row.get("registers"), row.get("spill_bytes")))
        add("")
    if sanitizer:
        add("## compute-sanitizer memcheck")
        add("")
        if "note" in sanitizer:
            add(sanitizer["note"])
        for row in sanitizer.get("rows", []):
            add("* %s: %s" % (row["id"], row["summary"]))
        add("")

    problems = [(t, results[t["id"]]) for t in tasks
                if results.get(t["id"], {}).get("status") not in ("pass", "dry")]
    add("## Summary")
    add("")
    counts = {}
    for t in tasks:
        status = results.get(t["id"], {}).get("status", "?")
        counts[status] = counts.get(status, 0) + 1
    add(", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())) or "nothing ran")
    for t, r in problems:
        add("")
        add("### %s %s: %s" % (t["kind"], t["entry"]["id"], r.get("status")))
        for name in ("ref", "oracle"):
            if name in r and not r[name]["ok"]:
                add("* against the %s: %s (limit %.3g)" % (
                    "float64 reference" if name == "ref" else "numpy oracle",
                    describe_errors(r[name]), fro_limit(t["entry"])))
        if r.get("error"):
            add("```")
            add(r["error"].strip()[:4000])
            add("```")
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--artifacts", default=os.path.join(ROOT, "build-gpu"))
    parser.add_argument("--lib", default=os.path.join(ROOT, "build-gpu-rt", "lib", "libfp8rt.so"))
    parser.add_argument("--fp8-run", default=None, help="fp8-run, for compute-sanitizer")
    parser.add_argument("--out", default=os.environ.get("OUT") or None,
                        help="directory for report.md, results.json, sass/ (default: $OUT; "
                        "without either the report goes to stdout)")
    parser.add_argument("--commit", default=None)
    parser.add_argument("--only", default=None, help="run entries whose id matches this regex")
    parser.add_argument("--skip-check", action="store_true")
    parser.add_argument("--skip-bench", action="store_true")
    parser.add_argument("--no-sass", action="store_true")
    parser.add_argument("--no-sanitizer", action="store_true")
    parser.add_argument("--repeats", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=5)
    parser.add_argument("--oracle-limit", type=float, default=2 ** 24,
                        help="run the numpy oracle up to this many multiply-adds (M N K)")
    parser.add_argument("--time-budget", type=float, default=330,
                        help="seconds for the GPU work; what is left then is skipped")
    parser.add_argument("--check-timeout", type=float, default=45,
                        help="seconds a correctness task may take before it counts as hung")
    parser.add_argument("--bench-timeout", type=float, default=150,
                        help="seconds a benchmark task may take before it counts as hung")
    parser.add_argument("--dry-run", action="store_true")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tasks", help=argparse.SUPPRESS)
    parser.add_argument("--results", help=argparse.SUPPRESS)
    args = parser.parse_args()
    args.repeats = max(20, args.repeats)
    if args.worker:
        sys.exit(worker(args))

    started = time.time()
    deadline = started + args.time_budget
    index_path = os.path.join(args.artifacts, "index.json")
    if not os.path.exists(index_path):
        sys.exit("check_and_bench.py: no %s; run bench/gpu/compile.sh on a development "
                 "machine and bring build-gpu/ along" % index_path)
    with open(index_path) as f:
        index = json.load(f)

    tasks = []
    for e in index["entries"]:
        if e["status"] != "ok" or (args.only and not re.search(args.only, e["id"])):
            continue
        kind = "check" if e["purpose"] == "check" else "bench"
        if (kind == "check" and args.skip_check) or (kind == "bench" and args.skip_bench):
            continue
        tasks.append(dict(id=kind + ":" + e["id"], kind=kind, entry=e))
    print("%d tasks from %s (%d entries failed to compile)" % (
        len(tasks), index_path, sum(e["status"] != "ok" for e in index["entries"])), flush=True)

    sass = sanitizer = None
    env = {}
    if args.dry_run:
        library = None
        try:
            library = fp8rt.Library(args.lib)
        except fp8rt.Fp8rtError as e:
            print("dry run without libfp8rt.so (%s); reading manifests as JSON" % e)
        results = {}
        for t in tasks:
            try:
                results[t["id"]] = dry_check(args, t["entry"], library)
            except Exception as e:
                results[t["id"]] = dict(status="error", error=str(e),
                                        trace=traceback.format_exc())
            r = results[t["id"]]
            print("[%s] %s: %s%s" % (t["kind"], t["entry"]["id"], r["status"],
                                     ": " + r["error"] if "error" in r else ""), flush=True)
    else:
        results, env = run_workers(args, tasks, deadline)
        if not args.no_sanitizer and not args.skip_check:
            sanitizer = run_sanitizer(args, index, deadline + 45, args.out, results)
        if not args.no_sass:
            sass = dump_sass(args, index, args.out)

    text = report(args, index, tasks, results, env, sass, sanitizer, started)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "report.md"), "w") as f:
            f.write(text)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(dict(env=env, index_commit=index.get("commit"), commit=args.commit,
                           results=results, sass=sass, sanitizer=sanitizer), f, indent=1)
        print("report: %s" % os.path.join(args.out, "report.md"))
    print(text)
    bad = [r for r in results.values() if r.get("status") not in ("pass", "dry")]
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
