// GpuTarget: the architectures dlc generates PTX for, and what each one offers.
#include "codegen/Target/CUDA/GpuTarget.h"

#include "llvm/Support/FormatVariadic.h"

namespace dlc::cuda {

std::optional<GpuTarget> GpuTarget::parse(llvm::StringRef target) {
  target.consume_front("cuda:");
  GpuTarget gpu;
  gpu.chip = target.str();
  if (target == "sm_80" || target == "sm_86" || target == "sm_89") {
    // Ampere and Ada: mma.sync (m16n8k16 f16/bf16, m16n8k8 tf32).
    gpu.capability = target == "sm_80" ? 80 : target == "sm_86" ? 86 : 89;
    gpu.tensorCore = TensorCore::MmaSync;
  } else if (target == "sm_90" || target == "sm_90a") {
    // Hopper: wgmma needs the architecture-specific sm_90a; plain sm_90 code runs on any
    // later GPU and uses mma.sync.
    gpu.capability = 90;
    gpu.tensorCore = target == "sm_90a" ? TensorCore::Wgmma : TensorCore::MmaSync;
  } else {
    return std::nullopt;
  }
  return gpu;
}

const char *GpuTarget::supported() { return "sm_80, sm_86, sm_89, sm_90, sm_90a"; }

std::string GpuTarget::describe() const {
  return llvm::formatv("target: cuda {0} (PTX {1}, {2} tensor cores, {3} threads per block)",
                       chip, features.substr(4, 1) + "." + features.substr(5),
                       tensorCore == TensorCore::Wgmma ? "wgmma" : "mma.sync", blockThreads)
      .str();
}

} // namespace dlc::cuda
