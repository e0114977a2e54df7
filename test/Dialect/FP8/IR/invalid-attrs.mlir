// Every attribute parse and verification error.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics

// expected-error@+1 {{expected `tensor` or a block shape such as `1x128` or `1x*`}}
func.func @f() attributes {a = #fp8.granularity<>} { return }

// -----

// expected-error@+1 {{block extents must be positive or `*` (a whole dimension), got 0}}
func.func @f() attributes {a = #fp8.granularity<1x0>} { return }

// -----

// expected-error@+1 {{block extents must be positive or `*` (a whole dimension), got -1}}
func.func @f() attributes {a = #fp8.granularity<-1>} { return }

// -----

// expected-error@+1 {{expected 'x' in dimension list}}
func.func @f() attributes {a = #fp8.granularity<1 128>} { return }

// -----

// expected-error@+1 {{unknown value 'linear'; expected one of ratio, pow2, e8m0_rceil, e8m0_floor, nvfp4, pow2_bias, static}}
func.func @f() attributes {a = #fp8.rule<linear>} { return }

// -----

// expected-error@+1 {{unknown scale rule parameter 'headroom'; expected margin or eps}}
func.func @f() attributes {a = #fp8.rule<ratio, headroom = 1>} { return }

// -----

// expected-error@+1 {{margin and eps apply only to the ratio and pow2 rules, not to e8m0_rceil}}
func.func @f() attributes {a = #fp8.rule<e8m0_rceil, margin = 1>} { return }

// -----

// expected-error@+1 {{margin is a power-of-two headroom in [0, 127], got 200}}
func.func @f() attributes {a = #fp8.rule<ratio, margin = 200>} { return }

// -----

// expected-error@+1 {{eps must be a finite value >= 0}}
func.func @f() attributes {a = #fp8.rule<ratio, eps = -1.0>} { return }

// -----

// expected-error@+1 {{'margin' is given twice}}
func.func @f() attributes {a = #fp8.rule<ratio, margin = 1, margin = 2>} { return }

// -----

// expected-error@+1 {{unknown value 'fp8'; expected one of tensor_delayed, tensor_current, rowwise, deepseek, mxfp8, nvfp4, graphcore, unit}}
func.func @f() attributes {a = #fp8.recipe<fp8>} { return }

// -----

// expected-error@+1 {{unknown recipe knob 'rounding'; expected one of margin, history, algo, zero_amax, promote}}
func.func @f() attributes {a = #fp8.recipe<mxfp8, rounding = 1>} { return }

// -----

// expected-error@+1 {{the amax history needs at least 1 entry, got 0}}
func.func @f() attributes {a = #fp8.recipe<tensor_delayed, history = 0>} { return }

// -----

// expected-error@+1 {{promote counts k32 steps and must be >= 0 (0 = no promotion), got -4}}
func.func @f() attributes {a = #fp8.recipe<deepseek, promote = -4>} { return }

// -----

// expected-error@+1 {{margin is a power-of-two headroom in [0, 127], got -1}}
func.func @f() attributes {a = #fp8.recipe<tensor_current, margin = -1>} { return }

// -----

// expected-error@+1 {{unknown value 'mean'; expected one of max, most_recent}}
func.func @f() attributes {a = #fp8.recipe<tensor_delayed, algo = mean>} { return }

// -----

// expected-error@+1 {{unknown value 'drop'; expected one of roll, skip}}
func.func @f() attributes {a = #fp8.recipe<tensor_delayed, zero_amax = drop>} { return }

// -----

// expected-error@+1 {{'history' is given twice}}
func.func @f() attributes {a = #fp8.recipe<tensor_delayed, history = 4, history = 8>} { return }

// -----

// expected-error@+2 {{expected ::mlir::fp8::Format to be one of: e4m3, e5m2, e2m1, e2m3, e3m2}}
// expected-error@+1 {{failed to parse FP8_FormatAttr parameter 'value'}}
func.func @f() attributes {a = #fp8.format<e4m3fnuz>} { return }

// -----

// expected-error@+1 {{unknown attribute `scale` in dialect `fp8`}}
func.func @f() attributes {a = #fp8.scale<1>} { return }

// -----

// expected-error@+1 {{block extents are decimal integers or `*`; `0x...` reads as hexadecimal}}
func.func @f() attributes {a = #fp8.granularity<1x0x10>} { return }
