// dlc_graph dialect definition and the base classes shared by its ops.
#ifndef DLC_GRAPH_BASE_TD
#define DLC_GRAPH_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "dialects/Graph/IR/ScalarComputation.td"

def Graph_Dialect : Dialect {
  let name = "dlc_graph";
  let summary = "Whole-graph tensor ops of the dlc compiler (ONNX-level semantics)";
  let description = [{
    `dlc_graph` holds a model as a graph of value-semantic ops on ranked,
    statically shaped tensors. Ops follow ONNX semantics (NumPy broadcasting,
    NCHW convolution and pooling) with attributes normalized at import:
    negative axes resolved, shapes that ONNX passes as tensors folded into
    attributes or result types. Every op infers its result type, so a
    verifier-valid graph is shape-correct by construction.

    Composite ops (gemm, softmax, layer_norm, ...) are expanded into
    primitive ops by `dlc-decompose` before lowering to linalg; the composite
    regions (attention, rnn, gru, lstm) stay whole through the graph phase of
    inference builds and are expanded at the start of the linalg phase.
  }];
  let cppNamespace = "::dlc::graph";
  // arith and math: the scalar bodies of elementwise ops, which their folders evaluate.
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect"];
  let hasConstantMaterializer = 1;
  // Attributes stay in the attribute dictionary so generic builders (the
  // importer, the C++ graph builder) can infer result types before creating.
  let usePropertiesForAttributes = 0;
}

class Graph_Op<string mnemonic, list<Trait> traits = []>
    : Op<Graph_Dialect, mnemonic, traits>;

// Tensors of any element type dlc supports.
def Graph_Tensor : RankedTensorOf<[AnyFloat, AnyInteger, Index]>;
def Graph_FloatTensor : RankedTensorOf<[AnyFloat]>;
def Graph_IntTensor : RankedTensorOf<[AnyInteger]>;
def Graph_BoolTensor : RankedTensorOf<[I1]>;

// Marker traits the layout pass (dlc-channels-last) reads instead of op names.
// Elementwise: every result element depends only on the operand elements at the
// same (broadcast) index. AxisReduction: reduces its `axes` attribute's dims,
// `keepdims` attribute as in Graph_ReduceOp.
def Graph_Elementwise : NativeOpTrait<"GraphElementwise"> { let cppNamespace = "::dlc::graph"; }
def Graph_AxisReduction : NativeOpTrait<"GraphAxisReduction"> { let cppNamespace = "::dlc::graph"; }

// An elementwise op computed by its ScalarComputation body (ScalarSemantics.cpp),
// folded on small constants by evaluating that body (foldElementwise).
class Graph_ScalarOp<string mnemonic, list<Trait> traits = []>
    : Graph_Op<mnemonic, traits # [Pure, Graph_Elementwise,
        DeclareOpInterfaceMethods<Graph_ScalarComputation>]> {
  let hasFolder = 1;
  code foldDefinition = [{
    ::mlir::OpFoldResult $cppClass::fold(FoldAdaptor adaptor) {
      return ::dlc::graph::foldElementwise(*this, adaptor.getOperands());
    }
  }];
  let extraClassDefinition = foldDefinition;
}

// x -> f(x), same type in and out.
class Graph_UnaryOp<string mnemonic, list<Trait> traits = []>
    : Graph_ScalarOp<mnemonic, traits # [SameOperandsAndResultType]> {
  let arguments = (ins Graph_Tensor:$input);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// x -> f(x) for floating-point x only (transcendental functions: on integers they
// have no scalar semantics, and ONNX types them float-only too).
class Graph_FloatUnaryOp<string mnemonic, list<Trait> traits = []>
    : Graph_ScalarOp<mnemonic, traits # [SameOperandsAndResultType]> {
  let arguments = (ins Graph_FloatTensor:$input);
  let results = (outs Graph_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
}

// (x, y) -> f(x, y) with NumPy broadcasting; the result element type is the
// operands' (which must match), or i1 when `isPredicate`.
class Graph_BinaryOp<string mnemonic, bit isPredicate = 0, list<Trait> traits = []>
    : Graph_ScalarOp<mnemonic, traits # [DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let arguments = (ins Graph_Tensor:$lhs, Graph_Tensor:$rhs);
  let results = (outs Graph_Tensor:$output);
  let assemblyFormat =
      "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)";
  let extraClassDefinition = foldDefinition # [{
    ::llvm::LogicalResult $cppClass::inferReturnTypes(
        ::mlir::MLIRContext *ctx, ::std::optional<::mlir::Location> loc,
        ::mlir::ValueRange operands, ::mlir::DictionaryAttr,
        ::mlir::OpaqueProperties, ::mlir::RegionRange,
        ::llvm::SmallVectorImpl<::mlir::Type> &results) {
      return ::dlc::graph::inferBroadcastResult(loc, operands,
          /*predicate=*/}] # !if(isPredicate, "true", "false") # [{, results);
    }
  }];
}

#endif // DLC_GRAPH_BASE_TD
