#pragma once
// Optimal ate pairing for BLS12 and BN curves (embedding degree 12, sextic twist), over a
// parameter struct:
//
//   struct P {
//     using Tower;                        // ff tower parameters (Fp2/Fp6/Fp12)
//     using G1; using G2; using G2Params; // ec::Curve<...> over Fp and Fp2
//     static constexpr Family FAMILY;     // kBls12 or kBn
//     static constexpr Twist TWIST;       // kM (b' = b·xi) or kD (b' = b/xi)
//     static constexpr uint64_t X;        // |x|, the curve family parameter
//     static constexpr bool X_IS_NEGATIVE;
//   };
//
// Miller loop: f_{s,Q}(P) with s = x (BLS12) or s = 6x + 2 (BN), scanned from the top as signed
// digits (the bits of |x|; the NAF of 6x + 2, whose 65 bits do not fit a word). For BN two more
// lines follow, through Q1 = pi(Q) and Q2 = -pi^2(Q) (pi the p-power Frobenius, psi on E').
// T runs through the multiples of Q in homogeneous projective coordinates (x = X/Z, y = Y/Z) on
// the twist y^2 = x^3 + b'. A line is evaluated at P = (xP, yP) after untwisting and multiplying
// by a power of w that lies in a proper subfield (killed by the final exponentiation):
//   M-twist: l0 + (l1·xP)·v + (l2·yP)·v·w        (slots w^0, w^2, w^3: Fp12::mul_by_014)
//   D-twist: l0·yP + (l1·xP)·w + l2·v·w          (slots w^0, w^1, w^3: Fp12::mul_by_034)
// Doubling (Costello-Lange-Naehrig, a = 0), with h = 2YZ, i = 3b'Z^2 - Y^2, j = 3X^2:
//   M: (l0, l1, l2) = (i, j, -h)          D: (l0, l1, l2) = (-h, j, i)
// Mixed addition with Q = (xq, yq), theta = Y - yq·Z, lambda = X - xq·Z, k = theta·xq - lambda·yq:
//   M: (l0, l1, l2) = (k, -theta, lambda) D: (l0, l1, l2) = (lambda, -theta, k)
//
// Final exponentiation: f^((p^6 - 1)(p^2 + 1)) (easy part), then a hard part that raises to a
// fixed multiple m·(p^4 - p^2 + 1)/r, m chosen for short addition chains:
//   BLS12: m = 3,   3(p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
//   BN:    m = 2x(6x^2 + 3x + 1)   (Fuentes-Castaneda, Knapp, Rodriguez-Henriquez, "Faster
//          hashing to G2", 2011), m·(p^4 - p^2 + 1)/r = l0 + l1 p + l2 p^2 + l3 p^3 with
//          l0 = 12x^3 + 12x^2 + 6x + 1, l1 = 12x^3 + 6x^2 + 4x, l2 = 12x^3 + 6x^2 + 6x,
//          l3 = 12x^3 + 6x^2 + 4x - 1
// These are the values the noble, ffjavascript (snarkjs), zkcrypto and blst implementations
// produce, and what snarkjs writes as vk_alphabeta_12 (tests/vectors/README.md checks both).
#include <array>
#include <span>
#include <utility>
#include <vector>

#include "ec/twist.hpp"
#include "ff/tower.hpp"

namespace splitprove::ec {

enum class Family { kBls12, kBn };

// The Miller loop scalar as signed digits d[0..len), least significant first; d[len-1] = 1.
struct LoopDigits {
  std::array<int8_t, 80> d{};
  int len = 0;
};

template <Family kFamily>
constexpr LoopDigits loop_digits(uint64_t x) {
  LoopDigits r;
  if constexpr (kFamily == Family::kBls12) {
    for (; x; x >>= 1) r.d[size_t(r.len++)] = int8_t(x & 1);
  } else {
    // Non-adjacent form of 6x + 2 (22 non-zero digits for BN254 against 33 set bits).
    unsigned __int128 s = (unsigned __int128)x * 6 + 2;
    while (s) {
      int8_t dig = 0;
      if (s & 1) {
        dig = int8_t(2 - int(s & 3));  // 1 when s = 1 mod 4, -1 when s = 3 mod 4
        s = dig > 0 ? s - 1 : s + 1;
      }
      r.d[size_t(r.len++)] = dig;
      s >>= 1;
    }
  }
  return r;
}

template <class P>
struct Pairing {
  using Fp2 = ff::Fp2<typename P::Tower>;
  using Fp12 = ff::Fp12<typename P::Tower>;
  using Fp = typename Fp2::Fp;
  using G1Affine = typename P::G1::Affine;
  using G2Affine = typename P::G2::Affine;
  static constexpr bool kBn = P::FAMILY == Family::kBn;
  static constexpr LoopDigits kLoop = loop_digits<P::FAMILY>(P::X);
  // A negative BN parameter would also negate T before the two Frobenius lines; no curve in
  // use needs it, so it is not written.
  static_assert(!(kBn && P::X_IS_NEGATIVE), "BN curves with x < 0 are not supported");

  // Line coefficients of the Miller loop for one G2 point, computed once (the verifier's
  // gamma and delta are prepared with the verifying key).
  struct G2Prepared {
    std::vector<std::array<Fp2, 3>> lines;
    bool inf = true;
  };

  static G2Prepared prepare(const G2Affine& q) {
    G2Prepared out;
    out.inf = q.is_identity();
    if (out.inf) return out;
    const Fp2 b3 = P::G2Params::b().dbl() + P::G2Params::b();  // 3b'
    Fp2 X = q.x, Y = q.y, Z = Fp2::one();
    out.lines.reserve(size_t(2 * kLoop.len + 2));
    auto line = [&](const Fp2& a, const Fp2& b, const Fp2& c) {
      if constexpr (P::TWIST == Twist::kM) {
        out.lines.push_back({a, b, c});
      } else {
        out.lines.push_back({c, b, a});  // the D-twist line swaps the w^0 and v·w coefficients
      }
    };
    auto add = [&](const G2Affine& r) {  // T += r, and the line through T and r
      Fp2 theta = Y - r.y * Z;
      Fp2 lambda = X - r.x * Z;
      Fp2 c = theta.square(), d = lambda.square();
      Fp2 e = lambda * d, f = Z * c, g = X * d;
      Fp2 h = e + f - g.dbl();
      X = lambda * h;
      Y = theta * (g - h) - e * Y;
      Z = Z * e;
      line(theta * r.x - lambda * r.y, -theta, lambda);
    };
    const G2Affine neg_q = -q;
    for (int i = kLoop.len - 2; i >= 0; --i) {
      {  // doubling step
        Fp2 a = (X * Y).half();
        Fp2 b = Y.square(), c = Z.square();
        Fp2 e = b3 * c;
        Fp2 f = e.dbl() + e;
        Fp2 g = (b + f).half();
        Fp2 h = (Y + Z).square() - (b + c);
        Fp2 ii = e - b;
        Fp2 j = X.square();
        Fp2 e2 = e.square();
        X = a * (b - f);
        Y = g.square() - (e2.dbl() + e2);
        Z = b * h;
        line(ii, j.dbl() + j, -h);
      }
      if (kLoop.d[size_t(i)] > 0) add(q);
      if (kLoop.d[size_t(i)] < 0) add(neg_q);
    }
    if constexpr (kBn) {
      using Psi = ec::Psi<typename P::Tower, P::TWIST>;
      const G2Affine q1 = Psi::apply_affine(q);
      add(q1);
      add(-Psi::apply_affine(q1));
    }
    return out;
  }

  // prod_i f_{s, Q_i}(P_i), sharing the squarings of f across all pairs.
  static Fp12 miller_loop(std::span<const std::pair<G1Affine, const G2Prepared*>> pairs) {
    Fp12 f = Fp12::one();
    std::vector<size_t> idx(pairs.size(), 0);
    auto apply_all = [&] {
      for (size_t k = 0; k < pairs.size(); ++k) {
        const auto& [p, q] = pairs[k];
        if (q->inf || p.is_identity()) continue;
        const auto& l = q->lines[idx[k]++];
        if constexpr (P::TWIST == Twist::kM) {
          f = f.mul_by_014(l[0], l[1] * p.x, l[2] * p.y);
        } else {
          f = f.mul_by_034(l[0] * p.y, l[1] * p.x, l[2]);
        }
      }
    };
    bool first = true;
    for (int i = kLoop.len - 2; i >= 0; --i) {
      if (!first) f = f.square();
      first = false;
      apply_all();
      if (kLoop.d[size_t(i)] != 0) apply_all();
    }
    if constexpr (kBn) {
      apply_all();  // Q1 = pi(Q)
      apply_all();  // Q2 = -pi^2(Q)
    }
    return P::X_IS_NEGATIVE ? f.conj() : f;
  }

  // g^x in the cyclotomic subgroup (conjugation is inversion there).
  static Fp12 cyclotomic_exp_x(const Fp12& g) {
    Fp12 r = g;
    const int top = 63 - __builtin_clzll(P::X);
    for (int i = top - 1; i >= 0; --i) {
      r = r.cyclotomic_square();
      if ((P::X >> i) & 1) r = r * g;
    }
    return P::X_IS_NEGATIVE ? r.conj() : r;
  }

  static Fp12 final_exponentiation(const Fp12& f) {
    // Easy part: f^(p^6 - 1) = conj(f)/f, then ^(p^2 + 1).
    // Pairing inputs are public (verification), so the variable-time inverse is safe here.
    Fp12 t = f.conj() * f.inverse_vartime();
    t = t.frobenius(2) * t;
    if constexpr (kBn) {
      // Hard part: t^(l0 + l1 p + l2 p^2 + l3 p^3), the l_i above.
      Fp12 y1 = cyclotomic_exp_x(t).conj().cyclotomic_square();   // t^(-2x)
      Fp12 y2 = y1.cyclotomic_square() * y1;                      // t^(-6x)
      Fp12 y4 = cyclotomic_exp_x(y2).conj();                      // t^(6x^2)
      Fp12 y6 = cyclotomic_exp_x(y4.cyclotomic_square()).conj();  // t^(-12x^3)
      Fp12 a = y6.conj() * y4 * y2.conj();                        // t^(12x^3 + 6x^2 + 6x)
      Fp12 b = a * y1;                                            // t^(12x^3 + 6x^2 + 4x)
      return (t.conj() * b).frobenius(3) * a.frobenius(2) * b.frobenius(1) * (a * y4 * t);
    } else {
      // Hard part: t^((x-1)^2 (x+p)(x^2+p^2-1) + 3).
      Fp12 a = cyclotomic_exp_x(t) * t.conj();                                     // t^(x-1)
      a = cyclotomic_exp_x(a) * a.conj();                                          // t^((x-1)^2)
      Fp12 b = cyclotomic_exp_x(a) * a.frobenius(1);                               // a^(x+p)
      Fp12 c = cyclotomic_exp_x(cyclotomic_exp_x(b)) * b.frobenius(2) * b.conj();  // b^(x^2+p^2-1)
      return c * t.cyclotomic_square() * t;                                        // · t^3
    }
  }

  static Fp12 pairing(const G1Affine& p, const G2Affine& q) {
    G2Prepared qp = prepare(q);
    std::pair<G1Affine, const G2Prepared*> one{p, &qp};
    return final_exponentiation(miller_loop({&one, 1}));
  }

  // prod_i e(P_i, Q_i) == 1, with one shared final exponentiation (the Groth16 verifier's check).
  static bool product_is_one(std::span<const std::pair<G1Affine, const G2Prepared*>> pairs) {
    return final_exponentiation(miller_loop(pairs)).is_one();
  }
};

}  // namespace splitprove::ec
