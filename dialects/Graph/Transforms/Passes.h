// Graph-level passes of dlc_graph (declarations generated from Passes.td).
#ifndef DLC_DIALECTS_GRAPH_TRANSFORMS_PASSES_H
#define DLC_DIALECTS_GRAPH_TRANSFORMS_PASSES_H

#include "dialects/Graph/IR/GraphOps.h"
#include "mlir/Pass/Pass.h"

namespace dlc::graph {
#define GEN_PASS_DECL
#include "dialects/Graph/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace dlc::graph

#endif
