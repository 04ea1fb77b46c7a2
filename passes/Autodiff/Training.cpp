// Training steps: parameters as state, loss, gradients and the optimizer update in one
// function (the loss, optimizer, rematerialization and memory report in their own files).
#include "dialects/Graph/IR/SymbolicShapes.h"
#include "passes/Autodiff/Training.h"
#include "dialects/Graph/IR/DataType.h"
#include "dialects/Graph/IR/Names.h"
#include "passes/Autodiff/Autodiff.h"
#include "passes/Autodiff/GradientBuilder.h"
#include "passes/Autodiff/Losses.h"
#include "passes/Autodiff/MemoryReport.h"
#include "passes/Autodiff/Optimizers.h"
#include "passes/Autodiff/Rematerialization.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::autodiff {

namespace {

/// The ONNX name of an initializer constant: the importer locates it at a bare
/// NameLoc (node results are at NameLoc(node, NameLoc(op))).
std::optional<std::string> initializerName(arith::ConstantOp c) {
  auto loc = dyn_cast<NameLoc>(c.getLoc());
  if (!loc || !isa<UnknownLoc>(loc.getChildLoc()))
    return std::nullopt;
  return loc.getName().str();
}

func::FuncOp mainFunction(ModuleOp module) { return module.lookupSymbol<func::FuncOp>(dlc::graph::kMainFunction); }

/// The argument/result attributes of a tensor named `name` with element type `elt`.
DictionaryAttr tensorAttrs(OpBuilder &b, StringRef name, Type elt) {
  return b.getDictionaryAttr(
      {b.getNamedAttr(dlc::graph::kNameAttr, b.getStringAttr(name)),
       b.getNamedAttr(dlc::graph::kDtypeAttr,
                      b.getI32IntegerAttr(int32_t(dlc::graph::onnxDtypeOf(elt))))});
}

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
      return func.emitError("the model has no float initializer named '") << f << "' to freeze";
  if (params.empty() && !anyParamArg)
    return func.emitError("the model has no float initializers to train");
  OpBuilder b(func.getContext());
  for (auto [c, name] : params) {
    unsigned index = func.getNumArguments();
    NamedAttrList attrs;
    attrs.set(dlc::graph::kNameAttr, b.getStringAttr(name));
    attrs.set(dlc::graph::kDtypeAttr, b.getI32IntegerAttr(int32_t(dlc::graph::onnxDtypeOf(cast<RankedTensorType>(c.getType()).getElementType()))));
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

} // namespace

LogicalResult buildTrainingStep(ModuleOp module, const TrainingOptions &options) {
  func::FuncOp func = mainFunction(module);
  if (!func)
    return module.emitError("no @main_graph function to train");
  Block &block = func.getBody().front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  // The loss's output: by name, or the first.
  int outIndex = options.output.empty() && func.getNumResults() ? 0 : -1;
  std::string outputs;
  for (unsigned r = 0; r < func.getNumResults(); ++r) {
    StringRef n = nameOf(func.getResultAttrDict(r));
    if (n == options.output)
      outIndex = r;
    outputs += (outputs.empty() ? "" : ", ") + n.str();
  }
  if (outIndex < 0)
    return func.emitError("the model has no output named '")
           << options.output << "' for the loss (outputs: " << outputs << ")";
  Value out = ret.getOperand(outIndex);
  StringRef outName = nameOf(func.getResultAttrDict(outIndex));
  RankedTensorType outType = tensorTypeOf(out);
  if (!isa<FloatType>(outType.getElementType()))
    return func.emitError("the loss's output '") << outName << "' is not a float tensor";
  if (std::string error; !checkLossOutput(options.loss, outType, outName, error))
    return func.emitError(error);

  SmallVector<unsigned> params;
  for (unsigned a = 0; a < func.getNumArguments(); ++a) {
    if (func.getArgAttr(a, "dlc.param"))
      params.push_back(a);
    else if (nameOf(func.getArgAttrDict(a)) == "labels")
      return func.emitError("the model already has an input named 'labels' (a training step "
                            "adds it)");
  }
  unsigned labelsIndex = params.empty() ? func.getNumArguments() : params.front();
  OpBuilder b(ret);
  Location loc = func.getLoc();
  RankedTensorType labels = labelsType(options.loss, outType);
  // Dynamic dims (dlc compile --dims): the labels' are the output's symbolic dims.
  SmallVector<StringRef> labelDims;
  SmallVector<std::string> labelDimNames;
  if (!labels.hasStaticShape()) {
    dlc::graph::SymbolicShapes shapes(func);
    std::string why;
    FailureOr<dlc::graph::SymbolicDims> outDims = shapes.dims(out, &why);
    if (failed(outDims))
      return func.emitError("the loss's output '") << outName << "': " << why;
    for (int64_t d = 0; d < labels.getRank(); ++d) {
      const dlc::graph::SymbolicSize &size = (*outDims)[d];
      if (!labels.isDynamicDim(d)) {
        labelDimNames.push_back("");
        continue;
      }
      if (size.coef != 1 || size.syms.size() != 1 || size.syms.begin()->second != 1)
        return func.emitError("the loss's output '")
               << outName << "' dim " << d << " is " << size.str()
               << ", not one of the model's symbolic dims (--dims)";
      labelDimNames.push_back(size.syms.begin()->first);
    }
    labelDims.assign(labelDimNames.begin(), labelDimNames.end());
  }
  if (failed(func.insertArgument(labelsIndex, labels,
                                 tensorAttrs(b, "labels", labels.getElementType()), loc)))
    return failure();
  if (!labelDims.empty())
    func.setArgAttr(labelsIndex, dlc::graph::kDimsAttr, b.getStrArrayAttr(labelDims));
  for (unsigned &p : params)
    ++p;

  // The function returns the loss alone, then its gradients.
  Value loss = buildLoss(b, loc, options.loss, out, func.getArgument(labelsIndex));
  func::ReturnOp::create(b, ret.getLoc(), ValueRange{loss});
  ret.erase();
  func.setFunctionType(FunctionType::get(func.getContext(), func.getArgumentTypes(), {loss.getType()}));
  func.setAllResultAttrs(
      ArrayRef<DictionaryAttr>{tensorAttrs(b, "loss", outType.getElementType())});
  // The forward ops (not the return, which appendGradients replaces).
  llvm::DenseSet<Operation *> forwardOps;
  for (Operation &op : block.without_terminator())
    forwardOps.insert(&op);
  if (failed(appendGradients(func, 0, params)))
    return failure();
  rematerialize(block, forwardOps, options.remat, options.rematBudget);
  MemoryReport report;
  countSavedActivations(forwardOps, report);

  // Parameters become state: read at the start, updated by the optimizer, stored at the end.
  ret = cast<func::ReturnOp>(block.getTerminator());
  StateBuilder state{OpBuilder(module.getBody(), module.getBody()->begin()),
                     OpBuilder(&block, block.begin()), OpBuilder(ret), loc, 0, {}};
  Operation *lastBackwardOp = ret->getPrevNode();
  std::unique_ptr<Optimizer> optimizer = createOptimizer(options);
  optimizer->begin(state);
  SmallVector<Attribute> stateList;
  for (auto [k, a] : llvm::enumerate(params)) {
    Value arg = func.getArgument(a);
    auto [pref, p] = state.create("param", func.getArgAttr(a, "dlc.param_init"), tensorTypeOf(arg));
    arg.replaceAllUsesWith(p);
    stateList.push_back(b.getDictionaryAttr(
        {b.getNamedAttr("symbol", pref),
         b.getNamedAttr(dlc::graph::kNameAttr, func.getArgAttr(a, dlc::graph::kNameAttr)),
         b.getNamedAttr(dlc::graph::kDtypeAttr, func.getArgAttr(a, dlc::graph::kDtypeAttr))}));
    state.store(pref, optimizer->update(state, p, ret.getOperand(1 + k)));
  }
  state.flush();
  scheduleUpdatesEarly(block, lastBackwardOp ? lastBackwardOp->getNextNode() : &block.front());
  measureTrainingStep(module, func, params, report);
  setMemoryReport(module, report);
  // Only the loss is returned; the parameters are state now.
  func::ReturnOp::create(state.update, ret.getLoc(), ValueRange{ret.getOperand(0)});
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

struct ParamsToArgsPass : impl::ParamsToArgsBase<ParamsToArgsPass> {
  using ParamsToArgsBase::ParamsToArgsBase;
  void runOnOperation() override {
    TrainingOptions options;
    options.frozen.insert(freeze.begin(), freeze.end());
    if (failed(parametersToArguments(getOperation(), options)))
      signalPassFailure();
  }
};

struct TrainingStepPass : impl::TrainingStepBase<TrainingStepPass> {
  using TrainingStepBase::TrainingStepBase;
  void runOnOperation() override {
    TrainingOptions options;
    options.loss = loss;
    options.output = output;
    options.optimizer = optimizer;
    options.lr = lr > 0 ? double(lr) : defaultLearningRate(optimizer);
    options.momentum = momentum;
    options.beta1 = beta1;
    options.beta2 = beta2;
    options.eps = eps;
    options.weightDecay = weightDecay;
    options.remat = remat;
    options.rematBudget = int64_t(rematBudgetMiB * (1 << 20));
    if (failed(buildTrainingStep(getOperation(), options)))
      signalPassFailure();
  }
};

} // namespace

std::unique_ptr<Pass> createParamsToArgs(const std::set<std::string> &frozen) {
  ParamsToArgsOptions pass;
  pass.freeze.assign(frozen.begin(), frozen.end());
  return createParamsToArgs(pass);
}

std::unique_ptr<Pass> createTrainingStep(const TrainingOptions &options) {
  TrainingStepOptions pass;
  pass.loss = options.loss;
  pass.output = options.output;
  pass.optimizer = options.optimizer;
  pass.lr = options.lr;
  pass.momentum = options.momentum;
  pass.beta1 = options.beta1;
  pass.beta2 = options.beta2;
  pass.eps = options.eps;
  pass.weightDecay = options.weightDecay;
  pass.remat = options.remat;
  pass.rematBudgetMiB = double(options.rematBudget) / (1 << 20);
  return createTrainingStep(pass);
}

} // namespace dlc::autodiff
