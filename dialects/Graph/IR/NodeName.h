// The ONNX node an op comes from, for reports (--dump-config) and diagnostics.
#ifndef DLC_DIALECTS_GRAPH_IR_NODENAME_H
#define DLC_DIALECTS_GRAPH_IR_NODENAME_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

namespace dlc::graph {

/// The node name of `loc` (NameLoc(node, ...), possibly first in a fused
/// location, fused again for a composite region), or "" when there is none.
inline llvm::StringRef nodeName(mlir::Location loc) {
  while (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
    if (fused.getLocations().empty())
      return "";
    loc = fused.getLocations().front();
  }
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
    return name.getName().strref();
  return "";
}

} // namespace dlc::graph

#endif
