// The x86 CPU that code is generated for (see CpuTarget.h).
#include "codegen/Target/X86/CpuTarget.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Threading.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

#include <string>

namespace dlc::x86 {

/// A cache size from Linux's sysfs ("48K", "1024K", "32768K"); 0 when unreadable.
static int64_t sysfsCacheBytes(unsigned index, llvm::StringRef wantType, unsigned wantLevel) {
  std::string dir = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/";
  auto read = [&](const char *file) -> std::string {
    auto buffer = llvm::MemoryBuffer::getFile(dir + file, /*IsText=*/true);
    return buffer ? (*buffer)->getBuffer().trim().str() : std::string();
  };
  unsigned level = 0;
  if (llvm::StringRef(read("level")).getAsInteger(10, level) || level != wantLevel ||
      (read("type") != wantType && read("type") != "Unified"))
    return 0;
  std::string text = read("size");
  llvm::StringRef size = text; // (not read("size") itself: the StringRef would outlive it)
  int64_t scale = size.consume_back("K") ? 1024 : size.consume_back("M") ? 1 << 20 : 1;
  int64_t value = 0;
  return size.getAsInteger(10, value) || value <= 0 ? 0 : value * scale;
}

/// The host's cache sizes where sysfs gives them (other fields keep their values).
static void readHostCaches(CpuTarget &t) {
  for (unsigned i = 0; i < 8; ++i) {
    if (int64_t b = sysfsCacheBytes(i, "Data", 1))
      t.l1dBytes = b;
    if (int64_t b = sysfsCacheBytes(i, "Unified", 2))
      t.l2Bytes = b;
    if (int64_t b = sysfsCacheBytes(i, "Unified", 3))
      t.l3Bytes = b;
  }
}

CpuTarget CpuTarget::resolve(llvm::StringRef cpu) {
  CpuTarget t;
  llvm::StringMap<bool> features;
  if (cpu == "host") {
    t.cpu = llvm::sys::getHostCPUName().str();
    features = llvm::sys::getHostCPUFeatures();
  } else {
    t.cpu = cpu.str();
    // LLVM lists a CPU's features without those they imply (x86-64-v4 names avx512vl
    // but not avx512f): expand them.
    llvm::SmallVector<llvm::StringRef> listed;
    llvm::X86::getFeaturesForCPU(cpu, listed);
    for (llvm::StringRef f : listed) {
      features[f] = true;
      llvm::X86::updateImpliedFeatures(f, true, features);
    }
  }
  bool avx512 = features.lookup("avx512f");
  t.isa = avx512 ? Isa::AVX512 : Isa::AVX2;
  t.vectorBits = avx512 ? 512 : features.lookup("avx2") ? 256 : 128;
  t.vectorRegisters = avx512 ? 32 : 16;
  t.vnni = avx512 && features.lookup("avx512vnni");
  t.bf16 = avx512 && features.lookup("avx512bf16");
  if (avx512) { // a Zen 4 core, which the AVX-512 choices were measured on
    t.l1dBytes = 32 << 10, t.l2Bytes = 1 << 20, t.l3Bytes = 32 << 20;
  } else { // a Zen 2/3 or Skylake-class core
    t.l1dBytes = 32 << 10, t.l2Bytes = 512 << 10, t.l3Bytes = 16 << 20;
  }
  if (cpu == "host") {
    readHostCaches(t);
    t.cores = llvm::get_physical_cores() > 0 ? unsigned(llvm::get_physical_cores()) : 0;
  }
  return t;
}

std::string CpuTarget::describe() const {
  auto kib = [](int64_t b) { return std::to_string(b >> 10) + " KiB"; };
  return "target: " + cpu + " (" + (isa == Isa::AVX512 ? "avx512" : "avx2") +
         (vnni ? "+vnni" : "") + (bf16 ? "+bf16" : "") + ", " +
         std::to_string(vectorBits) + "-bit, " + std::to_string(vectorRegisters) +
         " registers; L1d " + kib(l1dBytes) + ", L2 " + kib(l2Bytes) + ", L3 " + kib(l3Bytes) +
         (cores ? "; " + std::to_string(cores) + " cores)" : ")");
}

} // namespace dlc::x86
