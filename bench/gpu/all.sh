#!/usr/bin/env bash
# Every GPU check of bench/gpu in one command, with time budgets that keep
# the whole run inside about 9 minutes on an H100 (see bench/gpu/README.md).
# Run from a copy of the repository that holds build-gpu/, made on a
# development machine by bench/gpu/prepare.sh, which runs:
#
#   bench/gpu/compile.sh
#   python3 bench/gpu/reductions.py compile
#   python3 bench/gpu/optimizer.py compile
#   python3 bench/gpu/frontend.py compile
#   python3 bench/gpu/quantize.py compile
#   python3 bench/gpu/models.py prepare --storage bf16 \
#       --models linear,mlp_block,attention_block,gpt2_layer,llama_layer \
#       --sizes small,4096,mlp-8k,linear-8k \
#       --reference-sizes small --chips sm_90a --out build-gpu/models-bf16
#   python3 bench/gpu/models.py prepare --storage bf16 \
#       --models linear,mlp_block,gpt2_layer,llama_layer --sizes linear-8k,mlp-8k,4096 \
#       --recipes tensor-current,deepseek --reference-sizes none --chips sm_90a \
#       --pipeline-options prepare-weights=1 --out build-gpu/models-bf16-prepared
#   python3 bench/gpu/models.py prepare --storage bf16 \
#       --models attention_block,gpt2_layer --sizes small --reference-sizes small \
#       --chips sm_90a --autocast-options fp8-attention=true \
#       --out build-gpu/models-bf16-attention
#   python3 bench/gpu/models.py prepare --storage bf16 \
#       --models linear,mlp_block,gpt2_layer --sizes small,linear-8k,mlp-8k,4096 \
#       --recipes tensor-current,deepseek --reference-sizes small --chips sm_90a \
#       --pipeline-options "prepare-weights=1 sm90-multicast=1" \
#       --out build-gpu/models-bf16-multicast
#   python3 bench/gpu/models.py prepare --storage bf16 \
#       --models linear,mlp_block,gpt2_layer --sizes small,linear-8k,mlp-8k,4096 \
#       --recipes tensor-current,deepseek --reference-sizes small --chips sm_90a \
#       --pipeline-options "prepare-weights=1 sm90-alternate-consumers=1" \
#       --out build-gpu/models-bf16-alternate
#   python3 bench/gpu/models.py prepare --storage bf16 \
#       --models linear,mlp_block,gpt2_layer --sizes small,linear-8k,mlp-8k,4096 \
#       --recipes deepseek --reference-sizes small --chips sm_90a \
#       --pipeline-options "prepare-weights=1 sm90-producer-column-scales=1" \
#       --out build-gpu/models-bf16-producer-scales
#   python3 bench/gpu/models.py prepare --storage bf16 \
#       --models mlp_block,attention_block,gpt2_layer,llama_layer --sizes ragged \
#       --recipes tensor-current,rowwise,deepseek,mxfp8 --reference-sizes ragged \
#       --max-input-mib 0 --chips sm_90a [--pipeline-options prepare-weights=1] \
#       --out build-gpu/models-bf16-ragged[-prepared]
#
# Stages, in order of what they tell (each one's report is written even when
# a later one fails or the run is stopped):
#   1. the runtime (cmake, nvcc);
#   2. the speed targets: one bf16 linear layer at 8192^3, the bf16 MLP
#      block at 8192 tokens and the 4096-wide GPT-2 layer under
#      tensor-current and deepseek, checked against float64
#      and timed against torch.compile of the bf16 model (models.py --time);
#   3. the same cells with the weights prepared once (prepare-weights=1:
#      the weight quantizations run before, untimed), timed the same way;
#   4. every small model x recipe against the CPU pipeline (models.py),
#      then (attention) the small attention block and GPT-2 layer with
#      attention's batched GEMMs in FP8 too (fp8-autocast fp8-attention=true);
#   5. the device time of each kernel of the speed cells (kernel_times.py),
#      without and with the weights prepared once;
#   6. the reduction and row-group kernels against a copy (reductions.py);
#   7. the paired quantize kernels, bit for bit against the CPU pipeline and
#      against a copy (quantize.py);
#   8. the GEMMs (run.sh: checks, benchmarks, compute-sanitizer, then the
#      COAT optimizer step);
#   9. multicast: every sm_90a GEMM that can in clusters of two CTAs
#      multicasting B (sm90-multicast=1, off by default): the small cells
#      against the CPU pipeline, the speed cells timed (to compare with
#      stage 3's), then the GEMM variants compiled with it (`*_mc`) next to
#      the same variants without (run.sh).
#  10. alternate: the same three parts with the consumer warpgroups of every
#      sm_90a GEMM that promotes issuing their wgmmas in turn
#      (sm90-alternate-consumers=1, off by default; `*_alt` variants).
#  11. producer-scales: the same three parts with B's column scales of
#      DeepSeek's weight gradients copied by the producer warp
#      (sm90-producer-column-scales=1, off by default; `*_pcs` variants;
#      its models: the deepseek cells).
#  12. frontend: the PyTorch front end's CUDA path (fp8_mlir.torch.compile
#      on CUDA tensors running exported artifacts, forward and backward
#      through autograd, prepared weights recomputed after an update)
#      against the CPU pipeline (frontend.py).
#  13. ragged: the models at the ragged size (200 tokens, width 360, heads
#      of 72, hidden 1000: no contraction dim a multiple of 16), whose FP8
#      rows the quantize and layout kernels pad to 16-byte multiples, every
#      cell against the CPU pipeline, without and with the weights prepared
#      once (a prepared weight's K-major copy is made and padded on every
#      call).
#
# STAGES (words among runtime speed prepared small attention kernels
# kernels-prepared reductions quantize gemms multicast alternate
# producer-scales frontend ragged;
# default all,
# in that order)
# runs some stages in the order given, for a GPU slot too short for all of
# them; each stage after runtime needs the runtime built by an earlier one
# (or an earlier run). The parts of the last two are stages too
# (multicast-small, multicast-timed, multicast-gemms, and the same of
# alternate and producer-scales), to order them among the others, and so is the COAT step
# (optimizer: optimizer.py run alone, which gemms runs after the GEMMs).
#
#   OUT=report bench/gpu/all.sh
#
# Environment: OUT (default report-gpu), PYTHON (default python3),
# MODELS (default build-gpu/models-bf16), PREPARED (default
# build-gpu/models-bf16-prepared), ATTENTION (default
# build-gpu/models-bf16-attention), MULTICAST (default
# build-gpu/models-bf16-multicast), ALTERNATE (default
# build-gpu/models-bf16-alternate), PRODUCER_SCALES (default
# build-gpu/models-bf16-producer-scales), RAGGED and RAGGED_PREPARED
# (default build-gpu/models-bf16-ragged and build-gpu/models-bf16-ragged-prepared),
# SPEED_BUDGET, PREPARED_BUDGET, SMALL_BUDGET, SPEED_CELLS (a regex over the
# ids of the cells the timed stages run; default the six speed cells),
# GEMM_BUDGET (seconds; 230, 100, 60, 80; the float64 graph of the speed cells
# runs on the GPU, so 230 s leaves room for torch.compile's first compiles), GEMM_ONLY (a regex over GEMM ids),
# DRY_RUN=1 (every stage's --dry-run: no GPU, no torch; what the lit test runs).
# Reports: $OUT/log.txt (everything printed) and $OUT/reports.tgz (every
# stage's report folder), both rewritten after each stage.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
OUT="${OUT:-report-gpu}"
PYTHON="${PYTHON:-python3}"
MODELS="${MODELS:-build-gpu/models-bf16}"
PREPARED="${PREPARED:-build-gpu/models-bf16-prepared}"
ATTENTION="${ATTENTION:-build-gpu/models-bf16-attention}"
MULTICAST="${MULTICAST:-build-gpu/models-bf16-multicast}"
ALTERNATE="${ALTERNATE:-build-gpu/models-bf16-alternate}"
PRODUCER_SCALES="${PRODUCER_SCALES:-build-gpu/models-bf16-producer-scales}"
RAGGED="${RAGGED:-build-gpu/models-bf16-ragged}"
RAGGED_PREPARED="${RAGGED_PREPARED:-build-gpu/models-bf16-ragged-prepared}"
BUILD=build-gpu-rt
WORK="$(mktemp -d)"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
LOG="$OUT/log.txt"
START=$(date +%s)
STATUS=0
export PYTHONUNBUFFERED=1
DRY=()
[ -n "${DRY_RUN:-}" ] && DRY=(--dry-run)

say() { echo "== [$(( $(date +%s) - START )) s] $*" | tee -a "$LOG"; }
pack() { (cd "$WORK" && tar czf "$OUT/reports.tgz.tmp" --exclude='*-work' .) &&
           mv "$OUT/reports.tgz.tmp" "$OUT/reports.tgz"; }
stage() { # name, hard limit in seconds, command...
  local name="$1" limit="$2"
  shift 2
  say "$name"
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee -a "$LOG"
  local rc=${PIPESTATUS[0]}
  say "$name: exit status $rc"
  [ "$rc" -eq 0 ] || STATUS=1
  pack
}

{ nvidia-smi 2> /dev/null --query-gpu=name,driver_version,clocks.max.sm,memory.total --format=csv
  git rev-parse HEAD 2> /dev/null || true; } 2>&1 | tee -a "$LOG"

GENERATOR=()
command -v ninja > /dev/null && GENERATOR=(-G Ninja)
LIB="$BUILD/lib/libfp8rt.so"
SPEED="${SPEED_CELLS:-^(linear-8k/linear|mlp-8k/mlp_block|4096/(gpt2|llama)_layer)/(tensor-current|deepseek)/sm_90a$}"

# Times the speed cells of the models in $2 (models.py run --time) within $3
# seconds, into $WORK/$4.
time_models() { # stage name, artifacts, budget, report folder
  [ -f "$2/index.json" ] || return 0
  stage "$1" $(( $3 + 30 )) \
    "$PYTHON" bench/gpu/models.py run --artifacts "$2" --lib "$LIB" --only "$SPEED" \
    --graph --time 20 --cell-timeout "$3" --time-budget "$3" --out "$WORK/$4" \
    ${DRY[@]+"${DRY[@]}"}
}
# The device time of each kernel of the speed cells in $2, into $WORK/$3.
kernel_times() { # stage name, artifacts, report folder
  [ -f "$2/index.json" ] || return 0
  stage "$1" 120 \
    "$PYTHON" bench/gpu/kernel_times.py --artifacts "$2" --lib "$LIB" --only "$SPEED" \
    --out "$WORK/$3" ${DRY[@]+"${DRY[@]}"}
}

# Checks the cells of the models in $2 at size $4 (default small) against
# the CPU pipeline, into $WORK/$3.
small_models() { # stage name, artifacts, report folder[, size]
  [ -f "$2/index.json" ] || return 0
  stage "$1" $(( ${SMALL_BUDGET:-60} + 30 )) \
    "$PYTHON" bench/gpu/models.py run --artifacts "$2" --lib "$LIB" --only "^${4:-small}/" \
    --graph --time-budget "${SMALL_BUDGET:-60}" --out "$WORK/$3" ${DRY[@]+"${DRY[@]}"}
}

# The models compiled with an option that is off by default, and the GEMM
# variants (run.sh --only) that compare it with the same ones without.
option_models() { # multicast, alternate or producer-scales
  case "$1" in
  multicast) echo "$MULTICAST" ;;
  alternate) echo "$ALTERNATE" ;;
  producer-scales) echo "$PRODUCER_SCALES" ;;
  esac
}
option_gemms() { # multicast, alternate or producer-scales
  case "$1" in
  multicast) echo "_mc/|^(tensor_e4m3_e4m3_bf16_p4(_n192)?|deepseek_e4m3_e4m3_bf16)/" ;;
  alternate) echo "_alt/|^(tensor_e4m3_e4m3_bf16_p[14](_n192)?|rowwise_e4m3_e4m3_bf16_n192|(deepseek|blockwise|mxfp8)_e4m3_e4m3_bf16(_n192)?)/" ;;
  producer-scales) echo "_pcs/|^blockwise_e4m3_e4m3_bf16(_n192|_alt)?/" ;;
  esac
}

run_stage() { # one stage of STAGES; those whose artifacts are missing are skipped
  case "$1" in
  runtime)
    stage runtime 120 bash -c "cmake -S runtime -B $BUILD ${GENERATOR[*]} -DCMAKE_BUILD_TYPE=Release \
      > /dev/null && cmake --build $BUILD -j $(nproc)" ;;
  speed)
    time_models "models: speed targets" "$MODELS" "${SPEED_BUDGET:-230}" models-speed ;;
  prepared)
    time_models "models: weights prepared once" "$PREPARED" "${PREPARED_BUDGET:-100}" \
      models-prepared ;;
  small)
    small_models "models: small, every recipe" "$MODELS" models-small ;;
  attention)
    small_models "models: small, attention in FP8" "$ATTENTION" models-attention ;;
  ragged)
    small_models "models: ragged" "$RAGGED" models-ragged ragged
    small_models "models: ragged, weights prepared once" "$RAGGED_PREPARED" \
      models-ragged-prepared ragged ;;
  multicast | alternate | producer-scales)
    run_stage "$1-small"; run_stage "$1-timed"; run_stage "$1-gemms" ;;
  multicast-small | alternate-small | producer-scales-small)
    small_models "models: ${1%-small}, small" "$(option_models "${1%-small}")" \
      "models-$1" ;;
  multicast-timed | alternate-timed | producer-scales-timed)
    time_models "models: ${1%-timed}, timed" "$(option_models "${1%-timed}")" \
      "${PREPARED_BUDGET:-100}" "models-$1" ;;
  multicast-gemms | alternate-gemms | producer-scales-gemms)
    [ -f build-gpu/index.json ] || return 0
    stage "gemms: ${1%-gemms}" $(( ${GEMM_BUDGET:-80} + 150 )) env OUT="$WORK/gemms-${1%-gemms}" \
      bench/gpu/run.sh --only "$(option_gemms "${1%-gemms}")" \
      --time-budget "${GEMM_BUDGET:-80}" ${DRY[@]+"${DRY[@]}"} ;;
  kernels)
    kernel_times "models: device time per kernel" "$MODELS" kernels ;;
  kernels-prepared)
    kernel_times "models: device time per kernel, weights prepared once" "$PREPARED" \
      kernels-prepared ;;
  reductions)
    [ -f build-gpu/reductions/index.json ] || return 0
    stage reductions 90 "$PYTHON" bench/gpu/reductions.py run --lib "$LIB" \
      --out "$WORK/reductions" ${DRY[@]+"${DRY[@]}"} ;;
  quantize)
    [ -f build-gpu/quantize/index.json ] || return 0
    stage quantize 90 "$PYTHON" bench/gpu/quantize.py run --lib "$LIB" \
      --out "$WORK/quantize" ${DRY[@]+"${DRY[@]}"} ;;
  frontend)
    [ -f build-gpu/frontend/index.json ] || return 0
    stage frontend 180 "$PYTHON" bench/gpu/frontend.py run --lib "$LIB" \
      --out "$WORK/frontend" ${DRY[@]+"${DRY[@]}"} ;;
  optimizer)
    [ -f build-gpu/optimizer/index.json ] || return 0
    stage optimizer 90 "$PYTHON" bench/gpu/optimizer.py run --lib "$LIB" \
      --out "$WORK/optimizer" ${DRY[@]+"${DRY[@]}"} ;;
  gemms)
    [ -f build-gpu/index.json ] || return 0
    local only="${GEMM_ONLY:-^(tensor_e4m3_e4m3_bf16_p[014]|tensor_e4m3_e4m3_bf16_p[04]_n192|rowwise_e4m3_e4m3_bf16(_n192)?|(deepseek|blockwise)_e4m3_e4m3_bf16(_n192)?|mxfp8_e4m3_e4m3_bf16)/}"
    stage gemms $(( ${GEMM_BUDGET:-80} + 150 )) env OUT="$WORK/gemms" \
      bench/gpu/run.sh --only "$only" --time-budget "${GEMM_BUDGET:-80}" ${DRY[@]+"${DRY[@]}"} ;;
  *)
    say "unknown stage '$1' (stages: $ALL_STAGES)"
    STATUS=1 ;;
  esac
}

ALL_STAGES="runtime speed prepared small attention kernels kernels-prepared reductions quantize gemms multicast alternate producer-scales frontend ragged"
for name in ${STAGES:-$ALL_STAGES}; do
  run_stage "$name"
done
say "done; exit status $STATUS"
rm -rf "$WORK"
exit $STATUS
