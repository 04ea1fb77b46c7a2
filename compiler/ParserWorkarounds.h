// Textual IR that crashes MLIR 22's own parsers, rejected before they see it.
#ifndef DLC_COMPILER_PARSERWORKAROUNDS_H
#define DLC_COMPILER_PARSERWORKAROUNDS_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace dlc {

/// linalg.transpose, linalg.broadcast and linalg.reduce parse `permutation = [...]` /
/// `dimensions = [...]` with a helper that stores a null attribute when the list is
/// malformed, and MLIR 22 then dereferences it (a segfault on e.g. `permutation = [1,0r]`;
/// upstream's parseDenseI64ArrayAttr in LinalgOps.cpp). Returns an empty string when `text`
/// has no such list, else "<line>:<column>: <what was expected>". Comments are skipped;
/// generic-form attributes (`array<...>`, `dense<...>`) are left to the parser.
std::string findMalformedLinalgIndexList(llvm::StringRef text);

} // namespace dlc

#endif // DLC_COMPILER_PARSERWORKAROUNDS_H
