// LLVM dialect -> LLVM IR -> optimized native object for the chosen x86 CPU.
#include "codegen/Target/X86/Passes.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Instrumentation/ThreadSanitizer.h"
#include "llvm/Transforms/Utils/SplitModule.h"

#include <dlfcn.h>
#include <thread>

using namespace mlir;

namespace dlc::x86 {

void resolveCpu(const TargetOptions &options, std::string &cpu, std::string &features) {
  if (options.cpu != "host") {
    cpu = options.cpu;
    features.clear();
    return;
  }
  cpu = llvm::sys::getHostCPUName().str();
  features.clear();
  for (const auto &f : llvm::sys::getHostCPUFeatures())
    features += (features.empty() ? "" : ",") + std::string(f.second ? "+" : "-") + f.first().str();
}

static std::unique_ptr<llvm::TargetMachine> createTargetMachine(const TargetOptions &options,
                                                                std::string &error) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser(); // inline assembly (AVX2 transposes)
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return nullptr;
  std::string cpu, features;
  resolveCpu(options, cpu, features);
  llvm::TargetOptions to;
  auto level = options.optLevel >= 3   ? llvm::CodeGenOptLevel::Aggressive
               : options.optLevel == 2 ? llvm::CodeGenOptLevel::Default
               : options.optLevel == 1 ? llvm::CodeGenOptLevel::Less
                                       : llvm::CodeGenOptLevel::None;
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      triple, cpu, features, to, llvm::Reloc::PIC_, std::nullopt, level));
  if (!tm)
    error = "cannot create a target machine for cpu '" + cpu + "'";
  return tm;
}

/// Whether generated code is instrumented for ThreadSanitizer: when the process carries the
/// TSan runtime (dlc-tsan and the other twins of scripts/test --tsan), so that the model's
/// parallel loop bodies, the runtime's pool and the process's threads are checked together.
/// Such a model loads only into a process that carries the TSan runtime.
static bool threadSanitizerPresent() {
  static const bool present = dlsym(RTLD_DEFAULT, "__tsan_init") != nullptr;
  return present;
}

/// ThreadSanitizer's instrumentation of every function defined in `llmod` (run after the
/// optimization pipeline, as clang does at -O1 and above).
static void instrumentForThreadSanitizer(llvm::Module &llmod) {
  for (llvm::Function &f : llmod)
    if (!f.isDeclaration())
      f.addFnAttr(llvm::Attribute::SanitizeThread);
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb;
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::ModulePassManager mpm;
  mpm.addPass(llvm::ModuleThreadSanitizerPass());
  mpm.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::ThreadSanitizerPass()));
  mpm.run(llmod, mam);
}

llvm::Error optimizeModule(llvm::Module &llmod, const TargetOptions &options,
                           llvm::TargetMachine *tm) {
  // Without a target machine the pipeline has no cost model for the CPU: the JIT then
  // got IR that LLVM's x86 instruction selection crashed on (MaxPool -> MatMul, difftest
  // case_1245c5f8e8), and vectorized differently from the AOT path.
  std::unique_ptr<llvm::TargetMachine> own;
  if (!tm) {
    std::string error;
    own = createTargetMachine(options, error);
    if (!own)
      return llvm::createStringError(error);
    tm = own.get();
  }
  auto transformer = makeOptimizingTransformer(options.optLevel, /*sizeLevel=*/0, tm);
  if (auto err = transformer(&llmod))
    return err;
  splitLargeBlocks(llmod);
  if (threadSanitizerPresent())
    instrumentForThreadSanitizer(llmod);
  return llvm::Error::success();
}

/// Runs LLVM's optimization pipeline at `optLevel` on `llmod`.
static bool optimize(llvm::Module &llmod, llvm::TargetMachine &tm, int optLevel,
                     std::string &error) {
  TargetOptions options;
  options.optLevel = optLevel;
  if (auto err = optimizeModule(llmod, options, &tm)) {
    error = llvm::toString(std::move(err));
    return false;
  }
  return true;
}

/// LLVM dialect -> LLVM IR for `tm` (not yet optimized).
static std::unique_ptr<llvm::Module> translateOnly(ModuleOp module, llvm::LLVMContext &llctx,
                                                   llvm::TargetMachine &tm, std::string &error) {
  registerBuiltinDialectTranslation(*module->getContext());
  registerLLVMDialectTranslation(*module->getContext());
  auto llmod = translateModuleToLLVMIR(module, llctx, "dlc_model");
  if (!llmod) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  llmod->setDataLayout(tm.createDataLayout());
  llmod->setTargetTriple(tm.getTargetTriple());
  return llmod;
}

static std::unique_ptr<llvm::Module> translate(ModuleOp module, llvm::LLVMContext &llctx,
                                               llvm::TargetMachine &tm, int optLevel,
                                               std::string &error) {
  auto llmod = translateOnly(module, llctx, tm, error);
  if (!llmod || !optimize(*llmod, tm, optLevel, error))
    return nullptr;
  return llmod;
}

/// Native code for an optimized module.
static bool codegen(llvm::Module &llmod, llvm::TargetMachine &tm, std::string &object,
                    std::string &error) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return false;
  }
  pm.run(llmod);
  object.assign(buffer.begin(), buffer.end());
  return true;
}

/// Target machine + optimized LLVM module for `module`, or failure with `error` set.
static LogicalResult prepare(ModuleOp module, const TargetOptions &options,
                             llvm::LLVMContext &llctx, std::unique_ptr<llvm::TargetMachine> &tm,
                             std::unique_ptr<llvm::Module> &llmod, std::string &error) {
  tm = createTargetMachine(options, error);
  if (!tm)
    return failure();
  llmod = translate(module, llctx, *tm, options.optLevel, error);
  return success(llmod != nullptr);
}

LogicalResult emitLLVMIR(ModuleOp module, const TargetOptions &options, std::string &text,
                         std::string &error) {
  llvm::LLVMContext llctx;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::Module> llmod;
  if (failed(prepare(module, options, llctx, tm, llmod, error)))
    return failure();
  llvm::raw_string_ostream os(text);
  llmod->print(os, nullptr);
  return success();
}

LogicalResult emitObject(ModuleOp module, const TargetOptions &options, std::string &object,
                         std::string &error) {
  llvm::LLVMContext llctx;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::unique_ptr<llvm::Module> llmod;
  if (failed(prepare(module, options, llctx, tm, llmod, error)))
    return failure();
  return success(codegen(*llmod, *tm, object, error));
}

LogicalResult emitObjects(ModuleOp module, const TargetOptions &options, unsigned partitions,
                          std::vector<std::string> &objects, std::string &error) {
  objects.clear();
  if (partitions <= 1) {
    objects.emplace_back();
    return emitObject(module, options, objects.back(), error);
  }
  // Split the unoptimized module by functions (locals externalized with hidden
  // visibility), hand each part over as bitcode, and optimize + compile the parts
  // on their own threads, each with its own context and target machine.
  std::vector<llvm::SmallVector<char, 0>> parts;
  {
    llvm::LLVMContext llctx;
    auto tm = createTargetMachine(options, error);
    if (!tm)
      return failure();
    auto llmod = translateOnly(module, llctx, *tm, error);
    if (!llmod)
      return failure();
    llvm::SplitModule(
        *llmod, partitions,
        [&](std::unique_ptr<llvm::Module> part) {
          parts.emplace_back();
          llvm::raw_svector_ostream os(parts.back());
          llvm::WriteBitcodeToFile(*part, os);
        },
        /*PreserveLocals=*/false, /*RoundRobin=*/true);
  }
  objects.resize(parts.size());
  std::vector<std::string> errors(parts.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < parts.size(); ++i)
    threads.emplace_back([&, i] {
      llvm::LLVMContext llctx;
      auto mod = llvm::parseBitcodeFile(
          llvm::MemoryBufferRef(llvm::StringRef(parts[i].data(), parts[i].size()), "part"), llctx);
      if (!mod) {
        errors[i] = llvm::toString(mod.takeError());
        return;
      }
      auto tm = createTargetMachine(options, errors[i]);
      if (!tm || !optimize(**mod, *tm, options.optLevel, errors[i]))
        return;
      (void)codegen(**mod, *tm, objects[i], errors[i]);
    });
  for (auto &t : threads)
    t.join();
  for (const std::string &e : errors)
    if (!e.empty()) {
      error = e;
      return failure();
    }
  return success();
}

} // namespace dlc::x86
