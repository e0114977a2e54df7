// Arithmetic on narrow floats runs in f32 and rounds after every op; the
// conversions carry no `contract` license, so a canonicalizer cannot drop
// the rounding between two ops (upstream arith-emulate-unsupported-floats
// alone lets arith.extf fold it away).
// RUN: fp8-opt %s -fp8-emulate-narrow-floats -split-input-file | FileCheck %s
// RUN: fp8-opt %s -fp8-emulate-narrow-floats -canonicalize -split-input-file | FileCheck %s --check-prefix=CANON

// CHECK-LABEL: func @chain
// CHECK-SAME: (%[[A:.*]]: bf16, %[[B:.*]]: bf16, %[[C:.*]]: bf16)
// CHECK-DAG: %[[A32:.*]] = arith.extf %[[A]] : bf16 to f32
// CHECK-DAG: %[[B32:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-DAG: %[[C32:.*]] = arith.extf %[[C]] : bf16 to f32
// CHECK: %[[P32:.*]] = arith.mulf %[[A32]], %[[B32]] : f32
// CHECK: %[[P:.*]] = arith.truncf %[[P32]] : f32 to bf16
// CHECK: %[[PW:.*]] = arith.extf %[[P]] : bf16 to f32
// CHECK: %[[S32:.*]] = arith.addf %[[C32]], %[[PW]] : f32
// CHECK: %[[S:.*]] = arith.truncf %[[S32]] : f32 to bf16
// CHECK: return %[[S]]
// CANON-LABEL: func @chain
// CANON: %[[P32:.*]] = arith.mulf
// CANON: %[[P:.*]] = arith.truncf %[[P32]] : f32 to bf16
// CANON: %[[PW:.*]] = arith.extf %[[P]] : bf16 to f32
// CANON: arith.addf %{{.*}}, %[[PW]] : f32
func.func @chain(%a: bf16, %b: bf16, %c: bf16) -> bf16 {
  %p = arith.mulf %a, %b : bf16
  %s = arith.addf %c, %p : bf16
  return %s : bf16
}

// -----

// Tensors and vectors of every narrow type; f32 and f64 stay as they are.
// CHECK-LABEL: func @shapes
// CHECK-DAG: arith.extf %{{.*}} : tensor<4xf8E4M3FN> to tensor<4xf32>
// CHECK-DAG: arith.extf %{{.*}} : vector<4xf16> to vector<4xf32>
// CHECK-DAG: arith.extf %{{.*}} : f4E2M1FN to f32
// CHECK: arith.addf %{{.*}} : tensor<4xf32>
// CHECK: arith.truncf %{{.*}} : tensor<4xf32> to tensor<4xf8E4M3FN>
// CHECK: arith.maximumf %{{.*}} : vector<4xf32>
// CHECK: arith.truncf %{{.*}} : vector<4xf32> to vector<4xf16>
// CHECK: arith.divf %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f4E2M1FN
// CHECK: arith.mulf %{{.*}} : f64
func.func @shapes(%a: tensor<4xf8E4M3FN>, %b: vector<4xf16>, %c: vector<4xf16>,
                  %d: f4E2M1FN, %e: f4E2M1FN, %x: f64) -> (tensor<4xf8E4M3FN>, vector<4xf16>, f4E2M1FN, f64) {
  %p = arith.addf %a, %a : tensor<4xf8E4M3FN>
  %q = arith.maximumf %b, %c : vector<4xf16>
  %r = arith.divf %d, %e : f4E2M1FN
  %s = arith.mulf %x, %x : f64
  return %p, %q, %r, %s : tensor<4xf8E4M3FN>, vector<4xf16>, f4E2M1FN, f64
}

// -----

// Conversions written in the program lose `contract` too when a narrow type
// is involved, and keep their other flags; others keep every flag.
// CHECK-LABEL: func @flags
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK: arith.truncf %{{.*}} fastmath<nnan,ninf> : f32 to f8E5M2
// CHECK: arith.extf %{{.*}} fastmath<contract> : f32 to f64
func.func @flags(%a: bf16, %x: f32) -> (f32, f8E5M2, f64) {
  %e = arith.extf %a fastmath<contract> : bf16 to f32
  %t = arith.truncf %x fastmath<nnan,ninf,contract> : f32 to f8E5M2
  %g = arith.extf %x fastmath<contract> : f32 to f64
  return %e, %t, %g : f32, f8E5M2, f64
}
