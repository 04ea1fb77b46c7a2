// `dlc quantize`: post-training quantization. Runs the float model on calibration data
// (JIT, every activation a contraction reads as an extra output), chooses each one's
// range, and writes a standard QDQ model (compiler/Quantize) that ONNX Runtime and dlc run.
#include "compiler/Compiler.h"
#include "compiler/Jit/Jit.h"
#include "compiler/Quantize/Calibration.h"
#include "compiler/Quantize/QdqModel.h"
#include "compiler/Quantize/ModelEdit.h"
#include "compiler/TensorFile.h"
#include "tools/dlc/Args.h"
#include "tools/dlc/Commands.h"
#include "tools/dlc/Npz.h"

#include <onnx/onnx_pb.h>
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace dlc::cli {
namespace {

const char *kQuantizeHelp =
    "usage: dlc quantize MODEL.onnx --calib DATA.npz -o OUT.onnx\n"
    "                    [--method=minmax|percentile[:P]|entropy] [--per-channel]\n"
    "                    [--exclude=NODE,...] [--threads N] [--max-memory BYTES] [-q]\n"
    "       dlc quantize MODEL.onnx --dynamic -o OUT.onnx [--per-channel] [--exclude=...]\n"
    "       dlc quantize MODEL.onnx --int4-weights -o OUT.onnx [--exclude=...]\n"
    "\n"
    "Post-training quantization: runs MODEL on the calibration data, records the range\n"
    "of every activation a Conv, MatMul or Gemm reads, and writes OUT.onnx in the\n"
    "standard QDQ form: QuantizeLinear/DequantizeLinear (uint8, asymmetric, per tensor)\n"
    "on those activations, int8 symmetric weights and int32 biases behind\n"
    "DequantizeLinear. ONNX Runtime loads and runs it; `dlc compile OUT.onnx` compiles\n"
    "its contractions to int8 kernels. Contractions with no constant weight, or whose\n"
    "activation is not float, stay float; every Conv/MatMul/Gemm gets a report line on\n"
    "stderr (quantized with its range, or kept float and why).\n"
    "\n"
    "Calibration data: one array per model input, named like it, of the input's dtype;\n"
    "the first axis counts examples: an array of the input's rank is cut into batches of\n"
    "the input's first dim (1 where it is symbolic), one of rank + 1 holds one whole\n"
    "input per entry of its first axis. The other dims must match the input's.\n"
    "\n"
    "options:\n"
    "  --calib DATA.npz        calibration inputs (np.savez), e.g. 64 to 512 examples\n"
    "  --dynamic               no calibration: MatMul and Gemm weights as s8 and their\n"
    "                          activations quantized per call (DynamicQuantizeLinear +\n"
    "                          MatMulInteger: ONNX Runtime's quantize_dynamic form)\n"
    "  --int4-weights          no calibration: MatMul/Gemm weights of 4096 elements or\n"
    "                          more as 4-bit codes, blocks of 32 along K with a scale and\n"
    "                          zero point each (com.microsoft MatMulNBits, as ONNX\n"
    "                          Runtime's int4 tools write); activations stay float\n"
    "  -o OUT.onnx             the quantized model (written only on success)\n"
    "  --method=M              minmax (default): the extremes seen; percentile[:P]: clip\n"
    "                          |x| at its P-th percentile (default 99.99); entropy: the\n"
    "                          clipping threshold of least KL divergence (TensorRT's)\n"
    "  --per-channel           one weight scale per output channel (opset >= 13)\n"
    "  --exclude=NODE,...      keep these nodes float (names as in dlc verify -v)\n"
    "  --threads N             threads of the calibration runs\n"
    "  --max-memory BYTES      limit on the calibration data and the runs (e.g. 8G)\n"
    "  -q, --quiet             no per-node report\n"
    "  -h, --help              show this help\n";

std::string tensorText(int dtype, const std::vector<int64_t> &dims) {
  return std::string(dlc_dtype_name(dlc_dtype_t(dtype))) + shapeString(int32_t(dims.size()), dims.data());
}

/// A graph input: name, ONNX dtype, dims (-1 where symbolic).
struct GraphInput {
  std::string name;
  int dtype = 0;
  std::vector<int64_t> dims;
};

std::vector<GraphInput> graphInputs(const onnx::ModelProto &model) {
  std::set<std::string> inits;
  for (const auto &t : model.graph().initializer())
    inits.insert(t.name());
  std::vector<GraphInput> out;
  for (const auto &vi : model.graph().input()) {
    if (inits.count(vi.name()))
      continue;
    GraphInput in;
    in.name = vi.name();
    const auto &tt = vi.type().tensor_type();
    in.dtype = tt.elem_type();
    for (const auto &d : tt.shape().dim())
      in.dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
    out.push_back(in);
  }
  return out;
}

/// One input's calibration array, cut into per-run views.
struct InputBatches {
  const dlc_tensor_t *array = nullptr;
  std::vector<int64_t> runShape; // what one run feeds
  int64_t runs = 0;
};

/// Matches the archive's arrays to the model's inputs; false with a one-line `error`.
bool matchCalibration(const std::string &dataPath, const std::vector<GraphInput> &inputs,
                      const std::vector<std::pair<std::string, TensorPtr>> &arrays,
                      std::vector<InputBatches> &out, std::string &error) {
  std::map<std::string, const dlc_tensor_t *> byName;
  std::string have, names;
  for (const auto &[name, t] : arrays) {
    byName[name] = t.get();
    have += (have.empty() ? "" : ", ") + name;
  }
  for (const auto &in : inputs)
    names += (names.empty() ? "'" : ", '") + in.name + "'";
  for (const auto &[name, t] : arrays) {
    bool known = false;
    for (const auto &in : inputs)
      known |= in.name == name;
    if (!known) {
      error = "'" + dataPath + "': array '" + name + "' is not an input of the model (its inputs: " +
              names + ")";
      return false;
    }
  }
  int64_t runs = -1;
  std::string firstInput;
  for (const auto &in : inputs) {
    auto it = byName.find(in.name);
    if (it == byName.end()) {
      error = "'" + dataPath + "' has no array '" + in.name + "' (the model's input " +
              tensorText(in.dtype, in.dims) + "; the archive has: " + (have.empty() ? "nothing" : have) +
              ")";
      return false;
    }
    const dlc_tensor_t *a = it->second;
    std::vector<int64_t> shape(dlc_tensor_shape(a), dlc_tensor_shape(a) + dlc_tensor_rank(a));
    size_t rank = in.dims.size();
    std::string arrayText = tensorText(dlc_tensor_dtype(a), shape);
    std::string expect = "; the model's input is " + tensorText(in.dtype, in.dims) +
                         " (the first axis counts calibration examples)";
    if (int(dlc_tensor_dtype(a)) != in.dtype) {
      error = "'" + dataPath + "': array '" + in.name + "' is " + arrayText + expect;
      return false;
    }
    InputBatches b;
    b.array = a;
    bool ok = false;
    if (shape.size() == rank + 1) { // one whole input per example
      ok = true;
      for (size_t d = 0; d < rank; ++d)
        ok &= in.dims[d] < 0 || in.dims[d] == shape[d + 1];
      b.runShape.assign(shape.begin() + 1, shape.end());
      b.runs = shape[0];
    } else if (shape.size() == rank && rank >= 1) { // examples along the batch axis
      ok = true;
      for (size_t d = 1; d < rank; ++d)
        ok &= in.dims[d] < 0 || in.dims[d] == shape[d];
      int64_t batch = in.dims[0] > 0 ? in.dims[0] : 1;
      b.runShape = shape;
      b.runShape[0] = batch;
      if (ok && (in.dims[0] == 0 || shape[0] % batch != 0)) {
        error = "'" + dataPath + "': array '" + in.name + "' has " + std::to_string(shape[0]) +
                " examples, not a multiple of the model's batch " + std::to_string(in.dims[0]) +
                " (input '" + in.name + "' is " + tensorText(in.dtype, in.dims) + ")";
        return false;
      }
      b.runs = batch ? shape[0] / batch : 0;
    }
    if (!ok) {
      error = "'" + dataPath + "': array '" + in.name + "' is " + arrayText + expect;
      return false;
    }
    if (dlc_tensor_dtype(a) == DLC_DTYPE_FLOAT) {
      const float *f = static_cast<const float *>(dlc_tensor_data(a));
      for (int64_t i = 0, n = dlc_tensor_num_elements(a); i < n; ++i)
        if (!std::isfinite(f[i])) {
          error = "'" + dataPath + "': array '" + in.name +
                  "' holds NaN or infinity (calibration data must be finite)";
          return false;
        }
    }
    if (runs < 0) {
      runs = b.runs;
      firstInput = in.name;
    } else if (b.runs != runs) {
      error = "'" + dataPath + "': array '" + in.name + "' gives " + std::to_string(b.runs) +
              " calibration runs, '" + firstInput + "' gives " + std::to_string(runs);
      return false;
    }
    out.push_back(b);
  }
  if (runs == 0) {
    error = "'" + dataPath + "' holds no calibration examples";
    return false;
  }
  return true;
}

/// The per-node report on stderr (unless `quiet`): kept float and why, or `quantized(d)`'s
/// line. Returns the number of quantized nodes.
template <typename Fn>
size_t report(const quantize::QuantizationPlan &plan, bool quiet, Fn quantized) {
  size_t count = 0;
  for (const auto &d : plan.nodes) {
    count += d.quantized;
    if (quiet)
      continue;
    if (d.quantized)
      quantized(d);
    else
      std::fprintf(stderr, "quantize: '%s' %s: kept float: %s\n", d.node.c_str(), d.opType.c_str(),
                   d.why.c_str());
  }
  return count;
}

/// Loads the ONNX model at `path`; 0, or 1 after printing the error.
int loadModel(const std::string &path, onnx::ModelProto &model) {
  std::string error;
  return quantize::readModel(path, model, error) ? 0 : fail(error);
}

struct ModuleDeleter {
  void operator()(dlc_module_t *m) const { dlc_module_free(m); }
};
struct SessionDeleter {
  void operator()(dlc_session_t *s) const { dlc_session_free(s); }
};

} // namespace

/// Loads the model and picks the nodes to quantize; 0, or 1 after printing the error.
static int loadAndPlan(const QuantizeRequest &request, onnx::ModelProto &model,
                       quantize::QuantizationPlan &plan) {
  std::string error;
  if (int rc = loadModel(request.model, model))
    return rc;
  if (!quantize::planQuantization(model, request.options, plan, error))
    return fail(request.model + ": " + error);
  return 0;
}

int quantizeModel(const QuantizeRequest &request, onnx::ModelProto &model, std::string &summary) {
  std::string error;
  quantize::QuantizationPlan plan;
  if (int rc = loadAndPlan(request, model, plan))
    return rc;
  std::vector<std::pair<std::string, TensorPtr>> arrays;
  if (!loadNpz(request.calib, arrays, error, request.maxMemory))
    return fail(error);
  std::vector<GraphInput> inputs = graphInputs(model);
  std::vector<InputBatches> batches;
  if (!matchCalibration(request.calib, inputs, arrays, batches, error))
    return fail(error);
  int64_t runs = batches.front().runs;

  // The float model with every activation to calibrate as an output.
  std::map<std::string, size_t> inputIndex;
  for (size_t i = 0; i < inputs.size(); ++i)
    inputIndex[inputs[i].name] = i;
  CompileOptions options;
  options.maxMemory = request.maxMemory;
  for (size_t i = 0; i < inputs.size(); ++i)
    options.inputShapes[inputs[i].name] = batches[i].runShape;
  for (const auto &a : plan.activations)
    if (!inputIndex.count(a))
      options.extraOutputs.push_back(a);
  std::vector<std::string> errors;
  std::unique_ptr<dlc_module_t, ModuleDeleter> module(
      jit::compileOnnxFile(request.model, options, errors));
  if (!module)
    return fail(errors.empty() ? request.model + ": compilation failed" : errors.front());
  dlc_session_t *rawSession = nullptr;
  if (dlc_session_create(module.get(), request.threads, &rawSession) != DLC_OK)
    return fail(dlc_status_message());
  std::unique_ptr<dlc_session_t, SessionDeleter> session(rawSession);
  size_t numIn = dlc_module_num_inputs(module.get()), numOut = dlc_module_num_outputs(module.get());
  std::vector<dlc_tensor_t *> rawOutputs(numOut);
  if (dlc_session_create_outputs(session.get(), rawOutputs.data()) != DLC_OK)
    return fail(dlc_status_message());
  std::vector<TensorPtr> outputs;
  for (auto *t : rawOutputs)
    outputs.emplace_back(t);
  // Run r's inputs: views into the calibration arrays, in the module's input order.
  std::vector<size_t> moduleToGraph(numIn);
  for (size_t i = 0; i < numIn; ++i) {
    dlc_tensor_info_t info;
    dlc_module_input_info(module.get(), i, &info);
    auto it = inputIndex.find(info.name);
    if (it == inputIndex.end())
      return fail(request.model + ": the compiled model has an input '" + info.name +
                  "' the calibration data cannot give");
    moduleToGraph[i] = it->second;
  }
  auto viewOf = [&](size_t g, int64_t r) {
    const InputBatches &b = batches[g];
    size_t bytes = dlc_tensor_byte_size(b.array) / size_t(b.runs);
    char *base = static_cast<char *>(dlc_tensor_data(b.array)) + bytes * size_t(r);
    dlc_tensor_t *view = nullptr;
    dlc_tensor_wrap(dlc_tensor_dtype(b.array), int32_t(b.runShape.size()), b.runShape.data(), base,
                    &view);
    return TensorPtr(view);
  };
  // The calibrated values: (graph input, -1) or (-1, module output).
  struct Source {
    int64_t input = -1, output = -1;
  };
  std::map<std::string, Source> sources;
  std::map<std::string, quantize::ActivationRange> ranges;
  for (const auto &a : plan.activations) {
    Source s;
    size_t idx;
    if (inputIndex.count(a))
      s.input = int64_t(inputIndex[a]);
    else if (dlc_module_find_output(module.get(), a.c_str(), &idx) == DLC_OK)
      s.output = int64_t(idx);
    sources[a] = s;
  }
  std::map<std::string, quantize::RangeStats> stats;
  auto pass = [&](bool histogram) -> bool {
    for (int64_t r = 0; r < runs; ++r) {
      std::vector<TensorPtr> views;
      std::vector<const dlc_tensor_t *> in;
      for (size_t i = 0; i < numIn; ++i) {
        views.push_back(viewOf(moduleToGraph[i], r));
        in.push_back(views.back().get());
      }
      if (dlc_session_run(session.get(), in.data(), in.size(), rawOutputs.data(), numOut) != DLC_OK) {
        error = request.model + ": calibration run " + std::to_string(r + 1) + ": " +
                dlc_status_message();
        return false;
      }
      for (const auto &[name, s] : sources) {
        TensorPtr inputView;
        const dlc_tensor_t *t = nullptr;
        if (s.input >= 0)
          t = (inputView = viewOf(size_t(s.input), r)).get();
        else if (s.output >= 0)
          t = rawOutputs[size_t(s.output)];
        if (!t || dlc_tensor_dtype(t) != DLC_DTYPE_FLOAT)
          continue;
        const float *data = static_cast<const float *>(dlc_tensor_data(t));
        if (histogram)
          stats[name].observeHistogram(data, dlc_tensor_num_elements(t));
        else
          stats[name].observe(data, dlc_tensor_num_elements(t));
      }
    }
    return true;
  };
  if (!pass(false))
    return fail(error);
  if (request.method.needsHistogram()) {
    for (auto &[name, s] : stats)
      s.startHistogram();
    if (!pass(true))
      return fail(error);
  }
  for (const auto &a : plan.activations) {
    quantize::ActivationRange r;
    const Source &s = sources[a];
    auto st = stats.find(a);
    if (s.input < 0 && s.output < 0)
      r.why = "input '" + a + "' is not a value dlc can observe";
    else if (st == stats.end() || !st->second.seen()) {
      const dlc_tensor_t *t = s.output >= 0 ? rawOutputs[size_t(s.output)] : nullptr;
      r.why = t && dlc_tensor_dtype(t) != DLC_DTYPE_FLOAT
                  ? "input '" + a + "' is " + dlc_dtype_name(dlc_tensor_dtype(t)) + ", not float"
                  : "input '" + a + "' had no finite values in calibration";
    } else if (st->second.nonFinite())
      r.why = "input '" + a + "' was NaN or infinite in calibration";
    else {
      r.ok = true;
      std::tie(r.lo, r.hi) = st->second.range(request.method);
    }
    ranges[a] = r;
  }

  quantize::writeQdq(model, plan, ranges, request.options);
  size_t quantized = report(plan, request.quiet, [&](const quantize::NodeDecision &d) {
    const auto &r = ranges[d.activation];
    quantize::AffineParams p = quantize::uint8Params(r.lo, r.hi);
    std::fprintf(stderr,
                 "quantize: '%s' %s: int8 (input '%s' calibrated to [%.6g, %.6g]: u8 scale %.6g "
                 "zero point %d; %s)\n",
                 d.node.c_str(), d.opType.c_str(), d.activation.c_str(), r.lo, r.hi, p.scale,
                 p.zeroPoint, d.weightNote.c_str());
  });
  summary = std::to_string(quantized) + " of " + std::to_string(plan.nodes.size()) +
            " Conv/MatMul/Gemm nodes quantized, " + std::to_string(runs) + " calibration run" +
            (runs == 1 ? "" : "s");
  return 0;
}

int quantizeDynamic(const QuantizeRequest &request, onnx::ModelProto &model, std::string &summary) {
  quantize::QuantizationPlan plan;
  if (int rc = loadAndPlan(request, model, plan))
    return rc;
  bool int4 = request.options.int4Weights;
  if (int4)
    quantize::writeInt4Weights(model, plan);
  else
    quantize::writeDynamic(model, plan, request.options);
  size_t quantized = report(plan, request.quiet, [&](const quantize::NodeDecision &d) {
    if (int4)
      std::fprintf(stderr, "quantize: '%s' %s: int4 weights (%s; MatMulNBits)\n", d.node.c_str(),
                   d.opType.c_str(), d.weightNote.c_str());
    else
      std::fprintf(stderr, "quantize: '%s' %s: int8 (input '%s' quantized per call; %s)\n",
                   d.node.c_str(), d.opType.c_str(), d.activation.c_str(), d.weightNote.c_str());
  });
  summary = std::to_string(quantized) + " of " + std::to_string(plan.nodes.size()) +
            (int4 ? " Conv/MatMul/Gemm nodes given int4 weights"
                  : " Conv/MatMul/Gemm nodes quantized dynamically");
  return 0;
}

/// The quantized model (calibrated, dynamic or int4 as `request` says), serialized;
/// `target` names it in errors. 0, or 1 after printing the error.
static int quantizeToBytes(const QuantizeRequest &request, const std::string &target,
                           std::string &bytes, std::string &summary) {
  onnx::ModelProto model;
  bool uncalibrated = request.options.dynamic || request.options.int4Weights;
  if (int rc = uncalibrated ? quantizeDynamic(request, model, summary)
                            : quantizeModel(request, model, summary))
    return rc;
  if (!model.SerializeToString(&bytes))
    return fail(target + ": the quantized model cannot be serialized (over 2 GiB?)");
  return 0;
}

int quantizeToFile(const QuantizeRequest &request, std::string &path) {
  std::string bytes, summary, error;
  if (int rc = quantizeToBytes(request, request.model, bytes, summary))
    return rc;
  // Beside the model (a place the user writes to), else in the temporary directory.
  llvm::SmallString<256> dir(request.model), file;
  llvm::sys::path::remove_filename(dir);
  llvm::sys::path::append(dir, ".dlc-quantized-%%%%%%.onnx");
  int fd = -1;
  if (llvm::sys::fs::createUniqueFile(dir, fd, file) &&
      llvm::sys::fs::createTemporaryFile("dlc-quantized", "onnx", fd, file))
    return fail("cannot create a temporary file for the quantized model");
  ::close(fd);
  path = file.str().str();
  if (!writeFileAtomically(path, bytes, error)) {
    llvm::sys::fs::remove(path);
    return fail(error);
  }
  return 0;
}

int quantizeCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2,
                 {{"--calib", true}, {"-o", true}, {"--method", true}, {"--per-channel", false},
                  {"--exclude", true, true}, {"--threads", true}, {"--max-memory", true},
                  {"--dynamic", false}, {"--int4-weights", false}, {"-q", false}, {"--quiet", false}, {"--help", false}, {"-h", false}},
                 args, error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kQuantizeHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1 || !isOnnxPath(args.positional[0]))
    return fail("expected exactly one ONNX model (dlc quantize MODEL.onnx --calib DATA.npz -o "
                "OUT.onnx)");
  QuantizeRequest request;
  request.options.dynamic = args.has("--dynamic");
  request.options.int4Weights = args.has("--int4-weights");
  if (request.options.dynamic && request.options.int4Weights)
    return fail("--dynamic and --int4-weights exclude each other");
  if (int rc = parseQuantizeRequest(args, request))
    return rc;
  if (!args.has("-o"))
    return fail("missing -o OUT.onnx");
  std::string out = args.get("-o");
  if (!isOnnxPath(out))
    return fail("-o expects an .onnx path, got '" + out + "'");
  std::string bytes, summary;
  if (int rc = quantizeToBytes(request, out, bytes, summary))
    return rc;
  if (!writeFileAtomically(out, bytes, error))
    return fail(error);
  std::printf("wrote %s: %s\n", out.c_str(), summary.c_str());
  return 0;
}

int parseQuantizeRequest(const Args &args, QuantizeRequest &request) {
  std::string error;
  request.model = args.positional.empty() ? "" : args.positional[0];
  if (!llvm::sys::fs::exists(request.model))
    return fail(request.model + ": no such file");
  bool uncalibrated = request.options.dynamic || request.options.int4Weights;
  if (!uncalibrated && !args.has("--calib"))
    return fail("missing --calib DATA.npz (calibration inputs, one array per model input)");
  if (uncalibrated && (args.has("--calib") || args.has("--method")))
    return fail(std::string(args.has("--calib") ? "--calib" : "--method") + " is not used by " +
                (request.options.dynamic ? "dynamic quantization (activations are quantized per "
                                           "call)"
                                         : "int4 weights (activations stay float)"));
  if (request.options.int4Weights && args.has("--per-channel"))
    return fail("--per-channel does not apply to int4 weights (one scale per block of " +
                std::to_string(quantize::kInt4Block) + ")");
  request.calib = args.get("--calib");
  if (args.has("--method") &&
      !quantize::parseCalibrationMethod(args.get("--method"), request.method, error))
    return fail(error);
  request.options.perChannel = args.has("--per-channel");
  for (const auto &list : args.all("--exclude")) {
    size_t pos = 0;
    while (pos <= list.size()) {
      size_t comma = list.find(',', pos);
      std::string name = list.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      if (name.empty())
        return fail("--exclude expects node names separated by commas, got '" + list + "'");
      request.options.exclude.insert(name);
      if (comma == std::string::npos)
        break;
      pos = comma + 1;
    }
  }
  long long threads = 0;
  if (args.has("--threads") && !parseCount("--threads", args.get("--threads"), threads, error))
    return fail(error);
  request.threads = int32_t(threads);
  request.maxMemory = defaultMaxMemory();
  if (args.has("--max-memory") &&
      !parseBytes("--max-memory", args.get("--max-memory"), request.maxMemory, error))
    return fail(error);
  request.quiet = args.has("-q") || args.has("--quiet");
  return 0;
}

} // namespace dlc::cli
