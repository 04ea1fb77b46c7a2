// ONNX optimizer update ops (domain ai.onnx.preview.training: Adagrad, Adam, Momentum) ->
// elementwise dlc_graph chains. Each takes a learning rate R and step count T (scalars),
// then N groups of tensors (X..., G..., and the optimizer state), and returns the updated
// X... followed by the updated state, group by group.
#include "frontends/Onnx/Expr.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
namespace {

using Results = SmallVectorImpl<Value>;

/// The checked operands of an optimizer with `perTensor` inputs per optimized tensor:
/// R and T as scalars of X's element type, and the groups.
struct OptimizerInputs {
  Value r, t;
  SmallVector<SmallVector<Value>> groups; // groups[k]: X_k, G_k, state_k...
  Type elt;
};

FailureOr<OptimizerInputs> optimizerInputs(NodeImporter &n, unsigned perTensor) {
  unsigned count = n.numInputs();
  if (count < 2 + perTensor || (count - 2) % perTensor != 0)
    return n.error("expects R, T and " + Twine(perTensor) + " tensors per optimized input, got " +
                   Twine(count) + " inputs");
  unsigned tensors = (count - 2) / perTensor;
  if (n.node.output_size() != (int)(tensors * (perTensor - 1)))
    return n.error("expects " + Twine(tensors * (perTensor - 1)) + " outputs for " +
                   Twine(tensors) + " optimized tensors");
  OptimizerInputs in;
  for (unsigned i = 0; i < count; ++i)
    if (!n.input(i))
      return n.error("input " + Twine(i) + " is required");
  in.elt = tensorType(n.input(2)).getElementType();
  if (!isa<FloatType>(in.elt))
    return n.error("expects floating-point tensors to optimize");
  auto rt = tensorType(n.input(0)), tt = tensorType(n.input(1));
  if (rt.getNumElements() != 1 || !isa<FloatType>(rt.getElementType()))
    return n.error("expects a floating-point scalar learning rate R");
  if (tt.getNumElements() != 1 || !isa<IntegerType>(tt.getElementType()))
    return n.error("expects an integer scalar step count T");
  Expr e{n, in.elt};
  in.r = e.reshape(e.cast(n.input(0), in.elt), {});
  in.t = e.reshape(e.cast(n.input(1), in.elt), {});
  if (e.failed)
    return failure();
  for (unsigned k = 0; k < tensors; ++k) {
    SmallVector<Value> group;
    for (unsigned j = 0; j < perTensor; ++j) {
      Value v = n.input(2 + j * tensors + k);
      if (tensorType(v) != tensorType(n.input(2 + k)))
        return n.error("input " + Twine(2 + j * tensors + k) +
                       " must have the type of the tensor it updates");
      group.push_back(v);
    }
    in.groups.push_back(group);
  }
  return in;
}

/// Appends the per-group results: the new X's first, then each state in turn.
void appendResults(ArrayRef<SmallVector<Value>> perGroup, Results &out) {
  for (unsigned j = 0; j < perGroup.front().size(); ++j)
    for (const auto &g : perGroup)
      out.push_back(g[j]);
}

LogicalResult adagrad(NodeImporter &n, Results &out) {
  auto in = optimizerInputs(n, 3);
  DLC_TRY(in);
  auto decay = n.floatAttr("decay_factor", 0), eps = n.floatAttr("epsilon", 0),
       norm = n.floatAttr("norm_coefficient", 0);
  DLC_TRY(decay);
  DLC_TRY(eps);
  DLC_TRY(norm);
  Expr e{n, in->elt};
  // Learning rate decayed by the step count.
  Value r = e.op<DivOp>({in->r, e.op<AddOp>({e.c(1), e.op<MulOp>({in->t, e.c(*decay)})})});
  SmallVector<SmallVector<Value>> results;
  for (auto &g : in->groups) {
    Value x = g[0], grad = g[1], h = g[2];
    Value reg = e.op<AddOp>({e.op<MulOp>({e.c(*norm), x}), grad});
    Value hNew = e.op<AddOp>({h, e.op<MulOp>({reg, reg})});
    Value scale = e.op<AddOp>({e.op<SqrtOp>({hNew}), e.c(*eps)});
    Value xNew = e.op<SubOp>({x, e.op<DivOp>({e.op<MulOp>({r, reg}), scale})});
    results.push_back({xNew, hNew});
  }
  if (e.failed)
    return failure();
  appendResults(results, out);
  return success();
}

LogicalResult adam(NodeImporter &n, Results &out) {
  auto in = optimizerInputs(n, 4);
  DLC_TRY(in);
  auto alpha = n.floatAttr("alpha", 0.9f), beta = n.floatAttr("beta", 0.999f),
       eps = n.floatAttr("epsilon", 0), norm = n.floatAttr("norm_coefficient", 0),
       post = n.floatAttr("norm_coefficient_post", 0);
  DLC_TRY(alpha);
  DLC_TRY(beta);
  DLC_TRY(eps);
  DLC_TRY(norm);
  DLC_TRY(post);
  Expr e{n, in->elt};
  // Bias correction r * sqrt(1 - beta^T) / (1 - alpha^T), from the first step on.
  Value corrected = e.op<DivOp>(
      {e.op<MulOp>({in->r, e.op<SqrtOp>({e.op<SubOp>({e.c(1), e.op<PowOp>({e.c(*beta), in->t})})})}),
       e.op<SubOp>({e.c(1), e.op<PowOp>({e.c(*alpha), in->t})})});
  Value r = e.where(e.op<GreaterOp>({in->t, e.c(0)}), corrected, in->r);
  SmallVector<SmallVector<Value>> results;
  for (auto &g : in->groups) {
    Value x = g[0], grad = g[1], v = g[2], h = g[3];
    Value reg = e.op<AddOp>({e.op<MulOp>({e.c(*norm), x}), grad});
    Value vNew = e.op<AddOp>({e.op<MulOp>({e.c(*alpha), v}), e.op<MulOp>({e.c(1 - *alpha), reg})});
    Value hNew = e.op<AddOp>(
        {e.op<MulOp>({e.c(*beta), h}), e.op<MulOp>({e.c(1 - *beta), e.op<MulOp>({reg, reg})})});
    Value scale = e.op<AddOp>({e.op<SqrtOp>({hNew}), e.c(*eps)});
    Value xNew = e.op<SubOp>({x, e.op<MulOp>({r, e.op<DivOp>({vNew, scale})})});
    Value xFinal = e.op<MulOp>({e.c(1 - *post), xNew});
    results.push_back({xFinal, vNew, hNew});
  }
  if (e.failed)
    return failure();
  appendResults(results, out);
  return success();
}

LogicalResult momentum(NodeImporter &n, Results &out) {
  auto in = optimizerInputs(n, 3);
  DLC_TRY(in);
  auto alpha = n.floatAttr("alpha", 0), beta = n.floatAttr("beta", 0),
       norm = n.floatAttr("norm_coefficient", 0);
  auto mode = n.stringAttr("mode", "standard");
  DLC_TRY(alpha);
  DLC_TRY(beta);
  DLC_TRY(norm);
  DLC_TRY(mode);
  if (*mode != "standard" && *mode != "nesterov")
    return n.error("mode must be 'standard' or 'nesterov', got '" + *mode + "'");
  Expr e{n, in->elt};
  // The gradient's coefficient is 1 at the first step (T == 0).
  Value gradScale = e.where(e.op<GreaterOp>({in->t, e.c(0)}), e.c(*beta), e.c(1));
  SmallVector<SmallVector<Value>> results;
  for (auto &g : in->groups) {
    Value x = g[0], grad = g[1], v = g[2];
    Value reg = e.op<AddOp>({e.op<MulOp>({e.c(*norm), x}), grad});
    Value vNew = e.op<AddOp>({e.op<MulOp>({e.c(*alpha), v}), e.op<MulOp>({gradScale, reg})});
    Value step = *mode == "standard"
                     ? vNew
                     : e.op<AddOp>({reg, e.op<MulOp>({e.c(*alpha), vNew})});
    Value xNew = e.op<SubOp>({x, e.op<MulOp>({in->r, step})});
    results.push_back({xNew, vNew});
  }
  if (e.failed)
    return failure();
  appendResults(results, out);
  return success();
}

constexpr const char *kTrainingDomain = "ai.onnx.preview.training";

const OpBuilderEntry kTraining[] = {
    {"Adagrad", 1, adagrad, kTrainingDomain},
    {"Adam", 1, adam, kTrainingDomain},
    {"Momentum", 1, momentum, kTrainingDomain},
};

} // namespace

ArrayRef<OpBuilderEntry> trainingBuilders() { return kTraining; }

} // namespace dlc::onnx_frontend
