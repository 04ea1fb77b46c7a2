// test_util.h - shared helpers for the runtime tests: RAII handles, temp files, hand-built .npy bytes.
#ifndef DLC_TEST_UNIT_RUNTIME_TEST_UTIL_H
#define DLC_TEST_UNIT_RUNTIME_TEST_UTIL_H

#include "dlc_runtime.h"

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
#include <sys/stat.h>

namespace dlc_test {

struct TensorDeleter {
  void operator()(dlc_tensor_t *t) const { dlc_tensor_free(t); }
};
struct ModuleDeleter {
  void operator()(dlc_module_t *m) const { dlc_module_free(m); }
};
struct SessionDeleter {
  void operator()(dlc_session_t *s) const { dlc_session_free(s); }
};
using TensorPtr = std::unique_ptr<dlc_tensor_t, TensorDeleter>;
using ModulePtr = std::unique_ptr<dlc_module_t, ModuleDeleter>;
using SessionPtr = std::unique_ptr<dlc_session_t, SessionDeleter>;

// A path inside the build tree's scratch directory. ctest runs test cases
// as separate processes in parallel, so every case uses its own names.
inline std::string tmpPath(const std::string &name) {
  mkdir(DLC_TEST_TMP_DIR, 0755); // EEXIST is fine
  return std::string(DLC_TEST_TMP_DIR) + "/" + name;
}

inline void writeFile(const std::string &path, const std::string &bytes) {
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f)
    throw std::runtime_error("cannot create " + path);
  std::fwrite(bytes.data(), 1, bytes.size(), f);
  std::fclose(f);
}

inline std::string readFile(const std::string &path) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    throw std::runtime_error("cannot open " + path);
  std::string bytes;
  char buf[4096];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
    bytes.append(buf, n);
  std::fclose(f);
  return bytes;
}

// A .npy file: magic, version, little-endian header length, `dict` padded
// with spaces and '\n' to a multiple of 64, then `data`.
inline std::string npyBytes(const std::string &dict, const std::string &data,
                            int major = 1) {
  size_t preamble = major == 1 ? 10 : 12;
  size_t total = (preamble + dict.size() + 1 + 63) / 64 * 64;
  size_t headerLen = total - preamble;
  std::string out("\x93NUMPY", 6);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < preamble - 8; ++i)
    out += static_cast<char>((headerLen >> (8 * i)) & 0xff);
  out += dict;
  out.append(headerLen - dict.size() - 1, ' ');
  out += '\n';
  return out + data;
}

template <typename T> std::string rawBytes(const T *values, size_t count) {
  return std::string(reinterpret_cast<const char *>(values),
                     count * sizeof(T));
}

inline std::string message() { return dlc_status_message(); }

} // namespace dlc_test

#endif // DLC_TEST_UNIT_RUNTIME_TEST_UTIL_H
