// Elementwise kernels compute erf and exp as the CPU pipeline does
// (numerics.md sections 16 and 17, fp8-expand-math). erf: 20 fused
// multiply-adds and no division, where MLIR's rational approximation divided
// once per element and chose its coefficients by selects. exp: k rounded as
// the last place of a sum with 1.5 * 2^23, two fmas for r, six for the
// polynomial, and two multiplies by powers of two built from k's bits by
// integer instructions: no float-to-integer or rounding conversion.
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
