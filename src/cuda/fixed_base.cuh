#pragma once
// k_i·G for the generator G of a group and many scalars k_i, on the device (cuda/msm.hpp,
// generator_multiples): how the development setup makes a large key's point vectors where the
// prover uses them, instead of on the host.
//
// Fixed-base windows: with w-bit digits d_j of k, k·G = Σ_j d_j·(2^(w·j)·G), so a table
// T[j][d - 1] = d·2^(w·j)·G (d = 1..2^w - 1, made on the host, ~27K points for w = 10) turns each
// product into ceil(256/w) mixed additions and no doubling. Each thread makes kPerThread points
// (strided, so that loads and stores stay coalesced) in XYZZ and turns them affine with one
// inversion (Montgomery's trick: 3 products a point), the inversion a power by p - 2. Included by
// msm_impl.cuh, instantiated with the MSM for each curve group (DevCurve gives its device types).
#include <vector>

#include "cuda/ec.cuh"
#include "cuda/fp2.cuh"

namespace splitprove::cuda {
namespace fixed_base_detail {
namespace {

constexpr unsigned kWindow = 10;
constexpr unsigned kWindows = (256 + kWindow - 1) / kWindow;
constexpr unsigned kDigits = (1u << kWindow) - 1;  // table entries per window
constexpr unsigned kPerThread = 8;
constexpr unsigned kThreads = 128;

// a^(p - 2) = a^-1 (a != 0), for a prime field; by the norm for F[u]/(u^2 + 1).
template <class T, bool I>
__device__ Mont<T, I> inverse(const Mont<T, I>& a) {
  constexpr size_t n = Mont<T, I>::n;
  Mont<T, I> r = Mont<T, I>::one();
  for (int i = int(n) * 32 - 1; i >= 0; --i) {
    uint32_t limb = T::c().mod[i / 32];
    if (i < 32) limb -= 2;  // p is odd and > 2: no borrow out of limb 0
    r = r.sqr();
    if ((limb >> (i % 32)) & 1) r = r * a;
  }
  return r;
}
template <class F, bool C>
__device__ Fp2Dev<F, C> inverse(const Fp2Dev<F, C>& a) {
  const F t = inverse(a.c0.sqr() + a.c1.sqr());  // (c0 + c1·u)^-1 = (c0 - c1·u) / (c0^2 + c1^2)
  return {a.c0 * t, -(a.c1 * t)};
}

// Digit j (bits w·j .. w·j + w - 1) of a canonical scalar's 32-bit limbs.
template <class DFr>
__device__ __forceinline__ unsigned digit(const DFr& s, unsigned j) {
  const unsigned bit = j * kWindow, limb = bit / 32, shift = bit % 32;
  uint64_t word = s.v[limb];
  if (limb + 1 < DFr::n) word |= uint64_t(s.v[limb + 1]) << 32;
  return unsigned(word >> shift) & kDigits;
}

// out[i] = scalars[i]·G for i < n (scalars in Montgomery form, each < r: the setup's own).
template <class F, class DFr>
__global__ void __launch_bounds__(kThreads) generator_multiples_kernel(
    const DFr* scalars, size_t n, const AffinePoint<F>* table, AffinePoint<F>* out) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  for (size_t base = size_t(blockIdx.x) * blockDim.x + threadIdx.x; base < n;
       base += stride * kPerThread) {
    XyzzPoint<F> p[kPerThread];
    F prefix[kPerThread];
    F acc = F::one();
#pragma unroll 1
    for (unsigned t = 0; t < kPerThread; ++t) {
      const size_t i = base + t * stride;
      p[t] = XyzzPoint<F>::infinity();
      if (i < n) {
        const DFr s = DFr::load(scalars + i).from_mont();
#pragma unroll 1
        for (unsigned j = 0; j < kWindows; ++j)
          if (const unsigned d = digit(s, j); d != 0)
            p[t] += load_affine<F>(table + size_t(j) * kDigits + (d - 1));
      }
      if (!p[t].is_infinity()) acc = acc * p[t].ZZZ;
      prefix[t] = acc;
    }
    F inv = inverse(acc);  // acc = 1 when every point is the identity
#pragma unroll 1
    for (int t = int(kPerThread) - 1; t >= 0; --t) {
      const size_t i = base + size_t(t) * stride;
      if (i >= n) continue;
      AffinePoint<F> a = AffinePoint<F>::infinity();
      if (!p[t].is_infinity()) {
        const F zzzi = t > 0 ? inv * prefix[t - 1] : inv;  // 1/ZZZ of this point
        inv = inv * p[t].ZZZ;
        const F zzi = (p[t].ZZ * zzzi).sqr();  // ZZ^3 = ZZZ^2: (ZZ/ZZZ)^2 = 1/ZZ
        a = {p[t].X * zzi, p[t].Y * zzzi};
      }
      a.x.store(out + i);
      a.y.store(reinterpret_cast<char*>(out + i) + sizeof(F));
    }
  }
}

}  // namespace
}  // namespace fixed_base_detail

template <class C>
DeviceBases<C> generator_multiples(DevicePool& pool, std::span<const typename C::Fr> scalars) {
  using namespace fixed_base_detail;
  using F = typename msm_detail::DevCurve<C>::F;
  using DFr = typename msm_detail::DevCurve<C>::Fr;
  using Affine = AffinePoint<F>;
  static_assert(sizeof(Affine) == DeviceBases<C>::kPointBytes);
  static_assert(sizeof(DFr) == sizeof(typename C::Fr) && DFr::n * 32 >= 256 - kWindow);
  const size_t n = scalars.size();
  DeviceBlock out;
  with_context(msm_detail::DevCurve<C>::name, [&] {
    // The table on the host: row j holds d·2^(w·j)·G, d = 1..2^w - 1.
    std::vector<typename C::Jacobian> jt(size_t(kWindows) * kDigits);
    auto step = C::Jacobian::generator();
    for (unsigned j = 0; j < kWindows; ++j) {
      auto acc = step;
      for (unsigned d = 0; d < kDigits; ++d, acc = acc + step) jt[size_t(j) * kDigits + d] = acc;
      for (unsigned b = 0; b < kWindow; ++b) step = step.dbl();
    }
    std::vector<typename C::Affine> at(jt.size());
    C::batch_to_affine(jt, at);
    const DeviceBases<C> table(pool, at);
    out = pool.allocate(std::max<size_t>(n, 1) * sizeof(Affine), mem::Tag::srs);
    // The scalars go up in chunks of at most 2^24 (512 MiB), each made into points in place.
    const size_t chunk = std::min<size_t>(n, size_t(1) << 24);
    DeviceBlock sc = pool.allocate(std::max<size_t>(chunk, 1) * sizeof(DFr), mem::Tag::gpu);
    for (size_t begin = 0; begin < n; begin += chunk) {
      const size_t m = std::min(chunk, n - begin);
      copy_to_device(sc.get(), scalars.data() + begin, m * sizeof(DFr));
      const size_t threads = (m + kPerThread - 1) / kPerThread;
      const unsigned blocks = unsigned((threads + kThreads - 1) / kThreads);
      generator_multiples_kernel<F, DFr><<<blocks, kThreads>>>(
          sc.as<DFr>(), m, static_cast<const Affine*>(table.get()), out.as<Affine>() + begin);
      SPLITPROVE_CUDA_CHECK_LAUNCH();
      SPLITPROVE_CUDA_CHECK(cudaDeviceSynchronize());
    }
  });
  return DeviceBases<C>(std::move(out), n);
}

}  // namespace splitprove::cuda
