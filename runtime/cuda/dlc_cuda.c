/* dlc_cuda.c - runs GPU modules through the CUDA driver API, loaded with dlopen. */
#include "cuda/dlc_cuda.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the driver API (the subset used; types as cuda.h declares them) ---- */

typedef int CUresult; /* CUDA_SUCCESS = 0 */
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;

enum { kComputeCapabilityMajor = 75, kComputeCapabilityMinor = 76 };

static struct {
  CUresult (*init)(unsigned);
  CUresult (*device_get_count)(int *);
  CUresult (*device_get)(CUdevice *, int);
  CUresult (*device_get_attribute)(int *, int, CUdevice);
  CUresult (*primary_ctx_retain)(CUcontext *, CUdevice);
  CUresult (*primary_ctx_release)(CUdevice);
  CUresult (*ctx_push)(CUcontext);
  CUresult (*ctx_pop)(CUcontext *);
  CUresult (*module_load_data)(CUmodule *, const void *);
  CUresult (*module_unload)(CUmodule);
  CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
  CUresult (*mem_alloc)(CUdeviceptr *, size_t);
  CUresult (*mem_free)(CUdeviceptr);
  CUresult (*memcpy_htod)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpy_dtoh)(void *, CUdeviceptr, size_t);
  CUresult (*stream_create)(CUstream *, unsigned);
  CUresult (*stream_destroy)(CUstream);
  CUresult (*stream_synchronize)(CUstream);
  CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                            unsigned, unsigned, CUstream, void **, void **);
  CUresult (*get_error_string)(CUresult, const char **);
} cu;

static pthread_once_t dlc_cuda_once = PTHREAD_ONCE_INIT;
static char dlc_cuda_error[512]; /* why the driver is unusable; "" when it is usable */
static CUdevice dlc_cuda_device;
static int dlc_cuda_capability; /* of device 0, x 10 */

static const char *dlc_cu_text(CUresult r) {
  const char *s = NULL;
  if (cu.get_error_string && cu.get_error_string(r, &s) == 0 && s)
    return s;
  return "unknown CUDA error";
}

static void dlc_cuda_load_driver(void) {
  const char *path = getenv("DLC_CUDA_DRIVER");
  if (!path || !*path)
    path = "libcuda.so.1";
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char *why = dlerror();
    snprintf(dlc_cuda_error, sizeof(dlc_cuda_error), "cannot load the CUDA driver (%s)",
             why ? why : path);
    return;
  }
  struct {
    void **slot;
    const char *name;
  } syms[] = {
      {(void **)&cu.init, "cuInit"},
      {(void **)&cu.device_get_count, "cuDeviceGetCount"},
      {(void **)&cu.device_get, "cuDeviceGet"},
      {(void **)&cu.device_get_attribute, "cuDeviceGetAttribute"},
      {(void **)&cu.primary_ctx_retain, "cuDevicePrimaryCtxRetain"},
      {(void **)&cu.primary_ctx_release, "cuDevicePrimaryCtxRelease_v2"},
      {(void **)&cu.ctx_push, "cuCtxPushCurrent_v2"},
      {(void **)&cu.ctx_pop, "cuCtxPopCurrent_v2"},
      {(void **)&cu.module_load_data, "cuModuleLoadData"},
      {(void **)&cu.module_unload, "cuModuleUnload"},
      {(void **)&cu.module_get_function, "cuModuleGetFunction"},
      {(void **)&cu.mem_alloc, "cuMemAlloc_v2"},
      {(void **)&cu.mem_free, "cuMemFree_v2"},
      {(void **)&cu.memcpy_htod, "cuMemcpyHtoD_v2"},
      {(void **)&cu.memcpy_dtoh, "cuMemcpyDtoH_v2"},
      {(void **)&cu.stream_create, "cuStreamCreate"},
      {(void **)&cu.stream_destroy, "cuStreamDestroy_v2"},
      {(void **)&cu.stream_synchronize, "cuStreamSynchronize"},
      {(void **)&cu.launch_kernel, "cuLaunchKernel"},
      {(void **)&cu.get_error_string, "cuGetErrorString"},
  };
  for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); ++i) {
    *syms[i].slot = dlsym(h, syms[i].name);
    if (!*syms[i].slot) {
      snprintf(dlc_cuda_error, sizeof(dlc_cuda_error),
               "the CUDA driver %s has no %s (too old?)", path, syms[i].name);
      return;
    }
  }
  CUresult r = cu.init(0);
  int count = 0;
  if (r == 0)
    r = cu.device_get_count(&count);
  if (r != 0) {
    snprintf(dlc_cuda_error, sizeof(dlc_cuda_error), "cuInit failed: %s", dlc_cu_text(r));
    return;
  }
  if (count < 1) {
    snprintf(dlc_cuda_error, sizeof(dlc_cuda_error), "the CUDA driver reports no device");
    return;
  }
  int major = 0, minor = 0;
  if ((r = cu.device_get(&dlc_cuda_device, 0)) != 0 ||
      (r = cu.device_get_attribute(&major, kComputeCapabilityMajor, dlc_cuda_device)) != 0 ||
      (r = cu.device_get_attribute(&minor, kComputeCapabilityMinor, dlc_cuda_device)) != 0) {
    snprintf(dlc_cuda_error, sizeof(dlc_cuda_error), "cannot query device 0: %s",
             dlc_cu_text(r));
    return;
  }
  dlc_cuda_capability = major * 10 + minor;
}

dlc_status_t dlc_cuda_check(const char *where, const char *chip) {
  pthread_once(&dlc_cuda_once, dlc_cuda_load_driver);
  if (dlc_cuda_error[0])
    return dlc_fail(DLC_ERROR_UNSUPPORTED,
                    "no CUDA device: %s (%s runs its kernels on an NVIDIA GPU, %s)",
                    dlc_cuda_error, where, chip);
  int need = 0;
  if (sscanf(chip, "sm_%d", &need) != 1)
    return dlc_fail(DLC_ERROR_BAD_MODULE, "%s: unknown GPU architecture '%s'", where, chip);
  /* sm_90a code runs on compute capability 9.0 only; sm_XX code on XX and later. */
  bool exact = chip[strlen(chip) - 1] == 'a';
  if (exact ? dlc_cuda_capability != need : dlc_cuda_capability < need)
    return dlc_fail(DLC_ERROR_UNSUPPORTED,
                    "no CUDA device for %s: it was compiled for %s, device 0 is sm_%d", where,
                    chip, dlc_cuda_capability);
  return DLC_OK;
}

/* ---- a session's device state ------------------------------------------ */

typedef struct {
  const void *host;
  CUdeviceptr device;
} dlc_cuda_constant_t;

struct dlc_cuda_session {
  CUcontext ctx;
  CUmodule module;
  CUstream stream;
  CUfunction *kernels;
  size_t num_kernels;
  /* Device copies of the inputs and outputs (one block each, kept across runs), and
   * the entry's buffer table of their addresses. */
  CUdeviceptr *io;
  void **device;
  size_t *io_bytes;
  size_t num_io;
  /* The blocks the host code allocates (its arena), reused in order by every run. */
  CUdeviceptr *blocks;
  size_t *block_bytes;
  size_t num_blocks, next_block, blocks_capacity;
  /* Weights copied once (keyed by their host address). */
  dlc_cuda_constant_t *constants;
  size_t num_constants, constants_capacity;
  /* The first failure of a run's launches, allocations or copies. */
  CUresult failed;
  char failed_what[160];
};

/* The session of the run on this thread, for the host code's calls. */
static _Thread_local dlc_cuda_session_t *dlc_cuda_current;

static void dlc_cuda_record(dlc_cuda_session_t *s, CUresult r, const char *what) {
  if (r != 0 && s->failed == 0) {
    s->failed = r;
    snprintf(s->failed_what, sizeof(s->failed_what), "%s", what);
  }
}

static dlc_status_t dlc_cuda_fail(const char *what, CUresult r) {
  return dlc_fail(DLC_ERROR_INTERNAL, "CUDA: %s failed: %s", what, dlc_cu_text(r));
}

void dlc_cuda_session_free(dlc_cuda_session_t *s) {
  if (!s)
    return;
  if (s->ctx && cu.ctx_push(s->ctx) == 0) {
    for (size_t i = 0; i < s->num_io; ++i)
      if (s->io[i])
        cu.mem_free(s->io[i]);
    for (size_t i = 0; i < s->num_blocks; ++i)
      cu.mem_free(s->blocks[i]);
    for (size_t i = 0; i < s->num_constants; ++i)
      cu.mem_free(s->constants[i].device);
    if (s->stream)
      cu.stream_destroy(s->stream);
    if (s->module)
      cu.module_unload(s->module);
    CUcontext popped;
    cu.ctx_pop(&popped);
    cu.primary_ctx_release(dlc_cuda_device);
  }
  free(s->kernels);
  free(s->io);
  free(s->device);
  free(s->io_bytes);
  free(s->blocks);
  free(s->block_bytes);
  free(s->constants);
  free(s);
}

dlc_status_t dlc_cuda_session_create(const dlc_module_t *m, dlc_cuda_session_t **out) {
  *out = NULL;
  char where[4200];
  snprintf(where, sizeof(where), "module '%s'", m->path);
  dlc_status_t st = dlc_cuda_check(where, m->cuda_chip);
  if (st != DLC_OK)
    return st;
  dlc_cuda_session_t *s = calloc(1, sizeof(*s));
  size_t num_io = m->num_inputs + m->num_outputs;
  size_t num_kernels = 0;
  for (const char *p = m->cuda_kernels; *p; ++p)
    num_kernels += *p == '\n';
  if (!s || !(s->io = calloc(num_io + 1, sizeof(CUdeviceptr))) ||
      !(s->io_bytes = calloc(num_io + 1, sizeof(size_t))) ||
      !(s->device = calloc(num_io + 1, sizeof(void *))) ||
      !(s->kernels = calloc(num_kernels + 1, sizeof(CUfunction)))) {
    dlc_cuda_session_free(s);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "out of memory creating a CUDA session");
  }
  s->num_io = num_io;
  CUresult r;
  if ((r = cu.primary_ctx_retain(&s->ctx, dlc_cuda_device)) != 0) {
    s->ctx = NULL;
    dlc_cuda_session_free(s);
    return dlc_cuda_fail("cuDevicePrimaryCtxRetain", r);
  }
  if ((r = cu.ctx_push(s->ctx)) != 0) {
    cu.primary_ctx_release(dlc_cuda_device);
    s->ctx = NULL;
    dlc_cuda_session_free(s);
    return dlc_cuda_fail("cuCtxPushCurrent", r);
  }
  /* The cubin where the device runs it, else the PTX, compiled by the driver. */
  if (!m->cuda_cubin || cu.module_load_data(&s->module, m->cuda_cubin) != 0)
    r = cu.module_load_data(&s->module, m->cuda_ptx);
  else
    r = 0;
  if (r != 0) {
    st = dlc_fail(DLC_ERROR_BAD_MODULE, "module '%s': the CUDA driver rejects its PTX: %s",
                  m->path, dlc_cu_text(r));
    dlc_cuda_session_free(s);
    return st;
  }
  const char *name = m->cuda_kernels;
  for (size_t k = 0; k < num_kernels; ++k) {
    const char *eol = strchr(name, '\n');
    size_t len = strcspn(name, " \n"); /* the table line's first field */
    char buf[128];
    snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
    if ((r = cu.module_get_function(&s->kernels[k], s->module, buf)) != 0) {
      st = dlc_fail(DLC_ERROR_BAD_MODULE, "module '%s': no kernel '%s' in its PTX: %s",
                    m->path, buf, dlc_cu_text(r));
      dlc_cuda_session_free(s);
      return st;
    }
    name = eol + 1;
  }
  s->num_kernels = num_kernels;
  if ((r = cu.stream_create(&s->stream, 0)) != 0) {
    dlc_cuda_session_free(s);
    return dlc_cuda_fail("cuStreamCreate", r);
  }
  CUcontext popped;
  cu.ctx_pop(&popped);
  *out = s;
  return DLC_OK;
}

dlc_status_t dlc_cuda_session_run(dlc_cuda_session_t *s, const dlc_module_t *m,
                                  const dlc_tensor_t *const *inputs,
                                  dlc_tensor_t *const *outputs, void *runtime_ctx,
                                  int32_t *rc) {
  *rc = 0;
  CUresult r;
  if ((r = cu.ctx_push(s->ctx)) != 0)
    return dlc_cuda_fail("cuCtxPushCurrent", r);
  dlc_status_t st = DLC_OK;
  void **device = s->device;
  for (size_t i = 0; i < s->num_io; ++i) {
    const dlc_tensor_t *t = i < m->num_inputs ? inputs[i] : outputs[i - m->num_inputs];
    size_t bytes = dlc_tensor_byte_size(t);
    if (s->io_bytes[i] < bytes) {
      if (s->io[i])
        cu.mem_free(s->io[i]);
      s->io[i] = 0;
      s->io_bytes[i] = 0;
      if ((r = cu.mem_alloc(&s->io[i], bytes)) != 0) {
        st = dlc_cuda_fail("cuMemAlloc (inputs and outputs)", r);
        goto done;
      }
      s->io_bytes[i] = bytes;
    }
    device[i] = (void *)(uintptr_t)s->io[i];
    if (i < m->num_inputs && bytes &&
        (r = cu.memcpy_htod(s->io[i], dlc_tensor_data(t), bytes)) != 0) {
      st = dlc_cuda_fail("copying an input to the device", r);
      goto done;
    }
  }
  s->failed = 0;
  s->next_block = 0;
  dlc_cuda_current = s;
  *rc = m->entry(device, runtime_ctx);
  dlc_cuda_current = NULL;
  if (s->failed) {
    st = dlc_cuda_fail(s->failed_what, s->failed);
    goto done;
  }
  if ((r = cu.stream_synchronize(s->stream)) != 0) {
    st = dlc_cuda_fail("running the kernels", r);
    goto done;
  }
  for (size_t o = 0; o < m->num_outputs; ++o) {
    size_t bytes = dlc_tensor_byte_size(outputs[o]);
    if (bytes &&
        (r = cu.memcpy_dtoh(dlc_tensor_data(outputs[o]), s->io[m->num_inputs + o], bytes)) != 0) {
      st = dlc_cuda_fail("copying an output from the device", r);
      goto done;
    }
  }
done:;
  CUcontext popped;
  cu.ctx_pop(&popped);
  return st;
}

/* ---- the calls of a GPU module's host code (dlc_abi.h) ----------------- */

DLC_API void dlc_cuda_launch(int32_t kernel, int64_t gx, int64_t gy, int64_t gz, int64_t bx,
                             int64_t by, int64_t bz, int32_t shared_bytes, int64_t params,
                             int32_t num_params) {
  dlc_cuda_session_t *s = dlc_cuda_current;
  if (!s || s->failed)
    return;
  if (kernel < 0 || (size_t)kernel >= s->num_kernels || num_params < 0 || num_params > 4096) {
    dlc_cuda_record(s, 1 /* CUDA_ERROR_INVALID_VALUE */, "a launch (bad kernel index)");
    return;
  }
  /* cuLaunchKernel takes the address of each parameter's value. */
  void *slots[64], **args = slots;
  if (num_params > 64 && !(args = malloc((size_t)num_params * sizeof(void *)))) {
    dlc_cuda_record(s, 2 /* CUDA_ERROR_OUT_OF_MEMORY */, "a launch");
    return;
  }
  int64_t *values = (int64_t *)(intptr_t)params;
  for (int32_t i = 0; i < num_params; ++i)
    args[i] = &values[i];
  CUresult r = cu.launch_kernel(s->kernels[kernel], (unsigned)gx, (unsigned)gy, (unsigned)gz,
                                (unsigned)bx, (unsigned)by, (unsigned)bz, (unsigned)shared_bytes,
                                s->stream, args, NULL);
  if (args != slots)
    free(args);
  dlc_cuda_record(s, r, "cuLaunchKernel");
}

DLC_API int64_t dlc_cuda_alloc(int64_t bytes) {
  dlc_cuda_session_t *s = dlc_cuda_current;
  if (!s || s->failed)
    return 0;
  size_t want = bytes > 0 ? (size_t)bytes : 1;
  size_t k = s->next_block++;
  if (k < s->num_blocks) {
    if (s->block_bytes[k] >= want)
      return (int64_t)s->blocks[k];
    cu.mem_free(s->blocks[k]);
    s->blocks[k] = 0;
    s->block_bytes[k] = 0;
  } else {
    if (s->num_blocks == s->blocks_capacity) {
      size_t cap = s->blocks_capacity ? 2 * s->blocks_capacity : 8;
      CUdeviceptr *blocks = realloc(s->blocks, cap * sizeof(CUdeviceptr));
      if (blocks)
        s->blocks = blocks;
      size_t *sizes = blocks ? realloc(s->block_bytes, cap * sizeof(size_t)) : NULL;
      if (!sizes) {
        dlc_cuda_record(s, 2, "allocating device memory");
        return 0;
      }
      s->block_bytes = sizes;
      s->blocks_capacity = cap;
    }
    s->blocks[k] = 0;
    s->block_bytes[k] = 0;
    s->num_blocks++;
  }
  CUresult r = cu.mem_alloc(&s->blocks[k], want);
  dlc_cuda_record(s, r, "cuMemAlloc (the intermediates' arena)");
  if (r == 0)
    s->block_bytes[k] = want;
  return r == 0 ? (int64_t)s->blocks[k] : 0;
}

DLC_API void dlc_cuda_free(int64_t address) {
  (void)address; /* the session keeps its blocks for the next run */
}

DLC_API int64_t dlc_cuda_constant(int64_t host, int64_t bytes) {
  dlc_cuda_session_t *s = dlc_cuda_current;
  if (!s || s->failed)
    return 0;
  const void *p = (const void *)(intptr_t)host;
  for (size_t i = 0; i < s->num_constants; ++i)
    if (s->constants[i].host == p)
      return (int64_t)s->constants[i].device;
  if (s->num_constants == s->constants_capacity) {
    size_t cap = s->constants_capacity ? 2 * s->constants_capacity : 64;
    dlc_cuda_constant_t *c = realloc(s->constants, cap * sizeof(*c));
    if (!c) {
      dlc_cuda_record(s, 2, "copying the weights to the device");
      return 0;
    }
    s->constants = c;
    s->constants_capacity = cap;
  }
  CUdeviceptr d = 0;
  CUresult r = cu.mem_alloc(&d, bytes > 0 ? (size_t)bytes : 1);
  if (r == 0 && bytes > 0)
    r = cu.memcpy_htod(d, p, (size_t)bytes);
  dlc_cuda_record(s, r, "copying the weights to the device");
  if (r != 0)
    return 0;
  s->constants[s->num_constants++] = (dlc_cuda_constant_t){p, d};
  return (int64_t)d;
}

DLC_API int64_t dlc_cuda_read(int64_t address, int64_t bytes) {
  dlc_cuda_session_t *s = dlc_cuda_current;
  int64_t value = 0;
  if (!s || s->failed || bytes <= 0 || bytes > 8)
    return 0;
  CUresult r = cu.stream_synchronize(s->stream);
  if (r == 0)
    r = cu.memcpy_dtoh(&value, (CUdeviceptr)address, (size_t)bytes);
  dlc_cuda_record(s, r, "reading a run-time check's result from the device");
  return value;
}
