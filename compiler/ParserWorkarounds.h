// Textual IR that crashes MLIR 22's own parsers, rejected before they see it.
#ifndef DLC_COMPILER_PARSERWORKAROUNDS_H
#define DLC_COMPILER_PARSERWORKAROUNDS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace dlc {

/// Text MLIR 22's parsers crash on, found before they see it:
/// - brackets nested more than 512 deep (the parser recurses per level: 19,000 nested
///   `(` overflowed the stack);
/// - `array<index ...>` (the dense-array parser reads a bit width `index` does not have);
/// - a malformed `permutation = [...]` / `dimensions = [...]` list: linalg.transpose,
///   linalg.broadcast and linalg.reduce parse it with a helper that stores a null
///   attribute when the list is malformed, then dereference it (a segfault on e.g.
///   `permutation = [1,0r]`; upstream's parseDenseI64ArrayAttr in LinalgOps.cpp).
/// Returns an empty string when there is none, else "<line>:<column>: <what>". Comments
/// and strings are skipped; generic-form attributes (`array<...>`, `dense<...>`) are left
/// to the parser.
std::string findParserCrashHazard(llvm::StringRef text);

} // namespace dlc

#endif // DLC_COMPILER_PARSERWORKAROUNDS_H
