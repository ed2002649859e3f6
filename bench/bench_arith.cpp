// Arithmetic benchmarks for BLS12-381: field, tower, group and pairing operations, single-threaded.
//
// Every benchmark is a latency chain: the result of one iteration is an input of the next
// (x <- x·y, P <- P + Q, f <- FE(f), or, for operations whose result is a bool or a point of a
// different kind, the next input is picked by a bit of the previous result). The figure is
// therefore the time of one operation after another, as in blst's own benchmarks, not the
// throughput of independent operations that a superscalar core could overlap.
//
// The names are the keys of the table built by scripts/bench-arith.sh and of the noble peer
// (bench/peer_noble.mjs). Inputs come from bench/arith_inputs.hpp and are checked against closed
// forms by tests/test_bench_arith.cpp.
#include <benchmark/benchmark.h>

#include <cstdio>

#include "arith_inputs.hpp"
#include "ec/bn254.hpp"

namespace {

using namespace splitprove::bench;
namespace bls = splitprove::bls12_381;

const ArithInputs& inputs() {
  static const ArithInputs in = make_arith_inputs(kArithSeed);
  return in;
}

// ---- fields ------------------------------------------------------------------------------------

template <class F>
void chain_mul(benchmark::State& state, F x, const F y) {
  for (auto _ : state) x = x * y;
  benchmark::DoNotOptimize(x);
}

void fp_mul(benchmark::State& s) { chain_mul(s, inputs().fp_a, inputs().fp_b); }
void fr_mul(benchmark::State& s) { chain_mul(s, inputs().fr_a, inputs().fr_b); }
// The portable CIOS kernel, for an A/B against the run-time kernel (mulx/adcx/adox) in one run.
template <class F>
void chain_mul_portable(benchmark::State& state, F x, const F y) {
  auto a = x.mont();
  for (auto _ : state) a = F::mont_mul_portable(a, y.mont());
  benchmark::DoNotOptimize(a);
}
void fp_mul_portable(benchmark::State& s) { chain_mul_portable(s, inputs().fp_a, inputs().fp_b); }
void fr_mul_portable(benchmark::State& s) { chain_mul_portable(s, inputs().fr_a, inputs().fr_b); }
void fp2_mul(benchmark::State& s) { chain_mul(s, inputs().fp2_a, inputs().fp2_b); }
void fp12_mul(benchmark::State& s) { chain_mul(s, inputs().fp12_a, inputs().fp12_b); }

void fp_sqr(benchmark::State& state) {
  Fp x = inputs().fp_a;
  for (auto _ : state) x = x.square();
  benchmark::DoNotOptimize(x);
}

// BN254 (4 limbs) beside BLS12-381 (6 limbs): the BN254 input is a fixed element derived from the
// BLS12-381 one's limbs.
template <class F>
void chain_sqr(benchmark::State& state, F x) {
  for (auto _ : state) x = x.square();
  benchmark::DoNotOptimize(x);
}
namespace bn = splitprove::bn254;
bn::Fp bn_fp_a() {
  const auto& l = inputs().fp_a.mont();
  return bn::Fp::reduce({l[0], l[1], l[2], l[3] >> 4});
}
void fr_sqr(benchmark::State& s) { chain_sqr(s, inputs().fr_a); }
void bn254_fp_mul(benchmark::State& s) { chain_mul(s, bn_fp_a(), bn_fp_a().square()); }
void bn254_fp_sqr(benchmark::State& s) { chain_sqr(s, bn_fp_a()); }
void bn254_fp_mul_portable(benchmark::State& s) {
  chain_mul_portable(s, bn_fp_a(), bn_fp_a().square());
}

void fp_add(benchmark::State& state) {
  Fp x = inputs().fp_a;
  const Fp y = inputs().fp_b;
  for (auto _ : state) x = x + y;
  benchmark::DoNotOptimize(x);
}

void fp_inv(benchmark::State& state) {
  Fp x = inputs().fp_a;
  for (auto _ : state) x = x.inverse();
  benchmark::DoNotOptimize(x);
}

void fp12_cyclotomic_sqr(benchmark::State& state) {
  Fp12 x = inputs().cyclotomic;  // stays in the cyclotomic subgroup under squaring
  for (auto _ : state) x = x.cyclotomic_square();
  benchmark::DoNotOptimize(x);
}

// ---- groups ------------------------------------------------------------------------------------

void g1_add(benchmark::State& state) {  // Jacobian + Jacobian, both Z != 1 (add-or-double)
  G1Jacobian acc = inputs().g1_p;
  const G1Jacobian q = inputs().g1_q;
  for (auto _ : state) acc = acc + q;
  benchmark::DoNotOptimize(acc);
}

void g1_add_mixed(benchmark::State& state) {  // Jacobian + affine
  G1Jacobian acc = inputs().g1_p;
  const G1Affine q = inputs().g1_q_affine;
  for (auto _ : state) acc = acc + q;
  benchmark::DoNotOptimize(acc);
}

void g1_dbl(benchmark::State& state) {
  G1Jacobian acc = inputs().g1_p;
  for (auto _ : state) acc = acc.dbl();
  benchmark::DoNotOptimize(acc);
}

void g1_xyzz_add_mixed(benchmark::State& state) {  // bucket += affine (the MSM inner step)
  bls::G1::Xyzz acc = bls::G1::Xyzz::from_affine(inputs().g1_p.to_affine());
  const G1Affine q = inputs().g1_q_affine;
  for (auto _ : state) acc += q;
  benchmark::DoNotOptimize(acc);
}

void g2_add(benchmark::State& state) {
  G2Jacobian acc = inputs().g2_p;
  const G2Jacobian q = inputs().g2_q;
  for (auto _ : state) acc = acc + q;
  benchmark::DoNotOptimize(acc);
}

template <class J>
void chain_scalar_mul(benchmark::State& state, J acc) {
  const auto k = inputs().k.to_canonical();  // 255-bit
  for (auto _ : state) acc = acc.mul(k);
  benchmark::DoNotOptimize(acc);
}
void g1_mul(benchmark::State& s) { chain_scalar_mul(s, inputs().g1_p); }
void g2_mul(benchmark::State& s) { chain_scalar_mul(s, inputs().g2_p); }

// A membership check returns a bool; the next point is picked by it (the index moves on only when
// the check accepts), which chains the checks. Every input is in the subgroup: a rejection is an
// error, not a figure.
template <class Pts, class Check>
void chain_check(benchmark::State& state, const Pts& pts, Check check) {
  size_t idx = 0, rejected = 0;
  for (auto _ : state) {
    const bool ok = check(pts[idx].to_jacobian());
    rejected += !ok;
    idx = (idx + ok) & 1;
  }
  benchmark::DoNotOptimize(idx);
  if (rejected) state.SkipWithError("a subgroup check rejected a point of the subgroup");
}
void g1_subgroup_fast(benchmark::State& s) { chain_check(s, inputs().g1_pts, bls::g1_in_subgroup); }
void g2_subgroup_fast(benchmark::State& s) { chain_check(s, inputs().g2_pts, bls::g2_in_subgroup); }
void g1_subgroup_by_order(benchmark::State& s) {
  chain_check(s, inputs().g1_pts, bls::G1::in_subgroup_by_order);
}
void g2_subgroup_by_order(benchmark::State& s) {
  chain_check(s, inputs().g2_pts, bls::G2::in_subgroup_by_order);
}

// Decompression: square root for y, sign selection and the fast subgroup check.
template <class Codec, class Affine, class Check>
void chain_decode(benchmark::State& state, const std::array<std::vector<uint8_t>, 2>& enc,
                  Check check) {
  size_t idx = 0, failed = 0;
  Affine out;
  for (auto _ : state) {
    const auto err = Codec::decode(enc[idx], out, check);
    failed += err != splitprove::ec::DecodeError::kNone;
    idx = (idx + size_t(out.x.is_zero() ? 0 : 1)) & 1;  // depends on the decoded point
  }
  benchmark::DoNotOptimize(out);
  if (failed) state.SkipWithError("a valid compressed point failed to decode");
}
void g1_decode_compressed(benchmark::State& s) {
  chain_decode<G1Codec, G1Affine>(s, inputs().g1_compressed, bls::g1_in_subgroup);
}
void g2_decode_compressed(benchmark::State& s) {
  chain_decode<G2Codec, G2Affine>(s, inputs().g2_compressed, bls::g2_in_subgroup);
}

// ---- pairing -----------------------------------------------------------------------------------

void miller_loop(benchmark::State& state) {  // G2 lines prepared once (verifying-key form)
  size_t idx = 0;
  for (auto _ : state) {
    const Fp12 f = miller_loop_prepared(inputs().g1_pts[idx], inputs().g2_prepared[idx]);
    idx = low_bit(f);
  }
  benchmark::DoNotOptimize(idx);
}

void miller_loop_with_lines(benchmark::State& state) {  // lines of Q computed in the call
  size_t idx = 0;
  for (auto _ : state) {
    const Fp12 f = miller_loop_unprepared(inputs().g1_pts[idx], inputs().g2_pts[idx]);
    idx = low_bit(f);
  }
  benchmark::DoNotOptimize(idx);
}

void final_exp(benchmark::State& state) {
  Fp12 f = inputs().fp12_a;
  for (auto _ : state) f = Pairing::final_exponentiation(f);
  benchmark::DoNotOptimize(f);
}

void pairing(benchmark::State& state) {
  size_t idx = 0;
  for (auto _ : state) {
    const Fp12 e = Pairing::pairing(inputs().g1_pts[idx], inputs().g2_pts[idx]);
    idx = low_bit(e);
  }
  benchmark::DoNotOptimize(idx);
}

// e(P1,Q1)·e(P2,Q2) == 1 with both G2 line sets computed in the call.
void multi_pairing_2(benchmark::State& state) {
  size_t idx = 0, wrong = 0;
  for (auto _ : state) {
    const bool ok = two_pair_check(inputs().mp_g1, inputs().mp_g2, idx != 0);
    wrong += !ok;
    idx = (idx + ok) & 1;
  }
  benchmark::DoNotOptimize(idx);
  if (wrong) state.SkipWithError("the 2-pair product of a balanced pair was not 1");
}

// The table order of scripts/bench-arith.sh; nanoseconds for the fast operations, microseconds for
// the rest, so the console output is readable.
BENCHMARK(fp_mul);
BENCHMARK(fp_mul_portable);
BENCHMARK(fp_sqr);
BENCHMARK(fr_sqr);
BENCHMARK(bn254_fp_mul);
BENCHMARK(bn254_fp_mul_portable);
BENCHMARK(bn254_fp_sqr);
BENCHMARK(fp_add);
BENCHMARK(fp_inv)->Unit(benchmark::kMicrosecond);
BENCHMARK(fr_mul);
BENCHMARK(fr_mul_portable);
BENCHMARK(fp2_mul);
BENCHMARK(fp12_mul);
BENCHMARK(fp12_cyclotomic_sqr);
BENCHMARK(g1_add);
BENCHMARK(g1_add_mixed);
BENCHMARK(g1_dbl);
BENCHMARK(g1_xyzz_add_mixed);
BENCHMARK(g2_add);
BENCHMARK(g1_mul)->Unit(benchmark::kMicrosecond);
BENCHMARK(g2_mul)->Unit(benchmark::kMicrosecond);
BENCHMARK(g1_subgroup_fast)->Unit(benchmark::kMicrosecond);
BENCHMARK(g1_subgroup_by_order)->Unit(benchmark::kMicrosecond);
BENCHMARK(g2_subgroup_fast)->Unit(benchmark::kMicrosecond);
BENCHMARK(g2_subgroup_by_order)->Unit(benchmark::kMicrosecond);
BENCHMARK(g1_decode_compressed)->Unit(benchmark::kMicrosecond);
BENCHMARK(g2_decode_compressed)->Unit(benchmark::kMicrosecond);
BENCHMARK(miller_loop)->Unit(benchmark::kMicrosecond);
BENCHMARK(miller_loop_with_lines)->Unit(benchmark::kMicrosecond);
BENCHMARK(final_exp)->Unit(benchmark::kMicrosecond);
BENCHMARK(pairing)->Unit(benchmark::kMicrosecond);
BENCHMARK(multi_pairing_2)->Unit(benchmark::kMicrosecond);

}  // namespace

int main(int argc, char** argv) {
  // Build (and validate) the inputs before any timing, so a bad input stops the run with its
  // reason instead of skewing the first benchmark.
  try {
    (void)inputs();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_arith: %s\n", e.what());
    return 1;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
