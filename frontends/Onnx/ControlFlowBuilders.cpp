// ONNX control flow with static structure, imported inline: If (the taken branch when the
// condition is known at compile time, else both branches and a select), Scan and Loop
// unrolled over their (compile-time) trip counts.
#include "frontends/Onnx/Expr.h"

#include "mlir/IR/Matchers.h"
#include "llvm/ADT/ScopeExit.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// A known scalar boolean (constant or folded from specialized inputs).
std::optional<bool> knownBool(Value v) {
  DenseElementsAttr attr;
  if (!v || !matchPattern(v, m_Constant(&attr)) || attr.getNumElements() != 1)
    return std::nullopt;
  if (attr.getElementType().isInteger(1))
    return *attr.value_begin<bool>();
  if (isa<IntegerType>(attr.getElementType()))
    return !(*attr.value_begin<APInt>()).isZero();
  return std::nullopt;
}

LogicalResult ifOp(NodeImporter &n, Results &out) {
  auto cond = n.requiredInput(0);
  DLC_TRY(cond);
  // If may take sequences and optionals: its condition must still be one boolean.
  auto ct = dyn_cast<RankedTensorType>(cond->getType());
  if (!ct || ct.getNumElements() != 1 || !isa<IntegerType>(ct.getElementType()))
    return n.error("cond must be a one-element bool tensor");
  const onnx::GraphProto *thenG = n.graphAttr("then_branch"), *elseG = n.graphAttr("else_branch");
  if (!thenG || !elseG)
    return n.error("needs then_branch and else_branch graphs");
  std::optional<bool> c;
  if (DenseElementsAttr attr = n.knownInput(0))
    c = attr.getElementType().isInteger(1) ? *attr.value_begin<bool>()
                                           : !(*attr.value_begin<APInt>()).isZero();
  if (c) {
    auto r = n.subgraph(*c ? *thenG : *elseG, {});
    DLC_TRY(r);
    llvm::append_range(out, *r);
    return success();
  }
  // Unknown condition: both branches (side-effect free), selected elementwise; neither
  // gets run-time checks (a check in the branch not taken must not fail the run).
  if (n.speculationDepth)
    ++*n.speculationDepth;
  llvm::scope_exit speculation([&] {
    if (n.speculationDepth)
      --*n.speculationDepth;
  });
  auto t = n.subgraph(*thenG, {});
  DLC_TRY(t);
  auto f = n.subgraph(*elseG, {});
  DLC_TRY(f);
  // A condition computed from a graph input (its value or its shape) is known when
  // compiling once that input is given (--input-value, or its shape with --input-shape).
  std::string from = n.valueSource(*cond, /*throughShapes=*/true);
  std::string hint = from.empty() ? std::string()
                                  : "; the condition is computed from graph input '" + from +
                                        "' (give its value, dlc compile --input-value " + from +
                                        "=FILE, or its shape, --input-shape)";
  if (t->size() != f->size())
    return n.error("the branches return different numbers of values");
  for (auto [a, b] : llvm::zip(*t, *f)) {
    if (!isa<RankedTensorType>(a.getType()) || !isa<RankedTensorType>(b.getType()))
      return n.error("branches that return sequences or optionals need a condition known at "
                     "compile time" + hint);
    if (a.getType() != b.getType())
      return n.error("with a condition known only at run time both branches must return the "
                     "same types" + hint);
    auto r = n.create<WhereOp>({*cond, a, b});
    DLC_TRY(r);
    out.push_back(*r);
  }
  return success();
}

/// x[.., t, ..] along `axis`, with the axis removed.
Value takeAt(Expr &e, Value x, int64_t axis, int64_t t) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  auto xt = tensorType(x);
  int64_t r = xt.getRank();
  SmallVector<int64_t> starts(r, 0), sizes(xt.getShape()), steps(r, 1), shape;
  starts[axis] = t;
  sizes[axis] = 1;
  for (int64_t d = 0; d < r; ++d)
    if (d != axis)
      shape.push_back(xt.getDimSize(d));
  Value s = e.slice(x, starts, sizes, steps);
  return e.reshape(s, shape);
}

/// Stacks per-iteration values along a new `axis`.
Value stack(Expr &e, ArrayRef<Value> parts, int64_t axis) {
  SmallVector<Value> unsq;
  for (Value p : parts) {
    SmallVector<int64_t> shape(tensorType(p).getShape());
    shape.insert(shape.begin() + axis, 1);
    unsq.push_back(e.reshape(p, shape));
  }
  if (unsq.size() == 1)
    return unsq[0];
  if (e.failed)
    return {};
  auto r = e.n.create<ConcatOp>(unsq, {e.n.named("axis", e.n.b.getI64IntegerAttr(axis))});
  return failed(r) ? e.fail() : *r;
}

/// x reversed along `axis`, whose size is `len` (a gather of len-1-i).
FailureOr<Value> reversedAlong(NodeImporter &n, Value x, int64_t axis, const SymbolicSize &len) {
  auto idx = n.iota(len);
  DLC_TRY(idx);
  auto last = n.sizeValue(*sizeAdd(len, SymbolicSize::constant(-1)));
  DLC_TRY(last);
  auto rev = n.create<SubOp>({*last, *idx});
  DLC_TRY(rev);
  return n.create<GatherOp>({x, *rev}, {n.named("axis", n.b.getI64IntegerAttr(axis))});
}

/// Scan over dynamic dims (dlc compile --dims): the body unrolled up to the sequence's
/// greatest length, the states kept from step T on; scan inputs padded to that length
/// (reversed first where they scan backwards), scan outputs cut back to T.
LogicalResult scanDynamic(NodeImporter &n, const onnx::GraphProto &body, SmallVector<Value> states,
                          ArrayRef<Value> scans, ArrayRef<int64_t> axes, ArrayRef<int64_t> inDirs,
                          ArrayRef<int64_t> outAxes, ArrayRef<int64_t> outDirs, Results &out) {
  int64_t N = states.size(), M = scans.size(), K = outAxes.size();
  std::optional<SymbolicSize> T;
  SmallVector<SmallVector<SymbolicSize>> dims;
  for (int64_t j = 0; j < M; ++j) {
    auto d = n.sizesOf(scans[j]);
    if (!d)
      return n.error("the sizes of the scan inputs' dynamic dims are not known");
    if (T && (*d)[axes[j]] != *T)
      return n.error("scan inputs have different sequence lengths (" + T->str() + " and " +
                     (*d)[axes[j]].str() + ")");
    T = (*d)[axes[j]];
    dims.push_back(*d);
  }
  auto bound = unrollSteps(n, *T, 4096, "the scan length");
  DLC_TRY(bound);
  int64_t steps = *bound;
  bool masked = !T->isStatic();
  SmallVector<Value> padded;
  for (int64_t j = 0; j < M; ++j) {
    Value x = scans[j];
    if (inDirs[j]) {
      auto r = reversedAlong(n, x, axes[j], *T);
      DLC_TRY(r);
      x = *r;
    }
    if (masked) {
      auto p = padAxisTo(n, x, axes[j], *T, steps);
      DLC_TRY(p);
      x = *p;
      dims[j][axes[j]] = SymbolicSize::constant(steps);
    }
    padded.push_back(x);
  }
  Value len;
  if (masked) {
    auto l = n.dimSize(scans[0], axes[0]);
    DLC_TRY(l);
    len = *l;
  }
  Type i64 = n.b.getI64Type();
  SmallVector<SmallVector<Value>> perIter(K);
  for (int64_t step = 0; step < steps; ++step) {
    SmallVector<Value> args(states);
    for (int64_t j = 0; j < M; ++j) {
      SmallVector<SymbolicSize> from(dims[j].size(), SymbolicSize::constant(0)), size(dims[j]);
      from[axes[j]] = SymbolicSize::constant(step);
      size[axes[j]] = SymbolicSize::constant(1);
      auto x = sliceTo(n, padded[j], from, size);
      DLC_TRY(x);
      size.erase(size.begin() + axes[j]);
      x = n.reshapeTo(*x, size);
      DLC_TRY(x);
      args.push_back(*x);
    }
    auto r = n.subgraph(body, args);
    DLC_TRY(r);
    for (int64_t i = 0; i < N; ++i) {
      Value next = (*r)[i];
      if (masked && isa<RankedTensorType>(next.getType())) {
        auto valid = n.create<LessOp>({n.intConstant(i64, step), len});
        DLC_TRY(valid);
        auto kept = n.create<WhereOp>({*valid, next, states[i]});
        DLC_TRY(kept);
        next = *kept;
      }
      states[i] = next;
    }
    for (int64_t k = 0; k < K; ++k) {
      Value y = (*r)[N + k];
      if (!isa<RankedTensorType>(y.getType())) // they are stacked
        return n.error("the body's scan outputs must be tensors");
      perIter[k].push_back(y);
    }
  }
  llvm::append_range(out, states);
  for (int64_t k = 0; k < K; ++k) {
    auto a = n.normalizeAxis(outAxes[k], tensorType(perIter[k][0]).getRank() + 1);
    DLC_TRY(a);
    SmallVector<Value> parts;
    SmallVector<SymbolicSize> size;
    for (Value y : perIter[k]) {
      std::string why;
      auto d = tensorType(y).hasStaticShape() || !n.dynamicFunc
                   ? FailureOr<SymbolicDims>(*n.sizesOf(y))
                   : n.shapes().dims(y, &why);
      if (failed(d))
        return n.error("the sizes of the body's scan output " + Twine(k) + " are not known: " +
                       why);
      size = *d;
      size.insert(size.begin() + *a, SymbolicSize::constant(1));
      auto u = n.reshapeTo(y, size);
      DLC_TRY(u);
      parts.push_back(*u);
    }
    auto y = parts.size() == 1 ? FailureOr<Value>(parts[0])
                               : n.create<ConcatOp>(parts, {n.named("axis", n.b.getI64IntegerAttr(*a))});
    DLC_TRY(y);
    if (masked) {
      SmallVector<SymbolicSize> from(size.size(), SymbolicSize::constant(0));
      size[*a] = *T;
      y = sliceTo(n, *y, from, size);
      DLC_TRY(y);
    }
    if (outDirs[k]) {
      y = reversedAlong(n, *y, *a, *T);
      DLC_TRY(y);
    }
    out.push_back(*y);
  }
  return success();
}

LogicalResult scan(NodeImporter &n, Results &out) {
  if (n.opset < 9)
    return n.error("Scan before opset 9 (batched, with sequence_lens) is not supported");
  const onnx::GraphProto *body = n.graphAttr("body");
  auto m = n.intAttr("num_scan_inputs", 0);
  DLC_TRY(m);
  if (!body)
    return n.error("needs a body graph");
  int64_t total = n.numInputs(), M = *m, N = total - M;
  if (M < 1 || N < 0)
    return n.error("num_scan_inputs must be between 1 and the number of inputs");
  auto inAxes = n.intsAttr("scan_input_axes", SmallVector<int64_t>(M, 0));
  auto inDirs = n.intsAttr("scan_input_directions", SmallVector<int64_t>(M, 0));
  DLC_TRY(inAxes);
  DLC_TRY(inDirs);
  int64_t K = body->output_size() - N;
  auto outAxes = n.intsAttr("scan_output_axes", SmallVector<int64_t>(std::max<int64_t>(K, 0), 0));
  auto outDirs = n.intsAttr("scan_output_directions", SmallVector<int64_t>(std::max<int64_t>(K, 0), 0));
  DLC_TRY(outAxes);
  DLC_TRY(outDirs);
  if ((int64_t)inAxes->size() != M || (int64_t)inDirs->size() != M || K < 0 ||
      (int64_t)outAxes->size() != K || (int64_t)outDirs->size() != K)
    return n.error("scan axes/directions do not match the inputs and body outputs");
  SmallVector<Value> states, scans;
  for (int64_t i = 0; i < total; ++i) {
    auto v = n.requiredInput(i);
    DLC_TRY(v);
    (i < N ? states : scans).push_back(*v);
  }
  if (llvm::any_of(llvm::concat<Value>(states, scans),
                   [](Value v) {
                     auto t = dyn_cast<RankedTensorType>(v.getType());
                     return t && !t.hasStaticShape();
                   })) {
    SmallVector<int64_t> axes;
    for (int64_t j = 0; j < M; ++j) {
      auto a = n.dimAxis((*inAxes)[j], tensorType(scans[j]).getRank());
      DLC_TRY(a);
      axes.push_back(*a);
    }
    return scanDynamic(n, *body, states, scans, axes, *inDirs, *outAxes, *outDirs, out);
  }
  Expr e{n, Type()};
  int64_t T = -1;
  SmallVector<int64_t> axes;
  for (int64_t j = 0; j < M; ++j) {
    auto a = n.dimAxis((*inAxes)[j], tensorType(scans[j]).getRank());
    DLC_TRY(a);
    axes.push_back(*a);
    int64_t len = tensorType(scans[j]).getDimSize(*a);
    if (T >= 0 && len != T)
      return n.error("scan inputs have different sequence lengths");
    T = len;
  }
  if (T < 1)
    return n.error("an empty scan sequence is not supported");
  if (T > 4096)
    return n.error("scan sequences longer than 4096 are not supported (unrolled)");
  SmallVector<SmallVector<Value>> perIter(K);
  for (int64_t step = 0; step < T; ++step) {
    SmallVector<Value> args(states);
    for (int64_t j = 0; j < M; ++j)
      args.push_back(takeAt(e, scans[j], axes[j], (*inDirs)[j] ? T - 1 - step : step));
    if (e.failed)
      return failure();
    auto r = n.subgraph(*body, args);
    DLC_TRY(r);
    states.assign(r->begin(), r->begin() + N);
    for (int64_t k = 0; k < K; ++k) {
      if (!isa<RankedTensorType>((*r)[N + k].getType())) // they are stacked
        return n.error("the body's scan outputs must be tensors");
      perIter[k].push_back((*r)[N + k]);
    }
  }
  llvm::append_range(out, states);
  for (int64_t k = 0; k < K; ++k) {
    if ((*outDirs)[k])
      std::reverse(perIter[k].begin(), perIter[k].end());
    auto a = n.normalizeAxis((*outAxes)[k], tensorType(perIter[k][0]).getRank() + 1);
    DLC_TRY(a);
    out.push_back(stack(e, perIter[k], *a));
  }
  return e.failed ? failure() : success();
}

LogicalResult loop(NodeImporter &n, Results &out) {
  const onnx::GraphProto *body = n.graphAttr("body");
  if (!body)
    return n.error("needs a body graph");
  int64_t maxTrip = INT64_MAX;
  if (n.input(0)) {
    auto m = n.constantInts(0);
    DLC_TRY(m);
    if (m->size() != 1)
      return n.error("M (the trip count) must hold one value");
    maxTrip = (*m)[0];
  }
  bool cond = true;
  if (n.input(1)) {
    auto c = n.constantInput(1);
    DLC_TRY(c);
    if (c->getNumElements() != 1 || !isa<IntegerType>(c->getElementType()))
      return n.error("cond must be a one-element bool tensor");
    cond = c->getElementType().isInteger(1) ? *c->value_begin<bool>()
                                            : !(*c->value_begin<APInt>()).isZero();
  }
  SmallVector<Value> carried;
  for (unsigned i = 2; i < n.numInputs(); ++i) {
    auto v = n.requiredInput(i);
    DLC_TRY(v);
    carried.push_back(*v);
  }
  int64_t N = carried.size(), K = body->output_size() - 1 - N;
  if (K < 0 || body->input_size() != N + 2)
    return n.error("the body's inputs and outputs do not match the loop-carried values");
  Type i64 = n.b.getI64Type(), i1 = n.b.getI1Type();
  Expr e{n, i64};
  SmallVector<SmallVector<Value>> perIter(K);
  int64_t iter = 0;
  for (; iter < maxTrip && cond; ++iter) {
    if (iter >= 4096)
      return n.error("loops of more than 4096 iterations are not supported (unrolled)");
    SmallVector<Value> args = {
        n.constant(DenseElementsAttr::get(RankedTensorType::get({}, i64), iter)),
        n.constant(DenseElementsAttr::get(RankedTensorType::get({}, i1), cond))};
    llvm::append_range(args, carried);
    auto r = n.subgraph(*body, args);
    DLC_TRY(r);
    std::optional<bool> next = knownBool((*r)[0]);
    if (!next)
      return n.error("the loop condition is known only at run time (not supported)");
    cond = *next;
    carried.assign(r->begin() + 1, r->begin() + 1 + N);
    for (int64_t k = 0; k < K; ++k) {
      if (!isa<RankedTensorType>((*r)[1 + N + k].getType())) // they are stacked
        return n.error("the body's scan outputs must be tensors");
      perIter[k].push_back((*r)[1 + N + k]);
    }
  }
  if (K > 0 && iter == 0)
    return n.error("a loop with scan outputs that runs no iteration is not supported");
  llvm::append_range(out, carried);
  for (int64_t k = 0; k < K; ++k)
    out.push_back(stack(e, perIter[k], 0));
  return e.failed ? failure() : success();
}

const OpBuilderEntry kControlFlow[] = {
    {"If", 1, ifOp},
    {"Scan", 8, scan},
    {"Loop", 1, loop},
};

} // namespace

ArrayRef<OpBuilderEntry> controlFlowBuilders() { return kControlFlow; }

} // namespace dlc::onnx_frontend
