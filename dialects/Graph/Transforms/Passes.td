// Graph-level passes of the dlc_graph dialect.
#ifndef DLC_GRAPH_PASSES_TD
#define DLC_GRAPH_PASSES_TD

include "mlir/Pass/PassBase.td"

def GraphDecompose : Pass<"dlc-decompose"> {
  let summary = "Expand composite dlc_graph ops into primitive ones";
  let description = [{
    Rewrites gemm, gelu, clip, softmax, log_softmax, batch_norm, layer_norm
    and global_average_pool into matmul, transpose, reductions and
    elementwise dlc_graph ops, so lowering handles only primitives. The
    quantize and dequantize ops that no quantization pass folded become the
    float math of ONNX's reference (QuantizedMath.h). Runs
    after canonicalization, so BatchNorm parameters that are constants fold
    into a per-channel scale and shift.

    The composite regions (attention, rnn, gru, lstm) are expanded too unless
    `keep-regions` is set: inference keeps them whole through the graph phase
    (a fusion decision sees attention as one op) and the linalg phase starts
    with this pass again, with `cleanup` (canonicalize, channels-last,
    canonicalize, cse once more when something was expanded, so the result is
    what the graph phase would have made of the expanded ops).
  }];
  let options = [
    Option<"keepRegions", "keep-regions", "bool", /*default=*/"false",
           "leave attention, rnn, gru and lstm whole">,
    Option<"cleanup", "cleanup", "bool", /*default=*/"false",
           "after expanding a region op, run canonicalize, dlc-channels-last, canonicalize and cse">,
    Option<"maxTensorBytes", "max-tensor-bytes", "uint64_t", /*default=*/"0",
           "largest tensor an expansion may create (--max-memory; 0: no limit)">,
  ];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect"];
}

def GraphRaiseAttention : Pass<"dlc-raise-attention"> {
  let summary = "Exporters' MatMul-Softmax-MatMul chains -> dlc_graph.attention";
  let description = [{
    Finds `matmul(softmax(s), V)` where s is, from the inside out,
    `matmul(Q, K^T)`, optionally divided or multiplied by a splat constant,
    optionally a `where` against a splat fill, optionally plus an additive
    mask, and the probabilities optionally NaN-guarded with
    `where(is_nan(p), 0, p)` (torch SDPA, HF BERT and GPT-2 eager exports), on
    rank-4 [batch, heads, seq, dim] tensors without broadcasting, and replaces
    it with one `dlc_graph.attention` whose decomposition rebuilds exactly those
    ops. Every intermediate must have no other use and keep its operand's type;
    anything else is left alone. Inference only: autodiff differentiates
    primitives.
  }];
  let dependentDialects = ["::dlc::graph::GraphDialect"];
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

def GraphChannelsLast : Pass<"dlc-channels-last"> {
  let summary = "Convolutions in NHWC, layout transposes sunk until they cancel";
  let description = [{
    Rewrites each float `conv` with group 1 or depthwise into
    `transpose(conv_nhwc(transpose(x), W'))` with HWCF weights (transposed at
    compile time when constant), then moves every transpose below the
    elementwise ops and keepdims reductions that use it, composing and
    cancelling adjacent transposes: chains of convs, activations and residual
    adds run in NHWC with transposes only where the graph enters and leaves
    that region (model inputs and outputs, pools, reshapes).
  }];
  let dependentDialects = ["::dlc::graph::GraphDialect", "::mlir::arith::ArithDialect"];
}

#endif
