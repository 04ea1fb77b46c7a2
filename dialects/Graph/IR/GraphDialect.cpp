// dlc_graph dialect registration, constant materialization and generated op definitions.
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace dlc::graph;

#include "dialects/Graph/IR/GraphOpsDialect.cpp.inc"
#include "dialects/Graph/IR/ScalarComputation.cpp.inc"

void GraphDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "dialects/Graph/IR/GraphOps.cpp.inc"
      >();
}

Operation *GraphDialect::materializeConstant(OpBuilder &builder, Attribute value, Type type,
                                             Location loc) {
  if (auto typed = dyn_cast<TypedAttr>(value); typed && typed.getType() == type)
    return arith::ConstantOp::create(builder, loc, type, typed);
  return nullptr;
}

#define GET_OP_CLASSES
#include "dialects/Graph/IR/GraphOps.cpp.inc"
