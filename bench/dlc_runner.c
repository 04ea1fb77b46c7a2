/* dlc_runner: times a compiled dlc model through the C runtime alone (no MLIR/LLVM in the
 * process), so latency and peak RSS are what an application embedding libdlc_runtime sees.
 *
 *   dlc_runner MODEL.so THREADS RUNS WARMUP NAME=FILE.npy...
 *
 * Prints "min X ms  median Y ms  p90 Z ms" (the format of `dlc bench`). Built by bench/run
 * against the runtime library of the dlc under test. */
#include "dlc_runtime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define DLC_MIN_WARMUP_S 0.2

static int die(const char *what) {
  fprintf(stderr, "error: %s: %s\n", what, dlc_status_message());
  return 1;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  if (argc < 5) {
    fprintf(stderr, "usage: dlc_runner MODEL.so THREADS RUNS WARMUP NAME=FILE.npy...\n");
    return 2;
  }
  int threads = atoi(argv[2]), runs = atoi(argv[3]), warmup = atoi(argv[4]);
  if (runs < 1)
    runs = 1;
  dlc_module_t *m = NULL;
  dlc_session_t *s = NULL;
  if (dlc_module_load(argv[1], &m) != DLC_OK)
    return die(argv[1]);
  if (dlc_session_create(m, threads, &s) != DLC_OK)
    return die("session");
  size_t ni = dlc_module_num_inputs(m), no = dlc_module_num_outputs(m);
  dlc_tensor_t **in = calloc(ni, sizeof *in), **out = calloc(no, sizeof *out);
  for (int a = 5; a < argc; ++a) {
    char *eq = strchr(argv[a], '=');
    if (!eq) {
      fprintf(stderr, "error: expected NAME=FILE.npy, got '%s'\n", argv[a]);
      return 2;
    }
    *eq = '\0';
    size_t idx;
    if (dlc_module_find_input(m, argv[a], &idx) != DLC_OK)
      return die(argv[a]);
    if (dlc_tensor_load_npy(eq + 1, &in[idx]) != DLC_OK)
      return die(eq + 1);
  }
  for (size_t i = 0; i < ni; ++i)
    if (!in[i]) {
      fprintf(stderr, "error: input %zu not given\n", i);
      return 2;
    }
  if (dlc_session_create_outputs(s, out) != DLC_OK)
    return die("outputs");
  double *ms = calloc((size_t)runs, sizeof *ms);
  /* Warm-up: WARMUP runs and at least DLC_MIN_WARMUP_S (a few runs of a µs model leave
   * the threads and the CPU cold; bench/engine_*.py do the same). */
  struct timespec w0, w1;
  clock_gettime(CLOCK_MONOTONIC, &w0);
  for (int r = 0;; ++r) {
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double elapsed = (double)(w1.tv_sec - w0.tv_sec) + (w1.tv_nsec - w0.tv_nsec) * 1e-9;
    if (r >= warmup && elapsed >= DLC_MIN_WARMUP_S)
      break;
    if (dlc_session_run(s, (const dlc_tensor_t *const *)in, ni, out, no) != DLC_OK)
      return die("run");
  }
  for (int r = 0; r < runs; ++r) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    if (dlc_session_run(s, (const dlc_tensor_t *const *)in, ni, out, no) != DLC_OK)
      return die("run");
    clock_gettime(CLOCK_MONOTONIC, &t1);
    ms[r] = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) * 1e-6;
  }
  qsort(ms, (size_t)runs, sizeof *ms, cmp);
  printf("%s: %d runs, %d thread(s)\n", argv[1], runs, dlc_session_num_threads(s));
  printf("min %.6f ms  median %.6f ms  p90 %.6f ms\n", ms[0], ms[(runs - 1) / 2],
         ms[(size_t)(0.9 * (runs - 1) + 0.5)]);
  for (size_t i = 0; i < ni; ++i)
    dlc_tensor_free(in[i]);
  for (size_t i = 0; i < no; ++i)
    dlc_tensor_free(out[i]);
  dlc_session_free(s);
  dlc_module_free(m);
  free(in);
  free(out);
  free(ms);
  return 0;
}
