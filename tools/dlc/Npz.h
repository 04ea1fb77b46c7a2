// NumPy .npz archives (zip files of .npy entries, stored or deflated) as named tensors.
#ifndef DLC_TOOLS_DLC_NPZ_H
#define DLC_TOOLS_DLC_NPZ_H

#include "runtime/dlc_runtime.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace dlc::cli {

struct TensorDeleter {
  void operator()(dlc_tensor_t *t) const { dlc_tensor_free(t); }
};
using TensorPtr = std::unique_ptr<dlc_tensor_t, TensorDeleter>;

/// Reads every `NAME.npy` entry of the archive at `path` (np.savez or
/// np.savez_compressed, ZIP64 fields included). False with a one-line `error`
/// naming the file (and the entry) otherwise: also when an entry's CRC-32 does not
/// match or the entries would inflate to more than `maxBytes` in all.
bool loadNpz(const std::string &path, std::vector<std::pair<std::string, TensorPtr>> &out,
             std::string &error, uint64_t maxBytes);

} // namespace dlc::cli

#endif
