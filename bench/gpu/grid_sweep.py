#!/usr/bin/env python3
"""Times one program's persistent launches with other grids (fp8-run).

A persistent kernel loops over its tiles with the stride of its grid, so it
runs with any grid of whole clusters. This script copies the manifest once
per grid, with the grid of every persistent launch replaced, next to the
original (so that the files it names resolve), runs each copy with
`fp8-run --random-inputs 1 --repeat N`, and prints the median times and the
grid each launch ran with (the runtime reduces a clustered grid to the
clusters the device holds at once, and fp8-run says so). It answers whether
a clustered GEMM is slow because its clusters do not all fit at once:

  python3 bench/gpu/grid_sweep.py --fp8-run build-gpu-rt/bin/fp8-run \\
      build-gpu/tensor_e4m3_e4m3_bf16_p4_mc/8192x8192x8192/gemm.json \\
      --grids 132,128,120,112,66

--dry-run prints the commands instead of running them.
"""

import argparse
import json
import os
import re
import subprocess
import sys


def with_grid(manifest, grid):
    """A copy of `manifest` whose persistent launches run `grid` CTAs, or
    None with the reason when a launch's clusters do not divide it."""
    copy = json.loads(json.dumps(manifest))
    changed = 0
    for launch in copy.get("launches", []):
        if launch.get("kind") != "kernel" or not launch.get("persistent"):
            continue
        cluster = launch.get("cluster", [1, 1, 1])[0]
        if grid % cluster:
            return None, "%d is not whole clusters of %d" % (grid, cluster)
        launch["grid"] = [grid, 1, 1]
        changed += 1
    if not changed:
        return None, "no persistent launch"
    return copy, None


def parse_run(text):
    """(median ms or None, [launched grid lines])."""
    median = re.search(r"^time: .* median ([0-9.]+) ms", text, re.M)
    grids = re.findall(r"^launch \d+ .*$", text, re.M)
    return (float(median.group(1)) if median else None), grids


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("manifest")
    parser.add_argument("--fp8-run", default="build-gpu-rt/bin/fp8-run")
    parser.add_argument("--grids", required=True,
                        help="comma-separated CTA counts, e.g. 132,120,66")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=60)
    parser.add_argument("--dry-run", action="store_true")
    args = parser.parse_args()

    with open(args.manifest) as f:
        manifest = json.load(f)
    directory = os.path.dirname(os.path.abspath(args.manifest))
    print("| grid | runs with | median (ms) |")
    print("|---|---|---|")
    status = 0
    for grid in [int(g) for g in args.grids.split(",") if g]:
        copy, reason = with_grid(manifest, grid)
        if copy is None:
            print("| %d | skipped: %s | - |" % (grid, reason))
            continue
        path = os.path.join(directory, ".grid-%d.json" % grid)
        command = [args.fp8_run, path, "--random-inputs", "1",
                   "--repeat", str(args.repeat)]
        if args.dry_run:
            print("| %d | %s | dry run |" % (grid, " ".join(command)))
            continue
        with open(path, "w") as f:
            json.dump(copy, f)
        try:
            p = subprocess.run(command, capture_output=True, text=True,
                               timeout=args.timeout)
            median, grids = parse_run(p.stdout)
            if p.returncode or median is None:
                status = 1
                last = (p.stderr or p.stdout).strip().splitlines()[-1:]
                print("| %d | failed: %s | - |" % (grid, " ".join(last)))
            else:
                ran = "; ".join(grids) if grids else "as given"
                print("| %d | %s | %.4f |" % (grid, ran, median))
        except subprocess.TimeoutExpired:
            status = 1
            print("| %d | timed out after %g s | - |" % (grid, args.timeout))
        finally:
            os.remove(path)
        sys.stdout.flush()
    return status


if __name__ == "__main__":
    sys.exit(main())
