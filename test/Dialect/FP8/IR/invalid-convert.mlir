// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @rceil_on_fp8(%x: f32) {
  // expected-error@+1 {{rounding rceil applies to f8E8M0FNU results only; use rne or stochastic for 'f8E4M3FN'}}
  %0 = fp8.convert %x rounding <rceil> : f32 to f8E4M3FN
  return
}

// -----

func.func @stochastic_e8m0(%x: f32, %r: i32) {
  // expected-error@+1 {{f8E8M0FNU results round with rne, rceil or floor, not stochastic}}
  %0 = fp8.convert %x rounding <stochastic> rbits(%r : i32) : f32 to f8E8M0FNU
  return
}

// -----

func.func @stochastic_without_bits(%x: f32) {
  // expected-error@+1 {{stochastic rounding needs an i32 random word per element: add `rbits(%r : i32)`}}
  %0 = fp8.convert %x rounding <stochastic> : f32 to f8E5M2
  return
}

// -----

func.func @bits_without_stochastic(%x: f32, %r: i32) {
  // expected-error@+1 {{`rbits` is only used by stochastic rounding; remove it}}
  %0 = fp8.convert %x rbits(%r : i32) : f32 to f8E5M2
  return
}

// -----

func.func @shape(%x: vector<4xf32>) {
  // expected-error@+1 {{requires the same shape for all operands and results}}
  %0 = fp8.convert %x : vector<4xf32> to vector<8xf8E5M2>
  return
}

// -----

func.func @wide_result(%x: f32) {
  // expected-error@+1 {{result #0 must be low-precision float}}
  %0 = fp8.convert %x : f32 to bf16
  return
}

// -----

func.func @narrow_input(%x: f8E4M3FN) {
  // expected-error@+1 {{operand #0 must be f32, bf16 or f16}}
  %0 = fp8.convert %x : f8E4M3FN to f4E2M1FN
  return
}
