// ONNX Range -> a constant (known bounds) or a slice of one (a limit of the dynamic dims).
#include "frontends/Onnx/NodeImporter.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// Integer Range in exact arithmetic: start + i * delta for i < ceil((limit - start) / delta),
/// with the span and the values in 128 bits (limit - start may not fit int64).
LogicalResult integerRange(NodeImporter &n, DenseElementsAttr s, DenseElementsAttr l,
                           DenseElementsAttr d, Results &out) {
  auto scalarOf = [](DenseElementsAttr a) -> __int128 {
    return (*a.getValues<APInt>().begin()).getSExtValue();
  };
  __int128 start = scalarOf(s), limit = scalarOf(l), delta = scalarOf(d);
  if (delta == 0)
    return n.error("Range delta must not be 0");
  __int128 span = delta > 0 ? limit - start : start - limit, mag = delta > 0 ? delta : -delta;
  __int128 count = span <= 0 ? 0 : (span - 1) / mag + 1;
  if (count >= (__int128(1) << 62))
    return n.error("Range(" + Twine(int64_t(start)) + ", " + Twine(int64_t(limit)) + ", " +
                   Twine(int64_t(delta)) + ") does not have a countable length");
  Type elt = s.getElementType();
  if (failed(n.checkShape({int64_t(count)}, elt)))
    return failure();
  SmallVector<APInt> vals;
  unsigned width = elt.getIntOrFloatBitWidth();
  for (int64_t i = 0; i < int64_t(count); ++i) // every value lies in [start, limit): it fits
    vals.push_back(APInt(width, uint64_t(int64_t(start + i * delta)), /*isSigned=*/true,
                         /*implicitTrunc=*/true));
  out.push_back(n.constant(
      DenseElementsAttr::get(RankedTensorType::get({int64_t(count)}, elt), vals)));
  return success();
}

/// Range(0, L, 1) with L a size of the symbolic dims (dlc compile --dims): the first L
/// entries of a constant 0, 1, ... as long as L's largest value, sliced when the model runs.
LogicalResult symbolicRange(NodeImporter &n, const graph::SymbolicSize &limit, Results &out) {
  DenseElementsAttr s = n.knownInput(0), d = n.knownInput(2);
  auto isInt = [](DenseElementsAttr a, int64_t v) {
    return a && a.getNumElements() == 1 && isa<IntegerType>(a.getElementType()) &&
           (*a.getValues<APInt>().begin()).getSExtValue() == v;
  };
  if (!isInt(s, 0) || !isInt(d, 1))
    return n.error("a Range to a size of the dynamic dims (" + limit.str() +
                   ") must start at 0 with step 1");
  auto bounds = graph::sizeBounds(n.dynamicFunc, limit);
  constexpr int64_t kMaxRange = int64_t(1) << 20;
  if (!bounds || bounds->second > kMaxRange)
    return n.error("a Range to " + limit.str() + " needs that size's upper bound (at most " +
                   Twine(kMaxRange) + "; narrow the ranges with --dims)");
  Type elt = s.getElementType();
  SmallVector<APInt> values;
  for (int64_t i = 0; i < bounds->second; ++i)
    values.push_back(APInt(elt.getIntOrFloatBitWidth(), i, /*isSigned=*/true));
  Value all = n.constant(DenseElementsAttr::get(RankedTensorType::get({bounds->second}, elt), values));
  SmallVector<int64_t> zero = {0}, dynamic = {ShapedType::kDynamic}, one = {1};
  std::string size = limit.str();
  auto sliced = n.create<SliceOp>({all}, {n.named("starts", n.b.getDenseI64ArrayAttr(zero)),
                                        n.named("sizes", n.b.getDenseI64ArrayAttr(dynamic)),
                                        n.named("steps", n.b.getDenseI64ArrayAttr(one)),
                                        n.named("dims", n.b.getStrArrayAttr({size}))});
  DLC_TRY(sliced);
  out.push_back(*sliced);
  return success();
}

LogicalResult range(NodeImporter &n, Results &out) {
  if (!n.knownInput(1))
    if (auto limit = n.symbolicInts(1); limit && limit->size() == 1 && !(*limit)[0].isStatic())
      return symbolicRange(n, (*limit)[0], out);
  auto s = n.constantInput(0), l = n.constantInput(1), d = n.constantInput(2);
  DLC_TRY(s); DLC_TRY(l); DLC_TRY(d);
  Type elt = s->getElementType();
  for (auto [name, a] : {std::pair{"start", *s}, {"limit", *l}, {"delta", *d}})
    if (a.getNumElements() != 1 || a.getElementType() != elt)
      return n.error("Range " + Twine(name) + " must be a scalar of the start's type (it has " +
                     Twine(a.getNumElements()) + " elements)");
  if (isa<IntegerType>(elt))
    return integerRange(n, *s, *l, *d, out);
  auto scalarOf = [](DenseElementsAttr a) {
    if (!isa<FloatType>(a.getElementType()))
      return (double)(*a.getValues<APInt>().begin()).getSExtValue();
    APFloat x = *a.getValues<APFloat>().begin();
    bool losesInfo;
    x.convert(APFloat::IEEEdouble(), APFloat::rmNearestTiesToEven, &losesInfo);
    return x.convertToDouble();
  };
  double start = scalarOf(*s), limit = scalarOf(*l), delta = scalarOf(*d);
  if (delta == 0)
    return n.error("Range delta must not be 0");
  double steps = std::ceil((limit - start) / delta);
  if (!(steps < 0x1p62)) // also NaN
    return n.error("Range(" + n.num(start) + ", " + n.num(limit) + ", " + n.num(delta) +
                   ") does not have a countable length");
  int64_t count = std::max<int64_t>(0, (int64_t)steps);
  if (failed(n.checkShape({count}, elt)))
    return failure();
  auto type = RankedTensorType::get({count}, elt);
  SmallVector<Attribute> vals;
  for (int64_t i = 0; i < count; ++i)
    vals.push_back(n.b.getFloatAttr(elt, start + i * delta));
  out.push_back(n.constant(DenseElementsAttr::get(type, vals)));
  return success();
}

const OpBuilderEntry kRange[] = {
    {"Range", 11, range},
};

} // namespace

ArrayRef<OpBuilderEntry> rangeBuilders() { return kRange; }

} // namespace dlc::onnx_frontend
