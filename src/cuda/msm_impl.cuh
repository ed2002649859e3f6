#pragma once
// The GPU MSM (cuda/msm.hpp), written once over the curve group; msm_<curve>_g1.cu and
// msm_<curve>_g2.cu instantiate it.
// (Over 600 lines: the kernels and the host driver that sequences them, msm_detail::MsmCall with
// one member function per phase, are instantiated together per curve group.)
//
// Buffers of one call, all from the pool (so all in the device budget), released on return:
//   class    flags/pos (4n + 4n B), bitmap of ones (n/8 B), tail indices (4m B)
//   digits   keys + vals and their sort double buffers (16·W·m B), cub scratch
//   buckets  W·2^(c-1) XYZZ points, runs (unique key, count, offset: 12 B per bucket + 1)
//   order    (MsmOptions::balance) run lengths and indices, sorted: 16 B per bucket (and per
//            chunk of a big run, merged) + cub scratch
//   big      big runs, their chunk counts and offsets (12 B per bucket), chunk sums (per chunk)
//   reduce   W·S segment sums, G ones partials
// m = number of tail scalars, W windows of c bits, S segments per window.
#include <algorithm>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <string>
#include <type_traits>
#include <vector>

#include "cuda/ec.cuh"
#include "cuda/ff.cuh"
#include "cuda/fp2.cuh"
#include "cuda/msm.hpp"
#include "cuda/runtime.cuh"
#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"

namespace splitprove::cuda {
namespace msm_detail {
namespace {  // the kernels are compiled once per curve's translation unit

constexpr uint32_t kSentinel = 0xffffffffu;
constexpr unsigned kOnesThreads = 128;
constexpr unsigned kOnesBlocks = 1024;

// Host <-> device coordinates (Montgomery limbs, back to back): a prime field's limbs, or an
// extension's coefficients c0 then c1, for any curve's host fields.
template <class HF>
inline void put_field(const HF& x, uint64_t* out) {
  if constexpr (requires(const HF& f) { f.c1; }) {
    put_field(x.c0, out);
    put_field(x.c1, out + sizeof(x.c0) / 8);
  } else {
    std::memcpy(out, x.mont().data(), sizeof(HF));
  }
}
template <class HF>
inline void get_field(const uint64_t* in, HF& x) {
  if constexpr (requires(const HF& f) { f.c1; }) {
    get_field(in, x.c0);
    get_field(in + sizeof(x.c0) / 8, x.c1);
  } else {
    typename HF::Repr r;
    std::memcpy(r.data(), in, sizeof(HF));
    x = HF::from_mont(r);
  }
}

// The device types of a curve group C, for every curve (the one map from host group to device
// types): F its coordinates (products called, for compile time), Fr its scalars, FCall the
// coordinates with the Fp2 product called whole (MsmOptions::fp2_call; G1: the same as F).
// kBucketMinBlocks: 0, or the blocks of kBucketThreads threads per SM the bucket kernel is also
// compiled for (MsmOptions::bounded_buckets).
template <class HFp, class HFr, int MinBlocks>
struct DevG1Of {
  using F = DevField<HFp, false>;
  using Fr = DevField<HFr>;
  using FCall = F;
  static constexpr int kBucketMinBlocks = MinBlocks;
  static constexpr int kBucketThreads = 128;
};
template <class HFp, class HFr, int MinBlocks>
struct DevG2Of {
  using F = DevFp2<HFp>;
  using Fr = DevField<HFr>;
  using FCall = DevFp2<HFp, true>;
  static constexpr int kBucketMinBlocks = MinBlocks;
  static constexpr int kBucketThreads = 128;
};
template <class C>
struct DevCurve;
// BLS12-381 G1 holds 3 blocks of 128 unbounded (152 registers).
template <>
struct DevCurve<bls12_381::G1> : DevG1Of<bls12_381::Fp, bls12_381::Fr, 0> {
  static constexpr const char* name = "cuda::msm<G1>";
};
// BLS12-381 G2 unbounded takes 254 registers: 8 warps per SM. Bounded to 3 blocks of 128 (12
// warps) it takes 168 registers and spills 1.6 KB (ptxas, 2026-12-03). 5 blocks of 64 (10 warps)
// get the same 168 registers and spill, not 200: an SM's registers are 4 quarter files of 16K,
// and 10 warps put 3 on some quarter.
template <>
struct DevCurve<bls12_381::G2> : DevG2Of<bls12_381::Fp, bls12_381::Fr, 3> {
  static constexpr const char* name = "cuda::msm<G2>";
};
// BN254 G1: 112 registers, 4 blocks unbounded.
template <>
struct DevCurve<bn254::G1> : DevG1Of<bn254::Fp, bn254::Fr, 0> {
  static constexpr const char* name = "cuda::msm<BN254 G1>";
};
// BN254 G2's bucket kernel takes 180 registers unbounded: 2 blocks of 128 threads (8 warps) per
// SM. Bounded to 3 blocks it fits 168 registers with an 8-byte spill (ptxas, 2026-12-03): 12 warps.
template <>
struct DevCurve<bn254::G2> : DevG2Of<bn254::Fp, bn254::Fr, 3> {
  static constexpr const char* name = "cuda::msm<BN254 G2>";
};
static_assert(sizeof(DevCurve<bls12_381::G1>::F) == sizeof(bls12_381::Fp) &&
              sizeof(DevCurve<bls12_381::G2>::F) == sizeof(bls12_381::Fp2) &&
              sizeof(DevCurve<bn254::G1>::F) == sizeof(bn254::Fp) &&
              sizeof(DevCurve<bn254::G2>::F) == sizeof(bn254::Fp2));

template <class DFr>
__device__ __forceinline__ bool canonical_is_one(const DFr& s) {
  uint32_t acc = s.v[0] ^ 1u;
#pragma unroll
  for (int i = 1; i < 8; ++i) acc |= s.v[i];
  return acc == 0;
}

// One warp covers 32 consecutive scalars, so lane i's "is one" bit lands in bit i of one bitmap
// word. flags[i] = 1 for a tail scalar. counts: [0] zeros, [1] ones. bad: the first index >= r.
template <class DFr>
__global__ void classify_kernel(const DFr* s, uint32_t n, bool mont, bool split, uint32_t* bitmap,
                                uint32_t* flags, unsigned long long* counts,
                                unsigned long long* bad) {
  const uint32_t lane = threadIdx.x & 31;
  const uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
  const uint32_t warps = (gridDim.x * blockDim.x) >> 5;
  for (uint64_t base = uint64_t(warp) * 32; base < n; base += uint64_t(warps) * 32) {
    const uint32_t i = uint32_t(base) + lane;
    bool zero = false, one = false;
    if (i < n) {
      DFr x = DFr::load(s + i);
      bool tail = false;
      if (!x.is_reduced()) {
        atomicMin(bad, (unsigned long long)i);
      } else {
        if (mont) x = x.from_mont();
        zero = x.is_zero();
        one = split && canonical_is_one(x);
        tail = !zero && !one;
      }
      flags[i] = tail ? 1u : 0u;
    }
    const uint32_t ones = __ballot_sync(0xffffffffu, one);
    const uint32_t zeros = __ballot_sync(0xffffffffu, zero);
    if (lane == 0) {
      bitmap[base >> 5] = ones;
      if (zeros) atomicAdd(&counts[0], (unsigned long long)__popc(zeros));
      if (ones) atomicAdd(&counts[1], (unsigned long long)__popc(ones));
    }
  }
}

__global__ void scatter_tail_kernel(const uint32_t* flags, const uint32_t* pos, uint32_t n,
                                    uint32_t* tail) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    if (flags[i]) tail[pos[i]] = i;
}

// Per thread: the sum of the bases whose bit is set, over a grid-stride walk of bitmap words.
template <class F>
__global__ void __launch_bounds__(kOnesThreads)
    ones_kernel(const AffinePoint<F>* bases, const uint32_t* bitmap, uint32_t words,
                XyzzPoint<F>* partial) {
  XyzzPoint<F> acc = XyzzPoint<F>::infinity();
  const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  for (uint32_t w = tid; w < words; w += gridDim.x * blockDim.x) {
    uint32_t bits = bitmap[w];
    while (bits) {
      const int b = __ffs(bits) - 1;
      bits &= bits - 1;
      acc += load_affine<F>(bases + size_t(w) * 32 + b);
    }
  }
  acc.store(partial + tid);
}

// Signed c-bit digits of the tail scalars: key (window << (c-1)) | (|d| - 1), value
// (index << 1) | (d < 0); a zero digit gets the sentinel key, which sorts after every real key.
template <class DFr>
__global__ void digits_kernel(const DFr* s, bool mont, const uint32_t* tail, uint32_t m, unsigned c,
                              unsigned windows, uint32_t* keys, uint32_t* vals) {
  const uint32_t half = 1u << (c - 1);
  const uint64_t mask = (uint64_t(1) << c) - 1;
  for (uint32_t t = blockIdx.x * blockDim.x + threadIdx.x; t < m; t += gridDim.x * blockDim.x) {
    const uint32_t i = tail[t];
    DFr x = DFr::load(s + i);
    if (mont) x = x.from_mont();
    uint32_t carry = 0;
    for (unsigned w = 0; w < windows; ++w) {
      const unsigned bit = w * c, limb = bit >> 5, sh = bit & 31;
      const uint64_t lo = limb < 8 ? x.v[limb] : 0, hi = limb + 1 < 8 ? x.v[limb + 1] : 0;
      uint32_t raw = uint32_t(((lo | (hi << 32)) >> sh) & mask) + carry;
      uint32_t key = kSentinel, val = i << 1;
      if (raw > half) {  // digit raw - 2^c < 0 (0 when raw = 2^c)
        carry = 1;
        const uint32_t mag = (1u << c) - raw;
        if (mag) key = (w << (c - 1)) | (mag - 1), val |= 1;
      } else {
        carry = 0;
        if (raw) key = (w << (c - 1)) | (raw - 1);
      }
      keys[size_t(w) * m + t] = key;
      vals[size_t(w) * m + t] = val;
    }
  }
}

// The bucket kernel's order of runs when balanced: key[r] = the run's length if bucket_kernel
// takes it (a real key, at most `cap` entries), else 0; idx[r] = r. Sorted by key, descending,
// the 32 lanes of a warp get runs of nearly equal length. In key order (the sort's), lane i of a
// warp takes the run of key w·2^(c-1) + 32j + i: independent Poisson lengths (mean 32 at 2^24,
// c = 20), so the warp runs for the longest of 32 (~mean + 2σ, ~44) while the mean lane works
// 32 of those iterations: ~74% of the lanes busy, the bucket phase's measured share of its floor.
__global__ void run_len_keys_kernel(const uint32_t* unique, const uint32_t* counts,
                                    const uint32_t* num_runs, uint32_t cap, uint32_t max_runs,
                                    uint32_t* key, uint32_t* idx) {
  const uint32_t runs = *num_runs;
  for (uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < max_runs;
       r += gridDim.x * blockDim.x) {
    const bool take = r < runs && unique[r] != kSentinel && counts[r] <= cap;
    key[r] = take ? counts[r] : 0u;
    idx[r] = r;
  }
}

// The dense run table (MsmOptions::dense_runs), step 1: over the sorted keys, the first index of
// each key goes to begin[key], one past its last to end[key] (both zeroed before: empty buckets
// keep 0, 0). Zero digits (the sentinel key, sorted last) are skipped.
__global__ void run_bounds_kernel(const uint32_t* keys, uint32_t items, uint32_t* begin,
                                  uint32_t* end) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < items;
       i += gridDim.x * blockDim.x) {
    const uint32_t k = keys[i];
    if (k == kSentinel) continue;
    if (i == 0 || keys[i - 1] != k) begin[k] = i;
    if (i + 1 == items || keys[i + 1] != k) end[k] = i + 1;
  }
}

// Step 2: run r is bucket r (unique[r] = r), counts[r] = end - begin (counts holds end on entry,
// offsets holds begin), and the number of runs is the number of buckets.
__global__ void dense_runs_kernel(uint32_t buckets, uint32_t* unique, uint32_t* counts,
                                  const uint32_t* offsets, uint32_t* num_runs) {
  for (uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < buckets;
       r += gridDim.x * blockDim.x) {
    unique[r] = r;
    counts[r] -= offsets[r];
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *num_runs = buckets;
}

// The big run a chunk q belongs to: the last i < nb with chunk_off[i] <= q (chunk_off: exclusive
// sums of the big runs' chunk counts).
__device__ __forceinline__ uint32_t chunk_run(const uint32_t* chunk_off, uint32_t nb, uint32_t q) {
  uint32_t lo = 0, hi = nb;
  while (hi - lo > 1) {
    const uint32_t mid = (lo + hi) / 2;
    if (chunk_off[mid] <= q)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

// What the bucket kernel reads and writes. order: null (thread i takes run i), or a permutation
// of 0..max_runs-1 (thread i takes run order[i]; entries >= the run count are skipped) followed,
// when the big runs' chunks are merged in (MsmOptions::merge_chunks), by max_runs + q for each of
// their `total` chunks q: chunk q's sum goes to partial[q].
template <class F>
struct BucketArgs {
  const AffinePoint<F>* bases;
  const uint32_t *unique, *counts, *offsets, *num_runs, *order;
  uint32_t max_runs;
  const uint32_t* vals;
  uint32_t cap;
  XyzzPoint<F>* buckets;
  const uint32_t *big = nullptr, *chunk_off = nullptr;  // merged chunks only
  uint32_t nb = 0, total = 0;
  XyzzPoint<F>* partial = nullptr;
};

// One thread per run of equal keys (a bucket) of at most `cap` entries: B_key = Σ ±bases; and,
// merged, one per cap-sized chunk of a longer run. Unmerged, longer runs are left to chunk_kernel.
template <class F>
__device__ __forceinline__ void bucket_body(const BucketArgs<F>& a) {
  const uint32_t runs = *a.num_runs;
  const uint32_t threads_end = a.order ? a.max_runs + a.total : runs;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < threads_end;
       i += gridDim.x * blockDim.x) {
    const uint32_t r = a.order ? a.order[i] : i;
    uint32_t j, end;
    XyzzPoint<F>* out;
    if (r < a.max_runs) {
      if (r >= runs) continue;
      const uint32_t key = a.unique[r], count = a.counts[r];
      // count 0: an empty bucket of the dense table, already infinity (the buckets are zeroed).
      if (key == kSentinel || count == 0 || count > a.cap) continue;
      j = a.offsets[r];
      end = j + count;
      out = a.buckets + key;
    } else {
      const uint32_t q = r - a.max_runs, b = chunk_run(a.chunk_off, a.nb, q), rr = a.big[b];
      j = a.offsets[rr] + (q - a.chunk_off[b]) * a.cap;
      end = min(j + a.cap, a.offsets[rr] + a.counts[rr]);
      out = a.partial + q;
    }
    XyzzPoint<F> acc = XyzzPoint<F>::infinity();
    for (; j < end; ++j) {
      const uint32_t v = a.vals[j];
      AffinePoint<F> p = load_affine<F>(a.bases + (v >> 1));
      if (v & 1) p = -p;
      acc += p;
    }
    acc.store(out);
  }
}

template <class F>
__global__ void bucket_kernel(const BucketArgs<F> a) {
  bucket_body<F>(a);
}
// The same kernel compiled for kMinBlocks blocks of kThreads threads per SM (at most 65536 /
// (kThreads · kMinBlocks) registers), for a curve whose bucket kernel sits just above an
// occupancy step (DevCurve::kBucketMinBlocks, kBucketThreads).
template <class F, int kThreads, int kMinBlocks>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    bucket_kernel_bounded(const BucketArgs<F> a) {
  bucket_body<F>(a);
}

// The balanced order's keys of the merged chunks (after run_len_keys_kernel's max_runs keys):
// key[q] = chunk q's length, idx[q] = max_runs + q.
__global__ void chunk_len_keys_kernel(const uint32_t* counts, const uint32_t* big,
                                      const uint32_t* chunk_off, uint32_t nb, uint32_t total,
                                      uint32_t cap, uint32_t max_runs, uint32_t* key,
                                      uint32_t* idx) {
  for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < total; q += gridDim.x * blockDim.x) {
    const uint32_t b = chunk_run(chunk_off, nb, q);
    key[q] = min(cap, counts[big[b]] - (q - chunk_off[b]) * cap);
    idx[q] = max_runs + q;
  }
}

// Runs longer than `cap` (skewed scalars: many equal values, or a top window with few buckets):
// their indices, appended in any order, and how many cap-sized chunks each takes.
__global__ void find_big_kernel(const uint32_t* unique, const uint32_t* counts,
                                const uint32_t* num_runs, uint32_t cap, uint32_t* big,
                                uint32_t* chunks, uint32_t* nbig) {
  const uint32_t runs = *num_runs;
  for (uint32_t r = blockIdx.x * blockDim.x + threadIdx.x; r < runs; r += gridDim.x * blockDim.x)
    if (unique[r] != kSentinel && counts[r] > cap) {
      const uint32_t i = atomicAdd(nbig, 1u);
      big[i] = r;
      chunks[i] = (counts[r] + cap - 1) / cap;
    }
}

// One thread per chunk q of a big run (chunk_off: exclusive sums of the runs' chunk counts):
// partial[q] = the sum of its <= cap entries.
template <class F>
__global__ void chunk_kernel(const AffinePoint<F>* bases, const uint32_t* counts,
                             const uint32_t* offsets, const uint32_t* vals, const uint32_t* big,
                             const uint32_t* chunk_off, uint32_t nb, uint32_t total, uint32_t cap,
                             XyzzPoint<F>* partial) {
  for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < total; q += gridDim.x * blockDim.x) {
    const uint32_t lo = chunk_run(chunk_off, nb, q);
    const uint32_t r = big[lo];
    const uint32_t start = offsets[r] + (q - chunk_off[lo]) * cap;
    const uint32_t end = min(start + cap, offsets[r] + counts[r]);
    XyzzPoint<F> acc = XyzzPoint<F>::infinity();
    for (uint32_t j = start; j < end; ++j) {
      const uint32_t v = vals[j];
      AffinePoint<F> p = load_affine<F>(bases + (v >> 1));
      if (v & 1) p = -p;
      acc += p;
    }
    acc.store(partial + q);
  }
}

// One step of a tree sum inside each big run's partials (variable lengths): partial q, the j-th
// of its run, takes in partial q + d when j is a multiple of 2d and j + d is still in the run.
// After the steps d = 1, 2, 4, ... the first partial of a run holds the run's sum: the serial
// chain is log2(chunks) additions, not one per chunk (a GPU thread's additions are slow one by
// one; only many in flight are fast).
template <class F>
__global__ void chunk_tree_kernel(XyzzPoint<F>* partial, const uint32_t* chunks,
                                  const uint32_t* chunk_off, uint32_t nb, uint32_t total,
                                  uint32_t d) {
  for (uint32_t q = blockIdx.x * blockDim.x + threadIdx.x; q < total; q += gridDim.x * blockDim.x) {
    const uint32_t lo = chunk_run(chunk_off, nb, q);
    const uint32_t j = q - chunk_off[lo];
    if (j % (2 * d) == 0 && j + d < chunks[lo]) {
      XyzzPoint<F> x = XyzzPoint<F>::load(partial + q);
      x += XyzzPoint<F>::load(partial + q + d);
      x.store(partial + q);
    }
  }
}

template <class F>
__global__ void chunk_store_kernel(const XyzzPoint<F>* partial, const uint32_t* unique,
                                   const uint32_t* big, const uint32_t* chunk_off, uint32_t nb,
                                   XyzzPoint<F>* buckets) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < nb; i += gridDim.x * blockDim.x)
    XyzzPoint<F>::load(partial + chunk_off[i]).store(buckets + unique[big[i]]);
}

// k·p for a small public k (double-and-add from the top bit).
template <class F>
__device__ XyzzPoint<F> mul_small(const XyzzPoint<F>& p, uint32_t k) {
  XyzzPoint<F> acc = XyzzPoint<F>::infinity();
  for (int b = 31 - __clz(k); b >= 0; --b) {
    acc = acc.dbl();
    if ((k >> b) & 1) acc += p;
  }
  return acc;
}

// Segment g = (window w, segment s) of `segs` per window, buckets lo = s·P/segs up to (s+1)·P/segs
// (P = per_window; a power-of-two segment length when segs divides P): Σ_(b in seg) (b+1)·B_b by
// the running sum from the top (Σ (b-lo+1)·B_b) plus lo·Σ B_b.
template <class F>
__global__ void window_kernel(const XyzzPoint<F>* buckets, uint32_t per_window, uint32_t segs,
                              uint32_t segs_total, XyzzPoint<F>* out) {
  for (uint32_t g = blockIdx.x * blockDim.x + threadIdx.x; g < segs_total;
       g += gridDim.x * blockDim.x) {
    const uint32_t w = g / segs, sg = g % segs;
    const uint32_t lo = uint32_t(uint64_t(sg) * per_window / segs);
    const uint32_t hi = uint32_t(uint64_t(sg + 1) * per_window / segs);
    const XyzzPoint<F>* b = buckets + size_t(w) * per_window;
    XyzzPoint<F> run = XyzzPoint<F>::infinity(), sum = XyzzPoint<F>::infinity();
    for (uint32_t k = hi; k-- > lo;) {
      run += XyzzPoint<F>::load(b + k);
      sum += run;
    }
    if (lo) sum += mul_small(run, lo);
    sum.store(out + g);
  }
}

// a[seg·len + i] += a[seg·len + i + half] for i < cur - half: one halving step of a tree sum.
template <class F>
__global__ void halve_kernel(XyzzPoint<F>* a, uint32_t segs, uint32_t len, uint32_t cur,
                             uint32_t half) {
  const uint32_t adds = cur - half;
  for (uint32_t g = blockIdx.x * blockDim.x + threadIdx.x; g < segs * adds;
       g += gridDim.x * blockDim.x) {
    XyzzPoint<F>* p = a + size_t(g / adds) * len + g % adds;
    XyzzPoint<F> x = XyzzPoint<F>::load(p);
    x += XyzzPoint<F>::load(p + half);
    x.store(p);
  }
}

// Sums each of `segs` segments of `len` points into its first point.
template <class F>
void reduce_segments(XyzzPoint<F>* a, uint32_t segs, uint32_t len, cudaStream_t s) {
  for (uint32_t cur = len; cur > 1;) {
    const uint32_t half = (cur + 1) / 2;
    halve_kernel<F>
        <<<grid_for(size_t(segs) * (cur - half), 128), 128, 0, s>>>(a, segs, len, cur, half);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    cur = half;
  }
}

template <class C>
typename C::Xyzz to_host_xyzz(const uint64_t* p) {
  constexpr size_t L = sizeof(typename C::F) / 8;
  typename C::Xyzz r;
  get_field(p, r.X);
  get_field(p + L, r.Y);
  get_field(p + 2 * L, r.ZZ);
  get_field(p + 3 * L, r.ZZZ);
  return r;
}

template <class T>
T* carve(DeviceBlock& b, size_t& off, size_t count) {
  T* p = reinterpret_cast<T*>(static_cast<char*>(b.get()) + off);
  off += (count * sizeof(T) + 255) / 256 * 256;
  return p;
}
inline size_t carve_size(size_t count, size_t elem) { return (count * elem + 255) / 256 * 256; }

// The space of one cub radix sort of n uint32 pairs: keys and values, each with the array the sort
// may write into, and the sort's scratch of tmp bytes (carve_sort_size bytes in all).
struct SortSpace {
  uint32_t *k0, *k1, *v0, *v1;
  void* tmp;
};
inline size_t carve_sort_size(size_t n, size_t tmp) {
  return 4 * carve_size(n, 4) + carve_size(tmp, 1);
}
inline SortSpace carve_sort(DeviceBlock& b, size_t& off, size_t n, size_t tmp) {
  SortSpace s;
  s.k0 = carve<uint32_t>(b, off, n);
  s.k1 = carve<uint32_t>(b, off, n);
  s.v0 = carve<uint32_t>(b, off, n);
  s.v1 = carve<uint32_t>(b, off, n);
  s.tmp = carve<char>(b, off, tmp);
  return s;
}

// Events marking the phases of one call (destroyed with it).
struct PhaseEvents {
  static constexpr int kCount = 6;
  cudaEvent_t e[kCount] = {};
  PhaseEvents() {
    for (auto& x : e) SPLITPROVE_CUDA_CHECK(cudaEventCreate(&x));
  }
  ~PhaseEvents() {
    for (auto& x : e) cudaEventDestroy(x);
  }
  PhaseEvents(const PhaseEvents&) = delete;
  PhaseEvents& operator=(const PhaseEvents&) = delete;
  void mark(int i, cudaStream_t s) { SPLITPROVE_CUDA_CHECK(cudaEventRecord(e[i], s)); }
  float ms(int a, int b) const {
    float t = 0;
    return cudaEventElapsedTime(&t, e[a], e[b]) == cudaSuccess ? t : 0.f;
  }
};

}  // namespace
}  // namespace msm_detail

inline unsigned windows_for(unsigned c) { return 255 / c + 1; }

template <class C>
DeviceBases<C>::DeviceBases(DevicePool& pool, util::PodSpan<Affine> points) : n_(points.size()) {
  with_context("cuda::DeviceBases", [&] {
    constexpr size_t L = sizeof(typename C::F) / 8;
    static_assert(kPointBytes == 2 * L * 8);
    blk_ = pool.allocate(n_ * kPointBytes, mem::Tag::srs);
    upload_staged(blk_.get(), n_, kPointBytes, [&](size_t begin, size_t end, void* out) {
      auto* o = static_cast<uint64_t*>(out);
      for (size_t i = begin; i < end; ++i, o += 2 * L) {
        const Affine a = points[i];
        if (a.is_identity()) {
          std::fill(o, o + 2 * L, uint64_t(0));
        } else {
          msm_detail::put_field(a.x, o);
          msm_detail::put_field(a.y, o + L);
        }
      }
    });
  });
}

template <class C>
DeviceBases<C>::DeviceBases(DeviceBlock&& block, size_t n) : blk_(std::move(block)), n_(n) {
  if (blk_.bytes() < n * kPointBytes)
    throw Error("cuda::DeviceBases: a block of " + std::to_string(blk_.bytes()) +
                " bytes cannot hold " + std::to_string(n) + " points");
}

namespace msm_detail {
namespace {

// One call of msm(), phase by phase on the call's stream: classify -> ones -> (for a tail)
// digits -> buckets -> windows -> combine on the host. Each phase's blocks are members: they go
// back to the pool when the call object dies, after combine() has synchronised the stream.
template <class C>
class MsmCall {
 public:
  using F = typename DevCurve<C>::F;
  using DFr = typename DevCurve<C>::Fr;
  using Affine = AffinePoint<F>;
  using Xyzz = XyzzPoint<F>;
  using HXyzz = typename C::Xyzz;
  static constexpr size_t kLimbs = sizeof(Xyzz) / 8;
  static_assert(sizeof(Affine) == DeviceBases<C>::kPointBytes);

  MsmCall(DevicePool& pool, const DeviceBases<C>& bases, const void* d_scalars, size_t n,
          ScalarForm form, const MsmOptions& opt, cudaStream_t s)
      : pool_(pool),
        opt_(opt),
        s_(s),
        sc_(static_cast<const DFr*>(d_scalars)),
        pts_(static_cast<const Affine*>(bases.get())),
        mont_(form == ScalarForm::montgomery),
        n32_(uint32_t(n)),
        words_(uint32_t((n + 31) / 32)) {
    st_.n = n;
  }

  // The whole call; the stats of its phases in `st`.
  HXyzz run(MsmStats& st) {
    ev_.mark(0, s_);
    classify();
    ev_.mark(1, s_);
    sum_ones();
    ev_.mark(2, s_);
    for (int i = 3; i < PhaseEvents::kCount; ++i) ev_.mark(i, s_);  // re-marked when m > 0
    if (m_) {
      digits();
      ev_.mark(3, s_);
      buckets();
      ev_.mark(4, s_);
      windows();
      ev_.mark(5, s_);
    }
    const HXyzz r = combine();
    st = st_;
    return r;
  }

 private:
  // Zeros, ones (a bitmap) and the tail (flags -> positions -> indices); m_ = the tail's length.
  void classify() {
    const size_t n = n32_;
    size_t scan_tmp = 0;
    SPLITPROVE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_tmp, (uint32_t*)nullptr,
                                                        (uint32_t*)nullptr, int(n32_), s_));
    const size_t cls_bytes =
        3 * carve_size(n, 4) + carve_size(words_, 4) + carve_size(4, 8) + carve_size(scan_tmp, 1);
    cls_ = pool_.allocate(cls_bytes, mem::Tag::gpu);
    size_t off = 0;
    uint32_t* flags = carve<uint32_t>(cls_, off, n);
    uint32_t* pos = carve<uint32_t>(cls_, off, n);
    tail_ = carve<uint32_t>(cls_, off, n);
    bitmap_ = carve<uint32_t>(cls_, off, words_);
    unsigned long long* ctr = carve<unsigned long long>(cls_, off, 4);
    void* tmp = carve<char>(cls_, off, scan_tmp);
    const unsigned long long init[4] = {0, 0, n, 0};  // zeros, ones, first bad, -
    SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(ctr, init, sizeof init, cudaMemcpyHostToDevice, s_));
    classify_kernel<<<grid_for(n, 256), 256, 0, s_>>>(sc_, n32_, mont_, opt_.split, bitmap_, flags,
                                                      ctr, ctr + 2);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    SPLITPROVE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(tmp, scan_tmp, flags, pos, int(n32_), s_));
    scatter_tail_kernel<<<grid_for(n, 256), 256, 0, s_>>>(flags, pos, n32_, tail_);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    unsigned long long got[4];
    uint32_t last_pos = 0, last_flag = 0;
    SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(got, ctr, sizeof got, cudaMemcpyDeviceToHost, s_));
    SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(&last_pos, pos + n - 1, 4, cudaMemcpyDeviceToHost, s_));
    SPLITPROVE_CUDA_CHECK(
        cudaMemcpyAsync(&last_flag, flags + n - 1, 4, cudaMemcpyDeviceToHost, s_));
    SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(s_));
    if (got[2] < n)
      throw Error("scalar[" + std::to_string(got[2]) + "] is not < r (not a reduced " +
                  (mont_ ? "Montgomery" : "canonical") + " Fr element)");
    m_ = last_pos + last_flag;
    st_.zeros = got[0];
    st_.ones = got[1];
    st_.tail = m_;
  }

  // The ones: per-thread sums of their bases over the bitmap, then a tree.
  void sum_ones() {
    if (!st_.ones) return;
    const uint32_t g = kOnesBlocks * kOnesThreads;
    ones_blk_ = pool_.allocate(size_t(g) * sizeof(Xyzz), mem::Tag::gpu);
    ones_ = ones_blk_.as<Xyzz>();
    ones_kernel<F><<<kOnesBlocks, kOnesThreads, 0, s_>>>(pts_, bitmap_, words_, ones_);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    reduce_segments<F>(ones_, 1, g, s_);
  }

  // The tail's digits, W windows of c bits, sorted by bucket; each bucket's run of entries.
  void digits() {
    c_ = opt_.window_bits ? opt_.window_bits : choose_window_bits(m_);
    W_ = windows_for(c_);
    items_ = size_t(W_) * m_;
    if (items_ >= (size_t(1) << 31))
      throw Error(std::to_string(items_) + " digits (" + std::to_string(W_) + " windows of " +
                  std::to_string(m_) + " terms) exceed the sort's 2^31 - 1");
    per_window_ = 1u << (c_ - 1);
    max_runs_ = W_ * per_window_ + 1;
    const int key_bits = int(32 - __builtin_clz(W_)) + int(c_ - 1);
    size_t sort_tmp = 0, rle_tmp = 0, off_tmp = 0;
    cub::DoubleBuffer<uint32_t> dk(nullptr, nullptr), dv(nullptr, nullptr);
    SPLITPROVE_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(nullptr, sort_tmp, dk, dv, int(items_), 0, key_bits, s_));
    SPLITPROVE_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(
        nullptr, rle_tmp, (uint32_t*)nullptr, (uint32_t*)nullptr, (uint32_t*)nullptr,
        (uint32_t*)nullptr, int(items_), s_));
    SPLITPROVE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, off_tmp, (uint32_t*)nullptr,
                                                        (uint32_t*)nullptr, int(max_runs_), s_));
    const size_t tmp_bytes = std::max({sort_tmp, rle_tmp, off_tmp});
    const size_t dig_bytes =
        carve_sort_size(items_, tmp_bytes) + 3 * carve_size(max_runs_, 4) + carve_size(1, 4);
    dig_ = pool_.allocate(dig_bytes, mem::Tag::gpu);
    size_t off = 0;
    const SortSpace ss = carve_sort(dig_, off, items_, tmp_bytes);
    void* t2 = ss.tmp;
    uniq_ = carve<uint32_t>(dig_, off, max_runs_);
    cnt_ = carve<uint32_t>(dig_, off, max_runs_);
    offs_ = carve<uint32_t>(dig_, off, max_runs_);
    nruns_ = carve<uint32_t>(dig_, off, 1);
    digits_kernel<<<grid_for(m_, 256), 256, 0, s_>>>(sc_, mont_, tail_, m_, c_, W_, ss.k0, ss.v0);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    cub::DoubleBuffer<uint32_t> keys(ss.k0, ss.k1), vals(ss.v0, ss.v1);
    SPLITPROVE_CUDA_CHECK(
        cub::DeviceRadixSort::SortPairs(t2, sort_tmp, keys, vals, int(items_), 0, key_bits, s_));
    vals_ = vals.Current();
    SPLITPROVE_CUDA_CHECK(cudaMemsetAsync(cnt_, 0, size_t(max_runs_) * 4, s_));
    if (opt_.dense_runs) {
      // Run r = bucket r for every r < W·2^(c-1), empty or not (max_runs - 1 runs).
      SPLITPROVE_CUDA_CHECK(cudaMemsetAsync(offs_, 0, size_t(max_runs_) * 4, s_));
      run_bounds_kernel<<<grid_for(items_, 256), 256, 0, s_>>>(keys.Current(), uint32_t(items_),
                                                               offs_, cnt_);
      SPLITPROVE_CUDA_CHECK_LAUNCH();
      dense_runs_kernel<<<grid_for(max_runs_ - 1, 256), 256, 0, s_>>>(max_runs_ - 1, uniq_, cnt_,
                                                                      offs_, nruns_);
      SPLITPROVE_CUDA_CHECK_LAUNCH();
    } else {
      SPLITPROVE_CUDA_CHECK(cub::DeviceRunLengthEncode::Encode(t2, rle_tmp, keys.Current(), uniq_,
                                                               cnt_, nruns_, int(items_), s_));
      SPLITPROVE_CUDA_CHECK(
          cub::DeviceScan::ExclusiveSum(t2, off_tmp, cnt_, offs_, int(max_runs_), s_));
    }
  }

  // Every bucket's sum. A run is "big" above 4x the mean bucket (and at least 64 entries):
  // Poisson-sized buckets of random scalars rarely are; skewed ones (and a top window with few
  // buckets) are cut into chunks of `cap` entries, one thread each, whose partial sums are added
  // per bucket. Their chunks join the bucket kernel's queue (merged), else a chunk kernel follows.
  void buckets() {
    bk_ = pool_.allocate(size_t(W_) * per_window_ * sizeof(Xyzz), mem::Tag::gpu);
    buckets_ = bk_.as<Xyzz>();
    SPLITPROVE_CUDA_CHECK(cudaMemsetAsync(buckets_, 0, size_t(W_) * per_window_ * sizeof(Xyzz),
                                          s_));  // ZZ = 0: infinity
    cap_ = std::max<uint32_t>(
        64, uint32_t(std::min<size_t>(4 * items_ / (size_t(W_) * per_window_), size_t(1) << 30)));
    merged_ = opt_.balance && opt_.merge_chunks;
    if (merged_) find_big_runs();
    if (opt_.balance) balance_order();
    using FCall = typename DevCurve<C>::FCall;
    if constexpr (!std::is_same_v<FCall, F>) {
      if (opt_.fp2_call)
        launch_buckets<FCall>();
      else
        launch_buckets<F>();
    } else {
      launch_buckets<F>();
    }
    if (!merged_) find_big_runs();
    if (nb_) add_big_runs();
  }

  // The big runs: their indices, chunk counts and chunk offsets (exclusive sums).
  void find_big_runs() {
    size_t big_tmp = 0;
    SPLITPROVE_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, big_tmp, (uint32_t*)nullptr,
                                                        (uint32_t*)nullptr, int(max_runs_), s_));
    bigb_ = pool_.allocate(
        3 * carve_size(max_runs_, 4) + carve_size(1, 4) + carve_size(big_tmp, 1), mem::Tag::gpu);
    size_t boff = 0;
    big_ = carve<uint32_t>(bigb_, boff, max_runs_);
    chunks_ = carve<uint32_t>(bigb_, boff, max_runs_);
    chunk_off_ = carve<uint32_t>(bigb_, boff, max_runs_);
    uint32_t* nbig = carve<uint32_t>(bigb_, boff, 1);
    void* btmp = carve<char>(bigb_, boff, big_tmp);
    SPLITPROVE_CUDA_CHECK(cudaMemsetAsync(nbig, 0, 4, s_));
    find_big_kernel<<<grid_for(max_runs_, 256), 256, 0, s_>>>(uniq_, cnt_, nruns_, cap_, big_,
                                                              chunks_, nbig);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(&nb_, nbig, 4, cudaMemcpyDeviceToHost, s_));
    SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(s_));
    st_.big_runs = nb_;
    if (!nb_) return;
    SPLITPROVE_CUDA_CHECK(
        cub::DeviceScan::ExclusiveSum(btmp, big_tmp, chunks_, chunk_off_, int(nb_), s_));
    uint32_t last[2] = {0, 0};
    SPLITPROVE_CUDA_CHECK(
        cudaMemcpyAsync(&last[0], chunk_off_ + nb_ - 1, 4, cudaMemcpyDeviceToHost, s_));
    SPLITPROVE_CUDA_CHECK(
        cudaMemcpyAsync(&last[1], chunks_ + nb_ - 1, 4, cudaMemcpyDeviceToHost, s_));
    SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(s_));
    total_ = last[0] + last[1];
    part_ = pool_.allocate(size_t(total_) * sizeof(Xyzz), mem::Tag::gpu);
  }

  uint32_t queued() const { return merged_ ? max_runs_ + total_ : max_runs_; }

  // Balanced order (opt.balance): the runs sorted by length, longest first (see
  // run_len_keys_kernel), and, merged, the big runs' chunks among them. One radix pass or two:
  // the keys are at most `cap`.
  void balance_order() {
    const uint32_t q = queued();
    const int len_bits = int(32 - __builtin_clz(cap_));
    size_t ord_tmp = 0;
    SPLITPROVE_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        nullptr, ord_tmp, (const uint32_t*)nullptr, (uint32_t*)nullptr, (const uint32_t*)nullptr,
        (uint32_t*)nullptr, int(q), 0, len_bits, s_));
    ord_ = pool_.allocate(carve_sort_size(q, ord_tmp), mem::Tag::gpu);
    size_t ooff = 0;
    const SortSpace ss = carve_sort(ord_, ooff, q, ord_tmp);
    uint32_t *lk = ss.k0, *lk_sorted = ss.k1, *li = ss.v0, *li_sorted = ss.v1;
    void* otmp = ss.tmp;
    run_len_keys_kernel<<<grid_for(max_runs_, 256), 256, 0, s_>>>(uniq_, cnt_, nruns_, cap_,
                                                                  max_runs_, lk, li);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    if (merged_ && total_) {
      chunk_len_keys_kernel<<<grid_for(total_, 256), 256, 0, s_>>>(
          cnt_, big_, chunk_off_, nb_, total_, cap_, max_runs_, lk + max_runs_, li + max_runs_);
      SPLITPROVE_CUDA_CHECK_LAUNCH();
    }
    SPLITPROVE_CUDA_CHECK(cub::DeviceRadixSort::SortPairsDescending(
        otmp, ord_tmp, lk, lk_sorted, li, li_sorted, int(q), 0, len_bits, s_));
    order_ = li_sorted;
  }

  // The bucket kernel over coordinates FK (F, or DevCurve::FCall: the same layout).
  template <class FK>
  void launch_buckets() {
    static_assert(sizeof(AffinePoint<FK>) == sizeof(Affine) &&
                  sizeof(XyzzPoint<FK>) == sizeof(Xyzz));
    const uint32_t q = queued();
    BucketArgs<FK> ba{reinterpret_cast<const AffinePoint<FK>*>(pts_),
                      uniq_,
                      cnt_,
                      offs_,
                      nruns_,
                      order_,
                      max_runs_,
                      vals_,
                      cap_,
                      reinterpret_cast<XyzzPoint<FK>*>(buckets_)};
    if (merged_) {
      ba.big = big_;
      ba.chunk_off = chunk_off_;
      ba.nb = nb_;
      ba.total = total_;
      ba.partial = reinterpret_cast<XyzzPoint<FK>*>(part_.as<Xyzz>());
    }
    constexpr int kMinBlocks = DevCurve<C>::kBucketMinBlocks;
    if constexpr (kMinBlocks > 0) {
      constexpr int kThreads = DevCurve<C>::kBucketThreads;
      if (opt_.bounded_buckets)
        bucket_kernel_bounded<FK, kThreads, kMinBlocks>
            <<<grid_for(q, kThreads), kThreads, 0, s_>>>(ba);
      else
        bucket_kernel<FK><<<grid_for(q, 128), 128, 0, s_>>>(ba);
    } else {
      bucket_kernel<FK><<<grid_for(q, 128), 128, 0, s_>>>(ba);
    }
    SPLITPROVE_CUDA_CHECK_LAUNCH();
  }

  // The big runs' chunk sums (unless the bucket kernel made them), a tree per run, then each run's
  // sum into its bucket.
  void add_big_runs() {
    Xyzz* part = part_.as<Xyzz>();
    if (!merged_) {
      chunk_kernel<F><<<grid_for(total_, 128), 128, 0, s_>>>(pts_, cnt_, offs_, vals_, big_,
                                                             chunk_off_, nb_, total_, cap_, part);
      SPLITPROVE_CUDA_CHECK_LAUNCH();
    }
    for (uint32_t d = 1; d < total_; d *= 2) {  // a run has at most `total` chunks
      chunk_tree_kernel<F>
          <<<grid_for(total_, 128), 128, 0, s_>>>(part, chunks_, chunk_off_, nb_, total_, d);
      SPLITPROVE_CUDA_CHECK_LAUNCH();
    }
    chunk_store_kernel<F>
        <<<grid_for(nb_, 128), 128, 0, s_>>>(part, uniq_, big_, chunk_off_, nb_, buckets_);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
  }

  // Each window's sum Σ i·bucket_i, by segments of buckets, then the segments added; copied out.
  void windows() {
    uint32_t segs = 0;
    if (opt_.fit_window_segments) {
      // One wave: as many segment threads as the GPU holds at once (W·segs of them), segments of
      // at least 8 buckets. A second, partly filled wave would double the phase: every thread's
      // additions form one serial chain.
      int dev = 0, sms = 0, per_sm = 0;
      SPLITPROVE_CUDA_CHECK(cudaGetDevice(&dev));
      SPLITPROVE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
      SPLITPROVE_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, window_kernel<F>, 64, 0));
      const size_t wave = size_t(std::max(sms, 1)) * size_t(std::max(per_sm, 1)) * 64;
      segs = uint32_t(std::clamp<size_t>(wave / W_, 1, std::max<uint32_t>(per_window_ / 8, 1)));
    } else {
      // Segments of len buckets: about 2^15 threads or more, len a power of two.
      uint32_t len = per_window_;
      while (len > 16 && size_t(W_) * (per_window_ / len) < (size_t(1) << 15)) len /= 2;
      segs = per_window_ / len;
    }
    st_.window_segments = segs;
    wb_ = pool_.allocate(size_t(W_) * segs * sizeof(Xyzz), mem::Tag::gpu);
    Xyzz* wsum = wb_.as<Xyzz>();
    window_kernel<F><<<grid_for(size_t(W_) * segs, 64), 64, 0, s_>>>(buckets_, per_window_, segs,
                                                                     W_ * segs, wsum);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    reduce_segments<F>(wsum, W_, segs, s_);
    win_host_.resize(size_t(W_) * kLimbs);
    SPLITPROVE_CUDA_CHECK(cudaMemcpy2DAsync(win_host_.data(), sizeof(Xyzz), wsum,
                                            size_t(segs) * sizeof(Xyzz), sizeof(Xyzz), W_,
                                            cudaMemcpyDeviceToHost, s_));
  }

  // On the host, once the stream is done: Horner over the windows, then the ones.
  HXyzz combine() {
    std::vector<uint64_t> ones_host(kLimbs);
    if (ones_)
      SPLITPROVE_CUDA_CHECK(
          cudaMemcpyAsync(ones_host.data(), ones_, sizeof(Xyzz), cudaMemcpyDeviceToHost, s_));
    SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(s_));  // before the blocks go back to the pool
    HXyzz result = HXyzz::identity();
    for (unsigned w = W_; w-- > 0;) {
      for (unsigned i = 0; i < c_ && w + 1 < W_; ++i) result = result.dbl();
      result += to_host_xyzz<C>(win_host_.data() + size_t(w) * kLimbs);
    }
    if (ones_) result += to_host_xyzz<C>(ones_host.data());
    st_.window_bits = c_;
    st_.windows = W_;
    st_.ms_classify = ev_.ms(0, 1);
    st_.ms_ones = ev_.ms(1, 2);
    st_.ms_sort = ev_.ms(2, 3);
    st_.ms_buckets = ev_.ms(3, 4);
    st_.ms_windows = ev_.ms(4, 5);
    return result;
  }

  DevicePool& pool_;
  const MsmOptions& opt_;
  cudaStream_t s_;
  const DFr* sc_;
  const Affine* pts_;
  bool mont_;
  uint32_t n32_, words_;
  PhaseEvents ev_;
  MsmStats st_;
  // The blocks, released in reverse order when the call object dies (after combine's sync).
  DeviceBlock cls_, ones_blk_, dig_, bk_, ord_, bigb_, part_, wb_;
  // classify, ones
  uint32_t* tail_ = nullptr;
  uint32_t* bitmap_ = nullptr;
  uint32_t m_ = 0;
  Xyzz* ones_ = nullptr;
  // digits
  unsigned c_ = 0, W_ = 0;
  size_t items_ = 0;
  uint32_t per_window_ = 0, max_runs_ = 0;
  uint32_t *uniq_ = nullptr, *cnt_ = nullptr, *offs_ = nullptr, *nruns_ = nullptr;
  const uint32_t* vals_ = nullptr;
  // buckets
  Xyzz* buckets_ = nullptr;
  uint32_t cap_ = 0;
  bool merged_ = false;
  uint32_t *big_ = nullptr, *chunks_ = nullptr, *chunk_off_ = nullptr;
  uint32_t nb_ = 0, total_ = 0;
  const uint32_t* order_ = nullptr;
  // windows
  std::vector<uint64_t> win_host_;
};

}  // namespace
}  // namespace msm_detail

template <class C>
typename C::Jacobian msm(DevicePool& pool, const DeviceBases<C>& bases, const void* d_scalars,
                         size_t n, ScalarForm form, const MsmOptions& opt, MsmStats* stats,
                         CUstream_st* stream) {
  typename C::Xyzz result = C::Xyzz::identity();
  with_context(msm_detail::DevCurve<C>::name, [&] {
    if (n > bases.size())
      throw Error(std::to_string(n) + " scalars for " + std::to_string(bases.size()) + " bases");
    if (n >= (size_t(1) << 31)) throw Error(std::to_string(n) + " terms exceed 2^31 - 1");
    if (opt.window_bits > kMaxWindowBits)
      throw Error("window size " + std::to_string(opt.window_bits) + " is outside 1.." +
                  std::to_string(kMaxWindowBits));
    MsmStats st;
    st.n = n;
    if (n != 0) {
      msm_detail::MsmCall<C> call(pool, bases, d_scalars, n, form, opt, stream);
      result = call.run(st);
    }
    if (stats) *stats = st;
  });
  return result.to_jacobian();
}

template <class C>
typename C::Jacobian msm_host(DevicePool& pool, std::span<const typename C::Affine> bases,
                              std::span<const typename C::Fr> scalars, const MsmOptions& opt,
                              MsmStats* stats) {
  if (bases.size() != scalars.size())
    throw Error("cuda::msm_host: " + std::to_string(bases.size()) + " bases and " +
                std::to_string(scalars.size()) + " scalars");
  DeviceBases<C> db(pool, bases);
  DeviceBlock sc = pool.allocate(scalars.size_bytes(), mem::Tag::gpu);
  copy_to_device(sc.get(), scalars.data(), scalars.size_bytes());
  return msm<C>(pool, db, sc.get(), scalars.size(), ScalarForm::montgomery, opt, stats, nullptr);
}

}  // namespace splitprove::cuda

#include "cuda/fixed_base.cuh"

namespace splitprove::cuda {

#define SPLITPROVE_CUDA_MSM_INSTANTIATE(C)                                                         \
  template class DeviceBases<C>;                                                                   \
  template DeviceBases<C> generator_multiples<C>(DevicePool&, std::span<const C::Fr>);             \
  template C::Jacobian msm<C>(DevicePool&, const DeviceBases<C>&, const void*, size_t, ScalarForm, \
                              const MsmOptions&, MsmStats*, CUstream_st*);                         \
  template C::Jacobian msm_host<C>(DevicePool&, std::span<const C::Affine>,                        \
                                   std::span<const C::Fr>, const MsmOptions&, MsmStats*);

}  // namespace splitprove::cuda
