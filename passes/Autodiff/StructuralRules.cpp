// Gradient rules of contractions, reductions and data-movement dlc_graph ops.
#include "passes/Autodiff/GradientBuilder.h"

#include "dialects/Interfaces/Differentiable.h"

#include "mlir/IR/DialectRegistry.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {

void registerElementwiseGradientRules(MLIRContext *ctx);
void registerWindowGradientRules(MLIRContext *ctx);

namespace {

/// Swaps the last two dims (the matrix transpose of a batched operand).
Value transposeLast2(OpBuilder &b, Location loc, Value v) {
  int64_t rank = tensorTypeOf(v).getRank();
  SmallVector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d)
    perm.push_back(d);
  std::swap(perm[rank - 1], perm[rank - 2]);
  return TransposeOp::create(b, loc, v, perm);
}

/// [.., M, K] x [.., K, N] = [.., M, N]: dA = dY B^T, dB = A^T dY, each summed over
/// the batch dims its operand broadcast along.
struct MatMulVjp : DifferentiableOpInterface::ExternalModel<MatMulVjp, MatMulOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(2, Value());
    if (!gys[0])
      return success();
    auto mm = cast<MatMulOp>(op);
    Location l = op->getLoc();
    Value g = gys[0];
    Value ga = MatMulOp::create(b, l, g, transposeLast2(b, l, mm.getRhs()));
    Value gb = MatMulOp::create(b, l, transposeLast2(b, l, mm.getLhs()), g);
    gxs[0] = unbroadcast(b, l, ga, tensorTypeOf(mm.getLhs()));
    gxs[1] = unbroadcast(b, l, gb, tensorTypeOf(mm.getRhs()));
    return success();
  }
};

/// The reduced result with its reduced dims kept as 1 (a no-op with keepdims).
template <typename Op> Value keptDims(OpBuilder &b, Location l, Op op, Value v) {
  if (op.getKeepdims())
    return v;
  SmallVector<int64_t> shape(tensorTypeOf(op.getInput()).getShape());
  for (int64_t a : op.getAxes())
    shape[a] = 1;
  return ReshapeOp::create(b, l, RankedTensorType::get(shape, tensorTypeOf(v).getElementType()), v);
}

enum class Reduction { Sum, Mean, Extremum, Prod };

template <typename Op, Reduction kind>
struct ReduceVjp : DifferentiableOpInterface::ExternalModel<ReduceVjp<Op, kind>, Op> {
  LogicalResult buildVjp(Operation *o, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    if (!gys[0])
      return success();
    auto op = cast<Op>(o);
    Location l = o->getLoc();
    RankedTensorType xt = tensorTypeOf(op.getInput());
    Value g = keptDims(b, l, op, gys[0]);
    Value x = op.getInput();
    switch (kind) {
    case Reduction::Sum:
      gxs[0] = broadcastTo(b, l, g, x);
      break;
    case Reduction::Mean: {
      // Over dynamic dims (dlc compile --dims) the count is known when the model runs.
      if (llvm::any_of(op.getAxes(), [&](int64_t a) { return xt.isDynamicDim(a); })) {
        Value ones = broadcastTo(b, l, scalar(b, l, xt.getElementType(), 1.0), x);
        Value count = ReduceSumOp::create(b, l, ones, op.getAxes(), true);
        gxs[0] = broadcastTo(b, l, DivOp::create(b, l, g, count), x);
        break;
      }
      int64_t n = 1;
      for (int64_t a : op.getAxes())
        n *= xt.getDimSize(a);
      Value scaled = MulOp::create(b, l, g, scalar(b, l, xt.getElementType(), 1.0 / double(n)));
      gxs[0] = broadcastTo(b, l, scaled, x);
      break;
    }
    case Reduction::Extremum: {
      // The gradient is shared evenly by the elements equal to the extremum.
      Value y = keptDims(b, l, op, op.getResult());
      Value hit = EqualOp::create(b, l, op.getInput(), y);
      Value ones = CastOp::create(b, l, RankedTensorType::get(xt.getShape(), xt.getElementType()), hit);
      Value count = ReduceSumOp::create(b, l, ones, op.getAxes(), true);
      gxs[0] = selectOrZero(b, l, hit, broadcastTo(b, l, DivOp::create(b, l, g, count), x));
      break;
    }
    case Reduction::Prod: {
      Value y = keptDims(b, l, op, op.getResult());
      gxs[0] = DivOp::create(b, l, broadcastTo(b, l, MulOp::create(b, l, g, y), x), op.getInput());
      break;
    }
    }
    return success();
  }
};

struct ReshapeVjp : DifferentiableOpInterface::ExternalModel<ReshapeVjp, ReshapeOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    if (gys[0])
      gxs[0] = ReshapeOp::create(b, op->getLoc(), op->getOperand(0).getType(), gys[0]);
    return success();
  }
};

struct ExpandVjp : DifferentiableOpInterface::ExternalModel<ExpandVjp, ExpandOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    if (gys[0])
      gxs[0] = unbroadcast(b, op->getLoc(), gys[0], tensorTypeOf(op->getOperand(0)));
    return success();
  }
};

struct TransposeVjp : DifferentiableOpInterface::ExternalModel<TransposeVjp, TransposeOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    if (!gys[0])
      return success();
    ArrayRef<int64_t> perm = cast<TransposeOp>(op).getPerm();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = i;
    gxs[0] = TransposeOp::create(b, op->getLoc(), gys[0], inverse);
    return success();
  }
};

/// Each input's gradient is its slice of the output gradient along the axis.
struct ConcatVjp : DifferentiableOpInterface::ExternalModel<ConcatVjp, ConcatOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(op->getNumOperands(), Value());
    if (!gys[0])
      return success();
    auto concat = cast<ConcatOp>(op);
    int64_t axis = concat.getAxis();
    int64_t rank = tensorTypeOf(gys[0]).getRank();
    int64_t offset = 0;
    for (auto [i, in] : llvm::enumerate(concat.getInputs())) {
      RankedTensorType t = tensorTypeOf(in);
      SmallVector<int64_t> starts(rank, 0), steps(rank, 1);
      starts[axis] = offset;
      offset += t.getDimSize(axis);
      if (isa<FloatType>(t.getElementType()))
        gxs[i] = SliceOp::create(b, op->getLoc(), gys[0], starts, t.getShape(), steps);
    }
    return success();
  }
};

/// The pieces' gradients joined back (zeros for pieces the loss does not use).
struct SplitVjp : DifferentiableOpInterface::ExternalModel<SplitVjp, SplitOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    SmallVector<Value> pieces;
    for (auto [g, r] : llvm::zip(gys, op->getResults()))
      pieces.push_back(g ? g : splat(b, op->getLoc(), tensorTypeOf(r), 0.0));
    gxs[0] = ConcatOp::create(b, op->getLoc(), pieces, cast<SplitOp>(op).getAxis());
    return success();
  }
};

/// A unit-step slice's gradient is the output gradient zero-padded back to the
/// input's shape.
struct SliceVjp : DifferentiableOpInterface::ExternalModel<SliceVjp, SliceOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(1, Value());
    if (!gys[0])
      return success();
    auto slice = cast<SliceOp>(op);
    if (llvm::any_of(slice.getSteps(), [](int64_t s) { return s != 1; }))
      return op->emitError("gradient of a slice with a step other than 1 is not supported yet");
    RankedTensorType xt = tensorTypeOf(slice.getInput());
    int64_t rank = xt.getRank();
    SmallVector<int64_t> pads(2 * rank);
    for (int64_t d = 0; d < rank; ++d) {
      pads[d] = slice.getStarts()[d];
      pads[rank + d] = xt.getDimSize(d) - slice.getStarts()[d] - slice.getSizes()[d];
    }
    gxs[0] = PadOp::create(b, op->getLoc(), gys[0], b.getDenseI64ArrayAttr(pads), b.getStringAttr("constant"), b.getF64FloatAttr(0.0));
    return success();
  }
};

/// Constant padding: the gradient is the interior of the output gradient (and
/// zeros where negative pads cropped the input).
struct PadVjp : DifferentiableOpInterface::ExternalModel<PadVjp, PadOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(op->getNumOperands(), Value());
    if (!gys[0])
      return success();
    auto pad = cast<PadOp>(op);
    if (pad.getMode() != "constant")
      return op->emitError("gradient of '" + pad.getMode() + "' padding is not supported yet");
    RankedTensorType xt = tensorTypeOf(pad.getInput());
    int64_t rank = xt.getRank();
    ArrayRef<int64_t> p = pad.getPads();
    SmallVector<int64_t> starts(rank), sizes(rank), steps(rank, 1), crop(2 * rank);
    bool cropped = false;
    for (int64_t d = 0; d < rank; ++d) {
      int64_t lo = p[d], hi = p[rank + d];
      starts[d] = std::max<int64_t>(lo, 0);
      sizes[d] = xt.getDimSize(d) - std::max<int64_t>(-lo, 0) - std::max<int64_t>(-hi, 0);
      crop[d] = std::max<int64_t>(-lo, 0);
      crop[rank + d] = std::max<int64_t>(-hi, 0);
      cropped |= lo < 0 || hi < 0;
    }
    Location l = op->getLoc();
    Value g = SliceOp::create(b, l, gys[0], starts, sizes, steps);
    gxs[0] = cropped ? Value(PadOp::create(b, l, g, b.getDenseI64ArrayAttr(crop), b.getStringAttr("constant"), b.getF64FloatAttr(0.0))) : g;
    return success();
  }
};

/// Gather's data gradient: the output gradient added into zeros at the gathered
/// positions (repeated indices accumulate), by a scatter_nd with `add` over the
/// gathered axis moved first.
struct GatherVjp : DifferentiableOpInterface::ExternalModel<GatherVjp, GatherOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(2, Value());
    if (!gys[0])
      return success();
    auto gather = cast<GatherOp>(op);
    Location l = op->getLoc();
    RankedTensorType dt = tensorTypeOf(gather.getData());
    RankedTensorType it = tensorTypeOf(gather.getIndices());
    int64_t axis = gather.getAxis(), k = it.getRank(), rank = dt.getRank();
    // The gradient with the index dims first: [indices..., data dims but axis...].
    SmallVector<int64_t> perm, rest;
    for (int64_t d = 0; d < k; ++d)
      perm.push_back(axis + d);
    for (int64_t d = 0; d < rank; ++d)
      if (d != axis) {
        perm.push_back(d < axis ? d : d + k - 1);
        rest.push_back(dt.getDimSize(d));
      }
    Value g = TransposeOp::create(b, l, gys[0], perm);
    SmallVector<int64_t> indexShape(it.getShape());
    indexShape.push_back(1);
    Value idx = ReshapeOp::create(b, l, RankedTensorType::get(indexShape, it.getElementType()),
                                  gather.getIndices());
    SmallVector<int64_t> movedShape = {dt.getDimSize(axis)};
    movedShape.append(rest);
    auto moved = RankedTensorType::get(movedShape, dt.getElementType());
    Value summed = ScatterNDOp::create(b, l, moved, splat(b, l, moved, 0.0), idx, g,
                                       b.getI64IntegerAttr(0), b.getStringAttr("add"));
    // Back to the data's dim order.
    SmallVector<int64_t> back;
    for (int64_t d = 0; d < rank; ++d)
      back.push_back(d < axis ? d + 1 : d == axis ? 0 : d);
    gxs[0] = TransposeOp::create(b, l, summed, back);
    return success();
  }
};

/// GatherElements' data gradient: scatter_elements with `add` into zeros.
struct GatherElementsVjp
    : DifferentiableOpInterface::ExternalModel<GatherElementsVjp, GatherElementsOp> {
  LogicalResult buildVjp(Operation *op, OpBuilder &b, ArrayRef<Value> gys,
                         SmallVectorImpl<Value> &gxs) const {
    gxs.assign(2, Value());
    if (!gys[0])
      return success();
    auto gather = cast<GatherElementsOp>(op);
    RankedTensorType dt = tensorTypeOf(gather.getData());
    gxs[0] = ScatterElementsOp::create(b, op->getLoc(), dt, splat(b, op->getLoc(), dt, 0.0),
                                       gather.getIndices(), gys[0], gather.getAxisAttr(),
                                       b.getStringAttr("add"));
    return success();
  }
};

} // namespace

void registerGradientRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *ctx, GraphDialect *) {
    registerElementwiseGradientRules(ctx);
    registerWindowGradientRules(ctx);
    MatMulOp::attachInterface<MatMulVjp>(*ctx);
    ReduceSumOp::attachInterface<ReduceVjp<ReduceSumOp, Reduction::Sum>>(*ctx);
    ReduceMeanOp::attachInterface<ReduceVjp<ReduceMeanOp, Reduction::Mean>>(*ctx);
    ReduceMaxOp::attachInterface<ReduceVjp<ReduceMaxOp, Reduction::Extremum>>(*ctx);
    ReduceMinOp::attachInterface<ReduceVjp<ReduceMinOp, Reduction::Extremum>>(*ctx);
    ReduceProdOp::attachInterface<ReduceVjp<ReduceProdOp, Reduction::Prod>>(*ctx);
    ReshapeOp::attachInterface<ReshapeVjp>(*ctx);
    ExpandOp::attachInterface<ExpandVjp>(*ctx);
    TransposeOp::attachInterface<TransposeVjp>(*ctx);
    ConcatOp::attachInterface<ConcatVjp>(*ctx);
    SplitOp::attachInterface<SplitVjp>(*ctx);
    SliceOp::attachInterface<SliceVjp>(*ctx);
    PadOp::attachInterface<PadVjp>(*ctx);
    GatherOp::attachInterface<GatherVjp>(*ctx);
    GatherElementsOp::attachInterface<GatherElementsVjp>(*ctx);
  });
}

} // namespace dlc::autodiff
