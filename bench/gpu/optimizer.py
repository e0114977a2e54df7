#!/usr/bin/env python3
"""Checks the COAT AdamW step kernel bit for bit and measures its bandwidth.

One AdamW step on one f32 parameter tensor (fp8_mlir.models.adamw_generic:
the step of docs/numerics.md section 15 with b1 0.9, b2 0.999, eps 1e-8 and
weight decay 0.01 as constants of the body), after `fp8-optimizer=recipe=coat`
(both moments stored as E4M3 codes with an f32 amax and an i8 expansion
exponent per group of 128 along the last dimension, numerics.md section 14),
compiled by `fp8-gpu-pipeline` to one kernel (fp8_group_state_<shape>_<digest>: the
16 lanes that own a group decode m and v, run the step, reduce the group's amax
and amin and encode). Two steps, like the other GPU scripts (bench/gpu/README.md):

  * on a development machine, `compile` writes and compiles two programs
    into build-gpu/optimizer/ (PTX, cubin, manifests, index.json): the
    timing shape (--shape, 8192 x 4096: 32M parameters) and the check shape
    (--check-shape, 1000 x 1000: every row ends in a ragged group of
    1000 - 7 * 128 = 104). For the check shape it also runs the same coat
    module through the CPU pipeline in this process (fp8_mlir's compiler and
    JIT) on seeded inputs and stores them and the CPU's outputs in check.npz:

      python3 bench/gpu/optimizer.py compile [--shape 8192x4096] [--check-shape 1000x1000]

  * on any CUDA machine with torch, from the repository root with that folder
    copied along, `run` builds the runtime if needed (cmake), runs the check
    program on the stored inputs and compares every output (w, and the codes,
    amax and exponents of m and v) bit for bit with the CPU's, runs the
    timing program once on random state and checks that it wrote every
    output, then times it against a device-to-device copy of w (torch's
    copy_), both the median of --repeats runs after --warmup runs, CUDA
    events, L2 flushed between runs:

      python3 bench/gpu/optimizer.py run [--out DIR]

The step's bandwidth counts the bytes it must move: it reads w and g (4 bytes
each), the codes of m and v (1 each) and their group state (amax and
exponent: 5 bytes per group of 128 per moment), and writes w, both codes and
both group states, 16 + 20/128 bytes per parameter for whole groups; the
copy's, the bytes it reads and writes. The target is 80% of the copy's
bandwidth. The report goes to DIR/optimizer.md (and results.json) or stdout;
the exit status is 1 when an output differs from the CPU's by a bit or was
not written, whatever the bandwidth.

`run --dry-run` needs neither torch nor a GPU: it reads the manifests, checks
their signatures and that each program is the single group-state kernel, and
checks the stored CPU outputs against the numpy oracle
(fp8_mlir.numerics.coat_adamw_step) on the first ORACLE_ROWS rows.
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "runtime", "python"))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

import numpy as np  # noqa: E402

from compile import git  # noqa: E402  (bench/gpu/compile.py)
from reductions import ensure_runtime, finish_run, load_index, parse_shape  # noqa: E402
from bitexact import (GpuPrograms, add_compile_arguments, add_run_arguments,  # noqa: E402
                      bit_differences, difference_table, kernels_of, ratio_text,
                      read_manifest, report_header, result_status, run_each, run_program,
                      use_cpu_pipeline)

from fp8_mlir import models  # noqa: E402
from fp8_mlir import numerics  # noqa: E402

TARGET = 0.8
GROUP = 128
KERNEL_PREFIX = "fp8_group_state_"
# The step's hyperparameters (constants of the body) and the check's call:
# lr, and the bias corrections of step T after STEPS_BEFORE steps from zero.
HYPER = dict(b1=0.9, b2=0.999, eps=1e-8, wd=0.01)
LR = 1e-3
STEPS_BEFORE = 3
T = STEPS_BEFORE + 1
SEED = 0
# The dry run's oracle loops per element in Python (about 0.07 s per row of
# 1000): the first rows, which the inputs make the special ones (below),
# cover zero groups, both ends of the scales and a zero last gradient, and
# every row of the check shape ends in its ragged group.
ORACLE_ROWS = 8
# The arguments and results of the coat step in order (the pass replaces m
# and v in place by their stored parts), with their manifest dtypes; "full"
# is [rows, cols], "groups" [rows, ceil(cols / 128)], "scalar" a tensor<f32>.
STATE = [("codes", "f8e4m3", "full"), ("amax", "f32", "groups"),
         ("exponent", "i8", "groups")]
INPUTS = ([("w", "f32", "full"), ("g", "f32", "full")]
          + [("%s.%s" % (k, p), d, s) for k in "mv" for p, d, s in STATE]
          + [(k, "f32", "scalar") for k in ("lr", "b1t", "b2t")])
OUTPUTS = [("w", "f32", "full")] + [("%s.%s" % (k, p), d, s) for k in "mv" for p, d, s in STATE]
# Output fill before a run: a value no kernel writes for finite inputs (a
# NaN, the NaN code 0xFF, an exponent beyond the limit of 5).
SENTINEL = {"f32": float("nan"), "f8e4m3": 255, "i8": 127}


def groups_of(cols):
    return -(-cols // GROUP)


def shape_of(kind, rows, cols):
    return {"full": [rows, cols], "groups": [rows, groups_of(cols)], "scalar": []}[kind]


def generate_ir(function, rows, cols):
    """func.func @<function>(w, g, m, v: f32 [rows, cols], lr, b1t, b2t:
    tensor<f32>) -> (new w, m, v): one AdamW step linalg.generic."""
    t = "tensor<%dx%dxf32>" % (rows, cols)
    s = "tensor<f32>"
    lines = ["func.func @%s(%%w: %s, %%g: %s, %%m: %s, %%v: %s, %%lr: %s, %%b1t: %s, "
             "%%b2t: %s) -> (%s, %s, %s) {" % ((function,) + (t,) * 4 + (s,) * 3 + (t,) * 3),
             "  %%e = tensor.empty() : %s" % t]
    lines += models.adamw_generic("r", ["w", "g", "m", "v", "lr", "b1t", "b2t"],
                                  ["e", "e", "e"], t, 2, **HYPER)
    lines += ["  return %%r#0, %%r#1, %%r#2 : %s, %s, %s" % (t, t, t), "}", ""]
    return "\n".join(lines)


def bias_corrections(t):
    """(b1t, b2t) = (1 - b1^t, 1 - b2^t) in f32 (as bench/examples/train.py)."""
    return (np.array(1 - HYPER["b1"] ** t, np.float32),
            np.array(1 - HYPER["b2"] ** t, np.float32))


def check_inputs(rows, cols, step):
    """Seeded inputs of the check: w ~ N(0, 1); gradients N(0, 1) times a
    scale per row, 10^U(-6, 1), times a magnitude per element that stays
    from step to step, 10^-U(0, s) with a spread s ~ U(0, 10) decades per
    row (groups of narrow and of wide ranges: expansion exponents from -3
    to 5), with 1% of the elements never given a gradient; the moments
    after STEPS_BEFORE calls of `step` from zero (new gradients each; the
    weights they return are dropped), then the gradient of step T. The
    first rows are special: row 0 is N(0, 1); row 1 never gets a gradient
    (m and v stay zero: groups of amax 0); row 2 has scale 1e-6 and row 3
    scale 10, with a zero gradient at step T (m and v only decay); row 4
    has gradients of magnitude 1 (random signs: v's groups are flat); row 5
    spreads over 10 decades. Returns the inputs by name (INPUTS)."""
    rng = np.random.default_rng(SEED)
    w = rng.standard_normal((rows, cols)).astype(np.float32)
    scale = 10.0 ** rng.uniform(-6, 1, rows)
    spread = rng.uniform(0, 10, rows)
    special = min(rows, 6)
    scale[:special] = [1, 0, 1e-6, 10, 1, 1][:special]
    spread[:special] = [0, 0, 0, 0, 0, 10][:special]
    magnitude = scale[:, None] * 10.0 ** -(spread[:, None] * rng.random((rows, cols)))
    never = rng.random((rows, cols)) < 0.01

    def gradient():
        g = rng.standard_normal((rows, cols))
        if rows > 4:
            g[4] = np.sign(g[4])
        g = g * magnitude
        g[never] = 0
        return g.astype(np.float32)

    groups = groups_of(cols)
    zero = [np.zeros((rows, cols), np.uint8), np.zeros((rows, groups), np.float32),
            np.zeros((rows, groups), np.int8)]
    state = zero + [a.copy() for a in zero]
    lr = np.array(LR, np.float32)
    for t in range(1, STEPS_BEFORE + 1):
        state = step(w, gradient(), *state, lr, *bias_corrections(t))[1:]
    g = gradient()
    if rows > 3:
        g[3] = 0
    values = [w, g] + list(state) + [lr] + list(bias_corrections(T))
    return {name: value for (name, _, _), value in zip(INPUTS, values)}


def cpu_reference(source, function, rows, cols):
    """The check's inputs and the CPU pipeline's outputs (fp8-optimizer
    recipe=coat, then fp8-cpu-pipeline through the JIT) as {name: array}."""
    from fp8_mlir import compiler

    module = compiler.parse(source, os.path.basename(function) + ".mlir")
    module.run("fp8-optimizer{recipe=coat}")
    step = compiler.jit(module)[function]
    numpy_dtype = {"f32": "float32", "f8e4m3": "uint8", "i8": "int8"}
    for what, want, got in (("arguments", INPUTS, step.signature.inputs),
                            ("results", OUTPUTS, step.signature.results)):
        element = {"f32": "f32", "f8e4m3": "f8E4M3FN", "i8": "i8"}
        want = [(tuple(shape_of(k, rows, cols)), element[d]) for _, d, k in want]
        got = [(tuple(t.shape), t.element) for t in got]
        if want != got:
            raise RuntimeError("@%s's %s after fp8-optimizer are %s, expected %s"
                               % (function, what, got, want))
    inputs = check_inputs(rows, cols, step)
    outputs = step(*[inputs[name] for name, _, _ in INPUTS])
    expected = {}
    for (name, dtype, _), value in zip(OUTPUTS, outputs):
        expected[name] = np.asarray(value).astype(numpy_dtype[dtype])
    return inputs, expected


def compile_all(args):
    os.makedirs(args.artifacts, exist_ok=True)
    entries, failed = [], 0
    for role, (rows, cols) in (("check", args.check_shape), ("timing", args.shape)):
        function = "adamw_" + role
        source = os.path.join(args.artifacts, role + ".mlir")
        with open(source, "w") as f:
            f.write(generate_ir(function, rows, cols))
        out_dir = os.path.join(args.artifacts, role)
        command = [args.fp8_opt, source, "--fp8-optimizer=recipe=coat",
                   "--fp8-gpu-pipeline=chip=%s num-sms=%d artifacts=%s"
                   % (args.chip, args.num_sms, out_dir), "-o", os.devnull]
        p = subprocess.run(command, capture_output=True, text=True)
        status = "ok" if p.returncode == 0 else "failed"
        failed += status != "ok"
        print("%-7s %s %dx%d%s" % (status, role, rows, cols,
                                   "" if status == "ok" else ": " + p.stderr.strip()))
        entries.append(dict(id=role, function=function, rows=rows, cols=cols,
                            groups=groups_of(cols),
                            manifest=os.path.join(role, function + ".json"), status=status,
                            error=None if status == "ok" else p.stderr.strip()))

    rows, cols = args.check_shape
    check = dict(file="check.npz", seed=SEED, lr=LR, steps_before=STEPS_BEFORE, t=T,
                 hyper=HYPER, oracle_rows=min(ORACLE_ROWS, rows))
    try:
        inputs, expected = cpu_reference(generate_ir("adamw_check", rows, cols),
                                         "adamw_check", rows, cols)
        arrays = {"in_" + k: v for k, v in inputs.items()}
        arrays.update({"out_" + k: v for k, v in expected.items()})
        np.savez_compressed(os.path.join(args.artifacts, check["file"]), **arrays)
        ranges = {k: [int(expected[k + ".exponent"].min()), int(expected[k + ".exponent"].max())]
                  for k in "mv"}
        check.update(status="ok", exponents=ranges,
                     zero_groups={k: int((expected[k + ".amax"] == 0).sum()) for k in "mv"})
        print("ok      CPU reference %dx%d (step %d after %d; exponents m %d..%d, v %d..%d)"
              % (rows, cols, T, STEPS_BEFORE, *ranges["m"], *ranges["v"]))
    except Exception as e:  # reported, and the exit status says so
        check.update(status="failed", error=str(e))
        failed += 1
        print("failed  CPU reference %dx%d: %s" % (rows, cols, e))

    index = dict(format="fp8-mlir-optimizer", chip=args.chip,
                 commit=git("rev-parse", "HEAD") or "unknown",
                 dirty=bool(git("status", "--porcelain", "--untracked-files=no")),
                 entries=entries, check=check)
    with open(os.path.join(args.artifacts, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    print("summary: %d compiled, %d failed; CPU reference %s"
          % (sum(e["status"] == "ok" for e in entries),
             sum(e["status"] != "ok" for e in entries), check["status"]))
    return 1 if failed else 0


def structure_errors(entry, io, manifest):
    """What is wrong with a program's signature and launch list (empty when
    it is the single group-state kernel of the coat step)."""
    rows, cols = entry["rows"], entry["cols"]
    errors = []
    for what, got, want in (("inputs", io[0], INPUTS), ("outputs", io[1], OUTPUTS)):
        want = [(d, shape_of(k, rows, cols)) for _, d, k in want]
        if got != want:
            errors.append("unexpected %s %s (expected %s)" % (what, got, want))
    launches = manifest.get("launches", [])
    kernels = [launch.get("kernel", launch.get("kind")) for launch in launches]
    if len(launches) != 1 or launches[0].get("kind") != "kernel" \
            or not str(kernels[0]).startswith(KERNEL_PREFIX):
        errors.append("launches %s, expected one %s... kernel" % (kernels, KERNEL_PREFIX))
    return errors


def load_check(args, index):
    with np.load(os.path.join(args.artifacts, index["check"]["file"])) as data:
        inputs = {name: data["in_" + name] for name, _, _ in INPUTS}
        expected = {name: data["out_" + name] for name, _, _ in OUTPUTS}
    return inputs, expected


def oracle_check(index, inputs, expected):
    """The stored CPU outputs of the first rows against the numpy oracle,
    bit for bit: {output: differing elements}."""
    rows = index["check"]["oracle_rows"]
    top = {k: v[:rows] if v.ndim else v for k, v in inputs.items()}
    state = {k: tuple(top["%s.%s" % (k, p)] for p, _, _ in STATE) for k in "mv"}
    w, m, v = numerics.coat_adamw_step(
        top["w"], top["g"], state["m"], state["v"], [GROUP], top["lr"], HYPER["b1"],
        HYPER["b2"], HYPER["eps"], HYPER["wd"], top["b1t"], top["b2t"])
    numpy_dtype = {"f32": np.float32, "f8e4m3": np.uint8, "i8": np.int8}
    oracle = [w] + list(m) + list(v)
    differing = {}
    for (name, dtype, _), value in zip(OUTPUTS, oracle):
        count, _ = bit_differences(np.asarray(value).astype(numpy_dtype[dtype]),
                                   expected[name][:rows])
        differing[name] = count
    return differing


def dry_check(args, index, entry):
    """Without a GPU: the manifest's signature and launch list, and for the
    check program the stored CPU outputs against the oracle."""
    io, manifest = read_manifest(args, entry)
    result = dict(id=entry["id"], kernel=kernels_of(manifest))
    errors = structure_errors(entry, io, manifest)
    if entry["id"] == "check":
        if index["check"]["status"] != "ok":
            errors.append("no CPU reference: " + index["check"].get("error", "?"))
        else:
            inputs, expected = load_check(args, index)
            for name, dtype, kind in INPUTS:
                if list(inputs[name].shape) != shape_of(kind, entry["rows"], entry["cols"]):
                    errors.append("check.npz: input %s has shape %s" % (
                        name, list(inputs[name].shape)))
            if not errors:
                differing = oracle_check(index, inputs, expected)
                result["oracle"] = differing
                bad = {k: n for k, n in differing.items() if n}
                last = index["check"]["oracle_rows"] - 1
                if bad:
                    errors.append("the CPU's outputs differ from the numpy oracle's in rows "
                                  "0..%d: %s" % (last, ", ".join("%s %d" % kv
                                                                 for kv in bad.items())))
                else:
                    result["note"] = "rows 0..%d of the CPU's outputs are the oracle's" % last
    result.update(status="FAIL" if errors else "dry", error="; ".join(errors) or None)
    return result


def bytes_moved(rows, cols):
    """What one step must read and write: w, g, the codes and the group
    states in, w, the codes and the group states out."""
    n, groups = rows * cols, rows * groups_of(cols)
    return n * (4 + 4 + 1 + 1) + 2 * 5 * groups + n * (4 + 1 + 1) + 2 * 5 * groups


class Gpu(GpuPrograms):
    """torch and the runtime on the GPU."""

    def __init__(self, args):
        super().__init__(args, {"f32": "float32", "f8e4m3": "uint8", "i8": "int8"})

    def device(self, array):
        """A numpy array on the GPU (0-d arrays stay 0-d)."""
        return self.torch.from_numpy(np.array(array, order="C", copy=True)).cuda()

    def outputs(self, entry):
        """The outputs, filled with SENTINEL."""
        rows, cols = entry["rows"], entry["cols"]
        outs = []
        for _, dtype, kind in OUTPUTS:
            out = self.torch.empty(shape_of(kind, rows, cols), dtype=self.dtypes[dtype],
                                   device="cuda")
            outs.append(out.fill_(SENTINEL[dtype]))
        return outs

    def check(self, index, entry):
        """The check program on the stored inputs against the CPU's outputs."""
        torch = self.torch
        inputs, expected = load_check(self.args, index)
        ins = [self.device(inputs[name]) for name, _, _ in INPUTS]
        outs = self.outputs(entry)
        program, launch = self.load(entry, ins, outs)
        try:
            launch(sync=True)
            torch.cuda.synchronize()
            differing, first = {}, {}
            for (name, _, _), out in zip(OUTPUTS, outs):
                count, where = bit_differences(out.cpu().numpy(), expected[name])
                differing[name] = count
                if where is not None:
                    first[name] = where
        finally:
            program.close()
        ok = not any(differing.values())
        return dict(id=entry["id"], check=dict(ok=ok, differing=differing, first=first),
                    status="pass" if ok else "FAIL")

    def timing_inputs(self, entry, scalars):
        """Random inputs of the timing shape: w ~ N(0, 1), g N(0, 1) times
        a scale per row 10^U(-6, 1), codes of any finite value (v's
        non-negative), amax in [0.5, 1.5), exponents in -5..5."""
        torch = self.torch
        rows, cols = entry["rows"], entry["cols"]
        groups = groups_of(cols)
        gen = torch.Generator(device="cuda")
        gen.manual_seed(1)
        w = torch.randn((rows, cols), device="cuda", generator=gen)
        scale = torch.exp2(torch.rand((rows, 1), device="cuda", generator=gen)
                           * (7 * 3.3219281) - 6 * 3.3219281)
        g = torch.randn((rows, cols), device="cuda", generator=gen) * scale
        ins = [w, g]
        for moment in "mv":
            # 0..126: the magnitudes up to 448 (127 is the NaN code).
            codes = torch.randint(0, 127, (rows, cols), device="cuda", generator=gen,
                                  dtype=torch.uint8)
            if moment == "m":
                sign = torch.randint(0, 2, (rows, cols), device="cuda", generator=gen,
                                     dtype=torch.uint8)
                codes = codes + sign * 128
            amax = torch.rand((rows, groups), device="cuda", generator=gen) + 0.5
            exponents = torch.randint(-5, 6, (rows, groups), device="cuda", generator=gen,
                                      dtype=torch.int8)
            ins += [codes, amax, exponents]
        ins += [self.device(s) for s in scalars]
        return ins

    def time(self, entry, scalars):
        """The timing program: run once (every output must be written),
        then timed against a copy of w."""
        ins = self.timing_inputs(entry, scalars)
        return self.time_against_copy(entry, ins, self.outputs(entry),
                                      [(name, dtype) for name, dtype, _ in OUTPUTS], SENTINEL,
                                      bytes_moved(entry["rows"], entry["cols"]))

def report(args, index, results, env):
    check = index["check"]
    lines = report_header(
        "# fp8-mlir COAT AdamW step kernel: bit-exact check and bandwidth against a "
        "device-to-device copy",
        "Dry run: no GPU; manifests, launch lists and the CPU's outputs against the numpy "
        "oracle (rows 0..%d) checked only." % (check.get("oracle_rows", 0) - 1),
        args, index, env)
    lines += ["* The step: AdamW (b1 %g, b2 %g, eps %g, weight decay %g), lr %g, step %d; m "
              "and v as E4M3 codes + f32 amax + i8 exponent per group of %d "
              "(fp8-optimizer=recipe=coat)" % (HYPER["b1"], HYPER["b2"], HYPER["eps"],
                                               HYPER["wd"], check["lr"], check["t"], GROUP),
              "* Bytes moved per step: read w, g (4 + 4), m and v codes (1 + 1), their group "
              "state (5 per group each); write w, the codes and the group states%s" % "".join(
                  ": %.3f bytes per parameter at %dx%d" % (
                      bytes_moved(e["rows"], e["cols"]) / (e["rows"] * e["cols"]), e["rows"],
                      e["cols"]) for e in index["entries"] if e["id"] == "timing"),
              "* Target: %d%% of the copy's bandwidth" % round(TARGET * 100), "",
              "| program | shape | kernel | check | ours (us) | ours (GB/s) | copy (GB/s) "
              "| ours / copy |", "|---|---|---|---|---|---|---|---|"]
    details = []
    for e in index["entries"]:
        r = results.get(e["id"], dict(status="not compiled", error=e.get("error")))
        shape = "%dx%d, %d groups/row" % (e["rows"], e["cols"], e["groups"])
        kernel = r.get("kernel", "-")
        status = result_status(r)
        if "check" in r:
            details.append((e["id"], r["check"]))
        if "ours" in r:
            ratio = ratio_text(r, TARGET)
            lines.append("| %s | %s | %s | %s | %.1f | %.0f | %.0f | %s |" % (
                e["id"], shape, kernel, status, 1e3 * r["ours"]["median_ms"],
                r["ours"]["gbps"], r["copy"]["gbps"], ratio))
        else:
            lines.append("| %s | %s | %s | %s | - | - | - | - |" % (e["id"], shape, kernel,
                                                                  status))
    for role, c in details:
        lines += difference_table("the %s program" % role, c)
    return "\n".join(lines) + "\n"


def run_all(args):
    index = load_index(args.artifacts, "optimizer.py")
    env = {}
    entries = [e for e in index["entries"] if e["status"] == "ok"]
    if args.dry_run:
        results = run_each(entries, lambda e: dry_check(args, index, e))
    else:
        args.lib = ensure_runtime(args.lib, args.runtime_build)
        gpu = Gpu(args)
        env = gpu.environment()
        scalars = None
        if index["check"]["status"] == "ok":
            inputs, _ = load_check(args, index)
            scalars = [inputs[k] for k in ("lr", "b1t", "b2t")]

        def measure(e):
            if e["id"] != "check":
                lr = np.array(LR, np.float32)
                return gpu.time(e, scalars or [lr, *bias_corrections(T)])
            if scalars is None:
                raise RuntimeError("no CPU reference: " + index["check"]["error"])
            return gpu.check(index, e)
        results = run_each(entries, lambda e: run_program(args, e, structure_errors,
                                                          lambda: measure(e)))
    return finish_run(args.out, "optimizer.md", report(args, index, results, env),
                      env, index, results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    default_art = os.path.join(ROOT, "build-gpu", "optimizer")
    c = sub.add_parser("compile", help="compile the step and compute the CPU reference "
                       "(development machine)")
    add_compile_arguments(c, default_art)
    c.add_argument("--shape", type=parse_shape, default=(8192, 4096),
                   help="the timing shape (default 8192x4096)")
    c.add_argument("--check-shape", type=parse_shape, default=(1000, 1000),
                   help="the shape checked bit for bit (default 1000x1000)")
    r = sub.add_parser("run", help="check and time it (CUDA machine with torch)")
    add_run_arguments(r, default_art)
    args = parser.parse_args()
    if args.command == "compile":
        use_cpu_pipeline(args)
        sys.exit(compile_all(args))
    sys.exit(run_all(args))


if __name__ == "__main__":
    main()
