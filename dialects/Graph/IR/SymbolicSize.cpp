// SymbolicSize: monomials of the symbolic dims, derived sizes (sums, quotients) named by
// their parts, their bounds, and the dims the model computes.
#include "dialects/Graph/IR/SymbolicShapes.h"
#include "dialects/Graph/IR/CheckedMath.h"
#include "dialects/Graph/IR/Names.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace dlc::graph {

SymbolicSize SymbolicSize::symbol(StringRef name) {
  SymbolicSize m;
  m.syms[name.str()] = 1;
  return m;
}

SymbolicSize SymbolicSize::constant(int64_t c) {
  SymbolicSize m;
  m.coef = c;
  return m;
}

namespace {

/// `text` cut at each `sep` outside parentheses; nothing when they do not balance.
std::optional<SmallVector<StringRef>> splitTopLevel(StringRef text, char sep) {
  SmallVector<StringRef> parts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '(')
      ++depth;
    else if (text[i] == ')' && --depth < 0)
      return std::nullopt;
    else if (text[i] == sep && depth == 0) {
      parts.push_back(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth != 0)
    return std::nullopt;
  parts.push_back(text.substr(start));
  return parts;
}

} // namespace

std::optional<SymbolicSize> SymbolicSize::parse(StringRef text) {
  SymbolicSize m;
  if (text.empty())
    return std::nullopt;
  bool negative = text.consume_front("-");
  std::optional<SmallVector<StringRef>> parts = splitTopLevel(text, '*');
  if (!parts)
    return std::nullopt;
  for (StringRef p : *parts) {
    int64_t c;
    if (p.empty())
      return std::nullopt;
    if (!p.getAsInteger(10, c))
      m.coef *= c;
    else if ((p.front() == '(' || p.starts_with("max(") || p.starts_with("min(")) &&
             !parseDerived(p))
      return std::nullopt;
    else
      ++m.syms[p.str()];
  }
  if (negative)
    m.coef = -m.coef;
  return m;
}

SymbolicSize SymbolicSize::operator*(const SymbolicSize &o) const {
  SymbolicSize m = *this;
  m.coef *= o.coef;
  for (const auto &[s, e] : o.syms)
    m.syms[s] += e;
  return m;
}

std::optional<SymbolicSize> SymbolicSize::divide(const SymbolicSize &o) const {
  if (o.coef == 0 || coef % o.coef != 0)
    return std::nullopt;
  SymbolicSize m = *this;
  m.coef /= o.coef;
  for (const auto &[s, e] : o.syms) {
    auto it = m.syms.find(s);
    if (it == m.syms.end() || it->second < e)
      return std::nullopt;
    if ((it->second -= e) == 0)
      m.syms.erase(it);
  }
  return m;
}

std::string SymbolicSize::str() const {
  std::string out = coef != 1 || syms.empty() ? std::to_string(coef) : "";
  for (const auto &[s, e] : syms)
    for (int i = 0; i < e; ++i)
      out += (out.empty() ? "" : "*") + s;
  return out;
}

SymbolicSize sizeProduct(ArrayRef<SymbolicSize> dims) {
  SymbolicSize p;
  for (const SymbolicSize &m : dims)
    p = p * m;
  return p;
}

namespace {

using Terms = std::map<std::map<std::string, int>, int64_t>;

/// `s` as signed terms: a sum's terms (scaled), or itself; nothing on overflow.
std::optional<Terms> termsOf(const SymbolicSize &s) {
  Terms t;
  if (s.coef == 0)
    return t;
  if (s.syms.size() == 1 && s.syms.begin()->second == 1)
    if (std::optional<DerivedSize> d = parseDerived(s.syms.begin()->first); d && d->kind == DerivedSize::Sum) {
      for (const SymbolicSize &term : d->terms) {
        int64_t c;
        if (__builtin_mul_overflow(term.coef, s.coef, &c) ||
            __builtin_add_overflow(t[term.syms], c, &t[term.syms]))
          return std::nullopt;
      }
      return t;
    }
  t[s.syms] = s.coef;
  return t;
}

SymbolicSize fromTerms(const Terms &terms) {
  SmallVector<SymbolicSize> kept;
  for (const auto &[syms, coef] : terms)
    if (coef != 0) {
      SymbolicSize m;
      m.coef = coef;
      m.syms = syms;
      kept.push_back(m);
    }
  if (kept.empty())
    return SymbolicSize::constant(0);
  if (kept.size() == 1)
    return kept.front();
  // The constant (no symbols, first in the map's order) goes last.
  if (kept.front().isStatic())
    std::rotate(kept.begin(), kept.begin() + 1, kept.end());
  std::string name = "(";
  for (auto [i, m] : llvm::enumerate(kept)) {
    SymbolicSize mag = m;
    mag.coef = m.coef < 0 ? -m.coef : m.coef;
    name += (m.coef < 0 ? "-" : i ? "+" : "") + mag.str();
  }
  return SymbolicSize::symbol(name + ")");
}

int64_t floorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

} // namespace

std::optional<SymbolicSize> sizeAdd(const SymbolicSize &a, const SymbolicSize &b, int64_t scale) {
  std::optional<Terms> t = termsOf(a), u = termsOf(b);
  if (!t || !u)
    return std::nullopt;
  for (const auto &[syms, coef] : *u) {
    int64_t c;
    if (__builtin_mul_overflow(coef, scale, &c) || __builtin_add_overflow((*t)[syms], c, &(*t)[syms]))
      return std::nullopt;
  }
  return fromTerms(*t);
}

SymbolicSize sizeFloorDiv(const SymbolicSize &a, int64_t divisor) {
  if (divisor == 1)
    return a;
  if (a.isStatic())
    return SymbolicSize::constant(floorDiv(a.coef, divisor));
  // Every term divides: the sum of the quotients.
  std::optional<Terms> t = termsOf(a);
  if (t && llvm::all_of(*t, [&](const auto &term) { return term.second % divisor == 0; })) {
    for (auto &term : *t)
      term.second /= divisor;
    return fromTerms(*t);
  }
  return SymbolicSize::symbol("(" + a.str() + "//" + std::to_string(divisor) + ")");
}

SymbolicSize sizeFloorDiv(const SymbolicSize &a, const SymbolicSize &divisor) {
  if (divisor.isStatic() && divisor.coef > 0)
    return sizeFloorDiv(a, divisor.coef);
  if (std::optional<SymbolicSize> q = a.divide(divisor))
    return *q;
  return SymbolicSize::symbol("(" + a.str() + "//" + divisor.str() + ")");
}

std::optional<SymbolicSize> sizeCeilDiv(const SymbolicSize &a, int64_t divisor) {
  std::optional<SymbolicSize> up = sizeAdd(a, SymbolicSize::constant(divisor - 1));
  return up ? std::optional<SymbolicSize>(sizeFloorDiv(*up, divisor)) : std::nullopt;
}

std::optional<SymbolicSize> windowOutputSize(const SymbolicSize &in, int64_t kernel,
                                             int64_t stride, int64_t padBegin, int64_t padEnd,
                                             int64_t dilation, bool ceilMode) {
  // floor((in + pads - span) / s) + 1 = (in + pads - span + s) // s.
  I64c span = (I64c(kernel) - 1) * dilation + 1;
  I64c shift = I64c(padBegin) + padEnd - span + stride;
  I64c ceilShift = shift + stride - 1, lastShift = I64c(padBegin) + stride - 1;
  if (!shift.ok() || !ceilShift.ok() || !lastShift.ok())
    return std::nullopt;
  std::optional<SymbolicSize> room = sizeAdd(in, SymbolicSize::constant(ceilMode ? ceilShift.value() : shift.value()));
  if (!room)
    return std::nullopt;
  SymbolicSize out = sizeFloorDiv(*room, stride);
  // Ceil mode drops a last window that would start in the end padding: at most
  // ceil((in + padBegin) / s) windows, which bounds the count only when
  // padEnd - span + s > 0.
  if (!ceilMode || padEnd - span.value() + stride <= 0)
    return out;
  std::optional<SymbolicSize> starts = sizeAdd(in, SymbolicSize::constant(lastShift.value()));
  if (!starts)
    return std::nullopt;
  return sizeMin(out, sizeFloorDiv(*starts, stride));
}

SymbolicSize sizeMax(const SymbolicSize &a, const SymbolicSize &b) {
  if (a == b)
    return a;
  if (a.isStatic() && b.isStatic())
    return SymbolicSize::constant(std::max(a.coef, b.coef));
  return SymbolicSize::symbol("max(" + a.str() + "," + b.str() + ")");
}

SymbolicSize sizeMin(const SymbolicSize &a, const SymbolicSize &b) {
  if (a == b)
    return a;
  if (a.isStatic() && b.isStatic())
    return SymbolicSize::constant(std::min(a.coef, b.coef));
  return SymbolicSize::symbol("min(" + a.str() + "," + b.str() + ")");
}

std::set<std::string> baseSymbols(const SymbolicSize &size) {
  std::set<std::string> out;
  SmallVector<SymbolicSize> work = {size};
  while (!work.empty()) {
    SymbolicSize s = work.pop_back_val();
    for (const auto &[sym, power] : s.syms) {
      std::optional<DerivedSize> d = parseDerived(sym);
      if (!d) {
        out.insert(sym);
        continue;
      }
      if (d->isQuotient()) {
        work.push_back(d->dividend);
        if (!d->divisor)
          work.push_back(d->divisorSize);
      }
      llvm::append_range(work, d->terms);
    }
  }
  return out;
}

std::optional<DerivedSize> parseDerived(StringRef symbol) {
  // max(a,b), min(a,b)
  for (auto [prefix, kind] : {std::pair{"max(", DerivedSize::Max}, {"min(", DerivedSize::Min}}) {
    if (!symbol.starts_with(prefix) || !symbol.ends_with(")"))
      continue;
    std::optional<SmallVector<StringRef>> parts =
        splitTopLevel(symbol.drop_front(4).drop_back(), ',');
    if (!parts || parts->size() != 2)
      return std::nullopt;
    DerivedSize d;
    d.kind = kind;
    for (StringRef p : *parts) {
      std::optional<SymbolicSize> v = SymbolicSize::parse(p);
      if (!v)
        return std::nullopt;
      d.terms.push_back(*v);
    }
    return d;
  }
  if (symbol.size() < 3 || symbol.front() != '(' || symbol.back() != ')')
    return std::nullopt;
  StringRef inner = symbol.drop_front().drop_back();
  if (!splitTopLevel(inner, '*'))
    return std::nullopt;
  DerivedSize d;
  // A quotient: "dividend//divisor" at the top level.
  int depth = 0;
  for (size_t i = 0; i + 1 < inner.size(); ++i) {
    depth += inner[i] == '(' ? 1 : inner[i] == ')' ? -1 : 0;
    if (depth == 0 && inner[i] == '/' && inner[i + 1] == '/') {
      std::optional<SymbolicSize> dividend = SymbolicSize::parse(inner.take_front(i));
      StringRef by = inner.drop_front(i + 2);
      if (!dividend)
        return std::nullopt;
      if (by.getAsInteger(10, d.divisor)) { // a divisor of the symbols
        std::optional<SymbolicSize> size = SymbolicSize::parse(by);
        if (!size || size->isStatic())
          return std::nullopt;
        d.divisor = 0;
        d.divisorSize = *size;
      } else if (d.divisor <= 0) {
        return std::nullopt;
      }
      d.kind = DerivedSize::Quotient;
      d.dividend = *dividend;
      return d;
    }
  }
  // A sum: signed terms, cut at each top-level + and - (not a leading sign).
  size_t start = 0;
  depth = 0;
  for (size_t i = 0; i <= inner.size(); ++i) {
    char c = i < inner.size() ? inner[i] : '+';
    depth += c == '(' ? 1 : c == ')' ? -1 : 0;
    if (depth != 0 || (c != '+' && c != '-') || i == start)
      continue;
    std::optional<SymbolicSize> term = SymbolicSize::parse(inner.slice(start, i).ltrim('+'));
    if (!term)
      return std::nullopt;
    d.terms.push_back(*term);
    start = c == '+' ? i + 1 : i;
  }
  if (d.terms.size() < 2)
    return std::nullopt;
  return d;
}

namespace {

void addComputedDim(func::FuncOp func, StringRef name, int64_t min, int64_t max) {
  Builder b(func.getContext());
  auto ranges = func->getAttrOfType<DictionaryAttr>(kDimRangesAttr);
  SmallVector<NamedAttribute> entries;
  if (ranges)
    entries.append(ranges.begin(), ranges.end());
  entries.push_back(b.getNamedAttr(name, b.getDenseI64ArrayAttr({min, max})));
  func->setAttr(kDimRangesAttr, b.getDictionaryAttr(entries));
  SmallVector<Attribute> computed;
  if (auto old = func->getAttrOfType<ArrayAttr>(kComputedDimsAttr))
    computed.append(old.begin(), old.end());
  computed.push_back(b.getStringAttr(name));
  func->setAttr(kComputedDimsAttr, b.getArrayAttr(computed));
}

} // namespace

std::string declareOutputDim(func::FuncOp func, const SymbolicSize &size) {
  std::string name = size.str();
  auto ranges = func->getAttrOfType<DictionaryAttr>(kDimRangesAttr);
  if (ranges && ranges.get(name))
    return name;
  std::optional<std::pair<int64_t, int64_t>> bounds = sizeBounds(func, size);
  int64_t lo = bounds ? std::max<int64_t>(bounds->first, 0) : 0;
  int64_t hi = bounds ? std::min<int64_t>(std::max<int64_t>(bounds->second, 0), kUnboundedDim)
                      : kUnboundedDim;
  addComputedDim(func, name, lo, hi);
  return name;
}

std::string declareComputedDim(func::FuncOp func, StringRef base, int64_t max) {
  auto ranges = func->getAttrOfType<DictionaryAttr>(kDimRangesAttr);
  std::string name = base.str();
  for (int k = 2; ranges && ranges.get(name); ++k)
    name = (base + "_" + Twine(k)).str();
  addComputedDim(func, name, 0, max);
  return name;
}

namespace {

using Interval = std::pair<int64_t, int64_t>;

std::optional<Interval> mulBounds(Interval a, Interval b) {
  int64_t p[4];
  if (__builtin_mul_overflow(a.first, b.first, &p[0]) ||
      __builtin_mul_overflow(a.first, b.second, &p[1]) ||
      __builtin_mul_overflow(a.second, b.first, &p[2]) ||
      __builtin_mul_overflow(a.second, b.second, &p[3]))
    return std::nullopt;
  return Interval(*std::min_element(p, p + 4), *std::max_element(p, p + 4));
}

std::optional<Interval> boundsOf(DictionaryAttr ranges, const SymbolicSize &size, int depth);

std::optional<Interval> symbolBounds(DictionaryAttr ranges, StringRef sym, int depth) {
  if (std::optional<DerivedSize> d = parseDerived(sym)) {
    if (depth > 64)
      return std::nullopt;
    if (d->isQuotient()) {
      std::optional<Interval> n = boundsOf(ranges, d->dividend, depth + 1);
      if (!n)
        return std::nullopt;
      if (!d->divisor) { // a positive divisor of the symbols
        std::optional<Interval> q = boundsOf(ranges, d->divisorSize, depth + 1);
        if (!q || q->first < 1 || n->first < 0)
          return std::nullopt;
        return Interval(n->first / q->second, n->second / q->first);
      }
      return Interval(floorDiv(n->first, d->divisor), floorDiv(n->second, d->divisor));
    }
    if (d->kind == DerivedSize::Max || d->kind == DerivedSize::Min) {
      std::optional<Interval> a = boundsOf(ranges, d->terms[0], depth + 1),
                              b = boundsOf(ranges, d->terms[1], depth + 1);
      if (!a || !b)
        return std::nullopt;
      if (d->kind == DerivedSize::Max)
        return Interval(std::max(a->first, b->first), std::max(a->second, b->second));
      return Interval(std::min(a->first, b->first), std::min(a->second, b->second));
    }
    Interval sum(0, 0);
    for (const SymbolicSize &term : d->terms) {
      std::optional<Interval> t = boundsOf(ranges, term, depth + 1);
      if (!t || __builtin_add_overflow(sum.first, t->first, &sum.first) ||
          __builtin_add_overflow(sum.second, t->second, &sum.second))
        return std::nullopt;
    }
    return sum;
  }
  auto range = ranges ? dyn_cast_or_null<DenseI64ArrayAttr>(ranges.get(sym)) : nullptr;
  if (!range || range.size() != 2)
    return std::nullopt;
  return Interval(range[0], range[1]);
}

std::optional<Interval> boundsOf(DictionaryAttr ranges, const SymbolicSize &size, int depth) {
  std::optional<Interval> r = Interval(size.coef, size.coef);
  for (const auto &[sym, power] : size.syms) {
    std::optional<Interval> s = symbolBounds(ranges, sym, depth);
    for (int i = 0; i < power && r && s; ++i)
      r = mulBounds(*r, *s);
    if (!s || !r)
      return std::nullopt;
  }
  return r;
}

} // namespace

std::optional<std::pair<int64_t, int64_t>> sizeBounds(func::FuncOp func, const SymbolicSize &size) {
  auto ranges = func ? func->getAttrOfType<DictionaryAttr>(kDimRangesAttr) : DictionaryAttr();
  return boundsOf(ranges, size, 0);
}

} // namespace dlc::graph
