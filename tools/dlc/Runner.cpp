// Model loading (a .so, or a JIT-compiled .onnx) and input binding for run, bench and verify.
#include "compiler/Compiler.h"
#include "compiler/Jit/Jit.h"
#include "compiler/TensorFile.h"
#include "tools/dlc/Args.h"
#include "tools/dlc/Commands.h"
#include "tools/dlc/Runner.h"

#include "llvm/Support/FileSystem.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <set>

namespace dlc::cli {

bool isOnnxPath(const std::string &path) {
  return path.size() >= 5 && path.compare(path.size() - 5, 5, ".onnx") == 0;
}

bool parseShape(const std::string &text, std::vector<int64_t> &dims) {
  dims.clear();
  if (text.empty() || text == "scalar")
    return true;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t x = text.find('x', pos);
    std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string::npos ||
        part.size() > 12)
      return false;
    dims.push_back(std::stoll(part));
    if (x == std::string::npos)
      break;
    pos = x + 1;
  }
  return true;
}

bool splitAssignment(const std::string &text, std::string &name, std::string &value) {
  size_t eq = text.rfind('=');
  if (eq == std::string::npos || eq == 0)
    return false;
  name = text.substr(0, eq);
  value = text.substr(eq + 1);
  return true;
}

bool parseInputShapes(const Args &args, std::map<std::string, std::vector<int64_t>> &shapes,
                      std::string &error,
                      std::map<std::string, std::vector<std::string>> *symbols) {
  for (const std::string &s : args.all("--input-shape")) {
    std::string name, dims;
    std::vector<int64_t> shape;
    std::vector<std::string> named;
    bool ok = splitAssignment(s, name, dims);
    // Symbols (a --dims name) only in the comma form: NAME=batch,3,seq (or NAME=seq).
    if (ok && symbols && !parseShape(dims, shape)) {
      shape.clear();
      size_t pos = 0;
      while (ok && pos <= dims.size()) {
        size_t comma = dims.find(',', pos);
        std::string part = dims.substr(pos, comma == std::string::npos ? std::string::npos
                                                                        : comma - pos);
        pos = comma == std::string::npos ? dims.size() + 1 : comma + 1;
        std::vector<int64_t> one;
        if (!part.empty() && (std::isalpha((unsigned char)part[0]) || part[0] == '_') &&
            part.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                   "0123456789_") == std::string::npos) {
          shape.push_back(-1);
          named.resize(shape.size());
          named.back() = part;
        } else if (parseShape(part, one) && one.size() == 1) {
          shape.push_back(one[0]);
        } else {
          ok = false;
        }
      }
    } else if (ok && !symbols) {
      ok = parseShape(dims, shape);
    }
    if (!ok) {
      error = "invalid --input-shape '" + s + "' (expected NAME=1x3x224x224" +
              (symbols ? std::string(" or NAME=batch,3,224,224 with --dims symbols") : "") + ")";
      return false;
    }
    shapes[name] = shape;
    if (!named.empty()) {
      named.resize(shape.size());
      (*symbols)[name] = named;
    }
  }
  return true;
}

bool parseDynamicDims(const Args &args, std::map<std::string, std::pair<int64_t, int64_t>> &dims,
                      std::string &error) {
  constexpr int64_t kMaxDim = int64_t(1) << 40;
  for (const std::string &list : args.all("--dims")) {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma = list.find(',', start);
      std::string spec = list.substr(start, comma == std::string::npos ? std::string::npos
                                                                        : comma - start);
      start = comma == std::string::npos ? list.size() + 1 : comma + 1;
      std::string name, range;
      size_t dots;
      long long lo = 0, hi = 0;
      char tail = 0;
      if (!splitAssignment(spec, name, range) || name.empty() ||
          (dots = range.find("..")) == std::string::npos ||
          sscanf(range.substr(0, dots).c_str(), "%lld%c", &lo, &tail) != 1 ||
          sscanf(range.substr(dots + 2).c_str(), "%lld%c", &hi, &tail) != 1) {
        error = "invalid --dims '" + spec + "' (expected NAME=MIN..MAX, e.g. batch=1..64)";
        return false;
      }
      if (lo < 0 || hi < lo || hi > kMaxDim) {
        error = "invalid --dims '" + spec + "': expected 0 <= MIN <= MAX <= 2^40";
        return false;
      }
      if (!dims.emplace(name, std::make_pair(int64_t(lo), int64_t(hi))).second) {
        error = "--dims names '" + name + "' twice";
        return false;
      }
    }
  }
  return true;
}

std::string infoShapeString(const dlc_module_t *module, const dlc_tensor_info_t &info) {
  std::string s = "[";
  for (int32_t i = 0; i < info.rank; ++i) {
    dlc_dim_info_t dim;
    s += i ? "," : "";
    if (info.dim_symbols[i] >= 0 &&
        dlc_module_dim_info(module, size_t(info.dim_symbols[i]), &dim) == DLC_OK)
      s += dim.name;
    else
      s += std::to_string(info.shape[i]);
  }
  return s + "]";
}

std::string shapeString(int32_t rank, const int64_t *shape) {
  std::string s = "[";
  for (int32_t i = 0; i < rank; ++i)
    s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

CompileOptions jitCompileOptions(const ModelInputs &inputs) {
  CompileOptions options;
  options.optLevel = inputs.optLevel;
  if (inputs.maxMemory)
    options.maxMemory = inputs.maxMemory;
  options.extraOutputs = inputs.extraOutputs;
  options.sequenceLengths = inputs.sequenceLengths;
  options.absentInputs = inputs.absent;
  for (const auto &[name, t] : inputs.tensors) {
    const int64_t *shape = dlc_tensor_shape(t);
    options.inputShapes[name] = std::vector<int64_t>(shape, shape + dlc_tensor_rank(t));
    if (dlc_tensor_num_elements(t) <= kMaxSpecializedElements)
      options.inputValues[name] = tensorValue(t);
  }
  return options;
}

dlc_module_t *loadModel(const std::string &path, const ModelInputs &inputs, std::string &error) {
  if (!llvm::sys::fs::exists(path)) {
    error = path + ": no such file";
    return nullptr;
  }
  if (isOnnxPath(path)) {
    std::vector<std::string> errors;
    dlc_module_t *m = jit::compileOnnxFile(path, jitCompileOptions(inputs), errors);
    if (!m)
      error = errors.empty() ? path + ": compilation failed" : errors.front();
    return m;
  }
  dlc_module_t *m = nullptr;
  if (dlc_module_load(path.c_str(), &m) != DLC_OK) {
    error = dlc_status_message();
    return nullptr;
  }
  return m;
}

TensorValue tensorValue(const dlc_tensor_t *t) {
  TensorValue v;
  v.dtype = dlc_tensor_dtype(t);
  v.shape.assign(dlc_tensor_shape(t), dlc_tensor_shape(t) + dlc_tensor_rank(t));
  v.bytes.assign(static_cast<const char *>(dlc_tensor_data(t)), dlc_tensor_byte_size(t));
  return v;
}

static bool endsWith(const std::string &s, const char *suffix) {
  size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

/// A .pb file is an ONNX TensorProto; anything else is read as .npy.
dlc_tensor_t *loadTensorFile(const std::string &file, std::string &error) {
  if (endsWith(file, ".pb"))
    return onnxio::loadTensorProto(file, error);
  dlc_tensor_t *t = nullptr;
  if (dlc_tensor_load_npy(file.c_str(), &t) != DLC_OK) {
    error = dlc_status_message();
    return nullptr;
  }
  return t;
}


Runner::~Runner() {
  outputs.clear();
  inputs.clear();
  dlc_session_free(session);
  dlc_module_free(module);
}

bool Runner::run(std::string &error) {
  std::vector<const dlc_tensor_t *> in;
  for (auto &t : inputs)
    in.push_back(t.get());
  std::vector<dlc_tensor_t *> out;
  for (auto &t : outputs)
    out.push_back(t.get());
  if (dlc_session_run(session, in.data(), in.size(), out.data(), out.size()) != DLC_OK) {
    error = dlc_status_message();
    return false;
  }
  return true;
}

namespace {

/// Fills a tensor with reproducible random values (bench inputs).
void fillRandom(dlc_tensor_t *t, std::mt19937 &rng) {
  int64_t n = dlc_tensor_num_elements(t);
  void *d = dlc_tensor_data(t);
  std::uniform_real_distribution<float> uf(0.f, 1.f);
  switch (dlc_tensor_dtype(t)) {
  case DLC_DTYPE_FLOAT:
    for (int64_t i = 0; i < n; ++i)
      static_cast<float *>(d)[i] = uf(rng);
    break;
  case DLC_DTYPE_DOUBLE:
    for (int64_t i = 0; i < n; ++i)
      static_cast<double *>(d)[i] = uf(rng);
    break;
  case DLC_DTYPE_INT64:
    for (int64_t i = 0; i < n; ++i)
      static_cast<int64_t *>(d)[i] = rng() % 2;
    break;
  case DLC_DTYPE_INT32:
    for (int64_t i = 0; i < n; ++i)
      static_cast<int32_t *>(d)[i] = rng() % 2;
    break;
  default: // zeros for everything else
    break;
  }
}

/// Whether the compiled module has an input named `name`.
bool hasInput(const dlc_module_t *m, const std::string &name) {
  size_t idx;
  return dlc_module_find_input(m, name.c_str(), &idx) == DLC_OK;
}

} // namespace

std::string elementName(const std::string &name, size_t i) {
  return sequenceElementName(name, int64_t(i));
}

const TensorSummary *Interface::input(const std::string &name) const {
  for (const auto &t : inputs)
    if (t.name == name)
      return &t;
  return nullptr;
}

int readInputs(const Args &args, const Interface &iface, dlc_module_t *so, ModelInputs &known,
               std::map<std::string, TensorPtr> &given) {
  std::string error;
  for (const std::string &spec : args.all("--input")) {
    std::string name, file;
    if (!splitAssignment(spec, name, file))
      return fail("invalid --input '" + spec + "' (expected NAME=FILE.npy or NAME=FILE.pb)");
    const TensorSummary *decl = iface.input(name);
    bool sequence = decl ? decl->sequence
                         : so && !hasInput(so, name) && hasInput(so, elementName(name, 0));
    bool optional = decl && decl->optional;
    onnxio::ValueContents contents;
    if (sequence || optional) {
      if (!endsWith(file, ".pb"))
        return fail("input '" + name + "' is " + (optional ? "an optional" : "a sequence") +
                    ": give it as an ONNX " + (optional ? "OptionalProto" : "SequenceProto") +
                    " .pb file");
      // A compiled model does not say whether a sequence input is also optional: a file
      // that is no SequenceProto is read as an OptionalProto holding one.
      if (!onnxio::loadValueFile(file, sequence, optional, contents, error)) {
        std::string asOptional;
        if (decl || optional ||
            !onnxio::loadValueFile(file, sequence, /*optional=*/true, contents, asOptional))
          return fail(error);
      }
    } else {
      dlc_tensor_t *t = loadTensorFile(file, error);
      if (!t)
        return fail(error);
      contents.tensors.push_back(t);
    }
    std::vector<std::string> names;
    if (contents.kind == onnxio::ValueKind::Sequence) {
      known.sequenceLengths[name] = contents.tensors.size();
      for (size_t i = 0; i < contents.tensors.size(); ++i)
        names.push_back(elementName(name, i));
    } else if (contents.kind == onnxio::ValueKind::Absent) {
      known.absent.insert(name);
    } else {
      names.push_back(name);
    }
    bool twice = false;
    for (size_t i = 0; i < names.size(); ++i) {
      known.tensors[names[i]] = contents.tensors[i];
      twice |= !given.emplace(names[i], TensorPtr(contents.tensors[i])).second;
    }
    if (twice)
      return fail("input '" + name + "' given twice");
  }
  return 0;
}

int prepare(const Args &args, Runner &r, Interface &iface, const PrepareOptions &options) {
  const std::string &model = args.positional[0];
  std::map<std::string, TensorPtr> given;
  ModelInputs known;
  known.extraOutputs = options.extraOutputs;
  known.optLevel = options.optLevel;
  std::string error;
  if (args.has("--max-memory") &&
      !parseBytes("--max-memory", args.get("--max-memory"), known.maxMemory, error))
    return fail(error);
  if (isOnnxPath(model) && llvm::sys::fs::exists(model)) {
    Compilation c({});
    auto summary = summarizeOnnxFile(c.context(), model);
    if (succeeded(summary)) {
      iface.inputs = summary->inputs;
      iface.outputs = summary->outputs;
    }
  } else {
    r.module = loadModel(model, known, error);
    if (!r.module)
      return fail(error);
  }
  if (int rc = readInputs(args, iface, r.module, known, given))
    return rc;
  if (!r.module)
    r.module = loadModel(model, known, error);
  if (!r.module)
    return fail(error);
  for (auto &kv : given)
    if (!hasInput(r.module, kv.first))
      return fail(model + ": model has no input named '" + kv.first + "'");
  long long threads = 0; // the runtime's default: one per physical core
  if (options.threads)
    threads = *options.threads;
  else if (args.has("--threads") &&
           !parseCount("--threads", args.get("--threads"), threads, error))
    return fail(error);
  if (dlc_session_create(r.module, (int32_t)threads, &r.session) != DLC_OK)
    return fail(dlc_status_message());
  std::mt19937 rng(42);
  for (size_t i = 0; i < dlc_module_num_inputs(r.module); ++i) {
    dlc_tensor_info_t info;
    dlc_module_input_info(r.module, i, &info);
    auto it = given.find(info.name);
    if (it != given.end()) {
      r.inputs.push_back(std::move(it->second));
      continue;
    }
    if (!options.randomFill)
      return fail(model + ": missing --input for model input '" + std::string(info.name) + "' (" +
                  dlc_dtype_name(info.dtype) + infoShapeString(r.module, info) + ")");
    // Symbolic dims of random inputs take the smallest size the model accepts (at least 1).
    std::vector<int64_t> shape(info.shape, info.shape + info.rank);
    for (int32_t d = 0; d < info.rank; ++d) {
      dlc_dim_info_t dim;
      if (info.dim_symbols[d] >= 0 &&
          dlc_module_dim_info(r.module, size_t(info.dim_symbols[d]), &dim) == DLC_OK)
        shape[d] = std::max<int64_t>(dim.min, 1);
    }
    dlc_tensor_t *t = nullptr;
    if (dlc_tensor_create(info.dtype, info.rank, shape.data(), &t) != DLC_OK)
      return fail(dlc_status_message());
    fillRandom(t, rng);
    r.inputs.emplace_back(t);
  }
  std::vector<dlc_tensor_t *> outs(dlc_module_num_outputs(r.module));
  std::vector<const dlc_tensor_t *> ins;
  for (const TensorPtr &t : r.inputs)
    ins.push_back(t.get());
  if (dlc_session_create_outputs_for(r.session, ins.data(), ins.size(), outs.data()) != DLC_OK)
    return fail(dlc_status_message());
  for (dlc_tensor_t *t : outs)
    r.outputs.emplace_back(t);
  return 0;
}

/// IEEE half bits -> double (for the summary only).
static double halfToDouble(uint16_t h) {
  int exp = (h >> 10) & 31, mant = h & 1023;
  double sign = (h & 0x8000) ? -1.0 : 1.0;
  if (exp == 31)
    return mant ? NAN : sign * INFINITY;
  if (exp == 0)
    return sign * std::ldexp((double)mant, -24);
  return sign * std::ldexp(1024.0 + mant, exp - 25);
}

double elementAsDouble(const dlc_tensor_t *t, int64_t i) {
  const void *d = dlc_tensor_data(t);
  double v;
  switch (dlc_tensor_dtype(t)) {
  case DLC_DTYPE_FLOAT: v = static_cast<const float *>(d)[i]; break;
  case DLC_DTYPE_DOUBLE: v = static_cast<const double *>(d)[i]; break;
  case DLC_DTYPE_INT64: v = (double)static_cast<const int64_t *>(d)[i]; break;
  case DLC_DTYPE_INT32: v = static_cast<const int32_t *>(d)[i]; break;
  case DLC_DTYPE_BOOL: case DLC_DTYPE_UINT8: case DLC_DTYPE_UINT4: case DLC_DTYPE_UINT2:
    v = static_cast<const uint8_t *>(d)[i];
    break;
  case DLC_DTYPE_INT8: case DLC_DTYPE_INT4: case DLC_DTYPE_INT2:
    v = static_cast<const int8_t *>(d)[i];
    break;
  case DLC_DTYPE_INT16: v = static_cast<const int16_t *>(d)[i]; break;
  case DLC_DTYPE_UINT16: v = static_cast<const uint16_t *>(d)[i]; break;
  case DLC_DTYPE_UINT32: v = static_cast<const uint32_t *>(d)[i]; break;
  case DLC_DTYPE_UINT64: v = (double)static_cast<const uint64_t *>(d)[i]; break;
  case DLC_DTYPE_FLOAT16: v = halfToDouble(static_cast<const uint16_t *>(d)[i]); break;
  case DLC_DTYPE_BFLOAT16: {
    uint32_t bits = uint32_t(static_cast<const uint16_t *>(d)[i]) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    v = f;
    break;
  }
  default: v = NAN;
  }
  return v;
}

std::string sanitize(const std::string &name) {
  std::string s = name;
  for (char &c : s)
    if (!(std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == '-'))
      c = '_';
  return s;
}

} // namespace dlc::cli
