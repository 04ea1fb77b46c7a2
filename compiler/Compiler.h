// The compiler as a library: import, run phases, emit IR / object / shared library.
#ifndef DLC_COMPILER_COMPILER_H
#define DLC_COMPILER_COMPILER_H

#include "codegen/Target/X86/Passes.h"
#include "dialects/Graph/IR/Names.h"
#include "frontends/Onnx/Importer.h"
#include "passes/Autodiff/MemoryReport.h"
#include "passes/Autodiff/TrainingOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OwningOpRef.h"

#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace dlc {

/// The importer's model-file API and the naming conventions the CLI and embedders need,
/// re-exported (tools include only compiler/ and runtime/).
using graph::sequenceElementName;
using onnx_frontend::checkOnnxFile;
using onnx_frontend::ImportOptions;
using onnx_frontend::summarizeOnnxFile;
using onnx_frontend::TensorSummary;
using onnx_frontend::TensorValue;
using autodiff::MemoryReport;
using autodiff::TrainingOptions;

/// The stages a compilation can stop at (`dlc compile --emit=`).
enum class Phase { Graph, Linalg, LLVM, Obj, So, Ptx };

/// Whether `target` is one `dlc compile --target` accepts (host, x86-64-v3, x86-64-v4,
/// cuda:sm_80, ...); if not, `error` says what is expected.
bool checkTarget(const std::string &target, std::string &error);

/// Half the machine's physical memory: the default limit on any one tensor.
uint64_t defaultMaxMemory();

/// Whether DLC_VERIFY_EACH_PASS is set to 1 (CompileOptions::verifyEachPass).
bool verifyEachPassFromEnvironment();

struct CompileOptions {
  int optLevel = 3;
  /// The largest tensor the model may hold, in bytes (dlc compile --max-memory); a
  /// node whose result would be larger is an error naming it (0: no limit).
  uint64_t maxMemory = defaultMaxMemory();
  std::string target = "host"; // host | x86-64-v3 | x86-64-v4 | cuda:sm_80 | ... (cuda:sm_90a)
  /// Testing (--target=cuda:...): compile the GPU kernel schedules as CPU loops instead
  /// of PTX: a CPU module that computes what the kernels compute (dlc compile
  /// --cuda-schedule-on-cpu).
  bool cudaScheduleOnCpu = false;
  /// Static shapes for model inputs (overrides symbolic dims).
  std::map<std::string, std::vector<int64_t>> inputShapes;
  /// Dims of inputShapes that name a dynamicDims symbol (see ImportOptions).
  std::map<std::string, std::vector<std::string>> inputShapeSymbols;
  /// Symbolic dims kept dynamic, each with its [min, max] (dlc compile --dims).
  std::map<std::string, std::pair<int64_t, int64_t>> dynamicDims;
  /// Input values to specialize to where a constant is needed (dlc run's
  /// input files; dlc compile --input-value).
  std::map<std::string, onnx_frontend::TensorValue> inputValues;
  /// Sequence input lengths and absent optional inputs (see ImportOptions).
  std::map<std::string, int64_t> sequenceLengths;
  std::set<std::string> absentInputs;
  /// Print per-pass timing to stderr (dlc compile --timing).
  bool timing = false;
  /// Verify the IR after every pass, not only after each phase. Verifying is about
  /// half the compile time of a graph of 100,000 small nodes, so it is off by default;
  /// DLC_VERIFY_EACH_PASS=1 in the environment turns it on (scripts/test does, so that
  /// a pass that breaks the IR is named by the test that meets it).
  bool verifyEachPass = verifyEachPassFromEnvironment();
  /// Print each op's kernel configuration to stderr (dlc compile --dump-config).
  bool dumpConfig = false;
  /// Output whose gradients w.r.t. every float input become extra outputs
  /// (dlc compile --grad-of); empty: none.
  std::string gradOf;
  /// With gradOf: gradients of the float initializers too (--grad-initializers).
  bool gradInitializers = false;
  /// Training step (dlc compile --train): the loss, optimizer, frozen initializers and
  /// rematerialization (compiler/TrainingSpec.h parses their textual forms); none: an
  /// inference module.
  std::optional<TrainingOptions> training;
  /// Values of the model that become outputs after its own (dlc verify).
  std::vector<std::string> extraOutputs;
  /// Matmul and conv operands rounded to bf16, f32 accumulation (dlc compile
  /// --precision=bf16; dlc-bf16-contractions).
  bool bf16Contractions = false;
};

/// A kernel as phase 3 chose it (dlc verify): the node it computes, the node of
/// the elementwise epilogue fused into it ("" when none), and its --dump-config line.
struct KernelChoice {
  std::string node, epilogue, config;
};

/// One model's way through the compiler. Errors are collected as one-line
/// messages (`errors()`), formatted `<file>: node '<name>' (<Op>, opset N): <msg>`.
class Compilation {
public:
  explicit Compilation(CompileOptions options);
  ~Compilation();

  mlir::MLIRContext &context() { return *ctx; }
  mlir::ModuleOp module() { return *mod; }
  const std::vector<std::string> &errors() const { return errorLines; }
  /// Name shown in diagnostics (the model file).
  void setSourceName(std::string name) { sourceName = std::move(name); }

  mlir::LogicalResult importOnnx(const std::string &path);
  void setModule(mlir::OwningOpRef<mlir::ModuleOp> module) { mod = std::move(module); }

  /// Runs the phases up to and including `phase` (Graph, Linalg or LLVM) that
  /// have not run yet.
  mlir::LogicalResult runTo(Phase phase);

  /// Runs the phases up to phase 3's kernel selection and returns its kernels in
  /// program order; the compilation cannot go on after it.
  mlir::FailureOr<std::vector<KernelChoice>> chooseKernels();

  /// Textual IR of the current module; LLVM IR text for Phase::LLVM emission.
  std::string printIR();
  mlir::LogicalResult emitLLVMIR(std::string &text);
  mlir::LogicalResult emitObject(std::string &object);
  /// The kernels of a --target=cuda compilation as PTX text (dlc compile --emit=ptx).
  mlir::LogicalResult emitPtx(std::string &ptx);
  /// Whether the target is a GPU (--target=cuda:...).
  bool targetsCuda() const;
  /// Links the object into a shared library at `path` (written atomically).
  mlir::LogicalResult writeSharedLibrary(const std::string &path);

  /// A training step's memory (none for an inference module or before phase 1).
  std::optional<MemoryReport> memoryReport();

  /// The code generator's options (with DLC_INJECT_FAULT's fault, testing only).
  x86::TargetOptions targetOptions() const;

  /// Records an error not tied to an IR location.
  mlir::LogicalResult fail(const std::string &msg);

private:
  CompileOptions options;
  std::unique_ptr<mlir::MLIRContext> ctx;
  mlir::OwningOpRef<mlir::ModuleOp> mod;
  std::vector<std::string> errorLines;
  std::set<std::string> reportedLocations;
  std::string sourceName;
  std::string forwardModel; // a training step's ONNX model, trained data stripped
  int phasesDone = 0;
  struct DiagnosticCollector;
  std::unique_ptr<DiagnosticCollector> diagnostics;
};

} // namespace dlc

#endif
