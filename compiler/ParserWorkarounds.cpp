// Pre-parse checks for textual IR that MLIR 22's parsers would crash on.
#include "compiler/ParserWorkarounds.h"

#include "llvm/ADT/StringExtras.h"

namespace dlc {

namespace {

/// Deeper bracket nesting than any real IR has; the parser recurses once per level.
constexpr unsigned kMaxNesting = 512;

bool isIdentChar(char c) { return llvm::isAlnum(c) || llvm::StringRef("_$.%#@^!-").contains(c); }

/// Skips spaces, tabs and newlines from `i`.
size_t skipSpace(llvm::StringRef s, size_t i) {
  while (i < s.size() && llvm::StringRef(" \t\r\n").contains(s[i]))
    ++i;
  return i;
}

/// `[` (integer (`,` integer)*)? `]` from `i` (an integer: optional `-`, decimal or 0x hex);
/// returns the index past `]`, or npos.
size_t parseIntList(llvm::StringRef s, size_t i) {
  if (i >= s.size() || s[i] != '[')
    return llvm::StringRef::npos;
  i = skipSpace(s, i + 1);
  if (i < s.size() && s[i] == ']')
    return i + 1;
  while (true) {
    if (i < s.size() && s[i] == '-')
      ++i;
    size_t start = i;
    if (s.substr(i).starts_with("0x") && i + 2 < s.size() && llvm::isHexDigit(s[i + 2]))
      for (i += 2; i < s.size() && llvm::isHexDigit(s[i]);)
        ++i;
    else
      while (i < s.size() && llvm::isDigit(s[i]))
        ++i;
    if (i == start || (i < s.size() && isIdentChar(s[i])))
      return llvm::StringRef::npos;
    i = skipSpace(s, i);
    if (i < s.size() && s[i] == ']')
      return i + 1;
    if (i >= s.size() || s[i] != ',')
      return llvm::StringRef::npos;
    i = skipSpace(s, i + 1);
  }
}

} // namespace

std::string findParserCrashHazard(llvm::StringRef text) {
  unsigned line = 1;
  size_t lineStart = 0;
  bool inString = false;
  unsigned depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      lineStart = i + 1;
      inString = false;
      continue;
    }
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
      continue;
    }
    if (text.substr(i).starts_with("//")) { // a comment, to the end of the line
      i = text.find('\n', i);
      if (i == llvm::StringRef::npos)
        break;
      --i;
      continue;
    }
    if (text.substr(i).starts_with("->")) {
      ++i;
      continue;
    }
    if (llvm::StringRef("([{<").contains(c) && ++depth > kMaxNesting)
      return std::to_string(line) + ":" + std::to_string(i - lineStart + 1) +
             ": brackets nested more than " + std::to_string(kMaxNesting) +
             " deep (MLIR 22's recursive parser would overflow the stack)";
    if (llvm::StringRef(")]}>").contains(c) && depth > 0)
      --depth;
    // `array<index ...>`: the dense-array parser asks `index` for a bit width (null type).
    if (text.substr(i).starts_with("array<") && (i == 0 || !isIdentChar(text[i - 1]))) {
      size_t j = skipSpace(text, i + 6);
      if (text.substr(j).starts_with("index") &&
          (j + 5 >= text.size() || !isIdentChar(text[j + 5])))
        return std::to_string(line) + ":" + std::to_string(i - lineStart + 1) +
               ": a dense array of 'index' (MLIR 22's parser crashes on it; use i64)";
    }
    for (llvm::StringRef key : {"permutation", "dimensions"}) {
      if (!text.substr(i).starts_with(key) || (i > 0 && isIdentChar(text[i - 1])) ||
          (i + key.size() < text.size() && isIdentChar(text[i + key.size()])))
        continue;
      size_t j = skipSpace(text, i + key.size());
      if (j >= text.size() || text[j] != '=')
        continue;
      j = skipSpace(text, j + 1);
      llvm::StringRef rest = text.substr(j);
      if (rest.starts_with("array<") || rest.starts_with("dense<") || rest.starts_with("#") ||
          rest.starts_with("\"") || rest.starts_with("affine_map<"))
        continue;
      if (parseIntList(text, j) == llvm::StringRef::npos)
        return std::to_string(line) + ":" + std::to_string(i - lineStart + 1) + ": expected '" +
               key.str() + " = [' integers separated by ',' then ']' (MLIR 22's linalg parser " +
               "crashes on anything else)";
    }
  }
  return {};
}

} // namespace dlc
