// String tensors (i128 elements: pointer and size) -> constants in globals and scf loops
// calling the runtime's string functions; ImageDecoder through the runtime's decoders.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
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
    // Row-major over the flattened operands (their sizes the result's).
    Value first = adaptor.getOperands()[0];
    SmallVector<OpFoldResult> sizes;
    Value count = indexConst(b, loc, 1);
    for (int64_t d = 0; d < type.getRank(); ++d) {
      sizes.push_back(tensor::getMixedSize(b, loc, first, d));
      count = arith::MulIOp::create(b, loc, count,
                                    getValueOrCreateConstantIndexOp(b, loc, sizes.back()));
    }
    int64_t n = type.hasStaticShape() ? type.getNumElements() : ShapedType::kDynamic;
    auto flatOf = [&](Value v) {
      auto t = cast<RankedTensorType>(v.getType());
      return reshapeTensor(b, loc, v, RankedTensorType::get({n}, t.getElementType()));
    };
    SmallVector<Value> flats;
    for (Value v : adaptor.getOperands())
      flats.push_back(flatOf(v));
    Value init = tensor::EmptyOp::create(
        b, loc,
        ArrayRef<OpFoldResult>{n == ShapedType::kDynamic ? OpFoldResult(count) : b.getIndexAttr(n)},
        type.getElementType());
    Value out = buildLoop(b, loc, indexConst(b, loc, 0), count, {init},
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
    b.replaceOp(op, type.hasStaticShape() ? reshapeTensor(b, loc, out, type)
                                          : reshapeDynamic(b, loc, out, type, sizes));
    return success();
  }
};

/// StringSplit: one pass counts each element's parts (and their most), a second writes
/// the parts (views into the input's strings) into [elements, most], padded with "".
struct StringSplitLowering : OpConversionPattern<StringSplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(StringSplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto countFn = module.lookupSymbol<func::FuncOp>("dlc_rt_string_split_count");
    auto partFn = module.lookupSymbol<func::FuncOp>("dlc_rt_string_split_part");
    if (!countFn || !partFn)
      return op.emitError("no declaration of the runtime's split functions");
    auto inType = cast<RankedTensorType>(adaptor.getInput().getType());
    Type str = inType.getElementType(), i64 = b.getI64Type();
    // The element count (dynamic dims, dlc compile --dims, read from the input).
    SmallVector<OpFoldResult> inSizes = tensor::getMixedSizes(b, loc, adaptor.getInput());
    int64_t n = inType.hasStaticShape() ? inType.getNumElements() : ShapedType::kDynamic;
    Value cn = indexConst(b, loc, 1);
    for (OpFoldResult d : inSizes)
      cn = arith::MulIOp::create(b, loc, cn, getValueOrCreateConstantIndexOp(b, loc, d));
    Value flat = inType.hasStaticShape()
                     ? reshapeTensor(b, loc, adaptor.getInput(), RankedTensorType::get({n}, str))
                     : reshapeDynamic(b, loc, adaptor.getInput(), RankedTensorType::get({n}, str),
                                      {OpFoldResult(cn)});
    Value delim = packString(b, loc, bytesAddress(b, loc, op, op.getDelimiter()), 0,
                             op.getDelimiter().size());
    Value maxsplit = arith::ConstantIntOp::create(b, loc, i64, op.getMaxsplit());
    Value c0 = indexConst(b, loc, 0);
    Value counts = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{cn}, i64);
    auto counted = buildLoop(b, loc, c0, cn, {counts, arith::ConstantIntOp::create(b, loc, i64, 0)},
                             [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
      Value s = tensor::ExtractOp::create(nb, l, flat, ValueRange{i});
      Value k = func::CallOp::create(nb, l, countFn, ValueRange{s, delim, maxsplit}).getResult(0);
      return SmallVector<Value>{tensor::InsertOp::create(nb, l, k, acc[0], ValueRange{i}),
                                arith::MaxSIOp::create(nb, l, acc[1], k)};
    });
    Value most = arith::IndexCastOp::create(b, loc, b.getIndexType(), counted[1]);
    Value parts = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{cn, most}, str);
    parts = buildLoop(b, loc, c0, cn, {parts}, [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
      Value s = tensor::ExtractOp::create(nb, l, flat, ValueRange{i});
      return buildLoop(nb, l, indexConst(nb, l, 0), most, acc,
                       [&](OpBuilder &lb, Location ll, Value j, ValueRange pa) {
        Value k = arith::IndexCastOp::create(lb, ll, i64, j);
        Value part =
            func::CallOp::create(lb, ll, partFn, ValueRange{s, delim, maxsplit, k}).getResult(0);
        return SmallVector<Value>{tensor::InsertOp::create(lb, ll, part, pa[0], ValueRange{i, j})};
      });
    })[0];
    markComputedDim(parts.getDefiningOp(), op.getCount(), 0, 1);
    SmallVector<OpFoldResult> sizes(inSizes);
    sizes.push_back(most);
    Value shaped = reshapeDynamic(b, loc, parts, op.getParts().getType(), sizes);
    Value countsShaped =
        inType.hasStaticShape()
            ? reshapeTensor(b, loc, counted[0], op.getCounts().getType())
            : reshapeDynamic(b, loc, counted[0], op.getCounts().getType(), inSizes);
    b.replaceOp(op, {shaped, countsShaped});
    return success();
  }
};

/// ImageDecoder: the runtime decodes the bytes (their buffer, read in place) into its run
/// arena; the pixels are then copied into a tensor of the sizes it reports.
struct ImageDecodeLowering : OpConversionPattern<ImageDecodeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ImageDecodeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    auto decode = module.lookupSymbol<func::FuncOp>("dlc_rt_image_decode");
    auto dimFn = module.lookupSymbol<func::FuncOp>("dlc_rt_image_dim");
    auto byteFn = module.lookupSymbol<func::FuncOp>("dlc_rt_image_byte");
    if (!decode || !dimFn || !byteFn)
      return op.emitError("no declaration of the runtime's image functions");
    Type i64 = b.getI64Type();
    Value bytes = adaptor.getInput();
    auto bt = cast<RankedTensorType>(bytes.getType());
    Value buffer = bufferization::ToBufferOp::create(
        b, loc, MemRefType::get(bt.getShape(), bt.getElementType()), bytes, /*read_only=*/true);
    Value address = arith::IndexCastOp::create(
        b, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, buffer));
    Value size = arith::IndexCastOp::create(
        b, loc, i64, getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, bytes, 0)));
    Value node = packString(b, loc, bytesAddress(b, loc, op, op.getNode()), 0, op.getNode().size());
    Value format = arith::ConstantIntOp::create(b, loc, i64, op.getPixelFormat());
    Value image =
        func::CallOp::create(b, loc, decode, ValueRange{address, size, format, node}).getResult(0);
    auto dimOf = [&](int64_t k) -> Value {
      Value d = func::CallOp::create(b, loc, dimFn,
                                     ValueRange{image, arith::ConstantIntOp::create(b, loc, i64, k)})
                    .getResult(0);
      return arith::IndexCastOp::create(b, loc, b.getIndexType(), d);
    };
    Value h = dimOf(0), w = dimOf(1);
    auto type = op.getType();
    Value c = indexConst(b, loc, type.getDimSize(2));
    Value n = arith::MulIOp::create(b, loc, arith::MulIOp::create(b, loc, h, w), c);
    Value flat = tensor::EmptyOp::create(b, loc, ArrayRef<OpFoldResult>{n}, b.getI8Type());
    flat = buildLoop(b, loc, indexConst(b, loc, 0), n, {flat},
                     [&](OpBuilder &nb, Location l, Value i, ValueRange acc) {
      Value k = arith::IndexCastOp::create(nb, l, i64, i);
      Value v = func::CallOp::create(nb, l, byteFn, ValueRange{image, k}).getResult(0);
      v = arith::TruncIOp::create(nb, l, nb.getI8Type(), v);
      return SmallVector<Value>{tensor::InsertOp::create(nb, l, v, acc[0], ValueRange{i})};
    })[0];
    Value shaped = reshapeDynamic(b, loc, flat, type,
                                  {OpFoldResult(h), OpFoldResult(w), b.getIndexAttr(type.getDimSize(2))});
    markComputedDim(shaped.getDefiningOp(), op.getHeight(), 0, 0);
    markComputedDim(shaped.getDefiningOp(), op.getWidth(), 0, 1);
    b.replaceOp(op, shaped);
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
  // ImageDecoder's.
  bool images = false;
  module.walk([&](graph::ImageDecodeOp) { images = true; });
  if (images && !module.lookupSymbol("dlc_rt_image_decode")) {
    Type i64 = b.getI64Type(), i32 = b.getI32Type(), s128 = b.getIntegerType(128);
    func::FuncOp::create(b, module.getLoc(), "dlc_rt_image_decode",
                         b.getFunctionType({i64, i64, i64, s128}, {i64}))
        .setPrivate();
    func::FuncOp::create(b, module.getLoc(), "dlc_rt_image_dim", b.getFunctionType({i64, i64}, {i64}))
        .setPrivate();
    func::FuncOp::create(b, module.getLoc(), "dlc_rt_image_byte", b.getFunctionType({i64, i64}, {i32}))
        .setPrivate();
  }
  // StringSplit's.
  bool splits = false;
  module.walk([&](graph::StringSplitOp) { splits = true; });
  Type str = b.getIntegerType(128), i64 = b.getI64Type();
  if (splits && !module.lookupSymbol("dlc_rt_string_split_count")) {
    func::FuncOp::create(b, module.getLoc(), "dlc_rt_string_split_count",
                         b.getFunctionType({str, str, i64}, {i64}))
        .setPrivate();
    func::FuncOp::create(b, module.getLoc(), "dlc_rt_string_split_part",
                         b.getFunctionType({str, str, i64, i64}, {str}))
        .setPrivate();
  }
}

void populateStringLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<StringConstantLowering, StringCallLowering, StringSplitLowering,
               ImageDecodeLowering>(patterns.getContext());
}

} // namespace dlc::conversion
