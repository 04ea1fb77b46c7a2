// Expr: builds chains of dlc_graph ops for one ONNX node (ops written as their ONNX
// function bodies) without a TRY per step.
#ifndef DLC_FRONTENDS_ONNX_EXPR_H
#define DLC_FRONTENDS_ONNX_EXPR_H

#include "dialects/Graph/IR/GraphExpr.h"
#include "frontends/Onnx/NodeImporter.h"

namespace dlc::onnx_frontend {

/// A GraphExpr at the node: ops are created at its location, against --max-memory, and
/// any error is reported there.
struct Expr : graph::GraphExpr {
  Expr(NodeImporter &n, mlir::Type elt) : GraphExpr(n.b, n.loc, elt, n.maxTensorBytes), n(n) {}
  NodeImporter &n;
};

/// The permutation that moves `axis` of a rank-`rank` tensor last, its inverse,
/// and the moved shape of `shape`.
struct AxisLast {
  llvm::SmallVector<int64_t> perm, inverse, shape;
};
inline AxisLast axisLast(llvm::ArrayRef<int64_t> shape, int64_t axis) {
  AxisLast a;
  int64_t r = shape.size();
  for (int64_t d = 0; d < r; ++d)
    if (d != axis)
      a.perm.push_back(d);
  a.perm.push_back(axis);
  a.inverse.resize(r);
  for (int64_t d = 0; d < r; ++d)
    a.inverse[a.perm[d]] = d;
  for (int64_t d : a.perm)
    a.shape.push_back(shape[d]);
  return a;
}

} // namespace dlc::onnx_frontend

#endif
