// Composite regions: the ops an attention or a recurrence was expanded into keep its
// identity in their locations, so every later pass (fusion, kernel selection,
// --dump-config) sees them as one region.
#ifndef DLC_DIALECTS_GRAPH_IR_REGIONS_H
#define DLC_DIALECTS_GRAPH_IR_REGIONS_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

#include <optional>

namespace dlc::graph {

/// The metadata of a region location: "dlc.region.attention", "dlc.region.lstm", ...
inline constexpr llvm::StringLiteral kRegionLocPrefix = "dlc.region.";

/// One composite region: its kind ("attention", "rnn", "gru", "lstm") and the location
/// of the op it was expanded from (the ONNX node).
struct RegionRef {
  llvm::StringRef kind;
  mlir::Location anchor;
};

/// `loc` marked as part of the `kind` region expanded from the op at `anchor`: a fused
/// location whose first location stays `loc` (node names are unchanged).
inline mlir::Location inRegion(mlir::Location loc, llvm::StringRef kind, mlir::Location anchor) {
  mlir::MLIRContext *ctx = loc->getContext();
  return mlir::FusedLoc::get(ctx, {loc, anchor},
                             mlir::StringAttr::get(ctx, (kRegionLocPrefix + kind).str()));
}

/// The region `loc` is marked with (directly, or as the first location of a fused one).
inline std::optional<RegionRef> regionOf(mlir::Location loc) {
  while (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc)) {
    auto meta = llvm::dyn_cast_or_null<mlir::StringAttr>(fused.getMetadata());
    if (meta && meta.getValue().starts_with(kRegionLocPrefix) && !fused.getLocations().empty())
      return RegionRef{meta.getValue().drop_front(kRegionLocPrefix.size()),
                       fused.getLocations().back()};
    if (fused.getLocations().empty())
      break;
    loc = fused.getLocations().front();
  }
  return std::nullopt;
}

} // namespace dlc::graph

#endif // DLC_DIALECTS_GRAPH_IR_REGIONS_H
