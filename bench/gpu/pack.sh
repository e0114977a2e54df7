#!/usr/bin/env bash
# Packs the parts of build-gpu/ (made by bench/gpu/prepare.sh) that the given
# stages of bench/gpu/all.sh read into one gzipped tarball, to copy to a GPU
# machine when all of build-gpu/ is more than the copy may hold, and prints
# its size. Unpack it in the repository root there (`tar xzf FILE`), then run
# all.sh with the same STAGES.
#
#   bench/gpu/pack.sh [--from DIR] FILE.tgz [STAGE...]
#
# (default: every stage of all.sh; DIR is build-gpu/ of the repository, and
# the tarball's paths start with DIR's name.)
#
# What each stage reads: speed and kernels the whole of
# build-gpu/models-bf16; small only its small cells; prepared and
# kernels-prepared build-gpu/models-bf16-prepared; attention
# build-gpu/models-bf16-attention; reductions, quantize:
# their folders; gemms the GEMM variants ($G/index.json and a folder each)
# and the COAT step (build-gpu/optimizer), optimizer the COAT step, frontend
# build-gpu/frontend; multicast
# build-gpu/models-bf16-multicast and the GEMM variants (multicast-small and
# multicast-timed the models, multicast-gemms the variants); alternate and
# its parts the same of build-gpu/models-bf16-alternate, producer-scales
# of build-gpu/models-bf16-producer-scales, ragged
# build-gpu/models-bf16-ragged and build-gpu/models-bf16-ragged-prepared.
# runtime reads nothing.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
FROM=build-gpu
if [ "${1:-}" = --from ]; then
  FROM="${2:?--from needs a folder}"
  shift 2
fi
if [ $# -lt 1 ]; then
  echo "usage: bench/gpu/pack.sh [--from DIR] FILE.tgz [STAGE...]" >&2
  exit 2
fi
FILE="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
shift
STAGES=("$@")
[ ${#STAGES[@]} -gt 0 ] || STAGES=(runtime speed prepared small attention kernels
  kernels-prepared reductions quantize gemms multicast alternate producer-scales
  frontend ragged)
[ -d "$FROM" ] || { echo "pack.sh: no $FROM/; run bench/gpu/prepare.sh" >&2; exit 1; }
# Paths are taken relative to the folder above DIR.
cd "$(dirname "$FROM")"
G="$(basename "$FROM")"

PATHS=()
add() { for p in "$@"; do [ -e "$p" ] && PATHS+=("$p"); done; return 0; }
# The GEMM variants: every folder of $G/index.json's entries.
gemm_variants() {
  add $G/index.json
  [ -f $G/index.json ] || return 0
  local variant
  for variant in $(/usr/bin/env python3 -c '
import json, sys
print("\n".join(sorted({e["variant"] for e in json.load(open(sys.argv[1]))["entries"]})))
' $G/index.json); do
    add "$G/$variant"
  done
}
for stage in "${STAGES[@]}"; do
  case "$stage" in
  runtime) ;;
  speed | kernels) add "$G/models-bf16" ;;
  small)
    add "$G/models-bf16/index.json"
    for part in compiled inputs expected sources; do
      add "$G/models-bf16/$part/small"
    done ;;
  prepared | kernels-prepared) add "$G/models-bf16-prepared" ;;
  attention) add "$G/models-bf16-attention" ;;
  reductions) add "$G/reductions" ;;
  quantize) add "$G/quantize" ;;
  gemms) gemm_variants; add "$G/optimizer" ;;
  optimizer) add "$G/optimizer" ;;
  frontend) add "$G/frontend" ;;
  ragged) add "$G/models-bf16-ragged" "$G/models-bf16-ragged-prepared" ;;
  multicast | alternate | producer-scales) add "$G/models-bf16-$stage"; gemm_variants ;;
  multicast-small | multicast-timed | alternate-small | alternate-timed | \
  producer-scales-small | producer-scales-timed)
    add "$G/models-bf16-${stage%-*}" ;;
  multicast-gemms | alternate-gemms | producer-scales-gemms) gemm_variants ;;
  *) echo "pack.sh: unknown stage '$stage'" >&2; exit 2 ;;
  esac
done
if [ ${#PATHS[@]} -eq 0 ]; then
  echo "pack.sh: the stages ${STAGES[*]} read nothing from $FROM/" >&2
  exit 1
fi
# A path may come from several stages: each once.
mapfile -t PATHS < <(printf '%s\n' "${PATHS[@]}" | sort -u)
tar czf "$FILE" "${PATHS[@]}"
echo "$FILE: $(du -m "$FILE" | cut -f1) MiB for the stages ${STAGES[*]}"
