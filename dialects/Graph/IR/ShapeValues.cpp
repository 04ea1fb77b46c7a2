// Contents of small integer tensors computed from shapes, for SymbolicShapes: elementwise
// arithmetic on sizes, and the comparisons and selections exporters compute from them.
#include "dialects/Graph/IR/SymbolicRules.h"
#include "dialects/Graph/IR/GraphOps.h"

using namespace mlir;

namespace dlc::graph {

using Dims = SymbolicDims;
using Size = SymbolicSize;

/// Elementwise on contents: products exact, quotients where they divide, sums and
/// remainders of constants.
std::optional<Dims> arithmeticValues(Operation *op,
                                     function_ref<std::optional<Dims>(Value)> valuesOf,
                                     func::FuncOp func) {
  if (op->getNumOperands() != 2)
    return std::nullopt;
  std::optional<Dims> a = valuesOf(op->getOperand(0)), b = valuesOf(op->getOperand(1));
  if (!a || !b || a->empty() != b->empty() ||
      (a->size() != b->size() && a->size() != 1 && b->size() != 1))
    return std::nullopt;
  Dims out;
  for (size_t i = 0, n = std::max(a->size(), b->size()); i < n; ++i) {
    const Size &x = (*a)[a->size() == 1 ? 0 : i], &y = (*b)[b->size() == 1 ? 0 : i];
    if (isa<MulOp>(op)) {
      out.push_back(x * y);
      continue;
    }
    if (isa<DivOp>(op)) {
      // Integer division of sizes: exact quotients, or floor quotients by a positive
      // constant (sizes are not negative, where truncation and floor agree).
      if (x.isStatic() && y.isStatic() && y.coef > 0 && x.coef >= 0) {
        out.push_back(Size::constant(x.coef / y.coef));
        continue;
      }
      std::optional<Size> q = x.divide(y);
      if (!q && y.isStatic() && y.coef > 0)
        q = sizeFloorDiv(x, y.coef);
      // By a size of the symbols (a head count), positive where the ranges say so.
      if (!q && !y.isStatic() && !x.isStatic()) {
        auto bounds = sizeBounds(func, y);
        if (bounds && bounds->first >= 1)
          q = sizeFloorDiv(x, y);
      }
      if (!q)
        return std::nullopt;
      out.push_back(*q);
      continue;
    }
    // Sums and differences: like terms combine, others make a derived size.
    std::optional<Size> sum = sizeAdd(x, y, isa<AddOp>(op) ? 1 : -1);
    if (!sum)
      return std::nullopt;
    out.push_back(*sum);
  }
  return out;
}

/// Comparisons, logic, selection and remainders on contents, where the sizes decide them
/// (equal sizes, or static ones): what exporters compute from shapes to pick a branch
/// (an attention's query heads against its key heads). Booleans are 0 and 1.
std::optional<Dims> logicValues(Operation *op,
                                function_ref<std::optional<Dims>(Value)> valuesOf,
                                func::FuncOp func) {
  SmallVector<Dims> in;
  size_t n = 1;
  for (Value v : op->getOperands()) {
    std::optional<Dims> d = valuesOf(v);
    if (!d || d->empty() || (d->size() != 1 && n != 1 && d->size() != n))
      return std::nullopt;
    n = std::max(n, d->size());
    in.push_back(*d);
  }
  auto at = [&](unsigned operand, size_t i) -> const Size & {
    return in[operand][in[operand].size() == 1 ? 0 : i];
  };
  auto known = [](const Size &s) -> std::optional<int64_t> {
    return s.isStatic() ? std::optional<int64_t>(s.coef) : std::nullopt;
  };
  Dims out;
  for (size_t i = 0; i < n; ++i) {
    const Size &x = at(0, i);
    std::optional<int64_t> kx = known(x), ky = in.size() > 1 ? known(at(1, i)) : std::nullopt;
    if (isa<NotOp>(op)) {
      if (!kx)
        return std::nullopt;
      out.push_back(Size::constant(*kx == 0));
    } else if (isa<EqualOp>(op)) {
      if (x == at(1, i))
        out.push_back(Size::constant(1));
      else if (kx && ky)
        out.push_back(Size::constant(*kx == *ky));
      else
        return std::nullopt;
    } else if (isa<AndOp, OrOp>(op)) {
      if (!kx || !ky)
        return std::nullopt;
      out.push_back(Size::constant(isa<AndOp>(op) ? (*kx && *ky) : (*kx || *ky)));
    } else if (isa<MaxOp, MinOp>(op)) {
      // Decided by the ranges where they can, else a derived max or min.
      const Size &y = at(1, i);
      std::optional<Size> diff = sizeAdd(x, y, -1);
      auto r = diff ? sizeBounds(func, *diff) : std::nullopt;
      bool max = isa<MaxOp>(op);
      if (x == y)
        out.push_back(x);
      else if (kx && ky)
        out.push_back(Size::constant(max ? std::max(*kx, *ky) : std::min(*kx, *ky)));
      else if (r && r->first >= 0)
        out.push_back(max ? x : y);
      else if (r && r->second <= 0)
        out.push_back(max ? y : x);
      else if (diff)
        out.push_back(max ? sizeMax(x, y) : sizeMin(x, y));
      else
        return std::nullopt;
    } else if (isa<ModOp>(op)) {
      std::optional<Size> q = x.divide(at(1, i));
      if (kx && ky && *kx >= 0 && *ky > 0)
        out.push_back(Size::constant(*kx % *ky));
      else if (q && !at(1, i).isStatic())
        out.push_back(Size::constant(0)); // d mod d, (k*d) mod d
      else
        return std::nullopt;
    } else if (isa<WhereOp>(op)) {
      if (!kx)
        return std::nullopt;
      out.push_back(*kx ? at(1, i) : at(2, i));
    } else {
      return std::nullopt;
    }
  }
  return out;
}

} // namespace dlc::graph
