#!/usr/bin/env python3
"""fp8-autocast on a framework-style linalg.matmul, run on the CPU.

  matmul_case.py emit  RECIPE SHAPE TYPES [transposed] [dgrad]
  matmul_case.py check RECIPE SHAPE TYPES [transposed] [dgrad] OUTPUT

SHAPE is MxKxN, TYPES is in-out (f32-f32, bf16-f32, bf16-bf16). The program
multiplies seeded random operands with a wide dynamic range; check compares
the bits of C with the numpy oracle (fp8_mlir.recipes.oracle_matmul).
"""

import sys
import zlib

import numpy as np

from fp8_mlir import recipes
from fp8_mlir import numerics as n


# The seed=... of the dgrad tests' fp8-autocast options.
SEED = 12345


def inputs(recipe, shape, in_type, transposed):
    m, k, nn = (int(v) for v in shape.split("x"))
    rng = np.random.default_rng(zlib.crc32(f"{recipe}{shape}{in_type}{transposed}".encode()))
    a = rng.standard_normal((m, k)) * np.exp2(rng.uniform(-4, 4, (m, 1)))
    b = rng.standard_normal((k, nn)) * np.exp2(rng.uniform(-4, 4, (1, nn)))
    if transposed:
        b = b.T.copy()
    a, b = a.astype(np.float32), b.astype(np.float32)
    if in_type != "f32":  # make the values exact in the input type
        a, b = n.round_to(a, in_type), n.round_to(b, in_type)
    return a, b


def main(argv):
    mode, recipe, shape, types = argv[1:5]
    rest = argv[5:]
    transposed = bool(rest) and rest[0] == "transposed"
    if transposed:
        rest = rest[1:]
    role = "fprop"
    if rest and rest[0] == "dgrad":
        role, rest = "dgrad", rest[1:]
    in_type, out_type = types.split("-")
    a, b = inputs(recipe, shape, in_type, transposed)
    if mode == "emit":
        sys.stdout.write(recipes.emit_matmul_program(a, b, in_type, out_type, transposed, role))
        return 0
    printed = recipes.parse_runner_output(open(rest[0]).read())
    want = recipes.oracle_matmul(recipe, a, b, out_type, transposed, role, seed=SEED)
    got = printed[0] if printed else np.array([])
    if got.shape != want.shape:
        print(f"FAIL: {got.size} values printed, {want.size} expected")
        return 1
    bad = np.nonzero(got != want)[0]
    if bad.size:
        i = bad[0]
        print(f"FAIL: {bad.size} of {want.size} differ; first at {i}: got "
              f"{recipes.as_f32([got[i]])[0]!r}, expected {recipes.as_f32([want[i]])[0]!r}")
        return 1
    print(f"{recipe} {shape} {types}{' transposed' if transposed else ''} {role}: "
          f"{want.size} values match the oracle")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
