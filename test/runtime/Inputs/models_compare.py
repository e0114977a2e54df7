"""bench/gpu/models.py's comparison on made-up outputs: what passes (the CPU
values, one-ulp noise, a few FP8 codes rounding the other way upstream) and
what fails (a zeroed tile, a scaled block, a NaN, one wrong FP8 code or
scale), whole and sampled; and its checks of errors against float64."""

import os
import sys

import numpy as np

sys.path.insert(0, sys.argv[1])  # bench/gpu
import models  # noqa: E402


def check(what, record, cpu, ours, recipe="tensor-current"):
    result = models.compare(record, cpu, ours, recipe)
    print("%s: %s%s" % (what, "ok" if result["ok"] else "FAIL",
                        "" if result["ok"] else " (" + models.describe("out", result) + ")"))


rng = np.random.default_rng(0)
cpu = (rng.standard_normal((256, 384)) * np.exp2(rng.integers(-4, 5, (1, 384)))).astype(
    np.float32)
record, stored = models.output_record(cpu, "f32", 0)
up = np.float32(np.inf)

# CHECK: same: ok
check("same", record, stored, cpu)
# CHECK-NEXT: one ulp: ok
check("one ulp", record, stored, np.nextafter(cpu, up))
# An E4M3 operand code one step off in a K = 384 sum moves an output by
# about 2^-3 |a b|: a few of them stay inside.
# CHECK-NEXT: code flips upstream: ok
flipped = cpu.copy()
flipped[::37, ::11] += 2.0 ** -3 * np.abs(cpu).mean()
check("code flips upstream", record, stored, flipped)
# CHECK-NEXT: zeroed tile: FAIL ({{.*}} elements beyond tolerance{{.*}}worst at [{{[0-9]+}}, {{[0-9]+}}]
tile = cpu.copy()
tile[128:256, 0:128] = 0
check("zeroed tile", record, stored, tile)
# CHECK-NEXT: scaled block: FAIL
block = cpu.copy()
block[0:32, 32:64] *= 1.25
check("scaled block", record, stored, block)
# CHECK-NEXT: NaN: FAIL (out: 1 elements beyond tolerance (1 NaN/inf not where the CPU has them)
nan = cpu.copy()
nan[3, 4] = np.nan
check("NaN", record, stored, nan)
# CHECK-NEXT: NaN where the CPU has it: ok
cpu_nan = cpu.copy()
cpu_nan[5, 6] = np.nan
record_nan, stored_nan = models.output_record(cpu_nan, "f32", 0)
check("NaN where the CPU has it", record_nan, stored_nan, cpu_nan)

# Sampled: the same positions on both sides.
# CHECK-NEXT: sampled, same: ok
sampled, values = models.output_record(cpu, "f32", 1000)
assert sampled["sampled"] == 1000 and values.shape == (1000,)
assert len(set(models.sample_indices(cpu.size, 1000).tolist())) == 1000
check("sampled, same", sampled, values, cpu)
# CHECK-NEXT: sampled, zeroed tile: FAIL
check("sampled, zeroed tile", sampled, values, tile)
# CHECK-NEXT: sampled, the stored samples: ok
check("sampled, the stored samples", sampled, values, values.copy())

# Codes and scales: bit-exact.
codes = rng.integers(0, 256, (64, 128)).astype(np.uint8)
crecord, cstored = models.output_record(codes, "f8e4m3", 0)
# CHECK-NEXT: codes: ok
check("codes", crecord, cstored, codes)
# CHECK-NEXT: one code: FAIL (out: 1 codes differ (first at [7, 9]:
wrong = codes.copy()
wrong[7, 9] ^= 1
check("one code", crecord, cstored, wrong)
scales = rng.integers(120, 135, (64, 4)).astype(np.uint8)
srecord, sstored = models.output_record(scales, "f8e8m0", 0)
# CHECK-NEXT: scales: ok
check("scales", srecord, sstored, scales)
# CHECK-NEXT: one scale: FAIL (out: 1 codes differ
scales[0, 3] += 1
check("one scale", srecord, sstored, scales)

# nvfp4's limits are wider: E2M1 codes are coarser.
# CHECK-NEXT: nvfp4, 1% noise: ok
noisy = cpu * (1 + 0.01 * rng.standard_normal(cpu.shape)).astype(np.float32)
check("nvfp4, 1% noise", record, stored, noisy, "nvfp4")
# CHECK-NEXT: tensor-current, 1% noise: FAIL
check("tensor-current, 1% noise", record, stored, noisy)
# Whole outputs against float64: within the recipe's bounds of
# bench/examples/error.py (y, dx, worst parameter gradient) where there is no
# CPU reference, within the CPU's error and the tolerance where there is.
# CHECK-NEXT: bounds: []
print("bounds:", models.float64_bound_failures([0.03, 0.06, None, 0.2], (0.07, 0.15, 0.30)))
# CHECK-NEXT: bounds, dx: ["dx: error 0.2 against float64 > the recipe's bound 0.15"]
print("bounds, dx:", models.float64_bound_failures([0.03, 0.2, 0.1], (0.07, 0.15, 0.30)))
# CHECK-NEXT: consistent: ([], [])
print("consistent:", models.float64_consistency([0.0315, None], [0.0313, 0.5], 2 ** -8))
# CHECK-NEXT: inconsistent: (["result 1: error 0.04 against float64, more than the CPU's 0.0313 and the tolerance allow (0.0353)"], [])
print("inconsistent:", models.float64_consistency([0.0315, 0.04], [0.0313, 0.0313], 2 ** -8))
# Beyond the tolerance but within the drift of redrawn FP8 rounding (the
# mxfp8 GPT-2 backward's weight gradient on an H100: 0.134 against 0.127).
# CHECK-NEXT: drifted: ([], ["result 0: error 0.134 against float64, more than the CPU's 0.127 and the tolerance allow (0.131); within the drift of redrawn rounding (0.147)"])
print("drifted:", models.float64_consistency([0.134], [0.127], 2 ** -8))

# Drift: an output beyond the tolerances against the CPU whose error against
# float64 stays within the CPU's times 1 + 2^-3 plus f (redrawn FP8 rounding
# noise in a backward program); a wrong tile moves it far beyond.
f = 2 ** -8
drifted = models.compare(record, stored, noisy, "tensor-current")
# CHECK-NEXT: drift, as close as the CPU: True
print("drift, as close as the CPU:", models.is_drift(drifted, 0.066, 0.0715, f))
# CHECK-NEXT: drift, 1.12 times the CPU's error: True
print("drift, 1.12 times the CPU's error:", models.is_drift(drifted, 0.08, 0.0715, f))
# CHECK-NEXT: drift, 1.2 times the CPU's error: False
print("drift, 1.2 times the CPU's error:", models.is_drift(drifted, 0.0858, 0.0715, f))
# CHECK-NEXT: drift, zero in exact arithmetic: True
print("drift, zero in exact arithmetic:", models.is_drift(drifted, None, None, f))
# CHECK-NEXT: drift, NaN not the CPU's: False
print("drift, NaN not the CPU's:",
      models.is_drift(models.compare(record, stored, nan, "tensor-current"), 0.03, 0.03, f))
# CHECK-NEXT: drift, codes: False
print("drift, codes:",
      models.is_drift(models.compare(crecord, cstored, wrong, "tensor-current"), 0.0, 0.0, f))
print(os.path.basename(__file__), "done")
