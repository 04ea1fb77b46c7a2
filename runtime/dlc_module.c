/* dlc_module.c - owns dlc_module_t: loading compiled models (dlopen); their descriptor is
 * parsed by dlc_descriptor.c. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* strdup; set before any system header */
#endif
#include "dlc_internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <link.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- module objects ---------------------------------------------------- */

void dlc_module_free(dlc_module_t *module) {
  if (!module)
    return;
  if (module->decls) {
    /* Also frees a record that failed half-way through parsing. */
    size_t n = module->num_inputs + module->num_outputs + module->num_states + 1;
    for (size_t i = 0; i < n; ++i) {
      free(module->decls[i].name);
      free(module->decls[i].shape);
      free(module->decls[i].dim_symbols);
      free(module->decls[i].value);
    }
    free(module->decls);
  }
  for (size_t k = 0; k < module->num_dims; ++k)
    free(module->dims[k].name);
  free(module->dims);
  for (size_t i = 0; i < module->num_errors; ++i)
    free(module->errors[i]);
  free(module->errors);
  for (size_t i = 0; i < module->num_size_checks; ++i) {
    free(module->size_checks[i].a);
    free(module->size_checks[i].b);
  }
  free(module->size_checks);
  free(module->cuda_chip);
  if (module->dl_handle)
    dlclose(module->dl_handle);
  if (module->release_owner)
    module->release_owner(module->owner);
  free(module->path);
  free(module);
}

/* Creates the object and parses the descriptor; on failure frees it. */
static dlc_status_t dlc_module_init(const char *path, const char *where,
                                    const char *descriptor,
                                    dlc_abi_entry_fn entry,
                                    dlc_module_t **out) {
  dlc_module_t *m = calloc(1, sizeof(dlc_module_t));
  char *path_copy = strdup(path);
  if (!m || !path_copy) {
    free(m);
    free(path_copy);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "%s: out of memory", where);
  }
  m->path = path_copy;
  m->entry = entry;
  dlc_status_t st = dlc_desc_parse(where, descriptor, m);
  if (st != DLC_OK) {
    dlc_module_free(m);
    return st;
  }
  *out = m;
  return DLC_OK;
}

dlc_status_t dlc_module_create_from_symbols(const char *descriptor,
                                            dlc_abi_entry_fn entry,
                                            void *owner,
                                            void (*release_owner)(void *),
                                            dlc_module_t **out) {
  if (!out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_module_create_from_symbols: out is null");
  *out = NULL;
  if (!descriptor || !entry)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_module_create_from_symbols: %s is null",
                    descriptor ? "entry" : "descriptor");
  dlc_module_t *m;
  dlc_status_t st = dlc_module_init("<in-process>", "in-process module",
                                    descriptor, entry, &m);
  if (st != DLC_OK)
    return st;
  /* A GPU module's kernels are symbols of its library (dlc_module_load). */
  if (m->cuda_chip) {
    dlc_module_free(m);
    return dlc_fail(DLC_ERROR_UNSUPPORTED, "in-process module: targets cuda; GPU modules are "
                    "loaded from their library (dlc_module_load)");
  }
  /* Only now: on failure the caller keeps ownership of `owner`. */
  m->owner = owner;
  m->release_owner = release_owner;
  *out = m;
  return DLC_OK;
}

/* Reads the seal at the end of the module file (dlc_abi.h) and checks the
 * hash of everything before it. On success leaves the file open in *fd. */
static dlc_status_t dlc_module_check_seal(const char *path, int *fd,
                                          uint64_t *body_size) {
  char err[128];
  int f = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  struct stat info;
  if (f < 0 || fstat(f, &info) != 0) {
    int e = errno;
    if (f >= 0)
      close(f);
    return dlc_fail(DLC_ERROR_IO, "cannot load module '%s': %s", path,
                    dlc_errno_text(e, err, sizeof(err)));
  }
  dlc_abi_seal_t seal;
  uint64_t size = (uint64_t)info.st_size;
  if (!S_ISREG(info.st_mode) || size < sizeof(seal) ||
      pread(f, &seal, sizeof(seal), (off_t)(size - sizeof(seal))) !=
          (ssize_t)sizeof(seal) ||
      memcmp(seal.magic, DLC_ABI_SEAL_MAGIC, sizeof(seal.magic)) != 0) {
    close(f);
    return dlc_fail(DLC_ERROR_BAD_MODULE,
                    "module '%s': not a dlc module (no dlc seal at its end: another "
                    "library, a truncated file, or one written by an older dlc)",
                    path);
  }
  if (seal.seal_size != sizeof(seal) || seal.abi_version != DLC_ABI_VERSION) {
    close(f);
    return dlc_fail(DLC_ERROR_UNSUPPORTED,
                    "module '%s': compiled for ABI version %u (seal of %u bytes); "
                    "this runtime implements version %d: recompile it",
                    path, (unsigned)seal.abi_version, (unsigned)seal.seal_size,
                    DLC_ABI_VERSION);
  }
  if (seal.body_size != size - sizeof(seal)) {
    close(f);
    return dlc_fail(DLC_ERROR_BAD_MODULE,
                    "module '%s': truncated or extended (its seal says %llu bytes "
                    "before it, the file has %llu)",
                    path, (unsigned long long)seal.body_size,
                    (unsigned long long)(size - sizeof(seal)));
  }
  void *body = mmap(NULL, (size_t)size, PROT_READ, MAP_PRIVATE, f, 0);
  if (body == MAP_FAILED) {
    int e = errno;
    close(f);
    return dlc_fail(e == ENOMEM ? DLC_ERROR_OUT_OF_MEMORY : DLC_ERROR_IO,
                    "cannot load module '%s': %s", path,
                    dlc_errno_text(e, err, sizeof(err)));
  }
  uint64_t hash = dlc_abi_hash64(body, seal.body_size);
  munmap(body, (size_t)size);
  if (hash != seal.body_hash) {
    close(f);
    return dlc_fail(DLC_ERROR_BAD_MODULE,
                    "module '%s': checksum mismatch (the file was damaged or edited "
                    "after dlc compile wrote it)",
                    path);
  }
  *fd = f;
  *body_size = seal.body_size;
  return DLC_OK;
}

/* Whether [p, p + n) lies inside one loaded segment (a writable one when `writable`) of the
 * object `handle`. */
typedef struct {
  uintptr_t base, lo, hi;
  bool writable, inside;
} dlc_span_query_t;

static int dlc_span_in_segment(struct dl_phdr_info *info, size_t size, void *arg) {
  (void)size;
  dlc_span_query_t *q = arg;
  if (info->dlpi_addr != q->base)
    return 0;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
    if (ph->p_type != PT_LOAD || (q->writable && !(ph->p_flags & PF_W)))
      continue;
    uintptr_t start = q->base + ph->p_vaddr, end = start + ph->p_memsz;
    if (q->lo >= start && q->lo <= end && q->hi - q->lo <= end - q->lo)
      q->inside = true;
  }
  return 1;
}

static bool dlc_span_in_module(void *handle, const void *p, size_t n, bool writable) {
  struct link_map *lm = NULL;
  if (!p || dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
    return false;
  uintptr_t lo = (uintptr_t)p, hi;
  if (__builtin_add_overflow(lo, n, &hi))
    return false;
  dlc_span_query_t q = {(uintptr_t)lm->l_addr, lo, hi, writable, false};
  dl_iterate_phdr(dlc_span_in_segment, &q);
  return q.inside;
}

dlc_status_t dlc_module_load(const char *path, dlc_module_t **out) {
  if (!out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "dlc_module_load: out is null");
  *out = NULL;
  if (!path)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "dlc_module_load: path is null");
  char err[128];
  struct stat info;
  if (stat(path, &info) != 0) {
    int e = errno;
    return dlc_fail(e == ENOENT || e == ENOTDIR ? DLC_ERROR_NOT_FOUND
                                                : DLC_ERROR_IO,
                    "cannot load module '%s': %s", path,
                    dlc_errno_text(e, err, sizeof(err)));
  }
  /* dlopen would block on a FIFO and read a device forever. */
  if (!S_ISREG(info.st_mode))
    return dlc_fail(DLC_ERROR_IO, "cannot load module '%s': not a regular file",
                    path);
  /* Check the seal before dlopen runs anything in the file. */
  uint64_t body_size;
  int fd = -1;
  dlc_status_t sealed = dlc_module_check_seal(path, &fd, &body_size);
  if (sealed != DLC_OK)
    return sealed;
  /* Open the file just checked, not whatever the path names by now; and
   * dlopen searches the library path for names without '/'. */
  size_t len = strlen(path);
  char *dl_path = malloc(len + 32);
  if (!dl_path) {
    close(fd);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "cannot load module '%s': out of "
                    "memory", path);
  }
  snprintf(dl_path, len + 32, "/proc/self/fd/%d", fd);
  if (access(dl_path, R_OK) != 0)
    snprintf(dl_path, len + 32, "%s%s", strchr(path, '/') ? "" : "./", path);
  dlerror();
  void *handle = dlopen(dl_path, RTLD_NOW | RTLD_LOCAL);
  free(dl_path);
  close(fd);
  if (!handle) {
    const char *why = dlerror();
    return dlc_fail(DLC_ERROR_BAD_MODULE, "cannot load module '%s': %s", path,
                    why ? why : "dlopen failed");
  }
  void *descriptor = dlsym(handle, DLC_ABI_DESCRIPTOR_SYMBOL);
  void *entry_address = dlsym(handle, DLC_ABI_ENTRY_SYMBOL);
  if (!descriptor || !entry_address) {
    dlclose(handle);
    return dlc_fail(DLC_ERROR_BAD_MODULE,
                    "module '%s': missing symbol '%s' (not a dlc model?)", path,
                    descriptor ? DLC_ABI_ENTRY_SYMBOL
                               : DLC_ABI_DESCRIPTOR_SYMBOL);
  }
  /* ISO C has no object-to-function pointer cast; POSIX guarantees it works
   * bit-for-bit, so copy the representation. */
  dlc_abi_entry_fn entry;
  memcpy(&entry, &entry_address, sizeof(entry));
  char where[4200];
  snprintf(where, sizeof(where), "module '%s'", path);
  dlc_module_t *m;
  dlc_status_t st =
      dlc_module_init(path, where, (const char *)descriptor, entry, &m);
  if (st != DLC_OK) {
    dlclose(handle);
    return st;
  }
  m->dl_handle = handle;
  /* A training step's parameter buffers and forward model (dlc_abi.h). */
  m->state_data = dlsym(handle, DLC_ABI_STATE_DATA_SYMBOL);
  if (m->num_states > 0 && !m->state_data) {
    dlc_module_free(m);
    return dlc_fail(DLC_ERROR_BAD_MODULE, "module '%s': declares state but has no '%s'",
                    path, DLC_ABI_STATE_DATA_SYMBOL);
  }
  /* The descriptor's state shapes are what dlc train reads and writes back. */
  if (m->num_states > 0 &&
      !dlc_span_in_module(handle, m->state_data, m->num_states * sizeof(void *), false)) {
    size_t n = m->num_states;
    dlc_module_free(m);
    return dlc_fail(DLC_ERROR_BAD_MODULE, "module '%s': declares %zu states, more than its "
                    "table of state buffers holds", path, n);
  }
  for (size_t i = 0; i < m->num_states; ++i) {
    const dlc_io_decl_t *d = &m->decls[m->num_inputs + m->num_outputs + i];
    if (!dlc_span_in_module(handle, m->state_data[i], d->byte_size, true)) {
      char msg[600];
      snprintf(msg, sizeof(msg),
               "module '%s': state '%s' claims %zu bytes, more than its buffer in the module "
               "holds", path, d->name, d->byte_size);
      dlc_module_free(m);
      return dlc_fail(DLC_ERROR_BAD_MODULE, "%s", msg);
    }
  }
  /* A GPU module: its kernels (a session needs a device to run them on). */
  if (m->cuda_chip) {
    m->cuda_ptx = dlsym(handle, DLC_ABI_CUDA_PTX_SYMBOL);
    m->cuda_kernels = dlsym(handle, DLC_ABI_CUDA_KERNELS_SYMBOL);
    const int64_t *cubin_size = dlsym(handle, DLC_ABI_CUDA_CUBIN_SIZE_SYMBOL);
    m->cuda_cubin = dlsym(handle, DLC_ABI_CUDA_CUBIN_SYMBOL);
    m->cuda_cubin_size = m->cuda_cubin && cubin_size && *cubin_size > 0 ? (size_t)*cubin_size : 0;
    if (!m->cuda_cubin_size || m->cuda_cubin_size > body_size)
      m->cuda_cubin = NULL;
    if (!m->cuda_ptx || !m->cuda_kernels) {
      dlc_module_free(m);
      return dlc_fail(DLC_ERROR_BAD_MODULE, "module '%s': targets cuda but has no '%s' or '%s'",
                      path, DLC_ABI_CUDA_PTX_SYMBOL, DLC_ABI_CUDA_KERNELS_SYMBOL);
    }
  }
  const int64_t *onnx_size = dlsym(handle, DLC_ABI_ONNX_SIZE_SYMBOL);
  m->onnx = dlsym(handle, DLC_ABI_ONNX_SYMBOL);
  m->onnx_size = m->onnx && onnx_size && *onnx_size > 0 ? (size_t)*onnx_size : 0;
  if (!m->onnx_size)
    m->onnx = NULL;
  if (m->onnx_size > body_size) {
    unsigned long long claimed = m->onnx_size;
    dlc_module_free(m); /* unmaps *onnx_size */
    return dlc_fail(DLC_ERROR_BAD_MODULE,
                    "module '%s': its embedded ONNX model claims %llu bytes, more "
                    "than the whole file",
                    path, claimed);
  }
  *out = m;
  return DLC_OK;
}

/* ---- queries ----------------------------------------------------------- */

const char *dlc_module_cuda_chip(const dlc_module_t *module, const char **kernels,
                                 int *has_cubin) {
  if (kernels)
    *kernels = module ? module->cuda_kernels : NULL;
  if (has_cubin)
    *has_cubin = module && module->cuda_cubin ? 1 : 0;
  return module ? module->cuda_chip : NULL;
}

size_t dlc_module_num_inputs(const dlc_module_t *module) {
  return module ? module->num_inputs : 0;
}

size_t dlc_module_num_outputs(const dlc_module_t *module) {
  return module ? module->num_outputs : 0;
}

static dlc_status_t dlc_module_info(const dlc_module_t *module, size_t index,
                                    bool output, dlc_tensor_info_t *out) {
  const char *kind = output ? "output" : "input";
  if (!module || !out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "dlc_module_%s_info: %s is null",
                    kind, module ? "out" : "module");
  size_t count = output ? module->num_outputs : module->num_inputs;
  if (index >= count)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "%s index %zu out of range (module has %zu %ss)", kind,
                    index, count, kind);
  const dlc_io_decl_t *d =
      &module->decls[(output ? module->num_inputs : 0) + index];
  out->name = d->name;
  out->dtype = d->dtype;
  out->rank = d->rank;
  out->shape = d->shape;
  out->dim_symbols = d->dim_symbols;
  return DLC_OK;
}

dlc_status_t dlc_module_input_info(const dlc_module_t *module, size_t index,
                                   dlc_tensor_info_t *out) {
  return dlc_module_info(module, index, false, out);
}

dlc_status_t dlc_module_output_info(const dlc_module_t *module, size_t index,
                                    dlc_tensor_info_t *out) {
  return dlc_module_info(module, index, true, out);
}

static dlc_status_t dlc_module_find(const dlc_module_t *module,
                                    const char *name, bool output,
                                    size_t *index) {
  const char *kind = output ? "output" : "input";
  if (!module || !name || !index)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_module_find_%s: %s is null", kind,
                    !module ? "module" : (!name ? "name" : "index"));
  size_t first = output ? module->num_inputs : 0;
  size_t count = output ? module->num_outputs : module->num_inputs;
  for (size_t i = 0; i < count; ++i) {
    if (strcmp(module->decls[first + i].name, name) == 0) {
      *index = i;
      return DLC_OK;
    }
  }
  return dlc_fail(DLC_ERROR_NOT_FOUND, "module '%s': no %s named '%s'",
                  module->path, kind, name);
}

dlc_status_t dlc_module_find_input(const dlc_module_t *module,
                                   const char *name, size_t *index) {
  return dlc_module_find(module, name, false, index);
}

dlc_status_t dlc_module_find_output(const dlc_module_t *module,
                                    const char *name, size_t *index) {
  return dlc_module_find(module, name, true, index);
}

size_t dlc_module_num_dims(const dlc_module_t *module) {
  return module ? module->num_dims : 0;
}

dlc_status_t dlc_module_dim_info(const dlc_module_t *module, size_t index,
                                 dlc_dim_info_t *out) {
  if (!module || !out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "dlc_module_dim_info: %s is null",
                    module ? "out" : "module");
  if (index >= module->num_dims)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dim index %zu out of range (module has %zu dims)", index,
                    module->num_dims);
  const dlc_dim_decl_t *d = &module->dims[index];
  out->name = d->name;
  out->min = d->min;
  out->max = d->max;
  return DLC_OK;
}

int dlc_module_dim_is_computed(const dlc_module_t *module, size_t index) {
  return module && index < module->num_dims && module->dims[index].computed;
}

/* ---- training-step state ----------------------------------------------- */

size_t dlc_module_num_states(const dlc_module_t *module) {
  return module ? module->num_states : 0;
}

dlc_status_t dlc_module_state_info(const dlc_module_t *module, size_t index,
                                   dlc_tensor_info_t *out, void **data) {
  if (!module || !out || !data)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_module_state_info: null argument");
  if (index >= module->num_states)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_module_state_info: index %zu out of range (%zu states)",
                    index, module->num_states);
  if (!module->state_data)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "module '%s' has no state buffers (an in-process module needs "
                    "dlc_module_attach_state)",
                    module->path);
  const dlc_io_decl_t *d =
      &module->decls[module->num_inputs + module->num_outputs + index];
  out->name = d->name;
  out->dtype = d->dtype;
  out->rank = d->rank;
  out->shape = d->shape;
  out->dim_symbols = d->dim_symbols;
  *data = module->state_data[index];
  return DLC_OK;
}

dlc_status_t dlc_module_embedded_onnx(const dlc_module_t *module,
                                      const void **data, size_t *size) {
  if (!module || !data || !size)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_module_embedded_onnx: null argument");
  if (!module->onnx)
    return dlc_fail(DLC_ERROR_NOT_FOUND, "module '%s' carries no ONNX model",
                    module->path);
  *data = module->onnx;
  *size = module->onnx_size;
  return DLC_OK;
}

dlc_status_t dlc_module_attach_state(dlc_module_t *module,
                                     void *const *state_data, const void *onnx,
                                     size_t onnx_size) {
  if (!module || (module->num_states > 0 && !state_data))
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_module_attach_state: null %s",
                    module ? "state_data" : "module");
  module->state_data = state_data;
  module->onnx = onnx && onnx_size ? onnx : NULL;
  module->onnx_size = module->onnx ? onnx_size : 0;
  return DLC_OK;
}
