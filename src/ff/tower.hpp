#pragma once
// The extension tower used by pairing-friendly curves with embedding degree 12, written once over
// a parameter struct:
//
//   Fp2  = Fp[u]  / (u^2 + 1)
//   Fp6  = Fp2[v] / (v^3 - xi),   xi = XI0 + u   (BLS12-381: 1 + u, BN254: 9 + u)
//   Fp12 = Fp6[w] / (w^2 - v)
//
//   struct T { using Fp = ...; static constexpr uint64_t XI0; };
//
// Frobenius constants are derived at first use from xi alone:
//   gamma_k = xi^((p^k - 1)/6) = prod_{i<k} conj^i(xi^((p-1)/6))
// and v^(p^k) = v·gamma_k^2, v^(2p^k) = v^2·gamma_k^4, w^(p^k) = w·gamma_k.
#include <array>
#include <optional>

#include "ff/field.hpp"

namespace splitprove::ff {

// x·c for a small public constant, by double-and-add (cheaper than a Montgomery product for c < 16).
template <class F>
constexpr F mul_small(const F& x, uint64_t c) {
  F r = F::zero(), a = x;
  while (c) {
    if (c & 1) r = r + a;
    c >>= 1;
    if (c) a = a.dbl();
  }
  return r;
}

template <class T>
struct Fp2 {
  using Fp = typename T::Fp;
  Fp c0, c1;

  static constexpr Fp2 zero() { return {Fp::zero(), Fp::zero()}; }
  static Fp2 select(const Fp2& a, const Fp2& b, uint64_t mask) {
    return {Fp::select(a.c0, b.c0, mask), Fp::select(a.c1, b.c1, mask)};
  }
  static constexpr Fp2 one() { return {Fp::one(), Fp::zero()}; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero(); }
  bool is_one() const { return c0.is_one() && c1.is_zero(); }
  friend bool operator==(const Fp2& a, const Fp2& b) = default;

  friend Fp2 operator+(const Fp2& a, const Fp2& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp2 operator-(const Fp2& a, const Fp2& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp2 operator-() const { return {-c0, -c1}; }
  Fp2 dbl() const { return {c0.dbl(), c1.dbl()}; }
  // Karatsuba: 3 base multiplications. With the mulx/adcx/adox kernel (4 or 6 limbs), lazily:
  // three double-width products and two Montgomery reductions instead of three reduced products.
  // The sums a0 + a1, b0 + b1 stay unreduced (< 2p), so (a0 + a1)(b0 + b1) - a0·b0 - a1·b1 is
  // exactly c1 = a0·b1 + a1·b0 < 2p^2 < p·R (spare bit: 2p < R), as Fp::redc needs; c0 =
  // a0·b0 - a1·b1 lies in (-p^2, p^2), p·R added when negative. (BN254: p < 2^254; BLS12-381:
  // p < 2^381, R = 2^256 and 2^384.)
  friend Fp2 operator*(const Fp2& a, const Fp2& b) {
#if SPLITPROVE_ADX
    if constexpr (Fp::N == 6 || Fp::N == 4) {
      using W = typename Fp::Wide;
      const W t0 = Fp::mul_wide(a.c0.mont(), b.c0.mont());
      const W t1 = Fp::mul_wide(a.c1.mont(), b.c1.mont());
      W t2 = Fp::mul_wide(Fp::add_unreduced(a.c0.mont(), a.c1.mont()),
                          Fp::add_unreduced(b.c0.mont(), b.c1.mont()));
      W c0;
      if (Fp::sub_wide(c0, t0, t1)) Fp::add_p_high(c0);
      Fp::sub_wide(t2, t2, t0);
      Fp::sub_wide(t2, t2, t1);
      return {Fp::from_mont(Fp::redc(c0)), Fp::from_mont(Fp::redc(t2))};
    }
#endif
    Fp t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t0 - t1, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  Fp2 operator*(const Fp& s) const { return {c0 * s, c1 * s}; }
  Fp2& operator+=(const Fp2& b) { return *this = *this + b; }
  Fp2& operator-=(const Fp2& b) { return *this = *this - b; }
  Fp2& operator*=(const Fp2& b) { return *this = *this * b; }
  // (c0 + c1 u)^2 = (c0 + c1)(c0 - c1) + 2 c0 c1 u
  Fp2 square() const { return {(c0 + c1) * (c0 - c1), (c0 * c1).dbl()}; }
  Fp2 conj() const { return {c0, -c1}; }
  Fp norm() const { return c0.square() + c1.square(); }
  Fp2 inverse() const {
    Fp t = norm().inverse();
    return {c0 * t, -(c1 * t)};
  }
  // For public data only (see Field::inverse_vartime).
  Fp2 inverse_vartime() const {
    Fp t = norm().inverse_vartime();
    return {c0 * t, -(c1 * t)};
  }
  Fp2 half() const { return {c0.half(), c1.half()}; }
  // x·xi = (XI0·c0 - c1) + (c0 + XI0·c1) u
  Fp2 mul_by_xi() const {
    return {mul_small(c0, T::XI0) - c1, c0 + mul_small(c1, T::XI0)};
  }
  Fp2 frobenius(unsigned k) const { return (k & 1) ? conj() : *this; }

  template <size_t M>
  Fp2 pow(const Limbs<M>& e) const {
    Fp2 r = one();
    for (size_t i = num_bits(e); i-- > 0;) {
      r = r.square();
      if (bit(e, i)) r = r * *this;
    }
    return r;
  }

  // "Lexicographically largest" in the zcash sense: compare c1 first, c0 when c1 = 0.
  bool lexicographically_largest() const {
    return c1.is_zero() ? is_large(c0) : is_large(c1);
  }
  static bool is_large(const Fp& x) {
    return cmp_limbs(x.to_canonical(), shr(Fp::MOD, 1)) > 0;  // x > (p-1)/2
  }

  // Square root for p = 3 mod 4 (Adj & Rodriguez-Henriquez, "Square root computation over even
  // extension fields", Algorithm 9); nullopt when a is not a square.
  std::optional<Fp2> sqrt() const {
    static_assert((Fp::MOD[0] & 3) == 3, "Fp2::sqrt assumes p = 3 mod 4");
    if (is_zero()) return zero();
    static constexpr auto kPm3Over4 = shr(Fp::MOD, 2);  // (p-3)/4 since p = 3 mod 4
    static constexpr auto kPm1Over2 = shr(Fp::MOD, 1);  // (p-1)/2
    Fp2 a1 = pow(kPm3Over4);
    Fp2 alpha = a1.square() * *this;
    Fp2 x0 = a1 * *this;
    Fp2 x;
    if (alpha == -one()) {
      x = Fp2{-x0.c1, x0.c0};  // u·x0
    } else {
      x = (alpha + one()).pow(kPm1Over2) * x0;
    }
    if (x.square() == *this) return x;
    return std::nullopt;
  }
};

template <class T>
struct Fp6 {
  using F2 = Fp2<T>;
  F2 c0, c1, c2;

  static Fp6 zero() { return {F2::zero(), F2::zero(), F2::zero()}; }
  static Fp6 one() { return {F2::one(), F2::zero(), F2::zero()}; }
  Fp6& operator+=(const Fp6& b) { return *this = *this + b; }
  bool is_zero() const { return c0.is_zero() && c1.is_zero() && c2.is_zero(); }
  friend bool operator==(const Fp6& a, const Fp6& b) = default;

  friend Fp6 operator+(const Fp6& a, const Fp6& b) { return {a.c0 + b.c0, a.c1 + b.c1, a.c2 + b.c2}; }
  friend Fp6 operator-(const Fp6& a, const Fp6& b) { return {a.c0 - b.c0, a.c1 - b.c1, a.c2 - b.c2}; }
  Fp6 operator-() const { return {-c0, -c1, -c2}; }
  Fp6 dbl() const { return {c0.dbl(), c1.dbl(), c2.dbl()}; }

  // Karatsuba over three coefficients: 6 Fp2 multiplications.
  friend Fp6 operator*(const Fp6& a, const Fp6& b) {
    F2 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1, t2 = a.c2 * b.c2;
    F2 r0 = ((a.c1 + a.c2) * (b.c1 + b.c2) - t1 - t2).mul_by_xi() + t0;
    F2 r1 = (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1 + t2.mul_by_xi();
    F2 r2 = (a.c0 + a.c2) * (b.c0 + b.c2) - t0 - t2 + t1;
    return {r0, r1, r2};
  }
  Fp6& operator*=(const Fp6& b) { return *this = *this * b; }
  // Chung-Hasan SQR2.
  Fp6 square() const {
    F2 s0 = c0.square();
    F2 s1 = (c0 * c1).dbl();
    F2 s2 = (c0 - c1 + c2).square();
    F2 s3 = (c1 * c2).dbl();
    F2 s4 = c2.square();
    return {s3.mul_by_xi() + s0, s4.mul_by_xi() + s1, s1 + s2 + s3 - s0 - s4};
  }
  // x·v = (xi c2, c0, c1)
  Fp6 mul_by_v() const { return {c2.mul_by_xi(), c0, c1}; }
  // x·(b0 + b1 v): 5 Fp2 multiplications (sparse line coefficients).
  Fp6 mul_by_01(const F2& b0, const F2& b1) const {
    F2 t0 = c0 * b0, t1 = c1 * b1;
    F2 r0 = ((c1 + c2) * b1 - t1).mul_by_xi() + t0;
    F2 r1 = (c0 + c1) * (b0 + b1) - t0 - t1;
    F2 r2 = (c0 + c2) * b0 - t0 + t1;
    return {r0, r1, r2};
  }
  // x·(b1 v)
  Fp6 mul_by_1(const F2& b1) const { return {(c2 * b1).mul_by_xi(), c0 * b1, c1 * b1}; }
  Fp6 inverse() const { return inverse_impl<false>(); }
  Fp6 inverse_vartime() const { return inverse_impl<true>(); }
  template <bool kVarTime>
  Fp6 inverse_impl() const {
    F2 t0 = c0.square() - (c1 * c2).mul_by_xi();
    F2 t1 = c2.square().mul_by_xi() - c0 * c1;
    F2 t2 = c1.square() - c0 * c2;
    F2 n = (c2 * t1 + c1 * t2).mul_by_xi() + c0 * t0;
    F2 d = kVarTime ? n.inverse_vartime() : n.inverse();
    return {t0 * d, t1 * d, t2 * d};
  }
  Fp6 frobenius(unsigned k) const;
};

template <class T>
struct Fp12 {
  using F2 = Fp2<T>;
  using F6 = Fp6<T>;
  F6 c0, c1;

  static Fp12 zero() { return {F6::zero(), F6::zero()}; }
  static Fp12 one() { return {F6::one(), F6::zero()}; }
  bool is_one() const { return *this == one(); }
  friend bool operator==(const Fp12& a, const Fp12& b) = default;

  friend Fp12 operator+(const Fp12& a, const Fp12& b) { return {a.c0 + b.c0, a.c1 + b.c1}; }
  friend Fp12 operator-(const Fp12& a, const Fp12& b) { return {a.c0 - b.c0, a.c1 - b.c1}; }
  Fp12 operator-() const { return {-c0, -c1}; }
  Fp12 dbl() const { return {c0.dbl(), c1.dbl()}; }
  friend Fp12 operator*(const Fp12& a, const Fp12& b) {
    F6 t0 = a.c0 * b.c0, t1 = a.c1 * b.c1;
    return {t1.mul_by_v() + t0, (a.c0 + a.c1) * (b.c0 + b.c1) - t0 - t1};
  }
  Fp12& operator*=(const Fp12& b) { return *this = *this * b; }
  // Complex squaring: 2 Fp6 multiplications.
  Fp12 square() const {
    F6 ab = c0 * c1;
    F6 r0 = (c0 + c1) * (c0 + c1.mul_by_v()) - ab - ab.mul_by_v();
    return {r0, ab.dbl()};
  }
  Fp12 conj() const { return {c0, -c1}; }
  Fp12 inverse() const {
    F6 t = (c0.square() - c1.square().mul_by_v()).inverse();
    return {c0 * t, -(c1 * t)};
  }
  // For public data only (see Field::inverse_vartime).
  Fp12 inverse_vartime() const {
    F6 t = (c0.square() - c1.square().mul_by_v()).inverse_vartime();
    return {c0 * t, -(c1 * t)};
  }
  Fp12 frobenius(unsigned k) const;

  // x·(l0 + l1 v + l4 v w): the sparse line of an M-twist Miller loop (w^0, w^2, w^3 slots).
  Fp12 mul_by_014(const F2& l0, const F2& l1, const F2& l4) const {
    F6 a = c0.mul_by_01(l0, l1);
    F6 b = c1.mul_by_1(l4);
    F6 e = (c0 + c1).mul_by_01(l0, l1 + l4);
    return {b.mul_by_v() + a, e - a - b};
  }
  // x·(l0 + (l3 + l4 v) w): the sparse line of a D-twist Miller loop (w^0, w^1, w^3 slots).
  Fp12 mul_by_034(const F2& l0, const F2& l3, const F2& l4) const {
    F6 a = {c0.c0 * l0, c0.c1 * l0, c0.c2 * l0};
    F6 b = c1.mul_by_01(l3, l4);
    F6 e = (c0 + c1).mul_by_01(l0 + l3, l4);
    return {b.mul_by_v() + a, e - a - b};
  }

  // Squaring in the cyclotomic subgroup (Granger-Scott, "Faster squaring in the cyclotomic
  // subgroup of sixth degree extensions"). View x as A + B w + C w^2 over Fp4 = Fp2[t]/(t^2 - xi),
  // t = w^3: A = c0.c0 + c1.c1 t, B = c1.c0 + c0.c2 t, C = c0.c1 + c1.c2 t. Then
  //   A' = 3A^2 - 2conj(A),  B' = 3t·C^2 + 2conj(B),  C' = 3B^2 - 2conj(C).
  // Valid only for x with x^(p^6+1) = 1 (after the easy part of the final exponentiation).
  Fp12 cyclotomic_square() const {
    auto fp4_sq = [](const F2& a, const F2& b, F2& ra, F2& rb) {
      F2 a2 = a.square(), b2 = b.square();
      ra = b2.mul_by_xi() + a2;
      rb = (a + b).square() - a2 - b2;
    };
    F2 a0, a1, b0, b1, e0, e1;
    fp4_sq(c0.c0, c1.c1, a0, a1);  // A^2
    fp4_sq(c1.c0, c0.c2, b0, b1);  // B^2
    fp4_sq(c0.c1, c1.c2, e0, e1);  // C^2
    Fp12 r;
    // A' = 3A^2 - 2conj(A) = 3a0 - 2A0 + (3a1 + 2A1) t
    r.c0.c0 = (a0 - c0.c0).dbl() + a0;
    r.c1.c1 = (a1 + c1.c1).dbl() + a1;
    // B' = 3t·C^2 + 2conj(B): t·(e0 + e1 t) = xi e1 + e0 t
    F2 te0 = e1.mul_by_xi();
    r.c1.c0 = (te0 + c1.c0).dbl() + te0;
    r.c0.c2 = (e0 - c0.c2).dbl() + e0;
    // C' = 3B^2 - 2conj(C)
    r.c0.c1 = (b0 - c0.c1).dbl() + b0;
    r.c1.c2 = (b1 + c1.c2).dbl() + b1;
    return r;
  }

  template <size_t M>
  Fp12 pow(const Limbs<M>& e) const {
    Fp12 r = one();
    for (size_t i = num_bits(e); i-- > 0;) {
      r = r.square();
      if (bit(e, i)) r = r * *this;
    }
    return r;
  }
};

// ---- Frobenius constants ---------------------------------------------------------------------
template <class T>
struct FrobeniusConstants {
  using F2 = Fp2<T>;
  std::array<F2, 12> g1, g2, g6;  // gamma_k^2, gamma_k^4, gamma_k for k = 0..11

  static const FrobeniusConstants& get() {
    static const FrobeniusConstants c = [] {
      FrobeniusConstants r;
      using Fp = typename T::Fp;
      const F2 xi = F2{Fp::from_u64(T::XI0), Fp::one()};
      const F2 base = xi.pow(div_small(Fp::P_MINUS_1, 6));  // xi^((p-1)/6); 6 | p - 1 here
      F2 g = F2::one();
      for (unsigned k = 0; k < 12; ++k) {
        r.g6[k] = g;
        r.g1[k] = g.square();
        r.g2[k] = r.g1[k].square();
        g = g * base.frobenius(k);  // gamma_{k+1} = gamma_k · (xi^((p-1)/6))^(p^k)
      }
      return r;
    }();
    return c;
  }
};

template <class T>
Fp6<T> Fp6<T>::frobenius(unsigned k) const {
  const auto& fc = FrobeniusConstants<T>::get();
  k %= 12;
  return {c0.frobenius(k), c1.frobenius(k) * fc.g1[k], c2.frobenius(k) * fc.g2[k]};
}

template <class T>
Fp12<T> Fp12<T>::frobenius(unsigned k) const {
  const auto& fc = FrobeniusConstants<T>::get();
  k %= 12;
  F6 a = c0.frobenius(k), b = c1.frobenius(k);
  const F2& g = fc.g6[k];
  return {a, {b.c0 * g, b.c1 * g, b.c2 * g}};
}

}  // namespace splitprove::ff
