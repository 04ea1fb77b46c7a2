// Vector accesses that stream whole cache lines through large caller buffers.
#include "codegen/Target/X86/StreamAccess.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"

using namespace mlir;

namespace dlc::x86 {

BlockArgument viewedArgument(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto subview = dyn_cast<memref::SubViewOp>(def))
      v = subview.getSource();
    else if (auto cast = dyn_cast<memref::CastOp>(def))
      v = cast.getSource();
    else
      return {};
  }
  return dyn_cast<BlockArgument>(v);
}

bool isLargeArgument(BlockArgument arg, func::FuncOp func) {
  auto type = dyn_cast<MemRefType>(arg.getType());
  if (!type || !type.hasStaticShape() || arg.getOwner() != &func.getBody().front())
    return false;
  return type.getNumElements() * type.getElementTypeBitWidth() / 8 >= kMinStreamingBytes;
}

bool transfersWholeLines(VectorTransferOpInterface xfer) {
  auto memref = dyn_cast<MemRefType>(xfer.getShapedType());
  VectorType vec = xfer.getVectorType();
  if (!memref || xfer.getMask() || !xfer.getPermutationMap().isMinorIdentity() ||
      llvm::any_of(xfer.getInBoundsValues(), [](bool b) { return !b; }))
    return false;
  if (llvm::any_of(vec.getShape().drop_back(), [](int64_t d) { return d != 1; }) ||
      vec.isScalable())
    return false;
  int64_t bytes = vec.getNumElements() * vec.getElementTypeBitWidth() / 8;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(memref.getStridesAndOffset(strides, offset)) || strides.empty() ||
      strides.back() != 1)
    return false;
  return bytes % kCacheLineBytes == 0;
}

Value transferAddress(OpBuilder &b, VectorTransferOpInterface xfer) {
  Location loc = xfer.getLoc();
  Value base = xfer.getBase();
  auto meta = memref::ExtractStridedMetadataOp::create(b, loc, base);
  Value linear = meta.getOffset();
  for (auto [index, stride] : llvm::zip(xfer.getIndices(), meta.getStrides()))
    linear = arith::AddIOp::create(b, loc, linear, arith::MulIOp::create(b, loc, index, stride));
  Value pointer = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, base);
  int64_t eltBytes = xfer.getVectorType().getElementTypeBitWidth() / 8;
  Value bytes = arith::MulIOp::create(b, loc, linear,
                                      arith::ConstantIndexOp::create(b, loc, eltBytes));
  return arith::AddIOp::create(b, loc, pointer, bytes);
}

} // namespace dlc::x86
