// dlc-decompose: composite dlc_graph ops expressed with primitive ones.
#include "dialects/Graph/IR/QuantizedMath.h"
#include "dialects/Graph/IR/Regions.h"
#include "dialects/Graph/Transforms/Expansions.h"
#include "dialects/Graph/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <numeric>

namespace dlc::graph {
#define GEN_PASS_DEF_GRAPHDECOMPOSE
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace dlc::graph

using namespace mlir;
using namespace dlc::graph;

namespace {

/// A rank-0 constant of `elt`, which broadcasts against anything.
Value scalar(PatternRewriter &b, Location loc, Type elt, double v) {
  auto type = RankedTensorType::get({}, elt);
  Attribute a = isa<FloatType>(elt) ? Attribute(b.getFloatAttr(elt, v))
                                    : Attribute(b.getIntegerAttr(elt, (int64_t)v));
  return arith::ConstantOp::create(b, loc, DenseElementsAttr::get(type, a));
}

Type eltOf(Value v) { return cast<RankedTensorType>(v.getType()).getElementType(); }
int64_t rankOf(Value v) { return cast<RankedTensorType>(v.getType()).getRank(); }

/// Reshapes a per-channel [C] vector to [C, 1, ...] so it broadcasts over dim 1 of a
/// rank-`rank` NC... tensor.
Value perChannel(PatternRewriter &b, Location loc, Value v, int64_t rank) {
  auto t = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape = {t.getDimSize(0)};
  shape.append(rank - 2, 1);
  return ReshapeOp::create(b, loc, RankedTensorType::get(shape, t.getElementType()), v);
}

struct DecomposeGemm : OpRewritePattern<GemmOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GemmOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value a = op.getA(), bm = op.getB();
    if (op.getTransA())
      a = TransposeOp::create(b, loc, a, ArrayRef<int64_t>{1, 0});
    if (op.getTransB())
      bm = TransposeOp::create(b, loc, bm, ArrayRef<int64_t>{1, 0});
    Value y = MatMulOp::create(b, loc, a, bm);
    Type elt = eltOf(y);
    if (op.getAlpha().convertToDouble() != 1.0)
      y = MulOp::create(b, loc, y, scalar(b, loc, elt, op.getAlpha().convertToDouble()));
    if (Value c = op.getC()) {
      if (op.getBeta().convertToDouble() != 1.0)
        c = MulOp::create(b, loc, c, scalar(b, loc, elt, op.getBeta().convertToDouble()));
      y = AddOp::create(b, loc, y, c);
    }
    b.replaceOp(op, y);
    return success();
  }
};

struct DecomposeGelu : OpRewritePattern<GeluOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GeluOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type elt = eltOf(x);
    Value inner;
    if (op.getApproximate() == "tanh") {
      Value x3 = MulOp::create(b, loc, MulOp::create(b, loc, x, x), x);
      Value poly = AddOp::create(b, loc, x, MulOp::create(b, loc, x3, scalar(b, loc, elt, 0.044715)));
      inner = TanhOp::create(b, loc, MulOp::create(b, loc, poly, scalar(b, loc, elt, std::sqrt(2.0 / M_PI))));
    } else {
      inner = ErfOp::create(b, loc, MulOp::create(b, loc, x, scalar(b, loc, elt, M_SQRT1_2)));
    }
    Value half = MulOp::create(b, loc, x, scalar(b, loc, elt, 0.5));
    b.replaceOpWithNewOp<MulOp>(op, half, AddOp::create(b, loc, inner, scalar(b, loc, elt, 1.0)));
    return success();
  }
};

struct DecomposeClip : OpRewritePattern<ClipOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ClipOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value y = op.getInput();
    auto scalarType = RankedTensorType::get({}, eltOf(y));
    y = MaxOp::create(b, loc, y, ReshapeOp::create(b, loc, scalarType, op.getLo()));
    y = MinOp::create(b, loc, y, ReshapeOp::create(b, loc, scalarType, op.getHi()));
    b.replaceOp(op, y);
    return success();
  }
};

template <typename SoftmaxLike, bool isLog>
struct DecomposeSoftmax : OpRewritePattern<SoftmaxLike> {
  using OpRewritePattern<SoftmaxLike>::OpRewritePattern;
  LogicalResult matchAndRewrite(SoftmaxLike op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    SmallVector<int64_t> axes = {(int64_t)op.getAxis()};
    Value m = ReduceMaxOp::create(b, loc, x, axes, true);
    Value shifted = SubOp::create(b, loc, x, m);
    Value e = ExpOp::create(b, loc, shifted);
    Value s = ReduceSumOp::create(b, loc, e, axes, true);
    if (isLog)
      b.replaceOpWithNewOp<SubOp>(op, shifted, LogOp::create(b, loc, s));
    else // one reciprocal per row, then a multiply per element (not a divide)
      b.replaceOpWithNewOp<MulOp>(op, e, ReciprocalOp::create(b, loc, s));
    return success();
  }
};

struct DecomposeGlobalAveragePool : OpRewritePattern<GlobalAveragePoolOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GlobalAveragePoolOp op, PatternRewriter &b) const override {
    SmallVector<int64_t> axes(rankOf(op.getInput()) - 2);
    std::iota(axes.begin(), axes.end(), 2);
    b.replaceOpWithNewOp<ReduceMeanOp>(op, op.getInput(), axes, true);
    return success();
  }
};

struct DecomposeBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(BatchNormOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type elt = eltOf(x);
    // y = x * s + t with s = scale / sqrt(var + eps), t = bias - mean * s.
    Value var = AddOp::create(b, loc, op.getVariance(),
                              scalar(b, loc, elt, op.getEpsilon().convertToDouble()));
    Value s = DivOp::create(b, loc, op.getScale(), SqrtOp::create(b, loc, var));
    Value t = SubOp::create(b, loc, op.getBias(), MulOp::create(b, loc, op.getMean(), s));
    int64_t rank = rankOf(x);
    Value y = MulOp::create(b, loc, x, perChannel(b, loc, s, rank));
    b.replaceOpWithNewOp<AddOp>(op, y, perChannel(b, loc, t, rank));
    return success();
  }
};

struct DecomposeLayerNorm : OpRewritePattern<LayerNormOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(LayerNormOp op, PatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value x = op.getInput();
    Type elt = eltOf(x);
    SmallVector<int64_t> axes;
    for (int64_t d = op.getAxis(); d < rankOf(x); ++d)
      axes.push_back(d);
    Value mean = ReduceMeanOp::create(b, loc, x, axes, true);
    Value d = SubOp::create(b, loc, x, mean);
    Value var = ReduceMeanOp::create(b, loc, MulOp::create(b, loc, d, d), axes, true);
    // 1/sqrt once per row, then a multiply per element (a divide per element
    // costs more than the rest of the normalization).
    Value invStd = ReciprocalOp::create(
        b, loc,
        SqrtOp::create(b, loc,
                       AddOp::create(b, loc, var,
                                     scalar(b, loc, elt, op.getEpsilon().convertToDouble()))));
    Value y = MulOp::create(b, loc, MulOp::create(b, loc, d, invStd), op.getScale());
    if (Value bias = op.getBias())
      y = AddOp::create(b, loc, y, bias);
    b.replaceOp(op, y);
    return success();
  }
};

struct GraphDecomposePass : dlc::graph::impl::GraphDecomposeBase<GraphDecomposePass> {
  using GraphDecomposeBase::GraphDecomposeBase;

  /// Expands the region ops with a plain builder, outside the greedy driver: createChecked
  /// folds and erases ops behind a rewriter's back. Returns how many it expanded, or
  /// failure (reported at the op) when an expansion would exceed max-tensor-bytes.
  FailureOr<int> expandRegions() {
    SmallVector<Operation *> regions;
    getOperation()->walk([&](Operation *op) {
      if (isa<AttentionOp, RnnOp, GruOp, LstmOp>(op))
        regions.push_back(op);
    });
    for (Operation *op : regions) {
      OpBuilder b(op);
      GraphExpr e(b, op->getLoc(), Type(), maxTensorBytes);
      Operation *before = op->getPrevNode();
      auto values = isa<AttentionOp>(op) ? expandAttention(e, cast<AttentionOp>(op))
                                         : expandRecurrence(e, op);
      if (failed(values))
        return failure();
      // The ops it became stay one region for later passes (Regions.h).
      StringRef kind = op->getName().stripDialect();
      for (Operation *o = before ? before->getNextNode() : &op->getBlock()->front(); o != op;
           o = o->getNextNode())
        o->setLoc(inRegion(o->getLoc(), kind, op->getLoc()));
      op->replaceAllUsesWith(*values);
      op->erase();
    }
    return (int)regions.size();
  }

  /// quantize / dequantize that no quantization pass folded -> float math (also outside
  /// the greedy driver: GraphExpr builds checked ops).
  void expandQuantization() {
    SmallVector<Operation *> ops;
    getOperation()->walk([&](Operation *op) {
      if (isa<QuantizeOp, DequantizeOp>(op))
        ops.push_back(op);
    });
    for (Operation *op : ops) {
      OpBuilder b(op);
      GraphExpr e(b, op->getLoc(), Type());
      Value v = isa<QuantizeOp>(op) ? expandQuantize(e, cast<QuantizeOp>(op))
                                    : expandDequantize(e, cast<DequantizeOp>(op));
      assert(v && !e.failed && "verified quantize/dequantize expand");
      op->getResult(0).replaceAllUsesWith(v);
      op->erase();
    }
  }

  void runOnOperation() override {
    expandQuantization();
    int expanded = 0;
    if (!keepRegions) {
      auto n = expandRegions();
      if (failed(n))
        return signalPassFailure();
      expanded = *n;
    }
    RewritePatternSet patterns(&getContext());
    patterns.add<DecomposeGemm, DecomposeGelu, DecomposeClip,
                 DecomposeSoftmax<SoftmaxOp, false>, DecomposeSoftmax<LogSoftmaxOp, true>,
                 DecomposeGlobalAveragePool, DecomposeBatchNorm, DecomposeLayerNorm>(
        &getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
    if (cleanup && expanded) {
      // What the graph phase ran after its own decompose (Pipelines.cpp): the expansion's
      // transposes sink and compose like those of the ops the importer wrote out.
      OpPassManager pm(getOperation()->getName());
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createGraphChannelsLast());
      pm.addPass(createCanonicalizerPass());
      pm.addPass(createCSEPass());
      if (failed(runPipeline(pm, getOperation())))
        signalPassFailure();
    }
  }
};

} // namespace
