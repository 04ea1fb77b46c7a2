/* dlc_abi.h - the binary contract between a compiled dlc model and the runtime.
 *
 * Every compiled model (a shared library written by `dlc compile`, or code
 * JIT-compiled in process) exports exactly these two symbols:
 *
 *   const char dlc_module_descriptor[];
 *       NUL-terminated ASCII text describing the model's I/O, one record per
 *       line, '\n' separated:
 *         line 1:      "dlc-module <DLC_ABI_VERSION>"
 *         then, for a model with dynamic shapes, one record per symbolic
 *         dimension (see "Symbolic dims" below):
 *           "dim <name> <min> <max>"
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
 *       13 uint64, 16 bfloat16, 8 string: see dlc_abi_string_t). A dim is a
 *       decimal integer >= 0 (static)
 *       or, in input and output records, "?<name>" (symbolic). Rank 0 =
 *       scalar.
 *
 *       Symbolic dims (dynamic shapes: one compiled model for, say, any batch
 *       size in a range). The k-th `dim` record (k = 0, 1, ... in order of
 *       appearance) declares symbolic dim number k:
 *           "dim <name> <min> <max>"
 *       <name> is percent-encoded like tensor names, non-empty and unique
 *       among the dims; <min> and <max> are decimal integers with
 *       0 <= min <= max <= DLC_ABI_MAX_DIM (2^40): the values the model
 *       accepts. All `dim` records come after line 1 and before the first
 *       input, output or state record. A dim token "?<name>" (name
 *       percent-encoded) in an input or output record names a declared dim;
 *       state records are static only. Every declared dim must appear in at
 *       least one input record: each run takes its value from the inputs;
 *       except a computed dim,
 *           "dim <name> <min> <max> computed"
 *       whose value the model computes when it runs (the number of non-zeros
 *       of a NonZero, the length of a Compress): it appears in no input
 *       record and in at least one output record. The caller allocates such
 *       an output at its greatest size (each computed dim at <max>); the
 *       entry writes the run's value of each computed dim into the dims table
 *       (below) and the output's data densely, row-major at those sizes, from
 *       the start of its buffer. A computed dim whose <max> is
 *       DLC_ABI_MAX_DIM has no bound: its outputs are not allocated by the
 *       caller; the entry passes each one's data to dlc_rt_output_adopt
 *       (dlc_runtime.h), and its buffers[] slot is not read.
 *       Sizes the compiler took to be equal (two symbolic dims that meet in a
 *       broadcast, an element count that may differ from its target's) come
 *       after the input, output and state records, before the `error` records:
 *           "equal <size> <size> <k>"
 *       each <size> the percent-encoded text of a size of the dims: a decimal,
 *       a dim name, products "a*b", sums "(a+b-1)", floor quotients
 *       "((a-3)//2)", "max(a,b)" and "min(a,b)". The runtime evaluates both
 *       before each run from the dims' values and fails the run with error <k>'s
 *       message (an `error` record) when they differ; the entry is not called.
 *       An input with a symbolic dim cannot have a `value` record. A
 *       descriptor without `dim` records is static, exactly as before. A
 *       dynamic one (a batch of 1 to 64 images):
 *           dlc-module 1
 *           dim batch 1 64
 *           input x 1 2 ?batch 784
 *           output y 1 2 ?batch 10
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
 *       When the descriptor declares k >= 1 dims, buffers[num_inputs +
 *       num_outputs] points at an int64_t array of k entries: this run's
 *       value of each declared dim, in declaration order, each within its
 *       [min, max] and consistent with every input and output shape (the
 *       runtime checks the tensors before the call); the entry sets the
 *       entries of computed dims. A static module gets no such entry.
 *       Each tensor buffer is a dense row-major array of the declared dtype
 *       and shape (symbolic dims at this run's values), allocated by the
 *       caller (64-byte alignment recommended, not required).
 *       bool is one byte per element (0 or 1). Inputs are only read; outputs
 *       are fully written. Output buffers must not alias inputs or each other.
 *       runtime_ctx is an opaque pointer the generated code passes back to
 *       runtime callbacks (e.g. dlc_runtime_parallel_for); may be NULL, in
 *       which case the generated code runs single-threaded.
 *       Returns 0 on success; k (1, 2, ...) when the run-time check whose
 *       descriptor record is "error <k> <message>" failed (the message,
 *       percent-encoded like names, names the node: e.g. a Gather index out of
 *       range; indexing ops clamp, so such a run stays in bounds, but its
 *       outputs are undefined); any other value on an internal failure.
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
 *
 * GPU modules (dlc compile --target=cuda:<chip>). The descriptor's second line is
 *           "target cuda <chip>"
 *       (<chip>: sm_80, sm_86, sm_89, sm_90 or sm_90a). The module then also exports
 *           const char dlc_cuda_ptx[];      the kernels, PTX text (NUL-terminated)
 *           const char dlc_cuda_kernels[];  the kernel table, a line per kernel
 *                                           ('\n'-ended): "<name> <gx>,<gy>,<gz>
 *                                           <bx>,<by>,<bz> <shared bytes> <params>"
 *       and, where the compiler had ptxas, the kernels assembled for <chip>:
 *           const unsigned char dlc_cuda_cubin[]; const int64_t dlc_cuda_cubin_size;
 *       (the runtime loads the cubin where the device runs it, else the PTX).
 *       and dlc_module_entry takes *device* addresses in buffers[] (the runtime
 *       copies the inputs to the device before the call and the outputs back
 *       after it). Its host code launches the kernels through these calls into the
 *       runtime, all on the calling thread, during the entry call:
 *   void dlc_cuda_launch(int32_t kernel, int64_t gx, int64_t gy, int64_t gz,
 *                        int64_t bx, int64_t by, int64_t bz, int32_t shared_bytes,
 *                        int64_t params, int32_t num_params);
 *       Launches kernel number `kernel` (its line of dlc_cuda_kernels) on a grid
 *       of gx*gy*gz blocks of bx*by*bz threads; `params` is the address of
 *       num_params 8-byte kernel parameters (device addresses, or scalars in the
 *       low bytes). Asynchronous; a failure is reported when the entry returns.
 *   int64_t dlc_cuda_alloc(int64_t bytes);  void dlc_cuda_free(int64_t address);
 *       Device memory for the intermediates (the arena): the runtime keeps it
 *       for the session's next run (the k-th allocation of each run reuses the
 *       k-th block).
 *   int64_t dlc_cuda_constant(int64_t host_address, int64_t bytes);
 *       The device copy of a weight (copied at its first use in a session).
 *   int64_t dlc_cuda_read(int64_t address, int64_t bytes);
 *       The 1 to 8 bytes at a device address (in the low bytes), once the
 *       kernels launched so far are done: a run-time check's result.
 *
 * A module file written by `dlc compile` ends with a seal, dlc_abi_seal_t
 * (32 bytes, little-endian), appended after the linked library: the size of
 * the library before it, a hash (dlc_abi_hash64) of those bytes, the ABI
 * version and a magic string. dlc_module_load reads and checks the seal
 * before dlopen runs anything in the file, so a truncated, edited or foreign
 * file is rejected with an error, not run. The hash detects accidents and
 * tampering by tools that do not know the format; it is not a signature:
 * loading a module runs its code, so load only modules you trust.
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
#define DLC_ABI_CUDA_PTX_SYMBOL "dlc_cuda_ptx"
#define DLC_ABI_CUDA_KERNELS_SYMBOL "dlc_cuda_kernels"
#define DLC_ABI_CUDA_CUBIN_SYMBOL "dlc_cuda_cubin"
#define DLC_ABI_CUDA_CUBIN_SIZE_SYMBOL "dlc_cuda_cubin_size"
/* The largest <max> of a `dim` record: 2^40. */
#define DLC_ABI_MAX_DIM ((int64_t)1 << 40)

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t (*dlc_abi_entry_fn)(void **buffers, void *runtime_ctx);

#define DLC_ABI_SEAL_MAGIC "dlc-seal" /* 8 bytes, no NUL in the file */

/* The last 32 bytes of a module file (see above). */
typedef struct {
  uint64_t body_size;   /* bytes of the file before the seal */
  uint64_t body_hash;   /* dlc_abi_hash64(file, body_size) */
  uint32_t abi_version; /* DLC_ABI_VERSION */
  uint32_t seal_size;   /* sizeof(dlc_abi_seal_t) == 32 */
  char magic[8];        /* DLC_ABI_SEAL_MAGIC */
} dlc_abi_seal_t;

/* A 64-bit non-cryptographic hash of n bytes (4 lanes of multiply-rotate
 * rounds, then an avalanche), several GB/s: the seal's checksum. The
 * compiler and the runtime both use this definition. */
static inline uint64_t dlc_abi_hash64(const void *data, uint64_t n) {
  const uint64_t p1 = 0x9E3779B185EBCA87ull, p2 = 0xC2B2AE3D27D4EB4Full,
                 p3 = 0x165667B19E3779F9ull;
  const unsigned char *p = (const unsigned char *)data;
  uint64_t lane[4] = {p1 + p2, p2, 0, (uint64_t)0 - p1};
  uint64_t i = 0;
  for (; i + 32 <= n; i += 32)
    for (int k = 0; k < 4; ++k) {
      uint64_t w = 0;
      for (int b = 0; b < 8; ++b) /* little-endian load, any alignment */
        w |= (uint64_t)p[i + 8 * k + b] << (8 * b);
      lane[k] += w * p2;
      lane[k] = ((lane[k] << 31) | (lane[k] >> 33)) * p1;
    }
  uint64_t h = n * p3;
  for (int k = 0; k < 4; ++k)
    h = (h ^ (((lane[k] << (7 + 5 * k)) | (lane[k] >> (57 - 5 * k))) * p1)) * p2;
  for (; i < n; ++i)
    h = ((h ^ p[i]) * p1) ^ (h >> 29);
  h ^= h >> 33;
  h *= p2;
  h ^= h >> 29;
  h *= p3;
  h ^= h >> 32;
  return h;
}

/* The seal of a library of n bytes at data (the compiler and the test tools
 * append it; the runtime checks it). */
static inline dlc_abi_seal_t dlc_abi_seal_for(const void *data, uint64_t n) {
  dlc_abi_seal_t seal;
  seal.body_size = n;
  seal.body_hash = dlc_abi_hash64(data, n);
  seal.abi_version = DLC_ABI_VERSION;
  seal.seal_size = (uint32_t)sizeof(seal);
  for (int i = 0; i < 8; ++i)
    seal.magic[i] = DLC_ABI_SEAL_MAGIC[i];
  return seal;
}
typedef void (*dlc_abi_parallel_body_fn)(void *closure, int64_t begin, int64_t end);

/* A string element (dtype 8) as compiled code holds it: 16 bytes, the pointer to its
 * UTF-8 bytes in the low 64 bits and their count in the high 64 (the layout of
 * dlc_string_t, {const char *data; int64_t size}); passed by value to the runtime's
 * string functions (dlc_runtime.h). */
__extension__ typedef unsigned __int128 dlc_abi_string_t;

#ifdef __cplusplus
}
#endif

#endif /* DLC_ABI_H */
