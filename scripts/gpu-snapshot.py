#!/usr/bin/env python3
"""Snapshots what fp8-gpu-pipeline produces, and compares two snapshots.

A refactoring of the GPU lowering must not change its output. This script
compiles a fixed corpus with a given fp8-opt and records, per case, the exit
status, the diagnostics, the PTX and the launch manifests; `compare` then
says whether two snapshots agree:

  * PTX byte for byte;
  * diagnostics and exit status exactly;
  * manifests up to buffer numbering: buffers are renamed in the order the
    manifest first mentions them (inputs, outputs, then launches in order),
    and constant files by their buffer's new name.

The corpus: every GEMM variant of bench/gpu/compile.py on its check shapes
and two benchmark shapes; the bf16 programs of the lit suite, the example
models and the graphs of the graph-pass tests, under every recipe; and every
fp8-gpu-pipeline input of test/Conversion/FP8ToGPU and test/runtime. Each case is
compiled for both chips; a case that fails must keep failing with the same
diagnostic.

  scripts/gpu-snapshot.py write DIR [--fp8-opt build/bin/fp8-opt] [--jobs 2]
  scripts/gpu-snapshot.py compare DIR_BEFORE DIR_AFTER
"""

import argparse
import concurrent.futures
import glob
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench", "gpu"))
import compile as gemm_corpus  # noqa: E402  (bench/gpu/compile.py)

CHIPS = ("sm_90a", "sm_100a")
RECIPES = ("tensor-current", "tensor-delayed", "rowwise", "deepseek", "mxfp8",
           "nvfp4", "graphcore", "unit")


def corpus():
    """(case id, MLIR text or file path, extra fp8-opt flags) triples."""
    cases = []
    shapes = gemm_corpus.CHECK_SHAPES
    bench = [(1024, 1024, 1024), (4096, 24576, 1536)]
    for v, _, purpose in gemm_corpus.variants():
        for (m, n, k) in (shapes if purpose == "check" else bench):
            cases.append(("gemm/%s/%dx%dx%d" % (v["name"], m, n, k),
                          gemm_corpus.generate_ir(v, m, n, k), []))
    programs = [os.path.join(ROOT, "test", "Pipelines", "Inputs", "bf16-programs.mlir")]
    programs += sorted(glob.glob(os.path.join(ROOT, "examples", "*", "*.mlir")))
    for path in programs:
        rel = os.path.relpath(path, ROOT)
        for recipe in RECIPES:
            cases.append(("%s/%s" % (rel, recipe), path,
                          ["--fp8-autocast=recipe=%s" % recipe]))
    # Graphs of the graph-pass tests, as they are and under every recipe.
    for name in ("autocast.mlir", "autocast-backward.mlir", "autocast-constant-weights.mlir",
                 "fuse-dynamic-quantize.mlir", "propagate-scales.mlir",
                 "quantize-constants.mlir"):
        path = os.path.join(ROOT, "test", "Dialect", "FP8", "Transforms", name)
        rel = os.path.relpath(path, ROOT)
        cases.append((rel, path, []))
        for recipe in RECIPES:
            cases.append(("%s/%s" % (rel, recipe), path, ["--fp8-autocast=recipe=%s" % recipe]))
    inputs = sorted(glob.glob(os.path.join(ROOT, "test", "Conversion", "FP8ToGPU", "*.mlir")))
    inputs += sorted(glob.glob(os.path.join(ROOT, "test", "runtime", "*.mlir")))
    inputs.append(os.path.join(ROOT, "test", "runtime", "Inputs", "gemm.mlir"))
    for path in inputs:
        with open(path) as f:
            text = f.read()
        if "--fp8-gpu-pipeline" in text and "-split-input-file" not in text:
            cases.append((os.path.relpath(path, ROOT), path, []))
    return cases


def compile_case(fp8_opt, out, case, chip):
    case_id, source, flags = case
    key = "%s@%s" % (case_id, chip)
    d = os.path.join(out, "cases", hashlib.sha1(key.encode()).hexdigest()[:16])
    if os.path.isdir(d):
        shutil.rmtree(d)
    os.makedirs(d)
    artifacts = os.path.join(d, "artifacts")
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        if os.path.exists(source):
            path = source
        else:
            f.write(source)
            path = f.name
    try:
        command = [fp8_opt, path] + flags + [
            "--fp8-gpu-pipeline=chip=%s artifacts=%s ptxas=none" % (chip, artifacts),
            "-o", os.devnull]
        p = subprocess.run(command, capture_output=True, text=True, timeout=600)
    finally:
        os.unlink(f.name)
    stderr = p.stderr.replace(path, "<input>")
    return dict(id=key, dir=os.path.relpath(d, out), status=p.returncode,
                stderr=stderr)


def write(args):
    out = os.path.abspath(args.dir)
    os.makedirs(out, exist_ok=True)
    jobs = [(case, chip) for case in corpus() for chip in CHIPS]
    print("compiling %d cases into %s" % (len(jobs), out), flush=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        results = list(pool.map(lambda j: compile_case(args.fp8_opt, out, *j), jobs))
    with open(os.path.join(out, "index.json"), "w") as f:
        json.dump(results, f, indent=1)
    ok = sum(1 for r in results if r["status"] == 0)
    print("%d compiled, %d rejected" % (ok, len(results) - ok))


def canonical_manifest(manifest):
    """The manifest with buffers renumbered by first mention."""
    order = {}

    def name(buffer_id):
        if buffer_id not in order:
            order[buffer_id] = len(order)
        return order[buffer_id]

    buffers = {b["id"]: b for b in manifest["buffers"]}
    for kind in ("input", "output"):
        for b in sorted((b for b in manifest["buffers"] if b["kind"] == kind),
                        key=lambda b: b["index"]):
            name(b["id"])
    launches = []
    for launch in manifest["launches"]:
        launch = json.loads(json.dumps(launch))
        for key in ("buffer", "from", "to"):
            if key in launch:
                launch[key] = name(launch[key])
        for param in launch.get("params", []):
            if "buffer" in param:
                param["buffer"] = name(param["buffer"])
        launches.append(launch)
    for b in manifest["buffers"]:
        name(b["id"])
    renamed = []
    for old, new in sorted(order.items(), key=lambda item: item[1]):
        b = dict(buffers[old])
        b["id"] = new
        if "file" in b:
            b["file"] = "<const %d>" % new
        renamed.append(b)
    result = dict(manifest)
    result["buffers"] = renamed
    result["launches"] = launches
    return result, order


def read_case(root, entry):
    d = os.path.join(root, entry["dir"], "artifacts")
    files = {}
    if os.path.isdir(d):
        for name in sorted(os.listdir(d)):
            with open(os.path.join(d, name), "rb") as f:
                files[name] = f.read()
    return files


def compare_case(before_root, after_root, before, after):
    problems = []
    if before["status"] != after["status"]:
        problems.append("exit status %d -> %d" % (before["status"], after["status"]))
    if before["stderr"] != after["stderr"]:
        problems.append("diagnostics differ:\n--- before\n%s--- after\n%s" % (
            before["stderr"], after["stderr"]))
    fa, fb = read_case(before_root, before), read_case(after_root, after)
    manifests_a = {n for n in fa if n.endswith(".json")}
    manifests_b = {n for n in fb if n.endswith(".json")}
    if manifests_a != manifests_b:
        problems.append("manifests %s -> %s" % (sorted(manifests_a), sorted(manifests_b)))
    for name in sorted(set(fa) | set(fb)):
        if name.endswith(".ptx") and fa.get(name) != fb.get(name):
            problems.append("%s differs" % name)
    for name in sorted(manifests_a & manifests_b):
        ma, order_a = canonical_manifest(json.loads(fa[name]))
        mb, order_b = canonical_manifest(json.loads(fb[name]))
        if ma != mb:
            problems.append("%s differs beyond buffer numbering:\n%s" % (
                name, first_difference(ma, mb)))
            continue
        # Constant bytes, matched through the renumbering.
        function = name[:-len(".json")]
        inverse_b = {new: old for old, new in order_b.items()}
        for old_a, new in order_a.items():
            ca = fa.get("%s.const%d.bin" % (function, old_a))
            cb = fb.get("%s.const%d.bin" % (function, inverse_b[new]))
            if ca != cb:
                problems.append("%s: the bytes of constant buffer %d differ" % (name, new))
    return problems


def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return "%s: %r -> %r" % (path, a, b)
    if isinstance(a, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), "%s.%s" % (path, key))
    if isinstance(a, list):
        if len(a) != len(b):
            return "%s: %d -> %d entries" % (path, len(a), len(b))
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, "%s[%d]" % (path, i))
    return "%s: %r -> %r" % (path, a, b)


def compare(args):
    with open(os.path.join(args.before, "index.json")) as f:
        before = {e["id"]: e for e in json.load(f)}
    with open(os.path.join(args.after, "index.json")) as f:
        after = {e["id"]: e for e in json.load(f)}
    failures = 0
    for key in sorted(set(before) | set(after)):
        if key not in before or key not in after:
            print("DIFF %s: only in %s" % (key, "after" if key in after else "before"))
            failures += 1
            continue
        problems = compare_case(args.before, args.after, before[key], after[key])
        if problems:
            failures += 1
            print("DIFF %s\n  %s" % (key, "\n  ".join(problems)))
    compiled = sum(1 for e in before.values() if e["status"] == 0)
    print("%d cases (%d compiled, %d rejected): %d identical, %d differ" % (
        len(before), compiled, len(before) - compiled, len(before) - failures, failures))
    return 1 if failures else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="compile the corpus into DIR")
    w.add_argument("dir")
    w.add_argument("--fp8-opt", default=os.path.join(ROOT, "build", "bin", "fp8-opt"))
    w.add_argument("--jobs", type=int, default=2)
    c = sub.add_parser("compare", help="compare two snapshots")
    c.add_argument("before")
    c.add_argument("after")
    args = parser.parse_args()
    if args.command == "write":
        write(args)
        return 0
    return compare(args)


if __name__ == "__main__":
    sys.exit(main())
