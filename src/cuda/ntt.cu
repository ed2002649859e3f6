// GPU NTT over a curve's Fr (cuda/ntt.hpp): written once over the field, instantiated at the end
// of this file for BLS12-381 and BN254.
//
// A pass runs r consecutive radix-2 stages (half-sizes 2^e, e in [e_lo, e_lo + r)) on tiles of
// 2^kTileLog elements in shared memory. An element index x splits into
//     x = high | mid << e_lo | low,   mid: the r bits [e_lo, e_lo + r), low: the e_lo bits below;
// the butterflies of those stages pair elements that differ only in mid, so a tile holds every mid
// for L = 2^log_l consecutive lows (and, where e_lo = 0, 2^log_hs consecutive highs): L >= 8
// keeps the global loads in runs of 256 bytes. Tile position t = (hs, mid, low) from the top bit.
// The first pass loads a stage's twiddle ω_2h^j from tw[h + j] (h = 2^e, j = x mod h), so each
// stage reads a contiguous run of the table.
#include <algorithm>
#include <string>
#include <vector>

#include "cuda/ff.cuh"
#include "cuda/kernels.cuh"
#include "cuda/ntt.hpp"
#include "cuda/runtime.cuh"

namespace splitprove::cuda {

namespace {

constexpr unsigned kTileLog = 10;  // 1024 elements = 32 KiB of shared memory per block
constexpr unsigned kMaxUpperStages = kTileLog - 3;  // upper passes keep L >= 8
constexpr unsigned kScaleLoBits = 14;  // factor(idx) = lo[idx mod 2^14] · hi[idx >> 14], idx < 2^28
constexpr uint32_t kScaleTable = 1u << kScaleLoBits;

template <class DFr>
struct ScaleDev {
  const DFr* lo = nullptr;  // null: no scaling
  const DFr* hi = nullptr;
  unsigned bitrev = 0;  // position p holds index bitrev(p)
};

__device__ __forceinline__ uint32_t brev(uint32_t x, unsigned log_n) {
  return __brev(x) >> (32 - log_n);
}

template <class DFr>
__device__ __forceinline__ DFr scale_factor(const ScaleDev<DFr>& s, uint32_t x, unsigned log_n) {
  const uint32_t idx = s.bitrev ? brev(x, log_n) : x;
  return DFr::load(s.lo + (idx & (kScaleTable - 1))) * DFr::load(s.hi + (idx >> kScaleLoBits));
}

template <bool kDit, class DFr>
__global__ void __launch_bounds__(256)
    ntt_pass(DFr* data, const DFr* tw, unsigned log_n, unsigned e_lo, unsigned r, unsigned log_tile,
             ScaleDev<DFr> pre, ScaleDev<DFr> post) {
  __shared__ uint4 smem[(1u << kTileLog) * sizeof(DFr) / sizeof(uint4)];
  DFr* tile = reinterpret_cast<DFr*>(smem);
  const unsigned log_l = min(e_lo, log_tile - r);
  const unsigned log_hs = log_tile - r - log_l;
  const unsigned low_blocks_log = e_lo - log_l;
  const uint32_t b = blockIdx.x;
  const uint32_t low_base = (b & ((1u << low_blocks_log) - 1)) << log_l;
  const uint32_t high_block = b >> low_blocks_log;
  auto gidx = [&](uint32_t t) -> uint32_t {
    const uint32_t low = t & ((1u << log_l) - 1);
    const uint32_t mid = (t >> log_l) & ((1u << r) - 1);
    const uint32_t high = (high_block << log_hs) | (t >> (log_l + r));
    return (high << (e_lo + r)) | (mid << e_lo) | (low_base + low);
  };
  const uint32_t tile_n = 1u << log_tile;
  for (uint32_t t = threadIdx.x; t < tile_n; t += blockDim.x) {
    const uint32_t x = gidx(t);
    DFr v = DFr::load(data + x);
    if (pre.lo) v = v * scale_factor(pre, x, log_n);
    v.store(tile + t);
  }
  __syncthreads();
#pragma unroll 1
  for (unsigned s = 0; s < r; ++s) {
    const unsigned e = kDit ? e_lo + s : e_lo + r - 1 - s;
    const unsigned q = log_l + (e - e_lo);  // the tile bit that tells the pair apart
#pragma unroll 1
    for (uint32_t bf = threadIdx.x; bf < tile_n / 2; bf += blockDim.x) {
      const uint32_t p0 = ((bf >> q) << (q + 1)) | (bf & ((1u << q) - 1));
      const uint32_t p1 = p0 | (1u << q);
      const DFr u = DFr::load(tile + p0);
      DFr v = DFr::load(tile + p1);
      if (e == 0) {  // ω_2^0 = 1
        (u + v).store(tile + p0);
        (u - v).store(tile + p1);
      } else {
        const uint32_t j = gidx(p0) & ((1u << e) - 1);
        const DFr w = DFr::load(tw + (1u << e) + j);
        if (kDit) {
          v = v * w;
          (u + v).store(tile + p0);
          (u - v).store(tile + p1);
        } else {
          (u + v).store(tile + p0);
          ((u - v) * w).store(tile + p1);
        }
      }
    }
    __syncthreads();
  }
  for (uint32_t t = threadIdx.x; t < tile_n; t += blockDim.x) {
    const uint32_t x = gidx(t);
    DFr v = DFr::load(tile + t);
    if (post.lo) v = v * scale_factor(post, x, log_n);
    v.store(data + x);
  }
}

template <class DFr>
__global__ void bitrev_kernel(DFr* d, unsigned log_n) {
  const uint32_t n = 1u << log_n;
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
    const uint32_t j = brev(i, log_n);
    if (i < j) {
      const DFr a = DFr::load(d + i), b = DFr::load(d + j);
      a.store(d + j);
      b.store(d + i);
    }
  }
}

// The bit-reversal permutation through shared memory. With t = kBrLog, an index splits as
//     x = hi << (k - t) | mid << t | lo,      hi, lo: t bits, mid: k - 2t bits,
// and brev_k(x) = brev_t(lo) << (k - t) | brev(mid) << t | brev_t(hi): the 2^t x 2^t tile of one
// mid (all hi, all lo) maps onto the tile of brev(mid), transposed with both axes bit-reversed.
// One block takes the pair of tiles {mid, brev(mid)} (mid <= brev(mid); the other block of the
// pair exits), reads both with lo fastest and writes both with lo fastest: every global access is
// a run of 2^t elements (512 bytes). In place, since a block reads and writes only its two tiles.
// kAbc: the value loaded at x is a[x]·b[x] - c[x] (h_coefficients' pointwise step, fused).
constexpr unsigned kBrLog = 4;
constexpr uint32_t kBrSide = 1u << kBrLog;
constexpr uint32_t kBrThreads = kBrSide * kBrSide;  // one element of each tile per thread

template <bool kAbc, class DFr>
__global__ void __launch_bounds__(kBrThreads)
    bitrev_tiles_kernel(DFr* a, const DFr* b, const DFr* c, unsigned log_n) {
  constexpr uint32_t kBrRow = kBrSide * sizeof(DFr) + 16;  // bytes; the 16-byte pad spreads banks
  __shared__ uint4 smem[2 * kBrSide * kBrRow / sizeof(uint4)];
  const unsigned mid_bits = log_n - 2 * kBrLog;
  const uint32_t m = blockIdx.x;
  const uint32_t m2 = mid_bits ? __brev(m) >> (32 - mid_bits) : 0;
  if (m2 < m) return;
  const uint32_t hi = threadIdx.x >> kBrLog, lo = threadIdx.x & (kBrSide - 1);
  auto gx = [&](uint32_t h, uint32_t mm, uint32_t l) {
    return (h << (log_n - kBrLog)) | (mm << kBrLog) | l;
  };
  auto sp = [&](unsigned t, uint32_t h, uint32_t l) {
    return reinterpret_cast<char*>(smem) + (t * kBrSide + h) * kBrRow + l * sizeof(DFr);
  };
  auto load = [&](uint32_t x) {
    DFr v = DFr::load(a + x);
    if (kAbc) v = v * DFr::load(b + x) - DFr::load(c + x);
    return v;
  };
  load(gx(hi, m, lo)).store(sp(0, hi, lo));
  if (m2 != m) load(gx(hi, m2, lo)).store(sp(1, hi, lo));
  __syncthreads();
  // Position (hi, m2, lo) receives index (brev(lo), m, brev(hi)): tile 0 at [brev(lo)][brev(hi)].
  const uint32_t rh = __brev(hi) >> (32 - kBrLog), rl = __brev(lo) >> (32 - kBrLog);
  DFr::load(sp(0, rl, rh)).store(a + gx(hi, m2, lo));
  if (m2 != m) DFr::load(sp(1, rl, rh)).store(a + gx(hi, m, lo));
}

// tw[half + j] = w^j for j < half, from p0[j mod 2^10]·p1[(j >> 10) mod 2^10]·p2[j >> 20].
template <class DFr>
__global__ void twiddle_top_kernel(DFr* tw, uint32_t half, const DFr* p) {
  for (uint32_t j = blockIdx.x * blockDim.x + threadIdx.x; j < half; j += gridDim.x * blockDim.x)
    (DFr::load(p + (j & 1023)) * DFr::load(p + 1024 + ((j >> 10) & 1023)) *
     DFr::load(p + 2048 + (j >> 20)))
        .store(tw + half + j);
}
// tw[h + j] = ω_2h^j = ω_n^(j·n/2h) = tw[half + j·(half/h)] for h < half.
template <class DFr>
__global__ void twiddle_lower_kernel(DFr* tw, uint32_t half) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x + 1; i < half;
       i += gridDim.x * blockDim.x) {
    const uint32_t h = 1u << (31 - __clz(i));
    DFr::load(tw + half + (i - h) * (half / h)).store(tw + i);
  }
}

template <class DFr>
__global__ void ab_minus_c_kernel(DFr* a, const DFr* b, const DFr* c, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    (DFr::load(a + i) * DFr::load(b + i) - DFr::load(c + i)).store(a + i);
}

template <class DFr>
__global__ void product_kernel(const DFr* a, const DFr* b, DFr* c, uint32_t n) {
  for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    (DFr::load(a + i) * DFr::load(b + i)).store(c + i);
}

// Passes bottom-up: (e_lo, r). The bottom pass takes the lowest min(k, kTileLog) stages (whole
// contiguous tiles); the stages above are split evenly into passes of at most kMaxUpperStages.
std::vector<std::pair<unsigned, unsigned>> pass_plan(unsigned k) {
  std::vector<std::pair<unsigned, unsigned>> g;
  const unsigned bottom = std::min(k, kTileLog);
  g.push_back({0, bottom});
  const unsigned rem = k - bottom;
  const unsigned cnt = (rem + kMaxUpperStages - 1) / kMaxUpperStages;
  unsigned e = bottom;
  for (unsigned i = 0; i < cnt; ++i) {
    const unsigned r = rem / cnt + (i < rem % cnt ? 1 : 0);
    g.push_back({e, r});
    e += r;
  }
  return g;
}

template <class HostFr>
DevField<HostFr>* dev(HostFr* p) {
  static_assert(sizeof(HostFr) == sizeof(DevField<HostFr>),
                "host and device Fr share a layout");
  return reinterpret_cast<DevField<HostFr>*>(p);
}
template <class HostFr>
const DevField<HostFr>* dev(const HostFr* p) {
  return dev(const_cast<HostFr*>(p));
}

}  // namespace

template <class HostFr>
struct FrNttOf<HostFr>::Scale {
  const void* lo = nullptr;  // device tables (scale_tables)
  const void* hi = nullptr;
};

template <class HostFr>
FrNttOf<HostFr>::FrNttOf(DevicePool& pool, unsigned log_size) : pool_(pool), k_(log_size) {
  using DFr = DevField<HostFr>;
  if (log_size < 1 || log_size > kMaxLogSize)
    throw Error("cuda::FrNtt: size 2^" + std::to_string(log_size) + " is outside 2^1..2^" +
                std::to_string(kMaxLogSize));
  with_context("cuda::FrNtt", [&] {
    const size_t n = size();
    const uint32_t half = uint32_t(n / 2);
    n_inv_ = HostFr::from_u64(n).inverse();
    tw_fwd_ = pool_.allocate(n * sizeof(HostFr), mem::Tag::srs);
    tw_inv_ = pool_.allocate(n * sizeof(HostFr), mem::Tag::srs);
    const HostFr omega = HostFr::root_of_unity(k_);
    DeviceBuffer<DFr> pw(3 * 1024);
    for (int dir = 0; dir < 2; ++dir) {
      const HostFr w = dir == 0 ? omega : omega.inverse();
      std::vector<HostFr> p(3 * 1024);
      const HostFr w10 = w.pow(uint64_t(1) << 10), w20 = w.pow(uint64_t(1) << 20);
      HostFr a = HostFr::one(), b = HostFr::one(), c = HostFr::one();
      for (size_t i = 0; i < 1024; ++i) {
        p[i] = a, p[1024 + i] = b, p[2048 + i] = c;
        a *= w, b *= w10, c *= w20;
      }
      SPLITPROVE_CUDA_CHECK(
          cudaMemcpy(pw.get(), p.data(), p.size() * sizeof(HostFr), cudaMemcpyHostToDevice));
      DFr* tw = (dir == 0 ? tw_fwd_ : tw_inv_).as<DFr>();
      twiddle_top_kernel<<<grid_for(half, 256), 256>>>(tw, half, pw.get());
      SPLITPROVE_CUDA_CHECK_LAUNCH();
      if (half > 1) {
        twiddle_lower_kernel<<<grid_for(half, 256), 256>>>(tw, half);
        SPLITPROVE_CUDA_CHECK_LAUNCH();
      }
      SPLITPROVE_CUDA_CHECK(cudaDeviceSynchronize());  // pw's host copy dies with this loop turn
    }
    // The odd coset's shift as poly::Domain::odd_coset_shift picks it (a 2^(k+1)-th root of
    // unity, or g^2 where 2^k is the whole two-adic subgroup: BN254 at 2^28).
    const HostFr shift =
        k_ < HostFr::S ? HostFr::root_of_unity(k_ + 1) : HostFr::smallest_non_residue().square();
    odd_tables_ = scale_tables(n_inv_, shift);
    inv_tables_ = scale_tables(n_inv_, HostFr::one());
    // h_coefficients divides by Z(shift·w^j) = shift^n - 1 (-2 where shift^n = -1).
    h_tables_ =
        scale_tables(n_inv_ * (shift.pow(uint64_t(n)) - HostFr::one()).inverse(), shift.inverse());
  });
}

// lo[i] = g^i, hi[i] = c·g^(i·2^14), i < 2^14: factor(idx) = c·g^idx for idx < 2^28.
template <class HostFr>
DeviceBlock FrNttOf<HostFr>::scale_tables(const HostFr& c, const HostFr& g) const {
  std::vector<HostFr> t(2 * kScaleTable);
  HostFr a = HostFr::one(), b = c;
  const HostFr step = g.pow(uint64_t(kScaleTable));
  for (uint32_t i = 0; i < kScaleTable; ++i) {
    t[i] = a, t[kScaleTable + i] = b;
    a *= g, b *= step;
  }
  DeviceBlock blk = pool_.allocate(t.size() * sizeof(HostFr), mem::Tag::gpu);
  SPLITPROVE_CUDA_CHECK(
      cudaMemcpy(blk.get(), t.data(), t.size() * sizeof(HostFr), cudaMemcpyHostToDevice));
  return blk;
}

template <class HostFr>
void FrNttOf<HostFr>::run(HostFr* d, bool inverse, poly::Order order, const Scale* pre,
                          const Scale* post, CUstream_st* stream) const {
  using poly::Order;
  using DFr = DevField<HostFr>;
  const auto plan = pass_plan(k_);
  const DFr* tw = (inverse ? tw_inv_ : tw_fwd_).as<DFr>();
  const unsigned log_tile = std::min(k_, kTileLog);
  const unsigned blocks = unsigned(size() >> log_tile);
  const unsigned threads = std::min(256u, (1u << log_tile) / 2);
  const bool dit = order == Order::RN;
  // Natural input for the DIF orders: RR permutes first.
  if (order == Order::RR) bit_reverse(d, stream);
  auto mk = [&](const Scale* s, bool rev) {
    ScaleDev<DFr> r;
    if (s) r = {static_cast<const DFr*>(s->lo), static_cast<const DFr*>(s->hi), rev ? 1u : 0u};
    return r;
  };
  // Pre-scales see the input order of the pass (DIT: bit-reversed), post-scales its output order
  // (DIF: bit-reversed).
  const ScaleDev<DFr> pre_d = mk(pre, dit), post_d = mk(post, !dit);
  for (size_t i = 0; i < plan.size(); ++i) {
    const auto [e_lo, r] = dit ? plan[i] : plan[plan.size() - 1 - i];
    const ScaleDev<DFr> a = i == 0 ? pre_d : ScaleDev<DFr>{};
    const ScaleDev<DFr> z = i + 1 == plan.size() ? post_d : ScaleDev<DFr>{};
    if (dit)
      ntt_pass<true><<<blocks, threads, 0, stream>>>(dev(d), tw, k_, e_lo, r, log_tile, a, z);
    else
      ntt_pass<false><<<blocks, threads, 0, stream>>>(dev(d), tw, k_, e_lo, r, log_tile, a, z);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
  }
  if (order == Order::NN) bit_reverse(d, stream);
}

template <class HostFr>
void FrNttOf<HostFr>::bit_reverse(HostFr* d, CUstream_st* stream, bool tiled) const {
  if (tiled && k_ >= 2 * kBrLog) {
    bitrev_tiles_kernel<false, DevField<HostFr>>
        <<<unsigned(size() >> (2 * kBrLog)), kBrThreads, 0, stream>>>(dev(d), nullptr, nullptr, k_);
  } else {
    bitrev_kernel<<<grid_for(size(), 256), 256, 0, stream>>>(dev(d), k_);
  }
  SPLITPROVE_CUDA_CHECK_LAUNCH();
}

template <class HostFr>
void FrNttOf<HostFr>::ntt(HostFr* d, poly::Order order, CUstream_st* stream) const {
  run(d, false, order, nullptr, nullptr, stream);
}

template <class HostFr>
void FrNttOf<HostFr>::intt(HostFr* d, poly::Order order, CUstream_st* stream) const {
  using DFr = DevField<HostFr>;
  const Scale s{inv_tables_.as<DFr>(), inv_tables_.as<DFr>() + kScaleTable};
  run(d, true, order, nullptr, &s, stream);
}

template <class HostFr>
void FrNttOf<HostFr>::coset_ntt(HostFr* d, const HostFr& shift, poly::Order order,
                                CUstream_st* stream) const {
  using DFr = DevField<HostFr>;
  if (shift.is_zero()) throw Error("cuda::FrNtt::coset_ntt: the coset shift is zero");
  DeviceBlock t = scale_tables(HostFr::one(), shift);
  const Scale s{t.as<DFr>(), t.as<DFr>() + kScaleTable};
  run(d, false, order, &s, nullptr, stream);
  SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class HostFr>
void FrNttOf<HostFr>::coset_intt(HostFr* d, const HostFr& shift, poly::Order order,
                                 CUstream_st* stream) const {
  using DFr = DevField<HostFr>;
  if (shift.is_zero()) throw Error("cuda::FrNtt::coset_intt: the coset shift is zero");
  DeviceBlock t = scale_tables(n_inv_, shift.inverse());
  const Scale s{t.as<DFr>(), t.as<DFr>() + kScaleTable};
  run(d, true, order, nullptr, &s, stream);
  SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <class HostFr>
void FrNttOf<HostFr>::to_odd_coset(HostFr* d, CUstream_st* stream) const {
  using DFr = DevField<HostFr>;
  const Scale s{odd_tables_.as<DFr>(), odd_tables_.as<DFr>() + kScaleTable};
  run(d, true, poly::Order::NR, nullptr, &s, stream);  // coefficients·n^-1·shift^j, bit-reversed
  run(d, false, poly::Order::RN, nullptr, nullptr, stream);
}

template <class HostFr>
void FrNttOf<HostFr>::product(const HostFr* a, const HostFr* b, HostFr* c,
                              CUstream_st* stream) const {
  product_kernel<<<grid_for(size(), 256), 256, 0, stream>>>(dev(a), dev(b), dev(c),
                                                            uint32_t(size()));
  SPLITPROVE_CUDA_CHECK_LAUNCH();
}

template <class HostFr>
void FrNttOf<HostFr>::ab_minus_c_on_odd_coset(HostFr* a, HostFr* b, HostFr* c,
                                              CUstream_st* stream) const {
  to_odd_coset(a, stream);
  to_odd_coset(b, stream);
  to_odd_coset(c, stream);
  ab_minus_c_kernel<<<grid_for(size(), 256), 256, 0, stream>>>(dev(a), dev(b), dev(c),
                                                               uint32_t(size()));
  SPLITPROVE_CUDA_CHECK_LAUNCH();
}

template <class HostFr>
void FrNttOf<HostFr>::h_coefficients(HostFr* a, HostFr* b, HostFr* c, CUstream_st* stream) const {
  using DFr = DevField<HostFr>;
  to_odd_coset(a, stream);
  to_odd_coset(b, stream);
  to_odd_coset(c, stream);
  if (k_ >= 2 * kBrLog) {
    bitrev_tiles_kernel<true>
        <<<unsigned(size() >> (2 * kBrLog)), kBrThreads, 0, stream>>>(dev(a), dev(b), dev(c), k_);
    SPLITPROVE_CUDA_CHECK_LAUNCH();
  } else {
    ab_minus_c_kernel<<<grid_for(size(), 256), 256, 0, stream>>>(dev(a), dev(b), dev(c),
                                                                 uint32_t(size()));
    SPLITPROVE_CUDA_CHECK_LAUNCH();
    bit_reverse(a, stream, false);
  }
  const Scale s{h_tables_.as<DFr>(), h_tables_.as<DFr>() + kScaleTable};
  run(a, true, poly::Order::RN, nullptr, &s, stream);
}

template <class HostFr>
void FrNttOf<HostFr>::ntt_host(std::span<HostFr> a, poly::Order order, bool inverse,
                               const HostFr* coset_shift) const {
  with_context("cuda::FrNtt::ntt_host", [&] {
    if (a.size() != size())
      throw Error("input has " + std::to_string(a.size()) + " elements, the domain has 2^" +
                  std::to_string(k_));
    DeviceBlock d = pool_.allocate(a.size_bytes());
    HostFr* p = d.as<HostFr>();
    copy_to_device(p, a.data(), a.size_bytes());
    check_reduced(dev(p), size(), "a", nullptr);
    if (coset_shift)
      inverse ? coset_intt(p, *coset_shift, order) : coset_ntt(p, *coset_shift, order);
    else
      inverse ? intt(p, order) : ntt(p, order);
    copy_to_host(a.data(), p, a.size_bytes());
  });
}

// a, b, c through the device and back, with `step` run on the device copies in between.
template <class HostFr, class Step>
void abc_on_device(DevicePool& pool, unsigned k, const char* what, std::span<HostFr> a,
                   std::span<HostFr> b, std::span<HostFr> c, Step step) {
  with_context(what, [&] {
    for (auto* v : {&a, &b, &c})
      if (v->size() != (size_t(1) << k))
        throw Error("input has " + std::to_string(v->size()) + " elements, the domain has 2^" +
                    std::to_string(k));
    const size_t n = a.size();
    DeviceBlock d = pool.allocate(3 * a.size_bytes());
    HostFr* p = d.as<HostFr>();
    copy_to_device(p, a.data(), a.size_bytes());
    copy_to_device(p + n, b.data(), b.size_bytes());
    copy_to_device(p + 2 * n, c.data(), c.size_bytes());
    check_reduced(dev(p), 3 * n, "abc", nullptr);
    step(p, p + n, p + 2 * n);
    copy_to_host(a.data(), p, a.size_bytes());
    copy_to_host(b.data(), p + n, b.size_bytes());
    copy_to_host(c.data(), p + 2 * n, c.size_bytes());
  });
}

template <class HostFr>
void FrNttOf<HostFr>::ab_minus_c_host(std::span<HostFr> a, std::span<HostFr> b,
                                      std::span<HostFr> c) const {
  abc_on_device(pool_, k_, "cuda::FrNtt::ab_minus_c_host", a, b, c,
                [&](HostFr* x, HostFr* y, HostFr* z) { ab_minus_c_on_odd_coset(x, y, z); });
}

template <class HostFr>
void FrNttOf<HostFr>::h_coefficients_host(std::span<HostFr> a, std::span<HostFr> b,
                                          std::span<HostFr> c) const {
  abc_on_device(pool_, k_, "cuda::FrNtt::h_coefficients_host", a, b, c,
                [&](HostFr* x, HostFr* y, HostFr* z) { h_coefficients(x, y, z); });
}

template class FrNttOf<bls12_381::Fr>;
template class FrNttOf<bn254::Fr>;

}  // namespace splitprove::cuda
