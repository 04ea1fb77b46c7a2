// The greedy pattern driver's configuration for dlc's own rewrite passes.
#ifndef DLC_CODEGEN_TRANSFORMS_REWRITECONFIG_H
#define DLC_CODEGEN_TRANSFORMS_REWRITECONFIG_H

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::codegen {

/// No region simplification: after every sweep it erases unreachable blocks and runs
/// region DCE over the whole function, 13 % of compiling a 100,000-node graph. These
/// passes rewrite structured single-block ops, the driver still erases ops left dead,
/// and the canonicalizer that follows them simplifies regions.
inline mlir::GreedyRewriteConfig patternPassConfig() {
  mlir::GreedyRewriteConfig config;
  config.setRegionSimplificationLevel(mlir::GreedySimplifyRegionLevel::Disabled);
  return config;
}

} // namespace dlc::codegen

#endif
