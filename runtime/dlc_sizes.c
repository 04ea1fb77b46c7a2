/* Sizes of the symbolic dims in their descriptor text ("2*seq", "(past+seq)",
 * "((h-3)//2)", "max((s-2),0)"; dialects/Graph/IR/SymbolicShapes.h), evaluated from a
 * run's dim values: the `equal` records' checks, made before the entry runs. */
#include "dlc_internal.h"

#include <string.h>

typedef struct {
  const char *p, *end;
  const dlc_module_t *m;
  const int64_t *dims;
} dlc_size_parser_t;

static bool dlc_size_expr(dlc_size_parser_t *ps, int depth, int64_t *out);

static bool dlc_size_at(dlc_size_parser_t *ps, const char *text) {
  size_t n = strlen(text);
  if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, text, n) != 0)
    return false;
  ps->p += n;
  return true;
}

static bool dlc_size_int(dlc_size_parser_t *ps, int64_t *out) {
  if (ps->p == ps->end || *ps->p < '0' || *ps->p > '9')
    return false;
  int64_t v = 0;
  while (ps->p < ps->end && *ps->p >= '0' && *ps->p <= '9') {
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *ps->p - '0', &v))
      return false;
    ps->p++;
  }
  *out = v;
  return true;
}

/* A symbol: the longest name up to an operator; its value for this run. */
static bool dlc_size_symbol(dlc_size_parser_t *ps, int64_t *out) {
  const char *start = ps->p;
  while (ps->p < ps->end && !strchr("*+-/(),", *ps->p))
    ps->p++;
  size_t len = (size_t)(ps->p - start);
  for (size_t k = 0; len && k < ps->m->num_dims; ++k)
    if (!ps->m->dims[k].computed && strlen(ps->m->dims[k].name) == len &&
        memcmp(ps->m->dims[k].name, start, len) == 0) {
      *out = ps->dims[k];
      return true;
    }
  return false;
}

/* factor := INT | NAME | '(' inner ')' | max(expr,expr) | min(expr,expr)
 * inner  := expr '//' expr | expr (('+' | '-') expr)*  (a divisor of the symbols > 0) */
static bool dlc_size_factor(dlc_size_parser_t *ps, int depth, int64_t *out) {
  if (depth > 64)
    return false;
  bool is_max = dlc_size_at(ps, "max("), is_min = !is_max && dlc_size_at(ps, "min(");
  if (is_max || is_min) {
    int64_t a, b;
    if (!dlc_size_expr(ps, depth + 1, &a) || !dlc_size_at(ps, ",") ||
        !dlc_size_expr(ps, depth + 1, &b) || !dlc_size_at(ps, ")"))
      return false;
    *out = is_max ? (a > b ? a : b) : (a < b ? a : b);
    return true;
  }
  if (dlc_size_at(ps, "(")) {
    int64_t v;
    if (!dlc_size_expr(ps, depth + 1, &v))
      return false;
    if (dlc_size_at(ps, "//")) {
      int64_t d;
      if (!dlc_size_expr(ps, depth + 1, &d) || d <= 0 || !dlc_size_at(ps, ")"))
        return false;
      *out = v / d - (v % d != 0 && v < 0); /* floor */
      return true;
    }
    while (ps->p < ps->end && (*ps->p == '+' || *ps->p == '-')) {
      bool minus = *ps->p++ == '-';
      int64_t t;
      if (!dlc_size_expr(ps, depth + 1, &t) ||
          (minus ? __builtin_sub_overflow(v, t, &v) : __builtin_add_overflow(v, t, &v)))
        return false;
    }
    if (!dlc_size_at(ps, ")"))
      return false;
    *out = v;
    return true;
  }
  return dlc_size_int(ps, out) || dlc_size_symbol(ps, out);
}

/* expr := ['-'] factor ('*' factor)* */
static bool dlc_size_expr(dlc_size_parser_t *ps, int depth, int64_t *out) {
  bool minus = dlc_size_at(ps, "-");
  int64_t v;
  if (!dlc_size_factor(ps, depth, &v))
    return false;
  while (dlc_size_at(ps, "*")) {
    int64_t f;
    if (!dlc_size_factor(ps, depth, &f) || __builtin_mul_overflow(v, f, &v))
      return false;
  }
  *out = minus ? -v : v;
  return true;
}

bool dlc_size_eval(const char *text, const dlc_module_t *m, const int64_t *dims,
                   int64_t *out) {
  dlc_size_parser_t ps = {text, text + strlen(text), m, dims};
  return dlc_size_expr(&ps, 0, out) && ps.p == ps.end;
}

dlc_status_t dlc_check_sizes(const dlc_module_t *m, const int64_t *dims) {
  for (size_t i = 0; i < m->num_size_checks; ++i) {
    const dlc_size_check_t *c = &m->size_checks[i];
    int64_t a, b;
    if (!dlc_size_eval(c->a, m, dims, &a) || !dlc_size_eval(c->b, m, dims, &b))
      return dlc_fail(DLC_ERROR_BAD_MODULE, "module '%s': cannot evaluate the sizes %s and %s",
                      m->path, c->a, c->b);
    if (a != b)
      return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "%s (here %lld and %lld)",
                      m->errors[c->code - 1], (long long)a, (long long)b);
  }
  return DLC_OK;
}
