// The per-node view op builders use: inputs, typed attribute access, checked op creation.
#ifndef DLC_FRONTENDS_ONNX_NODEIMPORTER_H
#define DLC_FRONTENDS_ONNX_NODEIMPORTER_H

#include "dialects/Graph/IR/SymbolicShapes.h"
#include "dialects/Graph/IR/CheckedMath.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"

#include <onnx/onnx_pb.h>

#include <functional>

/// In op builders: return failure if a FailureOr/LogicalResult failed (the
/// diagnostic has already been emitted at the node). One statement, safe in an if/else.
#define DLC_TRY(x)                                                                             \
  do {                                                                                         \
    if (mlir::failed(x))                                                                       \
      return mlir::failure();                                                                  \
  } while (0)

namespace dlc::onnx_frontend {

/// ONNX TensorProto data type -> MLIR element type (null when unsupported).
mlir::Type elementTypeFor(mlir::MLIRContext *ctx, int onnxType);
/// MLIR element type -> ONNX data type (signed for integers; 0 when none).
int onnxTypeFor(mlir::Type elt);
/// Tensor proto -> dense constant. `baseDir` resolves external data; errors at `loc`.
/// `maxTensorBytes` (0: no limit) bounds external data, checked before it is read.
mlir::FailureOr<mlir::DenseElementsAttr> tensorToAttr(const onnx::TensorProto &t,
                                                      const std::string &baseDir,
                                                      mlir::Location loc,
                                                      uint64_t maxTensorBytes = 0);

/// A STRING tensor proto's shape (i128 elements) and elements; errors at `loc`.
mlir::FailureOr<std::pair<mlir::RankedTensorType, std::vector<std::string>>>
tensorToStrings(const onnx::TensorProto &t, mlir::Location loc);
/// Graph inputs whose value is known when compiling (the JIT's input files,
/// `dlc compile --input-value`). A builder that needs a constant operand (axes,
/// shapes, pads, ...) may take it from here; the input then becomes
/// value-specialized: it stays in the signature, and the runtime rejects runs
/// with a different value (see dlc_abi.h, descriptor `value` records).
struct InputSpecializations {
  llvm::DenseMap<mlir::Value, mlir::DenseElementsAttr> known;
  llvm::DenseSet<mlir::Value> used;
};

class NodeImporter {
public:
  NodeImporter(const onnx::NodeProto &node, int opset, mlir::OpBuilder &b, mlir::Location loc,
               llvm::SmallVector<mlir::Value> inputs, const std::string &baseDir,
               llvm::DenseSet<mlir::Value> &unsignedValues,
               InputSpecializations *specializations = nullptr,
               llvm::DenseMap<mlir::Value, int> *storedTypes = nullptr)
      : node(node), opset(opset), b(b), loc(loc), inputs(std::move(inputs)), baseDir(baseDir),
        unsignedValues(unsignedValues), specializations(specializations),
        storedTypes(storedTypes) {}

  /// Imports a subgraph (If/Loop/Scan bodies) with its inputs bound to `args`;
  /// outer-scope names stay visible. Set by the graph importer.
  std::function<mlir::FailureOr<llvm::SmallVector<mlir::Value>>(const onnx::GraphProto &,
                                                                 llvm::ArrayRef<mlir::Value>)>
      subgraph;

  /// Greater than 0 while importing the branches of an If whose condition is known only
  /// at run time: both branches run, so a run-time check there could fail runs that take
  /// the other branch (checkAtRunTime adds none). Owned by the graph importer.
  int *speculationDepth = nullptr;
  bool speculative() const { return speculationDepth && *speculationDepth > 0; }

  /// The model function when it has dynamic dims (dlc compile --dims), else null: values
  /// computed from its shapes are then known symbolically (symbolicInts, symbolicDims).
  mlir::func::FuncOp dynamicFunc;
  /// Input i's elements as sizes (Shape of a dynamic tensor and arithmetic on it), when
  /// every element is known; constants included.
  std::optional<llvm::SmallVector<graph::SymbolicSize>> symbolicInts(unsigned i);
  /// As symbolicInts, but a Where on the way whose condition only the run decides takes
  /// its first branch: a run-time check then fails a run whose condition is false where
  /// the branches differ (ONNX's GQA head ratio, Where(hq != hkv and hq % hkv == 0,
  /// hq / hkv, 1), is hq / hkv in every run the model accepts).
  std::optional<llvm::SmallVector<graph::SymbolicSize>> assumingInts(unsigned i);
  /// The graph input (not given with --input-value) whose value, not only its shape, `v`
  /// is computed from (`throughShapes`: or its shape); "" when none.
  std::string valueSource(mlir::Value v, bool throughShapes = false);
  /// The symbolic shapes of the function being imported, with the values of the graph
  /// inputs given with --input-value.
  graph::SymbolicShapes shapes();
  /// The sizes of `v`'s dims, when known.
  std::optional<llvm::SmallVector<graph::SymbolicSize>> symbolicDims(mlir::Value v);
  /// The same for any tensor: its static sizes as constants, or its symbolic ones.
  std::optional<llvm::SmallVector<graph::SymbolicSize>> sizesOf(mlir::Value v);
  /// `v` broadcast (NumPy rules) to `target`'s sizes, static or symbolic: a dlc_graph.expand
  /// that gives its dynamic dims' sizes (`dims`), or `v` itself when nothing changes.
  mlir::FailureOr<mlir::Value> expandTo(mlir::Value v, llvm::ArrayRef<graph::SymbolicSize> target);
  /// `v` reshaped to `sizes` (static or symbolic; a dlc_graph.reshape that gives its
  /// dynamic dims' sizes), or `v` itself when nothing changes.
  mlir::FailureOr<mlir::Value> reshapeTo(mlir::Value v, llvm::ArrayRef<graph::SymbolicSize> sizes);
  /// The size of `v`'s dim `d` as a 0-d i64 tensor: a constant, or read when the model runs.
  mlir::FailureOr<mlir::Value> dimSize(mlir::Value v, int64_t d);
  /// The value of `size`, a size of the symbolic dims, as a 0-d i64 tensor computed when the
  /// model runs from the inputs' dims (derived sizes from their parts).
  mlir::FailureOr<mlir::Value> sizeValue(const graph::SymbolicSize &size);
  /// 0, 1, ..., len-1 (i64) for a size of the symbolic dims: a constant as long as its
  /// greatest value, sliced when the model runs.
  mlir::FailureOr<mlir::Value> iota(const graph::SymbolicSize &len);
  /// `v`'s element count as a 0-d tensor of `elt`: a constant, or read when the model runs.
  mlir::FailureOr<mlir::Value> elementCount(mlir::Value v, mlir::Type elt);
  /// `v`, a value computed from shapes, as a constant when every element is static (the
  /// 64 of [batch, seq, 64]), so what reads it folds; else `v`.
  mlir::Value staticShapeValue(mlir::Value v);
  /// Whether the builder of `opType` handles inputs with dynamic dims.
  static bool acceptsDynamicDims(llvm::StringRef opType);

  const onnx::NodeProto &node;
  const int opset;
  mlir::OpBuilder &b;
  const mlir::Location loc;

  /// Input i, or null when absent or given as "" (an omitted optional input).
  mlir::Value input(unsigned i) const { return i < inputs.size() ? inputs[i] : mlir::Value(); }
  unsigned numInputs() const { return inputs.size(); }
  /// Whether input i holds an ONNX unsigned integer type (dlc integers are signless).
  bool isUnsigned(unsigned i) const { return input(i) && unsignedValues.contains(input(i)); }
  /// Records that `v` (a result this builder made) holds an ONNX unsigned type.
  void markUnsigned(mlir::Value v) { unsignedValues.insert(v); }
  /// The ONNX type of input i when it is a low-precision type held as i8
  /// (float8, float4, int4, ...), else 0.
  int storedType(unsigned i) const {
    if (!storedTypes || !input(i))
      return 0;
    auto it = storedTypes->find(input(i));
    return it == storedTypes->end() ? 0 : it->second;
  }
  void markStored(mlir::Value v, int onnxType) {
    if (storedTypes)
      (*storedTypes)[v] = onnxType;
  }
  mlir::FailureOr<mlir::Value> requiredInput(unsigned i);
  /// The type of input i (required), a tensor of rank >= `minRank`; else an error
  /// naming it `what` ("input X must have rank >= 3 ..., got rank 1").
  mlir::FailureOr<mlir::RankedTensorType> requireRank(unsigned i, int64_t minRank,
                                                      llvm::StringRef what);
  /// The product of `dims` (an element count, a flattened dim); an error naming
  /// `what` when it overflows int64 (dims of a tensor with a zero dim may).
  mlir::FailureOr<int64_t> product(llvm::ArrayRef<int64_t> dims, llvm::StringRef what);
  /// The same node with other input values (the unsigned-integer rewrites).
  NodeImporter withInputs(llvm::SmallVector<mlir::Value> newInputs) const {
    NodeImporter copy(*this);
    copy.inputs = std::move(newInputs);
    return copy;
  }
  /// Number of outputs the model actually uses (trailing "" outputs dropped).
  unsigned numUsedOutputs() const;

  mlir::LogicalResult error(const llvm::Twine &msg) const;
  /// A number for an error message ("%g": 1e+12, nan, inf).
  static std::string num(double v);

  /// The largest tensor any node may produce (ImportOptions::maxTensorBytes; 0: no
  /// limit). Every created op's results are checked; a builder that allocates in
  /// proportion to a result before creating it calls checkShape first.
  uint64_t maxTensorBytes = 0;
  mlir::LogicalResult checkShape(llvm::ArrayRef<int64_t> shape, mlir::Type elt,
                                 llvm::StringRef what = "the result") const;

  /// Attribute accessors: absent -> default; present with the wrong type -> error.
  mlir::FailureOr<int64_t> intAttr(llvm::StringRef name, int64_t dflt);
  mlir::FailureOr<float> floatAttr(llvm::StringRef name, float dflt);
  mlir::FailureOr<std::string> stringAttr(llvm::StringRef name, llvm::StringRef dflt);
  mlir::FailureOr<llvm::SmallVector<int64_t>> intsAttr(llvm::StringRef name,
                                                       llvm::ArrayRef<int64_t> dflt = {});
  bool hasAttr(llvm::StringRef name) const;
  /// The GRAPH attribute `name` (If branches, loop bodies, modifier graphs), or null.
  const onnx::GraphProto *graphAttr(llvm::StringRef name) const {
    const onnx::AttributeProto *a = findAttr(name);
    return a && a->has_g() ? &a->g() : nullptr;
  }
  const onnx::AttributeProto *findAttr(llvm::StringRef name) const;

  /// Values of a constant integer input (error if not a compile-time constant).
  mlir::FailureOr<llvm::SmallVector<int64_t>> constantInts(unsigned i);
  mlir::FailureOr<mlir::DenseElementsAttr> constantInput(unsigned i);
  /// The value of input i when known at compile time, else null (no diagnostic).
  mlir::DenseElementsAttr knownInput(unsigned i);
  /// Attribute values of a TensorProto attribute (Constant's `value`).
  mlir::FailureOr<mlir::DenseElementsAttr> tensorAttr(const onnx::TensorProto &t) {
    return tensorToAttr(t, baseDir, loc, maxTensorBytes);
  }

  /// Normalizes a possibly negative axis against `rank`.
  mlir::FailureOr<int64_t> normalizeAxis(int64_t axis, int64_t rank);
  /// normalizeAxis for an axis whose dim is then read: a scalar input is an error
  /// (normalizeAxis takes axis 0 of rank 0; Split, TopK, Scan and SplitToSequence of
  /// a scalar read a dim that does not exist: fuzz-onnx finds).
  mlir::FailureOr<int64_t> dimAxis(int64_t axis, int64_t rank);

  /// Creates `OpTy` with result types inferred (or `resultTypes` when the op
  /// does not infer), verifies it and folds it; errors are reported at the
  /// node and never abort.
  template <typename OpTy>
  mlir::FailureOr<mlir::Value> create(mlir::ValueRange operands,
                                      llvm::ArrayRef<mlir::NamedAttribute> attrs = {},
                                      mlir::TypeRange resultTypes = {}) {
    auto r = createMulti(OpTy::getOperationName(), operands, attrs, resultTypes);
    if (mlir::failed(r))
      return mlir::failure();
    return (*r)[0];
  }
  mlir::FailureOr<llvm::SmallVector<mlir::Value>>
  createMulti(llvm::StringRef opName, mlir::ValueRange operands,
              llvm::ArrayRef<mlir::NamedAttribute> attrs, mlir::TypeRange resultTypes = {});

  mlir::Value constant(mlir::DenseElementsAttr value);
  /// A 0-d constant; integer types take `v` saturated to int64, then truncated.
  mlir::Value scalarConstant(mlir::Type elt, double v);
  /// A 0-d integer constant of `elt`, `v` truncated to its width (exact for int64).
  mlir::Value intConstant(mlir::Type elt, int64_t v);
  /// Reshape helper (no-op when the type already matches).
  mlir::FailureOr<mlir::Value> reshape(mlir::Value v, llvm::ArrayRef<int64_t> shape);

  mlir::NamedAttribute named(llvm::StringRef name, mlir::Attribute a) {
    return b.getNamedAttr(name, a);
  }

private:
  llvm::SmallVector<mlir::Value> inputs;
  const std::string &baseDir;
  llvm::DenseSet<mlir::Value> &unsignedValues;
  InputSpecializations *specializations;
  llvm::DenseMap<mlir::Value, int> *storedTypes;
};

/// ONNX TensorProto data types newer than the ONNX headers dlc builds with.
constexpr int kFloat8E4M3FN = 17, kFloat8E4M3FNUZ = 18, kFloat8E5M2 = 19, kFloat8E5M2FNUZ = 20,
              kUInt4 = 21, kInt4 = 22, kFloat4E2M1 = 23, kFloat8E8M0 = 24, kUInt2 = 25,
              kInt2 = 26;

/// Whether an ONNX TensorProto data type is an unsigned integer type.
inline bool isUnsignedOnnxType(int t) {
  return t == onnx::TensorProto::UINT8 || t == onnx::TensorProto::UINT16 ||
         t == onnx::TensorProto::UINT32 || t == onnx::TensorProto::UINT64;
}

mlir::RankedTensorType tensorType(mlir::Value v);

/// ONNX sequences (of static length) and absent optionals exist only while
/// importing: a sequence is a tuple-typed value, an `unrealized_conversion_cast`
/// of its element tensors; an absent optional is a none-typed cast of nothing.
/// Ops and control flow pass them around like tensors; graph inputs and outputs
/// flatten them (`x[0]`, `x[1]`, ...), and the dead casts are erased at the end.
mlir::Value makeSequence(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange elements);
/// The elements of a sequence value; nullopt when `v` is not a sequence.
std::optional<llvm::SmallVector<mlir::Value>> sequenceElements(mlir::Value v);
mlir::Value makeNone(mlir::OpBuilder &b, mlir::Location loc);
inline bool isNone(mlir::Value v) { return v && mlir::isa<mlir::NoneType>(v.getType()); }
inline bool isSequence(mlir::Value v) { return v && mlir::isa<mlir::TupleType>(v.getType()); }

/// Builds the dlc_graph ops of one ONNX node; appends one value per node output.
using OpBuilderFn = mlir::LogicalResult (*)(NodeImporter &, llvm::SmallVectorImpl<mlir::Value> &);

struct OpBuilderEntry {
  const char *opType;
  int minOpset; // the builder handles opsets [minOpset, current] of its domain
  OpBuilderFn build;
  /// ONNX operator-set domain ("" is the default domain ai.onnx).
  const char *domain = "";
};

/// Appends the reduction `opName` (a dlc_graph.reduce_* op) of `x` over sorted `axes`.
mlir::LogicalResult reduceOver(NodeImporter &n, llvm::StringRef opName, mlir::Value x,
                               llvm::ArrayRef<int64_t> axes, bool keepdims,
                               llvm::SmallVectorImpl<mlir::Value> &out);

/// The table of op builders, one array per op family, looked up by op type.
llvm::ArrayRef<OpBuilderEntry> elementwiseBuilders();
llvm::ArrayRef<OpBuilderEntry> activationBuilders();
llvm::ArrayRef<OpBuilderEntry> reductionBuilders();
llvm::ArrayRef<OpBuilderEntry> lossBuilders();
llvm::ArrayRef<OpBuilderEntry> sliceBuilders();
llvm::ArrayRef<OpBuilderEntry> attentionBuilders();
llvm::ArrayRef<OpBuilderEntry> linearAttentionBuilders();
llvm::ArrayRef<OpBuilderEntry> normalizationBuilders();
llvm::ArrayRef<OpBuilderEntry> layoutBuilders();
llvm::ArrayRef<OpBuilderEntry> rearrangeBuilders();
llvm::ArrayRef<OpBuilderEntry> resizeBuilders();
llvm::ArrayRef<OpBuilderEntry> convTransposeBuilders();
llvm::ArrayRef<OpBuilderEntry> signalBuilders();
llvm::ArrayRef<OpBuilderEntry> quantBuilders();
llvm::ArrayRef<OpBuilderEntry> einsumBuilders();
llvm::ArrayRef<OpBuilderEntry> controlFlowBuilders();
llvm::ArrayRef<OpBuilderEntry> recurrentBuilders();
llvm::ArrayRef<OpBuilderEntry> gridSampleBuilders();
llvm::ArrayRef<OpBuilderEntry> nnBuilders();
llvm::ArrayRef<OpBuilderEntry> shapeBuilders();
llvm::ArrayRef<OpBuilderEntry> rangeBuilders();
llvm::ArrayRef<OpBuilderEntry> dataDependentBuilders(); // NonZero, ...
llvm::ArrayRef<OpBuilderEntry> stringBuilders();        // StringConcat, RegexFullMatch, ...
llvm::ArrayRef<OpBuilderEntry> labelEncoderBuilders();  // ai.onnx.ml LabelEncoder
/// For a node with string inputs: its builder when strings need their own (Equal), an
/// entry without a builder when the op's own builder only moves them (Reshape, ...), or
/// null when the op does not take strings.
const OpBuilderEntry *stringBuilderFor(llvm::StringRef opType);
/// Inputs with dynamic dims reach only the ops whose builders size them, and string inputs
/// the ops stringBuilderFor names (which may replace `entry`); else an error naming the input.
mlir::LogicalResult checkInputKinds(const onnx::NodeProto &node, mlir::Location loc,
                                    llvm::ArrayRef<mlir::Value> inputs,
                                    const OpBuilderEntry *&entry);
/// A constant string tensor of `shape`'s shape (i128 elements).
mlir::Value stringConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::RankedTensorType shape,
                           llvm::ArrayRef<std::string> values);
/// A symbolic dim the model computes for a size of this node's first output (named after
/// it and `suffix`, "y.count"), at most `max`; `what` names the op in the error inside a
/// subgraph.
mlir::FailureOr<std::string> computedDim(NodeImporter &n, llvm::StringRef what, int64_t max,
                                         llvm::StringRef suffix = "count");
/// Compress of `data` along `axis` by a condition known only when the model runs.
mlir::LogicalResult compressWithRuntimeCondition(NodeImporter &n, mlir::Value data,
                                                 mlir::Value cond, int64_t axis,
                                                 llvm::SmallVectorImpl<mlir::Value> &out);
/// ONNX Conv of `x` by `w` (and `bias`, or null) with the node's attributes: static shapes,
/// dynamic image dims, or weights with dynamic dims (NNBuilders.cpp).
mlir::LogicalResult convOf(NodeImporter &n, mlir::Value x, mlir::Value w, mlir::Value bias,
                           llvm::SmallVectorImpl<mlir::Value> &out);
/// `x` sliced from `starts` for `sizes` (step 1; sizes of the symbolic dims).
mlir::FailureOr<mlir::Value> sliceTo(NodeImporter &n, mlir::Value x,
                                     llvm::ArrayRef<graph::SymbolicSize> starts,
                                     llvm::ArrayRef<graph::SymbolicSize> sizes);
/// The greatest value of `len` (by the --dims ranges), which must lie in [1, most]: the
/// steps of a loop unrolled over it. The error names `what` ("the sequence length").
mlir::FailureOr<int64_t> unrollSteps(NodeImporter &n, const graph::SymbolicSize &len,
                                     int64_t most, llvm::StringRef what);
/// `x` extended with zeros at the end of `axis` (of size `len`) to `size` elements.
mlir::FailureOr<mlir::Value> padAxisTo(NodeImporter &n, mlir::Value x, int64_t axis,
                                       const graph::SymbolicSize &len, int64_t size);
/// Pad of `x` in constant mode by amounts computed from dynamic shapes ([begins, ends],
/// sizes of the symbols, negative ones crop): a slice, then concats of filled blocks.
mlir::LogicalResult symbolicPad(NodeImporter &n, mlir::Value x,
                                llvm::ArrayRef<graph::SymbolicSize> pads, double value,
                                llvm::SmallVectorImpl<mlir::Value> &out);
llvm::ArrayRef<OpBuilderEntry> sequenceBuilders();
llvm::ArrayRef<OpBuilderEntry> trainingBuilders(); // ai.onnx.preview.training
llvm::ArrayRef<OpBuilderEntry> mlBuilders();       // ai.onnx.ml
llvm::ArrayRef<OpBuilderEntry> contribBuilders();  // com.microsoft (MatMulNBits)
/// The builder of `opType` in `domain` ("" or "ai.onnx": the default domain) at
/// that domain's opset version, or null.
const OpBuilderEntry *findOpBuilder(llvm::StringRef domain, llvm::StringRef opType, int opset);

} // namespace dlc::onnx_frontend

#endif
