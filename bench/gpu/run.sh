#!/usr/bin/env bash
# Checks and benchmarks the compiled GEMMs on a GPU machine (see
# bench/gpu/README.md). Run from anywhere in a copy of the repository that
# holds build-gpu/ (made by bench/gpu/compile.sh on a development machine):
# builds the runtime with cmake (CUDA toolkit only, no LLVM/MLIR) into
# build-gpu-rt/, then runs bench/gpu/check_and_bench.py, which writes
# $OUT/report.md (and results.json, sass/, sanitizer/) when OUT is set, else
# prints the report. When $ART/optimizer/ is there too (made by
# `bench/gpu/optimizer.py compile`), it then runs `optimizer.py run` (the COAT
# AdamW step kernel: bit-exact check and bandwidth), whose report goes to
# $OUT/optimizer/optimizer.md (and results.json) or stdout.
#
#   bench/gpu/run.sh [--dry-run] [--only REGEX] [other check_and_bench.py options]
#
# Environment: OUT (report directory), PYTHON (default python3, which needs
# torch and numpy), FP8_ARTIFACTS (default build-gpu), FP8RT_BUILD (default
# build-gpu-rt), CUDAToolkit_ROOT (when the toolkit is not in /usr/local/cuda
# and nvcc is not on PATH).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$ROOT"
START=$(date +%s)
ART="${FP8_ARTIFACTS:-build-gpu}"
BUILD="${FP8RT_BUILD:-build-gpu-rt}"
PYTHON="${PYTHON:-python3}"

if [ ! -f "$ART/index.json" ]; then
  echo "run.sh: no $ART/index.json; run bench/gpu/compile.sh on a development machine" \
       "and copy $ART/ into this tree" >&2
  exit 1
fi

# The commit of these sources: git's, or else the one the artifacts record.
COMMIT="$(git rev-parse HEAD 2>/dev/null || true)"
if [ -z "$COMMIT" ]; then
  COMMIT="$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["commit"])' \
             "$ART/index.json" 2>/dev/null || echo unknown) (from $ART/index.json; no git here)"
fi

echo "== building the runtime in $BUILD"
GENERATOR=()
command -v ninja > /dev/null && GENERATOR=(-G Ninja)
if [ -f "$BUILD/CMakeCache.txt" ] && ! grep -q "CMAKE_HOME_DIRECTORY:INTERNAL=$ROOT/runtime$" "$BUILD/CMakeCache.txt"; then
  rm -rf "$BUILD" # configured elsewhere (another copy of the tree)
fi
mkdir -p "$BUILD"
if ! cmake -S runtime -B "$BUILD" ${GENERATOR[@]+"${GENERATOR[@]}"} -DCMAKE_BUILD_TYPE=Release > "$BUILD/configure.log" 2>&1; then
  cat "$BUILD/configure.log"
  echo "run.sh: configuring the runtime failed" >&2
  exit 1
fi
grep -E "fp8rt:|CUDAToolkit" "$BUILD/configure.log" || true
if ! cmake --build "$BUILD" -j "$(nproc 2> /dev/null || echo 4)"; then
  echo "run.sh: building the runtime failed" >&2
  exit 1
fi

# A dry run on a machine without the driver: let the ctypes binding load
# against the toolkit's stub libcuda (manifest-only loading needs nothing more).
for arg in "$@"; do
  if [ "$arg" = "--dry-run" ] && ! ldconfig -p 2> /dev/null | grep -q "libcuda.so.1 "; then
    STUB="$(find /usr/local/cuda/ -path '*stubs*' -name libcuda.so 2> /dev/null | head -n 1)"
    if [ -n "$STUB" ]; then
      mkdir -p "$BUILD/stub"
      ln -sf "$STUB" "$BUILD/stub/libcuda.so.1"
      export LD_LIBRARY_PATH="$ROOT/$BUILD/stub${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    fi
  fi
done

echo "== checking and benchmarking (commit $COMMIT)"
"$PYTHON" bench/gpu/check_and_bench.py --artifacts "$ART" --lib "$BUILD/lib/libfp8rt.so" \
  --fp8-run "$BUILD/bin/fp8-run" --commit "$COMMIT" "$@"
STATUS=$?

if [ -f "$ART/optimizer/index.json" ]; then
  echo "== the COAT AdamW step (bench/gpu/optimizer.py)"
  OPTIMIZER_ARGS=()
  for arg in "$@"; do
    [ "$arg" = "--dry-run" ] && OPTIMIZER_ARGS+=(--dry-run)
  done
  "$PYTHON" bench/gpu/optimizer.py run --artifacts "$ART/optimizer" --lib "$BUILD/lib/libfp8rt.so" \
    --runtime-build "$BUILD" ${OUT:+--out "$OUT/optimizer"} \
    ${OPTIMIZER_ARGS[@]+"${OPTIMIZER_ARGS[@]}"} || STATUS=1
fi
echo "run.sh: done in $(( $(date +%s) - START )) s; exit status $STATUS" \
     "(0: every check passed, 1: some failed or were skipped; see the report)"
exit $STATUS
