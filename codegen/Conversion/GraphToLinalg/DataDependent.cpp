// Ops whose result sizes depend on values (NonZero, Unique) -> scf loops that count, then fill.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// Whether scalar `v` is non-zero (NaN is non-zero, -0.0 is zero).
Value isNonZero(OpBuilder &b, Location loc, Value v) {
  Type t = v.getType();
  if (auto ft = dyn_cast<FloatType>(t)) {
    if (ft.getWidth() < 32)
      v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(v.getType()));
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(t));
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
}

/// The input's elements as a 1-D tensor and each dim's size (a 0-d input is one element).
std::pair<Value, SmallVector<Value>> flatten(OpBuilder &b, Location loc, Value x) {
  auto t = cast<RankedTensorType>(x.getType());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < t.getRank(); ++d)
    sizes.push_back(t.isDynamicDim(d) ? tensor::DimOp::create(b, loc, x, d).getResult()
                                      : indexConst(b, loc, t.getDimSize(d)));
  if (t.getRank() == 0) {
    sizes.push_back(indexConst(b, loc, 1));
    auto one = RankedTensorType::get({1}, t.getElementType());
    return {tensor::ExpandShapeOp::create(b, loc, one, x, ArrayRef<ReassociationIndices>{}),
            sizes};
  }
  if (t.getRank() == 1)
    return {x, sizes};
  ReassociationIndices all;
  for (int64_t d = 0; d < t.getRank(); ++d)
    all.push_back(d);
  int64_t n = t.hasStaticShape() ? t.getNumElements() : ShapedType::kDynamic;
  auto flat = RankedTensorType::get({n}, t.getElementType());
  return {tensor::CollapseShapeOp::create(b, loc, flat, x, ArrayRef<ReassociationIndices>{all}),
          sizes};
}

/// NonZero: one pass counts the non-zeros, a second writes each one's coordinates into
/// the column of its rank among them.
struct NonZeroLowering : OpConversionPattern<NonZeroOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(NonZeroOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto flattened = flatten(b, loc, adaptor.getInput());
    Value flat = flattened.first;
    SmallVector<Value> sizes = flattened.second;
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Value n = inType.hasStaticShape() ? indexConst(b, loc, inType.getNumElements()) : Value();
    for (Value s : sizes)
      if (!inType.hasStaticShape())
        n = n ? arith::MulIOp::create(b, loc, n, s).getResult() : s;
    Value zero = indexConst(b, loc, 0), one = indexConst(b, loc, 1);
    auto count = scf::ForOp::create(
        b, loc, zero, n, one, ValueRange{zero},
        [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
          Value v = tensor::ExtractOp::create(nb, l, flat, i);
          Value add = arith::SelectOp::create(nb, l, isNonZero(nb, l, v), indexConst(nb, l, 1),
                                              indexConst(nb, l, 0));
          scf::YieldOp::create(nb, l, ValueRange{arith::AddIOp::create(nb, l, acc[0], add)});
        });
    auto type = op.getType();
    Value empty = tensor::EmptyOp::create(b, loc, type, ValueRange{count.getResult(0)});
    auto fill = scf::ForOp::create(
        b, loc, zero, n, one, ValueRange{empty, zero},
        [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
          Value v = tensor::ExtractOp::create(nb, l, flat, i);
          auto branch = scf::IfOp::create(
              nb, l, isNonZero(nb, l, v),
              [&](OpBuilder &tb, Location tl) {
                // Coordinates of flat index i, innermost first.
                Value out = acc[0], rest = i;
                for (int64_t d = sizes.size() - 1; d >= 0; --d) {
                  Value c = d == 0 ? rest : arith::RemUIOp::create(tb, tl, rest, sizes[d]);
                  if (d > 0)
                    rest = arith::DivUIOp::create(tb, tl, rest, sizes[d]);
                  Value c64 = arith::IndexCastOp::create(tb, tl, tb.getI64Type(), c);
                  out = tensor::InsertOp::create(tb, tl, c64, out,
                                                 ValueRange{indexConst(tb, tl, d), acc[1]});
                }
                Value next = arith::AddIOp::create(tb, tl, acc[1], indexConst(tb, tl, 1));
                scf::YieldOp::create(tb, tl, ValueRange{out, next});
              },
              [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, acc); });
          scf::YieldOp::create(nb, l, branch.getResults());
        });
    markComputedDim(fill, op.getCount(), 0, 1);
    b.replaceOp(op, fill.getResult(0));
    return success();
  }
};

/// a < b in a total order: NaN after every number (and equal to NaN), bools false < true.
Value totalLess(OpBuilder &b, Location loc, Value x, Value y) {
  if (!isa<FloatType>(x.getType()))
    return arith::CmpIOp::create(b, loc,
                                 x.getType().isInteger(1) ? arith::CmpIPredicate::ult
                                                          : arith::CmpIPredicate::slt,
                                 x, y);
  Value lt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, y);
  Value xNum = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::ORD, x, x);
  Value yNaN = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNO, y, y);
  return arith::OrIOp::create(b, loc, lt, arith::AndIOp::create(b, loc, xNum, yNaN));
}

Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value eq(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, x, y);
}

/// Unique: slices along the axis compared lexicographically; O(slices^2 x slice size), for
/// the modest sizes Unique sees in models. Each slice's first equal one, then each first
/// occurrence's rank among them (sorted: how many are smaller; else how many come
/// before), then the outputs in one pass.
struct UniqueLowering : OpConversionPattern<UniqueOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(UniqueOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto flattened = flatten(b, loc, adaptor.getInput());
    Value flat = flattened.first;
    SmallVector<Value> sizes = flattened.second;
    int64_t axis = op.getAxis();
    Value c0 = indexConst(b, loc, 0), c1 = indexConst(b, loc, 1);
    Value outer = c1, inner = c1, m = sizes[axis];
    for (int64_t d = 0; d < int64_t(sizes.size()); ++d)
      if (d != axis)
        (d < axis ? outer : inner) = mul(b, loc, d < axis ? outer : inner, sizes[d]);
    Value slice = mul(b, loc, outer, inner);
    // Element j of slice k (of n slices) of a flat [outer, n, inner] tensor.
    auto flatIndex = [&](OpBuilder &nb, Location l, Value k, Value j, Value n) {
      Value o = arith::DivUIOp::create(nb, l, j, inner), i = arith::RemUIOp::create(nb, l, j, inner);
      return add(nb, l, mul(nb, l, add(nb, l, mul(nb, l, o, n), k), inner), i);
    };
    auto at = [&](OpBuilder &nb, Location l, Value k, Value j) -> Value {
      return tensor::ExtractOp::create(nb, l, flat, flatIndex(nb, l, k, j, m));
    };
    // -1, 0 or 1 as slice k1 is less than, equal to or greater than slice k2.
    auto compare = [&](OpBuilder &nb, Location l, Value k1, Value k2) -> Value {
      Value zero = arith::ConstantIntOp::create(nb, l, 0, 32);
      return buildLoop(nb, l, indexConst(nb, l, 0), slice, {zero},
                  [&](OpBuilder &lb, Location ll, Value j, ValueRange acc) {
                    Value undecided = eq(lb, ll, acc[0], arith::ConstantIntOp::create(lb, ll, 0, 32));
                    return buildIfThen(lb, ll, undecided, acc, [&](OpBuilder &tb, Location tl) {
                      Value x = at(tb, tl, k1, j), y = at(tb, tl, k2, j);
                      Value r = arith::SelectOp::create(
                          tb, tl, totalLess(tb, tl, y, x),
                          arith::ConstantIntOp::create(tb, tl, 1, 32), acc[0]);
                      r = arith::SelectOp::create(tb, tl, totalLess(tb, tl, x, y),
                                                  arith::ConstantIntOp::create(tb, tl, -1, 32), r);
                      return SmallVector<Value>{r};
                    });
                  })[0];
    };
    Type idx = b.getIndexType(), i64 = b.getI64Type();
    // first[k]: the first slice equal to slice k.
    Value first = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{m}, idx);
    first = buildLoop(b, loc, c0, m, {first}, [&](OpBuilder &nb, Location l, Value k, ValueRange acc) {
      Value f = buildLoop(nb, l, indexConst(nb, l, 0), k, {k},
                     [&](OpBuilder &lb, Location ll, Value j, ValueRange fa) {
                       return buildIfThen(lb, ll, eq(lb, ll, fa[0], k), fa,
                                     [&](OpBuilder &tb, Location tl) {
                                       Value c = compare(tb, tl, j, k);
                                       Value same = eq(tb, tl, c, arith::ConstantIntOp::create(tb, tl, 0, 32));
                                       return SmallVector<Value>{
                                           arith::SelectOp::create(tb, tl, same, j, fa[0])};
                                     });
                     })[0];
      return SmallVector<Value>{tensor::InsertOp::create(nb, l, f, acc[0], ValueRange{k})};
    })[0];
    auto isFirst = [&](OpBuilder &nb, Location l, Value k) {
      return eq(nb, l, tensor::ExtractOp::create(nb, l, first, ValueRange{k}), k);
    };
    // rank[k] of each first occurrence k, and the number of uniques.
    Value rank = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{m}, idx);
    auto ranked = buildLoop(b, loc, c0, m, {rank, c0}, [&](OpBuilder &nb, Location l, Value k,
                                                        ValueRange acc) {
      return buildIfThen(nb, l, isFirst(nb, l, k), acc, [&](OpBuilder &tb, Location tl) {
        Value r = buildLoop(tb, tl, indexConst(tb, tl, 0), m, {indexConst(tb, tl, 0)},
                       [&](OpBuilder &lb, Location ll, Value j, ValueRange ra) {
                         Value before =
                             op.getSorted()
                                 ? Value(buildIfThen(lb, ll, isFirst(lb, ll, j),
                                                {arith::ConstantIntOp::create(lb, ll, 0, 1)},
                                                [&](OpBuilder &cb, Location cl) {
                                                  Value c = compare(cb, cl, j, k);
                                                  return SmallVector<Value>{arith::CmpIOp::create(
                                                      cb, cl, arith::CmpIPredicate::slt, c,
                                                      arith::ConstantIntOp::create(cb, cl, 0, 32))};
                                                })[0])
                                 : arith::AndIOp::create(
                                       lb, ll, isFirst(lb, ll, j),
                                       arith::CmpIOp::create(lb, ll, arith::CmpIPredicate::ult, j, k));
                         Value one = arith::SelectOp::create(lb, ll, before, indexConst(lb, ll, 1),
                                                             indexConst(lb, ll, 0));
                         return SmallVector<Value>{add(lb, ll, ra[0], one)};
                       })[0];
        return SmallVector<Value>{tensor::InsertOp::create(tb, tl, r, acc[0], ValueRange{k}),
                                  add(tb, tl, acc[1], indexConst(tb, tl, 1))};
      });
    });
    rank = ranked[0];
    Value count = ranked[1];
    // The outputs.
    auto elt = cast<RankedTensorType>(flat.getType()).getElementType();
    Value y = tensor::EmptyOp::create(
        b, loc, ArrayRef<OpFoldResult>{mul(b, loc, mul(b, loc, outer, count), inner)}, elt);
    Value indices = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{count}, i64);
    Value counts = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{count}, i64);
    counts = linalg::FillOp::create(b, loc, ValueRange{arith::ConstantIntOp::create(b, loc, 0, 64)},
                                    ValueRange{counts})
                 .getResult(0);
    Value inverse = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{getAsOpFoldResult(m)}, i64);
    auto outs = buildLoop(b, loc, c0, m, {y, indices, counts, inverse},
                     [&](OpBuilder &nb, Location l, Value k, ValueRange acc) {
      Value f = tensor::ExtractOp::create(nb, l, first, ValueRange{k});
      Value r = tensor::ExtractOp::create(nb, l, rank, ValueRange{f});
      Value r64 = arith::IndexCastOp::create(nb, l, nb.getI64Type(), r);
      Value inv = tensor::InsertOp::create(nb, l, r64, acc[3], ValueRange{k});
      Value seen = tensor::ExtractOp::create(nb, l, acc[2], ValueRange{r});
      Value cnt = tensor::InsertOp::create(
          nb, l, add(nb, l, seen, arith::ConstantIntOp::create(nb, l, 1, 64)), acc[2],
          ValueRange{r});
      auto firsts = buildIfThen(nb, l, eq(nb, l, f, k), {acc[0], acc[1]},
                           [&](OpBuilder &tb, Location tl) {
        Value k64 = arith::IndexCastOp::create(tb, tl, tb.getI64Type(), k);
        Value ind = tensor::InsertOp::create(tb, tl, k64, acc[1], ValueRange{r});
        Value out = buildLoop(tb, tl, indexConst(tb, tl, 0), slice, {acc[0]},
                         [&](OpBuilder &lb, Location ll, Value j, ValueRange ya) {
                           Value v = at(lb, ll, k, j);
                           return SmallVector<Value>{tensor::InsertOp::create(
                               lb, ll, v, ya[0], ValueRange{flatIndex(lb, ll, r, j, count)})};
                         })[0];
        return SmallVector<Value>{out, ind};
      });
      return SmallVector<Value>{firsts[0], firsts[1], cnt, inv};
    });
    markComputedDim(outs[1].getDefiningOp(), op.getCount(), 1, 0);
    SmallVector<OpFoldResult> ySizes(sizes.begin(), sizes.end());
    ySizes[axis] = count;
    auto yType = op.getOutput().getType();
    for (int64_t d = 0; d < yType.getRank(); ++d)
      if (!yType.isDynamicDim(d))
        ySizes[d] = b.getIndexAttr(yType.getDimSize(d));
    Value shaped = reshapeDynamic(b, loc, outs[0], yType, ySizes);
    b.replaceOp(op, {shaped, outs[1], outs[3], outs[2]});
    return success();
  }
};

} // namespace

void populateDataDependentLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<NonZeroLowering, UniqueLowering>(patterns.getContext());
}

} // namespace dlc::conversion
