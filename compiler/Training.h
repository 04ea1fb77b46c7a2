// Training steps as a library: the trained forward model written back to ONNX.
#ifndef DLC_COMPILER_TRAINING_H
#define DLC_COMPILER_TRAINING_H

#include "runtime/dlc_runtime.h"

#include <string>

namespace dlc {

/// Writes the forward ONNX model a training step carries (`dlc compile --train`,
/// or jit::compileOnnxFile with CompileOptions::training) with the current
/// values of its parameters, atomically (`dlc train --save-onnx`). False with a
/// one-line `error` (e.g. a module that is not a training step).
bool saveTrainedOnnx(const dlc_module_t *module, const std::string &path, std::string &error);

} // namespace dlc

#endif
