// convert-graph-to-linalg: the pass that applies every op family's lowering patterns.
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "codegen/Conversion/GraphToLinalg/DynamicDims.h"
#include "dialects/Graph/IR/Names.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/Recompute.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

namespace dlc::conversion {
#define GEN_PASS_DEF_CONVERTGRAPHTOLINALG
#include "codegen/Conversion/GraphToLinalg/Passes.h.inc"
} // namespace dlc::conversion

using namespace mlir;

namespace {
struct ConvertGraphToLinalgPass
    : dlc::conversion::impl::ConvertGraphToLinalgBase<ConvertGraphToLinalgPass> {
  using ConvertGraphToLinalgBase::ConvertGraphToLinalgBase;
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    if (packBlock < 8 || packBlock > 1024 || !llvm::isPowerOf2_64(packBlock)) {
      getOperation()->emitError() << "convert-graph-to-linalg: pack-block must be a power of "
                                     "two in [8, 1024], not "
                                  << int64_t(packBlock);
      return signalPassFailure();
    }
    if (int8DotLanes != 0 && int8DotLanes != 8 && int8DotLanes != 16) {
      getOperation()->emitError() << "convert-graph-to-linalg: int8-dot-lanes must be 0, 8 or "
                                     "16, not "
                                  << int64_t(int8DotLanes);
      return signalPassFailure();
    }
    if (int8DotGroup != 2 && int8DotGroup != 4) {
      getOperation()->emitError() << "convert-graph-to-linalg: int8-dot-group must be 2 or 4, "
                                     "not "
                                  << int64_t(int8DotGroup);
      return signalPassFailure();
    }
    // Dynamic dims: each symbol followed to the results, or an error naming the node.
    bool dynamicFailed = false;
    getOperation()->walk([&](func::FuncOp func) {
      dynamicFailed |= failed(dlc::conversion::checkDynamicDims(func));
    });
    if (dynamicFailed)
      return signalPassFailure();
    if (auto module = dyn_cast<ModuleOp>(getOperation()))
      dlc::conversion::declareStringFunctions(module);
    ConversionTarget target(*ctx);
    target.addIllegalDialect<dlc::graph::GraphDialect>();
    // Run-time checks stay until dlc-prepare-abi gives the entry its status.
    target.addLegalOp<dlc::graph::RuntimeCheckOp>();
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect, arith::ArithDialect,
                           math::MathDialect, func::FuncDialect, scf::SCFDialect,
                           memref::MemRefDialect, bufferization::BufferizationDialect>();
    RewritePatternSet patterns(ctx);
    dlc::conversion::populateElementwiseLoweringPatterns(patterns);
    dlc::conversion::populateContractionLoweringPatterns(patterns, packBlock, im2colPixels,
                                                        bf16Weights, bf16DotLanes);
    dlc::conversion::populateIntegerContractionLoweringPatterns(
        patterns, dlc::conversion::DotForm{int8DotLanes, int8DotGroup});
    dlc::conversion::populateWeightOnlyContractionLoweringPatterns(patterns, packBlock);
    dlc::conversion::populatePoolingLoweringPatterns(patterns);
    dlc::conversion::populateReductionLoweringPatterns(patterns);
    dlc::conversion::populateDataMovementLoweringPatterns(patterns);
    dlc::conversion::populateIndexingLoweringPatterns(patterns);
    dlc::conversion::populateDataDependentLoweringPatterns(patterns);
    dlc::conversion::populateNonMaxSuppressionLoweringPatterns(patterns);
    dlc::conversion::populateStringLoweringPatterns(patterns);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      return signalPassFailure();
    // Recomputed forward values stay apart from the ones they copy (CSE).
    dlc::graph::propagateRecomputeMarks(getOperation());
  }
};
} // namespace
