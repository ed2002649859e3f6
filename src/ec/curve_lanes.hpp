#pragma once
// Curve checks eight points at a time, in the lanes of ff/lanes.hpp (AVX-512 IFMA builds, where
// the coordinate field has them): reading a proving key checks every point's curve equation.
#include "ec/curve.hpp"
#include "ff/lanes.hpp"

namespace splitprove::ec {

// Whether on_curve8 serves curve group C in this build.
template <class C>
concept CurveLanes = ff::HasLanes<typename C::F>;

#if SPLITPROVE_IFMA
// Bit l set where *pts[l] satisfies y^2 = x^3 + b (the points' coordinates reduced, as stored;
// their inf flags are not read: a point at infinity has no affine coordinates to check). Bounds,
// in multiples of p per Fp component (ff/lanes.hpp, rho <= 0.19): x, y < 1; x^2 < 1.19; x^3 < 2.14
// (a product of values below 2p and 3p); x^3 + b < 3.14; y^2 < 1.19; y^2 - (x^3 + b) + 4p in
// (0.86, 5.19), below the 8p tighten8 reduces from; zero_mask reads it below 2p.
template <CurveLanes C>
__mmask8 on_curve8(const typename C::Affine* const* pts) {
  using F = typename C::F;
  using Ops = ff::LaneOps<F>;
  const char* rows[8];
  for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<const char*>(pts[l]);
  const char* const p0 = rows[0];
  const size_t xo = size_t(reinterpret_cast<const char*>(&pts[0]->x) - p0);
  const size_t yo = size_t(reinterpret_cast<const char*>(&pts[0]->y) - p0);
  const auto x = Ops::load(rows, xo), y = Ops::load(rows, yo);
  F b[8];
  for (auto& e : b) e = C::b();
  const auto rhs = Ops::add(Ops::mul(Ops::mul(x, x), x), Ops::from_scalars(b));
  return Ops::zero_mask(Ops::tighten8(Ops::template sub<4>(Ops::mul(y, y), rhs)));
}
#endif

}  // namespace splitprove::ec
