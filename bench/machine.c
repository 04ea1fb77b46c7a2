// Machine microbenchmarks for bench/run: fp32 FMA, int8 and bf16 dot-product peaks and
// streaming memory bandwidth.
//
// Built by bench/run.py with `clang-22 -O2 -march=native -pthread`.
// usage: machine THREADS   prints one JSON object:
//   {"isa": "avx512", "threads": T, "fma_gflops": G, "int8_gops": I, "vnni_gops": V,
//    "bf16_gflops": F, "copy_gbs": C, "triad_gbs": R}
// fma_gflops: T threads, each running 12 independent FMA accumulator chains (enough to hide
//   the 4-cycle FMA latency on 2 FMA pipes), best of 5; a vector FMA counts 2 flops per lane.
// vnni_gops / bf16_gflops: the same with 16 chains of vpdpbusd zmm (64 u8 x s8 products per
//   instruction, 2 ops each) and vdpbf16ps zmm (32 bf16 products); null without AVX-512 VNNI
//   or AVX512-BF16.
// int8_gops: the exact 8-bit dot-product peak dlc's int8 kernels run at: vnni_gops with
//   AVX-512 VNNI, else 12 chains of vpmaddwd + vpaddd ymm (16 products of i16-widened 8-bit
//   values per pair, AVX2: the exact route; vpmaddubsw's i16 sums saturate).
// copy_gbs / triad_gbs: a[i] = b[i] and a[i] = b[i] + s*c[i] over 64 Mi-float arrays
//   (256 MiB each, far larger than L3), the index range split between T threads; bytes are
//   counted STREAM-style (8 per element for copy, 12 for triad, no write-allocate), best of 5.
#include <immintrin.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#if defined(__AVX512F__)
typedef __m512 vec;
#define LANES 16
#define ISA "avx512"
#define VSET1 _mm512_set1_ps
#define VFMA _mm512_fmadd_ps
#define VADD _mm512_add_ps
#define VSTORE _mm512_storeu_ps
#elif defined(__AVX2__) && defined(__FMA__)
typedef __m256 vec;
#define LANES 8
#define ISA "avx2"
#define VSET1 _mm256_set1_ps
#define VFMA _mm256_fmadd_ps
#define VADD _mm256_add_ps
#define VSTORE _mm256_storeu_ps
#else
#error "needs AVX-512F or AVX2+FMA (compile with -march=native on such a CPU)"
#endif

#define CHAINS 12
#define FMA_ITERS 20000000L
#define N_ELEMS (64L * 1024 * 1024)
#define REPEATS 5

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static volatile float sink;  // keeps the results alive
// Loaded at run time so the compiler cannot constant-fold the FMA chains away.
static volatile float va = 0.9999999f, vb = 1e-7f, v0 = 1.0f;

static void *fma_worker(void *arg) {
  (void)arg;
  vec acc[CHAINS];
  for (int c = 0; c < CHAINS; ++c) acc[c] = VSET1(v0 + c * 1e-3f);
  // acc = acc*a + b converges to b/(1-a): no overflow, no denormals.
  const vec a = VSET1(va), b = VSET1(vb);
  for (long i = 0; i < FMA_ITERS; ++i)
    for (int c = 0; c < CHAINS; ++c) acc[c] = VFMA(acc[c], a, b);
  vec s = acc[0];
  for (int c = 1; c < CHAINS; ++c) s = VADD(s, acc[c]);
  float out[LANES];
  VSTORE(out, s);
  sink = out[0];
  return NULL;
}

#define DOT_CHAINS 16
#if defined(__AVX512VNNI__)
static void *vnni_worker(void *arg) {
  (void)arg;
  __m512i acc[DOT_CHAINS];
  for (int c = 0; c < DOT_CHAINS; ++c) acc[c] = _mm512_set1_epi32(c);
  // Products of 1 and 1: the sums grow by 4 per lane per step, never overflowing.
  const __m512i a = _mm512_set1_epi8((char)(v0 > 0)), b = _mm512_set1_epi8((char)(v0 > 0));
  for (long i = 0; i < FMA_ITERS; ++i)
    for (int c = 0; c < DOT_CHAINS; ++c) acc[c] = _mm512_dpbusd_epi32(acc[c], a, b);
  __m512i s = acc[0];
  for (int c = 1; c < DOT_CHAINS; ++c) s = _mm512_add_epi32(s, acc[c]);
  sink = (float)_mm512_reduce_add_epi32(s);
  return NULL;
}
#endif
// AVX2's exact 8-bit route: 8-bit values widened to i16, vpmaddwd + vpaddd. Inline asm:
// with intrinsics the compiler hoists or merges the loop-invariant products.
#if !defined(__AVX512VNNI__)
#define PMADD_STEP(n) "vpmaddwd %%ymm12, %%ymm13, %%ymm14\n\tvpaddd %%ymm14, %%ymm" #n ", %%ymm" #n "\n\t"
static void *pmaddwd_worker(void *arg) {
  (void)arg;
  for (long i = 0; i < FMA_ITERS; ++i)
    __asm__ volatile(PMADD_STEP(0) PMADD_STEP(1) PMADD_STEP(2) PMADD_STEP(3) PMADD_STEP(4)
                     PMADD_STEP(5) PMADD_STEP(6) PMADD_STEP(7) PMADD_STEP(8) PMADD_STEP(9)
                     PMADD_STEP(10) PMADD_STEP(11)
                     ::: "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7",
                         "xmm8", "xmm9", "xmm10", "xmm11", "xmm14");
  return NULL;
}
#endif

#if defined(__AVX512BF16__)
static void *bf16_worker(void *arg) {
  (void)arg;
  __m512 acc[DOT_CHAINS];
  for (int c = 0; c < DOT_CHAINS; ++c) acc[c] = _mm512_set1_ps(v0 + c * 1e-3f);
  const __m512bh a = _mm512_cvtne2ps_pbh(_mm512_set1_ps(vb), _mm512_set1_ps(vb));
  for (long i = 0; i < FMA_ITERS; ++i)
    for (int c = 0; c < DOT_CHAINS; ++c) acc[c] = _mm512_dpbf16_ps(acc[c], a, a);
  __m512 s = acc[0];
  for (int c = 1; c < DOT_CHAINS; ++c) s = _mm512_add_ps(s, acc[c]);
  sink = _mm512_reduce_add_ps(s);
  return NULL;
}
#endif

enum { COPY, TRIAD, INIT };
static float *A, *B, *C;
static int nthreads, kernel;

static void *stream_worker(void *arg) {
  long t = (long)arg, chunk = N_ELEMS / nthreads;
  long lo = t * chunk, hi = (t == nthreads - 1) ? N_ELEMS : lo + chunk;
  float *restrict a = A, *restrict b = B, *restrict c = C;
  const float s = 3.0f;
  if (kernel == INIT)  // first touch by the thread that streams the range later
    for (long i = lo; i < hi; ++i) a[i] = 0.0f, b[i] = 1.0f, c[i] = 2.0f;
  else if (kernel == COPY)
    for (long i = lo; i < hi; ++i) a[i] = b[i];
  else
    for (long i = lo; i < hi; ++i) a[i] = b[i] + s * c[i];
  return NULL;
}

// Runs `fn` on nthreads threads (the calling thread is one of them); returns the wall time.
static double run_threads(void *(*fn)(void *)) {
  pthread_t tid[64];
  double t0 = now();
  for (long t = 1; t < nthreads; ++t) pthread_create(&tid[t], NULL, fn, (void *)t);
  fn((void *)0);
  for (long t = 1; t < nthreads; ++t) pthread_join(tid[t], NULL);
  return now() - t0;
}

static double best_time(void *(*fn)(void *), int k) {
  double best = 1e30;
  kernel = k;
  for (int r = 0; r < REPEATS; ++r) {
    double dt = run_threads(fn);
    if (dt < best) best = dt;
  }
  return best;
}

int main(int argc, char **argv) {
  nthreads = argc > 1 ? atoi(argv[1]) : 1;
  if (nthreads < 1 || nthreads > 64) return fprintf(stderr, "bad thread count\n"), 2;

  double fma_s = best_time(fma_worker, 0);
  double flops = (double)nthreads * FMA_ITERS * CHAINS * LANES * 2;
  // Ops of the dot-product peaks (2 per product), "null" where the CPU lacks them.
  char vnni[32] = "null", bf16[32] = "null";
  double dots = (double)nthreads * FMA_ITERS * DOT_CHAINS;
double int8_gops;
#if defined(__AVX512VNNI__)
  int8_gops = dots * 64 * 2 / best_time(vnni_worker, 0) * 1e-9;
  snprintf(vnni, sizeof vnni, "%.2f", int8_gops);
#else
  int8_gops = (double)nthreads * FMA_ITERS * CHAINS * 16 * 2 / best_time(pmaddwd_worker, 0) * 1e-9;
#endif
#if defined(__AVX512BF16__)
  snprintf(bf16, sizeof bf16, "%.2f", dots * 32 * 2 / best_time(bf16_worker, 0) * 1e-9);
#endif

  A = aligned_alloc(64, N_ELEMS * sizeof(float));
  B = aligned_alloc(64, N_ELEMS * sizeof(float));
  C = aligned_alloc(64, N_ELEMS * sizeof(float));
  if (!A || !B || !C) return fprintf(stderr, "out of memory\n"), 1;
  kernel = INIT;
  run_threads(stream_worker);
  double copy_s = best_time(stream_worker, COPY);
  double triad_s = best_time(stream_worker, TRIAD);
  sink = A[N_ELEMS / 2];

  printf("{\"isa\": \"%s\", \"threads\": %d, \"fma_gflops\": %.2f, \"int8_gops\": %.2f, "
         "\"vnni_gops\": %s, \"bf16_gflops\": %s, \"copy_gbs\": %.2f, \"triad_gbs\": %.2f}\n",
         ISA, nthreads, flops / fma_s * 1e-9, int8_gops, vnni, bf16, 8.0 * N_ELEMS / copy_s * 1e-9,
         12.0 * N_ELEMS / triad_s * 1e-9);
  return 0;
}
