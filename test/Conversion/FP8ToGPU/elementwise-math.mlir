// Elementwise kernels compute erf and exp as the CPU pipeline does
// (numerics.md sections 16 and 17, fp8-expand-math). erf: 20 fused
// multiply-adds and no division, where MLIR's rational approximation divided
// once per element and chose its coefficients by selects. exp: k rounded as
// the last place of a sum with 1.5 * 2^23, two fmas for r, six for the
// polynomial, and two multiplies by powers of two built from k's bits by
// integer instructions: no float-to-integer or rounding conversion. tanh
// and log as the CPU pipeline computes them too (section 18, upstream's
// approximations): tanh a ratio of polynomials in x^2, log on bf16 the f32
// function of the widened input, rounded once.
// RUN: rm -rf %t && fp8-opt %s --fp8-gpu-pipeline="chip=sm_90a artifacts=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/fp8_kernels.ptx
// RUN: FileCheck %s --check-prefix=PTXAS --input-file=%t/fp8_kernels.ptxas.log

// CHECK-LABEL: .entry fp8_elementwise_256x1024_{{[0-9a-f]+}}(
// CHECK-NOT: div.
// CHECK: abs.f32 %r[[A:[0-9]+]], %r[[X:[0-9]+]];
// CHECK: mul.rn.f32 %r[[S:[0-9]+]], %r[[X]], %r[[X]];
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r[[S]], 0f38A573BA, 0fBA52437F;
// CHECK-COUNT-5: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r[[S]],
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r[[A]], %r{{[0-9]+}}, %r[[A]];
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r[[T:[0-9]+]], 0f37191678, 0fB7B08089;
// CHECK-COUNT-11: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r[[T]],
// CHECK-NOT: div.
// CHECK: ret;
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
func.func @gelu(%x: tensor<256x1024xf32>) -> tensor<256x1024xf32> {
  %e = tensor.empty() : tensor<256x1024xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<256x1024xf32>) outs(%e : tensor<256x1024xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.constant 0.707106769 : f32
    %h = arith.constant 0.5 : f32
    %one = arith.constant 1.0 : f32
    %s = arith.mulf %in, %c : f32
    %erf = math.erf %s : f32
    %p = arith.addf %erf, %one : f32
    %hx = arith.mulf %in, %h : f32
    %y = arith.mulf %hx, %p : f32
    linalg.yield %y : f32
  } -> tensor<256x1024xf32>
  return %r : tensor<256x1024xf32>
}

// CHECK-LABEL: .entry fp8_elementwise_256x512_{{[0-9a-f]+}}(
// CHECK-NOT: cvt.r
// CHECK: mul.rn.f32 %r[[T:[0-9]+]], %r{{[0-9]+}}, 0f3FB8AA3B;
// CHECK: add.rn.f32 %r[[SUM:[0-9]+]], %r[[T]], 0f4B400000;
// CHECK: add.rn.f32 %r[[K:[0-9]+]], %r[[SUM]], 0fCB400000;
// CHECK: fma.rn.f32 %r[[R0:[0-9]+]], %r[[K]], 0fBF317218, %r{{[0-9]+}};
// CHECK: fma.rn.f32 %r[[R:[0-9]+]], %r[[K]], 0f3102E308, %r[[R0]];
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r[[R]], 0f3AB6D3B0, 0f3C091EC9;
// CHECK-COUNT-4: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, %r[[R]],
// CHECK: fma.rn.f32 %r[[P:[0-9]+]], %r[[R]], %r{{[0-9]+}}, 0f3F800000;
// CHECK: shr.s32
// CHECK: mul.rn.f32 %r[[PS:[0-9]+]], %r[[P]], %r{{[0-9]+}};
// CHECK: mul.rn.f32 %r{{[0-9]+}}, %r[[PS]], %r{{[0-9]+}};
// CHECK-NOT: cvt.r
// CHECK-NOT: div.
// CHECK: ret;
func.func @softmax_numerator(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.exp %in : f32
    linalg.yield %y : f32
  } -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// tanh: the numerator's six fmas from A13 and A11, the product with x, the
// denominator's three from B6 and B4, one division.
// CHECK-LABEL: .entry fp8_elementwise_256x512_{{[0-9a-f]+}}(
// CHECK: mul.rn.f32 %r[[S:[0-9]+]], %r[[C:[0-9]+]], %r[[C]];
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r[[S]], 0fA59F25C0, 0f2A61337E;
// CHECK-COUNT-5: fma.rn.f32 %r{{[0-9]+}}, %r[[S]], %r{{[0-9]+}},
// CHECK: mul.rn.f32 %r[[P:[0-9]+]], %r[[C]], %r{{[0-9]+}};
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r[[S]], 0f35A0D3D8, 0f38F895D6;
// CHECK-COUNT-2: fma.rn.f32 %r{{[0-9]+}}, %r[[S]], %r{{[0-9]+}},
// CHECK: div.rn.f32 %r{{[0-9]+}}, %r[[P]], %r{{[0-9]+}};
// CHECK: ret;
func.func @tanh(%x: tensor<256x512xf32>) -> tensor<256x512xf32> {
  %e = tensor.empty() : tensor<256x512xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<256x512xf32>) outs(%e : tensor<256x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    %y = math.tanh %in : f32
    linalg.yield %y : f32
  } -> tensor<256x512xf32>
  return %r : tensor<256x512xf32>
}

// log of bf16: widened, the exponent field as a float, Cephes' polynomial in
// three parts, the exponent times ln 2 added by an fma, then one rounding to
// bf16.
// CHECK-LABEL: .entry fp8_elementwise_256x512_{{[0-9a-f]+}}(
// CHECK: cvt.f32.bf16
// CHECK: shr.u32 %r{{[0-9]+}}, %r{{[0-9]+}}, 23;
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f3D9021BB, 0fBDEBD1B8;
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0fBDFE5D4F, 0f3E11E9BF;
// CHECK: fma.rn.f32 %r{{[0-9]+}}, %r{{[0-9]+}}, 0f3E4CCEAC, 0fBE7FFFFC;
// CHECK: fma.rn.f32 %r[[L:[0-9]+]], %r{{[0-9]+}}, 0f3F317218, %r{{[0-9]+}};
// CHECK: cvt.rn.bf16.f32 %rs{{[0-9]+}}, %r{{[0-9]+}};
// CHECK-NOT: call
// CHECK: ret;
func.func @log_bf16(%x: tensor<256x512xbf16>) -> tensor<256x512xbf16> {
  %e = tensor.empty() : tensor<256x512xbf16>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<256x512xbf16>) outs(%e : tensor<256x512xbf16>) {
  ^bb0(%in: bf16, %out: bf16):
    %y = math.log %in : bf16
    linalg.yield %y : bf16
  } -> tensor<256x512xbf16>
  return %r : tensor<256x512xbf16>
}
