#pragma once
// The quadratic extension F[u]/(u^2 + 1) for device code, over a device prime field F (cuda::Mont):
// the coordinate field of G2 for both curves (BLS12-381 and BN254 alike take u^2 = -1). Same layout as the host's ff::Fp2 (c0 then c1, each
// the base field's Montgomery limbs), the same formulas (Karatsuba product: 3 base products;
// squaring: 2). Provides what cuda/ec.cuh's point templates use, so G2 points are
// AffinePoint<Fp2Dev<...>> and XyzzPoint<Fp2Dev<...>>.
#include "cuda/ff.cuh"

namespace splitprove::cuda {

// kCallProduct: the Fp2 product and square each called as one function (__noinline__) that
// expands its 3 / 2 base products inline (F::mul), instead of calling each base product (F's own
// operator*, which for DevField<_, false> is a call): ~10 calls per G2 mixed addition instead of ~28.
template <class F, bool kCallProduct = false>
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
    if constexpr (kCallProduct) {
      return mul_call(a, b);
    } else {
      const F t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
      return {t0 - t1, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
    }
  }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u
  SPLITPROVE_HD Fp2Dev sqr() const {
    if constexpr (kCallProduct)
      return sqr_call(*this);
    else
      return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()};
  }
  // The called forms (kCallProduct): the same formulas, base products expanded here. Arguments by
  // value: they travel in registers.
#if defined(__CUDACC__)
  __host__ __device__ __noinline__
#endif
      static Fp2Dev
      mul_call(Fp2Dev a, Fp2Dev b) {
    const F t0 = F::mul(a.c0, b.c0.v), t1 = F::mul(a.c1, b.c1.v);
    const F s = a.c0 + a.c1, t = b.c0 + b.c1;
    return {t0 - t1, F::mul(s, t.v) - t0 - t1};
  }
#if defined(__CUDACC__)
  __host__ __device__ __noinline__
#endif
      static Fp2Dev
      sqr_call(Fp2Dev a) {
    const F s = a.c0 + a.c1, d = a.c0 - a.c1;
    return {F::mul(s, d.v), F::mul(a.c0, a.c1.v).dbl()};
  }
  SPLITPROVE_HD Fp2Dev& operator+=(const Fp2Dev& b) { return *this = *this + b; }
  SPLITPROVE_HD Fp2Dev& operator-=(const Fp2Dev& b) { return *this = *this - b; }
  SPLITPROVE_HD Fp2Dev& operator*=(const Fp2Dev& b) { return *this = *this * b; }
};

// The device Fp2 over a host base field: base products called (compile time: a G2 addition holds
// ~40 Fp products; see Mont's kInlineMul), and with kCallProduct the Fp2 product called whole.
template <class HostFp, bool kCallProduct = false>
using DevFp2 = Fp2Dev<DevField<HostFp, false>, kCallProduct>;

}  // namespace splitprove::cuda
