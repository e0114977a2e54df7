# fp8_mlir.compiler over the C API: parsing with diagnostics as exceptions
# with file:line:col, textual pipelines, compiling for a chip into artifacts,
# and CPU execution through the ExecutionEngine, bit for bit against the
# numpy oracle for every recipe fp8-autocast applies to a GEMM.
# RUN: rm -rf %t && %host_env %python %s %t | FileCheck %s

import json
import os
import sys

import numpy as np

from fp8_mlir import compiler, recipes, runtime
from fp8_mlir.graph import Graph

out = sys.argv[1]

# CHECK-LABEL: parse errors
print("parse errors")
try:
    compiler.parse("func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
                   "  return %y : tensor<4xf32>\n}\n", "bad.mlir")
except compiler.CompilerError as e:
    print(e)
    print(e.errors[0].file, e.errors[0].line, e.errors[0].column)
# CHECK-NEXT: bad.mlir:2:10: error: use of undeclared SSA value name
# CHECK-NEXT: bad.mlir 2 10
try:
    compiler.parse("func.func @f(%x: tensor<8x64xf32>) -> tensor<8x2xf32> {\n"
                   "  %a = fp8.amax %x by <1x16> : tensor<8x64xf32> -> tensor<8x2xf32>\n"
                   "  return %a : tensor<8x2xf32>\n}\n", "verify.mlir")
except compiler.CompilerError as e:
    print(e)
# CHECK-NEXT: verify.mlir:2:8: error: 'fp8.amax' op scale shape [8, 2] {{.*}} expected [8, 4]

# Text the upstream parser would crash on, or allocate 16 GiB for, is refused
# before it is parsed, at its line and column, as fp8-opt refuses it
# (test/tools/fp8-opt/bad-input).
for name, source in [
        ("batch-index.mlir",
         "func.func @f(%a: tensor<2x3x4xindex>, %b: tensor<2x4x5xindex>,\n"
         "             %c: tensor<2x3x5xindex>) -> tensor<2x3x5xindex> {\n"
         "  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x3x4xindex>, tensor<2x4x5xindex>)\n"
         "      outs(%c : tensor<2x3x5xindex>) -> tensor<2x3x5xindex>\n"
         "  return %0 : tensor<2x3x5xindex>\n}\n"),
        ("transpose.mlir",
         "func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {\n"
         "  %0 = linalg.transpose ins(%a : tensor<2x3xf32>) outs(%b : tensor<3x2xf32>) permutation = [1.0, 0]\n"
         "  return %0 : tensor<3x2xf32>\n}\n"),
        ("index-array.mlir", "func.func @f() attributes {x = array<index: 1>} {\n  return\n}\n"),
        ("expand.mlir",
         "func.func @f(%a: tensor<16x1xf32>) -> tensor<1x8x2xf32> {\n"
         "  %0 = tensor.expand_shape %a [[0, 1, 2], []] output_shape [1, 8, 2]"
         " : tensor<16x1xf32> into tensor<1x8x2xf32>\n"
         "  return %0 : tensor<1x8x2xf32>\n}\n"),
        ("huge.mlir",
         "func.func @f(%a: f32) -> tensor<2147483647xf32> {\n"
         "  %0 = tensor.from_elements %a : tensor<2147483647xf32>\n"
         "  return %0 : tensor<2147483647xf32>\n}\n")]:
    try:
        compiler.parse(source, name)
        print(name, "parsed")
    except compiler.CompilerError as e:
        print(e)
# CHECK-NEXT: batch-index.mlir:3:8: error: 'linalg.batch_matmul' of `index` elements is not supported
# CHECK-NEXT: transpose.mlir:2:78: error: 'permutation' of 'linalg.transpose' must be a list of 64-bit integers
# CHECK-NEXT: index-array.mlir:1:32: error: dense arrays of `index` are not supported
# CHECK-NEXT: expand.mlir:2:43: error: 'tensor.expand_shape' with an empty reassociation group
# CHECK-NEXT: huge.mlir:2:34: error: 'tensor.from_elements' of 2147483647 elements exceeds the 16777216 elements materialized for one op{{$}}
for text in ["array<i64: 1, 2>", "array<index: 1>"]:
    try:
        print(compiler.default_context().attribute(text))
    except compiler.CompilerError as e:
        print(e)
# CHECK-NEXT: array<i64: 1, 2>
# CHECK-NEXT: array<index: 1>:1:1: error: dense arrays of `index` are not supported

# A linalg GEMM in the form of examples/, from the graph builder.
g = Graph("gemm")
g.output(g.matmul(g.input("a", (64, 256)), g.input("b", (256, 32))))
GEMM = g.emit()

# CHECK-LABEL: pipelines
print("pipelines")
module = compiler.parse(GEMM, "gemm.mlir")
print(module.signatures()[0])
# CHECK-NEXT: Signature(name='gemm', inputs=[TensorType(shape=(64, 256), element='f32'), TensorType(shape=(256, 32), element='f32')], results=[TensorType(shape=(64, 32), element='f32')], prepare=None, prepared=None)
# Two functions of one prepare group (Graph.emit's prepare_group) read the
# same weight: fp8-prepare-weights gives them one prepare function, and the
# signatures say which of its results each argument takes.
h = Graph("gemm2")
h.output(h.matmul(h.input("c", (32, 256)), h.input("b", (256, 32))))
GROUP = g.emit(weights={"b"}, prepare_group="pair") + h.emit(weights={"b"}, prepare_group="pair")
for s in compiler.parse(GROUP, "group.mlir").run(
        "fp8-autocast{recipe=tensor-current},fp8-prepare-weights").signatures():
    print(s.name, s.prepare, s.prepared)
# CHECK-NEXT: pair_prepare None None
# CHECK-NEXT: gemm pair_prepare [None, None, 0, 1]
# CHECK-NEXT: gemm2 pair_prepare [None, None, 0, 1]
for pipeline in ["no-such-pass", "fp8-autocast{recipe=fp16}"]:
    try:
        compiler.parse(GEMM, "gemm.mlir").run(pipeline)
    except compiler.CompilerError as e:
        print(e)
# CHECK-NEXT: {{^}}error: invalid pass pipeline 'no-such-pass': 'no-such-pass' does not refer to a registered pass or pass pipeline
# CHECK-NEXT: gemm.mlir:0:0: error: fp8-autocast: unknown recipe 'fp16'; valid recipes are {{.*}}
text = str(module.run("fp8-autocast{recipe=mxfp8}"))
print(text.count("fp8.scaled_matmul"), "scaled_matmul", module.diagnostics)
# CHECK-NEXT: 1 scaled_matmul []
# Pipelines change the module in place; a clone is another module.
clone = module.clone().run("canonicalize,cse")
print(str(module) == text, str(clone) == text)
# CHECK-NEXT: True False

# CHECK-LABEL: compile
print("compile")
# Without autocast the f32 GEMM runs on the tensor cores as tf32, after a
# K-major copy of B (its zero init needs no kernel: the GEMM writes A x B).
manifests = compiler.parse(GEMM, "gemm.mlir").compile("sm_90a", os.path.join(out, "f32"),
                                                      ptxas="none")
print([launch["kernel"].rsplit("_", 2)[0] for launch in json.load(open(manifests["gemm"]))["launches"]
       if "kernel" in launch])
# CHECK-NEXT: ['fp8_layout_transpose_b4', 'gemm_sm90a_tf32_f32_tma']
try:
    module.clone().compile("sm_89", out)
except compiler.CompilerError as e:
    print(e)
# CHECK-NEXT: {{^}}error: unsupported chip 'sm_89': {{.*}}
gemm = compiler.parse(GEMM, "gemm.mlir").run("fp8-autocast{recipe=rowwise}")
manifests = gemm.compile("sm_90a", os.path.join(out, "hopper"), ptxas="none")
manifest = json.load(open(manifests["gemm"]))
print(sorted(manifests), manifest["function"], manifest["chip"],
      sorted(os.listdir(os.path.join(out, "hopper"))))
# CHECK-NEXT: ['gemm'] gemm sm_90a ['fp8_kernels.ptx', 'gemm.json']
# More of fp8-gpu-pipeline's options; unknown ones are an error.
manifests = compiler.parse(GEMM, "gemm.mlir").run("fp8-autocast{recipe=rowwise}").compile(
    "sm_90a", os.path.join(out, "options"), ptxas="none", options="num-sms=148 fuse-rows=0")
print(sorted(manifests), json.load(open(manifests["gemm"]))["launches"][-1]["grid"])
# CHECK-NEXT: ['gemm'] [{{[0-9]+}}, 1, 1]
try:
    gemm.clone().compile("sm_90a", out, options="fast=1")
except compiler.CompilerError as e:
    print(str(e).splitlines()[0])
# CHECK-NEXT: {{^}}error: invalid fp8-gpu-pipeline options 'fast=1'{{.*}}
# The runtime's binding is fp8_mlir.runtime.
print(runtime.manifest_dtype("e4m3"), runtime.Fp8rtError.__mro__[1].__name__)
# CHECK-NEXT: f8e4m3 RuntimeError

# CHECK-LABEL: execution
print("execution")
rng = np.random.default_rng(3)
a = rng.standard_normal((64, 256)).astype(np.float32)
b = (rng.standard_normal((256, 32)) / 16).astype(np.float32)
exact = a.astype(np.float64) @ b
c, = compiler.jit(compiler.parse(GEMM, "gemm.mlir")).call("gemm", a, b)
print("f32", c.dtype, c.shape, np.abs(c - exact).max() < 1e-4 * np.abs(exact).max())
# CHECK-NEXT: f32 float32 (64, 32) True
for recipe in ["tensor-current", "rowwise", "deepseek", "mxfp8", "nvfp4", "graphcore", "unit",
               "tensor-delayed"]:
    program = compiler.jit(compiler.parse(GEMM, "gemm.mlir").run(
        f"fp8-autocast{{recipe={recipe}}}"))
    c, = program.call("gemm", a, b)
    bits = c.view(np.int32).astype(np.int64).reshape(-1)
    same = np.array_equal(bits, recipes.oracle_matmul(recipe, a, b))
    error = np.linalg.norm(c - exact) / np.linalg.norm(exact)
    print(f"{recipe}: bit-exact {same}, error {'<' if error < 0.2 else '>='} 0.2")
# CHECK-NEXT: tensor-current: bit-exact True, error < 0.2
# CHECK-NEXT: rowwise: bit-exact True, error < 0.2
# CHECK-NEXT: deepseek: bit-exact True, error < 0.2
# CHECK-NEXT: mxfp8: bit-exact True, error < 0.2
# CHECK-NEXT: nvfp4: bit-exact True, error < 0.2
# CHECK-NEXT: graphcore: bit-exact True, error < 0.2
# CHECK-NEXT: unit: bit-exact True, error < 0.2
# CHECK-NEXT: tensor-delayed: bit-exact True, error < 0.2
