#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the lit suite
# (test/) and the GoogleTest unit tests (run through lit, test/Unit). The last
# line is `N passed, N failed`; the exit code is non-zero when anything failed.
#
#   scripts/test.sh              # release build in build/
#   scripts/test.sh --sanitize   # the same suite on the ASan+UBSan build
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="$root/build"
for arg in "$@"; do
  case "$arg" in
    --sanitize) build_dir="${FP8_BUILD_DIR:-$root/build-asan}" ;;
  esac
done
if [ -n "${FP8_BUILD_DIR:-}" ]; then build_dir="$FP8_BUILD_DIR"; fi

"$root/scripts/setup.sh" "$@" || { echo "0 passed, 1 failed"; exit 1; }

log="$build_dir/test-results.log"
/usr/lib/llvm-22/bin/lit -sv --time-tests "$build_dir/test" "$build_dir/test/Unit" 2>&1 | tee "$log"
/usr/bin/python3 "$root/scripts/lit-summary.py" "$log"
