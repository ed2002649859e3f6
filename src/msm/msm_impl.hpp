#pragma once
// Definitions of the templates declared in msm.hpp. Include this only where the templates are
// instantiated (msm_bls12_381.cpp); everyone else includes msm.hpp.
//
// Outline of one MSM of n terms (one scalar vector):
//
//  1. classify (parallel over slices of [0, n)): a term whose scalar is 0 or whose base is at
//     infinity contributes nothing and is dropped; a term whose scalar is 1 is added to a per-slice
//     XYZZ sum ("ones"); every other term joins the tail: its index and its scalar as canonical
//     limbs, stored compactly in input order. A first counting pass sizes the tail exactly, so the
//     extra memory is 4 + 8·N bytes per tail term and nothing for the rest.
//  2. windows: with c-bit windows the tail scalars are read as signed digits (below); a task owns
//     one window and one slice of the tail, keeps its own 2^(c-1) buckets, and returns the window
//     sum  sum_b (b+1)·B_b  of its slice. Tasks of every window (and of every vector, in the batch
//     variant) go to util::parallel_for in one call, so the pool balances them dynamically.
//  3. combine: per window the slices' sums are added; then Horner over windows,
//     S = (...(S_top·2^c + S_{top-1})·2^c + ...) + S_0, and finally S + ones.
//
// Signed digits. With raw c-bit windows r_w of k, the digits are produced from the bottom:
//   t = r_w + carry_w;  if t > 2^(c-1): d_w = t - 2^c, carry_{w+1} = 1;  else d_w = t, carry = 0,
// so d_w is in [-2^(c-1)+1, 2^(c-1)] and |d_w| - 1 indexes 2^(c-1) buckets. The carry into window w
// does not need the lower windows' digits: by induction on w,
//   carry_w = 1  <=>  (k mod 2^(cw)) > T_w,  T_w = sum_{j<w} 2^(c-1)·2^(cj)
// (T_w has the top bit of every lower window set). So a task computes its digits from the scalar
// alone with one masked comparison, and no digit table (n × windows) is ever stored.
// The number of windows is floor(bits/c) + 1: the top window then holds at most c-1 bits of k, so
// t <= 2^(c-1) there and no carry leaves it.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

#include "ec/curve.hpp"
#include "ff/lanes.hpp"
#include "msm/msm.hpp"
#include "splitprove/error.hpp"
#include "util/memory.hpp"
#include "util/parallel.hpp"

namespace splitprove::msm {
namespace detail {

// ---- cost model ---------------------------------------------------------------------------------
// Units: one multiplication in the coordinate field F (Fp for G1, Fp2 for G2). A mixed XYZZ
// addition is 8M + 2S; a batch-affine addition is 1M (slope) + 1S + 1M (y) + 3M (its share of
// Montgomery's batch inversion) = 6M, measured at ~8.5M with its memory traffic and subtractions
// (BLS12-381 G1, single thread, 2^16 and 2^18 terms: 550 ns against 650 ns per XYZZ addition);
// reducing one bucket costs one mixed and one full XYZZ addition (running += bucket, sum +=
// running: 10 + 14).
inline constexpr double kCostXyzzAdd = 10.0;
inline constexpr double kCostAffineAdd = 8.5;
inline constexpr double kCostBucket = 24.0;
// In a field with the eight-lane kernel (ff/lanes.hpp) the batch-affine addition's products run
// eight at a time: the addition costs about half as much (BN254 and BLS12-381 G1, single thread,
// 2^16 terms: 45% less time); window choices from costs 3.5 to 8.5 measured alike within the
// noise (bench/RESULTS.md, "lanes").
inline constexpr double kCostAffineAddLanes = 6.0;
template <class C>
constexpr double affine_add_cost() {
  return ff::HasLanes<typename C::F> ? kCostAffineAddLanes : kCostAffineAdd;
}
// Scalar bits the windows cover (BLS12-381 r: 255 bits, BN254 r: 254); make_plan checks Fr.
inline constexpr unsigned kScalarBits = 255;

inline unsigned num_windows(unsigned bits, unsigned c) { return bits / c + 1; }

inline double window_cost(size_t tail, unsigned c, double add_cost, unsigned bits) {
  return double(num_windows(bits, c)) *
         (double(tail) * add_cost + double(size_t(1) << (c - 1)) * kCostBucket);
}

inline unsigned best_window_bits(size_t tail, double add_cost, unsigned bits = kScalarBits) {
  unsigned best = 1;
  double best_cost = window_cost(tail, 1, add_cost, bits);
  for (unsigned c = 2; c <= 16; ++c) {
    const double cost = window_cost(tail, c, add_cost, bits);
    if (cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

// ---- signed digits ------------------------------------------------------------------------------
template <size_t N>
struct WindowDigits {
  unsigned c = 0, lo = 0;       // window w covers bits [lo, lo + c), lo = c·w
  ff::Limbs<N> mask{}, thr{};   // low lo bits; T_w
  uint64_t half = 0, full = 0;  // 2^(c-1), 2^c

  WindowDigits(unsigned c_, unsigned w)
      : c(c_), lo(c_ * w), half(uint64_t(1) << (c_ - 1)), full(uint64_t(1) << c_) {
    for (unsigned b = 0; b < lo && b < 64 * N; ++b) mask[b / 64] |= uint64_t(1) << (b % 64);
    for (unsigned j = 0; j < w; ++j) {
      const unsigned b = c * j + c - 1;
      thr[b / 64] |= uint64_t(1) << (b % 64);
    }
  }

  // The signed digit d_w of k.
  int64_t operator()(const ff::Limbs<N>& k) const {
    const unsigned limb = lo / 64, sh = lo % 64;
    uint64_t raw = 0;
    if (limb < N) {
      raw = k[limb] >> sh;
      if (sh + c > 64 && limb + 1 < N) raw |= k[limb + 1] << (64 - sh);
      raw &= full - 1;
    }
    // carry = (k mod 2^lo) > T_w: the borrow of T_w - (k mod 2^lo). Branch-free, as is the sign
    // below: both are coin flips on random scalars, and a mispredicted branch per digit cost
    // more than the arithmetic.
    uint64_t carry = 0;
    for (size_t i = 0; i < N; ++i) {
      const unsigned __int128 d = (unsigned __int128)thr[i] - (k[i] & mask[i]) - carry;
      carry = uint64_t(d >> 64) & 1;
    }
    const uint64_t t = raw + carry;
    return int64_t(t) - int64_t(full & (uint64_t(0) - uint64_t(t > half)));
  }
};

// ---- the tail of one scalar vector --------------------------------------------------------------
// A tail entry names its point by a 32-bit word: the low 30 bits are a position in bases (or, with
// kEndoBit, in Tail::endo), and kNegBit asks for the point's negation.
inline constexpr uint32_t kEndoBit = uint32_t(1) << 31, kNegBit = uint32_t(1) << 30,
                          kPosMask = kNegBit - 1;

template <class C>
struct Tail {
  // Written by the pool's workers, so not zeroed first (util/memory.hpp). index: the point words
  // (above), without GLV positions in bases, increasing; scalar: the canonical scalars, same
  // order; endo: with GLV, E(P) of the tail's bases, by tail position.
  util::UninitVector<uint32_t> index;
  util::UninitVector<Limbs<C>> scalar;
  util::UninitVector<typename C::Affine> endo;
  unsigned bits = kScalarBits;  // every scalar is below 2^bits
  typename C::Xyzz ones = C::Xyzz::identity();
};

// `cond ? a : b` for a field element, by masks rather than a branch.
template <class T>
T select_if(bool cond, const T& a, const T& b) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 8 == 0);
  constexpr size_t kWords = sizeof(T) / 8;
  uint64_t wa[kWords], wb[kWords];
  std::memcpy(wa, &a, sizeof(T));
  std::memcpy(wb, &b, sizeof(T));
  const uint64_t m = uint64_t(0) - uint64_t(cond);
  for (size_t i = 0; i < kWords; ++i) wa[i] = (wa[i] & m) | (wb[i] & ~m);
  T r;
  std::memcpy(&r, wa, sizeof(T));
  return r;
}

// The point a tail word names (see Tail), negated when `neg` (a negative digit).
template <class C>
struct Points {
  util::PodSpan<typename C::Affine> bases, endo;
  typename C::Affine operator()(uint32_t word, bool neg) const {
    typename C::Affine p = (word & kEndoBit) ? endo[word & kPosMask] : bases[word & kPosMask];
    // -p where asked, without a branch (the sign of a digit is a coin flip).
    p.y = select_if(neg != bool(word & kNegBit), -p.y, p.y);
    return p;
  }
};

// Capacity for n terms in a tail's word and scalar vectors (util::UninitAllocator advises huge
// pages for them).
template <class C>
void reserve_tail(Tail<C>& t, size_t n) {
  t.index.reserve(n);
  t.scalar.reserve(n);
}

// GLV (see ec::GlvSplit): the tail of T terms k_j·P_j becomes 2T terms of ~half-length scalars,
// k1_j·(±P_j) in place and k2_j·(±E(P_j)) appended, E(P_j) stored in tail.endo. The windows then
// cover kBits instead of 255 bits: half as many windows over twice the terms, so the additions stay
// the same and the bucket reductions halve. The split and E cost a few products per term.
template <class C>
constexpr bool has_glv() {
  return requires { C::Params::Glv::kBits; };
}

template <class C>
constexpr unsigned glv_bits() {
  if constexpr (has_glv<C>()) return C::Params::Glv::kBits;
  return kScalarBits;
}

template <class C>
void glv_expand(util::PodSpan<typename C::Affine> bases, Tail<C>& t) {
  if constexpr (has_glv<C>()) {
    using Glv = typename C::Params::Glv;
    const size_t n = t.index.size();
    if (n == 0 || n > kPosMask) return;
    reserve_tail(t, 2 * n);
    t.endo.resize(n);
    t.index.resize(2 * n);
    t.scalar.resize(2 * n);
    util::parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t j = b; j < e; ++j) {
            const uint32_t pos = t.index[j];
            const ec::GlvSplit<C::Fr::N> sp = Glv::split(t.scalar[j]);
            auto q = bases[pos];
            Glv::endo(q.x, q.y);
            t.endo[j] = q;
            t.index[j] = pos | (sp.neg1 ? kNegBit : 0);
            t.scalar[j] = sp.k1;
            t.index[n + j] = uint32_t(j) | kEndoBit | (sp.neg2 ? kNegBit : 0);
            t.scalar[n + j] = sp.k2;
          }
        },
        1024);
    t.bits = Glv::kBits;
  }
}

// Splits [0, n) into `parts` near-equal slices.
inline size_t slice_begin(size_t n, size_t parts, size_t i) {
  return size_t((unsigned __int128)n * i / parts);
}

// Classifies terms (see the outline). kind(i) returns 0 (zero), 1 (one) or 2 (tail) and may throw
// for an invalid scalar; canonical(i) returns the canonical limbs of a tail scalar. With `glv`
// (the call may split the scalars) the tail's vectors get room for the split's second half.
// The tail is written to `out`, whose arrays keep their capacity (a Workspace's tail from an
// earlier call: its pages are already faulted in).
template <class C, class Kind, class Canonical>
void classify(util::PodSpan<typename C::Affine> bases, size_t n, const Kind& kind,
              const Canonical& canonical, bool glv, Tail<C>& out) {
  using Xyzz = typename C::Xyzz;
  out.index.clear();
  out.scalar.clear();
  out.endo.clear();
  out.bits = kScalarBits;
  out.ones = Xyzz::identity();
  if (n == 0) return;
  if (n > size_t(UINT32_MAX))
    throw Error("msm: " + std::to_string(n) + " terms: at most 2^32 - 1 are supported");
  // ~4 slices per thread even out slices with more ones or more tail than others.
  const size_t parts = std::min(n, std::max<size_t>(1, 4 * util::num_threads()));
  std::vector<size_t> count(parts + 1, 0);
  std::vector<Xyzz> ones(parts, Xyzz::identity());
  // Pass 1 counts each slice's tail, so that the tail is allocated once at its exact size.
  util::parallel_for(
      parts,
      [&](size_t pb, size_t pe) {
        for (size_t p = pb; p < pe; ++p) {
          size_t c = 0;
          for (size_t i = slice_begin(n, parts, p), e = slice_begin(n, parts, p + 1); i < e; ++i)
            c += kind(i) == 2 && !bases[i].is_identity();
          count[p + 1] = c;
        }
      },
      1, parts);
  for (size_t p = 0; p < parts; ++p) count[p + 1] += count[p];
  const size_t tail = count[parts];
  // Room for the GLV split's second half (glv_expand), so that it does not move the first.
  reserve_tail(out, glv && has_glv<C>() && tail <= kPosMask ? 2 * tail : tail);
  out.index.resize(tail);
  out.scalar.resize(tail);
  // Pass 2 sums the ones and writes each slice's tail at its offset (input order is kept).
  util::parallel_for(
      parts,
      [&](size_t pb, size_t pe) {
        for (size_t p = pb; p < pe; ++p) {
          size_t at = count[p];
          Xyzz acc = Xyzz::identity();
          for (size_t i = slice_begin(n, parts, p), e = slice_begin(n, parts, p + 1); i < e; ++i) {
            if (bases[i].is_identity()) continue;
            const int kd = kind(i);
            if (kd == 1) {
              acc += bases[i];
            } else if (kd == 2) {
              out.index[at] = uint32_t(i);
              out.scalar[at] = canonical(i);
              ++at;
            }
          }
          ones[p] = acc;
        }
      },
      1, parts);
  for (const auto& o : ones) out.ones += o;
}

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
// products. Empty where the field has no lanes.
template <class F, bool>
struct LaneScratch {};
#if SPLITPROVE_IFMA
template <class F>
struct LaneScratch<F, true> {
  std::vector<typename ff::LaneOps<F>::V> dx, prefix;
};
#endif

// Batch-affine buckets, accumulated as pairwise trees.
//
// Adding two affine points P, Q with x_P != x_Q needs  lambda = (y_Q - y_P)/(x_Q - x_P),
// x = lambda^2 - x_P - x_Q,  y = lambda(x_P - x) - y_P:  1M + 1S + 1M, plus a division. The
// divisions of many independent additions share one field inversion by Montgomery's trick (3M per
// element), so an addition costs ~6M against 8M + 2S for a mixed XYZZ addition. The inversion
// itself is expensive (Fermat: ~600M for BLS12-381 Fp), so a batch must hold hundreds of additions.
//
// Rather than adding points one by one into buckets (where two points for one bucket cannot share
// a batch), a task takes its slice of the tail in chunks and, per chunk:
//   1. computes every digit and counting-sorts the points by bucket into one array, each bucket's
//      segment holding the bucket's value so far and the chunk's points for it;
//   2. adds the points of every segment pairwise, (0,1), (2,3), ..., all segments in one batch,
//      writing the sums (still sorted by bucket) to a second buffer; then the next round from
//      there, until every segment is one point.
// Every round is one batch with one inversion, there are ~log2(points per bucket) + a few rounds
// per chunk, and no input makes the batches small: even a single bucket with all the points
// halves in ~log2(chunk) rounds. A pair with equal x (a doubling, or P + (-P)) goes to a per-bucket
// XYZZ accumulator instead (allocated at its first use), whose formulas handle both cases.
// Where the coordinate field has the eight-lane kernel (ff/lanes.hpp: AVX-512 IFMA builds, Fp
// and Fp2), a round's additions run eight at a time (sums_in_lanes).
template <class C>
class AffineWindow {
 public:
  using Affine = typename C::Affine;
  using Xyzz = typename C::Xyzz;
  using F = typename C::F;

  // Chunk: points sorted into buckets at a time. At least 2^13 so the ~4-6 inversions of a chunk
  // cost < 0.5M per addition, at most 2^16 to bound the scratch (G2, c = 16: ~60 MB per task;
  // see scratch_bytes). Over G2 (Fp2 coordinates) 2 points per bucket on average; over G1 4:
  // since the rounds' bookkeeping lost its branches (fast_round), a chunk's fixed cost per bucket
  // is worth spreading over more of G1's cheaper additions (bench_msm *_random_chunk, one thread,
  // medians, two runs: BN254 G1 2^16 (c = 13) 2 per bucket 75.1/75.0 ms, 4 71.1/71.8, 8
  // 70.7/70.4; 2^18 and 2^20 (c = 14) 287/275 -> 247/253 and 1141/1160 -> 1109/1080 at 4;
  // BLS12-381 G1 2^18 482/485 -> 468/453 at 2^15), while G2's larger points and dearer additions
  // run best at 2 per bucket (BLS12-381 G2 2^16 292/285 ms against 364/366 at 2^15; BN254 G2
  // alike within 5%). Below ~2^15 terms both are 2^13: a larger floor cost a 2^14 proof 5%.
  static size_t chunk_size(unsigned c) {
    const size_t k = size_t(1) << (c - 1);
    if constexpr (kFp2Coordinates)
      return std::clamp<size_t>(2 * k, size_t(1) << 13, size_t(1) << 16);
    else
      return std::clamp<size_t>(4 * k, size_t(1) << 13, size_t(1) << 16);
  }

  // Bytes a task allocates for `chunk` points per chunk (exceptional XYZZ buckets included).
  // (The buffers' sizes are pts_size, tmp_size and pairs_size.)
  static size_t scratch_bytes(unsigned c, size_t chunk) {
    const size_t k = size_t(1) << (c - 1);
    return k * (sizeof(Affine) + sizeof(Xyzz) + 4 * sizeof(uint32_t)) + chunk * sizeof(int32_t) +
           (pts_size(chunk, k) + tmp_size(chunk, k)) * sizeof(Affine) +
           pairs_size(chunk, k) * sizeof(Pair) + denominator_bytes(chunk / 2 + k);
  }

  AffineWindow(const Points<C>& points, unsigned c, size_t max_chunk)
      : points_(points),
        k_(size_t(1) << (c - 1)),
        acc_(k_),
        start_(k_),
        len_(k_),
        digits_(max_chunk),
        pts_(pts_size(max_chunk, k_)),
        tmp_(tmp_size(max_chunk, k_)),
        pairs_(pairs_size(max_chunk, k_)) {
    active_.reserve(k_);
    next_.reserve(k_);
    reserve_denominators(max_chunk / 2 + k_);
  }

  // Makes a used object ready for another task (same state as a fresh one): the buffers keep
  // their pages, so a call's tasks touch fresh memory once per object rather than once per task.
  void reset(const Points<C>& points, unsigned c, size_t max_chunk) {
    points_ = points;
    k_ = size_t(1) << (c - 1);
    acc_.assign(k_, Affine::identity());
    start_.resize(k_);
    len_.resize(k_);
    if (digits_.size() < max_chunk) digits_.resize(max_chunk);
    if (pts_.size() < pts_size(max_chunk, k_)) pts_.resize(pts_size(max_chunk, k_));
    if (tmp_.size() < tmp_size(max_chunk, k_)) tmp_.resize(tmp_size(max_chunk, k_));
    if (pairs_.size() < pairs_size(max_chunk, k_)) pairs_.resize(pairs_size(max_chunk, k_));
    active_.reserve(k_);
    next_.reserve(k_);
    reserve_denominators(max_chunk / 2 + k_);
    extra_.clear();
  }

  template <class Digit>
  void add_chunk(const Digit& digit, std::span<const uint32_t> index,
                 std::span<const Limbs<C>> scalar) {
    const size_t m = index.size();
    // 1. Digits, segment sizes, segment starts (the current bucket value first).
    std::fill(len_.begin(), len_.end(), 0);
    for (size_t j = 0; j < m; ++j) {
      const int64_t d = digit(scalar[j]);
      digits_[j] = int32_t(d);
      if (d) ++len_[size_t(d > 0 ? d : -d) - 1];
    }
    uint32_t at = 0;
    for (size_t b = 0; b < k_; ++b) {
      start_[b] = at;
      if (!acc_[b].is_identity()) pts_[at + len_[b]++] = acc_[b];  // placed last; order is irrelevant
      at += len_[b];
    }
    std::vector<uint32_t>& fill = active_;  // reused as the per-bucket write cursor
    fill.assign(start_.begin(), start_.end());
    // The scatter's destinations are random over pts_ (chunk + k points, megabytes): the write
    // of the point kPrefetch terms ahead is announced (for writing) so that its line is on its way
    // when the copy comes. The cursor may have moved on by one or two points by then; close enough.
    constexpr size_t kPrefetch = 16;
    for (size_t j = 0; j < m; ++j) {
      if (j + kPrefetch < m) {
        const int32_t dn = digits_[j + kPrefetch];
        if (dn) __builtin_prefetch(&pts_[fill[size_t(dn > 0 ? dn : -dn) - 1]], 1);
      }
      const int32_t d = digits_[j];
      if (d) pts_[fill[size_t(d > 0 ? d : -d) - 1]++] = points_(index[j], d < 0);
    }
    // 2. Pairwise rounds. Round r reads the segments from one buffer and writes the sums, still
    //    sorted by bucket and contiguous, to the other (so every pass reads and writes
    //    sequentially); only buckets with two or more points take part, and a bucket leaves as
    //    soon as it is down to one point. Buckets with fewer than two points are final already
    //    (an empty one is the identity). The loops over buckets below have no branch on a
    //    bucket's size: those are as random as the digits, and mispredicted branches cost more
    //    than the few redundant stores that replace them.
    active_.resize(k_);
    size_t na = 0;
    for (size_t b = 0; b < k_; ++b) {
      const uint32_t l = len_[b];
      active_[na] = uint32_t(b);
      na += l >= 2;
      acc_[b] = select_if(l == 0, Affine::identity(), pts_[start_[b]]);  // pts_ has a spare slot
    }
    active_.resize(na);
    Affine* src = pts_.data();
    Affine* dst = tmp_.data();
    // No identity among the points (so equal x is the only exceptional case): true at the start
    // of a chunk, since neither the tail's bases nor a non-empty bucket are the identity, until a
    // round meets equal x and writes an identity for the XYZZ accumulator's pair.
    bool clean = true;
    while (!active_.empty()) {
      bool done = false;
      if constexpr (kLanes) {
        if (clean) done = this->fast_round(src, dst);
      }
      if (!done) clean &= checked_round(src, dst);
      std::swap(src, dst);
    }
  }

  // sum_b (b+1)·(A_b + X_b).
  Xyzz finish() const {
    const bool ex = !extra_.empty();
#if SPLITPROVE_IFMA
    // In lanes when every bucket is affine and at least half are in use (the scalar walk below
    // skips empty ones, the lanes walk them all).
    if constexpr (kLanes) {
      if (!ex && k_ >= 8 && k_ % 8 == 0 &&
          2 * size_t(std::count_if(acc_.begin(), acc_.begin() + ptrdiff_t(k_),
                                   [](const Affine& a) { return !a.is_identity(); })) >= k_)
        if (auto r = reduce_affine_lanes<C>(acc_)) return *r;
    }
#endif
    return reduce_buckets<C>(
        k_, [&](size_t b) { return acc_[b].is_identity() && (!ex || extra_[b].is_identity()); },
        [&](Xyzz& r, size_t b) {
          r += acc_[b];
          if (ex) r += extra_[b];
        });
  }

 private:
  static constexpr bool kLanes = ff::HasLanes<F>;
  static constexpr bool kFp2Coordinates = requires(const F& f) { f.c0; };

  // A round's denominators for `pairs` additions: their prefix products (scalar), or the
  // denominators and the prefix products of each group of eight (lanes).
  static size_t denominator_bytes(size_t pairs) {
    if constexpr (kLanes)
      return (pairs + 7) / 8 * 2 * sizeof(typename decltype(lanes_.dx)::value_type);
    else
      return pairs * sizeof(F);
  }
  void reserve_denominators(size_t pairs) {
    if constexpr (kLanes) {
      lanes_.dx.reserve((pairs + 7) / 8);
      lanes_.prefix.reserve((pairs + 7) / 8);
    } else {
      prefix_.reserve(pairs);
    }
  }

  // One round with every case checked: a pair with a point at infinity passes the other point
  // on; a pair with equal x (a doubling, or P + (-P)) goes to the bucket's XYZZ accumulator and
  // leaves the identity in its place. Returns false when it wrote an identity.
  bool checked_round(const Affine* src, Affine* dst) {
    bool clean = true;
    size_t np = 0;
    if constexpr (!kLanes) prefix_.clear();
    F run = F::one();
    uint32_t at = 0;
    for (const uint32_t b : active_) {
      const uint32_t l = len_[b], s = start_[b];
      for (uint32_t i = 0; i + 1 < l; i += 2) {
        const Affine& p = src[s + i];
        const Affine& q = src[s + i + 1];
        Affine& out = dst[at + i / 2];
        if (q.is_identity()) {
          out = p;
        } else if (p.is_identity()) {
          out = q;
        } else if (q.x == p.x) {  // both reduced
          extra_add(b, p);
          extra_add(b, q);
          out = Affine::identity();
          clean = false;
        } else {
          if constexpr (!kLanes) {
            prefix_.push_back(run);  // product of the denominators before this pair
            run = run * (q.x - p.x);
          }
          pairs_[np++] = {s + i, at + i / 2};
        }
      }
      if (l & 1) dst[at + l / 2] = src[s + l - 1];
      start_[b] = at;
      len_[b] = (l + 1) / 2;
      at += len_[b];
    }
    if constexpr (kLanes) {
      if (np) sums_in_lanes(src, dst, np);  // every denominator is non-zero: cannot fail
    } else if (np) {
      // 1 / product of all denominators. Variable time: bucket sums are not secret-independent
      // anyway (Pippenger branches on scalar digits), and Fermat costs ~40 us per round.
      F inv = run.inverse_vartime();
      for (size_t j = np; j-- > 0;) {
        const Affine& p = src[pairs_[j].from];
        const Affine& q = src[pairs_[j].from + 1];
        const F dx = q.x - p.x;
        const F dinv = inv * prefix_[j];  // 1/dx
        inv = inv * dx;                   // 1 / product of the denominators before j
        const F lambda = (q.y - p.y) * dinv;
        const F x3 = lambda.square() - p.x - q.x;
        Affine& out = dst[pairs_[j].to];
        out.y = lambda * (p.x - x3) - p.y;
        out.x = x3;
      }
    }
    size_t keep = 0;
    for (const uint32_t b : active_) {
      if (len_[b] >= 2)
        active_[keep++] = b;
      else
        acc_[b] = dst[start_[b]];
    }
    active_.resize(keep);
    return clean;
  }

#if SPLITPROVE_IFMA
  // One round where no point is the identity (see add_chunk): the pairs of every bucket without
  // per-pair checks and without a branch on a bucket's size. Every bucket writes its first two
  // pairs and its last point unconditionally; where it has fewer, the next bucket's entries (or
  // the buffers' spare slots) overwrite them. A pair with equal x shows as a zero product of
  // denominators in sums_in_lanes, before anything is written: the round then returns false,
  // start_ and len_ untouched, and checked_round does it again.
  bool fast_round(const Affine* src, Affine* dst) {
    const size_t na = active_.size();
    next_.resize(na);
    Pair* const pr = pairs_.data();
    size_t np = 0;
    uint32_t at = 0;
    for (size_t i = 0; i < na; ++i) {
      const uint32_t b = active_[i], l = len_[b], s = start_[b], h = l / 2;
      pr[np] = {s, at};
      pr[np + 1] = {s + 2, at + 1};
      for (uint32_t t = 2; t < h; ++t) pr[np + t] = {s + 2 * t, at + t};
      np += h;
      dst[at + h] = src[s + l - 1];  // the odd point out, or a slot a later write takes
      next_[i] = at;
      at += h + (l & 1);
    }
    if (!sums_in_lanes(src, dst, np)) return false;
    size_t keep = 0;
    for (size_t i = 0; i < na; ++i) {
      const uint32_t b = active_[i], l = (len_[b] + 1) / 2;
      start_[b] = next_[i];
      len_[b] = l;
      acc_[b] = dst[next_[i]];  // final where l = 1; rewritten later otherwise
      active_[keep] = b;
      keep += l >= 2;
    }
    active_.resize(keep);
    return true;
  }
#endif

#if SPLITPROVE_IFMA
  // The round's sums eight at a time (pairs 8g..8g+7 in group g, lane l taking pair 8g+l). Each
  // lane keeps its own chain of denominator products, the eight chains share one inversion, and
  // then every group's sums come from its lanes. Bounds, in multiples of p per Fp component
  // (ff/lanes.hpp: with rho = p/R <= 0.19, an Fp product of values below a·p and b·p is below
  // (a·b·rho + 1)·p; an Fp2 product with a below 2p and b below 3p is tightened below 2p):
  //   coordinates as loaded < 1; dx = x_Q - x_P + p < 2; prefix products, lane inverses and
  //   1/dx < 2; dy = y_Q - y_P + p < 2; lambda < 2; x = lambda^2 - x_P - x_Q + 2p < 4, tightened
  //   below 2; x_P - x + 2p in (0, 3); y = lambda·(x_P - x + 2p) - y_P + p < 3.14: below the 4p
  //   that Ops::store reduces from.
  bool sums_in_lanes(const Affine* src, Affine* dst, size_t n) {
    using Ops = ff::LaneOps<F>;
    using V = typename Ops::V;
    const size_t groups = (n + 7) / 8;
    lanes_.dx.resize(groups);
    lanes_.prefix.resize(groups);
    const char* const s0 = reinterpret_cast<const char*>(src);
    const size_t xo = size_t(reinterpret_cast<const char*>(&src->x) - s0);
    const size_t yo = size_t(reinterpret_cast<const char*>(&src->y) - s0);
    // Lane l's P (its Q follows it); missing lanes of the last group repeat the group's first
    // pair, so every lane's denominator is non-zero.
    const char* pr[8];
    const char* qr[8];
    const auto rows = [&](size_t g) {
      for (size_t l = 0; l < 8; ++l) {
        const size_t j = 8 * g + l < n ? 8 * g + l : 8 * g;
        pr[l] = s0 + size_t(pairs_[j].from) * sizeof(Affine);
        qr[l] = pr[l] + sizeof(Affine);
      }
    };
    V run;
    for (size_t g = 0; g < groups; ++g) {
      rows(g);
      lanes_.dx[g] = Ops::template sub<1>(Ops::load(qr, xo), Ops::load(pr, xo));
      if (g == 0) {
        run = lanes_.dx[0];
      } else {
        lanes_.prefix[g] = run;
        run = Ops::mul(run, lanes_.dx[g]);
      }
    }
    // One inversion for the eight chains (Montgomery's trick over the lanes).
    F lane[8], before[8];
    Ops::to_scalars(run, lane);
    // A zero denominator (equal x) makes its lane's product zero: nothing is written then.
    for (size_t l = 0; l < 8; ++l)
      if (lane[l].is_zero()) return false;
    F acc = F::one();
    for (size_t l = 0; l < 8; ++l) before[l] = acc, acc = acc * lane[l];
    F inv = acc.inverse_vartime();
    for (size_t l = 8; l-- > 0;) {
      const F v = lane[l];
      lane[l] = inv * before[l];
      inv = inv * v;
    }
    V linv = Ops::from_scalars(lane);
    Affine spare;  // where the missing lanes of the last group write
    char* out[8];
    for (size_t g = groups; g-- > 0;) {
      V dinv = linv;
      if (g) {
        dinv = Ops::mul(linv, lanes_.prefix[g]);
        linv = Ops::mul(linv, lanes_.dx[g]);
      }
      rows(g);
      const V xp = Ops::load(pr, xo), yp = Ops::load(pr, yo);
      const V xq = Ops::load(qr, xo), yq = Ops::load(qr, yo);
      const V lambda = Ops::mul(Ops::template sub<1>(yq, yp), dinv);
      const V x3 = Ops::tighten(Ops::template sub2<2>(Ops::square(lambda), xp, xq));
      const V y3 = Ops::template sub<1>(Ops::mul(lambda, Ops::template sub<2>(xp, x3)), yp);
      const size_t valid = std::min<size_t>(8, n - 8 * g);
      for (size_t l = 0; l < 8; ++l) {
        Affine* o = l < valid ? &dst[pairs_[8 * g + l].to] : &spare;
        out[l] = reinterpret_cast<char*>(o);
      }
      Ops::store(x3, out, xo);
      Ops::store(y3, out, yo);
    }
    return true;
  }
#endif
  LaneScratch<F, kLanes> lanes_;

  void extra_add(size_t b, const Affine& p) {
    if (extra_.empty()) extra_.assign(k_, Xyzz::identity());
    extra_[b] += p;
  }

  Points<C> points_;
  size_t k_;
  std::vector<Affine> acc_;            // bucket values (the identity = empty), between chunks
  std::vector<uint32_t> start_, len_;  // segment of each bucket in pts_ (len in elements)
  util::UninitVector<int32_t> digits_;  // digits of the chunk (written before read)
  // The chunk's points sorted by bucket; round outputs. Every element is written before it is
  // read, so they are not value-initialised (no pass of zeroes over fresh pages).
  util::UninitVector<Affine> pts_, tmp_;
  std::vector<uint32_t> active_;       // buckets with two or more points left
  std::vector<uint32_t> next_;         // fast_round: each active bucket's next segment start
  struct Pair {
    uint32_t from, to;  // the pair's first point in the source buffer; its sum's place
  };
  // Buffer sizes for chunks of up to `chunk` points and k buckets. A round's input holds at most
  // chunk + k points (the chunk's and the bucket values) and its output at most half of that plus
  // one per bucket, i.e. chunk / 2 + k; and at most chunk / 2 + k pairs. fast_round's unconditional
  // stores need one spare point and two spare pairs.
  static size_t pts_size(size_t chunk, size_t k) { return chunk + k + 1; }
  static size_t tmp_size(size_t chunk, size_t k) { return chunk / 2 + k + 1; }
  static size_t pairs_size(size_t chunk, size_t k) { return chunk / 2 + k + 2; }
  util::UninitVector<Pair> pairs_;  // the additions of this round
  std::vector<F> prefix_;    // prefix products of their denominators
  std::vector<Xyzz> extra_;  // exceptional additions (empty until the first)
};

// The batch-affine objects of one call, handed from task to task. A task takes one (or makes
// one when none is free) and gives it back when done, so at most as many exist as tasks ran at
// once (the pool's threads), and all die with the call. Without it each task allocated its
// megabytes afresh, and the allocator returned them to the kernel in between: ~60% of a BN254
// 2^16 proof's page faults (bench/RESULTS.md, branch cpu3).
template <class C>
class AffinePool {
 public:
  std::unique_ptr<AffineWindow<C>> take(const Points<C>& points, unsigned c, size_t chunk) {
    std::unique_ptr<AffineWindow<C>> w;
    {
      std::lock_guard<std::mutex> lock(m_);
      if (!free_.empty()) {
        w = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (w)
      w->reset(points, c, chunk);
    else
      w = std::make_unique<AffineWindow<C>>(points, c, chunk);
    return w;
  }
  void give(std::unique_ptr<AffineWindow<C>> w) {
    std::lock_guard<std::mutex> lock(m_);
    free_.push_back(std::move(w));
  }

 private:
  std::mutex m_;
  std::vector<std::unique_ptr<AffineWindow<C>>> free_;
};

template <class C>
typename C::Xyzz window_affine(AffinePool<C>& pool, const Points<C>& points, const Tail<C>& t,
                               unsigned c, unsigned w, size_t begin, size_t end, size_t chunk) {
  const WindowDigits<C::Fr::N> digit(c, w);
  if (begin == end) return C::Xyzz::identity();
  chunk = std::min(chunk ? chunk : AffineWindow<C>::chunk_size(c), end - begin);
  std::unique_ptr<AffineWindow<C>> buckets = pool.take(points, c, chunk);
  for (size_t j = begin; j < end; j += chunk) {
    const size_t e = std::min(end, j + chunk);
    buckets->add_chunk(digit, std::span(t.index).subspan(j, e - j),
                       std::span(t.scalar).subspan(j, e - j));
  }
  const typename C::Xyzz sum = buckets->finish();
  pool.give(std::move(buckets));
  return sum;
}

// ---- planning and running -----------------------------------------------------------------------
// The model above counts multiplications only; a batch-affine task's buckets, chunk and round
// buffers (AffineWindow::scratch_bytes) are read and written at random by bucket, and once they no
// longer fit the caches a wider window costs more than it saves. Measured (bench_msm
// *_random_window/1048576, medians of 3, and tool_msm_key, 2^20 terms, both threads, Zen 4 with
// 1 MiB L2 per core): BN254 G1 runs best at c = 13..14 (5.9 MiB at 14) and 1.3-1.6x slower at
// 15..16 (11.8, 23.6 MiB); BN254 G2 best at 13 (5.6 MiB), 1.2-1.6x slower at 14..16 (11.2 MiB
// and up); BLS12-381 G1 alike at 12..14 (8.7 MiB at 14), 1.3x slower at 15..16; BLS12-381 G2
// best at 13 (8.3 MiB). So the window is never wider than the largest whose scratch fits the cap
// (BN254 G1 14, G2 13; BLS12-381 G1 14, G2 13); below ~2^18 terms the model's own choice is
// narrower anyway.
inline constexpr size_t kAffineScratchCap = size_t(9) << 20;

// The batch-affine window for a tail of `tail` terms: the model's optimum, capped as above.
template <class C>
unsigned affine_window_bits(size_t tail, unsigned bits) {
  unsigned c = best_window_bits(tail, affine_add_cost<C>(), bits);
  while (c > 1 && AffineWindow<C>::scratch_bytes(c, AffineWindow<C>::chunk_size(c)) > kAffineScratchCap)
    --c;
  return c;
}

struct Plan {
  unsigned c = 1, windows = 0;
  size_t slices = 1;  // tail slices per window
  bool affine = false;
  double cost = 0;  // the model's makespan, in multiplications in F
};

// One inversion in F, in multiplications in F: Fermat in Fp costs ~1.2·381 squarings and
// multiplications; an Fp2 inversion is one Fp inversion and a few Fp products, i.e. ~1/3 as many
// Fp2 multiplications.
template <class F>
constexpr double inversion_cost() {
  if constexpr (requires(const F& f) { f.c0; }) return 200;
  return 600;
}

// Batch-affine needs enough additions per task to spread the inversions of its rounds (~4-6 per
// chunk). With the sums in scalar code the measured crossovers (single thread) were G1 between
// 1024 and 2048 terms, G2 below 256: the threshold is 3.5 inversions' worth of terms (G1: 2100,
// G2: 700). With the sums in lanes batch-affine wins from far fewer terms (bench_msm
// *_small_xyzz / *_small_affine, one thread, medians of 3, n terms before the GLV split, ms,
// XYZZ / batch-affine):
//   n            64           256          1024          4096
//   BN254 G1     1.56 / 2.11  4.94 / 2.85  15.3 / 4.58   44.8 / 12.3
//   BN254 G2     3.99 / 3.46  11.8 / 5.05  37.2 / 9.43   120 / 28.5
//   BLS12-381 G1 2.77 / 4.24  8.36 / 5.47  25.0 / 8.93   80.5 / 22.4
//   BLS12-381 G2 7.03 / 6.25  20.7 / 9.62  68.2 / 19.0   225 / 57.2
// so there the threshold is 256 tail terms over G1 (n = 128 with the split) and 128 over G2.
template <class C>
constexpr size_t affine_min_terms() {
  if constexpr (ff::HasLanes<typename C::F>)
    return requires(const typename C::F& f) { f.c0; } ? 128 : 256;
  return size_t(3.5 * inversion_cost<typename C::F>());
}

template <class C>
Plan make_plan(size_t tail, size_t vectors, const Options& opt, unsigned bits = kScalarBits) {
  static_assert(C::Fr::BITS <= kScalarBits, "scalars wider than the windows cover");
  Plan p;
  if (opt.window_bits > kMaxWindowBits)
    throw Error("msm: window size " + std::to_string(opt.window_bits) +
                " bits is out of range (1.." + std::to_string(kMaxWindowBits) +
                ", or 0 for automatic)");
  bool affine = opt.buckets == Buckets::kBatchAffine;
  if (opt.buckets == Buckets::kAuto) {
    affine = tail >= affine_min_terms<C>();
  }
  p.affine = affine;
  // Window size and slices per window minimise the makespan  rounds · (slice cost + reduction)
  // with rounds = ceil(tasks / threads). Slices cut e.g. 20 windows on 16 threads into 80 tasks
  // (5 rounds of a quarter) rather than 2 rounds of whole windows; one bit narrower than the
  // single-thread optimum c* is tried too, since its window count may divide better among the
  // threads (2^18 terms on 2 threads: c* = 14 gives 19 windows, 10 rounds; 13 gives 20, also 10
  // rounds, each cheaper). Never wider than c*, so scratch_bytes's bound holds.
  const size_t threads = util::num_threads();
  const double add = affine ? affine_add_cost<C>() : kCostXyzzAdd;
  const unsigned c_star = opt.window_bits ? opt.window_bits
                         : affine         ? affine_window_bits<C>(tail, bits)
                                          : best_window_bits(tail, add, bits);
  double best = -1;
  for (unsigned c = c_star; c + 1 >= c_star && c >= 1; --c) {
    const size_t windows = num_windows(bits, c);
    const double red = double(size_t(1) << (c - 1)) * kCostBucket;
    for (size_t s = opt.slices ? opt.slices : 1; s <= (opt.slices ? opt.slices : 64); ++s) {
      if (!opt.slices && s > 1 && tail / s < 256) break;
      const size_t tasks = vectors * windows * s;
      const double rounds = double((tasks + threads - 1) / threads);
      const double cost = rounds * (double(tail) / double(s) * add + red);
      if (best < 0 || cost < best)
        best = cost, p.c = c, p.windows = unsigned(windows), p.slices = s, p.cost = cost;
    }
    if (opt.window_bits) break;
  }
  return p;
}

// The GLV split pays when the model's makespan over 2T terms of kBits-bit scalars, plus the split
// itself (two divisions and one endomorphism per term, ~5 multiplications in F, and the larger
// tail), is below the makespan over T full-width terms. The model gives 2-8% from 2^12 to 2^18
// terms and a loss from ~2^20 on, where the windows would want to be wider than 16 bits.
inline constexpr double kCostGlvTerm = 5.0;

template <class C>
bool glv_pays(size_t tail, size_t vectors, const Options& opt) {
  if (tail == 0 || tail > kPosMask) return false;
  const Plan plain = make_plan<C>(tail, vectors, opt);
  const Plan split = make_plan<C>(2 * tail, vectors, opt, glv_bits<C>());
  return split.cost + double(tail) * kCostGlvTerm / double(util::num_threads()) < plain.cost;
}

// The windows of every tail over `bases`, their batch-affine objects taken from and given back to
// `pool`. The tails are left as they are (the caller frees or keeps them).
template <class C>
std::vector<typename C::Jacobian> run(util::PodSpan<typename C::Affine> bases,
                                      std::vector<Tail<C>>& tails, const Options& opt,
                                      AffinePool<C>& pool) {
  using Xyzz = typename C::Xyzz;
  using Jacobian = typename C::Jacobian;
  const size_t nv = tails.size();
  if (opt.glv && has_glv<C>())
    for (auto& t : tails)
      if (glv_pays<C>(t.index.size(), nv, opt)) glv_expand<C>(bases, t);
  std::vector<Plan> plans(nv);
  std::vector<size_t> first(nv + 1, 0);  // first task of each vector
  for (size_t v = 0; v < nv; ++v) {
    plans[v] = make_plan<C>(tails[v].index.size(), nv, opt, tails[v].bits);
    first[v + 1] = first[v] + (tails[v].index.empty() ? 0 : plans[v].windows * plans[v].slices);
  }
  std::vector<Xyzz> partial(first[nv], Xyzz::identity());
  util::parallel_for(
      first[nv],
      [&](size_t tb, size_t te) {
        for (size_t task = tb; task < te; ++task) {
          const size_t v =
              size_t(std::upper_bound(first.begin(), first.end(), task) - first.begin()) - 1;
          const Plan& p = plans[v];
          const Tail<C>& t = tails[v];
          const size_t local = task - first[v];
          const unsigned w = unsigned(local / p.slices);
          const size_t s = local % p.slices;
          const size_t b = slice_begin(t.index.size(), p.slices, s),
                       e = slice_begin(t.index.size(), p.slices, s + 1);
          const Points<C> points{bases, t.endo};
          partial[task] = p.affine ? window_affine<C>(pool, points, t, p.c, w, b, e, opt.chunk)
                                   : window_xyzz<C>(points, t, p.c, w, b, e);
        }
      },
      1, first[nv]);
  std::vector<Jacobian> out(nv);
  for (size_t v = 0; v < nv; ++v) {
    const Plan& p = plans[v];
    Jacobian acc = Jacobian::identity();
    if (!tails[v].index.empty()) {
      for (unsigned w = p.windows; w-- > 0;) {
        for (unsigned i = 0; i < p.c; ++i) acc = acc.dbl();
        Xyzz sw = Xyzz::identity();
        for (size_t s = 0; s < p.slices; ++s) sw += partial[first[v] + w * p.slices + s];
        acc += sw.to_jacobian();
      }
    }
    out[v] = acc + tails[v].ones.to_jacobian();
  }
  return out;
}

template <class C>
bool is_one_limbs(const Limbs<C>& k) {
  if (k[0] != 1) return false;
  for (size_t i = 1; i < k.size(); ++i)
    if (k[i]) return false;
  return true;
}

template <class C>
void classify_fr(util::PodSpan<typename C::Affine> bases, std::span<const typename C::Fr> scalars,
                 bool glv, Tail<C>& out) {
  classify<C>(
      bases, scalars.size(),
      [&](size_t i) { return scalars[i].is_zero()  ? 0
                             : scalars[i].is_one() ? 1
                                                   : 2; },
      [&](size_t i) { return scalars[i].to_canonical(); }, glv, out);
}

template <class C>
void classify_canonical(util::PodSpan<typename C::Affine> bases, std::span<const Limbs<C>> scalars,
                        const std::string& where, bool glv, Tail<C>& out) {
  classify<C>(
      bases, scalars.size(),
      [&](size_t i) {
        const Limbs<C>& s = scalars[i];
        if (ff::cmp_limbs(s, C::Fr::MOD) >= 0)
          throw Error(where + "scalar " + std::to_string(i) + " of " +
                      std::to_string(scalars.size()) + " is not below the group order r (0x" +
                      ff::to_hex(s) + ")");
        return ff::is_zero_limbs(s) ? 0 : is_one_limbs<C>(s) ? 1 : 2;
      },
      [&](size_t i) { return scalars[i]; }, glv, out);
}

inline void check_sizes(size_t bases, size_t scalars, const std::string& where) {
  if (bases != scalars)
    throw Error(where + std::to_string(scalars) + " scalars for " + std::to_string(bases) +
                " bases (the counts must be equal)");
}

}  // namespace detail

// The tail arrays and batch-affine objects a call leaves for the next (see msm.hpp).
template <class C>
struct Workspace<C>::State {
  detail::AffinePool<C> pool;
  detail::Tail<C> tail;  // empty between calls; its arrays keep their capacity
};

template <class C>
Workspace<C>::Workspace() : s_(std::make_unique<State>()) {}
template <class C>
Workspace<C>::~Workspace() = default;

namespace detail {

// One scalar vector: its tail is classified into the workspace's arrays (or fresh ones), and they
// go back to the workspace (or die) when the call ends, thrown or not.
template <class C, class Classify>
typename C::Jacobian run_one(util::PodSpan<typename C::Affine> bases, const Options& opt,
                             Workspace<C>* ws, const Classify& classify_into) {
  std::vector<Tail<C>> tails(1);
  struct GiveBack {
    Workspace<C>* ws;
    Tail<C>& t;
    ~GiveBack() {
      if (ws) ws->state().tail = std::move(t);
    }
  } give_back{ws, tails[0]};
  if (ws) tails[0] = std::move(ws->state().tail);
  classify_into(tails[0]);
  if (ws) return run<C>(bases, tails, opt, ws->state().pool)[0];
  AffinePool<C> pool;
  return run<C>(bases, tails, opt, pool)[0];
}

}  // namespace detail

template <class C>
typename C::Jacobian msm(util::PodSpan<typename C::Affine> bases,
                         std::span<const typename C::Fr> scalars, const Options& opt) {
  detail::check_sizes(bases.size(), scalars.size(), "msm: ");
  return detail::run_one<C>(bases, opt, nullptr, [&](detail::Tail<C>& t) {
    detail::classify_fr<C>(bases, scalars, opt.glv, t);
  });
}

template <class C>
typename C::Jacobian msm(util::PodSpan<typename C::Affine> bases,
                         std::span<const typename C::Fr> scalars, Workspace<C>& ws,
                         const Options& opt) {
  detail::check_sizes(bases.size(), scalars.size(), "msm: ");
  return detail::run_one<C>(bases, opt, &ws, [&](detail::Tail<C>& t) {
    detail::classify_fr<C>(bases, scalars, opt.glv, t);
  });
}

template <class C>
typename C::Jacobian msm_canonical(util::PodSpan<typename C::Affine> bases,
                                   std::span<const Limbs<C>> scalars, const Options& opt) {
  detail::check_sizes(bases.size(), scalars.size(), "msm: ");
  return detail::run_one<C>(bases, opt, nullptr, [&](detail::Tail<C>& t) {
    detail::classify_canonical<C>(bases, scalars, "msm: ", opt.glv, t);
  });
}

template <class C>
std::vector<typename C::Jacobian> msm_batch(
    util::PodSpan<typename C::Affine> bases,
    std::span<const std::span<const typename C::Fr>> scalars, const Options& opt) {
  std::vector<detail::Tail<C>> tails(scalars.size());
  for (size_t v = 0; v < scalars.size(); ++v) {
    detail::check_sizes(bases.size(), scalars[v].size(),
                        "msm_batch: vector " + std::to_string(v) + ": ");
    detail::classify_fr<C>(bases, scalars[v], opt.glv, tails[v]);
  }
  detail::AffinePool<C> pool;
  return detail::run<C>(bases, tails, opt, pool);
}

template <class C>
std::vector<typename C::Jacobian> msm_batch_canonical(
    util::PodSpan<typename C::Affine> bases, std::span<const std::span<const Limbs<C>>> scalars,
    const Options& opt) {
  std::vector<detail::Tail<C>> tails(scalars.size());
  for (size_t v = 0; v < scalars.size(); ++v) {
    const std::string where = "msm_batch: vector " + std::to_string(v) + ": ";
    detail::check_sizes(bases.size(), scalars[v].size(), where);
    detail::classify_canonical<C>(bases, scalars[v], where, opt.glv, tails[v]);
  }
  detail::AffinePool<C> pool;
  return detail::run<C>(bases, tails, opt, pool);
}

template <class C>
size_t scratch_bytes(size_t n, size_t vectors, const Options& opt) {
  using detail::AffineWindow;
  if (n == 0 || vectors == 0) return 0;
  // Per task. The window a tail of t <= n terms gets only widens with t (the model's optimum moves
  // to wider windows as the per-term cost grows against the per-bucket cost), and a chunk holds at
  // most min(chunk_size(c), t) terms, so the plans for n terms bound every smaller tail. In kAuto
  // below the batch-affine threshold only XYZZ buckets are used.
  // With GLV (when it pays, see detail::glv_pays) the windows run over 2n terms of kBits-bit
  // scalars; the bound takes the larger scratch of the two plans.
  // Batch-affine objects are handed from task to task within the call (detail::AffinePool), at
  // most one per thread. With one vector every task has the same plan, so a thread holds either
  // XYZZ buckets or one batch-affine object. With several vectors (each its own plan) a pooled
  // object can wait idle while its thread runs an XYZZ task, and can have grown to the larger
  // buffers of two plans (with and without GLV): per thread, the sum of those.
  const bool glv = opt.glv && detail::has_glv<C>() && n <= detail::kPosMask;
  const size_t terms = glv ? 2 * n : n;
  struct Bytes {
    size_t xyzz = 0, affine = 0;
  };
  auto task_bytes = [&](size_t t, unsigned bits) {
    Bytes b;
    if (opt.buckets != Buckets::kBatchAffine) {
      const unsigned c =
          opt.window_bits ? opt.window_bits : detail::best_window_bits(t, detail::kCostXyzzAdd, bits);
      b.xyzz = (size_t(1) << (c - 1)) * sizeof(typename C::Xyzz);
    }
    if (opt.buckets == Buckets::kBatchAffine ||
        (opt.buckets == Buckets::kAuto && t >= detail::affine_min_terms<C>())) {
      const unsigned c =
          opt.window_bits ? opt.window_bits : detail::affine_window_bits<C>(t, bits);
      const size_t chunk = std::min(opt.chunk ? opt.chunk : AffineWindow<C>::chunk_size(c), t);
      b.affine = AffineWindow<C>::scratch_bytes(c, chunk);
    }
    return b;
  };
  const Bytes plain = task_bytes(n, detail::kScalarBits);
  const Bytes split = glv ? task_bytes(terms, detail::glv_bits<C>()) : Bytes{};
  const size_t per_task =
      vectors == 1 ? std::max({plain.xyzz, plain.affine, split.xyzz, split.affine})
                   : std::max(plain.xyzz, split.xyzz) + plain.affine + split.affine;
  // Tasks per vector: windows × slices. make_plan never cuts a window into more slices than
  // there are threads (with s > threads slices the rounds cost more than with s = threads), nor
  // into slices of < 256 terms, nor into more than 64; a tail of >= 256 terms gets c >= 5, i.e.
  // at most 52 windows, a smaller one at most 256 windows of one slice.
  // Each task holds a partial sum and a pool job (a std::function and its captures, < 256 bytes)
  // until the end; classification holds a count, a sum and a job per slice.
  const size_t threads = util::num_threads();
  const size_t slices =
      opt.slices ? opt.slices : std::clamp<size_t>(std::min(terms / 256, threads), 1, 64);
  const size_t tasks =
      vectors * (opt.window_bits
                     ? detail::num_windows(detail::kScalarBits, opt.window_bits) * slices
                     : std::max<size_t>(256, 52 * slices));
  const size_t small = tasks * (sizeof(typename C::Xyzz) + 256) +
                       (4 * threads + 1) * (sizeof(typename C::Xyzz) + 8 + 512) +
                       threads * (sizeof(AffineWindow<C>) + 64);  // the pool's objects and list
  // Tail: a word and a scalar per term; with GLV two (classify reserves them, so the split does
  // not move the first half), plus E(P).
  const size_t word = sizeof(uint32_t) + sizeof(Limbs<C>);
  const size_t tails = vectors * n * (glv ? 2 * word + sizeof(typename C::Affine) : word);
  return small + tails + threads * per_task;
}

template <class C>
typename C::Jacobian msm_naive(util::PodSpan<typename C::Affine> bases,
                               std::span<const typename C::Fr> scalars) {
  using Jacobian = typename C::Jacobian;
  detail::check_sizes(bases.size(), scalars.size(), "msm_naive: ");
  Jacobian sum = Jacobian::identity();
  for (size_t i = 0; i < bases.size(); ++i) {
    const auto k = scalars[i].to_canonical();
    Jacobian acc = Jacobian::identity();
    for (size_t b = ff::num_bits(k); b-- > 0;) {
      acc = acc.dbl();
      if (ff::bit(k, b)) acc += bases[i];
    }
    sum += acc;
  }
  return sum;
}

// The instantiation list of this layer, over a curve group C (ec/curve.hpp): msm_<curve>.cpp
// expands it for the curve's G1 and G2, one line each.
#define SPLITPROVE_MSM_INSTANTIATE(C)                                                              \
  template class Workspace<C>;                                                                     \
  template C::Jacobian msm<C>(util::PodSpan<C::Affine>, std::span<const C::Fr>, const Options&); \
  template C::Jacobian msm<C>(util::PodSpan<C::Affine>, std::span<const C::Fr>, Workspace<C>&,   \
                              const Options&);                                                     \
  template C::Jacobian msm_canonical<C>(util::PodSpan<C::Affine>, std::span<const Limbs<C>>,     \
                                        const Options&);                                           \
  template std::vector<C::Jacobian> msm_batch<C>(                                                  \
      util::PodSpan<C::Affine>, std::span<const std::span<const C::Fr>>, const Options&);        \
  template std::vector<C::Jacobian> msm_batch_canonical<C>(                                        \
      util::PodSpan<C::Affine>, std::span<const std::span<const Limbs<C>>>, const Options&);     \
  template size_t scratch_bytes<C>(size_t, size_t, const Options&);                                \
  template C::Jacobian msm_naive<C>(util::PodSpan<C::Affine>, std::span<const C::Fr>);

}  // namespace splitprove::msm
