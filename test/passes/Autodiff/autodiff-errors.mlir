// RUN: dlc-opt %s -split-input-file -verify-diagnostics -dlc-autodiff

func.func @fmod(%x: tensor<3xf32> {dlc.name = "x"}) -> (tensor<3xf32> {dlc.name = "y"}) {
  // expected-error @+1 {{dlc-autodiff: 'dlc_graph.fmod' is not differentiable, but the loss depends on it}}
  %0 = dlc_graph.fmod %x, %x : tensor<3xf32>, tensor<3xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// expected-error @+1 {{dlc-autodiff: the loss (result 0) is not a float tensor}}
func.func @int_loss(%x: tensor<3xi64> {dlc.name = "x"}) -> (tensor<3xi64> {dlc.name = "y"}) {
  return %x : tensor<3xi64>
}

// -----

func.func @strided_slice(%x: tensor<6xf32> {dlc.name = "x"}) -> (tensor<3xf32> {dlc.name = "y"}) {
  // expected-error @+1 {{gradient of a slice with a step other than 1 is not supported yet}}
  %0 = dlc_graph.slice %x {starts = array<i64: 0>, sizes = array<i64: 3>, steps = array<i64: 2>} : tensor<6xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Composite regions are differentiated through their expansion (dlc-decompose first).
func.func @attention(%q: tensor<1x1x2x4xf32> {dlc.name = "q"}) -> (tensor<1x1x2x4xf32> {dlc.name = "y"}) {
  // expected-error @+1 {{dlc-autodiff: 'dlc_graph.attention' is not differentiable, but the loss depends on it}}
  %0 = dlc_graph.attention %q, %q, %q : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32> -> tensor<1x1x2x4xf32>
  return %0 : tensor<1x1x2x4xf32>
}
