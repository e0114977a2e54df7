#!/usr/bin/env python3
"""Trains an example model with its AdamW train step on the CPU, with the
optimizer state in f32 and in the FP8 layouts of fp8-optimizer.

The model (default the MLP block, at SIZES: the examples' small size with 32
tokens and an MLP width of 256) learns a synthetic regression:
a teacher of the same architecture with other seeded parameters gives the
targets t = teacher(x) of fresh N(0, 1) inputs x at every step (seeded, the
same for every variant). The loss is L = mean((y - t)^2) / 2, so the output
gradient is d_0 = (y - t) / y.size. Each step calls @<model>_forward for y,
computes L and d_0 in numpy, then calls @<model>_train_step
(fp8_mlir.models.train_step) with the stored state and lr, b1t = 1 - b1^t,
b2t = 1 - b2^t; the state it returns is the next step's.

Variants (--recipes), all compiled in this process (fp8_mlir.compiler, then
fp8_mlir.execution's JIT after fp8-cpu-pipeline):

  f32            the train step as generated: f32 parameters and moments
  coat           fp8-optimizer{recipe=coat}: both moments in E4M3 with one
                 f32 amax and one i8 expansion exponent per group of 128
                 (docs/numerics.md section 14)
  coat-noexpand  the same layout with expansion-limit=0: plain per-group
                 scaling, what range expansion is measured against
  fp8lm          fp8-optimizer{recipe=fp8lm}: master weight and v in f16, m
                 in E4M3, each with a per-tensor decode scale (section 15)

The pass replaces every state argument and result in place by its stored
parts; LAYOUTS says which parts each recipe stores.

Printed: the loss on a fixed evaluation batch every --every steps per
variant, the time per step, the final loss's relative gap to f32's, and for
the FP8 variants the error of the decoded second moment against the f32
run's at the end (relative L2, and the mean relative error per element,
where range expansion shows), and the bytes of stored state (weight, m, v)
per parameter. That error includes the runs' divergence,
which is small: in a numpy emulation of the layouts it is 0.6% for fp8lm,
whose f16 v is nearly exact, against 8% for coat and 28% for coat-noexpand.

  python3 bench/examples/train.py [--steps 300] [--lr 1e-3]
      [--recipes f32,coat,coat-noexpand,fp8lm] [--seq 64 --width 128
      --hidden 512] [--check]

--check fails unless every variant's first step is the numpy oracle's bit
for bit (the backward graph's gradients, models.adamw_reference on the
decoded state, the new state encoded as LAYOUTS says with fp8_mlir.numerics;
seconds per FP8 variant, its encoders run per element), every loss is
finite, the f32 run learns (LEARNS), and every variant's final loss is
within LOSS_GAP of f32's.
"""

import argparse
import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from fp8_mlir import compiler  # noqa: E402
from fp8_mlir import models  # noqa: E402
from fp8_mlir import numerics as n  # noqa: E402

RECIPES = ["f32", "coat", "coat-noexpand", "fp8lm"]

# The examples' small size with half the tokens and half the MLP width: a
# step takes about 7 ms (300 steps of f32 in 2 s) against 53 ms at the small
# size, and every group of 128 is still whole.
SIZES = dict(models.SIZES["small"], seq=32, hidden=256)

# The pass pipeline that gives each variant its state layout (run before
# fp8-cpu-pipeline, which the JIT applies).
PASSES = {
    "f32": None,
    "coat": "fp8-optimizer{recipe=coat}",
    "coat-noexpand": "fp8-optimizer{recipe=coat expansion-limit=0}",
    "fp8lm": "fp8-optimizer{recipe=fp8lm}",
}

# COAT's groups: 128 consecutive elements of the last dimension.
GROUP = [128]

# --check: the largest relative gap |L - L_f32| / L_f32 of the final loss.
# Twice the worst gap measured with the FP8 layouts emulated in numpy (the f32
# train step's gradients, models.adamw_reference, then the state round-tripped
# through the encodings of numerics.md sections 14 and 15 after every step,
# bit for bit what fp8_mlir.numerics gives): at 300 steps the final loss is
# 0.4% (coat), 2.4% (coat-noexpand) and 0.3% (fp8lm) off f32's, and under
# 2.5% for every variant at 1000 steps and at the examples' small size.
LOSS_GAP = 0.05
# The f32 run must at least halve the evaluation loss, or the task (or the
# train step) is broken and the gaps mean nothing. On the default task 100
# steps take it to 32% of the initial loss, 300 steps to 17%.
LEARNS = 0.5


class F32:
    """State kept as it is: one f32 tensor."""

    def parts(self, shape):
        return [(tuple(shape), "f32")]

    def encode(self, value):
        return [np.asarray(value, np.float32)]

    def decode(self, parts):
        return parts[0]


class Expanded:
    """fp8.expand_quantize's state (section 14): E4M3 codes (uint8), f32
    amax and i8 exponent per group of GROUP, expansion exponents up to
    `limit` (0: plain per-group scaling)."""

    def __init__(self, limit=n.EXPAND_LIMIT):
        self.limit = limit

    def parts(self, shape):
        groups = n.scale_shape(shape, GROUP)
        return [(tuple(shape), "f8E4M3FN"), (groups, "f32"), (groups, "i8")]

    def encode(self, value):
        if not np.any(value):
            # What expand_quantize gives for zeros (codes, amax, exponents
            # 0), without its per-element loops.
            groups = n.scale_shape(value.shape, GROUP)
            return [np.zeros(value.shape, np.uint8), np.zeros(groups, np.float32),
                    np.zeros(groups, np.int8)]
        codes, amax, exponents = n.expand_quantize(value, GROUP, limit=self.limit)
        return [codes.astype(np.uint8), amax, exponents.astype(np.int8)]

    def decode(self, parts):
        codes, amax, exponents = parts
        return n.expand_dequantize(codes, amax, exponents, GROUP)


class ScaledF16:
    """FP8-LM's master weight and second moment (section 15): f16 values
    and an f32 decode scale 1/s per tensor (shape [1] * rank), s the pow2
    scale of the current amax with fmax 65504 (1 for zeros)."""

    def parts(self, shape):
        return [(tuple(shape), "f16"), ((1,) * len(shape), "f32")]

    def encode(self, value):
        values, s = n.scaled_f16_encode(value)
        decode = np.float32(1) / np.float32(s)
        return [values, np.full((1,) * value.ndim, decode, np.float32)]

    def decode(self, parts):
        values, scale = parts
        return n.scaled_f16_decode(values, np.float32(1) / scale.reshape(-1)[0])


class ScaledE4M3:
    """FP8-LM's first moment (section 15): E4M3 codes (uint8) and an f32
    decode scale per tensor (shape [1] * rank), the pow2 rule of the current
    amax (decode scale 1 for zeros)."""

    def parts(self, shape):
        return [(tuple(shape), "f8E4M3FN"), ((1,) * len(shape), "f32")]

    def encode(self, value):
        if not np.any(value):
            return [np.zeros(value.shape, np.uint8), np.ones((1,) * value.ndim, np.float32)]
        codes, decode = n.dynamic_quantize(value, None, "pow2", "f8E4M3FN")
        return [codes.astype(np.uint8), decode.astype(np.float32)]

    def decode(self, parts):
        codes, scale = parts
        return n.dequantize(codes, scale, None, "f8E4M3FN")


# How each recipe stores (parameter, first moment, second moment): the parts
# that replace each f32 argument and result of the train step, in order.
LAYOUTS = {
    "f32": (F32(), F32(), F32()),
    "coat": (F32(), Expanded(), Expanded()),
    "coat-noexpand": (F32(), Expanded(limit=0), Expanded(limit=0)),
    "fp8lm": (ScaledF16(), ScaledE4M3(), ScaledF16()),
}


class State:
    """The training state of one variant: per parameter, the stored parts of
    the parameter, of m and of v, flattened in the train step's order."""

    def __init__(self, recipe, shapes, values):
        self.layout = LAYOUTS[recipe]
        self.shapes = shapes  # name -> shape, in parameter order
        zero = {k: np.zeros(s, np.float32) for k, s in shapes.items()}
        self.parts = [codec.encode(source[k])
                      for codec, source in zip(self.layout, (values, zero, zero))
                      for k in shapes]

    def types(self):
        """(shape, element) of every flattened part, in order."""
        return [part for codec in self.layout for s in self.shapes.values()
                for part in codec.parts(s)]

    def flat(self):
        return [p for parts in self.parts for p in parts]

    def bytes_per_parameter(self):
        """Bytes of the stored weight, m and v per parameter (the train
        step's state arguments; gradients are not state)."""
        sizes = {"f32": 4, "f16": 2, "f8E4M3FN": 1, "i8": 1}
        stored = sum(int(np.prod(shape)) * sizes[element] for shape, element in self.types())
        return stored / sum(int(np.prod(s)) for s in self.shapes.values())

    def update(self, flat):
        """Takes the state the train step returned (flattened)."""
        flat = list(flat)
        for i, parts in enumerate(self.parts):
            self.parts[i] = flat[:len(parts)]
            flat = flat[len(parts):]
        assert not flat

    def decoded(self, which):
        """The f32 values of 'w', 'm' or 'v' by parameter name."""
        k = "wmv".index(which)
        count = len(self.shapes)
        codec = self.layout[k]
        return {name: codec.decode(parts) for name, parts in
                zip(self.shapes, self.parts[k * count:(k + 1) * count])}


def check_signature(signature, state, x_shape):
    """Raises with a readable diff when the compiled train step's arguments
    or results are not the layout LAYOUTS gives."""
    def spelled(types):
        return [f"{tuple(t.shape)} {t.element}" if hasattr(t, "shape") else str(t) for t in types]

    scalar = [((), "f32")] * 3
    want_in = [(x_shape, "f32"), (x_shape, "f32")] + state.types() + scalar
    want_out = [(x_shape, "f32")] + state.types()
    for what, want, got in (("arguments", want_in, signature.inputs),
                            ("results", want_out, signature.results)):
        want = [f"{tuple(s)} {e}" for s, e in want]
        got = spelled(got)
        if want != got:
            raise SystemExit(f"@{signature.name}: {what} are not the layout of LAYOUTS:\n"
                             f"  expected {want}\n  compiled {got}")


def flattened(values):
    """The arrays of a dict, raveled and concatenated."""
    return np.concatenate([a.reshape(-1) for a in values.values()])


def relative(ref, got):
    ref = np.asarray(ref, np.float64)
    got = np.asarray(got, np.float64)
    return float(np.linalg.norm(got - ref) / np.linalg.norm(ref))


def mean_relative(ref, got):
    """Mean of |got - ref| / |ref| over the nonzero elements of ref."""
    ref = np.asarray(ref, np.float64)
    got = np.asarray(got, np.float64)
    nonzero = ref != 0
    return float(np.mean(np.abs(got[nonzero] - ref[nonzero]) / np.abs(ref[nonzero])))


class Task:
    """The model, its module text, the student's initial parameters and the
    data: per step a batch (x, t), and a fixed evaluation batch."""

    def __init__(self, model, sizes, steps, seed=0):
        self.model = model
        self.forward, self.backward = models.build(model, sizes)
        self.text = (self.forward.emit() + "\n" + self.backward.emit() + "\n"
                     + models.train_step(self.forward, self.backward))
        self.params = models.parameters(self.forward)
        self.shapes = {p.attrs["name"]: p.shape for p in self.params}
        self.x_shape = self.forward.params[0].shape
        student = models.feeds(self.forward, seed=seed)
        teacher = models.feeds(self.forward, seed=seed + 1)
        self.initial = {k: student[k] for k in self.shapes}
        teacher = [teacher[k] for k in self.shapes]
        forward = compiler.jit(compiler.parse(self.forward.emit()))[self.forward.name]

        def batch(rng):
            x = rng.standard_normal(self.x_shape).astype(np.float32)
            return x, forward(x, *teacher)[0]

        self.evaluation = batch(np.random.default_rng(seed + 2000))
        rng = np.random.default_rng(seed + 1000)
        self.batches = [batch(rng) for _ in range(steps)]


def loss_of(y, t):
    diff = y.astype(np.float64) - t
    return 0.5 * float(np.mean(diff * diff))


def train(task, recipe, steps, lr, every, check_first=False):
    """Runs one variant; returns (evaluation losses by step, the final state,
    seconds per step, the first step's differences from the numpy oracle
    when check_first)."""
    module = compiler.parse(task.text, f"{task.model}_train_step.mlir")
    if PASSES[recipe]:
        module.run(PASSES[recipe])
    program = compiler.jit(module)
    forward = program[task.forward.name]
    step_fn = program[f"{task.model}_train_step"]
    state = State(recipe, task.shapes, task.initial)
    check_signature(step_fn.signature, state, task.x_shape)
    names = list(task.shapes)
    lr32 = np.array(lr, np.float32)
    losses, differences = {}, []
    seconds = 0.0

    def evaluate():
        x, t = task.evaluation
        w = state.decoded("w")
        return loss_of(forward(x, *(w[k] for k in names))[0], t)

    for s in range(steps):
        if s % every == 0:
            losses[s] = evaluate()
        x, t = task.batches[s]
        start = time.perf_counter()
        w = state.decoded("w")
        y = forward(x, *(w[k] for k in names))[0]
        d_0 = ((y - t) / np.float32(y.size)).astype(np.float32)
        b1t = np.array(1 - models.ADAM_B1 ** (s + 1), np.float32)
        b2t = np.array(1 - models.ADAM_B2 ** (s + 1), np.float32)
        if check_first and s == 0:
            before = {c: state.decoded(c) for c in "wmv"}
        out = step_fn(x, d_0, *state.flat(), lr32, b1t, b2t)
        state.update(out[1:])
        seconds += time.perf_counter() - start
        if check_first and s == 0:
            differences = oracle_differences(task, program, state, before, x, d_0, out,
                                             lr32, b1t, b2t)
    losses[steps] = evaluate()
    return losses, state, seconds / max(steps, 1), differences


def oracle_differences(task, program, state, before, x, d_0, out, lr, b1t, b2t):
    """One step's results against the numpy oracle, bit for bit: the backward
    graph's gradients (at the decoded parameters), fp8_mlir.models'
    AdamW step on the decoded state, the new state encoded as the layout
    says (numerics.md sections 14 and 15). Returns what differs."""
    names = list(task.shapes)
    w, m, v = (before[c] for c in "wmv")
    grads = program[task.backward.name](x, *(w[k] for k in names), d_0)
    want = models.adamw_reference(task.forward, w, dict(zip(names, grads[2:])), m, v,
                                  lr, b1t, b2t)
    expected = [part for codec, values in zip(state.layout, want) for k in names
                for part in codec.encode(values[k])]
    labels = [f"{c} {k} part {i}" for codec, c in zip(state.layout, "wmv") for k in names
              for i in range(len(codec.parts(task.shapes[k])))]
    bad = [] if np.array_equal(out[0], grads[0]) else ["y"]
    for label, a, b in zip(labels, expected, out[1:]):
        if a.dtype != b.dtype or a.shape != b.shape:
            bad.append(f"{label}: expected {a.dtype} {a.shape}, got {b.dtype} {b.shape}")
            continue
        differ = int(np.sum(a.view(f"u{a.itemsize}") != b.view(f"u{b.itemsize}")))
        if differ:
            bad.append(f"{label}: {differ} of {a.size} differ")
    return bad


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mlp_block", choices=list(models.MODELS))
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--every", type=int, default=25, help="evaluate every N steps")
    parser.add_argument("--recipes", default=",".join(RECIPES))
    for dim in ("seq", "width", "heads", "hidden"):
        parser.add_argument(f"--{dim}", type=int, default=SIZES[dim],
                            help=f"default {SIZES[dim]}; the examples' small size: "
                            f"{models.SIZES['small'][dim]}")
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    recipes = args.recipes.split(",")
    for r in recipes:
        if r not in PASSES:
            parser.error(f"unknown variant {r!r} (variants: {', '.join(PASSES)})")
    if "f32" not in recipes:
        recipes.insert(0, "f32")  # the reference of the gaps
    sizes = {k: getattr(args, k) for k in ("seq", "width", "heads", "hidden")}

    task = Task(args.model, sizes, args.steps)
    results = {}
    failures = []
    for recipe in recipes:
        losses, state, per_step, bad = train(task, recipe, args.steps, args.lr, args.every,
                                             check_first=args.check)
        results[recipe] = (losses, state, per_step)
        failures += [f"{recipe}: the first step differs from the numpy oracle: {b}"
                     for b in bad]

    size = " ".join(f"{k} {v}" for k, v in sizes.items())
    total = sum(int(np.prod(s)) for s in task.shapes.values())
    print(f"{args.model} ({size}; {total} parameters), {args.steps} AdamW steps, "
          f"lr {args.lr:g}; loss on the evaluation batch")
    print(f"{'step':>6} " + " ".join(f"{r:>14}" for r in recipes))
    for s in results["f32"][0]:
        print(f"{s:>6} " + " ".join(f"{results[r][0][s]:>14.6g}" for r in recipes))
    print(f"{'ms/step':>6} " + " ".join(f"{1e3 * results[r][2]:>14.2f}" for r in recipes))

    final = {r: results[r][0][args.steps] for r in recipes}
    reference = final["f32"]
    v_f32 = flattened(results["f32"][1].decoded("v"))
    print(f"\n{'variant':<14} {'state B/param':>13} {'loss gap':>10} {'v rel L2':>10} "
          f"{'v mean rel':>11}")
    for r in recipes:
        gap = abs(final[r] - reference) / reference
        cells = f"{results[r][1].bytes_per_parameter():>13.3f} {100 * gap:>9.3g}%"
        if r != "f32":
            v = flattened(results[r][1].decoded("v"))
            cells += (f" {100 * relative(v_f32, v):>9.3g}%"
                      f" {100 * mean_relative(v_f32, v):>10.3g}%")
        print(f"{r:<14} {cells}")
        if not all(np.isfinite(list(results[r][0].values()))):
            failures.append(f"{r}: a loss is not finite")
        elif not gap <= LOSS_GAP:
            failures.append(f"{r}: final loss {final[r]:.6g} is {100 * gap:.3g}% off "
                            f"f32's {reference:.6g} (limit {100 * LOSS_GAP:g}%)")
    start = results["f32"][0][0]
    if not reference <= LEARNS * start:
        failures.append(f"f32: the loss went from {start:.6g} to {reference:.6g}, "
                        f"not below {LEARNS:g} of it")
    if args.check:
        for failure in failures:
            print("FAIL: " + failure)
        print("training within bounds" if not failures else f"{len(failures)} checks failed")
        return 1 if failures else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
