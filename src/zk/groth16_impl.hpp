#pragma once
// Template bodies of zk/groth16.hpp; instantiated per curve in zk/groth16_<curve>.cpp.
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include "msm/msm.hpp"
#include "poly/domain.hpp"
#include "splitprove/error.hpp"
#include "util/memory.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"
#include "zk/groth16.hpp"
#include "zk/stages_impl.hpp"

namespace splitprove::zk {

template <class E>
PreparedVerifyingKey<E> prepare(const VerifyingKey<E>& vk) {
  using P = typename E::Pairing;
  return {vk, P::prepare(vk.beta2), P::prepare(vk.gamma2), P::prepare(vk.delta2)};
}

template <class E>
std::optional<std::string> verify_reason(const PreparedVerifyingKey<E>& pvk,
                                         std::span<const typename E::Fr> pub,
                                         const Proof<E>& proof) {
  using P = typename E::Pairing;
  using G1J = typename E::G1Jacobian;
  const auto& vk = pvk.vk;
  if (pub.size() != vk.n_public || vk.ic.size() != size_t(vk.n_public) + 1)
    throw Error(fmt::format("verify: {} public inputs given, the verifying key expects {}",
                            pub.size(), vk.n_public));
  if (!proof.a.on_curve()) return "pi_a is not on the curve";
  if (!proof.b.on_curve()) return "pi_b is not on the curve";
  if (!proof.c.on_curve()) return "pi_c is not on the curve";
  if (!E::in_subgroup(proof.a.to_jacobian())) return "pi_a is not in the prime-order subgroup";
  if (!E::in_subgroup(proof.b.to_jacobian())) return "pi_b is not in the prime-order subgroup";
  if (!E::in_subgroup(proof.c.to_jacobian())) return "pi_c is not in the prime-order subgroup";
  // cpub = IC_0 + Σ pub_i·IC_i (public inputs are public: the variable-time path is fine).
  G1J cpub = vk.ic[0].to_jacobian();
  for (size_t i = 0; i < pub.size(); ++i) cpub += vk.ic[i + 1].to_jacobian().mul(pub[i]);
  auto b = P::prepare(proof.b);
  std::pair<typename E::G1Affine, const typename P::G2Prepared*> pairs[] = {
      {-proof.a, &b}, {cpub.to_affine(), &pvk.gamma}, {proof.c, &pvk.delta}, {vk.alpha1, &pvk.beta}};
  if (!P::product_is_one(pairs)) return "the pairing check failed";
  return std::nullopt;
}

template <class E>
bool verify(const PreparedVerifyingKey<E>& pvk, std::span<const typename E::Fr> pub,
            const Proof<E>& proof) {
  return !verify_reason(pvk, pub, proof).has_value();
}

template <class E>
Proof<E> prove_with(const ProvingKey<E>& pk, std::span<const typename E::Fr> w,
                    const typename E::Fr& r, const typename E::Fr& s, const Progress& progress) {
  using Fr = typename E::Fr;
  auto report = [&](const char* stage, double f) {
    if (progress) progress(stage, f);
  };
  if (w.size() != pk.n_vars)
    throw Error(fmt::format("prove: the witness has {} values, the proving key has {} variables",
                            w.size(), pk.n_vars));
  if (!w[0].is_one()) throw Error("prove: witness value 0 must be 1 (the constant wire)");
  const size_t n = pk.domain_size;

  // The same stages as the pipeline (zk/stages.hpp). The G2 MSM (straight over the key's B2
  // points: the MSM drops the terms whose point is at infinity, where the pipeline's G2Bases
  // compacts them) runs on a thread of its own beside the G1 stages, its chunks one rank below
  // theirs (util::PoolRank): they take a core whenever the G1 stages leave one idle (the end of
  // an MSM's last window, the classification and reading of the next), as the pipeline's G2
  // stage runs beside other partitions' G1 stages.
  typename E::G2Jacobian b2;
  std::exception_ptr g2_error;
  std::thread g2([&, rank = util::current_pool_rank()] {
    util::PoolRank below(rank + 1);
    try {
      b2 = msm::msm<typename E::G2>(pk.b2, w);
    } catch (...) {
      g2_error = std::current_exception();
    }
  });
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{g2};
  // a, b, c are the largest buffers of a proof: b and c die before the H MSM runs (only p, in a,
  // is read from there on), a after it, before the z MSMs run.
  G1Results<E> g1;
  // The G1 MSMs' scratch, handed from each to the next (msm::Workspace).
  msm::Workspace<typename E::G1> g1_ws;
  {
    report("evaluate A·w, B·w", 0.0);
    // Zeroed (a, b) and first written (c, h_scalars' scratch) by the pool's workers, not by this
    // thread.
    util::UninitVector<Fr> a(n), b(n), c(n);
    util::parallel_for(
        n,
        [&](size_t lo, size_t hi) {
          std::fill(a.begin() + lo, a.begin() + hi, Fr::zero());
          std::fill(b.begin() + lo, b.begin() + hi, Fr::zero());
        },
        size_t(1) << 14);
    evaluate_ab<E>(pk, w, a, b);
    report("NTT (H polynomial)", 0.1);
    h_scalars<E>(poly::Domain<Fr>::of_size(n), a, b, c, pk.h_basis);
    util::UninitVector<Fr>().swap(b);
    util::UninitVector<Fr>().swap(c);
    report("MSM H", 0.25);
    g1.h = msm_h<E>(pk, a, &g1_ws);
  }
  report("MSM A, B1, C", 0.4);
  msm_z<E>(pk, w, g1, &g1_ws);
  report("MSM B2 (G2), the rest", 0.7);
  g2.join();
  if (g2_error) std::rethrow_exception(g2_error);
  report("finalize", 0.95);
  auto proof = assemble<E>(pk, g1, b2, r, s);
  report("done", 1.0);
  return proof;
}

template <class E>
Proof<E> prove(const ProvingKey<E>& pk, std::span<const typename E::Fr> w,
               const Progress& progress) {
  util::OsRng rng;
  const auto r = E::Fr::random(rng), s = E::Fr::random(rng);
  return prove_with(pk, w, r, s, progress);
}

// The instantiation list of the prover, verifier and development setup (with zk/setup_impl.hpp),
// over an engine E (ec/curves.hpp); groth16_<curve>.cpp expands it in one line.
#define SPLITPROVE_GROTH16_INSTANTIATE(E)                                                        \
  template PreparedVerifyingKey<E> prepare<E>(const VerifyingKey<E>&);                           \
  template bool verify<E>(const PreparedVerifyingKey<E>&, std::span<const E::Fr>,                \
                          const Proof<E>&);                                                      \
  template std::optional<std::string> verify_reason<E>(const PreparedVerifyingKey<E>&,           \
                                                       std::span<const E::Fr>, const Proof<E>&); \
  template Proof<E> prove<E>(const ProvingKey<E>&, std::span<const E::Fr>, const Progress&);     \
  template Proof<E> prove_with<E>(const ProvingKey<E>&, std::span<const E::Fr>, const E::Fr&,    \
                                  const E::Fr&, const Progress&);                                \
  template ProvingKey<E> dev_setup<E>(const R1cs<E>&, const Progress&, HBasis);                  \
  template ScalarKey<E> dev_setup_scalars<E>(const R1cs<E>&, const Progress&, HBasis, bool);   \
  template std::vector<E::Fr> h_basis_at<E::Fr>(const poly::Domain<E::Fr>&, const E::Fr&, HBasis);

}  // namespace splitprove::zk
