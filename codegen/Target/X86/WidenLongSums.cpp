// dlc-widen-long-sums: float sums over many elements accumulate in f64.
#include "codegen/Target/X86/Passes.h"

#include "codegen/Target/X86/KernelConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/IR/LinalgInterfaces.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_WIDENLONGSUMS
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace {

/// Reductions that add at least this many f32 values into each result, one after the
/// other, are widened. An f32 sum's rounding grows with the number of values each partial
/// sum adds; from about here it is visible in what follows a mean: a LayerNorm of a nearly
/// constant region divides it by sqrt(eps). Reductions tiled with vector partial sums
/// across one row (getsPartialSums: about sqrt(n) of them, so a few hundred values each)
/// stay f32: widening them cost a 16384-wide LayerNorm 22 %.
constexpr int64_t kMinWideSum = 8192;

/// The `arith.addf` that adds the body's value into the accumulator (the output block
/// argument, used nowhere else), when `op` is such a sum of f32 values.
arith::AddFOp accumulatingAdd(linalg::GenericOp op) {
  if (op->getNumResults() != 1 || op.getNumReductionLoops() == 0 ||
      !isa<RankedTensorType>(op.getDpsInitOperand(0)->get().getType()))
    return {};
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!type.getElementType().isF32() || linalg::isaContractionOpInterface(op) ||
      linalg::isaConvolutionOpInterface(op))
    return {};
  Block &body = op.getRegion().front();
  BlockArgument acc = body.getArguments().back();
  auto add = body.getTerminator()->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add || !acc.hasOneUse() || (add.getLhs() != acc && add.getRhs() != acc))
    return {};
  return add;
}

/// Values each result element of `op` sums.
int64_t valuesPerResult(linalg::GenericOp op) {
  int64_t n = 1;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  for (auto [range, it] : llvm::zip(ranges, op.getIteratorTypesArray()))
    if (it == utils::IteratorType::reduction) {
      if (ShapedType::isDynamic(range))
        return 0;
      n *= range;
    }
  return n;
}

/// An all-parallel generic applying `cast` (arith.extf / arith.truncf) to `v`.
Value castTensor(OpBuilder &b, Location loc, Value v, Type element, bool widen) {
  auto type = cast<RankedTensorType>(v.getType());
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), element);
  AffineMap id = b.getMultiDimIdentityMap(type.getRank());
  SmallVector<utils::IteratorType> parallel(type.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, empty.getType(), ValueRange{v}, ValueRange{empty}, ArrayRef<AffineMap>{id, id},
      parallel, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value c = widen ? Value(arith::ExtFOp::create(nb, nloc, element, args[0]))
                        : Value(arith::TruncFOp::create(nb, nloc, element, args[0]));
        linalg::YieldOp::create(nb, nloc, c);
      });
  return generic->getResult(0);
}

/// The f64 initial value of the widened sum: a zero fill stays a fill.
Value widenInit(OpBuilder &b, Location loc, Value init) {
  Type f64 = b.getF64Type();
  auto fill = init.getDefiningOp<linalg::FillOp>();
  if (fill && matchPattern(fill.getInputs()[0], m_AnyZeroFloat())) {
    auto type = cast<RankedTensorType>(init.getType());
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), f64);
    Value zero = arith::ConstantOp::create(b, loc, f64, b.getFloatAttr(f64, 0.0));
    return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  }
  return castTensor(b, loc, init, f64, /*widen=*/true);
}

void widen(linalg::GenericOp op, arith::AddFOp add) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  Type f64 = b.getF64Type(), f32 = b.getF32Type();
  Value init = widenInit(b, loc, op.getDpsInitOperand(0)->get());
  Block &body = op.getRegion().front();
  BlockArgument acc = body.getArguments().back();
  Value addend = add.getLhs() == acc ? add.getRhs() : add.getLhs();
  auto wide = linalg::GenericOp::create(
      b, loc, init.getType(), op.getDpsInputs(), ValueRange{init}, op.getIndexingMapsArray(),
      op.getIteratorTypesArray(), [&](OpBuilder &nb, Location nloc, ValueRange args) {
        IRMapping map;
        for (auto [from, to] : llvm::zip(body.getArguments(), args))
          map.map(from, to);
        for (Operation &inner : body.without_terminator())
          if (&inner != add.getOperation())
            nb.clone(inner, map);
        Value x = arith::ExtFOp::create(nb, nloc, f64, map.lookupOrDefault(addend));
        Value sum = arith::AddFOp::create(nb, nloc, x, args.back());
        linalg::YieldOp::create(nb, nloc, sum);
      });
  wide->setDiscardableAttrs(op->getDiscardableAttrDictionary());
  Value narrow = castTensor(b, loc, wide->getResult(0), f32, /*widen=*/false);
  op->getResult(0).replaceAllUsesWith(narrow);
  op->erase();
}

struct WidenLongSumsPass : dlc::x86::impl::WidenLongSumsBase<WidenLongSumsPass> {
  void runOnOperation() override {
    SmallVector<std::pair<linalg::GenericOp, arith::AddFOp>> sums;
    getOperation()->walk([&](linalg::GenericOp op) {
      if (auto add = accumulatingAdd(op);
          add && valuesPerResult(op) >= kMinWideSum && !dlc::x86::getsPartialSums(op))
        sums.push_back({op, add});
    });
    for (auto [op, add] : sums)
      widen(op, add);
  }
};

} // namespace
