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
#include <string>

#include "msm/msm.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::msm {
namespace detail {

// ---- cost model
// ---------------------------------------------------------------------------------- Units: one
// field multiplication of the coordinate field. A mixed XYZZ addition is 8M + 2S; a batch-affine
// addition is 1M (slope) + 1S + 1M (y) + 3M (its share of Montgomery's batch inversion) plus the
// inversion itself spread over the batch; reducing one bucket costs one mixed and one full XYZZ
// addition (running += bucket, sum += running: 10 + 14). Measured on BLS12-381 G1 the ratios hold
// within ~15%, which moves the optimum c by at most one.
inline constexpr double kCostXyzzAdd = 10.0;
inline constexpr double kCostAffineAdd = 7.0;
inline constexpr double kCostBucket = 24.0;
inline constexpr unsigned kScalarBits = 255;  // BLS12-381 r and BN254 r both have < 256 bits

inline unsigned num_windows(unsigned bits, unsigned c) { return bits / c + 1; }

inline double window_cost(size_t tail, unsigned c, double add_cost) {
  return double(num_windows(kScalarBits, c)) *
         (double(tail) * add_cost + double(size_t(1) << (c - 1)) * kCostBucket);
}

inline unsigned best_window_bits(size_t tail, double add_cost) {
  unsigned best = 1;
  double best_cost = window_cost(tail, 1, add_cost);
  for (unsigned c = 2; c <= 16; ++c) {
    const double cost = window_cost(tail, c, add_cost);
    if (cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

// ---- signed digits
// -------------------------------------------------------------------------------
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

// ---- the tail of one scalar vector
// ----------------------------------------------------------------
template <class C>
struct Tail {
  std::vector<uint32_t> index;   // positions in bases, increasing
  std::vector<Limbs<C>> scalar;  // canonical scalars, same order
  typename C::Xyzz ones = C::Xyzz::identity();
};

// Splits [0, n) into `parts` near-equal slices.
inline size_t slice_begin(size_t n, size_t parts, size_t i) {
  return size_t((unsigned __int128)n * i / parts);
}

// Classifies terms (see the outline). kind(i) returns 0 (zero), 1 (one) or 2 (tail) and may throw
// for an invalid scalar; canonical(i) returns the canonical limbs of a tail scalar.
template <class C, class Kind, class Canonical>
Tail<C> classify(std::span<const typename C::Affine> bases, size_t n, const Kind& kind,
                 const Canonical& canonical) {
  using Xyzz = typename C::Xyzz;
  Tail<C> out;
  if (n == 0) return out;
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
            c += kind(i) == 2 && !bases[i].inf;
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
          Xyzz acc = Xyzz::identity();
          for (size_t i = slice_begin(n, parts, p), e = slice_begin(n, parts, p + 1); i < e; ++i) {
            if (bases[i].inf) continue;
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
  return out;
}

// ---- bucket accumulation -----------------------------------------------------------------------
// One task: window w over tail[begin, end). Returns sum_b (b+1)·B_b in XYZZ form.

// Running-sum reduction: after bucket b, running = sum_{j>=b} B_j and sum gains running, so bucket
// j is counted j+1 times. Cost per bucket: one addition into running, one into sum.
template <class C>
typename C::Xyzz reduce_xyzz(const std::vector<typename C::Xyzz>& buckets) {
  using Xyzz = typename C::Xyzz;
  Xyzz running = Xyzz::identity(), sum = Xyzz::identity();
  for (size_t b = buckets.size(); b-- > 0;) {
    running += buckets[b];
    sum += running;
  }
  return sum;
}

template <class C>
typename C::Xyzz window_xyzz(std::span<const typename C::Affine> bases, const Tail<C>& t,
                             unsigned c, unsigned w, size_t begin, size_t end) {
  using Xyzz = typename C::Xyzz;
  const WindowDigits<C::Fr::N> digit(c, w);
  std::vector<Xyzz> buckets(size_t(1) << (c - 1), Xyzz::identity());
  for (size_t j = begin; j < end; ++j) {
    const int64_t d = digit(t.scalar[j]);
    if (d == 0) continue;
    const auto& p = bases[t.index[j]];
    if (d > 0)
      buckets[size_t(d - 1)] += p;
    else
      buckets[size_t(-d - 1)] += -p;
  }
  return reduce_xyzz<C>(buckets);
}

// Batch-affine buckets. Each bucket is an affine point (inf = empty). Adding P to a non-empty
// bucket A needs  lambda = (y_P - y_A)/(x_P - x_A),  x = lambda^2 - x_A - x_P,
// y = lambda(x_A - x) - y_A; the divisions of a whole batch of such additions share one field
// inversion by Montgomery's trick (3M per element). Within one batch a bucket may appear once
// ("pending"); a point for a pending bucket waits in a small queue and joins the next batch. Points
// that would need the exceptional formulas (x_P = x_A: doubling, or P = -A) and overflow of the
// queue (heavily skewed digits, e.g. all scalars alike) go to a second, XYZZ bucket of the same
// index, so no input degrades below the XYZZ method. The window sum adds both kinds of bucket.
//
// Batch size: the inversion (Fermat, ~600M for BLS12-381 Fp) is spread over kBatch additions, and a
// point finds its bucket pending with probability ~ (pending)/(2^(c-1)); kBatch = 2^(c-3) keeps
// that at <= 1/8 on average, capped at 1024 (inversion share 0.6M per addition).
template <class C>
class AffineBuckets {
 public:
  using Affine = typename C::Affine;
  using Xyzz = typename C::Xyzz;
  using F = typename C::F;

  AffineBuckets(std::span<const Affine> bases, unsigned c)
      : bases_(bases),
        k_(size_t(1) << (c - 1)),
        batch_cap_(std::clamp<size_t>(k_ / 8, 1, 1024)),
        queue_cap_(std::max<size_t>(1, batch_cap_ / 4)),
        aff_(k_),
        extra_(k_, Xyzz::identity()),
        pending_(k_, 0) {
    batch_.reserve(batch_cap_);
    prefix_.resize(batch_cap_);
    queue_.reserve(queue_cap_);
    spare_.reserve(queue_cap_);
  }

  // Adds ±bases[index] to bucket b.
  void add(uint32_t b, uint32_t index, bool neg) {
    const Affine& p = bases_[index];
    Affine& a = aff_[b];
    if (a.inf) {
      a = neg ? -p : p;
      return;
    }
    if (pending_[b]) {
      if (queue_.size() < queue_cap_)
        queue_.push_back({b, index, neg});
      else
        extra_add(b, p, neg);
      return;
    }
    if (a.x == p.x) {  // doubling or cancellation: the complete XYZZ formulas handle both
      extra_add(b, p, neg);
      return;
    }
    pending_[b] = 1;
    batch_.push_back({b, index, neg});
    if (batch_.size() == batch_cap_) {
      flush();
      drain();
    }
  }

  // Finishes pending work and returns sum_b (b+1)·(A_b + X_b).
  Xyzz finish() {
    flush();
    drain();  // the queue holds at most queue_cap_ < batch_cap_ entries: no flush inside
    flush();
    for (const Op& o : queue_) extra_add(o.b, bases_[o.index], o.neg);  // duplicates of one bucket
    queue_.clear();
    Xyzz running = Xyzz::identity(), sum = Xyzz::identity();
    for (size_t b = k_; b-- > 0;) {
      running += aff_[b];
      running += extra_[b];
      sum += running;
    }
    return sum;
  }

 private:
  struct Op {
    uint32_t b, index;
    bool neg;
  };

  void extra_add(uint32_t b, const Affine& p, bool neg) {
    if (neg)
      extra_[b] += -p;
    else
      extra_[b] += p;
  }

  // Performs every addition of the batch with one inversion.
  void flush() {
    const size_t m = batch_.size();
    if (m == 0) return;
    F run = F::one();
    for (size_t j = 0; j < m; ++j) {
      prefix_[j] = run;  // product of the denominators before j
      run = run * (bases_[batch_[j].index].x - aff_[batch_[j].b].x);
    }
    F inv = run.inverse();  // 1 / product of all denominators
    for (size_t j = m; j-- > 0;) {
      const Op& o = batch_[j];
      const Affine& p = bases_[o.index];
      Affine& a = aff_[o.b];
      const F dx = p.x - a.x;
      const F dinv = inv * prefix_[j];  // 1/dx_j
      inv = inv * dx;                   // 1 / product of the denominators before j
      const F py = o.neg ? -p.y : p.y;
      const F lambda = (py - a.y) * dinv;
      const F x3 = lambda.square() - a.x - p.x;
      a.y = lambda * (a.x - x3) - a.y;
      a.x = x3;
      pending_[o.b] = 0;
    }
    batch_.clear();
  }

  // Moves queued points into the (empty) batch, keeping the ones whose bucket is taken again.
  void drain() {
    spare_.clear();
    for (const Op& o : queue_) {
      if (pending_[o.b]) {
        spare_.push_back(o);
        continue;
      }
      // The bucket is not empty: it was when the point was queued, and an affine sum written by
      // flush() is never the identity.
      const Affine& a = aff_[o.b];
      const Affine& p = bases_[o.index];
      if (a.x == p.x) {
        extra_add(o.b, p, o.neg);
      } else {
        pending_[o.b] = 1;
        batch_.push_back(o);
      }
    }
    std::swap(queue_, spare_);
  }

  std::span<const Affine> bases_;
  size_t k_, batch_cap_, queue_cap_;
  std::vector<Affine> aff_;
  std::vector<Xyzz> extra_;
  std::vector<uint8_t> pending_;
  std::vector<Op> batch_, queue_, spare_;
  std::vector<F> prefix_;
};

template <class C>
typename C::Xyzz window_affine(std::span<const typename C::Affine> bases, const Tail<C>& t,
                               unsigned c, unsigned w, size_t begin, size_t end) {
  const WindowDigits<C::Fr::N> digit(c, w);
  AffineBuckets<C> buckets(bases, c);
  for (size_t j = begin; j < end; ++j) {
    const int64_t d = digit(t.scalar[j]);
    if (d > 0)
      buckets.add(uint32_t(d - 1), t.index[j], false);
    else if (d < 0)
      buckets.add(uint32_t(-d - 1), t.index[j], true);
  }
  return buckets.finish();
}

// ---- planning and running --------------------------------------------------------------------
struct Plan {
  unsigned c = 1, windows = 0;
  size_t slices = 1;  // tail slices per window
  bool affine = false;
};

// Below this many tail terms per task the batches stay too small (or the buckets too few) for the
// batched inversion to beat XYZZ; measured crossover on BLS12-381 G1 is around 2^11 terms.
inline constexpr size_t kAffineMinTerms = 4096;
inline constexpr unsigned kAffineMinBits = 8;

inline Plan make_plan(size_t tail, size_t vectors, const Options& opt) {
  Plan p;
  if (opt.window_bits > kMaxWindowBits)
    throw Error("msm: window size " + std::to_string(opt.window_bits) +
                " bits is out of range (1.." + std::to_string(kMaxWindowBits) +
                ", or 0 for automatic)");
  bool affine = opt.buckets == Buckets::kBatchAffine;
  if (opt.buckets == Buckets::kAuto) {
    affine = tail >= kAffineMinTerms;
  }
  p.c = opt.window_bits ? opt.window_bits
                        : best_window_bits(tail, affine ? kCostAffineAdd : kCostXyzzAdd);
  if (opt.buckets == Buckets::kAuto && p.c < kAffineMinBits) affine = false;
  p.affine = affine;
  p.windows = num_windows(kScalarBits, p.c);
  // Slices per window: minimise the makespan  rounds · (slice cost + reduction cost)  with
  // rounds = ceil(tasks / threads), so that e.g. 20 windows on 16 threads are cut into 80 tasks
  // (5 rounds of a quarter) rather than 2 rounds of whole windows.
  const size_t threads = util::num_threads();
  const double add = affine ? kCostAffineAdd : kCostXyzzAdd;
  const double red = double(size_t(1) << (p.c - 1)) * kCostBucket;
  if (opt.slices) {
    p.slices = opt.slices;
    return p;
  }
  double best = -1;
  for (size_t s = 1; s <= 64; ++s) {
    if (s > 1 && tail / s < 256) break;
    const size_t tasks = vectors * p.windows * s;
    const double rounds = double((tasks + threads - 1) / threads);
    const double cost = rounds * (double(tail) / double(s) * add + red);
    if (best < 0 || cost < best) best = cost, p.slices = s;
  }
  return p;
}

template <class C>
std::vector<typename C::Jacobian> run(std::span<const typename C::Affine> bases,
                                      std::vector<Tail<C>>& tails, const Options& opt) {
  using Xyzz = typename C::Xyzz;
  using Jacobian = typename C::Jacobian;
  const size_t nv = tails.size();
  std::vector<Plan> plans(nv);
  std::vector<size_t> first(nv + 1, 0);  // first task of each vector
  for (size_t v = 0; v < nv; ++v) {
    plans[v] = make_plan(tails[v].index.size(), nv, opt);
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
          partial[task] = p.affine ? window_affine<C>(bases, t, p.c, w, b, e)
                                   : window_xyzz<C>(bases, t, p.c, w, b, e);
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
Tail<C> classify_fr(std::span<const typename C::Affine> bases,
                    std::span<const typename C::Fr> scalars) {
  return classify<C>(
      bases, scalars.size(),
      [&](size_t i) { return scalars[i].is_zero()  ? 0
                             : scalars[i].is_one() ? 1
                                                   : 2; },
      [&](size_t i) { return scalars[i].to_canonical(); });
}

template <class C>
Tail<C> classify_canonical(std::span<const typename C::Affine> bases,
                           std::span<const Limbs<C>> scalars, const std::string& where) {
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
  std::vector<detail::Tail<C>> tails;
  tails.push_back(detail::classify_fr<C>(bases, scalars));
  return detail::run<C>(bases, tails, opt)[0];
}

template <class C>
typename C::Jacobian msm_canonical(std::span<const typename C::Affine> bases,
                                   std::span<const Limbs<C>> scalars, const Options& opt) {
  detail::check_sizes(bases.size(), scalars.size(), "msm: ");
  std::vector<detail::Tail<C>> tails;
  tails.push_back(detail::classify_canonical<C>(bases, scalars, "msm: "));
  return detail::run<C>(bases, tails, opt)[0];
}

template <class C>
std::vector<typename C::Jacobian> msm_batch(
    std::span<const typename C::Affine> bases,
    std::span<const std::span<const typename C::Fr>> scalars, const Options& opt) {
  std::vector<detail::Tail<C>> tails;
  tails.reserve(scalars.size());
  for (size_t v = 0; v < scalars.size(); ++v) {
    detail::check_sizes(bases.size(), scalars[v].size(),
                        "msm_batch: vector " + std::to_string(v) + ": ");
    tails.push_back(detail::classify_fr<C>(bases, scalars[v]));
  }
  return detail::run<C>(bases, tails, opt);
}

template <class C>
std::vector<typename C::Jacobian> msm_batch_canonical(
    std::span<const typename C::Affine> bases, std::span<const std::span<const Limbs<C>>> scalars,
    const Options& opt) {
  std::vector<detail::Tail<C>> tails;
  tails.reserve(scalars.size());
  for (size_t v = 0; v < scalars.size(); ++v) {
    const std::string where = "msm_batch: vector " + std::to_string(v) + ": ";
    detail::check_sizes(bases.size(), scalars[v].size(), where);
    tails.push_back(detail::classify_canonical<C>(bases, scalars[v], where));
  }
  return detail::run<C>(bases, tails, opt);
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

}  // namespace splitprove::msm
