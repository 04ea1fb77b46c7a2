// dlc-prepare-abi: the model function in destination-passing form over caller buffers.
#include "codegen/Transforms/Passes.h"
#include "dialects/Graph/IR/Names.h"

#include "dialects/Graph/IR/GraphOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MLProgram/IR/MLProgram.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace dlc::codegen {
#define GEN_PASS_DEF_PREPAREABI
#include "codegen/Transforms/Passes.h.inc"
} // namespace dlc::codegen

using namespace mlir;

namespace {

/// Percent-encodes every byte outside [A-Za-z0-9_.:/-] (descriptor names).
std::string encodeName(StringRef name) {
  std::string out;
  for (unsigned char c : name) {
    if (llvm::isAlnum(c) || StringRef("_.:/-").contains(c))
      out += c;
    else
      out += {'%', llvm::hexdigit(c >> 4), llvm::hexdigit(c & 15)};
  }
  return out.empty() ? "%" : out;
}

/// The symbol of each dim of a tensor the entry takes (`dlc.dims`; "" static).
SmallVector<std::string> dimSymbols(DictionaryAttr attrs, RankedTensorType t) {
  SmallVector<std::string> out(t.getRank(), "");
  if (auto dims = attrs ? attrs.getAs<ArrayAttr>(dlc::graph::kDimsAttr) : ArrayAttr())
    for (auto [i, s] : llvm::enumerate(dims.getAsValueRange<StringAttr>()))
      if (i < out.size())
        out[i] = s.str();
  return out;
}

std::string describe(StringRef kind, DictionaryAttr attrs, Type type, unsigned index) {
  auto t = cast<RankedTensorType>(type);
  auto name = attrs ? attrs.getAs<StringAttr>(dlc::graph::kNameAttr) : StringAttr();
  auto dtype = attrs ? attrs.getAs<IntegerAttr>(dlc::graph::kDtypeAttr) : IntegerAttr();
  std::string line = (kind + " " + encodeName(name ? name.getValue() : (kind + Twine(index)).str()) +
                      " " + Twine(dtype ? dtype.getInt() : 0) + " " + Twine(t.getRank()))
                         .str();
  SmallVector<std::string> symbols = dimSymbols(attrs, t);
  for (auto [d, sym] : llvm::zip(t.getShape(), symbols))
    line += " " + (ShapedType::isDynamic(d) ? "?" + encodeName(sym) : std::to_string(d));
  line += "\n";
  // A value-specialized input: the runtime checks each run passes these bytes.
  if (auto value = attrs ? attrs.getAs<DenseElementsAttr>(dlc::graph::kValueAttr) : DenseElementsAttr()) {
    line += "value ";
    unsigned bytes = value.getElementType().isInteger(1)
                         ? 1
                         : value.getElementType().getIntOrFloatBitWidth() / 8;
    auto emit = [&](const APInt &bits) {
      for (unsigned b = 0; b < bytes; ++b) {
        uint8_t byte = bits.extractBitsAsZExtValue(std::min(8u, bits.getBitWidth() - 8 * b), 8 * b);
        line += {llvm::hexdigit(byte >> 4, /*LowerCase=*/true), llvm::hexdigit(byte & 15, true)};
      }
    };
    if (isa<FloatType>(value.getElementType()))
      for (const APFloat &f : value.getValues<APFloat>())
        emit(f.bitcastToAPInt());
    else
      for (const APInt &i : value.getValues<APInt>())
        emit(i);
    if (value.getNumElements() == 0)
      line += "-";
    line += "\n";
  }
  return line;
}

/// Each check (in walk order, codes from 1) records its code in `status` when its flag
/// is non-zero and no earlier check failed; the run itself goes on (indices are clamped).
void lowerRuntimeChecks(func::FuncOp entry, Value status) {
  SmallVector<dlc::graph::RuntimeCheckOp> checks;
  entry.walk([&](dlc::graph::RuntimeCheckOp check) { checks.push_back(check); });
  for (auto [i, check] : llvm::enumerate(checks)) {
    OpBuilder b(check);
    Location loc = check.getLoc();
    Value flag = tensor::ExtractOp::create(b, loc, check.getFlag(), ValueRange{});
    Value zero = arith::ConstantIntOp::create(b, loc, flag.getType(), 0);
    Value failed = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, flag, zero);
    Value current = memref::LoadOp::create(b, loc, status);
    Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, current,
                                        arith::ConstantIntOp::create(b, loc, 0, 32));
    Value code = arith::ConstantIntOp::create(b, loc, (int64_t)i + 1, 32);
    Value next = arith::SelectOp::create(b, loc, arith::AndIOp::create(b, loc, failed, first),
                                         code, current);
    memref::StoreOp::create(b, loc, next, status);
    check.erase();
  }
}

/// Writes `value`, output `output` with computed dims, into `flat` (its greatest size)
/// viewed row-major at the value's sizes, and stores each computed dim into the dims
/// table. Without `flat` (no bound), into a buffer of its own handed to the runtime.
void materializeComputed(OpBuilder &b, Location loc, Value value, Value flat, Value table,
                         ArrayRef<std::string> symbols, const llvm::StringSet<> &computed,
                         const llvm::StringMap<int64_t> &symbolIndex, unsigned output) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> sizes, strides(type.getRank());
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      sizes.push_back(b.getIndexAttr(type.getDimSize(d)));
      continue;
    }
    Value size = tensor::DimOp::create(b, loc, value, d);
    sizes.push_back(size);
    if (computed.contains(symbols[d])) {
      Value slot = arith::ConstantIndexOp::create(b, loc, symbolIndex.lookup(symbols[d]));
      Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), size);
      memref::StoreOp::create(b, loc, i64, table, ValueRange{slot});
    }
  }
  OpFoldResult stride = b.getIndexAttr(1);
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    strides[d] = stride;
    if (d == 0)
      break;
    auto cs = getConstantIntValue(stride), cz = getConstantIntValue(sizes[d]);
    if (cs && cz)
      stride = b.getIndexAttr(*cs * *cz);
    else if (cs == 1)
      stride = sizes[d];
    else
      stride = arith::MulIOp::create(b, loc, getValueOrCreateConstantIndexOp(b, loc, stride),
                                     getValueOrCreateConstantIndexOp(b, loc, sizes[d]))
                   .getResult();
  }
  Value elements = getValueOrCreateConstantIndexOp(b, loc, stride);
  if (type.getRank() > 0)
    elements = arith::MulIOp::create(b, loc, elements,
                                     getValueOrCreateConstantIndexOp(b, loc, sizes[0]));
  Value own;
  if (!flat)
    flat = own = memref::AllocOp::create(
        b, loc, MemRefType::get({ShapedType::kDynamic}, type.getElementType()),
        ValueRange{elements});
  auto view = memref::ReinterpretCastOp::create(b, loc, flat, b.getIndexAttr(0), sizes, strides);
  bufferization::MaterializeInDestinationOp::create(b, loc, Type(), value, view, b.getUnitAttr(),
                                                    b.getUnitAttr());
  if (!own)
    return;
  auto module = value.getParentRegion()->getParentOfType<ModuleOp>();
  auto i64 = b.getI64Type();
  auto adopt = module.lookupSymbol<func::FuncOp>("dlc_rt_output_adopt");
  if (!adopt) {
    OpBuilder::InsertionGuard guard(b);
    b.setInsertionPointToStart(module.getBody());
    adopt = func::FuncOp::create(b, loc, "dlc_rt_output_adopt",
                                 b.getFunctionType({i64, i64, i64}, {}));
    adopt.setPrivate();
  }
  Type elt = type.getElementType();
  int64_t eltBytes = elt.isInteger(1) ? 1 : elt.getIntOrFloatBitWidth() / 8;
  Value address = arith::IndexCastOp::create(
      b, loc, i64, memref::ExtractAlignedPointerAsIndexOp::create(b, loc, own));
  Value bytes = arith::IndexCastOp::create(
      b, loc, i64, arith::MulIOp::create(b, loc, elements, arith::ConstantIndexOp::create(b, loc, eltBytes)));
  func::CallOp::create(b, loc, adopt,
                       ValueRange{arith::ConstantIntOp::create(b, loc, i64, output), address, bytes});
  // Freed by the buffer deallocation passes (they take no explicit deallocs).
}

struct PrepareABIPass : dlc::codegen::impl::PrepareABIBase<PrepareABIPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto func = module.lookupSymbol<func::FuncOp>(dlc::graph::kMainFunction);
    if (!func) {
      module.emitError("no @main_graph function to prepare");
      return signalPassFailure();
    }
    FunctionType ft = func.getFunctionType();
    std::string desc = "dlc-module 1\n";
    // Symbolic dims: one `dim` record each (in the order of dlc.dim_ranges, by name), and
    // the symbol index of every dim of every buffer for dlc-pack-entry-arguments.
    // Dims the model computes (NonZero's count) are declared `computed` when an output
    // has them; the entry writes their values into the table.
    llvm::StringMap<int64_t> symbolIndex;
    llvm::StringSet<> computed, outputSymbols;
    if (auto names = func->getAttrOfType<ArrayAttr>(dlc::graph::kComputedDimsAttr))
      for (StringRef name : names.getAsValueRange<StringAttr>())
        computed.insert(name);
    for (unsigned i = 0; i < ft.getNumResults(); ++i)
      for (const std::string &sym :
           dimSymbols(func.getResultAttrDict(i), cast<RankedTensorType>(ft.getResult(i))))
        outputSymbols.insert(sym);
    llvm::StringMap<int64_t> maxOf;
    if (auto ranges = func->getAttrOfType<DictionaryAttr>(dlc::graph::kDimRangesAttr))
      for (NamedAttribute range : ranges) {
        auto bounds = dyn_cast<DenseI64ArrayAttr>(range.getValue());
        if (!bounds || bounds.size() != 2) {
          func.emitError("dlc.dim_ranges: expected [min, max] for ") << range.getName();
          return signalPassFailure();
        }
        bool isComputed = computed.contains(range.getName());
        if (isComputed && !outputSymbols.contains(range.getName()))
          continue;
        maxOf[range.getName()] = bounds[1];
        symbolIndex[range.getName()] = symbolIndex.size();
        desc += "dim " + encodeName(range.getName()) + " " + std::to_string(bounds[0]) + " " +
                std::to_string(bounds[1]) + (isComputed ? " computed" : "") + "\n";
      }
    SmallVector<Attribute> bufferSymbols;
    auto symbolsOf = [&](StringRef kind, DictionaryAttr attrs, Type type) -> LogicalResult {
      auto t = cast<RankedTensorType>(type);
      SmallVector<int64_t> indices;
      for (auto [i, d, sym] : llvm::enumerate(t.getShape(), dimSymbols(attrs, t))) {
        if (!ShapedType::isDynamic(d)) {
          indices.push_back(-1);
          continue;
        }
        auto it = symbolIndex.find(sym);
        if (it == symbolIndex.end()) {
          auto name = attrs ? attrs.getAs<StringAttr>(dlc::graph::kNameAttr) : StringAttr();
          return func.emitError() << kind << " '" << (name ? name.getValue() : "") << "': dim "
                                  << i << " is " << (sym.empty() ? "unknown" : sym)
                                  << ", not one of the model's symbolic dims (--dims), "
                                     "which alone can size a model's inputs and outputs";
        }
        indices.push_back(it->second);
      }
      bufferSymbols.push_back(DenseI64ArrayAttr::get(&getContext(), indices));
      return success();
    };
    for (unsigned i = 0; i < ft.getNumInputs(); ++i)
      if (failed(symbolsOf("input", func.getArgAttrDict(i), ft.getInput(i))))
        return signalPassFailure();
    for (unsigned i = 0; i < ft.getNumResults(); ++i)
      if (failed(symbolsOf("output", func.getResultAttrDict(i), ft.getResult(i))))
        return signalPassFailure();
    for (unsigned i = 0; i < ft.getNumInputs(); ++i)
      desc += describe("input", func.getArgAttrDict(i), ft.getInput(i), i);
    for (unsigned i = 0; i < ft.getNumResults(); ++i)
      desc += describe("output", func.getResultAttrDict(i), ft.getResult(i), i);
    // A training step's parameters (mutable globals), for reading the trained weights.
    if (auto state = module->getAttrOfType<ArrayAttr>(dlc::codegen::kStateAttr))
      for (auto [i, entry] : llvm::enumerate(state.getAsRange<DictionaryAttr>())) {
        auto sym = entry.getAs<FlatSymbolRefAttr>("symbol");
        auto global = sym ? module.lookupSymbol<ml_program::GlobalOp>(sym.getAttr()) : nullptr;
        if (!global) {
          module.emitError("dlc.state names no ml_program.global");
          return signalPassFailure();
        }
        desc += describe("state", entry, global.getType(), i);
      }
    // Run-time checks: the entry returns the code of the first that failed, and the
    // descriptor's `error` records give each code its message.
    unsigned numChecks = 0;
    std::string errors;
    func.walk([&](dlc::graph::RuntimeCheckOp check) {
      errors += "error " + std::to_string(++numChecks) + " " + encodeName(check.getMessage()) + "\n";
    });
    // Sizes that must be equal (dims that met, dlc.size_checks): the runtime compares them
    // before each run; their errors follow the checks'.
    if (auto sizeChecks = func->getAttrOfType<ArrayAttr>(dlc::graph::kSizeChecksAttr))
      for (auto [i, c] : llvm::enumerate(sizeChecks.getAsRange<ArrayAttr>())) {
        auto parts = llvm::to_vector(c.getAsValueRange<StringAttr>());
        unsigned code = numChecks + i + 1;
        desc += "equal " + encodeName(parts[0]) + " " + encodeName(parts[1]) + " " +
                std::to_string(code) + "\n";
        errors += "error " + std::to_string(code) + " " + encodeName(parts[2]) + "\n";
      }
    desc += errors;
    module->setAttr(dlc::codegen::kDescriptorAttr, StringAttr::get(&getContext(), desc));

    // Empty tensors have no data: they pass an unused pointer (typed as a
    // one-element buffer, since bare-pointer calls reject zero-sized memrefs).
    auto isEmpty = [](Type t) {
      auto rt = cast<RankedTensorType>(t);
      return rt.hasStaticShape() && rt.getNumElements() == 0;
    };
    SmallVector<Type> bufferTypes;
    for (Type t : llvm::concat<const Type>(ft.getInputs(), ft.getResults())) {
      auto rt = cast<RankedTensorType>(t);
      bufferTypes.push_back(isEmpty(t) ? MemRefType::get({1}, rt.getElementType())
                                       : MemRefType::get(rt.getShape(), rt.getElementType()));
    }
    // An output with computed dims is a flat buffer of its greatest size (the runtime
    // allocates that much), viewed at this run's sizes; the dims table follows the outputs.
    // Without a bound (StringSplit's count), the entry hands the output to the runtime
    // (dlc_rt_output_adopt), which grows the caller's tensor.
    SmallVector<bool> computedOutput(ft.getNumResults(), false),
        adoptedOutput(ft.getNumResults(), false);
    for (unsigned i = 0; i < ft.getNumResults(); ++i) {
      auto rt = cast<RankedTensorType>(ft.getResult(i));
      SmallVector<std::string> symbols = dimSymbols(func.getResultAttrDict(i), rt);
      if (llvm::none_of(symbols, [&](const std::string &s) { return computed.contains(s); }))
        continue;
      computedOutput[i] = true;
      if (llvm::any_of(symbols, [&](const std::string &s) {
            return computed.contains(s) && maxOf.lookup(s) >= dlc::graph::kUnboundedDim;
          })) {
        adoptedOutput[i] = true;
        bufferTypes[ft.getNumInputs() + i] = MemRefType::get({1}, rt.getElementType());
        continue;
      }
      int64_t capacity = 1;
      for (auto [d, sym] : llvm::zip(rt.getShape(), symbols))
        if (__builtin_mul_overflow(capacity, ShapedType::isDynamic(d) ? maxOf.lookup(sym) : d,
                                   &capacity)) {
          func.emitError() << "output " << i << ": its greatest size overflows int64";
          return signalPassFailure();
        }
      bufferTypes[ft.getNumInputs() + i] =
          MemRefType::get({std::max<int64_t>(capacity, 1)}, rt.getElementType());
    }
    bool writesDims = llvm::is_contained(computedOutput, true);
    if (writesDims)
      bufferTypes.push_back(
          MemRefType::get({(int64_t)symbolIndex.size()}, OpBuilder(func).getI64Type()));
    OpBuilder b(func);
    Location loc = func.getLoc();
    SmallVector<Type> resultTypes;
    if (numChecks)
      resultTypes.push_back(b.getI32Type());
    auto entry = func::FuncOp::create(b, loc, "dlc_main", b.getFunctionType(bufferTypes, resultTypes));
    if (!symbolIndex.empty())
      entry->setAttr(dlc::codegen::kBufferDimsAttr, b.getArrayAttr(bufferSymbols));
    Block *body = entry.addEntryBlock();
    b.setInsertionPointToStart(body);
    Value status;
    if (numChecks) {
      status = memref::AllocaOp::create(b, loc, MemRefType::get({}, b.getI32Type()));
      memref::StoreOp::create(b, loc, arith::ConstantIntOp::create(b, loc, 0, 32), status);
    }
    IRMapping map;
    UnitAttr unit = b.getUnitAttr();
    for (unsigned i = 0; i < ft.getNumInputs(); ++i) {
      auto type = cast<RankedTensorType>(ft.getInput(i));
      Value in = isEmpty(type) ? Value(tensor::EmptyOp::create(b, loc, type.getShape(),
                                                               type.getElementType()))
                               : Value(bufferization::ToTensorOp::create(
                                     b, loc, type, body->getArgument(i), unit));
      map.map(func.getArgument(i), in);
    }
    for (Operation &op : func.getBody().front().without_terminator())
      b.clone(op, map);
    auto ret = cast<func::ReturnOp>(func.getBody().front().getTerminator());
    for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
      if (isEmpty(v.getType()))
        continue;
      Value value = map.lookupOrDefault(v), dest = body->getArgument(ft.getNumInputs() + i);
      if (computedOutput[i]) {
        materializeComputed(b, loc, value, adoptedOutput[i] ? Value() : dest,
                            body->getArguments().back(),
                            dimSymbols(func.getResultAttrDict(i),
                                       cast<RankedTensorType>(v.getType())),
                            computed, symbolIndex, i);
        continue;
      }
      // A result that is a slice of an input (Split, Slice) is copied from the input's
      // buffer directly: as tensors, 10,000 slices of one input form one alias set that
      // bufferization's analysis compares pairwise (a Split into 10,000 outputs spent a
      // minute there).
      if (auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
          slice && slice.getSourceType().getRank() == slice.getType().getRank() &&
          slice.getSourceType().hasStaticShape() && slice.getType().hasStaticShape()) {
        if (auto in = slice.getSource().getDefiningOp<bufferization::ToTensorOp>();
            in && isa<BlockArgument>(in.getBuffer())) {
          Value view = memref::SubViewOp::create(b, loc, in.getBuffer(), slice.getMixedOffsets(),
                                                 slice.getMixedSizes(), slice.getMixedStrides());
          memref::CopyOp::create(b, loc, view, dest);
          continue;
        }
      }
      // A collapsed result (a packed matmul's [M, N/NB, NB] viewed as [M, N]) is
      // materialized uncollapsed into the output viewed the same way, so the op that
      // computes it writes the caller's buffer directly (eliminate-empty-tensors does
      // not look through the collapse: the result was computed into a temporary and
      // copied, 1 MiB per run for a 512 x 512 MatMul).
      if (auto collapse = value.getDefiningOp<tensor::CollapseShapeOp>();
          collapse && collapse.getSrcType().hasStaticShape()) {
        auto expanded = MemRefType::get(collapse.getSrcType().getShape(),
                                        collapse.getSrcType().getElementType());
        dest = memref::ExpandShapeOp::create(b, loc, expanded, dest,
                                             collapse.getReassociationIndices());
        value = collapse.getSrc();
      }
      bufferization::MaterializeInDestinationOp::create(b, loc, Type(), value, dest, unit, unit);
    }
    if (!numChecks) {
      func::ReturnOp::create(b, loc);
      func.erase();
      return;
    }
    Value result = memref::LoadOp::create(b, loc, status);
    func::ReturnOp::create(b, loc, result);
    lowerRuntimeChecks(entry, status);
    func.erase();
  }
};

} // namespace
