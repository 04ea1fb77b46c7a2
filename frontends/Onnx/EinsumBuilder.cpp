// ONNX Einsum with one or two operands -> reduce / transpose / reshape / batched matmul:
// letters only in one operand and not in the output are summed first, shared letters in
// the output are batch dims, shared letters not in the output are contracted.
#include "frontends/Onnx/Expr.h"

#include <map>

using namespace mlir;
using namespace dlc::graph;

namespace dlc::onnx_frontend {
LogicalResult det(NodeImporter &n, SmallVectorImpl<Value> &out); // DetBuilder.cpp

namespace {

using Results = SmallVectorImpl<Value>;

/// Removes spaces; expands "..." to `count` letters from a private range.
FailureOr<std::string> expandTerm(NodeImporter &n, std::string term, int64_t rank) {
  std::string t;
  for (char c : term)
    if (c != ' ')
      t += c;
  size_t dots = t.find("...");
  int64_t letters = (int64_t)t.size() - (dots == std::string::npos ? 0 : 3);
  if (dots == std::string::npos) {
    if (rank >= 0 && letters != rank)
      return n.error("term '" + t + "' has " + Twine(letters) + " letters for rank " + Twine(rank));
    return t;
  }
  int64_t count = rank >= 0 ? rank - letters : 0;
  if (count < 0)
    return n.error("term '" + t + "' does not fit rank " + Twine(rank));
  if (count > 10) // its dims are labelled '0'..'9'
    return n.error("term '" + t + "': an ellipsis over more than 10 dims is not supported");
  std::string ell;
  for (int64_t i = 0; i < count; ++i)
    ell += char('0' + i); // digits never appear in user terms
  return t.substr(0, dots) + ell + t.substr(dots + 3);
}

/// Sums `x` (labelled by `labels`) over the letters not in `keep`; updates labels.
Value sumOut(Expr &e, Value x, std::string &labels, const std::string &keep) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  SmallVector<int64_t> axes;
  std::string kept;
  for (size_t i = 0; i < labels.size(); ++i) {
    if (keep.find(labels[i]) == std::string::npos)
      axes.push_back(i);
    else
      kept += labels[i];
  }
  labels = kept;
  return axes.empty() ? x : e.reduce<ReduceSumOp>(x, axes, false);
}

/// Takes the diagonals of letters repeated in `labels` ("ii" -> "i"): the two axes
/// moved together, merged, and sliced with step d + 1. Fails on unequal sizes.
FailureOr<Value> diagonals(NodeImporter &n, Expr &e, Value x, std::string &labels) {
  for (size_t j1 = 0; j1 < labels.size(); ++j1) {
    size_t j2 = labels.find(labels[j1], j1 + 1);
    if (j2 == std::string::npos)
      continue;
    auto t = tensorType(x);
    int64_t d = t.getDimSize(j1);
    if (t.isDynamicDim(j1) || t.isDynamicDim(j2))
      return n.error("repeated index '" + Twine(labels[j1]) + "' over a dynamic dim (--dims) "
                     "is not supported");
    if (t.getDimSize(j2) != d)
      return n.error("repeated index '" + Twine(labels[j1]) + "' has sizes " + Twine(d) +
                     " and " + Twine(t.getDimSize(j2)));
    if (!(I64c(d) * d + 1).ok())
      return n.error("repeated index '" + Twine(labels[j1]) + "' of size " + Twine(d) +
                     " overflows int64");
    SmallVector<int64_t> perm, shape, merged;
    for (int64_t a = 0; a < t.getRank(); ++a)
      if (a != (int64_t)j2) {
        perm.push_back(a);
        if (a == (int64_t)j1)
          perm.push_back(j2);
      }
    for (int64_t a : perm)
      shape.push_back(t.getDimSize(a));
    merged.assign(shape.begin(), shape.begin() + j1);
    merged.push_back(d * d);
    merged.append(shape.begin() + j1 + 2, shape.end());
    Value v = e.reshape(e.transpose(x, perm), merged);
    SmallVector<int64_t> starts(merged.size(), 0), sizes(merged), steps(merged.size(), 1);
    sizes[j1] = d;
    steps[j1] = d + 1;
    x = e.slice(v, starts, sizes, steps);
    if (e.failed)
      return failure();
    labels.erase(j2, 1);
    --j1; // the same letter may repeat again
  }
  return x;
}

/// Transposes `x` from `from` order to `to` order (same letters).
Value reorder(Expr &e, Value x, const std::string &from, const std::string &to) {
  if (e.failed || !x) // an earlier builder failed
    return Value();
  if (from == to)
    return x;
  SmallVector<int64_t> perm;
  for (char c : to)
    perm.push_back(from.find(c));
  return e.transpose(x, perm);
}

LogicalResult einsum(NodeImporter &n, Results &out) {
  auto eq = n.stringAttr("equation", "");
  DLC_TRY(eq);
  unsigned k = n.numInputs();
  if (k < 1 || k > 2)
    return n.error("only one or two operands are supported, got " + Twine(k));
  SmallVector<Value> xs;
  for (unsigned i = 0; i < k; ++i) {
    auto x = n.requiredInput(i);
    DLC_TRY(x);
    xs.push_back(*x);
  }
  // Letters, ',' between terms, '...', spaces and one '->' (digits label ellipsis dims).
  for (char c : *eq)
    if (!llvm::isAlpha(c) && !StringRef(",.- >").contains(c))
      return n.error("equation '" + *eq + "' has an invalid character");
  std::string lhs = *eq, rhs;
  size_t arrow = eq->find("->");
  bool explicitOut = arrow != std::string::npos;
  if (explicitOut) {
    lhs = eq->substr(0, arrow);
    rhs = eq->substr(arrow + 2);
  }
  SmallVector<std::string> terms;
  size_t start = 0;
  for (size_t comma; (comma = lhs.find(',', start)) != std::string::npos; start = comma + 1)
    terms.push_back(lhs.substr(start, comma - start));
  terms.push_back(lhs.substr(start));
  if (terms.size() != k)
    return n.error("equation has " + Twine(terms.size()) + " terms for " + Twine(k) + " inputs");
  std::map<char, SymbolicSize> size; // symbolic for dynamic dims (dlc compile --dims)
  SmallVector<std::string> written;
  int64_t ellipsisRank = 0;
  for (unsigned i = 0; i < k; ++i) {
    auto t = tensorType(xs[i]);
    auto x = expandTerm(n, terms[i], t.getRank());
    DLC_TRY(x);
    terms[i] = *x;
    if (!llvm::all_of(terms[i], [](char c) { return llvm::isAlnum(c); }))
      return n.error("term '" + terms[i] + "' has a stray '.', '-' or '>'");
    if (terms[i].find('0') != std::string::npos || t.getRank() == 0)
      ellipsisRank = std::max<int64_t>(ellipsisRank, t.getRank() - (int64_t)std::count_if(
                                                                        terms[i].begin(), terms[i].end(),
                                                                        [](char c) { return !isdigit(c); }));
    written.push_back(terms[i]); // before diagonals: "ii" alone is a trace
    Expr d{n, t.getElementType()};
    auto diag = diagonals(n, d, xs[i], terms[i]);
    DLC_TRY(diag);
    xs[i] = *diag;
    std::optional<SmallVector<SymbolicSize>> dims = n.sizesOf(xs[i]);
    if (!dims)
      return n.error("the sizes of input " + Twine(i) + "'s dynamic dims are not known here");
    for (size_t j = 0; j < terms[i].size(); ++j) {
      char c = terms[i][j];
      const SymbolicSize &dj = (*dims)[j];
      auto [it, fresh] = size.emplace(c, dj);
      // Static sizes must agree; dynamic ones meet in the product (checked when it runs).
      if (!fresh && it->second != dj && it->second.isStatic() && dj.isStatic())
        return n.error("index '" + Twine(c) + "' has sizes " + it->second.str() + " and " +
                       dj.str());
      if (!fresh && it->second.isStatic() && !dj.isStatic())
        it->second = dj;
    }
  }
  std::string output;
  if (explicitOut) {
    auto o = expandTerm(n, rhs, -1);
    DLC_TRY(o);
    output = *o;
    // The output's "..." takes the ellipsis letters in order.
    std::string ell;
    for (int64_t i = 0; i < ellipsisRank; ++i)
      ell += char('0' + i);
    size_t pos = rhs.find("...");
    if (pos != std::string::npos) {
      std::string r;
      for (char c : rhs)
        if (c != ' ')
          r += c;
      pos = r.find("...");
      output = r.substr(0, pos) + ell + r.substr(pos + 3);
    }
  } else {
    // Implicit: ellipsis letters, then letters that appear exactly once, sorted.
    std::map<char, int> count;
    for (auto &t : written)
      for (char c : t)
        count[c]++;
    for (auto &[c, cnt] : count)
      if (isdigit(c))
        output += c;
    for (auto &[c, cnt] : count)
      if (!isdigit(c) && cnt == 1)
        output += c;
  }
  for (char c : output)
    if (!llvm::isAlnum(c))
      return n.error("output term '" + output + "' has a stray '.', '-' or '>'");
  for (char c : output)
    if (!size.count(c))
      return n.error("output index '" + Twine(c) + "' does not appear in the inputs");
  Expr e{n, tensorType(xs[0]).getElementType()};
  Value y;
  std::string yl;
  if (k == 1) {
    yl = terms[0];
    y = sumOut(e, xs[0], yl, output);
  } else {
    std::string a = terms[0], b = terms[1];
    Value A = sumOut(e, xs[0], a, b + output), B = sumOut(e, xs[1], b, a + output);
    std::string batch, freeA, freeB, contracted;
    for (char c : a) {
      bool inB = b.find(c) != std::string::npos, inOut = output.find(c) != std::string::npos;
      (inB ? (inOut ? batch : contracted) : freeA) += c;
    }
    for (char c : b)
      if (a.find(c) == std::string::npos)
        freeB += c;
    // Products of sizes (checked: a zero size elsewhere leaves the others unbounded).
    bool overflow = false;
    auto prod = [&](const std::string &s) {
      SymbolicSize p = SymbolicSize::constant(1);
      for (char c : s) {
        int64_t unused;
        overflow |= __builtin_mul_overflow(p.coef, size[c].coef, &unused);
        p = p * size[c];
      }
      return p;
    };
    for (const std::string *s : {&batch, &freeA, &freeB, &contracted})
      (void)prod(*s);
    if (overflow)
      return n.error("the product of the index sizes overflows int64");
    Value ra = reorder(e, A, a, batch + freeA + contracted),
          rb = reorder(e, B, b, batch + contracted + freeB);
    if (e.failed)
      return failure();
    auto a3 = n.reshapeTo(ra, {prod(batch), prod(freeA), prod(contracted)});
    auto b3 = n.reshapeTo(rb, {prod(batch), prod(contracted), prod(freeB)});
    DLC_TRY(a3);
    DLC_TRY(b3);
    y = e.op<MatMulOp>({*a3, *b3});
    yl = batch + freeA + freeB;
    SmallVector<SymbolicSize> shape;
    for (char c : yl)
      shape.push_back(size[c]);
    if (e.failed)
      return failure();
    auto shaped = n.reshapeTo(y, shape);
    DLC_TRY(shaped);
    y = *shaped;
  }
  y = reorder(e, y, yl, output);
  if (e.failed)
    return failure();
  out.push_back(y);
  return success();
}

const OpBuilderEntry kEinsum[] = {
    {"Einsum", 12, einsum},
    {"Det", 11, det},
};

} // namespace

ArrayRef<OpBuilderEntry> einsumBuilders() { return kEinsum; }

} // namespace dlc::onnx_frontend
