// Helpers shared by the dlc_graph -> linalg lowering patterns.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "dialects/Graph/IR/Names.h"
#include "dialects/Graph/IR/SymbolicShapes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"

#include <cstring>

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace dlc::conversion {

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type,
                  ArrayRef<OpFoldResult> sizes) {
  if (type.hasStaticShape())
    return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  assert(sizes.size() == size_t(type.getRank()) && "a dynamic tensor needs its sizes");
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(getValueOrCreateConstantIndexOp(b, loc, sizes[d]));
  return tensor::EmptyOp::create(b, loc, type, dynamic);
}

Value emptyTensor(OpBuilder &b, Location loc, RankedTensorType type, ValueRange sources) {
  if (type.hasStaticShape())
    return emptyTensor(b, loc, type, ArrayRef<OpFoldResult>{});
  return emptyTensor(b, loc, type, broadcastSizes(b, loc, type, sources));
}

SmallVector<OpFoldResult> broadcastSizes(OpBuilder &b, Location loc, RankedTensorType type,
                                         ValueRange sources) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      continue;
    }
    // A dynamic result dim equals the same dim (from the right) of every source whose dim
    // there is dynamic too (dynamic dims never broadcast: the graph's shape inference
    // requires their symbols to agree).
    int64_t fromRight = type.getRank() - d;
    OpFoldResult size;
    for (Value src : sources) {
      auto st = cast<RankedTensorType>(src.getType());
      if (st.getRank() >= fromRight && st.isDynamicDim(st.getRank() - fromRight)) {
        size = tensor::getMixedSize(b, loc, src, st.getRank() - fromRight);
        break;
      }
    }
    assert(size && "no source for a dynamic dim (convert-graph-to-linalg checks first)");
    sizes.push_back(size);
  }
  return sizes;
}

AffineMap broadcastMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                       ArrayRef<int64_t> resultShape) {
  SmallVector<AffineExpr> exprs;
  size_t offset = resultShape.size() - operandShape.size();
  for (size_t i = 0; i < operandShape.size(); ++i) {
    if (operandShape[i] == 1 && resultShape[offset + i] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(offset + i, ctx));
  }
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

/// A constant `in` whose unit dims broadcast (a per-channel scale [1, 1, 1, C]) without
/// them ([C]): the same elements, read through a projected permutation ((d3) instead of
/// (0, 0, 0, d3)), which reshape propagation and epilogue fusion require. Null when `in`
/// is not such a constant.
static Value withoutBroadcastUnitDims(OpBuilder &b, Location loc, Value in,
                                      ArrayRef<int64_t> resultShape) {
  DenseElementsAttr dense;
  auto type = cast<RankedTensorType>(in.getType());
  if (!matchPattern(in, m_Constant(&dense)))
    return {};
  size_t offset = resultShape.size() - type.getRank();
  SmallVector<int64_t> kept;
  for (int64_t i = 0; i < type.getRank(); ++i)
    if (type.getDimSize(i) != 1 || resultShape[offset + i] == 1)
      kept.push_back(type.getDimSize(i));
  if (kept.size() == size_t(type.getRank()))
    return {};
  return arith::ConstantOp::create(b, loc, dense.reshape(type.clone(kept)));
}

/// The map reading a constant reshaped by withoutBroadcastUnitDims: the result dims that
/// the dropped unit dims broadcast along are not read.
static AffineMap keptDimsMap(MLIRContext *ctx, ArrayRef<int64_t> operandShape,
                             ArrayRef<int64_t> resultShape) {
  SmallVector<AffineExpr> exprs;
  size_t offset = resultShape.size() - operandShape.size();
  for (size_t i = 0; i < operandShape.size(); ++i)
    if (operandShape[i] != 1 || resultShape[offset + i] == 1)
      exprs.push_back(getAffineDimExpr(offset + i, ctx));
  return AffineMap::get(resultShape.size(), 0, exprs, ctx);
}

SmallVector<OpFoldResult> leadingSizes(OpBuilder &b, Location loc, RankedTensorType type,
                                       Value src) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d)
    sizes.push_back(type.isDynamicDim(d) ? tensor::getMixedSize(b, loc, src, d)
                                         : OpFoldResult(b.getIndexAttr(type.getDimSize(d))));
  return sizes;
}

Value buildElementwise(OpBuilder &b, Location loc, RankedTensorType resultType, ValueRange inputs,
                       ScalarBodyFn body, ArrayRef<OpFoldResult> sizes) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps;
  SmallVector<Value> operands;
  for (Value in : inputs) {
    auto shape = cast<RankedTensorType>(in.getType()).getShape();
    if (Value reshaped = withoutBroadcastUnitDims(b, loc, in, resultType.getShape())) {
      operands.push_back(reshaped);
      maps.push_back(keptDimsMap(ctx, shape, resultType.getShape()));
      continue;
    }
    operands.push_back(in);
    maps.push_back(broadcastMap(ctx, shape, resultType.getShape()));
  }
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  SmallVector<utils::IteratorType> iters(resultType.getRank(), utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, operands,
      ValueRange{sizes.empty() ? emptyTensor(b, loc, resultType, inputs)
                               : emptyTensor(b, loc, resultType, sizes)},
      maps,
      iters, [&](OpBuilder &nb, Location nloc, ValueRange args) {
        Value r = body(nb, nloc, args.drop_back());
        linalg::YieldOp::create(nb, nloc, r);
      });
  return generic.getResult(0);
}

Value extremeConstant(OpBuilder &b, Location loc, Type elt, bool lowest) {
  if (auto ft = dyn_cast<FloatType>(elt))
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), lowest)));
  unsigned w = elt.getIntOrFloatBitWidth();
  APInt v = w == 1 ? APInt(1, lowest ? 0 : 1)
                   : (lowest ? APInt::getSignedMinValue(w) : APInt::getSignedMaxValue(w));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(elt, v));
}


Value permuteTensor(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  for (int64_t d : perm)
    shape.push_back(type.getDimSize(d));
  auto to = RankedTensorType::get(shape, type.getElementType());
  DenseElementsAttr dense;
  unsigned bits = type.getElementType().getIntOrFloatBitWidth();
  if (matchPattern(v, m_Constant(&dense)) && bits % 8 == 0) {
    if (dense.isSplat())
      return arith::ConstantOp::create(b, loc, dense.reshape(to));
    // Raw bytes: element k of the result reads the source element at the
    // permuted multi-index (row-major strides).
    size_t width = bits / 8, rank = shape.size();
    ArrayRef<char> src = dense.getRawData();
    SmallVector<int64_t> srcStrides(rank, 1);
    for (int64_t d = (int64_t)rank - 2; d >= 0; --d)
      srcStrides[d] = srcStrides[d + 1] * type.getDimSize(d + 1);
    std::vector<char> out(src.size());
    SmallVector<int64_t> idx(rank, 0);
    for (int64_t k = 0, n = to.getNumElements(); k < n; ++k) {
      int64_t from = 0;
      for (size_t i = 0; i < rank; ++i)
        from += idx[i] * srcStrides[perm[i]];
      std::memcpy(out.data() + k * width, src.data() + from * width, width);
      for (int64_t i = (int64_t)rank - 1; i >= 0 && ++idx[i] == shape[i]; --i)
        idx[i] = 0;
    }
    return arith::ConstantOp::create(b, loc, DenseElementsAttr::getFromRawBuffer(to, out));
  }
  SmallVector<OpFoldResult> sizes;
  if (!to.hasStaticShape())
    for (int64_t d : perm)
      sizes.push_back(tensor::getMixedSize(b, loc, v, d));
  return linalg::TransposeOp::create(b, loc, v, emptyTensor(b, loc, to, sizes), perm).getResult()[0];
}

/// The product of `sizes` (attributes folded, values multiplied).
static OpFoldResult productOf(OpBuilder &b, Location loc, ArrayRef<OpFoldResult> sizes) {
  int64_t known = 1;
  Value dynamic;
  for (OpFoldResult s : sizes) {
    if (std::optional<int64_t> c = getConstantIntValue(s)) {
      known *= *c;
      continue;
    }
    Value x = cast<Value>(s);
    dynamic = dynamic ? arith::MulIOp::create(b, loc, dynamic, x).getResult() : x;
  }
  if (!dynamic)
    return b.getIndexAttr(known);
  return known == 1 ? OpFoldResult(dynamic)
                    : OpFoldResult(arith::MulIOp::create(b, loc, dynamic,
                                                         arith::ConstantIndexOp::create(b, loc, known))
                                       .getResult());
}

/// The sizes of `to`, a reshape of `total` elements: static dims as they are, the one
/// dynamic dim the rest (total / product of the static dims).
static SmallVector<OpFoldResult> reshapedSizes(OpBuilder &b, Location loc, RankedTensorType to,
                                               OpFoldResult total) {
  int64_t fixed = 1;
  for (int64_t d : to.getShape())
    if (!ShapedType::isDynamic(d))
      fixed *= d;
  SmallVector<OpFoldResult> sizes;
  for (int64_t d : to.getShape()) {
    if (!ShapedType::isDynamic(d)) {
      sizes.push_back(b.getIndexAttr(d));
      continue;
    }
    Value t = getValueOrCreateConstantIndexOp(b, loc, total);
    sizes.push_back(fixed == 1 ? OpFoldResult(t)
                               : OpFoldResult(arith::DivUIOp::create(
                                                  b, loc, t,
                                                  arith::ConstantIndexOp::create(b, loc, fixed))
                                                  .getResult()));
  }
  return sizes;
}

Value reshapeDynamic(OpBuilder &b, Location loc, Value v, RankedTensorType to) {
  auto from = cast<RankedTensorType>(v.getType());
  if (to.hasStaticShape())
    return reshapeDynamic(b, loc, v, to, getAsIndexOpFoldResult(b.getContext(), to.getShape()));
  SmallVector<OpFoldResult> fromSizes = tensor::getMixedSizes(b, loc, v);
  // Dims kept or merged in groups: one collapse or one expand.
  if (from.getRank() > to.getRank()) {
    if (auto reassoc = getReassociationIndicesForReshape(from, to))
      return tensor::CollapseShapeOp::create(b, loc, to, v, *reassoc);
  } else if (from.getRank() < to.getRank()) {
    if (auto reassoc = getReassociationIndicesForReshape(from, to)) {
      SmallVector<OpFoldResult> sizes;
      bool ok = true;
      for (auto [g, group] : llvm::enumerate(*reassoc)) {
        auto part = to.clone(llvm::map_to_vector(group, [&](int64_t d) { return to.getDimSize(d); }));
        if (llvm::count_if(part.getShape(), ShapedType::isDynamic) > 1)
          ok = false;
        llvm::append_range(sizes, reshapedSizes(b, loc, part, fromSizes[g]));
      }
      if (ok)
        return tensor::ExpandShapeOp::create(b, loc, to, v, *reassoc, sizes);
    }
  }
  assert(llvm::count_if(to.getShape(), ShapedType::isDynamic) <= 1 &&
         "a reshape to several dynamic dims needs its groups (checked by the pass)");
  // Through one dim: the one dynamic target dim is the rest of the elements.
  return reshapeDynamic(b, loc, v, to, reshapedSizes(b, loc, to, productOf(b, loc, fromSizes)));
}

Value reshapeDynamic(OpBuilder &b, Location loc, Value v, RankedTensorType to,
                     ArrayRef<OpFoldResult> sizes) {
  auto from = cast<RankedTensorType>(v.getType());
  // Dynamic dims into static ones (their counts are checked before the run): through one
  // dim cast to the static count.
  if (to.hasStaticShape() && !from.hasStaticShape()) {
    Value flat = v;
    auto flatType = RankedTensorType::get({ShapedType::kDynamic}, from.getElementType());
    if (from.getRank() != 1)
      flat = tensor::CollapseShapeOp::create(
          b, loc, flatType, v,
          ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, from.getRank()))});
    flat = tensor::CastOp::create(b, loc, flatType.clone({to.getNumElements()}), flat);
    return reshapeTensor(b, loc, flat, to);
  }
  // Grouped dims: one collapse (sizes follow) or one expand with the given sizes, as long
  // as no group expands into several dynamic dims (memref lowering cannot stride those).
  auto reassoc = getReassociationIndicesForReshape(from, to);
  if (reassoc && from.getRank() > to.getRank())
    return tensor::CollapseShapeOp::create(b, loc, to, v, *reassoc);
  if (reassoc && from.getRank() < to.getRank() &&
      llvm::all_of(*reassoc, [&](const ReassociationIndices &g) {
        return llvm::count_if(g, [&](int64_t d) { return to.isDynamicDim(d); }) <= 1;
      }))
    return tensor::ExpandShapeOp::create(b, loc, to, v, *reassoc, sizes);
  if (llvm::count_if(to.getShape(), ShapedType::isDynamic) > 1 && from.getRank() > 0 &&
      to.getRank() > 0) {
    // Several dynamic dims from one: a reshape by a shape tensor of the sizes.
    SmallVector<Value> dims;
    for (OpFoldResult s : sizes)
      dims.push_back(arith::IndexCastOp::create(b, loc, b.getI64Type(),
                                                getValueOrCreateConstantIndexOp(b, loc, s)));
    Value shape = tensor::FromElementsOp::create(
        b, loc, RankedTensorType::get({to.getRank()}, b.getI64Type()), dims);
    return tensor::ReshapeOp::create(b, loc, to, v, shape);
  }
  // Through one dim.
  auto flatType = RankedTensorType::get({ShapedType::kDynamic}, from.getElementType());
  Value flat = v;
  if (from.getRank() == 0)
    flat = tensor::ExpandShapeOp::create(b, loc, flatType.clone({1}), v,
                                         ArrayRef<ReassociationIndices>{},
                                         ArrayRef<OpFoldResult>{b.getIndexAttr(1)});
  else if (from.getRank() != 1)
    flat = tensor::CollapseShapeOp::create(
        b, loc, flatType, v,
        ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, from.getRank()))});
  if (to.getRank() == 0)
    return tensor::CollapseShapeOp::create(b, loc, to, flat, ArrayRef<ReassociationIndices>{});
  if (to.getRank() == 1)
    return cast<RankedTensorType>(flat.getType()) == to
               ? flat
               : Value(tensor::CastOp::create(b, loc, to, flat));
  return tensor::ExpandShapeOp::create(
      b, loc, to, flat,
      ArrayRef<ReassociationIndices>{llvm::to_vector(llvm::seq<int64_t>(0, to.getRank()))}, sizes);
}

SmallVector<Value> buildLoop(
    OpBuilder &b, Location loc, Value lo, Value hi, ValueRange inits,
    function_ref<SmallVector<Value>(OpBuilder &, Location, Value, ValueRange)> body) {
  auto f = scf::ForOp::create(b, loc, lo, hi, indexConst(b, loc, 1), inits,
                              [&](OpBuilder &nb, Location l, Value iv, ValueRange acc) {
                                scf::YieldOp::create(nb, l, body(nb, l, iv, acc));
                              });
  return SmallVector<Value>(f.getResults().begin(), f.getResults().end());
}

SmallVector<Value> buildIfThen(OpBuilder &b, Location loc, Value cond, ValueRange values,
                               function_ref<SmallVector<Value>(OpBuilder &, Location)> then) {
  auto op = scf::IfOp::create(
      b, loc, cond,
      [&](OpBuilder &tb, Location tl) { scf::YieldOp::create(tb, tl, then(tb, tl)); },
      [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, values); });
  return SmallVector<Value>(op.getResults().begin(), op.getResults().end());
}

void markComputedDim(Operation *op, StringRef symbol, unsigned result, int64_t dim) {
  Builder b(op->getContext());
  SmallVector<Attribute> marks;
  if (auto old = op->getAttrOfType<ArrayAttr>(kComputedDimMark))
    marks.append(old.begin(), old.end());
  marks.push_back(b.getArrayAttr({b.getStringAttr(symbol), b.getI64IntegerAttr(result),
                                  b.getI64IntegerAttr(dim)}));
  op->setAttr(kComputedDimMark, b.getArrayAttr(marks));
}

namespace {

/// The value of symbol `sym` of `func`: an argument's dim, a computed dim's result
/// (markComputedDim), or a derived size evaluated from its parts.
Value symbolValue(OpBuilder &b, Location loc, func::FuncOp func, StringRef sym, int depth);

Value sizeValue(OpBuilder &b, Location loc, func::FuncOp func, const graph::SymbolicSize &size,
                int depth) {
  Value product;
  for (const auto &[sym, power] : size.syms) {
    Value dim = symbolValue(b, loc, func, sym, depth);
    if (!dim)
      return {};
    for (int i = 0; i < power; ++i)
      product = product ? arith::MulIOp::create(b, loc, product, dim).getResult() : dim;
  }
  Value c = arith::ConstantIndexOp::create(b, loc, size.coef);
  if (!product)
    return c;
  return size.coef == 1 ? product : arith::MulIOp::create(b, loc, product, c).getResult();
}

Value symbolValue(OpBuilder &b, Location loc, func::FuncOp func, StringRef sym, int depth) {
  if (std::optional<graph::DerivedSize> d = graph::parseDerived(sym)) {
    if (depth > 64)
      return {};
    if (d->kind == graph::DerivedSize::Max || d->kind == graph::DerivedSize::Min) {
      Value x = sizeValue(b, loc, func, d->terms[0], depth + 1),
            y = sizeValue(b, loc, func, d->terms[1], depth + 1);
      if (!x || !y)
        return {};
      return d->kind == graph::DerivedSize::Max
                 ? arith::MaxSIOp::create(b, loc, x, y).getResult()
                 : arith::MinSIOp::create(b, loc, x, y).getResult();
    }
    if (d->isQuotient()) {
      Value n = sizeValue(b, loc, func, d->dividend, depth + 1);
      Value by = d->divisor ? arith::ConstantIndexOp::create(b, loc, d->divisor).getResult()
                            : sizeValue(b, loc, func, d->divisorSize, depth + 1);
      return n && by ? arith::FloorDivSIOp::create(b, loc, n, by).getResult() : Value();
    }
    Value sum;
    for (const graph::SymbolicSize &term : d->terms) {
      Value t = sizeValue(b, loc, func, term, depth + 1);
      if (!t)
        return {};
      sum = sum ? arith::AddIOp::create(b, loc, sum, t).getResult() : t;
    }
    return sum;
  }
  for (BlockArgument arg : func.getArguments()) {
    auto dims = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), graph::kDimsAttr);
    if (!dims)
      continue;
    for (auto [d, s] : llvm::enumerate(dims.getAsValueRange<StringAttr>()))
      if (s == sym)
        return tensor::DimOp::create(b, loc, arg, d);
  }
  // A dim the model computes (NonZero's count): the size of the result its lowering
  // marked (markComputedDim).
  Value dim;
  func.walk([&](Operation *op) {
    auto marks = op->getAttrOfType<ArrayAttr>(kComputedDimMark);
    for (Attribute a : marks ? marks.getValue() : ArrayRef<Attribute>()) {
      auto mark = dyn_cast<ArrayAttr>(a);
      if (dim || !mark || mark.size() != 3 || cast<StringAttr>(mark[0]).getValue() != sym)
        continue;
      dim = tensor::DimOp::create(b, loc, op->getResult(cast<IntegerAttr>(mark[1]).getInt()),
                                  cast<IntegerAttr>(mark[2]).getInt());
    }
  });
  return dim;
}

} // namespace

Value symbolicSize(OpBuilder &b, Location loc, Operation *in, StringRef size) {
  std::optional<graph::SymbolicSize> parsed = graph::SymbolicSize::parse(size);
  auto func = in->getParentOfType<func::FuncOp>();
  if (!parsed || !func)
    return {};
  return sizeValue(b, loc, func, *parsed, 0);
}

Value reshapeTensor(OpBuilder &b, Location loc, Value v, RankedTensorType to) {
  auto from = cast<RankedTensorType>(v.getType());
  if (from == to)
    return v;
  if (!from.hasStaticShape() || !to.hasStaticShape())
    return reshapeDynamic(b, loc, v, to);
  // Constants (weights) are reshaped at compile time, so later packing sees them.
  DenseElementsAttr dense;
  if (matchPattern(v, m_Constant(&dense)))
    return arith::ConstantOp::create(b, loc, dense.reshape(to));
  // Collapse to 1-D (or 0-D for one element), then expand to the target.
  Value flat = v;
  if (from.getRank() != 1) {
    SmallVector<ReassociationIndices> reassoc;
    if (from.getRank() > 0) {
      reassoc.emplace_back();
      for (int64_t d = 0; d < from.getRank(); ++d)
        reassoc.back().push_back(d);
    }
    auto flatType = RankedTensorType::get(from.getRank() ? ArrayRef<int64_t>{from.getNumElements()}
                                                          : ArrayRef<int64_t>{},
                                          from.getElementType());
    if (from.getRank() == 0) {
      flatType = RankedTensorType::get({1}, from.getElementType());
      flat = tensor::ExpandShapeOp::create(b, loc, flatType, v, reassoc);
    } else {
      flat = tensor::CollapseShapeOp::create(b, loc, flatType, v, reassoc);
    }
  }
  if (to.getRank() == 1)
    return flat;
  SmallVector<ReassociationIndices> reassoc;
  if (to.getRank() > 0) {
    reassoc.emplace_back();
    for (int64_t d = 0; d < to.getRank(); ++d)
      reassoc.back().push_back(d);
    return tensor::ExpandShapeOp::create(b, loc, to, flat, reassoc);
  }
  return tensor::CollapseShapeOp::create(b, loc, to, flat, reassoc);
}

Value padConstant(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> lo, ArrayRef<int64_t> hi,
                  Value pad) {
  if (llvm::all_of(lo, [](int64_t p) { return p == 0; }) &&
      llvm::all_of(hi, [](int64_t p) { return p == 0; }))
    return v;
  auto type = cast<RankedTensorType>(v.getType());
  SmallVector<int64_t> shape;
  SmallVector<OpFoldResult> l, h;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    // (Dynamic dims, a batch, are never padded.)
    shape.push_back(type.isDynamicDim(d) ? ShapedType::kDynamic : type.getDimSize(d) + lo[d] + hi[d]);
    l.push_back(b.getIndexAttr(lo[d]));
    h.push_back(b.getIndexAttr(hi[d]));
  }
  return tensor::PadOp::create(b, loc, RankedTensorType::get(shape, type.getElementType()), v, l,
                               h, pad);
}

Value filledTensor(OpBuilder &b, Location loc, RankedTensorType type, Value value,
                   ArrayRef<OpFoldResult> sizes) {
  return linalg::FillOp::create(b, loc, value, emptyTensor(b, loc, type, sizes)).getResult(0);
}

Value buildIndexed(OpBuilder &b, Location loc, RankedTensorType type, ValueRange inputs,
                   ArrayRef<AffineMap> inputMaps,
                   function_ref<Value(OpBuilder &, Location, ValueRange, ValueRange)> body,
                   ArrayRef<OpFoldResult> sizes) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps(inputMaps);
  maps.push_back(AffineMap::getMultiDimIdentityMap(type.getRank(), ctx));
  SmallVector<utils::IteratorType> iters(type.getRank(), utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{type}, inputs, ValueRange{emptyTensor(b, loc, type, sizes)}, maps,
             iters,
             [&](OpBuilder &nb, Location l, ValueRange args) {
               SmallVector<Value> idx;
               for (int64_t d = 0; d < type.getRank(); ++d)
                 idx.push_back(linalg::IndexOp::create(nb, l, d));
               linalg::YieldOp::create(nb, l, body(nb, l, idx, args.drop_back()));
             })
      .getResult(0);
}

Value indexConst(OpBuilder &b, Location loc, int64_t v) {
  return arith::ConstantIndexOp::create(b, loc, v);
}

Value batchedMatmulGeneric(OpBuilder &b, Location loc, RankedTensorType type, Value lhs,
                           Value rhs, ScalarBodyFn body) {
  Type elt = type.getElementType();
  SmallVector<OpFoldResult> sizes;
  if (!type.hasStaticShape()) {
    // Batch dims from whichever operand has them dynamic (aligned right), M from lhs,
    // N from rhs.
    auto lt = cast<RankedTensorType>(lhs.getType()), rt = cast<RankedTensorType>(rhs.getType());
    int64_t nb = type.getRank() - 2;
    for (int64_t d = 0; d < nb; ++d) {
      int64_t fromRight = nb - d, l = lt.getRank() - 2 - fromRight, r = rt.getRank() - 2 - fromRight;
      sizes.push_back(!type.isDynamicDim(d) ? OpFoldResult(b.getIndexAttr(type.getDimSize(d)))
                      : l >= 0 && lt.isDynamicDim(l) ? tensor::getMixedSize(b, loc, lhs, l)
                                                     : tensor::getMixedSize(b, loc, rhs, r));
    }
    sizes.push_back(tensor::getMixedSize(b, loc, lhs, lt.getRank() - 2));
    sizes.push_back(tensor::getMixedSize(b, loc, rhs, rt.getRank() - 1));
  }
  Value init = filledTensor(b, loc, type, scalarConstant(b, loc, elt, 0), sizes);
  MLIRContext *ctx = b.getContext();
  auto ls = cast<RankedTensorType>(lhs.getType()).getShape();
  auto rs = cast<RankedTensorType>(rhs.getType()).getShape();
  int64_t nb = type.getRank() - 2, nd = nb + 3;
  auto operandMap = [&](ArrayRef<int64_t> shape, unsigned d0, unsigned d1) {
    auto batchShape = shape.drop_back(2);
    AffineMap bm = broadcastMap(ctx, batchShape, type.getShape().drop_back(2));
    SmallVector<AffineExpr> exprs(bm.getResults());
    exprs.push_back(getAffineDimExpr(d0, ctx));
    exprs.push_back(getAffineDimExpr(d1, ctx));
    return AffineMap::get(nd, 0, exprs, ctx);
  };
  SmallVector<AffineExpr> outExprs;
  for (int64_t d = 0; d < nb + 2; ++d)
    outExprs.push_back(getAffineDimExpr(d, ctx));
  SmallVector<AffineMap> maps = {operandMap(ls, nb, nb + 2), operandMap(rs, nb + 2, nb + 1),
                                 AffineMap::get(nd, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(nb + 2, utils::IteratorType::parallel);
  iters.push_back(utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{lhs, rhs}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb2, Location l, ValueRange a) {
        linalg::YieldOp::create(nb2, l, body(nb2, l, a));
      });
  return generic.getResult(0);
}

Value groupedContraction(OpBuilder &b, Location loc, RankedTensorType type, Value lhs,
                         Value weights, int64_t k, int64_t lanes, int64_t group, Type accType,
                         ScalarBodyFn body) {
  auto lt = cast<RankedTensorType>(lhs.getType());
  Type elt = lt.getElementType();
  int64_t rank = type.getRank(), n = type.getShape().back();
  int64_t kg = llvm::alignTo(k, group), np = llvm::alignTo(n, lanes);
  if (kg != k) { // (the padded weights are 0)
    SmallVector<int64_t> lo(rank, 0), hi(rank, 0);
    hi.back() = kg - k;
    lhs = padConstant(b, loc, lhs, lo, hi, scalarConstant(b, loc, elt, 0));
  }
  SmallVector<int64_t> grouped(lt.getShape().drop_back());
  grouped.append({kg / group, group});
  SmallVector<ReassociationIndices> lastSplit;
  for (int64_t d = 0; d < rank - 1; ++d)
    lastSplit.push_back({d});
  lastSplit.push_back({rank - 1, rank});
  Value a = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(grouped, elt), lhs,
                                          lastSplit);
  // Loops: rank - 1 row dims, n1, n0, k1, k0.
  MLIRContext *ctx = b.getContext();
  int64_t nd = rank + 3;
  SmallVector<AffineExpr> rows, aExprs, outExprs;
  for (int64_t d = 0; d < rank - 1; ++d)
    rows.push_back(getAffineDimExpr(d, ctx));
  AffineExpr n1 = getAffineDimExpr(rank - 1, ctx), n0 = getAffineDimExpr(rank, ctx),
             k1 = getAffineDimExpr(rank + 1, ctx), k0 = getAffineDimExpr(rank + 2, ctx);
  aExprs.append(rows);
  aExprs.append({k1, k0});
  outExprs.append(rows);
  outExprs.append({n1, n0});
  SmallVector<AffineMap> maps = {AffineMap::get(nd, 0, aExprs, ctx),
                                 AffineMap::get(nd, 0, {n1, k1, n0, k0}, ctx),
                                 AffineMap::get(nd, 0, outExprs, ctx)};
  SmallVector<utils::IteratorType> iters(nd - 2, utils::IteratorType::parallel);
  iters.append(2, utils::IteratorType::reduction);
  SmallVector<int64_t> outShape(type.getShape().drop_back());
  outShape.append({np / lanes, lanes});
  auto out = RankedTensorType::get(outShape, accType);
  Value init = filledTensor(b, loc, out, scalarConstant(b, loc, accType, 0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out}, ValueRange{a, weights}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange x) {
        linalg::YieldOp::create(nb, l, ValueRange{body(nb, l, x)});
      });
  SmallVector<int64_t> paddedShape(type.getShape());
  paddedShape.back() = np;
  Value result = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get(paddedShape, accType), generic.getResult(0), lastSplit);
  if (np == n)
    return result;
  SmallVector<OpFoldResult> offsets(rank, b.getIndexAttr(0)), strides(rank, b.getIndexAttr(1)),
      sizes;
  for (int64_t d : type.getShape())
    sizes.push_back(b.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(b, loc, type, result, offsets, sizes, strides);
}

Value groupedConvolution(OpBuilder &b, Location loc, RankedTensorType type, Value x,
                         Value weights, ArrayRef<int64_t> dilations, int64_t lanes, int64_t group,
                         Type accType, ScalarBodyFn body) {
  auto xt = cast<RankedTensorType>(x.getType());
  auto xs = xt.getShape();
  Value a = tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get({xs[0], xs[1], xs[2], xs[3] / group, group}, xt.getElementType()), x,
      {{0}, {1}, {2}, {3, 4}});
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, ow, f1, f0, i, j, c1, c0;
  bindDims(ctx, n, oh, ow, f1, f0, i, j, c1, c0);
  SmallVector<AffineMap> maps = {
      AffineMap::get(9, 0, {n, oh + i * dilations[0], ow + j * dilations[1], c1, c0}, ctx),
      AffineMap::get(9, 0, {f1, i, j, c1, f0, c0}, ctx),
      AffineMap::get(9, 0, {n, oh, ow, f1, f0}, ctx)};
  SmallVector<utils::IteratorType> iters(5, utils::IteratorType::parallel);
  iters.append(4, utils::IteratorType::reduction);
  auto os = type.getShape();
  int64_t f = os[3], fp = llvm::alignTo(f, lanes);
  auto out = RankedTensorType::get({os[0], os[1], os[2], fp / lanes, lanes}, accType);
  Value init = filledTensor(b, loc, out, scalarConstant(b, loc, accType, 0));
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{out}, ValueRange{a, weights}, ValueRange{init}, maps, iters,
      [&](OpBuilder &nb, Location l, ValueRange v) {
        linalg::YieldOp::create(nb, l, ValueRange{body(nb, l, v)});
      });
  Value result = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({os[0], os[1], os[2], fp}, accType), generic.getResult(0),
      {{0}, {1}, {2}, {3, 4}});
  if (fp == f)
    return result;
  SmallVector<OpFoldResult> offsets(4, b.getIndexAttr(0)), strides(4, b.getIndexAttr(1)), sizes;
  for (int64_t d : os)
    sizes.push_back(b.getIndexAttr(d));
  return tensor::ExtractSliceOp::create(b, loc, type, result, offsets, sizes, strides);
}

SmallVector<OpFoldResult> windowSizes(OpBuilder &b, Location loc, RankedTensorType type, Value x,
                                      int64_t spatial, int64_t xSpatial, ArrayRef<int64_t> spans,
                                      ArrayRef<int64_t> strides) {
  SmallVector<OpFoldResult> sizes;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    int64_t i = d - spatial;
    if (!type.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
    } else if (i == 0 || i == 1) {
      // (padded size - span) / stride + 1; the window fits (checked before the run).
      Value in = tensor::DimOp::create(b, loc, x, xSpatial + i);
      Value room = arith::SubIOp::create(b, loc, in, indexConst(b, loc, spans[i]));
      Value n = arith::DivUIOp::create(b, loc, room, indexConst(b, loc, strides[i]));
      sizes.push_back(arith::AddIOp::create(b, loc, n, indexConst(b, loc, 1)).getResult());
    } else {
      sizes.push_back(tensor::getMixedSize(b, loc, x, d));
    }
  }
  return sizes;
}

Value stridedPixels(OpBuilder &b, Location loc, Value x, int64_t oh, int64_t ow,
                    ArrayRef<int64_t> strides) {
  if (strides[0] == 1 && strides[1] == 1)
    return x;
  auto xt = cast<RankedTensorType>(x.getType());
  auto sliced = RankedTensorType::get({xt.getDimSize(0), oh, ow, xt.getDimSize(3)},
                                      xt.getElementType());
  SmallVector<OpFoldResult> off(4, b.getIndexAttr(0)), steps;
  SmallVector<OpFoldResult> sizes = windowSizes(b, loc, sliced, x, 1, 1, {1, 1}, strides);
  for (int64_t s : {int64_t(1), strides[0], strides[1], int64_t(1)})
    steps.push_back(b.getIndexAttr(s));
  return tensor::ExtractSliceOp::create(b, loc, sliced, x, off, sizes, steps);
}

Value im2colWindows(OpBuilder &b, Location loc, Value x, ArrayRef<int64_t> out, int64_t kh,
                    int64_t kw, ArrayRef<int64_t> strides, ArrayRef<int64_t> dilations) {
  auto xt = cast<RankedTensorType>(x.getType());
  MLIRContext *ctx = b.getContext();
  AffineExpr n, oh, ow, i, j, ch;
  bindDims(ctx, n, oh, ow, i, j, ch);
  auto colsType = RankedTensorType::get({out[0], out[1], out[2], kh, kw, xt.getDimSize(3)},
                                        xt.getElementType());
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0,
                     {n, oh * strides[0] + i * dilations[0], ow * strides[1] + j * dilations[1],
                      ch},
                     ctx),
      AffineMap::getMultiDimIdentityMap(6, ctx)};
  SmallVector<utils::IteratorType> iters(6, utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             b, loc, TypeRange{colsType}, ValueRange{x},
             ValueRange{emptyTensor(b, loc, colsType, leadingSizes(b, loc, colsType, x))}, maps,
             iters,
             [](OpBuilder &nb, Location l, ValueRange v) {
               linalg::YieldOp::create(nb, l, ValueRange{v[0]});
             })
      .getResult(0);
}

} // namespace dlc::conversion
