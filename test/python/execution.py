# CPU execution of fp8-cpu-pipeline output on numpy arrays (fp8_mlir.execution):
# element types, scalars, rank-0 and multiple results, results that alias an
# argument or each other, state kept across calls, and argument checks.
# RUN: %host_env %python %s 2>&1 | FileCheck %s

import ctypes

import numpy as np

from fp8_mlir import _capi, compiler, numerics
from fp8_mlir.graph import Graph

SOURCE = """
func.func @types(%a: tensor<2x3xbf16>, %b: tensor<3xf16>, %c: tensor<2xi32>, %s: f32)
    -> (tensor<2x3xbf16>, tensor<3xf16>, tensor<2xi32>, f32, tensor<f32>) {
  %sum = arith.addf %a, %a : tensor<2x3xbf16>
  %neg = arith.negf %b : tensor<3xf16>
  %twice = arith.addi %c, %c : tensor<2xi32>
  %zero = arith.constant dense<0.5> : tensor<f32>
  return %sum, %neg, %twice, %s, %zero : tensor<2x3xbf16>, tensor<3xf16>, tensor<2xi32>, f32, tensor<f32>
}
func.func @same(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  return %x, %x : tensor<4xf32>, tensor<4xf32>
}
func.func @half(%x: tensor<bf16>) -> tensor<bf16> {
  %h = arith.constant dense<0.5> : tensor<bf16>
  %y = arith.mulf %x, %h : tensor<bf16>
  return %y : tensor<bf16>
}
func.func @twice(%x: tensor<64x256xf32>) -> (tensor<64x256xf32>, tensor<64x256xf32>) {
  %e = tensor.empty() : tensor<64x256xf32>
  %0 = linalg.add ins(%x, %x : tensor<64x256xf32>, tensor<64x256xf32>)
      outs(%e : tensor<64x256xf32>) -> tensor<64x256xf32>
  return %0, %0 : tensor<64x256xf32>, tensor<64x256xf32>
}
func.func @quantize(%x: tensor<2x32xf32>) -> (tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>) {
  %q, %s = fp8.dynamic_quantize %x by <1x32> rule <e8m0_rceil>
      : tensor<2x32xf32> -> tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>
  return %q, %s : tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU>
}
func.func @dequantize(%q: tensor<2x32xf8E4M3FN>, %s: tensor<2x1xf8E8M0FNU>) -> tensor<2x32xf32> {
  %x = fp8.dequantize %q, %s by <1x32> : tensor<2x32xf8E4M3FN>, tensor<2x1xf8E8M0FNU> -> tensor<2x32xf32>
  return %x : tensor<2x32xf32>
}
"""

# Strings handed to MLIR end in a NUL beyond their length: the
# ExecutionEngine reads the runner utilities' paths as C strings.
path = _capi.StringRef.of("libmlir_runner_utils.so")
print(ctypes.sizeof(path._keep) == path.length + 1,
      ctypes.string_at(path.data) == b"libmlir_runner_utils.so")
# CHECK: True True

program = compiler.jit(compiler.parse(SOURCE, "types.mlir"))
print(sorted(program.functions))
# CHECK-NOT: Failed to create MemoryBuffer
# CHECK: ['dequantize', 'half', 'quantize', 'same', 'twice', 'types']

a = np.array([[1.0, 1.00390625, -3.5], [0.1, 2.0, 300.0]], np.float32)
r = program.call("types", a, np.array([1.5, -2.0, 0.25], np.float16),
                 np.array([7, -9], np.int32), 2.5)
print([(x.dtype.name, x.shape) if isinstance(x, np.ndarray) else x for x in r])
# CHECK-NEXT: [('float32', (2, 3)), ('float16', (3,)), ('int32', (2,)), 2.5, ('float32', ())]
# bf16 arguments are rounded to bf16 (RNE); results come back as float32.
print(np.array_equal(r[0], 2 * numerics.round_to(a, "bf16")), r[1].tolist(), r[2].tolist(),
      float(r[4]))
# CHECK-NEXT: True [-1.5, 2.0, -0.25] [14, -18] 0.5

x = np.arange(4, dtype=np.float32)
for _ in range(3):
    y, z = program.call("same", x)
print(y.tolist(), z.tolist(), y is not z, x.tolist())
# CHECK-NEXT: [0.0, 1.0, 2.0, 3.0] [0.0, 1.0, 2.0, 3.0] True [0.0, 1.0, 2.0, 3.0]
# Rank-0 bf16: the argument rounded to bf16 (1 + 2^-9 rounds to 1), the
# result read back.
print(program.call("half", np.array(3.0, np.float32))[0].tolist(),
      program.call("half", np.float32(1 + 2 ** -9))[0].tolist(),
      numerics.round_to(np.float32(1 + 2 ** -7 + 2 ** -9), "bf16").tolist())
# CHECK-NEXT: 1.5 0.5 1.0078125

# Two results in one buffer the program allocated: both are copied before
# it is freed (once).
x = np.random.default_rng(1).standard_normal((64, 256)).astype(np.float32)
print(all(all(np.array_equal(r, 2 * x) for r in program.call("twice", x)) for _ in range(5)))
# CHECK-NEXT: True

# 8-bit floats travel as uint8 codes: the oracle's, bit for bit.
values = np.random.default_rng(0).standard_normal((2, 32)).astype(np.float32)
codes, scales = program["quantize"](values)
oracle_codes, oracle_scales = numerics.dynamic_quantize(values, [1, 32], "e8m0_rceil",
                                                        "f8E4M3FN")
print(codes.dtype.name, np.array_equal(codes, oracle_codes),
      np.array_equal(scales, oracle_scales))
# CHECK-NEXT: uint8 True True
decoded, = program.call("dequantize", codes, scales)
print(np.abs(decoded - values).max() < 0.07 * np.abs(values).max())
# CHECK-NEXT: True

for args in [(np.zeros((3, 32), np.float32),), (values.astype(np.float64), 1), ()]:
    try:
        program.call("quantize", *args)
    except (TypeError, ValueError) as e:
        print(type(e).__name__, e)
# CHECK-NEXT: ValueError @quantize argument 0: expected shape (2, 32) (tensor<2x32xf32>), got (3, 32)
# CHECK-NEXT: TypeError @quantize takes 1 arguments, got 2
# CHECK-NEXT: TypeError @quantize takes 1 arguments, got 0
try:
    program.call("dequantize", values, scales)
except TypeError as e:
    print(e)
# CHECK-NEXT: @dequantize argument 0: f8E4M3FN tensors are passed as uint8 codes, got float32

# Delayed scaling keeps its amax history in globals: the first step quantizes
# with scale 1, the next with the scale of the amax the first one recorded.
g = Graph("gemm")
g.output(g.matmul(g.input("a", (32, 64)), g.input("b", (64, 32))))
GEMM = g.emit()
delayed = compiler.jit(compiler.parse(GEMM).run("fp8-autocast{recipe=tensor-delayed}"))
rng = np.random.default_rng(1)
# Values below E4M3's smallest subnormal: scale 1 flushes them all to 0.
a, b = (rng.standard_normal((32, 64)) * 1e-4).astype(np.float32), \
    (rng.standard_normal((64, 32)) * 1e-4).astype(np.float32)
exact = a.astype(np.float64) @ b
errors = [np.linalg.norm(delayed.call("gemm", a, b)[0] - exact) / np.linalg.norm(exact)
          for _ in range(2)]
print(f"first step {errors[0]:.2f}, second step {'<' if errors[1] < 0.1 else '>='} 0.1")
# CHECK-NEXT: first step 1.00, second step < 0.1
