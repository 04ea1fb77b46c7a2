/* dlc_descriptor.c - parses a compiled model's descriptor (format: see dlc_abi.h) into its
 * dlc_module_t: I/O declarations, symbolic dims, value and error records. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup; set before any system header */
#endif
#include "dlc_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- descriptor parsing (format: see dlc_abi.h) ------------------------ */

typedef struct {
  const char *where; /* "module '<path>'" or "in-process module" */
  int line_no;
  const char *p, *end; /* remaining text of the current line */
  /* Set at the first record after the `dim` records: from then on the dims
   * are final, and dims_by_name (module->dims sorted by name) finds them. */
  bool dims_sealed;
  const dlc_dim_decl_t **dims_by_name;
} dlc_desc_parser_t;

#define DLC_DESC_FAIL(parser, status, fmt, ...)                               \
  dlc_fail(status, "%s: descriptor line %d: " fmt, (parser)->where,          \
           (parser)->line_no, __VA_ARGS__)

/* Next space-separated token of the line; false at the end of the line. */
static bool dlc_desc_token(dlc_desc_parser_t *ps, const char **tok,
                           size_t *len) {
  while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t'))
    ++ps->p;
  if (ps->p == ps->end)
    return false;
  const char *start = ps->p;
  while (ps->p < ps->end && *ps->p != ' ' && *ps->p != '\t')
    ++ps->p;
  *tok = start;
  *len = (size_t)(ps->p - start);
  return true;
}

/* Length to print of a token in a message: long garbage is cut. */
static int dlc_clip(size_t len) { return len > 64 ? 64 : (int)len; }

/* Parses a non-negative decimal integer token (no sign, no spaces). */
static bool dlc_desc_uint(const char *tok, size_t len, int64_t max,
                          int64_t *out) {
  if (len == 0 || len > 19)
    return false;
  int64_t v = 0;
  for (size_t i = 0; i < len; ++i) {
    if (tok[i] < '0' || tok[i] > '9')
      return false;
    int digit = tok[i] - '0';
    if (v > (max - digit) / 10)
      return false;
    v = v * 10 + digit;
  }
  *out = v;
  return true;
}

static int dlc_hex_value(char c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  return -1;
}

static bool dlc_name_char_ok(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || c == '_' || c == '.' || c == ':' ||
         c == '/' || c == '-';
}

/* Decodes a percent-encoded name token into a new string. */
static dlc_status_t dlc_desc_name(dlc_desc_parser_t *ps, const char *tok,
                                  size_t len, char **out) {
  char *name = malloc(len + 1);
  if (!name)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
  size_t n = 0;
  for (size_t i = 0; i < len; ++i) {
    char c = tok[i];
    if (c == '%') {
      int hi = i + 2 < len ? dlc_hex_value(tok[i + 1]) : -1;
      int lo = i + 2 < len ? dlc_hex_value(tok[i + 2]) : -1;
      /* %00 would silently truncate the C string. */
      if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
        free(name);
        return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                             "bad percent escape in name '%.*s'",
                             dlc_clip(len), tok);
      }
      name[n++] = (char)(hi * 16 + lo);
      i += 2;
    } else if (dlc_name_char_ok(c)) {
      name[n++] = c;
    } else {
      free(name);
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                           "byte 0x%02x must be percent-encoded in name '%.*s'",
                           (unsigned)(unsigned char)c, dlc_clip(len), tok);
    }
  }
  name[n] = '\0';
  *out = name;
  return DLC_OK;
}

static int dlc_dim_by_name(const void *key, const void *elem) {
  return strcmp((const char *)key, (*(const dlc_dim_decl_t *const *)elem)->name);
}

/* Parses the symbolic dim token "?<name>" (dim `i` of an input or output
 * record) into the index of the declared dim it names. */
static dlc_status_t dlc_desc_symbol(dlc_desc_parser_t *ps, dlc_module_t *m,
                                    const char *kind, const dlc_io_decl_t *decl,
                                    int32_t i, const char *tok, size_t len,
                                    int32_t *symbol) {
  if (strcmp(kind, "state") == 0)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "state '%s' has symbolic dim %d '%.*s' (states are static)",
                         decl->name, (int)i, dlc_clip(len), tok);
  char *name;
  dlc_status_t st = dlc_desc_name(ps, tok + 1, len - 1, &name);
  if (st != DLC_OK)
    return st;
  const dlc_dim_decl_t *const *found =
      m->num_dims ? bsearch(name, ps->dims_by_name, m->num_dims,
                            sizeof(*ps->dims_by_name), dlc_dim_by_name)
                  : NULL;
  free(name);
  if (!found)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "%s '%s' dim %d '%.*s' names no declared dim", kind,
                         decl->name, (int)i, dlc_clip(len), tok);
  dlc_dim_decl_t *dim = &m->dims[*found - m->dims];
  if (strcmp(kind, "input") == 0) {
    if (dim->computed)
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                           "input '%s' dim %d '%.*s' names a computed dim (only outputs "
                           "may)",
                           decl->name, (int)i, dlc_clip(len), tok);
    dim->used = true;
  } else {
    dim->in_output = true;
  }
  *symbol = (int32_t)(dim - m->dims);
  return DLC_OK;
}

/* Parses "<name> <dtype> <rank> <dims...>" after the record keyword; a dim
 * of an input or output may be "?<name>", a declared symbolic dim. */
static dlc_status_t dlc_desc_record(dlc_desc_parser_t *ps, dlc_module_t *m,
                                    const char *kind, dlc_io_decl_t *decl) {
  const char *tok;
  size_t len;
  if (!dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s record has no name",
                         kind);
  dlc_status_t st = dlc_desc_name(ps, tok, len, &decl->name);
  if (st != DLC_OK)
    return st;
  int64_t value;
  if (!dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s '%s' has no dtype",
                         kind, decl->name);
  if (!dlc_desc_uint(tok, len, INT32_MAX, &value) ||
      dlc_dtype_size((dlc_dtype_t)value) == 0)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "%s '%s' has unknown dtype '%.*s'", kind, decl->name,
                         dlc_clip(len), tok);
  decl->dtype = (dlc_dtype_t)value;
  if (!dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s '%s' has no rank",
                         kind, decl->name);
  if (!dlc_desc_uint(tok, len, INT32_MAX, &value))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "%s '%s' has invalid rank '%.*s'", kind, decl->name,
                         dlc_clip(len), tok);
  decl->rank = (int32_t)value;
  /* Count the dims before allocating, so a garbage rank allocates nothing. */
  dlc_desc_parser_t probe = *ps;
  int64_t dims = 0;
  while (dlc_desc_token(&probe, &tok, &len))
    ++dims;
  if (dims != decl->rank)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "%s '%s' has rank %d but %lld dims", kind,
                         decl->name, (int)decl->rank, (long long)dims);
  size_t entries = (size_t)(decl->rank ? decl->rank : 1);
  decl->shape = malloc(sizeof(int64_t) * entries);
  decl->dim_symbols = malloc(sizeof(int32_t) * entries);
  if (!decl->shape || !decl->dim_symbols)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
  decl->shape[0] = 0;
  decl->dim_symbols[0] = -1;
  for (int32_t i = 0; i < decl->rank; ++i) {
    dlc_desc_token(ps, &tok, &len);
    decl->dim_symbols[i] = -1;
    if (tok[0] == '?') {
      st = dlc_desc_symbol(ps, m, kind, decl, i, tok, len, &decl->dim_symbols[i]);
      if (st != DLC_OK)
        return st;
      decl->shape[i] = -1;
      decl->symbolic = true;
    } else if (!dlc_desc_uint(tok, len, INT64_MAX, &decl->shape[i])) {
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                           "%s '%s' has invalid dim %d '%.*s'", kind,
                           decl->name, (int)i, dlc_clip(len), tok);
    }
  }
  /* A symbolic shape must be addressable at its smallest non-empty size:
   * check it with each symbolic dim at max(min, 1), then put the -1 back. */
  for (int32_t i = 0; i < decl->rank; ++i)
    if (decl->dim_symbols[i] >= 0) {
      int64_t min = m->dims[decl->dim_symbols[i]].min;
      decl->shape[i] = min > 1 ? min : 1;
    }
  char what[512];
  snprintf(what, sizeof(what), "%s: descriptor line %d: %s '%s'%s", ps->where,
           ps->line_no, kind, decl->name,
           decl->symbolic ? " (its symbolic dims at max(min, 1))" : "");
  st = dlc_shape_check(what, decl->dtype, decl->rank, decl->shape, NULL,
                       &decl->byte_size);
  for (int32_t i = 0; i < decl->rank; ++i)
    if (decl->dim_symbols[i] >= 0)
      decl->shape[i] = -1;
  if (st != DLC_OK)
    return DLC_ERROR_BAD_MODULE; /* message already set */
  if (decl->symbolic)
    decl->byte_size = 0;
  return DLC_OK;
}

/* Parses "<name> <min> <max>" after a `dim` keyword: the next symbolic dim. */
static dlc_status_t dlc_desc_dim(dlc_desc_parser_t *ps, dlc_module_t *m,
                                 size_t *capacity) {
  if (m->num_dims == *capacity) {
    size_t grown = *capacity ? 2 * *capacity : 4;
    dlc_dim_decl_t *dims = realloc(m->dims, grown * sizeof(*dims));
    if (!dims)
      return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
    m->dims = dims;
    *capacity = grown;
  }
  const char *tok;
  size_t len;
  if (m->num_dims == INT32_MAX) /* dlc_tensor_info_t.dim_symbols are int32_t */
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "more than %d dims", INT32_MAX);
  if (!dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s", "dim record has no name");
  dlc_dim_decl_t *dim = &m->dims[m->num_dims];
  memset(dim, 0, sizeof(*dim));
  dlc_status_t st = dlc_desc_name(ps, tok, len, &dim->name);
  if (st != DLC_OK)
    return st;
  m->num_dims++; /* owns its name from here on */
  dim->line_no = ps->line_no;
  static const char *const bounds[] = {"min", "max"};
  int64_t *values[] = {&dim->min, &dim->max};
  for (int b = 0; b < 2; ++b) {
    if (!dlc_desc_token(ps, &tok, &len))
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "dim '%s' has no %s",
                           dim->name, bounds[b]);
    if (!dlc_desc_uint(tok, len, DLC_ABI_MAX_DIM, values[b]))
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                           "dim '%s' has invalid %s '%.*s' (expected an integer "
                           "in [0, %lld])",
                           dim->name, bounds[b], dlc_clip(len), tok,
                           (long long)DLC_ABI_MAX_DIM);
  }
  if (dim->min > dim->max)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "dim '%s' has min %lld greater than max %lld", dim->name,
                         (long long)dim->min, (long long)dim->max);
  if (dlc_desc_token(ps, &tok, &len)) {
    if (len == 8 && memcmp(tok, "computed", 8) == 0) {
      dim->computed = true;
      m->computed_dims = true;
    } else {
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "dim '%s' has trailing '%.*s'",
                           dim->name, dlc_clip(len), tok);
    }
  }
  if (dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "dim '%s' has trailing '%.*s'",
                         dim->name, dlc_clip(len), tok);
  return DLC_OK;
}

/* Orders dims by name, then position. */
static int dlc_dim_order(const void *a, const void *b) {
  const dlc_dim_decl_t *x = *(const dlc_dim_decl_t *const *)a;
  const dlc_dim_decl_t *y = *(const dlc_dim_decl_t *const *)b;
  int c = strcmp(x->name, y->name);
  if (c != 0)
    return c;
  return x->line_no < y->line_no ? -1 : x->line_no > y->line_no;
}

/* After the last `dim` record: sorts the dims by name for the lookups of
 * "?<name>" dim tokens (O(log k) each), and rejects a repeated name. */
static dlc_status_t dlc_desc_seal_dims(dlc_desc_parser_t *ps, dlc_module_t *m) {
  ps->dims_sealed = true;
  if (m->num_dims == 0)
    return DLC_OK;
  ps->dims_by_name = malloc(m->num_dims * sizeof(*ps->dims_by_name));
  if (!ps->dims_by_name)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
  for (size_t k = 0; k < m->num_dims; ++k)
    ps->dims_by_name[k] = &m->dims[k];
  qsort(ps->dims_by_name, m->num_dims, sizeof(*ps->dims_by_name), dlc_dim_order);
  /* Report the duplicate that comes first in the file. */
  const dlc_dim_decl_t *dup = NULL;
  for (size_t k = 1; k < m->num_dims; ++k)
    if (strcmp(ps->dims_by_name[k]->name, ps->dims_by_name[k - 1]->name) == 0 &&
        (!dup || ps->dims_by_name[k]->line_no < dup->line_no))
      dup = ps->dims_by_name[k];
  if (dup)
    return dlc_fail(DLC_ERROR_BAD_MODULE, "%s: descriptor line %d: duplicate dim '%s'",
                    ps->where, dup->line_no, dup->name);
  return DLC_OK;
}

/* Parses "<hex bytes>" (or "-" for an empty tensor) after a `value` keyword
 * into the value of the last declared input. */
static dlc_status_t dlc_desc_value(dlc_desc_parser_t *ps, dlc_module_t *m) {
  if (m->num_inputs == 0 || m->num_outputs > 0)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s",
                         "value record does not follow an input");
  dlc_io_decl_t *decl = &m->decls[m->num_inputs - 1];
  const char *tok;
  size_t len;
  if (decl->symbolic)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "input '%s' has symbolic dims: it cannot have a value",
                         decl->name);
  if (decl->value || !dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "input '%s' has a missing or repeated value",
                         decl->name);
  bool empty = len == 1 && tok[0] == '-';
  if ((empty ? 0 : len) != 2 * decl->byte_size || (empty && decl->byte_size))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "value of input '%s' has %zu hex digits, expected %zu",
                         decl->name, len, 2 * decl->byte_size);
  decl->value = malloc(decl->byte_size ? decl->byte_size : 1);
  if (!decl->value)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
  for (size_t i = 0; i < decl->byte_size; ++i) {
    int hi = dlc_hex_value(tok[2 * i]), lo = dlc_hex_value(tok[2 * i + 1]);
    if (hi < 0 || lo < 0)
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                           "value of input '%s' is not hex", decl->name);
    decl->value[i] = (unsigned char)(hi * 16 + lo);
  }
  return DLC_OK;
}

/* Orders records by kind, then name, then position. */
static int dlc_decl_order(const void *a, const void *b) {
  const dlc_io_decl_t *x = *(const dlc_io_decl_t *const *)a;
  const dlc_io_decl_t *y = *(const dlc_io_decl_t *const *)b;
  if (x->kind != y->kind)
    return x->kind < y->kind ? -1 : 1;
  int c = strcmp(x->name, y->name);
  if (c != 0)
    return c;
  return x->line_no < y->line_no ? -1 : x->line_no > y->line_no;
}

/* Names are how users find tensors: they must be unique per kind. Sorting
 * keeps this O(n log n) for modules with 100,000s of inputs. */
static dlc_status_t dlc_desc_check_unique(const char *where, dlc_module_t *m) {
  size_t n = m->num_inputs + m->num_outputs + m->num_states;
  const dlc_io_decl_t **order = malloc(sizeof(*order) * (n ? n : 1));
  if (!order)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", where);
  for (size_t i = 0; i < n; ++i)
    order[i] = &m->decls[i];
  qsort(order, n, sizeof(*order), dlc_decl_order);
  /* Report the duplicate that comes first in the file. */
  const dlc_io_decl_t *dup = NULL;
  for (size_t i = 1; i < n; ++i)
    if (order[i]->kind == order[i - 1]->kind &&
        strcmp(order[i]->name, order[i - 1]->name) == 0 &&
        (!dup || order[i]->line_no < dup->line_no))
      dup = order[i];
  free(order);
  if (!dup)
    return DLC_OK;
  static const char *const kinds[] = {"input", "output", "state"};
  return dlc_fail(DLC_ERROR_BAD_MODULE, "%s: descriptor line %d: duplicate %s '%s'",
                  where, dup->line_no, kinds[dup->kind], dup->name);
}

/* Parses "<code> <percent-encoded message>" after an `error` keyword: the message of
 * a run-time check, reported when the entry returns `code` (1, 2, ... in order). */
static dlc_status_t dlc_desc_error(dlc_desc_parser_t *ps, dlc_module_t *m,
                                   size_t max_records) {
  const char *tok = "";
  size_t len = 0;
  int64_t code;
  if (!dlc_desc_token(ps, &tok, &len) || !dlc_desc_uint(tok, len, INT32_MAX, &code) ||
      code != (int64_t)m->num_errors + 1)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                         "error record has code '%.*s', expected %zu",
                         dlc_clip(len), tok, m->num_errors + 1);
  if (!dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "error %lld has no message",
                         (long long)code);
  if (!m->errors) {
    m->errors = calloc(max_records, sizeof(char *));
    if (!m->errors)
      return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
  }
  dlc_status_t st = dlc_desc_name(ps, tok, len, &m->errors[m->num_errors]);
  if (st != DLC_OK)
    return st;
  m->num_errors++;
  const char *extra;
  if (dlc_desc_token(ps, &extra, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "error %lld has trailing '%.*s'",
                         (long long)code, dlc_clip(len), extra);
  return DLC_OK;
}

/* `equal A B CODE`: sizes A and B (encoded text) must be equal for a run, else error CODE
 * (an `error` record, which follows). */
static dlc_status_t dlc_desc_equal(dlc_desc_parser_t *ps, dlc_module_t *m,
                                   size_t max_records) {
  const char *tok = "";
  size_t len = 0;
  if (!m->size_checks) {
    m->size_checks = calloc(max_records, sizeof(dlc_size_check_t));
    if (!m->size_checks)
      return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
  }
  dlc_size_check_t *c = &m->size_checks[m->num_size_checks];
  dlc_status_t st;
  if (!dlc_desc_token(ps, &tok, &len) || (st = dlc_desc_name(ps, tok, len, &c->a)) != DLC_OK)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s", "equal record without sizes");
  m->num_size_checks++; /* owns c->a (and c->b below) from here */
  if (!dlc_desc_token(ps, &tok, &len) || (st = dlc_desc_name(ps, tok, len, &c->b)) != DLC_OK)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s", "equal record with one size");
  if (!dlc_desc_token(ps, &tok, &len) || !dlc_desc_uint(tok, len, INT32_MAX, &c->code) ||
      c->code < 1)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s", "equal record without an error code");
  const char *extra;
  if (dlc_desc_token(ps, &extra, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "equal record has trailing '%.*s'",
                         dlc_clip(len), extra);
  return DLC_OK;
}

/* "target cuda <chip>" (a GPU module): first after the header line. */
static dlc_status_t dlc_desc_target(dlc_desc_parser_t *ps, dlc_module_t *m) {
  if (m->cuda_chip || m->num_dims || ps->dims_sealed)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s",
                         "records out of order (one target record, first after the header)");
  const char *tok, *chip;
  size_t len, chip_len;
  if (!dlc_desc_token(ps, &tok, &len) || len != 4 || memcmp(tok, "cuda", 4) != 0)
    return DLC_DESC_FAIL(ps, DLC_ERROR_UNSUPPORTED, "%s",
                         "unknown target (this runtime runs 'target cuda <chip>')");
  if (!dlc_desc_token(ps, &chip, &chip_len) || chip_len < 4 || chip_len > 15 ||
      memcmp(chip, "sm_", 3) != 0)
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s",
                         "target cuda record without an architecture (sm_80, ...)");
  for (size_t i = 3; i < chip_len; ++i)
    if (!((chip[i] >= '0' && chip[i] <= '9') || chip[i] == 'a'))
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "bad architecture '%.*s'",
                           dlc_clip(chip_len), chip);
  if (dlc_desc_token(ps, &tok, &len))
    return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "target record has trailing '%.*s'",
                         dlc_clip(len), tok);
  m->cuda_chip = strndup(chip, chip_len);
  if (!m->cuda_chip)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", ps->where);
  return DLC_OK;
}

static dlc_status_t dlc_desc_parse_records(dlc_desc_parser_t *ps,
                                           const char *text, dlc_module_t *m) {
  const char *where = ps->where;
  size_t max_records = 1;
  for (const char *c = text; *c; ++c)
    max_records += *c == '\n';
  m->decls = calloc(max_records, sizeof(dlc_io_decl_t));
  if (!m->decls)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", where);

  bool have_header = false;
  size_t dims_capacity = 0;
  const char *line = text;
  while (*line) {
    const char *eol = strchr(line, '\n');
    if (!eol)
      eol = line + strlen(line);
    ps->line_no++;
    ps->p = line;
    ps->end = eol;
    line = *eol ? eol + 1 : eol;
    const char *tok;
    size_t len;
    if (!dlc_desc_token(ps, &tok, &len))
      continue; /* blank line */
    if (!have_header) {
      int64_t version;
      const char *vtok;
      size_t vlen;
      if (len != 10 || memcmp(tok, "dlc-module", 10) != 0 ||
          !dlc_desc_token(ps, &vtok, &vlen) ||
          !dlc_desc_uint(vtok, vlen, INT32_MAX, &version) ||
          dlc_desc_token(ps, &vtok, &vlen))
        return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                             "expected 'dlc-module <version>', got '%.*s'",
                             dlc_clip((size_t)(eol - tok)), tok);
      if (version != DLC_ABI_VERSION)
        return DLC_DESC_FAIL(ps, DLC_ERROR_UNSUPPORTED,
                             "ABI version %lld is not supported (this runtime "
                             "implements version %d)",
                             (long long)version, DLC_ABI_VERSION);
      have_header = true;
      continue;
    }
    dlc_status_t st;
    if (len == 6 && memcmp(tok, "target", 6) == 0) {
      if ((st = dlc_desc_target(ps, m)) != DLC_OK)
        return st;
      continue;
    }
    if (len == 3 && memcmp(tok, "dim", 3) == 0) {
      if (ps->dims_sealed)
        return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s",
                             "records out of order (dim records come before "
                             "inputs, outputs and states)");
      if ((st = dlc_desc_dim(ps, m, &dims_capacity)) != DLC_OK)
        return st;
      continue;
    }
    if (!ps->dims_sealed && (st = dlc_desc_seal_dims(ps, m)) != DLC_OK)
      return st;
    if (len == 5 && memcmp(tok, "value", 5) == 0) {
      if ((st = dlc_desc_value(ps, m)) != DLC_OK)
        return st;
      continue;
    }
    if (len == 5 && memcmp(tok, "error", 5) == 0) {
      if ((st = dlc_desc_error(ps, m, max_records)) != DLC_OK)
        return st;
      continue;
    }
    if (m->num_errors > 0)
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s",
                           "records out of order (error records come last)");
    if (len == 5 && memcmp(tok, "equal", 5) == 0) {
      if ((st = dlc_desc_equal(ps, m, max_records)) != DLC_OK)
        return st;
      continue;
    }
    if (m->num_size_checks > 0)
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s",
                           "records out of order (equal records come before errors, "
                           "after the rest)");
    bool is_input = len == 5 && memcmp(tok, "input", 5) == 0;
    bool is_output = len == 6 && memcmp(tok, "output", 6) == 0;
    bool is_state = len == 5 && memcmp(tok, "state", 5) == 0;
    if (!is_input && !is_output && !is_state)
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE,
                           "expected 'dim', 'input', 'value', 'output', 'state' or "
                           "'error', got '%.*s'",
                           dlc_clip(len), tok);
    if ((is_input && m->num_outputs > 0) || (!is_state && m->num_states > 0))
      return DLC_DESC_FAIL(ps, DLC_ERROR_BAD_MODULE, "%s",
                           "records out of order (inputs, outputs, then states)");
    const char *kind = is_input ? "input" : is_output ? "output" : "state";
    dlc_io_decl_t *decl = &m->decls[m->num_inputs + m->num_outputs + m->num_states];
    if ((st = dlc_desc_record(ps, m, kind, decl)) != DLC_OK)
      return st;
    decl->kind = is_input ? 0 : is_output ? 1 : 2;
    decl->line_no = ps->line_no;
    if (is_input)
      m->num_inputs++;
    else if (is_output)
      m->num_outputs++;
    else
      m->num_states++;
    m->symbolic_outputs |= is_output && decl->symbolic;
  }
  if (!have_header)
    return dlc_fail(DLC_ERROR_BAD_MODULE, "%s: descriptor is empty", where);
  dlc_status_t st;
  if (!ps->dims_sealed && (st = dlc_desc_seal_dims(ps, m)) != DLC_OK)
    return st;
  if ((st = dlc_desc_check_unique(where, m)) != DLC_OK)
    return st;
  if (m->num_outputs == 0)
    return dlc_fail(DLC_ERROR_BAD_MODULE, "%s: descriptor declares no outputs",
                    where);
  for (size_t i = 0; i < m->num_size_checks; ++i)
    if ((size_t)m->size_checks[i].code > m->num_errors)
      return dlc_fail(DLC_ERROR_BAD_MODULE,
                      "%s: equal record %zu names error %lld, which is not declared", where,
                      i + 1, (long long)m->size_checks[i].code);
  /* Every dim takes its value from an input (one that none sets is unknowable), or
   * is computed by the model for its outputs. */
  for (size_t k = 0; k < m->num_dims; ++k)
    if (m->dims[k].computed && !m->dims[k].in_output)
      return dlc_fail(DLC_ERROR_BAD_MODULE,
                      "%s: descriptor line %d: computed dim '%s' is used by no output",
                      where, m->dims[k].line_no, m->dims[k].name);
    else if (!m->dims[k].computed && !m->dims[k].used)
      return dlc_fail(DLC_ERROR_BAD_MODULE,
                      "%s: descriptor line %d: dim '%s' is used by no input", where,
                      m->dims[k].line_no, m->dims[k].name);
  return DLC_OK;
}

dlc_status_t dlc_desc_parse(const char *where, const char *text,
                            dlc_module_t *m) {
  dlc_desc_parser_t ps = {where, 0, text, text, false, NULL};
  dlc_status_t st = dlc_desc_parse_records(&ps, text, m);
  free(ps.dims_by_name);
  return st;
}
