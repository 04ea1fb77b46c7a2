// `dlc train`: runs a training-step module (dlc compile --train) over a dataset in batches.
#include "compiler/Compiler.h"
#include "compiler/Training.h"
#include "tools/dlc/Args.h"
#include "tools/dlc/Commands.h"
#include "tools/dlc/Npz.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <unistd.h>

namespace dlc::cli {

static const char *kHelp =
    "usage: dlc train STEP.so --data DATA.npz --steps N [--batch B] [--log-every K]\n"
    "                 [--save-onnx OUT.onnx] [--threads N] [--max-memory SIZE]\n"
    "\n"
    "Runs N optimization steps of a training-step module (dlc compile --train): each\n"
    "step takes the next batch of examples, computes the loss and its gradients and\n"
    "updates the parameters held in the module.\n"
    "\n"
    "options:\n"
    "  --data DATA.npz     arrays named after the step's inputs (the model's inputs and\n"
    "                      `labels`), first axis = examples (np.savez or savez_compressed)\n"
    "  --steps N           number of steps\n"
    "  --batch B           examples per step, taken in order and wrapping around (default:\n"
    "                      the whole set); must be the batch the step was compiled for,\n"
    "                      or, for a step compiled with a dynamic batch (--dims), any size\n"
    "                      in its range: the last batch of each pass over the set is then\n"
    "                      the examples left (a partial batch), and the next starts over\n"
    "  --log-every K       print `step <i> loss <value>` every K steps (default 1)\n"
    "  --save-onnx PATH    write the forward model with the trained weights (atomically)\n"
    "  --threads N         threads to run with (default: one per physical core)\n"
    "  --max-memory SIZE   the most the dataset may take once read (e.g. 4G; default:\n"
    "                      half of this machine's physical memory)\n"
    "\n"
    "stdout: `step <i> loss <value>` lines (i from 1); stderr: a progress line when it\n"
    "is a terminal.\n";

namespace {

struct Module {
  dlc_module_t *m = nullptr;
  dlc_session_t *s = nullptr;
  ~Module() {
    dlc_session_free(s);
    dlc_module_free(m);
  }
};

std::string shapeText(const dlc_module_t *m, const dlc_tensor_info_t &info) {
  return std::string(dlc_dtype_name(info.dtype)) + infoShapeString(m, info);
}

} // namespace

int trainCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2,
                 {{"--data", true}, {"--steps", true}, {"--batch", true}, {"--log-every", true},
                  {"--save-onnx", true}, {"--threads", true}, {"--max-memory", true},
                  {"--help", false}, {"-h", false}},
                 args, error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1)
    return fail("expected exactly one training-step module (dlc train STEP.so --data DATA.npz "
                "--steps N)");
  if (!args.has("--data"))
    return fail("missing --data DATA.npz");
  if (!args.has("--steps"))
    return fail("missing --steps N");
  long long steps = 0, logEvery = 1, batch = 0, threads = 0;
  if (!parseCount("--steps", args.get("--steps"), steps, error) ||
      (args.has("--log-every") && !parseCount("--log-every", args.get("--log-every"), logEvery, error)) ||
      (args.has("--batch") && !parseCount("--batch", args.get("--batch"), batch, error)) ||
      (args.has("--threads") && !parseCount("--threads", args.get("--threads"), threads, error)))
    return fail(error);
  const std::string &stepPath = args.positional[0];

  Module mod;
  if (dlc_module_load(stepPath.c_str(), &mod.m) != DLC_OK)
    return fail(dlc_status_message());
  size_t lossIndex;
  if (dlc_module_num_outputs(mod.m) != 1 ||
      dlc_module_find_output(mod.m, "loss", &lossIndex) != DLC_OK)
    return fail("'" + stepPath + "' is not a training step (it has no single 'loss' output); "
                "build one with dlc compile MODEL.onnx --train --loss=...");
  dlc_tensor_info_t lossInfo;
  dlc_module_output_info(mod.m, 0, &lossInfo);
  if (lossInfo.rank != 0 || (lossInfo.dtype != 1 && lossInfo.dtype != 11))
    return fail("'" + stepPath + "': output 'loss' is " + shapeText(mod.m, lossInfo) +
                ", expected a float scalar");

  std::vector<std::pair<std::string, TensorPtr>> arrays;
  const std::string dataPath = args.get("--data");
  uint64_t maxMemory = defaultMaxMemory();
  if (args.has("--max-memory") &&
      !parseBytes("--max-memory", args.get("--max-memory"), maxMemory, error))
    return fail(error);
  if (!loadNpz(dataPath, arrays, error, maxMemory))
    return fail(error);
  std::map<std::string, dlc_tensor_t *> byName;
  for (auto &[name, t] : arrays)
    byName[name] = t.get();

  // Check every input against its array: dtype, per-example shape, example count.
  size_t numInputs = dlc_module_num_inputs(mod.m);
  std::vector<dlc_tensor_t *> sources(numInputs);
  std::vector<TensorPtr> batches(numInputs);
  bool dynamicBatch = false;
  int64_t examples = -1;
  std::string firstArray;
  for (size_t i = 0; i < numInputs; ++i) {
    dlc_tensor_info_t info;
    dlc_module_input_info(mod.m, i, &info);
    auto it = byName.find(info.name);
    if (it == byName.end()) {
      std::string have;
      for (auto &[name, t] : arrays)
        have += (have.empty() ? "" : ", ") + name;
      return fail("'" + dataPath + "' has no array '" + info.name + "' (the step's input " +
                  shapeText(mod.m, info) + "; the archive has: " + have + ")");
    }
    dlc_tensor_t *src = it->second;
    int32_t rank = dlc_tensor_rank(src);
    const int64_t *shape = dlc_tensor_shape(src);
    std::string arrayText = std::string(dlc_dtype_name(dlc_tensor_dtype(src))) + "[";
    for (int32_t d = 0; d < rank; ++d)
      arrayText += (d ? "," : "") + std::to_string(shape[d]);
    arrayText += "]";
    bool ok = dlc_tensor_dtype(src) == info.dtype && rank == info.rank && rank >= 1;
    for (int32_t d = 1; ok && d < rank; ++d)
      ok = shape[d] == info.shape[d];
    if (!ok)
      return fail("'" + dataPath + "': array '" + info.name + "' is " + arrayText +
                  "; the step's input is " + shapeText(mod.m, info) +
                  " (the first axis counts examples)");
    if (examples < 0) {
      examples = shape[0];
      firstArray = info.name;
    } else if (shape[0] != examples)
      return fail("'" + dataPath + "': array '" + info.name + "' has " + std::to_string(shape[0]) +
                  " examples, '" + firstArray + "' has " + std::to_string(examples));
    int64_t compiled = info.shape[0];
    int64_t want = batch ? batch : examples;
    // A dynamic batch (dlc compile --dims): any size in its range.
    dlc_dim_info_t dim;
    if (info.dim_symbols[0] >= 0 &&
        dlc_module_dim_info(mod.m, size_t(info.dim_symbols[0]), &dim) == DLC_OK) {
      dynamicBatch = true;
      if (want < dim.min || want > dim.max)
        return fail("'" + stepPath + "' takes batches of " + dim.name + " in [" +
                    std::to_string(dim.min) + ", " + std::to_string(dim.max) + "] (input '" +
                    info.name + "' is " + shapeText(mod.m, info) + "), not " +
                    std::to_string(want) + (batch ? "" : " (the whole set); pass --batch"));
      compiled = want;
    }
    if (want != compiled)
      return fail("'" + stepPath + "' was compiled for batches of " + std::to_string(compiled) +
                  " (input '" + info.name + "' is " + shapeText(mod.m, info) + "), not " +
                  std::to_string(want) +
                  (batch ? "; pass --batch " + std::to_string(compiled)
                         : "; pass --batch " + std::to_string(compiled) +
                               " or compile with --input-shape for the whole set") );
    if (examples == 0)
      return fail("'" + dataPath + "' holds no examples");
    std::vector<int64_t> batchShape(info.shape, info.shape + info.rank);
    batchShape[0] = compiled;
    dlc_tensor_t *b = nullptr;
    if (dlc_tensor_create(info.dtype, info.rank, batchShape.data(), &b) != DLC_OK)
      return fail(dlc_status_message());
    sources[i] = src;
    batches[i].reset(b);
  }

  if (dlc_session_create(mod.m, (int32_t)threads, &mod.s) != DLC_OK)
    return fail(dlc_status_message());
  dlc_tensor_t *lossOut = nullptr;
  if (dlc_session_create_outputs(mod.s, &lossOut) != DLC_OK)
    return fail(dlc_status_message());
  TensorPtr lossHolder(lossOut);
  std::vector<const dlc_tensor_t *> inputs;
  for (auto &b : batches)
    inputs.push_back(b.get());

  bool progress = isatty(STDERR_FILENO), warnedNan = false;
  int64_t perBatch = batch ? batch : examples, cursor = 0;
  for (long long step = 1; step <= steps; ++step) {
    // The next perBatch examples, wrapping around the set; with a dynamic batch, the
    // examples left at the end of the set (a partial batch).
    int64_t take = dynamicBatch ? std::min(perBatch, examples - cursor) : perBatch;
    std::vector<TensorPtr> views;
    std::vector<const dlc_tensor_t *> stepInputs(inputs);
    for (size_t i = 0; i < numInputs; ++i) {
      size_t row = dlc_tensor_byte_size(sources[i]) / (size_t)examples;
      auto *dst = static_cast<char *>(dlc_tensor_data(batches[i].get()));
      auto *src = static_cast<const char *>(dlc_tensor_data(sources[i]));
      for (int64_t r = 0, at = cursor; r < take;) {
        int64_t run = std::min(take - r, examples - at);
        std::memcpy(dst + r * row, src + at * row, run * row);
        r += run;
        at = (at + run) % examples;
      }
      if (take != perBatch) { // the first `take` rows of the batch buffer
        const dlc_tensor_t *full = batches[i].get();
        std::vector<int64_t> shape(dlc_tensor_shape(full),
                                   dlc_tensor_shape(full) + dlc_tensor_rank(full));
        shape[0] = take;
        dlc_tensor_t *view = nullptr;
        if (dlc_tensor_wrap(dlc_tensor_dtype(full), dlc_tensor_rank(full), shape.data(),
                            dlc_tensor_data(batches[i].get()), &view) != DLC_OK)
          return fail(dlc_status_message());
        views.emplace_back(view);
        stepInputs[i] = view;
      }
    }
    cursor = (cursor + take) % examples;
    dlc_tensor_t *outs[1] = {lossOut};
    if (dlc_session_run(mod.s, stepInputs.data(), stepInputs.size(), outs, 1) != DLC_OK)
      return fail(dlc_status_message());
    double loss = lossInfo.dtype == 1 ? *static_cast<float *>(dlc_tensor_data(lossOut))
                                      : *static_cast<double *>(dlc_tensor_data(lossOut));
    if (std::isnan(loss) && !warnedNan) {
      warnedNan = true;
      std::fprintf(stderr,
                   "warning: loss is NaN at step %lld; every float initializer is trained, "
                   "including constants such as a Pow exponent or a mask value: keep those "
                   "with --freeze when compiling\n",
                   step);
    }
    if (step % logEvery == 0) {
      std::printf("step %lld loss %.9g\n", step, loss);
      std::fflush(stdout);
    }
    if (progress)
      std::fprintf(stderr, "\rstep %lld/%lld  loss %.6g", step, steps, loss);
  }
  if (progress)
    std::fputs("\n", stderr);
  if (args.has("--save-onnx") && !saveTrainedOnnx(mod.m, args.get("--save-onnx"), error))
    return fail("--save-onnx: " + error);
  return 0;
}

} // namespace dlc::cli
