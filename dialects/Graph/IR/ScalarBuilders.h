// Builders of scalar arith code shared by the elementwise ops' scalar bodies
// (ScalarSemantics.cpp) and the linalg lowering.
#ifndef DLC_DIALECTS_GRAPH_IR_SCALARBUILDERS_H
#define DLC_DIALECTS_GRAPH_IR_SCALARBUILDERS_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Builders.h"

namespace dlc::graph {

/// Scalar constant (float or integer) of type `elt`.
mlir::Value scalarConstant(mlir::OpBuilder &b, mlir::Location loc, mlir::Type elt, double v);

/// Converts a scalar between element types with ONNX Cast semantics
/// (`isUnsigned`: the integer source holds an unsigned ONNX type).
mlir::Value convertScalar(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v, mlir::Type to,
                          bool isUnsigned = false);

/// `float ? floatOp : intOp` over the same operands.
template <typename FloatOp, typename IntOp>
mlir::Value floatOrInt(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange args) {
  if (mlir::isa<mlir::FloatType>(args[0].getType()))
    return FloatOp::create(b, loc, args);
  return IntOp::create(b, loc, args);
}

/// A comparison of two floats (`fp`) or signless integers (`ip`).
mlir::Value compareScalars(mlir::OpBuilder &b, mlir::Location loc, mlir::ValueRange a,
                           mlir::arith::CmpFPredicate fp, mlir::arith::CmpIPredicate ip);

} // namespace dlc::graph

#endif
