#pragma once
// Batch-affine bucket accumulation (AffineWindow), its per-call pool of scratch (AffinePool) and
// one window run with them. This file is long because AffineWindow is one concept: its chunk
// sort, its rounds (scalar and in lanes) and its scratch sizing share one set of buffers.
#include "msm/buckets.hpp"

namespace splitprove::msm::detail {

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
// 2^16 proof's page faults (`git show 8b38ce2:bench/RESULTS.md`, "CPU prover speed, branch cpu3").
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

}  // namespace splitprove::msm::detail
