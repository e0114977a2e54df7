// RUN: not fp8-opt %s 2>&1 | FileCheck %s
// CHECK: error: 'fp8.amax' op requires one result
// fp8.amax in generic form without its result.

func.func @f(%x: tensor<4x8xf32>) {
  "fp8.amax"(%x) <{granularity = #fp8.granularity<tensor>}> : (tensor<4x8xf32>) -> ()
  return
}
