"""Compile-time and run-time quantization agree bit for bit.

  compare.py BUILD_DIR RECIPE [PASSES...]

Emits fp8_mlir.recipes' program for RECIPE on constant operands with
ragged shapes, a wide dynamic range and special values (NaN, +-inf, zeros, a
zero block, subnormal f32 values), runs it with and without
--fp8-quantize-constants, and compares every printed array (codes, scales,
decoded operands, the product) bit for bit. It also checks that the pass left
no quantization to run time. PASSES run before it in both cases
(fp8-legalize-layout's transposed copies of the constant weight fold too).
"""

import subprocess
import sys

import numpy as np

from fp8_mlir import recipes


def operands(seed, k=70, n=37):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((19, k)) * np.exp2(rng.uniform(-20, 20, (19, k)))
    b = rng.standard_normal((k, n)) * np.exp2(rng.uniform(-8, 8, (1, n)))
    a[0, :5] = [np.nan, np.inf, -np.inf, 0.0, -0.0]
    a[1, :] = 0.0                 # an all-zero row (and blocks)
    a[2, 3] = 1e-40               # an f32 subnormal
    a[3, :] = 3e38                # huge values
    b[:, 0] = 0.0
    b[5, 6] = np.nan
    return a.astype(np.float32), b.astype(np.float32)


def main(argv):
    build, recipe, before = argv[1], argv[2], argv[3:]
    # Tensor-core layouts need 16-byte rows: K and N aligned, M ragged.
    a, b = operands(len(recipe), *((96, 48) if before else (70, 37)))
    program = recipes.emit_program(recipe, a, b)
    folded_ir = subprocess.run([f"{build}/bin/fp8-opt", *before, "--fp8-quantize-constants"],
                               input=program, capture_output=True, text=True,
                               check=True).stdout
    left = [op for op in ("fp8.amax", "fp8.compute_scale", "fp8.quantize",
                          "fp8.dynamic_quantize", "linalg.transpose")
            if op + " " in folded_ir]
    runtime = recipes.run_program(program, build, passes=before)
    folded = recipes.run_program(program, build, passes=before + ["--fp8-quantize-constants"])
    assert len(runtime) == len(folded) == len(recipes.ARRAYS)
    for name, x, y in zip(recipes.ARRAYS, runtime, folded):
        if not np.array_equal(x, y):
            bad = np.flatnonzero(x != y)
            print(f"{recipe}: {name} differs at {len(bad)} elements, first {bad[0]}: "
                  f"run time {x[bad[0]]:#x}, folded {y[bad[0]]:#x}")
            return 1
    print(f"{recipe}: folded quantization matches run time bit for bit; "
          f"left to run time: {', '.join(left) if left else 'nothing'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
