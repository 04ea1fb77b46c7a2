/* dlc_npy.c - owns reading and writing tensors as NumPy .npy files (format 1.0, 2.0, 3.0). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fileno; set before any system header */
#endif
#include "dlc_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char dlc_npy_magic[6] = {'\x93', 'N', 'U', 'M', 'P', 'Y'};

/* NumPy refuses headers over 10 KB by default; allow far more, but bound
 * what a garbage length field can make us allocate. */
#define DLC_NPY_MAX_HEADER (1u << 20)
/* NumPy 2 allows 64 dims. */
#define DLC_NPY_MAX_RANK 64

/* ---- dtype strings --------------------------------------------------- */

static const struct {
  char kind;
  unsigned size;
  dlc_dtype_t dtype;
} dlc_npy_kinds[] = {
    {'f', 2, DLC_DTYPE_FLOAT16}, {'f', 4, DLC_DTYPE_FLOAT},
    {'f', 8, DLC_DTYPE_DOUBLE},  {'i', 1, DLC_DTYPE_INT8},
    {'i', 2, DLC_DTYPE_INT16},   {'i', 4, DLC_DTYPE_INT32},
    {'i', 8, DLC_DTYPE_INT64},   {'u', 1, DLC_DTYPE_UINT8},
    {'u', 2, DLC_DTYPE_UINT16},  {'u', 4, DLC_DTYPE_UINT32},
    {'u', 8, DLC_DTYPE_UINT64},  {'b', 1, DLC_DTYPE_BOOL},
};

/* Maps a descr like "<f4" to a dtype; strings ("<U7": UTF-32, "|S7": bytes) to
 * DLC_DTYPE_STRING with their bytes per element in *string_bytes (else 0). */
static dlc_status_t dlc_npy_parse_descr(const char *path, const char *descr,
                                        dlc_dtype_t *dtype, size_t *string_bytes) {
  char order = descr[0];
  char kind = order ? descr[1] : '\0';
  const char *digits = kind ? descr + 2 : descr;
  *string_bytes = 0;
  if (kind == 'U' || kind == 'S') {
    size_t width = 0;
    bool valid = (order == '<' || order == '|' || order == '=' || (order == '>' && kind == 'S')) &&
                 *digits >= '1' && *digits <= '9' && strlen(digits) <= 9;
    for (const char *c = digits; valid && *c; ++c) {
      valid = *c >= '0' && *c <= '9';
      width = width * 10 + (size_t)(*c - '0');
    }
    if (!valid)
      return dlc_fail(DLC_ERROR_UNSUPPORTED, "'%s': unsupported dtype '%s'", path, descr);
    *dtype = DLC_DTYPE_STRING;
    *string_bytes = kind == 'U' ? 4 * width : width;
    return DLC_OK;
  }
  unsigned size = 0;
  bool ok = (order == '<' || order == '>' || order == '|' || order == '=') &&
            *digits >= '1' && *digits <= '9' && strlen(digits) <= 2;
  for (const char *c = digits; ok && *c; ++c) {
    ok = *c >= '0' && *c <= '9';
    size = size * 10 + (unsigned)(*c - '0');
  }
  for (size_t i = 0; ok && i < sizeof(dlc_npy_kinds) / sizeof(dlc_npy_kinds[0]);
       ++i) {
    if (dlc_npy_kinds[i].kind != kind || dlc_npy_kinds[i].size != size)
      continue;
    if (order == '>' && size > 1)
      return dlc_fail(DLC_ERROR_UNSUPPORTED,
                      "'%s': big-endian dtype '%s' is not supported", path,
                      descr);
    *dtype = dlc_npy_kinds[i].dtype;
    return DLC_OK;
  }
  return dlc_fail(DLC_ERROR_UNSUPPORTED, "'%s': unsupported dtype '%s'", path,
                  descr);
}

/* The descr NumPy writes for a dtype, or NULL if .npy has none (bf16). */
static const char *dlc_npy_descr(dlc_dtype_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_FLOAT16:
    return "<f2";
  case DLC_DTYPE_FLOAT:
    return "<f4";
  case DLC_DTYPE_DOUBLE:
    return "<f8";
  case DLC_DTYPE_INT8:
    return "|i1";
  case DLC_DTYPE_INT16:
    return "<i2";
  case DLC_DTYPE_INT32:
    return "<i4";
  case DLC_DTYPE_INT64:
    return "<i8";
  case DLC_DTYPE_UINT8:
    return "|u1";
  case DLC_DTYPE_UINT16:
    return "<u2";
  case DLC_DTYPE_UINT32:
    return "<u4";
  case DLC_DTYPE_UINT64:
    return "<u8";
  case DLC_DTYPE_BOOL:
    return "|b1";
  default:
    return NULL;
  }
}

/* ---- header dictionary: {'descr': '<f4', 'fortran_order': False,
 *      'shape': (2, 3), } -- a Python literal, parsed by hand ----------- */

typedef struct {
  const char *path;
  const char *begin, *p, *end;
  char descr[16];
  bool fortran_order;
  int32_t rank;
  int64_t shape[DLC_NPY_MAX_RANK];
} dlc_npy_header_t;

static dlc_status_t dlc_npy_malformed(dlc_npy_header_t *h, const char *what) {
  return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                  "'%s': malformed .npy header: %s at header offset %td",
                  h->path, what, h->p - h->begin);
}

static void dlc_npy_skip_space(dlc_npy_header_t *h) {
  while (h->p < h->end && (*h->p == ' ' || *h->p == '\t' || *h->p == '\n' ||
                           *h->p == '\r'))
    ++h->p;
}

static bool dlc_npy_accept(dlc_npy_header_t *h, char c) {
  dlc_npy_skip_space(h);
  if (h->p < h->end && *h->p == c) {
    ++h->p;
    return true;
  }
  return false;
}

/* Parses a quoted string (no escapes: none occur in valid headers). */
static dlc_status_t dlc_npy_string(dlc_npy_header_t *h, char *buf,
                                   size_t size) {
  dlc_npy_skip_space(h);
  if (h->p >= h->end || (*h->p != '\'' && *h->p != '"'))
    return dlc_npy_malformed(h, "expected a quoted string");
  char quote = *h->p++;
  size_t len = 0;
  while (h->p < h->end && *h->p != quote) {
    if (len + 1 >= size || *h->p == '\\' || (unsigned char)*h->p < 0x20)
      return dlc_npy_malformed(h, "unexpected string");
    buf[len++] = *h->p++;
  }
  if (h->p >= h->end)
    return dlc_npy_malformed(h, "unterminated string");
  ++h->p;
  buf[len] = '\0';
  return DLC_OK;
}

static dlc_status_t dlc_npy_shape(dlc_npy_header_t *h) {
  if (!dlc_npy_accept(h, '('))
    return dlc_npy_malformed(h, "expected '(' for shape");
  h->rank = 0;
  for (;;) {
    if (dlc_npy_accept(h, ')'))
      return DLC_OK;
    if (h->p >= h->end || *h->p < '0' || *h->p > '9')
      return dlc_npy_malformed(h, "expected a non-negative dim");
    uint64_t dim = 0;
    while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
      uint64_t digit = (uint64_t)(*h->p - '0');
      if (dim > ((uint64_t)INT64_MAX - digit) / 10)
        return dlc_npy_malformed(h, "dim too large");
      dim = dim * 10 + digit;
      ++h->p;
    }
    if (h->p < h->end && *h->p == 'L') /* Python 2 long suffix */
      ++h->p;
    if (h->rank == DLC_NPY_MAX_RANK)
      return dlc_fail(DLC_ERROR_UNSUPPORTED,
                      "'%s': rank above %d is not supported", h->path,
                      DLC_NPY_MAX_RANK);
    h->shape[h->rank++] = (int64_t)dim;
    if (!dlc_npy_accept(h, ',')) {
      if (dlc_npy_accept(h, ')'))
        return DLC_OK;
      return dlc_npy_malformed(h, "expected ',' or ')' in shape");
    }
  }
}

static dlc_status_t dlc_npy_parse_header(dlc_npy_header_t *h) {
  bool have_descr = false, have_order = false, have_shape = false;
  dlc_status_t st;
  if (!dlc_npy_accept(h, '{'))
    return dlc_npy_malformed(h, "expected '{'");
  while (!dlc_npy_accept(h, '}')) {
    char key[32];
    if ((st = dlc_npy_string(h, key, sizeof(key))) != DLC_OK)
      return st;
    if (!dlc_npy_accept(h, ':'))
      return dlc_npy_malformed(h, "expected ':'");
    if (strcmp(key, "descr") == 0 && !have_descr) {
      if (dlc_npy_accept(h, '['))
        return dlc_fail(DLC_ERROR_UNSUPPORTED,
                        "'%s': structured dtypes are not supported", h->path);
      if ((st = dlc_npy_string(h, h->descr, sizeof(h->descr))) != DLC_OK)
        return st;
      have_descr = true;
    } else if (strcmp(key, "fortran_order") == 0 && !have_order) {
      dlc_npy_skip_space(h);
      size_t left = (size_t)(h->end - h->p);
      if (left >= 4 && memcmp(h->p, "True", 4) == 0) {
        h->fortran_order = true;
        h->p += 4;
      } else if (left >= 5 && memcmp(h->p, "False", 5) == 0) {
        h->fortran_order = false;
        h->p += 5;
      } else {
        return dlc_npy_malformed(h, "expected True or False");
      }
      have_order = true;
    } else if (strcmp(key, "shape") == 0 && !have_shape) {
      if ((st = dlc_npy_shape(h)) != DLC_OK)
        return st;
      have_shape = true;
    } else {
      return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                      "'%s': malformed .npy header: unexpected key '%s'",
                      h->path, key);
    }
    if (!dlc_npy_accept(h, ',')) {
      if (dlc_npy_accept(h, '}'))
        break;
      return dlc_npy_malformed(h, "expected ',' or '}'");
    }
  }
  if (!have_descr || !have_order || !have_shape)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "'%s': malformed .npy header: missing key '%s'", h->path,
                    !have_descr ? "descr"
                                : (!have_order ? "fortran_order" : "shape"));
  return DLC_OK;
}

/* ---- load ------------------------------------------------------------ */

static uint32_t dlc_read_le(const unsigned char *p, int bytes) {
  uint32_t v = 0;
  for (int i = bytes - 1; i >= 0; --i)
    v = (v << 8) | p[i];
  return v;
}

size_t dlc_utf8_encode(uint32_t c, char *out) {
  if (c < 0x80) {
    out[0] = (char)c;
    return 1;
  }
  if (c < 0x800) {
    out[0] = (char)(0xC0 | (c >> 6));
    out[1] = (char)(0x80 | (c & 0x3F));
    return 2;
  }
  if (c >= 0xD800 && c <= 0xDFFF)
    return 0;
  if (c < 0x10000) {
    out[0] = (char)(0xE0 | (c >> 12));
    out[1] = (char)(0x80 | ((c >> 6) & 0x3F));
    out[2] = (char)(0x80 | (c & 0x3F));
    return 3;
  }
  if (c > 0x10FFFF)
    return 0;
  out[0] = (char)(0xF0 | (c >> 18));
  out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((c >> 6) & 0x3F));
  out[3] = (char)(0x80 | (c & 0x3F));
  return 4;
}

int64_t dlc_utf8_decode(const unsigned char *s, size_t n, size_t *i) {
  unsigned char b = s[*i];
  int len = b < 0x80 ? 1 : (b >> 5) == 6 ? 2 : (b >> 4) == 14 ? 3 : (b >> 3) == 30 ? 4 : 0;
  if (!len || *i + (size_t)len > n)
    return -1;
  uint32_t c = len == 1 ? b : (uint32_t)(b & (0x7F >> len));
  for (int k = 1; k < len; ++k) {
    if ((s[*i + k] & 0xC0) != 0x80)
      return -1;
    c = (c << 6) | (s[*i + k] & 0x3F);
  }
  static const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (c < least[len] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
    return -1;
  *i += (size_t)len;
  return c;
}

/* Reads the fixed-width string elements of a .npy (UTF-32 or bytes, NUL padded) into the
 * string tensor t, as UTF-8. */
static dlc_status_t dlc_npy_read_strings(FILE *f, const char *path, bool utf32, size_t width,
                                         dlc_tensor_t *t) {
  unsigned char *raw = malloc(width ? width : 1);
  char *utf8 = malloc(width + 1); /* UTF-32 -> at most 4 bytes per 4 */
  dlc_status_t st = raw && utf8 ? DLC_OK
                                : dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "'%s': out of memory", path);
  for (int64_t e = 0; st == DLC_OK && e < dlc_tensor_num_elements(t); ++e) {
    if (fread(raw, 1, width, f) != width) {
      st = dlc_fail(DLC_ERROR_IO, "cannot read the strings of '%s'", path);
      break;
    }
    size_t len = 0;
    if (utf32) {
      size_t chars = width / 4;
      while (chars && !(raw[4 * chars - 4] | raw[4 * chars - 3] | raw[4 * chars - 2] |
                        raw[4 * chars - 1]))
        --chars;
      for (size_t k = 0; k < chars; ++k) {
        uint32_t c = (uint32_t)raw[4 * k] | (uint32_t)raw[4 * k + 1] << 8 |
                     (uint32_t)raw[4 * k + 2] << 16 | (uint32_t)raw[4 * k + 3] << 24;
        size_t w = dlc_utf8_encode(c, utf8 + len);
        if (!w) {
          st = dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                        "'%s': element %lld holds U+%X, not a Unicode character", path,
                        (long long)e, (unsigned)c);
          break;
        }
        len += w;
      }
    } else {
      len = width;
      while (len && !raw[len - 1])
        --len;
      memcpy(utf8, raw, len);
    }
    if (st == DLC_OK)
      st = dlc_tensor_set_string(t, e, utf8, len);
  }
  free(raw);
  free(utf8);
  return st;
}

/* Everything after fopen, for a stream of `file_size` bytes; the caller
 * closes the stream. */
static dlc_status_t dlc_npy_read(FILE *f, const char *path, uint64_t file_size,
                                 dlc_tensor_t **out) {

  unsigned char prefix[12];
  size_t got = fread(prefix, 1, sizeof(prefix), f);
  size_t magic_seen = got < 6 ? got : 6;
  if (memcmp(prefix, dlc_npy_magic, magic_seen) != 0 || got == 0)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "'%s' is not a .npy file (bad magic string)", path);
  if (got < 10)
    return dlc_fail(DLC_ERROR_IO,
                    "'%s': truncated .npy preamble: expected at least 10 "
                    "bytes, got %zu",
                    path, got);
  unsigned major = prefix[6], minor = prefix[7];
  if (major < 1 || major > 3)
    return dlc_fail(DLC_ERROR_UNSUPPORTED,
                    "'%s': unsupported .npy format version %u.%u", path, major,
                    minor);
  size_t preamble = major == 1 ? 10 : 12;
  if (got < preamble)
    return dlc_fail(DLC_ERROR_IO,
                    "'%s': truncated .npy preamble: expected %zu bytes, got "
                    "%zu",
                    path, preamble, got);
  uint32_t header_len = dlc_read_le(prefix + 8, major == 1 ? 2 : 4);
  if ((uint64_t)preamble + header_len > file_size)
    return dlc_fail(DLC_ERROR_IO,
                    "'%s': truncated .npy header: expected %llu bytes, file "
                    "has %llu",
                    path, (unsigned long long)preamble + header_len,
                    (unsigned long long)file_size);
  if (header_len > DLC_NPY_MAX_HEADER)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "'%s': implausible .npy header length %u", path,
                    (unsigned)header_len);

  char *text = malloc(header_len + 1u);
  if (!text)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                    "'%s': out of memory reading the header", path);
  /* The preamble read may have consumed header bytes (version 1.0). */
  size_t early = got - preamble;
  if (early > header_len)
    early = header_len;
  memcpy(text, prefix + preamble, early);
  size_t rest = fread(text + early, 1, header_len - early, f);
  if (early + rest != header_len) {
    free(text);
    return dlc_fail(DLC_ERROR_IO, "cannot read the header of '%s'", path);
  }
  text[header_len] = '\0';
  static dlc_npy_header_t zero_header;
  dlc_npy_header_t h = zero_header;
  h.path = path;
  h.begin = h.p = text;
  h.end = text + header_len;
  dlc_status_t st = dlc_npy_parse_header(&h);
  free(text);
  if (st != DLC_OK)
    return st;

  dlc_dtype_t dtype = 0;
  size_t string_bytes = 0;
  if ((st = dlc_npy_parse_descr(path, h.descr, &dtype, &string_bytes)) != DLC_OK)
    return st;
  if (h.fortran_order)
    return dlc_fail(DLC_ERROR_UNSUPPORTED,
                    "'%s': fortran_order arrays are not supported (save "
                    "in C order)",
                    path);
  char what[64 + 4096];
  snprintf(what, sizeof(what), "'%s'", path);
  size_t bytes;
  int64_t count;
  if ((st = dlc_shape_check(what, dtype, h.rank, h.shape, &count, &bytes)) !=
      DLC_OK)
    return st;
  /* Strings: the file holds fixed-width elements, not dlc_string_t's. */
  if (string_bytes && __builtin_mul_overflow((size_t)count, string_bytes, &bytes))
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "'%s': string data too large", path);
  uint64_t data_offset = (uint64_t)preamble + header_len;
  uint64_t available = file_size - data_offset;
  char shape_text[128];
  dlc_shape_text(h.rank, h.shape, shape_text, sizeof(shape_text));
  if (available < bytes)
    return dlc_fail(DLC_ERROR_IO,
                    "'%s': truncated data: expected %zu bytes for shape %s "
                    "of %s, got %llu",
                    path, bytes, shape_text, dlc_dtype_name(dtype),
                    (unsigned long long)available);
  if (available > bytes)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "'%s': %llu unexpected bytes after the data (shape %s "
                    "of %s)",
                    path, (unsigned long long)(available - bytes),
                    shape_text, dlc_dtype_name(dtype));

  dlc_tensor_t *t;
  if ((st = dlc_tensor_create(dtype, h.rank, h.shape, &t)) != DLC_OK)
    return st;
  if (string_bytes) {
    if (fseek(f, (long)data_offset, SEEK_SET) != 0 ||
        (st = dlc_npy_read_strings(f, path, h.descr[1] == 'U', string_bytes, t)) != DLC_OK) {
      dlc_tensor_free(t);
      return st == DLC_OK ? dlc_fail(DLC_ERROR_IO, "cannot read '%s'", path) : st;
    }
    *out = t;
    return DLC_OK;
  }
  if (fseek(f, (long)data_offset, SEEK_SET) != 0 ||
      fread(dlc_tensor_data(t), 1, bytes, f) != bytes) {
    dlc_tensor_free(t);
    return dlc_fail(DLC_ERROR_IO, "cannot read %zu data bytes from '%s'",
                    bytes, path);
  }
  *out = t;
  return DLC_OK;
}

dlc_status_t dlc_tensor_load_npy(const char *path, dlc_tensor_t **out) {
  if (!out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_load_npy: out is null");
  *out = NULL;
  if (!path)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_load_npy: path is null");
  /* O_NONBLOCK: opening a FIFO must not wait for a writer (it is refused
     below, as is anything but a regular file). */
  int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  if (!f) {
    int e = errno;
    if (fd >= 0)
      close(fd);
    char err[128];
    return dlc_fail(e == ENOENT || e == ENOTDIR ? DLC_ERROR_NOT_FOUND
                                                : DLC_ERROR_IO,
                    "cannot open '%s': %s", path,
                    dlc_errno_text(e, err, sizeof(err)));
  }
  char err[128];
  struct stat info;
  dlc_status_t st;
  if (fstat(fileno(f), &info) != 0)
    st = dlc_fail(DLC_ERROR_IO, "cannot stat '%s': %s", path,
                  dlc_errno_text(errno, err, sizeof(err)));
  else if (!S_ISREG(info.st_mode))
    st = dlc_fail(DLC_ERROR_IO, "'%s' is not a regular file", path);
  else if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) != 0)
    st = dlc_fail(DLC_ERROR_IO, "cannot read '%s'", path);
  else
    st = dlc_npy_read(f, path, (uint64_t)info.st_size, out);
  fclose(f);
  return st;
}

dlc_status_t dlc_tensor_load_npy_buffer(const void *data, size_t size,
                                        const char *name, dlc_tensor_t **out) {
  if (!out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_load_npy_buffer: out is null");
  *out = NULL;
  if (!name || (!data && size))
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_load_npy_buffer: null argument");
  static const unsigned char empty;
  /* fmemopen takes a non-const buffer; mode "rb" only reads it. */
  const void *bytes = size ? data : (const void *)&empty;
  FILE *f = fmemopen((void *)(uintptr_t)bytes, size ? size : 1, "rb");
  if (!f)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "'%s': cannot open the buffer",
                    name);
  dlc_status_t st = dlc_npy_read(f, name, size, out);
  fclose(f);
  return st;
}

/* ---- save ------------------------------------------------------------ */

/* Writes all of `data`, retrying EINTR and short writes; false with errno set. */
static bool dlc_write_all(int fd, const void *data, size_t size) {
  const char *p = (const char *)data;
  while (size > 0) {
    ssize_t n = write(fd, p, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0) {
      if (n == 0)
        errno = EIO;
      return false;
    }
    p += n;
    size -= (size_t)n;
  }
  return true;
}

/* Replaces `path` with the bytes a then b, atomically: a temporary file beside
 * it (mkstemp: O_CREAT | O_EXCL, so never through a planted link), every write
 * checked, fsync, rename. Only a regular file is replaced. On failure the
 * previous file (or none) stays and the temporary file is removed. */
static dlc_status_t dlc_write_atomically(const char *path, const void *a,
                                         size_t a_size, const void *b,
                                         size_t b_size) {
  char err[128];
  struct stat info;
  if (lstat(path, &info) == 0 && !S_ISREG(info.st_mode))
    return dlc_fail(DLC_ERROR_IO,
                    S_ISLNK(info.st_mode)
                        ? "cannot write '%s': it is a symbolic link (only a "
                          "regular file is replaced)"
                        : "cannot write '%s': it exists and is not a regular "
                          "file",
                    path);
  const char *slash = strrchr(path, '/');
  size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
  static const char kTemplate[] = ".dlc-tmp-XXXXXX";
  char *tmp = malloc(dir_len + sizeof(kTemplate));
  if (!tmp)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "cannot write '%s': out of memory",
                    path);
  memcpy(tmp, path, dir_len);
  memcpy(tmp + dir_len, kTemplate, sizeof(kTemplate));
  int fd = mkostemp(tmp, O_CLOEXEC);
  if (fd < 0) {
    int e = errno;
    free(tmp);
    return dlc_fail(DLC_ERROR_IO, "cannot write '%s': %s", path,
                    dlc_errno_text(e, err, sizeof(err)));
  }
  mode_t mask = umask(0);
  umask(mask);
  bool ok = fchmod(fd, 0666 & ~mask) == 0 && dlc_write_all(fd, a, a_size) &&
            dlc_write_all(fd, b, b_size) && fsync(fd) == 0;
  int e = errno;
  ok = close(fd) == 0 && ok;
  if (ok && rename(tmp, path) != 0) {
    ok = false;
    e = errno;
  }
  if (!ok)
    unlink(tmp);
  free(tmp);
  if (!ok)
    return dlc_fail(DLC_ERROR_IO, "cannot write '%s': %s", path,
                    dlc_errno_text(e ? e : EIO, err, sizeof(err)));
  return DLC_OK;
}

/* A string tensor's elements as NumPy's '<U<n>' data (UTF-32, NUL padded). */
static dlc_status_t dlc_npy_encode_strings(const dlc_tensor_t *t, const char *path,
                                           char descr[24], unsigned char **data,
                                           size_t *bytes) {
  int64_t count = dlc_tensor_num_elements(t);
  size_t width = 1; /* NumPy writes <U1 for empty strings */
  for (int64_t e = 0; e < count; ++e) {
    size_t n, i = 0, chars = 0;
    const unsigned char *s = (const unsigned char *)dlc_tensor_string(t, e, &n);
    while (i < n) {
      if (dlc_utf8_decode(s, n, &i) < 0)
        return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                        "cannot save '%s': element %lld is not UTF-8 text", path,
                        (long long)e);
      ++chars;
    }
    width = chars > width ? chars : width;
  }
  if (__builtin_mul_overflow((size_t)count, 4 * width, bytes) ||
      !(*data = calloc(*bytes ? *bytes : 1, 1)))
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "cannot save '%s': out of memory", path);
  for (int64_t e = 0; e < count; ++e) {
    size_t n, i = 0, k = 0;
    const unsigned char *s = (const unsigned char *)dlc_tensor_string(t, e, &n);
    unsigned char *out = *data + (size_t)e * 4 * width;
    while (i < n) {
      uint32_t c = (uint32_t)dlc_utf8_decode(s, n, &i);
      for (int b = 0; b < 4; ++b)
        out[4 * k + (size_t)b] = (unsigned char)(c >> (8 * b));
      ++k;
    }
  }
  snprintf(descr, 24, "<U%zu", width);
  return DLC_OK;
}

dlc_status_t dlc_tensor_save_npy(const dlc_tensor_t *tensor,
                                 const char *path) {
  if (!tensor || !path)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_save_npy: %s is null",
                    tensor ? "path" : "tensor");
  /* Strings: '<U<n>', n the most code points of an element (NumPy's str). */
  char string_descr[24];
  unsigned char *string_data = NULL;
  size_t string_bytes = 0;
  if (dlc_tensor_dtype(tensor) == DLC_DTYPE_STRING) {
    dlc_status_t st = dlc_npy_encode_strings(tensor, path, string_descr, &string_data,
                                             &string_bytes);
    if (st != DLC_OK)
      return st;
  }
  const char *descr = dlc_tensor_dtype(tensor) == DLC_DTYPE_STRING
                          ? string_descr
                          : dlc_npy_descr(dlc_tensor_dtype(tensor));
  if (!descr)
    return dlc_fail(DLC_ERROR_UNSUPPORTED,
                    "cannot save '%s': dtype %s has no .npy equivalent", path,
                    dlc_dtype_name(dlc_tensor_dtype(tensor)));

  int32_t rank = dlc_tensor_rank(tensor);
  const int64_t *shape = dlc_tensor_shape(tensor);
  /* Dict text (each dim at most 19 digits plus ", "), 21 spare digits,
   * up to 64 padding bytes and the 12-byte preamble. */
  size_t cap = 96 + (size_t)rank * 24 + 21 + 64 + 12;
  char *header = malloc(cap);
  if (!header) {
    free(string_data);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                    "cannot save '%s': out of memory", path);
  }
  size_t preamble = 10;
  size_t len = (size_t)snprintf(
      header + 12, cap - 12, "{'descr': '%s', 'fortran_order': False, 'shape': (",
      descr);
  for (int32_t i = 0; i < rank; ++i)
    len += (size_t)snprintf(header + 12 + len, cap - 12 - len, "%s%lld",
                            i ? ", " : "", (long long)shape[i]);
  len += (size_t)snprintf(header + 12 + len, cap - 12 - len, "%s), }",
                          rank == 1 ? "," : "");
  /* Mirror numpy.lib.format exactly: spare room for the first dim to grow
   * to 21 digits, then 1..64 spaces and '\n' so the data is 64-aligned;
   * version 2.0 only when that overflows 1.0's 16-bit length. */
  if (rank > 0) {
    char first[24];
    int digits = snprintf(first, sizeof(first), "%lld", (long long)shape[0]);
    len += (size_t)(21 - digits);
  }
  size_t total = preamble + len + 1 + (64 - (preamble + len + 1) % 64);
  if (total - preamble > 65535) {
    preamble = 12;
    total = preamble + len + 1 + (64 - (preamble + len + 1) % 64);
  }
  size_t header_len = total - preamble;
  char *dict = header + 12;
  size_t text_len = strlen(dict);
  memset(dict + text_len, ' ', header_len - text_len - 1);
  dict[header_len - 1] = '\n';
  char *start = dict - preamble;
  memcpy(start, dlc_npy_magic, 6);
  start[6] = (char)(preamble == 10 ? 1 : 2);
  start[7] = 0;
  for (size_t i = 0; i < preamble - 8; ++i)
    start[8 + i] = (char)((header_len >> (8 * i)) & 0xff);

  dlc_status_t st =
      string_data || dlc_tensor_dtype(tensor) == DLC_DTYPE_STRING
          ? dlc_write_atomically(path, start, total, string_data, string_bytes)
          : dlc_write_atomically(path, start, total, dlc_tensor_data(tensor),
                                 dlc_tensor_byte_size(tensor));
  free(header);
  free(string_data);
  return st;
}
