# The numpy oracle reproduces the training-state vectors of docs/numerics.md
# sections 13 and 14.
# RUN: %python %s | FileCheck %s
# CHECK: all training-state vectors reproduced

import math

import numpy as np

from fp8_mlir import numerics as n


def check_group(values, exponent, codes, decoded, name="f8E4M3FN", limit=n.EXPAND_LIMIT):
    x = np.array([values], np.float32)
    q, a, j = n.expand_quantize(x, [1, len(values)], name, limit)
    assert int(j[0, 0]) == exponent, (values, j)
    assert [int(c) for c in q[0]] == codes, (values, [hex(c) for c in q[0]])
    y = n.expand_dequantize(q, a, j, [1, len(values)], name)
    if decoded == "exact":
        decoded = values
    for got, want in zip(y[0], decoded):
        want = np.float32(float.fromhex(want) if isinstance(want, str) else want)
        assert (np.isnan(got) and np.isnan(want)) or (
            got == want and np.signbit(got) == np.signbit(want)), (values, got, want)


# Section 13: (group, j, codes, decoded values).
MOMENT = [1e-5, 7e-6, 3e-6, 1.2e-6]
check_group([1, 0.5, 0.25, 0.125], 2, [0x7E, 0x5E, 0x3E, 0x1E], "exact")
check_group([1, 0.5, 0.25, 0.125], 0, [0x7E, 0x76, 0x6E, 0x66], "exact", limit=0)
check_group(MOMENT, 2, [0x7E, 0x6D, 0x47, 0x1C],
            ["0x1.4f8b58p-17", "0x1.d1d214p-18", "0x1.95f958p-19", "0x1.42dbf6p-20"])
check_group(MOMENT, 0, [0x7E, 0x7A, 0x70, 0x65],
            ["0x1.4f8b58p-17", "0x1.df595ap-18", "0x1.7f7aaep-19", "0x1.3793acp-20"], limit=0)
check_group(MOMENT, 3, [0x7B, 0x6A, 0x44, 0x19],
            ["0x1.4f8b58p-17", "0x1.d179a6p-18", "0x1.95bf7cp-19", "0x1.41b96cp-20"], "f8E5M2")
check_group([1, -1e-6, 0.5, 0], -1, [0x7E, 0xAE, 0x7A, 0x00], [1, "-0x1p-20", "0x1.053978p-1", 0])
check_group([2, -2, 2, 2], 5, [0x7E, 0xFE, 0x7E, 0x7E], "exact")
check_group([1, math.inf, -math.inf, math.nan], 5, [0x7E, 0x7E, 0xFE, 0x7F],
            [1, 1, -1, math.nan])
check_group([0.0, -0.0, math.inf, 0.0], 0, [0x00, 0x80, 0x7E, 0x00], [0.0, -0.0, 0.0, 0.0])

# The exponent rule: the smallest magnitude lands at or above fmax / T after
# encoding, and the next larger exponent would push it below.
for ratio in [0.9, 0.5, 0.1, 1e-3, 1e-6, 1e-12]:
    j = n.expand_exponent(1.0, ratio, "f8E4M3FN")
    target = n.expand_target("f8E4M3FN")
    assert n.expand_power(np.float32(ratio), j) * target >= 1, ratio
    if j < n.EXPAND_LIMIT:
        assert n.expand_power(np.float32(ratio), j + 1) * target < 1, ratio
# A ratio below every candidate compresses as far as the limit allows.
assert n.expand_exponent(1.0, 1e-38, "f8E4M3FN", limit=2) == -2

# Every finite magnitude round-trips within E4M3's half ulp through the
# expansion (relative error at most 2^-4 / k, k >= 1 here).
rng = np.random.default_rng(7)
x = (np.exp(rng.normal(size=(4, 128))) * 1e-6).astype(np.float32)
q, a, j = n.expand_quantize(x, [1, 128])
assert (j >= 1).all()
y = n.expand_dequantize(q, a, j, [1, 128])
assert (np.abs(y - x) <= np.abs(x) * 2.0**-4).all()
q0, a0, j0 = n.expand_quantize(x, [1, 128], limit=0)
y0 = n.expand_dequantize(q0, a0, j0, [1, 128])
assert np.mean(np.abs(y - x) / x) < 0.75 * np.mean(np.abs(y0 - x) / x)

# Section 14: a master weight of magnitude 1e-6 in scaled f16 keeps 11 bits.
values, scale = n.scaled_f16_encode([1e-6, -3e-7])
assert scale == 2.0**35 and [float(v) for v in values] == [34368.0, -10304.0]
decoded = n.scaled_f16_decode(values, scale)
assert [float(v) for v in decoded] == [float.fromhex("0x1.0c8p-20"), float.fromhex("-0x1.42p-22")]
# The auto-scaling state: 0, 2, 1 saturated of 100000, then 999 clean steps.
e, c, trace = 0, 0, []
for saturated in [0, 2, 1] + [0] * 999:
    e, c = n.grad_autoscale_update(e, c, saturated, 100000)
    trace.append(e)
assert trace[:4] == [0, -1, -1, -1] and trace[-2:] == [-1, 0] and c == 0
# The first AdamW step from zero moments.
w, m, v = n.adamw_step([1.0, -0.5], [0.1, -0.2], [0, 0], [0, 0], 1e-3, 0.9, 0.999, 1e-8, 0.01,
                       np.float32(1 - 0.9), np.float32(1 - 0.999))
assert [float(t) for t in w] == [float.fromhex("0x1.ff7b9ep-1"), float.fromhex("-0x1.fef88ap-2")], w
print("all training-state vectors reproduced")
