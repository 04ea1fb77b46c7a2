// Quantization passes: quantized graphs (QDQ) to integer arithmetic.
#ifndef DLC_PASSES_QUANTIZATION_PASSES_TD
#define DLC_PASSES_QUANTIZATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def QuantizeContractions : Pass<"dlc-quantize-contractions"> {
  let summary = "Contractions of dequantized 8-bit operands as integer products";
  let description = [{
    A matmul or gemm whose operands are both `dlc_graph.dequantize`d 8-bit
    integers, the activations per tensor and the constant weights per tensor or
    per output column, becomes a `matmul_integer` of the raw bytes (zero points
    as i32 corrections, QuantizedMath.h) scaled once per column:
    `y = float(acc) * (s_a * s_w[n])` (gemm: times alpha, plus beta * C). A
    group-1 conv of per-tensor activations with a constant zero point and
    weights per tensor or per output channel becomes an 8-bit conv padded with
    that zero point and its i32 zero-point corrections (integerConv2d), scaled
    per channel, plus its float bias. A matmul of f32 activations (at most 4 rows)
    with constant weights dequantized per block of K, per output column or per tensor
    (MatMulNBits, blocked DequantizeLinear) becomes a `dequant_matmul` that keeps the
    codes (weight-only quantization, dequantized in the kernel). The
    result is what the float product of the dequantized values computes, exact
    up to float rounding of the sum. Everything else is left to `dlc-decompose`,
    which expands the remaining quantize/dequantize ops into float math. Runs
    before `dlc-decompose` (gemm must still be whole). With `report`, each
    contraction reading a dequantized value gets a line on stderr (`dlc compile
    --dump-config`): integer, or kept float and why.
  }];
  let options = [Option<"report", "report", "bool", /*default=*/"false",
                        "print what became of each contraction of dequantized values">];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def Bf16Contractions : Pass<"dlc-bf16-contractions"> {
  let summary = "Matmul and conv operands rounded to bf16, accumulation in f32 (--precision=bf16)";
  let description = [{
    `dlc compile --precision=bf16`: both operands of every f32 `matmul` (batched
    ones included) and `conv` (the activation and the weight; not the bias) go through
    `cast f32 -> bf16 -> f32` (round to nearest even), so the product is that of bf16
    inputs accumulated in f32, as bf16 hardware (AVX512-BF16 `vdpbf16ps`, tensor cores)
    computes it. Constant weights fold to their rounded values; everything else
    (reductions, softmax, normalizations, attention, elementwise math) stays f32. Runs
    after BatchNormalization is folded into conv weights, so the folded weights are
    rounded. Today the kernels are the f32 ones over the rounded values (bf16 numerics,
    f32 speed); a `vdpbf16ps` kernel is future work.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

#endif
