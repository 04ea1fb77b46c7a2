// dlc_graph quantization ops: quantize / dequantize (ONNX QuantizeLinear and
// DequantizeLinear on 8- and 16-bit integers) and the integer contraction they fold into.
#ifndef DLC_GRAPH_QUANTIZATION_OPS_TD
#define DLC_GRAPH_QUANTIZATION_OPS_TD

include "dialects/Graph/IR/GraphBase.td"

def Graph_QuantizeOp : Graph_Op<"quantize", [Pure]> {
  let summary = "float to integer: saturate(round_half_even(x / scale) + zero_point)";
  let description = [{
    ONNX QuantizeLinear to an 8- or 16-bit integer. The division and rounding are
    computed in the scale's float type. The scale (and the zero point, of the
    result's type, absent meaning 0) is per tensor (one element), per axis (1-D
    along `axis`) or blocked (`block_size` > 0: of the input's rank, element i
    along `axis` covering `block_size` input elements). `unsigned_output`: the result and
    the zero point hold ONNX unsigned values. The quantization passes fold
    quantize/dequantize pairs around contractions into integer ops; `dlc-decompose`
    expands the rest into float math.
    ```mlir
    %q = dlc_graph.quantize %x, %s, %z : tensor<4xi8> {axis = 0 : i64, block_size = 0 : i64, unsigned_output}
        : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xi8>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Optional<RankedTensorOf<[I8, I16]>>:$zero_point,
                       I64Attr:$axis, I64Attr:$block_size, UnitAttr:$unsigned_output);
  let results = (outs RankedTensorOf<[I8, I16]>:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^ `:` type($zero_point))? attr-dict `:` type($input) `,` type($scale) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Graph_DequantizeOp : Graph_Op<"dequantize", [Pure]> {
  let summary = "integer to float: (x - zero_point) * scale";
  let description = [{
    ONNX DequantizeLinear of an 8-, 16- or 32-bit integer: (x - zero_point) in f32
    times the scale, converted to the result's float type. Scale and zero point
    (of the input's type) as for `quantize`; `unsigned_input`: the input and the zero
    point hold ONNX unsigned values.
  }];
  let arguments = (ins RankedTensorOf<[I8, I16, I32]>:$input, Graph_FloatTensor:$scale,
                       Optional<RankedTensorOf<[I8, I16, I32]>>:$zero_point,
                       I64Attr:$axis, I64Attr:$block_size, UnitAttr:$unsigned_input);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $zero_point^ `:` type($zero_point))? attr-dict `:` type($input) `,` type($scale) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Graph_MatMulIntegerOp : Graph_Op<"matmul_integer", [Pure, InferTypeOpAdaptor]> {
  let summary = "8-bit integer matrix product accumulated exactly in i32";
  let description = [{
    [..., M, K] x [..., K, N] -> [..., M, N] as `matmul`, on 8-bit operands, each
    element widened to i32 before the product: zero-extended where the operand's
    `*_unsigned` flag is set (ONNX uint8), sign-extended otherwise. Zero points
    are not part of the op: the importer and the quantization passes express them
    as i32 corrections around it (dialects/Graph/IR/QuantizedMath.h), so that
    every backend kernel computes the same plain product (x86: VNNI `vpdpbusd`).
    ```mlir
    %y = dlc_graph.matmul_integer %a, %w {lhs_unsigned}
        : tensor<4x64xi8>, tensor<64x32xi8> -> tensor<4x32xi32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[I8]>:$lhs, RankedTensorOf<[I8]>:$rhs,
                       UnitAttr:$lhs_unsigned, UnitAttr:$rhs_unsigned);
  let results = (outs RankedTensorOf<[I32]>:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
}

def Graph_DequantMatMulOp : Graph_Op<"dequant_matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "float activations times weights kept as blocked integer codes";
  let description = [{
    y[..., n] = sum_k lhs[..., k] * (codes[n, k] - zero_point[n, k / B]) * scale[n, k / B]
    with B = `block_size`: a matmul whose weights ([N, K], transposed as ONNX Runtime's
    MatMulNBits stores them) stay integer codes with one scale (and zero point, absent
    meaning 0) per block of B along K, dequantized inside the kernel rather than folded into
    a float constant (weight-only quantization: int4 and int8 LLM weights, where a batch-1
    product is bound by the weight bytes). `codes_unsigned`: the codes and zero points hold
    ONNX unsigned values. Built by `dlc-quantize-contractions` from a matmul of a constant
    blocked (or per-row) dequantize; the linalg phase needs constant codes, scales and zero
    points.
    ```mlir
    %y = dlc_graph.dequant_matmul %a, %q, %s, %z {block_size = 32 : i64, codes_unsigned}
        : tensor<1x64xf32>, tensor<16x64xi8>, tensor<16x2xf32>, tensor<16x2xi8> -> tensor<1x16xf32>
    ```
  }];
  let arguments = (ins Graph_FloatTensor:$lhs, RankedTensorOf<[I8]>:$codes,
                       Graph_FloatTensor:$scale, Optional<RankedTensorOf<[I8]>>:$zero_point,
                       I64Attr:$block_size, UnitAttr:$codes_unsigned);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $lhs `,` $codes `,` $scale (`,` $zero_point^)? attr-dict `:` type($lhs) `,` type($codes) `,` type($scale) (`,` type($zero_point)^)? `->` type($output)
  }];
}

#endif // DLC_GRAPH_QUANTIZATION_OPS_TD
