// A graph input's shape from its ONNX type and the compile options: --input-shape (whose
// dims may name --dims symbols), the model's dims, and the symbols --dims keeps dynamic.
#ifndef DLC_FRONTENDS_ONNX_INPUTSHAPE_H
#define DLC_FRONTENDS_ONNX_INPUTSHAPE_H

#include "frontends/Onnx/Importer.h"

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"

#include <onnx/onnx_pb.h>

#include <set>
#include <string>
#include <vector>

namespace dlc::onnx_frontend {

/// The shape of graph input `name` of type `tt`: dynamic dims (ShapedType::kDynamic) where
/// `symbols` (null: no dim may be dynamic) gets their --dims symbol, each added to `used`.
mlir::FailureOr<llvm::SmallVector<int64_t>> inputShape(mlir::Location loc, const std::string &name,
                                                       const onnx::TypeProto_Tensor &tt,
                                                       const ImportOptions &options,
                                                       std::vector<std::string> *symbols,
                                                       std::set<std::string> &used);

} // namespace dlc::onnx_frontend

#endif
