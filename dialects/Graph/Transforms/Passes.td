// Graph-level passes of the dlc_graph dialect.
#ifndef DLC_GRAPH_PASSES_TD
#define DLC_GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphDecompose : Pass<"dlc-decompose"> {
  let summary = "Expand composite dlc_graph ops into primitive ones";
  let description = [{
    Rewrites gemm, gelu, clip, softmax, log_softmax, batch_norm, layer_norm
    and global_average_pool into matmul, transpose, reductions and
    elementwise dlc_graph ops, so lowering handles only primitives. Runs
    after canonicalization, so BatchNorm parameters that are constants fold
    into a per-channel scale and shift.
  }];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect"];
}

def GraphFoldConvAffine : Pass<"dlc-fold-conv-affine"> {
  let summary = "Fold per-channel constant scales and shifts into the preceding conv";
  let description = [{
    `mul(conv(x, W, b), s)` and `add(conv(x, W, b), t)` with constant
    per-output-channel `s`, `t` (what a decomposed inference BatchNorm
    leaves) become one conv with `W * s` and `b * s + t`, computed at compile
    time on the raw f32 data. The conv must have no other user and constant
    weights.
  }];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect"];
}

#endif
