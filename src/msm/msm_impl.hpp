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
// msm_multi runs one scalar vector over m base vectors: one tail (a term is dropped only where
// every base vector is at infinity or absent), one GLV split, and tasks that sort each chunk's
// terms by digit once and carry m points per slot (AffineWindow). Measured on a BN254 2^16 key
// (A, B1, C of the chain circuit), this saves ~5% of the three MSMs' CPU time: the additions
// themselves, m per slot, dominate (bench/RESULTS.md, branch cpu8).
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
#include <memory>
#include <mutex>
#include <string>

#include "ec/curve.hpp"
#include "msm/msm.hpp"
#include "splitprove/error.hpp"
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
    uint64_t carry = 0;
    for (size_t i = N; i-- > 0;) {
      const uint64_t a = k[i] & mask[i];
      if (a != thr[i]) {
        carry = a > thr[i];
        break;
      }
    }
    const uint64_t t = raw + carry;
    return t > half ? int64_t(t) - int64_t(full) : int64_t(t);
  }
};

// ---- the tail of one scalar vector --------------------------------------------------------------
// A tail entry names its point by a 32-bit word: the low 30 bits are a position in the scalars (or,
// with kEndoBit, in Tail::endo), and kNegBit asks for the point's negation.
inline constexpr uint32_t kEndoBit = uint32_t(1) << 31, kNegBit = uint32_t(1) << 30,
                          kPosMask = kNegBit - 1;

// One base vector of a call. It covers the scalar positions [off, off + points.size()): the
// whole scalar vector (off = 0) or a suffix of it (Groth16's L sums z over the private wires only).
template <class C>
struct BaseVec {
  std::span<const typename C::Affine> points;
  size_t off = 0;
  // The base at scalar position i, or nullptr where the vector has none or it is at infinity.
  const typename C::Affine* at(size_t i) const {
    return i >= off && !points[i - off].inf ? &points[i - off] : nullptr;
  }
};

// The tail of one scalar vector, shared by every base vector of the call: the scalar words and
// digits are computed once, the points looked up per base vector (Points).
template <class C>
struct Tail {
  std::vector<uint32_t> index;   // point words (above); without GLV scalar positions, increasing
  std::vector<Limbs<C>> scalar;  // canonical scalars, same order
  // GLV: E(P) of the tail's bases, by tail position, one vector per base vector (the identity
  // where that base vector has no base at the term).
  std::vector<std::vector<typename C::Affine>> endo;
  unsigned bits = kScalarBits;              // every scalar is below 2^bits
  std::vector<typename C::Xyzz> ones;       // per base vector: the sum of its bases of scalar 1
};

// The point a tail word names in one base vector (see Tail), negated when `neg` (a negative
// digit); the identity where the vector does not cover the position.
template <class C>
struct Points {
  std::span<const typename C::Affine> bases, endo;
  size_t off = 0;
  typename C::Affine operator()(uint32_t word, bool neg) const {
    const uint32_t pos = word & kPosMask;
    if (!(word & kEndoBit) && pos < off) return C::Affine::identity();
    const auto& p = (word & kEndoBit) ? endo[pos] : bases[pos - off];
    return neg != bool(word & kNegBit) ? -p : p;
  }
};

// GLV (see ec::GlvSplit): the tail of T terms k_j·P_j becomes 2T terms of ~half-length scalars,
// k1_j·(±P_j) in place and k2_j·(±E(P_j)) appended, E(P_j) stored in tail.endo. The windows then
// cover kBits instead of 255 bits: half as many windows over twice the terms, so the additions stay
// the same and the bucket reductions halve. The split and E cost a few products per term (the
// split once per term, E once per term and base vector).
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
void glv_expand(std::span<const BaseVec<C>> bases, Tail<C>& t) {
  if constexpr (has_glv<C>()) {
    using Glv = typename C::Params::Glv;
    const size_t n = t.index.size();
    if (n == 0 || n > kPosMask) return;
    t.endo.assign(bases.size(), {});
    for (auto& e : t.endo) e.resize(n);
    t.index.resize(2 * n);
    t.scalar.resize(2 * n);
    util::parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t j = b; j < e; ++j) {
            const uint32_t pos = t.index[j];
            const ec::GlvSplit<C::Fr::N> sp = Glv::split(t.scalar[j]);
            for (size_t v = 0; v < bases.size(); ++v) {
              const typename C::Affine* p = bases[v].at(pos);
              auto q = p ? *p : C::Affine::identity();
              if (p) Glv::endo(q.x, q.y);
              t.endo[v][j] = q;
            }
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
// for an invalid scalar; canonical(i) returns the canonical limbs of a tail scalar. A term joins
// the tail when some base vector has a base for it (not at infinity); a one is added to the sum
// of every base vector that has a base for it.
template <class C, class Kind, class Canonical>
Tail<C> classify(std::span<const BaseVec<C>> bases, size_t n, const Kind& kind,
                 const Canonical& canonical) {
  using Xyzz = typename C::Xyzz;
  const size_t m = bases.size();
  Tail<C> out;
  out.ones.assign(m, Xyzz::identity());
  if (n == 0) return out;
  if (n > size_t(UINT32_MAX))
    throw Error("msm: " + std::to_string(n) + " terms: at most 2^32 - 1 are supported");
  auto has_base = [&](size_t i) {
    for (const auto& b : bases)
      if (b.at(i)) return true;
    return false;
  };
  // ~4 slices per thread even out slices with more ones or more tail than others.
  const size_t parts = std::min(n, std::max<size_t>(1, 4 * util::num_threads()));
  std::vector<size_t> count(parts + 1, 0);
  std::vector<Xyzz> ones(parts * m, Xyzz::identity());
  // Pass 1 counts each slice's tail, so that the tail is allocated once at its exact size.
  util::parallel_for(
      parts,
      [&](size_t pb, size_t pe) {
        for (size_t p = pb; p < pe; ++p) {
          size_t c = 0;
          for (size_t i = slice_begin(n, parts, p), e = slice_begin(n, parts, p + 1); i < e; ++i)
            c += kind(i) == 2 && has_base(i);
          count[p + 1] = c;
        }
      },
      1, parts);
  for (size_t p = 0; p < parts; ++p) count[p + 1] += count[p];
  const size_t tail = count[parts];
  out.index.resize(tail);
  out.scalar.resize(tail);
  // Pass 2 sums the ones and writes each slice's tail at its offset (input order is kept).
  util::parallel_for(
      parts,
      [&](size_t pb, size_t pe) {
        for (size_t p = pb; p < pe; ++p) {
          size_t at = count[p];
          for (size_t i = slice_begin(n, parts, p), e = slice_begin(n, parts, p + 1); i < e; ++i) {
            if (!has_base(i)) continue;
            const int kd = kind(i);
            if (kd == 1) {
              for (size_t v = 0; v < m; ++v)
                if (const auto* b = bases[v].at(i)) ones[p * m + v] += *b;
            } else if (kd == 2) {
              out.index[at] = uint32_t(i);
              out.scalar[at] = canonical(i);
              ++at;
            }
          }
        }
      },
      1, parts);
  for (size_t p = 0; p < parts; ++p)
    for (size_t v = 0; v < m; ++v) out.ones[v] += ones[p * m + v];
  return out;
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

template <class C>
typename C::Xyzz reduce_xyzz(std::span<const typename C::Xyzz> buckets) {
  return reduce_buckets<C>(
      buckets.size(), [&](size_t b) { return buckets[b].is_identity(); },
      [&](typename C::Xyzz& r, size_t b) { r += buckets[b]; });
}

// One task over every base vector: out[v] is base vector v's window sum. The digit of a term is
// computed once and used for all of them.
template <class C>
void window_xyzz(std::span<const Points<C>> points, const Tail<C>& t, unsigned c, unsigned w,
                 size_t begin, size_t end, std::span<typename C::Xyzz> out) {
  using Xyzz = typename C::Xyzz;
  const WindowDigits<C::Fr::N> digit(c, w);
  const size_t k = size_t(1) << (c - 1), m = points.size();
  std::vector<Xyzz> buckets(k * m, Xyzz::identity());  // base vector v's buckets at [v·k, v·k + k)
  for (size_t j = begin; j < end; ++j) {
    const int64_t d = digit(t.scalar[j]);
    if (d == 0) continue;
    const size_t b = size_t(d > 0 ? d : -d) - 1;
    for (size_t v = 0; v < m; ++v) buckets[v * k + b] += points[v](t.index[j], d < 0);
  }
  for (size_t v = 0; v < m; ++v)
    out[v] = reduce_xyzz<C>(std::span<const Xyzz>(buckets).subspan(v * k, k));
}

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
//
// Several base vectors over one tail (msm_multi): a slot of the point arrays holds m points, one
// per base vector (slot s, vector v at s·m + v), and a bucket's segment is a run of slots. The
// digits, the counting sort, the segment bookkeeping of every round and each round's inversion are
// then paid once for all m vectors; only the additions (and the copies of the points) are per
// vector. A base vector without a base at a term gets the identity in that slot, which the pairing
// passes through like any other point at infinity.
template <class C>
class AffineWindow {
 public:
  using Affine = typename C::Affine;
  using Xyzz = typename C::Xyzz;
  using F = typename C::F;

  // Chunk: 2 points per bucket on average (measured best or equal to 1x and 4x on G1 at 2^16 and
  // 2^18), within [2^13, 2^16]: at least 2^13 so the ~4-6 inversions of a chunk cost < 0.5M per
  // addition, at most 2^16 to bound the scratch (G2, c = 16: ~60 MB per task; see scratch_bytes).
  static size_t chunk_size(unsigned c) {
    return std::clamp<size_t>(size_t(2) << (c - 1), size_t(1) << 13, size_t(1) << 16);
  }

  // Bytes a task allocates for `chunk` terms per chunk over m base vectors (exceptional XYZZ
  // buckets included).
  static size_t scratch_bytes(unsigned c, size_t chunk, size_t m = 1) {
    const size_t k = size_t(1) << (c - 1);
    return k * (m * (sizeof(Affine) + sizeof(Xyzz)) + 3 * sizeof(uint32_t)) +
           chunk * sizeof(int32_t) + m * (chunk + k) * sizeof(Affine) +
           m * (chunk / 2 + k) * (sizeof(Affine) + sizeof(Pair) + sizeof(F));
  }

  AffineWindow(std::span<const Points<C>> points, unsigned c, size_t max_chunk) {
    reset(points, c, max_chunk);
  }

  // Makes a used object ready for another task (same state as a fresh one): the buffers keep
  // their pages, so a call's tasks touch fresh memory once per object rather than once per task.
  void reset(std::span<const Points<C>> points, unsigned c, size_t max_chunk) {
    points_ = points;
    m_ = points.size();
    k_ = size_t(1) << (c - 1);
    acc_.assign(k_ * m_, Affine::identity());
    start_.resize(k_);
    len_.resize(k_);
    if (digits_.size() < max_chunk) digits_.resize(max_chunk);
    if (pts_.size() < m_ * (max_chunk + k_)) pts_.resize(m_ * (max_chunk + k_));
    if (tmp_.size() < m_ * (max_chunk / 2 + k_)) tmp_.resize(m_ * (max_chunk / 2 + k_));
    active_.reserve(k_);
    pairs_.reserve(m_ * (max_chunk / 2 + k_));
    prefix_.reserve(m_ * (max_chunk / 2 + k_));
    extra_.clear();
  }

  template <class Digit>
  void add_chunk(const Digit& digit, std::span<const uint32_t> index,
                 std::span<const Limbs<C>> scalar) {
    const size_t n = index.size(), m = m_;
    // 1. Digits, segment sizes, segment starts (the current bucket values first), in slots.
    std::fill(len_.begin(), len_.end(), 0);
    for (size_t j = 0; j < n; ++j) {
      const int64_t d = digit(scalar[j]);
      digits_[j] = int32_t(d);
      if (d) ++len_[size_t(d > 0 ? d : -d) - 1];
    }
    uint32_t at = 0;
    for (size_t b = 0; b < k_; ++b) {
      start_[b] = at;
      const Affine* acc = &acc_[b * m];
      bool any = false;
      for (size_t v = 0; v < m; ++v) any |= !acc[v].inf;
      if (any) {  // placed last; order is irrelevant
        copy_slot(acc, &pts_[size_t(at + len_[b]) * m]);
        ++len_[b];
      }
      at += len_[b];
    }
    std::vector<uint32_t>& fill = active_;  // reused as the per-bucket write cursor
    fill.assign(start_.begin(), start_.end());
    // The scatter's destinations are random over pts_ (chunk + k slots, megabytes): the write
    // of the slot kPrefetch terms ahead is announced (for writing) so that its line is on its way
    // when the copy comes. The cursor may have moved on by one or two slots by then; close enough.
    constexpr size_t kPrefetch = 16;
    for (size_t j = 0; j < n; ++j) {
      if (j + kPrefetch < n) {
        const int32_t dn = digits_[j + kPrefetch];
        if (dn) {
          const size_t s = size_t(fill[size_t(dn > 0 ? dn : -dn) - 1]) * m;
          __builtin_prefetch(&pts_[s], 1);
          if (m > 1) __builtin_prefetch(&pts_[s + m - 1], 1);
        }
      }
      const int32_t d = digits_[j];
      if (d) {
        Affine* slot = &pts_[size_t(fill[size_t(d > 0 ? d : -d) - 1]++) * m];
        for (size_t v = 0; v < m; ++v) slot[v] = points_[v](index[j], d < 0);
      }
    }
    // 2. Pairwise rounds. Round r reads the segments from one buffer and writes the sums, still
    //    sorted by bucket and contiguous, to the other (so every pass reads and writes
    //    sequentially); only buckets with two or more slots take part, and a bucket leaves as
    //    soon as it is down to one slot. A pair of slots is m pairs of points.
    active_.clear();
    for (size_t b = 0; b < k_; ++b) {
      if (len_[b] >= 2) {
        active_.push_back(uint32_t(b));
      } else if (len_[b]) {
        copy_slot(&pts_[size_t(start_[b]) * m], &acc_[b * m]);
      } else {
        std::fill_n(&acc_[b * m], m, Affine::identity());
      }
    }
    Affine* src = pts_.data();
    Affine* dst = tmp_.data();
    while (!active_.empty()) {
      pairs_.clear();
      prefix_.clear();
      F run = F::one();
      uint32_t at = 0;
      for (const uint32_t b : active_) {
        const uint32_t l = len_[b], s = start_[b];
        for (uint32_t i = 0; i + 1 < l; i += 2) {
          for (size_t v = 0; v < m; ++v) {
            const uint32_t from = uint32_t((s + i) * m + v), to = uint32_t((at + i / 2) * m + v);
            const Affine& p = src[from];
            const Affine& q = src[from + m];
            Affine& out = dst[to];
            if (q.inf) {
              out = p;
            } else if (p.inf) {
              out = q;
            } else {
              // dx = 0 iff x_P = x_Q (both reduced): a doubling or P + (-P), handled by XYZZ.
              const F dx = q.x - p.x;
              if (dx.is_zero()) {
                extra_add(b * m + v, p);
                extra_add(b * m + v, q);
                out = Affine::identity();
              } else {
                prefix_.push_back(run);  // product of the denominators before this pair
                run = run * dx;
                pairs_.push_back({from, to});
              }
            }
          }
        }
        if (l & 1) copy_slot(&src[size_t(s + l - 1) * m], &dst[size_t(at + l / 2) * m]);
        start_[b] = at;
        len_[b] = (l + 1) / 2;
        at += len_[b];
      }
      if (!pairs_.empty()) {
        // 1 / product of all denominators. Variable time: bucket sums are not secret-independent
        // anyway (Pippenger branches on scalar digits), and Fermat costs ~40 us per round.
        F inv = run.inverse_vartime();
        for (size_t j = pairs_.size(); j-- > 0;) {
          const Affine& p = src[pairs_[j].from];
          const Affine& q = src[pairs_[j].from + m];
          const F dx = q.x - p.x;
          const F dinv = inv * prefix_[j];  // 1/dx
          inv = inv * dx;                   // 1 / product of the denominators before j
          const F lambda = (q.y - p.y) * dinv;
          const F x3 = lambda.square() - p.x - q.x;
          Affine& out = dst[pairs_[j].to];
          out.y = lambda * (p.x - x3) - p.y;
          out.x = x3;
          out.inf = false;
        }
      }
      size_t keep = 0;
      for (const uint32_t b : active_) {
        if (len_[b] >= 2)
          active_[keep++] = b;
        else
          copy_slot(&dst[size_t(start_[b]) * m], &acc_[b * m]);
      }
      active_.resize(keep);
      std::swap(src, dst);
    }
  }

  // out[v] = sum_b (b+1)·(A_b + X_b) of base vector v.
  void finish(std::span<Xyzz> out) const {
    const bool ex = !extra_.empty();
    const size_t m = m_;
    for (size_t v = 0; v < m; ++v)
      out[v] = reduce_buckets<C>(
          k_,
          [&](size_t b) {
            return acc_[b * m + v].inf && (!ex || extra_[b * m + v].is_identity());
          },
          [&](Xyzz& r, size_t b) {
            r += acc_[b * m + v];
            if (ex) r += extra_[b * m + v];
          });
  }

 private:
  // One slot's m points. A single point is copied inline: the library's memcpy, which a copy of
  // a run-time count becomes, cost ~3% of a BN254 proof on these 64- to 136-byte copies.
  void copy_slot(const Affine* from, Affine* to) const {
    if (m_ == 1) {
      *to = *from;
      return;
    }
    for (size_t v = 0; v < m_; ++v) to[v] = from[v];
  }

  void extra_add(size_t bv, const Affine& p) {
    if (extra_.empty()) extra_.assign(k_ * m_, Xyzz::identity());
    extra_[bv] += p;
  }

  struct Pair {
    uint32_t from, to;  // the pair's first point in the source buffer; its sum's place
  };
  std::span<const Points<C>> points_;  // one per base vector
  size_t m_ = 1, k_ = 1;
  std::vector<Affine> acc_;            // bucket values (inf = empty), between chunks; b·m + v
  std::vector<uint32_t> start_, len_;  // segment of each bucket in pts_ (in slots)
  std::vector<int32_t> digits_;        // digits of the chunk
  std::vector<Affine> pts_, tmp_;      // the chunk's points sorted by bucket; round outputs
  std::vector<uint32_t> active_;       // buckets with two or more slots left
  std::vector<Pair> pairs_;            // the additions of this round
  std::vector<F> prefix_;              // prefix products of their denominators
  std::vector<Xyzz> extra_;            // exceptional additions (empty until the first); b·m + v
};

// The batch-affine objects of one call, handed from task to task. A task takes one (or makes
// one when none is free) and gives it back when done, so at most as many exist as tasks ran at
// once (the pool's threads), and all die with the call. Without it each task allocated its
// megabytes afresh, and the allocator returned them to the kernel in between: ~60% of a BN254
// 2^16 proof's page faults (bench/RESULTS.md, branch cpu3).
template <class C>
class AffinePool {
 public:
  std::unique_ptr<AffineWindow<C>> take(std::span<const Points<C>> points, unsigned c,
                                        size_t chunk) {
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
void window_affine(AffinePool<C>& pool, std::span<const Points<C>> points, const Tail<C>& t,
                   unsigned c, unsigned w, size_t begin, size_t end, size_t chunk,
                   std::span<typename C::Xyzz> out) {
  const WindowDigits<C::Fr::N> digit(c, w);
  if (begin == end) {
    std::fill(out.begin(), out.end(), C::Xyzz::identity());
    return;
  }
  chunk = std::min(chunk ? chunk : AffineWindow<C>::chunk_size(c), end - begin);
  std::unique_ptr<AffineWindow<C>> buckets = pool.take(points, c, chunk);
  for (size_t j = begin; j < end; j += chunk) {
    const size_t e = std::min(end, j + chunk);
    buckets->add_chunk(digit, std::span(t.index).subspan(j, e - j),
                       std::span(t.scalar).subspan(j, e - j));
  }
  buckets->finish(out);
  pool.give(std::move(buckets));
}

// ---- planning and running -----------------------------------------------------------------------
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
// chunk); measured crossovers (single thread): G1 between 1024 and 2048 terms, G2 below 256. The
// threshold is 3.5 inversions' worth of terms (G1: 2100, G2: 700).
template <class C>
constexpr size_t affine_min_terms() {
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
  const double add = affine ? kCostAffineAdd : kCostXyzzAdd;
  const unsigned c_star = opt.window_bits ? opt.window_bits : best_window_bits(tail, add, bits);
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

// Runs the windows of every tail over every base vector: result v·m + i is tail v's sum over base
// vector i (m = bases.size()). A task (a window and a slice of one tail) serves all m base vectors.
template <class C>
std::vector<typename C::Jacobian> run(std::span<const BaseVec<C>> bases,
                                      std::vector<Tail<C>>& tails, const Options& opt) {
  using Xyzz = typename C::Xyzz;
  using Jacobian = typename C::Jacobian;
  const size_t nv = tails.size(), m = bases.size();
  if (opt.glv && has_glv<C>())
    for (auto& t : tails)
      if (glv_pays<C>(t.index.size(), nv, opt)) glv_expand<C>(bases, t);
  // The point look-ups of each tail, one per base vector (they read the tail's E(P) vectors).
  std::vector<Points<C>> points(nv * m);
  for (size_t v = 0; v < nv; ++v)
    for (size_t i = 0; i < m; ++i)
      points[v * m + i] = Points<C>{
          bases[i].points,
          tails[v].endo.empty() ? std::span<const typename C::Affine>{} : tails[v].endo[i],
          bases[i].off};
  std::vector<Plan> plans(nv);
  std::vector<size_t> first(nv + 1, 0);  // first task of each vector
  for (size_t v = 0; v < nv; ++v) {
    // The m base vectors multiply every task's cost alike, so they do not change the plan.
    plans[v] = make_plan<C>(tails[v].index.size(), nv, opt, tails[v].bits);
    first[v + 1] = first[v] + (tails[v].index.empty() ? 0 : plans[v].windows * plans[v].slices);
  }
  std::vector<Xyzz> partial(first[nv] * m, Xyzz::identity());  // task·m + base vector
  AffinePool<C> pool;
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
          const auto pts = std::span<const Points<C>>(points).subspan(v * m, m);
          const auto out = std::span<Xyzz>(partial).subspan(task * m, m);
          if (p.affine)
            window_affine<C>(pool, pts, t, p.c, w, b, e, opt.chunk, out);
          else
            window_xyzz<C>(pts, t, p.c, w, b, e, out);
        }
      },
      1, first[nv]);
  std::vector<Jacobian> out(nv * m);
  for (size_t v = 0; v < nv; ++v) {
    const Plan& p = plans[v];
    for (size_t i = 0; i < m; ++i) {
      Jacobian acc = Jacobian::identity();
      if (!tails[v].index.empty()) {
        for (unsigned w = p.windows; w-- > 0;) {
          for (unsigned d = 0; d < p.c; ++d) acc = acc.dbl();
          Xyzz sw = Xyzz::identity();
          for (size_t s = 0; s < p.slices; ++s) sw += partial[(first[v] + w * p.slices + s) * m + i];
          acc += sw.to_jacobian();
        }
      }
      out[v * m + i] = acc + tails[v].ones[i].to_jacobian();
    }
    // Free each vector's tail as soon as it is consumed.
    tails[v] = Tail<C>{};
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
Tail<C> classify_fr(std::span<const BaseVec<C>> bases, std::span<const typename C::Fr> scalars) {
  return classify<C>(
      bases, scalars.size(),
      [&](size_t i) { return scalars[i].is_zero()  ? 0
                             : scalars[i].is_one() ? 1
                                                   : 2; },
      [&](size_t i) { return scalars[i].to_canonical(); });
}

template <class C>
Tail<C> classify_canonical(std::span<const BaseVec<C>> bases, std::span<const Limbs<C>> scalars,
                           const std::string& where) {
  return classify<C>(
      bases, scalars.size(),
      [&](size_t i) {
        const Limbs<C>& s = scalars[i];
        if (ff::cmp_limbs(s, C::Fr::MOD) >= 0)
          throw Error(where + "scalar " + std::to_string(i) + " of " +
                      std::to_string(scalars.size()) + " is not below the group order r (0x" +
                      ff::to_hex(s) + ")");
        return ff::is_zero_limbs(s) ? 0 : is_one_limbs<C>(s) ? 1 : 2;
      },
      [&](size_t i) { return scalars[i]; });
}

inline void check_sizes(size_t bases, size_t scalars, const std::string& where) {
  if (bases != scalars)
    throw Error(where + std::to_string(scalars) + " scalars for " + std::to_string(bases) +
                " bases (the counts must be equal)");
}

}  // namespace detail

template <class C>
typename C::Jacobian msm(std::span<const typename C::Affine> bases,
                         std::span<const typename C::Fr> scalars, const Options& opt) {
  detail::check_sizes(bases.size(), scalars.size(), "msm: ");
  const detail::BaseVec<C> one[1] = {{bases, 0}};
  std::vector<detail::Tail<C>> tails;
  tails.push_back(detail::classify_fr<C>(one, scalars));
  return detail::run<C>(one, tails, opt)[0];
}

template <class C>
typename C::Jacobian msm_canonical(std::span<const typename C::Affine> bases,
                                   std::span<const Limbs<C>> scalars, const Options& opt) {
  detail::check_sizes(bases.size(), scalars.size(), "msm: ");
  const detail::BaseVec<C> one[1] = {{bases, 0}};
  std::vector<detail::Tail<C>> tails;
  tails.push_back(detail::classify_canonical<C>(one, scalars, "msm: "));
  return detail::run<C>(one, tails, opt)[0];
}

template <class C>
std::vector<typename C::Jacobian> msm_batch(
    std::span<const typename C::Affine> bases,
    std::span<const std::span<const typename C::Fr>> scalars, const Options& opt) {
  const detail::BaseVec<C> one[1] = {{bases, 0}};
  std::vector<detail::Tail<C>> tails;
  tails.reserve(scalars.size());
  for (size_t v = 0; v < scalars.size(); ++v) {
    detail::check_sizes(bases.size(), scalars[v].size(),
                        "msm_batch: vector " + std::to_string(v) + ": ");
    tails.push_back(detail::classify_fr<C>(one, scalars[v]));
  }
  return detail::run<C>(one, tails, opt);
}

template <class C>
std::vector<typename C::Jacobian> msm_batch_canonical(
    std::span<const typename C::Affine> bases, std::span<const std::span<const Limbs<C>>> scalars,
    const Options& opt) {
  const detail::BaseVec<C> one[1] = {{bases, 0}};
  std::vector<detail::Tail<C>> tails;
  tails.reserve(scalars.size());
  for (size_t v = 0; v < scalars.size(); ++v) {
    const std::string where = "msm_batch: vector " + std::to_string(v) + ": ";
    detail::check_sizes(bases.size(), scalars[v].size(), where);
    tails.push_back(detail::classify_canonical<C>(one, scalars[v], where));
  }
  return detail::run<C>(one, tails, opt);
}

template <class C>
std::vector<typename C::Jacobian> msm_multi(
    std::span<const std::span<const typename C::Affine>> bases,
    std::span<const typename C::Fr> scalars, const Options& opt) {
  if (bases.size() > kMaxBaseVectors)
    throw Error("msm_multi: " + std::to_string(bases.size()) + " base vectors: at most " +
                std::to_string(kMaxBaseVectors) + " are supported");
  std::vector<detail::BaseVec<C>> bv(bases.size());
  for (size_t i = 0; i < bases.size(); ++i) {
    if (bases[i].size() > scalars.size())
      throw Error("msm_multi: base vector " + std::to_string(i) + " has " +
                  std::to_string(bases[i].size()) + " bases for " +
                  std::to_string(scalars.size()) +
                  " scalars (it must be at most as long: it takes the last scalars)");
    bv[i] = {bases[i], scalars.size() - bases[i].size()};
  }
  if (bv.empty()) return {};
  std::vector<detail::Tail<C>> tails;
  tails.push_back(detail::classify_fr<C>(bv, scalars));
  return detail::run<C>(bv, tails, opt);
}

namespace detail {
// scratch_bytes for `vectors` scalar vectors of n terms, each over m base vectors (msm_batch:
// m = 1; msm_multi: vectors = 1). The base vectors multiply the per-task buffers (a slot per base
// vector), the partial sums and the E(P) copies; the tail's words and scalars are shared.
template <class C>
size_t scratch_bytes_of(size_t n, size_t vectors, size_t m, const Options& opt) {
  if (n == 0 || vectors == 0 || m == 0) return 0;
  // Per task. The window a tail of t <= n terms gets only widens with t (the model's optimum moves
  // to wider windows as the per-term cost grows against the per-bucket cost), and a chunk holds at
  // most min(chunk_size(c), t) terms, so the plans for n terms bound every smaller tail. In kAuto
  // below the batch-affine threshold only XYZZ buckets are used.
  // With GLV (when it pays, see glv_pays) the windows run over 2n terms of kBits-bit
  // scalars; the bound takes the larger scratch of the two plans.
  // Batch-affine objects are handed from task to task within the call (AffinePool), at
  // most one per thread. With one vector every task has the same plan, so a thread holds either
  // XYZZ buckets or one batch-affine object. With several vectors (each its own plan) a pooled
  // object can wait idle while its thread runs an XYZZ task, and can have grown to the larger
  // buffers of two plans (with and without GLV): per thread, the sum of those.
  const bool glv = opt.glv && has_glv<C>() && n <= kPosMask;
  const size_t terms = glv ? 2 * n : n;
  struct Bytes {
    size_t xyzz = 0, affine = 0;
  };
  auto task_bytes = [&](size_t t, unsigned bits) {
    Bytes b;
    if (opt.buckets != Buckets::kBatchAffine) {
      const unsigned c =
          opt.window_bits ? opt.window_bits : best_window_bits(t, kCostXyzzAdd, bits);
      b.xyzz = m * (size_t(1) << (c - 1)) * sizeof(typename C::Xyzz);
    }
    if (opt.buckets == Buckets::kBatchAffine ||
        (opt.buckets == Buckets::kAuto && t >= affine_min_terms<C>())) {
      const unsigned c = opt.window_bits
                             ? opt.window_bits
                             : best_window_bits(t, kCostAffineAdd, bits);
      const size_t chunk = std::min(opt.chunk ? opt.chunk : AffineWindow<C>::chunk_size(c), t);
      b.affine = AffineWindow<C>::scratch_bytes(c, chunk, m);
    }
    return b;
  };
  const Bytes plain = task_bytes(n, kScalarBits);
  const Bytes split = glv ? task_bytes(terms, glv_bits<C>()) : Bytes{};
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
                     ? num_windows(kScalarBits, opt.window_bits) * slices
                     : std::max<size_t>(256, 52 * slices));
  // The base vectors' look-ups, descriptions and ones sums: < 128 bytes each per vector.
  const size_t small = tasks * (m * sizeof(typename C::Xyzz) + 256) +
                       (4 * threads + 1) * (m * sizeof(typename C::Xyzz) + 8 + 512) +
                       threads * (sizeof(AffineWindow<C>) + 64) +  // the pool's objects and list
                       vectors * m * (sizeof(typename C::Xyzz) + 128);
  // Tail: a word and a scalar per term; with GLV two, plus E(P) per base vector. While the vectors grow from one
  // to two per term both copies are live (three), but that is before any task runs: the tasks'
  // scratch comes on top of the grown tails only (adding both overstated the peak by ~15%).
  const size_t word = sizeof(uint32_t) + sizeof(Limbs<C>);
  const size_t endo = m * sizeof(typename C::Affine);
  const size_t tails_run = vectors * n * (glv ? 2 * word + endo : word);
  const size_t tails_grow = vectors * n * (glv ? 3 * word + endo : word);
  return small + std::max(tails_grow, tails_run + threads * per_task);
}
}  // namespace detail

template <class C>
size_t scratch_bytes(size_t n, size_t vectors, const Options& opt) {
  return detail::scratch_bytes_of<C>(n, vectors, 1, opt);
}

template <class C>
size_t scratch_bytes_multi(size_t n, size_t bases, const Options& opt) {
  return detail::scratch_bytes_of<C>(n, 1, bases, opt);
}

template <class C>
typename C::Jacobian msm_naive(std::span<const typename C::Affine> bases,
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
  template C::Jacobian msm<C>(std::span<const C::Affine>, std::span<const C::Fr>, const Options&); \
  template C::Jacobian msm_canonical<C>(std::span<const C::Affine>, std::span<const Limbs<C>>,     \
                                        const Options&);                                           \
  template std::vector<C::Jacobian> msm_batch<C>(                                                  \
      std::span<const C::Affine>, std::span<const std::span<const C::Fr>>, const Options&);        \
  template std::vector<C::Jacobian> msm_batch_canonical<C>(                                        \
      std::span<const C::Affine>, std::span<const std::span<const Limbs<C>>>, const Options&);     \
  template std::vector<C::Jacobian> msm_multi<C>(                                                  \
      std::span<const std::span<const C::Affine>>, std::span<const C::Fr>, const Options&);        \
  template size_t scratch_bytes<C>(size_t, size_t, const Options&);                                \
  template size_t scratch_bytes_multi<C>(size_t, size_t, const Options&);                          \
  template C::Jacobian msm_naive<C>(std::span<const C::Affine>, std::span<const C::Fr>);

}  // namespace splitprove::msm
