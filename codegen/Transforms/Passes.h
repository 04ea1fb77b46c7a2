// Target-independent codegen passes (any target's pipeline may use them) and the
// attribute names that connect them to the targets and the runtime ABI.
#ifndef DLC_CODEGEN_TRANSFORMS_PASSES_H
#define DLC_CODEGEN_TRANSFORMS_PASSES_H

#include "dialects/Graph/IR/Names.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace dlc::codegen {
#define GEN_PASS_DECL
#include "codegen/Transforms/Passes.h.inc"
#define GEN_PASS_REGISTRATION
#include "codegen/Transforms/Passes.h.inc"

/// Name of the module attribute holding the I/O descriptor text (dlc-prepare-abi).
constexpr llvm::StringLiteral kDescriptorAttr = "dlc.descriptor";
/// Module attribute of a training step (set by dlc-training-step): one
/// {symbol, dlc.name, dlc.dtype} dictionary per parameter global, exported as
/// `state` records and `dlc_module_state_data` (dlc_abi.h).
constexpr llvm::StringLiteral kStateAttr = dlc::graph::kStateAttr;
/// Module attribute: the serialized forward ONNX model a training step carries
/// (for dlc train --save-onnx), exported as `dlc_module_onnx`.
constexpr llvm::StringLiteral kOnnxModelAttr = "dlc.onnx_model";
/// Unit attribute on an scf.for whose iterations are independent (the outer tile loop
/// of a parallel dimension): the target may split it over threads, and
/// dlc-privatize-parallel-buffers gives each iteration its own scratch buffers.
constexpr llvm::StringLiteral kParallelLoopAttr = "dlc.parallel";
/// Module attribute: dlc_main's last argument is the runtime context pointer.
constexpr llvm::StringLiteral kRuntimeCtxArgAttr = "dlc.runtime_ctx_arg";
/// On the module: dlc_main's first argument is the buffer table (dlc-pack-entry-arguments).
constexpr llvm::StringLiteral kPackedBuffersAttr = "dlc.packed_buffers";
/// On dlc_main when the model has symbolic dims (dlc-prepare-abi): per buffer argument,
/// the index of the symbolic dim each of its dims is (-1: static), an i64 array each.
/// dlc-pack-entry-arguments sizes those dims from the runtime's dims table.
constexpr llvm::StringLiteral kBufferDimsAttr = "dlc.buffer_dims";

/// What buildBuffersPipeline runs.
struct BuffersPipelineOptions {
  /// A parallel loop's scratch tensors one per thread (dlc-privatize-parallel-buffers):
  /// the CPU's outlined parallel loops need it.
  bool privatizeParallelBuffers = true;
  /// Print the arena's plan (--dump-config).
  bool dumpArena = false;
};

/// The middle every target's pipeline shares, from fused linalg on tensors with the ABI
/// prepared to buffers: weights as flat globals, output chains apart, tensors -> buffers,
/// intermediates freed and planned into one arena by liveness.
void buildBuffersPipeline(mlir::OpPassManager &pm, const BuffersPipelineOptions &options);

} // namespace dlc::codegen

#endif
