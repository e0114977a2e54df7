"""Exercises runtime/python/fp8rt.py without a GPU (run-stub-driver.test).

usage: binding.py <dir of fp8rt.py> <libfp8rt.so> <artifacts dir>
"""

import ctypes
import os
import sys

sys.path.insert(0, sys.argv[1])
import fp8rt  # noqa: E402

library = fp8rt.Library(sys.argv[2])
artifacts = sys.argv[3]
print("version", library.manifest_version())


class FakeTensor:
    """Looks like a torch tensor of 10 bytes."""

    is_cuda = True

    def data_ptr(self):
        return 256

    def numel(self):
        return 10

    def element_size(self):
        return 1

    def is_contiguous(self):
        return True


class MisalignedTensor(FakeTensor):
    """Looks like a torch tensor of gemm's first input, 4 bytes past an
    allocation's start."""

    def data_ptr(self):
        return 0x7f0000000104

    def numel(self):
        return 131072


with library.load(artifacts, manifest_only=True) as program:
    print(program.function, program.chip, program.module_kind)
    for t in program.inputs:
        print("input", t.dtype, list(t.shape), t.bytes)
    for t in program.outputs:
        print("output", t.dtype, list(t.shape), t.bytes)
    print("describe:", program.describe().splitlines()[0])
    for inputs, outputs in [([1, 2, 3, 4], [5]), ([1], [2]),
                            ([FakeTensor(), 2, 3, 4], [5]),
                            ([MisalignedTensor(), 2, 3, 4], [5])]:
        try:
            program.run(inputs, outputs)
        except fp8rt.Fp8rtError as e:
            print("run:", e)
    for sync in [False, True]:
        try:
            program.run([1, 2, 3, 4], [5], sync=sync, graph=True)
        except fp8rt.Fp8rtError as e:
            print("graph run:", e)
    print("graph captures:", program.graph_captures)
    pointers = (ctypes.c_uint64 * 4)(1, 2, 3, 4)
    if library._lib.fp8rt_run_ex(program._handle, pointers, pointers, None, 4) != 0:
        print("flags:", program.last_error())
for path, manifest_only in [(os.path.join(artifacts, "gemm.json"), False),
                            (os.path.join(artifacts, "nothing.json"), True)]:
    try:
        library.load(path, manifest_only)
    except fp8rt.Fp8rtError as e:
        print("load:", e)
