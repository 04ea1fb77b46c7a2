/* dlc_status.c - owns status codes, their names and the thread-local error message. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strerror_r; set before any system header */
#endif
#include "dlc_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Long enough for a PATH_MAX path plus context; longer messages are cut. */
#define DLC_MESSAGE_CAPACITY 4608

static _Thread_local char dlc_tls_message[DLC_MESSAGE_CAPACITY];

dlc_status_t dlc_fail(dlc_status_t status, const char *fmt, ...) {
  va_list args;
  va_start(args, fmt);
  int n = vsnprintf(dlc_tls_message, sizeof(dlc_tls_message), fmt, args);
  va_end(args);
  if (n < 0)
    dlc_tls_message[0] = '\0';
  /* Keep the message on one line whatever the inputs (paths, names). */
  for (char *c = dlc_tls_message; *c; ++c)
    if (*c == '\n' || *c == '\r')
      *c = ' ';
  return status;
}

const char *dlc_status_message(void) { return dlc_tls_message; }

const char *dlc_status_name(dlc_status_t status) {
  switch (status) {
  case DLC_OK:
    return "ok";
  case DLC_ERROR_INVALID_ARGUMENT:
    return "invalid argument";
  case DLC_ERROR_NOT_FOUND:
    return "not found";
  case DLC_ERROR_IO:
    return "i/o error";
  case DLC_ERROR_BAD_MODULE:
    return "bad module";
  case DLC_ERROR_SHAPE_MISMATCH:
    return "shape mismatch";
  case DLC_ERROR_DTYPE_MISMATCH:
    return "dtype mismatch";
  case DLC_ERROR_OUT_OF_MEMORY:
    return "out of memory";
  case DLC_ERROR_UNSUPPORTED:
    return "unsupported";
  case DLC_ERROR_INTERNAL:
    return "internal error";
  }
  return "unknown status";
}

const char *dlc_errno_text(int errnum, char *buf, size_t size) {
  if (size == 0)
    return buf;
  /* strerror is not thread-safe; strerror_r is, in its GNU or XSI form. */
  char local[256];
  local[0] = '\0';
#if defined(__GLIBC__) && defined(_GNU_SOURCE)
  const char *text = strerror_r(errnum, local, sizeof(local));
#else
  const char *text = strerror_r(errnum, local, sizeof(local)) == 0
                         ? local
                         : "unknown error";
#endif
  snprintf(buf, size, "%s", text ? text : "unknown error");
  if (buf[0] >= 'A' && buf[0] <= 'Z')
    buf[0] = (char)(buf[0] - 'A' + 'a');
  return buf;
}

const char *dlc_shape_text(int32_t rank, const int64_t *shape, char *buf,
                           size_t size) {
  return dlc_decl_shape_text(rank, shape, NULL, NULL, NULL, buf, size);
}

const char *dlc_decl_shape_text(int32_t rank, const int64_t *shape,
                                const int32_t *symbols,
                                const dlc_dim_decl_t *dims,
                                const int64_t *values, char *buf, size_t size) {
  if (size < 8) {
    if (size)
      buf[0] = '\0';
    return buf;
  }
  size_t len = 0;
  buf[len++] = '[';
  for (int32_t i = 0; i < rank; ++i) {
    char number[24];
    const char *piece = number;
    size_t n;
    int32_t symbol = symbols ? symbols[i] : -1;
    if (symbol >= 0 && !values) {
      piece = dims[symbol].name;
      n = strlen(piece);
    } else {
      int w = snprintf(number, sizeof(number), "%lld",
                       (long long)(symbol >= 0 ? values[symbol] : shape[i]));
      n = w < 0 ? size : (size_t)w; /* an error: end with "..." */
    }
    size_t sep = i ? 1 : 0;
    if (len + sep + n + 2 >= size) {
      /* No room for this dim plus "]": end with "...]". */
      while (len + 5 > size)
        --len;
      memcpy(buf + len, "...", 3);
      len += 3;
      break;
    }
    if (sep)
      buf[len++] = ',';
    memcpy(buf + len, piece, n);
    len += n;
  }
  buf[len++] = ']';
  buf[len] = '\0';
  return buf;
}
