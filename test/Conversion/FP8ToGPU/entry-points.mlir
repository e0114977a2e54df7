// The GPU lowering compiles entry points: by default every public function
// with statically shaped tensor arguments and results that returns
// something. The others stay in the module untouched, each with a remark
// that says why; the functions an entry point calls are inlined into its
// plan, and private callees left without a caller are erased, like the
// entry points that no function left in the module calls.
// RUN: fp8-opt %s --convert-fp8-to-gpu=chip=sm_90a --remarks-filter=convert-fp8-to-gpu --remark-format=emitRemark -verify-diagnostics | FileCheck %s
// RUN: fp8-opt %s --convert-fp8-to-gpu="chip=sm_90a entry-points=print_sum" | FileCheck %s --check-prefix=NAMED

// CHECK: fp8.plans = {
// CHECK-SAME: forward = {buffers
// Both calls of @add_bias became its kernel, one kernel launched twice;
// nothing of a call is left.
// CHECK-SAME: kernel = "[[ADD:fp8_elementwise_64x128_[0-9a-f]+]]"
// CHECK-SAME: kernel = "[[ADD]]"
// CHECK-SAME: print_sum = {buffers
// @main, left alone, keeps the entry point it calls, but not its callee.
// CHECK-NOT: func.func private @add_bias
// CHECK: func.func @forward(
// CHECK-NOT: call @add_bias
// CHECK: func.func @main()
// CHECK: func.func @scalars(
// CHECK: func.func @dynamic(
// CHECK-NOT: func.func private @sum_into(
// CHECK: func.func private @unused(
// CHECK-NOT: func.func @print_sum

// Named: only @print_sum is compiled; its callee @sum_into is erased, and
// the other functions keep theirs.
// NAMED: fp8.plans = {print_sum = {buffers
// NAMED: func.func private @add_bias(
// NAMED: func.func @forward(
// NAMED: call @add_bias
// NAMED: func.func @main()
// NAMED-NOT: func.func private @sum_into(
// NAMED-NOT: func.func @print_sum

func.func private @add_bias(%x: tensor<64x128xf32>, %b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.add ins(%x, %b : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

func.func @forward(%x: tensor<64x128xf32>, %b: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %y = call @add_bias(%x, %b) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  %z = call @add_bias(%y, %b) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  return %z : tensor<64x128xf32>
}

// expected-remark @below {{@main is not compiled for the GPU: it returns nothing, so a host would read nothing back; name it in entry-points to compile it}}
func.func @main() {
  %c = arith.constant dense<1.0> : tensor<64x128xf32>
  %y = call @forward(%c, %c) : (tensor<64x128xf32>, tensor<64x128xf32>) -> tensor<64x128xf32>
  return
}

// expected-remark @below {{@scalars is not compiled for the GPU: its argument 1 is 'f32', which is not a statically shaped tensor; the GPU pipeline plans buffers and launches at compile time; name it in entry-points to compile it}}
func.func @scalars(%x: tensor<64x128xf32>, %s: f32) -> tensor<64x128xf32> {
  return %x : tensor<64x128xf32>
}

// expected-remark @below {{@dynamic is not compiled for the GPU: its result 0 is 'tensor<?x128xf32>', which is not a statically shaped tensor}}
func.func @dynamic(%x: tensor<64x128xf32>) -> tensor<?x128xf32> {
  %d = tensor.cast %x : tensor<64x128xf32> to tensor<?x128xf32>
  return %d : tensor<?x128xf32>
}

func.func private @sum_into(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = tensor.empty() : tensor<64x128xf32>
  %r = linalg.add ins(%x, %x : tensor<64x128xf32>, tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// Private functions are entry points only by name.
func.func private @unused(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  return %x : tensor<64x128xf32>
}

func.func @print_sum(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %r = call @sum_into(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}
