#!/usr/bin/env bash
# Compiles every GEMM variant and shape for a GPU run into build-gpu/
# (git-ignored): PTX, cubins, ptxas logs and manifests, plus build-gpu/index.json.
# Runs on a development machine with fp8-opt built (build/bin/fp8-opt, or
# FP8_OPT=/path/to/fp8-opt) and ptxas; see bench/gpu/README.md.
#
#   bench/gpu/compile.sh [--only REGEX] [--jobs N] [--strict] [--fp8-opt PATH] [--out DIR]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
PYTHON=/usr/bin/python3
[ -x "$PYTHON" ] || PYTHON=python3
exec "$PYTHON" "$ROOT/bench/gpu/compile.py" "$@"
