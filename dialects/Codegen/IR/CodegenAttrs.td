// Attributes of the `dlc` dialect.
#ifndef DLC_CODEGEN_ATTRS_TD
#define DLC_CODEGEN_ATTRS_TD

include "dialects/Codegen/IR/CodegenBase.td"

def Dlc_KernelConfigAttr : AttrDef<Dlc_Dialect, "KernelConfig"> {
  let mnemonic = "kernel_config";
  let summary = "How one linalg op is tiled, vectorized and split over threads";
  let description = [{
    `kind`: contraction (matmul-like), convolution (conv/pool decomposed to 1-D),
    implicit_gemm (a conv over packed weights whose kh/kw tiles fold into a matmul
    tile) or generic (vectorized along the innermost loop).
    `tiles`: the tile size of each loop of the op (0: not tiled); parallel loops are
    tiled with the init's producers fused in, reduction loops inside that.
    `interchange`: the order of the tile loops, outermost first (absent: dim order).
    `split`: the loop (a dim of the op) whose tile loop the runtime's threads split
    (absent: one thread).
    `epilogue`: the op's only user, an elementwise op, is computed on each register
    tile before it is stored.
    `partial_sums`: the innermost reduction keeps `tiles.back()` partial sums in
    registers across the row.
    `row_block`: the op roots a row block of that many rows (a normalization chain
    computed block by block).

    Example: `#dlc.kernel_config<contraction, tiles = [8, 32, 1], split = 0, epilogue>`
  }];
  let parameters = (ins
    EnumParameter<Dlc_KernelKind>:$kind,
    ArrayRefParameter<"int64_t">:$tiles,
    OptionalArrayRefParameter<"int64_t">:$interchange,
    OptionalParameter<"std::optional<int64_t>">:$split,
    DefaultValuedParameter<"bool", "false">:$epilogue,
    DefaultValuedParameter<"bool", "false">:$partialSums,
    OptionalParameter<"std::optional<int64_t>">:$rowBlock);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif
