// CPU (x86) target passes.
#ifndef DLC_X86_PASSES_TD
#define DLC_X86_PASSES_TD

include "mlir/Pass/PassBase.td"

def PrepareABI : Pass<"dlc-prepare-abi", "::mlir::ModuleOp"> {
  let summary = "Give the model function the runtime ABI: caller-owned buffers, DPS outputs";
  let description = [{
    Rewrites `func.func @main_graph(tensors) -> tensors` into
    `func.func @dlc_main(memref inputs..., memref outputs...)`: inputs enter
    as `bufferization.to_tensor restrict`, results are written with
    `bufferization.materialize_in_destination` into the output buffers, so
    one-shot bufferization computes in place without copies. Records the I/O
    descriptor text (see runtime/dlc_abi.h) as the module attribute
    `dlc.descriptor`.
  }];
  let dependentDialects = ["::mlir::bufferization::BufferizationDialect",
                           "::mlir::memref::MemRefDialect"];
}

def AddEntryPoint : Pass<"dlc-add-entry-point", "::mlir::ModuleOp"> {
  let summary = "Emit the dlc_module_entry wrapper and dlc_module_descriptor (LLVM dialect)";
  let description = [{
    Runs after lowering to the LLVM dialect with bare-pointer memrefs. Adds
    `dlc_module_entry(void **buffers, void *ctx) -> i32`, which unpacks the
    buffer array and calls `dlc_main`, and the NUL-terminated global
    `dlc_module_descriptor` holding the module's `dlc.descriptor`.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def StridedCopyToLinalg : Pass<"dlc-strided-copy-to-linalg"> {
  let summary = "Rewrite memref.copy between non-contiguous buffers as linalg.copy";
  let description = [{
    `finalize-memref-to-llvm` turns a copy of strided memrefs into a call to
    `memrefCopy` from MLIR's runner-utils library, which neither compiled
    models nor the JIT link. Expressed as linalg.copy it becomes plain loops.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect"];
}

#endif
