// Training steps: parameters as state, loss, gradients and the optimizer update in one function.
#include "passes/Autodiff/Training.h"
#include "dialects/Graph/IR/Names.h"
#include "passes/Autodiff/Autodiff.h"
#include "passes/Autodiff/GradientBuilder.h"
#include "dialects/Graph/IR/Recompute.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"

#include <functional>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {

bool parseTrainingOptions(const std::string &loss, const std::string &optimizer,
                          const std::string &freeze, TrainingOptions &out, std::string &error) {
  StringRef lossKind, output;
  std::tie(lossKind, output) = StringRef(loss).split(':');
  if ((lossKind != "mse" && lossKind != "xent") || output.empty()) {
    error = "invalid --loss '" + loss + "' (expected mse:OUTPUT or xent:OUTPUT)";
    return false;
  }
  out.loss = lossKind.str();
  out.output = output.str();
  StringRef kind, params;
  std::tie(kind, params) = StringRef(optimizer).split(':');
  if (kind != "sgd" && kind != "adam" && kind != "adamw") {
    error = "invalid --optimizer '" + optimizer + "' (expected sgd:lr=.., adam:lr=.. or adamw:lr=..)";
    return false;
  }
  out.optimizer = kind.str();
  out.lr = kind == "sgd" ? 0.01 : 0.001;
  SmallVector<StringRef> items;
  params.split(items, ',', -1, /*KeepEmpty=*/false);
  for (StringRef item : items) {
    auto [key, value] = item.split('=');
    double v;
    if (value.trim().getAsDouble(v) || !std::isfinite(v)) {
      error = "invalid --optimizer setting '" + item.str() + "' (expected KEY=NUMBER)";
      return false;
    }
    key = key.trim();
    double *slot = key == "lr"             ? &out.lr
                   : key == "weight_decay" ? &out.weightDecay
                   : key == "momentum" && kind == "sgd" ? &out.momentum
                   : key == "beta1" && kind != "sgd"    ? &out.beta1
                   : key == "beta2" && kind != "sgd"    ? &out.beta2
                   : key == "eps" && kind != "sgd"      ? &out.eps
                                                        : nullptr;
    if (!slot) {
      error = "unknown " + kind.str() + " setting '" + key.str() + "' (expected " +
              (kind == "sgd" ? "lr, momentum, weight_decay" : "lr, beta1, beta2, eps, weight_decay") +
              ")";
      return false;
    }
    *slot = v;
  }
  if (out.lr <= 0) {
    error = "invalid --optimizer: lr must be > 0";
    return false;
  }
  SmallVector<StringRef> names;
  StringRef(freeze).split(names, ',', -1, /*KeepEmpty=*/false);
  for (StringRef n : names)
    out.frozen.insert(n.trim().str());
  return true;
}

bool parseRemat(const std::string &spec, TrainingOptions &out, std::string &error) {
  StringRef kind, budget;
  std::tie(kind, budget) = StringRef(spec).split(':');
  double mib = 0;
  if (kind == "store-all" || kind == "recompute-all") {
    if (budget.empty()) {
      out.remat = kind.str();
      return true;
    }
  } else if (kind == "auto" && !budget.getAsDouble(mib) && mib >= 0) {
    out.remat = "auto";
    out.rematBudget = int64_t(mib * (1 << 20));
    return true;
  }
  error = "invalid --remat '" + spec + "' (expected store-all, recompute-all or auto:MIB)";
  return false;
}

namespace {

/// The ONNX name of an initializer constant: the importer locates it at a bare
/// NameLoc (node results are at NameLoc(node, NameLoc(op))).
std::optional<std::string> initializerName(arith::ConstantOp c) {
  auto loc = dyn_cast<NameLoc>(c.getLoc());
  if (!loc || !isa<UnknownLoc>(loc.getChildLoc()))
    return std::nullopt;
  return loc.getName().str();
}

int32_t onnxDtype(Type t) {
  if (t.isF32())
    return 1;
  if (t.isF64())
    return 11;
  if (t.isF16())
    return 10;
  if (t.isBF16())
    return 16;
  return 0;
}

func::FuncOp mainFunction(ModuleOp module) { return module.lookupSymbol<func::FuncOp>(dlc::graph::kMainFunction); }

StringRef nameOf(DictionaryAttr attrs) {
  auto n = attrs ? attrs.getAs<StringAttr>(dlc::graph::kNameAttr) : StringAttr();
  return n ? n.getValue() : StringRef();
}

} // namespace

LogicalResult parametersToArguments(ModuleOp module, const TrainingOptions &options) {
  func::FuncOp func = mainFunction(module);
  if (!func)
    return module.emitError("no @main_graph function to train");
  Block &entry = func.getBody().front();
  std::set<std::string> seen;
  SmallVector<std::pair<arith::ConstantOp, std::string>> params;
  for (Operation &op : entry) {
    auto c = dyn_cast<arith::ConstantOp>(op);
    auto type = c ? dyn_cast<RankedTensorType>(c.getType()) : RankedTensorType();
    if (!type || !isa<FloatType>(type.getElementType()))
      continue;
    if (auto name = initializerName(c)) {
      seen.insert(*name);
      if (!options.frozen.count(*name))
        params.push_back({c, *name});
    }
  }
  // Parameters the importer already made arguments (ImportOptions::initializersAsArguments).
  bool anyParamArg = false;
  for (unsigned a = 0; a < func.getNumArguments(); ++a)
    if (func.getArgAttr(a, "dlc.param"))
      anyParamArg = true;
  for (const std::string &f : options.frozen)
    if (!seen.count(f) && !anyParamArg)
      return func.emitError("--freeze: the model has no float initializer named '") << f << "'";
  if (params.empty() && !anyParamArg)
    return func.emitError("the model has no float initializers to train");
  OpBuilder b(func.getContext());
  for (auto [c, name] : params) {
    unsigned index = func.getNumArguments();
    NamedAttrList attrs;
    attrs.set(dlc::graph::kNameAttr, b.getStringAttr(name));
    attrs.set(dlc::graph::kDtypeAttr, b.getI32IntegerAttr(onnxDtype(cast<RankedTensorType>(c.getType()).getElementType())));
    attrs.set("dlc.param", b.getUnitAttr());
    attrs.set("dlc.param_init", c.getValue());
    if (failed(func.insertArgument(index, c.getType(), attrs.getDictionary(func.getContext()),
                                   c.getLoc())))
      return failure();
    c.replaceAllUsesWith(func.getArgument(index));
    c.erase();
  }
  return success();
}

namespace {

/// The loss of `out` against `labels`, a scalar: mean squared error, or the mean
/// over the batch of -log softmax(out)[label].
Value buildLoss(OpBuilder &b, Location loc, const TrainingOptions &options, Value out,
                Value labels) {
  RankedTensorType t = tensorTypeOf(out);
  Type elt = t.getElementType();
  SmallVector<int64_t> all;
  for (int64_t d = 0; d < t.getRank(); ++d)
    all.push_back(d);
  if (options.loss == "mse") {
    Value d = SubOp::create(b, loc, out, labels);
    return ReduceMeanOp::create(b, loc, MulOp::create(b, loc, d, d), all, false);
  }
  int64_t n = t.getDimSize(0), classes = t.getDimSize(1);
  SmallVector<int64_t> axis = {1};
  Value shifted = SubOp::create(b, loc, out, ReduceMaxOp::create(b, loc, out, axis, true));
  Value lse = LogOp::create(
      b, loc, ReduceSumOp::create(b, loc, ExpOp::create(b, loc, shifted), axis, true));
  Value logProb = SubOp::create(b, loc, shifted, lse);
  SmallVector<int64_t> iota;
  for (int64_t c = 0; c < classes; ++c)
    iota.push_back(c);
  auto iotaType = RankedTensorType::get({classes}, b.getI64Type());
  Value classIds =
      arith::ConstantOp::create(b, loc, DenseElementsAttr::get(iotaType, ArrayRef<int64_t>(iota)));
  Value column = ReshapeOp::create(b, loc, RankedTensorType::get({n, 1}, b.getI64Type()), labels);
  Value hit = EqualOp::create(b, loc, column, classIds);
  Value picked = selectOrZero(b, loc, hit, logProb);
  Value total = ReduceSumOp::create(b, loc, picked, all, false);
  return MulOp::create(b, loc, total, scalar(b, loc, elt, -1.0 / double(n)));
}

/// Ops cheap enough to run again in the backward pass: elementwise and data
/// movement. Contractions, convolutions, pools and reductions stay stored.
bool isRecomputable(Operation *op) {
  return op->hasTrait<GraphElementwise>() ||
         isa<ReshapeOp, TransposeOp, ExpandOp, SliceOp, ConcatOp, PadOp, IdentityOp>(op);
}

int64_t byteSize(Value v) {
  auto t = dyn_cast<RankedTensorType>(v.getType());
  return t && t.hasStaticShape() ? t.getNumElements() * t.getElementTypeBitWidth() / 8 : 0;
}

/// Recomputes saved forward values of cheap ops for the backward ops that read them
/// (see TrainingOptions::remat): each is cloned, with the cheap forward values it
/// needs, right before its first backward use.
void rematerialize(Block &block, const llvm::DenseSet<Operation *> &forward,
                   const TrainingOptions &options) {
  llvm::DenseMap<Operation *, unsigned> position;
  unsigned n = 0;
  for (Operation &op : block)
    position[&op] = n++;
  auto isBackward = [&](Operation *op) { return !forward.contains(op); };
  // Saved values of cheap ops, with their first backward user.
  SmallVector<std::pair<Value, Operation *>> saved;
  for (Operation &op : block) {
    if (!forward.contains(&op) || !isRecomputable(&op))
      continue;
    for (Value r : op.getResults()) {
      Operation *first = nullptr;
      for (Operation *u : r.getUsers())
        if (isBackward(u) && (!first || position[u] < position[first]))
          first = u;
      if (first)
        saved.push_back({r, first});
    }
  }
  if (options.remat == "auto") {
    // The largest first, until what stays saved fits the budget.
    int64_t total = 0;
    for (Operation &op : block)
      if (forward.contains(&op) && !isa<arith::ConstantOp>(op))
        for (Value r : op.getResults())
          if (llvm::any_of(r.getUsers(), isBackward))
            total += byteSize(r);
    llvm::stable_sort(saved, [](auto &a, auto &b) { return byteSize(a.first) > byteSize(b.first); });
    size_t keep = 0;
    while (keep < saved.size() && total > options.rematBudget)
      total -= byteSize(saved[keep++].first);
    saved.resize(keep);
  }
  llvm::stable_sort(saved, [&](auto &a, auto &b) { return position[a.second] < position[b.second]; });
  llvm::DenseMap<Value, Value> clones;
  std::function<Value(Value, OpBuilder &)> recompute = [&](Value v, OpBuilder &b) -> Value {
    Operation *def = v.getDefiningOp();
    if (!def || !forward.contains(def) || !isRecomputable(def))
      return v;
    if (Value c = clones.lookup(v))
      return c;
    IRMapping map;
    for (Value operand : def->getOperands())
      map.map(operand, recompute(operand, b));
    Operation *copy = b.clone(*def, map);
    markRecomputed(copy);
    for (auto [orig, fresh] : llvm::zip(def->getResults(), copy->getResults()))
      clones[orig] = fresh;
    return clones.lookup(v);
  };
  for (auto [value, first] : saved) {
    OpBuilder b(first);
    Value fresh = recompute(value, b);
    value.replaceUsesWithIf(fresh, [&](OpOperand &use) { return isBackward(use.getOwner()) &&
                                                                 use.getOwner() != fresh.getDefiningOp(); });
  }
}

/// Each optimizer op from `first` on as early as its operands allow: a parameter's
/// update right after its gradient is complete, so the gradient dies there instead of
/// living to the end of the step with all the others. The stores stay at the end,
/// after every read of the old values (the CPU lowering moves each up to its last
/// read, dlc-lower-global-state).
void scheduleUpdatesEarly(Block &block, Operation *first) {
  SmallVector<Operation *> ops;
  for (Operation *op = first; op && op != block.getTerminator(); op = op->getNextNode())
    if (!isa<ml_program::GlobalStoreOp>(op))
      ops.push_back(op);
  for (Operation *op : ops) {
    Operation *latest = nullptr;
    for (Value v : op->getOperands())
      if (Operation *def = v.getDefiningOp();
          def && def->getBlock() == &block && (!latest || latest->isBeforeInBlock(def)))
        latest = def;
    if (!latest)
      op->moveBefore(&block.front());
    else if (latest->isBeforeInBlock(op))
      op->moveAfter(latest);
  }
}

struct StateBuilder {
  ModuleOp module;
  OpBuilder globals, entry, update;
  Location loc;
  unsigned count = 0;

  /// A new mutable global holding `init`, read at the function's start; returns
  /// its symbol and the value read.
  std::pair<FlatSymbolRefAttr, Value> create(StringRef prefix, Attribute init, RankedTensorType t) {
    std::string sym = ("dlc_" + prefix + "_" + Twine(count++)).str();
    ml_program::GlobalOp::create(globals, loc, globals.getStringAttr(sym), TypeAttr::get(t),
                                 globals.getUnitAttr(), init, globals.getStringAttr("private"));
    auto ref = FlatSymbolRefAttr::get(globals.getContext(), sym);
    Value v = ml_program::GlobalLoadOp::create(entry, loc, t, ref);
    return {ref, v};
  }
  /// Stores are emitted together at the end of the step (`flush`), after every
  /// read of the old values.
  SmallVector<std::pair<FlatSymbolRefAttr, Value>> pending;
  void store(FlatSymbolRefAttr ref, Value v) { pending.push_back({ref, v}); }
  void flush() {
    for (auto [ref, v] : pending)
      ml_program::GlobalStoreOp::create(update, loc, ref, v);
    pending.clear();
  }
};

} // namespace

LogicalResult buildTrainingStep(ModuleOp module, const TrainingOptions &options) {
  func::FuncOp func = mainFunction(module);
  if (!func)
    return module.emitError("no @main_graph function to train");
  Block &block = func.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  int outIndex = -1;
  std::string outputs;
  for (unsigned r = 0; r < func.getNumResults(); ++r) {
    StringRef n = nameOf(func.getResultAttrDict(r));
    if (n == options.output)
      outIndex = r;
    outputs += (outputs.empty() ? "" : ", ") + n.str();
  }
  if (outIndex < 0)
    return func.emitError("--loss: the model has no output named '")
           << options.output << "' (outputs: " << outputs << ")";
  Value out = ret.getOperand(outIndex);
  RankedTensorType outType = tensorTypeOf(out);
  if (!isa<FloatType>(outType.getElementType()))
    return func.emitError("--loss: output '") << options.output << "' is not a float tensor";
  if (options.loss == "xent" && outType.getRank() != 2)
    return func.emitError("--loss=xent expects [batch, classes] logits; output '")
           << options.output << "' has rank " << outType.getRank();

  SmallVector<unsigned> params;
  for (unsigned a = 0; a < func.getNumArguments(); ++a) {
    if (func.getArgAttr(a, "dlc.param"))
      params.push_back(a);
    else if (nameOf(func.getArgAttrDict(a)) == "labels")
      return func.emitError("--train: the model already has an input named 'labels' (the "
                            "training step adds it)");
  }
  unsigned labelsIndex = params.empty() ? func.getNumArguments() : params.front();
  OpBuilder b(ret);
  Location loc = func.getLoc();
  RankedTensorType labelsType =
      options.loss == "mse" ? outType
                            : RankedTensorType::get({outType.getDimSize(0)}, b.getI64Type());
  NamedAttrList labelAttrs;
  labelAttrs.set(dlc::graph::kNameAttr, b.getStringAttr("labels"));
  labelAttrs.set(dlc::graph::kDtypeAttr, b.getI32IntegerAttr(options.loss == "mse" ? onnxDtype(outType.getElementType()) : 7));
  if (failed(func.insertArgument(labelsIndex, labelsType, labelAttrs.getDictionary(b.getContext()), loc)))
    return failure();
  for (unsigned &p : params)
    ++p;
  Value labels = func.getArgument(labelsIndex);

  // The function returns the loss alone, then its gradients.
  Value loss = buildLoss(b, loc, options, out, labels);
  func::ReturnOp::create(b, ret.getLoc(), ValueRange{loss});
  ret.erase();
  NamedAttrList lossAttrs;
  lossAttrs.set(dlc::graph::kNameAttr, b.getStringAttr("loss"));
  lossAttrs.set(dlc::graph::kDtypeAttr, b.getI32IntegerAttr(onnxDtype(outType.getElementType())));
  func.setFunctionType(FunctionType::get(func.getContext(), func.getArgumentTypes(), {loss.getType()}));
  func.setAllResultAttrs(ArrayRef<DictionaryAttr>{lossAttrs.getDictionary(b.getContext())});
  // The forward ops (not the return, which appendGradients replaces).
  llvm::DenseSet<Operation *> forwardOps;
  for (Operation &op : block.without_terminator())
    forwardOps.insert(&op);
  if (failed(appendGradients(func, 0, params)))
    return failure();
  if (options.remat != "store-all")
    rematerialize(block, forwardOps, options);
  // Saved activations: forward results the backward graph reads.
  int64_t savedBytes = 0, savedCount = 0;
  for (Operation *op : forwardOps) {
    if (isa<arith::ConstantOp>(op))
      continue;
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) { return !forwardOps.contains(u); }))
        if (auto t = dyn_cast<RankedTensorType>(r.getType()); t && t.hasStaticShape()) {
          savedBytes += t.getNumElements() * t.getElementTypeBitWidth() / 8;
          ++savedCount;
        }
  }

  ret = cast<func::ReturnOp>(block.getTerminator());
  StateBuilder state{module, OpBuilder(module.getBody(), module.getBody()->begin()),
                     OpBuilder(&block, block.begin()), OpBuilder(ret), loc};
  OpBuilder &u = state.update;
  Operation *lastBackwardOp = ret->getPrevNode();
  SmallVector<Attribute> stateList;
  // Adam's step count (shared by all parameters).
  FlatSymbolRefAttr stepRef;
  Value stepNew;
  if (options.optimizer != "sgd") {
    auto st = RankedTensorType::get({}, u.getF32Type());
    auto [ref, step] = state.create("step", DenseElementsAttr::get(st, 0.0f), st);
    stepRef = ref;
    stepNew = AddOp::create(u, loc, step, scalar(u, loc, u.getF32Type(), 1.0));
    state.store(stepRef, stepNew);
  }
  for (auto [k, a] : llvm::enumerate(params)) {
    Value arg = func.getArgument(a);
    RankedTensorType t = tensorTypeOf(arg);
    Type elt = t.getElementType();
    auto c = [&](double v) { return scalar(u, loc, elt, v); };
    auto init = func.getArgAttr(a, "dlc.param_init");
    auto [pref, p] = state.create("param", init, t);
    arg.replaceAllUsesWith(p);
    stateList.push_back(DictionaryAttr::get(
        u.getContext(), {u.getNamedAttr("symbol", pref),
                         u.getNamedAttr(dlc::graph::kNameAttr, func.getArgAttr(a, dlc::graph::kNameAttr)),
                         u.getNamedAttr(dlc::graph::kDtypeAttr, func.getArgAttr(a, dlc::graph::kDtypeAttr))}));
    Value g = ret.getOperand(1 + k);
    bool coupledDecay = options.weightDecay != 0 && options.optimizer != "adamw";
    if (coupledDecay)
      g = AddOp::create(u, loc, g, MulOp::create(u, loc, p, c(options.weightDecay)));
    Value step;
    auto zeros = [&]() { return DenseElementsAttr::get(t, u.getFloatAttr(elt, 0.0)); };
    if (options.optimizer == "sgd") {
      step = g;
      if (options.momentum != 0) {
        auto [ref, buf] = state.create("momentum", zeros(), t);
        step = AddOp::create(u, loc, MulOp::create(u, loc, buf, c(options.momentum)), g);
        state.store(ref, step);
      }
    } else {
      auto [mref, m] = state.create("adam_m", zeros(), t);
      auto [vref, v] = state.create("adam_v", zeros(), t);
      Value m2 = AddOp::create(u, loc, MulOp::create(u, loc, m, c(options.beta1)),
                               MulOp::create(u, loc, g, c(1 - options.beta1)));
      Value v2 = AddOp::create(u, loc, MulOp::create(u, loc, v, c(options.beta2)),
                               MulOp::create(u, loc, MulOp::create(u, loc, g, g), c(1 - options.beta2)));
      state.store(mref, m2);
      state.store(vref, v2);
      // Bias corrections 1 - beta^t, computed once as scalars.
      auto correction = [&](double beta) -> Value {
        Value pw = PowOp::create(u, loc, scalar(u, loc, u.getF32Type(), beta), stepNew);
        Value one = SubOp::create(u, loc, scalar(u, loc, u.getF32Type(), 1.0), pw);
        return elt.isF32() ? one : Value(CastOp::create(u, loc, RankedTensorType::get({}, elt), one));
      };
      Value mHat = DivOp::create(u, loc, m2, correction(options.beta1));
      Value vHat = DivOp::create(u, loc, v2, correction(options.beta2));
      step = DivOp::create(u, loc, mHat, AddOp::create(u, loc, SqrtOp::create(u, loc, vHat), c(options.eps)));
    }
    Value base = p;
    if (options.optimizer == "adamw" && options.weightDecay != 0)
      base = MulOp::create(u, loc, p, c(1.0 - options.lr * options.weightDecay));
    Value updated = SubOp::create(u, loc, base, MulOp::create(u, loc, step, c(options.lr)));
    state.store(pref, updated);
  }
  state.flush();
  scheduleUpdatesEarly(block, lastBackwardOp ? lastBackwardOp->getNextNode() : &block.front());
  // The memory report (`dlc compile --train` prints it): parameters, their gradients,
  // the optimizer's state, saved activations, and the peak of live tensors over the
  // step at graph level (before fusion removes intermediates) plus the state.
  auto bytesOf = [](Type type) -> int64_t {
    auto t = dyn_cast<RankedTensorType>(type);
    return t && t.hasStaticShape() ? t.getNumElements() * t.getElementTypeBitWidth() / 8 : 0;
  };
  int64_t paramBytes = 0, stateBytes = 0;
  for (unsigned a : params)
    paramBytes += bytesOf(func.getArgument(a).getType());
  module.walk([&](ml_program::GlobalOp g) { stateBytes += bytesOf(g.getType()); });
  int64_t live = 0, peak = 0;
  llvm::DenseMap<Value, Operation *> lastUse;
  for (Operation &op : block)
    for (Value v : op.getOperands())
      lastUse[v] = &op;
  for (Operation &op : block) {
    if (!isa<arith::ConstantOp, ml_program::GlobalLoadOp>(op))
      for (Value r : op.getResults())
        live += bytesOf(r.getType());
    peak = std::max(peak, live);
    for (Value v : op.getOperands())
      if (lastUse.lookup(v) == &op && v.getDefiningOp() &&
          !isa<arith::ConstantOp, ml_program::GlobalLoadOp>(v.getDefiningOp()))
        live -= bytesOf(v.getType());
  }
  auto i64 = [&](int64_t v) { return u.getI64IntegerAttr(v); };
  module->setAttr(
      "dlc.memory_report",
      DictionaryAttr::get(u.getContext(),
                          {u.getNamedAttr("parameter_bytes", i64(paramBytes)),
                           u.getNamedAttr("gradient_bytes", i64(paramBytes)),
                           u.getNamedAttr("optimizer_state_bytes", i64(stateBytes - paramBytes)),
                           u.getNamedAttr("saved_activation_bytes", i64(savedBytes)),
                           u.getNamedAttr("saved_activations", i64(savedCount)),
                           u.getNamedAttr("peak_bytes", i64(peak + stateBytes))}));
  // Only the loss is returned; the parameters are state now.
  func::ReturnOp::create(u, ret.getLoc(), ValueRange{ret.getOperand(0)});
  ret.erase();
  llvm::BitVector gradResults(func.getNumResults());
  gradResults.set(1, func.getNumResults());
  if (failed(func.eraseResults(gradResults)))
    return failure();
  llvm::BitVector paramArgs(func.getNumArguments());
  for (unsigned a : params)
    paramArgs.set(a);
  if (failed(func.eraseArguments(paramArgs)))
    return failure();
  module->setAttr(dlc::graph::kStateAttr, ArrayAttr::get(module.getContext(), stateList));
  return success();
}

} // namespace dlc::autodiff

#include "passes/Autodiff/Passes.h"

namespace dlc::autodiff {
#define GEN_PASS_DEF_PARAMSTOARGS
#define GEN_PASS_DEF_TRAININGSTEP
#include "passes/Autodiff/Passes.h.inc"

namespace {

template <typename Derived, typename Base, LogicalResult (*step)(ModuleOp, const TrainingOptions &)>
struct TrainingPassImpl : Base {
  using Base::Base;
  void runOnOperation() override {
    TrainingOptions options;
    std::string error;
    std::string lossSpec = this->loss.empty() ? std::string("mse:output") : std::string(this->loss);
    if (!parseTrainingOptions(lossSpec, this->optimizer, this->freeze, options, error) ||
        !parseRemat(this->remat, options, error)) {
      this->getOperation().emitError(error);
      return this->signalPassFailure();
    }
    if (failed(step(this->getOperation(), options)))
      this->signalPassFailure();
  }
};

struct ParamsToArgsPass
    : TrainingPassImpl<ParamsToArgsPass, impl::ParamsToArgsBase<ParamsToArgsPass>,
                       parametersToArguments> {
  using TrainingPassImpl::TrainingPassImpl;
};
struct TrainingStepPass
    : TrainingPassImpl<TrainingStepPass, impl::TrainingStepBase<TrainingStepPass>,
                       buildTrainingStep> {
  using TrainingPassImpl::TrainingPassImpl;
};

} // namespace
} // namespace dlc::autodiff
