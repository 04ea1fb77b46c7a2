// Conversion of dlc_graph to upstream linalg/tensor/arith/math.
#ifndef DLC_GRAPHTOLINALG_PASSES_TD
#define DLC_GRAPHTOLINALG_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertGraphToLinalg : Pass<"convert-graph-to-linalg"> {
  let summary = "Lower primitive dlc_graph ops to linalg on tensors";
  let description = [{
    Each op family lowers through one parameterized pattern: elementwise ops
    (with NumPy broadcasting in the indexing maps) to `linalg.generic`,
    matmul to `linalg.matmul`/`linalg.generic`, convolution and pooling to
    the named NCHW linalg ops with `tensor.pad`, reductions to
    `linalg.generic` with reduction iterators, data movement to tensor ops.
    Composite ops must have been removed by `dlc-decompose` first. Constant
    matmul and convolution weights are packed in blocks of `pack-block` columns
    (the target's register tile width: 32 for AVX-512, 16 for AVX2). Group-1
    convolutions with whole blocks of output channels run as an implicit GEMM over
    the padded input; strided ones (not 1x1), and stride-1 ones of at most
    `im2col-pixels` output pixels per image, copy their windows out (im2col) and
    run as the packed GEMM instead. With
    `int8-dot-lanes` L > 0 (a target with integer dot products), 8-bit integer
    matmuls and convs with constant weights are packed as [N/L][K/G][L][G] and
    computed in K groups of G = `int8-dot-group`: 4 bytes, activations unsigned
    (AVX-512 VNNI: L = 16), or 2 operands widened to i16 (AVX2 vpmaddwd: L = 8).
  }];
  let options = [Option<"packBlock", "pack-block", "int64_t", /*default=*/"32",
                        "the widest packed weight block (columns; a power of two >= 8)">,
                 Option<"im2colPixels", "im2col-pixels", "int64_t", /*default=*/"0",
                        "stride-1 KxK convolutions with at most this many output pixels per "
                        "image run as im2col and the packed GEMM (strided ones always do)">,
                 Option<"bf16Weights", "bf16-weights", "bool", /*default=*/"false",
                        "store packed f32 weights whose values are all exactly bf16 as bf16 "
                        "(half the bytes, widened in the kernel; --precision=bf16)">,
                 Option<"bf16DotLanes", "bf16-dot-lanes", "int64_t", /*default=*/"0",
                        "with bf16-weights: columns of the target's bf16 dot product (16: "
                        "AVX512-BF16 vdpbf16ps; 0: none); matmuls and convs with bf16 weights "
                        "then take its form, weights packed in pairs of K">,
                 Option<"int8DotLanes", "int8-dot-lanes", "int64_t", /*default=*/"0",
                        "columns of the target's integer dot product (16: AVX-512 VNNI; "
                        "8: AVX2; 0: none, integer products widen to i32)">,
                 Option<"int8DotGroup", "int8-dot-group", "int64_t", /*default=*/"4",
                        "products per lane of the dot product: 4 (u8 x s8 bytes, VNNI) or "
                        "2 (i16 x i16, AVX2 vpmaddwd)">];
  let dependentDialects = [
    "::mlir::linalg::LinalgDialect", "::mlir::tensor::TensorDialect",
    "::mlir::arith::ArithDialect", "::mlir::math::MathDialect", "::mlir::scf::SCFDialect",
    "::mlir::memref::MemRefDialect", "::mlir::func::FuncDialect",
    "::mlir::bufferization::BufferizationDialect"];
}

#endif
