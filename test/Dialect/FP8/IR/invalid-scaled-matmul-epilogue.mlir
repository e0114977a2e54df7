// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @maps_without_region(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>, %v: tensor<32xf32>) {
  // expected-error@+1 {{`epilogue_ins` and `epilogue_maps` come with an `epilogue` region}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs epilogue_ins(%v : tensor<32xf32>) epilogue_maps([affine_map<(m, n) -> (n)>]) : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32>
  return
}

// -----

func.func @narrow_result(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%s : tensor<1x1xf32>) transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf8E4M3FN> epilogue {
  ^bb0(%c: f32):
    %n = arith.truncf %c : f32 to f8E4M3FN
    // expected-error@+1 {{'fp8.yield' op yields one f32, bf16 or f16 element, which out_scale encodes as 'f8E4M3FN'}}
    fp8.yield %n : f8E4M3FN
  }
  return
}

// -----

func.func @out_scale(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{`out_scale` encodes narrow results only}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%s : tensor<1x1xf32>) transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32):
    fp8.yield %c : f32
  }
  return
}

// -----

func.func @map_count(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>, %v: tensor<32xf32>) {
  // expected-error@+1 {{`epilogue_maps` needs one map per epilogue input: 1 inputs, 0 maps}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs epilogue_ins(%v : tensor<32xf32>) : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32, %x: f32):
    fp8.yield %c : f32
  }
  return
}

// -----

func.func @map_not_projection(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>, %v: tensor<32xf32>) {
  // expected-error@+1 {{epilogue map #0 affine_map<(d0, d1) -> (d0 + d1)> must pick 1 of the result's 2 indices for input 'tensor<32xf32>'}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs epilogue_ins(%v : tensor<32xf32>) epilogue_maps([affine_map<(m, n) -> (m + n)>]) : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32, %x: f32):
    fp8.yield %c : f32
  }
  return
}

// -----

func.func @map_extent(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>, %v: tensor<32xf32>) {
  // expected-error@+1 {{epilogue input #0 'tensor<32xf32>' has 32 elements along dimension 0, which affine_map<(d0, d1) -> (d0)> reads as result dimension 0 of 16}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs epilogue_ins(%v : tensor<32xf32>) epilogue_maps([affine_map<(m, n) -> (m)>]) : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32, %x: f32):
    fp8.yield %c : f32
  }
  return
}

// -----

func.func @arg_count(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{the epilogue block takes the product and one element per epilogue input: 1 arguments, got 2}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32, %x: f32):
    fp8.yield %c : f32
  }
  return
}

// -----

func.func @product_type(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{the epilogue's first argument (the product, rounded to its type) is f32, bf16 or f16, got 'f64'}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f64):
    %n = arith.truncf %c : f64 to f32
    fp8.yield %n : f32
  }
  return
}

// -----

func.func @arg_type(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>, %v: tensor<32xf32>) {
  // expected-error@+1 {{epilogue argument #1 is 'bf16', but epilogue input #0 holds 'f32'}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs epilogue_ins(%v : tensor<32xf32>) epilogue_maps([affine_map<(m, n) -> (n)>]) : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32, %x: bf16):
    fp8.yield %c : f32
  }
  return
}

// -----

func.func @yield_type(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xbf16> epilogue {
  ^bb0(%c: f32):
    // expected-error@+1 {{yields one element of the result's type 'bf16'}}
    fp8.yield %c : f32
  }
  return
}

// -----

func.func @no_yield(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{the epilogue must end in `fp8.yield`}}
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32):
    %d = arith.addf %c, %c : f32
  }
  return
}

// -----

func.func @yield_not_last(%a: tensor<16x64xf8E4M3FN>, %b: tensor<32x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  %0 = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<32x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x32xf32> epilogue {
  ^bb0(%c: f32):
    // expected-error@+1 {{'fp8.yield' op must be the last op of the epilogue}}
    fp8.yield %c : f32
    %d = arith.addf %c, %c : f32
    fp8.yield %d : f32
  }
  return
}

// -----

func.func @yield_outside(%x: f32) {
  // expected-error@+1 {{'fp8.yield' op expects parent op 'fp8.scaled_matmul'}}
  fp8.yield %x : f32
}

// -----

func.func @quantize_without_epilogue(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{`quantize by` encodes what the epilogue yields: add an epilogue}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <1x32> rule <pow2> transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x64xf8E4M3FN>, scale tensor<16x2xf32>
  return
}

// -----

func.func @quantize_wide_result(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{`quantize by` encodes FP8 results, not 'bf16'}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <1x32> rule <pow2> transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x64xbf16>, scale tensor<16x2xf32> epilogue {
  ^bb0(%c: bf16):
    fp8.yield %c : bf16
  }
  return
}

// -----

func.func @quantize_scale_type(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{rule e8m0_rceil produces 'f8E8M0FNU' scales, not 'f32'}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <1x32> rule <e8m0_rceil> transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x64xf8E4M3FN>, scale tensor<16x2xf32> epilogue {
  ^bb0(%c: bf16):
    fp8.yield %c : bf16
  }
  return
}

// -----

func.func @quantize_scale_shape(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{scale shape [16, 4] of the result does not match granularity #fp8.granularity<1x32> on data of shape [16, 64]: expected [16, 2] (ceil(shape / block))}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <1x32> rule <pow2> transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x64xf8E4M3FN>, scale tensor<16x4xf32> epilogue {
  ^bb0(%c: bf16):
    fp8.yield %c : bf16
  }
  return
}

// -----

func.func @quantize_global_rule(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{rule nvfp4 cannot quantize a GEMM's result}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <1x16> rule <nvfp4> transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x64xf4E2M1FN>, scale tensor<16x4xf8E4M3FN> epilogue {
  ^bb0(%c: bf16):
    fp8.yield %c : bf16
  }
  return
}

// -----

func.func @quantize_and_out_scale(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{a result quantized by blocks takes no `out_scale` and returns no `amax`}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) out_scale(%s : tensor<1x1xf32>) quantize by <1x32> rule <pow2> transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x64xf8E4M3FN>, scale tensor<16x2xf32> epilogue {
  ^bb0(%c: bf16):
    fp8.yield %c : bf16
  }
  return
}

// -----

func.func @results_out_of_order(%a: tensor<16x64xf8E4M3FN>, %b: tensor<64x64xf8E4M3FN>, %s: tensor<1x1xf32>) {
  // expected-error@+1 {{after the result type come `, amax <type>` and then `, scale <type>`, each at most once; got `amax`}}
  %q, %qs = fp8.scaled_matmul %a, %b scales(%s, %s) by(<tensor>, <tensor>) quantize by <1x32> rule <pow2> transpose_rhs : tensor<16x64xf8E4M3FN>, tensor<64x64xf8E4M3FN>, tensor<1x1xf32>, tensor<1x1xf32> -> tensor<16x64xf8E4M3FN>, scale tensor<16x2xf32>, amax tensor<1x1xf32>
  return
}
