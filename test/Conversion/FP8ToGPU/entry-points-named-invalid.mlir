// Every function named in entry-points is compiled, or is an error that
// names it and says why.
// RUN: fp8-opt %s -verify-diagnostics --convert-fp8-to-gpu="chip=sm_90a entry-points=missing,pattern,declared,state,dynamic" -o /dev/null

// expected-error @below {{fp8 GPU lowering: entry point @missing: the module has no function of that name}}
module {
  // expected-error @below {{fp8 GPU lowering: entry point @pattern: its argument 0 is 'index', which is not a statically shaped tensor; the GPU pipeline plans buffers and launches at compile time}}
  func.func private @pattern(%rows: index) -> tensor<?x4xf32> {
    %t = tensor.empty(%rows) : tensor<?x4xf32>
    return %t : tensor<?x4xf32>
  }

  // expected-error @below {{fp8 GPU lowering: entry point @declared is a declaration; there is no body to compile}}
  func.func private @declared(tensor<4x4xf32>) -> tensor<4x4xf32>

  // expected-error @below {{fp8 GPU lowering: entry point @state: this is not a func.func}}
  ml_program.global private mutable @state(dense<0.0> : tensor<4xf32>) : tensor<4xf32>

  // expected-error @below {{fp8 GPU lowering: entry point @dynamic: its result 0 is 'tensor<?x4xf32>', which is not a statically shaped tensor; the GPU pipeline plans buffers and launches at compile time}}
  func.func @dynamic(%x: tensor<4x4xf32>) -> tensor<?x4xf32> {
    %d = tensor.cast %x : tensor<4x4xf32> to tensor<?x4xf32>
    return %d : tensor<?x4xf32>
  }
}
