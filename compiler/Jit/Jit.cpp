// Embedded JIT on MLIR's ExecutionEngine, exposed as a runtime module.
#include "compiler/Jit/Jit.h"

#include "codegen/Target/X86/Passes.h"

#include "runtime/dlc_abi.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "llvm/Support/TargetSelect.h"

using namespace mlir;

namespace dlc::jit {

static void releaseEngine(void *engine) { delete static_cast<ExecutionEngine *>(engine); }

dlc_module_t *compile(Compilation &c, std::vector<std::string> &errors) {
  auto fail = [&]() -> dlc_module_t * {
    errors.insert(errors.end(), c.errors().begin(), c.errors().end());
    return nullptr;
  };
  if (failed(c.runTo(Phase::LLVM)))
    return fail();
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::InitializeNativeTargetAsmParser(); // inline assembly (AVX2 transposes)
  registerBuiltinDialectTranslation(c.context());
  registerLLVMDialectTranslation(c.context());
  ExecutionEngineOptions opts;
  x86::TargetOptions target = c.targetOptions();
  target.optLevel = 3;
  auto transformer = [&](llvm::Module *m) { return x86::optimizeModule(*m, target); };
  opts.transformer = transformer; // a function_ref: the lambda must outlive create()
  opts.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  auto engine = ExecutionEngine::create(c.module(), opts);
  if (!engine) {
    (void)c.fail("JIT compilation failed: " + llvm::toString(engine.takeError()));
    return fail();
  }
  auto entry = (*engine)->lookup(DLC_ABI_ENTRY_SYMBOL);
  auto desc = (*engine)->lookup(DLC_ABI_DESCRIPTOR_SYMBOL);
  if (!entry || !desc) {
    if (!entry)
      llvm::consumeError(entry.takeError());
    if (!desc)
      llvm::consumeError(desc.takeError());
    (void)c.fail("JIT: entry point not found");
    return fail();
  }
  ExecutionEngine *owner = engine->release();
  dlc_module_t *module = nullptr;
  if (dlc_module_create_from_symbols(static_cast<const char *>(*desc),
                                     reinterpret_cast<dlc_abi_entry_fn>(*entry), owner,
                                     releaseEngine, &module) != DLC_OK) {
    // On failure the engine is still ours.
    delete owner;
    (void)c.fail(std::string("JIT: ") + dlc_status_message());
    return fail();
  }
  // A training step's parameter buffers and forward model, when it has them.
  if (dlc_module_num_states(module) > 0) {
    auto lookupData = [&](const char *name) -> void * {
      auto address = owner->lookup(name);
      if (!address) {
        llvm::consumeError(address.takeError());
        return nullptr;
      }
      return *address;
    };
    auto *state = static_cast<void *const *>(lookupData(DLC_ABI_STATE_DATA_SYMBOL));
    const void *onnx = lookupData(DLC_ABI_ONNX_SYMBOL);
    auto *onnxSize = static_cast<const int64_t *>(lookupData(DLC_ABI_ONNX_SIZE_SYMBOL));
    if (dlc_module_attach_state(module, state, onnx, onnx && onnxSize ? (size_t)*onnxSize : 0) !=
        DLC_OK) {
      dlc_module_free(module);
      (void)c.fail(std::string("JIT: ") + dlc_status_message());
      return fail();
    }
  }
  return module;
}

dlc_module_t *compileOnnxFile(const std::string &path, const CompileOptions &options,
                              std::vector<std::string> &errors) {
  Compilation c(options);
  if (failed(c.importOnnx(path))) {
    errors.insert(errors.end(), c.errors().begin(), c.errors().end());
    return nullptr;
  }
  return compile(c, errors);
}

} // namespace dlc::jit
