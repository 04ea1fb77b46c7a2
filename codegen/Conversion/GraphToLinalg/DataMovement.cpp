// Data movement: reshape, transpose, concat, split, slice, gather, pad, shape, identity.
#include "codegen/Conversion/GraphToLinalg/LoweringUtils.h"
#include "codegen/Conversion/GraphToLinalg/Passes.h"
#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/Utils/Utils.h"

using namespace mlir;
using namespace dlc::graph;

namespace dlc::conversion {
namespace {

struct ReshapeLowering : OpConversionPattern<ReshapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ReshapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    // Sizes given as sizes of the symbolic dims (a target computed from shapes).
    if (auto dims = op.getDims()) {
      SmallVector<OpFoldResult> sizes;
      for (auto [i, s] : llvm::enumerate(dims->getAsValueRange<StringAttr>())) {
        if (s.empty()) {
          sizes.push_back(b.getIndexAttr(op.getType().getDimSize(i)));
          continue;
        }
        Value size = symbolicSize(b, op.getLoc(), op, s);
        if (!size)
          return op.emitError("no input of the model has the dims of size ") << s;
        sizes.push_back(size);
      }
      b.replaceOp(op, reshapeDynamic(b, op.getLoc(), adaptor.getInput(), op.getType(), sizes));
      return success();
    }
    b.replaceOp(op, reshapeTensor(b, op.getLoc(), adaptor.getInput(), op.getType()));
    return success();
  }
};

struct TransposeLowering : OpConversionPattern<TransposeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(TransposeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    b.replaceOp(op, permuteTensor(b, loc, adaptor.getInput(), op.getPerm()));
    return success();
  }
};

/// Inputs of one chain of insert_slices. One-shot bufferization's conflict analysis of
/// a chain grows faster than cubically with its length (a Concat of 300 inputs took
/// 190 s in it, 1,000 inputs now 14 s), so longer concats are built as a tree of chains
/// (eliminate-empty-tensors usually makes the parts views of the result: no copy;
/// DenseNet's concats of up to 25 inputs keep their speed).
constexpr size_t kMaxConcatChain = 8;

/// `inputs` concatenated along `axis` into a new tensor of `type`.
Value concatChain(OpBuilder &b, Location loc, ValueRange inputs, RankedTensorType type,
                  int64_t axis) {
  if (inputs.size() > kMaxConcatChain) {
    SmallVector<Value> parts;
    for (size_t i = 0; i < inputs.size(); i += kMaxConcatChain) {
      ValueRange group = inputs.slice(i, std::min(kMaxConcatChain, inputs.size() - i));
      SmallVector<int64_t> shape(type.getShape());
      shape[axis] = 0;
      for (Value in : group) {
        int64_t d = cast<RankedTensorType>(in.getType()).getDimSize(axis);
        shape[axis] = ShapedType::isDynamic(d) || ShapedType::isDynamic(shape[axis])
                          ? ShapedType::kDynamic
                          : shape[axis] + d;
      }
      parts.push_back(concatChain(b, loc, group, type.clone(shape), axis));
    }
    return concatChain(b, loc, parts, type, axis);
  }
  // Dynamic dims are the inputs' own; a dynamic axis is the sum of theirs, and the
  // offsets along it are read when the model runs.
  Value acc;
  if (type.isDynamicDim(axis)) {
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, inputs.front());
    Value total;
    for (Value in : inputs) {
      Value d = getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, in, axis));
      total = total ? arith::AddIOp::create(b, loc, total, d).getResult() : d;
    }
    sizes[axis] = total;
    acc = tensor::EmptyOp::create(b, loc, sizes, type.getElementType());
  } else {
    acc = emptyTensor(b, loc, type, inputs.take_front());
  }
  OpFoldResult offset = b.getIndexAttr(0);
  for (Value in : inputs) {
    auto shape = cast<RankedTensorType>(in.getType()).getShape();
    if (llvm::is_contained(shape, 0))
      continue; // nothing to insert (and its offset may be past the end)
    SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
        strides(type.getRank(), b.getIndexAttr(1));
    offsets[axis] = offset;
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, in);
    acc = tensor::InsertSliceOp::create(b, loc, in, acc, offsets, sizes, strides);
    auto known = getConstantIntValue(offset);
    if (known && !ShapedType::isDynamic(shape[axis]))
      offset = b.getIndexAttr(*known + shape[axis]);
    else
      offset = arith::AddIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                                     getValueOrCreateConstantIndexOp(b, loc, sizes[axis]))
                   .getResult();
  }
  if (acc.getType() != type)
    acc = tensor::CastOp::create(b, loc, type, acc);
  return acc;
}

struct ConcatLowering : OpConversionPattern<ConcatOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ConcatOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op, concatChain(b, op.getLoc(), adaptor.getInputs(),
                                cast<RankedTensorType>(op.getType()), op.getAxis()));
    return success();
  }
};

struct SplitLowering : OpConversionPattern<SplitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SplitOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    SmallVector<Value> parts;
    int64_t axis = op.getAxis();
    OpFoldResult offset = b.getIndexAttr(0);
    for (auto [i, r] : llvm::enumerate(op.getResults())) {
      auto type = cast<RankedTensorType>(r.getType());
      SmallVector<OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0)),
          strides(type.getRank(), b.getIndexAttr(1)), sizes;
      offsets[axis] = offset;
      for (auto [d, s] : llvm::enumerate(type.getShape()))
        sizes.push_back(ShapedType::isDynamic(s)
                            ? OpFoldResult(tensor::DimOp::create(b, loc, adaptor.getInput(), d).getResult())
                            : OpFoldResult(b.getIndexAttr(s)));
      if (llvm::is_contained(type.getShape(), 0)) { // an empty part may start past the end
        parts.push_back(emptyTensor(b, loc, type, sizes));
        continue;
      }
      // A dynamic piece of a dynamic axis: its size from `dims`.
      if (ShapedType::isDynamic(op.getSizes()[i])) {
        auto dims = op.getDims();
        StringRef given = dims && i < dims->size() ? cast<StringAttr>((*dims)[i]).getValue() : "";
        Value size = symbolicSize(b, loc, op, given);
        if (!size)
          return op.emitError("no input of the model has the dims of size '") << given << "'";
        sizes[axis] = size;
      }
      parts.push_back(tensor::ExtractSliceOp::create(b, loc, type, adaptor.getInput(), offsets,
                                                     sizes, strides));
      auto known = getConstantIntValue(offset), step = getConstantIntValue(sizes[axis]);
      offset = known && step ? OpFoldResult(b.getIndexAttr(*known + *step))
                             : OpFoldResult(arith::AddIOp::create(
                                                b, loc, getValueOrCreateConstantIndexOp(b, loc, offset),
                                                getValueOrCreateConstantIndexOp(b, loc, sizes[axis]))
                                                .getResult());
    }
    b.replaceOp(op, parts);
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    auto starts = op.getStarts(), steps = op.getSteps();
    Value in = adaptor.getInput();
    auto given = [&](std::optional<ArrayAttr> attr, int64_t d) {
      return attr && d < int64_t(attr->size()) ? cast<StringAttr>((*attr)[d]).getValue()
                                               : StringRef();
    };
    // Starts: static, or sizes of the symbols (`start_dims`, x[-2:] of a dynamic dim).
    SmallVector<OpFoldResult> offsets;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      StringRef start = given(op.getStartDims(), d);
      if (start.empty()) {
        offsets.push_back(b.getIndexAttr(type.getDimSize(d) ? starts[d] : 0));
        continue;
      }
      Value v = symbolicSize(b, loc, op, start);
      if (!v)
        return op.emitError("no input of the model has the dims of size '") << start << "'";
      offsets.push_back(v);
    }
    SmallVector<OpFoldResult> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d)) {
        sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
        continue;
      }
      StringRef size = given(op.getDims(), d);
      Value v = symbolicSize(b, loc, op, size);
      if (!v)
        return op.emitError("no input of the model has the dims of size '") << size << "'";
      // [0:size] never passes the input's dim (other slices the importer checked).
      if (given(op.getStartDims(), d).empty() && starts[d] == 0 && steps[d] == 1) {
        Value bound = getValueOrCreateConstantIndexOp(b, loc, tensor::getMixedSize(b, loc, in, d));
        v = arith::MinSIOp::create(b, loc, v, bound);
      }
      sizes.push_back(v);
    }
    if (llvm::all_of(steps, [](int64_t s) { return s > 0; })) {
      SmallVector<OpFoldResult> strides;
      for (int64_t d = 0; d < type.getRank(); ++d)
        strides.push_back(b.getIndexAttr(steps[d]));
      b.replaceOp(op, tensor::ExtractSliceOp::create(b, loc, type, in, offsets, sizes, strides));
      return success();
    }
    // Negative steps: read input[start + i * step] element by element.
    Value r = buildIndexed(b, loc, type, {}, {}, [&](OpBuilder &nb, Location l, ValueRange idx, ValueRange) {
      SmallVector<Value> src;
      for (int64_t d = 0; d < type.getRank(); ++d) {
        Value scaled = arith::MulIOp::create(nb, l, idx[d], indexConst(nb, l, steps[d]));
        src.push_back(arith::AddIOp::create(nb, l, scaled,
                                            getValueOrCreateConstantIndexOp(nb, l, offsets[d])));
      }
      return tensor::ExtractOp::create(nb, l, in, src).getResult();
    }, sizes);
    b.replaceOp(op, r);
    return success();
  }
};

struct GatherLowering : OpConversionPattern<GatherOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(GatherOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = b.getContext();
    auto type = op.getType();
    Value data = adaptor.getData(), indices = adaptor.getIndices();
    auto dataType = cast<RankedTensorType>(data.getType());
    int64_t axis = op.getAxis(), n = dataType.getDimSize(axis);
    int64_t idxRank = cast<RankedTensorType>(indices.getType()).getRank();
    SmallVector<AffineExpr> idxExprs;
    for (int64_t d = 0; d < idxRank; ++d)
      idxExprs.push_back(getAffineDimExpr(axis + d, ctx));
    AffineMap idxMap = AffineMap::get(type.getRank(), 0, idxExprs, ctx);
    // Dynamic dims: the data's around the indices'; a dynamic gathered dim clamps to its
    // size when the model runs.
    SmallVector<OpFoldResult> sizes;
    if (!type.hasStaticShape()) {
      for (int64_t d = 0; d < axis; ++d)
        sizes.push_back(tensor::getMixedSize(b, loc, data, d));
      llvm::append_range(sizes, tensor::getMixedSizes(b, loc, indices));
      for (int64_t d = axis + 1; d < dataType.getRank(); ++d)
        sizes.push_back(tensor::getMixedSize(b, loc, data, d));
    }
    Value dynamicN = dataType.isDynamicDim(axis) ? Value(tensor::DimOp::create(b, loc, data, axis))
                                                 : Value();
    Value r = buildIndexed(
        b, loc, type, {indices}, {idxMap}, [&](OpBuilder &nb, Location l, ValueRange idx, ValueRange a) {
          // Negative indices wrap once; anything still out of range is clamped.
          Value i = dynamicN ? wrapAndClampIndex(nb, l, a[0], dynamicN)
                             : wrapAndClampIndex(nb, l, a[0], n);
          SmallVector<Value> src(idx.take_front(axis));
          src.push_back(i);
          llvm::append_range(src, idx.drop_front(axis + idxRank));
          return tensor::ExtractOp::create(nb, l, data, src).getResult();
        },
        sizes);
    b.replaceOp(op, r);
    return success();
  }
};

struct PadLowering : OpConversionPattern<PadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(PadOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    Location loc = op.getLoc();
    auto type = op.getType();
    Value in = adaptor.getInput();
    auto inType = cast<RankedTensorType>(in.getType());
    int64_t rank = type.getRank();
    auto pads = op.getPads();
    if (op.getMode() == "constant") {
      // Negative pads crop first; the rest pads with the constant.
      SmallVector<OpFoldResult> offsets, sizes, strides;
      SmallVector<int64_t> croppedShape, lo, hi;
      bool cropsDynamic = false;
      for (int64_t d = 0; d < rank; ++d) {
        strides.push_back(b.getIndexAttr(1));
        if (inType.isDynamicDim(d)) { // cropped to max(0, dim - crops) when it runs
          int64_t cropLo = std::max<int64_t>(0, -pads[d]), cropHi = std::max<int64_t>(0, -pads[d + rank]);
          Value dim = tensor::DimOp::create(b, loc, in, d), zero = indexConst(b, loc, 0);
          Value size = arith::MaxSIOp::create(
              b, loc, arith::SubIOp::create(b, loc, dim, indexConst(b, loc, cropLo + cropHi)), zero);
          Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, size, zero);
          croppedShape.push_back(ShapedType::kDynamic);
          offsets.push_back(cropLo ? OpFoldResult(arith::SelectOp::create(
                                         b, loc, empty, zero, indexConst(b, loc, cropLo))
                                         .getResult())
                                   : OpFoldResult(b.getIndexAttr(0)));
          sizes.push_back(cropLo || cropHi ? OpFoldResult(size) : OpFoldResult(dim));
          cropsDynamic |= cropLo || cropHi;
          lo.push_back(std::max<int64_t>(0, pads[d]));
          hi.push_back(std::max<int64_t>(0, pads[d + rank]));
          continue;
        }
        int64_t cropLo = std::max<int64_t>(0, -pads[d]), cropHi = std::max<int64_t>(0, -pads[d + rank]);
        int64_t size = inType.getDimSize(d) - cropLo - cropHi;
        croppedShape.push_back(std::max<int64_t>(0, size));
        offsets.push_back(b.getIndexAttr(size > 0 ? cropLo : 0));
        sizes.push_back(b.getIndexAttr(std::max<int64_t>(0, size)));
        lo.push_back(std::max<int64_t>(0, pads[d]));
        hi.push_back(std::max<int64_t>(0, pads[d + rank]));
      }
      auto croppedType = RankedTensorType::get(croppedShape, type.getElementType());
      if (croppedType != inType || cropsDynamic)
        in = tensor::ExtractSliceOp::create(b, loc, croppedType, in, offsets, sizes, strides);
      Value value = scalarConstant(b, loc, type.getElementType(), op.getValue().convertToDouble());
      b.replaceOp(op, padConstant(b, loc, in, lo, hi, value));
      return success();
    }
    bool reflect = op.getMode() == "reflect";
    // Dynamic dims: the input's size (read when the model runs) plus the pads.
    SmallVector<OpFoldResult> outSizes;
    SmallVector<Value> dimSizes;
    for (int64_t d = 0; d < rank; ++d) {
      if (!inType.isDynamicDim(d)) {
        outSizes.push_back(b.getIndexAttr(type.getDimSize(d)));
        dimSizes.push_back(Value());
        continue;
      }
      Value n = tensor::DimOp::create(b, loc, in, d);
      dimSizes.push_back(n);
      outSizes.push_back(
          arith::AddIOp::create(b, loc, n, indexConst(b, loc, pads[d] + pads[d + rank])).getResult());
    }
    Value r = buildIndexed(b, loc, type, {}, {}, [&](OpBuilder &nb, Location l, ValueRange idx, ValueRange) {
      SmallVector<Value> src;
      for (int64_t d = 0; d < rank; ++d) {
        Value n = dimSizes[d] ? dimSizes[d] : indexConst(nb, l, inType.getDimSize(d));
        Value last = arith::SubIOp::create(nb, l, n, indexConst(nb, l, 1));
        Value j = arith::SubIOp::create(nb, l, idx[d], indexConst(nb, l, pads[d]));
        if (reflect) {
          // j < 0 -> -j; j >= n -> 2(n-1) - j (pads are smaller than n).
          Value negJ = arith::SubIOp::create(nb, l, indexConst(nb, l, 0), j);
          j = arith::MaxSIOp::create(nb, l, j, negJ);
          Value mirrored = arith::SubIOp::create(
              nb, l, arith::AddIOp::create(nb, l, last, last), j);
          j = arith::MinSIOp::create(nb, l, j, mirrored);
        }
        j = arith::MaxSIOp::create(nb, l, j, indexConst(nb, l, 0));
        j = arith::MinSIOp::create(nb, l, j, last);
        src.push_back(j);
      }
      return tensor::ExtractOp::create(nb, l, in, src).getResult();
    }, outSizes);
    b.replaceOp(op, r);
    return success();
  }
};

struct ShapeLowering : OpConversionPattern<ShapeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(ShapeOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    auto shape = op.getInput().getType().getShape();
    if (op.getInput().getType().hasStaticShape()) {
      b.replaceOpWithNewOp<arith::ConstantOp>(
          op, DenseElementsAttr::get(op.getType(), llvm::ArrayRef<int64_t>(shape)));
      return success();
    }
    // Dynamic dims: read when the model runs.
    Location loc = op.getLoc();
    SmallVector<Value> dims;
    Type elt = op.getType().getElementType();
    for (int64_t d = 0; d < (int64_t)shape.size(); ++d) {
      Value size = getValueOrCreateConstantIndexOp(
          b, loc, tensor::getMixedSize(b, loc, adaptor.getInput(), d));
      dims.push_back(arith::IndexCastOp::create(b, loc, elt, size));
    }
    b.replaceOpWithNewOp<tensor::FromElementsOp>(op, op.getType(), dims);
    return success();
  }
};

struct IdentityLowering : OpConversionPattern<IdentityOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(IdentityOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &b) const override {
    b.replaceOp(op, adaptor.getInput());
    return success();
  }
};

} // namespace

void populateDataMovementLoweringPatterns(RewritePatternSet &patterns) {
  patterns.add<ReshapeLowering, TransposeLowering, ConcatLowering, SplitLowering, SliceLowering,
               GatherLowering, PadLowering, ShapeLowering, IdentityLowering>(
      patterns.getContext());
}

} // namespace dlc::conversion
