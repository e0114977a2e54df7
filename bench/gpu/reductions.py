#!/usr/bin/env python3
"""Checks the reduction kernels and measures their bandwidth against a copy.

Two steps, like the GEMM scripts (bench/gpu/README.md):

  * on a development machine, `compile` writes row sums, row maxima, column
    sums (bias gradients) and the softmax along rows (one row-group kernel)
    of a bf16 matrix, 8192 x 4096 by default, and compiles them with fp8-opt
    into build-gpu/reductions/ (PTX, cubin, manifests, index.json);

      python3 bench/gpu/reductions.py compile [--shape 8192x4096] [--chip sm_90a]

  * on any CUDA machine with torch, from the repository root with that folder
    copied along, `run` builds the runtime if needed (cmake), runs each
    reduction through it on random inputs, checks the results against a
    float64 reference, and times it against a device-to-device copy of the
    input (torch's copy_), both the median of --repeats runs after --warmup
    runs, CUDA events, L2 flushed between runs:

      python3 bench/gpu/reductions.py run [--out DIR]

A reduction's bandwidth counts the bytes it must move (the input, the
initial values and the results), a copy's the bytes it reads and writes;
the target is 80% of the copy's. Correctness: a sum passes when
|ours - ref| <= gamma(R + 1) (|init| + sum |x|) + u |ref| per element, with R
the reduced extent, gamma(n) = n 2^-24 / (1 - n 2^-24) the f32 accumulation
bound of docs/numerics.md section 11 (any order) and u the rounding of the
result type (2^-24 f32, 2^-8 bf16); a maximum must be exact; a softmax
element within 2^-6 of float64's, relatively (its bf16 roundings), plus
2^-126. The report
goes to DIR/reductions.md (and results.json) or stdout; the exit status is
1 when a result is wrong, whatever the bandwidth.

`run --dry-run` needs neither torch nor a GPU: it reads the manifests and
checks that the float32 sums numpy computes (another order) pass the same
tolerance, and that a model of the softmax's bf16 roundings passes its
bound (and that the softmax is one row-group kernel).
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import fp8rt  # noqa: E402
from compile import git  # noqa: E402  (bench/gpu/compile.py)
from bitexact import (add_compile_arguments, add_run_arguments,  # noqa: E402
                      device_environment, ratio_text, report_header, run_each)

TARGET = 0.8
UNIT = {"f32": 2.0 ** -24, "bf16": 2.0 ** -8}
TORCH_DTYPES = ("bf16", "f32")

# (id, reduced dimension, combiner, result type): the rows of softmax and
# layernorm, the columns of a bias gradient, and a whole bf16 softmax as a
# bf16 model writes it (maximum, exp(x - max) rounded to bf16, f32 sum,
# division), which the pipeline compiles into one row-group kernel.
CASES = (
    ("rows_sum", 1, "add", "f32"),
    ("rows_max", 1, "max", "bf16"),
    ("cols_sum", 0, "add", "f32"),
    ("softmax", 1, "softmax", "bf16"),
)
# A softmax element's relative bound against float64: the roundings of
# exp(x - max) and of the quotient to bf16 (2^-8 each), the sum's, and the
# polynomial exp's, with room; plus the smallest normal f32 for underflow.
SOFTMAX_RELATIVE = 2.0 ** -6
SOFTMAX_ABSOLUTE = 2.0 ** -126


def generate_softmax_ir(rows, cols):
    """A function (x: bf16 [rows, cols]) -> its bf16 softmax along rows."""
    t, r = "tensor<{0}x{1}xbf16>".format(rows, cols), "{0}".format(rows)
    maps = ("affine_map<(d0, d1) -> (d0, d1)>", "affine_map<(d0, d1) -> (d0)>")
    return "\n".join([
        "func.func @softmax(%x: {0}) -> {0} {{".format(t),
        "  %ninf = arith.constant 0xFF80 : bf16",
        "  %zero = arith.constant 0.0 : f32",
        "  %e = tensor.empty() : {0}".format(t),
        "  %me = tensor.empty() : tensor<{0}xbf16>".format(r),
        "  %mi = linalg.fill ins(%ninf : bf16) outs(%me : tensor<{0}xbf16>) -> "
        "tensor<{0}xbf16>".format(r),
        "  %m = linalg.reduce ins(%x : {0}) outs(%mi : tensor<{1}xbf16>) dimensions = [1]"
        .format(t, r),
        "    (%in: bf16, %acc: bf16) {",
        "      %v = arith.maximumf %in, %acc : bf16",
        "      linalg.yield %v : bf16",
        "    }",
        "  %p = linalg.generic {{indexing_maps = [{0}, {1}, {0}], iterator_types = "
        "[\"parallel\", \"parallel\"]}} ins(%x, %m : {2}, tensor<{3}xbf16>) outs(%e : {2}) {{"
        .format(maps[0], maps[1], t, r),
        "  ^bb0(%a: bf16, %b: bf16, %o: bf16):",
        "    %a32 = arith.extf %a : bf16 to f32",
        "    %b32 = arith.extf %b : bf16 to f32",
        "    %d = arith.subf %a32, %b32 : f32",
        "    %y = math.exp %d : f32",
        "    %v = arith.truncf %y : f32 to bf16",
        "    linalg.yield %v : bf16",
        "  }} -> {0}".format(t),
        "  %se = tensor.empty() : tensor<{0}xf32>".format(r),
        "  %si = linalg.fill ins(%zero : f32) outs(%se : tensor<{0}xf32>) -> "
        "tensor<{0}xf32>".format(r),
        "  %s = linalg.generic {{indexing_maps = [{0}, {1}], iterator_types = "
        "[\"parallel\", \"reduction\"]}} ins(%p : {2}) outs(%si : tensor<{3}xf32>) {{"
        .format(maps[0], maps[1], t, r),
        "  ^bb0(%a: bf16, %acc: f32):",
        "    %a32 = arith.extf %a : bf16 to f32",
        "    %v = arith.addf %acc, %a32 : f32",
        "    linalg.yield %v : f32",
        "  }} -> tensor<{0}xf32>".format(r),
        "  %y = linalg.generic {{indexing_maps = [{0}, {1}, {0}], iterator_types = "
        "[\"parallel\", \"parallel\"]}} ins(%p, %s : {2}, tensor<{3}xf32>) outs(%e : {2}) {{"
        .format(maps[0], maps[1], t, r),
        "  ^bb0(%a: bf16, %b: f32, %o: bf16):",
        "    %a32 = arith.extf %a : bf16 to f32",
        "    %q = arith.divf %a32, %b : f32",
        "    %v = arith.truncf %q : f32 to bf16",
        "    linalg.yield %v : bf16",
        "  }} -> {0}".format(t),
        "  return %y : {0}".format(t),
        "}",
        ""])


def round_bf16(x):
    """float32 `x` rounded to the nearest bf16 (ties to even), as float32."""
    bits = np.asarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    bits = (bits + 0x7FFF + ((bits >> 16) & 1)) & 0xFFFF0000
    return bits.astype(np.uint32).view(np.float32)


def softmax_bound(ref):
    return SOFTMAX_RELATIVE * abs(ref) + SOFTMAX_ABSOLUTE


def generate_ir(case, rows, cols):
    """A function (x: bf16 [rows, cols], init) -> init combined with x along
    the case's dimension."""
    name, dim, combiner, out = case
    if combiner == "softmax":
        return generate_softmax_ir(rows, cols)
    kept = rows if dim == 1 else cols
    op = {"add": "arith.addf", "max": "arith.maxnumf"}[combiner]
    body = ["%e = arith.extf %in : bf16 to f32" if out == "f32" else None,
            "%r = {0} {1}, %acc : {2}".format(op, "%e" if out == "f32" else "%in", out),
            "linalg.yield %r : {0}".format(out)]
    lines = [
        "func.func @{0}(%x: tensor<{1}x{2}xbf16>, %init: tensor<{3}x{4}>) -> tensor<{3}x{4}> {{"
        .format(name, rows, cols, kept, out),
        "  %y = linalg.reduce ins(%x : tensor<{0}x{1}xbf16>) outs(%init : tensor<{2}x{3}>) "
        "dimensions = [{4}]".format(rows, cols, kept, out, dim),
        "    (%in: bf16, %acc: {0}) {{".format(out),
    ]
    lines += ["      " + line for line in body if line]
    lines += ["    }", "  return %y : tensor<{0}x{1}>".format(kept, out), "}", ""]
    return "\n".join(lines)


def parse_shape(text):
    parts = text.lower().split("x")
    if len(parts) != 2 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError("expected ROWSxCOLS, got %r" % text)
    return int(parts[0]), int(parts[1])


def compile_all(args):
    rows, cols = args.shape
    os.makedirs(args.artifacts, exist_ok=True)
    entries, failed = [], 0
    for case in CASES:
        name, dim, combiner, out = case
        source = os.path.join(args.artifacts, name + ".mlir")
        with open(source, "w") as f:
            f.write(generate_ir(case, rows, cols))
        out_dir = os.path.join(args.artifacts, name)
        command = [args.fp8_opt, source, "--fp8-gpu-pipeline=chip=%s num-sms=%d artifacts=%s"
                   % (args.chip, args.num_sms, out_dir), "-o", os.devnull]
        p = subprocess.run(command, capture_output=True, text=True)
        status = "ok" if p.returncode == 0 else "failed"
        failed += status != "ok"
        print("%-7s %s%s" % (status, name, "" if status == "ok" else ": " + p.stderr.strip()))
        entries.append(dict(id=name, dim=dim, combiner=combiner, out=out, rows=rows, cols=cols,
                            manifest=os.path.join(name, name + ".json"), status=status))
    index = dict(chip=args.chip, commit=git("rev-parse", "HEAD") or "unknown",
                 dirty=bool(git("status", "--porcelain", "--untracked-files=no")),
                 entries=entries)
    with open(os.path.join(args.artifacts, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print("summary: %d compiled, %d failed" % (len(entries) - failed, failed))
    return 1 if failed else 0


def gamma(n):
    u = 2.0 ** -24
    return n * u / (1 - n * u)


def tolerance(entry, absolute_sum, init, ref):
    """The bound a sum of `entry` must meet per element (numpy or torch)."""
    reduced = entry["rows"] if entry["dim"] == 0 else entry["cols"]
    return gamma(reduced + 1) * (abs(init) + absolute_sum) + UNIT[entry["out"]] * abs(ref)


def ensure_runtime(lib, build):
    """The path of libfp8rt.so, built with cmake (as run.sh does) if missing."""
    if os.path.exists(lib):
        return lib
    print("== building the runtime in %s" % build, flush=True)
    subprocess.run(["cmake", "-S", os.path.join(ROOT, "runtime"), "-B", build,
                    "-DCMAKE_BUILD_TYPE=Release"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", build, "-j", str(os.cpu_count() or 4)], check=True,
                   stdout=subprocess.DEVNULL)
    return os.path.join(build, "lib", "libfp8rt.so")


def dry_check(args, entry):
    """Without a GPU: the manifest's signature, and numpy's float32 sums
    against the tolerance."""
    path = os.path.join(args.artifacts, entry["manifest"])
    try:
        with fp8rt.Library(args.lib).load(path, manifest_only=True) as program:
            inputs = [(t.dtype, list(t.shape)) for t in program.inputs]
    except fp8rt.Fp8rtError:
        with open(path) as f:
            manifest = json.load(f)
        inputs = [(b["dtype"], b["shape"]) for b in manifest["buffers"] if b["kind"] == "input"]
    rows, cols = entry["rows"], entry["cols"]
    kept = rows if entry["dim"] == 1 else cols
    if entry["combiner"] == "softmax":
        return dry_check_softmax(path, inputs, rows, cols)
    if inputs != [("bf16", [rows, cols]), (entry["out"], [kept])]:
        return dict(status="FAIL", error="unexpected inputs %s" % inputs)
    if entry["combiner"] != "add":
        return dict(status="dry")
    rng = np.random.default_rng(0)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    init = rng.standard_normal(kept).astype(np.float32)
    ref = x.astype(np.float64).sum(axis=entry["dim"]) + init
    ours = x.sum(axis=entry["dim"], dtype=np.float32) + init
    bound = tolerance(entry, np.abs(x.astype(np.float64)).sum(axis=entry["dim"]), init, ref)
    bad = int((np.abs(ours - ref) > bound).sum())
    return dict(status="dry" if bad == 0 else "FAIL",
                error=None if bad == 0 else "numpy's sums exceed the tolerance")


def dry_check_softmax(path, inputs, rows, cols):
    """The softmax's manifest: one input, one row-group kernel; and numpy's
    model of its bf16 roundings (another summation order) within the bound
    the GPU must meet."""
    if inputs != [("bf16", [rows, cols])]:
        return dict(status="FAIL", error="unexpected inputs %s" % inputs)
    with open(path) as f:
        kernels = [l["kernel"] for l in json.load(f)["launches"] if l["kind"] == "kernel"]
    if len(kernels) != 1 or not kernels[0].startswith("fp8_rows_"):
        return dict(status="FAIL", error="not one row-group kernel: %s" % kernels)
    rng = np.random.default_rng(0)
    x = round_bf16(4 * rng.standard_normal((rows, cols)).astype(np.float32))
    p = round_bf16(np.exp(x - x.max(axis=1, keepdims=True)))
    ours = round_bf16(p / p.sum(axis=1, keepdims=True, dtype=np.float32))
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    ref = e / e.sum(axis=1, keepdims=True)
    bad = int((np.abs(ours - ref) > softmax_bound(ref)).sum())
    return dict(status="dry" if bad == 0 else "FAIL",
                error=None if bad == 0 else "numpy's bf16 model exceeds the bound")


def gpu_check_softmax(args, entry, ctx):
    """The row-group softmax against float64, timed against a copy (it reads
    and writes the matrix once each, as the copy does)."""
    import torch
    from check_and_bench import time_gpu

    rows, cols = entry["rows"], entry["cols"]
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = (4 * torch.randn(rows, cols, device="cuda", generator=gen)).to(torch.bfloat16)
    out = torch.full((rows, cols), float("nan"), device="cuda", dtype=torch.bfloat16)
    program = ctx["library"].load(os.path.join(args.artifacts, entry["manifest"]))
    launch = program.bind([x], [out], torch.cuda.current_stream())
    launch(sync=True)
    torch.cuda.synchronize()
    ref = torch.softmax(x.double(), dim=1)
    err = (out.double() - ref).abs()
    bad = int((~(err <= SOFTMAX_RELATIVE * ref.abs() + SOFTMAX_ABSOLUTE)).sum())
    result = dict(id=entry["id"], check=dict(ok=bad == 0, violations=bad,
                                              worst=float(err.max())))
    moved = 2 * x.numel() * 2
    ours = time_gpu(torch, launch, ctx["flush"], args.warmup, args.repeats)
    copy = torch.empty_like(x)
    theirs = time_gpu(torch, lambda: copy.copy_(x), ctx["flush"], args.warmup, args.repeats)
    result["ours"] = dict(ours, gbps=moved / (ours["median_ms"] * 1e-3) / 1e9)
    result["copy"] = dict(theirs, gbps=moved / (theirs["median_ms"] * 1e-3) / 1e9)
    result["ratio"] = result["ours"]["gbps"] / result["copy"]["gbps"]
    result["status"] = "pass" if bad == 0 else "FAIL"
    program.close()
    return result


def gpu_check_and_time(args, entry, ctx):
    if entry["combiner"] == "softmax":
        return gpu_check_softmax(args, entry, ctx)
    import torch
    from check_and_bench import time_gpu

    rows, cols, dim = entry["rows"], entry["cols"], entry["dim"]
    out_dtype = {"f32": torch.float32, "bf16": torch.bfloat16}[entry["out"]]
    kept = rows if dim == 1 else cols
    gen = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(rows, cols, device="cuda", generator=gen).to(torch.bfloat16)
    init = torch.randn(kept, device="cuda", generator=gen).to(out_dtype)
    out = torch.full((kept,), float("nan"), device="cuda", dtype=out_dtype)
    program = ctx["library"].load(os.path.join(args.artifacts, entry["manifest"]))
    launch = program.bind([x, init], [out], torch.cuda.current_stream())
    launch(sync=True)
    torch.cuda.synchronize()

    result = dict(id=entry["id"])
    xd = x.double()
    if entry["combiner"] == "add":
        ref = xd.sum(dim=dim) + init.double()
        bound = tolerance(entry, xd.abs().sum(dim=dim), init.double(), ref)
        err = (out.double() - ref).abs()
        bad = int((~(err <= bound)).sum())
        result["check"] = dict(ok=bad == 0, violations=bad,
                               worst=float((err / bound).max()))
    else:
        ref = torch.maximum(x.float().amax(dim=dim), init.float()).to(out_dtype)
        bad = int((out != ref).sum())
        result["check"] = dict(ok=bad == 0, violations=bad)

    moved = x.numel() * 2 + 2 * init.numel() * init.element_size()
    ours = time_gpu(torch, launch, ctx["flush"], args.warmup, args.repeats)
    copy = torch.empty_like(x)
    theirs = time_gpu(torch, lambda: copy.copy_(x), ctx["flush"], args.warmup, args.repeats)
    result["ours"] = dict(ours, gbps=moved / (ours["median_ms"] * 1e-3) / 1e9)
    result["copy"] = dict(theirs, gbps=2 * x.numel() * 2 / (theirs["median_ms"] * 1e-3) / 1e9)
    result["ratio"] = result["ours"]["gbps"] / result["copy"]["gbps"]
    result["status"] = "pass" if result["check"]["ok"] else "FAIL"
    program.close()
    return result


def report(args, index, results, env):
    lines = report_header("# fp8-mlir reduction kernels against a device-to-device copy",
                          "Dry run: no GPU; manifests and the tolerance checked only.",
                          args, index, env)
    lines += ["* Target: %d%% of the copy's bandwidth" % round(TARGET * 100), "",
              "| reduction | shape | result | check | ours (us) | ours (GB/s) | copy (GB/s) "
              "| ours / copy |", "|---|---|---|---|---|---|---|---|"]
    for e in index["entries"]:
        r = results.get(e["id"], dict(status="not compiled"))
        shape = "%dx%d, dim %d" % (e["rows"], e["cols"], e["dim"])
        if "ours" in r:
            check = "ok" if r["check"]["ok"] else "**%d wrong**" % r["check"]["violations"]
            ratio = ratio_text(r, TARGET)
            lines.append("| %s | %s | %s | %s | %.1f | %.0f | %.0f | %s |" % (
                e["id"], shape, e["out"], check, 1e3 * r["ours"]["median_ms"],
                r["ours"]["gbps"], r["copy"]["gbps"], ratio))
        else:
            lines.append("| %s | %s | %s | %s%s | - | - | - | - |" % (
                e["id"], shape, e["out"], r["status"],
                ": " + r["error"] if r.get("error") else ""))
    return "\n".join(lines) + "\n"


def load_index(artifacts, script):
    """The index.json that `script compile` wrote into `artifacts`, or exit
    saying how to make it."""
    index_path = os.path.join(artifacts, "index.json")
    if not os.path.exists(index_path):
        sys.exit("%s: no %s; run `%s compile` on a development machine and bring "
                 "the folder along" % (script, index_path, script))
    with open(index_path) as f:
        return json.load(f)


def run_all(args):
    index = load_index(args.artifacts, "reductions.py")
    env = {}
    entries = [e for e in index["entries"] if e["status"] == "ok"]
    if args.dry_run:
        results = {e["id"]: dry_check(args, e) for e in entries}
    else:
        import torch
        args.lib = ensure_runtime(args.lib, args.runtime_build)
        torch.cuda.init()
        env = device_environment(torch)
        ctx = dict(library=fp8rt.Library(args.lib),
                   flush=torch.empty(256 << 20, dtype=torch.uint8, device="cuda"))
        results = run_each(entries, lambda e: gpu_check_and_time(args, e, ctx))
    return finish_run(args.out, "reductions.md", report(args, index, results, env),
                      env, index, results)


def finish_run(out, name, text, env, index, results):
    """Prints the report `text`, writes it to OUT/`name` and the results to
    OUT/results.json when `out` is set; the exit status: 1 unless every
    entry passed (or is a dry run)."""
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
        with open(os.path.join(out, "results.json"), "w") as f:
            json.dump(dict(env=env, index=index, results=results), f, indent=1)
    print(text)
    bad = [e["id"] for e in index["entries"]
           if results.get(e["id"], {}).get("status") not in ("pass", "dry")]
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    default_art = os.path.join(ROOT, "build-gpu", "reductions")
    c = sub.add_parser("compile", help="compile the reductions (development machine)")
    add_compile_arguments(c, default_art, cpu_reference=False)
    c.add_argument("--shape", type=parse_shape, default=(8192, 4096))
    r = sub.add_parser("run", help="check and time them (CUDA machine with torch)")
    add_run_arguments(r, default_art)
    args = parser.parse_args()
    sys.exit(compile_all(args) if args.command == "compile" else run_all(args))


if __name__ == "__main__":
    main()
