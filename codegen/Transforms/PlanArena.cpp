// dlc-plan-arena: a function's intermediate buffers as views of one arena, reused by liveness.
#include "dialects/Graph/IR/NodeName.h"
#include "codegen/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/Support/FormatVariadic.h"

#include <limits>

namespace dlc::codegen {
#define GEN_PASS_DEF_PLANARENA
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {

constexpr int64_t kAlignment = 64;

int64_t alignUp(int64_t v) { return (v + kAlignment - 1) / kAlignment * kAlignment; }

/// One top-level allocation: its size and the span of top-level ops (by position
/// in the function's block) from its first to its last use through any view.
struct Buffer {
  memref::AllocOp alloc;
  SmallVector<memref::DeallocOp> deallocs;
  int64_t bytes = 0;
  int64_t begin = 0, end = 0;
  int64_t offset = 0;
};

/// Fills `buf`'s live span and deallocations; fails where the buffer may outlive
/// the function's block or be reached other than through memref views (returned,
/// passed to a call, deallocated through a view), which keeps it a plain allocation.
LogicalResult computeLiveness(Buffer &buf, Block &body,
                              const DenseMap<Operation *, int64_t> &position) {
  // From the first use, not the allocation: buffer-hoisting moves allocations up
  // to the top of the function.
  buf.begin = std::numeric_limits<int64_t>::max();
  buf.end = position.lookup(buf.alloc);
  SmallVector<Value> worklist{buf.alloc.getResult()};
  DenseSet<Value> seen{buf.alloc.getResult()};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (OpOperand &use : v.getUses()) {
      Operation *user = use.getOwner();
      if (auto dealloc = dyn_cast<memref::DeallocOp>(user)) {
        if (v != buf.alloc.getResult() || dealloc->getBlock() != &body)
          return failure();
        buf.deallocs.push_back(dealloc);
        continue;
      }
      if (user->hasTrait<OpTrait::ReturnLike>() && user->getParentOp() == body.getParentOp())
        return failure();
      if (isa<CallOpInterface>(user))
        return failure();
      Operation *top = body.findAncestorOpInBlock(*user);
      if (!top)
        return failure();
      buf.begin = std::min(buf.begin, position.lookup(top));
      buf.end = std::max(buf.end, position.lookup(top));
      // Any memref a user returns may alias the buffer (subview, collapse_shape,
      // cast, a loop's memref result, ...): its uses extend the span too.
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()) && seen.insert(result).second)
          worklist.push_back(result);
    }
  }
  if (buf.begin > buf.end) // never used
    buf.begin = buf.end;
  return success();
}

/// Largest first, each at the lowest 64-byte aligned offset not overlapping a
/// placed buffer whose span intersects its own. Returns the arena size.
int64_t assignOffsets(MutableArrayRef<Buffer> buffers) {
  SmallVector<Buffer *> order = llvm::map_to_vector(buffers, [](Buffer &b) { return &b; });
  llvm::stable_sort(order, [](Buffer *a, Buffer *b) { return a->bytes > b->bytes; });
  SmallVector<Buffer *> placed;
  int64_t total = 0;
  for (Buffer *buf : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy; // [offset, offset + size) in use
    for (Buffer *other : placed)
      if (other->begin <= buf->end && buf->begin <= other->end)
        busy.push_back({other->offset, other->offset + alignUp(other->bytes)});
    llvm::sort(busy);
    int64_t offset = 0;
    for (auto [lo, hi] : busy) {
      if (offset + alignUp(buf->bytes) <= lo)
        break;
      offset = std::max(offset, hi);
    }
    buf->offset = offset;
    total = std::max(total, offset + alignUp(buf->bytes));
    placed.push_back(buf);
  }
  return total;
}

std::string formatBytes(int64_t bytes) {
  if (bytes < 1024)
    return llvm::formatv("{0} B", bytes).str();
  if (bytes < (1 << 20))
    return llvm::formatv("{0:F2} KiB", bytes / 1024.0).str();
  return llvm::formatv("{0:F2} MiB", bytes / 1048576.0).str();
}

/// --dump-config: the arena's size against the sum of its buffers, and the largest
/// buffers live where the most bytes are (by the op that allocates them).
void report(ArrayRef<Buffer> buffers, int64_t total) {
  int64_t sum = 0, last = 0;
  for (const Buffer &b : buffers) {
    sum += b.bytes;
    last = std::max(last, b.end);
  }
  SmallVector<int64_t> live(last + 1, 0);
  for (const Buffer &b : buffers)
    for (int64_t t = b.begin; t <= b.end; ++t)
      live[t] += b.bytes;
  int64_t peak = std::max_element(live.begin(), live.end()) - live.begin();
  llvm::errs() << "arena: " << formatBytes(total) << " for " << buffers.size() << " buffers ("
               << formatBytes(sum) << " without reuse); " << formatBytes(live[peak]) << " live at its peak\n";
  SmallVector<const Buffer *> atPeak;
  for (const Buffer &b : buffers)
    if (b.begin <= peak && peak <= b.end)
      atPeak.push_back(&b);
  llvm::stable_sort(atPeak, [](const Buffer *a, const Buffer *b) { return a->bytes > b->bytes; });
  for (const Buffer *b : ArrayRef(atPeak).take_front(8)) {
    memref::AllocOp alloc = b->alloc;
    StringRef node = dlc::graph::nodeName(alloc.getLoc());
    llvm::errs() << "arena:   " << formatBytes(b->bytes) << " from '" << (node.empty() ? "?" : node)
                 << "' " << alloc.getType() << ", live over top-level ops [" << b->begin << ", "
                 << b->end << "] of " << last + 1 << "\n";
  }
}

struct PlanArenaPass : dlc::codegen::impl::PlanArenaBase<PlanArenaPass> {
  using PlanArenaBase::PlanArenaBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (func.isExternal() || !func.getBody().hasOneBlock())
      return;
    Block &body = func.getBody().front();
    DenseMap<Operation *, int64_t> position;
    for (auto [i, op] : llvm::enumerate(body))
      position[&op] = static_cast<int64_t>(i);

    const DataLayout &layout = DataLayout::closest(func);
    SmallVector<Buffer> buffers;
    for (auto alloc : body.getOps<memref::AllocOp>()) {
      MemRefType type = alloc.getType();
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace() || !alloc.getSymbolOperands().empty())
        continue;
      Buffer buf;
      buf.alloc = alloc;
      buf.bytes = type.getNumElements() *
                  static_cast<int64_t>(layout.getTypeSize(type.getElementType()));
      if (buf.bytes > 0 && succeeded(computeLiveness(buf, body, position)))
        buffers.push_back(std::move(buf));
    }
    if (buffers.size() < 2)
      return;
    int64_t total = assignOffsets(buffers);
    if (dumpConfig)
      report(buffers, total);

    // One allocation at the top and one free at the end; every planned buffer a
    // view at its offset, allocated where it was.
    IRRewriter b(&getContext());
    b.setInsertionPointToStart(&body);
    Location loc = func.getLoc();
    auto arenaType = MemRefType::get({total}, b.getI8Type());
    Value arena = memref::AllocOp::create(b, loc, arenaType, b.getI64IntegerAttr(kAlignment));
    b.setInsertionPoint(body.getTerminator());
    memref::DeallocOp::create(b, loc, arena);
    for (Buffer &buf : buffers) {
      for (memref::DeallocOp dealloc : buf.deallocs)
        b.eraseOp(dealloc);
      b.setInsertionPoint(buf.alloc);
      Value offset = arith::ConstantIndexOp::create(b, buf.alloc.getLoc(), buf.offset);
      b.replaceOpWithNewOp<memref::ViewOp>(buf.alloc, buf.alloc.getType(), arena, offset,
                                           ValueRange{});
    }
  }
};

} // namespace
