/* dlc_tensor.c - owns dtype helpers and the dlc_tensor_t object (create, wrap, free, accessors). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* posix_memalign; set before any system header */
#endif
#include "dlc_internal.h"

#include <stdlib.h>
#include <string.h>

#define DLC_TENSOR_ALIGNMENT 64

struct dlc_tensor_t {
  dlc_dtype_t dtype;
  int32_t rank;
  bool owns_data;
  void *data;
  int64_t num_elements;
  size_t byte_size;
  size_t capacity; /* bytes the data holds: byte_size when created or wrapped */
  /* String tensors: the bytes each element owns (num_elements entries, NULL
   * until an element is set; capacity / 16 slots). */
  char **owned;
  int64_t shape[]; /* rank entries */
};

size_t dlc_dtype_size(dlc_dtype_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_UINT8:
  case DLC_DTYPE_INT8:
  case DLC_DTYPE_BOOL:
  case DLC_DTYPE_FLOAT8E4M3FN:
  case DLC_DTYPE_FLOAT8E4M3FNUZ:
  case DLC_DTYPE_FLOAT8E5M2:
  case DLC_DTYPE_FLOAT8E5M2FNUZ:
  case DLC_DTYPE_UINT4:
  case DLC_DTYPE_INT4:
  case DLC_DTYPE_FLOAT4E2M1:
  case DLC_DTYPE_FLOAT8E8M0:
  case DLC_DTYPE_UINT2:
  case DLC_DTYPE_INT2:
    return 1;
  case DLC_DTYPE_UINT16:
  case DLC_DTYPE_INT16:
  case DLC_DTYPE_FLOAT16:
  case DLC_DTYPE_BFLOAT16:
    return 2;
  case DLC_DTYPE_FLOAT:
  case DLC_DTYPE_INT32:
  case DLC_DTYPE_UINT32:
    return 4;
  case DLC_DTYPE_INT64:
  case DLC_DTYPE_DOUBLE:
  case DLC_DTYPE_UINT64:
    return 8;
  case DLC_DTYPE_STRING:
    return sizeof(dlc_string_t);
  default:
    return 0;
  }
}

const char *dlc_dtype_name(dlc_dtype_t dtype) {
  switch (dtype) {
  case DLC_DTYPE_FLOAT:
    return "f32";
  case DLC_DTYPE_STRING:
    return "string";
  case DLC_DTYPE_FLOAT8E4M3FN:
    return "f8e4m3fn";
  case DLC_DTYPE_FLOAT8E4M3FNUZ:
    return "f8e4m3fnuz";
  case DLC_DTYPE_FLOAT8E5M2:
    return "f8e5m2";
  case DLC_DTYPE_FLOAT8E5M2FNUZ:
    return "f8e5m2fnuz";
  case DLC_DTYPE_UINT4:
    return "u4";
  case DLC_DTYPE_INT4:
    return "i4";
  case DLC_DTYPE_FLOAT4E2M1:
    return "f4e2m1";
  case DLC_DTYPE_FLOAT8E8M0:
    return "f8e8m0";
  case DLC_DTYPE_UINT2:
    return "u2";
  case DLC_DTYPE_INT2:
    return "i2";
  case DLC_DTYPE_UINT8:
    return "u8";
  case DLC_DTYPE_INT8:
    return "i8";
  case DLC_DTYPE_UINT16:
    return "u16";
  case DLC_DTYPE_INT16:
    return "i16";
  case DLC_DTYPE_INT32:
    return "i32";
  case DLC_DTYPE_INT64:
    return "i64";
  case DLC_DTYPE_BOOL:
    return "bool";
  case DLC_DTYPE_FLOAT16:
    return "f16";
  case DLC_DTYPE_DOUBLE:
    return "f64";
  case DLC_DTYPE_UINT32:
    return "u32";
  case DLC_DTYPE_UINT64:
    return "u64";
  case DLC_DTYPE_BFLOAT16:
    return "bf16";
  default:
    return "unknown";
  }
}

dlc_status_t dlc_shape_check(const char *what, dlc_dtype_t dtype,
                             int32_t rank, const int64_t *shape,
                             int64_t *num_elements, size_t *byte_size) {
  size_t elem = dlc_dtype_size(dtype);
  if (elem == 0)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "%s: unknown dtype %d", what,
                    (int)dtype);
  if (rank < 0)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "%s: negative rank %d", what,
                    (int)rank);
  if (rank > 0 && !shape)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "%s: shape is null for rank %d", what, (int)rank);
  bool empty = false;
  for (int32_t i = 0; i < rank; ++i) {
    if (shape[i] < 0)
      return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                      "%s: dim %d is negative (%lld)", what, (int)i,
                      (long long)shape[i]);
    empty |= shape[i] == 0;
  }
  /* Keep byte sizes representable as both size_t and int64_t, with room
   * to round up to the alignment. */
  const uint64_t limit =
      (SIZE_MAX < INT64_MAX ? (uint64_t)SIZE_MAX : (uint64_t)INT64_MAX) -
      DLC_TENSOR_ALIGNMENT;
  uint64_t count = 1;
  if (empty) {
    count = 0;
  } else {
    for (int32_t i = 0; i < rank; ++i) {
      uint64_t d = (uint64_t)shape[i];
      if (count > limit / d / elem) {
        char text[128];
        return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                        "%s: shape %s of %s is too large", what,
                        dlc_shape_text(rank, shape, text, sizeof(text)),
                        dlc_dtype_name(dtype));
      }
      count *= d;
    }
  }
  if (num_elements)
    *num_elements = (int64_t)count;
  if (byte_size)
    *byte_size = (size_t)(count * elem);
  return DLC_OK;
}

static dlc_status_t dlc_tensor_new(dlc_dtype_t dtype, int32_t rank,
                                   const int64_t *shape, dlc_tensor_t **out) {
  int64_t count;
  size_t bytes;
  dlc_status_t st = dlc_shape_check("tensor", dtype, rank, shape, &count,
                                    &bytes);
  if (st != DLC_OK)
    return st;
  dlc_tensor_t *t =
      malloc(sizeof(dlc_tensor_t) + (size_t)rank * sizeof(int64_t));
  if (!t)
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                    "tensor: out of memory for a rank-%d descriptor",
                    (int)rank);
  t->dtype = dtype;
  t->rank = rank;
  t->owns_data = false;
  t->data = NULL;
  t->num_elements = count;
  t->byte_size = bytes;
  t->capacity = bytes;
  t->owned = NULL;
  if (rank > 0)
    memcpy(t->shape, shape, (size_t)rank * sizeof(int64_t));
  *out = t;
  return DLC_OK;
}

dlc_status_t dlc_tensor_create(dlc_dtype_t dtype, int32_t rank,
                               const int64_t *shape, dlc_tensor_t **out) {
  if (!out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_create: out is null");
  *out = NULL;
  dlc_tensor_t *t;
  dlc_status_t st = dlc_tensor_new(dtype, rank, shape, &t);
  if (st != DLC_OK)
    return st;
  /* Round up so vector code may read whole cache lines at the tail. */
  size_t padded = (t->byte_size + DLC_TENSOR_ALIGNMENT - 1) &
                  ~(size_t)(DLC_TENSOR_ALIGNMENT - 1);
  if (padded == 0)
    padded = DLC_TENSOR_ALIGNMENT;
  void *data = NULL;
  if (posix_memalign(&data, DLC_TENSOR_ALIGNMENT, padded) != 0) {
    char text[128];
    free(t);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                    "tensor: cannot allocate %zu bytes for shape %s of %s",
                    padded, dlc_shape_text(rank, shape, text, sizeof(text)),
                    dlc_dtype_name(dtype));
  }
  memset(data, 0, padded);
  t->data = data;
  t->owns_data = true;
  *out = t;
  return DLC_OK;
}

dlc_status_t dlc_tensor_wrap(dlc_dtype_t dtype, int32_t rank,
                             const int64_t *shape, void *data,
                             dlc_tensor_t **out) {
  if (!out)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "dlc_tensor_wrap: out is null");
  *out = NULL;
  dlc_tensor_t *t;
  dlc_status_t st = dlc_tensor_new(dtype, rank, shape, &t);
  if (st != DLC_OK)
    return st;
  if (!data && t->byte_size != 0) {
    char text[128];
    free(t);
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "tensor: data is null for shape %s of %s",
                    dlc_shape_text(rank, shape, text, sizeof(text)),
                    dlc_dtype_name(dtype));
  }
  t->data = data;
  *out = t;
  return DLC_OK;
}

bool dlc_tensor_set_shape(dlc_tensor_t *t, const int64_t *shape) {
  int64_t count;
  size_t bytes;
  /* Checked quietly: a failure here is the caller's to report. */
  int64_t n = 1;
  for (int32_t d = 0; d < t->rank; ++d)
    if (shape[d] < 0 || __builtin_mul_overflow(n, shape[d], &n))
      return false;
  count = n;
  if (__builtin_mul_overflow((size_t)count, dlc_dtype_size(t->dtype), &bytes) ||
      bytes > t->capacity)
    return false;
  if (t->rank > 0)
    memcpy(t->shape, shape, (size_t)t->rank * sizeof(int64_t));
  t->num_elements = count;
  t->byte_size = bytes;
  return true;
}

size_t dlc_tensor_capacity(const dlc_tensor_t *t) { return t ? t->capacity : 0; }

/* Frees the bytes string elements own (the slots array included). */
static void dlc_tensor_free_strings(dlc_tensor_t *t) {
  if (!t->owned)
    return;
  for (size_t i = 0; i < t->capacity / sizeof(dlc_string_t); ++i)
    free(t->owned[i]);
  free(t->owned);
  t->owned = NULL;
}

bool dlc_tensor_reserve(dlc_tensor_t *t, size_t bytes) {
  if (bytes <= t->capacity)
    return true;
  if (!t->owns_data)
    return false;
  size_t padded = (bytes + DLC_TENSOR_ALIGNMENT - 1) & ~(size_t)(DLC_TENSOR_ALIGNMENT - 1);
  void *data = NULL;
  if (padded < bytes || posix_memalign(&data, DLC_TENSOR_ALIGNMENT, padded) != 0)
    return false;
  memset(data, 0, padded);
  dlc_tensor_free_strings(t);
  free(t->data);
  t->data = data;
  t->capacity = bytes;
  return true;
}

const char *dlc_tensor_string(const dlc_tensor_t *t, int64_t index, size_t *size) {
  if (size)
    *size = 0;
  if (!t || t->dtype != DLC_DTYPE_STRING || index < 0 || index >= t->num_elements)
    return NULL;
  const dlc_string_t *e = (const dlc_string_t *)t->data + index;
  if (size)
    *size = e->size > 0 ? (size_t)e->size : 0;
  return e->size > 0 ? e->data : NULL;
}

dlc_status_t dlc_tensor_set_string(dlc_tensor_t *t, int64_t index, const char *data,
                                   size_t size) {
  if (!t || t->dtype != DLC_DTYPE_STRING)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_set_string: %s", t ? "not a string tensor" : "tensor is null");
  if (index < 0 || index >= t->num_elements)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT,
                    "dlc_tensor_set_string: index %lld out of range [0, %lld)",
                    (long long)index, (long long)t->num_elements);
  if (!data && size)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "dlc_tensor_set_string: data is null");
  if (size > (size_t)INT64_MAX)
    return dlc_fail(DLC_ERROR_INVALID_ARGUMENT, "dlc_tensor_set_string: size too large");
  /* One slot per element the buffer holds (an output shrunk by a run may grow again). */
  if (!t->owned && !(t->owned = calloc(t->capacity / sizeof(dlc_string_t) + 1, sizeof(char *))))
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "string tensor: out of memory");
  char *copy = NULL;
  if (size && !(copy = malloc(size)))
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY, "string tensor: cannot allocate %zu bytes", size);
  if (size)
    memcpy(copy, data, size);
  free(t->owned[index]);
  t->owned[index] = copy;
  dlc_string_t *e = (dlc_string_t *)t->data + index;
  e->data = copy;
  e->size = (int64_t)size;
  return DLC_OK;
}

void dlc_tensor_free(dlc_tensor_t *tensor) {
  if (!tensor)
    return;
  dlc_tensor_free_strings(tensor);
  if (tensor->owns_data)
    free(tensor->data);
  free(tensor);
}

dlc_dtype_t dlc_tensor_dtype(const dlc_tensor_t *tensor) {
  return tensor ? tensor->dtype : 0;
}

int32_t dlc_tensor_rank(const dlc_tensor_t *tensor) {
  return tensor ? tensor->rank : 0;
}

const int64_t *dlc_tensor_shape(const dlc_tensor_t *tensor) {
  return tensor ? tensor->shape : NULL;
}

void *dlc_tensor_data(const dlc_tensor_t *tensor) {
  return tensor ? tensor->data : NULL;
}

int64_t dlc_tensor_num_elements(const dlc_tensor_t *tensor) {
  return tensor ? tensor->num_elements : 0;
}

size_t dlc_tensor_byte_size(const dlc_tensor_t *tensor) {
  return tensor ? tensor->byte_size : 0;
}
