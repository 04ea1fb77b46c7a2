// The `dlc` dialect: #dlc.kernel_config's syntax and its verifiers.
#include "dialects/Codegen/IR/CodegenDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace dlc::codegen;

#include "dialects/Codegen/IR/CodegenDialect.cpp.inc"
#include "dialects/Codegen/IR/CodegenEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/Codegen/IR/CodegenAttrs.cpp.inc"

void DlcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/Codegen/IR/CodegenAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// #dlc.kernel_config<kind, tiles = [..], interchange = [..], split = D, epilogue,
//                    partial_sums, row_block = R>
//===----------------------------------------------------------------------===//

static void printList(AsmPrinter &p, ArrayRef<int64_t> values) {
  p << "[";
  llvm::interleaveComma(values, p);
  p << "]";
}

static ParseResult parseList(AsmParser &parser, SmallVectorImpl<int64_t> &values) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    return parser.parseInteger(values.emplace_back());
  });
}

void KernelConfigAttr::print(AsmPrinter &p) const {
  p << "<" << stringifyKernelKind(getKind()) << ", tiles = ";
  printList(p, getTiles());
  if (!getInterchange().empty()) {
    p << ", interchange = ";
    printList(p, getInterchange());
  }
  if (getSplit())
    p << ", split = " << *getSplit();
  if (getEpilogue())
    p << ", epilogue";
  if (getPartialSums())
    p << ", partial_sums";
  if (getRowBlock())
    p << ", row_block = " << *getRowBlock();
  p << ">";
}

Attribute KernelConfigAttr::parse(AsmParser &parser, Type) {
  StringRef kindName;
  SMLoc kindLoc = parser.getCurrentLocation();
  if (parser.parseLess() || parser.parseKeyword(&kindName))
    return {};
  std::optional<KernelKind> kind = symbolizeKernelKind(kindName);
  if (!kind) {
    parser.emitError(kindLoc, "expected contraction, convolution, implicit_gemm or generic");
    return {};
  }
  SmallVector<int64_t> tiles, interchange;
  std::optional<int64_t> split, rowBlock;
  bool epilogue = false, partialSums = false, sawTiles = false;
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key))
      return {};
    auto integer = [&](std::optional<int64_t> &out) {
      int64_t v;
      if (parser.parseEqual() || parser.parseInteger(v))
        return failure();
      out = v;
      return success();
    };
    ParseResult r = success();
    if (key == "tiles") {
      sawTiles = true;
      r = failed(parser.parseEqual()) ? failure() : parseList(parser, tiles);
    } else if (key == "interchange") {
      r = failed(parser.parseEqual()) ? failure() : parseList(parser, interchange);
    } else if (key == "split") {
      r = integer(split);
    } else if (key == "row_block") {
      r = integer(rowBlock);
    } else if (key == "epilogue") {
      epilogue = true;
    } else if (key == "partial_sums") {
      partialSums = true;
    } else {
      parser.emitError(keyLoc, "unknown kernel_config field '") << key << "'";
      return {};
    }
    if (failed(r))
      return {};
  }
  if (parser.parseGreater())
    return {};
  if (!sawTiles) {
    parser.emitError(kindLoc, "kernel_config needs tiles = [...]");
    return {};
  }
  return parser.getChecked<KernelConfigAttr>(parser.getContext(), *kind, tiles, interchange,
                                             split, epilogue, partialSums, rowBlock);
}

LogicalResult KernelConfigAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                       KernelKind kind, ArrayRef<int64_t> tiles,
                                       ArrayRef<int64_t> interchange, std::optional<int64_t> split,
                                       bool epilogue, bool partialSums,
                                       std::optional<int64_t> rowBlock) {
  int64_t n = tiles.size();
  if (llvm::any_of(tiles, [](int64_t t) { return t < 0; }))
    return emitError() << "tiles must be >= 0 (0: not tiled)";
  if (!interchange.empty()) {
    SmallVector<bool> seen(n, false);
    bool permutation = int64_t(interchange.size()) == n;
    for (int64_t d : interchange) {
      permutation = permutation && d >= 0 && d < n && !seen[d];
      if (permutation)
        seen[d] = true;
    }
    if (!permutation)
      return emitError() << "interchange must be a permutation of the " << n << " loops";
  }
  if (split && (*split < 0 || *split >= n || tiles[*split] == 0))
    return emitError() << "split must name a tiled loop";
  if (epilogue && kind == KernelKind::Generic)
    return emitError() << "only a contraction or convolution computes an epilogue";
  if (partialSums && (kind != KernelKind::Generic || n == 0 || tiles.back() == 0))
    return emitError() << "partial sums need a generic kernel that tiles its innermost loop";
  if (rowBlock && (*rowBlock <= 0 || kind != KernelKind::Generic || n < 2))
    return emitError() << "row_block must be > 0, on a generic op of two or more loops";
  return success();
}

bool dlc::codegen::allowsPartialSums(Operation *operation) {
  auto op = dyn_cast<linalg::LinalgOp>(operation);
  if (!op)
    return false;
  auto iterators = op.getIteratorTypesArray();
  unsigned n = iterators.size(), r = op.getNumReductionLoops();
  if (r == 0 || iterators.back() != utils::IteratorType::reduction)
    return false;
  if (r == 1)
    return true;
  for (unsigned d = n - r; d < n; ++d)
    if (iterators[d] != utils::IteratorType::reduction)
      return false;
  auto generic = dyn_cast<linalg::GenericOp>(operation);
  if (!generic || generic->getNumResults() != 1)
    return false;
  Operation *combiner = generic.getBlock()->getTerminator()->getOperand(0).getDefiningOp();
  return combiner && isa<arith::MaximumFOp, arith::MinimumFOp, arith::MaxNumFOp, arith::MinNumFOp,
                         arith::MaxSIOp, arith::MinSIOp, arith::MaxUIOp, arith::MinUIOp>(combiner);
}

/// The checks that need the op: one tile per loop, threads split a parallel loop,
/// partial sums across the innermost loop (allowsPartialSums).
LogicalResult DlcDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  if (attr.getName() != kKernelConfigAttr)
    return success(); // dlc.parallel, dlc.name, ...: other passes' markers
  auto config = dyn_cast<KernelConfigAttr>(attr.getValue());
  if (!config)
    return op->emitError() << "'" << kKernelConfigAttr << "' must be a #dlc.kernel_config";
  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return op->emitError() << "#dlc.kernel_config is only valid on a linalg op";
  unsigned loops = linalgOp.getNumLoops();
  if (config.getTiles().size() != loops)
    return op->emitError() << "#dlc.kernel_config has " << config.getTiles().size()
                           << " tiles for an op of " << loops << " loops";
  auto iterators = linalgOp.getIteratorTypesArray();
  if (config.getSplit() && iterators[*config.getSplit()] != utils::IteratorType::parallel)
    return op->emitError() << "#dlc.kernel_config splits loop " << *config.getSplit()
                           << ", which is not parallel";
  if (config.getPartialSums() && !dlc::codegen::allowsPartialSums(op))
    return op->emitError() << "#dlc.kernel_config keeps partial sums, but the op's innermost "
                              "loop is not its one reduction nor the last of trailing max/min "
                              "reductions";
  if (config.getRowBlock() && linalgOp.getNumReductionLoops() != 0)
    return op->emitError() << "#dlc.kernel_config roots a row block, but the op reduces";
  return success();
}
