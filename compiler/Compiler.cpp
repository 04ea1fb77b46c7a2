// Compilation: owns the context, formats diagnostics, drives phases, emits and links.
#include "compiler/Compiler.h"
#include "passes/Autodiff/Training.h"
#include "compiler/Pipelines.h"
#include "codegen/Target/CUDA/Passes.h"
#include "frontends/Onnx/FileIO.h"
#include "frontends/Onnx/Importer.h"
#include "runtime/dlc_abi.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassInstrumentation.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <unistd.h>
#include <cstdlib>
#include <thread>

using namespace mlir;

namespace dlc {

/// Turns MLIR diagnostics into the CLI's one-line error format.
struct Compilation::DiagnosticCollector {
  DiagnosticCollector(Compilation &c)
      : handler(&c.context(), [&c](Diagnostic &d) {
          if (d.getSeverity() != DiagnosticSeverity::Error)
            return success();
          std::string where = c.sourceName.empty() ? "" : c.sourceName + ": ";
          // Node locations are NameLoc(node, NameLoc("Op, opset N")), possibly fused
          // (again for a composite region's ops).
          Location loc = d.getLocation();
          while (auto fused = dyn_cast<FusedLoc>(loc)) {
            if (fused.getLocations().empty())
              break;
            loc = fused.getLocations().front();
          }
          if (auto name = dyn_cast<NameLoc>(loc)) {
            where += "node '" + name.getName().str() + "'";
            if (auto op = dyn_cast<NameLoc>(name.getChildLoc()))
              where += " (" + op.getName().str() + ")";
            where += ": ";
          }
          // One error per node: a node's first problem is the one to fix.
          if (!c.reportedLocations.insert(where).second)
            return success();
          // One line per error: newlines are folded and, since names come from
          // the model file, control characters are masked.
          std::string line = where + d.str();
          // Names from a corrupt file may not be UTF-8: then every non-ASCII byte is masked.
          bool utf8 = llvm::json::isUTF8(line);
          for (char &ch : line)
            if ((unsigned char)ch < 0x20 || ch == 0x7f || (!utf8 && (unsigned char)ch >= 0x80))
              ch = ch == '\n' ? ' ' : '?';
          c.errorLines.push_back(line);
          return success();
        }) {}
  ScopedDiagnosticHandler handler;
};

Compilation::Compilation(CompileOptions opts) : options(std::move(opts)) {
  registerPassesAndPipelines();
  DialectRegistry registry;
  registerDialects(registry);
  ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  // Keep ops' own error locations intact (no "see current operation" notes).
  ctx->printOpOnDiagnostic(false);
  diagnostics = std::make_unique<DiagnosticCollector>(*this);
}

Compilation::~Compilation() = default;

LogicalResult Compilation::fail(const std::string &msg) {
  errorLines.push_back((sourceName.empty() ? "" : sourceName + ": ") + msg);
  return failure();
}

bool verifyEachPassFromEnvironment() {
  const char *v = std::getenv("DLC_VERIFY_EACH_PASS");
  return v && std::string(v) == "1";
}

uint64_t defaultMaxMemory() {
  long pages = ::sysconf(_SC_PHYS_PAGES), pageSize = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || pageSize <= 0)
    return uint64_t(8) << 30;
  return uint64_t(pages) * uint64_t(pageSize) / 2;
}

LogicalResult Compilation::importOnnx(const std::string &path) {
  sourceName = path;
  onnx_frontend::ImportOptions io;
  io.maxTensorBytes = options.maxMemory;
  io.inputShapes = options.inputShapes;
  io.inputShapeSymbols = options.inputShapeSymbols;
  io.dynamicDims = options.dynamicDims;
  io.keepGoing = true; // report every unsupported node, not just the first
  io.inputValues = options.inputValues;
  io.sequenceLengths = options.sequenceLengths;
  io.absentInputs = options.absentInputs;
  io.extraOutputs = options.extraOutputs;
  // Training / initializer gradients: parameters must not be folded by the builders.
  if (options.training || (!options.gradOf.empty() && options.gradInitializers)) {
    io.initializersAsArguments = true;
    if (options.training)
      io.frozenInitializers = options.training->frozen;
  }
  // The importer's file-level errors already carry the file location; print
  // them without repeating the path.
  auto m = onnx_frontend::importOnnxFile(*ctx, path, io);
  if (failed(m)) {
    if (errorLines.empty())
      return fail("import failed");
    return failure();
  }
  mod = std::move(*m);
  // A training step carries its forward model (dlc train --save-onnx), its trained
  // initializers stripped; embedded when the LLVM phase runs.
  if (options.training) {
    auto bytes = onnx_frontend::stripTrainableInitializers(*ctx, path, io.frozenInitializers);
    if (failed(bytes))
      return failure();
    forwardModel = std::move(*bytes);
  }
  return success();
}

namespace {
/// Remembers the first pass that failed, so a failure without a diagnostic (a
/// compiler bug: every user-facing problem is diagnosed before phase 2) still
/// names where it happened.
struct FailedPassRecorder : PassInstrumentation {
  explicit FailedPassRecorder(std::string &name) : name(name) {}
  void runAfterPassFailed(Pass *pass, Operation *) override {
    if (name.empty())
      name = pass->getArgument().str();
  }
  std::string &name;
};
} // namespace

LogicalResult Compilation::runTo(Phase phase) {
  if (!mod)
    return fail("no module to compile");
  x86::TargetOptions target = targetOptions();
  int want = phase == Phase::Graph ? 1 : phase == Phase::Linalg ? 2 : 3;
  for (int p = phasesDone + 1; p <= want; ++p) {
    PassManager pm(ctx.get());
    std::string failedPass;
    pm.addInstrumentation(std::make_unique<FailedPassRecorder>(failedPass));
    if (options.timing)
      pm.enableTiming();
    pm.enableVerifier(options.verifyEachPass);
    if (p == 1)
      buildGraphPipeline(pm, GraphPipelineOptions{options.gradOf, options.gradInitializers,
                                                  options.training, options.dumpConfig,
                                                  options.bf16Contractions});
    else if (p == 2)
      buildLinalgPipeline(pm, target, options.maxMemory, options.bf16Contractions,
                          targetsCuda());
    else {
      if (!forwardModel.empty())
        (*mod)->setAttr(codegen::kOnnxModelAttr, StringAttr::get(ctx.get(), forwardModel));
      if (targetsCuda()) {
        std::optional<cuda::GpuTarget> gpu = cuda::GpuTarget::parse(options.target);
        if (!gpu)
          return fail("unsupported target '" + options.target + "' (expected cuda:" +
                      cuda::GpuTarget::supported() + ")");
        cuda::TargetOptions cudaTarget;
        cudaTarget.gpu = *gpu;
        cudaTarget.optLevel = options.optLevel;
        cudaTarget.dumpConfig = options.dumpConfig;
        cudaTarget.scheduleOnCpu = options.cudaScheduleOnCpu;
        // libdevice (exp, tanh, erf, ... in the kernels) comes from the toolkit.
        std::string libdevice = cuda::toolkitPath(cudaTarget) + "/nvvm/libdevice/libdevice.10.bc";
        if (!cudaTarget.scheduleOnCpu && !llvm::sys::fs::is_regular_file(libdevice))
          return fail("--target=" + options.target + " needs the CUDA toolkit's libdevice, not "
                      "found at " + libdevice + " (set CUDA_HOME to the toolkit directory, "
                      "e.g. /usr/local/cuda)");
        if (options.dumpConfig)
          llvm::errs() << gpu->describe() << "\n";
        cuda::buildCudaLoweringPipeline(pm, cudaTarget);
      } else {
        buildLLVMPipeline(pm, target);
      }
    }
    if (failed(pm.run(*mod))) {
      if (errorLines.empty())
        return fail("compilation failed in phase " + std::to_string(p) +
                    (failedPass.empty() ? std::string()
                                        : " (internal error in pass " + failedPass +
                                              "; please report it with the model)"));
      return failure();
    }
    // Without per-pass verification, the phase's result is verified once.
    if (!options.verifyEachPass && failed(verify(*mod))) {
      if (errorLines.empty())
        return fail("compilation failed in phase " + std::to_string(p) +
                    " (internal error: its result does not verify; please report it with "
                    "the model)");
      return failure();
    }
    phasesDone = p;
  }
  return success();
}

std::optional<MemoryReport> Compilation::memoryReport() {
  return mod ? autodiff::getMemoryReport(*mod) : std::nullopt;
}

bool checkTarget(const std::string &target, std::string &error) {
  if (target == "host" || target == "x86-64-v3" || target == "x86-64-v4")
    return true;
  if (cuda::GpuTarget::isCuda(target) && cuda::GpuTarget::parse(target))
    return true;
  error = "unsupported target '" + target + "' (expected host, x86-64-v3, x86-64-v4 or cuda:" +
          "ARCH with ARCH one of " + cuda::GpuTarget::supported() + ")";
  return false;
}

bool Compilation::targetsCuda() const { return cuda::GpuTarget::isCuda(options.target); }

x86::TargetOptions Compilation::targetOptions() const {
  x86::TargetOptions target;
  target.cpu = options.target;
  // A GPU module's host code (and its weights' layout) is for any x86-64 with AVX2.
  if (targetsCuda())
    target.cpu = "x86-64-v3";
  target.optLevel = options.optLevel;
  target.dumpConfig = options.dumpConfig;
  // Testing only (dlc verify's test): a deliberately wrong compiler.
  if (const char *fault = std::getenv("DLC_INJECT_FAULT"))
    target.injectFault = fault;
  // Testing only (e2e-quant-vnni-form): VNNI's weight form on a CPU without VNNI.
  if (const char *form = std::getenv("DLC_INT8_DOT_FORM"))
    target.int8DotForm = form;
  // Testing only (e2e-bf16-dot-form): vdpbf16ps's weight form on a CPU without AVX512-BF16.
  if (const char *form = std::getenv("DLC_BF16_DOT_FORM"))
    target.bf16DotForm = form;
  return target;
}

FailureOr<std::vector<KernelChoice>> Compilation::chooseKernels() {
  if (failed(runTo(Phase::Linalg)))
    return failure();
  x86::TargetOptions target = targetOptions();
  target.untilKernels = true;
  PassManager pm(ctx.get());
  buildLLVMPipeline(pm, target);
  if (failed(pm.run(*mod))) {
    if (errorLines.empty())
      (void)fail("compilation failed in kernel selection");
    return failure();
  }
  phasesDone = 3; // not a finished phase 3: nothing can follow
  std::vector<KernelChoice> kernels;
  mod->walk([&](func::FuncOp f) {
    auto records = f->getAttrOfType<ArrayAttr>("dlc.kernels");
    if (!records)
      return;
    for (auto r : records.getAsRange<DictionaryAttr>()) {
      auto str = [&](StringRef key) {
        auto a = r.getAs<StringAttr>(key);
        return a ? a.str() : std::string();
      };
      kernels.push_back({str("node"), str("epilogue"), str("config")});
    }
  });
  return kernels;
}

std::string Compilation::printIR() {
  std::string s;
  llvm::raw_string_ostream os(s);
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(16);
  mod->print(os, flags);
  return s;
}

LogicalResult Compilation::emitLLVMIR(std::string &text) {
  if (failed(runTo(Phase::LLVM)))
    return failure();
  std::string error;
  if (failed(x86::emitLLVMIR(*mod, targetOptions(), text, error)))
    return fail(error);
  return success();
}

LogicalResult Compilation::emitObject(std::string &object) {
  if (failed(runTo(Phase::LLVM)))
    return failure();
  std::string error;
  if (failed(x86::emitObject(*mod, targetOptions(), object, error)))
    return fail(error);
  return success();
}

LogicalResult Compilation::emitPtx(std::string &ptx) {
  if (!targetsCuda() || options.cudaScheduleOnCpu)
    return fail("--emit=ptx needs --target=cuda:<arch>");
  if (failed(runTo(Phase::LLVM)))
    return failure();
  auto global = mod->lookupSymbol<LLVM::GlobalOp>("dlc_cuda_ptx");
  auto text = global ? dyn_cast_or_null<StringAttr>(global.getValueOrNull()) : StringAttr();
  if (!text)
    return fail("the model has no kernels to emit as PTX");
  ptx = text.getValue().str();
  if (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  return success();
}

/// The library followed by its seal (runtime/dlc_abi.h), which the runtime
/// checks before loading it.
static std::string sealModule(StringRef library) {
  dlc_abi_seal_t seal = dlc_abi_seal_for(library.data(), library.size());
  static_assert(sizeof(seal) == 32, "the seal's layout is the file format");
  std::string sealed(library);
  sealed.append(reinterpret_cast<const char *>(&seal), sizeof(seal));
  return sealed;
}

LogicalResult Compilation::writeSharedLibrary(const std::string &path) {
  if (failed(runTo(Phase::LLVM)))
    return failure();
  // LLVM's optimization and code generation run on one module part per core.
  unsigned partitions = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
  std::vector<std::string> objects;
  std::string error;
  if (failed(x86::emitObjects(*mod, targetOptions(), partitions, objects,
                              error)))
    return fail(error);
  SmallVector<SmallString<128>> objPaths(objects.size());
  SmallString<128> soPath;
  llvm::scope_exit cleanup([&] {
    for (auto &p : objPaths)
      if (!p.empty())
        llvm::sys::fs::remove(p);
    llvm::sys::fs::remove(soPath);
  });
  for (size_t i = 0; i < objects.size(); ++i) {
    if (llvm::sys::fs::createTemporaryFile("dlc-model", "o", objPaths[i]))
      return fail("cannot create temporary files");
    if (!writeFileAtomically(std::string(objPaths[i]), objects[i], error))
      return fail(error);
  }
  if (llvm::sys::fs::createTemporaryFile("dlc-model", "so", soPath))
    return fail("cannot create temporary files");
  // The model needs only libm and libc at load time.
  SmallVector<StringRef> args = {DLC_LLD_PATH, "-shared", "--eh-frame-hdr", "-o", soPath};
  for (auto &p : objPaths)
    args.push_back(p);
  args.push_back(DLC_LIBM_PATH);
  std::string errMsg;
  int rc = llvm::sys::ExecuteAndWait(DLC_LLD_PATH, args, std::nullopt, {}, 0, 0, &errMsg);
  if (rc != 0)
    return fail("linking the shared library failed" + (errMsg.empty() ? "" : ": " + errMsg));
  auto so = llvm::MemoryBuffer::getFile(soPath, /*IsText=*/false);
  if (!so)
    return fail("cannot read the linked library");
  if (!writeFileAtomically(path, sealModule((*so)->getBuffer()), error))
    return fail(error);
  return success();
}

} // namespace dlc
