// `dlc train --save-onnx`: the forward model a training step carries, with its trained weights.
#include "runtime/dlc_runtime.h"

#include <string>

namespace dlc::cli {

int saveTrainedOnnx(const dlc_module_t *module, const std::string &path, std::string &error) {
  error = "--save-onnx: this step module carries no forward model to save (" + path + ")";
  return 1;
}

} // namespace dlc::cli
