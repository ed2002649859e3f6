#pragma once
// Benchmark circuits for `splitprove demo` and `splitprove bench pipeline`, built in memory with a
// development key (INSECURE setup: benchmarks only):
//   porep  the PoRep-shaped circuit (circuit/porep.hpp; mostly 0/1 witness values), recorded once,
//          synthesized per partition by circuit::NativeSource; job j uses data seed j + 1
//   chain  x_{i+1} = x_i^2 + x_i + 7 (full-width witness values), through the circom source
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "circuit/porep.hpp"
#include "circuit/r1cs.hpp"
#include "zk/setup_impl.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "mem/units.hpp"
#include "pipeline/circom_source.hpp"
#include "pipeline/engine.hpp"
#include "poly/domain.hpp"
#include "splitprove/error.hpp"
#include "util/limits.hpp"
#include "zk/setup.hpp"

namespace splitprove::harness {

// "2^16" or "65536" -> 16 (a power of two).
inline unsigned parse_log2_size(const std::string& s, const char* what) {
  unsigned long long v = 0;
  try {
    if (s.rfind("2^", 0) == 0) {
      const unsigned long k = std::stoul(s.substr(2));
      if (k > 40) throw Error("");
      return unsigned(k);
    }
    v = std::stoull(s);
  } catch (const std::exception&) {
    throw Error(fmt::format("{}: '{}': expected 2^k or a power of two", what, s));
  }
  if (v < 2 || (v & (v - 1))) throw Error(fmt::format("{}: '{}' is not a power of two", what, s));
  return unsigned(__builtin_ctzll(v));
}

template <class E>
struct BenchCircuit {
  std::string name;
  std::shared_ptr<const pipeline::Key<E>> key;
  std::function<std::shared_ptr<const circuit::PartitionSource<typename E::Fr>>(std::uint32_t job)>
      source;
  pipeline::JobSpec<E> job(std::uint32_t j) const { return {source(j), key, 0}; }
};

namespace detail {

template <class E>
io::R1cs<E> chain_r1cs(std::uint32_t steps) {
  using Fr = typename E::Fr;
  io::R1cs<E> cs;
  cs.source = fmt::format("chain-{}", steps);
  cs.n_pub_out = 1;
  cs.n_pub_in = 1;
  cs.n_prv_in = 1;
  cs.n_wires = 4 + steps;
  cs.offsets.push_back(0);
  auto push = [&](std::initializer_list<io::Term<E>> a, std::initializer_list<io::Term<E>> b,
                  std::initializer_list<io::Term<E>> c) {
    for (auto* lc : {&a, &b, &c}) {
      cs.terms.insert(cs.terms.end(), lc->begin(), lc->end());
      cs.offsets.push_back(cs.terms.size());
    }
    ++cs.n_constraints;
  };
  for (std::uint32_t i = 0; i < steps; ++i) {
    const std::uint32_t xi = 3 + i, xn = 4 + i;
    push({{xi, Fr::one()}}, {{xi, Fr::one()}, {0, Fr::one()}},
         {{xn, Fr::one()}, {0, -Fr::from_u64(7)}});
  }
  push({{3 + steps, Fr::one()}}, {{0, Fr::one()}}, {{1, Fr::one()}});
  push({{2, Fr::one()}}, {{0, Fr::one()}}, {{2, Fr::one()}});
  return cs;
}

template <class E>
io::Witness<E> chain_witness(std::uint32_t steps, std::uint64_t x0, std::uint64_t y) {
  using Fr = typename E::Fr;
  io::Witness<E> w;
  w.source = fmt::format("chain witness x0={}", x0);
  auto& v = w.values;
  v.resize(4 + steps);
  v[0] = Fr::one();
  v[2] = Fr::from_u64(y);
  v[3] = Fr::from_u64(x0);
  for (std::uint32_t i = 0; i < steps; ++i)
    v[4 + i] = v[3 + i].square() + v[3 + i] + Fr::from_u64(7);
  v[1] = v[3 + steps];
  return w;
}

}  // namespace detail

// Where a benchmark's development key has its points: made on the host (every stage can use
// them), or made by the GPU where the CUDA stages use them (zk::dev_setup_scalars; the host keeps
// the scalars: a 2^27 key is ~70 GiB of points and hours of host work, seconds on an H200).
enum class KeyPoints { host, device };

// Host bytes the development key of a 2^k benchmark circuit takes at most while it is made: each
// of its at most 2^k variables has A, B1 and L points in G1 and a B2 point in G2, the H basis has
// 2^k G1 points, and the recorded circuit, the setup's vectors and the prepared key come on top
// (the factor 3/2: at 2^24 over BLS12-381 the points are 9.6 GiB and the process held 14.5 GiB).
// With the points on the device the host holds their scalars (A, B, L, H, and B2's compact copy)
// and, while they are made, the Lagrange basis and the third QAP vector: at most 7 per variable.
template <class E>
std::uint64_t dev_key_bytes_bound(unsigned k, KeyPoints where = KeyPoints::host) {
  const std::uint64_t n = std::uint64_t(1) << k;
  if (where == KeyPoints::device) return n * 7 * sizeof(typename E::Fr) / 2 * 3;
  const std::uint64_t g1 = sizeof(typename E::G1::Affine), g2 = sizeof(typename E::G2::Affine);
  return n * (4 * g1 + g2) / 2 * 3;
}

// Throws Error unless a 2^k benchmark circuit can be made here: the field's domains reach 2^k, and
// its development key fits in the memory the machine has now (`available`; the message gives the
// numbers). A key beyond that comes from a .zkey (`splitprove prove`, the daemon).
template <class E>
void check_bench_size(unsigned k, std::uint64_t available, KeyPoints where = KeyPoints::host) {
  const unsigned max = poly::Domain<typename E::Fr>::kMaxLogSize;
  if (k < 4 || k > max)
    throw Error(fmt::format("--size: 2^{} outside 2^4..2^{} (the domains of {} stop there)", k, max,
                            E::kName));
  const std::uint64_t need = dev_key_bytes_bound<E>(k, where);
  if (need > available)
    throw Error(
        where == KeyPoints::host
            ? fmt::format(
                  "--size: 2^{}: the development key of this benchmark circuit needs up to {} of "
                  "host memory while it is made ({} variables at most, each with three G1 and one "
                  "G2 point, and {} H points), and this machine has {} available; make its points "
                  "on the GPU (--key-on device) or prove a key of that size from a .zkey",
                  k, mem::format_bytes(need), std::uint64_t(1) << k, std::uint64_t(1) << k,
                  mem::format_bytes(available))
            : fmt::format(
                  "--size: 2^{}: the development key of this benchmark circuit needs up to {} of "
                  "host memory while its scalars are made (at most 7 field elements for each of "
                  "its {} variables), and this machine has {} available",
                  k, mem::format_bytes(need), std::uint64_t(1) << k, mem::format_bytes(available)));
}

// `partitions`: how many witnesses each job's source holds.
template <class E>
BenchCircuit<E> make_bench_circuit(const std::string& kind, unsigned k, std::uint32_t partitions,
                                   KeyPoints where = KeyPoints::host) {
  check_bench_size<E>(k, util::available_memory(), where);
  // The key of `r1cs`; the coefficient list only where the source evaluates A·z and B·z by it.
  // Each stage of the setup on stderr with its time: at 2^26 it is a minute and more.
  auto t_last = std::chrono::steady_clock::now();
  std::string stage_now;
  auto progress = [&](const char* stage, double) {
    const auto now = std::chrono::steady_clock::now();
    if (!stage_now.empty() && k >= 20)
      std::fprintf(stderr, "setup: %s %.1f s\n", stage_now.c_str(),
                   std::chrono::duration<double>(now - t_last).count());
    stage_now = stage;
    t_last = now;
  };
  auto setup = [&](const auto& rows, bool coefficients) {
    if (where == KeyPoints::device) {
      auto key = pipeline::Key<E>::prepare_on_device(
          zk::dev_setup_scalars<E>(rows, progress, zk::HBasis::odd_coset, coefficients));
      progress("", 1.0);
      return key;
    }
    auto key = pipeline::Key<E>::prepare(std::make_shared<const zk::ProvingKey<E>>(
        zk::dev_setup<E>(rows, progress, zk::HBasis::odd_coset)));
    progress("", 1.0);
    return key;
  };
  if (kind == "porep") {
    if (k < 10)
      throw Error(fmt::format("--size: the porep circuit needs at least 2^10 (got 2^{})", k));
    using Fr = typename E::Fr;
    const circuit::PorepParams params = circuit::porep_for_log2(k, 1);
    progress("recording the circuit", 0.0);
    auto cs = std::make_shared<const circuit::ConstraintSystem<Fr>>(
        circuit::record_porep<Fr>(params).cs);  // the recording's z (4 GiB at 2^27) dies here
    BenchCircuit<E> bc;
    bc.name = params.name;
    bc.key = setup(circuit::setup_rows(*cs), /*coefficients=*/where == KeyPoints::host);
    bc.source = [params, cs](std::uint32_t job) {
      circuit::PorepParams p = params;
      p.seed = job + 1;
      return circuit::porep_source<Fr>(p, cs, /*check=*/true);
    };
    return bc;
  }
  if (kind == "chain") {
    // n_constraints + n_public + 1 rows < 2^k: steps + 2 constraints, 2 public.
    const std::uint32_t steps = (std::uint32_t(1) << k) - 6;
    auto r1cs = std::make_shared<const io::R1cs<E>>(detail::chain_r1cs<E>(steps));
    BenchCircuit<E> bc;
    bc.name = fmt::format("chain-2^{}", k);
    bc.key = setup(zk::rows_of(*r1cs), /*coefficients=*/true);
    auto pk = bc.key->pk;
    bc.source = [pk, steps, partitions, name = bc.name](std::uint32_t job) {
      std::vector<io::Witness<E>> ws;
      for (std::uint32_t p = 0; p < partitions; ++p)
        ws.push_back(detail::chain_witness<E>(steps, 1000 * job + p + 2, job));
      return std::make_shared<const pipeline::CircomSource<E>>(pk, std::move(ws), nullptr,
                                                               fmt::format("{} job {}", name, job));
    };
    return bc;
  }
  throw Error(fmt::format("--circuit: '{}': expected porep or chain", kind));
}

}  // namespace splitprove::harness
