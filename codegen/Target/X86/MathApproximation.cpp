// dlc-math-approximation: polynomial f32 math so vectorized loops never call libm.
#include "codegen/Target/X86/Passes.h"
#include "codegen/Transforms/RewriteConfig.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

#include <cmath>
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace dlc::x86 {
#define GEN_PASS_DEF_MATHAPPROXIMATION
#include "codegen/Target/X86/Passes.h.inc"
} // namespace dlc::x86

using namespace mlir;

namespace {
/// An f32 constant of `type` (f32, or a splat of a vector of f32).
Value f32Constant(OpBuilder &b, Location loc, Type type, const APFloat &v) {
  TypedAttr attr = b.getFloatAttr(b.getF32Type(), v);
  if (auto vec = dyn_cast<VectorType>(type))
    attr = DenseElementsAttr::get(vec, attr);
  return arith::ConstantOp::create(b, loc, attr);
}
Value f32Constant(OpBuilder &b, Location loc, Type type, float v) {
  return f32Constant(b, loc, type, APFloat(v));
}

/// f32 erf as one odd/even rational function of the input clamped to [-4, 4]
/// (beyond it erf is +-1 in f32): 11 FMAs, a multiply and a divide, no
/// branches. Max error 4e-7 (absolute and relative, checked against a float64
/// erf on [-6, 6]); upstream's approximation selects between three intervals
/// (about 20 blends per vector), which made gelu the bottleneck of
/// LayerNorm(gelu(x)). The monomial coefficients are the minimax fit Eigen and
/// XLA use for float erf. NaN stays NaN (the clamp is compare + select).
struct RationalErf : OpRewritePattern<math::ErfOp> {
  RationalErf(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}

  LogicalResult matchAndRewrite(math::ErfOp op, PatternRewriter &rewriter) const override {
    Type type = op.getType();
    if (!getElementTypeOrSelf(type).isF32())
      return failure();
    Location loc = op.getLoc();
    auto constant = [&](double v) { return f32Constant(rewriter, loc, type, static_cast<float>(v)); };
    auto clamp = [&](Value x, double bound, arith::CmpFPredicate pred) -> Value {
      Value c = constant(bound);
      Value out = arith::CmpFOp::create(rewriter, loc, pred, x, c);
      return arith::SelectOp::create(rewriter, loc, out, c, x);
    };
    Value x = clamp(op.getOperand(), 4.0, arith::CmpFPredicate::OGT);
    x = clamp(x, -4.0, arith::CmpFPredicate::OLT);
    Value x2 = arith::MulFOp::create(rewriter, loc, x, x);
    auto horner = [&](ArrayRef<double> highToLow) -> Value {
      Value acc = constant(highToLow.front());
      for (double c : highToLow.drop_front())
        acc = math::FmaOp::create(rewriter, loc, x2, acc, constant(c));
      return acc;
    };
    Value p = horner({-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
                      -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
                      -1.60960333262415e-02});
    p = arith::MulFOp::create(rewriter, loc, x, p);
    Value q = horner({-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
                      -7.37332916720468e-03, -1.42647390514189e-02});
    rewriter.replaceOpWithNewOp<arith::DivFOp>(op, p, q);
    return success();
  }
};

/// max/min against a constant (ReLU, Clip, ReLU6) as compare + select:
/// maximumf(x, c) = x < c ? c : x, which x86 emits as one vmaxps (its NaN rule
/// returns x), where arith.maximumf's NaN propagation costs a vmaxps, a compare
/// and a blend. NaN inputs stay NaN; the one difference is maximumf(-0, +0),
/// which gives -0 (IEEE maximum says +0).
template <typename OpTy, arith::CmpFPredicate pred>
struct ClampToSelect : OpRewritePattern<OpTy> {
  using OpRewritePattern<OpTy>::OpRewritePattern;

  LogicalResult matchAndRewrite(OpTy op, PatternRewriter &rewriter) const override {
    auto isBound = [](Value v) {
      FloatAttr scalar;
      SplatElementsAttr splat;
      if (matchPattern(v, m_Constant(&scalar)))
        return !scalar.getValue().isNaN();
      return matchPattern(v, m_Constant(&splat)) &&
             !splat.getSplatValue<APFloat>().isNaN();
    };
    Value x = op.getLhs(), bound = op.getRhs();
    if (!isBound(bound))
      std::swap(x, bound);
    if (!isBound(bound) || isBound(x))
      return failure();
    Value beyond = arith::CmpFOp::create(rewriter, op.getLoc(), pred, x, bound);
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, beyond, bound, x);
    return success();
  }
};

/// x / c -> x * (1/c) for a constant c whose reciprocal is a normal f32 (gelu's
/// x / sqrt(2), softmax temperatures, mean's 1/n): a multiply instead of a divide
/// (zmm vdivps is 10+ cycles of latency and one per 5 cycles). The product can
/// differ from the quotient by one ulp.
struct DivByConstantToMul : OpRewritePattern<arith::DivFOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(arith::DivFOp op, PatternRewriter &rewriter) const override {
    FloatAttr scalar;
    SplatElementsAttr splat;
    APFloat c(0.0f);
    if (matchPattern(op.getRhs(), m_Constant(&scalar)))
      c = scalar.getValue();
    else if (matchPattern(op.getRhs(), m_Constant(&splat)) &&
             isa<FloatType>(splat.getElementType()))
      c = splat.getSplatValue<APFloat>();
    else
      return failure();
    if (!c.isFiniteNonZero() || &c.getSemantics() != &APFloat::IEEEsingle())
      return failure();
    APFloat inv(1.0f);
    if (inv.divide(c, APFloat::rmNearestTiesToEven) & ~APFloat::opInexact)
      return failure(); // overflow or underflow
    if (!inv.isNormal())
      return failure();
    Value r = f32Constant(rewriter, op.getLoc(), op.getType(), inv);
    rewriter.replaceOpWithNewOp<arith::MulFOp>(op, op.getLhs(), r);
    return success();
  }
};

/// log of a denormal: the polynomial log reads the exponent field, which treats every
/// denormal as the smallest normal (log(1e-40) gave -87.3, not -92.1). Inputs below the
/// smallest normal are scaled by 2^24 first and 24 log 2 taken off the result; zero and
/// negative inputs keep their -inf / NaN. The rewritten log is tagged so it is scaled once.
struct ScaleDenormalLog : OpRewritePattern<math::LogOp> {
  ScaleDenormalLog(MLIRContext *ctx) : OpRewritePattern(ctx, /*benefit=*/2) {}
  LogicalResult matchAndRewrite(math::LogOp op, PatternRewriter &rewriter) const override {
    constexpr const char *kScaled = "dlc.denormal_scaled";
    if (op->hasAttr(kScaled) || !getElementTypeOrSelf(op.getType()).isF32())
      return failure();
    Location loc = op.getLoc();
    Type t = op.getType();
    auto cst = [&](float v) { return f32Constant(rewriter, loc, t, v); };
    Value x = op.getOperand();
    Value small = arith::CmpFOp::create(rewriter, loc, arith::CmpFPredicate::OLT, x,
                                        cst(1.17549435e-38f));
    Value scaled = arith::SelectOp::create(
        rewriter, loc, small, arith::MulFOp::create(rewriter, loc, x, cst(16777216.0f)), x);
    auto log = math::LogOp::create(rewriter, loc, scaled);
    log->setAttr(kScaled, rewriter.getUnitAttr());
    Value fixed = arith::SubFOp::create(rewriter, loc, log, cst(24.0f * (float)M_LN2));
    rewriter.replaceOpWithNewOp<arith::SelectOp>(op, small, fixed, log);
    return success();
  }
};

/// The functions approximated by polynomials. sin and cos are not: upstream's range
/// reduction loses all accuracy for large arguments (sin(1e5), cos(3.4e38) were wrong),
/// so they stay libm calls, which reduce exactly.
bool approximated(StringRef name) {
  name.consume_front("math.");
  return llvm::is_contained({"atan", "atan2", "tanh", "log", "log2", "log1p", "erf", "asin",
                             "acos", "exp", "expm1", "cbrt"},
                            name);
}

struct MathApproximationPass : dlc::x86::impl::MathApproximationBase<MathApproximationPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    // x^2 -> x*x, x^0.5 -> sqrt, ... for constant exponents. Other powf stay
    // libm calls: the exp(y log x) expansion is NaN for negative bases.
    populateMathAlgebraicSimplificationPatterns(patterns);
    patterns.add<RationalErf, DivByConstantToMul, ScaleDenormalLog>(&getContext());
    patterns.add<ClampToSelect<arith::MaximumFOp, arith::CmpFPredicate::OLT>,
                 ClampToSelect<arith::MinimumFOp, arith::CmpFPredicate::OGT>>(&getContext());
    populateMathF32ExpansionPatterns(patterns, approximated);
    populateMathPolynomialApproximationPatterns(patterns, approximated);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns),
                                     dlc::codegen::patternPassConfig())))
      signalPassFailure();
  }
};
} // namespace
