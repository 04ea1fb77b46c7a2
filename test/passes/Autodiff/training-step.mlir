// RUN: dlc-opt %s -dlc-params-to-args="freeze=b" -dlc-training-step="loss=xent output=y optimizer=adamw lr=0.5 weight-decay=0.1" | FileCheck %s
// RUN: dlc-opt %s -dlc-params-to-args -dlc-training-step="optimizer=sgd momentum=0.9" | FileCheck %s --check-prefix=SGD
// The training step's passes take typed options: the loss and its output, the optimizer
// and its settings. w is trained; b is frozen and stays a constant.

// CHECK: module attributes {dlc.memory_report = {gradient_bytes = 24 : i64, optimizer_state_bytes = 52 : i64, parameter_bytes = 24 : i64, {{.*}}}, dlc.state = [{dlc.dtype = 1 : i32, dlc.name = "w", symbol = @dlc_param_1}]}
// CHECK-DAG: ml_program.global private mutable @dlc_step_0(dense<0.000000e+00> : tensor<f32>)
// CHECK-DAG: ml_program.global private mutable @dlc_param_1(dense<5.000000e-01> : tensor<3x2xf32>)
// CHECK-DAG: ml_program.global private mutable @dlc_adam_m_2
// CHECK-DAG: ml_program.global private mutable @dlc_adam_v_3
// CHECK: func.func @main_graph(%{{.*}}: tensor<2x3xf32> {{.*}}, %[[LABELS:.*]]: tensor<2xi64> {dlc.dtype = 7 : i32, dlc.name = "labels"}) -> (tensor<f32> {dlc.dtype = 1 : i32, dlc.name = "loss"})
// AdamW's decoupled decay: p * (1 - lr * wd) = p * 0.95.
// CHECK: %[[DECAY:.*]] = arith.constant dense<0.949999988> : tensor<f32>
// CHECK: %[[P:.*]] = ml_program.global_load @dlc_param_1
// CHECK-NEXT: dlc_graph.mul %[[P]], %[[DECAY]]
// Cross-entropy: the log-softmax of the logits, the labels' column picked.
// CHECK: dlc_graph.reduce_max
// CHECK: dlc_graph.log
// CHECK: dlc_graph.reshape %[[LABELS]]
// CHECK: dlc_graph.equal
// CHECK: ml_program.global_store @dlc_param_1
// CHECK: return %{{.*}} : tensor<f32>

// With optimizer=sgd: a momentum buffer per parameter, no step count, and mse against labels like y.
// SGD-NOT: @dlc_step
// SGD-DAG: ml_program.global private mutable @dlc_param_0
// SGD-DAG: ml_program.global private mutable @dlc_momentum_1
// SGD-DAG: ml_program.global private mutable @dlc_param_2
// SGD: func.func @main_graph(%{{.*}}: tensor<2x3xf32> {{.*}}, %{{.*}}: tensor<2x2xf32> {dlc.dtype = 1 : i32, dlc.name = "labels"})
// SGD: dlc_graph.reduce_mean

func.func @main_graph(%x: tensor<2x3xf32> {dlc.name = "x", dlc.dtype = 1 : i32})
    -> (tensor<2x2xf32> {dlc.name = "y", dlc.dtype = 1 : i32}) {
  %w = arith.constant dense<0.5> : tensor<3x2xf32> loc("w")
  %b = arith.constant dense<0.25> : tensor<2xf32> loc("b")
  %0 = dlc_graph.matmul %x, %w : tensor<2x3xf32>, tensor<3x2xf32> -> tensor<2x2xf32>
  %1 = dlc_graph.add %0, %b : tensor<2x2xf32>, tensor<2xf32> -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}
