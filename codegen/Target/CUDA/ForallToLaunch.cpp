// dlc-cuda-forall-to-launch: block/thread foralls -> gpu.launch -> gpu.func in one
// gpu.module, launched by gpu.launch_func.
#include "codegen/Target/CUDA/Passes.h"

#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"

namespace dlc::cuda {
#define GEN_PASS_DEF_FORALLTOLAUNCH
#include "codegen/Target/CUDA/Passes.h.inc"
} // namespace dlc::cuda

using namespace mlir;

namespace {

constexpr int64_t kWarpSize = 32, kWarpgroupSize = 128;

/// The mapping ids of a forall mapped entirely to `Mapping` (block or thread) x/y/z.
template <typename Mapping>
std::optional<SmallVector<int64_t>> mappedDims(scf::ForallOp forall) {
  std::optional<ArrayAttr> mapping = forall.getMapping();
  if (!mapping || mapping->empty())
    return std::nullopt;
  SmallVector<int64_t> dims;
  for (Attribute a : *mapping) {
    auto m = dyn_cast<Mapping>(a);
    if (!m || m.getMappingId() > 2)
      return std::nullopt;
    dims.push_back(m.getMappingId());
  }
  return dims;
}

/// The forall's trip counts, when its bounds are static with lower bound 0 and step 1.
std::optional<SmallVector<int64_t>> tripCounts(scf::ForallOp forall) {
  std::optional<SmallVector<int64_t>> lbs = getConstantIntValues(forall.getMixedLowerBound());
  std::optional<SmallVector<int64_t>> ubs = getConstantIntValues(forall.getMixedUpperBound());
  std::optional<SmallVector<int64_t>> steps = getConstantIntValues(forall.getMixedStep());
  if (!lbs || !ubs || !steps || llvm::any_of(*lbs, [](int64_t v) { return v != 0; }) ||
      llvm::any_of(*steps, [](int64_t v) { return v != 1; }))
    return std::nullopt;
  return ubs;
}

Value idOf(gpu::KernelDim3 ids, int64_t dim) {
  return dim == 0 ? ids.x : dim == 1 ? ids.y : ids.z;
}

/// Replaces `forall`'s induction variables by `ids` (by mapping dim) and inlines its
/// body where it stands, under a guard where some ids lie past its trip counts.
void inlineMapped(scf::ForallOp forall, ArrayRef<int64_t> dims, ArrayRef<int64_t> counts,
                  gpu::KernelDim3 ids, ArrayRef<int64_t> launched, IRRewriter &b) {
  Location loc = forall.getLoc();
  b.setInsertionPoint(forall);
  Value inside;
  SmallVector<Value> replacements;
  for (auto [dim, count] : llvm::zip(dims, counts)) {
    Value id = idOf(ids, dim);
    replacements.push_back(id);
    if (count == launched[dim])
      continue;
    Value lt = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, id,
                                     arith::ConstantIndexOp::create(b, loc, count));
    inside = inside ? arith::AndIOp::create(b, loc, inside, lt) : lt;
  }
  b.eraseOp(forall.getBody()->getTerminator());
  if (inside) {
    auto guard = scf::IfOp::create(b, loc, inside, /*withElseRegion=*/false);
    b.inlineBlockBefore(forall.getBody(), guard.thenBlock()->getTerminator(), replacements);
  } else {
    b.inlineBlockBefore(forall.getBody(), forall, replacements);
  }
  b.eraseOp(forall);
}

/// Moves into the launch the constants and memref views (and index arithmetic) its body
/// uses, so the kernel's arguments are whole buffers and the few scalars left.
void sinkIntoLaunch(gpu::LaunchOp launch, IRRewriter &b) {
  auto sinkable = [](Operation *op) {
    if (op->hasTrait<OpTrait::ConstantLike>() && op->getNumResults() == 1 &&
        !isa<BaseMemRefType>(op->getResult(0).getType()))
      return true;
    if (isa<ViewLikeOpInterface, affine::AffineApplyOp>(op))
      return isMemoryEffectFree(op);
    return isa<arith::ArithDialect>(op->getDialect()) && isMemoryEffectFree(op) &&
           llvm::all_of(op->getResultTypes(), [](Type t) { return t.isIntOrIndex(); });
  };
  Region &body = launch.getBody();
  for (bool changed = true; changed;) {
    changed = false;
    llvm::SetVector<Value> above;
    getUsedValuesDefinedAbove(body, above);
    for (Value v : above) {
      Operation *def = v.getDefiningOp();
      if (!def || !sinkable(def))
        continue;
      b.setInsertionPointToStart(&body.front());
      Operation *clone = b.clone(*def);
      for (auto [from, to] : llvm::zip(def->getResults(), clone->getResults()))
        b.replaceUsesWithIf(from, to, [&](OpOperand &use) {
          return body.isAncestor(use.getOwner()->getParentRegion());
        });
      changed = true;
    }
  }
}

/// A grid forall (blocks) -> gpu.launch, its thread foralls mapped to thread ids.
FailureOr<gpu::LaunchOp> toLaunch(scf::ForallOp grid, IRRewriter &b) {
  std::optional<SmallVector<int64_t>> gridDims = mappedDims<gpu::GPUBlockMappingAttr>(grid);
  std::optional<SmallVector<int64_t>> gridCounts = tripCounts(grid);
  if (!gridDims || !gridCounts || grid.getNumResults() != 0)
    return grid.emitOpError("is not a static grid of blocks x/y/z on buffers");
  SmallVector<int64_t> gridSize(3, 1), blockSize(3, 1);
  for (auto [dim, count] : llvm::zip(*gridDims, *gridCounts))
    gridSize[dim] = count;
  // Foralls over threads (x/y/z), warps (x: 32 threads each) or warpgroups (x: 128).
  auto groupSize = [](scf::ForallOp inner) -> int64_t {
    if (mappedDims<gpu::GPUWarpMappingAttr>(inner))
      return kWarpSize;
    if (mappedDims<gpu::GPUWarpgroupMappingAttr>(inner))
      return kWarpgroupSize;
    return 1;
  };
  SmallVector<scf::ForallOp> threadLoops;
  WalkResult walk = grid.getBody()->walk([&](scf::ForallOp inner) {
    int64_t group = groupSize(inner);
    std::optional<SmallVector<int64_t>> dims =
        group == kWarpSize        ? mappedDims<gpu::GPUWarpMappingAttr>(inner)
        : group == kWarpgroupSize ? mappedDims<gpu::GPUWarpgroupMappingAttr>(inner)
                                  : mappedDims<gpu::GPUThreadMappingAttr>(inner);
    std::optional<SmallVector<int64_t>> counts = tripCounts(inner);
    if (!dims || !counts || inner.getNumResults() != 0 ||
        (group != 1 && (dims->size() != 1 || (*dims)[0] != 0))) {
      inner.emitOpError("inside a kernel is not a static forall over threads x/y/z, warps x "
                        "or warpgroups x");
      return WalkResult::interrupt();
    }
    for (auto [dim, count] : llvm::zip(*dims, *counts))
      blockSize[dim] = std::max(blockSize[dim], count * group);
    threadLoops.push_back(inner);
    return WalkResult::skip();
  });
  if (walk.wasInterrupted())
    return failure();
  Location loc = grid.getLoc();
  b.setInsertionPoint(grid);
  auto c = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v).getResult(); };
  auto launch = gpu::LaunchOp::create(b, loc, c(gridSize[0]), c(gridSize[1]), c(gridSize[2]),
                                      c(blockSize[0]), c(blockSize[1]), c(blockSize[2]));
  Block &body = launch.getBody().front();
  b.setInsertionPointToEnd(&body);
  gpu::TerminatorOp::create(b, loc);
  for (scf::ForallOp inner : threadLoops) {
    if (int64_t group = groupSize(inner); group != 1) {
      // Group w: threads group*w .. group*(w+1)-1 along x.
      b.setInsertionPointToStart(&body);
      Value id = arith::DivUIOp::create(b, loc, launch.getThreadIds().x,
                                        arith::ConstantIndexOp::create(b, loc, group));
      gpu::KernelDim3 groupIds{id, id, id};
      SmallVector<int64_t> launched{blockSize[0] / group, 1, 1};
      inlineMapped(inner, {0}, *tripCounts(inner), groupIds, launched, b);
      continue;
    }
    inlineMapped(inner, *mappedDims<gpu::GPUThreadMappingAttr>(inner), *tripCounts(inner),
                 launch.getThreadIds(), blockSize, b);
  }
  SmallVector<Value> blockIds;
  for (int64_t dim : *gridDims)
    blockIds.push_back(idOf(launch.getBlockIds(), dim));
  b.eraseOp(grid.getBody()->getTerminator());
  b.inlineBlockBefore(grid.getBody(), body.getTerminator(), blockIds);
  b.eraseOp(grid);
  // Allocations in workgroup memory: the block's shared buffers.
  SmallVector<memref::AllocOp> shared;
  launch.getBody().walk([&](memref::AllocOp alloc) {
    Attribute space = alloc.getType().getMemorySpace();
    auto gpuSpace = dyn_cast_or_null<gpu::AddressSpaceAttr>(space);
    auto intSpace = dyn_cast_or_null<IntegerAttr>(space);
    if ((gpuSpace && gpuSpace.getValue() == gpu::AddressSpace::Workgroup) ||
        (intSpace && intSpace.getInt() == 3))
      shared.push_back(alloc);
  });
  for (memref::AllocOp alloc : shared) {
    if (!alloc.getType().hasStaticShape() || !alloc.getDynamicSizes().empty())
      return alloc.emitOpError("is a shared buffer of dynamic size");
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        b.eraseOp(user);
    BlockArgument buffer = launch.addWorkgroupAttribution(alloc.getType(), alloc.getLoc());
    b.replaceAllUsesWith(alloc.getResult(), buffer);
    b.eraseOp(alloc);
  }
  return launch;
}

struct ForallToLaunch : dlc::cuda::impl::ForallToLaunchBase<ForallToLaunch> {
  using ForallToLaunchBase::ForallToLaunchBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<scf::ForallOp> grids;
    module.walk([&](scf::ForallOp forall) {
      if (mappedDims<gpu::GPUBlockMappingAttr>(forall))
        grids.push_back(forall);
      return WalkResult::skip();
    });
    if (grids.empty())
      return;
    IRRewriter b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto target = NVVM::NVVMTargetAttr::get(ctx, /*optLevel=*/3, "nvptx64-nvidia-cuda", chip,
                                            features);
    auto kernels = gpu::GPUModuleOp::create(b, module.getLoc(), dlc::cuda::kKernelModule,
                                            b.getArrayAttr({target}));
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), b.getUnitAttr());
    SymbolTable table(kernels);
    int index = 0;
    for (scf::ForallOp grid : grids) {
      FailureOr<gpu::LaunchOp> launch = toLaunch(grid, b);
      if (failed(launch))
        return signalPassFailure();
      sinkIntoLaunch(*launch, b);
      SmallVector<Value> operands;
      gpu::GPUFuncOp fn = outlineKernelFunc(*launch, "k" + std::to_string(index++), operands);
      // (wgmma's shared-memory matrix descriptors address 16-byte units; 128 covers the
      // swizzled layouts too.)
      for (unsigned i = 0; i < fn.getNumWorkgroupAttributions(); ++i)
        fn.setWorkgroupAttributionAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                                       b.getI64IntegerAttr(128));
      // Registers enough for three blocks per SM (ptxas's own choice capped some
      // tensor-core kernels at 64 and spilled; uncapped, it took 255).
      int64_t threads = 1;
      if (std::optional<ArrayRef<int32_t>> known = fn.getKnownBlockSize())
        for (int32_t d : *known)
          threads *= d;
      int64_t registers = std::min<int64_t>(255, 65536 / (3 * threads) / 8 * 8);
      fn->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                  b.getI32IntegerAttr(std::max<int64_t>(registers, 32)));
      table.insert(fn);
      b.setInsertionPoint(*launch);
      gpu::LaunchFuncOp::create(b, launch->getLoc(), fn, launch->getGridSizeOperandValues(),
                                launch->getBlockSizeOperandValues(), Value(), operands);
      b.eraseOp(*launch);
    }
  }
};

} // namespace
