// LLVM dialect -> LLVM IR -> optimized native object for the chosen x86 CPU.
#include "codegen/Target/X86/Passes.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

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

static std::unique_ptr<llvm::Module> translate(ModuleOp module, llvm::LLVMContext &llctx,
                                               llvm::TargetMachine &tm, int optLevel,
                                               std::string &error) {
  registerBuiltinDialectTranslation(*module->getContext());
  registerLLVMDialectTranslation(*module->getContext());
  auto llmod = translateModuleToLLVMIR(module, llctx, "dlc_model");
  if (!llmod) {
    error = "translation to LLVM IR failed";
    return nullptr;
  }
  llmod->setDataLayout(tm.createDataLayout());
  llmod->setTargetTriple(tm.getTargetTriple());
  auto transformer = makeOptimizingTransformer(optLevel, /*sizeLevel=*/0, &tm);
  if (auto err = transformer(llmod.get())) {
    error = llvm::toString(std::move(err));
    return nullptr;
  }
  return llmod;
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
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    error = "the target cannot emit object files";
    return failure();
  }
  pm.run(*llmod);
  object.assign(buffer.begin(), buffer.end());
  return success();
}

} // namespace dlc::x86
