#pragma once
// Multi-scalar multiplication  sum_i k_i·P_i  over a curve group (ec::Curve<P>), CPU, on the
// library's thread pool. Pippenger's bucket method with signed-digit windows:
//
//   * every scalar is split into c-bit signed digits d_w in (-2^(c-1), 2^(c-1)], so one window
//     needs only 2^(c-1) buckets (a negative digit adds -P, which costs a negation of y);
//   * scalars equal to 0 (and bases at infinity) are dropped before any window is looked at, and
//     scalars equal to 1 are summed directly in the same pass (Groth16 witnesses are mostly 0s and
//     1s: see DESIGN.md §3, the "split MSM"); only the remaining "tail" goes through the windows;
//   * buckets are accumulated either in XYZZ coordinates (mixed addition 8M + 2S) or in affine
//     coordinates with batched inversion (~6M per addition; see msm_impl.hpp for the scheme);
//   * on curves with a GLV endomorphism E (E(P) = lambda·P), each tail term k·P becomes
//     k1·P + k2·E(P) with ~128-bit k1, k2, so the windows cover half as many bits;
//   * the work is cut into (window, slice of the tail) tasks, run by util::parallel_for.
//
// Entry points take bases in affine form (a util::PodSpan: a std::span or vector of points, or a
// proving key's points where its file is mapped, at any alignment) and scalars either as Fr elements (Montgomery form) or as
// canonical little-endian limbs (< r), the form in which .wtns files store witnesses. The batch
// variants run several scalar vectors over the same bases in one call (the partitions of one proof
// share a proving key), with all their tasks scheduled together.
//
// Templates over the curve C = ec::Curve<P>; they are instantiated for G1 and G2 of each curve in
// msm_<curve>.cpp (one file per curve). Definitions live in msm_impl.hpp.
//
// Errors (splitprove::Error): bases and scalars of different lengths, a canonical scalar >= r, a
// window size out of range. The result for an empty input is the identity.
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "ff/bigint.hpp"
#include "util/pod_array.hpp"

namespace splitprove::msm {

// How buckets are accumulated. kAuto picks batch-affine where there are enough points per task
// for the batched inversion to pay off, XYZZ otherwise.
enum class Buckets { kAuto, kXyzz, kBatchAffine };

// At most 2^15 buckets per task (G2 batch-affine: up to ~60 MB of scratch per task); the cost model
// picks 16 from ~2^19 terms on.
inline constexpr unsigned kMaxWindowBits = 16;

struct Options {
  unsigned window_bits = 0;  // c; 0 = chosen from the number of tail scalars (cost model)
  Buckets buckets = Buckets::kAuto;
  size_t slices = 0;  // tail slices per window (tasks = windows × slices); 0 = from the cost model
  size_t chunk = 0;  // batch-affine: points sorted into buckets at a time; 0 = from the window size
  bool glv = true;   // split scalars by the curve's endomorphism where it has one (ec::GlvSplit)
};

template <class C>
using Limbs = ff::Limbs<C::Fr::N>;

// sum_i scalars[i]·bases[i]. bases.size() must equal scalars.size().
template <class C>
typename C::Jacobian msm(util::PodSpan<typename C::Affine> bases,
                         std::span<const typename C::Fr> scalars, const Options& opt = {});

// Scratch one call leaves to the next on the same curve: the tail's arrays and the batch-affine
// objects (buckets, sort and round buffers). A caller that runs MSMs one after another (a proof's
// H, A, B1 and C) passes one workspace to each, so that the later calls write into pages the first
// one has already faulted in rather than into fresh ones (on a virtual machine a page fault costs
// microseconds: perf put 14% of a BN254 2^16 proof's CPU time in them). What it holds between
// calls is at most the largest scratch_bytes of the calls it served; it is freed when the
// workspace dies. One call at a time.
template <class C>
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(const Workspace&) = delete;
  Workspace& operator=(const Workspace&) = delete;
  struct State;  // msm_impl.hpp
  State& state() { return *s_; }

 private:
  std::unique_ptr<State> s_;
};

// The same, with the scratch kept in `ws` (above).
template <class C>
typename C::Jacobian msm(util::PodSpan<typename C::Affine> bases,
                         std::span<const typename C::Fr> scalars, Workspace<C>& ws,
                         const Options& opt = {});

// The same with scalars as canonical little-endian integers; each must be < r.
template <class C>
typename C::Jacobian msm_canonical(util::PodSpan<typename C::Affine> bases,
                                   std::span<const Limbs<C>> scalars, const Options& opt = {});

// One result per scalar vector; each vector must be as long as bases.
template <class C>
std::vector<typename C::Jacobian> msm_batch(
    util::PodSpan<typename C::Affine> bases,
    std::span<const std::span<const typename C::Fr>> scalars, const Options& opt = {});
template <class C>
std::vector<typename C::Jacobian> msm_batch_canonical(
    util::PodSpan<typename C::Affine> bases, std::span<const std::span<const Limbs<C>>> scalars,
    const Options& opt = {});

// An upper bound of the memory one call allocates besides its result, for `vectors` scalar vectors
// of n terms (what a MemoryBudget reservation for the call must cover): the tails (4 + 8·N bytes
// per term whose scalar is neither 0 nor 1) and the scratch of the tasks running at once (one per
// pool thread: buckets, sort and round buffers, up to ~60 MB each for G2 with 16-bit windows).
template <class C>
size_t scratch_bytes(size_t n, size_t vectors = 1, const Options& opt = {});

// The reference: binary double-and-add per term, summed in Jacobian form. Slow; for tests.
template <class C>
typename C::Jacobian msm_naive(util::PodSpan<typename C::Affine> bases,
                               std::span<const typename C::Fr> scalars);

}  // namespace splitprove::msm
