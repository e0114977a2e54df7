// A symbol that takes the name of a delayed-scaling state global must be that
// global: mutable, of the state's type.
// RUN: fp8-opt %s -split-input-file --fp8-autocast="recipe=tensor-delayed history=16" -verify-diagnostics

// expected-error @below {{fp8-autocast: '@__fp8_state_fc1_lhs_history' is the delayed-scaling state of this tensor and must be a mutable ml_program.global of type 'tensor<16xf32>'}}
ml_program.global private mutable @__fp8_state_fc1_lhs_history(dense<0.0> : tensor<8xf32>) : tensor<8xf32>
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>, %o: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = linalg.matmul {fp8.name = "fc1"} ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                     outs(%o : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// expected-error @below {{must be a mutable ml_program.global of type 'tensor<1xf32>'}}
ml_program.global private @__fp8_state_f_0_rhs_scale(dense<1.0> : tensor<1xf32>) : tensor<1xf32>
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>, %o: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                     outs(%o : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}

// -----

// expected-error @below {{must be a mutable ml_program.global}}
func.func private @__fp8_state_f_0_lhs_scale()
func.func @f(%x: tensor<4x8xf32>, %w: tensor<8x4xf32>, %o: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %y = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x4xf32>)
                     outs(%o : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %y : tensor<4x4xf32>
}
