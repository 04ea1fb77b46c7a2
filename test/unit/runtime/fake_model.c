/* fake_model.c - a hand-written stand-in for a compiled dlc model, dlopen'ed by the runtime tests. */
#include <stdint.h>

#include "dlc_abi.h"

#define FAKE_EXPORT __attribute__((visibility("default")))

/* Left undefined, as in generated code: bound at load time to the runtime
 * already in the process. */
extern void dlc_runtime_parallel_for(void *runtime_ctx, int64_t n,
                                     dlc_abi_parallel_body_fn fn,
                                     void *closure);

/* y = x + bias (broadcast over rows); count = number of elements of y.
 * Names exercise percent-decoding: "y%20out" is "y out". */
FAKE_EXPORT const char dlc_module_descriptor[] = "dlc-module 1\n"
                                                 "input x:0 1 2 2 3\n"
                                                 "input bias 1 1 3\n"
                                                 "output y%20out 1 2 2 3\n"
                                                 "output count 7 0\n";

typedef struct {
  const float *x;
  const float *bias;
  float *y;
} add_closure_t;

static void add_body(void *closure, int64_t begin, int64_t end) {
  add_closure_t *c = closure;
  for (int64_t i = begin; i < end; ++i)
    c->y[i] = c->x[i] + c->bias[i % 3];
}

FAKE_EXPORT int32_t dlc_module_entry(void **buffers, void *runtime_ctx) {
  add_closure_t c = {buffers[0], buffers[1], buffers[2]};
  dlc_runtime_parallel_for(runtime_ctx, 6, add_body, &c);
  *(int64_t *)buffers[3] = 6;
  return 0;
}
