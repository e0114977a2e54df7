// Temporaries share one workspace. A temporary is live from the first launch
// that names it to the last; temporaries whose ranges are disjoint share
// bytes, largest first, each at the lowest 256-byte-aligned offset free
// during its range. Here %a (launches 0-1) and %c (launches 2-3) share
// offset 0 and %b (launches 1-2), live with both, takes the next 16384
// bytes. With reuse-temporaries=false each has bytes of its own. (The
// quantize kernels do not compute the elementwise ops here, so that their
// results are temporaries.)
// RUN: fp8-opt %s --convert-elementwise-to-linalg --convert-fp8-to-gpu=fuse-prologues=false | FileCheck %s
// RUN: fp8-opt %s --convert-elementwise-to-linalg --convert-fp8-to-gpu="reuse-temporaries=false fuse-prologues=false" \
// RUN:   | FileCheck %s --check-prefix=OWN

// CHECK-LABEL: chain = {buffers
// CHECK-SAME: {bytes = 16384 : i64, id = 1 : i64, kind = "temp", offset = 0 : i64, type = tensor<64x64xf32>}
// CHECK-SAME: {bytes = 16384 : i64, id = 2 : i64, kind = "temp", offset = 16384 : i64, type = tensor<64x64xf32>}
// CHECK-SAME: {bytes = 16384 : i64, id = 3 : i64, kind = "temp", offset = 0 : i64, type = tensor<64x64xf32>}
// CHECK-SAME: workspace_bytes = 32768 : i64}

// A temporary of 4 bytes (the amax) takes a whole 256-byte slot: the next
// temporary live with it starts 256 bytes on.
// CHECK-LABEL: ragged = {buffers
// CHECK-SAME: {bytes = 16384 : i64, id = 1 : i64, kind = "temp", offset = 0 : i64, type = tensor<64x64xf32>}
// CHECK-SAME: {bytes = 4 : i64, id = 4 : i64, kind = "temp", offset = 16384 : i64, type = tensor<1x1xf32>}
// CHECK-SAME: workspace_bytes = 16640 : i64}

// OWN-LABEL: chain = {buffers
// OWN-SAME: id = 1 : i64, kind = "temp", offset = 0 : i64
// OWN-SAME: id = 2 : i64, kind = "temp", offset = 16384 : i64
// OWN-SAME: id = 3 : i64, kind = "temp", offset = 32768 : i64
// OWN-SAME: workspace_bytes = 49152 : i64}

func.func @chain(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %a = arith.negf %x : tensor<64x64xf32>
  %b = arith.addf %a, %x : tensor<64x64xf32>
  %c = arith.mulf %b, %x : tensor<64x64xf32>
  %d = arith.subf %c, %x : tensor<64x64xf32>
  return %d : tensor<64x64xf32>
}

func.func @ragged(%x: tensor<64x64xf32>) -> (tensor<64x64xf8E4M3FN>, tensor<1x1xf32>) {
  %y = arith.negf %x : tensor<64x64xf32>
  %q, %s = fp8.dynamic_quantize %y by <tensor> rule <ratio> : tensor<64x64xf32> -> tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
  return %q, %s : tensor<64x64xf8E4M3FN>, tensor<1x1xf32>
}
