#pragma once
// The radix-2 NTT engine behind poly::Domain, over any ff::Field<P> whose 2-adicity covers the
// transform size. Header templates: included by domain_impl.hpp only (one instantiation per field).
// (Over 600 lines on purpose: the DIF and DIT kernels, their scalar and lane forms, and the
// four-step split share their twiddle tables and leaf sizes, and are kept in one file.)
//
// Algorithms (all in place, no per-call allocation beyond O(sqrt n) scale tables):
//
//  * DIF (Gentleman-Sande): natural order in, bit-reversed out; layer (x, y) <- (x + y, (x - y)·w).
//    DIT (Cooley-Tukey):    bit-reversed in, natural out;       layer (x, y) <- (x + y·w, x - y·w).
//    Both run depth-first: one layer sweeps a block and the two halves recurse, until a block fits
//    in kLeafBytes; then the remaining layers run one after another inside the cache.
//
//  * Sizes above 2^kDirectLog use the four-step (Bailey) split n = n1·n2, n1 = 2^k1 rows of
//    n2 = 2^k2 contiguous elements, k1 = floor(k/2). With j = c + n2·r and k = k1' + n1·k2':
//        X[k1' + n1·k2'] = Σ_c ω_n2^(c·k2') · ω_n^(c·k1') · Σ_r a[c + n2·r]·ω_n1^(r·k1').
//    DIF four-step: (1) a size-n1 DIF down every column (kTile adjacent columns together, so each
//    row touch is a run of kTile·sizeof(F) bytes and one twiddle serves kTile butterflies);
//    row r then holds the column results for k1' = bitrev_k1(r); (2) per row: multiply column c by
//    ω_n^(c·bitrev_k1(r)), then a size-n2 DIF along the row. Position r·n2 + bitrev_k2(k2') then
//    holds X[k1' + n1·k2'], and r·n2 + bitrev_k2(k2') = bitrev_k(k1' + n1·k2'): exactly the
//    bit-reversed order, so no transpose and no extra pass. DIT four-step is the same flow
//    reversed (rows first, then columns), bit-reversed in, natural out.
//    Each sub-transform touches at most n2 elements, and every pass is parallel over rows or
//    column tiles with util::parallel_for.
//
//  * Scales: a transform can multiply the element of index j by c·g^j before (pre) or after (post)
//    it; this is how the inverse's 1/n and the coset shifts are applied. A constant c commutes with
//    the transform and is folded into the four-step twiddle (free); g^j is folded into the row
//    pass when that pass is adjacent to the scale (pre of DIT, post of DIF: 1 multiplication per
//    element), else applied by a separate pass (2 multiplications per element).
#include <algorithm>
#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ff/lanes.hpp"
#include "poly/ntt.hpp"
#include "util/parallel.hpp"

namespace splitprove::poly::detail {

// Sizes up to 2^kDirectLog (32 KiB of BLS12-381 Fr, ~0.25 ms on one core) run as one
// single-threaded transform in L1/L2; the four-step passes start above it.
inline constexpr unsigned kDirectLog = 10;
// Columns transformed together in the four-step column pass: 8 elements of 32 bytes = 256 bytes,
// four cache lines per row touch.
inline constexpr size_t kTile = 8;
// A sub-block of at most this many bytes runs its remaining layers in place (half of a 32 KiB L1d).
inline constexpr size_t kLeafBytes = size_t(16) << 10;
// Parallel passes hand a thread at least this many elements.
inline constexpr size_t kMinChunkElems = 4096;

// ---- twiddles --------------------------------------------------------------------------------

// Twiddles of every layer of transforms up to 2^log_max, laid out so that each layer reads one
// contiguous run: fwd[len + j] = ω_(2len)^j and inv[len + j] = ω_(2len)^(-j) for len = 1, 2, 4,
// ..., 2^(log_max - 1) and j < len (index 0 unused). ω_(2len) = F::root_of_unity(log2 2len), the
// snarkjs roots, for which ω_(2len) = ω_m^(m/2len) for every m >= 2len: the table of a big size
// serves every smaller one, so one table per field is kept and grown on demand.
template <class F>
struct Twiddles {
  unsigned log_max = 0;
  std::vector<F> fwd, inv;
};

template <class F>
std::shared_ptr<const Twiddles<F>> build_twiddles(unsigned log_max) {
  auto t = std::make_shared<Twiddles<F>>();
  t->log_max = log_max;
  const size_t m = size_t(1) << log_max;
  t->fwd.resize(m);
  t->inv.resize(m);
  for (unsigned s = 0; s < log_max; ++s) {
    const size_t len = size_t(1) << s;
    const F w = F::root_of_unity(s + 1), wi = w.inverse();
    F x = F::one(), y = F::one();
    for (size_t j = 0; j < len; ++j) {
      t->fwd[len + j] = x;
      t->inv[len + j] = y;
      x *= w;
      y *= wi;
    }
  }
  return t;
}

// The shared table covering sub-transforms of size 2^log_m. Its size is 2·2^log_max elements
// (log_max <= max(kDirectLog, ceil(log n / 2)): 4 MiB of BLS12-381 Fr for n = 2^32); it lives
// until the process ends, and a grown table replaces the old one for new callers only.
template <class F>
std::shared_ptr<const Twiddles<F>> twiddles(unsigned log_m) {
  static std::mutex mu;
  static std::shared_ptr<const Twiddles<F>> cached;
  std::lock_guard lk(mu);
  if (!cached || cached->log_max < log_m) cached = build_twiddles<F>(log_m);
  return cached;
}

// ---- small helpers ---------------------------------------------------------------------------

// pows[b] = x^(2^b) for b < bits.
template <class F>
std::vector<F> pow2_table(const F& x, unsigned bits) {
  std::vector<F> p(bits);
  F y = x;
  for (unsigned b = 0; b < bits; ++b) {
    p[b] = y;
    y = y.square();
  }
  return p;
}

// x^e from pows = pow2_table(x, ...): one multiplication per set bit of e.
template <class F>
F pow_from_table(const std::vector<F>& pows, uint64_t e) {
  F r = F::one();
  for (unsigned b = 0; e; ++b, e >>= 1)
    if (e & 1) r *= pows[b];
  return r;
}

// In-place bit-reversal permutation of 2^k elements. Small arrays: each pair (i, bitrev(i)) is
// swapped by the chunk owning the smaller index. Large arrays are cut into tiles so that every
// memory touch is a run of kRun adjacent elements instead of one element per cache line: with
// i = h·2^(k-b) + m·2^b + l (h, l < 2^b = kRun), bitrev_k(i) = bitrev_b(l)·2^(k-b) +
// bitrev_(k-2b)(m)·2^b + bitrev_b(h), so tile m (kRun runs of kRun elements) maps onto tile
// bitrev(m); both are loaded, then stored transposed, by the chunk owning min(m, bitrev(m)).
template <class F>
void bit_reverse_permute(F* a, unsigned k) {
  if (k < 2) return;
  const size_t n = size_t(1) << k;
  constexpr unsigned b = 3;
  constexpr size_t kRun = size_t(1) << b;
  if (k <= 12) {  // <= 128 KiB of Fr: in cache anyway
    for (size_t i = 0; i < n; ++i) {
      const size_t j = bit_reverse(i, k);
      if (i < j) std::swap(a[i], a[j]);
    }
    return;
  }
  const unsigned km = k - 2 * b;
  util::parallel_for(
      size_t(1) << km,
      [&](size_t mb, size_t me) {
        F ta[kRun * kRun], tb[kRun * kRun];
        auto load = [&](F* t, size_t m) {
          for (size_t h = 0; h < kRun; ++h) {
            const F* src = a + (h << (k - b)) + (m << b);
            for (size_t l = 0; l < kRun; ++l) t[h * kRun + l] = src[l];
          }
        };
        auto store = [&](const F* t, size_t m) {  // element (h, l) of t goes to tile m
          for (size_t l = 0; l < kRun; ++l) {
            F* dst = a + (bit_reverse(l, b) << (k - b)) + (m << b);
            for (size_t h = 0; h < kRun; ++h) dst[bit_reverse(h, b)] = t[h * kRun + l];
          }
        };
        for (size_t m = mb; m < me; ++m) {
          const size_t mr = bit_reverse(m, km);
          if (mr < m) continue;
          load(ta, m);
          if (mr != m) load(tb, mr);
          store(ta, mr);
          if (mr != m) store(tb, m);
        }
      },
      std::max<size_t>(1, kMinChunkElems >> (2 * b)));
}

// Multiply the element of index j by c·g^j. See Scale<F>::apply.
template <class F>
struct Scale {
  F c = F::one();
  F g = F::one();
  bool geometric() const { return !g.is_one(); }
  bool trivial() const { return c.is_one() && g.is_one(); }
};

// The n1 x n2 split of a size-2^k array (row r = position >> k2, column = position & (n2 - 1)),
// and the factorisation of g^index into a row factor and a column factor:
//   natural order:      index = r·n2 + c                          -> row r·n2,        column c
//   bit-reversed order: index = bitrev_k2(c)·n1 + bitrev_k1(r)    -> row bitrev_k1(r), column
//                       bitrev_k2(c)·n1
// so g^index = g^row_exp(r) · g^col_exp(c) with the two exponents on disjoint bits.
struct Split {
  unsigned k, k1, k2;
  size_t n1, n2;
  explicit Split(unsigned k_)
      : k(k_), k1(k_ / 2), k2(k_ - k_ / 2), n1(size_t(1) << k1), n2(size_t(1) << k2) {}
  uint64_t row_exp(size_t r, bool reversed) const {
    return reversed ? bit_reverse(r, k1) : uint64_t(r) << k2;
  }
  uint64_t col_exp(size_t c, bool reversed) const {
    return reversed ? bit_reverse(c, k2) << k1 : uint64_t(c);
  }
};

// col[c] = g^col_exp(c), c < n2 (O(sqrt n) memory, built once per call).
template <class F>
std::vector<F> column_powers(const Split& sp, const F& g, bool reversed) {
  std::vector<F> col(sp.n2);
  const F step = reversed ? g.pow(uint64_t(sp.n1)) : g;
  F x = F::one();
  for (size_t c = 0; c < sp.n2; ++c) {
    col[c] = x;  // step^c
    x *= step;
  }
  if (reversed) bit_reverse_permute(col.data(), sp.k2);  // col[c] = step^bitrev(c)
  return col;
}

// Element-wise products over a row, eight at a time in lanes where the field has them (n a
// multiple of 8 there); bounds in multiples of p (rho <= 0.19): inputs below 1 as stored, products
// below 1.19, a product of a product below 1.23: all below the 4p store_rows reduces from.
// x[c] *= y[c], c < n.
template <class F>
inline void mul_row(F* x, const F* y, size_t n) {
  size_t c = 0;
#if SPLITPROVE_IFMA
  if constexpr (ff::LaneField<F>) {
    using K = ff::Lanes8<F>;
    for (; c + 8 <= n; c += 8) ff::LaneOps<F>::to_scalars(K::mul(K::load8(x + c), K::load8(y + c)), x + c);
  }
#endif
  for (; c < n; ++c) x[c] *= y[c];
}
// x[c] *= f·y[c], c < n.
template <class F>
inline void scale_row(F* x, const F& f, const F* y, size_t n) {
  size_t c = 0;
#if SPLITPROVE_IFMA
  if constexpr (ff::LaneField<F>) {
    using K = ff::Lanes8<F>;
    const auto fv = K::splat(f);
    for (; c + 8 <= n; c += 8)
      ff::LaneOps<F>::to_scalars(K::mul(K::load8(x + c), K::mul(fv, K::load8(y + c))), x + c);
  }
#endif
  for (; c < n; ++c) x[c] *= f * y[c];
}
// x[c] = x[c]·y[c] - z[c], c < n (x·y - z + p: below 2.19).
template <class F>
inline void mul_sub_row(F* x, const F* y, const F* z, size_t n) {
  size_t c = 0;
#if SPLITPROVE_IFMA
  if constexpr (ff::LaneField<F>) {
    using K = ff::Lanes8<F>;
    for (; c + 8 <= n; c += 8)
      ff::LaneOps<F>::to_scalars(
          K::template sub<1>(K::mul(K::load8(x + c), K::load8(y + c)), K::load8(z + c)), x + c);
  }
#endif
  for (; c < n; ++c) x[c] = x[c] * y[c] - z[c];
}

// A standalone scale pass: a[p] *= c·g^index(p) over 2^k elements in the given order.
template <class F>
void apply_scale(F* a, unsigned k, bool reversed, const Scale<F>& s) {
  if (s.trivial()) return;
  const size_t n = size_t(1) << k;
  if (!s.geometric()) {
    util::parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) a[i] *= s.c;
        },
        kMinChunkElems);
    return;
  }
  const Split sp(k);
  const std::vector<F> col = column_powers(sp, s.g, reversed);
  const std::vector<F> gp = pow2_table(s.g, k);
  util::parallel_for(
      sp.n1,
      [&](size_t b, size_t e) {
        for (size_t r = b; r < e; ++r) {
          const F f = s.c * pow_from_table(gp, sp.row_exp(r, reversed));
          scale_row(a + r * sp.n2, f, col.data(), sp.n2);
        }
      },
      std::max<size_t>(1, kMinChunkElems / sp.n2));
}

// ---- radix-2 layers --------------------------------------------------------------------------
// A block is 2^k "rows" at stride rs; each row is W adjacent elements (W = 1: a plain array with
// rs = 1; W = kTile: kTile columns of the four-step column pass). The transform runs along the
// row index, independently for each of the W columns, with one twiddle per row pair.

#if SPLITPROVE_IFMA
// Eight butterflies in lanes (ff/lanes.hpp) on eight adjacent elements x[0..7] and y[0..7], lane
// l with twiddle t[l] (none: 1). DIF: (x, y) <- (x + y, (x - y)·t); DIT: (x, y) <- (x + t·y,
// x - t·y). Bounds, in multiples of p (rho <= 0.19): x, y < 1 as stored; DIF x + y < 2, (x - y +
// p)·t < 1.38; DIT t·y < 1.19, x + t·y < 2.19, x - t·y + 2p < 3: all below the 4p that
// store_words reduces from.
template <bool Dif, class F>
__attribute__((always_inline)) inline void butterflies8(F* x, F* y,
                                                        const typename ff::Lanes8<F>::V* t) {
  using K = ff::Lanes8<F>;
  const auto u = K::load8(x), v = K::load8(y);
  typename K::V sum, diff;
  if constexpr (Dif) {
    sum = K::add(u, v);
    diff = K::template sub<1>(u, v);
    if (t) diff = K::mul(diff, *t);
  } else {
    const auto tv = t ? K::mul(v, *t) : v;
    sum = K::add(u, tv);
    diff = K::template sub<2>(u, tv);
  }
  ff::LaneOps<F>::to_scalars(sum, x);
  ff::LaneOps<F>::to_scalars(diff, y);
}

// A layer (rows j and j + len, j < len) in lanes: with W = 8 the lanes are the row's columns
// (one twiddle for all), with W = 1 eight consecutive rows (eight consecutive twiddles; len >= 8).
template <bool Dif, size_t W, class F>
void layer_lanes(F* a, size_t len, size_t rs, const F* w) {
  using K = ff::Lanes8<F>;
  F* b = a + len * rs;
  if constexpr (W == 8) {
    butterflies8<Dif>(a, b, static_cast<const typename K::V*>(nullptr));
    for (size_t j = 1; j < len; ++j) {
      const auto t = K::splat(w[j]);
      butterflies8<Dif>(a + j * rs, b + j * rs, &t);
    }
  } else {
    for (size_t j = 0; j < len; j += 8) {
      const auto t = K::load8(w + j);  // w[0] = 1 multiplies like the others
      butterflies8<Dif>(a + j, b + j, &t);
    }
  }
}

// Two layers per load and store, in lanes: DIF layers (len, len/2) on the rows j, j + q, j + 2q,
// j + 3q with q = len/2, or DIT layers (len, 2·len) on them with q = len (j < q; W = 8 takes one
// j at a time, W = 1 eight consecutive ones, q >= 8). Between the layers the values stay in
// lanes; each element is loaded and stored once for both. Bounds, in multiples of p (rho <=
// 0.19), inputs below 1 as stored: DIF x + y < 2, (x - y + p)·t < 1.38; then sums < 4 and
// (x - y + 2p)·t < 1.76. DIT t·y < 1.19, x + t·y < 2.19, x - t·y + 2p < 3, both tightened below
// 2; then t·y < 1.38, x + t·y < 3.38, x - t·y + 2p < 4: all below the 4p store_rows reduces from.
template <bool Dif, size_t W, class F>
void layers2_lanes(F* a, size_t len, size_t rs, const F* tw) {
  using K = ff::Lanes8<F>;
  using V = typename K::V;
  const size_t q = Dif ? len / 2 : len;
  const F* const wa = tw + len;                       // the first layer's twiddles
  const F* const wb = Dif ? tw + len / 2 : tw + 2 * len;  // the second's
  const auto tw8 = [](const F* w, size_t j) {
    if constexpr (W == 8)
      return K::splat(w[j]);
    else
      return K::load8(w + j);
  };
  constexpr size_t kStep = W == 8 ? 1 : 8;
  for (size_t j = 0; j < q; j += kStep) {
    F* const r0 = a + j * rs;
    F* const r1 = a + (j + q) * rs;
    F* const r2 = a + (j + 2 * q) * rs;
    F* const r3 = a + (j + 3 * q) * rs;
    const V x0 = K::load8(r0), x1 = K::load8(r1), x2 = K::load8(r2), x3 = K::load8(r3);
    V y0, y1, y2, y3;
    if constexpr (Dif) {
      const V s02 = K::add(x0, x2), s13 = K::add(x1, x3);
      const V d02 = K::mul(K::template sub<1>(x0, x2), tw8(wa, j));
      const V d13 = K::mul(K::template sub<1>(x1, x3), tw8(wa, j + q));
      const V tb = tw8(wb, j);
      y0 = K::add(s02, s13);
      y1 = K::mul(K::template sub<2>(s02, s13), tb);
      y2 = K::add(d02, d13);
      y3 = K::mul(K::template sub<2>(d02, d13), tb);
    } else {
      const V ta = tw8(wa, j);
      const V t1 = K::mul(x1, ta), t3 = K::mul(x3, ta);
      const V a0 = ff::LaneOps<F>::tighten(K::add(x0, t1));
      const V a1 = ff::LaneOps<F>::tighten(K::template sub<2>(x0, t1));
      const V a2 = ff::LaneOps<F>::tighten(K::add(x2, t3));
      const V a3 = ff::LaneOps<F>::tighten(K::template sub<2>(x2, t3));
      const V u2 = K::mul(a2, tw8(wb, j)), u3 = K::mul(a3, tw8(wb, j + q));
      y0 = K::add(a0, u2);
      y2 = K::template sub<2>(a0, u2);
      y1 = K::add(a1, u3);
      y3 = K::template sub<2>(a1, u3);
    }
    ff::LaneOps<F>::to_scalars(y0, r0);
    ff::LaneOps<F>::to_scalars(y1, r1);
    ff::LaneOps<F>::to_scalars(y2, r2);
    ff::LaneOps<F>::to_scalars(y3, r3);
  }
}

// Whether layer_lanes serves this layer: a field with lanes, eight columns or >= 8 rows apart.
template <size_t W, class F>
constexpr bool kLanesFor = ff::LaneField<F> && (W == 8 || W == 1);
template <size_t W>
constexpr bool lanes_fit(size_t len, size_t rs) {
  return W == 8 || (rs == 1 && len >= 8);
}
#endif

// DIF layer on rows (j, j + len), j < len: (x, y) <- (x + y, (x - y)·w[j]); w[0] = 1 is skipped.
template <size_t W, class F>
inline void dif_layer(F* a, size_t len, size_t rs, const F* w) {
#if SPLITPROVE_IFMA
  if constexpr (kLanesFor<W, F>)
    if (lanes_fit<W>(len, rs)) return layer_lanes<true, W>(a, len, rs, w);
#endif
  F* b = a + len * rs;
  for (size_t c = 0; c < W; ++c) {
    const F u = a[c], v = b[c];
    a[c] = u + v;
    b[c] = u - v;
  }
  for (size_t j = 1; j < len; ++j) {
    const F t = w[j];
    F* x = a + j * rs;
    F* y = b + j * rs;
    for (size_t c = 0; c < W; ++c) {
      const F u = x[c], v = y[c];
      x[c] = u + v;
      y[c] = (u - v) * t;
    }
  }
}

// DIT layer on rows (j, j + len): (x, y) <- (x + w[j]·y, x - w[j]·y).
template <size_t W, class F>
inline void dit_layer(F* a, size_t len, size_t rs, const F* w) {
#if SPLITPROVE_IFMA
  if constexpr (kLanesFor<W, F>)
    if (lanes_fit<W>(len, rs)) return layer_lanes<false, W>(a, len, rs, w);
#endif
  F* b = a + len * rs;
  for (size_t c = 0; c < W; ++c) {
    const F u = a[c], v = b[c];
    a[c] = u + v;
    b[c] = u - v;
  }
  for (size_t j = 1; j < len; ++j) {
    const F t = w[j];
    F* x = a + j * rs;
    F* y = b + j * rs;
    for (size_t c = 0; c < W; ++c) {
      const F u = x[c], v = y[c] * t;
      x[c] = u + v;
      y[c] = u - v;
    }
  }
}

// Size-2^k DIF (natural -> bit-reversed) with twiddle table tw (Twiddles layout).
template <size_t W, class F>
void dif(F* a, unsigned k, size_t rs, const F* tw) {
  if (k == 0) return;
  const size_t m = size_t(1) << k;
  if (k >= 2 && m * W * sizeof(F) > kLeafBytes) {
    const size_t h = m / 2;
    dif_layer<W>(a, h, rs, tw + h);
    dif<W>(a, k - 1, rs, tw);
    dif<W>(a + h * rs, k - 1, rs, tw);
    return;
  }
  for (size_t len = m / 2; len >= 1;) {
#if SPLITPROVE_IFMA
    if constexpr (kLanesFor<W, F>) {
      if (len >= 2 && lanes_fit<W>(len / 2, rs)) {
        for (size_t s = 0; s < m; s += 2 * len) layers2_lanes<true, W>(a + s * rs, len, rs, tw);
        len /= 4;
        continue;
      }
    }
#endif
    for (size_t s = 0; s < m; s += 2 * len) dif_layer<W>(a + s * rs, len, rs, tw + len);
    len /= 2;
  }
}

// Size-2^k DIT (bit-reversed -> natural).
template <size_t W, class F>
void dit(F* a, unsigned k, size_t rs, const F* tw) {
  if (k == 0) return;
  const size_t m = size_t(1) << k;
  if (k >= 2 && m * W * sizeof(F) > kLeafBytes) {
    const size_t h = m / 2;
    dit<W>(a, k - 1, rs, tw);
    dit<W>(a + h * rs, k - 1, rs, tw);
    dit_layer<W>(a, h, rs, tw + h);
    return;
  }
  for (size_t len = 1; len < m;) {
#if SPLITPROVE_IFMA
    if constexpr (kLanesFor<W, F>) {
      if (4 * len <= m && lanes_fit<W>(len, rs)) {
        for (size_t s = 0; s < m; s += 4 * len) layers2_lanes<false, W>(a + s * rs, len, rs, tw);
        len *= 4;
        continue;
      }
    }
#endif
    for (size_t s = 0; s < m; s += 2 * len) dit_layer<W>(a + s * rs, len, rs, tw + len);
    len *= 2;
  }
}

// x[c] *= f·base^c for c < n (n a multiple of 4). Four interleaved power chains with step base^4:
// one chain would wait out a full multiplication latency per element. In lanes (n a multiple of
// 8): eight chains with step base^8, each below 1.235p (the fixed point of a·0.19 + 1).
template <class F>
inline void twiddle_row(F* x, size_t n, const F& f, const F& base) {
#if SPLITPROVE_IFMA
  if constexpr (ff::LaneField<F>) {
    if (n % 8 == 0) {
      using K = ff::Lanes8<F>;
      F p8[8];
      p8[0] = f;
      for (size_t l = 1; l < 8; ++l) p8[l] = p8[l - 1] * base;
      const auto step = K::splat(base.square().square().square());
      auto pv = K::load8(p8);
      for (size_t c = 0; c < n; c += 8) {
        ff::LaneOps<F>::to_scalars(K::mul(K::load8(x + c), pv), x + c);
        pv = K::mul(pv, step);
      }
      return;
    }
  }
#endif
  const F b2 = base.square();
  F p0 = f, p1 = f * base, p2 = f * b2, p3 = p1 * b2;
  const F b4 = b2.square();
  for (size_t c = 0; c < n; c += 4) {
    x[c] *= p0;
    x[c + 1] *= p1;
    x[c + 2] *= p2;
    x[c + 3] *= p3;
    p0 *= b4;
    p1 *= b4;
    p2 *= b4;
    p3 *= b4;
  }
}

// ---- the plan of one transform size ----------------------------------------------------------

template <class F>
struct Plan {
  unsigned k = 0;
  std::shared_ptr<const Twiddles<F>> tw;
  std::vector<F> wpow[2];  // [Forward] ω^(2^b), [Inverse] ω^(-2^b), b < k

  Plan(unsigned k_, const F& omega, const F& omega_inv) : k(k_) {
    const unsigned sub = k <= kDirectLog ? k : Split(k).k2;
    tw = twiddles<F>(sub);
    wpow[0] = pow2_table(omega, k);
    wpow[1] = pow2_table(omega_inv, k);
  }

  const F* table(Direction d) const {
    return d == Direction::Forward ? tw->fwd.data() : tw->inv.data();
  }

  // Natural in, bit-reversed out. pre is indexed in natural order, post in bit-reversed order.
  void dif_path(F* a, Direction d, Scale<F> pre, Scale<F> post) const {
    const F* t = table(d);
    if (k <= kDirectLog) {
      apply_scale(a, k, false, pre);
      dif<1>(a, k, 1, t);
      apply_scale(a, k, true, post);
      return;
    }
    if (pre.geometric()) {
      apply_scale(a, k, false, pre);
    } else {
      post.c *= pre.c;  // a constant commutes with the transform
    }
    const Split sp(k);
    // (1) columns, kTile at a time.
    util::parallel_for(
        sp.n2 / kTile,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) dif<kTile>(a + i * kTile, sp.k1, sp.n2, t);
        },
        1);
    // (2) rows: twiddle ω^(c·bitrev_k1(r)) times the row factor of post, DIF, column factor.
    const bool geo = post.geometric();
    const std::vector<F> col = geo ? column_powers(sp, post.g, true) : std::vector<F>{};
    const std::vector<F> gp = geo ? pow2_table(post.g, k) : std::vector<F>{};
    const std::vector<F>& wp = wpow[d == Direction::Forward ? 0 : 1];
    util::parallel_for(
        sp.n1,
        [&](size_t b, size_t e) {
          for (size_t r = b; r < e; ++r) {
            F* x = a + r * sp.n2;
            F f = post.c;
            if (geo) f *= pow_from_table(gp, sp.row_exp(r, true));
            if (r != 0 || !f.is_one())
              twiddle_row(x, sp.n2, f, pow_from_table(wp, bit_reverse(r, sp.k1)));
            dif<1>(x, sp.k2, 1, t);
            if (geo)
              mul_row(x, col.data(), sp.n2);
          }
        },
        1);
  }

  // Bit-reversed in, natural out. pre is indexed in bit-reversed order, post in natural order.
  void dit_path(F* a, Direction d, Scale<F> pre, Scale<F> post) const {
    const F* t = table(d);
    if (k <= kDirectLog) {
      apply_scale(a, k, true, pre);
      dit<1>(a, k, 1, t);
      apply_scale(a, k, false, post);
      return;
    }
    const bool post_pass = post.geometric();
    if (!post_pass) pre.c *= post.c;
    const Split sp(k);
    // (1) rows: column factor of pre, DIT, then twiddle ω^(c·bitrev_k1(r)) times the row factor.
    // The row factor and c are constants on the row, so they may follow the row's DIT.
    const bool geo = pre.geometric();
    const std::vector<F> col = geo ? column_powers(sp, pre.g, true) : std::vector<F>{};
    const std::vector<F> gp = geo ? pow2_table(pre.g, k) : std::vector<F>{};
    const std::vector<F>& wp = wpow[d == Direction::Forward ? 0 : 1];
    util::parallel_for(
        sp.n1,
        [&](size_t b, size_t e) {
          for (size_t r = b; r < e; ++r) {
            F* x = a + r * sp.n2;
            if (geo)
              mul_row(x, col.data(), sp.n2);
            dit<1>(x, sp.k2, 1, t);
            F f = pre.c;
            if (geo) f *= pow_from_table(gp, sp.row_exp(r, true));
            if (r != 0 || !f.is_one())
              twiddle_row(x, sp.n2, f, pow_from_table(wp, bit_reverse(r, sp.k1)));
          }
        },
        1);
    // (2) columns.
    util::parallel_for(
        sp.n2 / kTile,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) dit<kTile>(a + i * kTile, sp.k1, sp.n2, t);
        },
        1);
    if (post_pass) apply_scale(a, k, false, post);
  }

  // The transform in the requested orders; pre is indexed by the input's order, post by the
  // output's. Orders that need a bit-reversal pass put it where the scales stay fused.
  void run(F* a, Direction d, Order order, const Scale<F>& pre, const Scale<F>& post) const {
    switch (order) {
      case Order::NR:
        dif_path(a, d, pre, post);
        return;
      case Order::RN:
        dit_path(a, d, pre, post);
        return;
      case Order::NN:
        if (pre.geometric()) {  // permute first: pre is then applied in bit-reversed order
          bit_reverse_permute(a, k);
          dit_path(a, d, pre, post);
        } else {
          dif_path(a, d, pre, post);
          bit_reverse_permute(a, k);
        }
        return;
      case Order::RR:
        if (pre.geometric()) {
          dit_path(a, d, pre, post);
          bit_reverse_permute(a, k);
        } else {
          bit_reverse_permute(a, k);
          dif_path(a, d, pre, post);
        }
        return;
    }
  }
};

}  // namespace splitprove::poly::detail
