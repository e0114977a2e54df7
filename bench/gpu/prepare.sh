#!/usr/bin/env bash
# Everything bench/gpu/all.sh runs, prepared on a development machine (fp8-opt
# and libFP8MLIR-C.so built in build/): the GEMM variants (compile.sh), the
# reductions, the COAT step, the paired quantize kernels (with their CPU
# references), and the bf16 example models for sm_90a at the
# small size (with CPU references) and the real sizes (against float64 on
# the GPU), plus the speed cells with their weights prepared once, all into
# build-gpu/, and the attention models with the GEMM layouts and the models
# with the TMA stores not yet checked on a GPU. About 7 minutes on 2 cores. Copy build-gpu/
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
rm -rf build-gpu/models-bf16
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models linear,mlp_block,attention_block,gpt2_layer --sizes small,4096,mlp-8k,linear-8k \
  --reference-sizes small --chips "$CHIP" --out build-gpu/models-bf16
# The speed cells again, each function's weight-only work in a prepare
# function run once (fp8-prepare-weights): what a step with several
# micro-batches, or inference, pays per call.
rm -rf build-gpu/models-bf16-prepared
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models linear,mlp_block,gpt2_layer --sizes linear-8k,mlp-8k,4096 --recipes tensor-current,deepseek \
  --reference-sizes none --chips "$CHIP" --pipeline-options prepare-weights=1 \
  --out build-gpu/models-bf16-prepared
# The attention models again with the layouts no GPU has checked yet (off by
# default): sm90-mn-major-operands=1 (bf16 operands of the batched GEMMs read
# where they are stored MN-major, no transposed copies) and
# sm90-head-major-results=1 (the Q, K, V projections store heads, no layout
# copies); the small size against the CPU pipeline, the 4096-wide GPT-2
# layer for its time.
rm -rf build-gpu/models-bf16-layouts
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models attention_block,gpt2_layer --sizes small,4096 --recipes tensor-current,deepseek \
  --reference-sizes small --chips "$CHIP" \
  --pipeline-options "prepare-weights=1 sm90-mn-major-operands=1 sm90-head-major-results=1" \
  --out build-gpu/models-bf16-layouts
# The models again with every sm_90a GEMM storing its results by TMA
# (sm90-tma-store=1, off by default until a GPU has run it): the small size
# against the CPU pipeline, the real sizes for their time, to compare with
# models-bf16-prepared.
rm -rf build-gpu/models-bf16-tma
"$PYTHON" bench/gpu/models.py prepare --storage bf16 \
  --models linear,mlp_block,gpt2_layer --sizes small,linear-8k,mlp-8k,4096 \
  --recipes tensor-current,deepseek --reference-sizes small --chips "$CHIP" \
  --pipeline-options "prepare-weights=1 sm90-tma-store=1" \
  --out build-gpu/models-bf16-tma
du -sh build-gpu
echo "bench/gpu/pack.sh FILE.tgz [STAGE...] packs what the stages of all.sh read"
