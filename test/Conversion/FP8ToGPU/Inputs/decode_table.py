#!/usr/bin/env python3
"""Checks the decode tables of range-expanded codes in a PTX file against
the numpy oracle of numerics.md section 14.

  decode_table.py PTX FORMAT...

For each FORMAT (e4m3, e5m2), the PTX must define the global
__fp8_expand_decode_<FORMAT>: 17 rows (exponents -8 to 8) of 128 f32
values, entry (j + 8) * 128 + c being what a code of magnitude bits c
decodes to in a group of amax 1 with exponent j. Every entry is compared
bit for bit with fp8_mlir.numerics.expand_decode(c, 1, j) (a NaN with any
NaN); prints one line per format and exits 1 on any difference.
"""

import re
import sys

import numpy as np

from fp8_mlir import numerics as n

NAMES = {"e4m3": "f8E4M3FN", "e5m2": "f8E5M2"}
STEPS = 8


def table(ptx, fmt):
    match = re.search(r"\.global \.align \d+ \.b8 __fp8_expand_decode_%s\[(\d+)\] = \{([^}]*)\}"
                      % fmt, ptx)
    if not match:
        return None
    data = np.array([int(b) for b in match.group(2).split(",")], np.uint8)
    if len(data) != int(match.group(1)):
        return None
    return data.view("<f4")


def main(path, formats):
    ptx = open(path).read()
    failed = False
    for fmt in formats:
        values = table(ptx, fmt)
        if values is None or len(values) != (2 * STEPS + 1) * 128:
            print("%s: no decode table of %d entries" % (fmt, (2 * STEPS + 1) * 128))
            failed = True
            continue
        differ = 0
        for j in range(-STEPS, STEPS + 1):
            for c in range(128):
                got = values[(j + STEPS) * 128 + c]
                want = n.expand_decode(c, np.float32(1.0), j, NAMES[fmt])
                same = (np.isnan(got) and np.isnan(want)) or (
                    np.float32(got).view(np.uint32) == np.float32(want).view(np.uint32))
                differ += not same
        print("%s: %d entries, %d differ from the oracle" % (fmt, len(values), differ))
        failed |= differ != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
