#!/usr/bin/env python3
"""One recipe's CPU execution test (see fp8_mlir.recipes).

  recipe_case.py emit RECIPE        the MLIR program, on stdout
  recipe_case.py check RECIPE FILE  compares mlir-runner's output in FILE with
                                    the numpy oracle, bit for bit

A [5, 200] and B [200, 70] leave ragged last blocks for every granularity
(200 and 70 are not multiples of 16, 32 or 128). Inputs span a wide dynamic
range and come from a generator seeded by the recipe name.
"""

import sys
import zlib

import numpy as np

from fp8_mlir import recipes

M, K, N = 5, 200, 70


def inputs(recipe):
    rng = np.random.default_rng(zlib.crc32(recipe.encode()))
    if recipe == "unit":  # unit scaling keeps values near 1
        return (rng.standard_normal((M, K)).astype(np.float32),
                rng.standard_normal((K, N)).astype(np.float32))
    a = rng.standard_normal((M, K)) * np.exp2(rng.uniform(-6, 6, (M, 1)))
    a *= np.exp2(rng.uniform(-4, 4, (1, K)))
    b = rng.standard_normal((K, N)) * np.exp2(rng.uniform(-6, 6, (1, N)))
    b *= np.exp2(rng.uniform(-4, 4, (K, 1)))
    return a.astype(np.float32), b.astype(np.float32)


def check(recipe, path):
    actual = recipes.parse_runner_output(open(path).read())
    expected = recipes.oracle_results(recipe, *inputs(recipe))
    ok = len(actual) == len(expected)
    if not ok:
        print(f"{recipe}: {len(actual)} arrays printed, expected {len(expected)}")
    for what, want, got in zip(recipes.ARRAYS, expected, actual):
        if got.shape != want.shape:
            print(f"{recipe}: {what}: {got.size} values, expected {want.size}")
            ok = False
            continue
        bad = np.nonzero(got != want)[0]
        if bad.size:
            ok = False
            print(f"{recipe}: {what}: {bad.size} of {want.size} differ; first at {bad[0]}: "
                  f"got {got[bad[0]]:#x}, expected {want[bad[0]]:#x}")
        else:
            print(f"{recipe}: {what}: {want.size} values match")
    print(f"{recipe}: {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "emit":
        sys.stdout.write(recipes.emit_program(sys.argv[2], *inputs(sys.argv[2])))
    else:
        sys.exit(check(sys.argv[2], sys.argv[3]))
