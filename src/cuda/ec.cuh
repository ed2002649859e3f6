#pragma once
// Short Weierstrass points y^2 = x^3 + b (a = 0) for device code, over a device field F (a
// DevField for G1, a DevFp2 for G2). Two forms, as on the host (ec/curve.hpp), with the same
// formulas:
//
//   Affine (x, y), with (0, 0) standing for the point at infinity: (0, 0) is not on the curve for
//   any b != 0, so no flag word is needed and an affine point is exactly two field elements
//   (96 bytes for G1, six 16-byte loads).
//   XYZZ (X, Y, ZZ, ZZZ): x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2; ZZ = 0 is infinity. The bucket
//   form of the MSM: mixed addition costs 8M + 2S and needs no inversion.
//
// Additions branch on the doubling and infinity cases: points are public data, and the branches
// are rare (a warp diverges only on the lanes that meet them).
#include "cuda/ff.cuh"

namespace splitprove::cuda {

template <class F>
struct AffinePoint {
  F x, y;

  SPLITPROVE_HD static AffinePoint infinity() { return {F::zero(), F::zero()}; }
  SPLITPROVE_HD bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  SPLITPROVE_HD AffinePoint operator-() const { return is_infinity() ? *this : AffinePoint{x, -y}; }
};

template <class F>
struct XyzzPoint {
  F X, Y, ZZ, ZZZ;

  SPLITPROVE_HD static XyzzPoint infinity() { return {F::one(), F::one(), F::zero(), F::zero()}; }
  SPLITPROVE_HD bool is_infinity() const { return ZZ.is_zero(); }
  SPLITPROVE_HD static XyzzPoint from_affine(const AffinePoint<F>& a) {
    return a.is_infinity() ? infinity() : XyzzPoint{a.x, a.y, F::one(), F::one()};
  }

  // dbl-2008-s-1: 6M + 3S (M counted with S; sqr is mul for now).
  SPLITPROVE_HD XyzzPoint dbl() const {
    if (is_infinity()) return *this;
    const F U = Y.dbl();
    const F V = U.sqr();
    const F W = U * V;
    const F S = X * V;
    const F x2 = X.sqr();
    const F M = x2.dbl() + x2;
    const F X3 = M.sqr() - S.dbl();
    return {X3, M * (S - X3) - W * Y, V * ZZ, W * ZZZ};
  }

  // madd-2008-s: 8M + 2S. P = U2 - X = 0 means equal x: the same point (R = 0, double it) or its
  // negative (the sum is infinity).
  SPLITPROVE_HD XyzzPoint& operator+=(const AffinePoint<F>& q) {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return *this = from_affine(q);
    const F U2 = q.x * ZZ;
    const F S2 = q.y * ZZZ;
    const F P = U2 - X;
    const F R = S2 - Y;
    if (P.is_zero()) return *this = R.is_zero() ? from_affine(q).dbl() : infinity();
    const F PP = P.sqr();
    const F PPP = P * PP;
    const F Q = X * PP;
    const F X3 = R.sqr() - PPP - Q.dbl();
    Y = R * (Q - X3) - Y * PPP;
    X = X3;
    ZZ = ZZ * PP;
    ZZZ = ZZZ * PPP;
    return *this;
  }

  // add-2008-s: 12M + 2S.
  SPLITPROVE_HD XyzzPoint& operator+=(const XyzzPoint& q) {
    if (q.is_infinity()) return *this;
    if (is_infinity()) return *this = q;
    const F U1 = X * q.ZZ;
    const F U2 = q.X * ZZ;
    const F S1 = Y * q.ZZZ;
    const F S2 = q.Y * ZZZ;
    const F P = U2 - U1;
    const F R = S2 - S1;
    if (P.is_zero()) return *this = R.is_zero() ? dbl() : infinity();
    const F PP = P.sqr();
    const F PPP = P * PP;
    const F Q = U1 * PP;
    const F X3 = R.sqr() - PPP - Q.dbl();
    Y = R * (Q - X3) - S1 * PPP;
    X = X3;
    ZZ = ZZ * q.ZZ * PP;
    ZZZ = ZZZ * q.ZZZ * PPP;
    return *this;
  }

  // 16-byte loads/stores of the four coordinates in order X, Y, ZZ, ZZZ.
  SPLITPROVE_HD static XyzzPoint load(const void* p) {
    const char* c = static_cast<const char*>(p);
    return {F::load(c), F::load(c + sizeof(F)), F::load(c + 2 * sizeof(F)),
            F::load(c + 3 * sizeof(F))};
  }
  SPLITPROVE_HD void store(void* p) const {
    char* c = static_cast<char*>(p);
    X.store(c), Y.store(c + sizeof(F)), ZZ.store(c + 2 * sizeof(F)), ZZZ.store(c + 3 * sizeof(F));
  }
};

template <class F>
SPLITPROVE_HD AffinePoint<F> load_affine(const void* p) {
  const char* c = static_cast<const char*>(p);
  return {F::load(c), F::load(c + sizeof(F))};
}


}  // namespace splitprove::cuda
