// RUN: fp8-opt %s -fp8-expand-float-casts -split-input-file -verify-diagnostics

func.func @rounding_mode(%x: f32) -> f8E4M3FN {
  // expected-error@+1 {{cannot expand this conversion: only round-to-nearest-even on scalars, vectors and static tensors of f16, bf16, f32, f64 and the small float types is supported}}
  %0 = arith.truncf %x to_nearest_away : f32 to f8E4M3FN
  return %0 : f8E4M3FN
}

// -----

func.func @dynamic(%x: tensor<?xf8E4M3FN>) -> tensor<?xf32> {
  // expected-error@+1 {{cannot expand this conversion: only scalars, vectors and static tensors are supported}}
  %0 = arith.extf %x : tensor<?xf8E4M3FN> to tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @dynamic_convert(%x: tensor<?xf32>) -> tensor<?xf8E4M3FN> {
  // expected-error@+1 {{cannot expand fp8.convert on a dynamically shaped tensor; convert it to linalg first (-convert-elementwise-to-linalg)}}
  %0 = fp8.convert %x : tensor<?xf32> to tensor<?xf8E4M3FN>
  return %0 : tensor<?xf8E4M3FN>
}
