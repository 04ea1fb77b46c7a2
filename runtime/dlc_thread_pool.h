/* dlc_thread_pool.h - private interface of the session's worker pool (not installed). */
#ifndef DLC_THREAD_POOL_H
#define DLC_THREAD_POOL_H

#include "dlc_internal.h"

typedef struct dlc_thread_pool_t dlc_thread_pool_t;

/* Starts num_threads - 1 workers (none if num_threads <= 1); the thread
 * calling dlc_thread_pool_run is the last participant. */
dlc_status_t dlc_thread_pool_create(int32_t num_threads,
                                    dlc_thread_pool_t **out);

/* Stops and joins the workers. NULL is a no-op. */
void dlc_thread_pool_free(dlc_thread_pool_t *pool);

/* Workers + the caller; 1 for NULL. */
int32_t dlc_thread_pool_size(const dlc_thread_pool_t *pool);

/* The body of dlc_runtime_parallel_for (see dlc_runtime.h); pool may be
 * NULL (inline). Allocates nothing. */
void dlc_thread_pool_run(dlc_thread_pool_t *pool, int64_t n,
                         dlc_abi_parallel_body_fn fn, void *closure);

#endif /* DLC_THREAD_POOL_H */
