// Elementwise dlc_graph ops -> linalg.generic: one pattern for every op with a scalar
// body (ScalarComputationOpInterface, dialects/Graph/IR/ScalarSemantics.cpp).
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Transforms/DialectConversion.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// A parallel linalg.generic over the result whose payload is the op's scalar body,
/// every operand broadcast to the result.
struct ElementwiseLowering : OpInterfaceConversionPattern<ScalarComputationOpInterface> {
  using OpInterfaceConversionPattern::OpInterfaceConversionPattern;
  LogicalResult matchAndRewrite(ScalarComputationOpInterface op, ArrayRef<Value> operands,
                                ConversionPatternRewriter &rewriter) const override {
    if (op->getNumResults() != 1)
      return failure();
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type)
      return failure();
    Value r = buildElementwise(rewriter, op->getLoc(), type, operands,
                               [&](OpBuilder &b, Location loc, ValueRange args) {
                                 return op.buildScalar(b, loc, args);
                               });
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(patterns.getContext());
}

} // namespace dlc::conversion
