// dlc_regex.cc - RegexFullMatch for compiled models: RE2 (the syntax ONNX specifies), each
// pattern compiled once per process.
#include "dlc_internal.h"

#include <re2/re2.h>

#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace {
std::mutex gMutex;
std::unordered_map<std::string, std::unique_ptr<re2::RE2>> gCompiled;

const re2::RE2 *compiled(const std::string &pattern) {
  std::lock_guard<std::mutex> lock(gMutex);
  auto &slot = gCompiled[pattern];
  if (!slot) {
    re2::RE2::Options options;
    options.set_log_errors(false);
    slot = std::make_unique<re2::RE2>(pattern, options);
  }
  return slot.get();
}
} // namespace

extern "C" int32_t dlc_rt_regex_full_match(dlc_abi_string_t s, dlc_abi_string_t pattern) {
  const char *sp = (const char *)(uintptr_t)(uint64_t)s;
  const char *pp = (const char *)(uintptr_t)(uint64_t)pattern;
  size_t sn = (size_t)(uint64_t)(s >> 64), pn = (size_t)(uint64_t)(pattern >> 64);
  const re2::RE2 *re = compiled(std::string(pp ? pp : "", pn));
  if (!re->ok()) // the compiler checks patterns: only a hand-made module gets here
    return 0;
  return re2::RE2::FullMatch(re2::StringPiece(sp ? sp : "", sn), *re);
}
