#!/usr/bin/env python3
"""The GPU pipeline's graph stages change no bit of the examples' results.

fp8-gpu-pipeline first rewrites the graph for the chip
(fp8-gpu-graph-pipeline: aggregate decomposition, fusion, scale
propagation, constant quantization, layout legality, scale layouts), then
builds kernels from it. The staged graph is still a graph on tensors, so the
CPU pipeline runs it. For every example, recipe and chip this compiles

  unstaged: fp8-opt EXAMPLE --fp8-autocast=recipe=R --fp8-cpu-pipeline
  staged:   fp8-opt EXAMPLE --fp8-autocast=recipe=R
                    --fp8-gpu-graph-pipeline=chip=C --fp8-cpu-pipeline

With --prepare-weights the staged graph is split by fp8-prepare-weights
(`chip=C prepare-weights=1`): each prepare function (the examples'
forward and backward functions share one, their fp8.prepare_group; one per
function with --ungrouped) runs once on the fp8.weight arguments, and each
function runs on its own inputs followed by the prepared values it takes.

runs both on the same inputs (in-process, through the ExecutionEngine;
every public function with static shapes, twice when it keeps state:
delayed scaling's, NVFP4's call counter) and
compares every output bit for bit. A cell is `identical`, `DIFFERENT` (a
failure), or `rejected` when the graph stages reject the recipe on that chip
(their diagnostic is printed; fp8-gpu-pipeline rejects it too, so there is
no staged graph to compare).

  python3 bench/examples/staged.py [--build build] [--models m,...]
      [--recipes r,...] [--chips c,...] [--prepare-weights [--ungrouped]] [--check]

The whole matrix (4 examples x 8 recipes x 2 chips) takes about 10 minutes
on 2 cores; test/Execution/GPUGraphStages runs a part of it in the lit suite.
--check exits 1 when a cell differs or fails to run.
"""

import argparse
import os
import re
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import programs  # noqa: E402


def graph_stages(chip, prepare_weights=False):
    options = f"chip={chip}" + (" prepare-weights=1" if prepare_weights else "")
    return f"fp8-gpu-graph-pipeline{{{options}}}"


def compare(example, recipe, chips, out, prepare_weights=False, ungrouped=False):
    """Prints and returns the status of each chip's cell for one example
    and recipe; with `ungrouped` the functions lose their fp8.prepare_group,
    so that each gets a prepare function of its own."""
    from fp8_mlir import compiler

    text = programs.source(example)
    if ungrouped:
        text = re.sub(r' attributes \{fp8\.prepare_group = "[^"]*"\}', "", text)
    module = compiler.parse(text, programs.EXAMPLES[example]).run(programs.autocast(recipe))
    signatures = programs.entry_points(module)
    names = [s.name for s in signatures]
    feeds = {s.name: programs.inputs(example, "small", s.name, s.inputs) for s in signatures}
    nsteps = programs.steps(str(module))
    reference = None
    weights = ({n: programs.weight_indices(str(module), n) for n in names}
               if prepare_weights else None)
    staged_text = {}
    statuses = {}
    for chip in chips:
        start = time.time()
        try:
            staged = module.clone().run(graph_stages(chip, prepare_weights))
        except compiler.CompilerError as e:
            status = "rejected: " + str(e.errors[0] if e.errors else e).splitlines()[0]
            statuses[chip] = status
            out(example, recipe, chip, status, start)
            continue
        printed = str(staged)
        same_as = [c for c, t in staged_text.items() if t == printed]
        staged_text[chip] = printed
        if same_as:
            statuses[chip] = statuses[same_as[0]]
            out(example, recipe, chip, statuses[chip] + f" (staged graph as for {same_as[0]})",
                start)
            continue
        try:
            if reference is None:
                reference = programs.cpu_run(module, names, feeds, nsteps)
            if prepare_weights:
                got = programs.cpu_run_prepared(staged, names, feeds, nsteps, weights)
            else:
                got = programs.cpu_run(staged, names, feeds, nsteps)
        except Exception as e:  # a JIT or run failure is this cell's result
            statuses[chip] = "ERROR: " + (str(e).splitlines() or [type(e).__name__])[0]
            out(example, recipe, chip, statuses[chip], start)
            continue
        differences = []
        count = 0
        for name in names:
            for step, (want, have) in enumerate(zip(reference[name], got[name])):
                for i, (a, b) in enumerate(zip(want, have)):
                    count += 1
                    bad = programs.differing(a, b)
                    if bad:
                        differences.append(f"@{name} call {step + 1} result {i}: {bad}")
        if differences:
            statuses[chip] = "DIFFERENT: " + "; ".join(differences[:4])
        else:
            statuses[chip] = f"identical ({count} outputs)"
            if prepare_weights:
                taking = [s for s in staged.signatures() if s.prepare]
                prepares = len({s.prepare for s in taking})
                statuses[chip] = (f"identical ({count} outputs, {len(taking)} functions "
                                  f"taking the results of {prepares} prepare "
                                  f"function{'s' if prepares != 1 else ''})")
        out(example, recipe, chip, statuses[chip], start)
    return statuses


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(programs.ROOT, "build"),
                        help="the build whose lib/libFP8MLIR-C.so runs the pipelines")
    parser.add_argument("--models", default=",".join(programs.EXAMPLES))
    parser.add_argument("--recipes", default=",".join(programs.RECIPES))
    parser.add_argument("--chips", default=",".join(programs.CHIPS))
    parser.add_argument("--prepare-weights", action="store_true",
                        help="stage with prepare-weights=1: the functions' weight-only "
                        "ops run in prepare functions (one per prepare group), whose "
                        "results the functions then take (computed once, passed to "
                        "every call)")
    parser.add_argument("--ungrouped", action="store_true",
                        help="with --prepare-weights, drop the examples' fp8.prepare_group: "
                        "each function gets a prepare function of its own")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("FP8_MLIR_LIBRARY",
                          os.path.join(args.build, "lib", "libFP8MLIR-C.so"))

    def out(example, recipe, chip, status, start):
        print(f"{example:<16} {recipe:<15} {chip:<8} {status} [{time.time() - start:.0f} s]",
              flush=True)

    counts = {"identical": 0, "rejected": 0, "DIFFERENT": 0, "ERROR": 0}
    for example in args.models.split(","):
        for recipe in args.recipes.split(","):
            for status in compare(example, recipe, args.chips.split(","), out,
                                  args.prepare_weights, args.ungrouped).values():
                counts[status.split()[0].rstrip(":")] += 1
    print("staged graphs: " + ", ".join(f"{n} {k}" for k, n in counts.items()))
    if args.check:
        failed = counts["DIFFERENT"] + counts["ERROR"]
        print("every staged graph is bit-identical" if not failed else f"{failed} cells failed")
        return 1 if failed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
