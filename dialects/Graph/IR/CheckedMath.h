// Shape arithmetic on int64 values from user input (attributes, constant inputs) without UB.
#ifndef DLC_DIALECTS_GRAPH_IR_CHECKEDMATH_H
#define DLC_DIALECTS_GRAPH_IR_CHECKEDMATH_H

#include <cstdint>

namespace dlc::graph {

/// An int64 that remembers whether any step computing it overflowed: write the
/// expression as usual (`(I64c(k) - 1) * d + 1`), then test `ok()` once.
/// Division by 0 and INT64_MIN / -1 count as overflow too.
class I64c {
public:
  constexpr I64c(int64_t v) : v(v) {}
  bool ok() const { return !overflow; }
  /// The value; only meaningful when ok().
  int64_t value() const { return v; }

  friend I64c operator+(I64c a, I64c b) {
    I64c r(0);
    r.overflow = a.overflow || b.overflow || __builtin_add_overflow(a.v, b.v, &r.v);
    return r;
  }
  friend I64c operator-(I64c a, I64c b) {
    I64c r(0);
    r.overflow = a.overflow || b.overflow || __builtin_sub_overflow(a.v, b.v, &r.v);
    return r;
  }
  friend I64c operator*(I64c a, I64c b) {
    I64c r(0);
    r.overflow = a.overflow || b.overflow || __builtin_mul_overflow(a.v, b.v, &r.v);
    return r;
  }
  /// Truncating division, like C++.
  friend I64c operator/(I64c a, I64c b) {
    I64c r(0);
    r.overflow = a.overflow || b.overflow || b.v == 0 || (a.v == INT64_MIN && b.v == -1);
    if (!r.overflow)
      r.v = a.v / b.v;
    return r;
  }

private:
  int64_t v;
  bool overflow = false;
};

/// The product of a range of int64 values (a shape's element count), checked.
template <typename Range> I64c productOf(const Range &values) {
  I64c p(1);
  for (int64_t v : values)
    p = p * v;
  return p;
}

} // namespace dlc::graph

#endif
