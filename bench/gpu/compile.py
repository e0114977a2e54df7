#!/usr/bin/env python3
"""Compiles every GEMM variant and shape for a GPU run (bench/gpu/README.md).

Runs on a development machine (fp8-opt and ptxas, no GPU). For each variant
and shape it writes a function with one fp8.scaled_matmul, compiles it with

    fp8-opt gemm.mlir --fp8-gpu-pipeline="chip=sm_90a artifacts=<dir>"

into <out>/<variant>/<MxNxK>/ (PTX, cubin, ptxas log, gemm.json), and an
index of everything (<out>/index.json) that check_and_bench.py reads on the
GPU machine. A variant that fails to compile is reported with fp8-opt's
diagnostic and recorded as failed; the others go on. The summary at the end
lists every failure.

  bench/gpu/compile.py [--fp8-opt build/bin/fp8-opt] [--out build-gpu]
                       [--only REGEX] [--jobs 2] [--strict]
                       [--check-shapes MxNxK,...] [--bench-shapes MxNxK,...]
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# MLIR element types of the operand formats and results.
FORMATS = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}
WIDE = {"bf16": "bf16", "f16": "f16", "f32": "f32"}

# Correctness shapes (M, N, K): aligned, then ragged in M, N and K (K stays
# a multiple of 16, which TMA needs).
# (129, 40, 160) gives N <= 64, the 128x64 tiles that the sm_90a MXFP8 GEMM
# always uses: with the promote-1 variant below it separates the parts of
# that kernel (narrow tiles, a promotion per k32 step, E8M0 scales) that
# other variants share.
CHECK_SHAPES = [(256, 384, 512), (200, 136, 320), (129, 72, 160), (129, 40, 160)]
# Benchmark shapes: squares, and DeepSeek-V3 GEMMs (M x N x K).
SQUARE_SHAPES = [(n, n, n) for n in (1024, 2048, 4096, 8192)]
DEEPSEEK_SHAPES = [(4096, 7168, 16384), (4096, 24576, 1536), (4096, 4096, 7168)]
BENCH_SHAPES = SQUARE_SHAPES + DEEPSEEK_SHAPES

# How each scaling recipe scales A [M, K] and B [N, K] (both K-major):
# granularity syntax, numerics.py block (None: whole tensor, -1: whole
# dimension), scale shape and scale element type.
SCALINGS = {
    "tensor": dict(by=("<tensor>", "<tensor>"), block_a=None, block_b=None,
                   scale="f32"),
    "rowwise": dict(by=("<1x*>", "<1x*>"), block_a=[1, -1], block_b=[1, -1],
                    scale="f32"),
    "deepseek": dict(by=("<1x128>", "<128x128>"), block_a=[1, 128],
                     block_b=[128, 128], scale="f32"),
    # DeepSeek's weight gradients: 1x128 blocks along K on both operands.
    "blockwise": dict(by=("<1x128>", "<1x128>"), block_a=[1, 128],
                      block_b=[1, 128], scale="f32"),
    "mxfp8": dict(by=("<1x32>", "<1x32>"), block_a=[1, 32], block_b=[1, 32],
                  scale="e8m0"),
}


def ceil_div(a, b):
    return -(-a // b)


def scale_shape(shape, block):
    """numerics.py's scale shape: ceil(shape / block) per dimension."""
    if block is None:
        return [1, 1]
    return [1 if b == -1 else ceil_div(d, b) for d, b in zip(shape, block)]


def variant(scaling, a="e4m3", b="e4m3", out="bf16", promote=None, bias=None,
            purpose="check", tile_n=None, register_store=False, multicast=False,
            alternate=False, producer_scales=False):
    """One GEMM variant; `tile_n` 192 compiles it with sm90-tile-n=192, and
    the others take 128 x 128 tiles (sm90-tile-n=128: the default, auto,
    picks either by shape, and the report compares the two).
    `register_store` compiles it with sm90-tma-store=0 (results stored from
    registers, where the default stores them by TMA from shared memory),
    `multicast` with sm90-multicast=1 (clusters of two CTAs sharing B, off
    by default), `alternate` with sm90-alternate-consumers=1 (the consumer
    warpgroups issue each K tile's wgmmas in turn, off by default),
    `producer_scales` with sm90-producer-column-scales=1 (the producer warp
    copies B's column scales into the ring, off by default)."""
    name = "%s_%s_%s_%s" % (scaling, a, b, out)
    if promote is not None:
        name += "_p%d" % promote
    if bias:
        name += "_bias" + bias
    if tile_n:
        name += "_n%d" % tile_n
    if register_store:
        name += "_reg"
    if multicast:
        name += "_mc"
    if alternate:
        name += "_alt"
    if producer_scales:
        name += "_pcs"
    return dict(name=name, scaling=scaling, a=a, b=b, out=out,
                promote=promote, bias=bias, tile_n=tile_n,
                register_store=register_store, multicast=multicast,
                alternate=alternate, producer_scales=producer_scales)


def variants(check_shapes=None, bench_shapes=None):
    """(variant, shapes, purpose) triples: every variant on the check shapes,
    the main recipes also on the benchmark shapes (MXFP8 on the squares).
    Either list of shapes may be replaced."""
    checks = []
    for a in ("e4m3", "e5m2"):
        for b in ("e4m3", "e5m2"):
            for out in ("bf16", "f16", "f32"):
                checks.append(variant("tensor", a, b, out, promote=4))
    checks += [
        variant("tensor", promote=0),
        variant("tensor", promote=1),
        variant("tensor", promote=4, bias="bf16"),
        variant("tensor", out="f32", promote=4, bias="f32"),
        variant("rowwise"),
        variant("rowwise", out="f32"),
        variant("deepseek"),
        variant("deepseek", out="f32"),
        variant("mxfp8"),
        variant("tensor", promote=4, tile_n=192),
        variant("tensor", promote=0, tile_n=192),
        variant("rowwise", tile_n=192),
        # 192-column tiles over B's 128 x 128 blocks (a tile straddles two)
        # and over B's column scales.
        variant("deepseek", tile_n=192),
        variant("deepseek", out="f32", tile_n=192),
        variant("blockwise"),
        variant("blockwise", tile_n=192),
        # Results stored from registers (sm90-tma-store=0: every output
        # type, both tile widths, each scaling), the path GEMMs take where
        # TMA stores do not apply.
        variant("tensor", promote=4, register_store=True),
        variant("tensor", out="f32", promote=4, bias="f32", register_store=True),
        variant("tensor", "e5m2", "e4m3", "f16", promote=0, register_store=True),
        variant("tensor", promote=4, tile_n=192, register_store=True),
        variant("rowwise", tile_n=192, register_store=True),
        variant("deepseek", register_store=True),
        variant("mxfp8", out="f32", register_store=True),
        # Clusters of two CTAs multicasting B (ragged pairs of tile rows in
        # the check shapes).
        variant("tensor", promote=4, multicast=True),
        variant("tensor", promote=4, tile_n=192, multicast=True),
        variant("rowwise", out="f32", multicast=True),
        variant("deepseek", multicast=True),
        variant("mxfp8", multicast=True),
        # Consumer warpgroups issuing their wgmmas in turn (every scaling
        # that promotes, both tile widths, f32 results, results stored
        # from registers).
        variant("tensor", promote=4, alternate=True),
        variant("tensor", promote=1, alternate=True),
        variant("tensor", promote=4, tile_n=192, alternate=True),
        variant("tensor", out="f32", promote=4, bias="f32",
                register_store=True, alternate=True),
        variant("rowwise", tile_n=192, alternate=True),
        variant("deepseek", alternate=True),
        variant("deepseek", out="f32", tile_n=192, alternate=True),
        variant("blockwise", alternate=True),
        variant("mxfp8", alternate=True),
        # B's column scales (DeepSeek's weight gradients) copied by the
        # producer: both tile widths, f32 results, results stored from
        # registers, with the consumers in turn.
        variant("blockwise", producer_scales=True),
        variant("blockwise", tile_n=192, producer_scales=True),
        variant("blockwise", out="f32", producer_scales=True),
        variant("blockwise", register_store=True, producer_scales=True),
        variant("blockwise", alternate=True, producer_scales=True),
    ]
    bench = bench_shapes or BENCH_SHAPES
    benches = [
        (variant("tensor", promote=4), bench),
        (variant("tensor", promote=0), bench),
        (variant("rowwise"), bench),
        (variant("deepseek"), bench),
        (variant("mxfp8"), bench_shapes or SQUARE_SHAPES),
        # Tiles of 128 x 192 (sm90-tile-n=192), to compare with the above.
        (variant("tensor", promote=4, tile_n=192), bench),
        (variant("tensor", promote=0, tile_n=192), bench),
        (variant("rowwise", tile_n=192), bench),
        (variant("deepseek", tile_n=192), bench),
        (variant("blockwise"), bench),
        (variant("blockwise", tile_n=192), bench),
        # Stored from registers and in clusters multicasting B, to compare
        # with the same variants above.
        (variant("tensor", promote=4, register_store=True), bench),
        (variant("tensor", promote=4, tile_n=192, register_store=True), bench),
        (variant("tensor", promote=4, multicast=True), bench),
        (variant("tensor", promote=4, tile_n=192, multicast=True), bench),
        (variant("deepseek", multicast=True), bench),
        # The consumers in turn, to compare with the same variants above.
        (variant("tensor", promote=4, alternate=True), bench),
        (variant("tensor", promote=4, tile_n=192, alternate=True), bench),
        (variant("rowwise", tile_n=192, alternate=True), bench),
        (variant("deepseek", alternate=True), bench),
        (variant("deepseek", tile_n=192, alternate=True), bench),
        (variant("blockwise", alternate=True), bench),
        (variant("mxfp8", alternate=True), bench_shapes or SQUARE_SHAPES),
        # The column scales copied by the producer, to compare with
        # blockwise above.
        (variant("blockwise", producer_scales=True), bench),
        (variant("blockwise", tile_n=192, producer_scales=True), bench),
        (variant("blockwise", alternate=True, producer_scales=True), bench),
    ]
    result = [(v, check_shapes or CHECK_SHAPES, "check") for v in checks]
    # Three tile rows: the second CTA of the last pair computes a tile past
    # M (multicast); 136 columns end in the first half of the last B tile.
    if not check_shapes:
        result += [(variant("tensor", promote=4, multicast=True),
                    [(300, 136, 320)], "check")]
    result += [(v, shapes, "bench") for v, shapes in benches]
    return result


def generate_ir(v, m, n, k):
    """The function: gemm(A, B, scale A, scale B[, bias]) -> C."""
    s = SCALINGS[v["scaling"]]
    a_type = "tensor<%dx%dx%s>" % (m, k, FORMATS[v["a"]])
    b_type = "tensor<%dx%dx%s>" % (n, k, FORMATS[v["b"]])
    scale_elem = "f32" if s["scale"] == "f32" else "f8E8M0FNU"
    sa = scale_shape([m, k], s["block_a"])
    sb = scale_shape([n, k], s["block_b"])
    sa_type = "tensor<%dx%dx%s>" % (sa[0], sa[1], scale_elem)
    sb_type = "tensor<%dx%dx%s>" % (sb[0], sb[1], scale_elem)
    c_type = "tensor<%dx%dx%s>" % (m, n, WIDE[v["out"]])
    args = ["%%a: %s" % a_type, "%%b: %s" % b_type, "%%sa: %s" % sa_type,
            "%%sb: %s" % sb_type]
    bias = ""
    if v["bias"]:
        bias_type = "tensor<%dx%s>" % (n, WIDE[v["bias"]])
        args.append("%%bias: %s" % bias_type)
        bias = " bias(%%bias : %s)" % bias_type
    promote = "" if v["promote"] is None else " promote_interval(%d)" % v["promote"]
    return (
        "func.func @gemm(%s) -> %s {\n"
        "  %%c = fp8.scaled_matmul %%a, %%b scales(%%sa, %%sb) by(%s, %s)%s"
        " transpose_rhs%s\n"
        "      : %s, %s, %s, %s -> %s\n"
        "  return %%c : %s\n"
        "}\n" % (", ".join(args), c_type, s["by"][0], s["by"][1], bias, promote,
                 a_type, b_type, sa_type, sb_type, c_type, c_type))


def compile_one(fp8_opt, out_dir, entry, chip, num_sms):
    d = os.path.join(out_dir, entry["dir"])
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    source = os.path.join(d, "gemm.mlir")
    with open(source, "w") as f:
        f.write(entry["ir"])
    options = "chip=%s num-sms=%d artifacts=%s" % (chip, num_sms, d)
    options += " sm90-tile-n=%d" % (entry.get("tile_n") or 128)
    if entry.get("register_store"):
        options += " sm90-tma-store=0"
    if entry.get("multicast"):
        options += " sm90-multicast=1"
    if entry.get("alternate"):
        options += " sm90-alternate-consumers=1"
    if entry.get("producer_scales"):
        options += " sm90-producer-column-scales=1"
    command = [fp8_opt, source, "--fp8-gpu-pipeline=" + options, "-o", os.devnull]
    try:
        p = subprocess.run(command, capture_output=True, text=True, timeout=300)
        ok = p.returncode == 0 and os.path.exists(os.path.join(d, "gemm.json"))
        diagnostic = (p.stderr or p.stdout).strip()
    except subprocess.TimeoutExpired:
        ok, diagnostic = False, "fp8-opt timed out after 300 s"
    result = dict(status="ok" if ok else "failed")
    if not ok:
        result["error"] = diagnostic or "fp8-opt exited with %d" % p.returncode
        return result
    with open(os.path.join(d, "gemm.json")) as f:
        manifest = json.load(f)
    result["kernels"] = [l["kernel"] for l in manifest["launches"] if l["kind"] == "kernel"]
    result["cubin"] = "cubin" in manifest.get("modules", {})
    log = os.path.join(d, "fp8_kernels.ptxas.log")
    if os.path.exists(log):
        with open(log) as f:
            text = f.read()
        regs = re.findall(r"Used (\d+) registers", text)
        spills = re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
        result["registers"] = [int(r) for r in regs]
        result["spill_bytes"] = sum(int(a) + int(b) for a, b in spills)
    return result


def parse_shapes(text):
    """"MxNxK,MxNxK" -> [(M, N, K), ...]."""
    shapes = []
    for item in text.split(","):
        parts = item.strip().lower().split("x")
        if len(parts) != 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
            raise argparse.ArgumentTypeError("'%s' is not MxNxK" % item)
        shapes.append(tuple(int(p) for p in parts))
    return shapes


def git(*args):
    try:
        return subprocess.run(["git", "-C", ROOT] + list(args), capture_output=True,
                              text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def directory_size(path):
    total = 0
    for dirpath, _, files in os.walk(path):
        for name in files:
            total += os.path.getsize(os.path.join(dirpath, name))
    return total


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--fp8-opt", default=os.environ.get(
        "FP8_OPT", os.path.join(ROOT, "build", "bin", "fp8-opt")))
    parser.add_argument("--out", default=os.path.join(ROOT, "build-gpu"))
    parser.add_argument("--chip", default="sm_90a")
    parser.add_argument("--num-sms", type=int, default=132,
                        help="SMs of the target (H100 SXM and H200: 132)")
    parser.add_argument("--only", help="compile variants whose id matches this regex")
    parser.add_argument("--check-shapes", type=parse_shapes,
                        help="correctness shapes instead of the default, e.g. 64x64x128,200x136x320")
    parser.add_argument("--bench-shapes", type=parse_shapes,
                        help="benchmark shapes instead of the default (MxNxK,...)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--strict", action="store_true",
                        help="exit with 1 when any variant fails to compile")
    args = parser.parse_args()

    if not os.access(args.fp8_opt, os.X_OK):
        sys.exit("compile.py: fp8-opt not found at %s; build it (ninja -C build fp8-opt) "
                 "or pass --fp8-opt / FP8_OPT" % args.fp8_opt)

    entries = []
    for v, shapes, purpose in variants(args.check_shapes, args.bench_shapes):
        for (m, n, k) in shapes:
            shape = "%dx%dx%d" % (m, n, k)
            entry_id = "%s/%s" % (v["name"], shape)
            if args.only and not re.search(args.only, entry_id):
                continue
            s = SCALINGS[v["scaling"]]
            entry = dict(
                id=entry_id, variant=v["name"], scaling=v["scaling"], a=v["a"], b=v["b"],
                out=v["out"], promote=v["promote"], bias=v["bias"], purpose=purpose,
                tile_n=v["tile_n"], register_store=v["register_store"],
                multicast=v["multicast"], alternate=v["alternate"],
                producer_scales=v["producer_scales"],
                M=m, N=n, K=k, dir=os.path.join(v["name"], shape),
                manifest=os.path.join(v["name"], shape, "gemm.json"),
                block_a=s["block_a"], block_b=s["block_b"], scale=s["scale"],
                scale_a_shape=scale_shape([m, k], s["block_a"]),
                scale_b_shape=scale_shape([n, k], s["block_b"]),
                args=["a", "b", "sa", "sb"] + (["bias"] if v["bias"] else []))
            entry["ir"] = generate_ir(v, m, n, k)
            entries.append(entry)

    os.makedirs(args.out, exist_ok=True)
    print("compiling %d GEMMs with %s into %s (%d jobs)" % (
        len(entries), args.fp8_opt, args.out, args.jobs), flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        futures = [pool.submit(compile_one, args.fp8_opt, args.out, e, args.chip,
                               args.num_sms) for e in entries]
        for entry, future in zip(entries, futures):
            entry.update(future.result())
            if entry["status"] == "ok":
                print("  ok      %-40s %s" % (entry["id"], ", ".join(entry["kernels"])),
                      flush=True)
            else:
                print("  FAILED  %s\n%s" % (entry["id"], "\n".join(
                    "          " + line for line in entry["error"].splitlines()[:12])),
                    flush=True)

    status = git("status", "--porcelain", "--untracked-files=no")
    index = dict(
        format="fp8-mlir-gpu-bench", version=1,
        date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        commit=git("rev-parse", "HEAD") or "unknown", dirty=bool(status),
        fp8_opt=os.path.abspath(args.fp8_opt), chip=args.chip, num_sms=args.num_sms,
        command=" ".join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]),
        entries=[{k: v for k, v in e.items() if k != "ir"} for e in entries])
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)

    failed = [e for e in entries if e["status"] != "ok"]
    size = directory_size(args.out)
    print("\nsummary: %d compiled, %d failed; %s holds %.1f MiB%s" % (
        len(entries) - len(failed), len(failed), args.out, size / 2**20,
        " (over the 64 MiB a device run carries!)" if size > 64 * 2**20 else ""))
    failed_variants = sorted({e["variant"] for e in failed})
    for name in failed_variants:
        shapes = [e for e in failed if e["variant"] == name]
        first = shapes[0]["error"].splitlines()
        print("  FAILED %s (%d shapes): %s" % (name, len(shapes),
                                               first[0] if first else "?"))
    if args.strict and failed:
        sys.exit(1)


if __name__ == "__main__":
    main()
