/* dlc_internal.h - private declarations shared by the runtime's source files (not installed). */
#ifndef DLC_INTERNAL_H
#define DLC_INTERNAL_H

#include "dlc_runtime.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define DLC_PRINTF(fmt_index, args_index)                                     \
  __attribute__((format(printf, fmt_index, args_index)))
#else
#define DLC_PRINTF(fmt_index, args_index)
#endif

/* Records `status` and a printf-formatted message for dlc_status_message
 * on this thread, and returns `status` so callers can `return dlc_fail(..)`.
 * Never allocates. */
dlc_status_t dlc_fail(dlc_status_t status, const char *fmt, ...)
    DLC_PRINTF(2, 3);

/* Writes strerror(errnum) with a lower-case first letter into buf. */
const char *dlc_errno_text(int errnum, char *buf, size_t size);

/* Writes "[d0,d1,...]" into buf (truncated with "..." if too long). */
const char *dlc_shape_text(int32_t rank, const int64_t *shape, char *buf,
                           size_t size);

/* One declared symbolic dimension of a module (a descriptor `dim` record). */
typedef struct {
  char *name;
  int64_t min, max; /* 0 <= min <= max <= DLC_ABI_MAX_DIM */
  int line_no;      /* of its descriptor record, for messages */
  bool used;        /* by at least one input (the descriptor must use every dim) */
  /* `computed`: the model computes its value (NonZero's count); no input may
   * use it, outputs with it are allocated at max and shrunk after the run. */
  bool computed;
  bool in_output; /* used by at least one output (a computed dim must be) */
} dlc_dim_decl_t;

/* The same for a declared shape whose dims may be symbolic: dim i is
 * symbols[i] >= 0 ? (values ? values[symbols[i]] : dims[symbols[i]].name)
 * : shape[i], e.g. "[batch,784]", or with this run's values "[3,784]". */
const char *dlc_decl_shape_text(int32_t rank, const int64_t *shape,
                                const int32_t *symbols,
                                const dlc_dim_decl_t *dims,
                                const int64_t *values, char *buf, size_t size);

/* Checks dtype/rank/dims and computes element count and byte size without
 * overflow. On failure sets the message (prefixed with `what`) and returns
 * INVALID_ARGUMENT. */
dlc_status_t dlc_shape_check(const char *what, dlc_dtype_t dtype,
                             int32_t rank, const int64_t *shape,
                             int64_t *num_elements, size_t *byte_size);

/* One declared input or output of a module. */
typedef struct {
  char *name;
  dlc_dtype_t dtype;
  int32_t rank;
  int64_t *shape; /* max(rank, 1) entries; -1 for a symbolic dim */
  /* max(rank, 1) entries: -1 for a static dim, else the index of its declared
   * dim (module->dims). */
  int32_t *dim_symbols;
  bool symbolic;    /* some dim is symbolic (inputs and outputs only) */
  size_t byte_size; /* static declarations only (0 when symbolic) */
  /* Inputs only: the value the model was specialized to (byte_size bytes),
   * from a descriptor `value` record; NULL when any value is accepted. */
  unsigned char *value;
  int kind;    /* 0 input, 1 output, 2 state */
  int line_no; /* of its descriptor record, for messages */
} dlc_io_decl_t;

/* Two sizes of the symbolic dims (their text) that must be equal for a run (an `equal`
 * record; the compiler took them to be), else the run fails with error `code`. */
typedef struct {
  char *a, *b;
  int64_t code;
} dlc_size_check_t;

struct dlc_module_t {
  char *path;       /* for messages; "<in-process>" for JIT modules */
  void *dl_handle;  /* from dlopen, or NULL */
  void *owner;      /* from create_from_symbols, or NULL */
  void (*release_owner)(void *);
  dlc_abi_entry_fn entry;
  size_t num_inputs;
  size_t num_outputs;
  size_t num_states;    /* a training step's parameters (`state` records) */
  dlc_io_decl_t *decls; /* inputs, then outputs, then states */
  void *const *state_data;   /* num_states buffers (dlc_module_state_data) */
  const void *onnx;          /* the embedded forward model, or NULL */
  size_t onnx_size;
  char **errors;     /* run-time check messages (`error` records): code k is errors[k-1] */
  size_t num_errors;
  dlc_size_check_t *size_checks; /* `equal` records, checked before each run */
  size_t num_size_checks;
  /* Symbolic dims (`dim` records), in declaration order: the entry gets
   * their values for each run after the outputs (dlc_abi.h). */
  dlc_dim_decl_t *dims;
  size_t num_dims;
  bool symbolic_outputs; /* some output has a symbolic dim */
  bool computed_dims;    /* some dim is computed: outputs are reshaped after each run */
  /* A GPU module (a `target cuda <chip>` record): its architecture, its kernels' PTX and
   * their names, one per line (dlc_cuda_ptx, dlc_cuda_kernels); NULL for a CPU module. */
  char *cuda_chip;
  const char *cuda_ptx, *cuda_kernels;
  /* The cubin ptxas assembled for cuda_chip (dlc_cuda_cubin), or NULL. */
  const void *cuda_cubin;
  size_t cuda_cubin_size;
};

/* ---- sizes of the symbolic dims (dlc_sizes.c) -------------------------------- */

/* The value of a size's text for a run's dim values; false when malformed, overflowing
 * or naming no declared dim. */
bool dlc_size_eval(const char *text, const dlc_module_t *m, const int64_t *dims,
                   int64_t *out);
/* The module's `equal` checks for a run's dim values (before the entry runs). */
dlc_status_t dlc_check_sizes(const dlc_module_t *m, const int64_t *dims);

/* Sets a tensor's shape (same rank) when its data buffer, as allocated, holds it:
 * outputs with computed dims are created at their greatest size and shrunk after
 * each run. Returns false (changing nothing) when it does not fit. */
bool dlc_tensor_set_shape(dlc_tensor_t *t, const int64_t *shape);
/* Makes the tensor's buffer hold at least `bytes` (its contents then undefined; string
 * elements empty): false when it cannot (memory it does not own, or out of memory). */
bool dlc_tensor_reserve(dlc_tensor_t *t, size_t bytes);
/* Bytes of data the tensor's buffer holds (its byte size when created or wrapped). */
size_t dlc_tensor_capacity(const dlc_tensor_t *t);

/* ---- strings (dlc_string.c) ---------------------------------------------- */

/* Writes code point c as UTF-8 to out (4 bytes of room); its length, or 0 when c is
 * not a Unicode scalar value (dlc_npy.c). */
size_t dlc_utf8_encode(uint32_t c, char *out);
/* Decodes the UTF-8 character at s[*i] (n bytes in all) and advances *i; -1 when the
 * bytes there are not UTF-8 (overlong forms, surrogates and truncation included). */
int64_t dlc_utf8_decode(const unsigned char *s, size_t n, size_t *i);

/* What one run on this thread lends the functions compiled code calls: the strings it
 * makes (concatenations, ...: blocks freed when the run ends), and its outputs, which
 * dlc_rt_output_adopt fills (outputs sized by computed dims without a bound). */
typedef struct {
  void *head;
  bool failed; /* an allocation failed: the run's strings are incomplete */
  dlc_tensor_t *const *outputs;
  size_t num_outputs;
  int64_t failed_output; /* an output dlc_rt_output_adopt could not fill, else -1 */
  int64_t failed_bytes;  /* the bytes it needed */
  char error[320];       /* a function's failure (an image it cannot decode, ...), or "" */
} dlc_string_arena_t;
/* n bytes from this thread's run arena, 16-byte aligned, freed when the run ends; NULL
 * outside a run or when out of memory (the run then fails). */
void *dlc_run_alloc(size_t n);
/* Fails this thread's run with a printf-formatted message (the first one is kept). */
void dlc_run_fail(const char *fmt, ...) DLC_PRINTF(1, 2);
/* Makes `arena` this thread's, for the functions compiled code calls. */
void dlc_string_arena_begin(dlc_string_arena_t *arena, dlc_tensor_t *const *outputs,
                            size_t num_outputs);
/* Frees what the run allocated there; this thread has no arena after. */
void dlc_string_arena_end(dlc_string_arena_t *arena);
/* Copies each element of the module's string outputs into the tensor's own storage
 * (after a run: the entry left pointers into inputs, constants and the arena). */
dlc_status_t dlc_string_outputs_copy(const dlc_module_t *m, dlc_tensor_t *const *outputs);
/* Empties every element of the string outputs (a failed run: no dangling pointers). */
void dlc_string_outputs_clear(const dlc_module_t *m, dlc_tensor_t *const *outputs);

/* Parses the descriptor `text` (dlc_abi.h) into `m` (dlc_descriptor.c); errors name `where`
 * ("module '<path>'" or "in-process module") and the descriptor line. */
dlc_status_t dlc_desc_parse(const char *where, const char *text, dlc_module_t *m);

#endif /* DLC_INTERNAL_H */
