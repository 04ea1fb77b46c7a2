// The dlc_graph dialect class and the helpers its ops share.
#ifndef DLC_DIALECTS_GRAPH_IR_GRAPHDIALECT_H
#define DLC_DIALECTS_GRAPH_IR_GRAPHDIALECT_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Dialect.h"

#include "dialects/Graph/IR/GraphOpsDialect.h.inc"

#endif
