// checkDynamicDims: the symbols of dynamic dims, followed through the model function.
#include "codegen/Conversion/GraphToLinalg/DynamicDims.h"
#include "dialects/Graph/IR/GraphOps.h"
#include "dialects/Graph/IR/Names.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <map>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// A dim's size as a monomial of the symbolic dims: coef * product of symbols (each to
/// its power). A static dim has no symbols. Reshapes multiply and divide them.
struct Mono {
  int64_t coef = 1;
  std::map<std::string, int> syms;

  static Mono symbol(StringRef name) {
    Mono m;
    m.syms[name.str()] = 1;
    return m;
  }
  static Mono constant(int64_t c) {
    Mono m;
    m.coef = c;
    return m;
  }
  bool isStatic() const { return syms.empty(); }
  bool operator==(const Mono &o) const { return coef == o.coef && syms == o.syms; }
  bool operator!=(const Mono &o) const { return !(*this == o); }
  Mono operator*(const Mono &o) const {
    Mono m = *this;
    m.coef *= o.coef;
    for (const auto &[s, e] : o.syms)
      m.syms[s] += e;
    return m;
  }
  std::string str() const {
    std::string out = coef != 1 || syms.empty() ? std::to_string(coef) : "";
    for (const auto &[s, e] : syms)
      for (int i = 0; i < e; ++i)
        out += (out.empty() ? "" : "*") + s;
    return out;
  }
};

/// Per dim of a value: its size.
using Dims = SmallVector<Mono>;

Dims staticDims(Value v) {
  Dims d;
  for (int64_t s : cast<RankedTensorType>(v.getType()).getShape())
    d.push_back(Mono::constant(s));
  return d;
}

Mono productOf(ArrayRef<Mono> dims) {
  Mono p;
  for (const Mono &m : dims)
    p = p * m;
  return p;
}

struct Walker {
  DenseMap<Value, Dims> dims;

  Dims of(Value v) {
    auto it = dims.find(v);
    return it != dims.end() ? it->second : staticDims(v);
  }

  InFlightDiagnostic error(Operation *op) {
    return op->emitError() << "dynamic dims (--dims): ";
  }

  static unsigned operandIndex(Operation *op, Value v) {
    for (OpOperand &o : op->getOpOperands())
      if (o.get() == v)
        return o.getOperandNumber();
    return 0;
  }

  /// NumPy broadcasting over the operands: a dynamic dim meets only the same size or a
  /// broadcast 1 (its size is read from that operand when lowered).
  FailureOr<Dims> broadcast(Operation *op, ValueRange operands, RankedTensorType result) {
    Dims out;
    for (int64_t s : result.getShape())
      out.push_back(Mono::constant(s));
    SmallVector<bool> set(result.getRank(), false);
    for (Value v : operands) {
      auto t = cast<RankedTensorType>(v.getType());
      Dims d = of(v);
      int64_t offset = result.getRank() - t.getRank();
      for (int64_t i = 0; i < t.getRank(); ++i) {
        if (d[i].isStatic())
          continue;
        int64_t r = offset + i;
        if (!result.isDynamicDim(r))
          return error(op) << "dim " << i << " of operand " << operandIndex(op, v) << " ("
                           << d[i].str() << ") broadcasts against a static size "
                           << result.getDimSize(r);
        if (set[r] && out[r] != d[i])
          return error(op) << "dims of different sizes (" << out[r].str() << ", " << d[i].str()
                           << ") meet";
        out[r] = d[i];
        set[r] = true;
      }
    }
    for (int64_t r = 0; r < result.getRank(); ++r)
      if (result.isDynamicDim(r) && !set[r])
        return error(op) << "result dim " << r << " is dynamic but no operand dim is";
    return out;
  }

  FailureOr<Dims> matmul(MatMulOp mm, RankedTensorType result) {
    Operation *op = mm.getOperation();
    Dims l = of(mm.getLhs()), r = of(mm.getRhs());
    auto lt = cast<RankedTensorType>(mm.getLhs().getType());
    auto rt = cast<RankedTensorType>(mm.getRhs().getType());
    if (l.back() != r[rt.getRank() - 2])
      return error(op) << "the reduction dims differ (" << l.back().str() << ", "
                       << r[rt.getRank() - 2].str() << ")";
    // Batch dims broadcast; M from lhs, N from rhs.
    Dims out;
    int64_t nb = result.getRank() - 2;
    for (int64_t d = 0; d < nb; ++d) {
      int64_t fromRight = nb - d;
      int64_t li = lt.getRank() - 2 - fromRight, ri = rt.getRank() - 2 - fromRight;
      Mono a = li >= 0 ? l[li] : Mono(), b = ri >= 0 ? r[ri] : Mono();
      if (!a.isStatic() && !b.isStatic() && a != b)
        return error(op) << "batch dims of different sizes (" << a.str() << ", " << b.str()
                         << ") meet";
      if ((!a.isStatic() || !b.isStatic()) && !result.isDynamicDim(d))
        return error(op) << "a dynamic batch dim broadcasts against a static size";
      out.push_back(!a.isStatic() ? a : !b.isStatic() ? b : Mono::constant(result.getDimSize(d)));
    }
    out.push_back(l[lt.getRank() - 2]);
    out.push_back(r.back());
    return out;
  }

  /// A reshape lowers by groups of dims (one collapse or expand) or through one dim; a
  /// dynamic target dim is the rest of its group's size.
  FailureOr<Dims> reshape(ReshapeOp op, RankedTensorType result) {
    auto it = cast<RankedTensorType>(op.getInput().getType());
    Dims d = of(op.getInput());
    SmallVector<ReassociationIndices> groups;
    std::optional<SmallVector<ReassociationIndices>> reassoc;
    if (it.getRank() != result.getRank() && !(it.hasStaticShape() && result.hasStaticShape()))
      reassoc = getReassociationIndicesForReshape(it, result);
    if (reassoc && it.getRank() > result.getRank()) {
      Dims out;
      for (const ReassociationIndices &g : *reassoc)
        out.push_back(productOf(llvm::map_to_vector(g, [&](int64_t i) { return d[i]; })));
      return out;
    }
    // Each group: input dims `in` become output dims `outs`.
    auto split = [&](const Mono &size, ArrayRef<int64_t> outs, Dims &out) -> LogicalResult {
      int64_t fixed = 1, dynamic = 0;
      for (int64_t o : outs) {
        if (result.isDynamicDim(o))
          ++dynamic;
        else
          fixed *= result.getDimSize(o);
      }
      if (dynamic > 1)
        return error(op) << "a Reshape into several dynamic dims from one is not supported yet";
      if (dynamic == 0 && !size.isStatic())
        return error(op) << "a dynamic dim (" << size.str() << ") reshaped into static ones";
      for (int64_t o : outs) {
        if (!result.isDynamicDim(o)) {
          out[o] = Mono::constant(result.getDimSize(o));
          continue;
        }
        Mono m = size;
        if (fixed == 0 || m.coef % fixed != 0)
          return error(op) << "a dynamic dim (" << size.str() << ") does not split by " << fixed;
        m.coef /= fixed;
        out[o] = m;
      }
      return success();
    };
    Dims out(result.getRank(), Mono());
    if (reassoc) {
      for (auto [g, group] : llvm::enumerate(*reassoc))
        if (failed(split(d[g], group, out)))
          return failure();
      return out;
    }
    if (failed(split(productOf(d), llvm::to_vector(llvm::seq<int64_t>(0, result.getRank())), out)))
      return failure();
    return out;
  }

  /// The sizes of `op`'s result, for the ops whose lowering sizes dynamic dims.
  FailureOr<Dims> resultDims(Operation *op) {
    auto result = cast<RankedTensorType>(op->getResult(0).getType());
    if (isa<ScalarComputationOpInterface>(op))
      return broadcast(op, op->getOperands(), result);
    if (auto mm = dyn_cast<MatMulOp>(op))
      return matmul(mm, result);
    if (isa<ReduceSumOp, ReduceMeanOp, ReduceMaxOp, ReduceMinOp, ReduceProdOp>(op)) {
      Value in = op->getOperand(0);
      auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
      Dims d = of(in), out;
      auto it = cast<RankedTensorType>(in.getType());
      for (int64_t i = 0; i < it.getRank(); ++i)
        if (!llvm::is_contained(axes, i))
          out.push_back(d[i]);
        else if (result.getRank() == it.getRank())
          out.push_back(Mono::constant(1));
      if (out.size() != size_t(result.getRank()))
        return error(op) << "unexpected reduction result rank";
      return out;
    }
    if (auto t = dyn_cast<TransposeOp>(op)) {
      Dims d = of(t.getInput()), out;
      for (int64_t p : t.getPerm())
        out.push_back(d[p]);
      return out;
    }
    if (auto r = dyn_cast<ReshapeOp>(op))
      return reshape(r, result);
    // Convolutions and pools over a dynamic batch: the batch passes through, everything
    // else (channels, image, weights) is static.
    if (isa<ConvOp, ConvNhwcOp, MaxPoolOp, AveragePoolOp>(op)) {
      Value in = op->getOperand(0);
      auto it = cast<RankedTensorType>(in.getType());
      if (!isa<FloatType>(it.getElementType()))
        return error(op) << "an integer convolution over a dynamic batch is not supported yet";
      for (Value v : op->getOperands().drop_front())
        if (!cast<RankedTensorType>(v.getType()).hasStaticShape())
          return error(op) << "dynamic weights are not supported";
      for (int64_t d = 1; d < it.getRank(); ++d)
        if (it.isDynamicDim(d) || result.isDynamicDim(d))
          return error(op) << "only the batch dim of a convolution or pool may be dynamic";
      Dims out = staticDims(op->getResult(0));
      out[0] = of(in)[0];
      return out;
    }
    return error(op) << "the op does not support dynamic dims yet (give static shapes with "
                        "--input-shape)";
  }
};

} // namespace

LogicalResult checkDynamicDims(func::FuncOp func) {
  auto hasDynamic = [](Type t) {
    auto rt = dyn_cast<RankedTensorType>(t);
    return rt && !rt.hasStaticShape();
  };
  bool any = llvm::any_of(func.getArgumentTypes(), hasDynamic);
  if (!any)
    return success();
  Walker w;
  for (BlockArgument arg : func.getArguments()) {
    if (!hasDynamic(arg.getType()))
      continue;
    auto attr = func.getArgAttrOfType<ArrayAttr>(arg.getArgNumber(), dlc::graph::kDimsAttr);
    auto t = cast<RankedTensorType>(arg.getType());
    if (!attr || attr.size() != size_t(t.getRank()))
      return func.emitError() << "argument " << arg.getArgNumber()
                              << " has dynamic dims but no `dlc.dims` naming them";
    Dims d;
    for (auto [i, s] : llvm::enumerate(attr.getAsValueRange<StringAttr>())) {
      if (t.isDynamicDim(i) == s.empty())
        return func.emitError() << "argument " << arg.getArgNumber() << " dim " << i
                                << ": `dlc.dims` disagrees with its type";
      d.push_back(s.empty() ? Mono::constant(t.getDimSize(i)) : Mono::symbol(s));
    }
    w.dims[arg] = d;
  }
  WalkResult walk = func.walk([&](Operation *op) {
    if (op == func.getOperation() || isa<func::ReturnOp>(op))
      return WalkResult::advance();
    bool dynamic = llvm::any_of(op->getOperandTypes(), hasDynamic) ||
                   llvm::any_of(op->getResultTypes(), hasDynamic);
    if (!dynamic)
      return WalkResult::advance();
    if (op->getNumResults() != 1 || !isa<RankedTensorType>(op->getResult(0).getType()) ||
        op->getNumRegions() != 0) {
      op->emitError() << "dynamic dims (--dims): the op does not support dynamic dims yet";
      return WalkResult::interrupt();
    }
    FailureOr<Dims> d = w.resultDims(op);
    if (failed(d))
      return WalkResult::interrupt();
    w.dims[op->getResult(0)] = *d;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
  Builder b(func.getContext());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (!hasDynamic(v.getType()))
      continue;
    Dims d = w.of(v);
    SmallVector<std::string> names;
    for (const Mono &m : d)
      names.push_back(m.isStatic() ? "" : m.str());
    func.setResultAttr(i, dlc::graph::kDimsAttr,
                       b.getStrArrayAttr(SmallVector<StringRef>(names.begin(), names.end())));
  }
  return success();
}

} // namespace dlc::conversion
