#!/usr/bin/env python3
"""Checks the PyTorch front end's CUDA path: fp8_mlir.torch.compile on CUDA
tensors, forward and backward through torch autograd.

The kernels are checked by models.py; this checks what lies around them on
the CUDA path: the order of the program's inputs (arguments, parameters,
buffers, constant tables, masks given as integers), the conversion of the
outputs, the gradients handed back to autograd, and the prepared weights'
reuse and recomputation after an optimizer-like update. Two steps, like the
other GPU scripts (bench/gpu/README.md):

  * on a development machine, `compile` builds each case's module (seeded),
    exports it for the chip (fp8_mlir.torch.export: PTX, cubins, manifests,
    and the record of what they were compiled from), runs it through the CPU
    pipeline (fp8_mlir.torch.compile on CPU tensors) forward and backward on
    seeded inputs and output gradients, and stores the state, the inputs and
    the CPU's results in case.pt, into build-gpu/frontend/<case>/:

      python3 bench/gpu/frontend.py compile [--only REGEX]

  * on a CUDA machine with torch and the runtime (no compiler), `run` builds
    each module again with the stored state, compiles it on CUDA tensors with
    `artifacts=` the exported folder (which it runs without compiling: a
    mismatch is an error, as the machine has no compiler), runs forward and
    backward, and compares every output and gradient with the CPU's:

      python3 bench/gpu/frontend.py run [--out DIR]

    The case `mlp-prepared` then scales a weight in place and runs again:
    the prepared weights must be recomputed, and the results are compared
    with the CPU's for the scaled weight.

A result passes when its relative L2 distance to the CPU's is at most f (2^-8;
the GEMMs sum in another order and the GPU has its own exp, and an ulp can
round an FP8 code the other way), or, for FP8 drift (models.py's
TOLERANCE_TEXT), when its error against the float64 module (on the GPU) is
at most the CPU's times 1 + 2^-3, plus f; NaN and infinity must be where the
CPU has them. The report goes to DIR/frontend.md (and results.json) or
stdout; the exit status is 1 unless every case passed.

`run --dry-run` needs no GPU: it imports each module again on the CPU and
checks that the exported artifacts are found for it (the same lookup the
CUDA path makes) and that each manifest's inputs are the module's.
"""

import argparse
import functools
import importlib.util
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, HERE)

from compile import git  # noqa: E402  (bench/gpu/compile.py)
from reductions import ensure_runtime, finish_run, load_index  # noqa: E402

FRO_LIMIT = 2.0 ** -8
DRIFT_SLACK = 2.0 ** -3


@functools.lru_cache(maxsize=None)
def _modules():
    """The case modules' classes, made once (torch imported only when
    needed)."""
    import torch
    import torch.nn as nn

    # The front end's test models (test/python/pytorch/Inputs/models.py; not
    # bench/gpu/models.py).
    spec = importlib.util.spec_from_file_location(
        "frontend_models", os.path.join(ROOT, "test", "python", "pytorch", "Inputs",
                                        "models.py"))
    models = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(models)

    class Padded(nn.Module):
        """nn.MultiheadAttention with a padding mask from a buffer."""

        def __init__(self):
            super().__init__()
            self.ln = nn.LayerNorm(64)
            self.attn = nn.MultiheadAttention(64, 4, batch_first=True)
            self.fc = nn.Linear(64, 64)
            self.register_buffer("lengths", torch.tensor([[28], [32]]))

        def forward(self, x):
            h = self.ln(x)
            padded = torch.arange(x.size(1), device=x.device)[None, :] >= self.lengths
            x = x + self.attn(h, h, h, key_padding_mask=padded, need_weights=False)[0]
            return x + self.fc(torch.relu(x))

    return dict(MLP=models.MLP, Block=models.Block, LlamaBlock=models.LlamaBlock,
                Gated=models.Gated, Padded=Padded)


def _inputs(torch, name):
    generator = torch.Generator().manual_seed(7)
    if name == "MLP":
        return (torch.randn(128, 64, generator=generator),)
    x = torch.randn(2, 32, 64, generator=generator)
    if name == "Gated":
        mask = torch.ones(2, 32, dtype=torch.long)
        mask[0, 20:] = 0
        return (x, mask)
    return (x,)


# id, module, recipe, prepare_weights
CASES = [
    ("mlp", "MLP", "deepseek", False),
    ("mlp-prepared", "MLP", "tensor-current", True),
    ("block", "Block", "tensor-current", False),
    ("llama", "LlamaBlock", "deepseek", False),
    ("gated", "Gated", "deepseek", False),
    ("padded", "Padded", "deepseek", False),
]


def build(torch, name, state=None):
    torch.manual_seed(0)
    module = _modules()[name]().eval()
    if state is not None:
        module.load_state_dict(state)
    return module


def forward_backward(torch, compiled, module, inputs, seed):
    """The outputs and the gradients of the float inputs and parameters for
    the output gradient drawn from `seed`."""
    feeds = [t.clone().requires_grad_() if t.is_floating_point() else t for t in inputs]
    module.zero_grad(set_to_none=True)
    y = compiled(*feeds)
    generator = torch.Generator().manual_seed(seed)
    dy = torch.randn(y.shape, generator=generator).to(y.device, y.dtype)
    y.backward(dy)
    grads = [f.grad for f in feeds if f.is_floating_point()]
    grads += [p.grad for p in module.parameters()]
    return [y.detach()] + [g.detach() if g is not None else None for g in grads]


def scale_weight(torch, module):
    """The update the prepared case makes between its two calls, in place
    (as an optimizer step): its version counter moves."""
    with torch.no_grad():
        module.fc1.weight.mul_(0.5)


def compile_cases(args):
    import torch

    from fp8_mlir import torch as fp8_torch

    os.environ.setdefault("FP8_MLIR_LIBRARY", os.path.join(args.build, "lib",
                                                           "libFP8MLIR-C.so"))
    cases = [c for c in CASES if re.search(args.only, c[0])]
    os.makedirs(args.artifacts, exist_ok=True)
    entries = []
    for case_id, name, recipe, prepared in cases:
        folder = os.path.join(args.artifacts, case_id)
        module = build(torch, name)
        inputs = _inputs(torch, name)
        manifests = fp8_torch.export(module, inputs, recipe=recipe, chip=args.chip,
                                     artifacts=os.path.join(folder, "artifacts"),
                                     prepare_weights=prepared)
        compiled = fp8_torch.compile(module, inputs, recipe=recipe, opt_level=0,
                                     prepare_weights=prepared)
        results = [forward_backward(torch, compiled, module, inputs, 1)]
        if prepared:
            scale_weight(torch, module)
            results.append(forward_backward(torch, compiled, module, inputs, 2))
            module = build(torch, name)
        torch.save(dict(state=module.state_dict(), inputs=inputs, cpu=results),
                   os.path.join(folder, "case.pt"))
        entries.append(dict(id=case_id, module=name, recipe=recipe, prepare_weights=prepared,
                            manifests={k: os.path.relpath(v, folder)
                                       for k, v in manifests.items()}))
        print("%s: %s by %s, %d functions" % (case_id, name, recipe, len(manifests)),
              flush=True)
    index = dict(chip=args.chip, commit=git("rev-parse", "HEAD") or "unknown",
                 dirty=bool(git("status", "--porcelain", "--untracked-files=no")),
                 entries=entries)
    with open(os.path.join(args.artifacts, "index.json"), "w") as f:
        json.dump(index, f, indent=1)
    return 0


def relative(torch, got, want):
    norm = torch.linalg.norm(want.double())
    diff = torch.linalg.norm(got.double() - want.double())
    return (diff / norm).item() if norm > 0 else diff.item()


def compare(torch, ours, cpu, exact):
    """(ok, text) for one result against the CPU's and the float64 one."""
    if ours is None or cpu is None:
        return (ours is None) == (cpu is None), "no gradient" if ours is None else \
            "a gradient where the CPU has none"
    ours, cpu = ours.cpu().double(), cpu.double()
    special = ~torch.isfinite(cpu)
    if not torch.equal(~torch.isfinite(ours), special) or \
            not torch.equal(torch.nan_to_num(ours[special]), torch.nan_to_num(cpu[special])):
        return False, "NaN or infinity where the CPU has none, or the other way"
    ours, cpu, exact = (t[~special] for t in (ours, cpu, exact.cpu().double()))
    distance = relative(torch, ours, cpu)
    if distance <= FRO_LIMIT:
        return True, "%.3g from the CPU's" % distance
    mine, theirs = relative(torch, ours, exact), relative(torch, cpu, exact)
    text = "%.3g from the CPU's; against float64 %.3g, the CPU's %.3g" % (distance, mine,
                                                                         theirs)
    return mine <= theirs * (1 + DRIFT_SLACK) + FRO_LIMIT, text


def gpu_case(torch, fp8_torch, args, entry):
    folder = os.path.join(args.artifacts, entry["id"])
    case = torch.load(os.path.join(folder, "case.pt"))
    module = build(torch, entry["module"], case["state"]).to(args.device)
    inputs = tuple(t.to(args.device) for t in case["inputs"])
    compiled = fp8_torch.compile(module, inputs, recipe=entry["recipe"],
                                 artifacts=os.path.join(folder, "artifacts"),
                                 prepare_weights=entry["prepare_weights"], opt_level=0)
    exact_module = build(torch, entry["module"], case["state"]).to(args.device).double()
    exact_inputs = tuple(t.double() if t.is_floating_point() else t for t in inputs)
    calls = []
    for call, cpu in enumerate(case["cpu"]):
        if call:
            scale_weight(torch, module)
            scale_weight(torch, exact_module)
        ours = forward_backward(torch, compiled, module, inputs, call + 1)
        exact = forward_backward(torch, exact_module, exact_module, exact_inputs, call + 1)
        if args.device == "cuda":
            torch.cuda.synchronize()
        checks = [compare(torch, o, c, e) for o, c, e in zip(ours, cpu, exact)]
        calls.append(checks)
    ok = all(c[0] for checks in calls for c in checks)
    return dict(status="pass" if ok else "fail",
                calls=[[dict(ok=c[0], text=c[1]) for c in checks] for checks in calls])


def dry_case(torch, fp8_torch, args, entry):
    """The exported artifacts found for the module imported again, and each
    manifest's inputs the imported function's."""
    folder = os.path.join(args.artifacts, entry["id"])
    case = torch.load(os.path.join(folder, "case.pt"))
    module = build(torch, entry["module"], case["state"])
    imported = fp8_torch.import_module(module, case["inputs"])
    problems = []
    for graph in (imported.forward, imported.backward):
        found = fp8_torch.exported(graph, entry["recipe"], args.chip,
                                   os.path.join(folder, "artifacts"), imported,
                                   entry["prepare_weights"])
        if found is None:
            problems.append("no artifacts found for %s" % graph.name)
            continue
        with open(found[graph.name]) as f:
            manifest = json.load(f)
        shapes = [b["shape"] for b in manifest["buffers"] if b["kind"] == "input"]
        wanted = [list(p.shape) for p in graph.params]
        if shapes[:len(wanted)] != wanted:
            problems.append("%s: inputs %s, the function's %s" % (graph.name, shapes, wanted))
    if problems:
        return dict(status="fail", error="; ".join(problems))
    return dict(status="dry", calls=[])


def report(args, index, results, env):
    lines = ["# The PyTorch front end on CUDA (bench/gpu/frontend.py)", ""]
    if args.dry_run:
        lines.append("* Dry run: the exported artifacts looked up for each module; nothing ran.")
    else:
        lines.append("* Device: %s, torch %s, CUDA %s" % (env["device"], env["torch"],
                                                          env["cuda"]))
    lines += ["* Artifacts compiled at commit %s%s for %s" % (
        index["commit"], " (dirty)" if index.get("dirty") else "", index["chip"]),
              "* Command: `%s`" % " ".join([os.path.basename(sys.argv[0])] + sys.argv[1:]),
              "", "| case | recipe | status | results |", "|---|---|---|---|"]
    for entry in index["entries"]:
        result = results[entry["id"]]
        detail = result.get("error", "")
        for call, checks in enumerate(result.get("calls", [])):
            bad = [i for i, c in enumerate(checks) if not c["ok"]]
            detail += "%scall %d: %d results, %s" % (
                "; " if detail else "", call + 1, len(checks),
                "all pass" if not bad else "failing " + ", ".join(
                    "%d (%s)" % (i, checks[i]["text"]) for i in bad))
        lines.append("| %s | %s | %s | %s |" % (entry["id"], entry["recipe"], result["status"],
                                                detail))
    return "\n".join(lines) + "\n"


def run(args):
    import torch

    index = load_index(args.artifacts, "frontend.py")
    args.chip = index["chip"]
    entries = [e for e in index["entries"] if re.search(args.only, e["id"])]
    index = dict(index, entries=entries)
    env = {}
    if args.dry_run:
        from fp8_mlir import torch as fp8_torch
        one = lambda e: dry_case(torch, fp8_torch, args, e)  # noqa: E731
    else:
        if args.device == "cuda":
            os.environ["FP8RT_LIBRARY"] = ensure_runtime(args.lib, args.runtime_build)
            name = torch.cuda.get_device_properties(0).name
        else:
            name = "cpu (the CPU pipeline against itself: a check of this script)"
        from fp8_mlir import torch as fp8_torch
        env = dict(device=name, torch=torch.__version__, cuda=torch.version.cuda)
        one = lambda e: gpu_case(torch, fp8_torch, args, e)  # noqa: E731
    results = {}
    for entry in entries:
        try:
            results[entry["id"]] = one(entry)
        except Exception as ex:  # reported against its case
            results[entry["id"]] = dict(status="error",
                                        error="%s: %s" % (type(ex).__name__,
                                                          str(ex).splitlines()[0]))
        print("%s: %s" % (entry["id"], results[entry["id"]]["status"]), flush=True)
    return finish_run(args.out, "frontend.md", report(args, index, results, env), env, index,
                      results)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    default_art = os.path.join(ROOT, "build-gpu", "frontend")
    p = sub.add_parser("compile", help="export the cases (development machine)")
    p.add_argument("--artifacts", default=default_art)
    p.add_argument("--build", default=os.path.join(ROOT, "build"),
                   help="the build whose libFP8MLIR-C.so compiles and runs the CPU pipeline")
    p.add_argument("--chip", default="sm_90a")
    p.add_argument("--only", default="", help="a regex over the case ids")
    r = sub.add_parser("run", help="run them on CUDA (machine with torch and the runtime)")
    r.add_argument("--artifacts", default=default_art)
    r.add_argument("--lib", default=os.path.join(ROOT, "build-gpu-rt", "lib", "libfp8rt.so"))
    r.add_argument("--runtime-build", default=os.path.join(ROOT, "build-gpu-rt"))
    r.add_argument("--out", default=os.environ.get("OUT") or None)
    r.add_argument("--only", default="", help="a regex over the case ids")
    r.add_argument("--dry-run", action="store_true")
    r.add_argument("--device", default="cuda", choices=("cuda", "cpu"),
                   help="cpu runs the CPU pipeline in place of the GPU (checks this script)")
    args = parser.parse_args()
    return compile_cases(args) if args.command == "compile" else run(args)


if __name__ == "__main__":
    sys.exit(main())
