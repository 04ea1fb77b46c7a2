/* dlc_string.c - strings at run time: the run's arena for the strings compiled code makes,
 * the string functions compiled models call, and copying string outputs into their tensors. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* newlocale, towlower_l */
#endif
#include "dlc_internal.h"

#include <locale.h>
#include <stdarg.h>
#include <stdio.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

/* The arena of the run on this thread (dlc_session_run sets it around the entry). */
static _Thread_local dlc_string_arena_t *dlc_current_arena;

typedef struct dlc_string_block {
  struct dlc_string_block *next;
  size_t used, cap;
  char data[];
} dlc_string_block_t;

void dlc_string_arena_begin(dlc_string_arena_t *arena, dlc_tensor_t *const *outputs,
                            size_t num_outputs) {
  arena->head = NULL;
  arena->failed = false;
  arena->outputs = outputs;
  arena->num_outputs = num_outputs;
  arena->failed_output = -1;
  arena->failed_bytes = 0;
  arena->error[0] = '\0';
  dlc_current_arena = arena;
}

void dlc_string_arena_end(dlc_string_arena_t *arena) {
  for (dlc_string_block_t *b = arena->head, *next; b; b = next) {
    next = b->next;
    free(b);
  }
  arena->head = NULL;
  if (dlc_current_arena == arena)
    dlc_current_arena = NULL;
}

/* n bytes that live until the run ends; NULL (and the run fails) when out of memory or
 * called outside a run. */
static char *dlc_string_alloc(size_t n) {
  dlc_string_arena_t *a = dlc_current_arena;
  if (!a)
    return NULL;
  dlc_string_block_t *b = a->head;
  if (!b || b->cap - b->used < n) {
    size_t cap = n > 65536 ? n : 65536;
    if (!(b = malloc(sizeof(dlc_string_block_t) + cap))) {
      a->failed = true;
      return NULL;
    }
    b->used = 0;
    b->cap = cap;
    b->next = a->head;
    a->head = b;
  }
  char *p = b->data + b->used;
  b->used += n;
  return p;
}

void *dlc_run_alloc(size_t n) {
  /* 16-byte aligned (strings in the arena are byte aligned). */
  if (n > SIZE_MAX - 16)
    return NULL;
  char *p = dlc_string_alloc(n + 15);
  return p ? (void *)(((uintptr_t)p + 15) & ~(uintptr_t)15) : NULL;
}

void dlc_run_fail(const char *fmt, ...) {
  dlc_string_arena_t *a = dlc_current_arena;
  if (!a || a->error[0])
    return; /* the first failure is the one reported */
  va_list args;
  va_start(args, fmt);
  vsnprintf(a->error, sizeof(a->error), fmt, args);
  va_end(args);
  if (!a->error[0])
    snprintf(a->error, sizeof(a->error), "the run failed");
}

static dlc_string_t dlc_unpack(dlc_abi_string_t s) {
  dlc_string_t out;
  out.data = (const char *)(uintptr_t)(uint64_t)s;
  out.size = (int64_t)(uint64_t)(s >> 64);
  return out;
}

dlc_abi_string_t dlc_abi_string_pack(const char *data, int64_t size) {
  return (dlc_abi_string_t)(uintptr_t)data | ((dlc_abi_string_t)(uint64_t)size << 64);
}

dlc_abi_string_t dlc_rt_string_concat(dlc_abi_string_t a, dlc_abi_string_t b) {
  dlc_string_t x = dlc_unpack(a), y = dlc_unpack(b);
  if (x.size + y.size == 0)
    return 0;
  char *p = dlc_string_alloc((size_t)(x.size + y.size));
  if (!p)
    return 0;
  if (x.size)
    memcpy(p, x.data, (size_t)x.size);
  if (y.size)
    memcpy(p + x.size, y.data, (size_t)y.size);
  return dlc_abi_string_pack(p, x.size + y.size);
}

int32_t dlc_rt_string_equal(dlc_abi_string_t a, dlc_abi_string_t b) {
  dlc_string_t x = dlc_unpack(a), y = dlc_unpack(b);
  return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, (size_t)x.size) == 0);
}

int32_t dlc_rt_string_compare(dlc_abi_string_t a, dlc_abi_string_t b) {
  dlc_string_t x = dlc_unpack(a), y = dlc_unpack(b);
  size_t n = (size_t)(x.size < y.size ? x.size : y.size);
  int c = n ? memcmp(x.data, y.data, n) : 0;
  if (c)
    return c < 0 ? -1 : 1;
  return x.size < y.size ? -1 : x.size > y.size;
}

/* Unicode case mapping (glibc's C.UTF-8 tables: one code point to one), made once. */
static locale_t dlc_utf8_locale;
static pthread_once_t dlc_utf8_once = PTHREAD_ONCE_INIT;
static void dlc_utf8_init(void) { dlc_utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", 0); }

/* Whether `locale` is the C (POSIX) locale, whose case mapping is ASCII's alone. */
static bool dlc_ascii_locale(dlc_abi_string_t locale) {
  dlc_string_t l = dlc_unpack(locale);
  size_t n = (size_t)l.size;
  return (n == 1 && l.data[0] == 'C') || (n == 5 && memcmp(l.data, "POSIX", 5) == 0);
}

/* `s` with each character mapped by towlower or towupper (ASCII letters only in the C
 * locale); bytes that are not UTF-8 are kept as they are. */
static dlc_abi_string_t dlc_change_case(dlc_abi_string_t s, dlc_abi_string_t locale, bool upper) {
  pthread_once(&dlc_utf8_once, dlc_utf8_init);
  bool ascii = dlc_ascii_locale(locale);
  dlc_string_t x = dlc_unpack(s);
  if (x.size == 0)
    return 0;
  /* A mapped character takes at most 4 bytes, as does any input character (1 to 4). */
  char *out = dlc_string_alloc((size_t)x.size * 4);
  if (!out)
    return 0;
  const unsigned char *p = (const unsigned char *)x.data;
  size_t i = 0, n = (size_t)x.size, len = 0;
  while (i < n) {
    size_t at = i;
    int64_t c = dlc_utf8_decode(p, n, &i);
    if (c < 0) {
      out[len++] = (char)p[at];
      i = at + 1;
      continue;
    }
    wint_t m = (wint_t)c;
    if (dlc_utf8_locale && !ascii)
      m = upper ? towupper_l(m, dlc_utf8_locale) : towlower_l(m, dlc_utf8_locale);
    else if (c < 128) /* the C locale, or no C.UTF-8: ASCII only */
      m = (wint_t)(upper ? (c >= 'a' && c <= 'z' ? c - 32 : c) : (c >= 'A' && c <= 'Z' ? c + 32 : c));
    size_t w = dlc_utf8_encode((uint32_t)m, out + len);
    if (!w) { /* cannot happen for a mapped scalar value; keep the original bytes */
      memcpy(out + len, p + at, i - at);
      w = i - at;
    }
    len += w;
  }
  return dlc_abi_string_pack(out, (int64_t)len);
}

dlc_abi_string_t dlc_rt_string_lower(dlc_abi_string_t s, dlc_abi_string_t locale) {
  return dlc_change_case(s, locale, false);
}
dlc_abi_string_t dlc_rt_string_upper(dlc_abi_string_t s, dlc_abi_string_t locale) {
  return dlc_change_case(s, locale, true);
}

/* Python's str.isspace for one code point. */
static bool dlc_is_space(int64_t c) {
  return (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 ||
         c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 ||
         c == 0x202F || c == 0x205F || c == 0x3000;
}

/* The code point at s[i] (a byte that is not UTF-8 counts as itself) and its length. */
static int64_t dlc_char_at(const unsigned char *s, size_t n, size_t i, size_t *len) {
  size_t j = i;
  int64_t c = dlc_utf8_decode(s, n, &j);
  *len = c < 0 ? 1 : j - i;
  return c < 0 ? s[i] : c;
}

/* Python's s.split(delim or None, maxsplit): the number of parts, and part `want` (when
 * 0 <= want < that number) in *part, a view into s. */
static int64_t dlc_split(dlc_string_t s, dlc_string_t d, int64_t maxsplit, int64_t want,
                         dlc_string_t *part) {
  const unsigned char *p = (const unsigned char *)s.data;
  size_t n = (size_t)s.size, i = 0, len;
  int64_t count = 0;
#define DLC_PART(from, to)                                                                  \
  do {                                                                                      \
    if (count == want) {                                                                    \
      part->data = s.data + (from);                                                         \
      part->size = (int64_t)((to) - (from));                                                \
    }                                                                                       \
    ++count;                                                                                \
  } while (0)
  if (d.size <= 0) { /* runs of whitespace; none at either end */
    for (;;) {
      while (i < n && dlc_is_space(dlc_char_at(p, n, i, &len)))
        i += len;
      if (i == n)
        break;
      if (maxsplit >= 0 && count == maxsplit) {
        DLC_PART(i, n);
        break;
      }
      size_t start = i;
      while (i < n && !dlc_is_space(dlc_char_at(p, n, i, &len)))
        i += len;
      DLC_PART(start, i);
    }
    return count;
  }
  size_t m = (size_t)d.size, start = 0;
  for (;;) {
    size_t at = start;
    while (at + m <= n && memcmp(p + at, d.data, m) != 0)
      ++at;
    if ((maxsplit >= 0 && count == maxsplit) || at + m > n) {
      DLC_PART(start, n);
      break;
    }
    DLC_PART(start, at);
    start = at + m;
  }
#undef DLC_PART
  return count;
}

int64_t dlc_rt_string_split_count(dlc_abi_string_t s, dlc_abi_string_t delim, int64_t maxsplit) {
  dlc_string_t part;
  return dlc_split(dlc_unpack(s), dlc_unpack(delim), maxsplit, -1, &part);
}

dlc_abi_string_t dlc_rt_string_split_part(dlc_abi_string_t s, dlc_abi_string_t delim,
                                          int64_t maxsplit, int64_t k) {
  dlc_string_t part = {NULL, 0};
  dlc_split(dlc_unpack(s), dlc_unpack(delim), maxsplit, k, &part);
  return part.size > 0 ? dlc_abi_string_pack(part.data, part.size) : 0;
}

void dlc_rt_output_adopt(int64_t output, int64_t data, int64_t bytes) {
  dlc_string_arena_t *a = dlc_current_arena;
  if (!a || !a->outputs || output < 0 || (size_t)output >= a->num_outputs || bytes < 0) {
    if (a)
      a->failed_output = output;
    return;
  }
  dlc_tensor_t *t = a->outputs[output];
  if (!dlc_tensor_reserve(t, (size_t)bytes)) {
    a->failed_output = output;
    a->failed_bytes = bytes;
    return;
  }
  if (bytes)
    memcpy(dlc_tensor_data(t), (const void *)(uintptr_t)data, (size_t)bytes);
}

dlc_status_t dlc_string_outputs_copy(const dlc_module_t *m, dlc_tensor_t *const *outputs) {
  for (size_t o = 0; o < m->num_outputs; ++o) {
    if (m->decls[m->num_inputs + o].dtype != DLC_DTYPE_STRING)
      continue;
    dlc_tensor_t *t = outputs[o];
    dlc_string_t *e = dlc_tensor_data(t);
    for (int64_t i = 0; i < dlc_tensor_num_elements(t); ++i) {
      dlc_string_t s = e[i]; /* the run's: set_string copies it before freeing the old */
      dlc_status_t st = dlc_tensor_set_string(t, i, s.size > 0 ? s.data : NULL,
                                              s.size > 0 ? (size_t)s.size : 0);
      if (st != DLC_OK)
        return st;
    }
  }
  return DLC_OK;
}

void dlc_string_outputs_clear(const dlc_module_t *m, dlc_tensor_t *const *outputs) {
  for (size_t o = 0; o < m->num_outputs; ++o)
    if (m->decls[m->num_inputs + o].dtype == DLC_DTYPE_STRING)
      for (int64_t i = 0; i < dlc_tensor_num_elements(outputs[o]); ++i)
        dlc_tensor_set_string(outputs[o], i, NULL, 0);
}
