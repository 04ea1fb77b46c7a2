// Symbolic shapes: each dim of a value of the model function as a monomial of its symbolic
// dims (dlc compile --dims), and the contents of small integer tensors computed from shapes.
#ifndef DLC_DIALECTS_GRAPH_IR_SYMBOLICSHAPES_H
#define DLC_DIALECTS_GRAPH_IR_SYMBOLICSHAPES_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/DenseMap.h"

#include <map>
#include <optional>
#include <set>
#include <string>

namespace dlc::graph {

/// A size as a monomial of the symbolic dims: coef * product of symbols (each to its power).
/// A static size has no symbols.
struct SymbolicSize {
  int64_t coef = 1;
  std::map<std::string, int> syms;

  static SymbolicSize symbol(llvm::StringRef name);
  static SymbolicSize constant(int64_t c);
  /// Parses str()'s form ("12*batch*seq", "batch", "7"); nothing when malformed.
  static std::optional<SymbolicSize> parse(llvm::StringRef text);
  bool isStatic() const { return syms.empty(); }
  bool operator==(const SymbolicSize &o) const { return coef == o.coef && syms == o.syms; }
  bool operator!=(const SymbolicSize &o) const { return !(*this == o); }
  SymbolicSize operator*(const SymbolicSize &o) const;
  /// This divided by `o`, when exact (o's symbols all here, coef divisible).
  std::optional<SymbolicSize> divide(const SymbolicSize &o) const;
  std::string str() const;
};

using SymbolicDims = llvm::SmallVector<SymbolicSize>;

/// The product of `dims`.
SymbolicSize sizeProduct(llvm::ArrayRef<SymbolicSize> dims);

/// Sizes that are no monomial (a Concat along a dynamic dim, a pool over one) are
/// *derived* symbols whose names spell them: a sum "(d2+d3)", "(2*d5-3)", or a floor
/// quotient "((d5-3)//2)". Like terms combine and exact quotients divide, so one value
/// built two ways gets one name. symbolicSize() (codegen) evaluates them; sizeBounds()
/// bounds them.
/// a + scale * b; nothing when a coefficient overflows.
std::optional<SymbolicSize> sizeAdd(const SymbolicSize &a, const SymbolicSize &b,
                                    int64_t scale = 1);
/// floor(a / divisor), divisor > 0.
SymbolicSize sizeFloorDiv(const SymbolicSize &a, int64_t divisor);
/// floor(a / divisor) for a divisor of the symbols (positive when the model runs): the
/// exact quotient where it divides, else "(a//divisor)".
SymbolicSize sizeFloorDiv(const SymbolicSize &a, const SymbolicSize &divisor);
/// ceil(a / divisor), divisor > 0; nothing on overflow.
std::optional<SymbolicSize> sizeCeilDiv(const SymbolicSize &a, int64_t divisor);

/// The number of windows of a conv or pool along a dim of size `in` (ceil mode: the
/// windows that start before the end padding, as ONNX); nothing on overflow.
std::optional<SymbolicSize> windowOutputSize(const SymbolicSize &in, int64_t kernel,
                                             int64_t stride, int64_t padBegin, int64_t padEnd,
                                             int64_t dilation, bool ceilMode);

/// max(a, b) and min(a, b) ("max(a,b)"; the caller decides them first where it can).
SymbolicSize sizeMax(const SymbolicSize &a, const SymbolicSize &b);
SymbolicSize sizeMin(const SymbolicSize &a, const SymbolicSize &b);

/// A derived symbol's parts: the (signed) terms of a sum, a dividend and divisor, or the
/// two operands (`terms`) of a max or min.
struct DerivedSize {
  enum Kind { Sum, Quotient, Max, Min } kind = Sum;
  bool isQuotient() const { return kind == Quotient; }
  llvm::SmallVector<SymbolicSize> terms;
  SymbolicSize dividend;
  int64_t divisor = 1;
  /// A divisor of the symbols (then `divisor` is 0).
  SymbolicSize divisorSize = {};
};
/// The parts of `symbol` when it is a derived one ("(...)", "max(...)", "min(...)").
std::optional<DerivedSize> parseDerived(llvm::StringRef symbol);
/// The symbols (of the inputs, or computed) that `size` is made of, through derived ones.
std::set<std::string> baseSymbols(const SymbolicSize &size);

/// Follows the symbols of the function's arguments (`dlc.dims`) through its ops, on demand:
/// the sizes of a value's dims, and the contents of a small integer tensor computed from
/// shapes (Shape, Gather, Concat, Slice, reshapes, casts, and products and quotients by
/// constants), which reshape targets read. Dynamic dims are lowered with their sizes read
/// from the operands, so a rule fails (with a message naming what) where a dynamic dim
/// could broadcast against another size, or for an op whose dynamic dims are not supported.
class SymbolicShapes {
public:
  explicit SymbolicShapes(mlir::func::FuncOp func);

  /// The sizes of `v`'s dims (static dims as constants), or the reason they are unknown.
  llvm::FailureOr<SymbolicDims> dims(mlir::Value v, std::string *why = nullptr);
  /// The elements of `v` (an integer tensor of at most kMaxValues elements) as sizes, when
  /// every one is known.
  std::optional<SymbolicDims> values(mlir::Value v);
  /// As values(), but a Where whose condition only the run decides takes its first branch
  /// (when known); each such Where is added to `wheres`, whose condition or equal branches
  /// the caller must then check when the model runs.
  std::optional<SymbolicDims> assumingValues(mlir::Value v,
                                             llvm::SmallVectorImpl<mlir::Operation *> &wheres);

  /// Dims the rules took to be equal without knowing it (two symbols that meet in a
  /// broadcast or a contraction, a symbol against a static size): dim `dimA` of `a` and
  /// dim `dimB` of `b` (null `b`: the size `sizeB`) must be equal when `op` runs, which
  /// checkDynamicDims makes a run-time check.
  struct Assumption {
    mlir::Operation *op;
    mlir::Value a;
    int64_t dimA;
    mlir::Value b;
    int64_t dimB;
    SymbolicSize sizeA, sizeB;
    /// What must hold, when not that the two dims are equal (a window that fits).
    std::string message = {};
  };
  llvm::ArrayRef<Assumption> assumptions() const { return assumed; }

  /// Records the contents of argument `arg` (a graph input whose value is known when
  /// compiling: dlc compile --input-value), so values computed from it follow.
  void setValues(mlir::Value arg, SymbolicDims values);

  static constexpr int64_t kMaxValues = 64;

private:
  struct Entry {
    bool failed = false;
    std::string why;
    SymbolicDims dims;
    std::optional<SymbolicDims> values;
  };
  const Entry &entry(mlir::Value v);
  Entry compute(mlir::Value v);
  mlir::func::FuncOp func;
  llvm::DenseMap<mlir::Value, Entry> known;
  llvm::SmallVector<Assumption> assumed;
  /// Set by assumingValues: the Wheres that took their first branch.
  llvm::SmallVectorImpl<mlir::Operation *> *speculated = nullptr;
};

/// The least and greatest value of `size` over the ranges of its symbols (the function's
/// `dlc.dim_ranges`); nothing when a symbol has no range or a bound overflows.
std::optional<std::pair<int64_t, int64_t>> sizeBounds(mlir::func::FuncOp func,
                                                      const SymbolicSize &size);

/// Declares a symbolic dim the model computes when it runs (the count of a NonZero, ...):
/// `base` (or `base_2`, ... when taken) with range [0, max] in the function's
/// `dlc.dim_ranges`, listed in `dlc.computed_dims`. Returns its name.
std::string declareComputedDim(mlir::func::FuncOp func, llvm::StringRef base, int64_t max);
/// Declares `size`, an output dim that is no symbol of the inputs (a product, a derived
/// size), as a dim the model computes: named by its text, with the bounds of its parts
/// (unbounded without them). Returns its name.
std::string declareOutputDim(mlir::func::FuncOp func, const SymbolicSize &size);

} // namespace dlc::graph

#endif
