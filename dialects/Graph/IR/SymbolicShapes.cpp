// SymbolicShapes: the sizes of dynamic dims (monomials and derived sizes of the symbolic
// dims), op by op, and the dims the rules take to be equal.
#include "dialects/Graph/IR/SymbolicShapes.h"
#include "dialects/Graph/IR/NodeName.h"
#include "dialects/Graph/IR/SymbolicRules.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/Names.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
namespace dlc::graph {
namespace {

using Dims = SymbolicDims;
using Size = SymbolicSize;
Dims staticDims(RankedTensorType t) {
  Dims d;
  for (int64_t s : t.getShape())
    d.push_back(Size::constant(s));
  return d;
}

/// The rules: `dimsOf(operand)` gives an operand's sizes (computed before), `valuesOf` its
/// contents. A failure's message says why.
struct Rules {
  function_ref<FailureOr<Dims>(Value)> dimsOf;
  function_ref<std::optional<Dims>(Value)> valuesOf;
  SmallVectorImpl<SymbolicShapes::Assumption> &assumed;
  func::FuncOp func;
  std::string why;
  /// Where not null, a Where whose condition is unknown takes its first branch, added here.
  SmallVectorImpl<Operation *> *speculated = nullptr;

  /// Dim `da` of `a` (size `sa`) and dim `db` of `b` (size `sb`; null `b`: a constant)
  /// are taken to be equal, checked when `op` runs.
  void assume(Operation *op, Value a, int64_t da, const Size &sa, Value b, int64_t db,
              const Size &sb) {
    assumed.push_back({op, a, da, b, db, sa, sb});
  }

  LogicalResult fail(const Twine &msg) {
    why = msg.str();
    return failure();
  }

  unsigned operandIndex(Operation *op, Value v) {
    for (OpOperand &o : op->getOpOperands())
      if (o.get() == v)
        return o.getOperandNumber();
    return 0;
  }

  /// NumPy broadcasting: a dynamic dim meets only the same size or a broadcast 1 (its size
  /// is read from that operand when lowered).
  /// Two dynamic dims of different sizes, or one against a static size other than 1, are
  /// taken to be equal (checked when the model runs; a size 1 there does not broadcast).
  FailureOr<Dims> broadcast(Operation *op, ValueRange operands, RankedTensorType result) {
    Dims out = staticDims(result);
    SmallVector<bool> set(result.getRank(), false);
    SmallVector<std::pair<Value, int64_t>> from(result.getRank());
    for (Value v : operands) {
      auto t = cast<RankedTensorType>(v.getType());
      FailureOr<Dims> d = dimsOf(v);
      if (failed(d))
        return failure();
      int64_t offset = result.getRank() - t.getRank();
      for (int64_t i = 0; i < t.getRank(); ++i) {
        if ((*d)[i].isStatic())
          continue;
        int64_t r = offset + i;
        if (!result.isDynamicDim(r)) {
          assume(op, v, i, (*d)[i], Value(), 0, Size::constant(result.getDimSize(r)));
          continue;
        }
        if (set[r] && out[r] != (*d)[i]) {
          assume(op, from[r].first, from[r].second, out[r], v, i, (*d)[i]);
          continue;
        }
        if (!set[r])
          from[r] = {v, i};
        out[r] = (*d)[i];
        set[r] = true;
      }
    }
    for (int64_t r = 0; r < result.getRank(); ++r)
      if (result.isDynamicDim(r) && !set[r])
        return fail("result dim " + Twine(r) + " is dynamic but no operand dim is");
    return out;
  }

  FailureOr<Dims> matmul(MatMulOp mm, RankedTensorType result) {
    FailureOr<Dims> l = dimsOf(mm.getLhs()), r = dimsOf(mm.getRhs());
    if (failed(l) || failed(r))
      return failure();
    auto lt = cast<RankedTensorType>(mm.getLhs().getType());
    auto rt = cast<RankedTensorType>(mm.getRhs().getType());
    auto lt0 = cast<RankedTensorType>(mm.getLhs().getType());
    auto rt0 = cast<RankedTensorType>(mm.getRhs().getType());
    if (l->back() != (*r)[rt0.getRank() - 2])
      assume(mm, mm.getLhs(), lt0.getRank() - 1, l->back(), mm.getRhs(), rt0.getRank() - 2,
             (*r)[rt0.getRank() - 2]);
    // Batch dims broadcast; M from lhs, N from rhs.
    Dims out;
    int64_t nb = result.getRank() - 2;
    for (int64_t d = 0; d < nb; ++d) {
      int64_t fromRight = nb - d;
      int64_t li = lt.getRank() - 2 - fromRight, ri = rt.getRank() - 2 - fromRight;
      Size a = li >= 0 ? (*l)[li] : Size(), b = ri >= 0 ? (*r)[ri] : Size();
      if (!a.isStatic() && !b.isStatic() && a != b)
        assume(mm, mm.getLhs(), li, a, mm.getRhs(), ri, b);
      if ((!a.isStatic() || !b.isStatic()) && !result.isDynamicDim(d))
        return fail("a dynamic batch dim broadcasts against a static size");
      out.push_back(!a.isStatic() ? a : !b.isStatic() ? b : Size::constant(result.getDimSize(d)));
    }
    out.push_back((*l)[lt.getRank() - 2]);
    out.push_back(r->back());
    return out;
  }

  /// A reshape: sizes given by the op (`dims`, from a target computed from shapes), or by
  /// groups of dims (one collapse or expand) or through one dim, a dynamic target dim
  /// being the rest of its group's size.
  FailureOr<Dims> reshape(ReshapeOp op, RankedTensorType result) {
    auto it = cast<RankedTensorType>(op.getInput().getType());
    FailureOr<Dims> in = dimsOf(op.getInput());
    if (failed(in))
      return failure();
    if (auto given = op.getDims()) {
      Dims out;
      for (auto [i, s] : llvm::enumerate(given->getAsValueRange<StringAttr>())) {
        std::optional<Size> m = s.empty() ? Size::constant(result.getDimSize(i)) : Size::parse(s);
        if (!m)
          return fail("malformed size '" + s + "'");
        out.push_back(*m);
      }
      // Counts that may differ (a floor quotient, static sizes for dynamic dims) are
      // taken to be equal (checked before the run).
      if (sizeProduct(out) != sizeProduct(*in))
        assume(op, op.getInput(), -1, sizeProduct(*in), Value(), 0, sizeProduct(out));
      return out;
    }
    std::optional<SmallVector<ReassociationIndices>> reassoc;
    if (it.getRank() != result.getRank() && !(it.hasStaticShape() && result.hasStaticShape()))
      reassoc = getReassociationIndicesForReshape(it, result);
    if (reassoc && it.getRank() > result.getRank()) {
      Dims out;
      for (const ReassociationIndices &g : *reassoc)
        out.push_back(sizeProduct(llvm::map_to_vector(g, [&](int64_t i) { return (*in)[i]; })));
      return out;
    }
    Dims out(result.getRank(), Size());
    auto split = [&](const Size &size, ArrayRef<int64_t> outs) -> LogicalResult {
      int64_t fixed = 1, dynamic = 0;
      for (int64_t o : outs) {
        if (result.isDynamicDim(o))
          ++dynamic;
        else
          fixed *= result.getDimSize(o);
      }
      if (dynamic > 1)
        return fail("a Reshape into several dynamic dims from one needs their sizes");
      if (dynamic == 0 && !size.isStatic())
        return fail("a dynamic dim (" + size.str() + ") reshaped into static ones");
      for (int64_t o : outs) {
        if (!result.isDynamicDim(o)) {
          out[o] = Size::constant(result.getDimSize(o));
          continue;
        }
        std::optional<Size> m = size.divide(Size::constant(fixed));
        if (!m)
          return fail("a dynamic dim (" + size.str() + ") does not split by " + Twine(fixed));
        out[o] = *m;
      }
      return success();
    };
    if (reassoc) {
      for (auto [g, group] : llvm::enumerate(*reassoc))
        if (failed(split((*in)[g], group)))
          return failure();
      return out;
    }
    if (failed(split(sizeProduct(*in), llvm::to_vector(llvm::seq<int64_t>(0, result.getRank())))))
      return failure();
    return out;
  }

  /// The sizes of `op`'s only result.
  FailureOr<Dims> resultDims(Operation *op) {
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    auto anyDynamic = [](TypeRange types) {
      return llvm::any_of(types, [](Type t) {
        auto rt = dyn_cast<RankedTensorType>(t);
        return rt && !rt.hasStaticShape();
      });
    };
    // Ops without dynamic dims, and shapes of dynamic tensors (a static type).
    if (!anyDynamic(op->getOperandTypes()) && !anyDynamic(op->getResultTypes()))
      return staticDims(result);
    if (isa<ShapeOp>(op))
      return staticDims(result);
    // Data-dependent sizes: a symbol of their own, computed when the model runs.
    if (auto nz = dyn_cast<NonZeroOp>(op))
      return Dims{Size::constant(result.getDimSize(0)), Size::symbol(nz.getCount())};
    if (auto nms = dyn_cast<NonMaxSuppressionOp>(op))
      return Dims{Size::symbol(nms.getCount()), Size::constant(3)};
    if (auto img = dyn_cast<ImageDecodeOp>(op))
      return Dims{Size::symbol(img.getHeight()), Size::symbol(img.getWidth()),
                  Size::constant(result.getDimSize(2))};
    // An expand to sizes it gives (a gradient broadcast back to a dynamic shape).
    if (auto e = dyn_cast<ExpandOp>(op); e && e.getDims()) {
      Dims out;
      for (auto [i, s] : llvm::enumerate(e.getDims()->getAsValueRange<StringAttr>())) {
        std::optional<Size> m = s.empty() ? Size::constant(result.getDimSize(i)) : Size::parse(s);
        if (!m)
          return fail("malformed size '" + s + "'");
        out.push_back(*m);
      }
      FailureOr<Dims> in = dimsOf(e.getInput());
      if (failed(in))
        return failure();
      int64_t offset = out.size() - in->size();
      for (auto [i, d] : llvm::enumerate(*in))
        if (!d.isStatic() && d != out[offset + i])
          assume(op, e.getInput(), i, d, Value(), 0, out[offset + i]);
      return out;
    }
    // A concat: the sum along the axis; the other dims agree.
    if (auto c = dyn_cast<ConcatOp>(op)) {
      Dims out = staticDims(result);
      Size along = Size::constant(0);
      SmallVector<Value> from(result.getRank());
      SmallVector<std::optional<Size>> staticAt(result.getRank());
      for (Value in : c.getInputs()) {
        FailureOr<Dims> d = dimsOf(in);
        if (failed(d))
          return failure();
        for (auto [i, s] : llvm::enumerate(*d)) {
          if (int64_t(i) == int64_t(c.getAxis())) {
            std::optional<Size> sum = sizeAdd(along, s);
            if (!sum)
              return fail("the concatenated size overflows int64");
            along = *sum;
            continue;
          }
          if (s.isStatic()) {
            staticAt[i] = s;
            continue;
          }
          // Another input's size here: taken to be equal, checked when it runs.
          if (!result.isDynamicDim(i)) {
            assume(op, in, i, s, Value(), 0, Size::constant(result.getDimSize(i)));
            continue;
          }
          if (from[i] && out[i] != s) {
            assume(op, from[i], i, out[i], in, i, s);
            continue;
          }
          if (!from[i]) {
            from[i] = in;
            out[i] = s;
          }
        }
      }
      for (int64_t i = 0; i < result.getRank(); ++i)
        if (from[i] && staticAt[i])
          assume(op, from[i], i, out[i], Value(), 0, *staticAt[i]);
      // (A dynamic result dim may sum to a constant: max(d, 7) - d + d ... .)
      if (!result.isDynamicDim(c.getAxis()) && !along.isStatic())
        return fail("the concatenated dim " + Twine(c.getAxis()) + " (" + along.str() +
                    ") disagrees with the result type");
      out[c.getAxis()] = along;
      return out;
    }
    // GatherElements: the indices' sizes; the data's dims other than the axis may not
    // differ from theirs where both are dynamic.
    if (auto g = dyn_cast<GatherElementsOp>(op)) {
      FailureOr<Dims> data = dimsOf(g.getData()), idx = dimsOf(g.getIndices());
      if (failed(data) || failed(idx))
        return failure();
      return *idx;
    }
    // Scatters: the data's sizes; the updates have the indices' (ScatterElements).
    if (isa<ScatterElementsOp, ScatterNDOp>(op)) {
      FailureOr<Dims> idx = dimsOf(op->getOperand(1)), upd = dimsOf(op->getOperand(2));
      if (failed(idx) || failed(upd))
        return failure();
      for (size_t d = 0; isa<ScatterElementsOp>(op) && d < idx->size(); ++d)
        if ((*idx)[d] != (*upd)[d])
          assume(op, op->getOperand(1), d, (*idx)[d], op->getOperand(2), d, (*upd)[d]);
      return dimsOf(op->getOperand(0));
    }
    // GatherND: the indices' dims but the last (the tuples), then the data's dims after
    // the batch dims and the addressed ones; batch dims agree.
    if (auto g = dyn_cast<GatherNDOp>(op)) {
      FailureOr<Dims> data = dimsOf(g.getData()), idx = dimsOf(g.getIndices());
      if (failed(data) || failed(idx))
        return failure();
      int64_t bd = g.getBatchDims(), k = cast<RankedTensorType>(g.getIndices().getType())
                                              .getShape()
                                              .back();
      for (int64_t d = 0; d < bd; ++d)
        if ((*data)[d] != (*idx)[d])
          return fail("batch dim " + Twine(d) + " of data (" + (*data)[d].str() +
                      ") and indices (" + (*idx)[d].str() + ") differ");
      Dims out(idx->begin(), idx->end() - 1);
      out.append(data->begin() + bd + k, data->end());
      return out;
    }
    // A pad: each dynamic dim plus its pads.
    if (auto pad = dyn_cast<PadOp>(op)) {
      FailureOr<Dims> in = dimsOf(pad.getInput());
      if (failed(in))
        return failure();
      Dims out = staticDims(result);
      ArrayRef<int64_t> pads = pad.getPads();
      for (int64_t i = 0; i < result.getRank(); ++i)
        if (result.isDynamicDim(i)) {
          std::optional<Size> padded = sizeAdd((*in)[i], Size::constant(pads[i]));
          if (padded)
            padded = sizeAdd(*padded, Size::constant(pads[i + result.getRank()]));
          if (!padded)
            return fail("the padded size of dim " + Twine(i) + " overflows int64");
          out[i] = *padded;
        }
      return out;
    }
    // A slice: its dynamic dims' sizes are given (`dims`).
    if (auto sl = dyn_cast<SliceOp>(op)) {
      Dims out = staticDims(result);
      for (int64_t i = 0; i < result.getRank(); ++i) {
        if (!result.isDynamicDim(i))
          continue;
        auto given = sl.getDims();
        std::optional<Size> m;
        if (given && size_t(i) < given->size())
          m = Size::parse(cast<StringAttr>((*given)[i]).getValue());
        if (!m)
          return fail("slice dim " + Twine(i) + " is dynamic but its size is not given");
        out[i] = *m;
      }
      return out;
    }
    if (isa<ScalarComputationOpInterface>(op))
      return broadcast(op, op->getOperands(), result);
    if (auto mm = dyn_cast<MatMulOp>(op))
      return matmul(mm, result);
    if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp, ArgMaxOp,
            ArgMinOp>(op)) {
      Value in = op->getOperand(0);
      SmallVector<int64_t> axes;
      if (auto attr = op->getAttrOfType<DenseI64ArrayAttr>("axes"))
        axes.assign(attr.asArrayRef().begin(), attr.asArrayRef().end());
      else if (auto axis = op->getAttrOfType<IntegerAttr>("axis"))
        axes.push_back(axis.getInt());
      FailureOr<Dims> d = dimsOf(in);
      if (failed(d))
        return failure();
      Dims out;
      auto it = cast<RankedTensorType>(in.getType());
      for (int64_t i = 0; i < it.getRank(); ++i)
        if (!llvm::is_contained(axes, i))
          out.push_back((*d)[i]);
        else if (result.getRank() == it.getRank())
          out.push_back(Size::constant(1));
      if (out.size() != size_t(result.getRank()))
        return fail("unexpected reduction result rank");
      return out;
    }
    if (auto t = dyn_cast<TransposeOp>(op)) {
      FailureOr<Dims> d = dimsOf(t.getInput());
      if (failed(d))
        return failure();
      Dims out;
      for (int64_t p : t.getPerm())
        out.push_back((*d)[p]);
      return out;
    }
    if (auto r = dyn_cast<ReshapeOp>(op))
      return reshape(r, result);
    // Shape-preserving ops: the first operand's sizes (a LayerNorm's scale and bias, a
    // Clip's bounds are static).
    // String calls: every operand has the result's sizes (the importer expands them).
    if (isa<StringCallOp>(op))
      return dimsOf(op->getOperand(0));
    if (isa<IdentityOp, SoftmaxOp, LogSoftmaxOp, LayerNormOp, BatchNormOp, ClipOp>(op)) {
      for (Value v : op->getOperands().drop_front())
        if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
          return fail("dynamic dims in an operand other than the first are not supported");
      return dimsOf(op->getOperand(0));
    }
    if (auto g = dyn_cast<GemmOp>(op)) {
      FailureOr<Dims> a = dimsOf(g.getA()), bd = dimsOf(g.getB());
      if (failed(a) || failed(bd))
        return failure();
      Size m = (*a)[g.getTransA() ? 1 : 0], k = (*a)[g.getTransA() ? 0 : 1];
      Size kb = (*bd)[g.getTransB() ? 1 : 0], nn = (*bd)[g.getTransB() ? 0 : 1];
      if (k != kb)
        assume(g, g.getA(), g.getTransA() ? 0 : 1, k, g.getB(), g.getTransB() ? 1 : 0, kb);
      if (Value c = g.getC()) {
        FailureOr<Dims> cd = dimsOf(c);
        if (failed(cd))
          return failure();
        for (const Size &s : *cd)
          if (!s.isStatic() && s != m && s != nn)
            return fail("the bias's dynamic dim (" + s.str() + ") is neither output dim");
      }
      return Dims{m, nn};
    }
    // Gather: the data's dims around the indices' dims (a dynamic gathered dim clamps the
    // indices to its size at run time).
    if (auto g = dyn_cast<GatherOp>(op)) {
      FailureOr<Dims> data = dimsOf(g.getData()), idx = dimsOf(g.getIndices());
      if (failed(data) || failed(idx))
        return failure();
      int64_t axis = g.getAxis();
      Dims out(data->begin(), data->begin() + axis);
      llvm::append_range(out, *idx);
      out.append(data->begin() + axis + 1, data->end());
      return out;
    }
    // A global pool: the batch and channels pass through, the image dims become 1.
    if (isa<GlobalAveragePoolOp>(op)) {
      FailureOr<Dims> d = dimsOf(op->getOperand(0));
      Dims out = staticDims(result);
      if (succeeded(d))
        out[0] = (*d)[0], out[1] = (*d)[1];
      return failed(d) ? FailureOr<Dims>(failure()) : FailureOr<Dims>(out);
    }
    // Convolutions and pools: the batch (and a pool's channels) pass through, each image
    // dim gives its number of windows (windowOutputSize), checked to be >= 1 when the
    // model runs; weights are static.
    if (isa<ConvOp, ConvNhwcOp, MaxPoolOp, AveragePoolOp>(op))
      return windows(op, result);
    return fail("the op does not support dynamic dims yet (give static shapes with "
                "--input-shape)");
  }

  FailureOr<Dims> windows(Operation *op, RankedTensorType result) {
    FailureOr<Dims> out = windowDims(op, result, dimsOf, func, assumed, why);
    return out;
  }

  /// The contents of `op`'s only result, when it is a small integer tensor computed from
  /// shapes.
  std::optional<Dims> resultValues(Operation *op) {
    auto type = cast<RankedTensorType>(op->getResult(0).getType());
    if (!type.getElementType().isInteger(64) && !type.getElementType().isInteger(32) &&
        !type.getElementType().isInteger(1))
      return std::nullopt;
    // (A 1-D tensor of dynamic length may still have known contents: computed from a
    // graph input given with --input-value.)
    if (type.getRank() > 1 ||
        (type.hasStaticShape() && type.getNumElements() > SymbolicShapes::kMaxValues))
      return std::nullopt;
    DenseIntElementsAttr dense;
    if (matchPattern(op->getResult(0), m_Constant(&dense))) {
      Dims out;
      bool isBool = type.getElementType().isInteger(1);
      for (const APInt &v : dense.getValues<APInt>())
        out.push_back(Size::constant(isBool ? int64_t(v.getZExtValue()) : v.getSExtValue()));
      return out;
    }
    if (auto s = dyn_cast<ShapeOp>(op)) {
      FailureOr<Dims> d = dimsOf(s.getInput());
      return succeeded(d) ? std::optional<Dims>(*d) : std::nullopt;
    }
    if (isa<ReshapeOp, IdentityOp, CastOp>(op)) {
      auto from = cast<RankedTensorType>(op->getOperand(0).getType()).getElementType();
      if (!from.isInteger(64) && !from.isInteger(32) && !from.isInteger(1))
        return std::nullopt;
      std::optional<Dims> v = valuesOf(op->getOperand(0));
      // A cast to bool: nonzero is true (known for static values only).
      if (v && type.getElementType().isInteger(1) && !from.isInteger(1)) {
        for (Size &s : *v) {
          if (!s.isStatic())
            return std::nullopt;
          s = Size::constant(s.coef != 0);
        }
      }
      return v;
    }
    if (auto g = dyn_cast<GatherOp>(op)) {
      std::optional<Dims> data = valuesOf(g.getData());
      DenseIntElementsAttr idx;
      if (!data || g.getAxis() != 0 || !matchPattern(g.getIndices(), m_Constant(&idx)))
        return std::nullopt;
      Dims out;
      for (const APInt &v : idx.getValues<APInt>()) {
        int64_t i = v.getSExtValue();
        i = i < 0 ? i + int64_t(data->size()) : i;
        if (i < 0 || i >= int64_t(data->size()))
          return std::nullopt;
        out.push_back((*data)[i]);
      }
      return out;
    }
    if (auto c = dyn_cast<ConcatOp>(op)) {
      Dims out;
      for (Value in : c.getInputs()) {
        std::optional<Dims> part = valuesOf(in);
        if (!part)
          return std::nullopt;
        llvm::append_range(out, *part);
      }
      return out;
    }
    if (auto s = dyn_cast<SliceOp>(op)) {
      std::optional<Dims> in = valuesOf(s.getInput());
      if (!in || s.getStarts().size() != 1 || ShapedType::isDynamic(s.getSizes()[0]) ||
          s.getStartDims())
        return std::nullopt;
      Dims out;
      for (int64_t i = 0; i < s.getSizes()[0]; ++i) {
        int64_t at = s.getStarts()[0] + i * s.getSteps()[0];
        if (at < 0 || at >= int64_t(in->size()))
          return std::nullopt;
        out.push_back((*in)[at]);
      }
      return out;
    }
    if (isa<MulOp, DivOp, AddOp, SubOp>(op))
      return arithmeticValues(op, valuesOf, func);
    if (isa<EqualOp, NotOp, AndOp, OrOp, MaxOp, MinOp, ModOp, WhereOp>(op)) {
      std::optional<Dims> out = logicValues(op, valuesOf, func);
      if (!out && speculated && isa<WhereOp>(op) && !valuesOf(op->getOperand(0)))
        out = firstBranch(op, type);
      return out;
    }
    return std::nullopt;
  }

  /// A Where's first branch, broadcast to its result (speculated: see assumingValues).
  std::optional<Dims> firstBranch(Operation *op, RankedTensorType type) {
    std::optional<Dims> x = valuesOf(op->getOperand(1));
    if (!x || !type.hasStaticShape() || !valuesOf(op->getOperand(2)))
      return std::nullopt;
    int64_t n = type.getNumElements();
    if (int64_t(x->size()) != n) {
      if (x->size() != 1)
        return std::nullopt;
      x = Dims(n, x->front());
    }
    speculated->push_back(op);
    return x;
  }
};

} // namespace

SymbolicShapes::SymbolicShapes(func::FuncOp func) : func(func) {
  for (BlockArgument arg : func.getArguments()) {
    auto t = dyn_cast<RankedTensorType>(arg.getType());
    if (!t)
      continue;
    Entry e;
    e.dims = staticDims(t);
    if (auto attr = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), kDimsAttr)) {
      for (auto [i, s] : llvm::enumerate(attr.getAsValueRange<StringAttr>())) {
        if (i >= e.dims.size() || t.isDynamicDim(i) == s.empty()) {
          e.failed = true;
          e.why = "argument " + std::to_string(arg.getArgNumber()) + " dim " +
                  std::to_string(i) + ": `dlc.dims` disagrees with its type";
          break;
        }
        if (!s.empty())
          e.dims[i] = SymbolicSize::symbol(s);
      }
    } else if (!t.hasStaticShape()) {
      e.failed = true;
      e.why = "argument " + std::to_string(arg.getArgNumber()) +
              " has dynamic dims but no `dlc.dims` naming them";
    }
    known[arg] = e;
  }
}

void SymbolicShapes::setValues(Value arg, SymbolicDims values) {
  auto it = known.find(arg);
  if (it != known.end() && !it->second.failed)
    it->second.values = std::move(values);
}

SymbolicShapes::Entry SymbolicShapes::compute(Value v) {
  Entry e;
  auto t = dyn_cast<RankedTensorType>(v.getType());
  Operation *op = v.getDefiningOp();
  if (!t || !op) {
    e.failed = true;
    e.why = "not a tensor of the model function";
    return e;
  }
  auto dimsOf = [&](Value x) -> FailureOr<Dims> {
    const Entry &in = entry(x);
    if (in.failed)
      return failure();
    return in.dims;
  };
  auto valuesOf = [&](Value x) -> std::optional<Dims> { return entry(x).values; };
  Rules rules{dimsOf, valuesOf, assumed, func, {}, speculated};
  bool dynamic = !t.hasStaticShape() || llvm::any_of(op->getOperandTypes(), [](Type ot) {
    auto rt = dyn_cast<RankedTensorType>(ot);
    return rt && !rt.hasStaticShape();
  });
  // A split's pieces keep the input's sizes but along the axis (their sizes, or `dims`).
  if (auto split = dyn_cast<SplitOp>(op)) {
    FailureOr<Dims> in = dimsOf(split.getInput());
    if (failed(in)) {
      e.failed = true;
      return e;
    }
    e.dims = *in;
    unsigned piece = cast<OpResult>(v).getResultNumber();
    int64_t axis = split.getAxis();
    if (!ShapedType::isDynamic(split.getSizes()[piece])) {
      e.dims[axis] = Size::constant(split.getSizes()[piece]);
      return e;
    }
    auto given = split.getDims();
    std::optional<Size> m;
    if (given && piece < given->size())
      m = Size::parse(cast<StringAttr>((*given)[piece]).getValue());
    if (!m) {
      e.failed = true;
      e.why = "split piece " + std::to_string(piece) + " is dynamic but its size is not given";
      return e;
    }
    e.dims[axis] = *m;
    return e;
  }
  // Unique: the input's sizes with the axis's replaced by the count it computes.
  if (auto u = dyn_cast<UniqueOp>(op)) {
    FailureOr<Dims> in = dimsOf(u.getInput());
    if (failed(in)) {
      e.failed = true;
      return e;
    }
    Size count = Size::symbol(u.getCount());
    unsigned r = cast<OpResult>(v).getResultNumber();
    if (r == 0) {
      e.dims = *in;
      e.dims[u.getAxis()] = count;
    } else {
      e.dims = {r == 2 ? (*in)[u.getAxis()] : count};
    }
    return e;
  }
  // Attention: [B, Hq, Sq, Dv] (and the scores [B, Hq, Sq, Skv]) from Q, K and V.
  if (auto att = dyn_cast<AttentionOp>(op)) {
    FailureOr<Dims> q = dimsOf(att.getQuery()), k = dimsOf(att.getKey()), val = dimsOf(att.getValue());
    if ((e.failed = failed(q) || failed(k) || failed(val)))
      return e;
    bool scores = cast<OpResult>(v).getResultNumber() != 0;
    e.dims = {(*q)[0], (*q)[1], (*q)[2], scores ? (*k)[att.getKeyTransposed() ? 3 : 2] : (*val)[3]};
    return e;
  }
  // StringSplit: the input's sizes, the parts with the count they compute after them.
  if (auto split = dyn_cast<StringSplitOp>(op)) {
    FailureOr<Dims> in = dimsOf(split.getInput());
    if (failed(in)) {
      e.failed = true;
      return e;
    }
    e.dims = *in;
    if (cast<OpResult>(v).getResultNumber() == 0)
      e.dims.push_back(Size::symbol(split.getCount()));
    return e;
  }
  if (op->getNumResults() != 1 || op->getNumRegions() != 0) {
    if (dynamic) {
      e.failed = true;
      e.why = "the op does not support dynamic dims yet";
    } else {
      e.dims = staticDims(t);
    }
    return e;
  }
  FailureOr<Dims> d = rules.resultDims(op);
  if (failed(d)) {
    e.failed = true;
    // An operand's failure is reported where it happened.
    e.why = rules.why.empty() ? "" : rules.why;
    return e;
  }
  e.dims = *d;
  e.values = rules.resultValues(op);
  return e;
}

const SymbolicShapes::Entry &SymbolicShapes::entry(Value v) {
  auto it = known.find(v);
  if (it != known.end())
    return it->second;
  // Producers first, without recursion (graphs are deep).
  SmallVector<Value> stack = {v};
  while (!stack.empty()) {
    Value top = stack.back();
    if (known.count(top)) {
      stack.pop_back();
      continue;
    }
    bool ready = true;
    if (Operation *op = top.getDefiningOp())
      for (Value operand : op->getOperands())
        if (!known.count(operand) && operand.getDefiningOp()) {
          stack.push_back(operand);
          ready = false;
        }
    if (!ready)
      continue;
    stack.pop_back();
    Entry e = compute(top);
    known[top] = std::move(e);
  }
  return known[v];
}

FailureOr<SymbolicDims> SymbolicShapes::dims(Value v, std::string *why) {
  const Entry &e = entry(v);
  if (e.failed) {
    if (why) {
      *why = e.why;
      // Failed for an operand's sake: the reason where the failure started.
      for (Value cur = v; why->empty() && cur.getDefiningOp();) {
        Value next;
        for (Value operand : cur.getDefiningOp()->getOperands())
          if (auto it = known.find(operand); it != known.end() && it->second.failed) {
            next = operand;
            break;
          }
        if (!next)
          break;
        cur = next;
        if (!known[cur].why.empty() && cur.getDefiningOp()) {
          Operation *at = cur.getDefiningOp();
          StringRef node = nodeName(at->getLoc());
          *why = (node.empty() ? "" : "node '" + node.str() + "' (") +
                 at->getName().getStringRef().str() + (node.empty() ? "" : ")") + ": " +
                 known[cur].why;
        }
      }
    }
    return failure();
  }
  return e.dims;
}

std::optional<SymbolicDims> SymbolicShapes::values(Value v) { return entry(v).values; }

std::optional<SymbolicDims> SymbolicShapes::assumingValues(Value v,
                                                           SmallVectorImpl<Operation *> &wheres) {
  // Contents found unknown without speculation may follow from a Where: computed again
  // (the arguments' entries and the known contents stay), then forgotten.
  llvm::DenseMap<Value, Entry> saved = known;
  for (auto it = known.begin(); it != known.end();) {
    auto next = std::next(it);
    if (it->first.getDefiningOp() && !it->second.values)
      known.erase(it);
    it = next;
  }
  speculated = &wheres;
  std::optional<SymbolicDims> out = entry(v).values;
  speculated = nullptr;
  known = std::move(saved);
  if (!out)
    wheres.clear();
  return out;
}

} // namespace dlc::graph
