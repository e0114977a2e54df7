#!/usr/bin/env bash
# Long fuzzing runs: fp8-opt on mutated IR (scripts/fuzz/fuzz_driver.py, every
# .mlir seed of the suite) and the launch-manifest checker `fp8-run --check`
# on mutated manifests (scripts/fuzz/manifest_fuzz.py, manifests that
# fp8-opt writes here for several recipes and both chips). Every finding is
# saved minimized under OUT/reproducers. The lit suite runs both fuzzers
# briefly with fixed seeds (test/tools/fp8-opt/fuzz.test,
# test/runtime/manifest-fuzz.test).
#
#   scripts/fuzz.sh                           # 30 minutes, seed 1
#   scripts/fuzz.sh --minutes 5 --seed 7 --out /tmp/fuzz
#
# Two thirds of the time go to fp8-opt (at most half of that to the
# systematic variants of every fp8 op, the rest to random mutations), one
# third to the manifests; loading the seeds and minimizing come on top. OUT
# (default build/fuzz-run) holds opt/ (findings/, summary.json), manifest/
# (findings/), reproducers/ (one minimized file and one note per finding) and
# summary.txt. The exit status is 1 when anything was found, 2 on usage
# errors. FP8_BUILD_DIR names the build directory (default build/).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build_dir="${FP8_BUILD_DIR:-$root/build}"
python=/usr/bin/python3
minutes=30
seed=1
out="$build_dir/fuzz-run"

usage() {
  sed -n '2,/^set /p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit 2
}
while (($#)); do
  case "$1" in
    --minutes) minutes="${2:?}"; shift 2 ;;
    --seed) seed="${2:?}"; shift 2 ;;
    --out) out="${2:?}"; shift 2 ;;
    -h|--help) usage ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
[[ "$minutes" =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "fuzz.sh: --minutes takes a number" >&2; exit 2; }

fp8_opt="$build_dir/bin/fp8-opt"
fp8_run="$build_dir/bin/fp8-run"
for tool in "$fp8_opt" "$fp8_run"; do
  [ -x "$tool" ] || { echo "fuzz.sh: $tool is missing: build first (scripts/setup.sh)" >&2; exit 2; }
done

rm -rf "$out"
mkdir -p "$out/reproducers" "$out/manifest-seeds"
seconds=$("$python" -c "print(int(float('$minutes') * 60))")
opt_seconds=$((seconds * 2 / 3))
manifest_seconds=$((seconds - opt_seconds))

echo "== fp8-opt: ${opt_seconds}s, seed $seed"
"$python" "$root/scripts/fuzz/fuzz_driver.py" --fp8-opt "$fp8_opt" \
  --seed "$seed" --cases 100000000 --time-budget "$opt_seconds" \
  --out "$out/opt" >"$out/opt.log" 2>&1
opt_status=$?
grep -E "^(seeds|systematic|random|NEW|passed|FAILED)" "$out/opt.log"

# Each crash finding minimized with the flags it was found with; a rejection
# without a diagnostic is kept as found (the minimizer follows crashes only).
shopt -s nullglob
for finding in "$out"/opt/findings/*.mlir; do
  name="opt-$(basename "$finding" .mlir)"
  note="${finding%.mlir}.txt"
  if [[ "$(basename "$finding")" == crash-* ]]; then
    flags=$(sed -n 's/^command: [^ ]* [^ ]*\.mlir *//p' "$note")
    "$python" "$root/scripts/fuzz/fuzz_driver.py" --fp8-opt "$fp8_opt" \
      --minimize "$finding" --flags "$flags" --out "$out/opt-minimize" \
      >"$out/reproducers/$name.txt" 2>&1
    sed '1,/^--- minimized/d' "$out/reproducers/$name.txt" >"$out/reproducers/$name.mlir"
  else
    cp "$finding" "$out/reproducers/$name.mlir"
    cp "$note" "$out/reproducers/$name.txt"
  fi
done

echo "== fp8-run --check: ${manifest_seconds}s, seed $seed"
bf16="$root/test/Pipelines/Inputs/bf16-programs.mlir"
for config in tensor-delayed:sm_90a deepseek:sm_90a rowwise:sm_90a \
              mxfp8:sm_100a nvfp4:sm_100a; do
  recipe="${config%%:*}" chip="${config##*:}"
  "$fp8_opt" "$bf16" --fp8-autocast=recipe="$recipe" \
    --fp8-gpu-pipeline="chip=$chip artifacts=$out/manifest-seeds/$recipe ptxas=none" \
    -o /dev/null || { echo "fuzz.sh: fp8-opt could not compile the $recipe seeds" >&2; exit 1; }
done
"$python" "$root/scripts/fuzz/manifest_fuzz.py" --fp8-run "$fp8_run" \
  --seed "$seed" --cases 100000000 --time-budget "$manifest_seconds" --minimize \
  --out "$out/manifest" "$out"/manifest-seeds/* "$root/test/runtime/Inputs/module" \
  >"$out/manifest.log" 2>&1
manifest_status=$?
grep -E "^(seeds|FINDING|[0-9]+ cases|passed|FAILED)" "$out/manifest.log"
for finding in "$out"/manifest/findings/*/; do
  name="manifest-$(basename "$finding")"
  cp "$finding/finding.txt" "$out/reproducers/$name.txt"
  if [ -f "$finding/minimized.json" ]; then
    cp "$finding/minimized.json" "$out/reproducers/$name.json"
  else
    cp "$finding/case.json" "$out/reproducers/$name.json"
  fi
done

"$python" - "$out" <<'EOF' | tee "$out/summary.txt"
import glob, json, os, re, sys
out = sys.argv[1]
with open(os.path.join(out, "opt", "summary.json")) as f:
    opt = json.load(f)
stats = opt["stats"]
print("fp8-opt: %d cases, %d fp8-opt runs (%d passes runs) in %d s; "
      "accepted %d, rejected %d; %d crash signatures, %d other findings"
      % (opt["cases"], opt["fp8_opt_runs"], stats["pass_runs"], opt["seconds"],
         stats["rc0"], stats["rc1"], len(opt["crash_signatures"]),
         len(opt["other_findings"])))
with open(os.path.join(out, "manifest.log")) as f:
    line = [l for l in f if re.match(r"\d+ cases: ", l)]
print("fp8-run --check: " + (line[-1].strip() if line else "did not finish"))
print("reproducers: %d in %s" % (len(glob.glob(os.path.join(out, "reproducers", "*.txt"))),
                                 os.path.join(out, "reproducers")))
EOF
if ((opt_status != 0 || manifest_status != 0)); then
  echo "fuzz.sh: FAILED (fp8-opt fuzzer status $opt_status, manifest fuzzer status $manifest_status)"
  exit 1
fi
echo "fuzz.sh: passed"
