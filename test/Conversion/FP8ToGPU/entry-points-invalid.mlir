// What an entry point calls is inlined into its plan: a callee without a
// body, with control flow or on a recursive cycle is an error naming it. A
// module that defines functions none of which is an entry point is an error
// too, rather than an empty result.
// RUN: fp8-opt %s -split-input-file -verify-diagnostics --convert-fp8-to-gpu=chip=sm_90a -o /dev/null

func.func private @external(tensor<64x128xf32>) -> tensor<64x128xf32>

func.func private @helper(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-error @below {{fp8 GPU lowering: @external has no body to compile (@calls_external -> @helper -> @external)}}
  %y = call @external(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

func.func @calls_external(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %y = call @helper(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

func.func private @pong(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-error @below {{fp8 GPU lowering: @ping is called recursively (@ping -> @pong -> @ping); a launch plan is a fixed sequence of launches}}
  %y = call @ping(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

func.func @ping(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %y = call @pong(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

func.func private @branches(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  cf.br ^bb1(%x : tensor<64x128xf32>)
^bb1(%y: tensor<64x128xf32>):
  return %y : tensor<64x128xf32>
}

func.func @calls_branches(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
  // expected-error @below {{fp8 GPU lowering: @branches has control flow (@calls_branches -> @branches), which has no launch plan}}
  %y = call @branches(%x) : (tensor<64x128xf32>) -> tensor<64x128xf32>
  return %y : tensor<64x128xf32>
}

// -----

// expected-error @below {{fp8 GPU lowering: no function to compile: no public function takes and returns statically shaped tensors; name the entry points with entry-points=...}}
module {
  func.func @main() {
    return
  }
  func.func private @helper(%x: tensor<64x128xf32>) -> tensor<64x128xf32> {
    return %x : tensor<64x128xf32>
  }
}
