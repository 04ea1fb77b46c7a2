// fuzz_npz.cpp - libFuzzer target: the .npz reader of `dlc train --data` (zip, deflate, CRC,
// inflation cap), on the input as a file.
#include "FuzzUtil.h"
#include "tools/dlc/Npz.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::vector<std::pair<std::string, dlc::cli::TensorPtr>> tensors;
  std::string error;
  // A 16 MiB budget: the reader must refuse anything that would inflate past it.
  (void)dlc::cli::loadNpz(dlc::fuzz::inputFile(data, size, ".npz"), tensors, error, 16u << 20);
  return 0;
}
