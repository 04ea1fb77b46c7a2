// Embedded JIT: compile an ONNX file or a dlc_graph module in process, get a runtime module.
//
//   std::vector<std::string> errors;
//   dlc_module_t *m = dlc::jit::compileOnnxFile("model.onnx", {}, errors);
//   dlc_session_t *s; dlc_session_create(m, 1, &s);  // then dlc_session_run, see dlc_runtime.h
//
// The returned module behaves exactly like one loaded from a `dlc compile`
// shared library; free it with dlc_module_free (which releases the JIT code).
//
// Training: set CompileOptions::training (a TrainingOptions: loss and output, optimizer,
// frozen initializers; compiler/TrainingSpec.h parses dlc compile --train's textual
// forms) and compileOnnxFile returns a training step: each dlc_session_run on (inputs...,
// labels) updates the parameters it holds and returns `loss`; read them with
// dlc_module_state_info or write the trained model with dlc::saveTrainedOnnx
// (compiler/Training.h). examples/train_onnx.cpp is a complete loop.
#ifndef DLC_COMPILER_JIT_JIT_H
#define DLC_COMPILER_JIT_JIT_H

#include "compiler/Compiler.h"
#include "runtime/dlc_runtime.h"

#include <string>
#include <vector>

namespace dlc::jit {

/// Compiles and loads an ONNX model. Returns null and fills `errors` (one-line
/// messages) on failure.
dlc_module_t *compileOnnxFile(const std::string &path, const CompileOptions &options,
                              std::vector<std::string> &errors);

/// Compiles a module already in `compilation` (e.g. from the C++ graph
/// builder) and loads it. The compilation can be discarded afterwards.
dlc_module_t *compile(Compilation &compilation, std::vector<std::string> &errors);

} // namespace dlc::jit

#endif
