// The target-independent middle of every target's pipeline: weights as globals, tensors ->
// buffers, intermediates freed and then planned into one arena.
#include "codegen/Transforms/Passes.h"

#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace dlc::codegen {

void buildBuffersPipeline(OpPassManager &pm, const BuffersPipelineOptions &options) {
  using func::FuncOp;
  // Weights as flat globals (after canonicalization, which would undo it).
  pm.addNestedPass<FuncOp>(createFlattenConstants());
  // Output chains that CSE made share a link with another writer are kept apart...
  pm.addNestedPass<FuncOp>(createIsolateOutputChains());
  // ... so each output is computed in its buffer, and producers of padded tensors
  // write into the padded buffer's interior.
  pm.addPass(bufferization::createEmptyTensorEliminationPass());
  // ... and a residual read of such a producer's result reads the padded buffer.
  pm.addNestedPass<FuncOp>(createReadPaddedInterior());
  // A training step's parameters and optimizer state: mutable memref globals.
  pm.addPass(createLowerGlobalState());
  // A parallel loop's scratch tensors are made inside it: one buffer per thread.
  if (options.privatizeParallelBuffers)
    pm.addNestedPass<FuncOp>(createPrivatizeParallelBuffers());
  // Constants -> globals in O(n) (bufferization's own lookup is O(n) per constant).
  pm.addPass(createConstantsToGlobals());
  // Tensors -> buffers; intermediates become allocations.
  pm.addPass(bufferization::createOneShotBufferizePass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Free every intermediate; hoist what can be hoisted.
  pm.addNestedPass<FuncOp>(bufferization::createBufferHoistingPass());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  // Intermediates share one arena by liveness (frees were all at the end).
  PlanArenaOptions arena;
  arena.dumpConfig = options.dumpArena;
  pm.addNestedPass<FuncOp>(createPlanArena(arena));
}

} // namespace dlc::codegen
