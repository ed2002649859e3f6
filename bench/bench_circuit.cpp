// Native-circuit synthesis rate: the PoRep-shaped circuit (circuit/porep.hpp) of 2^k rows.
//   bench_circuit --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
// Cases, each per partition (a different partition every iteration):
//   synthesize/k/check  NativeSource::synthesize: witness generation + a, b (CSR SpMV), and with
//                       check = 1 also C·z compared with a·b (the default source setting)
//   witness/k           only the witness generation into z (the circuit in synthesis mode)
//   spmv/k              only ConstraintSystem::evaluate (a, b from z)
//   zkey_ab/k           the peer: the same a, b from a .zkey-style coefficient list
//                       (zk::evaluate_ab, what the prover does for circom inputs)
// Time = wall clock; CPU = process CPU time of all threads (on this shared machine CPU/threads
// estimates the idle-machine wall time). Counters: rows/s (= domain size per second), constraints/s, the fraction of z that is 0 or 1,
// and the matrix entries. Recording (once per circuit) happens before timing; its time is
// reported as the counter record_s. Peak memory at 2^20: z, a, b (3 × 32 MiB), the CSR
// matrices (~8 bytes per entry) and, for zkey_ab, the coefficient list (48 bytes per A/B entry).
#include <benchmark/benchmark.h>

#include <chrono>
#include <map>
#include <memory>
#include <stop_token>
#include <vector>

#include "circuit/porep.hpp"
#include "util/parallel.hpp"
#include "ec/curves.hpp"
#include "zk/groth16_impl.hpp"

namespace {

using namespace splitprove;
using E = ec::Bls12_381;
using Fr = E::Fr;

struct Fixture {
  circuit::PorepParams params;
  std::shared_ptr<const circuit::ConstraintSystem<Fr>> cs;
  double record_s = 0;
  double zero_one = 0;
};

const Fixture& fixture(unsigned k) {
  static std::map<unsigned, std::unique_ptr<Fixture>> cache;
  auto& f = cache[k];
  if (!f) {
    f = std::make_unique<Fixture>();
    f->params = circuit::porep_for_log2(k, 1);
    const auto t0 = std::chrono::steady_clock::now();
    auto rec = circuit::record_porep<Fr>(f->params);
    f->record_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    f->zero_one = circuit::zero_one_fraction<Fr>(rec.z);
    f->cs = std::make_shared<const circuit::ConstraintSystem<Fr>>(std::move(rec.cs));
  }
  return *f;
}

void counters(benchmark::State& state, const Fixture& f) {
  const auto& cs = *f.cs;
  state.counters["threads"] = double(util::num_threads());
  state.counters["rows/s"] = benchmark::Counter(double(cs.domain_size()) * double(state.iterations()),
                                                benchmark::Counter::kIsRate);
  state.counters["constraints/s"] = benchmark::Counter(
      double(cs.n_constraints) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["zero_one"] = f.zero_one;
  state.counters["entries"] =
      double(cs.a.entries.size() + cs.b.entries.size() + cs.c.entries.size());
  state.counters["record_s"] = f.record_s;
}

void synthesize(benchmark::State& state) {
  const auto& f = fixture(unsigned(state.range(0)));
  auto src = circuit::porep_source<Fr>(f.params, f.cs, state.range(1) != 0);
  const auto shape = src->shape();
  std::vector<Fr> z(shape.n_vars), a(shape.domain_size), b(shape.domain_size);
  size_t part = 0;
  for (auto _ : state) {
    src->synthesize(part++, z, a, b, std::stop_token{});
    benchmark::DoNotOptimize(b.data());
  }
  counters(state, f);
}

void witness(benchmark::State& state) {
  const auto& f = fixture(unsigned(state.range(0)));
  std::vector<Fr> z(f.cs->n_vars());
  size_t part = 0;
  for (auto _ : state) {
    circuit::Synthesizer<Fr> syn(z, f.cs->n_public);
    circuit::porep_circuit(syn, f.params, circuit::porep_witness<Fr>(f.params, part), part);
    syn.finish();
    ++part;
    benchmark::DoNotOptimize(z.data());
  }
  counters(state, f);
}

// z of partition 1, for the evaluation-only cases.
std::vector<Fr> some_z(const Fixture& f) {
  std::vector<Fr> z(f.cs->n_vars());
  circuit::Synthesizer<Fr> syn(z, f.cs->n_public);
  circuit::porep_circuit(syn, f.params, circuit::porep_witness<Fr>(f.params, 1), 1);
  syn.finish();
  return z;
}

void spmv(benchmark::State& state) {
  const auto& f = fixture(unsigned(state.range(0)));
  const auto z = some_z(f);
  const size_t n = f.cs->domain_size();
  std::vector<Fr> a(n), b(n);
  for (auto _ : state) {
    f.cs->evaluate(z, a, b);
    benchmark::DoNotOptimize(b.data());
  }
  counters(state, f);
}

void zkey_ab(benchmark::State& state) {
  const auto& f = fixture(unsigned(state.range(0)));
  const auto& cs = *f.cs;
  const auto z = some_z(f);
  // The coefficient list a .zkey of this circuit holds (dev_setup's order): per constraint its A
  // then its B entries, then the public-binding rows. Only `coeffs` is read by evaluate_ab.
  zk::ProvingKey<E> pk;
  pk.n_vars = cs.n_vars();
  pk.n_public = cs.n_public;
  pk.domain_size = uint32_t(cs.domain_size());
  util::UninitVector<zk::Coefficient<E>> coeffs;
  coeffs.reserve(cs.a.entries.size() + cs.b.entries.size() + cs.n_public + 1);
  for (uint32_t i = 0; i < cs.n_constraints; ++i) {
    for (const auto& e : cs.a.row(i)) coeffs.push_back({zk::Matrix::kA, i, e.col, cs.coeffs[e.coeff]});
    for (const auto& e : cs.b.row(i)) coeffs.push_back({zk::Matrix::kB, i, e.col, cs.coeffs[e.coeff]});
  }
  for (uint32_t j = 0; j <= cs.n_public; ++j)
    coeffs.push_back({zk::Matrix::kA, cs.n_constraints + j, j, Fr::one()});
  pk.coeffs = std::move(coeffs);
  const size_t n = cs.domain_size();
  std::vector<Fr> a(n), b(n);
  for (auto _ : state) {
    std::fill(a.begin(), a.end(), Fr::zero());
    std::fill(b.begin(), b.end(), Fr::zero());
    zk::evaluate_ab<E>(pk, z, a, b);
    benchmark::DoNotOptimize(b.data());
  }
  counters(state, f);
}

void sizes(benchmark::internal::Benchmark* b, bool with_check) {
  for (int k = 16; k <= 20; ++k) {
    if (with_check) {
      b->Args({k, 0});
      b->Args({k, 1});
    } else {
      b->Args({k});
    }
  }
  b->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->UseRealTime();
}

BENCHMARK(synthesize)->Apply([](auto* b) { sizes(b, true); });
BENCHMARK(witness)->Apply([](auto* b) { sizes(b, false); });
BENCHMARK(spmv)->Apply([](auto* b) { sizes(b, false); });
BENCHMARK(zkey_ab)->Apply([](auto* b) { sizes(b, false); });

}  // namespace

BENCHMARK_MAIN();
