/* dlc_thread_pool.c - owns the persistent worker pool behind dlc_runtime_parallel_for (dynamic pieces). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pthread_sigmask; set before any system header */
#endif
#include "dlc_thread_pool.h"

#include "dlc_fault.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* How long a waiting thread polls before sleeping on a condition variable:
 * long enough to catch the next loop of a model (microseconds apart),
 * short enough not to burn a core when the model is idle. */
#define DLC_SPIN_ITERATIONS 4000

/* Spin-wait step `spin`: a pause, and every 64th time a yield, so a waiting thread
 * that shares a CPU with the one it waits for (oversubscription, or the scheduler
 * placing both on one core) hands it the CPU instead of burning its time slice. */
static inline void dlc_cpu_relax(void);
static inline void dlc_spin_step(int spin) {
  if ((spin & 63) == 63)
    sched_yield();
  else
    dlc_cpu_relax();
}

static inline void dlc_cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ __volatile__("yield");
#endif
}

/* True on pool workers, and on a caller while it runs its own chunk: a
 * parallel_for issued there runs inline instead of waiting on the pool
 * it is part of (which would deadlock). */
static _Thread_local bool dlc_tls_in_parallel;

typedef struct {
  dlc_thread_pool_t *pool;
  int32_t index; /* chunk index this worker runs: 1 .. num_workers */
} dlc_worker_t;

struct dlc_thread_pool_t {
  int32_t num_threads; /* workers + the calling thread */
  int32_t num_workers;
  pthread_t *threads;
  dlc_worker_t *workers;
  pthread_mutex_t mutex;
  pthread_cond_t wake; /* job word changed */
  pthread_cond_t done; /* pending reached zero */
  /* Publishes a job (release; workers acquire): generation << 16 | chunks.
   * Carrying the chunk count here lets a worker with no chunk go back to
   * waiting without reading the job fields, which the caller may already
   * be rewriting for the next loop. */
  _Atomic uint64_t job_word;
  /* Work claiming: generation << 32 | next piece index. A thread claims piece i
   * of generation g by a CAS from (g, i) to (g, i + 1), so a worker that wakes
   * late can never claim a piece of a later loop. */
  _Atomic uint64_t claim;
  /* Pieces of the current loop finished; the caller waits for all of them. */
  _Atomic int64_t finished;
  _Atomic int64_t pieces;
  /* Set while a thread owns the pool for a loop. */
  atomic_flag busy;
  atomic_bool stop;
  /* The current job, read by a thread only after it claimed a piece of it; the
   * caller waits for every piece before writing the next one. */
  dlc_abi_parallel_body_fn fn;
  void *closure;
  int64_t n;
  /* The first fault a piece of the current loop raised (see dlc_run_piece). */
  _Atomic int fault_signo;
  void *_Atomic fault_addr;
};

#define DLC_JOB_CHUNK_BITS 16 /* DLC_MAX_THREADS (4096) fits */
#define DLC_JOB_CHUNK_MASK ((UINT64_C(1) << DLC_JOB_CHUNK_BITS) - 1)

/* Chunk i of [0, n) split into `chunks` near-equal contiguous pieces. */
static void dlc_chunk(int64_t n, int32_t chunks, int32_t i, int64_t *begin,
                      int64_t *end) {
  int64_t q = n / chunks, r = n % chunks;
  *begin = i * q + (i < r ? i : r);
  *end = *begin + q + (i < r ? 1 : 0);
}

/* Waits until the job word's generation differs from that of `seen`. */
static uint64_t dlc_wait_job(dlc_thread_pool_t *pool, uint64_t seen) {
  seen >>= DLC_JOB_CHUNK_BITS;
  for (int spin = 0; spin < DLC_SPIN_ITERATIONS; ++spin) {
    uint64_t w = atomic_load_explicit(&pool->job_word, memory_order_acquire);
    if (w >> DLC_JOB_CHUNK_BITS != seen)
      return w;
    dlc_spin_step(spin);
  }
  pthread_mutex_lock(&pool->mutex);
  uint64_t w;
  while ((w = atomic_load_explicit(&pool->job_word, memory_order_acquire)) >>
             DLC_JOB_CHUNK_BITS ==
         seen)
    pthread_cond_wait(&pool->wake, &pool->mutex);
  pthread_mutex_unlock(&pool->mutex);
  return w;
}

/* Publishes a new job word (with the next generation) and wakes workers. */
static void dlc_publish_job(dlc_thread_pool_t *pool, uint64_t chunks) {
  pthread_mutex_lock(&pool->mutex);
  uint64_t w = atomic_load_explicit(&pool->job_word, memory_order_relaxed);
  uint64_t next = ((w >> DLC_JOB_CHUNK_BITS) + 1) << DLC_JOB_CHUNK_BITS;
  atomic_store_explicit(&pool->job_word, next | chunks, memory_order_release);
  pthread_cond_broadcast(&pool->wake);
  pthread_mutex_unlock(&pool->mutex);
}

/* Runs one piece. A fault in it is recorded for the caller, which re-raises it once every
 * piece is done (dlc_thread_pool_run): the pool stays consistent, and no thread goes on
 * writing buffers the failed run's caller has already given up. */
static void dlc_run_piece(dlc_thread_pool_t *pool, int64_t begin, int64_t end) {
  dlc_fault_guard_t guard;
  if (sigsetjmp(guard.env, 0) == 0) {
    dlc_fault_push(&guard);
    pool->fn(pool->closure, begin, end);
    dlc_fault_pop(&guard);
    return;
  }
  int none = 0;
  if (atomic_compare_exchange_strong(&pool->fault_signo, &none, (int)guard.signo))
    atomic_store(&pool->fault_addr, guard.addr);
}

/* Runs piece i of `pieces`, which this thread has claimed. The last piece to
 * finish wakes the caller if it went to sleep; taking the mutex orders this
 * with the caller's check-then-wait. */
static void dlc_run_claimed(dlc_thread_pool_t *pool, int64_t i, int64_t pieces) {
  int64_t begin, end;
  dlc_chunk(pool->n, (int32_t)pieces, (int32_t)i, &begin, &end);
  dlc_run_piece(pool, begin, end);
  if (atomic_fetch_add_explicit(&pool->finished, 1, memory_order_acq_rel) + 1 == pieces) {
    pthread_mutex_lock(&pool->mutex);
    pthread_cond_signal(&pool->done);
    pthread_mutex_unlock(&pool->mutex);
  }
}

/* Runs pieces of generation `gen` until none is left; returns how many it ran. */
static int64_t dlc_run_pieces(dlc_thread_pool_t *pool, uint64_t gen) {
  int64_t ran = 0;
  for (;;) {
    uint64_t w = atomic_load_explicit(&pool->claim, memory_order_acquire);
    if (w >> 32 != gen)
      return ran;
    int64_t i = (int64_t)(w & UINT32_MAX);
    /* If this reads the next loop's count, the caller has already closed this
     * generation's claim word (see dlc_thread_pool_run), so the CAS below fails. */
    int64_t pieces = atomic_load_explicit(&pool->pieces, memory_order_acquire);
    if (i >= pieces)
      return ran;
    if (!atomic_compare_exchange_weak_explicit(&pool->claim, &w, w + 1,
                                               memory_order_acq_rel,
                                               memory_order_acquire))
      continue;
    dlc_run_claimed(pool, i, pieces);
    ++ran;
  }
}

static void *dlc_worker_main(void *arg) {
  dlc_worker_t *self = arg;
  dlc_thread_pool_t *pool = self->pool;
  dlc_tls_in_parallel = true;
  uint64_t seen = 0; /* the pool starts at generation 0 */
  for (;;) {
    seen = dlc_wait_job(pool, seen);
    if (atomic_load_explicit(&pool->stop, memory_order_relaxed))
      return NULL;
    dlc_run_pieces(pool, (seen >> DLC_JOB_CHUNK_BITS) & UINT32_MAX);
  }
}

static void dlc_thread_pool_stop(dlc_thread_pool_t *pool, int32_t started) {
  atomic_store_explicit(&pool->stop, true, memory_order_relaxed);
  dlc_publish_job(pool, 0);
  for (int32_t i = 0; i < started; ++i)
    pthread_join(pool->threads[i], NULL);
}

static void dlc_thread_pool_destroy(dlc_thread_pool_t *pool) {
  pthread_cond_destroy(&pool->done);
  pthread_cond_destroy(&pool->wake);
  pthread_mutex_destroy(&pool->mutex);
  free(pool->threads);
  free(pool->workers);
  free(pool);
}

dlc_status_t dlc_thread_pool_create(int32_t num_threads,
                                    dlc_thread_pool_t **out) {
  *out = NULL;
  dlc_thread_pool_t *pool = calloc(1, sizeof(dlc_thread_pool_t));
  int32_t workers = num_threads > 1 ? num_threads - 1 : 0;
  if (pool) {
    pool->threads = calloc((size_t)workers + 1, sizeof(pthread_t));
    pool->workers = calloc((size_t)workers + 1, sizeof(dlc_worker_t));
  }
  if (!pool || !pool->threads || !pool->workers) {
    if (pool) {
      free(pool->threads);
      free(pool->workers);
    }
    free(pool);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                    "out of memory creating a pool of %d threads",
                    (int)num_threads);
  }
  pool->num_threads = workers + 1;
  pool->num_workers = workers;
  atomic_init(&pool->job_word, UINT64_C(0));
  atomic_init(&pool->claim, UINT64_C(0));
  atomic_init(&pool->finished, 0);
  atomic_init(&pool->pieces, 0);
  atomic_flag_clear(&pool->busy);
  atomic_init(&pool->stop, false);
  pthread_mutex_init(&pool->mutex, NULL);
  pthread_cond_init(&pool->wake, NULL);
  pthread_cond_init(&pool->done, NULL);

  /* Workers inherit a full signal mask, so process signals go to the
   * application's own threads; but not the faults a model's code can raise on
   * the worker itself (a blocked SIGSEGV kills the process; dlc_fault.h turns
   * an unblocked one into a status). */
  sigset_t all, old;
  sigfillset(&all);
  sigdelset(&all, SIGSEGV);
  sigdelset(&all, SIGBUS);
  sigdelset(&all, SIGFPE);
  sigdelset(&all, SIGILL);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int32_t started = 0;
  int err = 0;
  for (; started < workers; ++started) {
    pool->workers[started].pool = pool;
    pool->workers[started].index = started + 1;
    err = pthread_create(&pool->threads[started], NULL, dlc_worker_main,
                         &pool->workers[started]);
    if (err != 0)
      break;
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (err != 0) {
    char text[128];
    dlc_thread_pool_stop(pool, started);
    dlc_thread_pool_destroy(pool);
    return dlc_fail(DLC_ERROR_OUT_OF_MEMORY,
                    "cannot start worker thread %d of %d: %s", (int)started + 1,
                    (int)workers, dlc_errno_text(err, text, sizeof(text)));
  }
  *out = pool;
  return DLC_OK;
}

void dlc_thread_pool_free(dlc_thread_pool_t *pool) {
  if (!pool)
    return;
  dlc_thread_pool_stop(pool, pool->num_workers);
  dlc_thread_pool_destroy(pool);
}

int32_t dlc_thread_pool_size(const dlc_thread_pool_t *pool) {
  return pool ? pool->num_threads : 1;
}

void dlc_thread_pool_run(dlc_thread_pool_t *pool, int64_t n,
                         dlc_abi_parallel_body_fn fn, void *closure) {
  if (n <= 0 || !fn)
    return;
  /* Inline when there is nothing to share, when nested (see
   * dlc_tls_in_parallel), or when another thread is using this pool. */
  if (!pool || pool->num_workers == 0 || n == 1 || dlc_tls_in_parallel ||
      atomic_flag_test_and_set_explicit(&pool->busy, memory_order_acquire)) {
    /* Mark the body as inside a loop here too, so nesting behaves the same
     * whatever the thread count. */
    bool outer = dlc_tls_in_parallel;
    dlc_tls_in_parallel = true;
    dlc_fault_guard_t guard;
    if (sigsetjmp(guard.env, 0) == 0) {
      dlc_fault_push(&guard);
      fn(closure, 0, n);
      dlc_fault_pop(&guard);
    } else { /* restore this thread's state, then pass the fault on */
      dlc_tls_in_parallel = outer;
      dlc_fault_raise(guard.signo, guard.addr);
    }
    dlc_tls_in_parallel = outer;
    return;
  }
  /* A few pieces per thread, claimed dynamically: the caller starts at once and
   * takes whatever a worker that wakes late (or shares its core) has not, so one
   * slow thread never holds the loop to a fixed half. */
  int64_t pieces = (int64_t)pool->num_threads * 4;
  if (pieces > n)
    pieces = n;
  uint64_t w = atomic_load_explicit(&pool->job_word, memory_order_relaxed);
  uint64_t gen = ((w >> DLC_JOB_CHUNK_BITS) + 1) & UINT32_MAX;
  /* Close the previous loop's claim word first: a worker still holding its
   * last (fully claimed) value can then not claim a piece of this loop by
   * reading the new piece count. */
  atomic_store_explicit(&pool->claim, gen << 32 | UINT32_MAX, memory_order_seq_cst);
  pool->fn = fn;
  pool->closure = closure;
  pool->n = n;
  atomic_store_explicit(&pool->pieces, pieces, memory_order_release);
  atomic_store_explicit(&pool->finished, 0, memory_order_relaxed);
  /* Piece 0 is the caller's: it starts at once, and it always takes part
   * however fast the workers claim the rest. */
  atomic_store_explicit(&pool->claim, gen << 32 | 1, memory_order_release);
  dlc_publish_job(pool, (uint64_t)pool->num_threads);

  dlc_tls_in_parallel = true;
  dlc_run_claimed(pool, 0, pieces);
  dlc_run_pieces(pool, gen);
  dlc_tls_in_parallel = false;

  bool finished = false;
  for (int spin = 0; spin < DLC_SPIN_ITERATIONS && !finished; ++spin) {
    finished = atomic_load_explicit(&pool->finished, memory_order_acquire) == pieces;
    if (!finished)
      dlc_spin_step(spin);
  }
  if (!finished) {
    pthread_mutex_lock(&pool->mutex);
    while (atomic_load_explicit(&pool->finished, memory_order_acquire) != pieces)
      pthread_cond_wait(&pool->done, &pool->mutex);
    pthread_mutex_unlock(&pool->mutex);
  }
  int signo = atomic_exchange(&pool->fault_signo, 0);
  void *addr = atomic_exchange(&pool->fault_addr, NULL);
  atomic_flag_clear_explicit(&pool->busy, memory_order_release);
  if (signo)
    dlc_fault_raise(signo, addr);
}
