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
    // An expand to dynamic sizes it gives (dlc compile --dims): read from the symbols.
    SmallVector<OpFoldResult> sizes;
    if (auto expand = dyn_cast<ExpandOp>(op.getOperation()); expand && expand.getDims()) {
      for (auto [i, s] : llvm::enumerate(expand.getDims()->getAsValueRange<StringAttr>())) {
        if (s.empty()) {
          sizes.push_back(rewriter.getIndexAttr(type.getDimSize(i)));
          continue;
        }
        Value size = symbolicSize(rewriter, op->getLoc(), op, s);
        if (!size)
          return op->emitError("no input of the model has the dims of size ") << s;
        sizes.push_back(size);
      }
    }
    Value r = buildElementwise(rewriter, op->getLoc(), type, operands,
                               [&](OpBuilder &b, Location loc, ValueRange args) {
                                 return op.buildScalar(b, loc, args);
                               },
                               sizes);
    rewriter.replaceOp(op, r);
    return success();
  }
};

} // namespace

void populateElementwiseLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ElementwiseLowering>(patterns.getContext());
}

} // namespace dlc::conversion
