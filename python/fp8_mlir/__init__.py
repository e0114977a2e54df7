"""fp8-mlir's Python package.

`fp8_mlir.numerics` is an independent numpy oracle of docs/numerics.md: it
implements every conversion, scale rule, granularity and recipe step from the
formulas (not from the C++), so that users and our tests can check results of
the compiler bit for bit.
"""

from . import numerics  # noqa: F401

__all__ = ["numerics"]
