// Node checks before a builder runs: ONNX schema (counts, attributes), attribute lists, and
// the input kinds each op takes (dynamic dims, strings).
#include "frontends/Onnx/NodeChecks.h"
#include "frontends/Onnx/NodeImporter.h"
#include "dialects/Graph/IR/DataType.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/defs/schema.h>

using namespace mlir;

namespace dlc::onnx_frontend {

/// Input/output counts and required attributes against ONNX's schema, where the
/// linked ONNX library knows this op at this opset.
LogicalResult checkSchema(const onnx::NodeProto &node, int opset, Location loc) {
  const auto &ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  auto known = ranges.find("");
  if (known == ranges.end() || opset > known->second.second)
    return success();
  const onnx::OpSchema *schema = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
  if (!schema)
    return success();
  int inputs = node.input_size(), outputs = node.output_size();
  if (inputs < schema->min_input() || inputs > schema->max_input())
    return emitError(loc) << "has " << inputs << " inputs, expected " << schema->min_input()
                          << (schema->max_input() == schema->min_input()
                                  ? std::string()
                                  : " to " + (schema->max_input() > 1000
                                                  ? std::string("any")
                                                  : std::to_string(schema->max_input())));
  if (outputs < schema->min_output() || outputs > schema->max_output())
    return emitError(loc) << "has " << outputs << " outputs, expected " << schema->min_output()
                          << (schema->max_output() == schema->min_output()
                                  ? std::string()
                                  : " to " + std::to_string(schema->max_output()));
  for (const auto &entry : schema->attributes()) {
    const std::string &name = entry.first;
    if (entry.second.required &&
        llvm::none_of(node.attribute(),
                      [&](const onnx::AttributeProto &a) { return a.name() == name; }))
      return emitError(loc) << "missing required attribute '" << name << "'";
  }
  // Attributes the op does not have, or of another type, are errors (as ONNX's checker
  // and ONNX Runtime have them), not silently ignored.
  const auto &attrs = schema->attributes();
  for (const onnx::AttributeProto &a : node.attribute()) {
    auto it = attrs.find(a.name());
    if (it == attrs.end())
      return emitError(loc) << "has no attribute '" << a.name() << "'";
    if (a.has_type() && a.type() != it->second.type)
      return emitError(loc) << "attribute '" << a.name() << "' must be "
                            << onnx::AttributeProto::AttributeType_Name(it->second.type)
                            << ", got " << onnx::AttributeProto::AttributeType_Name(a.type());
  }
  return success();
}

/// Each attribute name once; a reference to a function's attribute (ref_attr_name) only
/// inside a function body, which dlc inlines before import.
LogicalResult checkAttributes(const onnx::NodeProto &node, Location loc) {
  llvm::StringSet<> seen;
  for (const onnx::AttributeProto &a : node.attribute()) {
    if (!seen.insert(a.name()).second)
      return emitError(loc) << "attribute '" << a.name() << "' is given twice";
    if (!a.ref_attr_name().empty())
      return emitError(loc) << "attribute '" << a.name() << "' refers to a function attribute ('"
                            << a.ref_attr_name() << "') outside a function";
  }
  return success();
}

LogicalResult checkDynamicDimName(Location loc, StringRef input, size_t dim, StringRef symbol) {
  if (symbol.find_first_of("*+-/(), ") == StringRef::npos &&
      symbol.find_first_not_of("0123456789") != StringRef::npos)
    return success();
  return emitError(loc) << "input '" << input << "' dim " << dim << ": symbolic dim '" << symbol
                        << "' cannot stay dynamic: its name is a number or has one of "
                           "* + - / ( ) , or a space (rename it, or fix the shape with "
                           "--input-shape)";
}

bool NodeImporter::acceptsDynamicDims(StringRef opType) {
  static const char *kOps[] = {
      "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Relu", "LeakyRelu",
      "Sigmoid", "Tanh", "Exp", "Log", "Sqrt", "Reciprocal", "Neg", "Abs", "Erf", "Gelu",
      "HardSigmoid", "HardSwish", "Softplus", "Elu", "Selu", "Clip", "Where", "Equal",
      "Less", "Greater", "Not", "And", "Or", "Cast", "Identity", "Dropout", "MatMul", "Gemm",
      "Softmax", "LogSoftmax", "LayerNormalization", "BatchNormalization", "ReduceMean",
      "ReduceSum", "ReduceMax", "ReduceMin", "Transpose", "Reshape", "Flatten", "Conv",
      "MaxPool", "AveragePool", "LpPool", "GlobalAveragePool", "GlobalMaxPool", "Shape", "Gather",
      "Unsqueeze", "Squeeze", "Concat", "Mod", "Slice", "Split", "Expand", "Pad", "GatherElements", "GatherND",
      "NonZero", "Compress", "Unique", "NonMaxSuppression", "ImageDecoder",
      // String ops (elementwise over the inputs' dims).
      "StringConcat", "RegexFullMatch", "StringSplit", "StringNormalizer", "LabelEncoder",
      // Quantization: elementwise with a scale and zero point.
      "QuantizeLinear", "DequantizeLinear",
      // Elementwise: the result has the operands' (broadcast) dims.
      "Xor", "LessOrEqual", "GreaterOrEqual", "Floor", "Ceil", "Sin", "Cos", "Tan", "Asin",
      "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh", "Sign", "Round", "IsNaN",
      "IsInf", "BitwiseNot", "BitwiseAnd", "BitwiseOr", "BitwiseXor", "BitShift", "CastLike",
      "BitCast", "PRelu", "Celu", "Softsign", "Mish", "Swish", "ThresholdedRelu", "Shrink",
      // Reductions and normalizations over axes (the reduced dims' sizes are read).
      "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum",
      "ReduceLogSumExp", "ArgMax", "ArgMin", "RMSNormalization", "InstanceNormalization",
      "GroupNormalization",
      "MeanVarianceNormalization", "LpNormalization",
      // Losses (sizes read when the model runs).
      "NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss",
      // Attention (AttentionDynamic.cpp: head split, repeats, bands, scale).
      "Attention",
      // Masks and scans from positions when the model runs.
      "Trilu", "CumSum",
      // Resampling weights computed from the sizes when the model runs (ResizeDynamic.cpp).
      "Resize", "Upsample",
      // Sizes symbolic throughout (RearrangeBuilders.cpp, Hardmax, Size).
      "TopK", "OneHot", "EyeLike", "Tile", "DepthToSpace", "SpaceToDepth", "Hardmax", "Size",
      // Scatters: a loop over the updates, sized when the model runs.
      "ScatterElements", "Scatter", "ScatterND",
      // Built from ops that take dynamic dims (Einsum with symbolic sizes).
      "Einsum", "SwiGLU", "DynamicQuantizeLinear", "Momentum", "Adam", "Adagrad",
      "ConstantOfShape", "Binarizer", "OptionalGetElement",
      // Coordinates from the sizes when the model runs.
      "GridSample", "CenterCropPad", "CumProd",
      // Sequences: lists of tensors rearranged while importing (SequenceBuilders.cpp).
      "SequenceEmpty", "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase",
      "SequenceLength", "ConcatFromSequence", "SplitToSequence", "SequenceMap", "Optional",
      "OptionalHasElement",
      // Recurrences unrolled up to the sequence's greatest length, masked by the run's.
      "RNN", "GRU", "LSTM", "Scan",
      // Integer products over dynamic dims: an exact f64 MatMul of the shifted operands.
      "MatMulInteger", "QLinearMatMul",
      // Symbolic sizes throughout (LinearAttentionBuilder.cpp, AttentionBuilders.cpp).
      "LinearAttention", "RotaryEmbedding", "FlexAttention",
      // Index maps from sizes and lengths read when the model runs.
      "ReverseSequence", "ArrayFeatureExtractor", "LRN", "AffineGrid",
      "TensorScatter", "CausalConvWithState", "ConvTranspose",
      // Cos/sin matrices computed when the model runs (SignalBuilders.cpp).
      "DFT", "STFT",
      // Windows at every position of a dynamic row, masked past its end (MLBuilders.cpp).
      "TfIdfVectorizer",
      // A scatter-add sized when the model runs (LayoutBuilders.cpp).
      "Col2Im",
      // Path matrices over a dynamic batch (TreeEnsembleBuilder.cpp).
      "TreeEnsemble",
      // Elimination unrolled to the greatest size, an identity block past the run's.
      "Det",
      // Scatters into sizes of the symbols (LayoutBuilders.cpp).
      "MaxUnpool",
      // An exact f64 Conv of the centered operands, sized as Conv (QuantBuilders.cpp).
      "ConvInteger", "QLinearConv"};
  return llvm::is_contained(kOps, opType);
}

LogicalResult checkInputKinds(const onnx::NodeProto &node, Location loc, ArrayRef<Value> inputs,
                              const OpBuilderEntry *&entry) {
  // Dynamic dims (dlc compile --dims) reach only the ops whose builders size them.
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    if (t && !t.hasStaticShape() && !NodeImporter::acceptsDynamicDims(node.op_type()))
      return emitError(loc) << "input " << i << " ('" << node.input(i)
                            << "') has dynamic dims (--dims), which this op does not support yet "
                               "(give static shapes with --input-shape)";
  }
  // String tensors reach the string ops and the ops that only move elements.
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto t = v ? dyn_cast<RankedTensorType>(v.getType()) : RankedTensorType();
    if (!t || !dlc::graph::isStringElement(t.getElementType()))
      continue;
    const OpBuilderEntry *s = stringBuilderFor(node.op_type());
    if (!s)
      return emitError(loc) << "input " << i << " ('" << node.input(i)
                             << "') is a string tensor, which this op does not take (strings "
                                "reach the string ops, Equal and the ops that move elements)";
    if (s->build)
      entry = s;
    break;
  }
  return success();
}

} // namespace dlc::onnx_frontend
