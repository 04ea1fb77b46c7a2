// ONNX ModelProto -> dlc_graph: model checks, graph inputs/initializers, node walk, outputs.
#include "frontends/Onnx/Importer.h"
#include "dialects/Graph/IR/DataType.h"
#include "dialects/Graph/IR/Names.h"
#include "dialects/Graph/IR/CheckedBuild.h"
#include "frontends/Onnx/UnsignedBuilders.h"
#include "frontends/Onnx/LowPrecision.h"
#include "frontends/Onnx/ModelFile.h"
#include "frontends/Onnx/NodeChecks.h"
#include "frontends/Onnx/InputShape.h"
#include "frontends/Onnx/NodeImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <set>

using namespace mlir;

namespace dlc::onnx_frontend {

/// The newest IR version and default-domain opset dlc accepts.
constexpr int64_t kMaxIrVersion = 20;
constexpr int kMaxOpset = 40;
/// The largest tensor (in elements) a model may declare.
constexpr int64_t kMaxElements = int64_t(1) << 40;

namespace {

/// A known input value as an attribute of the argument's type; null when the
/// value does not match the declared dtype and shape (the runtime reports that).
DenseElementsAttr valueAttr(const TensorValue &v, RankedTensorType type, int onnxType) {
  if (v.dtype != onnxType || ArrayRef<int64_t>(v.shape) != type.getShape())
    return {};
  Type elt = type.getElementType();
  size_t eltBytes = elt.isInteger(1) ? 1 : elt.getIntOrFloatBitWidth() / 8;
  if (v.bytes.size() != (size_t)type.getNumElements() * eltBytes)
    return {};
  if (elt.isInteger(1)) {
    SmallVector<bool> bits;
    for (char c : v.bytes)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(bits));
  }
  return DenseElementsAttr::getFromRawBuffer(type, ArrayRef<char>(v.bytes.data(), v.bytes.size()));
}

Location nodeLoc(MLIRContext *ctx, const std::string &name, const std::string &opType, int opset) {
  std::string what = opType + ", opset " + std::to_string(opset);
  return NameLoc::get(StringAttr::get(ctx, name), NameLoc::get(StringAttr::get(ctx, what)));
}

class GraphImporter {
public:
  GraphImporter(MLIRContext &ctx, const std::string &path, const ImportOptions &options)
      : ctx(ctx), path(path), options(options),
        fileLoc(FileLineColLoc::get(&ctx, path, 0, 0)) {
    SmallString<256> dir(path);
    llvm::sys::path::remove_filename(dir);
    baseDir = dir.empty() ? "." : std::string(dir);
  }

  FailureOr<OwningOpRef<ModuleOp>> run();

private:
  LogicalResult loadModel();
  FailureOr<RankedTensorType> inputType(const std::string &name, const onnx::TypeProto_Tensor &tt,
                                        std::vector<std::string> *symbols = nullptr);
  /// The dynamic dims (ImportOptions::dynamicDims) the inputs use.
  std::set<std::string> usedDynamicDims;
  /// Graph inputs -> function arguments (sequences flattened, absent optionals none).
  struct Argument {
    std::string name;
    int dtype;
    RankedTensorType type;
    /// Per dim: the symbol of a dynamic dim, "" for a static one (empty: all static).
    std::vector<std::string> dims = {};
  };
  struct InputBinding {
    std::string name;
    enum Kind { Tensor, Sequence, None } kind;
    unsigned first, count; // its arguments
  };
  LogicalResult collectInputs(const llvm::StringMap<const onnx::TensorProto *> &inits,
                              SmallVectorImpl<Argument> &args,
                              SmallVectorImpl<InputBinding> &bindings);
  /// Function results of graph output `vi` (a sequence's elements; none for an absent
  /// optional), appended with their names and ONNX dtypes.
  LogicalResult collectOutput(const onnx::ValueInfoProto &vi, SmallVectorImpl<Value> &outs,
                              SmallVectorImpl<std::pair<std::string, int>> &named);
  LogicalResult importNode(const onnx::NodeProto &node, size_t index);
  FailureOr<SmallVector<Value>> importSubgraph(const onnx::GraphProto &g, ArrayRef<Value> args,
                                               Location loc);
  int subgraphDepth = 0;
  /// Nesting of If branches imported for a condition known only at run time.
  int speculationDepth = 0;
  /// A malformed graph (dangling input, redefined name): stop instead of going on.
  bool structuralError = false;
  /// "parent/" while importing a subgraph of node `parent`.
  std::string scope;
  const OpBuilderEntry *lookupBuilder(const onnx::NodeProto &node, Location loc);
  /// The model's opset version of `domain` (the default domain's for "" and
  /// "ai.onnx"); 0 when the model does not import it.
  int domainVersion(const std::string &domain) const;
  Location locationOf(const onnx::NodeProto &node, size_t index);
  /// keepGoing: stands in for the outputs of a node that failed to import.
  void substituteFailedOutputs(const onnx::NodeProto &node, Block *entry);

  MLIRContext &ctx;
  const std::string &path;
  const ImportOptions &options;
  Location fileLoc;
  std::string baseDir;
  onnx::ModelProto model;
  int opset = 0;
  llvm::StringMap<Value> values;
  /// Values of ONNX unsigned integer types (stored as signless integers).
  llvm::DenseSet<Value> unsignedValues;
  /// Values of low-precision ONNX types held as i8 (float8, float4, int4, int2).
  llvm::DenseMap<Value, int> storedTypes;
  /// keepGoing: names whose producer failed and whose type the model does not declare.
  llvm::StringSet<> poisoned;
  /// Declared types of intermediate values (graph.value_info and outputs).
  llvm::StringMap<const onnx::ValueInfoProto *> declared;
  InputSpecializations specializations;
  std::unique_ptr<OpBuilder> builder;
};

LogicalResult GraphImporter::loadModel() {
  if (failed(loadModelProto(path, model, fileLoc)))
    return failure();
  if (!model.has_ir_version() || model.ir_version() < 1)
    return emitError(fileLoc) << "model has no ir_version";
  if (model.ir_version() > kMaxIrVersion)
    return emitError(fileLoc) << "ir_version " << model.ir_version()
                              << " is newer than dlc supports (up to " << kMaxIrVersion << ")";
  opset = defaultOpset(model);
  if (opset > kMaxOpset)
    return emitError(fileLoc) << "opset " << opset << " of the default domain is newer than dlc "
                              << "supports (up to " << kMaxOpset << ")";
  // Without a default-domain import only other domains' nodes can appear (each
  // then reports its domain as unsupported).
  bool usesDefault = llvm::any_of(model.graph().node(), [](const onnx::NodeProto &n) {
    return n.domain().empty() || n.domain() == "ai.onnx";
  });
  if (opset == 0 && usesDefault)
    return emitError(fileLoc) << "model imports no version of the default ONNX domain";
  return success();
}

FailureOr<RankedTensorType> GraphImporter::inputType(const std::string &name,
                                                     const onnx::TypeProto_Tensor &tt,
                                                     std::vector<std::string> *symbols) {
  Type elt = elementTypeFor(&ctx, tt.elem_type());
  if (!elt)
    return emitError(fileLoc) << "input '" << name << "' has unsupported element type "
                              << tt.elem_type();
  auto given = inputShape(fileLoc, name, tt, options, symbols, usedDynamicDims);
  if (failed(given))
    return failure();
  SmallVector<int64_t> shape = *given;
  // Size checks take each dynamic dim at its largest.
  SmallVector<int64_t> largest(shape);
  for (auto [i, d] : llvm::enumerate(largest))
    if (ShapedType::isDynamic(d))
      d = options.dynamicDims.at((*symbols)[i]).second;
  int64_t count = 1;
  for (int64_t d : largest) {
    if (d > kMaxElements || (d && count > kMaxElements / d))
      return emitError(fileLoc) << "input '" << name
                                << "' has more elements than dlc supports (2^40)";
    count *= d;
  }
  // An input over the memory budget cannot be run, and builders may allocate in proportion
  // to its dims (a Hardmax along a dim of 10^9 built a 10 GB iota: a fuzz-onnx find).
  std::string what = "input '" + name + "'";
  if (failed(graph::checkTensorBytes(fileLoc, largest, elt, options.maxTensorBytes, what)))
    return failure();
  return RankedTensorType::get(shape, elt);
}

int GraphImporter::domainVersion(const std::string &domain) const {
  if (domain.empty() || domain == "ai.onnx")
    return opset;
  for (const auto &imp : model.opset_import())
    if (imp.domain() == domain)
      return imp.version();
  return 0;
}

Location GraphImporter::locationOf(const onnx::NodeProto &node, size_t index) {
  // Subgraph nodes are named under their parent: "if_node/relu".
  std::string name = scope + nodeDisplayName(node, index);
  // Nodes of other domains show that domain's version.
  return nodeLoc(&ctx, name, node.op_type(), domainVersion(node.domain()));
}

const OpBuilderEntry *GraphImporter::lookupBuilder(const onnx::NodeProto &node, Location loc) {
  bool isDefault = node.domain().empty() || node.domain() == "ai.onnx";
  if (!isDefault && domainVersion(node.domain()) <= 0) {
    emitError(loc) << "op domain '" << node.domain() << "' is not imported by the model";
    return nullptr;
  }
  const OpBuilderEntry *entry =
      findOpBuilder(node.domain(), node.op_type(), domainVersion(node.domain()));
  // Domains with (some) builders; ops of any other domain are all unsupported.
  static const char *kDomains[] = {"ai.onnx.preview.training", "ai.onnx.ml", "ai.onnx.preview",
                                   "com.microsoft"};
  if (!entry && (isDefault || llvm::is_contained(kDomains, node.domain())))
    emitError(loc) << "unsupported op";
  else if (!entry)
    emitError(loc) << "unsupported op domain '" << node.domain() << "'";
  return entry;
}

void GraphImporter::substituteFailedOutputs(const onnx::NodeProto &node, Block *entry) {
  for (const std::string &out : node.output()) {
    if (out.empty())
      continue;
    values.erase(out);
    auto it = declared.find(out);
    const onnx::TypeProto_Tensor *tt =
        it != declared.end() && it->second->type().has_tensor_type()
            ? &it->second->type().tensor_type()
            : nullptr;
    Type elt = tt ? elementTypeFor(&ctx, tt->elem_type()) : Type();
    bool isStatic = tt && tt->has_shape() && llvm::all_of(tt->shape().dim(), [](const auto &d) {
      return d.has_dim_value() && d.dim_value() >= 0;
    });
    if (!elt || !isStatic) {
      poisoned.insert(out);
      continue;
    }
    // A placeholder argument of the declared type (not a constant, so nothing
    // downstream folds through it); the module is discarded anyway.
    SmallVector<int64_t> shape;
    for (const auto &d : tt->shape().dim())
      shape.push_back(d.dim_value());
    values[out] = entry->addArgument(RankedTensorType::get(shape, elt), fileLoc);
  }
}

LogicalResult GraphImporter::importNode(const onnx::NodeProto &node, size_t index) {
  Location loc = locationOf(node, index);
  const OpBuilderEntry *entry = lookupBuilder(node, loc);
  if (!entry)
    return failure();
  bool isDefault = node.domain().empty() || node.domain() == "ai.onnx";
  if (failed(checkAttributes(node, loc)) || (isDefault && failed(checkSchema(node, opset, loc))))
    return failure();
  SmallVector<Value> inputs;
  for (const std::string &in : node.input()) {
    if (in.empty()) {
      inputs.push_back({});
      continue;
    }
    auto it = values.find(in);
    if (it == values.end()) {
      structuralError = true; // later errors would only be its echoes
      return emitError(loc) << "input '" << in
                            << "' is not produced by an earlier node, an initializer or a graph input";
    }
    inputs.push_back(it->second);
  }
  builder->setInsertionPointToEnd(builder->getBlock());
  // Sequences and absent optionals reach only the ops that take them.
  static const char *kSequenceOps[] = {
      "Identity", "If", "Loop", "SequenceInsert", "SequenceAt",
      "SequenceErase", "SequenceLength", "ConcatFromSequence", "SequenceMap", "Optional",
      "OptionalHasElement", "OptionalGetElement"};
  for (auto [i, v] : llvm::enumerate(inputs))
    if ((isSequence(v) || isNone(v)) && !llvm::is_contained(kSequenceOps, node.op_type()))
      return emitError(loc) << "input " << i << " ('" << node.input(i) << "') is "
                            << (isNone(v) ? "an optional without a value" : "a sequence")
                            << ", expected a tensor";
  // Dynamic dims and strings reach only the ops that take them (strings may pick a builder).
  if (failed(checkInputKinds(node, loc, inputs, entry)))
    return failure();
  // Low-precision tensors (float8, int4, ...) only go through casts, quantization and
  // data movement: other ops would compute on their raw codes.
  static const char *kLowPrecisionOps[] = {
      "Cast", "CastLike", "QuantizeLinear", "DequantizeLinear", "Identity", "Reshape", "Flatten",
      "Squeeze", "Unsqueeze", "Transpose", "Concat", "Split", "Slice", "Gather", "Expand", "Tile"};
  int firstStored = 0;
  for (auto [i, v] : llvm::enumerate(inputs)) {
    auto st = v ? storedTypes.find(v) : storedTypes.end();
    if (st == storedTypes.end())
      continue;
    if (i == 0)
      firstStored = st->second;
    if (!llvm::is_contained(kLowPrecisionOps, node.op_type()))
      return emitError(loc) << "tensors of ONNX type " << st->second
                            << " (float8/float4/int4/int2) are only supported by casts, "
                               "quantization and data movement";
  }
  bool firstUnsigned = !inputs.empty() && inputs[0] && unsignedValues.contains(inputs[0]);
  // Quantizers' results are unsigned when their zero point is (uint8 without one).
  auto zeroPointUnsigned = [&](int k) { // called before `inputs` moves below
    if (k >= node.input_size() || node.input(k).empty() || k >= (int)inputs.size() || !inputs[k])
      return llvm::none_of(node.attribute(), [](const onnx::AttributeProto &a) {
        return a.name() == "output_dtype" && a.i() && !isUnsignedOnnxType(a.i());
      });
    return unsignedValues.contains(inputs[k]);
  };
  std::optional<bool> quantizedUnsigned;
  if (node.op_type() == "QuantizeLinear")
    quantizedUnsigned = zeroPointUnsigned(2);
  else if (node.op_type() == "QLinearConv" || node.op_type() == "QLinearMatMul")
    quantizedUnsigned = zeroPointUnsigned(7);
  auto firstType = !inputs.empty() && inputs[0] ? dyn_cast<RankedTensorType>(inputs[0].getType())
                                                : RankedTensorType();
  Type firstElt = firstType ? firstType.getElementType() : Type();
  NodeImporter ni(node, domainVersion(node.domain()), *builder, loc, std::move(inputs), baseDir, unsignedValues,
                  &specializations, &storedTypes);
  ni.maxTensorBytes = options.maxTensorBytes;
  ni.speculationDepth = &speculationDepth;
  // Symbols come from --dims or from ops whose sizes the model computes (NonZero). Control
  // flow bodies are imported inline, into the function too.
  {
    auto func = builder->getBlock()->getParentOp()
                    ? dyn_cast<func::FuncOp>(builder->getBlock()->getParentOp())
                    : func::FuncOp();
    if (func && (!usedDynamicDims.empty() || func->hasAttr(dlc::graph::kDimRangesAttr)))
      ni.dynamicFunc = func;
  }
  ni.subgraph = [this, loc](const onnx::GraphProto &g, ArrayRef<Value> args) {
    return importSubgraph(g, args, loc);
  };
  SmallVector<Value> results;
  if (failed(buildNode(ni, *entry, results)))
    return failure();
  for (int i = 0; i < node.output_size(); ++i) {
    if (node.output(i).empty())
      continue;
    if (values.count(node.output(i))) {
      structuralError = true;
      return emitError(loc) << "output '" << node.output(i)
                            << "' is already defined (by an earlier node, an initializer or a "
                               "graph input)";
    }
    if (i >= (int)results.size() || !results[i])
      return emitError(loc) << "output " << i << " ('" << node.output(i) << "') is not supported";
    values[node.output(i)] = results[i];
    // Dynamic dims: a shape value whose every element is static becomes that constant.
    if (ni.dynamicFunc) {
      results[i] = ni.staticShapeValue(results[i]);
      values[node.output(i)] = results[i];
    }
    // Unsignedness follows Cast's target type, else the first input when the
    // element type is unchanged (reshapes, slices, elementwise math, ...).
    auto resultType = dyn_cast<RankedTensorType>(results[i].getType());
    if (!resultType)
      continue; // a sequence or none: its elements carry their own tracking
    Type elt = resultType.getElementType();
    // A Constant's or ConstantOfShape's follows its value tensor.
    bool isConstant = node.op_type() == "Constant" || node.op_type() == "ConstantOfShape";
    bool isUnsigned = quantizedUnsigned ? *quantizedUnsigned
                      : node.op_type() == "DynamicQuantizeLinear" ? i != 1
                      : node.op_type() == "Cast" || node.op_type() == "BitCast"
                          ? llvm::any_of(node.attribute(), [](const onnx::AttributeProto &a) {
                              return a.name() == "to" && isUnsignedOnnxType(a.i());
                            })
                      : isConstant ? llvm::any_of(node.attribute(),
                                                  [](const onnx::AttributeProto &a) {
                                                    return a.has_t() &&
                                                           isUnsignedOnnxType(a.t().data_type());
                                                  })
                                   : firstUnsigned && elt == firstElt;
    if (isUnsigned)
      unsignedValues.insert(results[i]);
    // Data movement keeps a low-precision type (casts and quantization mark their own).
    bool marksItself = node.op_type() == "Cast" || node.op_type() == "CastLike" ||
                       node.op_type() == "QuantizeLinear" || node.op_type() == "DequantizeLinear";
    if (firstStored && !marksItself && elt == firstElt)
      storedTypes[results[i]] = firstStored;
  }
  return success();
}

FailureOr<SmallVector<Value>> GraphImporter::importSubgraph(const onnx::GraphProto &g,
                                                            ArrayRef<Value> args, Location loc) {
  if (subgraphDepth >= 16)
    return emitError(loc) << "subgraphs nest deeper than 16 levels";
  if (g.input_size() != (int)args.size())
    return emitError(loc) << "subgraph '" << g.name() << "' takes " << g.input_size()
                          << " inputs, given " << args.size();
  // Subgraph names shadow outer ones only inside it.
  llvm::StringMap<Value> saved = values;
  std::string savedScope = scope;
  if (auto name = dyn_cast<NameLoc>(loc))
    scope = name.getName().str() + "/";
  llvm::scope_exit restore([&] {
    values = std::move(saved);
    scope = savedScope;
    --subgraphDepth;
  });
  ++subgraphDepth;
  for (auto [i, vi] : llvm::enumerate(g.input()))
    values[vi.name()] = args[i];
  for (const auto &t : g.initializer()) {
    auto attr = tensorToAttr(t, baseDir, loc, options.maxTensorBytes);
    if (failed(attr))
      return failure();
    values[t.name()] = arith::ConstantOp::create(*builder, loc, *attr);
  }
  for (int i = 0; i < g.node_size(); ++i)
    if (failed(importNode(g.node(i), i)))
      return failure();
  SmallVector<Value> results;
  for (const auto &vi : g.output()) {
    auto it = values.find(vi.name());
    if (it == values.end())
      return emitError(loc) << "subgraph output '" << vi.name() << "' is never produced";
    results.push_back(it->second);
  }
  return results;
}

LogicalResult
GraphImporter::collectInputs(const llvm::StringMap<const onnx::TensorProto *> &inits,
                             SmallVectorImpl<Argument> &args,
                             SmallVectorImpl<InputBinding> &bindings) {
  std::set<std::string> tensorNames, sequenceNames, optionalNames;
  for (const auto &vi : model.graph().input()) {
    if (inits.count(vi.name()))
      continue;
    const onnx::TypeProto *t = &vi.type();
    unsigned first = args.size();
    if (t->has_optional_type()) {
      optionalNames.insert(vi.name());
      if (options.absentInputs.count(vi.name())) {
        bindings.push_back({vi.name(), InputBinding::None, first, 0});
        continue;
      }
      t = &t->optional_type().elem_type();
    }
    if (t->has_sequence_type()) {
      if (!t->sequence_type().elem_type().has_tensor_type())
        return emitError(fileLoc) << "input '" << vi.name()
                                  << "' is a sequence of non-tensors (not supported)";
      sequenceNames.insert(vi.name());
      auto element = [&](int64_t i) { return graph::sequenceElementName(vi.name(), i); };
      int64_t length = 0;
      auto len = options.sequenceLengths.find(vi.name());
      if (len != options.sequenceLengths.end())
        length = len->second;
      else
        while (options.inputShapes.count(element(length)))
          ++length;
      if (len == options.sequenceLengths.end() && length == 0)
        return emitError(fileLoc) << "sequence input '" << vi.name()
                                  << "' needs its length: give the shape of each element ("
                                  << element(0) << ", " << element(1) << ", ...)";
      if (length < 0 || length > 65536)
        return emitError(fileLoc) << "sequence input '" << vi.name() << "' has length "
                                  << length << " (0 to 65536 supported)";
      const auto &tt = t->sequence_type().elem_type().tensor_type();
      for (int64_t i = 0; i < length; ++i) {
        std::vector<std::string> symbols;
        auto type = inputType(element(i), tt, &symbols);
        if (failed(type))
          return failure();
        args.push_back({element(i), tt.elem_type(), *type, symbols});
        tensorNames.insert(element(i));
      }
      bindings.push_back({vi.name(), InputBinding::Sequence, first, (unsigned)length});
      continue;
    }
    if (!t->has_tensor_type())
      return emitError(fileLoc) << "input '" << vi.name()
                                << "' is not a tensor, sequence or optional (not supported)";
    std::vector<std::string> symbols;
    auto type = inputType(vi.name(), t->tensor_type(), &symbols);
    if (failed(type))
      return failure();
    args.push_back({vi.name(), t->tensor_type().elem_type(), *type, symbols});
    tensorNames.insert(vi.name());
    bindings.push_back({vi.name(), InputBinding::Tensor, first, 1});
  }
  for (const auto &kv : options.inputShapes)
    if (!tensorNames.count(kv.first))
      return emitError(fileLoc) << "model has no input named '" << kv.first << "'";
  for (const auto &kv : options.dynamicDims)
    if (!usedDynamicDims.count(kv.first))
      return emitError(fileLoc) << "no input of the model has a symbolic dim named '"
                                << kv.first << "'";
  for (const auto &kv : options.sequenceLengths)
    if (!sequenceNames.count(kv.first))
      return emitError(fileLoc) << "model has no sequence input named '" << kv.first << "'";
  for (const std::string &name : options.absentInputs)
    if (!optionalNames.count(name))
      return emitError(fileLoc) << "model has no optional input named '" << name << "'";
  return success();
}

LogicalResult GraphImporter::collectOutput(const onnx::ValueInfoProto &vi,
                                           SmallVectorImpl<Value> &outs,
                                           SmallVectorImpl<std::pair<std::string, int>> &named) {
  auto it = values.find(vi.name());
  if (it == values.end())
    return emitError(fileLoc) << "graph output '" << vi.name() << "' is never produced";
  Value v = it->second;
  if (isNone(v))
    return success();
  // The declared element type, through optional and sequence wrappers.
  const onnx::TypeProto *t = &vi.type();
  if (t->has_optional_type())
    t = &t->optional_type().elem_type();
  bool declaredSequence = t->has_sequence_type();
  if (declaredSequence)
    t = &t->sequence_type().elem_type();
  int declared = t->has_tensor_type() ? t->tensor_type().elem_type() : 0;
  if (declaredSequence != isSequence(v) && (declared || declaredSequence))
    return emitError(fileLoc) << "graph output '" << vi.name() << "' is declared as a "
                              << (declaredSequence ? "sequence" : "tensor") << " but computes a "
                              << (isSequence(v) ? "sequence" : "tensor");
  SmallVector<Value> tensors;
  if (auto elements = sequenceElements(v))
    tensors = *elements;
  else
    tensors.push_back(v);
  for (auto [i, x] : llvm::enumerate(tensors)) {
    Type elt = tensorType(x).getElementType();
    if (declared && elementTypeFor(&ctx, declared) != elt)
      return emitError(fileLoc) << "graph output '" << vi.name() << "' is declared with data type "
                                << declared << " but computes " << elt;
    int dtype = declared ? declared : onnxTypeFor(elt);
    if (!declared && storedTypes.count(x))
      dtype = storedTypes.lookup(x);
    else if (!declared && unsignedValues.contains(x)) // held signless: say which
      dtype = dtype == onnx::TensorProto::INT8    ? onnx::TensorProto::UINT8
              : dtype == onnx::TensorProto::INT16 ? onnx::TensorProto::UINT16
              : dtype == onnx::TensorProto::INT32 ? onnx::TensorProto::UINT32
              : dtype == onnx::TensorProto::INT64 ? onnx::TensorProto::UINT64
                                                  : dtype;
    outs.push_back(x);
    named.push_back({isSequence(v) ? graph::sequenceElementName(vi.name(), i) : vi.name(), dtype});
  }
  return success();
}

FailureOr<OwningOpRef<ModuleOp>> GraphImporter::run() {
  if (failed(loadModel()))
    return failure();
  const onnx::GraphProto &g = model.graph();
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  builder = std::make_unique<OpBuilder>(&ctx);
  builder->setInsertionPointToEnd(module->getBody());

  // Initializers become constants; graph inputs that share an initializer's
  // name are defaults, not runtime inputs.
  llvm::StringMap<const onnx::TensorProto *> inits;
  for (const auto &t : g.initializer())
    inits[t.name()] = &t;
  SmallVector<Argument> args;
  SmallVector<InputBinding> bindings;
  if (failed(collectInputs(inits, args, bindings)))
    return failure();
  if (g.output_size() == 0)
    return emitError(fileLoc) << "graph has no outputs";

  // Trainable initializers as trailing arguments (ImportOptions::initializersAsArguments).
  SmallVector<std::pair<unsigned, DenseElementsAttr>> paramArgs;
  llvm::StringSet<> paramNames;
  if (options.initializersAsArguments)
    for (const auto &t : g.initializer()) {
      if (!isFloatDtype(t.data_type()) || options.frozenInitializers.count(t.name()) || paramNames.contains(t.name()))
        continue;
      auto attr = tensorToAttr(t, baseDir, fileLoc, options.maxTensorBytes);
      if (failed(attr))
        return failure();
      auto dense = dyn_cast<DenseElementsAttr>(*attr);
      if (!dense)
        continue; // kept as a constant (e.g. a resource blob)
      paramNames.insert(t.name());
      paramArgs.push_back({(unsigned)args.size(), dense});
      args.push_back(Argument{t.name(), t.data_type(), cast<RankedTensorType>(dense.getType())});
    }
  if (options.initializersAsArguments)
    for (const std::string &name : options.frozenInitializers) {
      auto it = inits.find(name);
      if (it == inits.end() || !isFloatDtype(it->second->data_type()))
        return emitError(fileLoc) << "the model has no float initializer named '" << name
                                  << "' to freeze";
    }
  SmallVector<Type> argTypes;
  for (const Argument &a : args)
    argTypes.push_back(a.type);
  auto func = func::FuncOp::create(*builder, fileLoc, dlc::graph::kMainFunction,
                                   FunctionType::get(&ctx, argTypes, {}));
  Block *entry = func.addEntryBlock();
  builder->setInsertionPointToEnd(entry);
  if (!usedDynamicDims.empty()) {
    SmallVector<NamedAttribute> ranges;
    for (const std::string &sym : usedDynamicDims) {
      auto [lo, hi] = options.dynamicDims.at(sym);
      ranges.push_back(builder->getNamedAttr(sym, builder->getDenseI64ArrayAttr({lo, hi})));
    }
    func->setAttr(dlc::graph::kDimRangesAttr, builder->getDictionaryAttr(ranges));
  }
  for (auto [i, a] : llvm::enumerate(args)) {
    Value arg = entry->getArgument(i);
    if (isUnsignedOnnxType(a.dtype))
      unsignedValues.insert(arg);
    if (isStoredAsI8(a.dtype))
      storedTypes[arg] = a.dtype;
    func.setArgAttr(i, dlc::graph::kNameAttr, builder->getStringAttr(a.name));
    func.setArgAttr(i, dlc::graph::kDtypeAttr, builder->getI32IntegerAttr(a.dtype));
    if (!a.dims.empty())
      func.setArgAttr(i, dlc::graph::kDimsAttr,
                      builder->getStrArrayAttr(SmallVector<StringRef>(a.dims.begin(), a.dims.end())));
    auto given = options.inputValues.find(a.name);
    if (given != options.inputValues.end())
      if (auto attr = valueAttr(given->second, a.type, a.dtype))
        specializations.known[arg] = attr;
  }
  for (auto [index, value] : paramArgs) {
    func.setArgAttr(index, "dlc.param", builder->getUnitAttr());
    func.setArgAttr(index, "dlc.param_init", value);
    values[args[index].name] = entry->getArgument(index);
  }
  for (const InputBinding &bnd : bindings) {
    if (values.count(bnd.name))
      return emitError(fileLoc) << "input '" << bnd.name << "' is declared twice";
    ValueRange bound = entry->getArguments().slice(bnd.first, bnd.count);
    values[bnd.name] = bnd.kind == InputBinding::Tensor     ? bound[0]
                       : bnd.kind == InputBinding::Sequence ? makeSequence(*builder, fileLoc, bound)
                                                            : makeNone(*builder, fileLoc);
  }
  llvm::StringSet<> initNames;
  for (const auto &t : g.initializer()) {
    if (!initNames.insert(t.name()).second)
      return emitError(fileLoc) << "initializer '" << t.name() << "' is defined twice";
    if (paramNames.contains(t.name()))
      continue; // an argument
    if (t.data_type() == onnx::TensorProto::STRING) {
      auto strings = tensorToStrings(t, fileLoc);
      if (failed(strings))
        return failure();
      values[t.name()] = stringConstant(*builder, NameLoc::get(builder->getStringAttr(t.name())),
                                        strings->first, strings->second);
      continue;
    }
    auto attr = tensorToAttr(t, baseDir, fileLoc, options.maxTensorBytes);
    if (failed(attr))
      return failure();
    values[t.name()] = arith::ConstantOp::create(*builder, NameLoc::get(builder->getStringAttr(t.name())), *attr);
    if (isUnsignedOnnxType(t.data_type()))
      unsignedValues.insert(values[t.name()]);
    if (isStoredAsI8(t.data_type()))
      storedTypes[values[t.name()]] = t.data_type();
  }
  for (const auto &vi : g.value_info())
    declared[vi.name()] = &vi;
  for (const auto &vi : g.output())
    declared[vi.name()] = &vi;
  bool anyNodeFailed = false;
  for (int i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto &node = g.node(i);
    if (!options.keepGoing) {
      if (failed(importNode(node, i)))
        return failure();
      continue;
    }
    // Downstream of a failure with unknown types only op support can be checked.
    if (llvm::any_of(node.input(), [&](const std::string &in) { return poisoned.contains(in); })) {
      (void)lookupBuilder(node, locationOf(node, i));
      anyNodeFailed = true;
      for (const std::string &out : node.output())
        poisoned.insert(out);
      continue;
    }
    if (failed(importNode(node, i))) {
      if (structuralError)
        return failure();
      anyNodeFailed = true;
      substituteFailedOutputs(node, entry);
    }
  }
  if (anyNodeFailed)
    return failure();
  for (unsigned i = 0; i < args.size(); ++i)
    if (specializations.used.contains(entry->getArgument(i)))
      func.setArgAttr(i, dlc::graph::kValueAttr, specializations.known[entry->getArgument(i)]);

  SmallVector<Value> outs;
  SmallVector<std::pair<std::string, int>> named;
  llvm::StringSet<> outputNames;
  for (const auto &vi : g.output()) {
    if (!outputNames.insert(vi.name()).second)
      return emitError(fileLoc) << "graph output '" << vi.name() << "' is listed twice";
    if (failed(collectOutput(vi, outs, named)))
      return failure();
  }
  for (const std::string &name : options.extraOutputs) {
    if (!outputNames.insert(name).second)
      continue;
    onnx::ValueInfoProto vi;
    vi.set_name(name);
    if (failed(collectOutput(vi, outs, named)))
      return failure();
  }
  func::ReturnOp::create(*builder, fileLoc, outs);
  func.setFunctionType(FunctionType::get(&ctx, argTypes, ValueRange(outs).getTypes()));
  for (auto [i, nd] : llvm::enumerate(named)) {
    func.setResultAttr(i, dlc::graph::kNameAttr, builder->getStringAttr(nd.first));
    func.setResultAttr(i, dlc::graph::kDtypeAttr, builder->getI32IntegerAttr(nd.second));
  }
  // Sequence and none values are gone once flattened: erase their casts.
  SmallVector<UnrealizedConversionCastOp> casts;
  func.walk([&](UnrealizedConversionCastOp c) { casts.push_back(c); });
  for (auto c : llvm::reverse(casts))
    if (c->use_empty()) c->erase();
  return module;
}

} // namespace

FailureOr<OwningOpRef<ModuleOp>> importOnnxFile(MLIRContext &ctx, const std::string &path,
                                                const ImportOptions &options) {
  ctx.loadDialect<graph::GraphDialect, func::FuncDialect, arith::ArithDialect>();
  return GraphImporter(ctx, path, options).run();
}

FailureOr<CheckResult> checkOnnxFile(MLIRContext &ctx, const std::string &path,
                                     ImportOptions options) {
  options.keepGoing = true;
  CheckResult result;
  llvm::StringSet<> seen;
  bool fileError = false;
  {
    // Node-located errors become issues; anything else goes to the caller's handler.
    ScopedDiagnosticHandler handler(&ctx, [&](Diagnostic &d) -> LogicalResult {
      if (d.getSeverity() != DiagnosticSeverity::Error)
        return success();
      Location loc = d.getLocation();
      if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
        loc = fused.getLocations().front();
      auto name = dyn_cast<NameLoc>(loc);
      auto op = name ? dyn_cast<NameLoc>(name.getChildLoc()) : NameLoc();
      if (!op) {
        fileError = true;
        return failure(); // not handled here: propagate
      }
      if (seen.insert(name.getName().strref()).second)
        result.issues.push_back({name.getName().str(), op.getName().str(), d.str()});
      return success();
    });
    (void)importOnnxFile(ctx, path, options);
  }
  if (fileError)
    return failure();
  auto summary = summarizeOnnxFile(ctx, path);
  if (failed(summary))
    return failure();
  result.opset = summary->opset;
  result.numNodes = summary->numNodes;
  return result;
}

} // namespace dlc::onnx_frontend
