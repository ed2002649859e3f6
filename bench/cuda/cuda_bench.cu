// GPU microbenchmark of the device field product (run by scripts/device-run.sh; not a test).
//
//   splitprove_cuda_bench [log2_n=24] [reps=20]
//
// For Fr and Fp over n elements:
//   mul_elementwise   out[i] = a[i]·b[i]: reads 2, writes 1 element per product, so it is bounded
//                     by memory as much as by the multiplier (the shape of a pointwise H step);
//   mul_chain<K>      each thread multiplies its element K = 64 times in a row and writes once:
//                     the multiplier's throughput with memory out of the way.
//   g1_madd           G1 mixed additions (XYZZ += affine), 64 per thread into one accumulator,
//                     over 2^16 distinct points (6 MiB: L2-resident, so this is the adder's
//                     throughput), with the field products inlined (Fp) and called (FpNoinline):
//                     the trade the MSM kernels make between speed and compile time.
// Inputs are random reduced elements made on the GPU; the first 4096 results of each elementwise
// run are checked against the CPU field (a wrong kernel is not timed). Times are CUDA-event medians
// over `reps` runs after 2 warm-ups; a device-to-device copy of the same bytes gives the memory
// ceiling of the machine it ran on.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "cuda/ec.cuh"
#include "cuda/ff.cuh"
#include "cuda/runtime.cuh"
#include "ec/bls12_381.hpp"
#include "bench_timer.cuh"

using namespace splitprove;
using namespace splitprove::cuda;
using Fr = DevField<bls12_381::Fr>;
using Fp = DevField<bls12_381::Fp>;
using FpNoinline = DevField<bls12_381::Fp, false>;

namespace {

constexpr unsigned kThreads = 256;
constexpr int kChain = 64;

__device__ uint64_t mix(uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Random limbs with the top 32-bit limb below p's top limb: uniform enough, and always < p.
template <class F>
__global__ void fill_random(F* a, size_t n, uint64_t seed) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    F x;
    for (size_t k = 0; k < F::n; k += 2) {
      uint64_t r = mix(seed ^ (i * F::n + k));
      x.v[k] = uint32_t(r);
      x.v[k + 1] = uint32_t(r >> 32);
    }
    x.v[F::n - 1] %= F::Host::MOD[F::n / 2 - 1] >> 32;
    x.store(a + i);
  }
}

template <class F>
__global__ void mul_elementwise(const F* a, const F* b, F* out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    (F::load(a + i) * F::load(b + i)).store(out + i);
}

template <class F>
__global__ void mul_chain(const F* a, const F* b, F* out, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    F x = F::load(a + i);
    const F y = F::load(b + i);
#pragma unroll 1
    for (int k = 0; k < kChain; ++k) x = x * y;
    x.store(out + i);
  }
}

template <class F>
__global__ void g1_madd_kernel(const AffinePoint<F>* pts, size_t m, XyzzPoint<F>* out,
                               size_t threads) {
  const size_t t = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= threads) return;
  XyzzPoint<F> acc = XyzzPoint<F>::infinity();
#pragma unroll 1
  for (int k = 0; k < kChain; ++k) acc += load_affine<F>(pts + (t + size_t(k) * threads) % m);
  acc.store(out + t);
}

// 2 warm-ups before the timed runs.
template <class Launch>
float time_ms(Launch&& launch, int reps, cudaStream_t s) {
  return cuda::bench::event_ms(launch, reps, s, 2);
}

template <class F>
int run_field(const char* name, size_t log2_n, int reps) {
  using H = typename F::Host;
  const size_t n = size_t(1) << log2_n;
  const double gb = double(n) * sizeof(F) / 1e9;
  Stream s;
  DeviceBuffer<F> a(n), b(n), out(n);
  const unsigned blocks = grid_for(n, kThreads);
  fill_random<F><<<blocks, kThreads, 0, s>>>(a.get(), n, 1);
  fill_random<F><<<blocks, kThreads, 0, s>>>(b.get(), n, 2);
  SPLITPROVE_CUDA_CHECK_LAUNCH();

  // Correctness of what is timed: the first 4096 products against the CPU field.
  mul_elementwise<F><<<blocks, kThreads, 0, s>>>(a.get(), b.get(), out.get(), n);
  SPLITPROVE_CUDA_CHECK_LAUNCH();
  const size_t m = std::min<size_t>(n, 4096);
  std::vector<typename H::Repr> ha(m), hb(m), ho(m);
  SPLITPROVE_CUDA_CHECK(
      cudaMemcpyAsync(ha.data(), a.get(), m * sizeof(F), cudaMemcpyDeviceToHost, s));
  SPLITPROVE_CUDA_CHECK(
      cudaMemcpyAsync(hb.data(), b.get(), m * sizeof(F), cudaMemcpyDeviceToHost, s));
  SPLITPROVE_CUDA_CHECK(
      cudaMemcpyAsync(ho.data(), out.get(), m * sizeof(F), cudaMemcpyDeviceToHost, s));
  s.sync();
  for (size_t i = 0; i < m; ++i)
    if (!(H::from_mont(ha[i]) * H::from_mont(hb[i]) == H::from_mont(ho[i]))) {
      std::printf("%s: MISMATCH at %zu: GPU product differs from the CPU field; not timed\n", name,
                  i);
      return 1;
    }

  cudaFuncAttributes attr{};
  SPLITPROVE_CUDA_CHECK(cudaFuncGetAttributes(&attr, mul_elementwise<F>));
  const float t_copy = time_ms(
      [&] {
        SPLITPROVE_CUDA_CHECK(
            cudaMemcpyAsync(out.get(), a.get(), n * sizeof(F), cudaMemcpyDeviceToDevice, s));
      },
      reps, s);
  const float t_ew = time_ms(
      [&] { mul_elementwise<F><<<blocks, kThreads, 0, s>>>(a.get(), b.get(), out.get(), n); }, reps,
      s);
  const float t_chain = time_ms(
      [&] { mul_chain<F><<<blocks, kThreads, 0, s>>>(a.get(), b.get(), out.get(), n); }, reps, s);

  std::printf("%-3s n=2^%zu  element %zu B  regs/thread %d (mul_elementwise)\n", name, log2_n,
              sizeof(F), attr.numRegs);
  std::printf("  d2d copy           %8.3f ms  %7.1f GB/s (read+write)\n", t_copy,
              2 * gb / (t_copy / 1e3));
  std::printf("  mul_elementwise    %8.3f ms  %7.2f Gmul/s  %7.1f GB/s (2 reads + 1 write)\n", t_ew,
              n / (t_ew / 1e3) / 1e9, 3 * gb / (t_ew / 1e3));
  std::printf("  mul_chain<%d>      %8.3f ms  %7.2f Gmul/s\n", kChain, t_chain,
              double(n) * kChain / (t_chain / 1e3) / 1e9);
  std::printf(
      "RESULT %s log2_n=%zu copy_ms=%.4f ew_ms=%.4f ew_gmul_s=%.3f chain_ms=%.4f chain_gmul_s=%.3f "
      "regs=%d\n",
      name, log2_n, t_copy, t_ew, n / (t_ew / 1e3) / 1e9, t_chain,
      double(n) * kChain / (t_chain / 1e3) / 1e9, attr.numRegs);
  return 0;
}

// 2^18 threads x 64 mixed additions over 2^16 multiples of G; thread t adds points
// (t + k·2^18) mod 2^16, and a few threads' sums are checked against the CPU curve.
template <class F>
int run_g1_madd(const char* name, int reps) {
  using HG1 = bls12_381::G1;
  constexpr size_t m = size_t(1) << 16, threads = size_t(1) << 18;
  static std::vector<HG1::Affine> host_pts = [] {
    std::vector<HG1::Jacobian> j(m);
    HG1::Jacobian acc = HG1::Jacobian::identity();
    for (size_t i = 0; i < m; ++i) j[i] = acc += HG1::Affine::generator();
    std::vector<HG1::Affine> a(m);
    HG1::batch_to_affine(j, a);
    return a;
  }();
  std::vector<uint64_t> limbs(m * 12);
  for (size_t i = 0; i < m; ++i) {
    std::memcpy(&limbs[i * 12], host_pts[i].x.mont().data(), 48);
    std::memcpy(&limbs[i * 12 + 6], host_pts[i].y.mont().data(), 48);
  }
  Stream s;
  DeviceBuffer<AffinePoint<F>> pts(m);
  DeviceBuffer<XyzzPoint<F>> out(threads);
  pts.upload(reinterpret_cast<const AffinePoint<F>*>(limbs.data()), s);
  auto launch = [&] {
    g1_madd_kernel<F><<<unsigned(threads / 128), 128, 0, s>>>(pts.get(), m, out.get(), threads);
  };
  launch();
  SPLITPROVE_CUDA_CHECK_LAUNCH();
  std::vector<uint64_t> res(threads * 24);
  out.download(reinterpret_cast<XyzzPoint<F>*>(res.data()), s);
  s.sync();
  for (size_t t : {size_t(0), size_t(1), size_t(4097), threads - 1}) {
    HG1::Jacobian want = HG1::Jacobian::identity();
    for (size_t k = 0; k < size_t(kChain); ++k) want += host_pts[(t + k * threads) % m];
    auto fp = [&](size_t c) {
      bls12_381::Fp::Repr r;
      std::memcpy(r.data(), &res[t * 24 + 6 * c], 48);
      return bls12_381::Fp::from_mont(r);
    };
    if (!(HG1::Xyzz{fp(0), fp(1), fp(2), fp(3)}.to_affine() == want.to_affine())) {
      std::printf("%s: MISMATCH in thread %zu: GPU sum differs from the CPU curve; not timed\n",
                  name, t);
      return 1;
    }
  }
  cudaFuncAttributes attr{};
  SPLITPROVE_CUDA_CHECK(cudaFuncGetAttributes(&attr, g1_madd_kernel<F>));
  const float ms = time_ms(launch, reps, s);
  const double adds = double(threads) * kChain;
  std::printf("%-14s 2^18 threads x %d  %8.3f ms  %7.3f Gmadd/s  regs/thread %d, stack %zu B\n",
              name, kChain, ms, adds / (ms / 1e3) / 1e9, attr.numRegs, size_t(attr.localSizeBytes));
  std::printf("RESULT %s madds=%.0f ms=%.4f gmadd_s=%.4f regs=%d\n", name, adds, ms,
              adds / (ms / 1e3) / 1e9, attr.numRegs);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const size_t log2_n = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 24;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 20;
  std::string why;
  auto devs = list_devices(&why);
  if (devs.empty()) {
    std::printf("no CUDA device: %s\n", why.c_str());
    return 2;
  }
  SPLITPROVE_CUDA_CHECK(cudaSetDevice(0));
  int clock_khz = 0, mem_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, 0);
  std::printf("device 0: %s, sm_%d%d, %d SMs, %.1f GiB, max SM clock %d MHz\n",
              devs[0].name.c_str(), devs[0].sm_major, devs[0].sm_minor, devs[0].multiprocessors,
              devs[0].total_bytes / double(1ull << 30), clock_khz / 1000);
  try {
    int rc = run_field<Fr>("fr", log2_n, reps);
    rc |= run_field<Fp>("fp", log2_n, reps);
    rc |= run_g1_madd<Fp>("g1_madd_inline", reps);
    rc |= run_g1_madd<FpNoinline>("g1_madd_call", reps);
    return rc;
  } catch (const Error& e) {
    std::printf("error: %s\n", e.what());
    return 1;
  }
}
