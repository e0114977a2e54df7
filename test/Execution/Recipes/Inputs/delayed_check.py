#!/usr/bin/env python3
"""Checks tensor-delayed.mlir's output against the numpy oracle.

Usage: delayed_check.py OUTPUT [HISTORY_LENGTH]  (default 4)
"""

import sys

import numpy as np

from fp8_mlir import numerics as n
from fp8_mlir import recipes

XS = np.array([[[1.0, -3.5, 0.3, 2.2], [0.01, 1.7, -2.9, 0.5]],
               [[100.0, -7.0, 0.125, 33.0], [-99.0, 1.0, 2.0, 64.0]],
               [[0.25, -0.1, 0.0625, 0.2], [0.003, -0.25, 0.07, 0.11]]], dtype=np.float32)

amaxes = [n.amax(x, None)[0, 0] for x in XS]
length = int(sys.argv[2]) if len(sys.argv) > 2 else 4
used, _, _ = n.delayed_scaling(amaxes, length=length)
codes = np.concatenate([n.quantize(x, np.full((1, 1), s, np.float32), None, "f8E4M3FN").reshape(-1)
                        for x, s in zip(XS, used)])
scales = np.array(used, dtype=np.float32).view(np.int32)
printed = recipes.parse_runner_output(open(sys.argv[1]).read())
ok = len(printed) == 2 and np.array_equal(printed[0], codes) and np.array_equal(printed[1], scales)
print("scales used:", [float(s) for s in used])
print(f"tensor-delayed: {'PASS' if ok else 'FAIL'}")
sys.exit(0 if ok else 1)
