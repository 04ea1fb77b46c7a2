// dlc-channels-last: convolutions in NHWC (what the CPU kernels want), with the layout
// transposes sunk through elementwise ops and reductions until they cancel.
#include "dialects/Graph/Transforms/Passes.h"

#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

namespace dlc::graph {
#define GEN_PASS_DEF_GRAPHCHANNELSLAST
#include "dialects/Graph/Transforms/Passes.h.inc"
} // namespace dlc::graph

using namespace mlir;
using namespace dlc::graph;

namespace {

constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};
constexpr int64_t kFchwToHwcf[] = {2, 3, 1, 0};

SmallVector<int64_t> inversePerm(ArrayRef<int64_t> p) {
  SmallVector<int64_t> inv(p.size());
  for (auto [i, d] : llvm::enumerate(p))
    inv[d] = i;
  return inv;
}

/// The shape whose transpose by `p` is `shape`.
RankedTensorType untransposedType(RankedTensorType type, ArrayRef<int64_t> p) {
  SmallVector<int64_t> shape(p.size());
  for (auto [i, d] : llvm::enumerate(p))
    shape[d] = type.getDimSize(i);
  return RankedTensorType::get(shape, type.getElementType());
}

Value transpose(OpBuilder &b, Location loc, Value v, ArrayRef<int64_t> perm) {
  return b.createOrFold<TransposeOp>(loc, v, perm);
}

/// A group-1 or depthwise conv (float or 8-bit integer) becomes transpose ->
/// conv_nhwc -> transpose
/// (weights transposed to HWCF, which folds for constant weights).
void convertConv(OpBuilder &b, ConvOp conv) {
  auto type = conv.getType();
  int64_t group = conv.getGroup(), c = conv.getInput().getType().getDimSize(1);
  bool depthwise = group == c && group == type.getDimSize(1);
  bool bytes = conv.getInput().getType().getElementType().isInteger(8);
  if ((!bytes && !isa<FloatType>(type.getElementType())) || (group != 1 && !depthwise))
    return;
  b.setInsertionPoint(conv);
  Location loc = conv.getLoc();
  Value x = transpose(b, loc, conv.getInput(), kToNhwc);
  Value w = transpose(b, loc, conv.getWeight(), kFchwToHwcf);
  Value y = ConvNhwcOp::create(b, loc, x, w, conv.getBias(), conv.getStridesAttr(),
                               conv.getPadsAttr(), conv.getDilationsAttr(), conv.getGroupAttr(),
                               conv.getInputUnsignedAttr(), conv.getWeightUnsignedAttr(),
                               conv.getPadValueAttr());
  conv.replaceAllUsesWith(transpose(b, loc, y, kToNchw));
  conv.erase();
}

/// An existing transpose of `v` by `perm`, if any.
TransposeOp existingTranspose(Value v, ArrayRef<int64_t> perm) {
  for (Operation *user : v.getUsers())
    if (auto t = dyn_cast<TransposeOp>(user); t && t.getPerm() == perm)
      return t;
  return {};
}

/// Whether operand `v` of an op moved above a transpose by `perm` has a value in the
/// untransposed layout that costs nothing more at run time: the input of the same
/// transpose, a transpose of `v` the graph computes anyway (not of a parameter being
/// trained), a constant (transposed at
/// compile time), a single element, or the result of an op in `sinking` (which is
/// being moved above the same transpose).
bool hasFreeUntransposed(Value v, TransposeOp self,
                         const llvm::SmallPtrSetImpl<Operation *> &sinking) {
  ArrayRef<int64_t> perm = self.getPerm();
  if (auto t = v.getDefiningOp<TransposeOp>(); t && t.getPerm() == perm)
    return true;
  if (sinking.contains(v.getDefiningOp()))
    return true;
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getRank() > (int64_t)perm.size())
    return false;
  // A training step's parameter (a state load) is the exception: its forward
  // transpose would be kept alive until the optimizer update at the step's end.
  // The existing transpose must not be `self`: x * transpose(x) by a self-inverse perm
  // would read `self` again after the move, which then swapped the operands forever.
  TransposeOp existing = existingTranspose(v, inversePerm(perm));
  return type.getNumElements() == 1 || matchPattern(v, m_Constant()) ||
         (existing && existing != self && !v.getDefiningOp<ml_program::GlobalLoadOp>());
}

/// The value of operand `v` of `user` in the untransposed layout (see above).
Value untransposed(OpBuilder &b, Operation *user, Value v, ArrayRef<int64_t> perm) {
  if (auto t = v.getDefiningOp<TransposeOp>(); t && t.getPerm() == perm)
    return t.getInput();
  auto type = cast<RankedTensorType>(v.getType());
  if (type.getNumElements() == 1)
    return v; // broadcasts the same in any layout
  if (TransposeOp existing = existingTranspose(v, inversePerm(perm))) {
    if (existing->getBlock() == user->getBlock() && !existing->isBeforeInBlock(user))
      existing->moveBefore(user); // its operand `v` is defined before `user`
    return existing;
  }
  Location loc = user->getLoc();
  if (type.getRank() < (int64_t)perm.size()) {
    SmallVector<int64_t> shape(perm.size() - type.getRank(), 1);
    llvm::append_range(shape, type.getShape());
    v = b.createOrFold<ReshapeOp>(loc, RankedTensorType::get(shape, type.getElementType()), v);
  }
  return transpose(b, loc, v, inversePerm(perm));
}

/// Whether `user` of transpose `t` can run on the untransposed value instead.
bool canSinkInto(Operation *user, TransposeOp t,
                 const llvm::SmallPtrSetImpl<Operation *> &sinking) {
  if (user->getNumResults() != 1 || user->getNumRegions() != 0 ||
      user->getBlock() != t->getBlock())
    return false;
  auto perm = t.getPerm();
  if (user->hasTrait<GraphElementwise>()) {
    auto rt = cast<RankedTensorType>(user->getResult(0).getType());
    return rt.getRank() == (int64_t)perm.size() &&
           llvm::all_of(user->getOperands(),
                        [&](Value v) { return hasFreeUntransposed(v, t, sinking); });
  }
  if (user->hasTrait<GraphAxisReduction>()) {
    auto keep = user->getAttrOfType<BoolAttr>("keepdims");
    return keep && keep.getValue() && user->getNumOperands() == 1;
  }
  // Pools have an NHWC form: they take the NHWC -> NCHW transpose of a conv.
  if (isa<MaxPoolOp, AveragePoolOp>(user))
    return !user->hasAttr("channels_last") && perm == ArrayRef<int64_t>(kToNchw);
  return false;
}

/// Moves `user` above transpose `t`: user(t(x), ...) -> t(user(x, ...)).
void sinkInto(OpBuilder &b, Operation *user, TransposeOp t) {
  auto perm = t.getPerm();
  Location loc = user->getLoc();
  b.setInsertionPoint(user);
  SmallVector<Value> operands;
  for (Value v : user->getOperands())
    operands.push_back(untransposed(b, user, v, perm));
  NamedAttrList attrs(user->getAttrDictionary());
  if (user->hasTrait<GraphAxisReduction>()) {
    SmallVector<int64_t> axes;
    for (int64_t a : cast<DenseI64ArrayAttr>(user->getAttr("axes")).asArrayRef())
      axes.push_back(perm[a]);
    llvm::sort(axes);
    attrs.set("axes", b.getDenseI64ArrayAttr(axes));
  }
  if (isa<MaxPoolOp, AveragePoolOp>(user))
    attrs.set("channels_last", b.getUnitAttr());
  auto rt = cast<RankedTensorType>(user->getResult(0).getType());
  OperationState state(loc, user->getName(), operands, {untransposedType(rt, perm)},
                       attrs.getAttrs());
  Operation *moved = b.create(state);
  user->getResult(0).replaceAllUsesWith(transpose(b, loc, moved->getResult(0), perm));
  user->erase();
}

/// One rewrite around transpose `t`, if any applies.
bool step(OpBuilder &b, TransposeOp t) {
  if (t.use_empty()) {
    t.erase();
    return true;
  }
  // transpose(transpose(x, p), q) = transpose(x, p o q), or x.
  for (Operation *user : t->getUsers()) {
    auto next = dyn_cast<TransposeOp>(user);
    if (!next)
      continue;
    SmallVector<int64_t> composed;
    for (int64_t q : next.getPerm())
      composed.push_back(t.getPerm()[q]);
    b.setInsertionPoint(next);
    next.replaceAllUsesWith(transpose(b, next.getLoc(), t.getInput(), composed));
    next.erase();
    return true;
  }
  // Sink into all users at once, so the transpose disappears. A user may also take
  // the result of another user (x * sigmoid(x)): that one is moved first.
  llvm::SmallSetVector<Operation *, 8> users(t->getUsers().begin(), t->getUsers().end());
  llvm::SmallPtrSet<Operation *, 8> direct, none;
  for (Operation *u : users)
    if (canSinkInto(u, t, none))
      direct.insert(u);
  if (!llvm::all_of(users, [&](Operation *u) { return canSinkInto(u, t, direct); }))
    return false;
  SmallVector<Operation *> ordered(users.begin(), users.end());
  llvm::sort(ordered, [](Operation *a, Operation *c) { return a->isBeforeInBlock(c); });
  for (Operation *u : ordered)
    sinkInto(b, u, t);
  return true;
}

struct GraphChannelsLastPass : dlc::graph::impl::GraphChannelsLastBase<GraphChannelsLastPass> {
  void runOnOperation() override {
    OpBuilder b(&getContext());
    SmallVector<ConvOp> convs;
    getOperation()->walk([&](ConvOp c) { convs.push_back(c); });
    for (ConvOp c : convs)
      convertConv(b, c);
    // Every step erases a transpose or moves one later in the (acyclic) graph; a bound
    // turns a step that does neither (a bug) into an error instead of a hang.
    int64_t ops = 0, steps = 0;
    getOperation()->walk([&](Operation *) { ++ops; });
    bool progress = true;
    while (progress) {
      if (++steps > 16 * ops + 1024) {
        getOperation()->emitError("dlc-graph-channels-last: transpose sinking did not converge");
        return signalPassFailure();
      }
      progress = false;
      getOperation()->walk([&](TransposeOp t) {
        if (!step(b, t))
          return WalkResult::advance();
        progress = true;
        return WalkResult::interrupt();
      });
    }
  }
};

} // namespace
