#pragma once
// Multi-scalar multiplication Σ k_i·P_i on the GPU for BLS12-381 G1 and G2, with the split of
// DESIGN §3: scalars equal to 0 are skipped, scalars equal to 1 are summed by a bitmap-driven
// batch addition, and only the remaining "tail" goes through Pippenger.
//
// Pippenger (msm_impl.cuh): signed c-bit digits (W = floor(255/c) + 1 windows, 2^(c-1) buckets
// each); one (window, |digit|) key per non-zero digit of a tail scalar, sorted with cub's radix
// sort together with (point index, sign); runs of equal keys are buckets, summed one thread per
// bucket in XYZZ coordinates (the buckets taken longest first, so a warp's lanes get equal work;
// buckets far above the mean are cut into chunks); each window's Σ (b+1)·B_b is a running sum
// over segments of buckets on the device; the W window sums and the ones sum come back to the
// host, which combines them (W·c doublings, well under a millisecond).
//
// Bases stay resident on the device (DeviceBases, uploaded once per proving key); scalars are a
// device array of n Fr elements, either in Montgomery form (what the NTT leaves: the H scalars)
// or canonical (what .wtns files hold). Every scalar must be < r: the first that is not is named
// in the error. Points at infinity are allowed among the bases. CUDA-free header.
#include <cstddef>
#include <cstdint>
#include <span>

#include "cuda/pool.hpp"
#include "util/pod_array.hpp"
#include "ec/bls12_381.hpp"

namespace splitprove::cuda {

enum class ScalarForm : uint8_t { montgomery, canonical };

inline constexpr unsigned kMaxWindowBits = 20;

struct MsmOptions {
  unsigned window_bits = 0;  // c in [1, kMaxWindowBits]; 0: the cost model's choice for the tail
  bool split = true;         // false: ones go through Pippenger too (the unsplit MSM)
  // true: the bucket kernel takes the runs longest first (a sort of the run lengths), so the lanes
  // of a warp sum buckets of nearly equal size; false: in key order. Same sums either way.
  bool balance = true;
  // true: where the curve asks for it (the G2s), the bucket kernel compiled for 3 blocks of 128
  // threads per SM instead of 2 (fewer registers, some spill); false: the unbounded kernel.
  bool bounded_buckets = true;
  // true: the window phase runs as many segment threads as the GPU holds at once (one wave of
  // window_kernel, from the occupancy query; segments of any length); false: segments of a power
  // of two buckets, at least 2^15 threads (more than a wave when the window kernel holds few).
  bool fit_window_segments = true;
  // true: each bucket's entries found by a pass over the sorted keys (first and last index of every
  // key, one dense table of W·2^(c-1) buckets, empty ones included); false: cub's run-length
  // encoding and an exclusive sum (only the non-empty buckets). Same buckets either way.
  bool dense_runs = true;
  // true (with balance): the cap-sized chunks of the big runs join the bucket kernel's queue,
  // sorted by length with the runs, so no separate chunk kernel runs after it with waves of its
  // own; false: the chunk kernel after the bucket kernel.
  bool merge_chunks = true;
  // G2 only: true: the bucket kernel's Fp2 products and squares each called as one function (base
  // products inline in it, ~10 calls per addition); false: each Fp product called (~28).
  bool fp2_call = false;
};

struct MsmStats {
  size_t n = 0, zeros = 0, ones = 0, tail = 0;
  unsigned window_bits = 0, windows = 0;
  size_t big_runs = 0;  // buckets cut into chunks (skewed scalars, short top windows)
  // Device time of the phases (CUDA events on the call's stream), milliseconds.
  float ms_classify = 0, ms_ones = 0, ms_sort = 0, ms_buckets = 0, ms_windows = 0;
  unsigned window_segments = 0;  // segments per window in the window phase
};

// The window size the cost model picks for `tail` Pippenger terms: the c that minimises
// W(c)·(tail + 3·2^(c-1)) (bucket additions plus the per-window bucket reduction).
unsigned choose_window_bits(size_t tail);

// Affine bases on the device, (0, 0) standing for infinity: 96 bytes a G1 point, 192 a G2 point.
// Owns its block of the pool (tag srs: it lives as long as the proving key).
template <class C>
class DeviceBases {
 public:
  using Affine = typename C::Affine;
  static constexpr size_t kPointBytes = 2 * sizeof(typename C::F);

  DeviceBases(DevicePool& pool, util::PodSpan<Affine> points);
  // Adopts a block already holding n points in the device layout (benchmarks fill it on the GPU).
  DeviceBases(DeviceBlock&& block, size_t n);

  size_t size() const { return n_; }
  const void* get() const { return blk_.get(); }

 private:
  DeviceBlock blk_;
  size_t n_ = 0;
};

// bases[i] = scalars[i]·G, G the group's generator, made on the device (cuda/fixed_base.cuh): the
// point vectors of a development key (zk::dev_setup_scalars) made where the prover uses them.
// Scalars in Montgomery form, as the host holds them.
template <class C>
DeviceBases<C> generator_multiples(DevicePool& pool, std::span<const typename C::Fr> scalars);

// Σ scalars[i]·bases[i] for i < n (n <= bases.size()); d_scalars: n device Fr elements.
template <class C>
typename C::Jacobian msm(DevicePool& pool, const DeviceBases<C>& bases, const void* d_scalars,
                         size_t n, ScalarForm form, const MsmOptions& opt = {},
                         MsmStats* stats = nullptr, CUstream_st* stream = nullptr);

// Host convenience: uploads bases and scalars (Montgomery form, the host Fr), runs, returns.
template <class C>
typename C::Jacobian msm_host(DevicePool& pool, std::span<const typename C::Affine> bases,
                              std::span<const typename C::Fr> scalars, const MsmOptions& opt = {},
                              MsmStats* stats = nullptr);

}  // namespace splitprove::cuda
