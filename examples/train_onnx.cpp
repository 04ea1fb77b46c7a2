// Example: train an ONNX model in process. JIT-compile it as a training step (loss, autodiff
// and optimizer in one compiled function), run it in a loop, save the trained model, and
// evaluate the saved model with a second (inference) JIT module.
//
//   dlc-example-train MODEL.onnx xor|classes LOSS OPTIMIZER STEPS [OUT.onnx]
//
//   xor:     the 4 XOR examples (input x [4, 2], labels [4, 1]); LOSS e.g. mse:y
//   classes: 1024 examples of 10 noisy Gaussian classes (input x [B, 784], labels int64 [B]),
//            in batches of the model's B; LOSS e.g. xent:y; prints the training accuracy
//
// LOSS and OPTIMIZER take the forms of `dlc compile --train` (e.g. sgd:lr=0.1). Prints
// `step <i> loss <value>` per step, like `dlc train`. Errors: one line, exit code 1.
#include "compiler/Jit/Jit.h"
#include "compiler/Training.h"
#include "compiler/TrainingSpec.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

int error(const std::string &msg) {
  std::fprintf(stderr, "error: %s\n", msg.c_str());
  return 1;
}

struct Dataset {
  int64_t examples = 0, features = 0;
  std::vector<float> x;
  std::vector<float> targets; // xor
  std::vector<int64_t> classes; // classes
};

Dataset makeXor() {
  Dataset d;
  d.examples = 4;
  d.features = 2;
  d.x = {0, 0, 0, 1, 1, 0, 1, 1};
  d.targets = {0, 1, 1, 0};
  return d;
}

Dataset makeClasses() {
  Dataset d;
  d.examples = 1024;
  d.features = 784;
  std::mt19937 rng(7);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> centers(10 * 784);
  for (float &c : centers)
    c = 0.25f * normal(rng);
  for (int64_t i = 0; i < d.examples; ++i) {
    int64_t c = rng() % 10;
    d.classes.push_back(c);
    for (int64_t f = 0; f < 784; ++f)
      d.x.push_back(centers[c * 784 + f] + normal(rng));
  }
  return d;
}

/// Frees the session, the module and the tensors it owns on every path.
struct Run {
  dlc_module_t *module = nullptr;
  dlc_session_t *session = nullptr;
  std::vector<dlc_tensor_t *> tensors;
  ~Run() {
    for (dlc_tensor_t *t : tensors)
      dlc_tensor_free(t);
    dlc_session_free(session);
    dlc_module_free(module);
  }
  dlc_tensor_t *tensor(dlc_dtype_t dtype, std::vector<int64_t> shape) {
    dlc_tensor_t *t = nullptr;
    if (dlc_tensor_create(dtype, (int32_t)shape.size(), shape.data(), &t) == DLC_OK)
      tensors.push_back(t);
    return t;
  }
};

} // namespace

int main(int argc, char **argv) {
  if (argc < 6 || argc > 7)
    return error("usage: dlc-example-train MODEL.onnx xor|classes LOSS OPTIMIZER STEPS [OUT.onnx]");
  std::string model = argv[1], task = argv[2];
  if (task != "xor" && task != "classes")
    return error("unknown task '" + task + "' (expected xor or classes)");
  long steps = std::strtol(argv[5], nullptr, 10);
  if (steps <= 0)
    return error("STEPS must be a positive integer");
  Dataset data = task == "xor" ? makeXor() : makeClasses();

  // 1. The training step: the model's inputs plus `labels` in, `loss` out.
  dlc::CompileOptions options;
  dlc::TrainingOptions training;
  std::string specError;
  if (!dlc::parseLossSpec(argv[3], training, specError) ||
      !dlc::parseOptimizerSpec(argv[4], training, specError))
    return error("invalid LOSS or OPTIMIZER: " + specError);
  options.training = training;
  std::vector<std::string> errors;
  Run step;
  step.module = dlc::jit::compileOnnxFile(model, options, errors);
  if (!step.module)
    return error(errors.empty() ? "compilation failed" : errors.front());
  dlc_tensor_info_t xInfo;
  if (dlc_module_num_inputs(step.module) != 2 || dlc_module_input_info(step.module, 0, &xInfo) != DLC_OK ||
      xInfo.rank != 2 || xInfo.shape[1] != data.features || data.examples % xInfo.shape[0] != 0)
    return error("the model must take x [B, " + std::to_string(data.features) + "] with B dividing " +
                 std::to_string(data.examples));
  int64_t batch = xInfo.shape[0];
  if (dlc_session_create(step.module, 0, &step.session) != DLC_OK)
    return error(dlc_status_message());
  dlc_tensor_t *x = step.tensor(DLC_DTYPE_FLOAT, {batch, data.features});
  dlc_tensor_t *labels = task == "xor" ? step.tensor(DLC_DTYPE_FLOAT, {batch, 1})
                                       : step.tensor(DLC_DTYPE_INT64, {batch});
  dlc_tensor_t *loss = step.tensor(DLC_DTYPE_FLOAT, {});
  if (!x || !labels || !loss)
    return error(dlc_status_message());

  // 2. The loop: batches in order, wrapping around the set.
  for (long i = 1; i <= steps; ++i) {
    int64_t first = ((i - 1) * batch) % data.examples;
    std::memcpy(dlc_tensor_data(x), &data.x[first * data.features],
                sizeof(float) * batch * data.features);
    if (task == "xor")
      std::memcpy(dlc_tensor_data(labels), &data.targets[first], sizeof(float) * batch);
    else
      std::memcpy(dlc_tensor_data(labels), &data.classes[first], sizeof(int64_t) * batch);
    const dlc_tensor_t *inputs[] = {x, labels};
    dlc_tensor_t *outputs[] = {loss};
    if (dlc_session_run(step.session, inputs, 2, outputs, 1) != DLC_OK)
      return error(dlc_status_message());
    std::printf("step %ld loss %.9g\n", i, *static_cast<float *>(dlc_tensor_data(loss)));
  }

  // 3. The trained model, as ONNX, evaluated by an inference module.
  std::string out = argc == 7 ? argv[6] : "trained.onnx";
  std::string why;
  if (!dlc::saveTrainedOnnx(step.module, out, why))
    return error(why);
  Run eval;
  eval.module = dlc::jit::compileOnnxFile(out, {}, errors);
  if (!eval.module || dlc_session_create(eval.module, 0, &eval.session) != DLC_OK)
    return error(errors.empty() ? dlc_status_message() : errors.front());
  dlc_tensor_info_t yInfo;
  dlc_module_output_info(eval.module, 0, &yInfo);
  dlc_tensor_t *y = eval.tensor(DLC_DTYPE_FLOAT, std::vector<int64_t>(yInfo.shape, yInfo.shape + yInfo.rank));
  int64_t correct = 0;
  for (int64_t first = 0; first < data.examples; first += batch) {
    std::memcpy(dlc_tensor_data(x), &data.x[first * data.features], sizeof(float) * batch * data.features);
    const dlc_tensor_t *inputs[] = {x};
    dlc_tensor_t *outputs[] = {y};
    if (dlc_session_run(eval.session, inputs, 1, outputs, 1) != DLC_OK)
      return error(dlc_status_message());
    const float *p = static_cast<const float *>(dlc_tensor_data(y));
    for (int64_t r = 0; r < batch; ++r) {
      if (task == "xor") {
        correct += (p[r] > 0.5f) == (data.targets[first + r] > 0.5f);
        continue;
      }
      int64_t best = 0;
      for (int64_t c = 1; c < yInfo.shape[1]; ++c)
        if (p[r * yInfo.shape[1] + c] > p[r * yInfo.shape[1] + best])
          best = c;
      correct += best == data.classes[first + r];
    }
  }
  std::printf("accuracy %.4f\n", double(correct) / double(data.examples));
  return 0;
}
