#!/usr/bin/env bash
# Everything bench/gpu/all.sh runs, prepared on a development machine (fp8-opt
# and libFP8MLIR-C.so built in build/): the GEMM variants (compile.sh), the
# reductions, the COAT step, the paired quantize kernels (with their CPU
# references), the PyTorch front end's cases, and the bf16 example models
# for sm_90a at the small size (with CPU references) and the real sizes
# (against float64 on the GPU), the small attention models with attention
# in FP8 too, plus the speed cells with their weights prepared once, all
# into build-gpu/, and the models in clusters that multicast, with consumer
# warpgroups in turn and (deepseek) with column scales copied by the
# producer, all three off by default, and the models at a ragged size.
# About 8 minutes on 2 cores. Copy build-gpu/
# to the GPU machine (a `tar czf` of it is about 46 MiB; the
# folders of the stages to run are enough) and run
# `OUT=report bench/gpu/all.sh` there.
#
#   bench/gpu/prepare.sh
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
PYTHON="${PYTHON:-/usr/bin/python3}"
CHIP=sm_90a  # the H100 and H200 that all.sh runs on

bench/gpu/compile.sh
"$PYTHON" bench/gpu/reductions.py compile --chip "$CHIP"
"$PYTHON" bench/gpu/optimizer.py compile --chip "$CHIP"
"$PYTHON" bench/gpu/quantize.py compile --chip "$CHIP"
# The PyTorch front end's cases, exported with the CPU pipeline's results.
rm -rf build-gpu/frontend
"$PYTHON" bench/gpu/frontend.py compile --chip "$CHIP"
rm -rf build-gpu/models-bf16
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models linear,mlp_block,attention_block,gpt2_layer,llama_layer --sizes small,4096,mlp-8k,linear-8k \
  --reference-sizes small --chips "$CHIP" --out build-gpu/models-bf16
# The speed cells again, each function's weight-only work in a prepare
# function run once (fp8-prepare-weights): what a step with several
# micro-batches, or inference, pays per call.
rm -rf build-gpu/models-bf16-prepared
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models linear,mlp_block,gpt2_layer,llama_layer --sizes linear-8k,mlp-8k,4096 --recipes tensor-current,deepseek \
  --reference-sizes none --chips "$CHIP" --pipeline-options prepare-weights=1 \
  --out build-gpu/models-bf16-prepared
# The small attention block and GPT-2 layer with attention's batched GEMMs
# (QK^T, PV and their gradients) in FP8 too (fp8-autocast's fp8-attention),
# every recipe, against the CPU pipeline: the batched quantize kernels,
# transposed copies and batched FP8 GEMMs that no other cell runs.
rm -rf build-gpu/models-bf16-attention
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models attention_block,gpt2_layer --sizes small --reference-sizes small \
  --chips "$CHIP" --autocast-options fp8-attention=true \
  --out build-gpu/models-bf16-attention
# The models again with an sm_90a option that is off by default, the small
# size against the CPU pipeline and the real sizes for their time, to
# compare with models-bf16-prepared: every GEMM that can in clusters of two
# CTAs multicasting B (sm90-multicast=1; an H100 ran it at half the speed
# before the runtime fitted the grid to the clusters the device holds, then
# no faster), and the consumer warpgroups of every GEMM that promotes
# partial sums issuing their wgmmas in turn (sm90-alternate-consumers=1, not
# yet measured).
for option in multicast:sm90-multicast alternate:sm90-alternate-consumers; do
  rm -rf "build-gpu/models-bf16-${option%%:*}"
  "$PYTHON" bench/gpu/models.py prepare --storage bf16 \
    --models linear,mlp_block,gpt2_layer --sizes small,linear-8k,mlp-8k,4096 \
    --recipes tensor-current,deepseek --reference-sizes small --chips "$CHIP" \
    --pipeline-options "prepare-weights=1 ${option#*:}=1" \
    --out "build-gpu/models-bf16-${option%%:*}"
done
# DeepSeek's cells again with B's column scales of the weight gradients
# copied by the producer warp (sm90-producer-column-scales=1, not yet
# measured), to compare with models-bf16-prepared.
rm -rf build-gpu/models-bf16-producer-scales
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models linear,mlp_block,gpt2_layer --sizes small,linear-8k,mlp-8k,4096 \
  --recipes deepseek --reference-sizes small --chips "$CHIP" \
  --pipeline-options "prepare-weights=1 sm90-producer-column-scales=1" \
  --out build-gpu/models-bf16-producer-scales
# The models at the ragged size (no contraction dim a multiple of 16:
# padded FP8 rows everywhere), without and with prepared weights, against
# the CPU pipeline. Their inputs are rebuilt from their seeds there.
for prepared in 0 1; do
  out=build-gpu/models-bf16-ragged
  [ "$prepared" = 1 ] && out="$out-prepared"
  rm -rf "$out"
  "$PYTHON" bench/gpu/models.py prepare --storage bf16 \
    --models mlp_block,attention_block,gpt2_layer,llama_layer --sizes ragged \
    --recipes tensor-current,rowwise,deepseek,mxfp8 --reference-sizes ragged \
    --max-input-mib 0 --chips "$CHIP" --pipeline-options "prepare-weights=$prepared" \
    --out "$out"
done
du -sh build-gpu
echo "bench/gpu/pack.sh FILE.tgz [STAGE...] packs what the stages of all.sh read"
