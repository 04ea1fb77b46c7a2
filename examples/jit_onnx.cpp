// Example: JIT-compile an ONNX model in process, run it on .npy inputs, print each output's head.
//
//   dlc-example-jit-onnx MODEL.onnx NAME=IN.npy...
//
// Every model input must be given once by name. Errors are one line starting
// with `error:`, exit code 1.
#include "compiler/Jit/Jit.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace {

int usage() {
  std::fprintf(stderr, "usage: dlc-example-jit-onnx MODEL.onnx NAME=IN.npy...\n");
  return 1;
}

int error(const std::string &msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  return 1;
}

std::string shapeString(const dlc_tensor_t *t) {
  std::string s = "[";
  for (int32_t i = 0; i < dlc_tensor_rank(t); ++i)
    s += (i ? "," : "") + std::to_string(dlc_tensor_shape(t)[i]);
  return s + "]";
}

/// Element i as text, for the dtypes a model commonly returns.
std::string element(const dlc_tensor_t *t, int64_t i) {
  const void *d = dlc_tensor_data(t);
  char buf[64];
  switch (dlc_tensor_dtype(t)) {
  case DLC_DTYPE_FLOAT:
    std::snprintf(buf, sizeof buf, "%g", static_cast<const float *>(d)[i]);
    break;
  case DLC_DTYPE_DOUBLE:
    std::snprintf(buf, sizeof buf, "%g", static_cast<const double *>(d)[i]);
    break;
  case DLC_DTYPE_INT32:
    std::snprintf(buf, sizeof buf, "%d", static_cast<const int32_t *>(d)[i]);
    break;
  case DLC_DTYPE_INT64:
    std::snprintf(buf, sizeof buf, "%lld", (long long)static_cast<const int64_t *>(d)[i]);
    break;
  case DLC_DTYPE_BOOL:
  case DLC_DTYPE_UINT8:
    std::snprintf(buf, sizeof buf, "%u", static_cast<const uint8_t *>(d)[i]);
    break;
  case DLC_DTYPE_INT8:
    std::snprintf(buf, sizeof buf, "%d", static_cast<const int8_t *>(d)[i]);
    break;
  default: return "?";
  }
  return buf;
}

/// Owns everything the run creates, so every exit path frees it.
struct Run {
  dlc_module_t *module = nullptr;
  dlc_session_t *session = nullptr;
  std::vector<dlc_tensor_t *> inputs, outputs;
  ~Run() {
    for (dlc_tensor_t *t : inputs)
      dlc_tensor_free(t);
    for (dlc_tensor_t *t : outputs)
      dlc_tensor_free(t);
    dlc_session_free(session);
    dlc_module_free(module);
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") return usage();
  std::string model = argv[1];
  std::map<std::string, std::string> files; // input name -> .npy path
  for (int i = 2; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.rfind('=');
    if (eq == std::string::npos || eq == 0)
      return error("expected NAME=FILE.npy, got '" + arg + "'");
    if (!files.emplace(arg.substr(0, eq), arg.substr(eq + 1)).second)
      return error("input '" + arg.substr(0, eq) + "' is given twice");
  }

  Run r;
  std::vector<std::string> errors;
  r.module = dlc::jit::compileOnnxFile(model, {}, errors);
  if (!r.module) return error(errors.empty() ? model + ": compilation failed" : errors.front());

  size_t numInputs = dlc_module_num_inputs(r.module);
  for (size_t i = 0; i < numInputs; ++i) {
    dlc_tensor_info_t info;
    dlc_module_input_info(r.module, i, &info);
    auto it = files.find(info.name);
    if (it == files.end())
      return error(std::string("missing input '") + info.name + "' (give " + info.name +
                   "=FILE.npy)");
    dlc_tensor_t *t = nullptr;
    if (dlc_tensor_load_npy(it->second.c_str(), &t) != DLC_OK) return error(dlc_status_message());
    r.inputs.push_back(t);
    files.erase(it);
  }
  if (!files.empty())
    return error(model + ": the model has no input '" + files.begin()->first + "'");

  r.outputs.assign(dlc_module_num_outputs(r.module), nullptr);
  if (dlc_session_create(r.module, 0, &r.session) != DLC_OK ||
      dlc_session_create_outputs(r.session, r.outputs.data()) != DLC_OK ||
      dlc_session_run(r.session, r.inputs.data(), r.inputs.size(), r.outputs.data(),
                      r.outputs.size()) != DLC_OK)
    return error(dlc_status_message());

  for (size_t i = 0; i < r.outputs.size(); ++i) {
    dlc_tensor_info_t info;
    dlc_module_output_info(r.module, i, &info);
    const dlc_tensor_t *t = r.outputs[i];
    int64_t n = dlc_tensor_num_elements(t), shown = n < 8 ? n : 8;
    std::string values;
    for (int64_t k = 0; k < shown; ++k)
      values += (k ? " " : "") + element(t, k);
    std::printf("%s: %s %s: %s%s\n", info.name, dlc_dtype_name(dlc_tensor_dtype(t)),
                shapeString(t).c_str(), values.c_str(), n > shown ? " ..." : "");
  }
  return 0;
}
