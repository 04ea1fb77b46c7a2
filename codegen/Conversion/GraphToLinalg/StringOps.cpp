// String tensors (i128 elements: pointer and size) -> constants in globals and scf loops
// calling the runtime's string functions.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

/// A private constant global holding `bytes` (at least one byte), and its address as i64.
Value bytesAddress(OpBuilder &b, Location loc, Operation *at, StringRef bytes) {
  auto module = at->getParentOfType<ModuleOp>();
  auto type = MemRefType::get({std::max<int64_t>(bytes.size(), 1)}, b.getI8Type());
  SmallVector<int8_t> data(bytes.begin(), bytes.end());
  if (data.empty())
    data.push_back(0);
  auto init = DenseElementsAttr::get(RankedTensorType::get(type.getShape(), b.getI8Type()),
                                     ArrayRef<int8_t>(data));
  std::string name;
  for (int k = 0;; ++k) {
    name = "dlc_strings_" + std::to_string(k);
    if (!module.lookupSymbol(name))
      break;
  }
  {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    memref::GlobalOp::create(b, loc, name, b.getStringAttr("private"), type, init,
                             /*constant=*/true, /*alignment=*/nullptr);
  }
  Value global = memref::GetGlobalOp::create(b, loc, type, name);
  Value index = memref::ExtractAlignedPointerAsIndexOp::create(b, loc, global);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
}

/// The i128 of a string at `address + offset` of `size` bytes (0 for an empty one).
Value packString(OpBuilder &b, Location loc, Value address, int64_t offset, int64_t size) {
  if (size == 0)
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(b.getIntegerType(128), 0));
  auto wide = b.getIntegerType(128);
  Value ptr = arith::AddIOp::create(b, loc, address,
                                    arith::ConstantIntOp::create(b, loc, b.getI64Type(), offset));
  Value lo = arith::ExtUIOp::create(b, loc, wide, ptr);
  Value hi = arith::ConstantOp::create(b, loc, b.getIntegerAttr(wide, APInt(128, size) << 64));
  return arith::OrIOp::create(b, loc, lo, hi);
}

struct StringConstantLowering : OpConversionPattern<StringConstantOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(StringConstantOp op, OpAdaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    std::string blob;
    SmallVector<std::pair<int64_t, int64_t>> spans;
    for (StringRef s : op.getValues().getAsValueRange<StringAttr>()) {
      spans.push_back({int64_t(blob.size()), int64_t(s.size())});
      blob += s.str();
    }
    Value address = bytesAddress(b, loc, op, blob);
    SmallVector<Value> elements;
    for (auto [offset, size] : spans)
      elements.push_back(packString(b, loc, address, offset, size));
    auto type = op.getType();
    auto flat = RankedTensorType::get({int64_t(elements.size())}, type.getElementType());
    Value r = tensor::FromElementsOp::create(b, loc, flat, elements);
    b.replaceOp(op, reshapeTensor(b, loc, r, type));
    return success();
  }
};

struct StringCallLowering : OpConversionPattern<StringCallOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(StringCallOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    auto callee = op->getParentOfType<ModuleOp>().lookupSymbol<func::FuncOp>(op.getCallee());
    if (!callee)
      return op.emitError("no declaration of ") << op.getCallee();
    Value literal;
    if (auto lit = op.getLiteral()) {
      Value address = bytesAddress(b, loc, op, *lit);
      literal = packString(b, loc, address, 0, lit->size());
    }
    // Row-major over the flattened operands.
    int64_t n = type.getNumElements();
    auto flatOf = [&](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      return reshapeTensor(b, loc, v, RankedTensorType::get({n}, t.getElementType()));
    };
    SmallVector<Value> flats;
    for (Value v : adaptor.getOperands())
      flats.push_back(flatOf(v));
    Value init = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{n}, type.getElementType());
    Value out = buildLoop(b, loc, indexConst(b, loc, 0), indexConst(b, loc, n), {init},
                          [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
      SmallVector<Value> args;
      for (Value f : flats)
        args.push_back(tensor::ExtractOp::create(nb, l, f, ValueRange{i}));
      if (literal)
        args.push_back(literal);
      Value r = func::CallOp::create(nb, l, callee, args).getResult(0);
      if (type.getElementType().isInteger(1))
        r = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ne, r,
                                  arith::ConstantIntOp::create(nb, l, 0, 32));
      return SmallVector<Value>{tensor::InsertOp::create(nb, l, r, acc[0], ValueRange{i})};
    })[0];
    b.replaceOp(op, reshapeTensor(b, loc, out, type));
    return success();
  }
};

} // namespace

void declareStringFunctions(ModuleOp module) {
  SmallVector<graph::StringCallOp> calls;
  module.walk([&](graph::StringCallOp op) { calls.push_back(op); });
  OpBuilder b = OpBuilder::atBlockBegin(module.getBody());
  for (graph::StringCallOp op : calls) {
    if (module.lookupSymbol(op.getCallee()))
      continue;
    SmallVector<Type> args;
    for (Value v : op.getOperands())
      args.push_back(cast<RankedTensorType>(v.getType()).getElementType());
    if (op.getLiteral())
      args.push_back(b.getIntegerType(128));
    Type elt = op.getType().getElementType();
    Type result = elt.isInteger(1) ? b.getI32Type() : elt;
    auto f = func::FuncOp::create(b, op.getLoc(), op.getCallee(), b.getFunctionType(args, result));
    f.setPrivate();
  }
}

void populateStringLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<StringConstantLowering, StringCallLowering>(patterns.getContext());
}

} // namespace dlc::conversion
