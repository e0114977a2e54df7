// RUN: fp8-opt %s -split-input-file --fp8-optimizer=recipe=coat | FileCheck %s --check-prefix=COAT
// RUN: fp8-opt %s -split-input-file --fp8-optimizer="recipe=coat group=64 expansion-limit=0" \
// RUN:   | FileCheck %s --check-prefix=GROUP
// RUN: fp8-opt %s -split-input-file --fp8-optimizer=recipe=fp8lm | FileCheck %s --check-prefix=FP8LM
// RUN: fp8-opt %s -split-input-file --fp8-optimizer=recipe=coat \
// RUN:   --remarks-filter=fp8-optimizer --remark-format=emitRemark -o /dev/null 2>&1 \
// RUN:   | FileCheck %s --check-prefix=REMARK

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// An AdamW step (docs/numerics.md section 15) whose weight and moments are
// arguments of the function and whose new values are its results. COAT stores
// both moments as E4M3 codes with an amax and an exponent per group of 128
// along the last dimension (a ragged second group of 72 here); FP8-LM stores
// the weight and v in f16 and m in E4M3, each with a per-tensor decode scale.
// The step's arithmetic is unchanged: it reads the decoded state.

// COAT-LABEL: func.func @step(
// COAT-SAME: %[[W:[^:]*]]: tensor<4x200xf32> {fp8.optimizer_state = "weight"}, %[[G:[^:]*]]: tensor<4x200xf32>,
// COAT-SAME: %[[MQ:[^:]*]]: tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "m.codes"},
// COAT-SAME: %[[MA:[^:]*]]: tensor<4x2xf32> {fp8.optimizer_state = "m.amax"},
// COAT-SAME: %[[MJ:[^:]*]]: tensor<4x2xi8> {fp8.optimizer_state = "m.exponent"},
// COAT-SAME: %[[VQ:[^:]*]]: tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "v.codes"},
// COAT-SAME: %[[VA:[^:]*]]: tensor<4x2xf32> {fp8.optimizer_state = "v.amax"},
// COAT-SAME: %[[VJ:[^:]*]]: tensor<4x2xi8> {fp8.optimizer_state = "v.exponent"},
// COAT-SAME: %{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<f32>, %{{[^:]*}}: tensor<f32>)
// COAT-SAME: -> (tensor<4x200xf32> {fp8.optimizer_state = "weight"}, tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "m.codes"}, tensor<4x2xf32> {fp8.optimizer_state = "m.amax"}, tensor<4x2xi8> {fp8.optimizer_state = "m.exponent"}, tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "v.codes"}, tensor<4x2xf32> {fp8.optimizer_state = "v.amax"}, tensor<4x2xi8> {fp8.optimizer_state = "v.exponent"})
// COAT: %[[M:.*]] = fp8.expand_dequantize %[[MQ]], %[[MA]], %[[MJ]] by <128> : {{.*}} -> tensor<4x200xf32>
// COAT: %[[V:.*]] = fp8.expand_dequantize %[[VQ]], %[[VA]], %[[VJ]] by <128> : {{.*}} -> tensor<4x200xf32>
// COAT: %[[R:.*]]:3 = linalg.generic
// COAT-SAME: ins(%[[W]], %[[G]], %[[M]], %[[V]], {{.*}})
// COAT: linalg.yield
// COAT: %[[MQ2:.*]], %[[MA2:.*]], %[[MJ2:.*]] = fp8.expand_quantize %[[R]]#1 by <128> :
// COAT: %[[VQ2:.*]], %[[VA2:.*]], %[[VJ2:.*]] = fp8.expand_quantize %[[R]]#2 by <128> :
// COAT: return %[[R]]#0, %[[MQ2]], %[[MA2]], %[[MJ2]], %[[VQ2]], %[[VA2]], %[[VJ2]] :

// GROUP-LABEL: func.func @step(
// GROUP-SAME: tensor<4x4xf32> {fp8.optimizer_state = "m.amax"}
// GROUP: fp8.expand_dequantize {{.*}} by <64>
// GROUP: fp8.expand_quantize {{.*}} by <64> limit(0)

// FP8LM-LABEL: func.func @step(
// FP8LM-SAME: %[[W16:[^:]*]]: tensor<4x200xf16> {fp8.optimizer_state = "weight.values"},
// FP8LM-SAME: %[[WS:[^:]*]]: tensor<1x1xf32> {fp8.optimizer_state = "weight.scale"},
// FP8LM-SAME: %[[G:[^:]*]]: tensor<4x200xf32>,
// FP8LM-SAME: %[[MQ:[^:]*]]: tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "m.codes"},
// FP8LM-SAME: %[[MS:[^:]*]]: tensor<1x1xf32> {fp8.optimizer_state = "m.scale"},
// FP8LM-SAME: %[[V16:[^:]*]]: tensor<4x200xf16> {fp8.optimizer_state = "v.values"},
// FP8LM-SAME: %[[VS:[^:]*]]: tensor<1x1xf32> {fp8.optimizer_state = "v.scale"},
// FP8LM-SAME: -> (tensor<4x200xf16> {fp8.optimizer_state = "weight.values"}, tensor<1x1xf32> {fp8.optimizer_state = "weight.scale"}, tensor<4x200xf8E4M3FN> {fp8.optimizer_state = "m.codes"}, tensor<1x1xf32> {fp8.optimizer_state = "m.scale"}, tensor<4x200xf16> {fp8.optimizer_state = "v.values"}, tensor<1x1xf32> {fp8.optimizer_state = "v.scale"})
// Decoded: fl32(float(w16) * (1/s)) with the stored 1/s, read as a 0-d tensor.
// FP8LM: %[[WINV:.*]] = tensor.collapse_shape %[[WS]] [] : tensor<1x1xf32> into tensor<f32>
// FP8LM: %[[W:.*]] = linalg.generic {{.*}} ins(%[[W16]], %[[WINV]] : tensor<4x200xf16>, tensor<f32>)
// FP8LM: arith.extf %{{.*}} : f16 to f32
// FP8LM: arith.mulf
// FP8LM: %[[M:.*]] = fp8.dequantize %[[MQ]], %[[MS]] by <tensor>
// FP8LM: %[[VINV:.*]] = tensor.collapse_shape %[[VS]] []
// FP8LM: %[[V:.*]] = linalg.generic {{.*}} ins(%[[V16]], %[[VINV]] : tensor<4x200xf16>, tensor<f32>)
// FP8LM: %[[R:.*]]:3 = linalg.generic
// FP8LM-SAME: ins(%[[W]], %[[G]], %[[M]], %[[V]], {{.*}})
// The new weight: s = pow2(amax, 65504) (mantissa bits cleared) and 1/s, one
// element each; then f16 values of fl32(w * s).
// FP8LM: %[[WA:.*]] = fp8.amax %[[R]]#0 by <tensor>
// FP8LM: %[[WSC:.*]]:2 = linalg.generic {{.*}} ins(%[[WA]] : tensor<1x1xf32>)
// FP8LM: arith.constant 6.550400e+04 : f32
// FP8LM: arith.andi %{{.*}}, %c-8388608_i32 : i32
// FP8LM: %[[WSS:.*]] = tensor.collapse_shape %[[WSC]]#0 []
// FP8LM: %[[NW:.*]] = linalg.generic {{.*}} ins(%[[R]]#0, %[[WSS]] : tensor<4x200xf32>, tensor<f32>)
// FP8LM: arith.truncf %{{.*}} : f32 to f16
// The new m: current scaling by a power of two.
// FP8LM: %[[MA:.*]] = fp8.amax %[[R]]#1 by <tensor>
// FP8LM: %[[SC:.*]], %[[SCI:.*]] = fp8.compute_scale %[[MA]] rule <pow2> for <e4m3>
// FP8LM: %[[NM:.*]] = fp8.quantize %[[R]]#1, %[[SC]] by <tensor>
// FP8LM: fp8.amax %[[R]]#2 by <tensor>
// FP8LM: %[[VSC:.*]]:2 = linalg.generic
// FP8LM: %[[NV:.*]] = linalg.generic {{.*}} ins(%[[R]]#2, %{{.*}} : tensor<4x200xf32>, tensor<f32>)
// FP8LM: return %[[NW]], %[[WSC]]#1, %[[NM]], %[[SCI]], %[[NV]], %[[VSC]]#1 :

// REMARK: remark: [Passed] state-stored | Category:fp8-optimizer | Function=step | Remark="the Adam step linalg.generic stores m and v by recipe coat"
func.func @step(%w: tensor<4x200xf32>, %g: tensor<4x200xf32>, %m: tensor<4x200xf32>, %v: tensor<4x200xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  %e = tensor.empty() : tensor<4x200xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #sc, #sc, #sc, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  ^bb0(%wi: f32, %gi: f32, %mi: f32, %vi: f32, %lri: f32, %b1ti: f32, %b2ti: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %wd = arith.constant 0.01 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %lrwd = arith.mulf %lri, %wd : f32
    %decay = arith.subf %one, %lrwd : f32
    %ww = arith.mulf %wi, %decay : f32
    %m1 = arith.mulf %b1, %mi : f32
    %m2 = arith.mulf %omb1, %gi : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %vi : f32
    %v2 = arith.mulf %omb2, %gi : f32
    %v3 = arith.mulf %v2, %gi : f32
    %vn = arith.addf %v1, %v3 : f32
    %r0 = math.sqrt %vn : f32
    %rb = math.sqrt %b2ti : f32
    %r2 = arith.divf %r0, %rb : f32
    %d = arith.addf %r2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %lri, %b1ti : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %ww, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>
}

// -----

#id = affine_map<(d0) -> (d0)>
#sc = affine_map<(d0) -> ()>

// Roles come from the dataflow, not from positions: here the function takes
// v before m and returns the moments first. A vector of 300 has groups of 128,
// 128 and 44.
// COAT-LABEL: func.func @vector(
// COAT-SAME: %{{[^:]*}}: tensor<300xf8E4M3FN> {fp8.optimizer_state = "v.codes"}, %{{[^:]*}}: tensor<3xf32> {fp8.optimizer_state = "v.amax"}, %{{[^:]*}}: tensor<3xi8> {fp8.optimizer_state = "v.exponent"},
// COAT-SAME: %{{[^:]*}}: tensor<300xf32> {fp8.optimizer_state = "weight"}, %{{[^:]*}}: tensor<300xf32>,
// COAT-SAME: %{{[^:]*}}: tensor<300xf8E4M3FN> {fp8.optimizer_state = "m.codes"}
// COAT-SAME: -> (tensor<300xf8E4M3FN> {fp8.optimizer_state = "m.codes"}, tensor<3xf32> {fp8.optimizer_state = "m.amax"}, tensor<3xi8> {fp8.optimizer_state = "m.exponent"}, tensor<300xf8E4M3FN> {fp8.optimizer_state = "v.codes"}, tensor<3xf32> {fp8.optimizer_state = "v.amax"}, tensor<3xi8> {fp8.optimizer_state = "v.exponent"}, tensor<300xf32> {fp8.optimizer_state = "weight"})
// FP8LM-LABEL: func.func @vector(
// FP8LM-SAME: tensor<1xf32> {fp8.optimizer_state = "v.scale"}
// REMARK: remark: [Passed] state-stored | Category:fp8-optimizer | Function=vector
func.func @vector(%v: tensor<300xf32>, %w: tensor<300xf32>, %g: tensor<300xf32>, %m: tensor<300xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<300xf32>, tensor<300xf32>, tensor<300xf32>) {
  %e = tensor.empty() : tensor<300xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #sc, #sc, #sc, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<300xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<300xf32>, tensor<300xf32>, tensor<300xf32>) {
  ^bb0(%wi: f32, %gi: f32, %mi: f32, %vi: f32, %lri: f32, %b1ti: f32, %b2ti: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %wd = arith.constant 0.01 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %lrwd = arith.mulf %lri, %wd : f32
    %decay = arith.subf %one, %lrwd : f32
    %ww = arith.mulf %wi, %decay : f32
    %m1 = arith.mulf %b1, %mi : f32
    %m2 = arith.mulf %omb1, %gi : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %vi : f32
    %v2 = arith.mulf %omb2, %gi : f32
    %v3 = arith.mulf %v2, %gi : f32
    %vn = arith.addf %v1, %v3 : f32
    %r0 = math.sqrt %vn : f32
    %rb = math.sqrt %b2ti : f32
    %r2 = arith.divf %r0, %rb : f32
    %d = arith.addf %r2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %lri, %b1ti : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %ww, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<300xf32>, tensor<300xf32>, tensor<300xf32>)
  return %r#1, %r#2, %r#0 : tensor<300xf32>, tensor<300xf32>, tensor<300xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// A first step whose moments are constants: no state to store, a remark.
// COAT-LABEL: func.func @not_threaded(
// COAT-SAME: %{{[^:]*}}: tensor<4x200xf32>, %{{[^:]*}}: tensor<4x200xf32>, %{{[^:]*}}: tensor<f32>
// COAT-NOT: fp8.
// COAT: return
// REMARK: remark: [Missed] state-not-stored | Category:fp8-optimizer | Function=not_threaded | Remark="the Adam step linalg.generic keeps its f32 state: its m is not an argument of @not_threaded"
func.func @not_threaded(%w: tensor<4x200xf32>, %g: tensor<4x200xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  %m = arith.constant dense<0.0> : tensor<4x200xf32>
  %v = arith.constant dense<0.0> : tensor<4x200xf32>
  %e = tensor.empty() : tensor<4x200xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #sc, #sc, #sc, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  ^bb0(%wi: f32, %gi: f32, %mi: f32, %vi: f32, %lri: f32, %b1ti: f32, %b2ti: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %wd = arith.constant 0.01 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %lrwd = arith.mulf %lri, %wd : f32
    %decay = arith.subf %one, %lrwd : f32
    %ww = arith.mulf %wi, %decay : f32
    %m1 = arith.mulf %b1, %mi : f32
    %m2 = arith.mulf %omb1, %gi : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %vi : f32
    %v2 = arith.mulf %omb2, %gi : f32
    %v3 = arith.mulf %v2, %gi : f32
    %vn = arith.addf %v1, %v3 : f32
    %r0 = math.sqrt %vn : f32
    %rb = math.sqrt %b2ti : f32
    %r2 = arith.divf %r0, %rb : f32
    %d = arith.addf %r2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %lri, %b1ti : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %ww, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// COAT-LABEL: func.func @not_returned(
// COAT-NOT: fp8.
// COAT: return
// REMARK: remark: [Missed] state-not-stored | Category:fp8-optimizer | Function=not_returned | Remark="the Adam step linalg.generic keeps its f32 state: its new v is not a result of @not_returned"
func.func @not_returned(%w: tensor<4x200xf32>, %g: tensor<4x200xf32>, %m: tensor<4x200xf32>, %v: tensor<4x200xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<4x200xf32>, tensor<4x200xf32>) {
  %e = tensor.empty() : tensor<4x200xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #sc, #sc, #sc, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  ^bb0(%wi: f32, %gi: f32, %mi: f32, %vi: f32, %lri: f32, %b1ti: f32, %b2ti: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %wd = arith.constant 0.01 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %lrwd = arith.mulf %lri, %wd : f32
    %decay = arith.subf %one, %lrwd : f32
    %ww = arith.mulf %wi, %decay : f32
    %m1 = arith.mulf %b1, %mi : f32
    %m2 = arith.mulf %omb1, %gi : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %vi : f32
    %v2 = arith.mulf %omb2, %gi : f32
    %v3 = arith.mulf %v2, %gi : f32
    %vn = arith.addf %v1, %v3 : f32
    %r0 = math.sqrt %vn : f32
    %rb = math.sqrt %b2ti : f32
    %r2 = arith.divf %r0, %rb : f32
    %d = arith.addf %r2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %lri, %b1ti : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %ww, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return %r#0, %r#1 : tensor<4x200xf32>, tensor<4x200xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// A function called within the module keeps its signature.
// COAT-LABEL: func.func private @called(
// COAT-SAME: -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
// COAT-NOT: fp8.
// REMARK: remark: [Missed] state-not-stored | Category:fp8-optimizer | Function=called | Remark="the Adam step linalg.generic keeps its f32 state: @called is called in this module, so its signature stays"
func.func private @called(%w: tensor<4x200xf32>, %g: tensor<4x200xf32>, %m: tensor<4x200xf32>, %v: tensor<4x200xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  %e = tensor.empty() : tensor<4x200xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #sc, #sc, #sc, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  ^bb0(%wi: f32, %gi: f32, %mi: f32, %vi: f32, %lri: f32, %b1ti: f32, %b2ti: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %wd = arith.constant 0.01 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %lrwd = arith.mulf %lri, %wd : f32
    %decay = arith.subf %one, %lrwd : f32
    %ww = arith.mulf %wi, %decay : f32
    %m1 = arith.mulf %b1, %mi : f32
    %m2 = arith.mulf %omb1, %gi : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %vi : f32
    %v2 = arith.mulf %omb2, %gi : f32
    %v3 = arith.mulf %v2, %gi : f32
    %vn = arith.addf %v1, %v3 : f32
    %r0 = math.sqrt %vn : f32
    %rb = math.sqrt %b2ti : f32
    %r2 = arith.divf %r0, %rb : f32
    %d = arith.addf %r2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %lri, %b1ti : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %ww, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>
}
func.func @caller(%w: tensor<4x200xf32>, %g: tensor<4x200xf32>, %m: tensor<4x200xf32>, %v: tensor<4x200xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  %r:3 = func.call @called(%w, %g, %m, %v, %lr, %b1t, %b2t) : (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>) -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// Two moving averages but neither under a square root: not an Adam step, so
// neither rewritten nor remarked.
// COAT-LABEL: func.func @no_sqrt(
// COAT-SAME: -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
// COAT-NOT: fp8.
// REMARK-NOT: Function=no_sqrt
func.func @no_sqrt(%w: tensor<4x200xf32>, %g: tensor<4x200xf32>, %m: tensor<4x200xf32>, %v: tensor<4x200xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  %e = tensor.empty() : tensor<4x200xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #sc, #sc, #sc, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  ^bb0(%wi: f32, %gi: f32, %mi: f32, %vi: f32, %lri: f32, %b1ti: f32, %b2ti: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %wd = arith.constant 0.01 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %lrwd = arith.mulf %lri, %wd : f32
    %decay = arith.subf %one, %lrwd : f32
    %ww = arith.mulf %wi, %decay : f32
    %m1 = arith.mulf %b1, %mi : f32
    %m2 = arith.mulf %omb1, %gi : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %vi : f32
    %v2 = arith.mulf %omb2, %gi : f32
    %v3 = arith.mulf %v2, %gi : f32
    %vn = arith.addf %v1, %v3 : f32
    %r0 = arith.mulf %vn, %vn : f32
    %rb = arith.mulf %b2ti, %b2ti : f32
    %r2 = arith.divf %r0, %rb : f32
    %d = arith.addf %r2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %lri, %b1ti : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %ww, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#sc = affine_map<(d0, d1) -> ()>

// The first moment averages g + wd * w (Adam with L2 regularization): its
// update reads two tensors, so the moments' roles are not certain; left as is.
// COAT-LABEL: func.func @l2(
// COAT-NOT: fp8.
// REMARK-NOT: Function=l2
func.func @l2(%w: tensor<4x200xf32>, %g: tensor<4x200xf32>, %m: tensor<4x200xf32>, %v: tensor<4x200xf32>, %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  %e = tensor.empty() : tensor<4x200xf32>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #sc, #sc, #sc, #id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>) {
  ^bb0(%wi: f32, %gi: f32, %mi: f32, %vi: f32, %lri: f32, %b1ti: f32, %b2ti: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %wd = arith.constant 0.01 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %lrwd = arith.mulf %lri, %wd : f32
    %decay = arith.subf %one, %lrwd : f32
    %ww = arith.mulf %wi, %decay : f32
    %m1 = arith.mulf %b1, %mi : f32
    %gw = arith.mulf %wd, %wi : f32
    %gl = arith.addf %gi, %gw : f32
    %m2 = arith.mulf %omb1, %gl : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %vi : f32
    %v2 = arith.mulf %omb2, %gi : f32
    %v3 = arith.mulf %v2, %gi : f32
    %vn = arith.addf %v1, %v3 : f32
    %r0 = math.sqrt %vn : f32
    %rb = math.sqrt %b2ti : f32
    %r2 = arith.divf %r0, %rb : f32
    %d = arith.addf %r2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %lri, %b1ti : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %ww, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>)
  return %r#0, %r#1, %r#2 : tensor<4x200xf32>, tensor<4x200xf32>, tensor<4x200xf32>
}

// -----

// Moving averages written `(1 - b) * g + b * state`: the first one reads
// both ways (m or g the state), and the gradient the second shares decides.
// COAT-LABEL: func.func @swapped(
// COAT-SAME: {fp8.optimizer_state = "weight"}, %{{[^:]*}}: tensor<256xf32>,
// COAT-SAME: tensor<256xf8E4M3FN> {fp8.optimizer_state = "m.codes"}
// REMARK: remark: [Passed] state-stored | Category:fp8-optimizer | Function=swapped
#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
func.func @swapped(%w: tensor<256xf32>, %g: tensor<256xf32>, %m: tensor<256xf32>, %v: tensor<256xf32>,
                %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  %e = tensor.empty() : tensor<256xf32>
  %r:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #sc1, #sc1, #sc1, #id1, #id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  ^bb0(%uw: f32, %ug: f32, %um: f32, %uv: f32, %ulr: f32, %ub1t: f32, %ub2t: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %m1 = arith.mulf %b1, %um : f32
    %m2 = arith.mulf %omb1, %ug : f32
    %mn = arith.addf %m2, %m1 : f32
    %v1 = arith.mulf %b2, %uv : f32
    %v2 = arith.mulf %omb2, %ug : f32
    %v3 = arith.mulf %v2, %ug : f32
    %vn = arith.addf %v1, %v3 : f32
    %s = math.sqrt %vn : f32
    %sb = math.sqrt %ub2t : f32
    %s2 = arith.divf %s, %sb : f32
    %d = arith.addf %s2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %ulr, %ub1t : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %uw, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>)
  return %r#0, %r#1, %r#2 : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>
}

// -----

// One argument as both moments: refused, not rewritten into invalid IR.
// REMARK: remark: [Missed] state-not-stored | Category:fp8-optimizer | Function=shared_state | Remark="the Adam step linalg.generic keeps its f32 state: its v is the argument of another state"
#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
func.func @shared_state(%w: tensor<256xf32>, %g: tensor<256xf32>, %m: tensor<256xf32>, %v: tensor<256xf32>,
                %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  %e = tensor.empty() : tensor<256xf32>
  %r:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #sc1, #sc1, #sc1, #id1, #id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%w, %g, %m, %m, %lr, %b1t, %b2t : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<256xf32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>) {
  ^bb0(%uw: f32, %ug: f32, %um: f32, %uv: f32, %ulr: f32, %ub1t: f32, %ub2t: f32, %o0: f32, %o1: f32, %o2: f32):
    %one = arith.constant 1.0 : f32
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %m1 = arith.mulf %b1, %um : f32
    %m2 = arith.mulf %omb1, %ug : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %uv : f32
    %v2 = arith.mulf %omb2, %ug : f32
    %v3 = arith.mulf %v2, %ug : f32
    %vn = arith.addf %v1, %v3 : f32
    %s = math.sqrt %vn : f32
    %sb = math.sqrt %ub2t : f32
    %s2 = arith.divf %s, %sb : f32
    %d = arith.addf %s2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %ulr, %ub1t : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %uw, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<256xf32>, tensor<256xf32>, tensor<256xf32>)
  return %r#0, %r#1, %r#2 : tensor<256xf32>, tensor<256xf32>, tensor<256xf32>
}

// -----

// A 0-d step (a scalar parameter) whose hyperparameters are 0-d tensors too,
// so that they read like state: recognized, and left in f32 with a remark,
// since one element's codes and scales take more bytes than its f32 value.
// COAT-LABEL: func.func @scalar(
// COAT-SAME: %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>, %{{.*}}: tensor<f32>) -> (tensor<f32>, tensor<f32>, tensor<f32>)
// COAT-NOT: fp8.
// COAT: return
// FP8LM-LABEL: func.func @scalar(
// FP8LM-SAME: -> (tensor<f32>, tensor<f32>, tensor<f32>)
// FP8LM-NOT: fp8.
// FP8LM: return
// REMARK: remark: [Missed] state-not-stored | Category:fp8-optimizer | Function=scalar | Remark="the Adam step linalg.generic keeps its f32 state: its state of 1 element would take 16 bytes stored, against 12 in f32"
#id0 = affine_map<() -> ()>
func.func @scalar(%w: tensor<f32>, %g: tensor<f32>, %m: tensor<f32>, %v: tensor<f32>,
                  %lr: tensor<f32>, %b1t: tensor<f32>, %b2t: tensor<f32>)
    -> (tensor<f32>, tensor<f32>, tensor<f32>) {
  %e = tensor.empty() : tensor<f32>
  %r:3 = linalg.generic {indexing_maps = [#id0, #id0, #id0, #id0, #id0, #id0, #id0, #id0, #id0, #id0],
                         iterator_types = []}
      ins(%w, %g, %m, %v, %lr, %b1t, %b2t : tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>, tensor<f32>)
      outs(%e, %e, %e : tensor<f32>, tensor<f32>, tensor<f32>) {
  ^bb0(%uw: f32, %ug: f32, %um: f32, %uv: f32, %ulr: f32, %ub1t: f32, %ub2t: f32, %o0: f32, %o1: f32, %o2: f32):
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %m1 = arith.mulf %b1, %um : f32
    %m2 = arith.mulf %omb1, %ug : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %uv : f32
    %v2 = arith.mulf %omb2, %ug : f32
    %v3 = arith.mulf %v2, %ug : f32
    %vn = arith.addf %v1, %v3 : f32
    %s = math.sqrt %vn : f32
    %sb = math.sqrt %ub2t : f32
    %s2 = arith.divf %s, %sb : f32
    %d = arith.addf %s2, %eps : f32
    %md = arith.divf %mn, %d : f32
    %st = arith.divf %ulr, %ub1t : f32
    %up = arith.mulf %st, %md : f32
    %wn = arith.subf %uw, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<f32>, tensor<f32>, tensor<f32>)
  return %r#0, %r#1, %r#2 : tensor<f32>, tensor<f32>, tensor<f32>
}

// -----

// One element: left in f32 by the same count (17 bytes against 12 by FP8-LM).
// Two elements are stored (22 bytes against 24 by COAT).
// COAT-LABEL: func.func @one_element(
// COAT-SAME: -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
// COAT-LABEL: func.func @two_elements(
// COAT-SAME: tensor<2xf8E4M3FN>
// FP8LM-LABEL: func.func @one_element(
// FP8LM-SAME: -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
// FP8LM-LABEL: func.func @two_elements(
// FP8LM-SAME: tensor<2xf16>
// REMARK: remark: [Missed] state-not-stored | Category:fp8-optimizer | Function=one_element | Remark="the Adam step linalg.generic keeps its f32 state: its state of 1 element would take 16 bytes stored, against 12 in f32"
// REMARK: remark: [Passed] state-stored | Category:fp8-optimizer | Function=two_elements
#id1 = affine_map<(d0) -> (d0)>
#sc1 = affine_map<(d0) -> ()>
func.func @one_element(%w: tensor<1xf32>, %g: tensor<1xf32>, %m: tensor<1xf32>, %v: tensor<1xf32>, %lr: tensor<f32>)
    -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %e = tensor.empty() : tensor<1xf32>
  %r:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #sc1, #id1, #id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%w, %g, %m, %v, %lr : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<f32>)
      outs(%e, %e, %e : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  ^bb0(%uw: f32, %ug: f32, %um: f32, %uv: f32, %ulr: f32, %o0: f32, %o1: f32, %o2: f32):
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %m1 = arith.mulf %b1, %um : f32
    %m2 = arith.mulf %omb1, %ug : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %uv : f32
    %v2 = arith.mulf %omb2, %ug : f32
    %v3 = arith.mulf %v2, %ug : f32
    %vn = arith.addf %v1, %v3 : f32
    %s = math.sqrt %vn : f32
    %d = arith.addf %s, %eps : f32
    %md = arith.divf %mn, %d : f32
    %up = arith.mulf %ulr, %md : f32
    %wn = arith.subf %uw, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>)
  return %r#0, %r#1, %r#2 : tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
}

func.func @two_elements(%w: tensor<2xf32>, %g: tensor<2xf32>, %m: tensor<2xf32>, %v: tensor<2xf32>, %lr: tensor<f32>)
    -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %e = tensor.empty() : tensor<2xf32>
  %r:3 = linalg.generic {indexing_maps = [#id1, #id1, #id1, #id1, #sc1, #id1, #id1, #id1],
                         iterator_types = ["parallel"]}
      ins(%w, %g, %m, %v, %lr : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<f32>)
      outs(%e, %e, %e : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  ^bb0(%uw: f32, %ug: f32, %um: f32, %uv: f32, %ulr: f32, %o0: f32, %o1: f32, %o2: f32):
    %b1 = arith.constant 0.9 : f32
    %omb1 = arith.constant 0.1 : f32
    %b2 = arith.constant 0.999 : f32
    %omb2 = arith.constant 0.001 : f32
    %eps = arith.constant 1.0e-8 : f32
    %m1 = arith.mulf %b1, %um : f32
    %m2 = arith.mulf %omb1, %ug : f32
    %mn = arith.addf %m1, %m2 : f32
    %v1 = arith.mulf %b2, %uv : f32
    %v2 = arith.mulf %omb2, %ug : f32
    %v3 = arith.mulf %v2, %ug : f32
    %vn = arith.addf %v1, %v3 : f32
    %s = math.sqrt %vn : f32
    %d = arith.addf %s, %eps : f32
    %md = arith.divf %mn, %d : f32
    %up = arith.mulf %ulr, %md : f32
    %wn = arith.subf %uw, %up : f32
    linalg.yield %wn, %mn, %vn : f32, f32, f32
  } -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>)
  return %r#0, %r#1, %r#2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
