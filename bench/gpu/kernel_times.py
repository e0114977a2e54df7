#!/usr/bin/env python3
"""Where a compiled model's time goes: the device time of each kernel of its
programs, beside the kernels of torch.compile's bf16 model.

On a CUDA machine with torch, from the repository root with a folder that
`bench/gpu/models.py prepare` wrote:

    python3 bench/gpu/kernel_times.py --artifacts build-gpu/models-bf16 \\
        --only '^mlp-8k/mlp_block/tensor-current/' [--repeats 5] [--out DIR]

runs each function of each matching cell (size/example/recipe/chip) on its
inputs (models.py's), twice to warm up and then --repeats times launch by
launch under torch.profiler (CUPTI sees the kernels the runtime launches
through the driver), and does the same for torch.compile of the same model
in bf16 (--no-baseline leaves it out). The report (DIR/kernel_times.md and
DIR/results.json, or stdout) gives per function the device time per call of
each kernel and of each kernel family (fp8_gemm_, fp8_quantize_, ...), and
the sum against the wall time of a call. L2 is not flushed between calls.

--dry-run needs neither a GPU nor torch: it reads each manifest and lists
its launches by family and kernel, the static side of the same table.
"""

import argparse
import collections
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import models  # noqa: E402  (bench/gpu/models.py)


def family(name):
    """A kernel's family: our kernels' name up to the shape or variant
    (fp8_gemm_sm90a, fp8_quantize, fp8_rows, ...), torch's by kind."""
    if name.startswith("("):  # the runtime's fills and copies (dry run)
        return name
    if name.startswith(("fp8_", "gemm_sm")):  # ours (gemm_: high-precision GEMMs)
        parts = name.split("_")
        keep = [parts[0]]
        for part in parts[1:]:
            if re.match(r"^(\d|[bdrv]\d|[0-9a-f]{16}$|e[45]m|bf16|f16|f32)", part):
                break
            keep.append(part)
        return "_".join(keep)
    lowered = name.lower()
    for key, label in (("gemm", "torch gemm"), ("nvjet", "torch gemm"), ("cutlass", "torch gemm"),
                       ("sm90_xmma", "torch gemm"), ("triton", "torch triton"),
                       ("elementwise", "torch elementwise"), ("reduce", "torch reduce")):
        if key in lowered:
            return label
    return "other"


def profile(torch, fn, repeats):
    """{kernel name: (calls, device us)} per call of fn, and the wall us
    of a call (CUDA events)."""
    from torch.profiler import ProfilerActivity, profile as torch_profile

    for _ in range(2):
        fn()
    torch.cuda.synchronize()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch_profile(activities=[ProfilerActivity.CUDA]) as prof:
        start.record()
        for _ in range(repeats):
            fn()
        stop.record()
        torch.cuda.synchronize()
    kernels = collections.defaultdict(lambda: [0, 0.0])
    for event in prof.events():
        device_type = str(getattr(event, "device_type", ""))
        if "CUDA" not in device_type:
            continue
        us = event.time_range.elapsed_us()
        if not us:
            continue
        name = event.name
        if name.startswith(("Memcpy", "Memset")):  # the runtime's fills
            name = "(%s)" % name.split()[0].lower()
        kernels[name][0] += 1
        kernels[name][1] += us
    per_call = {name: (calls / repeats, us / repeats) for name, (calls, us) in kernels.items()}
    return per_call, start.elapsed_time(stop) * 1e3 / repeats


def run_cell(torch, executor, inputs, cell, baselines, args):
    rows = []
    for function in cell["functions"]:
        feeds = inputs.get(cell, function)
        with executor.bound(function, feeds) as (launch, _, _):
            kernels, wall = profile(torch, launch, args.repeats)
        row = dict(cell=cell["id"], function=function["name"], ours=kernels, ours_wall=wall)
        program_key = (cell["size"], cell["example"], function["name"])
        if args.baseline and program_key not in baselines:
            call = executor.compiled_baseline(cell, function, feeds)
            if call is not None:
                baselines[program_key] = profile(torch, call, args.repeats)
                del call
        if program_key in baselines:
            row["torch"], row["torch_wall"] = baselines[program_key]
        rows.append(row)
    return rows


def dry_run(args, cell):
    rows = []
    for function in cell["functions"]:
        with open(os.path.join(args.artifacts, function["manifest"])) as f:
            manifest = json.load(f)
        kernels = collections.Counter(launch.get("kernel") or "(%s)" % launch.get("kind", "?")
                                      for launch in manifest.get("launches", []))
        rows.append(dict(cell=cell["id"], function=function["name"],
                         ours={k: (n, 0.0) for k, n in kernels.items()}, ours_wall=None))
    return rows


def table(kernels, top):
    """Markdown rows: families, then the `top` kernels, by device time
    (by launches when nothing was timed: a dry run)."""
    total = sum(us for _, us in kernels.values())
    timed = total > 0

    def row(name, calls, us):
        if not timed:
            return "| %s | %g |" % (name, calls)
        return "| %s | %g | %.1f | %.0f%% |" % (name, calls, us, 100 * us / total)
    head = ["| %s | launches | us | share |", "|---|---|---|---|"] if timed else \
        ["| %s | launches |", "|---|---|"]
    families = collections.defaultdict(lambda: [0.0, 0.0])
    for name, (calls, us) in kernels.items():
        families[family(name)][0] += calls
        families[family(name)][1] += us
    lines = [head[0] % "family", head[1]]
    for name, (calls, us) in sorted(families.items(), key=lambda kv: (-kv[1][1], -kv[1][0],
                                                                      kv[0])):
        lines.append(row(name, calls, us))
    lines += ["", head[0] % "kernel", head[1]]
    ranked = sorted(kernels.items(), key=lambda kv: (-kv[1][1], -kv[1][0], kv[0]))
    for name, (calls, us) in ranked[:top]:
        lines.append(row("`%s`" % name[:110], calls, us))
    if len(ranked) > top:
        rest = ranked[top:]
        lines.append(row("%d more" % len(rest), sum(c for _, (c, _) in rest),
                         sum(u for _, (_, u) in rest)))
    return lines


def report(args, env, rows):
    lines = ["# fp8-mlir models: device time per kernel", "",
             "* Device: %s" % env, "* Artifacts: %s (prepared at commit %s)" % (
                 args.artifacts, args.commit),
             "* Command: `%s`" % " ".join(["bench/gpu/kernel_times.py"] + sys.argv[1:]),
             "* Per call of each function: the mean of %d calls launch by launch after 2, "
             "under torch.profiler (CUPTI); L2 not flushed" % args.repeats
             if not args.dry_run else "* Per function: the launches of its manifest", ""]
    for row in rows:
        ours = row["ours"]
        lines.append("## %s: %s" % (row["cell"], row["function"]))
        lines.append("")
        if row["ours_wall"] is not None:
            text = "ours: %.1f us of kernels in %.1f us per call" % (
                sum(us for _, us in ours.values()), row["ours_wall"])
            if "torch" in row:
                text += "; torch.compile bf16: %.1f us of kernels in %.1f us" % (
                    sum(us for _, us in row["torch"].values()), row["torch_wall"])
            lines += [text, ""]
        lines += table(ours, args.top)
        if "torch" in row:
            lines += ["", "torch.compile bf16:", ""] + table(row["torch"], args.top)
        lines.append("")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--artifacts", default=os.path.join(models.ROOT, "build-gpu", "models"))
    parser.add_argument("--lib", default=os.path.join(models.ROOT, "build-gpu-rt", "lib",
                                                      "libfp8rt.so"))
    parser.add_argument("--runtime-build", default=os.path.join(models.ROOT, "build-gpu-rt"))
    parser.add_argument("--only", required=True, help="regex over cell ids")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--no-baseline", dest="baseline", action="store_false")
    parser.add_argument("--out", default=os.environ.get("OUT") or None)
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()
    with open(os.path.join(args.artifacts, "index.json")) as f:
        index = json.load(f)
    args.commit = index.get("commit", "unknown")
    cells = [c for c in index["cells"] if c["status"] == "ok" and re.search(args.only, c["id"])]
    if not cells:
        print("kernel_times.py: no compiled cell matches %r" % args.only, file=sys.stderr)
        return 1
    rows = []
    if args.dry_run:
        env = "none (dry run: the manifests' launches)"
        for cell in cells:
            rows += dry_run(args, cell)
    else:
        import torch

        args.lib = models.ensure_runtime(args.lib, args.runtime_build)
        executor = models.GpuExecutor(args)
        p = torch.cuda.get_device_properties(0)
        env = "%s (%d SMs), torch %s" % (p.name, p.multi_processor_count, torch.__version__)
        inputs, baselines = models.Inputs(args, index), {}
        for cell in cells:
            print("[profile] %s" % cell["id"], flush=True)
            rows += run_cell(torch, executor, inputs, cell, baselines, args)
    text = report(args, env, rows)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "kernel_times.md"), "w") as f:
            f.write(text)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(rows, f, indent=1)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
