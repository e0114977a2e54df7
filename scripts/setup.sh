#!/usr/bin/env bash
# Installs the Debian packages fp8-mlir needs (only the missing ones), then
# configures and builds. Idempotent: with everything in place it only runs an
# incremental ninja build.
#
#   scripts/setup.sh              # release build in build/
#   scripts/setup.sh --sanitize   # ASan+UBSan build in build-asan/
#
# Environment: FP8_BUILD_DIR overrides the build directory, FP8_JOBS the
# number of parallel compile jobs (default: the number of cores).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sanitize=OFF
build_dir="${FP8_BUILD_DIR:-$root/build}"
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=ON; build_dir="${FP8_BUILD_DIR:-$root/build-asan}" ;;
    *) echo "setup.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done

packages=(
  # The LLVM/MLIR 22 toolchain (bookworm-security).
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools lld-22
  # Build tools and test dependencies (PyTorch for the front end's tests).
  cmake ninja-build g++ git libgtest-dev python3 python3-numpy python3-torch
)

missing=()
for pkg in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done
if ((${#missing[@]})); then
  echo "== installing: ${missing[*]}"
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ ! -f "$build_dir/build.ninja" ]; then
  echo "== configuring $build_dir"
  cmake -G Ninja -S "$root" -B "$build_dir" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=gcc -DCMAKE_CXX_COMPILER=g++ \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DFP8_PYTHON_EXECUTABLE=/usr/bin/python3 \
    -DFP8_ENABLE_SANITIZERS="$sanitize"
fi

echo "== building $build_dir"
jobs="${FP8_JOBS:-$(nproc)}"
ninja -C "$build_dir" -j "$jobs"
