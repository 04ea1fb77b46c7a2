// The `dlc_x86` dialect: x86 instructions that upstream MLIR has no op for, as Pure
// vector ops (buffer deallocation accepts them, unlike llvm.call_intrinsic), lowered to
// their LLVM intrinsics by dlc-x86-lower-intrinsics once buffers are final.
#ifndef DLC_X86_OPS_TD
#define DLC_X86_OPS_TD

include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def X86_Dialect : Dialect {
  let name = "dlc_x86";
  let summary = "x86 vector instructions the dlc kernels use that upstream MLIR lacks";
  let description = [{
    Created by dlc-cpu-tile-vectorize from `vector.contract`s whose shape and
    element types match one instruction, and lowered to the instruction's LLVM
    intrinsic by `dlc-x86-lower-intrinsics` after bufferization.
  }];
  let cppNamespace = "::dlc::x86";
}

class X86_Op<string mnemonic, list<Trait> traits = []> : Op<X86_Dialect, mnemonic, traits>;

def X86_DotU8S8Op : X86_Op<"dot_u8s8", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + four u8 x s8 products per 32-bit lane (AVX-512 VNNI vpdpbusd)";
  let description = [{
    Lane i of the result is `acc[i] + sum_{j<4} zext(a[4i+j]) * sext(b[4i+j])`,
    exact in i32 (no saturation: it would take K > 65,000 to overflow). The
    unsigned operand is `a`, which the kernels broadcast (4 activation bytes of
    one row); `b` holds 16 output columns x 4 K-values of packed weights, as
    read ([16, 4]: dlc-x86-lower-intrinsics makes the read one 64-byte load).
    ```mlir
    %r = dlc_x86.dot_u8s8 %acc, %a, %b : vector<64xi8>, vector<16x4xi8> -> vector<16xi32>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[16], [I32]>:$acc,
                       VectorOfLengthAndType<[64], [I8]>:$a,
                       VectorOfRankAndType<[2], [I8]>:$b);
  let results = (outs VectorOfLengthAndType<[16], [I32]>:$result);
  let assemblyFormat =
      "$acc `,` $a `,` $b attr-dict `:` type($a) `,` type($b) `->` type($result)";
  let hasVerifier = 1;
}

def X86_DotI16Op : X86_Op<"dot_i16", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + two i16 x i16 products per 32-bit lane (AVX2 vpmaddwd, vpaddd)";
  let description = [{
    Lane i of the result is `acc[i] + a[2i] * b[2i] + a[2i+1] * b[2i+1]`, the
    products and their sum exact in i32 (8-bit operands widened to i16 cannot
    overflow it, unlike vpmaddubsw's saturating i16 sums). `a` holds the 2
    activations of one row broadcast to every lane; `b` holds 8 output columns x 2
    K-values of packed weights, as read ([8, 2]: dlc-x86-lower-intrinsics makes the
    read one 32-byte load).
    ```mlir
    %r = dlc_x86.dot_i16 %acc, %a, %b : vector<16xi16>, vector<8x2xi16> -> vector<8xi32>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[8], [I32]>:$acc,
                       VectorOfLengthAndType<[16], [I16]>:$a,
                       VectorOfRankAndType<[2], [I16]>:$b);
  let results = (outs VectorOfLengthAndType<[8], [I32]>:$result);
  let assemblyFormat =
      "$acc `,` $a `,` $b attr-dict `:` type($a) `,` type($b) `->` type($result)";
  let hasVerifier = 1;
}

def X86_DotBf16Op : X86_Op<"dot_bf16", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "acc + two bf16 x bf16 products per f32 lane (AVX512-BF16 vdpbf16ps)";
  let description = [{
    Lane i of the result is `acc[i] + a[2i] * b[2i] + a[2i+1] * b[2i+1]` in f32
    (the bf16 products are exact in f32; vdpbf16ps rounds to nearest even and
    flushes denormals). `a` holds the 2 activations of one row broadcast to every
    lane; `b` holds 16 output columns x 2 K-values of packed weights, as read
    ([16, 2]: dlc-x86-lower-intrinsics makes the read one 64-byte load).
    ```mlir
    %r = dlc_x86.dot_bf16 %acc, %a, %b : vector<32xbf16>, vector<16x2xbf16> -> vector<16xf32>
    ```
  }];
  let arguments = (ins VectorOfLengthAndType<[16], [F32]>:$acc,
                       VectorOfLengthAndType<[32], [BF16]>:$a,
                       VectorOfRankAndType<[2], [BF16]>:$b);
  let results = (outs VectorOfLengthAndType<[16], [F32]>:$result);
  let assemblyFormat =
      "$acc `,` $a `,` $b attr-dict `:` type($a) `,` type($b) `->` type($result)";
  let hasVerifier = 1;
}

#endif
