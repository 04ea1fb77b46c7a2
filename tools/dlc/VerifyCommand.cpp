// `dlc verify`: run a model through dlc and a reference, compare every node output that
// survives fusion, and report the first that differs with its fused region and kernel.
#include "tools/dlc/Args.h"
#include "tools/dlc/Commands.h"
#include "tools/dlc/Runner.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <set>

#ifndef DLC_DEFAULT_PYTHON
#define DLC_DEFAULT_PYTHON ""
#endif

namespace dlc::cli {
namespace {

const char *kVerifyHelp =
    "usage: dlc verify MODEL.onnx --input NAME=FILE... [--threads N] [--runs N]\n"
    "                  [--reference=auto|ort|unfused] [--rtol R] [--atol A] [--python PATH]\n"
    "\n"
    "Runs MODEL through dlc and through a reference and compares, besides the outputs,\n"
    "the output of every ONNX node that survives fusion (the nodes whose result dlc\n"
    "computes into a buffer; the others are fused into them). It reports the first\n"
    "node, in graph order, whose output differs: the error, where, the fused region it\n"
    "ends (the nodes computed in the same kernel) and the kernel's configuration.\n"
    "\n"
    "References: ONNX Runtime (through a Python that imports onnxruntime, onnx and\n"
    "numpy: --python, else $DLC_PYTHON, else the project's .venv, else python3), or\n"
    "dlc itself unfused (every node output materialized, -O0, one thread).\n"
    "A value differs where max |dlc - ref| > A + R * max |ref|, or where NaN/inf differ.\n"
    "Exit code 0 when every compared value agrees, 2 when one differs, 1 on an error.\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE       value of model input NAME, .npy or .pb (repeatable)\n"
    "  --threads N             threads dlc runs with (default: one per physical core)\n"
    "  --runs N                run dlc N times, each compared (races show in some runs)\n"
    "  --reference=R           ort (ONNX Runtime), unfused (dlc unfused), or auto (the\n"
    "                          default: ONNX Runtime when found, else unfused)\n"
    "  --rtol R                relative tolerance, times max |ref| (default 1e-3)\n"
    "  --atol A                absolute tolerance (default 1e-5)\n"
    "  --python PATH           the Python to run ONNX Runtime with\n"
    "  -v, --verbose           list the kernels and the values compared\n"
    "  -h, --help              show this help\n";

// The ONNX Runtime side: argv[1] is a JSON spec {model, inputs: {name: npy}, values: [names],
// out: dir}; each value is saved as out/<index>.npy.
const char *kOrtScript = R"PY(
import json, sys
import numpy as np, onnx, onnxruntime as ort
spec = json.load(open(sys.argv[1]))
model = onnx.load(spec["model"])
have = {o.name for o in model.graph.output}
for name in spec["values"]:
    if name not in have:
        model.graph.output.append(onnx.ValueInfoProto(name=name))
so = ort.SessionOptions()
so.log_severity_level = 3
sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
feeds = {k: np.load(f) for k, f in spec["inputs"].items()}
names = [o.name for o in sess.get_outputs()]
results = dict(zip(names, sess.run(None, feeds)))
for i, name in enumerate(spec["values"]):
    v = results.get(name)
    if isinstance(v, np.ndarray):
        np.save(f"{spec['out']}/{i}.npy", v)
)PY";

/// A JSON string literal.
std::string quote(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if ((unsigned char)c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else
      out += c;
  }
  return out + "\"";
}

/// Runs `program args...`, stdout and stderr to files in `dir`; true on exit code 0.
bool execute(const std::string &program, const std::vector<std::string> &args,
             const std::string &dir, std::string &output) {
  std::vector<llvm::StringRef> argv{program};
  for (const auto &a : args)
    argv.push_back(a);
  std::string out = dir + "/stdout.txt", err = dir + "/stderr.txt";
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""), llvm::StringRef(out),
                                                llvm::StringRef(err)};
  int rc = llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects);
  std::ifstream o(out), e(err);
  output.assign(std::istreambuf_iterator<char>(o), {});
  std::string errText((std::istreambuf_iterator<char>(e)), {});
  if (rc != 0) {
    // The last line of the traceback says what went wrong.
    size_t end = errText.find_last_not_of("\n ");
    size_t start = end == std::string::npos ? 0 : errText.rfind('\n', end);
    output = end == std::string::npos ? "exit code " + std::to_string(rc)
                                      : errText.substr(start == std::string::npos ? 0 : start + 1,
                                                       end - (start == std::string::npos ? 0 : start + 1) + 1);
  }
  return rc == 0;
}

/// The first Python that imports onnxruntime: its path and ORT's version.
std::optional<std::pair<std::string, std::string>> findOrtPython(const std::string &flag,
                                                                 const std::string &dir) {
  std::vector<std::string> candidates;
  if (!flag.empty())
    candidates.push_back(flag);
  else {
    if (const char *env = std::getenv("DLC_PYTHON"))
      candidates.push_back(env);
    if (*DLC_DEFAULT_PYTHON)
      candidates.push_back(DLC_DEFAULT_PYTHON);
    if (auto p = llvm::sys::findProgramByName("python3"))
      candidates.push_back(*p);
  }
  for (const auto &py : candidates) {
    std::string out;
    if (llvm::sys::fs::can_execute(py) &&
        execute(py, {"-c", "import onnx, numpy, onnxruntime; print(onnxruntime.__version__)"},
                dir, out))
      return std::make_pair(py, out.substr(0, out.find('\n')));
  }
  return std::nullopt;
}

/// One compared value's result.
struct Comparison {
  std::string value;
  size_t node = 0; // producing node's index
  bool differs = false;
  std::string what; // "max |dlc - ref| ... at [..]" or a shape/NaN mismatch
  double error = 0, scale = 0;
};

std::string indexString(const dlc_tensor_t *t, int64_t flat) {
  std::vector<int64_t> idx(dlc_tensor_rank(t));
  for (int32_t d = dlc_tensor_rank(t) - 1; d >= 0; --d) {
    int64_t n = dlc_tensor_shape(t)[d];
    idx[d] = n ? flat % n : 0;
    flat = n ? flat / n : 0;
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i)
    s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

Comparison compare(const dlc_tensor_t *got, const dlc_tensor_t *ref, double rtol, double atol) {
  Comparison c;
  std::string gs = shapeString(dlc_tensor_rank(got), dlc_tensor_shape(got));
  std::string rs = shapeString(dlc_tensor_rank(ref), dlc_tensor_shape(ref));
  if (gs != rs) {
    c.differs = true;
    c.what = "shape " + gs + ", reference " + rs;
    return c;
  }
  int64_t n = dlc_tensor_num_elements(got), worst = -1, special = -1;
  for (int64_t i = 0; i < n; ++i) {
    double g = elementAsDouble(got, i), r = elementAsDouble(ref, i);
    if (std::isfinite(r))
      c.scale = std::max(c.scale, std::fabs(r));
    if (!std::isfinite(g) || !std::isfinite(r)) {
      bool same = (std::isnan(g) && std::isnan(r)) || g == r;
      if (!same && special < 0)
        special = i;
      continue;
    }
    double d = std::fabs(g - r);
    if (worst < 0 || d > c.error)
      c.error = d, worst = i;
  }
  auto at = [&](int64_t i) {
    return " at " + indexString(got, i) + " (dlc " + fmt(elementAsDouble(got, i)) + ", reference " +
           fmt(elementAsDouble(ref, i)) + ")";
  };
  if (special >= 0) {
    c.differs = true;
    c.what = "NaN/inf differ" + at(special);
    return c;
  }
  c.differs = !(c.error <= atol + rtol * c.scale);
  c.what = "max |dlc - ref| " + fmt(c.error) + (worst >= 0 ? at(worst) : "") + ", max |ref| " +
           fmt(c.scale);
  return c;
}

/// The module output named `name`, or null.
const dlc_tensor_t *outputNamed(const Runner &r, const std::string &name) {
  size_t idx;
  if (dlc_module_find_output(r.module, name.c_str(), &idx) != DLC_OK)
    return nullptr;
  return r.outputs[idx].get();
}

} // namespace

int verifyCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2,
                 {{"--input", true, true}, {"--threads", true}, {"--runs", true}, {"--reference", true},
                  {"--rtol", true}, {"--atol", true}, {"--python", true}, {"--help", false},
                  {"-h", false}, {"-v", false}, {"--verbose", false}},
                 args, error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kVerifyHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1 || !isOnnxPath(args.positional[0]))
    return fail("expected exactly one ONNX model (dlc verify MODEL.onnx --input NAME=FILE ...)");
  const std::string &model = args.positional[0];
  if (!llvm::sys::fs::exists(model))
    return fail(model + ": no such file");
  long long runs = 1;
  if (args.has("--runs") && !parseCount("--runs", args.get("--runs"), runs, error))
    return fail(error);
  auto parseTol = [&](const char *flag, double dflt, double &out) {
    out = dflt;
    if (!args.has(flag))
      return true;
    std::string text = args.get(flag);
    char *end = nullptr;
    out = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !(out >= 0) || !std::isfinite(out)) {
      error = std::string(flag) + " expects a number >= 0, got '" + text + "'";
      return false;
    }
    return true;
  };
  double rtol, atol;
  if (!parseTol("--rtol", 1e-3, rtol) || !parseTol("--atol", 1e-5, atol))
    return fail(error);
  std::string refKind = args.has("--reference") ? args.get("--reference") : "auto";
  if (refKind != "auto" && refKind != "ort" && refKind != "unfused")
    return fail("--reference expects auto, ort or unfused, got '" + refKind + "'");

  // The graph: nodes in order, what produces each value.
  Compilation summaryC({});
  auto summary = summarizeOnnxFile(summaryC.context(), model);
  if (failed(summary))
    return fail(summaryC.errors().empty() ? model + ": cannot read the model"
                                          : summaryC.errors().front());
  const auto &nodes = summary->nodes;
  std::map<std::string, size_t> producer;
  for (size_t i = 0; i < nodes.size(); ++i)
    for (const auto &o : nodes[i].outputs)
      if (!o.empty())
        producer[o] = i;
  Interface iface;
  iface.inputs = summary->inputs;
  iface.outputs = summary->outputs;

  // Which nodes' results dlc materializes: each kernel's node, or its fused epilogue's.
  std::vector<KernelChoice> kernels;
  {
    ModelInputs known;
    std::map<std::string, TensorPtr> given;
    if (int rc = readInputs(args, iface, nullptr, known, given))
      return rc;
    Compilation c(jitCompileOptions(known));
    auto chosen = failed(c.importOnnx(model)) ? llvm::FailureOr<std::vector<KernelChoice>>(llvm::failure())
                                              : c.chooseKernels();
    if (failed(chosen))
      return fail(c.errors().empty() ? model + ": compilation failed" : c.errors().front());
    kernels = std::move(*chosen);
  }
  // A node's output is materialized by a kernel computing it (the kernel's own node, or the
  // node of the epilogue fused into it), or, for a node whose only kernels move data (a
  // Transpose, or a node whose computation moved into its producer's kernel), by those.
  // A conv's input transpose does not materialize the conv's output.
  auto movesData = [](const KernelChoice &k) {
    for (const char *op : {" linalg.transpose: ", " linalg.fill: ", " linalg.copy: "})
      if (k.config.find(op) != std::string::npos)
        return true;
    return false;
  };
  std::set<std::string> survivingNodes, computing;
  for (const auto &k : kernels)
    if (!movesData(k)) {
      survivingNodes.insert(k.epilogue.empty() ? k.node : k.epilogue);
      computing.insert(k.node);
    }
  for (const auto &k : kernels)
    if (movesData(k) && !computing.count(k.node))
      survivingNodes.insert(k.node);
  std::set<std::string> graphOutputs;
  for (const auto &o : summary->outputs)
    graphOutputs.insert(o.name);
  std::vector<std::string> exposed, allValues; // in graph order
  std::set<size_t> survivingIdx;
  for (size_t i = 0; i < nodes.size(); ++i) {
    bool survives = survivingNodes.count(nodes[i].name);
    if (survives)
      survivingIdx.insert(i);
    for (const auto &o : nodes[i].outputs) {
      if (o.empty())
        continue;
      allValues.push_back(o);
      if (survives || graphOutputs.count(o))
        exposed.push_back(o);
    }
  }

  if (args.has("-v") || args.has("--verbose")) {
    for (const auto &k : kernels)
      std::printf("kernel of '%s'%s: %s\n", k.node.c_str(),
                  k.epilogue.empty() ? "" : (" with epilogue '" + k.epilogue + "'").c_str(),
                  k.config.c_str());
    for (const auto &v : exposed)
      std::printf("compared: '%s' (node '%s')\n", v.c_str(), nodes[producer[v]].name.c_str());
  }

  // dlc, fused as usual, with the surviving values as extra outputs.
  Runner test;
  Interface testIface;
  PrepareOptions testOptions;
  testOptions.extraOutputs = exposed;
  if (int rc = prepare(args, test, testIface, testOptions))
    return rc;

  // The reference.
  llvm::SmallString<128> tmp;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("dlc-verify", tmp))
    return fail("cannot create a temporary directory: " + ec.message());
  std::string dir = tmp.str().str();
  auto cleanup = [&] { llvm::sys::fs::remove_directories(dir); };
  std::map<std::string, TensorPtr> refValues;
  std::string refName;
  std::optional<std::pair<std::string, std::string>> python;
  bool plainInputs = true;
  for (const auto &in : summary->inputs)
    plainInputs &= !in.sequence && !in.optional;
  if (refKind != "unfused" && plainInputs)
    python = findOrtPython(args.get("--python"), dir);
  if (refKind == "ort" && !python) {
    cleanup();
    return fail(plainInputs ? "no Python with onnxruntime found (give --python PATH, or use "
                              "--reference=unfused)"
                            : "the ONNX Runtime reference takes plain tensor inputs only (use "
                              "--reference=unfused)");
  }
  if (python) {
    std::string spec = "{\"model\": " + quote(model) + ", \"out\": " + quote(dir) +
                       ", \"inputs\": {";
    for (size_t i = 0; i < dlc_module_num_inputs(test.module); ++i) {
      dlc_tensor_info_t info;
      dlc_module_input_info(test.module, i, &info);
      std::string file = dir + "/in" + std::to_string(i) + ".npy";
      if (dlc_tensor_save_npy(test.inputs[i].get(), file.c_str()) != DLC_OK) {
        cleanup();
        return fail(dlc_status_message());
      }
      spec += (i ? ", " : "") + quote(info.name) + ": " + quote(file);
    }
    spec += "}, \"values\": [";
    for (size_t i = 0; i < exposed.size(); ++i)
      spec += (i ? ", " : "") + quote(exposed[i]);
    spec += "]}";
    std::string specFile = dir + "/spec.json", script = dir + "/ort_reference.py";
    std::ofstream(specFile) << spec;
    std::ofstream(script) << kOrtScript;
    std::string out;
    if (!execute(python->first, {script, specFile}, dir, out)) {
      cleanup();
      return fail(model + ": ONNX Runtime failed: " + out);
    }
    for (size_t i = 0; i < exposed.size(); ++i) {
      std::string file = dir + "/" + std::to_string(i) + ".npy";
      dlc_tensor_t *t = nullptr;
      if (llvm::sys::fs::exists(file) && dlc_tensor_load_npy(file.c_str(), &t) == DLC_OK)
        refValues[exposed[i]] = TensorPtr(t);
    }
    refName = "ONNX Runtime " + python->second + " (" + python->first + ")";
  }
  Runner ref; // the dlc reference: owns the tensors refValues borrows
  std::map<std::string, const dlc_tensor_t *> refView;
  if (!python) {
    // A deliberately broken build (DLC_INJECT_FAULT, testing only) breaks the code under
    // test, not its reference.
    ::unsetenv("DLC_INJECT_FAULT");
    Interface refIface;
    PrepareOptions refOptions;
    refOptions.extraOutputs = allValues;
    refOptions.optLevel = 0;
    refOptions.threads = 1;
    if (int rc = prepare(args, ref, refIface, refOptions)) {
      cleanup();
      return rc;
    }
    if (!ref.run(error)) {
      cleanup();
      return fail(model + ": " + error);
    }
    for (const auto &v : exposed)
      if (auto *t = outputNamed(ref, v))
        refView[v] = t;
    refName = std::string("dlc unfused (every node output materialized, -O0, one thread)") +
              (refKind == "auto" ? "; ONNX Runtime not found" : "");
  }
  for (auto &[k, v] : refValues)
    refView[k] = v.get();
  cleanup();

  // Compare, run by run, in graph order.
  int threads = dlc_session_num_threads(test.session);
  std::printf("verify: %s: %zu of %zu node outputs compared (the others are fused into them)\n",
              model.c_str(), exposed.size(), allValues.size());
  std::printf("reference: %s\n", refName.c_str());
  std::printf("dlc: %d thread(s), %lld run(s); a value differs where max |dlc - ref| > %g + %g * "
              "max |ref|\n",
              threads, runs, atol, rtol);
  for (long long run = 1; run <= runs; ++run) {
    if (!test.run(error))
      return fail(model + ": " + error);
    std::vector<Comparison> results;
    for (const auto &v : exposed) {
      auto it = refView.find(v);
      const dlc_tensor_t *got = outputNamed(test, v);
      if (it == refView.end() || !got)
        continue; // not a plain tensor on one side (a sequence, an absent optional)
      Comparison c = compare(got, it->second, rtol, atol);
      c.value = v;
      c.node = producer[v];
      results.push_back(c);
    }
    auto first = std::find_if(results.begin(), results.end(),
                              [](const Comparison &c) { return c.differs; });
    if (first == results.end()) {
      if (run < runs)
        continue;
      const Comparison *worst = nullptr;
      for (const auto &c : results)
        if (c.scale > 0 && (!worst || c.error / c.scale > worst->error / worst->scale))
          worst = &c;
      std::printf("ok: all %zu compared values agree%s", results.size(),
                  runs > 1 ? (" in all " + std::to_string(runs) + " runs").c_str() : "");
      if (worst)
        std::printf(" (largest relative difference %s, at '%s')", fmt(worst->error / worst->scale).c_str(),
                    worst->value.c_str());
      std::printf("\n");
      return 0;
    }
    const auto &n = nodes[first->node];
    if (runs > 1)
      std::printf("run %lld of %lld differs\n", run, runs);
    const dlc_tensor_t *got = outputNamed(test, first->value);
    std::printf("first divergent node: '%s' (%s), output '%s' %s%s\n", n.name.c_str(),
                n.opType.c_str(), first->value.c_str(), dlc_dtype_name(dlc_tensor_dtype(got)),
                shapeString(dlc_tensor_rank(got), dlc_tensor_shape(got)).c_str());
    std::printf("  %s\n", first->what.c_str());
    // The fused region: the node and the producers it absorbed (their outputs not materialized).
    std::set<size_t> region{first->node};
    std::vector<size_t> work{first->node};
    while (!work.empty()) {
      size_t i = work.back();
      work.pop_back();
      for (const auto &in : nodes[i].inputs) {
        auto p = producer.find(in);
        if (p == producer.end() || survivingIdx.count(p->second) || region.count(p->second))
          continue;
        region.insert(p->second);
        work.push_back(p->second);
      }
    }
    std::string regionText;
    std::set<std::string> regionNames;
    for (size_t i : region) {
      regionText += (regionText.empty() ? "" : ", ") + ("'" + nodes[i].name + "' (") +
                    nodes[i].opType + ")";
      regionNames.insert(nodes[i].name);
    }
    std::printf("  fused region: %s\n", regionText.c_str());
    for (const auto &k : kernels)
      if ((regionNames.count(k.node) || regionNames.count(k.epilogue)) &&
          k.config.find(" linalg.fill: ") == std::string::npos) // the halo fills of pads
        std::printf("  kernel: %s\n",
                    k.config.rfind("config: ", 0) == 0 ? k.config.c_str() + 8 : k.config.c_str());
    size_t differing = 0;
    std::string outputsText;
    for (const auto &c : results) {
      differing += c.differs;
      if (graphOutputs.count(c.value))
        outputsText += (outputsText.empty() ? "" : ", ") + ("'" + c.value + "' ") +
                       (c.differs ? "differs" : "agrees");
    }
    std::printf("%zu of %zu compared values differ; graph outputs: %s\n", differing, results.size(),
                outputsText.c_str());
    return 2;
  }
  return 0;
}

} // namespace dlc::cli
