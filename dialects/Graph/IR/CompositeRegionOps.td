// dlc_graph composite regions: attention and the recurrent cells, kept whole until a pass
// decides how to compute them (dlc-decompose expands them into primitive ops).
#ifndef DLC_GRAPH_COMPOSITE_REGION_OPS_TD
#define DLC_GRAPH_COMPOSITE_REGION_OPS_TD

include "dialects/Graph/IR/GraphBase.td"

// (Optional operands are one variadic list with has_* flags: MLIR 22's generator emits
// broken C++ for AttrSizedOperandSegments when attributes are not properties.)
def Graph_AttentionOp : Graph_Op<"attention", [Pure, InferTypeOpAdaptor]> {
  let summary = "scaled dot-product attention, one region until dlc-decompose (composite)";
  let description = [{
    `query` [B, Hq, Sq, D], `key` [B, Hkv, Skv, D] ([B, Hkv, D, Skv] with
    `key_transposed`), `value` [B, Hkv, Skv, Dv]; Hq is a multiple of Hkv
    (grouped-query heads repeat each K/V head Hq/Hkv times). The result is
    softmax(s) @ value with the scores s built in this order:

    Absent attributes take their neutral values: qk_factor and score_scale 1,
    softcap 0 (none), causal_offset 0, window sizes -1 (unbounded).
    (Attributes are not properties here, so ODS defaults would not be filled in
    for ops built from an OperationState.)

    `masks` holds, in this order, the ones its flags say are present: `mask`
    (`has_mask`), `select` (`has_select`), `kv_lengths` (`has_kv_lengths`).

    1. qk = (query * qk_factor) @ transpose(key * qk_factor) (factor 1 is skipped);
    2. s = qk * score_scale, or qk / score_scale with `score_scale_divides` (1 is skipped);
    3. s = softcap * tanh(s / softcap) when `softcap` > 0;
    4. s = where(select, s, select_fill) (where(select, select_fill, s) with
       `select_fill_where_true`);
    5. s = s + bias, bias = mask + causal + window + kv-length masks in that order
       (an i1 mask m is where(m, 0, -inf); causal: key j is seen by query i iff
       j <= i + causal_offset; window: -window_left <= i + causal_offset - j <= window_right,
       -1 for unbounded; kv_lengths[b]: keys j >= kv_lengths[b] are masked and the band
       masks use the offset kv_lengths[b] - Sq);
    6. softmax over the last dim in `softmax_type` (default: the element type).
       `masked_rows_zero`: ONNX's guarded softmax (a row that is all -inf, or whose bias
       is all -inf, gives zeros); `nan_to_zero`: NaN probabilities become 0 (torch SDPA).

    With `scores_mode`, a second result returns the scores [B, Hq, Sq, Skv]: 0 or 1 the
    result of step 3, 2 the result of step 5, 3 the probabilities (ONNX
    qk_matmul_output).

    ```mlir
    %y = dlc_graph.attention %q, %k, %v masks(%m : tensor<1x1x4x6xf32>) {has_mask, is_causal, qk_factor = 0.5}
        : tensor<2x8x4x16xf32>, tensor<2x2x6x16xf32>, tensor<2x2x6x16xf32> -> tensor<2x8x4x16xf32>
    ```
  }];
  let arguments = (ins
    Graph_FloatTensor:$query, Graph_FloatTensor:$key, Graph_FloatTensor:$value,
    Variadic<Graph_Tensor>:$masks,
    UnitAttr:$has_mask, UnitAttr:$has_select, UnitAttr:$has_kv_lengths,
    UnitAttr:$key_transposed,
    OptionalAttr<F64Attr>:$qk_factor,
    OptionalAttr<F64Attr>:$score_scale,
    UnitAttr:$score_scale_divides,
    OptionalAttr<F64Attr>:$softcap,
    OptionalAttr<F64Attr>:$select_fill,
    UnitAttr:$select_fill_where_true,
    UnitAttr:$is_causal,
    OptionalAttr<I64Attr>:$causal_offset,
    OptionalAttr<I64Attr>:$window_left,
    OptionalAttr<I64Attr>:$window_right,
    OptionalAttr<TypeAttr>:$softmax_type,
    UnitAttr:$masked_rows_zero,
    UnitAttr:$nan_to_zero,
    OptionalAttr<I64Attr>:$scores_mode);
  let results = (outs Graph_FloatTensor:$output, Optional<Graph_FloatTensor>:$scores);
  let extraClassDeclaration = [{
    /// The optional inputs (null when absent): i1 or float additive mask, i1 select,
    /// integer [B] key lengths.
    ::mlir::Value getMask() { return maskOperand(0); }
    ::mlir::Value getSelect() { return maskOperand(1); }
    ::mlir::Value getKvLengths() { return maskOperand(2); }
    double qkFactor() { return getQkFactor() ? getQkFactor()->convertToDouble() : 1.0; }
    double scoreScale() { return getScoreScale() ? getScoreScale()->convertToDouble() : 1.0; }
    double softcapValue() { return getSoftcap() ? getSoftcap()->convertToDouble() : 0.0; }
    int64_t causalOffset() { return getCausalOffset() ? (int64_t)*getCausalOffset() : 0; }
    int64_t windowLeft() { return getWindowLeft() ? (int64_t)*getWindowLeft() : -1; }
    int64_t windowRight() { return getWindowRight() ? (int64_t)*getWindowRight() : -1; }
    ::mlir::Value maskOperand(unsigned role) {
      return ::dlc::graph::attentionMaskOperand(getMasks(), getHasMask(), getHasSelect(),
                                                getHasKvLengths(), role);
    }
  }];
  let assemblyFormat = [{
    $query `,` $key `,` $value (`masks` `(` $masks^ `:` type($masks) `)`)?
    attr-dict `:` type($query) `,` type($key) `,` type($value) `->` type(results)
  }];
}

// input [S, B, I] (the importer transposes ONNX layout 1), w [dirs, G*H, I],
// r [dirs, G*H, H], bias [dirs, 2*G*H] and initial states [dirs, B, H] (zeros when ONNX
// omits them); results
// y [S, dirs, B, H] and y_h [dirs, B, H] (and y_c for lstm). G is the gate count
// (rnn 1, gru 3, lstm 4). `activations` holds the resolved functions, per direction
// (rnn: f; gru: f, g; lstm: f, g, h), with their alpha and beta; no `clip` is no clipping.
class Graph_RecurrentOp<string mnemonic, dag extraArgs, dag outs, string extraFormat = "",
                        string extraTypes = "">
    : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let arguments = !con((ins Graph_FloatTensor:$input, Graph_FloatTensor:$w,
                            Graph_FloatTensor:$r, Graph_FloatTensor:$bias,
                            Graph_FloatTensor:$initial_h), extraArgs,
                       (ins I64Attr:$hidden_size, StrAttr:$direction,
                            StrArrayAttr:$activations, DenseF64ArrayAttr:$activation_alpha,
                            DenseF64ArrayAttr:$activation_beta,
                            OptionalAttr<F64Attr>:$clip));
  let results = outs;
  let assemblyFormat = [{
    $input `,` $w `,` $r `,` $bias `,` $initial_h }] # extraFormat # [{
    attr-dict `:` type($input) `,` type($w) `,` type($r) `,` type($bias) `,` type($initial_h)
    }] # extraTypes # [{ `->` type(results)
  }];
}

def Graph_RnnOp : Graph_RecurrentOp<"rnn", (ins),
    (outs Graph_FloatTensor:$y, Graph_FloatTensor:$y_h)> {
  let summary = "simple recurrent layer, h = f(clip(x W^T + h R^T + b)) (composite)";
  let description = [{
    ONNX RNN over a static sequence, unrolled by `dlc-decompose`.
    ```mlir
    %y, %yh = dlc_graph.rnn %x, %w, %r, %b, %h0 {hidden_size = 4 : i64,
        direction = "forward", activations = ["Tanh"], activation_alpha = array<f64: 0.01>,
        activation_beta = array<f64: 0.0>}
        : tensor<3x2x5xf32>, tensor<1x4x5xf32>, tensor<1x4x4xf32>, tensor<1x8xf32>,
          tensor<1x2x4xf32> -> tensor<3x1x2x4xf32>, tensor<1x2x4xf32>
    ```
  }];
}

def Graph_GruOp : Graph_RecurrentOp<"gru", (ins UnitAttr:$linear_before_reset),
    (outs Graph_FloatTensor:$y, Graph_FloatTensor:$y_h)> {
  let summary = "gated recurrent unit layer (update, reset, candidate gates) (composite)";
  let description = [{
    ONNX GRU over a static sequence, unrolled by `dlc-decompose`; gates z, r, h in W, R
    and the biases.
  }];
}

def Graph_LstmOp : Graph_RecurrentOp<"lstm",
    (ins Graph_FloatTensor:$initial_c, Optional<Graph_FloatTensor>:$peepholes),
    (outs Graph_FloatTensor:$y, Graph_FloatTensor:$y_h, Graph_FloatTensor:$y_c),
    [{ `,` $initial_c (`peepholes` `(` $peepholes^ `:` type($peepholes) `)`)? }],
    [{ `,` type($initial_c) }]> {
  let summary = "long short-term memory layer (input, output, forget, cell gates) (composite)";
  let description = [{
    ONNX LSTM over a static sequence, unrolled by `dlc-decompose`; gates i, o, f, c in W, R
    and the biases; `peepholes` [dirs, 3*H] (i, o, f).
  }];
}

#endif // DLC_GRAPH_COMPOSITE_REGION_OPS_TD
