/* dlc_abi.h - the binary contract between a compiled dlc model and the runtime.
 *
 * Every compiled model (a shared library written by `dlc compile`, or code
 * JIT-compiled in process) exports exactly these two symbols:
 *
 *   const char dlc_module_descriptor[];
 *       NUL-terminated ASCII text describing the model's I/O, one record per
 *       line, '\n' separated:
 *         line 1:      "dlc-module <DLC_ABI_VERSION>"
 *         then, one per tensor, inputs first in positional order, then outputs:
 *           "input <name> <dtype> <rank> <d0> <d1> ... <d(rank-1)>"
 *           "output <name> <dtype> <rank> <d0> ..."
 *         an input record may be followed by
 *           "value <hex>"
 *         : the model was compiled for this one value of that input (its
 *         bytes as lower- or upper-case hex, "-" when empty), because the value
 *         sets shapes or axes; the runtime rejects runs with another value.
 *       <name> is percent-encoded: every byte outside [A-Za-z0-9_.:/-] is
 *       written as %XX (upper-case hex). <dtype> is the ONNX
 *       TensorProto.DataType number (1 float, 2 uint8, 3 int8, 4 uint16,
 *       5 int16, 6 int32, 7 int64, 9 bool, 10 float16, 11 double, 12 uint32,
 *       13 uint64, 16 bfloat16). All dims are static, >= 0. Rank 0 = scalar.
 *
 *       A training step (dlc compile --train) adds, after the outputs, one
 *           "state <name> <dtype> <rank> <d0> ..."
 *       record per parameter it holds and updates (the ONNX initializer it
 *       came from), and exports
 *           void *const dlc_module_state_data[];   (one buffer per state record)
 *           const char dlc_module_onnx[]; const int64_t dlc_module_onnx_size;
 *       : the state buffers (read and written by every call to the entry), and
 *       the serialized forward ONNX model whose initializers they replace
 *       (those initializers carry no data in it).
 *
 *   int32_t dlc_module_entry(void **buffers, void *runtime_ctx);
 *       buffers[0 .. num_inputs-1] point at the inputs, then
 *       buffers[num_inputs .. num_inputs+num_outputs-1] at the outputs.
 *       Each buffer is a dense row-major array of the declared dtype/shape,
 *       allocated by the caller (64-byte alignment recommended, not required).
 *       bool is one byte per element (0 or 1). Inputs are only read; outputs
 *       are fully written. Output buffers must not alias inputs or each other.
 *       runtime_ctx is an opaque pointer the generated code passes back to
 *       runtime callbacks (e.g. dlc_runtime_parallel_for); may be NULL, in
 *       which case the generated code runs single-threaded.
 *       Returns 0 on success, non-zero on an internal failure.
 *
 * A compiled model may call back into the runtime through these C symbols,
 * resolved at load time (the runtime library exports them):
 *
 *   void dlc_runtime_parallel_for(void *runtime_ctx, int64_t n,
 *                                 void (*fn)(void *closure, int64_t begin, int64_t end),
 *                                 void *closure);
 *       Splits [0, n) into contiguous near-equal pieces (a few per thread)
 *       that the context's threads, the caller included, claim as they come,
 *       and calls fn on each; returns when all are done. With runtime_ctx == NULL
 *       it calls fn(closure, 0, n) on the calling thread.
 *       (Runtime notes, see dlc_runtime.h: fn is never called with an empty
 *       range, so n <= 0 calls nothing; a call made from inside fn runs
 *       inline. A model leaves this symbol undefined; the dynamic loader
 *       binds it to libdlc_runtime.so, which the host must have loaded with
 *       global visibility, as linking against it does.)
 *
 *   void *_mlir_memref_to_llvm_alloc(size_t size);
 *   void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size);
 *   void _mlir_memref_to_llvm_free(void *ptr);
 *       Allocation of the model's intermediate buffers (MLIR's generic
 *       allocation functions). The runtime keeps freed blocks for reuse by the
 *       next run, so a model's steady state allocates nothing from the system.
 */
#ifndef DLC_ABI_H
#define DLC_ABI_H

#include <stdint.h>

#define DLC_ABI_VERSION 1
#define DLC_ABI_DESCRIPTOR_SYMBOL "dlc_module_descriptor"
#define DLC_ABI_ENTRY_SYMBOL "dlc_module_entry"
#define DLC_ABI_STATE_DATA_SYMBOL "dlc_module_state_data"
#define DLC_ABI_ONNX_SYMBOL "dlc_module_onnx"
#define DLC_ABI_ONNX_SIZE_SYMBOL "dlc_module_onnx_size"

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t (*dlc_abi_entry_fn)(void **buffers, void *runtime_ctx);
typedef void (*dlc_abi_parallel_body_fn)(void *closure, int64_t begin, int64_t end);

#ifdef __cplusplus
}
#endif

#endif /* DLC_ABI_H */
