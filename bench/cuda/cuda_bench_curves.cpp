// GPU benchmark of the prover's kernels for BN254 beside BLS12-381, in one process (not a test):
//
//   splitprove_cuda_bench_curves [max_log2=22] [reps=5]
//
// For each curve and size 2^20..2^max (even steps): the forward NTT (NR, data resident), the H
// step (ab_minus_c_on_odd_coset on three resident vectors), the G1 MSM with random full-width
// scalars and with a Groth16-like witness mix (40% 0, 35% 1, 25% random), and the G2 MSM (random
// and mix) at 2^20. Wall clock around each synchronous call (device work and the host's window
// combination), median of `reps` after one warm-up. Bases: 2^16 distinct points k·G made on the
// host and uploaded, then repeated by device copies up to n (the MSM's work does not depend on
// which points it adds, only on how many and on the scalars; a repeated base meets itself in a
// bucket about once per window, a negligible share of doublings). Scalars: host random, uploaded.
// Output: one line per figure, and RESULT lines (curve, what, log2 n, ms) for scripts.
// SPLITPROVE_MSM_AB=1: each MSM also as before the dense bucket table, the one-wave window
// segments and the merged chunks (_msm6), and unbounded (_unbounded), right after the default on
// the same data (see msm_variants).
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"
#include "cuda/pool.hpp"
#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "mem/budget.hpp"
#include "splitprove/error.hpp"

using namespace splitprove;
using namespace splitprove::cuda;

namespace {

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw Error(std::string(what) + ": " + cudaGetErrorString(e));
}

template <class Fn>
double median_ms(int reps, Fn&& f) {
  f();  // warm-up (twiddles, pool blocks, cub's scratch)
  std::vector<double> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

void report(const char* curve, const std::string& what, unsigned k, double ms) {
  std::printf("%-10s %-22s 2^%-2u %9.2f ms\n", curve, what.c_str(), k, ms);
  std::printf("RESULT %s %s %u %.3f\n", curve, what.c_str(), k, ms);
  std::fflush(stdout);
}

template <class Fr>
std::vector<Fr> scalars(size_t n, bool witness_mix, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fr> s(n);
  for (auto& x : s) {
    const unsigned pick = unsigned(rng() % 100);
    x = !witness_mix || pick >= 75 ? Fr::random(rng) : pick >= 40 ? Fr::one() : Fr::zero();
  }
  return s;
}

// n bases: 2^16 distinct k·G (k = 1..2^16) repeated.
template <class C>
DeviceBases<C> bases(DevicePool& pool, size_t n) {
  const size_t m = std::min<size_t>(n, size_t(1) << 16);
  std::vector<typename C::Jacobian> j(m);
  auto acc = C::Jacobian::identity();
  const auto g = C::Affine::generator();
  for (size_t i = 0; i < m; ++i) j[i] = acc += g;
  std::vector<typename C::Affine> a(m);
  C::batch_to_affine(j, a);
  DeviceBases<C> distinct(pool, a);
  constexpr size_t kB = DeviceBases<C>::kPointBytes;
  DeviceBlock blk = pool.allocate(n * kB, mem::Tag::srs);
  for (size_t off = 0; off < n; off += m)
    check(cudaMemcpy(static_cast<char*>(blk.get()) + off * kB, distinct.get(),
                     std::min(m, n - off) * kB, cudaMemcpyDeviceToDevice),
          "tile bases");
  return DeviceBases<C>(std::move(blk), n);
}

// The MSM configurations measured: the default; with SPLITPROVE_MSM_AB=1 also the previous
// default (cub's run-length encoded bucket table, power-of-two window segments, the chunk kernel
// after the bucket kernel: dense_runs = fit_window_segments = merge_chunks = false, suffix
// _msm6), the bucket kernel unbounded (bounded_buckets = false, _unbounded; differs from the
// default only where the curve has a bounded kernel: the G2s), and the G2 bucket kernel's Fp2
// products called whole (fp2_call, _fp2call).
std::vector<std::pair<std::string, MsmOptions>> msm_variants() {
  std::vector<std::pair<std::string, MsmOptions>> v{{"", MsmOptions{}}};
  const char* ab = std::getenv("SPLITPROVE_MSM_AB");
  if (ab && std::string(ab) == "1") {
    MsmOptions prev, unbounded;
    prev.dense_runs = false;
    prev.fit_window_segments = false;
    prev.merge_chunks = false;
    unbounded.bounded_buckets = false;
    v.emplace_back("_msm6", prev);
    v.emplace_back("_unbounded", unbounded);
    MsmOptions fp2_call;  // differs from the default only for the G2s
    fp2_call.fp2_call = true;
    v.emplace_back("_fp2call", fp2_call);
  }
  return v;
}

template <class G1, class G2>
void run_curve(const char* name, DevicePool& pool, unsigned max_k, int reps) {
  using Fr = typename G1::Fr;
  for (unsigned k = 20; k <= max_k; k += 2) {
    const size_t n = size_t(1) << k;
    {
      FrNttOf<Fr> ntt(pool, k);
      DeviceBlock d = pool.allocate(3 * n * sizeof(Fr), mem::Tag::gpu);
      Fr* a = d.as<Fr>();
      for (int v = 0; v < 3; ++v) {
        const auto h = scalars<Fr>(n, false, 10 + v);
        check(cudaMemcpy(a + v * n, h.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload");
      }
      report(name, "ntt_nr", k, median_ms(reps, [&] {
               ntt.ntt(a, poly::Order::NR);
               check(cudaDeviceSynchronize(), "ntt");
             }));
      report(name, "h_step", k, median_ms(reps, [&] {
               ntt.ab_minus_c_on_odd_coset(a, a + n, a + 2 * n);
               check(cudaDeviceSynchronize(), "h step");
             }));
    }
    auto msm_fig = [&](auto group, const char* what, bool g2) {
      using C = decltype(group);
      if (g2 && k > 20) return;
      DeviceBases<C> b = bases<C>(pool, n);
      DeviceBlock sc = pool.allocate(n * sizeof(Fr), mem::Tag::gpu);
      for (bool mix : {false, true}) {
        const auto h = scalars<Fr>(n, mix, 20 + mix);
        check(cudaMemcpy(sc.get(), h.data(), n * sizeof(Fr), cudaMemcpyHostToDevice), "upload");
        for (const auto& v : msm_variants())
          report(name, std::string(what) + (mix ? "_witness" : "_random") + v.first, k,
                 median_ms(reps, [&] {
                   (void)msm<C>(pool, b, sc.get(), n, ScalarForm::montgomery, v.second);
                 }));
      }
    };
    msm_fig(G1{}, "msm_g1", false);
    msm_fig(G2{}, "msm_g2", true);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned max_k = argc > 1 ? unsigned(std::atoi(argv[1])) : 22;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  try {
    cudaDeviceProp p{};
    check(cudaGetDeviceProperties(&p, 0), "device");
    std::printf("device: %s; sizes 2^20..2^%u, median of %d\n", p.name, max_k, reps);
    size_t free_b = 0, total_b = 0;
    check(cudaMemGetInfo(&free_b, &total_b), "memory");
    mem::MemoryBudget budget(free_b - (uint64_t(2) << 30), "gpu0");
    DevicePool pool(budget);
    run_curve<bn254::G1, bn254::G2>("BN254", pool, max_k, reps);
    run_curve<bls12_381::G1, bls12_381::G2>("BLS12-381", pool, max_k, reps);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
