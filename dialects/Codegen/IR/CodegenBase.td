// The `dlc` dialect: attributes through which codegen passes record their decisions
// (target-independent; each target's selection pass writes them, its kernels read them).
#ifndef DLC_CODEGEN_BASE_TD
#define DLC_CODEGEN_BASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Dlc_Dialect : Dialect {
  let name = "dlc";
  let summary = "Codegen decisions of the dlc compiler, recorded as attributes";
  let description = [{
    A kernel-selection pass of a target decides how each linalg op is computed
    (register tiles, loop order, which loop the threads split, partial sums, a
    fused epilogue) and records it on the op as `#dlc.kernel_config<...>` under
    the name `dlc.kernel_config`; tiling, vectorization and row blocking only
    read it. The attribute is verified on its own and against the op it is on.
  }];
  let cppNamespace = "::dlc::codegen";
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
}

def Dlc_KernelKind : I32EnumAttr<"KernelKind", "how a kernel computes its op", [
    I32EnumAttrCase<"Contraction", 0, "contraction">,
    I32EnumAttrCase<"Convolution", 1, "convolution">,
    I32EnumAttrCase<"ImplicitGemm", 2, "implicit_gemm">,
    I32EnumAttrCase<"Generic", 3, "generic">]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::dlc::codegen";
}

#endif
