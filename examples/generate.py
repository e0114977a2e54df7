#!/usr/bin/env python3
"""Writes the example models of examples/ from fp8_mlir.models.

  python3 examples/generate.py           # rewrite the .mlir files
  python3 examples/generate.py --check   # fail if a file is out of date
  python3 examples/generate.py --sizes gpt2-small,4096 --out build/examples
  python3 examples/generate.py --seq 256 --width 512 --heads 8 --hidden 2048 \
      --out build/examples
  python3 examples/generate.py --train-step --out build/examples

Each file holds the forward graph and the backward graph of one model in
linalg on tensors (f32), as a framework importer would produce them; the
backward graph recomputes the forward output and returns it with the
gradients. bench/examples/error.py runs them through every recipe.

The committed files are the small size. --sizes names sizes of
fp8_mlir.models.SIZES (small, gpt2-small: 1024 tokens, width 768, 12 heads;
4096: 1024 tokens, width 4096, 32 heads; mlp-8k: the MLP block only, 8192
tokens, width 4096, MLP width 16384; ragged: 200 tokens, width 360, 5
heads, MLP width 1000, where no contraction dim is a multiple of 16), --seq/--width/--heads/--hidden give
one of their own (named `custom`); each size goes to OUT/<size>/ with the
committed layout (OUT/gpt2-small/gpt2/gpt2_layer.mlir). Real sizes are for
GPU checks and benchmarks (bench/gpu/models.py) and are never committed.

--train-step appends a third function to every file, @<model>_train_step
(fp8_mlir.models.train_step): the backward graph, then one AdamW step of
every parameter on f32 state (docs/numerics.md section 15), which
`fp8-opt --fp8-optimizer=recipe=coat|fp8lm` rewrites to keep the optimizer
state (and for fp8lm the master weights) in FP8 and FP16.
bench/examples/train.py trains with it. Files with the train step are not the
committed examples: --train-step needs --out (at any size, small included).
"""

import argparse
import inspect
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

from fp8_mlir import models  # noqa: E402

FILES = {
    "linear": "examples/linear/linear.mlir",
    "mlp_block": "examples/mlp/mlp_block.mlir",
    "attention_block": "examples/attention/attention_block.mlir",
    "gpt2_layer": "examples/gpt2/gpt2_layer.mlir",
    "llama_layer": "examples/llama/llama_layer.mlir",
}

DESCRIPTIONS = {
    "linear": "One linear layer without a bias: y = x w.",
    "mlp_block": "An MLP block with a residual: y = x + fc2(gelu(fc1(x))), fc layers with biases.",
    "attention_block": "A pre-LayerNorm causal multi-head self-attention block with a residual:\n"
                       "// y = x + out_proj(softmax(mask(q k^T / sqrt(d))) v), q, k and v projections\n"
                       "// of ln(x), heads as the batch dimension of linalg.batch_matmul.",
    "gpt2_layer": "A GPT-2-style pre-LayerNorm transformer layer: h = x + attn(ln_1(x)),\n"
                  "// y = h + mlp(ln_2(h)), with causal multi-head attention and a GELU MLP.",
    "llama_layer": "A LLaMA-style transformer layer: h = x + attn(rms_1(x)) with rotary\n"
                   "// embedding of the queries and keys, y = h + w2(silu(w1 n) * w3 n), n =\n"
                   "// rms_2(h); RMSNorm written out, no biases. rope_cos and rope_sin are the\n"
                   "// rotary tables (constants of the model: neither differentiated nor marked\n"
                   "// fp8.weight); rotate_half is two slices, a negation and a concatenation.",
}


def describe_sizes(name, sizes):
    """The sizes model `name` takes, in words."""
    words = dict(seq="%d tokens", width="width %d", heads="%d heads", hidden="MLP width %d")
    accepted = inspect.signature(models.MODELS[name]).parameters
    return ", ".join(words[k] % sizes[k] for k in words if k in accepted)


def render(name, size="small", sizes=None, train_step=False, storage="f32"):
    """The text of model `name` at `sizes` (default: the named size of
    models.SIZES); with train_step, the AdamW train step follows the forward
    and backward graphs. `storage` is the element type of every tensor
    (fp8_mlir.graph's Graph.emit): f32, or bf16 as a mixed-precision
    framework stores a model (no train step)."""
    assert storage == "f32" or not train_step, "the train step keeps f32 state"
    sizes = sizes or models.SIZES[size]
    forward, backward = models.build(name, sizes)
    params = ", ".join(p.attrs["name"] for p in forward.params)
    variant, path = "", FILES[name]
    if size != "small" or train_step or storage != "f32":
        options = (generate_options(size, sizes) + (" --train-step" if train_step else "")
                   + (f" --storage {storage}" if storage != "f32" else ""))
        what = (f"Size `{size}`" + (" with the train step" if train_step else "")
                + (f" in {storage}" if storage != "f32" else ""))
        variant = f"""
// {what}, not committed: examples/generate.py {options}"""
        if storage != "f32":
            variant += f"""
// Every tensor is {storage}: elementwise ops compute in f32 and round their
// result, contractions and sums accumulate in f32 and round, in the manner
// of eager PyTorch in {storage}."""
        path = os.path.join("DIR", size, os.path.relpath(path, "examples"))
    step = ""
    if train_step:
        trained = [p.attrs["name"] for p in models.parameters(forward)]
        step = f"""
//
// @{name}_train_step(x, d_0, {", ".join(trained)}, then their first
//     moments <p>_m and second moments <p>_v, lr, b1t, b2t)
//   -> (y, new parameters, new first moments <p>_m, new second moments <p>_v)
//   calls the backward graph, then takes one AdamW step of every parameter
//   on f32 state (docs/numerics.md section 15; b1 = {models.ADAM_B1}, b2 = {models.ADAM_B2},
//   eps = {models.ADAM_EPS}, weight decay {models.WEIGHT_DECAY} for matrices, none for vectors).
//   lr and the bias corrections b1t = 1 - b1^t, b2t = 1 - b2^t are tensor<f32>.
//   Through the FP8 optimizer state (recipe=fp8lm for FP8-LM's) and the CPU pipeline:
//   fp8-opt {path} --fp8-optimizer=recipe=coat --fp8-cpu-pipeline
//   Training runs with it: bench/examples/train.py."""
    header = f"""// Generated by examples/generate.py from python/fp8_mlir/models.py; do not edit.
//
// {DESCRIPTIONS[name]}
// Sizes: {describe_sizes(name, sizes)}.{variant}
//
// @{forward.name}({params}) -> y
// @{backward.name}(..., d_0) -> (y, dx, then the gradient of every parameter)
//   recomputes the forward pass and differentiates sum(y * d_0). Its
//   contractions carry fp8.role (dgrad: gradient of the left operand, wgrad:
//   of the right) and fp8.grad_operand, so fp8-autocast gives the gradient
//   operand the gradient format; gradient nonlinearities carry fp8.unit_op.
//   The parameters carry fp8.weight and both functions fp8.prepare_group:
//   fp8-prepare-weights (or fp8-gpu-pipeline{{prepare-weights=1}}) computes
//   what only the weights determine once per weight update, for both
//   functions, in @{name}_prepare.
//
// Through a recipe and the CPU pipeline:
//   fp8-opt {path} --fp8-autocast=recipe=mxfp8 --fp8-cpu-pipeline
// Error of every recipe against float64: bench/examples/error.py.{step}

"""
    weights = {p.attrs["name"] for p in models.parameters(forward)}
    text = (header + forward.emit(storage=storage, weights=weights, prepare_group=name) + "\n"
            + backward.emit(storage=storage, weights=weights, prepare_group=name))
    if train_step:
        text += "\n" + models.train_step(forward, backward)
    return text


def generate_options(size, sizes):
    """The options that regenerate a size (the --out folder left to say)."""
    if size != "custom":
        return f"--sizes {size} --out DIR"
    return " ".join(f"--{k} {sizes[k]}" for k in DIMS) + " --out DIR"


DIMS = ("seq", "width", "heads", "hidden")


def requested_sizes(args, parser):
    """[(name, sizes)] from --sizes and --seq/--width/--heads/--hidden."""
    custom = {k: getattr(args, k) for k in DIMS if getattr(args, k) is not None}
    result = []
    for size in filter(None, (args.sizes or "").split(",")):
        if size not in models.SIZES:
            parser.error(f"unknown size {size!r} (sizes: {', '.join(models.SIZES)})")
        result.append((size, models.SIZES[size]))
    if custom:
        missing = [k for k in DIMS if k not in custom]
        if missing:
            parser.error("a custom size needs --" + ", --".join(missing))
        if custom["width"] % custom["heads"]:
            parser.error("--width must be a multiple of --heads")
        result.append(("custom", custom))
    return result or [("small", models.SIZES["small"])]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true",
                        help="fail if a file differs from what would be written")
    parser.add_argument("--sizes", help="comma-separated sizes of fp8_mlir.models.SIZES "
                        "(default: small)")
    for dim in DIMS:
        parser.add_argument(f"--{dim}", type=int, help=f"{dim} of a custom size")
    parser.add_argument("--out", help="write OUT/<size>/<model file> instead of the "
                        "committed examples (required for any size but small)")
    parser.add_argument("--train-step", action="store_true",
                        help="append @<model>_train_step, an AdamW step on f32 state "
                        "(needs --out)")
    parser.add_argument("--storage", choices=("f32", "bf16"), default="f32",
                        help="element type of every tensor (bf16: as a mixed-precision "
                        "framework stores the model; needs --out)")
    args = parser.parse_args()
    sizes = requested_sizes(args, parser)
    if args.storage != "f32" and (args.out is None or args.train_step):
        parser.error("--storage bf16 needs --out and no --train-step")
    if args.out is None and any(size != "small" for size, _ in sizes):
        parser.error("sizes other than small are not committed: give --out")
    if args.out is None and args.train_step:
        parser.error("the train step is not in the committed examples: give --out")
    stale = []
    for size, dims in sizes:
        for name, path in FILES.items():
            if not models.has_size(name, size):
                continue
            text = render(name, size, dims, args.train_step, args.storage)
            full = (os.path.join(ROOT, path) if args.out is None
                    else os.path.join(args.out, size, os.path.relpath(path, "examples")))
            if args.check:
                if not os.path.exists(full) or open(full).read() != text:
                    stale.append(full if args.out else path)
            else:
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as f:
                    f.write(text)
    if stale:
        print("out of date (run examples/generate.py): " + ", ".join(stale))
        return 1
    print("examples up to date" if args.check else "examples written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
