// Threads over the whole tiles of a dynamic dim (dlc compile --dims).
#include "codegen/Target/X86/WholeTileLoops.h"
#include "codegen/Target/X86/Passes.h"

#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;

namespace dlc::x86 {
namespace {

/// The two loops that peeling made of a dynamic tile loop directly in `par`: its whole
/// tiles (from 0, step > 1) and then its last partial tile, chained through `par`'s one
/// iter_arg. Every other op of the body is pure and reads only values from outside.
std::optional<std::pair<scf::ForOp, scf::ForOp>> peeledPair(scf::ForOp par) {
  if (par.getNumRegionIterArgs() != 1)
    return std::nullopt;
  Block *body = par.getBody();
  SmallVector<scf::ForOp> loops(body->getOps<scf::ForOp>());
  if (loops.size() != 2)
    return std::nullopt;
  auto [whole, partial] = std::make_pair(loops[0], loops[1]);
  auto step = getConstantIntValue(whole.getStep());
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  if (!step || *step <= 1 || !matchPattern(whole.getLowerBound(), m_Zero()) ||
      whole.getStep() != partial.getStep() ||
      partial.getLowerBound() != whole.getUpperBound() || whole.getNumRegionIterArgs() != 1 ||
      partial.getNumRegionIterArgs() != 1 ||
      whole.getInitArgs()[0] != par.getRegionIterArgs()[0] ||
      partial.getInitArgs()[0] != whole.getResult(0) || yield.getOperand(0) != partial.getResult(0))
    return std::nullopt;
  for (Operation &op : body->without_terminator()) {
    if (&op == whole.getOperation() || &op == partial.getOperation())
      continue;
    if (!isPure(&op) || op.getNumRegions() != 0)
      return std::nullopt;
    for (Value v : op.getOperands())
      if (v.getParentBlock() == body && (isa<BlockArgument>(v) || v.getDefiningOp() == whole ||
                                         v.getDefiningOp() == partial))
        return std::nullopt;
  }
  return std::make_pair(whole, partial);
}

} // namespace

void coalesceWholeTiles(func::FuncOp func, RewriterBase &rewriter) {
  SmallVector<scf::ForOp> candidates;
  func.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(kParallelLoopAttr) && !loop.getStaticTripCount() &&
        matchPattern(loop.getStep(), m_One()) && peeledPair(loop))
      candidates.push_back(loop);
  });
  for (scf::ForOp par : candidates) {
    // The invariant ops (the split point's arithmetic) go before the loop.
    for (Operation &op : llvm::make_early_inc_range(par.getBody()->without_terminator()))
      if (!isa<scf::ForOp>(op))
        op.moveBefore(par);
    // for b { whole tiles; partial tile } -> for b { whole tiles }; for b { partial tile }
    rewriter.setInsertionPoint(par);
    auto wholes = cast<scf::ForOp>(rewriter.clone(*par));
    auto partials = cast<scf::ForOp>(rewriter.clone(*par));
    {
      SmallVector<scf::ForOp> loops(wholes.getBody()->getOps<scf::ForOp>());
      rewriter.modifyOpInPlace(wholes.getBody()->getTerminator(), [&] {
        wholes.getBody()->getTerminator()->setOperand(0, loops[0].getResult(0));
      });
      rewriter.eraseOp(loops[1]);
    }
    {
      SmallVector<scf::ForOp> loops(partials.getBody()->getOps<scf::ForOp>());
      rewriter.replaceAllUsesWith(loops[0].getResult(0), loops[0].getInitArgs()[0]);
      rewriter.eraseOp(loops[0]);
      rewriter.modifyOpInPlace(partials, [&] {
        partials.getInitArgsMutable()[0].set(wholes.getResult(0));
      });
    }
    rewriter.replaceOp(par, partials.getResults());
    // Threads split (b, whole tile) pairs: a batch of 1 still fills them.
    SmallVector<scf::ForOp> band = {wholes, *wholes.getBody()->getOps<scf::ForOp>().begin()};
    if (succeeded(coalesceLoops(rewriter, band)))
      band.front()->setAttr(kParallelLoopAttr, rewriter.getUnitAttr());
  }
}

} // namespace dlc::x86
