#pragma once
// Bucket accumulation in XYZZ coordinates: one window over a slice of the tail, the buckets'
// reduction, and the eight-lane XYZZ kernels where the field has them.
#include "msm/tail.hpp"

namespace splitprove::msm::detail {

// ---- bucket accumulation ------------------------------------------------------------------------
// One task: window w over tail[begin, end). Returns sum_b (b+1)·B_b in XYZZ form.

// k·P for a small k > 0 (double-and-add).
template <class Xyzz>
Xyzz mul_small(const Xyzz& p, uint64_t k) {
  Xyzz r = p;
  for (int i = 62 - __builtin_clzll(k); i >= 0; --i) {
    r = r.dbl();
    if ((k >> i) & 1) r += p;
  }
  return r;
}

// sum_b (b+1)·B_b over K buckets by the running sum: walking b down, running = sum_{j>=b} B_j and
// sum gains running once per b, so B_j is counted j+1 times; one addition into running and one into
// sum per bucket. Between two non-empty buckets b_i > b_{i+1} running stays the same for
// b_i - b_{i+1} steps, so sum gains running·(b_i - b_{i+1}) at once: the same work on dense
// buckets, and ~log(gap) doublings instead of gap additions where buckets are sparse (small inputs
// with large windows). `empty(b)` tells empty buckets; `add(running, b)` adds bucket b to running.
template <class C, class Empty, class Add>
typename C::Xyzz reduce_buckets(size_t k, const Empty& empty, const Add& add) {
  using Xyzz = typename C::Xyzz;
  Xyzz running = Xyzz::identity(), sum = Xyzz::identity();
  size_t prev = k;  // the last non-empty bucket seen; k = none yet
  for (size_t b = k; b-- > 0;) {
    if (empty(b)) continue;
    if (prev != k) sum += prev - b == 1 ? running : mul_small(running, prev - b);
    add(running, b);
    prev = b;
  }
  if (prev != k) sum += prev == 0 ? running : mul_small(running, prev + 1);
  return sum;
}

#if SPLITPROVE_IFMA
// Eight XYZZ points in lanes (ff/lanes.hpp), their identities as a mask (the coordinates of an
// identity lane are ignored).
template <class F>
struct XyzzLanes {
  using Ops = ff::LaneOps<F>;
  using V = typename Ops::V;
  V X{}, Y{}, ZZ{}, ZZZ{};
  __mmask8 id = 0xFF;
  // Lanes in m take (x, y, zz, zzz).
  void take(__mmask8 m, const V& x, const V& y, const V& zz, const V& zzz) {
    X = Ops::blend(m, X, x);
    Y = Ops::blend(m, Y, y);
    ZZ = Ops::blend(m, ZZ, zz);
    ZZZ = Ops::blend(m, ZZZ, zzz);
  }
};

// Curve::Xyzz's additions (madd-2008-s and add-2008-s) in lanes. Every coordinate stays below 2p:
// products of values below 2p are below 2p; a difference a - b + 2p of two of them is below 4p
// and tightened; R^2 - PPP - 2Q + 6p is below 8p and tightened (ff::LaneOps). madd_lanes returns
// false, leaving a unusable, when an adding lane meets P ≡ 0 (q = a or q = -a, which the running
// sum meets only on crafted buckets): the caller then does the whole sum in scalar code.
//
// The part both share: with P = U2 - U1 and R = S2 - S1, X3 = R^2 - P^3 - 2·U1·P^2 and
// Y3 = R·(U1·P^2 - X3) - S1·P^3; also returns P^2 and P^3 for the new ZZ and ZZZ.
template <class F>
struct Chord {
  typename XyzzLanes<F>::V X3, Y3, PP, PPP;
};
template <class F>
Chord<F> chord(const typename XyzzLanes<F>::V& P, const typename XyzzLanes<F>::V& R,
               const typename XyzzLanes<F>::V& U1, const typename XyzzLanes<F>::V& S1) {
  using Ops = ff::LaneOps<F>;
  Chord<F> c;
  c.PP = Ops::mul(P, P);
  c.PPP = Ops::mul(P, c.PP);
  const auto Q = Ops::mul(U1, c.PP);
  c.X3 = Ops::tighten8(Ops::template sub2<6>(Ops::mul(R, R), c.PPP, Ops::add(Q, Q)));
  c.Y3 = Ops::tighten(Ops::template sub<2>(
      Ops::mul(R, Ops::tighten(Ops::template sub<2>(Q, c.X3))), Ops::mul(S1, c.PPP)));
  return c;
}

template <class F>
bool madd_lanes(XyzzLanes<F>& a, const typename XyzzLanes<F>::V& qx,
                const typename XyzzLanes<F>::V& qy, __mmask8 q_inf) {
  using Ops = ff::LaneOps<F>;
  const __mmask8 fresh = __mmask8(~q_inf & a.id), active = __mmask8(~q_inf & ~a.id);
  if (active) {
    const auto P = Ops::tighten(Ops::template sub<2>(Ops::mul(a.ZZ, qx), a.X));
    if (Ops::zero_mask(P) & active) return false;
    const auto R = Ops::tighten(Ops::template sub<2>(Ops::mul(a.ZZZ, qy), a.Y));
    const Chord<F> c = chord<F>(P, R, a.X, a.Y);
    a.take(active, c.X3, c.Y3, Ops::mul(a.ZZ, c.PP), Ops::mul(a.ZZZ, c.PPP));
  }
  if (fresh) {
    const auto one = Ops::one();
    a.take(fresh, qx, qy, one, one);
  }
  a.id &= q_inf;
  return true;
}

// 2a (dbl-2008-s-1) in every lane, same bounds: U = 2Y below 4p, tightened; M = 3X^2 below 6p
// and M^2 - 2S + 4p below 8p, tightened.
template <class F>
XyzzLanes<F> dbl_lanes(const XyzzLanes<F>& a) {
  using Ops = ff::LaneOps<F>;
  const auto U = Ops::tighten(Ops::add(a.Y, a.Y));
  const auto V = Ops::mul(U, U), W = Ops::mul(U, V), S = Ops::mul(a.X, V);
  const auto x2 = Ops::mul(a.X, a.X);
  const auto M = Ops::tighten8(Ops::add(Ops::add(x2, x2), x2));
  const auto X3 = Ops::tighten8(Ops::template sub<4>(Ops::mul(M, M), Ops::add(S, S)));
  XyzzLanes<F> r;
  r.X = X3;
  r.Y = Ops::tighten(Ops::template sub<2>(Ops::mul(M, Ops::tighten(Ops::template sub<2>(S, X3))),
                                          Ops::mul(W, a.Y)));
  r.ZZ = Ops::mul(V, a.ZZ);
  r.ZZZ = Ops::mul(W, a.ZZZ);
  r.id = a.id;
  return r;
}

// a += q. Where a = q (the running sum's second step after an empty bucket: sum = running) the
// lane takes the doubling; a = -q gives up like madd_lanes.
template <class F>
bool add_lanes(XyzzLanes<F>& a, const XyzzLanes<F>& q) {
  using Ops = ff::LaneOps<F>;
  const __mmask8 copy = __mmask8(a.id & ~q.id), active = __mmask8(~a.id & ~q.id);
  if (active) {
    const auto U1 = Ops::mul(a.X, q.ZZ), S1 = Ops::mul(a.Y, q.ZZZ);
    const auto P = Ops::tighten(Ops::template sub<2>(Ops::mul(q.X, a.ZZ), U1));
    const auto R = Ops::tighten(Ops::template sub<2>(Ops::mul(q.Y, a.ZZZ), S1));
    const __mmask8 twice = Ops::zero_mask(P) & active;
    if (twice && (Ops::zero_mask(R) & twice) != twice) return false;
    const XyzzLanes<F> d = twice ? dbl_lanes(a) : XyzzLanes<F>{};
    const Chord<F> c = chord<F>(P, R, U1, S1);
    a.take(active & ~twice, c.X3, c.Y3, Ops::mul(Ops::mul(a.ZZ, q.ZZ), c.PP),
           Ops::mul(Ops::mul(a.ZZZ, q.ZZZ), c.PPP));
    if (twice) a.take(twice, d.X, d.Y, d.ZZ, d.ZZZ);
  }
  if (copy) a.take(copy, q.X, q.Y, q.ZZ, q.ZZZ);
  a.id &= q.id;
  return true;
}

// sum_b (b+1)·A_b over k affine buckets (k a multiple of 8) by the running sum in lanes: lane r
// walks buckets [r·m, (r+1)·m), m = k/8, from the top, giving S_r = sum (b - r·m + 1)·A_b and
// R_r = sum A_b over its range; the total is sum_r S_r + r·m·R_r. Empty when an exceptional
// addition came up (see madd_lanes).
template <class C>
std::optional<typename C::Xyzz> reduce_affine_lanes(const std::vector<typename C::Affine>& acc) {
  using F = typename C::F;
  using Xyzz = typename C::Xyzz;
  using Affine = typename C::Affine;
  using Ops = ff::LaneOps<F>;
  const size_t k = acc.size(), m = k / 8;
  const char* const a0 = reinterpret_cast<const char*>(acc.data());
  const size_t xo = size_t(reinterpret_cast<const char*>(&acc[0].x) - a0);
  const size_t yo = size_t(reinterpret_cast<const char*>(&acc[0].y) - a0);
  XyzzLanes<F> run, sum;
  const char* rows[8];
  for (size_t i = 0; i < m; ++i) {
    __mmask8 inf = 0;
    for (size_t r = 0; r < 8; ++r) {
      const Affine& a = acc[r * m + m - 1 - i];
      rows[r] = reinterpret_cast<const char*>(&a);
      inf |= __mmask8(a.is_identity()) << r;
    }
    if (!madd_lanes(run, Ops::load(rows, xo), Ops::load(rows, yo), inf)) return std::nullopt;
    if (!add_lanes(sum, run)) return std::nullopt;
  }
  const auto scalars = [](const XyzzLanes<F>& v, Xyzz* out) {
    F x[8], y[8], zz[8], zzz[8];
    Ops::to_scalars(v.X, x);
    Ops::to_scalars(v.Y, y);
    Ops::to_scalars(v.ZZ, zz);
    Ops::to_scalars(v.ZZZ, zzz);
    for (size_t r = 0; r < 8; ++r)
      out[r] = (v.id >> r) & 1 ? Xyzz::identity() : Xyzz{x[r], y[r], zz[r], zzz[r]};
  };
  Xyzz s[8], run_r[8];
  scalars(sum, s);
  scalars(run, run_r);
  Xyzz total = Xyzz::identity();
  for (size_t r = 0; r < 8; ++r) {
    total += s[r];
    if (r && !run_r[r].is_identity()) total += mul_small(run_r[r], r * m);
  }
  return total;
}
#endif

template <class C>
typename C::Xyzz reduce_xyzz(const std::vector<typename C::Xyzz>& buckets) {
  return reduce_buckets<C>(
      buckets.size(), [&](size_t b) { return buckets[b].is_identity(); },
      [&](typename C::Xyzz& r, size_t b) { r += buckets[b]; });
}

template <class C>
typename C::Xyzz window_xyzz(const Points<C>& points, const Tail<C>& t, unsigned c, unsigned w,
                             size_t begin, size_t end) {
  using Xyzz = typename C::Xyzz;
  const WindowDigits<C::Fr::N> digit(c, w);
  std::vector<Xyzz> buckets(size_t(1) << (c - 1), Xyzz::identity());
  for (size_t j = begin; j < end; ++j) {
    const int64_t d = digit(t.scalar[j]);
    if (d == 0) continue;
    buckets[size_t(d > 0 ? d : -d) - 1] += points(t.index[j], d < 0);
  }
  return reduce_xyzz<C>(buckets);
}

// Per group of eight pairs, for AffineWindow's rounds in lanes: denominators and their prefix

}  // namespace splitprove::msm::detail
