// Result-type inference (and with it the verifiers) of the composite region ops:
// attention, rnn, gru and lstm.
#include "dialects/Graph/IR/CheckedMath.h"
#include "dialects/Graph/IR/CheckedBuild.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace dlc::graph;

namespace {

LogicalResult fail(std::optional<Location> loc, const Twine &msg) {
  return emitOptionalError(loc, msg);
}


RankedTensorType tensorOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// `what` broadcasts to exactly `shape` (and is not of higher rank).
LogicalResult checkBroadcastsTo(std::optional<Location> loc, Value v, ArrayRef<int64_t> shape,
                                StringRef what) {
  auto s = broadcastShapes(tensorOf(v).getShape(), shape);
  if (!s || ArrayRef<int64_t>(*s) != shape)
    return fail(loc, Twine(what) + " of shape " + shapeText(tensorOf(v).getShape()) +
                         " does not broadcast to the scores " + shapeText(shape));
  return success();
}

} // namespace

Value dlc::graph::attentionMaskOperand(ValueRange masks, bool hasMask, bool hasSelect,
                                       bool hasKvLengths, unsigned role) {
  bool present[3] = {hasMask, hasSelect, hasKvLengths};
  if (role > 2 || !present[role])
    return Value();
  unsigned index = 0;
  for (unsigned r = 0; r < role; ++r)
    index += present[r];
  return index < masks.size() ? masks[index] : Value();
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto q = tensorOf(adaptor.getQuery()), k = tensorOf(adaptor.getKey()),
       v = tensorOf(adaptor.getValue());
  if (q.getRank() != 4 || k.getRank() != 4 || v.getRank() != 4)
    return fail(loc, "expected rank-4 query, key and value, got ranks " + Twine(q.getRank()) +
                         ", " + Twine(k.getRank()) + " and " + Twine(v.getRank()));
  Type elt = q.getElementType();
  if (k.getElementType() != elt || v.getElementType() != elt)
    return fail(loc, "query, key and value element types differ");
  bool kt = adaptor.getKeyTransposed();
  int64_t batch = q.getDimSize(0), hq = q.getDimSize(1), sq = q.getDimSize(2),
          d = q.getDimSize(3), hkv = k.getDimSize(1), kd = k.getDimSize(kt ? 2 : 3),
          skv = k.getDimSize(kt ? 3 : 2);
  if (k.getDimSize(0) != batch || v.getDimSize(0) != batch)
    return fail(loc, "batch dims differ: query " + shapeText(q.getShape()) + ", key " +
                         shapeText(k.getShape()) + ", value " + shapeText(v.getShape()));
  if (kd != d)
    return fail(loc, "key head size " + Twine(kd) + " differs from the query's " + Twine(d));
  if (v.getDimSize(1) != hkv || v.getDimSize(2) != skv)
    return fail(loc, "value " + shapeText(v.getShape()) + " must have the key's " + Twine(hkv) +
                         " heads and " + Twine(skv) + " positions");
  if (hq != hkv && (hkv <= 0 || hq % hkv != 0))
    return fail(loc, "the query heads (" + Twine(hq) + ") must be a multiple of the key/value "
                     "heads (" + Twine(hkv) + ")");
  SmallVector<int64_t> scores = {batch, hq, sq, skv};
  bool hasMask = adaptor.getHasMask(), hasSelect = adaptor.getHasSelect(),
       hasKv = adaptor.getHasKvLengths();
  ValueRange masks = adaptor.getMasks();
  if (masks.size() != unsigned(hasMask) + hasSelect + hasKv)
    return fail(loc, "expected " + Twine(unsigned(hasMask) + hasSelect + hasKv) +
                         " masks (has_mask, has_select, has_kv_lengths), got " +
                         Twine(masks.size()));
  auto role = [&](unsigned r) { return attentionMaskOperand(masks, hasMask, hasSelect, hasKv, r); };
  if (Value m = role(0)) {
    Type me = tensorOf(m).getElementType();
    if (!me.isInteger(1) && !isa<FloatType>(me))
      return fail(loc, "mask must be i1 or floating-point");
    if (tensorOf(m).getRank() < 1)
      return fail(loc, "mask must have rank >= 1");
    if (failed(checkBroadcastsTo(loc, m, scores, "mask")))
      return failure();
  }
  if (Value s = role(1)) {
    if (!tensorOf(s).getElementType().isInteger(1))
      return fail(loc, "select must be i1");
    if (failed(checkBroadcastsTo(loc, s, scores, "select")))
      return failure();
  }
  if (hasSelect != bool(adaptor.getSelectFillAttr()))
    return fail(loc, "select and select_fill must be given together");
  if (Value kvl = role(2)) {
    auto kvt = tensorOf(kvl);
    if (!isa<IntegerType>(kvt.getElementType()) || kvt.getElementType().isInteger(1))
      return fail(loc, "kv_lengths must be an integer tensor");
    if (kvt.getShape() != ArrayRef<int64_t>{batch})
      return fail(loc, "kv_lengths must be [" + Twine(batch) + "], got " +
                           shapeText(tensorOf(kvl).getShape()));
    if (adaptor.getCausalOffset() && *adaptor.getCausalOffset() != 0)
      return fail(loc, "kv_lengths cannot be combined with a causal_offset");
  }
  auto value = [](std::optional<APFloat> f, double absent) {
    return f ? f->convertToDouble() : absent;
  };
  double factor = value(adaptor.getQkFactor(), 1), scale = value(adaptor.getScoreScale(), 1),
         softcap = value(adaptor.getSoftcap(), 0);
  if (!std::isfinite(factor) || !std::isfinite(scale))
    return fail(loc, "qk_factor and score_scale must be finite");
  if (adaptor.getScoreScaleDivides() && scale == 0)
    return fail(loc, "a dividing score_scale must not be 0");
  if (!(softcap >= 0) || std::isinf(softcap))
    return fail(loc, "softcap must be finite and >= 0, got " +
                         llvm::formatv("{0}", softcap).str());
  // (I64Attr getters return uint64_t.)
  int64_t offset = adaptor.getCausalOffset().value_or(0),
          left = adaptor.getWindowLeft().value_or(-1),
          right = adaptor.getWindowRight().value_or(-1);
  if (offset < 0)
    return fail(loc, "causal_offset must be >= 0, got " + Twine(offset));
  if (left < -1 || right < -1)
    return fail(loc, "window sizes must be >= -1 (-1: unbounded)");
  if (auto t = adaptor.getSoftmaxTypeAttr(); t && !isa<FloatType>(t.getValue()))
    return fail(loc, "softmax_type must be a floating-point type, got " +
                         Twine(llvm::formatv("{0}", t.getValue()).str()));
  if (adaptor.getMaskedRowsZero() && adaptor.getNanToZero())
    return fail(loc, "masked_rows_zero and nan_to_zero exclude each other");
  std::optional<int64_t> mode = adaptor.getScoresMode();
  if (mode && (*mode < 0 || *mode > 3))
    return fail(loc, "scores_mode must be in [0, 3], got " + Twine(*mode));
  results.push_back(RankedTensorType::get({batch, hq, sq, v.getDimSize(3)}, elt));
  if (mode)
    results.push_back(RankedTensorType::get(scores, elt));
  return success();
}

/// The functions an activation entry may name (RecurrenceExpansion implements them).
static bool isKnownActivation(StringRef f) {
  return llvm::is_contained({"Sigmoid", "Tanh", "Relu", "LeakyRelu", "ThresholdedRelu",
                             "ScaledTanh", "HardSigmoid", "Elu", "Softsign", "Softplus",
                             "Affine"},
                            f);
}

/// Shared rule of rnn (1 gate), gru (3) and lstm (4): operand shapes, then
/// y [S, dirs, B, H], y_h [dirs, B, H] (and y_c).
template <typename Adaptor>
static LogicalResult inferRecurrent(std::optional<Location> loc, Adaptor adaptor, int64_t gates,
                                    int64_t perDirection, ArrayRef<Value> states, Value peepholes,
                                    unsigned numResults, SmallVectorImpl<Type> &results) {
  auto x = tensorOf(adaptor.getInput()), w = tensorOf(adaptor.getW()),
       r = tensorOf(adaptor.getR());
  Type elt = x.getElementType();
  if (x.getRank() != 3 || w.getRank() != 3 || r.getRank() != 3)
    return fail(loc, "expected rank-3 input, w and r, got ranks " + Twine(x.getRank()) + ", " +
                         Twine(w.getRank()) + " and " + Twine(r.getRank()));
  StringRef dir = adaptor.getDirection();
  if (dir != "forward" && dir != "reverse" && dir != "bidirectional")
    return fail(loc, "direction must be forward, reverse or bidirectional, got '" + dir + "'");
  int64_t dirs = dir == "bidirectional" ? 2 : 1, h = adaptor.getHiddenSize();
  int64_t s = x.getDimSize(0), batch = x.getDimSize(1), in = x.getDimSize(2);
  if (h <= 0)
    return fail(loc, "hidden_size must be > 0, got " + Twine(h));
  I64c gh = I64c(gates) * h, gh2 = gh * 2, h3 = I64c(3) * h;
  if (!gh2.ok() || !h3.ok())
    return fail(loc, "hidden_size " + Twine(h) + " overflows the gate dims");
  auto expect = [&](Value v, ArrayRef<int64_t> shape, StringRef what) -> LogicalResult {
    if (!v)
      return success();
    if (tensorOf(v).getElementType() != elt)
      return fail(loc, Twine(what) + " element type differs from the input's");
    if (tensorOf(v).getShape() != shape)
      return fail(loc, Twine(what) + " must be " + shapeText(shape) + ", got " +
                           shapeText(tensorOf(v).getShape()));
    return success();
  };
  if (failed(expect(adaptor.getW(), {dirs, gh.value(), in}, "w")) ||
      failed(expect(adaptor.getR(), {dirs, gh.value(), h}, "r")) ||
      failed(expect(adaptor.getBias(), {dirs, gh2.value()}, "bias")) ||
      failed(expect(peepholes, {dirs, h3.value()}, "peepholes")))
    return failure();
  for (Value st : states)
    if (failed(expect(st, {dirs, batch, h}, "initial state")))
      return failure();
  ArrayAttr acts = adaptor.getActivations();
  if ((int64_t)acts.size() != perDirection * dirs)
    return fail(loc, "expected " + Twine(perDirection * dirs) + " activations (" +
                         Twine(perDirection) + " per direction), got " + Twine(acts.size()));
  for (Attribute a : acts)
    if (!isKnownActivation(cast<StringAttr>(a).getValue()))
      return fail(loc, "unknown activation '" + cast<StringAttr>(a).getValue() + "'");
  if (adaptor.getActivationAlpha().size() != acts.size() ||
      adaptor.getActivationBeta().size() != acts.size())
    return fail(loc, "activation_alpha and activation_beta must have one entry per activation");
  double clip = adaptor.getClip() ? adaptor.getClip()->convertToDouble() : 0.0;
  if (!(clip >= 0) || std::isinf(clip))
    return fail(loc, "clip must be finite and >= 0 (0: none), got " +
                         llvm::formatv("{0}", clip).str());
  results.push_back(RankedTensorType::get({s, dirs, batch, h}, elt));
  for (unsigned i = 1; i < numResults; ++i)
    results.push_back(RankedTensorType::get({dirs, batch, h}, elt));
  return success();
}

LogicalResult RnnOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferRecurrent(loc, adaptor, 1, 1, {adaptor.getInitialH()}, Value(), 2, results);
}

LogicalResult GruOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferRecurrent(loc, adaptor, 3, 2, {adaptor.getInitialH()}, Value(), 2, results);
}

LogicalResult LstmOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  return inferRecurrent(loc, adaptor, 4, 3, {adaptor.getInitialH(), adaptor.getInitialC()},
                        adaptor.getPeepholes(), 3, results);
}
