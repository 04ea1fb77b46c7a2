// Training steps as a library: the trained forward model written back to ONNX.
#include "compiler/Training.h"
#include "frontends/Onnx/Importer.h"

#include <map>

namespace dlc {

bool saveTrainedOnnx(const dlc_module_t *module, const std::string &path, std::string &error) {
  const void *model = nullptr;
  size_t size = 0;
  if (dlc_module_embedded_onnx(module, &model, &size) != DLC_OK) {
    error = dlc_status_message();
    return false;
  }
  std::map<std::string, std::string> values;
  for (size_t i = 0; i < dlc_module_num_states(module); ++i) {
    dlc_tensor_info_t info;
    void *data = nullptr;
    if (dlc_module_state_info(module, i, &info, &data) != DLC_OK) {
      error = dlc_status_message();
      return false;
    }
    size_t bytes = dlc_dtype_size(info.dtype);
    for (int32_t d = 0; d < info.rank; ++d)
      bytes *= (size_t)info.shape[d];
    values[info.name] = std::string(static_cast<const char *>(data), bytes);
  }
  return onnx_frontend::writeModelWithInitializers(
      std::string(static_cast<const char *>(model), size), values, path, error);
}

} // namespace dlc
