#pragma once
// Optimal ate pairing for BLS12 curves with an M-twist, over a parameter struct:
//
//   struct P {
//     using Tower;            // ff tower parameters (Fp2/Fp6/Fp12)
//     using G1; using G2;     // ec::Curve<...> over Fp and Fp2
//     static constexpr uint64_t X;        // |x|
//     static constexpr bool X_IS_NEGATIVE;
//   };
//
// Miller loop: T runs through the multiples of Q in homogeneous projective coordinates
// (x = X/Z, y = Y/Z) on the twist y^2 = x^3 + b'. Lines are evaluated at P = (xP, yP) after
// untwisting (x, y) -> (x/w^2, y/w^3) and multiplying by w^3 (an element of a proper subfield,
// killed by the final exponentiation), which leaves the sparse element
//   l0 + (l1·xP)·v + (l4·yP)·v·w          (slots w^0, w^2, w^3: Fp12::mul_by_014)
// Doubling (Costello-Lange-Naehrig, a = 0):          (l0, l1, l4) = (3b'Z^2 - Y^2, 3X^2, -2YZ)
// Mixed addition with Q = (xq, yq), theta = Y - yq·Z, lambda = X - xq·Z:
//                                                    (l0, l1, l4) = (theta·xq - lambda·yq, -theta, lambda)
// Final exponentiation: f^((p^6 - 1)(p^2 + 1)) (easy part), then the hard part through
//   3·(p^4 - p^2 + 1)/r = (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3
// so the result is e(P, Q)^3 — the same value the zkcrypto/blst/noble/ffjavascript(snarkjs)
// implementations produce, and what snarkjs writes as vk_alphabeta_12.
#include <array>
#include <span>
#include <utility>
#include <vector>

#include "ff/tower.hpp"

namespace splitprove::ec {

template <class P>
struct Pairing {
  using Fp2 = ff::Fp2<typename P::Tower>;
  using Fp12 = ff::Fp12<typename P::Tower>;
  using Fp = typename Fp2::Fp;
  using G1Affine = typename P::G1::Affine;
  using G2Affine = typename P::G2::Affine;

  // Line coefficients of the Miller loop for one G2 point, computed once (the verifier's
  // gamma and delta are prepared with the verifying key).
  struct G2Prepared {
    std::vector<std::array<Fp2, 3>> lines;
    bool inf = true;
  };

  static G2Prepared prepare(const G2Affine& q) {
    G2Prepared out;
    out.inf = q.inf;
    if (q.inf) return out;
    const Fp2 b3 = P::G2Params::b().dbl() + P::G2Params::b();  // 3b'
    Fp2 X = q.x, Y = q.y, Z = Fp2::one();
    out.lines.reserve(2 * 64);
    const int top = 63 - __builtin_clzll(P::X);
    for (int i = top - 1; i >= 0; --i) {
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
        out.lines.push_back({ii, j.dbl() + j, -h});
      }
      if ((P::X >> i) & 1) {  // addition step with Q
        Fp2 theta = Y - q.y * Z;
        Fp2 lambda = X - q.x * Z;
        Fp2 c = theta.square(), d = lambda.square();
        Fp2 e = lambda * d, f = Z * c, g = X * d;
        Fp2 h = e + f - g.dbl();
        X = lambda * h;
        Y = theta * (g - h) - e * Y;
        Z = Z * e;
        out.lines.push_back({theta * q.x - lambda * q.y, -theta, lambda});
      }
    }
    return out;
  }

  // prod_i f_{x, Q_i}(P_i), sharing the squarings of f across all pairs.
  static Fp12 miller_loop(std::span<const std::pair<G1Affine, const G2Prepared*>> pairs) {
    Fp12 f = Fp12::one();
    std::vector<size_t> idx(pairs.size(), 0);
    const int top = 63 - __builtin_clzll(P::X);
    bool first = true;
    auto apply = [&](size_t k) {
      const auto& [p, q] = pairs[k];
      if (p.inf || q->inf) return;
      const auto& l = q->lines[idx[k]];
      f = f.mul_by_014(l[0], l[1] * p.x, l[2] * p.y);
    };
    for (int i = top - 1; i >= 0; --i) {
      if (!first) f = f.square();
      first = false;
      for (size_t k = 0; k < pairs.size(); ++k) {
        apply(k);
        ++idx[k];
      }
      if ((P::X >> i) & 1) {
        for (size_t k = 0; k < pairs.size(); ++k) {
          apply(k);
          ++idx[k];
        }
      }
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
    // Hard part: t^((x-1)^2 (x+p)(x^2+p^2-1) + 3).
    Fp12 a = cyclotomic_exp_x(t) * t.conj();                  // t^(x-1)
    a = cyclotomic_exp_x(a) * a.conj();                       // t^((x-1)^2)
    Fp12 b = cyclotomic_exp_x(a) * a.frobenius(1);            // a^(x+p)
    Fp12 c = cyclotomic_exp_x(cyclotomic_exp_x(b)) * b.frobenius(2) * b.conj();  // b^(x^2+p^2-1)
    return c * t.cyclotomic_square() * t;                     // · t^3
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
