/* dlc_bf16.c - the f32 -> bf16 conversion compiled models may call on CPUs without AVX512-BF16. */
#include "dlc_internal.h"

#include <stdint.h>
#include <string.h>

/* LLVM computes bf16 values it cannot keep in bf16 registers (a select or shuffle of bf16
 * vectors, on a CPU without AVX512-BF16) in f32 and rounds them back through this
 * compiler-rt builtin. Debian 12's libgcc (GCC 12) does not have it and compiled models
 * are not linked against compiler-rt, so the runtime provides it to AOT libraries and the
 * JIT alike: round to nearest even, NaN kept quiet with its sign. The compiler emits most
 * conversions inline (dlc-x86-lower-intrinsics); this is the fallback for LLVM's own. */
DLC_API __bf16 __truncsfbf2(float x) {
  uint32_t u;
  memcpy(&u, &x, sizeof u);
  uint16_t h;
  if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN */
    h = (uint16_t)((u >> 16) | 0x0040u);
  else
    h = (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  __bf16 r;
  memcpy(&r, &h, sizeof r);
  return r;
}
