/* dlc_alloc.c - the allocator compiled models call for their intermediates (a reuse cache). */
#define _POSIX_C_SOURCE 200809L
#include "dlc_internal.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Compiled models allocate every intermediate buffer on each run and free it
 * before returning. Large blocks from malloc come from fresh mmap()ed pages,
 * so each run page-faulted its whole working set again (measured: a depthwise
 * convolution spent 7 of 8 parts of its time in page faults). Freed blocks
 * are kept here and handed out again for a request of the same size, so from
 * the second run on a model allocates nothing from the system. The cache is
 * bounded; beyond it blocks go back to free(). */

#define DLC_CACHE_SLOTS 256
#define DLC_CACHE_MAX_BYTES ((size_t)2 << 30)
#define DLC_HEADER 64 /* keeps the returned pointer 64-byte aligned */

typedef struct {
  void *block; /* the pointer handed out */
  size_t size;
} cache_slot_t;

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static cache_slot_t cache[DLC_CACHE_SLOTS];
static size_t cache_count;
static size_t cache_bytes;

/* Header stored just before the returned pointer: the requested size and the
 * offset back to what malloc returned. */
typedef struct {
  size_t size;
  size_t offset;
} block_header_t;

static void *take_cached(size_t size) {
  void *p = NULL;
  pthread_mutex_lock(&cache_lock);
  for (size_t i = 0; i < cache_count; ++i) {
    if (cache[i].size == size) {
      p = cache[i].block;
      cache_bytes -= size;
      cache[i] = cache[--cache_count];
      break;
    }
  }
  pthread_mutex_unlock(&cache_lock);
  return p;
}

static void *fresh_block(size_t size, size_t alignment) {
  size_t offset = alignment > DLC_HEADER ? alignment : DLC_HEADER;
  if (size > SIZE_MAX - offset)
    return NULL;
  void *base = NULL;
  if (posix_memalign(&base, offset, size + offset) != 0)
    return NULL;
  char *p = (char *)base + offset;
  block_header_t h = {size, offset};
  memcpy(p - sizeof h, &h, sizeof h);
  return p;
}

/* Each thread first keeps a few small blocks of its own, without a lock: the
 * threads of a parallel loop allocate and free a small buffer per piece (a row
 * block's intermediates), and on the shared cache's mutex they went through
 * futex waits (LayerNorm of 300 x 77 at 2 threads: 60 us per run, 13 us at 1). */
#define DLC_TLS_SLOTS 8
#define DLC_TLS_MAX_BYTES ((size_t)1 << 20)

typedef struct {
  cache_slot_t slot[DLC_TLS_SLOTS];
  int count;
} tls_cache_t;

static _Thread_local tls_cache_t tls_cache;
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;
static bool tls_key_ok;

/* At thread exit, a thread's own blocks go back to the system. */
static void tls_release(void *arg) {
  tls_cache_t *c = arg;
  for (int i = 0; i < c->count; ++i) {
    block_header_t h;
    memcpy(&h, (char *)c->slot[i].block - sizeof h, sizeof h);
    free((char *)c->slot[i].block - h.offset);
  }
  c->count = 0;
}

static void tls_key_init(void) { tls_key_ok = pthread_key_create(&tls_key, tls_release) == 0; }

static void *take_own(size_t size) {
  tls_cache_t *c = &tls_cache;
  for (int i = 0; i < c->count; ++i)
    if (c->slot[i].size == size) {
      void *p = c->slot[i].block;
      c->slot[i] = c->slot[--c->count];
      return p;
    }
  return NULL;
}

static bool keep_own(void *p, size_t size) {
  tls_cache_t *c = &tls_cache;
  if (size > DLC_TLS_MAX_BYTES || c->count == DLC_TLS_SLOTS)
    return false;
  pthread_once(&tls_once, tls_key_init);
  if (!tls_key_ok || (c->count == 0 && pthread_setspecific(tls_key, c) != 0))
    return false;
  c->slot[c->count].block = p;
  c->slot[c->count].size = size;
  ++c->count;
  return true;
}

static void *dlc_model_alloc(size_t size, size_t alignment) {
  void *p = take_own(size);
  if (!p)
    p = take_cached(size);
  if (p) {
    block_header_t h;
    memcpy(&h, (char *)p - sizeof h, sizeof h);
    if (h.offset % (alignment ? alignment : 1) == 0 && (uintptr_t)p % (alignment ? alignment : 1) == 0)
      return p;
    free((char *)p - h.offset); /* cached block not aligned enough: drop it */
  }
  return fresh_block(size, alignment);
}

DLC_API void *_mlir_memref_to_llvm_alloc(size_t size) { return dlc_model_alloc(size, 16); }

DLC_API void *_mlir_memref_to_llvm_aligned_alloc(size_t alignment, size_t size) {
  return dlc_model_alloc(size, alignment);
}

DLC_API void _mlir_memref_to_llvm_free(void *p) {
  if (!p)
    return;
  block_header_t h;
  memcpy(&h, (char *)p - sizeof h, sizeof h);
  if (keep_own(p, h.size))
    return;
  pthread_mutex_lock(&cache_lock);
  if (cache_count < DLC_CACHE_SLOTS && h.size <= DLC_CACHE_MAX_BYTES - cache_bytes) {
    cache[cache_count].block = p;
    cache[cache_count].size = h.size;
    ++cache_count;
    cache_bytes += h.size;
    p = NULL;
  }
  pthread_mutex_unlock(&cache_lock);
  if (p)
    free((char *)p - h.offset);
}
