#pragma once
// Basic gadgets over any constraint system of constraint_system.hpp (Recorder or Synthesizer):
// booleans, bit decomposition and packing, field add / mul / select / conditional swap, XOR.
// Every gadget's structure is independent of the values, so it records and synthesizes alike.
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "circuit/constraint_system.hpp"

namespace splitprove::circuit {

// 2^i as a field element, i < 64·limbs.
template <class Fr>
const Fr& pow2(size_t i) {
  static const std::vector<Fr> table = [] {
    std::vector<Fr> t(Fr::BITS + 1);
    t[0] = Fr::one();
    for (size_t k = 1; k < t.size(); ++k) t[k] = t[k - 1] + t[k - 1];
    return t;
  }();
  return table[i];
}

// b·(1 - b) = 0.
template <class CS>
void enforce_boolean(CS& cs, Variable b) {
  using Fr = typename CS::Field;
  cs.enforce("boolean", cs.lc(b), [&] { return cs.constant(Fr::one()) - cs.lc(b); }, cs.zero());
}

template <class CS>
Variable alloc_boolean(CS& cs, bool value) {
  using Fr = typename CS::Field;
  Variable b = cs.alloc(value ? Fr::one() : Fr::zero());
  enforce_boolean(cs, b);
  return b;
}

// Σ 2^i·bits[i], as a linear combination (no constraint).
template <class CS>
typename CS::Lc packed(CS& cs, std::span<const Variable> bits) {
  using Fr = typename CS::Field;
  typename CS::Lc acc = cs.zero();
  for (size_t i = 0; i < bits.size(); ++i) acc += cs.lc(bits[i]) * pow2<Fr>(i);
  return acc;
}

// The n low bits of x (little-endian), each boolean-constrained, and (Σ 2^i·b_i)·1 = x. A value
// of x that needs more than n bits leaves the packing constraint unsatisfied. (With n = 255 the
// decomposition of an Fr element is not unique, since 2^255 > r; callers here use n <= 254.)
template <class CS>
std::vector<Variable> to_bits(CS& cs, const typename CS::Lc& x, size_t n) {
  using Fr = typename CS::Field;
  std::vector<Variable> bits(n);
  const auto c = x.value().to_canonical();
  for (size_t i = 0; i < n; ++i) bits[i] = alloc_boolean(cs, i / 64 < c.size() && (c[i / 64] >> (i % 64)) & 1);
  cs.enforce("packing", [&] { return packed(cs, std::span<const Variable>(bits)); },
             cs.constant(Fr::one()), x);
  return bits;
}

// x = Σ 2^i·bits[i] as a new variable: (Σ 2^i·b_i)·1 = x.
template <class CS>
Variable pack(CS& cs, std::span<const Variable> bits) {
  using Fr = typename CS::Field;
  Fr v = Fr::zero();
  for (size_t i = 0; i < bits.size(); ++i)
    if (!cs.value(bits[i]).is_zero()) v += cs.value(bits[i]) * pow2<Fr>(i);
  Variable x = cs.alloc(v);
  cs.enforce("packing", [&] { return packed(cs, bits); }, cs.constant(Fr::one()), cs.lc(x));
  return x;
}

// x = a + b as a variable: (a + b)·1 = x. (Sums are free as linear combinations; this is for
// where a variable is wanted.)
template <class CS>
Variable add(CS& cs, const typename CS::Lc& a, const typename CS::Lc& b) {
  using Fr = typename CS::Field;
  Variable x = cs.alloc(a.value() + b.value());
  cs.enforce("add", [&] { return a + b; }, cs.constant(Fr::one()), cs.lc(x));
  return x;
}

// x = a·b.
template <class CS>
Variable mul(CS& cs, const typename CS::Lc& a, const typename CS::Lc& b, const char* name = "mul") {
  Variable x = cs.alloc(a.value() * b.value());
  cs.enforce(name, a, b, cs.lc(x));
  return x;
}

// bit ? t : f, as a variable: bit·(t - f) = r - f. `bit` must be boolean-constrained elsewhere.
template <class CS>
Variable select(CS& cs, Variable bit, const typename CS::Lc& t, const typename CS::Lc& f) {
  const bool on = !cs.value(bit).is_zero();
  Variable r = cs.alloc(on ? t.value() : f.value());
  cs.enforce("select", cs.lc(bit), [&] { return t - f; }, [&] { return cs.lc(r) - f; });
  return r;
}

// bit ? (y, x) : (x, y), one constraint: left = select(bit, y, x), right = x + y - left.
template <class CS>
std::pair<typename CS::Lc, typename CS::Lc> cond_swap(CS& cs, Variable bit, const typename CS::Lc& x,
                                                     const typename CS::Lc& y) {
  Variable left = select(cs, bit, y, x);
  return {cs.lc(left), x + y - cs.lc(left)};
}

// c = a XOR b for boolean a, b: (2a)·b = a + b - c (c is then boolean too).
template <class CS>
Variable xor_bits(CS& cs, Variable a, Variable b) {
  using Fr = typename CS::Field;
  const bool va = !cs.value(a).is_zero(), vb = !cs.value(b).is_zero();
  Variable c = cs.alloc(va != vb ? Fr::one() : Fr::zero());
  cs.enforce("xor", [&] { return cs.lc(a) * Fr::from_u64(2); }, cs.lc(b),
             [&] { return cs.lc(a) + cs.lc(b) - cs.lc(c); });
  return c;
}

}  // namespace splitprove::circuit
