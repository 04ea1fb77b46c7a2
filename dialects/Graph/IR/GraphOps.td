// dlc_graph ops: ONNX-level tensor ops with shape inference.
#ifndef DLC_GRAPH_OPS_TD
#define DLC_GRAPH_OPS_TD

include "dialects/Graph/IR/GraphBase.td"

//===----------------------------------------------------------------------===//
// Elementwise unary
//===----------------------------------------------------------------------===//

def Graph_NegOp : Graph_UnaryOp<"neg"> { let summary = "elementwise -x"; }
def Graph_AbsOp : Graph_UnaryOp<"abs"> { let summary = "elementwise |x|"; }
def Graph_ExpOp : Graph_FloatUnaryOp<"exp"> { let summary = "elementwise e^x"; }
def Graph_LogOp : Graph_FloatUnaryOp<"log"> { let summary = "elementwise natural log"; }
def Graph_SqrtOp : Graph_FloatUnaryOp<"sqrt"> { let summary = "elementwise square root"; }
def Graph_ReciprocalOp : Graph_UnaryOp<"reciprocal"> { let summary = "elementwise 1/x"; }
def Graph_TanhOp : Graph_FloatUnaryOp<"tanh"> { let summary = "elementwise tanh"; }
def Graph_SigmoidOp : Graph_FloatUnaryOp<"sigmoid"> { let summary = "elementwise 1/(1+e^-x)"; }
def Graph_ReluOp : Graph_UnaryOp<"relu"> { let summary = "elementwise max(x, 0)"; }
def Graph_ErfOp : Graph_FloatUnaryOp<"erf"> { let summary = "elementwise error function"; }
def Graph_FloorOp : Graph_UnaryOp<"floor"> { let summary = "elementwise floor"; }
def Graph_CeilOp : Graph_UnaryOp<"ceil"> { let summary = "elementwise ceil"; }
def Graph_SinOp : Graph_FloatUnaryOp<"sin"> { let summary = "elementwise sine"; }
def Graph_CosOp : Graph_FloatUnaryOp<"cos"> { let summary = "elementwise cosine"; }
def Graph_NotOp : Graph_UnaryOp<"not"> {
  let summary = "elementwise logical not of i1";
}
def Graph_TanOp : Graph_FloatUnaryOp<"tan"> { let summary = "elementwise tangent"; }
def Graph_AsinOp : Graph_FloatUnaryOp<"asin"> { let summary = "elementwise arcsine"; }
def Graph_AcosOp : Graph_FloatUnaryOp<"acos"> { let summary = "elementwise arccosine"; }
def Graph_AtanOp : Graph_FloatUnaryOp<"atan"> { let summary = "elementwise arctangent"; }
def Graph_SinhOp : Graph_FloatUnaryOp<"sinh"> { let summary = "elementwise hyperbolic sine"; }
def Graph_CoshOp : Graph_FloatUnaryOp<"cosh"> { let summary = "elementwise hyperbolic cosine"; }
def Graph_AsinhOp : Graph_FloatUnaryOp<"asinh"> { let summary = "elementwise inverse hyperbolic sine"; }
def Graph_AcoshOp : Graph_FloatUnaryOp<"acosh"> { let summary = "elementwise inverse hyperbolic cosine"; }
def Graph_AtanhOp : Graph_FloatUnaryOp<"atanh"> { let summary = "elementwise inverse hyperbolic tangent"; }
def Graph_SignOp : Graph_UnaryOp<"sign"> {
  let summary = "elementwise sign: -1, 0 or 1 (NaN stays NaN)";
}
def Graph_RoundOp : Graph_UnaryOp<"round"> { let summary = "elementwise round half to even"; }
def Graph_BitwiseNotOp : Graph_UnaryOp<"bitwise_not"> { let summary = "elementwise ~x of integers"; }

// Float classification: x -> i1.
class Graph_ClassifyOp<string mnemonic> : Graph_ScalarOp<mnemonic, [SameOperandsAndResultShape]> {
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Graph_IsNaNOp : Graph_ClassifyOp<"is_nan"> {
  let summary = "elementwise x != x";
  let arguments = (ins Graph_FloatTensor:$input);
}
def Graph_IsInfOp : Graph_ClassifyOp<"is_inf"> {
  let summary = "elementwise x == +inf (detect_positive) or x == -inf (detect_negative)";
  let arguments = (ins Graph_FloatTensor:$input, BoolAttr:$detect_positive, BoolAttr:$detect_negative);
}

def Graph_LeakyReluOp : Graph_UnaryOp<"leaky_relu"> {
  let summary = "elementwise x >= 0 ? x : alpha * x";
  let arguments = (ins Graph_Tensor:$input, F32Attr:$alpha);
}

def Graph_GeluOp : Graph_UnaryOp<"gelu"> {
  let summary = "Gaussian error linear unit (composite)";
  let description = [{
    `approximate` is "none" (x/2 * (1 + erf(x/sqrt 2))) or "tanh".
    Decomposed into primitive elementwise ops by `dlc-decompose`.
  }];
  let arguments = (ins Graph_Tensor:$input, StrAttr:$approximate);
  let hasVerifier = 1;
}

def Graph_BitcastOp : Graph_Op<"bitcast", [Pure, SameOperandsAndResultShape,
    DeclareOpInterfaceMethods<Graph_ScalarComputation>]> {
  let summary = "elementwise reinterpretation of the bits as another type of the same width";
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_CastOp : Graph_Op<"cast", [Pure, SameOperandsAndResultShape, Graph_Elementwise,
    DeclareOpInterfaceMethods<Graph_ScalarComputation>]> {
  let summary = "elementwise conversion to another element type";
  let description = [{
    Float to integer truncates toward zero; to i1 means `!= 0`. Integers are
    signless; `unsigned_input` says the source holds an ONNX unsigned type
    (zero-extended, converted to float as unsigned).
    ```mlir
    %1 = dlc_graph.cast %0 : tensor<4xf32> to tensor<4xi64>
    %2 = dlc_graph.cast %img {unsigned_input} : tensor<4xi8> to tensor<4xf32>
    ```
  }];
  let arguments = (ins Graph_Tensor:$input, UnitAttr:$unsigned_input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($output)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise binary and ternary (NumPy broadcasting)
//===----------------------------------------------------------------------===//

def Graph_AddOp : Graph_BinaryOp<"add"> {
  let summary = "elementwise x + y";
}
def Graph_SubOp : Graph_BinaryOp<"sub"> {
  let summary = "elementwise x - y";
}
def Graph_MulOp : Graph_BinaryOp<"mul"> {
  let summary = "elementwise x * y";
}
def Graph_DivOp : Graph_BinaryOp<"div"> {
  let summary = "elementwise x / y (integer division truncates)";
}
def Graph_PowOp : Graph_BinaryOp<"pow"> {
  let summary = "elementwise x ^ y";
}
def Graph_MaxOp : Graph_BinaryOp<"max"> {
  let summary = "elementwise maximum (NaN-propagating for floats)";
}
def Graph_MinOp : Graph_BinaryOp<"min"> {
  let summary = "elementwise minimum (NaN-propagating for floats)";
}
def Graph_ModOp : Graph_BinaryOp<"mod"> {
  let summary = "elementwise remainder with the sign of the divisor (Python %, ONNX Mod fmod=0)";
}
def Graph_FModOp : Graph_BinaryOp<"fmod"> {
  let summary = "elementwise remainder with the sign of the dividend (C fmod, ONNX Mod fmod=1)";
}
def Graph_AndOp : Graph_BinaryOp<"and"> {
  let summary = "elementwise logical and of i1";
}
def Graph_OrOp : Graph_BinaryOp<"or"> {
  let summary = "elementwise logical or of i1";
}
def Graph_XorOp : Graph_BinaryOp<"xor"> {
  let summary = "elementwise logical xor of i1";
}
def Graph_BitwiseAndOp : Graph_BinaryOp<"bitwise_and"> {
  let summary = "elementwise a & b of integers";
}
def Graph_BitwiseOrOp : Graph_BinaryOp<"bitwise_or"> {
  let summary = "elementwise a | b of integers";
}
def Graph_BitwiseXorOp : Graph_BinaryOp<"bitwise_xor"> {
  let summary = "elementwise a ^ b of integers";
}
def Graph_ShiftLeftOp : Graph_BinaryOp<"shift_left"> {
  let summary = "elementwise a << b (shifts of the bit width or more give 0)";
}
def Graph_ShiftRightOp : Graph_BinaryOp<"shift_right"> {
  let summary = "elementwise logical a >> b (unsigned integers; shifts out of range give 0)";
}
def Graph_ShiftRightArithOp : Graph_BinaryOp<"shift_right_arith"> {
  let summary = "elementwise arithmetic a >> b (signed integers; shifts out of range fill with the sign)";
}
def Graph_EqualOp : Graph_BinaryOp<"equal", 1> {
  let summary = "elementwise x == y, i1 result";
}
def Graph_LessOp : Graph_BinaryOp<"less", 1> {
  let summary = "elementwise x < y, i1 result";
}
def Graph_LessEqualOp : Graph_BinaryOp<"less_equal", 1> {
  let summary = "elementwise x <= y, i1 result";
}
def Graph_GreaterOp : Graph_BinaryOp<"greater", 1> {
  let summary = "elementwise x > y, i1 result";
}
def Graph_GreaterEqualOp : Graph_BinaryOp<"greater_equal", 1> {
  let summary = "elementwise x >= y, i1 result";
}

def Graph_WhereOp : Graph_Op<"where", [Pure, InferTypeOpAdaptor, Graph_Elementwise,
    DeclareOpInterfaceMethods<Graph_ScalarComputation>]> {
  let summary = "elementwise cond ? x : y with three-way broadcasting";
  let arguments = (ins Graph_BoolTensor:$condition, Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $condition `,` $lhs `,` $rhs attr-dict `:` type($condition) `,` type($lhs) `,`
    type($rhs) `->` type($output)
  }];
  let hasFolder = 1;
}

def Graph_ClipOp : Graph_Op<"clip", [Pure, InferTypeOpAdaptor]> {
  let summary = "elementwise min(max(x, lo), hi) (composite)";
  let description = [{
    `lo` and `hi` are one-element tensors (the importer supplies the element
    type's lowest/highest value for a missing bound). Decomposed by
    `dlc-decompose`.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$lo, Graph_Tensor:$hi);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $lo `,` $hi attr-dict `:` type($input) `,` type($lo) `,` type($hi) `->` type($output)
  }];
}

//===----------------------------------------------------------------------===//
// Contractions
//===----------------------------------------------------------------------===//

def Graph_MatMulOp : Graph_Op<"matmul", [Pure, InferTypeOpAdaptor]> {
  let summary = "batched matrix product with broadcast batch dimensions";
  let description = [{
    Both operands have rank >= 2: [..., M, K] x [..., K, N] -> [..., M, N],
    batch dimensions broadcast (ONNX MatMul with 1-D operands is expanded by
    the importer).
  }];
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
}

def Graph_GemmOp : Graph_Op<"gemm", [Pure, InferTypeOpAdaptor]> {
  let summary = "alpha * op(A) * op(B) + beta * C (composite)";
  let arguments = (ins Graph_Tensor:$a, Graph_Tensor:$b, Optional<Graph_Tensor>:$c,
                       F32Attr:$alpha, F32Attr:$beta, BoolAttr:$transA, BoolAttr:$transB);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^ `:` type($c))? attr-dict `:` type($a) `,` type($b) `->` type($output)
  }];
}

def Graph_ConvOp : Graph_Op<"conv", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D convolution, NCHW input, FCHW weight, groups";
  let description = [{
    `pads` is [top, left, bottom, right]. Output channel f of group g reads
    input channels [g*C/group, (g+1)*C/group).

    On 8-bit integers (what dlc-quantize-contractions makes of a quantized
    conv), each operand element is widened to i32 (zero-extended where
    `input_unsigned` / `weight_unsigned` is set), the products are summed
    exactly in i32 (the result type), the padding holds `pad_value` (the
    activations' zero point; absent: 0) and there is no bias; `group` is 1
    or the channel count (depthwise).
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight, Optional<Graph_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group,
                       UnitAttr:$input_unsigned, UnitAttr:$weight_unsigned,
                       OptionalAttr<I64Attr>:$pad_value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^ `:` type($bias))? attr-dict `:` type($input) `,` type($weight) `->` type($output)
  }];
}

def Graph_ConvNhwcOp : Graph_Op<"conv_nhwc", [Pure, InferTypeOpAdaptor]> {
  let summary = "2-D convolution, NHWC input, HWCF weight (channels-last form of conv)";
  let description = [{
    What `dlc-channels-last` turns a `conv` into: input [N, H, W, C], weight
    [KH, KW, C/group, F], output [N, OH, OW, F]. Only `group` 1 and depthwise
    (`group` = C = F) convs take this form, float or 8-bit integer.
    Attributes as for `conv`.
  }];
  let arguments = (ins Graph_Tensor:$input, Graph_Tensor:$weight, Optional<Graph_Tensor>:$bias,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, I64Attr:$group,
                       UnitAttr:$input_unsigned, UnitAttr:$weight_unsigned,
                       OptionalAttr<I64Attr>:$pad_value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^ `:` type($bias))? attr-dict `:` type($input) `,` type($weight) `->` type($output)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling and normalization
//===----------------------------------------------------------------------===//

class Graph_PoolOp<string mnemonic> : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_MaxPoolOp : Graph_PoolOp<"max_pool"> {
  let summary = "2-D max pooling over NCHW (NHWC with `channels_last`)";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                       UnitAttr:$channels_last);
}

def Graph_AveragePoolOp : Graph_PoolOp<"average_pool"> {
  let summary = "2-D average pooling over NCHW (NHWC with `channels_last`)";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$kernel,
                       DenseI64ArrayAttr:$strides, DenseI64ArrayAttr:$pads,
                       DenseI64ArrayAttr:$dilations, BoolAttr:$ceil_mode,
                       BoolAttr:$count_include_pad, UnitAttr:$channels_last);
}

def Graph_GlobalAveragePoolOp : Graph_PoolOp<"global_average_pool"> {
  let summary = "mean over all spatial dims, keeping them as 1 (composite)";
  let arguments = (ins Graph_Tensor:$input);
}

def Graph_BatchNormOp : Graph_Op<"batch_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "inference batch normalization over axis 1 (composite)";
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Graph_FloatTensor:$bias, Graph_FloatTensor:$mean,
                       Graph_FloatTensor:$variance, F32Attr:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $variance attr-dict `:` type($input) `,`
    type($scale) `,` type($bias) `,` type($mean) `,` type($variance) `->` type($output)
  }];
}

def Graph_LayerNormOp : Graph_Op<"layer_norm", [Pure, InferTypeOpAdaptor]> {
  let summary = "normalization over dims [axis, rank) with scale and bias (composite)";
  let arguments = (ins Graph_FloatTensor:$input, Graph_FloatTensor:$scale,
                       Optional<Graph_FloatTensor>:$bias, I64Attr:$axis, F32Attr:$epsilon);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = [{
    $input `,` $scale (`,` $bias^ `:` type($bias))? attr-dict `:` type($input) `,` type($scale) `->` type($output)
  }];
}

class Graph_SoftmaxLikeOp<string mnemonic> : Graph_Op<mnemonic,
    [Pure, SameOperandsAndResultType]> {
  let arguments = (ins Graph_FloatTensor:$input, I64Attr:$axis);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}
def Graph_SoftmaxOp : Graph_SoftmaxLikeOp<"softmax"> {
  let summary = "exp(x - max) / sum(exp(x - max)) along `axis` (composite)";
}
def Graph_LogSoftmaxOp : Graph_SoftmaxLikeOp<"log_softmax"> {
  let summary = "x - max - log(sum(exp(x - max))) along `axis` (composite)";
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class Graph_ReduceOp<string mnemonic> : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptor, Graph_AxisReduction]> {
  let description = [{
    Reduces the listed (non-negative, sorted, unique) `axes`; an empty list
    reduces nothing (the op is then an identity). `keepdims` keeps reduced
    dims as size 1.
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$axes, BoolAttr:$keepdims);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Graph_ReduceSumOp : Graph_ReduceOp<"reduce_sum"> { let summary = "sum over axes"; }
def Graph_ReduceMeanOp : Graph_ReduceOp<"reduce_mean"> { let summary = "mean over axes"; }
def Graph_ReduceMaxOp : Graph_ReduceOp<"reduce_max"> { let summary = "maximum over axes"; }
def Graph_ReduceMinOp : Graph_ReduceOp<"reduce_min"> { let summary = "minimum over axes"; }
def Graph_ReduceProdOp : Graph_ReduceOp<"reduce_prod"> { let summary = "product over axes"; }

class Graph_ArgReduceOp<string mnemonic> : Graph_Op<mnemonic, [Pure, InferTypeOpAdaptor]> {
  let description = [{
    The i64 index of the extreme value along `axis` (non-negative): the first
    one, or the last with `select_last_index`. `keepdims` keeps the axis as 1.
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis, BoolAttr:$keepdims,
                       BoolAttr:$select_last_index);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}
def Graph_ArgMaxOp : Graph_ArgReduceOp<"arg_max"> { let summary = "index of the maximum along an axis"; }
def Graph_ArgMinOp : Graph_ArgReduceOp<"arg_min"> { let summary = "index of the minimum along an axis"; }

//===----------------------------------------------------------------------===//
// Shape and data movement
//===----------------------------------------------------------------------===//

def Graph_ReshapeOp : Graph_Op<"reshape", [Pure]> {
  let summary = "same elements, new shape (also Flatten/Squeeze/Unsqueeze)";
  let description = [{
    ```mlir
    %1 = dlc_graph.reshape %0 : tensor<2x3xf32> -> tensor<6xf32>
    ```
    With dynamic dims (dlc compile --dims), `dims` may give every result dim's size as a
    size of the symbolic dims ("batch*seq", "(seq//2)"; "" for a static dim): a target
    computed from shapes whose dynamic dims do not follow from the input's by grouping
    alone. Counts that may differ (a -1 that is a floor quotient, static sizes for
    dynamic dims) are compared before each run (convert-graph-to-linalg lists them).
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<StrArrayAttr>:$dims);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let hasFolder = 1;
}

def Graph_TransposeOp : Graph_Op<"transpose", [Pure, InferTypeOpAdaptor]> {
  let summary = "permutes dims: output dim i is input dim perm[i]";
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Graph_ConcatOp : Graph_Op<"concat", [Pure, InferTypeOpAdaptor]> {
  let summary = "joins tensors along `axis`";
  let arguments = (ins Variadic<Graph_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $output)";
  let hasFolder = 1;
}

def Graph_SplitOp : Graph_Op<"split", [Pure, InferTypeOpAdaptor]> {
  let summary = "cuts a tensor along `axis` into pieces of the given sizes";
  let description = [{
    With a dynamic axis (dlc compile --dims), a piece may be dynamic: its entry of
    `sizes` is `?` and `dims` gives its size as text of the symbolic dims
    ("(seq+1)//2"; "" for a static piece). The sizes' sum against the axis is then
    checked when the model runs (the importer adds the check).
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis, DenseI64ArrayAttr:$sizes,
                       OptionalAttr<StrArrayAttr>:$dims);
  let results = (outs Variadic<Graph_Tensor>:$outputs);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($outputs)";
  let hasFolder = 1;
}

def Graph_SliceOp : Graph_Op<"slice", [Pure, InferTypeOpAdaptor]> {
  let summary = "strided slice with one (start, step) per dim";
  let description = [{
    Output dim d has the sizes of the result type; element i of dim d reads
    input index starts[d] + i * steps[d]. Steps are non-zero and may be
    negative. The importer normalizes ONNX starts/ends/axes/steps into this
    form; `sizes` gives the output shape.

    With dynamic dims (dlc compile --dims), a dynamic output dim has size `?` in
    `sizes` and `dims` gives its size as a size of the symbolic dims ("seq",
    "(seq-1)"; "" for a static dim); `start_dims` may give a start that depends on
    them ("(seq-2)" for x[-2:]; "" where `starts` holds it). The importer checks
    that such slices stay within their dims (at compile time from the ranges, or
    when the model runs).
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$sizes, DenseI64ArrayAttr:$steps,
                       OptionalAttr<StrArrayAttr>:$dims, OptionalAttr<StrArrayAttr>:$start_dims);
  let results = (outs Graph_Tensor:$output);
  let builders = [OpBuilder<(ins "::mlir::Value":$input, "::llvm::ArrayRef<int64_t>":$starts,
                                 "::llvm::ArrayRef<int64_t>":$sizes, "::llvm::ArrayRef<int64_t>":$steps), [{
    build($_builder, $_state, input, starts, sizes, steps, /*dims=*/ArrayAttr(),
          /*start_dims=*/ArrayAttr());
  }]>];
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

def Graph_GatherOp : Graph_Op<"gather", [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX Gather: takes entries of `data` along `axis` at `indices`";
  let description = [{
    Output shape is data.shape[:axis] + indices.shape + data.shape[axis+1:].
    Negative indices count from the end; out-of-range indices are clamped.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IntTensor:$indices, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices) `->` type($output)";
  let hasFolder = 1;
}

def Graph_GatherElementsOp : Graph_Op<"gather_elements", [Pure, InferTypeOpAdaptor]> {
  let summary = "ONNX GatherElements: output[i] = data[i with i[axis] = indices[i]]";
  let description = [{
    The output has the indices' shape and the data's element type; indices and
    data have the same rank. Negative indices count from the end; out-of-range
    indices are clamped.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IntTensor:$indices, I64Attr:$axis);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices) `->` type($output)";
}

def Graph_GatherNDOp : Graph_Op<"gather_nd", [Pure]> {
  let summary = "ONNX GatherND: slices of `data` addressed by index tuples (last dim of indices)";
  let description = [{
    The first `batch_dims` dims are shared; each tuple of indices[..., :] picks
    data[b..., tuple..., :]. Negative indices count from the end; out-of-range
    indices are clamped. The result type is given by the importer.
  }];
  let arguments = (ins Graph_Tensor:$data, Graph_IntTensor:$indices, I64Attr:$batch_dims);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$data `,` $indices attr-dict `:` type($data) `,` type($indices) `->` type($output)";
}

class Graph_ScatterOp<string mnemonic> : Graph_Op<mnemonic, [Pure]> {
  let arguments = (ins Graph_Tensor:$data, Graph_IntTensor:$indices, Graph_Tensor:$updates,
                       I64Attr:$axis, StrAttr:$reduction);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = [{
    $data `,` $indices `,` $updates attr-dict `:` type($data) `,` type($indices) `,`
    type($updates) `->` type($output)
  }];
  let hasVerifier = 1;
}
def Graph_ScatterElementsOp : Graph_ScatterOp<"scatter_elements"> {
  let summary = "ONNX ScatterElements: data with data[i with i[axis] = indices[i]] = updates[i]";
  let description = [{
    `reduction` is none (later writes win), add, mul, max or min. `axis` is
    non-negative. Negative indices count from the end; others are clamped.
  }];
}
def Graph_ScatterNDOp : Graph_ScatterOp<"scatter_nd"> {
  let summary = "ONNX ScatterND: data with the slices addressed by index tuples replaced by updates";
  let description = [{ `axis` is unused (0); `reduction` as for scatter_elements. }];
}

def Graph_ExpandOp : Graph_Op<"expand", [Pure,
    DeclareOpInterfaceMethods<Graph_ScalarComputation>]> {
  let summary = "broadcasts the input to the result shape (NumPy rules)";
  let description = [{
    With dynamic dims (dlc compile --dims), `dims` may give every result dim's size as a
    monomial of the symbolic dims ("batch"; "" for a static dim), for dynamic result dims
    that the input does not have (a gradient broadcast back to its operand's shape).
  }];
  let arguments = (ins Graph_Tensor:$input, OptionalAttr<StrArrayAttr>:$dims);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_PadOp : Graph_Op<"pad", [Pure, InferTypeOpAdaptor]> {
  let summary = "pads each dim with `pads` = [begin_0.., end_0..]";
  let description = [{
    `mode` is "constant" (fills `value`), "reflect" or "edge". Negative pads
    crop.
  }];
  let arguments = (ins Graph_Tensor:$input, DenseI64ArrayAttr:$pads, StrAttr:$mode,
                       F64Attr:$value);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
}

def Graph_NonZeroOp : Graph_Op<"nonzero", [Pure]> {
  let summary = "ONNX NonZero: the coordinates of the non-zero elements, [rank, count]";
  let description = [{
    Column j holds the coordinates of the j-th non-zero element in row-major
    order (a 0-d input counts as one element of a 1-D tensor: one row). NaN is
    non-zero. The count is known only when the model runs: the result is
    `tensor<R x ? x i64>`, and `count` names the symbolic dim the model computes
    (declared in the function's `dlc.dim_ranges` and `dlc.computed_dims`, range
    [0, number of elements]).
  }];
  let arguments = (ins Graph_Tensor:$input, StrAttr:$count);
  let results = (outs Graph_IntTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_UniqueOp : Graph_Op<"unique", [Pure]> {
  let summary = "ONNX Unique along an axis: the distinct slices, where each first occurs, "
                "each slice's unique, and their counts";
  let description = [{
    The slices of `input` along `axis` that differ (elementwise equality; NaN
    equals NaN), in ascending lexicographic order when `sorted`, else in order
    of first occurrence. `output` is the input with the axis's size replaced by
    their number, the symbolic dim `count` the model computes (declared in the
    function's `dlc.dim_ranges` and `dlc.computed_dims`); `indices` [count]:
    where each first occurs; `inverse` [axis size]: each slice's unique;
    `counts` [count]: how often each occurs. The importer flattens the input
    for ONNX's Unique without an axis.
  }];
  let arguments = (ins Graph_Tensor:$input, I64Attr:$axis, BoolAttr:$sorted, StrAttr:$count);
  let results = (outs Graph_Tensor:$output, Graph_IntTensor:$indices, Graph_IntTensor:$inverse,
                      Graph_IntTensor:$counts);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type(results)";
  let hasVerifier = 1;
}

def Graph_NonMaxSuppressionOp : Graph_Op<"non_max_suppression", [Pure]> {
  let summary = "ONNX NonMaxSuppression: greedy selection of boxes per batch and class";
  let description = [{
    `boxes` [B, N, 4] (corners in any order, or center and size with
    `center_point_box`), `scores` [B, C, N]; `max_output` (0-d i64, clamped to
    [0, N]), `iou_threshold` and `score_threshold` (0-d f32, the latter used
    only with `has_score_threshold`) are read when the model runs. For each
    batch and class, boxes are taken by descending score (ties: lower index)
    while fewer than `max_output` are selected; one whose IoU with a selected
    box exceeds the threshold is dropped. The result lists (batch, class, box)
    of each selected box, in that order: [count, 3], `count` the symbolic dim
    the model computes (declared in `dlc.dim_ranges` and `dlc.computed_dims`).
  }];
  let arguments = (ins Graph_FloatTensor:$boxes, Graph_FloatTensor:$scores,
                       Graph_IntTensor:$max_output, Graph_FloatTensor:$iou_threshold,
                       Graph_FloatTensor:$score_threshold, BoolAttr:$center_point_box,
                       BoolAttr:$has_score_threshold, StrAttr:$count);
  let results = (outs Graph_IntTensor:$selected);
  let assemblyFormat = "$boxes `,` $scores `,` $max_output `,` $iou_threshold `,` $score_threshold attr-dict `:` type(operands) `->` type($selected)";
  let hasVerifier = 1;
}

def Graph_StringConstantOp : Graph_Op<"string_constant", [Pure]> {
  let summary = "a constant tensor of strings (i128 elements: pointer and size)";
  let description = [{
    `values` holds the elements in row-major order (any bytes; UTF-8 by ONNX);
    the result's element type is i128, how dlc holds a string (DataType.h).
  }];
  let arguments = (ins StrArrayAttr:$values);
  let results = (outs Graph_IntTensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

def Graph_StringCallOp : Graph_Op<"string_call", [Pure]> {
  let summary = "elementwise call of a runtime string function (dlc_rt_string_concat, ...)";
  let description = [{
    For each element, calls `callee` (a runtime function of dlc_runtime.h) with
    the operands' elements (all of the result's shape), then `literal` when
    given (a compile-time string, e.g. a regex pattern). Strings are i128;
    an i1 result takes the function's int32 result != 0.
  }];
  let arguments = (ins Variadic<Graph_Tensor>:$operands, StrAttr:$callee,
                       OptionalAttr<StrAttr>:$literal);
  let results = (outs Graph_IntTensor:$output);
  let assemblyFormat = "$operands attr-dict `:` type($operands) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_StringSplitOp : Graph_Op<"string_split", [Pure]> {
  let summary = "ONNX StringSplit: each string's parts, padded with empty strings";
  let description = [{
    Python's `s.split(delimiter or None, maxsplit)` of each element (an empty
    `delimiter`: runs of whitespace; `maxsplit` < 0: no limit). `parts` has the
    input's shape plus a last dim `count`, the most parts of any element, which
    the model computes (`dlc.dim_ranges`, `dlc.computed_dims`); `counts`, the
    input's shape, holds each element's number of parts.
  }];
  let arguments = (ins Graph_IntTensor:$input, StrAttr:$delimiter, I64Attr:$maxsplit,
                       StrAttr:$count);
  let results = (outs Graph_IntTensor:$parts, Graph_IntTensor:$counts);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type(results)";
  let hasVerifier = 1;
}

def Graph_ImageDecodeOp : Graph_Op<"image_decode", [Pure]> {
  let summary = "ONNX ImageDecoder: an encoded image (1-D bytes) to [height, width, channels]";
  let description = [{
    Decodes JPEG, PNG, WebP, TIFF, JPEG 2000, BMP or binary PNM bytes with the
    runtime's decoders into 8-bit pixels: `pixel_format` 0 RGB, 1 BGR, 2
    grayscale (one channel). The height and width are the symbolic dims
    `height` and `width`, which the model computes (`dlc.computed_dims`, no
    bound). Bytes that are no image fail the run, naming `node`.
  }];
  let arguments = (ins Graph_IntTensor:$input, I64Attr:$pixel_format, StrAttr:$height,
                       StrAttr:$width, StrAttr:$node);
  let results = (outs Graph_IntTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Graph_ShapeOp : Graph_Op<"shape", [Pure, InferTypeOpAdaptor]> {
  let summary = "the shape of a tensor as a 1-D i64 tensor (folds to a constant)";
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_IntTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasFolder = 1;
}

def Graph_IdentityOp : Graph_Op<"identity", [Pure, SameOperandsAndResultType]> {
  let summary = "returns its input (ONNX Identity, inference Dropout); folds away";
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasFolder = 1;
}

def Graph_RuntimeCheckOp : Graph_Op<"runtime_check", [MemoryEffects<[MemWrite]>]> {
  let summary = "fails the run with `message` when `flag` is non-zero";
  let description = [{
    A condition only the run can decide, e.g. that every index a Gather reads
    is in range (ONNX makes any other an error; the indexing ops clamp, so the
    run itself stays in bounds). `flag` is a 0-d integer tensor, non-zero when
    the check failed. The module's entry then returns the check's code and the
    runtime reports `message` (which names the node) as the run's error; the
    outputs are undefined. A check whose flag folds to zero is erased; the op
    has a write effect so that nothing else removes or reorders it.
    ```mlir
    dlc_graph.runtime_check %bad {message = "node 'g' (Gather): ..."} : tensor<i32>
    ```
  }];
  let arguments = (ins RankedTensorOf<[AnyInteger]>:$flag, StrAttr:$message);
  let assemblyFormat = "$flag attr-dict `:` type($flag)";
  let hasCanonicalizeMethod = 1;
  let hasVerifier = 1;
}

include "dialects/Graph/IR/CompositeRegionOps.td"
include "dialects/Graph/IR/QuantizationOps.td"

#endif // DLC_GRAPH_OPS_TD
