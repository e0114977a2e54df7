"""fp8-mlir's Python package.

* `fp8_mlir.compiler`: the compiler over its C API (libFP8MLIR-C.so): parse
  MLIR, run pass pipelines, compile for a chip into GPU artifacts, JIT-run
  fp8-cpu-pipeline output on numpy arrays (`fp8_mlir.execution`).
  Diagnostics come back as exceptions with file:line:col.
* `fp8_mlir.runtime`: the GPU runtime's binding (libfp8rt.so): load the
  artifacts' manifests and launch them on device memory.
* `fp8_mlir.torch`: a PyTorch front end: torch.fx-traced modules to linalg
  on tensors, compiled by a recipe into a torch callable, forward and
  backward.
* `fp8_mlir.numerics`: an independent numpy oracle of docs/numerics.md: it
  implements every conversion, scale rule, granularity and recipe step from
  the formulas (not from the C++), so that users and our tests can check
  results of the compiler bit for bit.
* `fp8_mlir.graph`, `fp8_mlir.models`: the tensor-graph builder with
  reverse-mode differentiation behind examples/ and the PyTorch importer.

Only `numerics` is imported eagerly; the others load their libraries (and
torch) when imported.
"""

from . import numerics  # noqa: F401

__all__ = ["numerics"]
