"""Runs a Python script with the fp8_mlir package of an install prefix, as
a Python that has the prefix's package directory on its default path would
(python3 and /usr/local on Debian), then says where the package and its
library came from.

    run_installed.py PREFIX SCRIPT [ARGS...]
"""

import os
import runpy
import sys

prefix, script, *args = sys.argv[1:]
sys.path.insert(0, os.path.join(prefix, "lib", "python%d.%d" % sys.version_info[:2],
                                "dist-packages"))
sys.argv = [script] + args
runpy.run_path(script, run_name="__main__")

import fp8_mlir  # noqa: E402
from fp8_mlir import _capi  # noqa: E402

print("package:", os.path.relpath(fp8_mlir.__file__, prefix))
print("library:", os.path.relpath(os.path.realpath(_capi.lib().path), os.path.realpath(prefix)))
