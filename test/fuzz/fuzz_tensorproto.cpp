// fuzz_tensorproto.cpp - libFuzzer target: ONNX value files (TensorProto, SequenceProto,
// OptionalProto) as `dlc run --input X.pb` reads them. The first byte picks the kind.
#include "FuzzUtil.h"
#include "compiler/TensorFile.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0)
    return 0;
  bool sequence = data[0] & 1, optional = data[0] & 2;
  dlc::onnxio::ValueContents value;
  std::string error;
  const std::string &path = dlc::fuzz::inputFile(data + 1, size - 1, ".pb");
  (void)dlc::onnxio::loadValueFile(path, sequence, optional, value, error);
  for (dlc_tensor_t *t : value.tensors)
    dlc_tensor_free(t);
  return 0;
}
