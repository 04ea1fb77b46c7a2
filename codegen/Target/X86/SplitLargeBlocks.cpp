// Bounds the size of LLVM IR basic blocks before instruction selection.
//
// LLVM's SelectionDAG selects one basic block at a time, and its DAG combiner is
// quadratic in the block's size (each node's use scans reach the block's entry
// token, which every constant-pool load and every load without an earlier store
// hangs off). A graph of many cheap elementwise nodes fuses into one kernel whose
// single iteration is one straight-line block: 40,000 chained Adds make a block of
// 40,000 `fadd`s, and "DAG Combining 2" alone took 13 s of a 16 s codegen; 100,000
// took minutes. Ending a block every `kMaxBlockInstructions` instructions with an
// unconditional branch (a fall-through in the final code) makes selection linear in
// the function's size. The largest block of the zoo's real models is under 3,000
// instructions, so their kernels are untouched.
//
// Split blocks are still slow to select and schedule when they are long chains of
// vector math sharing splat constants: 8,000 chained Sigmoids (216,000 instructions)
// spent 51 s in instruction selection and 35 s in the machine scheduler (its
// topological order is updated by a DFS over the region per added edge). A function
// that needed a split is therefore code-generated as `optnone` (after the IR
// optimizations, which have already run): the fast instruction selector and register
// allocator, no machine scheduling. That chain then takes 2 s instead of 90 s, and the
// machine code is about a quarter larger. Real models' functions do not qualify.
#include "codegen/Target/X86/Passes.h"

#include "llvm/IR/Attributes.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace dlc::x86 {

/// Blocks longer than this are split (see the file comment).
static constexpr unsigned kMaxBlockInstructions = 4096;

void splitLargeBlocks(llvm::Module &llmod) {
  for (llvm::Function &f : llmod) {
    if (f.isDeclaration())
      continue;
    // Blocks created by a split are appended after the one split and visited in turn.
    for (auto bb = f.begin(); bb != f.end(); ++bb) {
      if (bb->size() <= kMaxBlockInstructions)
        continue;
      if (!f.hasOptNone()) { // optnone needs noinline and excludes the size attributes
        f.removeFnAttr(llvm::Attribute::AlwaysInline);
        f.removeFnAttr(llvm::Attribute::MinSize);
        f.removeFnAttr(llvm::Attribute::OptimizeForSize);
        f.addFnAttr(llvm::Attribute::NoInline);
        f.addFnAttr(llvm::Attribute::OptimizeNone);
      }
      auto it = bb->getFirstNonPHIIt();
      unsigned count = 0;
      for (; it != bb->end() && count < kMaxBlockInstructions; ++it)
        ++count;
      // Never split in front of the terminator: the new block would be empty.
      if (it == bb->end() || it->isTerminator())
        continue;
      bb->splitBasicBlock(it, bb->getName() + ".split");
    }
  }
}

} // namespace dlc::x86
