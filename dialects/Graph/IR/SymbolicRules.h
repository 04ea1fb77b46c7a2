// Rules of SymbolicShapes kept in their own files (one op family each).
#ifndef DLC_DIALECTS_GRAPH_IR_SYMBOLICRULES_H
#define DLC_DIALECTS_GRAPH_IR_SYMBOLICRULES_H

#include "dialects/Graph/IR/SymbolicShapes.h"

namespace dlc::graph {

/// Convolutions and pools: the batch (and a pool's channels) pass through, each dynamic
/// image dim gives its number of windows (windowOutputSize), and that the window fits is
/// recorded in `assumed` (checked when the model runs); weights are static. On failure,
/// `why` says why.
llvm::FailureOr<SymbolicDims>
windowDims(mlir::Operation *op, mlir::RankedTensorType result,
           llvm::function_ref<llvm::FailureOr<SymbolicDims>(mlir::Value)> dimsOf,
           mlir::func::FuncOp func, llvm::SmallVectorImpl<SymbolicShapes::Assumption> &assumed,
           std::string &why);

/// The contents of `op`'s result from its operands' (`valuesOf`): Mul, Div, Add, Sub
/// (products exact, quotients where they divide or by a constant, sums), and Equal, Not,
/// And, Or, Max, Min, Mod, Where where decided (Max and Min by the ranges of the
/// function's dims where they can).
std::optional<SymbolicDims>
arithmeticValues(mlir::Operation *op,
                 llvm::function_ref<std::optional<SymbolicDims>(mlir::Value)> valuesOf,
                 mlir::func::FuncOp func);
std::optional<SymbolicDims>
logicValues(mlir::Operation *op,
            llvm::function_ref<std::optional<SymbolicDims>(mlir::Value)> valuesOf,
            mlir::func::FuncOp func);

} // namespace dlc::graph

#endif
