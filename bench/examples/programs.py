"""The example programs as the verification scripts run them: which files
and functions, their inputs, the passes of each recipe, and CPU runs through
fp8-cpu-pipeline.

Used by bench/examples/staged.py (the GPU pipeline's graph stages against
the unstaged graph, on the CPU) and bench/gpu/models.py (the CPU results a
GPU run is compared with). Everything but `cpu_run` and `entry_points`
needs numpy only, so that the GPU side can rebuild the inputs.
"""

import os
import re
import sys
import zlib

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "examples"))

from fp8_mlir import models  # noqa: E402
from generate import FILES, render  # noqa: E402

# Every example file: the generated models (at every size), and the
# hand-written MLP of the README (small only).
EXAMPLES = dict(FILES, mlp="examples/mlp/mlp.mlir")
RECIPES = ["tensor-current", "tensor-delayed", "rowwise", "deepseek", "mxfp8", "nvfp4",
           "graphcore", "unit"]
CHIPS = ["sm_90a", "sm_100a"]


def sizes_of(example):
    """The sizes an example exists in."""
    if example not in FILES:
        return ["small"]
    return [size for size in models.SIZES if models.has_size(example, size)]


def source(example, size="small", storage="f32"):
    """The MLIR text of an example: the committed file, or what
    examples/generate.py writes for a real size or another storage type
    (`--storage bf16`)."""
    if size == "small" and storage == "f32":
        with open(os.path.join(ROOT, EXAMPLES[example])) as f:
            return f.read()
    if example not in FILES:
        raise ValueError(f"{example} has no size {size}" if storage == "f32"
                         else f"{example} exists in f32 only")
    return render(example, size, storage=storage)


def autocast_options(recipe, options=""):
    """fp8-autocast's options for a recipe (fp8-opt --fp8-autocast=OPTIONS),
    with more options if given (e.g. "fp8-attention=true")."""
    return f"recipe={recipe}{' ' + options if options else ''}"


def autocast(recipe, options=""):
    """The pass pipeline that applies a recipe, as autocast_options."""
    return f"fp8-autocast{{{autocast_options(recipe, options)}}}"


def steps(module_text):
    """Calls per function: two when the program keeps state (delayed
    scaling's amax histories, the call counter of NVFP4's stochastic
    rounding), so that the second call reads state the first wrote."""
    return 2 if "ml_program.global" in module_text else 1


def entry_points(module):
    """The signatures (fp8_mlir.compiler.Signature) of the functions a host
    calls: public, with statically shaped f32 tensor arguments and at least
    one result, every result such a tensor (what fp8-gpu-pipeline compiles
    by default)."""

    def static(t):
        return hasattr(t, "shape") and all(d >= 0 for d in t.shape)

    return [s for s in module.signatures()
            if s.results and all(static(t) for t in s.inputs + s.results)]


def inputs(example, size, function, types):
    """The arguments of `function` (a list of compiler.TensorType or
    (shape, element) pairs): models.feeds for the generated models, seeded
    N(0, 1) otherwise. Deterministic: prepare and run rebuild the same
    arrays."""
    model, _, kind = function.rpartition("_")
    if example in FILES and model == example and kind in ("forward", "backward"):
        forward, backward = models.build(example, models.SIZES[size])
        graph = forward if kind == "forward" else backward
        feeds = models.feeds(graph)
        result = [feeds[p.attrs["name"]] for p in graph.params]
    else:
        result = []
        for i, t in enumerate(types):
            rng = np.random.default_rng(zlib.crc32(f"{example}:{function}:{i}".encode()))
            result.append(rng.standard_normal(tuple(_shape(t))).astype(np.float32))
    for i, (array, t) in enumerate(zip(result, types)):
        if tuple(array.shape) != tuple(_shape(t)):
            raise ValueError(f"@{function} argument {i}: input of shape {array.shape}, "
                             f"expected {tuple(_shape(t))}")
    return result


def _shape(t):
    return t.shape if hasattr(t, "shape") else t[0]


def cpu_run(module, functions, feeds, nsteps, opt_level=0):
    """Runs each function of `functions` (names) `nsteps` times on its feeds
    through fp8-cpu-pipeline and the ExecutionEngine; returns {name: [the
    outputs of each call]}. A program with state gets one fresh engine per
    function, as a GPU manifest loads its state buffers afresh; every
    function otherwise shares one. The optimization level changes no result
    (no fast-math), only the compile time, which dominates at opt_level 2."""
    from fp8_mlir import compiler

    results = {}
    program = None
    for name in functions:
        if program is None or nsteps > 1:
            program = compiler.jit(module, opt_level)
        results[name] = [program.call(name, *feeds[name]) for _ in range(nsteps)]
    return results


def weight_indices(module_text, function):
    """The argument numbers of `function` that carry fp8.weight, read from
    the printed module: what @<function>_prepare takes, in order."""
    match = re.search(r"func\.func @" + re.escape(function) + r"\((.*?)\) ->", module_text)
    if match is None:
        raise ValueError(f"no @{function} in the module")
    arguments = re.findall(r"%[\w.$-]+: [^,{]+(\{[^}]*\})?", match.group(1))
    return [i for i, attrs in enumerate(arguments) if "fp8.weight" in attrs]


def cpu_run_prepared(module, functions, feeds, nsteps, weights, opt_level=0):
    """cpu_run of a module that fp8-prepare-weights split: each function of
    `functions` that takes the results of a prepare function (its own
    @<name>_prepare, or its prepare group's) takes, after its own feeds,
    the results it reads of what the prepare function returns for its
    weights (the feeds numbered `weights[name]`). A prepare function runs
    once, for every function and call that takes its results (the functions
    of a group read the same weights); with `nsteps` > 1 each function's
    calls have a fresh engine of their own, as in cpu_run, and the prepared
    values are computed again in it."""
    from fp8_mlir import compiler

    signatures = {s.name: s for s in module.signatures()}
    results = {}
    program = None
    prepared = {}
    for name in functions:
        if program is None or nsteps > 1:
            program = compiler.jit(module, opt_level)
            prepared = {}
        signature = signatures[name]
        taken = []
        if signature.prepare:
            if signature.prepare not in prepared:
                prepared[signature.prepare] = list(program.call(
                    signature.prepare, *[feeds[name][i] for i in weights[name]]))
            values = prepared[signature.prepare]
            taken = [values[n] for n in signature.prepared if n is not None]
        results[name] = [program.call(name, *feeds[name], *taken) for _ in range(nsteps)]
    return results


def differing(a, b):
    """None when two arrays hold the same bits (NaNs included), else what
    differs."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype != b.dtype:
        return f"{a.dtype}{list(a.shape)} against {b.dtype}{list(b.shape)}"
    bits = np.dtype(f"u{a.dtype.itemsize}") if a.dtype.itemsize in (1, 2, 4, 8) else None
    if bits is None:
        return None if a.tobytes() == b.tobytes() else "the bytes differ"
    bad = int((a.view(bits) != b.view(bits)).sum())
    return f"{bad} of {a.size} elements differ" if bad else None
