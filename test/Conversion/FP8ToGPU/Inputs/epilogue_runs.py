"""Prints, for each GEMM kernel of each PTX file given, the runs of its bf16
element loads (L) and bf16-pair stores (S) in program order, labelled by
the kernel's tile (gemm-epilogue-loads.mlir)."""

import re
import sys

for path in sys.argv[1:]:
    ptx = open(path).read()
    for entry in re.split(r"(?m)^\.visible \.entry ", ptx)[1:]:
        tile = re.match(r"fp8_gemm_\w*_(\d+x\d+)_s\d+\(", entry)
        if not tile:
            continue
        runs = []
        for op in re.findall(r"\b(ld\.global\.b16|st\.global\.b32)\b", entry):
            kind = "L" if op.startswith("ld") else "S"
            if runs and runs[-1][0] == kind:
                runs[-1][1] += 1
            else:
                runs.append([kind, 1])
        print("%s: %s" % (tile.group(1), " ".join("%s%d" % (k, n) for k, n in runs)))
