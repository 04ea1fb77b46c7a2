/* dlc_session.c - owns dlc_session_t: argument checking, calling the module entry, the parallel_for export. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_getaffinity, sysconf; set before any system header */
#endif
#include "dlc_internal.h"
#include "cuda/dlc_cuda.h"
#include "dlc_fault.h"
#include "dlc_thread_pool.h"

#include <sched.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define DLC_MAX_THREADS 4096
/* Distinguishes a live session from a stale or foreign runtime_ctx. */
#define DLC_SESSION_MAGIC 0x646c632d73657373ull /* "dlc-sess" */

struct dlc_session_t {
  uint64_t magic;
  const dlc_module_t *module;
  dlc_thread_pool_t *pool;
  /* The entry's buffers, reused by every run: inputs, outputs, then (for a
   * module with symbolic dims) `dims`. */
  void **buffers;
  int64_t *dims; /* this run's value of each symbolic dim; NULL if none */
  dlc_cuda_session_t *cuda; /* a GPU module's device state; NULL for a CPU module */
};

/* Reads one integer from a sysfs file; -1 if unreadable. */
static long dlc_read_long(const char *path) {
  FILE *f = fopen(path, "r");
  long v = -1;
  if (f) {
    if (fscanf(f, "%ld", &v) != 1)
      v = -1;
    fclose(f);
  }
  return v;
}

/* Physical cores among the CPUs this process may use (distinct
 * (package, core) pairs in sysfs topology); 0 when the topology is unknown. */
static int32_t dlc_physical_cores(const cpu_set_t *set) {
  enum { kMaxCores = 1024 };
  long seen[kMaxCores];
  int32_t count = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE && count < kMaxCores; ++cpu) {
    if (!CPU_ISSET(cpu, set))
      continue;
    char path[128];
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d/topology/core_id", cpu);
    long core = dlc_read_long(path);
    snprintf(path, sizeof path,
             "/sys/devices/system/cpu/cpu%d/topology/physical_package_id", cpu);
    long package = dlc_read_long(path);
    if (core < 0 || package < 0)
      return 0;
    long key = package * 1000000 + core;
    bool dup = false;
    for (int32_t i = 0; i < count && !dup; ++i)
      dup = seen[i] == key;
    if (!dup)
      seen[count++] = key;
  }
  return count;
}

/* The default thread count: one per physical core this process may use
 * (the affinity mask narrows it: taskset, cgroup cpusets), so we never
 * oversubscribe and SMT siblings do not fight over one core's FMA units;
 * the online CPU count where the topology is unknown. */
static int32_t dlc_default_threads(void) {
  long online = sysconf(_SC_NPROCESSORS_ONLN);
  int32_t n = online > 0 ? (online > DLC_MAX_THREADS ? DLC_MAX_THREADS
                                                     : (int32_t)online)
                         : 1;
#ifdef CPU_COUNT
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    int allowed = CPU_COUNT(&set);
    if (allowed > 0 && allowed < n)
      n = allowed;
    int32_t cores = dlc_physical_cores(&set);
    if (cores > 0 && cores < n)
      n = cores;
  }
#endif
  return n;
}

dlc_status_t dlc_session_create(const dlc_module_t *module,
                                int32_t num_threads, dlc_session_t **out) {
  if (!out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_session_create: out is null");
  *out = NULL;
  if (!module)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_session_create: module is null");
  if (num_threads > DLC_MAX_THREADS)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "num_threads %d exceeds the maximum of %d",
                    (int)num_threads, DLC_MAX_THREADS);
  if (num_threads <= 0)
    num_threads = dlc_default_threads();
  /* Faults in the model's code become statuses of dlc_session_run (dlc_fault.h). */
  dlc_fault_install();
  dlc_session_t *s = calloc(1, sizeof(dlc_session_t));
  size_t count = module->num_inputs + module->num_outputs;
  void **buffers = calloc(count + 1, sizeof(void *));
  int64_t *dims = module->num_dims ? calloc(module->num_dims, sizeof(int64_t)) : NULL;
  if (!s || !buffers || (module->num_dims && !dims)) {
    free(s);
    free(buffers);
    free(dims);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                    "out of memory creating a session");
  }
  dlc_status_t st = dlc_thread_pool_create(num_threads, &s->pool);
  if (st != DLC_OK) {
    free(s);
    free(buffers);
    free(dims);
    return st;
  }
  if (module->cuda_chip && (st = dlc_cuda_session_create(module, &s->cuda)) != DLC_OK) {
    dlc_thread_pool_free(s->pool);
    free(s);
    free(buffers);
    free(dims);
    return st;
  }
  s->magic = DLC_SESSION_MAGIC;
  s->module = module;
  s->buffers = buffers;
  s->dims = dims;
  buffers[count] = dims; /* the dims table (dlc_abi.h); unused by static modules */
  *out = s;
  return DLC_OK;
}

void dlc_session_free(dlc_session_t *session) {
  if (!session)
    return;
  session->magic = 0;
  dlc_thread_pool_free(session->pool);
  dlc_cuda_session_free(session->cuda);
  free(session->buffers);
  free(session->dims);
  free(session);
}

int32_t dlc_session_num_threads(const dlc_session_t *session) {
  return session ? dlc_thread_pool_size(session->pool) : 0;
}

const dlc_module_t *dlc_session_module(const dlc_session_t *session) {
  return session ? session->module : NULL;
}

/* The dtype check common to inputs and outputs. */
static dlc_status_t dlc_check_dtype(const char *kind, const dlc_io_decl_t *decl,
                                    const dlc_tensor_t *t) {
  if (!t)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "%s '%s': tensor is null",
                    kind, decl->name);
  if (dlc_tensor_dtype(t) != decl->dtype)
    return dlc_fail(DLC_ERROR_DTYPE_MISMATCH,
                    "%s '%s': expected dtype %s, got %s", kind, decl->name,
                    dlc_dtype_name(decl->dtype),
                    dlc_dtype_name(dlc_tensor_dtype(t)));
  return DLC_OK;
}

/* Checks input `i` against its declaration, and binds its symbolic dims:
 * dims[k] is -1 until an input dim sets dim k, then that dim's value. */
static dlc_status_t dlc_check_input(const dlc_module_t *m, size_t i,
                                    const dlc_tensor_t *const *inputs,
                                    int64_t *dims) {
  const dlc_io_decl_t *decl = &m->decls[i];
  const dlc_tensor_t *t = inputs[i];
  dlc_status_t st = dlc_check_dtype("input", decl, t);
  if (st != DLC_OK)
    return st;
  int32_t rank = dlc_tensor_rank(t);
  const int64_t *shape = dlc_tensor_shape(t);
  bool same = rank == decl->rank;
  for (int32_t d = 0; same && d < rank; ++d)
    same = decl->dim_symbols[d] >= 0 || shape[d] == decl->shape[d];
  if (!same) {
    char want[256], got[256];
    return dlc_fail(DLC_ERROR_SHAPE_MISMATCH,
                    "input '%s': expected shape %s, got %s", decl->name,
                    dlc_decl_shape_text(decl->rank, decl->shape, decl->dim_symbols,
                                        m->dims, NULL, want, sizeof(want)),
                    dlc_shape_text(rank, shape, got, sizeof(got)));
  }
  for (int32_t d = 0; decl->symbolic && d < rank; ++d) {
    int32_t k = decl->dim_symbols[d];
    if (k < 0)
      continue;
    const dlc_dim_decl_t *dim = &m->dims[k];
    if (dims[k] < 0) {
      if (shape[d] < dim->min || shape[d] > dim->max)
        return dlc_fail(DLC_ERROR_SHAPE_MISMATCH,
                        "input '%s': dim %d (%s) is %lld; the model accepts %s in "
                        "[%lld, %lld]",
                        decl->name, (int)d, dim->name, (long long)shape[d],
                        dim->name, (long long)dim->min, (long long)dim->max);
      dims[k] = shape[d];
    } else if (shape[d] != dims[k]) {
      /* Only on failure: find the input dim that set it. */
      size_t setter = i;
      for (size_t j = 0; j <= i && setter == i; ++j)
        for (int32_t e = 0; e < m->decls[j].rank && setter == i; ++e)
          if (m->decls[j].dim_symbols[e] == k)
            setter = j;
      return dlc_fail(DLC_ERROR_SHAPE_MISMATCH,
                      "input '%s': dim %d (%s) is %lld, but input '%s' set %s to "
                      "%lld",
                      decl->name, (int)d, dim->name, (long long)shape[d],
                      m->decls[setter].name, dim->name, (long long)dims[k]);
    }
  }
  if (decl->value && decl->byte_size &&
      memcmp(dlc_tensor_data(t), decl->value, decl->byte_size) != 0)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "input '%s': the model was compiled for one value of this "
                    "input (it sets shapes or axes); got a different value",
                    decl->name);
  return DLC_OK;
}

/* Checks `inputs` against the module (shared by dlc_session_run and
 * dlc_session_create_outputs_for; `fn` names the caller in messages) and
 * stores the value of each symbolic dim in dims[0 .. num_dims-1]. */
static dlc_status_t dlc_bind_inputs(const char *fn, const dlc_module_t *m,
                                    const dlc_tensor_t *const *inputs,
                                    size_t num_inputs, int64_t *dims) {
  if (num_inputs != m->num_inputs)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "module '%s': expected %zu inputs, got %zu", m->path,
                    m->num_inputs, num_inputs);
  if (num_inputs && !inputs)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "%s: inputs array is null", fn);
  for (size_t k = 0; k < m->num_dims; ++k)
    dims[k] = -1;
  for (size_t i = 0; i < num_inputs; ++i) {
    dlc_status_t st = dlc_check_input(m, i, inputs, dims);
    if (st != DLC_OK)
      return st;
  }
  return DLC_OK;
}

/* Checks output `o` against its declaration, its symbolic dims at `dims`. */
static dlc_status_t dlc_check_output(const dlc_module_t *m, size_t o,
                                     const dlc_tensor_t *t, const int64_t *dims) {
  const dlc_io_decl_t *decl = &m->decls[m->num_inputs + o];
  dlc_status_t st = dlc_check_dtype("output", decl, t);
  if (st != DLC_OK)
    return st;
  int32_t rank = dlc_tensor_rank(t);
  const int64_t *shape = dlc_tensor_shape(t);
  bool same = rank == decl->rank;
  /* A computed dim is written by the run: the buffer must hold its greatest size. */
  int64_t count = 1;
  bool computed = false, unbounded = false;
  for (int32_t d = 0; same && d < rank; ++d) {
    int32_t k = decl->dim_symbols[d];
    if (k >= 0 && m->dims[k].computed) {
      /* Without a bound the run grows the buffer (dlc_rt_output_adopt). */
      if (m->dims[k].max == DLC_ABI_MAX_DIM)
        unbounded = true;
      computed = true;
      count = count < 0 || __builtin_mul_overflow(count, m->dims[k].max, &count) ? -1 : count;
      continue;
    }
    same = shape[d] == (k >= 0 ? dims[k] : decl->shape[d]);
    count = count < 0 || __builtin_mul_overflow(count, shape[d], &count) ? -1 : count;
  }
  size_t need;
  if (same && computed && !unbounded &&
      (count < 0 ||
       __builtin_mul_overflow((size_t)count, dlc_dtype_size(decl->dtype), &need) ||
       need > dlc_tensor_capacity(t))) {
    char want[256];
    return dlc_fail(DLC_ERROR_SHAPE_MISMATCH,
                    "output '%s': shape %s depends on values the model computes; its "
                    "buffer must hold the greatest size (create it with "
                    "dlc_session_create_outputs_for)",
                    decl->name,
                    dlc_decl_shape_text(decl->rank, decl->shape, decl->dim_symbols,
                                        m->dims, NULL, want, sizeof(want)));
  }
  if (!same) {
    char want[256], got[256];
    return dlc_fail(DLC_ERROR_SHAPE_MISMATCH,
                    "output '%s': expected shape %s, got %s", decl->name,
                    dlc_decl_shape_text(decl->rank, decl->shape, decl->dim_symbols,
                                        m->dims, dims, want, sizeof(want)),
                    dlc_shape_text(rank, shape, got, sizeof(got)));
  }
  return DLC_OK;
}

/* After a run: each output with computed dims takes this run's sizes (the entry
 * wrote the computed dims' values into the dims table). */
static dlc_status_t dlc_shape_computed_outputs(const dlc_module_t *m, const int64_t *dims,
                                               dlc_tensor_t *const *outputs) {
  for (size_t k = 0; k < m->num_dims; ++k)
    if (m->dims[k].computed && (dims[k] < m->dims[k].min || dims[k] > m->dims[k].max))
      return dlc_fail(DLC_ERROR_INTERNAL,
                      "module '%s': the run computed dim '%s' = %lld, outside [%lld, %lld] "
                      "(please report it)",
                      m->path, m->dims[k].name, (long long)dims[k],
                      (long long)m->dims[k].min, (long long)m->dims[k].max);
  for (size_t o = 0; o < m->num_outputs; ++o) {
    const dlc_io_decl_t *d = &m->decls[m->num_inputs + o];
    if (!d->symbolic)
      continue;
    int64_t shape[64];
    if (d->rank > 64)
      return dlc_fail(DLC_ERROR_INTERNAL, "module '%s': output '%s' has rank %d > 64",
                      m->path, d->name, (int)d->rank);
    for (int32_t i = 0; i < d->rank; ++i)
      shape[i] = d->dim_symbols[i] >= 0 ? dims[d->dim_symbols[i]] : d->shape[i];
    if (!dlc_tensor_set_shape(outputs[o], shape))
      return dlc_fail(DLC_ERROR_INTERNAL,
                      "module '%s': output '%s' does not hold this run's size", m->path,
                      d->name);
  }
  return DLC_OK;
}

static bool dlc_overlaps(const dlc_tensor_t *a, const dlc_tensor_t *b) {
  uintptr_t pa = (uintptr_t)dlc_tensor_data(a);
  uintptr_t pb = (uintptr_t)dlc_tensor_data(b);
  size_t na = dlc_tensor_byte_size(a), nb = dlc_tensor_byte_size(b);
  return na && nb && pa < pb + nb && pb < pa + na;
}

dlc_status_t dlc_session_run(dlc_session_t *session,
                             const dlc_tensor_t *const *inputs,
                             size_t num_inputs, dlc_tensor_t *const *outputs,
                             size_t num_outputs) {
  if (!session)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_session_run: session is null");
  const dlc_module_t *m = session->module;
  /* The inputs first: they set the symbolic dims (session->dims, the
   * entry's dims table) that the outputs are checked against. */
  dlc_status_t st = dlc_bind_inputs("dlc_session_run", m, inputs, num_inputs,
                                    session->dims);
  if (st != DLC_OK)
    return st;
  /* Sizes the compiler took to be equal (dims that meet), before anything runs. */
  if (m->num_size_checks && (st = dlc_check_sizes(m, session->dims)) != DLC_OK)
    return st;
  if (num_outputs != m->num_outputs)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "module '%s': expected %zu outputs, got %zu", m->path,
                    m->num_outputs, num_outputs);
  if (!outputs)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_session_run: outputs array is null");
  const dlc_io_decl_t *in_decls = m->decls;
  const dlc_io_decl_t *out_decls = m->decls + m->num_inputs;
  for (size_t o = 0; o < num_outputs; ++o)
    if ((st = dlc_check_output(m, o, outputs[o], session->dims)) != DLC_OK)
      return st;
  /* The ABI forbids outputs aliasing anything: compiled code may write an
   * output before it has finished reading an input. */
  for (size_t o = 0; o < num_outputs; ++o) {
    for (size_t i = 0; i < num_inputs; ++i)
      if (dlc_overlaps(outputs[o], inputs[i]))
        return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                        "output '%s' overlaps input '%s'", out_decls[o].name,
                        in_decls[i].name);
    for (size_t p = 0; p < o; ++p)
      if (dlc_overlaps(outputs[o], outputs[p]))
        return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                        "output '%s' overlaps output '%s'", out_decls[o].name,
                        out_decls[p].name);
  }
  for (size_t i = 0; i < num_inputs; ++i)
    session->buffers[i] = dlc_tensor_data(inputs[i]);
  for (size_t o = 0; o < num_outputs; ++o)
    session->buffers[num_inputs + o] = dlc_tensor_data(outputs[o]);
  /* A fault in the model's code (on this thread or a pool worker) ends the run, not the
   * process. Intermediates it had allocated are not returned to the allocator. */
  dlc_fault_guard_t guard;
  int32_t rc;
  /* Strings the model makes live in this run's arena until they are copied out. */
  dlc_string_arena_t strings;
  dlc_string_arena_begin(&strings, outputs, num_outputs);
  dlc_status_t cuda_st = DLC_OK;
  if (sigsetjmp(guard.env, 0) == 0) {
    dlc_fault_push(&guard);
    if (session->cuda) {
      cuda_st = dlc_cuda_session_run(session->cuda, m, inputs, outputs, session, &rc);
    } else {
      rc = m->entry(session->buffers, session);
    }
    dlc_fault_pop(&guard);
  } else {
    dlc_string_outputs_clear(m, outputs);
    dlc_string_arena_end(&strings);
    return dlc_fail(DLC_ERROR_INTERNAL,
                    "module '%s': the model's code raised %s at address %p; the run's "
                    "outputs are undefined (please report it)",
                    m->path, dlc_fault_name(guard.signo), guard.addr);
  }
  /* A failed run-time check (an index out of range, ...): its message names the node. */
  if (cuda_st != DLC_OK)
    st = cuda_st;
  else if (rc > 0 && (size_t)rc <= m->num_errors)
    st = dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "%s", m->errors[rc - 1]);
  else if (rc != 0)
    st = dlc_fail(DLC_ERROR_INTERNAL, "module '%s': entry returned %d", m->path, (int)rc);
  else if (strings.failed)
    st = dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "module '%s': out of memory for the run's strings",
                  m->path);
  else if (strings.error[0])
    st = dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "%s", strings.error);
  else if (strings.failed_output >= 0)
    st = dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                  "output '%s': cannot hold this run's %lld bytes (a tensor wrapping caller "
                  "memory does not grow; create it with dlc_session_create_outputs_for)",
                  (size_t)strings.failed_output < m->num_outputs
                      ? out_decls[strings.failed_output].name
                      : "?",
                  (long long)strings.failed_bytes);
  else if (m->computed_dims)
    st = dlc_shape_computed_outputs(m, session->dims, outputs);
  if (st == DLC_OK)
    st = dlc_string_outputs_copy(m, outputs);
  if (st != DLC_OK)
    dlc_string_outputs_clear(m, outputs);
  dlc_string_arena_end(&strings);
  return st;
}

/* Creates the outputs, their symbolic dims at `dims` (NULL: none). */
static dlc_status_t dlc_create_outputs(const dlc_module_t *m, const int64_t *dims,
                                      dlc_tensor_t **outputs) {
  const dlc_io_decl_t *out_decls = m->decls + m->num_inputs;
  int32_t max_rank = 0;
  for (size_t o = 0; o < m->num_outputs; ++o)
    if (out_decls[o].symbolic && out_decls[o].rank > max_rank)
      max_rank = out_decls[o].rank;
  int64_t *shape = NULL;
  if (max_rank > 0 && !(shape = malloc((size_t)max_rank * sizeof(int64_t))))
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "module '%s': out of memory creating "
                    "outputs", m->path);
  dlc_status_t st = DLC_OK;
  for (size_t o = 0; o < m->num_outputs && st == DLC_OK; ++o) {
    const dlc_io_decl_t *d = &out_decls[o];
    /* Computed dims at their greatest size: the run shrinks them. */
    for (int32_t i = 0; d->symbolic && i < d->rank; ++i) {
      int32_t k = d->dim_symbols[i];
      shape[i] = k < 0                  ? d->shape[i]
                 : !m->dims[k].computed ? dims[k]
                 : m->dims[k].max == DLC_ABI_MAX_DIM ? 0 /* the run grows it */
                                                     : m->dims[k].max;
    }
    st = dlc_tensor_create(d->dtype, d->rank, d->symbolic ? shape : d->shape,
                           &outputs[o]);
  }
  free(shape);
  if (st != DLC_OK)
    for (size_t o = 0; o < m->num_outputs; ++o) {
      dlc_tensor_free(outputs[o]);
      outputs[o] = NULL;
    }
  return st;
}

dlc_status_t dlc_session_create_outputs(const dlc_session_t *session,
                                        dlc_tensor_t **outputs) {
  if (!session || !outputs)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_session_create_outputs: %s is null",
                    session ? "outputs" : "session");
  const dlc_module_t *m = session->module;
  for (size_t o = 0; o < m->num_outputs; ++o)
    outputs[o] = NULL;
  for (size_t o = 0; m->symbolic_outputs && o < m->num_outputs; ++o) {
    const dlc_io_decl_t *d = &m->decls[m->num_inputs + o];
    bool from_inputs = false;
    for (int32_t i = 0; i < d->rank; ++i)
      from_inputs |= d->dim_symbols[i] >= 0 && !m->dims[d->dim_symbols[i]].computed;
    if (!from_inputs)
      continue;
    char text[256];
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "module '%s': output '%s' has shape %s, which depends on the "
                    "inputs: use dlc_session_create_outputs_for",
                    m->path, d->name,
                    dlc_decl_shape_text(d->rank, d->shape, d->dim_symbols, m->dims,
                                        NULL, text, sizeof(text)));
  }
  return dlc_create_outputs(m, NULL, outputs);
}

dlc_status_t dlc_session_create_outputs_for(const dlc_session_t *session,
                                            const dlc_tensor_t *const *inputs,
                                            size_t num_inputs,
                                            dlc_tensor_t **outputs) {
  if (!session || !outputs)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_session_create_outputs_for: %s is null",
                    session ? "outputs" : "session");
  const dlc_module_t *m = session->module;
  for (size_t o = 0; o < m->num_outputs; ++o)
    outputs[o] = NULL;
  /* Its own dims table: the session's belongs to dlc_session_run. */
  int64_t *dims = NULL;
  if (m->num_dims && !(dims = malloc(m->num_dims * sizeof(int64_t))))
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "module '%s': out of memory creating "
                    "outputs", m->path);
  dlc_status_t st = dlc_bind_inputs("dlc_session_create_outputs_for", m, inputs,
                                    num_inputs, dims);
  if (st == DLC_OK)
    st = dlc_create_outputs(m, dims, outputs);
  free(dims);
  return st;
}

void dlc_runtime_parallel_for(void *runtime_ctx, int64_t n,
                              dlc_abi_parallel_body_fn fn, void *closure) {
  dlc_session_t *s = runtime_ctx;
  /* A NULL (or stale) context runs inline: the pool argument is NULL. */
  dlc_thread_pool_run(s && s->magic == DLC_SESSION_MAGIC ? s->pool : NULL, n,
                      fn, closure);
}
