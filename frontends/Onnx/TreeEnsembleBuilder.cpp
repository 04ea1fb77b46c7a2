// ONNX-ML TreeEnsemble (ai.onnx.ml opset 5) with the trees unrolled into matrices: every
// node's test is computed for all samples at once ([N, nodes]), a leaf is reached when
// all tests on its root path come out its way (counted by two constant matmuls), and
// reached leaves add (SUM/AVERAGE) or min/max their weights into their targets.
#include "frontends/Onnx/Expr.h"
#include "frontends/Onnx/RuntimeChecks.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

/// Values of a numeric attribute given as INTS/FLOATS or as a TENSOR.
FailureOr<SmallVector<double>> numbers(NodeImporter &n, StringRef name, bool required) {
  const onnx::AttributeProto *a = n.findAttr(name);
  SmallVector<double> v;
  if (!a) {
    if (required)
      return n.error("missing attribute '" + name + "'");
    return v;
  }
  if (a->type() == onnx::AttributeProto::TENSOR) {
    auto t = n.tensorAttr(a->t());
    DLC_TRY(t);
    if (isa<FloatType>(t->getElementType()))
      for (const APFloat &f : t->getValues<APFloat>())
        v.push_back(f.convertToDouble());
    else
      for (const APInt &i : t->getValues<APInt>())
        v.push_back((double)(t->getElementType().isUnsignedInteger() ? i.getZExtValue()
                                                                     : i.getSExtValue()));
    return v;
  }
  for (int64_t i : a->ints())
    v.push_back((double)i);
  for (float f : a->floats())
    v.push_back(f);
  return v;
}

enum Mode { LEQ = 0, LT, GTE, GT, EQ, NEQ, MEMBER };

struct Leaf {
  int64_t index;                                // into leaf_weights / leaf_targetids
  SmallVector<std::pair<int64_t, bool>> path;    // (node, taken branch is the true one)
};

} // namespace

LogicalResult treeEnsemble(NodeImporter &n, SmallVectorImpl<Value> &out) {
  auto x = n.requiredInput(0);
  DLC_TRY(x);
  auto xt = tensorType(*x);
  Type elt = xt.getElementType();
  if (xt.getRank() != 2 || !isa<FloatType>(elt))
    return n.error("expects floating-point features [N, F]");
  auto splits = numbers(n, "nodes_splits", true), features = numbers(n, "nodes_featureids", true),
       modes = numbers(n, "nodes_modes", true), trueIds = numbers(n, "nodes_truenodeids", true),
       falseIds = numbers(n, "nodes_falsenodeids", true),
       trueLeafs = numbers(n, "nodes_trueleafs", true),
       falseLeafs = numbers(n, "nodes_falseleafs", true),
       targets = numbers(n, "leaf_targetids", true), weights = numbers(n, "leaf_weights", true),
       roots = numbers(n, "tree_roots", true), members = numbers(n, "membership_values", false),
       missing = numbers(n, "nodes_missing_value_tracks_true", false);
  auto nTargets = n.intAttr("n_targets", 0), aggregate = n.intAttr("aggregate_function", 1),
       post = n.intAttr("post_transform", 0);
  for (auto *r : {&splits, &features, &modes, &trueIds, &falseIds, &trueLeafs, &falseLeafs,
                  &targets, &weights, &roots, &members, &missing})
    DLC_TRY(*r);
  DLC_TRY(nTargets);
  DLC_TRY(aggregate);
  DLC_TRY(post);
  if (*post != 0)
    return n.error("post_transform " + Twine(*post) + " is not supported (only NONE)");
  // Ids, modes and flags index arrays below (as int64): integers in range, never NaN.
  auto isIndex = [](double v) { return std::fabs(v) < 0x1p53 && v == std::floor(v); };
  for (auto [name, v] : {std::pair{"nodes_featureids", &*features}, {"nodes_modes", &*modes},
                         {"nodes_truenodeids", &*trueIds}, {"nodes_falsenodeids", &*falseIds},
                         {"nodes_trueleafs", &*trueLeafs}, {"nodes_falseleafs", &*falseLeafs},
                         {"leaf_targetids", &*targets}, {"tree_roots", &*roots}})
    if (!llvm::all_of(*v, isIndex))
      return n.error("attribute '" + Twine(name) + "' must hold integers");
  if (*aggregate < 0 || *aggregate > 3)
    return n.error("aggregate_function must be 0 (AVERAGE) to 3 (MAX)");
  int64_t numNodes = splits->size(), numLeaves = weights->size(), T = *nTargets;
  int64_t F = xt.getDimSize(1), N = xt.getDimSize(0);
  for (auto *v : {&*features, &*modes, &*trueIds, &*falseIds, &*trueLeafs, &*falseLeafs})
    if ((int64_t)v->size() != numNodes)
      return n.error("the nodes_* attributes must all have one value per node");
  if ((int64_t)targets->size() != numLeaves || T < 1)
    return n.error("leaf_targetids must match leaf_weights and n_targets be positive");
  // Set members per MEMBER node, in node order, separated by NaN.
  SmallVector<SmallVector<double>> sets(numNodes);
  size_t at = 0;
  for (int64_t i = 0; i < numNodes; ++i) {
    if ((*modes)[i] < LEQ || (*modes)[i] > MEMBER)
      return n.error("node " + Twine(i) + " has an unknown mode");
    if ((*features)[i] < 0 || (!ShapedType::isDynamic(F) && (*features)[i] >= F))
      return n.error("node " + Twine(i) + " tests feature " + Twine((int64_t)(*features)[i]) +
                     ", the input has " + Twine(F));
    if ((*modes)[i] != MEMBER)
      continue;
    while (at < members->size() && !std::isnan((*members)[at]))
      sets[i].push_back((*members)[at++]);
    if (at++ >= members->size())
      return n.error("membership_values does not list the members of every MEMBER node");
  }
  // Enumerate root-to-leaf paths (depth-first, bounded so a cyclic "tree" cannot loop, the
  // recursion cannot exhaust the stack, and the paths stay within memory).
  constexpr int64_t kMaxDepth = 4096, kMaxPathSteps = int64_t(1) << 24;
  int64_t pathSteps = 0;
  SmallVector<Leaf> leaves;
  std::function<LogicalResult(int64_t, bool, SmallVector<std::pair<int64_t, bool>> &)> walk =
      [&](int64_t id, bool isLeaf, SmallVector<std::pair<int64_t, bool>> &path) -> LogicalResult {
    if (isLeaf) {
      if (id < 0 || id >= numLeaves)
        return n.error("leaf index " + Twine(id) + " is out of range");
      if ((pathSteps += path.size()) > kMaxPathSteps)
        return n.error("the trees are too large (more than 2^24 root-to-leaf steps)");
      leaves.push_back({id, path});
      return success();
    }
    if (id < 0 || id >= numNodes || (int64_t)path.size() >= numNodes || leaves.size() > 100000)
      return n.error("the trees are not well formed (bad node index or a cycle)");
    if ((int64_t)path.size() >= kMaxDepth)
      return n.error("trees deeper than 4096 levels are not supported");
    for (bool branch : {true, false}) {
      path.push_back({id, branch});
      int64_t next = (int64_t)(branch ? (*trueIds)[id] : (*falseIds)[id]);
      bool leaf = (branch ? (*trueLeafs)[id] : (*falseLeafs)[id]) != 0;
      if (failed(walk(next, leaf, path)))
        return failure();
      path.pop_back();
    }
    return success();
  };
  for (double r : *roots) {
    int64_t root = (int64_t)r;
    if (root < 0 || root >= numNodes)
      return n.error("tree root " + Twine(root) + " is out of range");
    SmallVector<std::pair<int64_t, bool>> path;
    // A tree that is a single leaf: both branches lead to the same leaf.
    if ((*trueLeafs)[root] && (*falseLeafs)[root] && (*trueIds)[root] == (*falseIds)[root]) {
      if (failed(walk((int64_t)(*trueIds)[root], true, path)))
        return failure();
      continue;
    }
    if (failed(walk(root, false, path)))
      return failure();
  }
  int64_t L = leaves.size();
  for (const Leaf &l : leaves)
    if ((*targets)[l.index] < 0 || (*targets)[l.index] >= T)
      return n.error("leaf target " + Twine((int64_t)(*targets)[l.index]) + " is out of range");
  Type f64 = n.b.getF64Type();
  // The constant matrices below: [nodes, leaves] twice and [leaves, n_targets].
  if (failed(n.checkShape({numNodes, L}, f64, "the path matrix")) ||
      failed(n.checkShape({L, T}, f64, "the leaf-target map")) ||
      (!ShapedType::isDynamic(N) && failed(n.checkShape({N, T}, f64))))
    return failure();
  // Over dynamic dims (--dims): the samples' sizes, and a run with fewer features than
  // the trees test fails.
  auto xs = n.sizesOf(*x);
  if (!xs)
    return n.error("the sizes of the input's dynamic dims are not known");
  SymbolicSize Ns = (*xs)[0], one = SymbolicSize::constant(1);
  if (ShapedType::isDynamic(F) && numNodes) {
    auto have = n.dimSize(*x, 1);
    DLC_TRY(have);
    double most = *std::max_element(features->begin(), features->end());
    Expr i{n, n.b.getI64Type()};
    if (failed(checkAtRunTime(n, i.op<LessEqualOp>({*have, i.c(most)}),
                              "the input has fewer features than the trees test (" +
                                  Twine((int64_t)most + 1) + ")")))
      return failure();
  }
  Expr e{n, f64};
  auto constant = [&](ArrayRef<int64_t> shape, ArrayRef<double> v) {
    return n.constant(DenseElementsAttr::get(RankedTensorType::get(shape, f64), v));
  };
  // Each node's test for all samples: [N, nodes].
  SmallVector<int64_t> fid;
  for (double f : *features)
    fid.push_back((int64_t)f);
  Value cols = e.op<GatherOp>({e.cast(*x, f64), e.ints({numNodes}, fid)},
                              {n.named("axis", n.b.getI64IntegerAttr(1))});
  Value split = constant({1, numNodes}, *splits);
  Value test = n.constant(DenseElementsAttr::get(RankedTensorType::get({1, numNodes}, n.b.getI1Type()), false));
  for (int mode = LEQ; mode <= MEMBER; ++mode) {
    SmallVector<bool> sel;
    for (double m : *modes)
      sel.push_back((int)m == mode);
    if (llvm::none_of(sel, [](bool b) { return b; }))
      continue;
    Value r;
    switch (mode) {
    case LEQ: r = e.op<LessEqualOp>({cols, split}); break;
    case LT: r = e.op<LessOp>({cols, split}); break;
    case GTE: r = e.op<GreaterEqualOp>({cols, split}); break;
    case GT: r = e.op<GreaterOp>({cols, split}); break;
    case EQ: r = e.op<EqualOp>({cols, split}); break;
    case NEQ: r = e.op<NotOp>({e.op<EqualOp>({cols, split})}); break;
    default: { // any member equal: compare against the sets padded with NaN
      size_t width = 1;
      for (auto &s : sets)
        width = std::max(width, s.size());
      if (failed(n.checkShape({numNodes, (int64_t)width}, f64, "the membership table")))
        return failure();
      SmallVector<double> table(numNodes * width, NAN);
      for (int64_t i = 0; i < numNodes; ++i)
        for (size_t j = 0; j < sets[i].size(); ++j)
          table[i * width + j] = sets[i][j];
      auto col3 = n.reshapeTo(cols, {Ns, SymbolicSize::constant(numNodes), one});
      DLC_TRY(col3);
      Value eq = e.op<EqualOp>({*col3, constant({1, numNodes, (int64_t)width}, table)});
      r = e.reduce<ReduceMaxOp>(e.cast(eq, f64), {2}, false);
      r = e.op<GreaterOp>({r, e.c(0.5)});
    }
    }
    Value mask = n.constant(DenseElementsAttr::get(RankedTensorType::get({1, numNodes}, n.b.getI1Type()),
                                                   ArrayRef<bool>(sel)));
    test = e.where(mask, r, test);
  }
  if (!missing->empty()) {
    SmallVector<bool> tracks;
    for (int64_t i = 0; i < numNodes; ++i)
      tracks.push_back(i < (int64_t)missing->size() && (*missing)[i] != 0);
    Value tr = n.constant(DenseElementsAttr::get(RankedTensorType::get({1, numNodes}, n.b.getI1Type()),
                                                 ArrayRef<bool>(tracks)));
    Value nan = e.op<IsNaNOp>({cols}, {}, {RankedTensorType::get(tensorType(cols).getShape(), n.b.getI1Type())});
    test = e.op<OrOp>({test, e.op<AndOp>({nan, tr})});
  }
  // Leaves reached: every test on the path matches its branch.
  SmallVector<double> pos(numNodes * L, 0), neg(numNodes * L, 0), len(L), w(L);
  for (int64_t l = 0; l < L; ++l) {
    for (auto [node, branch] : leaves[l].path)
      (branch ? pos : neg)[node * L + l] += 1;
    len[l] = leaves[l].path.size();
    w[l] = (*weights)[leaves[l].index];
  }
  Value tf = e.cast(test, f64);
  Value hits = e.op<AddOp>({e.op<MatMulOp>({tf, constant({numNodes, L}, pos)}),
                            e.op<MatMulOp>({e.op<SubOp>({e.c(1), tf}), constant({numNodes, L}, neg)})});
  Value reached = e.op<EqualOp>({hits, constant({1, L}, len)}); // [N, L]
  SmallVector<double> onehot(L * T, 0);
  for (int64_t l = 0; l < L; ++l)
    onehot[l * T + (int64_t)(*targets)[leaves[l].index]] = 1;
  Value y;
  if (*aggregate <= 1) { // AVERAGE / SUM
    Value contrib = e.where(reached, constant({1, L}, w), e.c(0));
    y = e.op<MatMulOp>({contrib, constant({L, T}, onehot)});
    if (*aggregate == 0)
      y = e.op<DivOp>({y, e.c((double)roots->size())});
  } else { // MIN / MAX over the reached leaves of each target
    bool isMin = *aggregate == 2;
    double init = isMin ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
    Value oh = e.op<GreaterOp>({constant({1, L, T}, onehot), e.c(0.5)});
    auto reached3 = n.reshapeTo(reached, {Ns, SymbolicSize::constant(L), one});
    DLC_TRY(reached3);
    Value ok = e.op<AndOp>({*reached3, oh});
    Value vals = e.where(ok, constant({1, L, 1}, w), e.c(init));
    y = isMin ? e.reduce<ReduceMinOp>(vals, {1}, false) : e.reduce<ReduceMaxOp>(vals, {1}, false);
    // A target no reached leaf votes for is 0, as in ONNX Runtime (ONNX's Python
    // reference starts from the type's extreme instead; the spec says neither).
    double extreme = 0;
    Value none = e.op<IsInfOp>({y}, {n.named("detect_positive", n.b.getBoolAttr(true)),
                                      n.named("detect_negative", n.b.getBoolAttr(true))},
                               {RankedTensorType::get(tensorType(y).getShape(), n.b.getI1Type())});
    y = e.where(none, e.c(extreme), y);
  }
  y = e.cast(y, elt);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

} // namespace dlc::onnx_frontend
