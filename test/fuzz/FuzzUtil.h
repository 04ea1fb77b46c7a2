// FuzzUtil.h - helpers shared by the libFuzzer targets: the input as a file.
#ifndef DLC_TEST_FUZZ_FUZZUTIL_H
#define DLC_TEST_FUZZ_FUZZUTIL_H

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <unistd.h>

namespace dlc::fuzz {

/// Writes the fuzz input to a per-process file (in /dev/shm when it exists)
/// and returns its path: the readers under test take paths, as users give them.
inline const std::string &inputFile(const uint8_t *data, size_t size, const char *suffix) {
  static std::string path;
  std::string dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  path = dir + "/dlc-fuzz-" + std::to_string(getpid()) + suffix;
  FILE *f = std::fopen(path.c_str(), "wb");
  if (f) {
    if (size)
      std::fwrite(data, 1, size, f);
    std::fclose(f);
  }
  return path;
}

} // namespace dlc::fuzz

#endif
