"""Checks that the dtype tables of runtime/python/fp8rt.py are those of the
C++ header fp8rt/DTypes.h: the same names, widths and order.

    check_dtypes.py DTypes.h    (with runtime/python on PYTHONPATH)

Prints what differs and exits 1, or prints "agree" and exits 0.
"""

import re
import sys

import fp8rt


def main():
    with open(sys.argv[1]) as f:
        header = f.read()
    buffers = [(name, int(bits)) for name, bits in
               re.findall(r'\{DType::\w+,\s*"(\w+)",\s*(\d+)\}', header)]
    maps = [(name, int(size)) for name, size in
            re.findall(r'\{TensorMapDType::\w+,\s*"(\w+)",\s*(\d+)\}', header)]
    max_int = re.search(r'kMaxIntBits\s*=\s*(\d+)', header)
    problems = []
    if not buffers or not maps or not max_int:
        problems.append("cannot find the tables in %s" % sys.argv[1])
    if buffers != list(fp8rt.DTYPE_BITS.items()):
        problems.append("buffer dtypes: C++ %s, Python %s"
                        % (buffers, list(fp8rt.DTYPE_BITS.items())))
    if maps != list(fp8rt.TENSOR_MAP_DTYPE_BYTES.items()):
        problems.append("tensor-map dtypes: C++ %s, Python %s"
                        % (maps, list(fp8rt.TENSOR_MAP_DTYPE_BYTES.items())))
    if max_int and int(max_int.group(1)) != fp8rt.MAX_INT_BITS:
        problems.append("widest integer: C++ %s, Python %d"
                        % (max_int.group(1), fp8rt.MAX_INT_BITS))
    for name in fp8rt.FORMAT_DTYPES.values():
        if name not in fp8rt.DTYPE_BITS:
            problems.append("format dtype %s is not a dtype" % name)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print("agree: %d buffer dtypes, %d tensor-map dtypes"
          % (len(buffers), len(maps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
