// `dlc run` and `dlc bench`: run a model on .npy inputs, write/summarize/time outputs.
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
#include <optional>
#include <set>

namespace dlc::cli {

namespace {

/// min / max / mean of a tensor as doubles (for the stdout summary).
void stats(const dlc_tensor_t *t, double &mn, double &mx, double &mean) {
  int64_t n = dlc_tensor_num_elements(t);
  mn = INFINITY, mx = -INFINITY, mean = 0;
  for (int64_t i = 0; i < n; ++i) {
    double v = elementAsDouble(t, i);
    mn = std::min(mn, v);
    mx = std::max(mx, v);
    mean += v;
  }
  mean = n ? mean / n : NAN;
}

/// A graph output that is not one plain tensor: a sequence (its elements are the
/// module outputs `name[i]`) or an optional (its tensor, or nothing).
struct OutputGroup {
  std::string name;
  bool sequence = false, optional = false;
  std::vector<size_t> members; // module output indices
};

/// The ONNX model's sequence and optional outputs; for a .so (no interface) the
/// outputs named `y[i]` grouped by `y`.
std::vector<OutputGroup> outputGroups(const dlc_module_t *m, const Interface &iface) {
  std::vector<OutputGroup> groups;
  auto find = [&](const std::string &name) -> std::optional<size_t> {
    size_t idx;
    if (dlc_module_find_output(m, name.c_str(), &idx) == DLC_OK)
      return idx;
    return std::nullopt;
  };
  if (!iface.outputs.empty()) {
    for (const auto &t : iface.outputs) {
      if (!t.sequence && !t.optional)
        continue;
      OutputGroup g{t.name, t.sequence, t.optional, {}};
      if (t.sequence) {
        while (auto idx = find(elementName(t.name, g.members.size())))
          g.members.push_back(*idx);
      } else if (auto idx = find(t.name)) {
        g.members.push_back(*idx);
      }
      groups.push_back(g);
    }
    return groups;
  }
  for (size_t i = 0; i < dlc_module_num_outputs(m); ++i) {
    dlc_tensor_info_t info;
    dlc_module_output_info(m, i, &info);
    std::string name = info.name;
    size_t open = name.rfind('[');
    if (open == std::string::npos || name.back() != ']' ||
        name.substr(open + 1, name.size() - open - 2) !=
            std::to_string(groups.empty() || groups.back().name != name.substr(0, open)
                               ? 0
                               : groups.back().members.size()))
      continue;
    if (groups.empty() || groups.back().name != name.substr(0, open))
      groups.push_back({name.substr(0, open), true, false, {}});
    groups.back().members.push_back(i);
  }
  return groups;
}

const char *kRunHelp =
    "usage: dlc run MODEL.onnx|OUT.so [--input NAME=FILE]... [--output-dir DIR]\n"
    "               [--output-format=npy|pb] [--threads N]\n"
    "\n"
    "Runs a model. A .onnx model is JIT-compiled in process, with symbolic input dims\n"
    "taken from the given input files; a .so comes from `dlc compile`.\n"
    "Input files are NumPy .npy files or ONNX TensorProto .pb files (as in ONNX's\n"
    "test data). Each output is summarized on stdout and, with --output-dir, written\n"
    "to DIR/<name>.npy, or DIR/<name>.pb with --output-format=pb or when NumPy cannot\n"
    "hold its dtype (bfloat16); characters outside [A-Za-z0-9_.-] in the name become '_'\n"
    "(a later output whose name then collides gets _1, _2, ...). Files are replaced\n"
    "atomically and only if they are regular files (not symlinks or devices).\n"
    "When JIT-compiling, an input whose value sets shapes or axes (Reshape's shape,\n"
    "ReduceSum's axes, ...) is specialized to the given value.\n"
    "Sequence inputs take an ONNX SequenceProto .pb, optional inputs an OptionalProto\n"
    "(possibly empty). A compiled model has one tensor per sequence element (NAME[0],\n"
    "NAME[1], ...); with --output-format=pb a sequence output is written as one\n"
    "SequenceProto DIR/<name>.pb (an optional one as an OptionalProto).\n"
    "\n"
    "options:\n"
    "  --input NAME=FILE       value of model input NAME, FILE.npy or FILE.pb\n"
    "                          (repeatable; every input is required)\n"
    "  --output-dir DIR        write outputs here (created if missing)\n"
    "  --output-format FMT     npy (default) or pb (ONNX TensorProto)\n"
    "  --threads N             threads to run with (default: one per physical core)\n"
    "  --max-memory SIZE       .onnx: the largest tensor the model may hold, e.g. 8G\n"
    "                          (default: half of this machine's physical memory)\n"
    "  -h, --help              show this help\n";

const char *kBenchHelp =
    "usage: dlc bench MODEL.onnx|OUT.so [--threads N] [--runs N] [--warmup N] [--check]\n"
    "                 [--input NAME=FILE]...\n"
    "\n"
    "Times repeated runs of a model (inputs not given are random) and prints the\n"
    "min, median and p90 latency (in us below 1 ms, else in ms).\n"
    "With --check every run's outputs are compared bit for bit with the first run's\n"
    "(same inputs, so they must be identical): a difference is a race in the\n"
    "generated code or the runtime; it is reported and the exit code is 1.\n"
    "\n"
    "options:\n"
    "  --threads N     threads to run with (default: one per physical core)\n"
    "  --runs N        timed runs (default 100)\n"
    "  --warmup N      untimed runs first (default 5)\n"
    "  --check         compare each run's outputs with the first run's, bit for bit\n"
    "  --input NAME=FILE   fixed value of an input, .npy or .pb (repeatable)\n"
    "  -h, --help      show this help\n";

} // namespace

int runCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2,
                 {{"--input", true, true}, {"--output-dir", true}, {"--output-format", true},
                  {"--threads", true}, {"--max-memory", true}, {"--help", false}, {"-h", false}},
                 args, error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kRunHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1)
    return fail("expected exactly one model (dlc run MODEL.onnx|OUT.so --input NAME=FILE.npy ...)");
  std::string format = args.has("--output-format") ? args.get("--output-format") : "npy";
  if (format != "npy" && format != "pb")
    return fail("--output-format expects npy or pb, got '" + format + "'");
  Runner r;
  Interface iface;
  if (int rc = prepare(args, r, iface))
    return rc;
  if (!r.run(error))
    return fail(args.positional[0] + ": " + error);
  std::string dir = args.get("--output-dir");
  if (!dir.empty()) {
    if (auto ec = llvm::sys::fs::create_directories(dir))
      return fail("cannot create output directory '" + dir + "': " + ec.message());
    if (!llvm::sys::fs::is_directory(dir))
      return fail("cannot create output directory '" + dir + "': a file is in the way");
  }
  // Sequence outputs `y` come as the tensors `y[0]`, `y[1]`, ...: with pb they are
  // written together as DIR/y.pb (a SequenceProto; OptionalProto for optionals).
  auto groups = outputGroups(r.module, iface);
  // One file per output: names that sanitize alike ('a/b', 'a_b') get _1, _2, ...
  std::set<std::string> taken;
  auto outputPath = [&](const std::string &name, const char *ext) {
    std::string stem = sanitize(name), file = stem + ext;
    for (int k = 1; taken.count(file); ++k)
      file = stem + "_" + std::to_string(k) + ext;
    taken.insert(file);
    return dir + "/" + file;
  };
  std::set<size_t> grouped;
  if (format == "pb")
    for (const auto &g : groups)
      grouped.insert(g.members.begin(), g.members.end());
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    dlc_tensor_info_t info;
    dlc_module_output_info(r.module, i, &info);
    const dlc_tensor_t *t = r.outputs[i].get();
    double mn, mx, mean;
    std::string line = "output '" + std::string(info.name) + "' " + dlc_dtype_name(info.dtype) +
                       shapeString(dlc_tensor_rank(t), dlc_tensor_shape(t));
    if (dlc_tensor_num_elements(t) == 0) {
      std::printf("%s (empty)", line.c_str());
    } else if (info.dtype == DLC_DTYPE_STRING) {
      // The first few strings, quoted (at most 40 bytes each).
      std::printf("%s", line.c_str());
      for (int64_t e = 0; e < std::min<int64_t>(3, dlc_tensor_num_elements(t)); ++e) {
        size_t n;
        const char *s = dlc_tensor_string(t, e, &n);
        std::printf(" \"%.*s%s\"", (int)std::min<size_t>(n, 40), s ? s : "", n > 40 ? "..." : "");
      }
      if (dlc_tensor_num_elements(t) > 3)
        std::printf(" ...");
    } else {
      stats(t, mn, mx, mean);
      std::printf("%s min %.6g max %.6g mean %.6g", line.c_str(), mn, mx, mean);
    }
    if (!dir.empty() && !grouped.count(i)) {
      // NumPy has no bfloat16, float8 or sub-byte types: those are always TensorProto files.
      bool pb = format == "pb" || info.dtype == DLC_DTYPE_BFLOAT16 ||
                info.dtype >= DLC_DTYPE_FLOAT8E4M3FN;
      std::string path = outputPath(info.name, pb ? ".pb" : ".npy");
      if (pb ? !onnxio::saveTensorProto(t, info.name, path, error)
             : dlc_tensor_save_npy(t, path.c_str()) != DLC_OK)
        return fail(pb ? error : dlc_status_message());
      std::printf(" -> %s", path.c_str());
    }
    std::printf("\n");
  }
  if (dir.empty() || format != "pb")
    return 0;
  for (const auto &g : groups) {
    std::vector<const dlc_tensor_t *> tensors;
    for (size_t i : g.members)
      tensors.push_back(r.outputs[i].get());
    auto kind = g.sequence ? onnxio::ValueKind::Sequence
                : tensors.empty() ? onnxio::ValueKind::Absent
                                  : onnxio::ValueKind::Tensor;
    std::string path = outputPath(g.name, ".pb");
    if (!onnxio::saveValueFile(kind, g.optional, tensors, g.name, path, error))
      return fail(error);
    std::printf("output '%s' %s of %zu tensors -> %s\n", g.name.c_str(),
                g.sequence ? "sequence" : "optional", tensors.size(), path.c_str());
  }
  return 0;
}

int benchCommand(int argc, char **argv) {
  Args args;
  std::string error;
  if (!parseArgs(argc, argv, 2,
                 {{"--input", true, true}, {"--threads", true}, {"--runs", true}, {"--warmup", true},
                  {"--check", false}, {"--help", false}, {"-h", false}},
                 args, error))
    return fail(error);
  if (args.has("--help") || args.has("-h")) {
    std::fputs(kBenchHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1)
    return fail("expected exactly one model (dlc bench MODEL.onnx|OUT.so)");
  long long runs = 100, warmup = 5;
  if (args.has("--runs") && !parseCount("--runs", args.get("--runs"), runs, error))
    return fail(error);
  if (args.has("--warmup") && !parseCount("--warmup", args.get("--warmup"), warmup, error))
    return fail(error);
  Runner r;
  Interface iface;
  PrepareOptions random;
  random.randomFill = true;
  if (int rc = prepare(args, r, iface, random))
    return rc;
  for (long long i = 0; i < warmup; ++i)
    if (!r.run(error))
      return fail(error);
  // --check: the first run's outputs, then the runs that differ from them.
  bool check = args.has("--check");
  std::vector<std::vector<char>> expected;
  long long differing = 0;
  std::string firstDiff;
  std::vector<double> ms;
  for (long long i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!r.run(error))
      return fail(error);
    auto t1 = std::chrono::steady_clock::now();
    ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    if (!check)
      continue;
    for (size_t o = 0; o < r.outputs.size(); ++o) {
      const char *p = static_cast<const char *>(dlc_tensor_data(r.outputs[o].get()));
      size_t bytes = dlc_tensor_byte_size(r.outputs[o].get());
      if (i == 0) {
        expected.emplace_back(p, p + bytes);
        continue;
      }
      if (bytes == expected[o].size() && std::memcmp(p, expected[o].data(), bytes) == 0)
        continue;
      if (differing++ == 0) {
        dlc_tensor_info_t info;
        dlc_module_output_info(r.module, o, &info);
        firstDiff = "run " + std::to_string(i + 1) + ", output '" + info.name + "'";
      }
      break;
    }
  }
  std::sort(ms.begin(), ms.end());
  auto pct = [&](double p) { return ms[std::min(ms.size() - 1, (size_t)(p * (ms.size() - 1) + 0.5))]; };
  std::printf("%s: %lld runs, %d thread(s)\n", args.positional[0].c_str(), runs,
              dlc_session_num_threads(r.session));
  // Sub-millisecond models are shown in microseconds so small latencies stay visible.
  bool micro = pct(0.5) < 1.0;
  auto fmt = [&](double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, micro ? "%.3f us" : "%.3f ms", micro ? v * 1e3 : v);
    return std::string(buf);
  };
  std::printf("min %s  median %s  p90 %s\n", fmt(ms.front()).c_str(), fmt(pct(0.5)).c_str(),
              fmt(pct(0.9)).c_str());
  if (!check)
    return 0;
  if (differing == 0) {
    std::printf("check: all %lld runs gave bit-identical outputs\n", runs);
    return 0;
  }
  return fail(args.positional[0] + ": " + std::to_string(differing) + " of " +
              std::to_string(runs - 1) + " runs gave outputs that differ from the first run's (first: " +
              firstDiff + "): a race in the generated code or the runtime");
}

} // namespace dlc::cli
