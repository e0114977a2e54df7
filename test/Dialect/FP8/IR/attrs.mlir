// Round trip of every fp8 attribute in its full form.
// RUN: fp8-opt %s | fp8-opt | FileCheck %s
// RUN: fp8-opt %s --emit-bytecode | fp8-opt | FileCheck %s

// CHECK-LABEL: func @enums
// CHECK-SAME: f0 = #fp8.format<e4m3>, f1 = #fp8.format<e5m2>, f2 = #fp8.format<e2m1>, f3 = #fp8.format<e2m3>, f4 = #fp8.format<e3m2>
// CHECK-SAME: g0 = #fp8.gemm_role<fprop>, g1 = #fp8.gemm_role<dgrad>, g2 = #fp8.gemm_role<wgrad>
// CHECK-SAME: h0 = #fp8.amax_algo<max>, h1 = #fp8.amax_algo<most_recent>
// CHECK-SAME: n0 = #fp8.nan_policy<ignore>, n1 = #fp8.nan_policy<propagate>
// CHECK-SAME: o0 = #fp8.overflow<saturate>, o1 = #fp8.overflow<nonfinite>
// CHECK-SAME: r0 = #fp8.rounding<rne>, r1 = #fp8.rounding<stochastic>
// CHECK-SAME: z0 = #fp8.zero_amax_policy<roll>, z1 = #fp8.zero_amax_policy<skip>
func.func @enums() attributes {
  f0 = #fp8.format<e4m3>, f1 = #fp8.format<e5m2>, f2 = #fp8.format<e2m1>,
  f3 = #fp8.format<e2m3>, f4 = #fp8.format<e3m2>,
  r0 = #fp8.rounding<rne>, r1 = #fp8.rounding<stochastic>,
  o0 = #fp8.overflow<saturate>, o1 = #fp8.overflow<nonfinite>,
  n0 = #fp8.nan_policy<ignore>, n1 = #fp8.nan_policy<propagate>,
  h0 = #fp8.amax_algo<max>, h1 = #fp8.amax_algo<most_recent>,
  z0 = #fp8.zero_amax_policy<roll>, z1 = #fp8.zero_amax_policy<skip>,
  g0 = #fp8.gemm_role<fprop>, g1 = #fp8.gemm_role<dgrad>, g2 = #fp8.gemm_role<wgrad>
} { return }

// CHECK-LABEL: func @granularities
// CHECK-SAME: a = #fp8.granularity<tensor>
// CHECK-SAME: b = #fp8.granularity<1x*>
// CHECK-SAME: c = #fp8.granularity<*x1>
// CHECK-SAME: d = #fp8.granularity<1x128>
// CHECK-SAME: e = #fp8.granularity<128x128>
// CHECK-SAME: f = #fp8.granularity<1x32>
// CHECK-SAME: g = #fp8.granularity<32x1>
// CHECK-SAME: h = #fp8.granularity<16x16>
// CHECK-SAME: i = #fp8.granularity<*>
// CHECK-SAME: j = #fp8.granularity<1x1x16>
// CHECK-SAME: k = #fp8.granularity<*x*>
func.func @granularities() attributes {
  a = #fp8.granularity<tensor>, b = #fp8.granularity<1x*>, c = #fp8.granularity<*x1>,
  d = #fp8.granularity<1x128>, e = #fp8.granularity<128x128>, f = #fp8.granularity<1x32>,
  g = #fp8.granularity<32x1>, h = #fp8.granularity<16 x 16>, i = #fp8.granularity<*>,
  j = #fp8.granularity<1x1x16>, k = #fp8.granularity<* x *>
} { return }

// CHECK-LABEL: func @rules
// CHECK-SAME: a = #fp8.rule<ratio>
// CHECK-SAME: b = #fp8.rule<ratio, margin = 3, eps = 1.0e-12>
// CHECK-SAME: c = #fp8.rule<pow2>
// CHECK-SAME: d = #fp8.rule<e8m0_rceil>
// CHECK-SAME: e = #fp8.rule<e8m0_floor>
// CHECK-SAME: f = #fp8.rule<nvfp4>
// CHECK-SAME: g = #fp8.rule<pow2_bias>
// CHECK-SAME: h = #fp8.rule<static>
// CHECK-SAME: i = #fp8.rule<pow2, eps = 5.0e-01>
func.func @rules() attributes {
  a = #fp8.rule<ratio, margin = 0>, b = #fp8.rule<ratio, eps = 1.0e-12, margin = 3>,
  c = #fp8.rule<pow2>, d = #fp8.rule<e8m0_rceil>, e = #fp8.rule<e8m0_floor>,
  f = #fp8.rule<nvfp4>, g = #fp8.rule<pow2_bias>, h = #fp8.rule<static>,
  i = #fp8.rule<pow2, eps = 0.5>
} { return }

// CHECK-LABEL: func @recipes
// CHECK-SAME: a = #fp8.recipe<tensor_delayed>
// CHECK-SAME: b = #fp8.recipe<tensor_current>
// CHECK-SAME: c = #fp8.recipe<rowwise>
// CHECK-SAME: d = #fp8.recipe<deepseek, promote = 0>
// CHECK-SAME: e = #fp8.recipe<mxfp8>
// CHECK-SAME: f = #fp8.recipe<nvfp4>
// CHECK-SAME: g = #fp8.recipe<graphcore>
// CHECK-SAME: h = #fp8.recipe<unit>
// CHECK-SAME: i = #fp8.recipe<tensor_delayed, margin = 1, history = 16, algo = most_recent, zero_amax = skip, promote = 8>
func.func @recipes() attributes {
  a = #fp8.recipe<tensor_delayed, history = 1024>, b = #fp8.recipe<tensor_current>,
  c = #fp8.recipe<rowwise>, d = #fp8.recipe<deepseek, promote = 0>, e = #fp8.recipe<mxfp8>,
  f = #fp8.recipe<nvfp4>, g = #fp8.recipe<graphcore>, h = #fp8.recipe<unit>,
  i = #fp8.recipe<tensor_delayed, promote = 8, zero_amax = skip, algo = most_recent, history = 16, margin = 1>
} { return }
