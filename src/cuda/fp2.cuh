#pragma once
// The quadratic extension F[u]/(u^2 + 1) for device code, over a device prime field F (cuda::Mont):
// BLS12-381's Fp2, the coordinate field of G2. Same layout as the host's ff::Fp2 (c0 then c1, each
// the base field's Montgomery limbs), the same formulas (Karatsuba product: 3 base products;
// squaring: 2). Provides what cuda/ec.cuh's point templates use, so G2 points are
// AffinePoint<Fp2Dev<...>> and XyzzPoint<Fp2Dev<...>>.
#include "cuda/ff.cuh"

namespace splitprove::cuda {

template <class F>
struct alignas(16) Fp2Dev {
  F c0, c1;

  SPLITPROVE_HD static Fp2Dev zero() { return {F::zero(), F::zero()}; }
  SPLITPROVE_HD static Fp2Dev one() { return {F::one(), F::zero()}; }
  SPLITPROVE_HD static Fp2Dev load(const void* p) {
    const char* c = static_cast<const char*>(p);
    return {F::load(c), F::load(c + sizeof(F))};
  }
  SPLITPROVE_HD void store(void* p) const {
    char* c = static_cast<char*>(p);
    c0.store(c);
    c1.store(c + sizeof(F));
  }
  SPLITPROVE_HD bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  SPLITPROVE_HD bool is_reduced() const { return c0.is_reduced() && c1.is_reduced(); }
  friend SPLITPROVE_HD bool operator==(const Fp2Dev& a, const Fp2Dev& b) {
    return a.c0 == b.c0 && a.c1 == b.c1;
  }
  friend SPLITPROVE_HD bool operator!=(const Fp2Dev& a, const Fp2Dev& b) { return !(a == b); }
  friend SPLITPROVE_HD Fp2Dev operator+(const Fp2Dev& a, const Fp2Dev& b) {
    return {a.c0 + b.c0, a.c1 + b.c1};
  }
  friend SPLITPROVE_HD Fp2Dev operator-(const Fp2Dev& a, const Fp2Dev& b) {
    return {a.c0 - b.c0, a.c1 - b.c1};
  }
  SPLITPROVE_HD Fp2Dev operator-() const { return {-c0, -c1}; }
  SPLITPROVE_HD Fp2Dev dbl() const { return {c0.dbl(), c1.dbl()}; }
  // (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u
  friend SPLITPROVE_HD Fp2Dev operator*(const Fp2Dev& a, const Fp2Dev& b) {
    const F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 - t1, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u
  SPLITPROVE_HD Fp2Dev sqr() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  SPLITPROVE_HD Fp2Dev& operator+=(const Fp2Dev& b) { return *this = *this + b; }
  SPLITPROVE_HD Fp2Dev& operator-=(const Fp2Dev& b) { return *this = *this - b; }
  SPLITPROVE_HD Fp2Dev& operator*=(const Fp2Dev& b) { return *this = *this * b; }
};

// G2's coordinate field with called base products (compile time: a G2 addition holds ~40 Fp
// products; see Mont's kInlineMul).
using Fp2NoinlineDev = Fp2Dev<FpNoinline>;
static_assert(sizeof(Fp2NoinlineDev) == 96);

}  // namespace splitprove::cuda
