#!/usr/bin/env python3
"""Estimates what launch manifests move through device memory, without a GPU.

For each manifest (a function's JSON, as `fp8-gpu-pipeline artifacts=DIR`
writes it): the kernel launches, and the bytes of the buffers each kernel
names (buffers and tensor maps), counted once per launch and summed, by kernel
family (the word after `fp8_`: gemm, quantize, amax, elementwise, reduce,
layout, ...). A buffer read twice by one kernel counts once, a GEMM's
operands count once although the tiles read them again from L2, and fills
and copies are left out: the figure compares programs and fusions, it is not
a measurement (docs/perf.md).

    python3 bench/gpu/traffic.py DIR/*.json
"""

import argparse
import json
import os
import sys


def family(kernel):
    """The kernel's family: `fp8_gemm_...` -> gemm, `gemm_sm90a_...` -> gemm."""
    parts = kernel.split("_")
    return parts[1] if parts[0] == "fp8" and len(parts) > 1 else parts[0]


def estimate(manifest):
    """(kernel launches, bytes, {family: bytes}) of one manifest."""
    size = {b["id"]: b["bytes"] for b in manifest["buffers"]}
    launches, total, families = 0, 0, {}
    for launch in manifest["launches"]:
        if launch["kind"] != "kernel":
            continue
        launches += 1
        named = {p["buffer"] for p in launch["params"] if "buffer" in p}
        moved = sum(size[b] for b in named)
        total += moved
        name = family(launch["kernel"])
        families[name] = families.get(name, 0) + moved
    return launches, total, families


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("manifests", nargs="+", help="manifest JSON files")
    args = parser.parse_args()
    for path in args.manifests:
        try:
            with open(path) as f:
                manifest = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"traffic.py: cannot read {path}: {e}")
        if not isinstance(manifest, dict) or "launches" not in manifest or \
                "buffers" not in manifest:
            sys.exit(f"traffic.py: {path} is not a launch manifest")
        launches, total, families = estimate(manifest)
        parts = ", ".join(f"{name} {moved / 1e6:.4g}" for name, moved in
                          sorted(families.items(), key=lambda item: -item[1]))
        print(f"{os.path.basename(path)}: {launches} kernel launches, "
              f"{total / 1e6:.4g} MB ({parts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
