// dlc_graph.non_max_suppression -> scf loops: per batch and class, the best unused box by
// score, kept unless it overlaps a kept one too much, until max_output are kept.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// A box's extent along one axis as (min, max), in f32.
struct Extent {
  Value lo, hi;
};

/// The x and y extents of box `i` of batch `batch` (ONNX: [y1, x1, y2, x2] corners in any
/// order, or [x_center, y_center, width, height]).
std::pair<Extent, Extent> boxExtents(OpBuilder &b, Location loc, Value boxes, Value batch, Value i,
                                     bool centerPoint) {
  Value c[4];
  for (int k = 0; k < 4; ++k) {
    c[k] = tensor::ExtractOp::create(b, loc, boxes, ValueRange{batch, i, indexConst(b, loc, k)});
    if (c[k].getType() != b.getF32Type())
      c[k] = arith::ExtFOp::create(b, loc, b.getF32Type(), c[k]);
  }
  if (!centerPoint) {
    auto order = [&](Value p, Value q) {
      return Extent{arith::MinimumFOp::create(b, loc, p, q), arith::MaximumFOp::create(b, loc, p, q)};
    };
    return {order(c[1], c[3]), order(c[0], c[2])};
  }
  Value half = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.5f));
  auto around = [&](Value center, Value size) {
    Value h = arith::MulFOp::create(b, loc, size, half);
    return Extent{arith::SubFOp::create(b, loc, center, h), arith::AddFOp::create(b, loc, center, h)};
  };
  return {around(c[0], c[2]), around(c[1], c[3])};
}

/// Whether boxes i and j overlap by more than `threshold` (intersection over union), as
/// ONNX's reference decides: no overlap, or an empty box, never suppresses.
Value suppresses(OpBuilder &b, Location loc, Value boxes, Value batch, Value i, Value j,
                 bool centerPoint, Value threshold) {
  auto [xi, yi] = boxExtents(b, loc, boxes, batch, i, centerPoint);
  auto [xj, yj] = boxExtents(b, loc, boxes, batch, j, centerPoint);
  Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
  auto gt = [&](Value p, Value q) {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, p, q).getResult();
  };
  auto overlap = [&](Extent p, Extent q) {
    return arith::SubFOp::create(b, loc, arith::MinimumFOp::create(b, loc, p.hi, q.hi),
                                 arith::MaximumFOp::create(b, loc, p.lo, q.lo))
        .getResult();
  };
  auto area = [&](Extent x, Extent y) {
    return arith::MulFOp::create(b, loc, arith::SubFOp::create(b, loc, x.hi, x.lo),
                                 arith::SubFOp::create(b, loc, y.hi, y.lo))
        .getResult();
  };
  Value ox = overlap(xi, xj), oy = overlap(yi, yj);
  Value inter = arith::MulFOp::create(b, loc, ox, oy);
  Value ai = area(xi, yi), aj = area(xj, yj);
  Value uni = arith::SubFOp::create(b, loc, arith::AddFOp::create(b, loc, ai, aj), inter);
  Value iou = arith::DivFOp::create(b, loc, inter, uni);
  Value ok = gt(ox, zero);
  for (Value v : {oy, inter, ai, aj, uni})
    ok = arith::AndIOp::create(b, loc, ok, gt(v, zero));
  return arith::AndIOp::create(b, loc, ok, gt(iou, threshold));
}

struct NonMaxSuppressionLowering : OpConversionPattern<NonMaxSuppressionOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NonMaxSuppressionOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    Value boxes = adaptor.getBoxes(), scores = adaptor.getScores();
    auto dim = [&](Value v, int64_t d) -> Value {
      return tensor::DimOp::create(b, loc, v, d);
    };
    Value batches = dim(boxes, 0), n = dim(boxes, 1), classes = dim(scores, 1);
    Value c0 = indexConst(b, loc, 0);
    auto scalar = [&](Value t) -> Value { return tensor::ExtractOp::create(b, loc, t, ValueRange{}); };
    auto toF32 = [&](Value v) -> Value {
      return v.getType() == b.getF32Type() ? v : arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    };
    // max_output clamped to [0, n].
    Value maxOut = scalar(adaptor.getMaxOutput());
    maxOut = arith::IndexCastOp::create(
        b, loc, b.getIndexType(),
        arith::MaxSIOp::create(
            b, loc,
            arith::MinSIOp::create(
                b, loc, maxOut,
                arith::IndexCastOp::create(b, loc, maxOut.getType(), n).getResult()),
            arith::ConstantIntOp::create(b, loc, maxOut.getType(), 0)));
    Value iouThreshold = toF32(scalar(adaptor.getIouThreshold()));
    Value scoreThreshold = toF32(scalar(adaptor.getScoreThreshold()));
    bool centerPoint = op.getCenterPointBox(), thresholded = op.getHasScoreThreshold();
    // Room for every box of every class; the result is its first `total` rows.
    Value capacity = arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, batches, classes),
                                           maxOut);
    Value rows = tensor::EmptyOp::create(
        b, loc, ArrayRef<OpFoldResult>{capacity, b.getIndexAttr(3)}, b.getI64Type());
    Value kept = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{n}, b.getIndexType());
    Value used = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{n}, b.getI1Type());
    auto i1 = [&](OpBuilder &nb, Location l, bool v) -> Value {
      return arith::ConstantIntOp::create(nb, l, v, 1);
    };
    auto eqIdx = [&](OpBuilder &nb, Location l, Value x, Value y) -> Value {
      return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, x, y);
    };
    auto out = buildLoop(b, loc, c0, batches, {rows, c0, kept, used}, [&](OpBuilder &bb, Location bl,
                                                                         Value batch, ValueRange ba) {
      return buildLoop(bb, bl, indexConst(bb, bl, 0), classes, ba, [&](OpBuilder &cb, Location cl,
                                                                      Value cls, ValueRange ca) {
        // A fresh class: no box used.
        Value fresh = buildLoop(cb, cl, indexConst(cb, cl, 0), n, {ca[3]},
                                [&](OpBuilder &lb, Location ll, Value i, ValueRange ua) {
                                  return SmallVector<Value>{tensor::InsertOp::create(
                                      lb, ll, i1(lb, ll, false), ua[0], ValueRange{i})};
                                })[0];
        Value none = eqIdx(cb, cl, maxOut, indexConst(cb, cl, 0));
        auto per = buildLoop(
            cb, cl, indexConst(cb, cl, 0), n, {ca[0], ca[1], ca[2], fresh, indexConst(cb, cl, 0), none},
            [&](OpBuilder &tb, Location tl, Value, ValueRange ta) {
              // ta: rows, total, kept, used, count, done.
              Value notDone = arith::XOrIOp::create(tb, tl, ta[5], i1(tb, tl, true));
              return buildIfThen(tb, tl, notDone, ta, [&](OpBuilder &sb, Location sl) {
                // The best unused candidate: highest score, lowest index on ties.
                Value minusInf = arith::ConstantOp::create(
                    sb, sl, sb.getF32FloatAttr(-std::numeric_limits<float>::infinity()));
                auto best = buildLoop(
                    sb, sl, indexConst(sb, sl, 0), n, {n, minusInf},
                    [&](OpBuilder &lb, Location ll, Value i, ValueRange pa) {
                      Value s = tensor::ExtractOp::create(lb, ll, scores, ValueRange{batch, cls, i});
                      s = s.getType() == lb.getF32Type()
                              ? s
                              : arith::ExtFOp::create(lb, ll, lb.getF32Type(), s).getResult();
                      Value free = arith::XOrIOp::create(
                          lb, ll, tensor::ExtractOp::create(lb, ll, ta[3], ValueRange{i}),
                          i1(lb, ll, true));
                      Value better = arith::OrIOp::create(
                          lb, ll, eqIdx(lb, ll, pa[0], n),
                          arith::CmpFOp::create(lb, ll, arith::CmpFPredicate::OGT, s, pa[1]));
                      Value ok = arith::AndIOp::create(lb, ll, free, better);
                      if (thresholded)
                        ok = arith::AndIOp::create(
                            lb, ll, ok,
                            arith::CmpFOp::create(lb, ll, arith::CmpFPredicate::OGT, s,
                                                  scoreThreshold));
                      return SmallVector<Value>{arith::SelectOp::create(lb, ll, ok, i, pa[0]),
                                                arith::SelectOp::create(lb, ll, ok, s, pa[1])};
                    });
                Value found = arith::CmpIOp::create(sb, sl, arith::CmpIPredicate::ne, best[0], n);
                SmallVector<Value> stop(ta.begin(), ta.end());
                stop[5] = i1(sb, sl, true);
                // None left: done; else the box is used, and kept unless it overlaps.
                return buildIfThen(sb, sl, found, stop, [&](OpBuilder &fb, Location fl) {
                               Value box = best[0];
                               Value usedNow = tensor::InsertOp::create(
                                   fb, fl, i1(fb, fl, true), ta[3], ValueRange{box});
                               Value overlaps =
                                   buildLoop(fb, fl, indexConst(fb, fl, 0), ta[4], {i1(fb, fl, false)},
                                             [&](OpBuilder &lb, Location ll, Value k, ValueRange oa) {
                                               Value other = tensor::ExtractOp::create(
                                                   lb, ll, ta[2], ValueRange{k});
                                               Value s = suppresses(lb, ll, boxes, batch, box, other,
                                                                    centerPoint, iouThreshold);
                                               return SmallVector<Value>{
                                                   arith::OrIOp::create(lb, ll, oa[0], s)};
                                             })[0];
                               SmallVector<Value> skip = {ta[0], ta[1], ta[2], usedNow, ta[4], ta[5]};
                               return buildIfThen(
                                   fb, fl, arith::XOrIOp::create(fb, fl, overlaps, i1(fb, fl, true)),
                                   skip, [&](OpBuilder &kb, Location kl) {
                                     Value r = ta[0];
                                     Value idx[3] = {batch, cls, box};
                                     for (int64_t col = 0; col < 3; ++col)
                                       r = tensor::InsertOp::create(
                                           kb, kl,
                                           arith::IndexCastOp::create(kb, kl, kb.getI64Type(), idx[col]),
                                           r, ValueRange{ta[1], indexConst(kb, kl, col)});
                                     Value k = tensor::InsertOp::create(kb, kl, box, ta[2],
                                                                        ValueRange{ta[4]});
                                     Value count = arith::AddIOp::create(kb, kl, ta[4],
                                                                         indexConst(kb, kl, 1));
                                     Value total = arith::AddIOp::create(kb, kl, ta[1],
                                                                         indexConst(kb, kl, 1));
                                     Value done = arith::CmpIOp::create(
                                         kb, kl, arith::CmpIPredicate::uge, count, maxOut);
                                     return SmallVector<Value>{r, total, k, usedNow, count, done};
                                   });
                             });
              });
            });
        return SmallVector<Value>{per[0], per[1], per[2], per[3]};
      });
    });
    Value result = tensor::ExtractSliceOp::create(
        b, loc, out[0], ArrayRef<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0)},
        ArrayRef<OpFoldResult>{out[1], b.getIndexAttr(3)},
        ArrayRef<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1)});
    markComputedDim(result.getDefiningOp(), op.getCount(), 0, 0);
    b.replaceOp(op, result);
    return success();
  }
};

} // namespace

void populateNonMaxSuppressionLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<NonMaxSuppressionLowering>(patterns.getContext());
}

} // namespace dlc::conversion
