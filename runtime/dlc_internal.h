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
  int64_t *shape; /* max(rank, 1) entries */
  size_t byte_size;
  /* Inputs only: the value the model was specialized to (byte_size bytes),
   * from a descriptor `value` record; NULL when any value is accepted. */
  unsigned char *value;
  int kind;    /* 0 input, 1 output, 2 state */
  int line_no; /* of its descriptor record, for messages */
} dlc_io_decl_t;

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
};

#endif /* DLC_INTERNAL_H */
