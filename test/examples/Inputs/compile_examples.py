"""Compiles every shipped example for every recipe of its chips (issue 11's
done criteria): `fp8-opt EXAMPLE --fp8-autocast=recipe=R
--fp8-gpu-pipeline=chip=C`, forward and backward (every public function),
with ptxas. The attention examples compile again with fp8-attention=true.

A cell passes when fp8-opt succeeds, every kernel ptxas compiled reports no
stack frame and no spills, and the attention GEMMs are the ones the option
asks for: high-precision batched GEMMs by default, FP8 ones with the option;
or, for the cells of EXPECTED_ERRORS, when fp8-opt fails with that error.
Prints a line per failing cell and a summary.
"""

import argparse
import os
import re
import subprocess
import sys

EXAMPLES = ["mlp/mlp.mlir", "mlp/mlp_block.mlir",
            "attention/attention_block.mlir", "gpt2/gpt2_layer.mlir"]
ATTENTION = {"attention/attention_block.mlir", "gpt2/gpt2_layer.mlir"}
RECIPES = {
    "sm_90a": ["tensor-current", "tensor-delayed", "rowwise", "deepseek",
               "mxfp8", "graphcore", "unit"],
    "sm_100a": ["mxfp8", "nvfp4", "tensor-current", "rowwise", "deepseek"],
}
CLEAN = "0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads"
# Cells (chip, recipe, fp8-attention) that fail with a known diagnostic,
# mapped to it. None today. A cell that compiles fails the test until it
# leaves this table.
EXPECTED_ERRORS = {}


def check_cell(args, example, chip, recipe, fp8_attention):
    """The reason the cell fails, or None."""
    name = "%s-%s-%s%s" % (os.path.basename(example)[:-5], chip, recipe,
                           "-fp8attn" if fp8_attention else "")
    artifacts = os.path.join(args.out, name)
    autocast = "--fp8-autocast=recipe=%s%s" % (
        recipe, " fp8-attention=true" if fp8_attention else "")
    command = [args.fp8_opt, os.path.join(args.examples, example), autocast,
               "--fp8-gpu-pipeline=chip=%s artifacts=%s%s" % (
                   chip, artifacts,
                   " " + args.pipeline_options if args.pipeline_options else ""),
               "-o", os.devnull]
    run = subprocess.run(command, capture_output=True, text=True)
    expected = EXPECTED_ERRORS.get((chip, recipe, fp8_attention))
    if expected:
        if run.returncode != 0 and expected in run.stderr:
            return None
        return "expected the error '%s'" % expected
    if run.returncode != 0:
        return "fp8-opt failed: " + run.stderr.strip().splitlines()[0]
    with open(os.path.join(artifacts, "fp8_kernels.ptxas.log")) as f:
        log = f.read()
    kernels = re.findall(r"Compiling entry function '(\w+)'", log)
    if not kernels or log.count(CLEAN) != len(kernels):
        return "a kernel uses a stack frame or spills (%s)" % artifacts
    if example in ATTENTION:
        chip_tag = chip.replace("_", "")
        want = "%sgemm_%s_batched_" % ("fp8_" if fp8_attention else "", chip_tag)
        if not any(k.startswith(want) for k in kernels):
            return "no %s... kernel" % want
        if not fp8_attention and any(
                k.startswith("fp8_gemm_%s_batched_" % chip_tag) for k in kernels):
            return "an FP8 batched GEMM without fp8-attention"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--examples", required=True,
                        help="the examples/ folder")
    parser.add_argument("--out", required=True, help="a folder for artifacts")
    parser.add_argument("--fp8-opt", default="fp8-opt")
    parser.add_argument("--chips", default=",".join(RECIPES),
                        help="comma-separated chips whose cells to run")
    parser.add_argument("--pipeline-options", default="",
                        help="more fp8-gpu-pipeline options for every cell")
    args = parser.parse_args()
    cells = failures = 0
    chips = args.chips.split(",")
    for chip, recipes in RECIPES.items():
        if chip not in chips:
            continue
        for recipe in recipes:
            for example in EXAMPLES:
                for fp8_attention in ([False, True] if example in ATTENTION
                                      else [False]):
                    cells += 1
                    reason = check_cell(args, example, chip, recipe,
                                        fp8_attention)
                    if reason:
                        failures += 1
                        print("FAILED %s %s %s%s: %s" % (
                            example, chip, recipe,
                            " fp8-attention" if fp8_attention else "", reason))
    expected = sum(1 for chip, recipe, fp8_attention in EXPECTED_ERRORS
                   for example in ATTENTION if fp8_attention and chip in chips)
    print("%d cells, %d failed (%d expected errors)" % (cells, failures,
                                                       expected))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
