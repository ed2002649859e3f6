// CPU MSM over BLS12-381 G1 and G2, and BN254 G1 and G2 (names starting BN254_).
//
//   ./build/bench_msm --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
//   SPLITPROVE_THREADS=1 ./build/bench_msm --benchmark_filter='G1_random/65536' ...
//
// The pool size is fixed when the process first uses it, so the single-thread figure is a separate
// run with SPLITPROVE_THREADS=1; the "threads" counter reports the pool size of the run.
//
// Bases: P_{i+1} = 2·P_i + Q from a random P_0 and Q (one doubling and one addition per point, then
// one batch conversion to affine), so 2^18 bases take well under a second to build rather than the
// minute 2^18 independent scalar multiplications would.
#include <benchmark/benchmark.h>

#include <ctime>
#include <random>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "msm/msm.hpp"
#include "util/parallel.hpp"

namespace {

using namespace splitprove;
using bls12_381::Fr;

template <class C>
const std::vector<typename C::Affine>& bases(size_t n) {
  static std::vector<typename C::Affine> cache;
  if (cache.size() < n) {
    std::mt19937_64 rng(42);
    using J = typename C::Jacobian;
    using F = typename C::Fr;
    J p = J::generator().mul(F::random(rng).to_canonical());
    const auto q = J::generator().mul(F::random(rng).to_canonical()).to_affine();
    std::vector<J> j(n);
    for (size_t i = 0; i < n; ++i) {
      j[i] = p;
      p = p.dbl() + q;
    }
    cache.resize(n);
    C::batch_to_affine(j, cache);
  }
  return cache;
}

// CPU time of the whole process (every pool thread), in seconds. On a shared machine the wall time
// depends on what else runs; the process CPU time per iteration, divided by the threads, is what
// the wall time would be on idle cores with perfect balance.
double process_cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

void report(benchmark::State& state, double cpu_s) {
  const double per_iter_ms = 1e3 * cpu_s / double(state.iterations());
  state.counters["threads"] = double(util::num_threads());
  state.counters["proc_cpu_ms"] = per_iter_ms;
  state.counters["cpu_per_thread_ms"] = per_iter_ms / double(util::num_threads());
}

enum class Dist { kRandom, kWitness };

// kWitness: 40% zeros, 30% ones, 30% full-width values (a Groth16 assignment is dominated by
// boolean wires and zeros; the rest are field elements of any size).
template <class Fr = bls12_381::Fr>
std::vector<Fr> scalars(size_t n, Dist d) {
  std::mt19937_64 rng(7);
  std::vector<Fr> k(n);
  for (auto& x : k) {
    if (d == Dist::kWitness) {
      const uint64_t u = rng() % 10;
      x = u < 4 ? Fr::zero() : u < 7 ? Fr::one() : Fr::random(rng);
    } else {
      x = Fr::random(rng);
    }
  }
  return k;
}

template <class C, Dist D, msm::Buckets B = msm::Buckets::kAuto, bool Glv = true>
void bm_msm(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  const auto& all = bases<C>(n);
  const std::span<const typename C::Affine> b(all.data(), n);
  const auto k = scalars<typename C::Fr>(n, D);
  msm::Options opt;
  opt.buckets = B;
  opt.glv = Glv;
  const double t0 = process_cpu_s();
  for (auto _ : state) benchmark::DoNotOptimize(msm::msm<C>(b, k, opt));
  report(state, process_cpu_s() - t0);
}

// A fixed window size (second argument; 0 = the cost model's choice), to check the model's choice
// against its neighbours. At 2^20 terms the choice is capped by the batch-affine scratch (see
// detail::kAffineScratchCap); the 2^20 rows show the cap's effect:
//   ./build/bench_msm --benchmark_filter='window/1048576' --benchmark_min_time=0.1 --benchmark_repetitions=3
// Random scalars over the first range(0) bases, with `opt`.
template <class C>
void run_random(benchmark::State& state, const msm::Options& opt) {
  const size_t n = size_t(state.range(0));
  const auto& all = bases<C>(n);
  const std::span<const typename C::Affine> b(all.data(), n);
  const auto k = scalars<typename C::Fr>(n, Dist::kRandom);
  const double t0 = process_cpu_s();
  for (auto _ : state) benchmark::DoNotOptimize(msm::msm<C>(b, k, opt));
  report(state, process_cpu_s() - t0);
}

template <class C>
void bm_msm_window(benchmark::State& state) {
  msm::Options opt;
  opt.window_bits = unsigned(state.range(1));
  run_random<C>(state, opt);
}

// A fixed batch-affine chunk (second argument, points sorted into buckets at a time; 0 = the
// default) and window (third, 0 = the cost model's):
//   ./build/bench_msm --benchmark_filter='chunk' --benchmark_repetitions=3
template <class C>
void bm_msm_chunk(benchmark::State& state) {
  msm::Options opt;
  opt.chunk = size_t(state.range(1));
  opt.window_bits = unsigned(state.range(2));
  run_random<C>(state, opt);
}

void bm_g1_batch4(benchmark::State& state) {
  const size_t n = size_t(state.range(0));
  const auto& all = bases<bls12_381::G1>(n);
  const std::span<const bls12_381::G1Affine> b(all.data(), n);
  std::vector<std::vector<Fr>> k;
  for (int v = 0; v < 4; ++v) k.push_back(scalars(n, Dist::kWitness));
  std::vector<std::span<const Fr>> spans(k.begin(), k.end());
  const double t0 = process_cpu_s();
  for (auto _ : state) benchmark::DoNotOptimize(msm::msm_batch<bls12_381::G1>(b, spans));
  report(state, process_cpu_s() - t0);
}

using bls12_381::G1;
using bls12_381::G2;

BENCHMARK(bm_msm<G1, Dist::kRandom>)
    ->Name("G1_random")
    ->RangeMultiplier(4)
    ->Range(1 << 10, 1 << 18)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<G1, Dist::kRandom, msm::Buckets::kXyzz>)
    ->Name("G1_random_xyzz")
    ->Arg(1 << 12)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<G1, Dist::kRandom, msm::Buckets::kBatchAffine>)
    ->Name("G1_random_affine")
    ->Arg(1 << 12)
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<G1, Dist::kWitness>)
    ->Name("G1_witness70")
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// The same without the GLV split, for an A/B in one run.
BENCHMARK(bm_msm<G1, Dist::kRandom, msm::Buckets::kAuto, false>)
    ->Name("G1_random_noglv")
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<G2, Dist::kRandom, msm::Buckets::kAuto, false>)
    ->Name("G2_random_noglv")
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_window<G1>)
    ->Name("G1_random_window")
    ->ArgsProduct({{1 << 16}, {10, 11, 12, 13, 14, 15, 16}})
    ->ArgsProduct({{1 << 20}, {0, 12, 13, 14, 15, 16}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_window<G2>)
    ->Name("G2_random_window")
    ->ArgsProduct({{1 << 16}, {11, 12, 13, 14, 15}})
    ->ArgsProduct({{1 << 20}, {0, 11, 12, 13, 14, 16}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_g1_batch4)
    ->Name("G1_witness70_batch4")
    ->Arg(1 << 14)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<G2, Dist::kRandom>)
    ->Name("G2_random")
    ->RangeMultiplier(4)
    ->Range(1 << 12, 1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<bn254::G1, Dist::kRandom>)
    ->Name("BN254_G1_random")
    ->RangeMultiplier(4)
    ->Range(1 << 12, 1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<bn254::G2, Dist::kRandom>)
    ->Name("BN254_G2_random")
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
// Small inputs with each bucket kind, for the batch-affine threshold (detail::affine_min_terms):
//   ./build/bench_msm --benchmark_filter='small_(xyzz|affine)' --benchmark_repetitions=5
#define SPLITPROVE_BENCH_SMALL(C, NAME)                                                          \
  BENCHMARK(bm_msm<C, Dist::kRandom, msm::Buckets::kXyzz>)                                       \
      ->Name(NAME "_small_xyzz")                                                                  \
      ->RangeMultiplier(4)                                                                        \
      ->Range(1 << 6, 1 << 12)                                                                    \
      ->Unit(benchmark::kMillisecond)                                                             \
      ->UseRealTime();                                                                            \
  BENCHMARK(bm_msm<C, Dist::kRandom, msm::Buckets::kBatchAffine>)                                \
      ->Name(NAME "_small_affine")                                                                \
      ->RangeMultiplier(4)                                                                        \
      ->Range(1 << 6, 1 << 12)                                                                    \
      ->Unit(benchmark::kMillisecond)                                                             \
      ->UseRealTime()
SPLITPROVE_BENCH_SMALL(bn254::G1, "BN254_G1");
SPLITPROVE_BENCH_SMALL(bn254::G2, "BN254_G2");
SPLITPROVE_BENCH_SMALL(G1, "G1");
SPLITPROVE_BENCH_SMALL(G2, "G2");
// BN254 without the GLV split (ec::bn254::BnGlv), for an A/B in one run.
BENCHMARK(bm_msm<bn254::G1, Dist::kRandom, msm::Buckets::kAuto, false>)
    ->Name("BN254_G1_random_noglv")
    ->RangeMultiplier(4)
    ->Range(1 << 12, 1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm<bn254::G2, Dist::kRandom, msm::Buckets::kAuto, false>)
    ->Name("BN254_G2_random_noglv")
    ->Arg(1 << 16)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_window<bn254::G1>)
    ->Name("BN254_G1_random_window")
    ->ArgsProduct({{1 << 20}, {0, 12, 13, 14, 15, 16}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_window<bn254::G2>)
    ->Name("BN254_G2_random_window")
    ->ArgsProduct({{1 << 20}, {0, 12, 13, 14, 15, 16}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_chunk<bn254::G1>)
    ->Name("BN254_G1_random_chunk")
    ->ArgsProduct({{1 << 16, 1 << 18, 1 << 20}, {0, 8192, 16384, 32768, 65536}, {0, 12, 13, 14}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_chunk<G1>)
    ->Name("G1_random_chunk")
    ->ArgsProduct({{1 << 16, 1 << 18}, {0, 16384, 32768}, {0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_chunk<G2>)
    ->Name("G2_random_chunk")
    ->ArgsProduct({{1 << 16}, {0, 16384, 32768}, {0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
BENCHMARK(bm_msm_chunk<bn254::G2>)
    ->Name("BN254_G2_random_chunk")
    ->ArgsProduct({{1 << 16, 1 << 20}, {0, 8192, 16384, 32768}, {0}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
