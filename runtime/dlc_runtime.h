/* dlc_runtime.h - the public C API of the dlc runtime: load compiled models and run them.
 *
 * This header is the manual. Everything here is plain C (usable from C11 and
 * C++), depends on nothing but the C library, and is implemented by
 * libdlc_runtime.so (no LLVM/MLIR inside).
 *
 * Typical use:
 *
 *   dlc_module_t *m;   dlc_session_t *s;   dlc_tensor_t *x, *y;
 *   if (dlc_module_load("model.so", &m) != DLC_OK) die(dlc_status_message());
 *   dlc_session_create(m, 0, &s);              // 0: one thread per online CPU
 *   dlc_tensor_load_npy("x.npy", &x);
 *   dlc_session_create_outputs(s, &y);         // correctly shaped, zeroed
 *   // (a model with symbolic dims, e.g. any batch size, sizes its outputs
 *   // from the inputs: dlc_session_create_outputs_for(s, inputs, 1, &y))
 *   dlc_session_run(s, (const dlc_tensor_t *const[]){x}, 1, &y, 1);
 *   dlc_tensor_save_npy(y, "y.npy");
 *   dlc_tensor_free(x); dlc_tensor_free(y);
 *   dlc_session_free(s); dlc_module_free(m);  // sessions before their module
 *
 * Conventions that hold for every function below:
 *  - Every fallible function returns a dlc_status_t. On failure it also sets
 *    the calling thread's message (dlc_status_message) and, when it has an
 *    out-parameter `**out`, stores NULL there (if `out` itself is non-NULL).
 *    Nothing aborts on bad user input (bad files, bad shapes, NULL arguments).
 *  - "Owned by X" means X frees it; the caller must not. "Borrowed" means the
 *    caller keeps ownership and must keep it alive for as long as stated.
 *  - Functions taking an object pointer accept NULL only where stated;
 *    dlc_*_free(NULL) is always a no-op.
 *  - Thread safety: modules are immutable after loading and may be shared by
 *    any number of threads and sessions. Tensors and sessions are not
 *    internally locked: use one session per concurrently running thread.
 *  - Hosts are assumed little-endian (x86-64, AArch64).
 *
 * The binary contract between compiled models and this runtime is in
 * dlc_abi.h; see also docs/Runtime.md.
 */
#ifndef DLC_RUNTIME_H
#define DLC_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

#include "dlc_abi.h"

#if defined(__GNUC__) || defined(__clang__)
#define DLC_API __attribute__((visibility("default")))
#else
#define DLC_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* ===================================================================== */
/* Status                                                                */
/* ===================================================================== */

typedef enum {
  DLC_OK = 0,
  /* A NULL pointer, negative rank/dim, wrong tensor count, aliasing
   * outputs, or a malformed (but readable) .npy file. */
  DLC_ERROR_INVALID_ARGUMENT,
  /* A file, or a tensor name, does not exist. */
  DLC_ERROR_NOT_FOUND,
  /* A file could not be opened, read or written, or ends early. */
  DLC_ERROR_IO,
  /* A shared library is not a valid compiled dlc model (dlopen failed,
   * missing ABI symbol, malformed descriptor). */
  DLC_ERROR_BAD_MODULE,
  /* A tensor's rank or dims differ from what the module declares. */
  DLC_ERROR_SHAPE_MISMATCH,
  /* A tensor's dtype differs from what the module declares. */
  DLC_ERROR_DTYPE_MISMATCH,
  /* An allocation, or starting a thread, failed. */
  DLC_ERROR_OUT_OF_MEMORY,
  /* Valid input this runtime does not handle: a newer ABI version,
   * Fortran-order or big-endian .npy data, a dtype .npy cannot express. */
  DLC_ERROR_UNSUPPORTED,
  /* The compiled model's entry reported a failure, or a runtime bug. */
  DLC_ERROR_INTERNAL
} dlc_status_t;

/* The message of the most recent failed call made on the calling thread:
 * one line, lower-case, no trailing period, naming the file or tensor and
 * the values involved, e.g. "input 'x': expected shape [1,784], got [1,783]".
 * Successful calls do not clear it; "" if no call has failed on this thread.
 * The string is owned by the runtime (thread-local storage) and stays valid
 * until the next failing call on the same thread. Never NULL. */
DLC_API const char *dlc_status_message(void);

/* A short static name for a status code ("ok", "invalid argument", "not
 * found", ...); "unknown status" for values outside the enum. Never NULL. */
DLC_API const char *dlc_status_name(dlc_status_t status);

/* ===================================================================== */
/* Element types: ONNX TensorProto.DataType numbers                      */
/* ===================================================================== */

typedef int32_t dlc_dtype_t;

#define DLC_DTYPE_FLOAT 1
#define DLC_DTYPE_UINT8 2
#define DLC_DTYPE_INT8 3
#define DLC_DTYPE_UINT16 4
#define DLC_DTYPE_INT16 5
#define DLC_DTYPE_INT32 6
#define DLC_DTYPE_INT64 7
/* Strings: each element a dlc_string_t (16 bytes), UTF-8 bytes not NUL
 * terminated. A tensor owns the bytes its elements point to once they are set
 * with dlc_tensor_set_string (or loaded, or written by a run); a new tensor's
 * elements are empty strings. */
#define DLC_DTYPE_STRING 8
#define DLC_DTYPE_BOOL 9 /* one byte per element, 0 or 1 */
#define DLC_DTYPE_FLOAT16 10
#define DLC_DTYPE_DOUBLE 11
#define DLC_DTYPE_UINT32 12
#define DLC_DTYPE_UINT64 13
#define DLC_DTYPE_BFLOAT16 16
/* 8-bit floats, one byte each (the ONNX bit layouts). */
#define DLC_DTYPE_FLOAT8E4M3FN 17
#define DLC_DTYPE_FLOAT8E4M3FNUZ 18
#define DLC_DTYPE_FLOAT8E5M2 19
#define DLC_DTYPE_FLOAT8E5M2FNUZ 20
/* Sub-byte types are held one element per byte (ONNX files pack them): the
 * value sign-extended (int4/int2), zero-extended (uint4/uint2), or the 4-bit
 * code (float4e2m1). */
#define DLC_DTYPE_UINT4 21
#define DLC_DTYPE_INT4 22
#define DLC_DTYPE_FLOAT4E2M1 23
#define DLC_DTYPE_FLOAT8E8M0 24 /* unsigned power-of-two scale, one byte */
#define DLC_DTYPE_UINT2 25
#define DLC_DTYPE_INT2 26

/* One element of a string tensor: `size` bytes at `data` (NULL when empty). */
typedef struct {
  const char *data;
  int64_t size;
} dlc_string_t;

/* Bytes per element; 0 if dtype is not one of the DLC_DTYPE_* values. */
DLC_API size_t dlc_dtype_size(dlc_dtype_t dtype);

/* Short static name: "f32", "u8", "i8", "u16", "i16", "i32", "i64", "bool",
 * "f16", "f64", "u32", "u64", "bf16"; "unknown" otherwise. Never NULL. */
DLC_API const char *dlc_dtype_name(dlc_dtype_t dtype);

/* ===================================================================== */
/* Tensors: a dtype, a static shape and a dense row-major buffer         */
/* ===================================================================== */

typedef struct dlc_tensor_t dlc_tensor_t;

/* Creates a tensor with its own zero-filled data buffer, 64-byte aligned.
 * `shape` (borrowed, read during the call only) has `rank` entries, each
 * >= 0; it may be NULL when rank == 0 (a scalar: one element). The data is
 * owned by the tensor and freed by dlc_tensor_free. A tensor with zero
 * elements still has a valid, non-NULL data pointer.
 * Errors: INVALID_ARGUMENT (unknown dtype, rank < 0, dim < 0, NULL shape
 * with rank > 0, byte size overflows), OUT_OF_MEMORY. */
DLC_API dlc_status_t dlc_tensor_create(dlc_dtype_t dtype, int32_t rank,
                                       const int64_t *shape,
                                       dlc_tensor_t **out);

/* Creates a tensor viewing caller memory. `data` is borrowed: the tensor
 * never frees it, and the caller must keep it alive (and at least
 * dlc_tensor_byte_size bytes long) until dlc_tensor_free. `data` may be NULL
 * only if the tensor has zero elements. No alignment is required.
 * `shape` is copied. Errors: as dlc_tensor_create, plus INVALID_ARGUMENT for
 * NULL data with a non-empty shape. */
DLC_API dlc_status_t dlc_tensor_wrap(dlc_dtype_t dtype, int32_t rank,
                                     const int64_t *shape, void *data,
                                     dlc_tensor_t **out);

/* Frees the tensor and, if it owns it, its data. NULL is a no-op. */
DLC_API void dlc_tensor_free(dlc_tensor_t *tensor);

/* Accessors. All return 0 / NULL for a NULL tensor.
 * dlc_tensor_shape: `rank` entries owned by the tensor, valid until free
 * (a valid, non-dereferenceable pointer for rank 0).
 * dlc_tensor_data: the element buffer (owned as described above); the
 * caller may read and write it.
 * dlc_tensor_num_elements: product of the dims (1 for rank 0).
 * dlc_tensor_byte_size: num_elements * dlc_dtype_size(dtype). */
DLC_API dlc_dtype_t dlc_tensor_dtype(const dlc_tensor_t *tensor);
DLC_API int32_t dlc_tensor_rank(const dlc_tensor_t *tensor);
DLC_API const int64_t *dlc_tensor_shape(const dlc_tensor_t *tensor);
DLC_API void *dlc_tensor_data(const dlc_tensor_t *tensor);
DLC_API int64_t dlc_tensor_num_elements(const dlc_tensor_t *tensor);
DLC_API size_t dlc_tensor_byte_size(const dlc_tensor_t *tensor);

/* Element `index` (row-major, 0 <= index < num_elements) of a string tensor:
 * its bytes (valid until the element is set again or the tensor is freed;
 * NULL when empty) and their count in *size (may be NULL). NULL for another
 * dtype or an index out of range. */
DLC_API const char *dlc_tensor_string(const dlc_tensor_t *tensor, int64_t index,
                                      size_t *size);
/* Sets element `index` of a string tensor to a copy of `size` bytes at `data`
 * (any bytes; dlc's string ops treat them as UTF-8). Errors: INVALID_ARGUMENT
 * (another dtype, index out of range, NULL data with size > 0),
 * OUT_OF_MEMORY. */
DLC_API dlc_status_t dlc_tensor_set_string(dlc_tensor_t *tensor, int64_t index,
                                           const char *data, size_t size);

/* Reads a NumPy .npy file (format versions 1.0, 2.0 and 3.0) into a new
 * tensor that owns its data (as dlc_tensor_create); the caller frees it.
 * Supported dtypes: '<f2' '<f4' '<f8' '|i1' '<i2' '<i4' '<i8' '|u1' '<u2'
 * '<u4' '<u8' '|b1' ('=' and '<' are accepted for little-endian, and any
 * byte-order mark for one-byte types), and strings: '<U<n>' (NumPy's str,
 * UTF-32, read as UTF-8) and '|S<n>' (bytes), trailing NULs dropped, into a
 * DLC_DTYPE_STRING tensor. Errors, each message naming `path`:
 *   NOT_FOUND        the file does not exist;
 *   IO               it cannot be opened or read, or is truncated (the
 *                    message gives the expected and actual byte counts);
 *   INVALID_ARGUMENT not a .npy file, malformed header, trailing bytes;
 *   UNSUPPORTED      fortran_order True, big-endian data, other dtypes
 *                    (complex, objects, structured), version > 3;
 *   OUT_OF_MEMORY. */
DLC_API dlc_status_t dlc_tensor_load_npy(const char *path, dlc_tensor_t **out);

/* The same for .npy bytes in memory (an entry of a .npz archive, say);
 * `name` stands for the path in messages. `data` is only read during the
 * call. */
DLC_API dlc_status_t dlc_tensor_load_npy_buffer(const void *data, size_t size,
                                                const char *name,
                                                dlc_tensor_t **out);

/* Writes `tensor` to `path` as a version 1.0 .npy file (2.0 if the header
 * would exceed 64 KiB), C order, little-endian, byte-identical to NumPy's
 * np.save. Overwrites an existing file; on failure a partial file is
 * removed. A string tensor is written as '<U<n>' (n its longest element's
 * code points). Errors: INVALID_ARGUMENT (NULL arguments, a string that is
 * not UTF-8), UNSUPPORTED (bf16 has no .npy dtype), IO (naming the path). */
DLC_API dlc_status_t dlc_tensor_save_npy(const dlc_tensor_t *tensor,
                                         const char *path);

/* ===================================================================== */
/* Modules: one compiled model, its I/O description and its entry        */
/* ===================================================================== */

typedef struct dlc_module_t dlc_module_t;

/* Describes one input or output. All pointers are owned by the module and
 * valid until dlc_module_free. `shape` has `rank` entries (non-NULL even
 * for rank 0); `name` is the decoded (not percent-encoded) tensor name.
 * `dim_symbols` has `rank` entries too (non-NULL even for rank 0): -1 for a
 * static dim, else the index of the module's symbolic dim (dlc_module_dim_info)
 * that dim is; `shape` reads -1 there. Static modules have no symbolic dims.
 * (dim_symbols was appended to the struct for dynamic shapes: code built
 * against the older, smaller struct must be recompiled.) */
typedef struct {
  const char *name;
  dlc_dtype_t dtype;
  int32_t rank;
  const int64_t *shape;
  const int32_t *dim_symbols;
} dlc_tensor_info_t;

/* Describes one symbolic dim of a module with dynamic shapes (a `dim` record
 * of the descriptor, dlc_abi.h): its decoded name (owned by the module,
 * valid until dlc_module_free) and the values the model accepts,
 * 0 <= min <= max <= DLC_ABI_MAX_DIM. */
typedef struct {
  const char *name;
  int64_t min;
  int64_t max;
} dlc_dim_info_t;

/* Loads a compiled model from a shared library: check the seal that
 * `dlc compile` appended (dlc_abi.h: size, hash, ABI version) before
 * anything in the file runs, then dlopen(RTLD_NOW | RTLD_LOCAL), look up DLC_ABI_DESCRIPTOR_SYMBOL and DLC_ABI_ENTRY_SYMBOL,
 * parse and validate the descriptor (see dlc_abi.h). A `path` without a '/'
 * is taken relative to the current directory (not searched for like
 * dlopen would). The library stays loaded until dlc_module_free. Undefined
 * runtime symbols in the library (dlc_runtime_parallel_for) are resolved
 * from the process, so libdlc_runtime.so must be loaded globally (linking
 * against it does that). Errors, each message naming `path`: NOT_FOUND,
 * IO (the file cannot be examined, e.g. permission denied),
 * BAD_MODULE (no seal, a seal that does not match the file, dlopen
 * failure, missing symbol, malformed descriptor),
 * UNSUPPORTED (ABI version other than DLC_ABI_VERSION), OUT_OF_MEMORY,
 * INVALID_ARGUMENT (NULL arguments). */
DLC_API dlc_status_t dlc_module_load(const char *path, dlc_module_t **out);

/* Creates a module from symbols already in the process (the in-process
 * JIT). `descriptor` is borrowed for the duration of the call (it is parsed
 * and copied); `entry` must stay callable until dlc_module_free. On
 * success the module takes ownership of `owner` and calls
 * release_owner(owner) from dlc_module_free (if release_owner is non-NULL),
 * e.g. to destroy the JIT engine holding `entry`. On failure nothing is
 * taken: the caller still owns `owner`. Errors: INVALID_ARGUMENT (NULL
 * descriptor/entry), BAD_MODULE, UNSUPPORTED, OUT_OF_MEMORY. */
DLC_API dlc_status_t dlc_module_create_from_symbols(
    const char *descriptor, dlc_abi_entry_fn entry, void *owner,
    void (*release_owner)(void *owner), dlc_module_t **out);

/* Unloads the module (dlclose, or release_owner). All sessions created from
 * it must have been freed first. NULL is a no-op. */
DLC_API void dlc_module_free(dlc_module_t *module);

/* Number of inputs / outputs; 0 for a NULL module. */
DLC_API size_t dlc_module_num_inputs(const dlc_module_t *module);
DLC_API size_t dlc_module_num_outputs(const dlc_module_t *module);

/* Fills *out with the description of input / output `index` (positional,
 * 0-based). Errors: INVALID_ARGUMENT (NULL arguments, index out of range). */
DLC_API dlc_status_t dlc_module_input_info(const dlc_module_t *module,
                                           size_t index,
                                           dlc_tensor_info_t *out);
DLC_API dlc_status_t dlc_module_output_info(const dlc_module_t *module,
                                            size_t index,
                                            dlc_tensor_info_t *out);

/* Symbolic dims (dynamic shapes). A module may declare named dims, e.g.
 * "batch" in [1, 64], that some input and output dims are instead of a
 * fixed size (dlc_tensor_info_t.dim_symbols). Each run takes their values
 * from its inputs (dlc_session_run). dlc_module_num_dims: their count, 0 for
 * static modules and NULL. dlc_module_dim_info: dim `index` (0-based, in
 * declaration order). Errors: INVALID_ARGUMENT (NULL arguments, index out of
 * range). */
DLC_API size_t dlc_module_num_dims(const dlc_module_t *module);
DLC_API dlc_status_t dlc_module_dim_info(const dlc_module_t *module,
                                         size_t index, dlc_dim_info_t *out);
/* Whether symbolic dim `index` is computed by the model (a `computed` dim
 * record: the count of a NonZero, ...) rather than set by the inputs: only
 * outputs have it. Such outputs are created at the dim's max (their greatest
 * size) and, after each successful dlc_session_run, take the run's exact
 * shape (dlc_tensor_shape, dlc_tensor_byte_size change; the data is dense
 * row-major at that shape). 0 for static dims, NULL or an index out of range. */
DLC_API int dlc_module_dim_is_computed(const dlc_module_t *module, size_t index);

/* Finds the input / output named `name` (decoded, exact match) and stores
 * its position in *index. Errors: NOT_FOUND, INVALID_ARGUMENT. */
DLC_API dlc_status_t dlc_module_find_input(const dlc_module_t *module,
                                           const char *name, size_t *index);
DLC_API dlc_status_t dlc_module_find_output(const dlc_module_t *module,
                                            const char *name, size_t *index);

/* Training steps (dlc compile --train) hold their parameters: one state
 * buffer per trained ONNX initializer, read and updated by every run.
 * dlc_module_num_states: their count (0 for inference modules and NULL).
 * dlc_module_state_info: the description of state `index` (named after its
 * initializer) and its buffer (dense row-major, byte size as for tensors;
 * read it between runs, or write it to set the weights). Errors:
 * INVALID_ARGUMENT (NULL arguments, index out of range). */
DLC_API size_t dlc_module_num_states(const dlc_module_t *module);
DLC_API dlc_status_t dlc_module_state_info(const dlc_module_t *module,
                                           size_t index,
                                           dlc_tensor_info_t *out,
                                           void **data);

/* For in-process modules (dlc_module_create_from_symbols, the JIT): sets
 * the state buffers (one per `state` record of the descriptor, as the
 * DLC_ABI_STATE_DATA_SYMBOL table) and the embedded forward model (`onnx`
 * may be NULL). Borrowed: they must live as long as the module. Errors:
 * INVALID_ARGUMENT (NULL module, or NULL state_data with states declared). */
DLC_API dlc_status_t dlc_module_attach_state(dlc_module_t *module,
                                             void *const *state_data,
                                             const void *onnx, size_t onnx_size);

/* A GPU module (dlc compile --target=cuda:<chip>): its architecture ("sm_80", ...) and
 * kernel table (a line per kernel: "<name> <gx>,<gy>,<gz> <bx>,<by>,<bz> <shared bytes>
 * <params>"); NULL for a CPU module. *has_cubin (may be NULL) is 1 where the module
 * carries the kernels assembled for the chip besides their PTX, else 0. */
DLC_API const char *dlc_module_cuda_chip(const dlc_module_t *module, const char **kernels,
                                         int *has_cubin);

/* The serialized forward ONNX model a training step carries (its trained
 * initializers have no data in it: take them from the states). The bytes
 * belong to the module. Errors: INVALID_ARGUMENT, NOT_FOUND (no model). */
DLC_API dlc_status_t dlc_module_embedded_onnx(const dlc_module_t *module,
                                              const void **data, size_t *size);

/* ===================================================================== */
/* Sessions: a module plus a thread pool, ready to run                   */
/* ===================================================================== */

typedef struct dlc_session_t dlc_session_t;

/* Creates a session running `module` (borrowed: it must outlive the
 * session) on `num_threads` threads: the calling thread plus num_threads-1
 * persistent worker threads owned by the session. num_threads <= 0 means
 * the number of online CPUs, narrowed to the CPUs the process's affinity
 * mask allows (taskset, cpusets). All memory the session needs is
 * allocated here; workers block all signals. Errors: INVALID_ARGUMENT (NULL arguments, num_threads > 4096),
 * OUT_OF_MEMORY (including failure to start a thread). */
DLC_API dlc_status_t dlc_session_create(const dlc_module_t *module,
                                        int32_t num_threads,
                                        dlc_session_t **out);

/* Stops and joins the worker threads and frees the session. Must not be
 * called while dlc_session_run is in progress. NULL is a no-op. */
DLC_API void dlc_session_free(dlc_session_t *session);

/* The resolved thread count (>= 1) and module; 0 / NULL for NULL. */
DLC_API int32_t dlc_session_num_threads(const dlc_session_t *session);
DLC_API const dlc_module_t *dlc_session_module(const dlc_session_t *session);

/* Runs the model once. `inputs` (num_inputs entries) and `outputs`
 * (num_outputs entries) are borrowed for the call, in the module's
 * positional order; inputs are only read, outputs are fully overwritten.
 * Checks, before anything runs: the counts match the module; no tensor is
 * NULL; each dtype and shape matches the declaration; no output's bytes
 * overlap another output or an input. Then calls the module entry with the
 * data pointers (and, for a module with symbolic dims, their values: see
 * dlc_abi.h) and the session as runtime_ctx. Allocates nothing.
 * Symbolic dims: the inputs are checked in positional order, and each input's
 * dims in order. An input's rank and static dims must match (else
 * SHAPE_MISMATCH, the expected shape showing a symbolic dim by its name,
 * e.g. "input 'x': expected shape [batch,784], got [3,783]"). The first
 * input dim that is a given symbolic dim sets its value for this run, which
 * must lie in the dim's [min, max] ("input 'x': dim 0 (batch) is 70; the
 * model accepts batch in [1, 64]"); every later input dim that is the same
 * symbolic dim must equal it ("input 'y': dim 0 (batch) is 5, but input 'x'
 * set batch to 3"). Each output must then have the shape those values give
 * ("output 'y': expected shape [3,10], got [4,10]"), except that a dim the
 * model computes (dlc_module_dim_is_computed) needs only room: the output's
 * buffer must hold the shape with that dim at its max (as
 * dlc_session_create_outputs[_for] make it); after the run the output has
 * the run's exact shape, and can be passed to the next run as it is.
 * Not reentrant on one session: one run at a time per session.
 * Errors (message names the tensor, expected vs. actual):
 *   INVALID_ARGUMENT  NULL arguments, wrong counts, overlapping outputs;
 *                     or, after the run, a run-time check of the model failed
 *                     (its message names the node, e.g. "node 'g' (Gather): an
 *                     index of input 1 is out of range; expected [-5, 5)";
 *                     outputs undefined);
 *   DTYPE_MISMATCH    e.g. "input 'x': expected dtype f32, got i64";
 *   SHAPE_MISMATCH    e.g. "input 'x': expected shape [1,784], got [1,783]",
 *                     or a symbolic dim out of range or inconsistent (above);
 *   INTERNAL          the entry returned another non-zero value (outputs
 *                     undefined). */
DLC_API dlc_status_t dlc_session_run(dlc_session_t *session,
                                     const dlc_tensor_t *const *inputs,
                                     size_t num_inputs,
                                     dlc_tensor_t *const *outputs,
                                     size_t num_outputs);

/* Convenience: stores in outputs[0 .. num_outputs-1] new zero-filled
 * tensors (as dlc_tensor_create) shaped like the module's outputs. The
 * caller owns them and frees each with dlc_tensor_free. On failure every
 * entry is NULL and nothing leaks. A dim the model computes is at its max
 * (dlc_session_run shrinks it). Errors: INVALID_ARGUMENT (also when an
 * output has a symbolic dim set by the inputs: its size depends on them, so
 * use dlc_session_create_outputs_for), OUT_OF_MEMORY. */
DLC_API dlc_status_t dlc_session_create_outputs(const dlc_session_t *session,
                                                dlc_tensor_t **outputs);

/* The same for a run on `inputs` (num_inputs entries, borrowed for the
 * call): checks them exactly as dlc_session_run does (count, NULLs, dtypes,
 * shapes, specialized values, symbolic dims, with the same statuses and
 * messages), then creates zero-filled outputs of the shapes the symbolic
 * dims' values give. Works for static modules too. On failure every entry
 * of `outputs` is NULL and nothing leaks. Errors: as dlc_session_run's
 * checks of its inputs, plus INVALID_ARGUMENT (NULL session or outputs, an
 * output too large to address) and OUT_OF_MEMORY. */
DLC_API dlc_status_t dlc_session_create_outputs_for(const dlc_session_t *session,
                                                    const dlc_tensor_t *const *inputs,
                                                    size_t num_inputs,
                                                    dlc_tensor_t **outputs);

/* ===================================================================== */
/* Callbacks for compiled code                                           */
/* ===================================================================== */

/* The parallel loop compiled models call (see dlc_abi.h). `runtime_ctx` is
 * the dlc_session_t* that dlc_session_run passed to the entry, or NULL.
 * Splits [0, n) into min(4 * num_threads, n) contiguous pieces of near-equal
 * size, which the session's threads (the caller included) claim dynamically:
 * a worker that wakes late, or shares a core with the caller, takes fewer.
 * Calls fn(closure, begin, end) once per piece and returns when all are
 * done. Runs fn(closure, 0, n) inline on the calling thread when
 * runtime_ctx is NULL, the session has one thread, n == 1, the call is
 * nested inside another dlc_runtime_parallel_for (on any thread), or the
 * session's pool is already running a loop for another thread. Does
 * nothing when n <= 0. Allocates nothing. fn must not unwind (throw). */
DLC_API void dlc_runtime_parallel_for(void *runtime_ctx, int64_t n,
                                      dlc_abi_parallel_body_fn fn,
                                      void *closure);

/* String functions compiled models call (dlc_abi.h: a string is passed as a
 * dlc_abi_string_t, its pointer in the low 64 bits and its size in the high
 * 64). Strings they make live until the run ends (the session's arena); an
 * empty one is 0. Concat returns a + b; equal returns 1 when a and b have the
 * same bytes, else 0; compare returns -1, 0 or 1 as a sorts before, with or
 * after b (bytewise); regex_full_match returns 1 when all of s matches the
 * RE2 pattern, else 0 (also for an invalid pattern, which the compiler
 * rejects); lower and upper map each character with Unicode's simple case
 * mapping (glibc's C.UTF-8 tables), only ASCII letters when `locale` is "C"
 * or "POSIX", keeping bytes that are not UTF-8. */
DLC_API dlc_abi_string_t dlc_rt_string_concat(dlc_abi_string_t a, dlc_abi_string_t b);
DLC_API int32_t dlc_rt_string_equal(dlc_abi_string_t a, dlc_abi_string_t b);
DLC_API int32_t dlc_rt_string_compare(dlc_abi_string_t a, dlc_abi_string_t b);
DLC_API int32_t dlc_rt_regex_full_match(dlc_abi_string_t s, dlc_abi_string_t pattern);
/* StringSplit: Python's s.split(delim, maxsplit) (an empty delim: runs of
 * whitespace; maxsplit < 0: no limit): the number of parts, and part k as a
 * view into s (0 past the last). */
DLC_API int64_t dlc_rt_string_split_count(dlc_abi_string_t s, dlc_abi_string_t delim,
                                          int64_t maxsplit);
DLC_API dlc_abi_string_t dlc_rt_string_split_part(dlc_abi_string_t s, dlc_abi_string_t delim,
                                                  int64_t maxsplit, int64_t k);
/* Fills output `output` of the run on this thread with `bytes` bytes at address
 * `data`, growing the output tensor's buffer as needed: how compiled code
 * returns an output whose computed dims have no bound (dlc_abi.h). A failure
 * (the tensor wraps caller memory too small for them, out of memory) fails the
 * run after the entry returns. */
DLC_API void dlc_rt_output_adopt(int64_t output, int64_t data, int64_t bytes);
/* ImageDecoder: decodes the `size` bytes at address `data` (JPEG, PNG, WebP,
 * TIFF, JPEG 2000, BMP or binary PNM) into 8-bit pixels, `format` 0 RGB, 1 BGR
 * or 2 grayscale (PIL's luma), kept in the run's arena. Returns a handle, or 0
 * when the bytes are no image it decodes: the run then fails with a message
 * naming `node` and why. image_dim gives its height (k = 0), width (1) and
 * channels (2); image_byte its bytes, row-major. */
DLC_API int64_t dlc_rt_image_decode(int64_t data, int64_t size, int64_t format,
                                    dlc_abi_string_t node);
DLC_API int64_t dlc_rt_image_dim(int64_t image, int64_t k);
DLC_API int32_t dlc_rt_image_byte(int64_t image, int64_t index);
DLC_API dlc_abi_string_t dlc_rt_string_lower(dlc_abi_string_t s, dlc_abi_string_t locale);
DLC_API dlc_abi_string_t dlc_rt_string_upper(dlc_abi_string_t s, dlc_abi_string_t locale);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* DLC_RUNTIME_H */
