// The x86 CPU that code is generated for: its vector ISA, registers, caches and cores,
// the facts KernelConfig's choices are made from.
#ifndef DLC_CODEGEN_TARGET_X86_CPUTARGET_H
#define DLC_CODEGEN_TARGET_X86_CPUTARGET_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace dlc::x86 {

/// The widest vector ISA the kernels are chosen for: AVX-512 (32 zmm registers of 16
/// floats) or AVX2 (16 ymm registers of 8 floats; also what an older CPU gets, LLVM
/// splitting the vectors).
enum class Isa { AVX2, AVX512 };

struct CpuTarget {
  /// The LLVM CPU name ("znver4", "x86-64-v3", ...).
  std::string cpu;
  Isa isa = Isa::AVX512;
  unsigned vectorBits = 512;
  unsigned vectorRegisters = 32;
  /// AVX-512 VNNI (vpdpbusd: 8-bit dot products in 4-byte groups) and AVX512-BF16.
  bool vnni = false, bf16 = false;
  /// Per-core data caches and the shared last level, in bytes.
  int64_t l1dBytes = 32 << 10, l2Bytes = 1 << 20, l3Bytes = 32 << 20;
  /// Physical cores (0: unknown, as for a named CPU compiled ahead of time).
  unsigned cores = 0;

  /// 32-bit lanes of one vector register.
  int64_t f32Lanes() const { return vectorBits / 32; }

  /// `host` (the features and caches of this machine), `x86-64-v3`, `x86-64-v4` or any
  /// LLVM x86 CPU name (its features from LLVM's tables; the caches of a typical part:
  /// a Zen 4 core's for AVX-512 CPUs, a smaller core's for AVX2 ones).
  static CpuTarget resolve(llvm::StringRef cpu);

  /// One line for --dump-config: "target: znver4 (avx512+vnni+bf16, 512-bit, 32 registers; L1d
  /// 48 KiB, L2 1024 KiB, L3 32768 KiB; 2 cores)".
  std::string describe() const;
};

} // namespace dlc::x86

#endif
