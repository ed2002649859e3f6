#pragma once
// The sextic twist E' : y^2 = x^3 + b' over Fp2 of a curve E : y^2 = x^3 + b over Fp with
// embedding degree 12, and the endomorphism psi = untwist-Frobenius-twist on E'.
//
//   M-twist (BLS12-381): b' = b·xi, untwist (x, y) -> (x/w^2, y/w^3)
//   D-twist (BN254):     b' = b/xi, untwist (x, y) -> (x·w^2, y·w^3)        (w^6 = xi)
//
// psi(x, y) = (conj(x)·cx, conj(y)·cy) with
//   D: cx = xi^((p-1)/3),    cy = xi^((p-1)/2)
//   M: cx = 1/xi^((p-1)/3),  cy = 1/xi^((p-1)/2)
// On G2, psi acts as multiplication by p mod r (the Frobenius eigenvalue).
#include "ff/tower.hpp"

namespace splitprove::ec {

enum class Twist { kM, kD };

template <class Tower, Twist kTwist>
struct Psi {
  using Fp2 = ff::Fp2<Tower>;
  Fp2 cx, cy;

  static const Psi& get() {
    static const Psi c = [] {
      const auto& fc = ff::FrobeniusConstants<Tower>::get();
      const Fp2 g = fc.g6[1];                      // xi^((p-1)/6)
      const Fp2 x = fc.g1[1], y = g.square() * g;  // xi^((p-1)/3), xi^((p-1)/2)
      if constexpr (kTwist == Twist::kD) return Psi{x, y};
      return Psi{x.inverse(), y.inverse()};
    }();
    return c;
  }

  // In Jacobian form: x = X/Z^2 -> conj(X)cx / conj(Z)^2, likewise y.
  template <class J>
  static J apply(const J& p) {
    const auto& c = get();
    return {p.X.conj() * c.cx, p.Y.conj() * c.cy, p.Z.conj()};
  }
  template <class A>
  static A apply_affine(const A& p) {
    if (p.is_identity()) return p;
    const auto& c = get();
    return A{p.x.conj() * c.cx, p.y.conj() * c.cy};
  }
};

}  // namespace splitprove::ec
