#!/usr/bin/env bash
# The main job on the shipped example: installs what is missing, builds, and
# takes the MLP of examples/mlp/ as far as fp8-mlir goes today.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/setup.sh"

bin="$root/build/bin"
llvm=/usr/lib/llvm-22
example="$root/examples/mlp"
out="$root/build/demo"
mkdir -p "$out"

section() { printf '\n== %s\n' "$*"; }

section "1. The MLP graph (examples/mlp/mlp.mlir), f32, run on the CPU"
"$bin/fp8-opt" "$example/mlp.mlir" \
  --one-shot-bufferize="bufferize-function-boundaries" --convert-linalg-to-loops \
  --convert-scf-to-cf --expand-strided-metadata --lower-affine --convert-to-llvm \
  --reconcile-unrealized-casts -o "$out/mlp.llvm.mlir"
"$llvm/bin/mlir-runner" "$out/mlp.llvm.mlir" -e main -entry-point-result=void \
  -shared-libs="$llvm/lib/libmlir_runner_utils.so,$llvm/lib/libmlir_c_runner_utils.so"

section "2. The same MLP with explicit FP8 scaling (examples/mlp/mlp_fp8.mlir)"
echo "Per-tensor current scaling, E4M3 operands, f32 accumulation: verified by fp8-opt."
"$bin/fp8-opt" "$example/mlp_fp8.mlir" -o "$out/mlp_fp8.verified.mlir"
grep -oE "= fp8\.[a-z_]+" "$out/mlp_fp8.verified.mlir" | sort | uniq -c

section "3. fp8-fuse-dynamic-quantize: amax + compute_scale + quantize -> one op"
"$bin/fp8-opt" "$example/mlp_fp8.mlir" --fp8-fuse-dynamic-quantize | grep -E "fp8\.(dynamic_quantize|scaled_matmul)"

section "Not yet"
cat <<'NOTE'
fp8-autocast (linalg -> fp8 recipes), CPU execution of the fp8 ops with FP8-vs-f32
error, and PTX for sm_90a / sm_100a are the next milestones.
NOTE
