// NTT benchmarks over BLS12-381 Fr on all cores (util::parallel_for; SPLITPROVE_THREADS overrides).
//   bench_ntt --benchmark_filter='ntt_forward' --benchmark_repetitions=3
//   bench_ntt --benchmark_filter='h_coset'     --benchmark_repetitions=3
// Time = wall clock; CPU = process CPU time of all threads (on a machine shared with other work,
// CPU/threads is the better estimate of the idle-machine wall time).
// Peak memory: one 2^22 vector (128 MiB) for ntt_forward, three 2^20 vectors (96 MiB) for h_coset.
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "ec/bls12_381.hpp"
#include "poly/domain.hpp"
#include "util/parallel.hpp"

namespace {

using splitprove::bls12_381::Fr;
using splitprove::poly::Domain;
using splitprove::poly::Order;

std::vector<Fr> random_vec(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Fr> v(n);
  for (auto& x : v) x = Fr::random(rng);
  return v;
}

void set_counters(benchmark::State& state, size_t elems_per_iter) {
  state.counters["threads"] = double(splitprove::util::num_threads());
  state.counters["elems/s"] = benchmark::Counter(
      double(elems_per_iter) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// One forward NTT of 2^k coefficients, in place (the data changes each iteration; the cost does
// not).
template <Order O>
void ntt_forward(benchmark::State& state) {
  const Domain<Fr> d(unsigned(state.range(0)));
  auto a = random_vec(d.size(), 1);
  for (auto _ : state) {
    d.ntt(a, O);
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, d.size());
}

// The Groth16 H step: a, b, c evaluations on H -> odd coset (3 iNTT + 3 coset NTT) and a·b - c.
void h_coset(benchmark::State& state) {
  const Domain<Fr> d(unsigned(state.range(0)));
  auto a = random_vec(d.size(), 1), b = random_vec(d.size(), 2), c = random_vec(d.size(), 3);
  for (auto _ : state) {
    d.ab_minus_c_on_odd_coset(a, b, c);
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, 3 * d.size());
}

// The peer measured in the same run: one Fr multiplication (4096 independent products per
// iteration, one thread). A radix-2 NTT of 2^k costs about k/2 - 1 multiplications per element,
// plus 2 per element for the four-step twiddles; the rest is additions and memory.
void fr_mul(benchmark::State& state) {
  auto a = random_vec(4096, 4);
  const Fr w = random_vec(1, 5)[0];
  for (auto _ : state) {
    for (auto& x : a) x *= w;
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.counters["ns/mul"] =
      benchmark::Counter(double(a.size()) * double(state.iterations()),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(fr_mul);

BENCHMARK(ntt_forward<Order::NR>)
    ->Name("ntt_forward/NR")
    ->DenseRange(16, 22, 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(ntt_forward<Order::NN>)
    ->Name("ntt_forward/NN")
    ->DenseRange(16, 22, 2)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();
BENCHMARK(h_coset)
    ->Name("h_coset")
    ->DenseRange(16, 20, 1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MeasureProcessCPUTime();

}  // namespace

BENCHMARK_MAIN();
