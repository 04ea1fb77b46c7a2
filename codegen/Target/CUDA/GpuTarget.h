// The NVIDIA GPU that code is generated for: its architecture, the PTX ISA it is
// written in and the budgets (threads, registers, shared memory) kernels are chosen for.
#ifndef DLC_CODEGEN_TARGET_CUDA_GPUTARGET_H
#define DLC_CODEGEN_TARGET_CUDA_GPUTARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace dlc::cuda {

/// The tensor-core instruction the architecture's matrix kernels use.
enum class TensorCore { MmaSync, Wgmma };

struct GpuTarget {
  /// The architecture as ptxas and LLVM name it: sm_80, sm_86, sm_89, sm_90, sm_90a.
  std::string chip;
  /// Compute capability x 10 (80, 86, 89, 90).
  int capability = 80;
  /// LLVM NVPTX features: the PTX ISA version the kernels are written in.
  std::string features = "+ptx80";
  TensorCore tensorCore = TensorCore::MmaSync;
  /// Threads per block the thread-mapped kernels use (a multiple of the warp).
  int64_t blockThreads = 256;
  static constexpr int64_t kWarpSize = 32;
  /// Static shared memory a block may use without opting in (bytes).
  int64_t sharedBytes = 48 << 10;
  /// Registers per thread a kernel may use without spilling to local memory.
  int64_t maxRegisters = 255;

  /// `cuda:sm_80` (the --target value) or the bare `sm_80`; std::nullopt for an
  /// architecture dlc does not generate code for.
  static std::optional<GpuTarget> parse(llvm::StringRef target);
  /// Whether `target` names a GPU (`cuda:...`), valid or not.
  static bool isCuda(llvm::StringRef target) { return target.starts_with("cuda"); }
  /// The architectures parse() accepts, for messages: "sm_80, sm_86, sm_89, sm_90, sm_90a".
  static const char *supported();

  /// One line for --dump-config: "target: cuda sm_80 (PTX 8.0, mma.sync tensor cores, 256
  /// threads per block)".
  std::string describe() const;
};

} // namespace dlc::cuda

#endif
