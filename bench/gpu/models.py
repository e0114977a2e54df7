#!/usr/bin/env python3
"""Checks the example models, forward and backward, on a GPU against the CPU
pipeline (bench/gpu/README.md).

Two steps, like the GEMM scripts:

  * `prepare`, on a development machine (fp8-opt and libFP8MLIR-C.so
    built): for every example of examples/ at every size of
    examples/generate.py (small, gpt2-small, 4096, mlp-8k), every recipe and every
    chip, compiles `fp8-opt EXAMPLE --fp8-autocast=recipe=R
    --fp8-gpu-pipeline="chip=C artifacts=DIR"`; where a chip compiled, runs
    the same autocast graph through fp8-cpu-pipeline on the CPU (in-process)
    on the examples' seeded inputs and stores its outputs; writes everything
    into one folder (default build-gpu/models):

      python3 bench/gpu/models.py prepare [--sizes small,gpt2-small]
          [--reference-sizes small,gpt2-small] [--models m,...]
          [--recipes r,...] [--chips c,...] [--jobs N] [--stand-ins]
          [--storage f32|bf16] [--pipeline-options "..."]
          [--autocast-options "..."]

    --storage bf16 compiles the models with every tensor in bf16
    (examples/generate.py --storage bf16), as a mixed-precision framework
    holds them: the programs then move what torch.compile's bf16 baseline
    moves, which is the comparison the speed targets make. The default, f32,
    is the committed examples. --autocast-options adds fp8-autocast options
    (e.g. "fp8-attention=true": attention's batched GEMMs in FP8 too) to
    both the compiled program and the CPU reference.

  * `run`, on any CUDA machine with python3, numpy and torch (no LLVM), from
    the repository root with that folder copied along: builds the runtime if
    needed (cmake), runs every compiled function through libfp8rt.so on the
    same inputs (twice for delayed scaling, whose state carries over), and
    compares every output with the CPU's; writes DIR/models.md and
    DIR/results.json (or prints the report) and exits 1 on any failure:

      python3 bench/gpu/models.py run [--out DIR] [--only REGEX] [--graph]
          [--time N]

    --graph replays every function as one CUDA graph (fp8rt's
    FP8RT_RUN_GRAPH) instead of launch by launch with a synchronization
    after each, so that the comparison checks graph replays. --time N also
    times every function, after its check: the median of N runs (CUDA
    events, L2 flushed before each), launch by launch and, with --graph, as
    graph replays, which shows what launch overhead costs small layers;
    and, as the baseline of the speed targets (docs/perf.md), the same
    model in bf16 with PyTorch ops under torch.compile (fp8_mlir.graph's
    evaluate_torch), on the same inputs. The three are timed in turn, in
    four rounds of a quarter of the runs each, so that a GPU warming up
    over the run (clocks are not locked) weighs on all three alike.

  * `run --dry-run` needs no GPU and no torch: it checks every manifest's
    signature, rebuilds the inputs, and, where `prepare --stand-ins` stored
    them, compares stand-in results (the CPU pipeline on inputs moved by one
    ulp, the size of difference a GPU's other summation order makes) with
    the same code and tolerances as a GPU run.

Inputs: the small sizes' are stored; larger ones are rebuilt from their seeds
(fp8_mlir.models.feeds) and checked against the SHA-256 recorded at prepare.
Expected outputs: stored whole at the small size (--whole-sizes) and when they
have at most --sample elements (default 16384), else at --sample positions
spread over the tensor (i * 2654435761 mod size), with the whole output's
RMS, so that the folder stays a few tens of MiB.

The CPU pipeline runs at 0.1 to 0.2 GFLOP/s (scalar loops, software FP8), so
references take minutes per recipe and example at gpt2-small and days at 4096; sizes left out of
--reference-sizes are compared with the float64 evaluation of the graph
(fp8_mlir.graph) within the recipes' error bounds (bench/examples/error.py)
instead.
"""

import argparse
import concurrent.futures
import contextlib
import datetime
import hashlib
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
sys.path.insert(0, os.path.join(ROOT, "bench", "examples"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

import fp8rt  # noqa: E402
import programs  # noqa: E402  (bench/examples/programs.py)
import workers  # noqa: E402  (bench/gpu/workers.py)
from bitexact import device_environment  # noqa: E402
from check_and_bench import time_gpu, time_interleaved  # noqa: E402
from compile import git  # noqa: E402  (bench/gpu/compile.py)
from reductions import ensure_runtime  # noqa: E402

from fp8_mlir import models, numerics  # noqa: E402

NUM_SMS = {"sm_90a": 132, "sm_100a": 148}
FLOAT_DTYPES = ("f32", "bf16", "f16")
SAMPLE_STRIDE = 2654435761  # a prime: i * stride mod n visits n distinct positions

# ---------------------------------------------------------------------------
# Tolerances
# ---------------------------------------------------------------------------

# (relative Frobenius limit, elementwise factor) per recipe: the GEMM
# operands' coarsest format decides how far one code rounded the other way
# moves a value (one step: up to 2^-3 of it for E4M3, 2^-2 for E5M2, 2^-1 for
# E2M1).
LIMITS = {"nvfp4": (2.0 ** -5, 2.0 ** -2)}
DEFAULT_LIMITS = (2.0 ** -8, 2.0 ** -4)
# Drift: how much larger than the CPU's our error against float64 may be,
# relatively (TOLERANCE_TEXT). Measured on an H100 (docs/perf.md,
# 2026-11-26): 0.48 to 1.06 times the CPU's over 407 outputs.
DRIFT_SLACK = 2.0 ** -3

TOLERANCE_TEXT = """\
Each output of our kernels is compared with the CPU pipeline's output of the
same graph (the same autocast, fp8-cpu-pipeline) on the same inputs. FP8,
E8M0 and E2M1 codes and scales, and integers, must be bit-exact. f32, bf16
and f16 results cannot be: the GPU sums GEMMs and reductions in another
order and has its own exp, tanh and erf, and a value that moves by an ulp
may round to the neighbouring FP8 code where the next GEMM quantizes it. An
element passes when

    |ours - cpu| <= e * (|cpu| + rms(cpu))

and an output when every element passes, NaN and infinity where the CPU has
them and nowhere else, and ||ours - cpu|| / ||cpu|| <= f, with (f, e) =
(2^-8, 2^-4) for recipes with 8-bit operands and (2^-5, 2^-2) for nvfp4
(E2M1 has one mantissa bit, E4M3 three). A few codes rounding the other way
stay far inside these; a wrong tile, a wrong scale or an unwritten region
fails them. Outputs stored as samples are compared at the samples, with the
whole output's RMS. The error of each whole output against the float64 graph
is reported beside the CPU pipeline's, and may exceed it only by what the
Frobenius limit allows (err(cpu) + f (1 + err(cpu))), which checks outputs
stored as samples everywhere; for sizes without a CPU reference it must stay
within the recipe's bounds of bench/examples/error.py.

Drift. Backward programs quantize gradients computed from other gradients
(E5M2, two mantissa bits) by scales computed from their amaxes: an ulp of
difference upstream (another summation order, another exp or erf, a bf16
rounding the other way) can move a scale and so redraw the rounding of a
whole tensor's codes, and the output then differs from the CPU's by about
as much as both differ from the exact result, beyond the tolerances above.
On an H100 every backward program failed them so, also with f32 storage and
with the row groups and prologues turned off, while each output's error
against float64 stayed 0.48 to 1.06 times the CPU's (docs/perf.md,
2026-11-26). Such an output, floating-point, with NaN and infinity where
the CPU has them and whole (its float64 error known), is reported as drift
instead of a failure when its error against float64 is at most the CPU's
times 1 + 2^-3, plus f: as close to the exact result as the CPU's, up to the
fluctuation of redrawn rounding noise. A wrong tile, scale or region moves
the error far beyond that. An output that is zero in exact arithmetic (the
key bias gradient: softmax ignores a shift of its row) is rounding noise
alone and drifts freely; its NaN and infinity must still be the CPU's.
Codes, scales and integers never drift."""


# What `prepare --storage` compiles; bf16 storage rounds every tensor of the
# model, which adds up to about 1e-2 to the error against float64
# (test/python/graph_storage.py: 2e-3 to 1e-2 on the small models without a
# recipe), allowed on top of error.py's bounds where no CPU reference exists.
STORAGE_TEXT = {
    "f32": "f32 (the examples as committed)",
    "bf16": "bf16 (examples/generate.py --storage bf16: every tensor bf16, ops computing "
            "in f32 and rounding once, in the manner of eager PyTorch in bf16)",
}
STORAGE_ALLOWANCE = {"f32": 0.0, "bf16": 0.02}


def limits(recipe):
    return LIMITS.get(recipe, DEFAULT_LIMITS)


def sample_indices(size, count):
    """`count` distinct flat positions spread over a tensor of `size`
    elements (all of them, in order, when count >= size)."""
    if count >= size:
        return np.arange(size)
    stride = SAMPLE_STRIDE
    while np.gcd(stride, size) != 1:
        stride += 2
    return (np.arange(count, dtype=np.uint64) * np.uint64(stride % size)) % np.uint64(size)


def compare(record, cpu, ours, recipe):
    """Compares one output (ours: the whole tensor, or its samples) with the
    CPU's values `cpu` (as stored: whole or sampled); `record` describes the
    output. Returns a dict with ok and the statistics."""
    ours = np.asarray(ours)
    if ours.size == int(np.prod(record["shape"])) and record["sampled"]:
        ours = ours.reshape(-1)[sample_indices(ours.size, record["sampled"])]
    ours = ours.reshape(-1)
    cpu = np.asarray(cpu).reshape(-1)
    if ours.shape != cpu.shape:
        return dict(ok=False, error="%d values against %d expected" % (ours.size, cpu.size))
    shape = record["shape"]
    positions = sample_indices(int(np.prod(shape)), record["sampled"] or cpu.size)

    def where(i):
        return [int(d) for d in np.unravel_index(int(positions[i]), shape)]
    if record["dtype"] not in FLOAT_DTYPES:
        bits = np.dtype("u%d" % cpu.dtype.itemsize)
        bad = np.nonzero(ours.astype(cpu.dtype).view(bits) != cpu.view(bits))[0]
        result = dict(ok=len(bad) == 0, exact=True, violations=int(len(bad)))
        if len(bad):
            result["worst_at"] = [where(bad[0]), int(ours[bad[0]]), int(cpu[bad[0]])]
        return result
    fro_limit, factor = limits(recipe)
    ours = ours.astype(np.float64)
    cpu = cpu.astype(np.float64)
    finite = np.isfinite(cpu) & np.isfinite(ours)
    # NaN and infinity must be where the CPU has them, with the same bits.
    mismatch = (np.isfinite(ours) != np.isfinite(cpu)) | (
        ~np.isfinite(cpu) & (ours.astype(np.float32).view(np.uint32) !=
                             cpu.astype(np.float32).view(np.uint32)))
    special = int(mismatch.sum())
    diff = np.where(finite, np.abs(ours - cpu), 0.0)
    bound = factor * (np.abs(np.where(finite, cpu, 0.0)) + record["rms"])
    ratio = diff / np.maximum(bound, 1e-300)
    norm = float(np.linalg.norm(np.where(finite, cpu, 0.0)))
    fro = float(np.linalg.norm(diff)) / norm if norm else float(np.linalg.norm(diff))
    worst = int(ratio.argmax()) if ratio.size else 0
    violations = int((ratio > 1).sum()) + special
    result = dict(ok=violations == 0 and fro <= fro_limit, exact=False, violations=violations,
                  special=special, fro=fro, fro_limit=fro_limit,
                  worst=float(ratio.max()) if ratio.size else 0.0)
    if special:
        worst = int(np.nonzero(mismatch)[0][0])
    if ratio.size:
        result["worst_at"] = [where(worst), float(ours[worst]), float(cpu[worst]),
                              float(bound[worst])]
    return result


def describe(name, result):
    """One line on an output's comparison."""
    if "error" in result:
        return "%s: %s" % (name, result["error"])
    if result["exact"]:
        text = "%s: %d codes differ" % (name, result["violations"])
        if result["violations"]:
            text += " (first at %s: ours %d, cpu %d)" % tuple(result["worst_at"])
        return text
    text = "%s: %d elements beyond tolerance" % (name, result["violations"])
    if result["special"]:
        text += " (%d NaN/inf not where the CPU has them)" % result["special"]
    text += "; relative Frobenius error %.3g (limit %.3g)" % (result["fro"], result["fro_limit"])
    if "worst_at" in result:
        text += "; worst at %s: ours %.6g, cpu %.6g, tolerance %.3g" % tuple(result["worst_at"])
    return text


# ---------------------------------------------------------------------------
# Stored arrays
# ---------------------------------------------------------------------------


def digest(array):
    return hashlib.sha256(np.ascontiguousarray(array).tobytes()).hexdigest()


def output_record(array, dtype, sample):
    """What the index says of an output and the values to store: all of
    them, or `sample` of them."""
    array = np.asarray(array)
    flat = array.reshape(-1)
    sampled = sample if sample and flat.size > sample else 0
    values = flat[sample_indices(flat.size, sampled)] if sampled else flat.copy()
    record = dict(shape=list(array.shape), dtype=dtype, sampled=sampled)
    if dtype in FLOAT_DTYPES:
        finite = flat[np.isfinite(flat)].astype(np.float64)
        record["rms"] = float(np.sqrt(np.mean(finite * finite))) if finite.size else 0.0
    return record, values


def perturb(arrays, seed):
    """Each element moved by one ulp up or down (the stand-ins' inputs)."""
    rng = np.random.default_rng(seed)
    up, down = np.float32(np.inf), np.float32(-np.inf)
    return [np.nextafter(a, np.where(rng.random(a.shape) < 0.5, up, down)).astype(np.float32)
            for a in arrays]


def key(*parts):
    return "/".join(str(p) for p in parts)


# ---------------------------------------------------------------------------
# prepare
# ---------------------------------------------------------------------------


def manifest_io(path):
    """The dtype, shape and bytes of a manifest's inputs and of its outputs,
    in order."""
    with open(path) as f:
        buffers = json.load(f)["buffers"]
    return manifest_buffers(buffers, "input"), manifest_buffers(buffers, "output")


def manifest_launches(path):
    """How many launches (kernels, fills and copies) a manifest makes."""
    with open(path) as f:
        return len(json.load(f).get("launches", []))


def manifest_buffers(buffers, kind, prepared=None):
    """The inputs or outputs of a manifest, in order; with `prepared` True
    (False) only (none of) those that a prepare function computes
    (fp8-prepare-weights)."""
    chosen = sorted((b for b in buffers if b["kind"] == kind
                     and prepared in (None, "prepared" in b)), key=lambda b: b["index"])
    return [dict(dtype=b["dtype"], shape=b["shape"], bytes=b["bytes"]) for b in chosen]


def prepared_signature(function):
    """The inputs and outputs of a function's manifest: its own inputs, then
    the results of its prepare function that it takes."""
    prepared = function.get("prepare")
    return (function["inputs"] + ([prepared["outputs"][n] for n in prepared["taken"]]
                                  if prepared else []),
            function["outputs"])


def compile_cell(args, cell):
    """Compiles one example x size x recipe x chip; returns the cell's
    index entry."""
    example, size, recipe, chip = cell
    directory = key("compiled", size, example, recipe, chip)
    out_dir = os.path.join(args.out, directory)
    source = os.path.join(args.out, "sources", size, example + ".mlir")
    shutil.rmtree(out_dir, ignore_errors=True)  # nothing left from an earlier prepare
    options = "chip=%s num-sms=%d artifacts=%s" % (chip, NUM_SMS[chip], out_dir)
    if args.pipeline_options:
        options += " " + args.pipeline_options
    autocast = programs.autocast_options(recipe, args.autocast_options)
    command = [args.fp8_opt, source, "--fp8-autocast=" + autocast,
               "--fp8-gpu-pipeline=" + options, "-o", os.devnull]
    start = time.time()
    p = subprocess.run(command, capture_output=True, text=True)
    entry = dict(id=key(size, example, recipe, chip), example=example, size=size,
                 recipe=recipe, chip=chip, seconds=round(time.time() - start, 1))
    if p.returncode != 0:
        errors = [line for line in p.stderr.splitlines() if ": error: " in line]
        message = (errors or p.stderr.strip().splitlines() or ["fp8-opt failed"])[0]
        entry.update(status="failed", error=message.replace(args.out + os.sep, ""))
        return entry
    functions = {}
    for name in sorted(os.listdir(out_dir)):
        if name.endswith(".json"):
            with open(os.path.join(out_dir, name)) as f:
                manifest = json.load(f)
            buffers = manifest["buffers"]
            # State (delayed scaling's histories) carries over from run to
            # run: such functions run twice, as on the CPU.
            functions[name[:-5]] = dict(
                name=name[:-5], manifest=key(directory, name),
                inputs=manifest_buffers(buffers, "input", prepared=False),
                outputs=manifest_buffers(buffers, "output"),
                # The results of the prepare function (`prepare_function`)
                # that the function takes after its own inputs, in order.
                prepared_inputs=[b["prepared"] for b in sorted(
                    buffers, key=lambda b: b.get("index", -1))
                    if b["kind"] == "input" and "prepared" in b],
                prepare_function=manifest.get("prepare", name[:-5] + "_prepare"),
                # Inputs no launch reads (weights whose readers moved into
                # the prepare function): run passes null pointers for them.
                unread=[b["index"] for b in buffers
                        if b["kind"] == "input" and b.get("unread")],
                stateful=any(b["kind"] == "state" for b in buffers))
    # prepare-weights: a prepare function (@f_prepare, or the one the
    # functions of a prepare group share, such as a model's forward and
    # backward) runs once on f's weights (the arguments marked fp8.weight,
    # in order), and f takes the results it reads after its own inputs;
    # each function of the cell carries its prepare function.
    with open(source) as f:
        text = f.read()
    prepares = {}
    for base in list(functions.values()):
        name, taken = base.pop("prepare_function"), base.pop("prepared_inputs")
        if taken and name not in prepares and name in functions:
            prepares[name] = functions.pop(name)
        if taken and name in prepares:
            prepare = prepares[name]
            base["prepare"] = dict(name=name, manifest=prepare["manifest"],
                                   inputs=prepare["inputs"], outputs=prepare["outputs"],
                                   taken=taken,
                                   weights=programs.weight_indices(text, base["name"]))
    entry.update(status="ok", functions=[functions[n] for n in sorted(functions)])
    return entry


def reference_outputs(args, example, size, recipe, functions):
    """The CPU pipeline's outputs of `functions` (names) for one example,
    size and recipe, and the stand-ins' when asked: (steps, {name: [[array]
    per output] per step}, stand-ins or None, {name: feeds})."""
    from fp8_mlir import compiler

    text = programs.source(example, size, args.storage)
    module = compiler.parse(text, example).run(
        programs.autocast(recipe, args.autocast_options))
    signatures = {s.name: s for s in programs.entry_points(module)}
    missing = [f for f in functions if f not in signatures]
    if missing:
        raise RuntimeError("the GPU compiled %s, which the CPU graph does not offer" % missing)
    feeds = {f: programs.inputs(example, size, f, signatures[f].inputs) for f in functions}
    steps = programs.steps(str(module))
    opt_level = args.opt_level if args.opt_level is not None else 0 if size == "small" else 2
    outputs = programs.cpu_run(module, functions, feeds, steps, opt_level)
    stand_ins = None
    if args.stand_ins:
        moved = {f: perturb(v, 1) for f, v in feeds.items()}
        stand_ins = programs.cpu_run(module, functions, moved, steps, opt_level)
    return steps, outputs, stand_ins, feeds


def model_graph(example, size, function):
    """The graph (fp8_mlir.graph) of a generated model's function, or None."""
    model, _, kind = function.rpartition("_")
    if example not in programs.FILES or model != example or kind not in ("forward",
                                                                          "backward"):
        return None
    forward, backward = models.build(example, models.SIZES[size])
    return forward if kind == "forward" else backward


def evaluate(example, size, function, feeds, storage="f32", torch=None, device="cuda"):
    """The float64 graph's outputs of a function, or None. With 16-bit
    storage the program reads its inputs rounded to it: so does the graph,
    so that the errors are the computation's. With `torch`, the graph runs
    as PyTorch ops in float64 on `device` (evaluate_torch): the same
    function to float64's rounding, in a fraction of a second where numpy
    takes a minute or more at the real sizes."""
    graph = model_graph(example, size, function)
    if graph is None:
        return None
    if storage != "f32":
        feeds = [numerics.round_to(np.asarray(a, np.float32), storage) for a in feeds]
    names = [p.attrs["name"] for p in graph.params]
    if torch is None:
        return graph.evaluate(dict(zip(names, feeds)))
    tensors = [torch.from_numpy(np.asarray(a, np.float64)).to(device) for a in feeds]
    with torch.no_grad():
        outputs = graph.evaluate_torch(torch, dict(zip(names, tensors)))
    return [o.cpu().numpy() for o in outputs]


def float64_errors(exact, outputs):
    """Relative L2 error of each output against the float64 graph's; None
    for outputs that are zero in exact arithmetic (the key bias gradient:
    softmax ignores a shift of its row), as bench/examples/error.py does."""
    norms = [float(np.linalg.norm(np.asarray(r, np.float64))) for r in exact]
    floor = 1e-9 * max(norms)
    errors = []
    for ref, got, norm in zip(exact, outputs, norms):
        got = np.asarray(got, np.float64)
        if norm <= floor:
            errors.append(None)
        elif not np.all(np.isfinite(got)):
            errors.append(float("inf"))
        else:
            errors.append(float(np.linalg.norm(got - np.asarray(ref, np.float64))) / norm)
    return errors


def prepare(args):
    os.makedirs(args.out, exist_ok=True)
    sizes = args.sizes.split(",")
    cells = [(e, s, r, c) for s in sizes for e in args.models.split(",")
             if s in programs.sizes_of(e)
             for r in args.recipes.split(",") for c in args.chips.split(",")]
    for example, size in sorted({(c[0], c[1]) for c in cells}):
        path = os.path.join(args.out, "sources", size, example + ".mlir")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(programs.source(example, size, args.storage))

    print("== compiling %d cells with %s" % (len(cells), args.fp8_opt), flush=True)
    entries = []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        for entry in pool.map(lambda c: compile_cell(args, c), cells):
            entries.append(entry)
            print("%-7s %s%s" % (entry["status"], entry["id"],
                                 ": " + entry["error"] if entry["status"] != "ok" else ""),
                  flush=True)

    # What the GPU compiled: the functions of each example, size and recipe,
    # with their signatures (the same on every chip).
    compiled, signatures = {}, {}
    for e in entries:
        for f in e.get("functions", []):
            compiled.setdefault((e["example"], e["size"], e["recipe"]), set()).add(f["name"])
            signatures[(e["example"], e["size"], f["name"])] = f
    print("== CPU references (fp8-cpu-pipeline) for sizes %s" % args.reference_sizes,
          flush=True)
    references = {}
    for (example, size, recipe), functions in sorted(compiled.items()):
        if size not in args.reference_sizes.split(","):
            continue
        start = time.time()
        functions = sorted(functions)
        try:
            steps, outputs, stand_ins, feeds = reference_outputs(args, example, size, recipe,
                                                                 functions)
        except Exception as e:  # the cells of this group report it
            message = (str(e).splitlines() or [type(e).__name__])[0]
            references[key(size, example, recipe)] = dict(error=message)
            print("FAILED  CPU %s/%s/%s: %s" % (size, example, recipe, message), flush=True)
            continue
        record = dict(steps=steps, file=key("expected", size, example, recipe + ".npz"),
                      functions={})
        stored, stored_stand_ins = {}, {}
        sample = 0 if size in args.whole_sizes.split(",") else args.sample
        for name in functions:
            per_step = []
            for step in range(steps):
                outs = []
                for i, (array, t) in enumerate(zip(outputs[name][step],
                                                   signatures[(example, size, name)]["outputs"])):
                    out, values = output_record(array, t["dtype"], sample)
                    stored[key(name, step, i)] = values
                    if stand_ins is not None:
                        flat = np.asarray(stand_ins[name][step][i]).reshape(-1)
                        stored_stand_ins[key(name, step, i)] = (
                            flat[sample_indices(flat.size, out["sampled"])]
                            if out["sampled"] else flat)
                    outs.append(out)
                per_step.append(outs)
            exact = evaluate(example, size, name, feeds[name], args.storage)
            # Each call's errors (a delayed scale's first call rounds by
            # the initial scale), and the last call's as "float64".
            steps_float64 = None if exact is None else [
                float64_errors(exact, outs) for outs in outputs[name]]
            record["functions"][name] = dict(
                outputs=per_step, float64=steps_float64 and steps_float64[-1],
                float64_steps=steps_float64)
        save(args.out, record["file"], stored)
        if stand_ins is not None:
            record["stand_ins"] = key("standin", size, example, recipe + ".npz")
            save(args.out, record["stand_ins"], stored_stand_ins)
        references[key(size, example, recipe)] = record
        print("ok      CPU %s/%s/%s (%d calls each, %.0f s)"
              % (size, example, recipe, steps, time.time() - start), flush=True)

    inputs = {}
    for example, size in sorted({(e, s) for e, s, _ in compiled}):
        functions = sorted({n for (e, s, n) in signatures if (e, s) == (example, size)})
        inputs[key(size, example)] = record_inputs(
            args, example, size, [signatures[(example, size, n)] for n in functions])

    index = dict(format="fp8-mlir-models", version=1, commit=git("rev-parse", "HEAD") or
                 "unknown", dirty=bool(git("status", "--porcelain", "--untracked-files=no")),
                 date=datetime.date.today().isoformat(), sample=args.sample,
                 reference_sizes=args.reference_sizes.split(","),
                 pipeline_options=args.pipeline_options,
                 autocast_options=args.autocast_options, storage=args.storage, cells=entries,
                 references=references, inputs=inputs)
    with open(os.path.join(args.out, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    ok = sum(e["status"] == "ok" for e in entries)
    failed = sum("error" in r for r in references.values())
    print("summary: %d of %d cells compiled, %d CPU references%s, in %s"
          % (ok, len(entries), len(references) - failed,
             " (%d failed)" % failed if failed else "", args.out))
    return 1 if failed or (args.strict and ok < len(entries)) else 0


def function_inputs(example, size, function):
    """The inputs of a compiled function (its index record)."""
    return programs.inputs(example, size, function["name"],
                           [(t["shape"], t["dtype"]) for t in function["inputs"]])


def record_inputs(args, example, size, functions):
    """The inputs' digests of an example's functions at a size, and the
    arrays when they are small enough to carry."""
    arrays, digests = {}, {}
    for function in functions:
        feeds = function_inputs(example, size, function)
        digests[function["name"]] = [digest(a) for a in feeds]
        for i, a in enumerate(feeds):
            arrays[key(function["name"], i)] = a
    record = dict(functions=digests, file=None)
    if sum(a.nbytes for a in arrays.values()) <= args.max_input_mib * 2 ** 20:
        record["file"] = key("inputs", size, example + ".npz")
        save(args.out, record["file"], arrays)
    return record


def save(out, name, arrays):
    path = os.path.join(out, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    np.savez(path, **{k.replace("/", ":"): v for k, v in arrays.items()})


def load(out, name):
    with np.load(os.path.join(out, name)) as data:
        return {k.replace(":", "/"): data[k] for k in data.files}


# ---------------------------------------------------------------------------
# run: the cells, in worker processes
# ---------------------------------------------------------------------------


class Inputs:
    """The inputs of each example and size: stored, or rebuilt and checked
    against their digests."""

    def __init__(self, args, index):
        self.args, self.index = args, index
        self.cache = {}

    def get(self, cell, function):
        program = key(cell["size"], cell["example"])
        if program not in self.cache:
            self.cache = {program: {}}  # one example at a time: real sizes are large
        arrays = self.cache[program]
        if function["name"] not in arrays:
            record = self.index["inputs"][program]
            if record["file"]:
                stored = load(self.args.artifacts, record["file"])
                feeds = [stored[key(function["name"], i)]
                         for i in range(len(function["inputs"]))]
            else:
                feeds = function_inputs(cell["example"], cell["size"], function)
            digests = record["functions"].get(function["name"])
            if digests is None or [digest(a) for a in feeds] != digests:
                raise RuntimeError("the inputs of @%s rebuilt here differ from those of the "
                                   "CPU reference (another numpy?)" % function["name"])
            arrays[function["name"]] = feeds
        return arrays[function["name"]]


class Float64:
    """The float64 graph's outputs per example, size and function (for the
    error reports), computed once."""

    def __init__(self, storage="f32", torch=None):
        self.cache = {}
        self.storage = storage
        self.torch = torch  # evaluates on the GPU where given

    def get(self, cell, function, feeds):
        program = key(cell["size"], cell["example"])
        if program not in self.cache:
            self.cache = {program: {}}  # one example at a time, as Inputs
        outputs = self.cache[program]
        if function not in outputs:
            outputs[function] = evaluate(cell["example"], cell["size"], function, feeds,
                                         self.storage, self.torch)
        return outputs[function]


def check_io(function, loaded_inputs, loaded_outputs, prepare=False):
    """Raises when a loaded manifest's signature is not the index's (that of
    the function's prepare function with `prepare`)."""
    if prepare:
        inputs, outputs = function["prepare"]["inputs"], function["prepare"]["outputs"]
    else:
        inputs, outputs = prepared_signature(function)
    want = [(t["dtype"], tuple(t["shape"])) for t in inputs], \
        [(t["dtype"], tuple(t["shape"])) for t in outputs]
    got = [(t.dtype, tuple(t.shape)) for t in loaded_inputs], \
        [(t.dtype, tuple(t.shape)) for t in loaded_outputs]
    if got != want:
        raise RuntimeError("@%s: the manifest's signature %s -> %s is not the index's %s -> %s"
                           % ((function["name"],) + got + want))


class GpuExecutor:
    """Runs manifests through libfp8rt.so on torch tensors."""

    def __init__(self, args):
        import torch

        self.torch = torch
        torch.cuda.init()
        torch.zeros(1, device="cuda")
        self.library = fp8rt.Library(args.lib)
        self.args = args
        self.dtypes = {"f32": torch.float32, "bf16": torch.bfloat16, "f16": torch.float16}

    def environment(self):
        return device_environment(self.torch)

    @contextlib.contextmanager
    def bound(self, function, feeds):
        """Loads `function`'s manifest and yields (launch, outputs, program):
        its inputs are `feeds` on the GPU (f32 feeds rounded to nearest
        even for bf16 programs, as the CPU reference rounds them), its
        outputs fresh tensors (bytes for codes), `launch` fp8rt's bound
        run on them."""
        torch = self.torch
        path = os.path.join(self.args.artifacts, function["manifest"])
        with self.library.load(path) as program:
            check_io(function, program.inputs, program.outputs)
            count = len(function["inputs"])
            for t in program.inputs[:count]:
                if t.dtype not in self.dtypes:
                    raise RuntimeError("@%s takes %s inputs; the examples' are f32 or bf16"
                                       % (function["name"], t.dtype))
            ins = [torch.from_numpy(np.ascontiguousarray(a)).cuda().to(self.dtypes[t.dtype])
                   for a, t in zip(feeds, program.inputs)]
            self.prepare_ms = None
            if "prepare" in function:
                results = self.prepared(function, ins)
                ins += [results[n] for n in function["prepare"]["taken"]]
            outs = self.empty(program.outputs)
            # What a caller holding only the prepared copies passes.
            passed = [0 if i in function.get("unread", ()) else t for i, t in enumerate(ins)]
            yield program.bind(passed, outs, torch.cuda.current_stream()), outs, program
        del ins, outs
        torch.cuda.empty_cache()  # the real sizes' buffers, before the next cell's

    def empty(self, tensors):
        """Fresh device tensors for manifest buffers (bytes for codes)."""
        torch = self.torch
        return [torch.empty(t.shape, dtype=self.dtypes[t.dtype], device="cuda")
                if t.dtype in self.dtypes else
                torch.empty(t.bytes, dtype=torch.uint8, device="cuda") for t in tensors]

    def prepared(self, function, ins):
        """What the function's prepare function computes from the weights
        among `ins` (every result), run once (and timed with --time:
        prepare_ms)."""
        torch = self.torch
        prepare = function["prepare"]
        path = os.path.join(self.args.artifacts, prepare["manifest"])
        with self.library.load(path) as program:
            check_io(function, program.inputs, program.outputs, prepare=True)
            outs = self.empty(program.outputs)
            launch = program.bind([ins[i] for i in prepare["weights"]], outs,
                                  torch.cuda.current_stream())
            launch(sync=True)
            torch.cuda.synchronize()
            if getattr(self.args, "time", None):  # kernel_times.py has no --time
                flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
                self.prepare_ms = time_gpu(torch, launch, flush, 2,
                                           self.args.time)["median_ms"]
        return outs

    def compiled_baseline(self, cell, function, feeds):
        """torch.compile of the same model in bf16 (fp8_mlir.graph's
        evaluate_torch) as a function of no arguments on `feeds`, the
        baseline of the speed targets; None for functions that are not a
        generated model's."""
        torch = self.torch
        graph = model_graph(cell["example"], cell["size"], function["name"])
        if graph is None:
            return None
        names = [p.attrs["name"] for p in graph.params]
        inputs = [torch.from_numpy(np.ascontiguousarray(a)).cuda().to(torch.bfloat16)
                  for a in feeds]
        compiled = torch.compile(
            lambda *tensors: graph.evaluate_torch(torch, dict(zip(names, tensors))))
        return lambda: compiled(*inputs)

    def run(self, cell, function, feeds, steps):
        """The outputs of each of `steps` runs, as numpy arrays, and the
        timings --time asks for (or None)."""
        torch = self.torch
        with self.bound(function, feeds) as (launch, outs, program):
            results = []
            graph = self.args.graph
            for _ in range(steps):
                for o in outs:  # unwritten elements show: NaN, or 0xFF codes
                    o.fill_(float("nan") if o.dtype != torch.uint8 else 255)
                # A graph runs as one unit: a fault is not traced to a launch.
                launch(sync=not graph, graph=graph)
                torch.cuda.synchronize()
                results.append([self.numpy(o, t) for o, t in zip(outs, program.outputs)])
            timing = self.time(cell, function, feeds, launch) if self.args.time else None
            if timing is not None and self.prepare_ms is not None:
                timing["prepare"] = self.prepare_ms
        return results, timing

    # Rounds of --time's runs: each round times launch by launch, the graph
    # and the baseline in turn.
    TIME_ROUNDS = 4

    def time(self, cell, function, feeds, launch):
        """Median milliseconds of --time runs launch by launch (`eager`),
        with --graph as CUDA graph replays (`graph`), and of the compiled
        bf16 model (compiled_baseline: `torch_compile_bf16`, None for
        functions without one, or `baseline_error`), interleaved in rounds
        (time_interleaved)."""
        torch, n = self.torch, self.args.time
        fns = dict(eager=launch)
        if self.args.graph:
            fns["graph"] = lambda: launch(graph=True)
        timing = dict(torch_compile_bf16=None)
        try:
            call = self.compiled_baseline(cell, function, feeds)
            if call is not None:
                call()  # compiles
                torch.cuda.synchronize()
                fns["torch_compile_bf16"] = call
        except Exception as e:  # the table says why there is no baseline
            timing["baseline_error"] = (str(e).splitlines() or [type(e).__name__])[0]
        flush = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
        times = time_interleaved(torch, fns, flush, 2, n, min(self.TIME_ROUNDS, n))
        timing.update((name, t["median_ms"]) for name, t in times.items())
        return timing

    def numpy(self, tensor, t):
        if t.dtype in self.dtypes:
            return tensor.float().cpu().numpy()
        bits = fp8rt.dtype_bits(t.dtype)
        if t.bytes != -(-int(np.prod(t.shape)) * bits // 8):
            raise RuntimeError("an output of %s stored with padded rows is not read back"
                               % t.dtype)
        codes = tensor.cpu().numpy()
        if bits == 4:  # two per byte, low nibble first
            codes = np.stack([codes & 15, codes >> 4], axis=-1).reshape(-1)
        return codes[:int(np.prod(t.shape))].reshape(t.shape)


class StandInExecutor:
    """The dry run: the stand-ins prepare stored play our kernels.
    FP8_MODELS_FAKE="REGEX=mode,..." makes the cells whose id matches crash,
    hang, lose the CUDA context (sticky) or return wrong values (wrong), to
    test the supervision and the comparison."""

    def __init__(self, args, index):
        self.args, self.index = args, index
        self.faults = [item.rsplit("=", 1) for item in
                       filter(None, os.environ.get("FP8_MODELS_FAKE", "").split(","))]

    def environment(self):
        return dict(device="none (dry run: stand-ins)", python=platform.python_version())

    def run(self, cell, function, feeds, steps):
        """The stand-ins' outputs, or None without stand-ins; nothing is
        timed."""
        manifests = [(function["manifest"], False)]
        if "prepare" in function:
            manifests.append((function["prepare"]["manifest"], True))
        for manifest, prepare in manifests:
            path = os.path.join(self.args.artifacts, manifest)
            try:
                with fp8rt.Library(self.args.lib).load(path, manifest_only=True) as program:
                    check_io(function, program.inputs, program.outputs, prepare)
            except fp8rt.Fp8rtError as e:
                if "cannot load" not in str(e):
                    raise
                inputs, outputs = manifest_io(path)  # no libfp8rt.so here
                check_io(function, [fp8rt.Tensor(t["dtype"], t["shape"], t["bytes"])
                                    for t in inputs],
                         [fp8rt.Tensor(t["dtype"], t["shape"], t["bytes"]) for t in outputs],
                         prepare)
        for pattern, mode in self.faults:
            if re.search(pattern, cell["id"]):
                if mode == "crash":
                    os._exit(139)
                if mode == "hang":
                    time.sleep(3600)
                if mode == "sticky":
                    raise RuntimeError("fp8rt: kernel launch: CUDA_ERROR_ILLEGAL_ADDRESS "
                                       "(the CUDA context is now unusable)")
        record = self.index["references"].get(key(cell["size"], cell["example"],
                                                  cell["recipe"]))
        if record is None or "stand_ins" not in record:
            return None, None
        stored = load(self.args.artifacts, record["stand_ins"])
        records = record["functions"][function["name"]]["outputs"]
        results = []
        for step in range(steps):
            outs = []
            for i, out in enumerate(records[step]):
                values = stored[key(function["name"], step, i)].copy()
                outs.append(values if out["sampled"] else values.reshape(out["shape"]))
            if any(re.search(p, cell["id"]) and m == "wrong" for p, m in self.faults):
                outs[0].reshape(-1)[:64] *= 1.5
            results.append(outs)
        return results, None


def run_cell(executor, inputs, float64, index, cell):
    """Runs and checks every function of one cell."""
    reference = index["references"].get(key(cell["size"], cell["example"], cell["recipe"]))
    if reference and "error" in reference:
        raise RuntimeError("prepare could not compute the CPU reference: " + reference["error"])
    result = dict(functions={}, status="pass")
    bounds = None
    if reference is None:
        import error  # bench/examples/error.py: the recipes' error bounds

        bounds = error.BOUNDS.get(cell["recipe"])
        if bounds:
            extra = STORAGE_ALLOWANCE[index.get("storage", "f32")]
            bounds = tuple(b + extra for b in bounds)
    steps = reference["steps"] if reference else (
        2 if any(f.get("stateful") for f in cell["functions"]) else 1)
    expected = load(executor.args.artifacts, reference["file"]) if reference else {}
    for function in cell["functions"]:
        name = function["name"]
        feeds = inputs.get(cell, function)
        runs, timing = executor.run(cell, function, feeds, steps)
        if runs is None:
            result["functions"][name] = dict(status="dry")
            result["status"] = "dry" if result["status"] == "pass" else result["status"]
            continue
        checks, failures, drifts = [], [], []
        # Against float64 when the outputs are whole (not a dry run's samples).
        exact = float64.get(cell, name, feeds)
        whole = exact is not None and all(
            np.shape(o) == np.shape(r) for o, r in zip(runs[-1], exact))
        cpu_float64 = reference["functions"][name]["float64"] if reference else None
        cpu_steps = reference["functions"][name].get("float64_steps") if reference else None
        for step, outs in enumerate(runs):
            # Each call's errors against float64 (the graph has no state: a
            # delayed scale changes only the rounding), beside the CPU's for
            # the same call (artifacts prepared before float64_steps: the
            # last call's).
            errors = float64_errors(exact, outs) if whole else None
            cpu_errors = cpu_steps[step] if cpu_steps else cpu_float64
            for i, ours in enumerate(outs):
                label = "result %d%s" % (i, " (call %d)" % (step + 1) if steps > 1 else "")
                if not reference:
                    continue
                record = reference["functions"][name]["outputs"][step][i]
                check = compare(record, expected[key(name, step, i)], ours, cell["recipe"])
                check["label"] = label
                checks.append(check)
                if check["ok"]:
                    continue
                if errors is not None and is_drift(check, errors[i], cpu_errors[i],
                                                   limits(cell["recipe"])[0]):
                    check["drift"] = True
                    drifts.append(describe(label, check) + drift_text(errors[i],
                                                                      cpu_errors[i]))
                else:
                    failures.append(describe(label, check))
        info = dict(checks=checks, failures=failures, drifts=drifts)
        if timing:
            info["timing_ms"] = timing
        if whole:
            info["float64"] = errors  # the last call's
            if reference:
                info["cpu_float64"] = cpu_float64
                beyond, drifted = float64_consistency(info["float64"], cpu_float64,
                                                      limits(cell["recipe"])[0])
                failures += beyond
                drifts += drifted
            elif bounds:
                failures += float64_bound_failures(info["float64"], bounds)
        info["status"] = "FAIL" if failures else "drift" if drifts else "pass"
        if failures:
            result["status"] = "FAIL"
        elif drifts and result["status"] == "pass":
            result["status"] = "drift"
        result["functions"][name] = info
    return result


def is_drift(check, ours_error, cpu_error, fro_limit):
    """Whether an f32/bf16/f16 output beyond the tolerances against the CPU
    is FP8 drift (TOLERANCE_TEXT): NaN and infinity where the CPU has them,
    and an error against float64 at most DRIFT_SLACK above the CPU's own
    (plus the Frobenius limit): our result is as close to the exact one as
    the CPU's, up to the fluctuation of a redrawn rounding noise.
    Outputs that are zero in exact arithmetic (float64_errors' None: the
    key bias gradient) hold rounding noise alone and are drift when their
    NaN and infinity are the CPU's."""
    if check.get("exact") or "error" in check or check.get("special"):
        return False
    if ours_error is None or cpu_error is None:
        return ours_error is None and cpu_error is None
    return ours_error <= cpu_error * (1 + DRIFT_SLACK) + fro_limit


def drift_text(ours_error, cpu_error):
    if ours_error is None:
        return "; zero in exact arithmetic (rounding noise only)"
    return "; against float64 %.3g, the CPU's %.3g" % (ours_error, cpu_error)


def float64_consistency(ours, cpu, fro_limit):
    """Whole outputs against float64, where only samples met the CPU's:
    ||ours - cpu|| <= f ||cpu|| implies err(ours) <= err(cpu) + f (1 +
    err(cpu)), so a larger error means a difference outside the samples.
    Returns (failures, drifts): an error beyond that but within is_drift's
    rule (as close to float64 as the CPU, up to DRIFT_SLACK) is drift, the
    same rule as for the samples."""
    failures, drifts = [], []
    for i, (mine, theirs) in enumerate(zip(ours, cpu)):
        if mine is None or theirs is None:
            continue
        allowed = theirs + fro_limit * (1 + theirs)
        if mine <= allowed * (1 + 2 ** -10):
            continue
        text = ("result %d: error %.3g against float64, more than the CPU's %.3g and the "
                "tolerance allow (%.3g)" % (i, mine, theirs, allowed))
        if mine <= theirs * (1 + DRIFT_SLACK) + fro_limit:
            drifts.append(text + "; within the drift of redrawn rounding (%.3g)"
                          % (theirs * (1 + DRIFT_SLACK) + fro_limit))
        else:
            failures.append(text)
    return failures, drifts


def float64_bound_failures(errors, bounds):
    """error.py's bounds (y, dx, worst parameter gradient) on the errors of
    a function's outputs against float64 (outputs of zero norm left out)."""
    failures = []
    names = ["y", "dx"] + ["parameter gradient %d" % i for i in range(len(errors) - 2)]
    for i, (e, what) in enumerate(zip(errors, names)):
        limit = bounds[min(i, 2)]
        if e is not None and not e <= limit:
            failures.append("%s: error %.3g against float64 > the recipe's bound %.3g"
                            % (what, e, limit))
    return failures


def worker(args):
    """Runs cells in order, one JSON line per start and per result."""
    with open(args.tasks) as f:
        cells = json.load(f)
    with open(os.path.join(args.artifacts, "index.json")) as f:
        index = json.load(f)
    emit = workers.emitter(args.results)
    try:
        executor = StandInExecutor(args, index) if args.dry_run else GpuExecutor(args)
    except Exception as e:
        emit(dict(event="fatal", error="cannot start: %s" % e,
                  trace=traceback.format_exc()[-2000:]))
        return 2
    emit(dict(event="env", env=executor.environment()))
    inputs = Inputs(args, index)
    float64 = Float64(index.get("storage", "f32"),
                      getattr(executor, "torch", None) if args.float64 == "gpu" else None)
    for cell in cells:
        emit(dict(event="start", task=cell["id"]))
        print("[run] %s" % cell["id"], flush=True)
        start = time.time()
        try:
            result = run_cell(executor, inputs, float64, index, cell)
        except Exception as e:
            result = dict(status="error", error=str(e) or type(e).__name__,
                          trace=traceback.format_exc()[-2000:])
        result["seconds"] = round(time.time() - start, 1)
        emit(dict(event="done", task=cell["id"], result=result))
        print("    %s (%.1f s)%s" % (result["status"], result["seconds"],
                                     ": " + result["error"].splitlines()[0][:200]
                                     if "error" in result else ""), flush=True)
        if result["status"] == "error" and workers.is_sticky(result["error"]):
            print("    the CUDA context is lost; a new worker takes the rest", flush=True)
            return 3
    return 0


def supervise(args, cells):
    """Runs the cells in worker processes, a new worker after one dies,
    loses its CUDA context or hangs (--cell-timeout); returns ({cell id:
    result}, environment)."""

    def command(tasks_file, results_file):
        return [sys.executable, os.path.abspath(__file__), "run", "--worker",
                "--tasks", tasks_file, "--results", results_file, "--artifacts",
                args.artifacts, "--lib", args.lib, "--time", str(args.time),
                "--float64", args.float64] + \
            (["--dry-run"] if args.dry_run else []) + (["--graph"] if args.graph else [])

    def interrupted(cell, stopped, rc):
        if stopped == "hung":
            return dict(status="hung", error="no result after %d s; the worker was killed"
                        % args.cell_timeout)
        if stopped == "budget":
            return dict(status="skipped", error="the time budget ran out during it")
        return dict(status="crashed", error="the worker died (exit status %s)" % rc)

    work_dir = os.path.join(args.out or os.path.join(ROOT, "build-gpu-rt"), "models-work")
    return workers.supervise(cells, work_dir, command, lambda cell: args.cell_timeout,
                             time.time() + args.time_budget, interrupted,
                             attempts=len(cells) + 1)


# ---------------------------------------------------------------------------
# The report
# ---------------------------------------------------------------------------


def fmt(x):
    return "-" if x is None else ("%.3g" % x)


def float64_cell(info):
    """`ours (cpu)` errors against float64: y, dx, worst parameter
    gradient."""
    if "float64" not in info:
        return "-"
    ours, cpu = info["float64"], info.get("cpu_float64")

    def summary(errors):
        grads = [e for e in errors[2:] if e is not None]
        parts = errors[:2] + ([max(grads)] if grads else [])
        return "/".join(fmt(e) for e in parts)

    return summary(ours) + (" (cpu %s)" % summary(cpu) if cpu else "")


def report(args, index, results, env):
    lines = ["# fp8-mlir example models on the GPU against the CPU pipeline", ""]
    if args.dry_run:
        lines.append("Dry run: no GPU; stand-ins (the CPU pipeline on inputs moved by one ulp) "
                     "play the kernels where prepare stored them.")
    else:
        lines.append("* Device: %s (compute capability %s, %d SMs), torch %s, CUDA %s"
                     % (env.get("device"), env.get("capability"), env.get("sms", 0),
                        env.get("torch"), env.get("cuda")))
    lines += ["* Date: %s" % datetime.date.today().isoformat(),
              "* Prepared at commit %s%s on %s; CPU references for sizes %s"
              % (index["commit"], " (dirty)" if index.get("dirty") else "", index["date"],
                 ", ".join(index["reference_sizes"])),
              "* fp8-gpu-pipeline options: %s"
              % (index.get("pipeline_options") or "the defaults"),
              "* fp8-autocast options besides the recipe: %s"
              % (index.get("autocast_options") or "none"),
              "* Storage: %s" % STORAGE_TEXT[index.get("storage", "f32")],
              "* Command: `%s`" % " ".join(["bench/gpu/models.py"] + sys.argv[1:]),
              "* Runs: %s" % ("each function replayed as one CUDA graph" if args.graph else
                              "launch by launch, synchronized after each launch"), "",
              "## Tolerances", "", TOLERANCE_TEXT, "", "## Results", "",
              "Errors against float64 per function: y / dx / worst parameter gradient, "
              "ours (the CPU pipeline's).", "",
              "| example | size | recipe | chip | function | status | worst vs CPU "
              "(elementwise / Frobenius) | vs float64 | seconds |",
              "|---|---|---|---|---|---|---|---|---|"]
    counts = {}
    failures, drifted = [], []
    for cell in index["cells"]:
        if cell["status"] != "ok":
            continue
        r = results.get(cell["id"])
        if r is None:
            continue
        counts[r["status"]] = counts.get(r["status"], 0) + 1
        head = "| %s | %s | %s | %s |" % (cell["example"], cell["size"], cell["recipe"],
                                          cell["chip"])
        if "functions" not in r:
            lines.append("%s - | **%s**: %s | - | - | %s |" % (
                head, r["status"], r.get("error", "").splitlines()[0][:200] if r.get("error")
                else "", r.get("seconds", "-")))
            failures.append((cell["id"], [r.get("error", r["status"])]))
            continue
        for name, info in r["functions"].items():
            checks = info.get("checks", [])
            floats = [c for c in checks if not c.get("exact") and "worst" in c]
            worst = ("%.3g / %.3g" % (max(c["worst"] for c in floats),
                                      max(c["fro"] for c in floats)) if floats else "-")
            exact = [c for c in checks if c.get("exact")]
            if exact:
                worst += ", %d exact" % len(exact)
            status = info["status"] if info["status"] != "FAIL" else "**FAIL**"
            if info.get("drifts"):
                drifted.append((key(cell["id"], name), info["drifts"]))
            lines.append("%s %s | %s | %s | %s | %s |" % (
                head, name, status, worst, float64_cell(info), r.get("seconds", "-")))
            if info.get("failures"):
                failures.append((key(cell["id"], name), info["failures"]))
    lines += timings_section(args, index, results)
    not_compiled = [c for c in index["cells"] if c["status"] != "ok"]
    lines += ["", "## Not compiled (%d of %d cells)" % (len(not_compiled), len(index["cells"])),
              ""]
    if not_compiled:
        lines += ["| example | size | recipe | chip | fp8-opt |", "|---|---|---|---|---|"]
        lines += ["| %s | %s | %s | %s | %s |" % (c["example"], c["size"], c["recipe"],
                                                  c["chip"], c["error"][:300])
                  for c in not_compiled]
    lines += ["", "## Summary", "",
              ", ".join("%d %s" % (n, s) for s, n in sorted(counts.items())) or "nothing ran"]
    for what, reasons in failures:
        lines += ["", "### %s" % what, ""] + ["* " + reason for reason in reasons[:8]]
    if drifted:
        lines += ["", "## Drift (beyond the tolerances against the CPU, as close to float64 "
                  "as the CPU)"]
    for what, reasons in drifted:
        lines += ["", "### %s" % what, ""] + ["* " + reason for reason in reasons[:8]]
    return "\n".join(lines) + "\n"


def timings_section(args, index, results):
    """The --time table: median microseconds per function, launch by
    launch and as a CUDA graph."""
    if not args.time:
        return []
    lines = ["", "## Timings", "",
             "Median of %d runs (CUDA events, L2 flushed before each), in microseconds%s."
             % (args.time, "" if args.graph else "; `--graph` adds CUDA graph replays"), ""]
    if args.dry_run:
        return lines + ["Dry run: nothing is timed."]
    lines += ["Launch by launch, the CUDA graph and torch.compile bf16 are timed in "
              "turn, in rounds of a quarter of the runs each.", ""]
    lines += ["torch.compile bf16: the same model in bf16 with PyTorch ops, compiled "
              "(fp8_mlir.graph's evaluate_torch); `vs bf16` is its time over ours (the CUDA "
              "graph's where timed), the speed-up the targets of docs/perf.md ask for.", ""]
    if "prepare-weights=1" in (index.get("pipeline_options") or ""):
        lines += ["Compiled with prepare-weights=1: the weight-only work (quantization, "
                  "K-major copies) ran once in a prepare function, which a model's forward "
                  "and backward functions share (`prepare`, launch by launch, not part of "
                  "the function's times; shown on each function that takes it); the "
                  "functions are timed on the prepared values, as a weight is reused across "
                  "the calls of one step or of inference.", ""]
    lines += ["| example | size | recipe | chip | function | launches | launch by launch "
              "| CUDA graph | speed-up | torch.compile bf16 | vs bf16 | prepare |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for cell in index["cells"]:
        for name, info in results.get(cell["id"], {}).get("functions", {}).items():
            timing = info.get("timing_ms")
            if not timing:
                continue
            launches = manifest_launches(os.path.join(args.artifacts, next(
                f["manifest"] for f in cell["functions"] if f["name"] == name)))
            eager, graph = timing["eager"] * 1e3, timing.get("graph")
            ours = timing["eager"] if graph is None else graph
            bf16 = timing.get("torch_compile_bf16")
            if bf16 is None:
                baseline = "- (%s)" % timing["baseline_error"] if timing.get(
                    "baseline_error") else "-"
                versus = "-"
            else:
                baseline, versus = "%.1f" % (bf16 * 1e3), "%.2fx" % (bf16 / ours)
            prepare = timing.get("prepare")
            lines.append("| %s | %s | %s | %s | %s | %s | %.1f | %s | %s | %s | %s | %s |" % (
                cell["example"], cell["size"], cell["recipe"], cell["chip"], name, launches,
                eager, "-" if graph is None else "%.1f" % (graph * 1e3),
                "-" if graph is None else "%.2fx" % (timing["eager"] / graph),
                baseline, versus, "-" if prepare is None else "%.1f" % (prepare * 1e3)))
    return lines + step_lines(index, results)


def step_lines(index, results):
    """A training step of each cell with a timed forward and backward
    function: both functions (CUDA graph times where timed) against
    torch.compile's, and with the weights' preparation counted once per
    step: a prepare function the two share once, their own prepare
    functions each once."""
    rows = []
    for cell in index["cells"]:
        timed = {name: info["timing_ms"] for name, info in
                 results.get(cell["id"], {}).get("functions", {}).items()
                 if info.get("timing_ms")}
        pair = [n for n in timed if n.endswith("_forward")]
        for forward in pair:
            backward = forward[:-len("_forward")] + "_backward"
            if backward not in timed:
                continue
            steps = [timed[forward], timed[backward]]
            ours = sum(t.get("graph") or t["eager"] for t in steps)
            bf16 = [t.get("torch_compile_bf16") for t in steps]
            prepares = {}
            for f in cell["functions"]:
                if f["name"] in (forward, backward) and "prepare" in f:
                    prepares[f["prepare"]["name"]] = timed[f["name"]].get("prepare")
            prepared = (None if not prepares or None in prepares.values()
                        else sum(prepares.values()))
            baseline = None if None in bf16 else sum(bf16)
            rows.append("| %s | %s | %s | %s | %.1f | %s | %s | %s | %s |" % (
                cell["example"], cell["size"], cell["recipe"], cell["chip"], ours * 1e3,
                "-" if baseline is None else "%.1f" % (baseline * 1e3),
                "-" if baseline is None else "%.2fx" % (baseline / ours),
                "-" if prepared is None else "%.1f (%d)" % (prepared * 1e3, len(prepares)),
                "-" if baseline is None or prepared is None
                else "%.2fx" % (baseline / (ours + prepared))))
    if not rows:
        return []
    return ["", "### Training steps", "",
            "Forward + backward of one micro-batch (the CUDA graphs' times where timed) "
            "against torch.compile bf16's; `prepare` is the weights' preparation, counted "
            "once per step (with the number of prepare functions: 1 when the two functions "
            "share one), which `with prepare` adds.", "",
            "| example | size | recipe | chip | ours (us) | torch.compile bf16 (us) "
            "| vs bf16 | prepare (us) | vs bf16 with prepare |",
            "|---|---|---|---|---|---|---|---|---|"] + rows


def run(args):
    path = os.path.join(args.artifacts, "index.json")
    if not os.path.exists(path):
        sys.exit("models.py: no %s; run `models.py prepare` on a development machine and "
                 "bring the folder along" % path)
    with open(path) as f:
        index = json.load(f)
    if args.worker:
        return worker(args)
    if not args.dry_run:
        args.lib = ensure_runtime(args.lib, args.runtime_build)
    cells = [c for c in index["cells"] if c["status"] == "ok" and
             re.search(args.only or "", c["id"])]
    print("== %d compiled cells%s" % (len(cells), " (dry run)" if args.dry_run else ""),
          flush=True)
    results, env = supervise(args, cells)
    text = report(args, index, results, env)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "models.md"), "w") as f:
            f.write(text)
        with open(os.path.join(args.out, "results.json"), "w") as f:
            json.dump(dict(env=env, results=results), f, indent=1)
    print(text)
    bad = [c["id"] for c in cells if results.get(c["id"], {}).get("status") not in
           ("pass", "drift", "dry")]
    return 1 if bad else 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    default_out = os.path.join(ROOT, "build-gpu", "models")
    p = sub.add_parser("prepare", help="compile, and compute the CPU references "
                       "(development machine)")
    p.add_argument("--fp8-opt", default=os.environ.get(
        "FP8_OPT", os.path.join(ROOT, "build", "bin", "fp8-opt")))
    p.add_argument("--build", default=os.path.join(ROOT, "build"),
                   help="the build whose libFP8MLIR-C.so runs the CPU pipeline")
    p.add_argument("--out", default=default_out)
    p.add_argument("--models", default=",".join(programs.EXAMPLES))
    p.add_argument("--sizes", default=",".join(models.SIZES))
    p.add_argument("--reference-sizes", default="small,gpt2-small")
    p.add_argument("--recipes", default=",".join(programs.RECIPES))
    p.add_argument("--chips", default=",".join(programs.CHIPS))
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--sample", type=int, default=16384,
                   help="outputs of more elements are stored at this many positions")
    p.add_argument("--whole-sizes", default="small",
                   help="sizes whose outputs are stored whole whatever --sample says")
    p.add_argument("--max-input-mib", type=float, default=8,
                   help="inputs of an example up to this size are stored, larger ones "
                   "rebuilt on the GPU machine")
    p.add_argument("--opt-level", type=int,
                   help="of the CPU references' JIT (default: 0 for the small size, which "
                   "it compiles faster, 2 for the others, which it runs twice as fast)")
    p.add_argument("--stand-ins", action="store_true",
                   help="also store the CPU's outputs on inputs moved by one ulp, which "
                   "`run --dry-run` checks like a GPU's")
    p.add_argument("--strict", action="store_true", help="exit 1 if a cell does not compile")
    p.add_argument("--storage", choices=sorted(STORAGE_TEXT), default="f32",
                   help="element type of the models' tensors (examples/generate.py "
                   "--storage): bf16 compares like with like against torch.compile of "
                   "the bf16 model")
    p.add_argument("--pipeline-options", default="",
                   help="more fp8-gpu-pipeline options, e.g. 'fuse-prologues=false "
                        "reuse-temporaries=false' to rule a fusion or the shared "
                        "workspace out when a program disagrees with the CPU")
    p.add_argument("--autocast-options", default="",
                   help="more fp8-autocast options, for the compiled programs and the "
                        "CPU references alike, e.g. 'fp8-attention=true'")
    r = sub.add_parser("run", help="run and check on a GPU (any CUDA machine with torch)")
    r.add_argument("--artifacts", default=default_out)
    r.add_argument("--lib", default=os.path.join(ROOT, "build-gpu-rt", "lib", "libfp8rt.so"))
    r.add_argument("--runtime-build", default=os.path.join(ROOT, "build-gpu-rt"))
    r.add_argument("--out", default=os.environ.get("OUT") or None)
    r.add_argument("--only", help="regex over cell ids (size/example/recipe/chip)")
    r.add_argument("--dry-run", action="store_true")
    r.add_argument("--graph", action="store_true",
                   help="replay every function as one CUDA graph")
    r.add_argument("--time", type=int, default=0, metavar="N",
                   help="time every function: the median of N runs")
    r.add_argument("--float64", choices=["gpu", "numpy"], default="gpu",
                   help="where the float64 graph runs: as PyTorch ops on the GPU (seconds "
                   "at the real sizes) or in numpy (minutes)")
    r.add_argument("--cell-timeout", type=float, default=300)
    r.add_argument("--time-budget", type=float, default=480)
    r.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    r.add_argument("--tasks", help=argparse.SUPPRESS)
    r.add_argument("--results", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.command == "prepare":
        os.environ.setdefault("FP8_MLIR_LIBRARY",
                              os.path.join(args.build, "lib", "libFP8MLIR-C.so"))
        return prepare(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
