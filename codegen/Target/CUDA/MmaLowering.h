// The common part of lowering a tensor-core schedule's group-level tiles (MmaSchedule.h)
// to what each thread of the group holds and does: the K loop rebuilt around the
// threads' accumulators, the tile reads, contractions and writes handed to a
// target-specific MmaLowering (WarpMma.cpp: mma.sync; WarpgroupMma.cpp: wgmma).
#ifndef DLC_CODEGEN_TARGET_CUDA_MMALOWERING_H
#define DLC_CODEGEN_TARGET_CUDA_MMALOWERING_H

#include "codegen/Target/CUDA/MmaSchedule.h"

namespace dlc::cuda {

/// How one kind of group (warp, warpgroup) computes the schedule's tiles.
class MmaLowering {
public:
  virtual ~MmaLowering() = default;
  /// Whether `forall` is a forall over this kind of group.
  virtual bool isGroup(mlir::scf::ForallOp forall) const = 0;
  /// Emitted once at the start of a group's body that holds tiles (thread ids, shared
  /// buffers).
  virtual void begin(mlir::scf::ForallOp group, mlir::OpBuilder &b) = 0;
  /// The thread's share of the accumulator tile `read` reads (role c) at `indices`.
  virtual mlir::Value readAccumulator(mlir::vector::TransferReadOp read,
                                      mlir::ValueRange indices, mlir::OpBuilder &b) = 0;
  /// A K step's operand tile (role a or b) at `indices`: the value `multiply` gets.
  virtual mlir::Value readOperand(mlir::vector::TransferReadOp read, mlir::ValueRange indices,
                                  mlir::OpBuilder &b) = 0;
  /// acc + lhs x rhs, for the schedule's `contract`.
  virtual mlir::Value multiply(mlir::vector::ContractionOp contract, mlir::Value lhs,
                               mlir::Value rhs, mlir::Value acc, mlir::OpBuilder &b) = 0;
  /// Calls `fn` with each element of the thread's share of accumulator `acc`: its (row,
  /// col) in the tile and its value (unrolled over a thread's few elements, or loops).
  virtual void
  forEachAccumulator(mlir::Value acc, mlir::OpBuilder &b,
                     llvm::function_ref<void(mlir::OpBuilder &, mlir::Value row, mlir::Value col,
                                             mlir::Value value)>
                         fn) = 0;
};

/// Rewrites the tiles of every group forall `lowering` takes in `root`. An accumulator
/// tile written through elementwise ops (an epilogue: `dlc.mma_role` "e" reads of other
/// operands, arith/math ops, broadcasts) is written element by element, the epilogue
/// computed on each accumulator element.
mlir::LogicalResult lowerMmaGroups(mlir::Operation *root, MmaLowering &lowering);

/// Whether `forall` is mapped to one of `Mappings` (e.g. gpu::GPUWarpMappingAttr).
template <typename... Mappings>
bool isMappedTo(mlir::scf::ForallOp forall) {
  std::optional<mlir::ArrayAttr> mapping = forall.getMapping();
  return mapping && !mapping->empty() && llvm::isa<Mappings...>((*mapping)[0]);
}

/// The operand role (kMmaRoleAttr) of a schedule op, or "".
llvm::StringRef mmaRole(mlir::Operation *op);

/// Element (row, col) of the tile a transfer at `indices` (permutation `map`: the
/// operand's dims -> (row, col), a constant 0 for a dim the tile broadcasts; a 1-D tile's
/// map has one result and only `row` counts) of `base` reads or writes: its memref
/// indices, clamped into the buffer, and whether it lies inside.
std::pair<llvm::SmallVector<mlir::Value>, mlir::Value>
tileElement(mlir::Value base, mlir::ValueRange indices, mlir::AffineMap map, mlir::Value row,
            mlir::Value col, mlir::OpBuilder &b, mlir::Location loc);
/// That element's value (0 outside the buffer).
mlir::Value loadTileElement(mlir::Value base, mlir::ValueRange indices, mlir::AffineMap map,
                            mlir::Value row, mlir::Value col, mlir::OpBuilder &b,
                            mlir::Location loc);
/// `value` stored to that element when it lies inside the buffer.
void storeTileElement(mlir::Value value, mlir::Value base, mlir::ValueRange indices,
                      mlir::AffineMap map, mlir::Value row, mlir::Value col, mlir::OpBuilder &b,
                      mlir::Location loc);

} // namespace dlc::cuda

#endif
