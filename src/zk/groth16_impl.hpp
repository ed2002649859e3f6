#pragma once
// Template bodies of zk/groth16.hpp; instantiated per curve in zk/groth16_<curve>.cpp.
#include <fmt/format.h>

#include <atomic>

#include "msm/msm.hpp"
#include "poly/domain.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"
#include "zk/groth16.hpp"

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

namespace detail {

// a_i, b_i for the rows of the key's A and B matrices (rows >= n are impossible for a valid key;
// the reader checks it). Coefficients are summed per row by a pass over the list split into
// row-disjoint ranges when the list is sorted by row (snarkjs writes it so), serially otherwise.
template <class E>
void evaluate_ab(const ProvingKey<E>& pk, std::span<const typename E::Fr> w,
                 std::span<typename E::Fr> a, std::span<typename E::Fr> b) {
  const auto& cs = pk.coeffs;
  bool sorted = true;
  for (size_t i = 1; i < cs.size() && sorted; ++i) sorted = cs[i - 1].row <= cs[i].row;
  auto run = [&](size_t lo, size_t hi) {
    for (size_t k = lo; k < hi; ++k) {
      const auto& c = cs[k];
      auto& dst = c.matrix == Matrix::kA ? a[c.row] : b[c.row];
      dst += c.value * w[c.col];
    }
  };
  if (!sorted || cs.size() < 4096) return run(0, cs.size());
  // Split points moved forward to a row boundary so no two chunks touch the same row.
  const size_t chunks = 4 * util::num_threads();
  std::vector<size_t> cut(chunks + 1, cs.size());
  cut[0] = 0;
  for (size_t t = 1; t < chunks; ++t) {
    size_t k = std::max(cut[t - 1], cs.size() * t / chunks);
    while (k > 0 && k < cs.size() && cs[k].row == cs[k - 1].row) ++k;
    cut[t] = k;
  }
  util::parallel_for(chunks, [&](size_t t0, size_t t1) {
    for (size_t t = t0; t < t1; ++t) run(cut[t], cut[t + 1]);
  }, 1, chunks);
}

}  // namespace detail

template <class E>
Proof<E> prove_with(const ProvingKey<E>& pk, std::span<const typename E::Fr> w,
                    const typename E::Fr& r, const typename E::Fr& s, const Progress& progress) {
  using Fr = typename E::Fr;
  using G1 = typename E::G1;
  using G2 = typename E::G2;
  auto report = [&](const char* stage, double f) {
    if (progress) progress(stage, f);
  };
  if (w.size() != pk.n_vars)
    throw Error(fmt::format("prove: the witness has {} values, the proving key has {} variables",
                            w.size(), pk.n_vars));
  if (!w[0].is_one()) throw Error("prove: witness value 0 must be 1 (the constant wire)");
  const size_t n = pk.domain_size;

  // 1-2. The H scalars. a, b, c are the largest buffers of a proof; they die at the end of this
  // block, before the MSMs run.
  std::vector<Fr> p;
  {
    report("evaluate A·w, B·w", 0.0);
    std::vector<Fr> a(n, Fr::zero()), b(n, Fr::zero()), c(n);
    detail::evaluate_ab(pk, w, a, b);
    util::parallel_for(n, [&](size_t lo, size_t hi) {
      for (size_t i = lo; i < hi; ++i) c[i] = a[i] * b[i];
    }, 4096);
    report("NTT (H polynomial)", 0.1);
    poly::Domain<Fr> domain = poly::Domain<Fr>::of_size(n);
    domain.ab_minus_c_on_odd_coset(a, b, c);
    p = std::move(a);
  }

  // 3. The multi-scalar multiplications.
  report("MSM A", 0.25);
  auto msm_a = msm::msm<G1>(pk.a, w);
  report("MSM B1", 0.35);
  auto msm_b1 = msm::msm<G1>(pk.b1, w);
  report("MSM B2 (G2)", 0.45);
  auto msm_b2 = msm::msm<G2>(pk.b2, w);
  report("MSM C", 0.7);
  auto msm_c = msm::msm<G1>(pk.c, w.subspan(size_t(pk.n_public) + 1));
  report("MSM H", 0.8);
  auto msm_h = msm::msm<G1>(pk.h, std::span<const Fr>(p));
  report("finalize", 0.95);

  auto pi_a = pk.alpha1.to_jacobian() + msm_a + G1::mul_ct(pk.delta1, r);
  auto pi_b = pk.beta2.to_jacobian() + msm_b2 + G2::mul_ct(pk.delta2, s);
  auto b1 = pk.beta1.to_jacobian() + msm_b1 + G1::mul_ct(pk.delta1, s);
  auto pi_c = msm_c + msm_h + G1::mul_ct(pi_a.to_affine(), s) + G1::mul_ct(b1.to_affine(), r) -
              G1::mul_ct(pk.delta1, r * s);
  report("done", 1.0);
  return Proof<E>{pi_a.to_affine(), pi_b.to_affine(), pi_c.to_affine()};
}

template <class E>
Proof<E> prove(const ProvingKey<E>& pk, std::span<const typename E::Fr> w,
               const Progress& progress) {
  util::OsRng rng;
  const auto r = E::Fr::random(rng), s = E::Fr::random(rng);
  return prove_with(pk, w, r, s, progress);
}

}  // namespace splitprove::zk
