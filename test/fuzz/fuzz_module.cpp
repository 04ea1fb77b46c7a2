// fuzz_module.cpp - libFuzzer target: the module loader. The input is checked as a module
// file (seal, size, hash: dlc_module_load, which must refuse it before dlopen) and parsed
// as a descriptor (dlc_module_create_from_symbols), whose accepted modules are queried.
#include "FuzzUtil.h"
#include "runtime/dlc_runtime.h"

#include <cstdlib>
#include <string>

static int32_t entry(void **, void *) { return 0; }

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dlc_module_t *m = nullptr;
  if (dlc_module_load(dlc::fuzz::inputFile(data, size, ".so").c_str(), &m) == DLC_OK)
    std::abort(); // only `dlc compile` can seal a library; random bytes never pass
  std::string text(reinterpret_cast<const char *>(data), size);
  if (dlc_module_create_from_symbols(text.c_str(), entry, nullptr, nullptr, &m) != DLC_OK)
    return 0;
  for (int output = 0; output < 2; ++output) {
    size_t n = output ? dlc_module_num_outputs(m) : dlc_module_num_inputs(m);
    for (size_t i = 0; i < n; ++i) {
      dlc_tensor_info_t info;
      if ((output ? dlc_module_output_info(m, i, &info) : dlc_module_input_info(m, i, &info)) !=
          DLC_OK)
        std::abort();
      size_t found = 0;
      if ((output ? dlc_module_find_output(m, info.name, &found)
                  : dlc_module_find_input(m, info.name, &found)) != DLC_OK ||
          found != i)
        std::abort(); // names are unique per kind
      volatile int64_t sum = 0;
      for (int32_t d = 0; d < info.rank; ++d)
        sum += info.shape[d];
    }
  }
  dlc_module_free(m);
  return 0;
}
