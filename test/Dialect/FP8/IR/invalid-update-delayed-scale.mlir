// RUN: fp8-opt %s -split-input-file -verify-diagnostics

func.func @history_rank(%h: tensor<4x4xf32>, %s: tensor<1xf32>) {
  // expected-error@+1 {{history must be a static 1-D tensor with at least one slot (e.g. tensor<1024xf32>), got 'tensor<4x4xf32>'}}
  %0:3 = fp8.update_delayed_scale %s into(%h, %s) for <e4m3> : tensor<4x4xf32>, tensor<1xf32>
  return
}

// -----

func.func @history_dynamic(%h: tensor<?xf32>, %s: tensor<1xf32>) {
  // expected-error@+1 {{history must be a static 1-D tensor with at least one slot (e.g. tensor<1024xf32>), got 'tensor<?xf32>'}}
  %0:3 = fp8.update_delayed_scale %s into(%h, %s) for <e4m3> : tensor<?xf32>, tensor<1xf32>
  return
}

// -----

func.func @history_empty(%h: tensor<0xf32>, %s: tensor<1xf32>) {
  // expected-error@+1 {{history must be a static 1-D tensor with at least one slot (e.g. tensor<1024xf32>), got 'tensor<0xf32>'}}
  %0:3 = fp8.update_delayed_scale %s into(%h, %s) for <e4m3> : tensor<0xf32>, tensor<1xf32>
  return
}

// -----

func.func @scale_shape(%h: tensor<16xf32>, %s: tensor<2xf32>) {
  // expected-error@+1 {{scale must hold exactly one element (e.g. tensor<1x1xf32>), got 'tensor<2xf32>'}}
  %0:3 = fp8.update_delayed_scale %s into(%h, %s) for <e4m3> : tensor<16xf32>, tensor<2xf32>
  return
}

// -----

func.func @margin(%h: tensor<16xf32>, %s: tensor<1xf32>) {
  // expected-error@+1 {{margin is a power-of-two headroom in [0, 127], got 128}}
  %0:3 = fp8.update_delayed_scale %s into(%h, %s) for <e4m3> margin(128) : tensor<16xf32>, tensor<1xf32>
  return
}

// -----

func.func @amax_type(%h: tensor<16xf32>, %s: tensor<1xf32>, %a: tensor<1x1xf32>) {
  // expected-error@+1 {{failed to verify that all of {scale, amax, new_scale, new_scale_inv} have same type}}
  %0:3 = "fp8.update_delayed_scale"(%h, %s, %a) <{format = #fp8.format<e4m3>}> : (tensor<16xf32>, tensor<1xf32>, tensor<1x1xf32>) -> (tensor<16xf32>, tensor<1xf32>, tensor<1xf32>)
  return
}
