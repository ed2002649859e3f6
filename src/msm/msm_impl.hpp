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
//     S = (...(S_top·2^c + S_{top-1})·2^c + ...) + S_0, and finally S + ones.//
// The pieces: msm/cost.hpp (the cost model), msm/digits.hpp (signed digits), msm/tail.hpp (the
// tail, GLV, classification), msm/buckets.hpp (XYZZ buckets), msm/batch_affine.hpp (batch-affine
// buckets); this file plans and runs them and defines the public templates.
#include "msm/batch_affine.hpp"

namespace splitprove::msm {
namespace detail {

// ---- planning and running -----------------------------------------------------------------------
// The cost model (msm/cost.hpp) counts multiplications only; a batch-affine task's buckets, chunk and round
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
