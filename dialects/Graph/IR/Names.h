// The names the frontends, the graph passes and codegen agree on: the model function, its
// argument and result attributes, sequence elements, and a training step's module attribute.
#ifndef DLC_DIALECTS_GRAPH_IR_NAMES_H
#define DLC_DIALECTS_GRAPH_IR_NAMES_H

#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>
#include <string>

namespace dlc::graph {

/// The function an imported or built model becomes (its arguments are the graph inputs,
/// its results the outputs).
inline constexpr llvm::StringLiteral kMainFunction = "main_graph";
/// Argument/result attributes of the main function: the tensor's user-facing name, its
/// ONNX TensorProto data type (an integer), and for a value-specialized input the value
/// the runtime must be given (a DenseElementsAttr).
inline constexpr llvm::StringLiteral kNameAttr = "dlc.name";
inline constexpr llvm::StringLiteral kDtypeAttr = "dlc.dtype";
inline constexpr llvm::StringLiteral kValueAttr = "dlc.value";
/// Symbolic dims (dynamic shapes): argument attribute `dlc.dims`, one string per dim of
/// the argument (the symbol's name for a dynamic dim, "" for a static one), and the main
/// function's `dlc.dim_ranges`, a dictionary from each symbol to [min, max] (i64 array).
inline constexpr llvm::StringLiteral kDimsAttr = "dlc.dims";
inline constexpr llvm::StringLiteral kDimRangesAttr = "dlc.dim_ranges";
/// The symbols among `dlc.dim_ranges` whose values the model computes when it runs (the
/// number of non-zeros of a NonZero, ...): a string array on the main function. No input
/// sets them; the entry writes each run's value into the dims table (dlc_abi.h).
inline constexpr llvm::StringLiteral kComputedDimsAttr = "dlc.computed_dims";
/// On the model function: pairs of sizes of the symbolic dims that must be equal for a run
/// ([size, size, message]; SymbolicShapes took them to be equal), checked by the runtime.
inline constexpr llvm::StringLiteral kSizeChecksAttr = "dlc.size_checks";
/// The max of a computed dim without a bound (StringSplit's count): 2^40, the ABI's
/// largest dim (DLC_ABI_MAX_DIM). Such outputs are grown by the runtime as the run
/// returns them, not allocated at their greatest size.
inline constexpr int64_t kUnboundedDim = int64_t(1) << 40;
/// Module attribute of a training step: one dictionary per parameter it updates.
inline constexpr llvm::StringLiteral kStateAttr = "dlc.state";

/// A sequence graph input or output is passed as one tensor per element, named `x[0]`,
/// `x[1]`, ...: the main function's argument/result names, the runtime descriptor's
/// tensor names and the CLI's file names all use this.
inline std::string sequenceElementName(llvm::StringRef sequence, int64_t index) {
  return (sequence + "[" + llvm::Twine(index) + "]").str();
}

} // namespace dlc::graph

#endif // DLC_DIALECTS_GRAPH_IR_NAMES_H
