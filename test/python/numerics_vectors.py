# The numpy oracle reproduces every test vector of docs/numerics.md.
# RUN: %python %s | FileCheck %s
# CHECK: all numerics.md vectors reproduced

import numpy as np

from fp8_mlir import numerics as n

# Section 2: (input, saturate, nonfinite).
E4M3 = [(0.0, 0x00, 0x00), (-0.0, 0x80, 0x80), (2**-10, 0x00, 0x00), (1.5 * 2**-10, 0x01, 0x01),
        (2**-6, 0x08, 0x08), (1.0, 0x38, 0x38), (1.0625, 0x38, 0x38), (1.1875, 0x3A, 0x3A),
        (240, 0x77, 0x77), (448, 0x7E, 0x7E), (449, 0x7E, 0x7E), (464, 0x7E, 0x7E),
        (464.0001, 0x7E, 0x7F), (465, 0x7E, 0x7F), (480, 0x7E, 0x7F), (1e6, 0x7E, 0x7F),
        (np.inf, 0x7E, 0x7F), (-500, 0xFE, 0xFF), (-np.inf, 0xFE, 0xFF)]
E5M2 = [(2**-16, 0x01, 0x01), (2**-17, 0x00, 0x00), (1.125, 0x3C, 0x3C), (1.375, 0x3E, 0x3E),
        (57344, 0x7B, 0x7B), (61439, 0x7B, 0x7B), (61440, 0x7B, 0x7C), (65536, 0x7B, 0x7C),
        (np.inf, 0x7B, 0x7C)]
E2M1 = [(0.25, 0x0), (0.26, 0x1), (0.75, 0x2), (1.25, 0x2), (1.75, 0x4), (2.5, 0x4), (3.5, 0x6),
        (5.0, 0x6), (5.01, 0x7), (7, 0x7), (-0.25, 0x8)]
# (value, rceil, rne, floor)
E8M0 = [(1.0, 127, 127, 127), (1.4999999, 128, 127, 127), (1.5, 128, 128, 127),
        (3.0, 129, 129, 128), (2.0**-127, 0, 0, 0), (1.5 * 2.0**127, 254, 255, 254),
        (np.inf, 254, 255, 255), (np.nan, 255, 255, 255)]
# Section 4: MX E4M3 block exponents (amax, floor, rceil).
MX = [(448, 127, 127), (448.00003, 127, 128), (449, 127, 128), (480, 127, 128),
      (511.9, 127, 128), (512, 128, 128), (255.99998, 126, 127), (0, 0, 0), (3e38, 246, 247),
      (np.inf, 255, 254)]

for value, sat, nonfinite in E4M3:
    assert n.encode(value, "f8E4M3FN", "saturate") == sat, value
    assert n.encode(value, "f8E4M3FN", "nonfinite") == nonfinite, value
for value, sat, nonfinite in E5M2:
    assert n.encode(value, "f8E5M2", "saturate") == sat, value
    assert n.encode(value, "f8E5M2", "nonfinite") == nonfinite, value
for value, code in E2M1:
    assert n.encode(value, "f4E2M1FN") == code, value
for value, rceil, rne, floor in E8M0:
    assert n.e8m0_encode(value, "rceil", "saturate") == rceil, value
    assert n.e8m0_encode(value, "rne", "nonfinite") == rne, value
    assert n.e8m0_encode(value, "floor", "nonfinite") == floor, value
for value, floor, rceil in MX:
    assert n.rule_e8m0_floor(value, "f8E4M3FN") == floor, value
    assert n.rule_e8m0_rceil(value, "f8E4M3FN") == rceil, value
# The pow2 hazard: 448 / 56.000004 = 7.9999995 truncates to 4, never 8.
assert n.rule_pow2(np.float32(56.000004), "f8E4M3FN") == 4.0
# A block of 32 values of 480: floor stores 0x7E with e = 127, rceil 0x77 with 128.
block = np.full((1, 32), 480, np.float32)
q, s = n.dynamic_quantize(block, [1, 32], "e8m0_floor", "f8E4M3FN")
assert (s[0, 0], q[0, 0]) == (127, 0x7E)
q, s = n.dynamic_quantize(block, [1, 32], "e8m0_rceil", "f8E4M3FN")
assert (s[0, 0], q[0, 0]) == (128, 0x77)
# Section 7: the delayed-scaling sequence under both zero-amax policies.
used, final, _ = n.delayed_scaling([2, 0.5, 0, 8, 0, 0, 0, 1], 4)
assert [float(u) for u in used] == [1, 224, 224, 224, 56, 56, 56, 56] and final == 448
used, final, _ = n.delayed_scaling([2, 0.5, 0, 8, 0, 0, 0, 1], 4, zero_amax="skip")
assert [float(u) for u in used] == [1, 224, 224, 224, 56, 56, 56, 56] and final == 56
# Section 5: scale shapes with ragged edges.
assert n.scale_shape((5, 200), [1, 128]) == (5, 2)
assert n.scale_shape((200, 70), [128, 128]) == (2, 1)
assert n.scale_shape((200, 70), [16, 16]) == (13, 5)
assert n.scale_shape((5, 200), None) == (1, 1)
# A whole dimension of extent 0 has one scale; blocks of it none.
assert n.scale_shape((0, 32), None) == (1, 1)
assert n.scale_shape((5, 0), [1, -1]) == (5, 1)
assert n.scale_shape((0, 64), [1, 32]) == (0, 2)
assert n.amax(np.zeros((0, 32), np.float32), None).tolist() == [[0.0]]
# Section 2, NaNs: E5M2 encodes 0x7E | p (p the f32 mantissa's top two bits)
# with the sign; a NaN code decodes with its sign and mantissa; finite-only
# formats give a zero of the NaN's sign.
for bits, code in [(0x7FE00000, 0x7F), (0xFFA00000, 0xFF), (0x7FC00000, 0x7E),
                   (0x7F800001, 0x7E)]:
    assert n.encode(n.f32_from_bits(bits), "f8E5M2") == code, hex(bits)
for code, name, bits in [(0x7F, "f8E4M3FN", 0x7FF00000), (0xFF, "f8E4M3FN", 0xFFF00000),
                         (0x7D, "f8E5M2", 0x7FE00000), (0x7E, "f8E5M2", 0x7FC00000),
                         (0xFF, "f8E5M2", 0xFFE00000)]:
    assert n.f32_bits(np.float32(n.decode(code, name))) == bits, (name, hex(code))
assert n.encode(n.f32_from_bits(0xFFC00000), "f4E2M1FN") == 0x8
# A NaN product takes the element's NaN: under the E8M0 NaN scale 0xFF, -2
# gives the NaN of its sign; a NaN element keeps its sign and payload; 0 x inf
# under an f32 scale of 0 and NaN f32 scales alike.
nan_e, nan_f = n.f32_from_bits(0x7FE00000), n.f32_from_bits(0xFFC00000)
row = np.array([[-2.0, 2.0, nan_e, nan_f]], np.float32)
for name, codes in [("f8E4M3FN", [0xFF, 0x7F, 0x7F, 0xFF]), ("f8E5M2", [0xFE, 0x7E, 0x7F, 0xFE]),
                    ("f4E2M1FN", [0x8, 0x0, 0x0, 0x8])]:
    assert n.quantize(row, [[255]], [1, 4], name, kind="e8m0").tolist() == [codes], name
rows = np.array([[-0.0, 3.0, -np.inf, nan_e], [np.inf, -np.inf, 1.0, nan_f]], np.float32)
scales = np.array([[np.nan], [0.0]], np.float32)
assert n.quantize(rows, scales, [1, 4], "f8E4M3FN").tolist() == [
    [0xFF, 0x7F, 0xFF, 0x7F], [0x7F, 0xFF, 0x00, 0xFF]]
assert n.quantize(rows, scales, [1, 4], "f8E5M2").tolist() == [
    [0xFE, 0x7E, 0xFE, 0x7F], [0x7E, 0xFE, 0x00, 0xFE]]
# Stochastic rounding past the overflow step overflows, whatever the random
# word: E4M3 0x7E (saturate), E5M2 0x7B / 0x7C, E2M1 0x7.
for value, name, overflow, code in [(500, "f8E4M3FN", "saturate", 0x7E),
                                    (1e6, "f8E4M3FN", "nonfinite", 0x7F),
                                    (70000, "f8E5M2", "saturate", 0x7B),
                                    (70000, "f8E5M2", "nonfinite", 0x7C),
                                    (100, "f4E2M1FN", "saturate", 0x7)]:
    assert n.encode(value, name, overflow, "stochastic", 5) == code, (value, name)
# Section 7: `max` reduces magnitudes (a negative amax of -8 gives 448 / 8).
assert n.delayed_scaling([-8.0], 4)[1] == 56
print("all numerics.md vectors reproduced")
