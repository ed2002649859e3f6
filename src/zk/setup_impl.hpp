#pragma once
#include <fmt/format.h>

#include "msm/fixed_base.hpp"
#include "poly/domain.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"
#include "zk/setup.hpp"

namespace splitprove::zk {

template <class E>
ProvingKey<E> dev_setup(const R1cs<E>& r1cs, const Progress& progress, HBasis h_basis) {
  using Fr = typename E::Fr;
  auto report = [&](const char* stage, double f) {
    if (progress) progress(stage, f);
  };
  const size_t m = r1cs.n_constraints, n_pub = r1cs.n_public(), n_vars = r1cs.n_wires;
  const size_t rows = m + n_pub + 1;
  poly::Domain<Fr> domain = poly::Domain<Fr>::at_least(rows);
  const size_t n = domain.size();
  if (domain.log_size() + 1 > Fr::S)
    throw Error(fmt::format("setup: {}: {} constraints need a domain of 2^{}, the field allows 2^{}",
                            r1cs.source, m, domain.log_size() + 1, Fr::S - 1));

  util::OsRng rng;
  const Fr tau = Fr::random(rng), alpha = Fr::random(rng), beta = Fr::random(rng),
           gamma = Fr::random(rng), delta = Fr::random(rng);

  ProvingKey<E> pk;
  pk.n_vars = uint32_t(n_vars);
  pk.n_public = uint32_t(n_pub);
  pk.domain_size = uint32_t(n);
  pk.h_basis = h_basis;

  // u, v, w at τ, and the coefficient list in snarkjs's order: per constraint its A terms then
  // its B terms, then the public-binding A rows.
  report("Lagrange basis at tau", 0.0);
  std::vector<Fr> L = domain.lagrange_at(tau);
  std::vector<Fr> u(n_vars, Fr::zero()), v(n_vars, Fr::zero()), w(n_vars, Fr::zero());
  util::UninitVector<Coefficient<E>> coeffs;
  for (size_t i = 0; i < m; ++i) {
    for (int mat = 0; mat < 3; ++mat) {
      auto& dst = mat == 0 ? u : mat == 1 ? v : w;
      for (const auto& t : r1cs.lc(i, mat)) {
        if (t.wire >= n_vars)
          throw Error(fmt::format("setup: {}: constraint {} names wire {} of {}", r1cs.source, i,
                                  t.wire, n_vars));
        dst[t.wire] += t.coeff * L[i];
        if (mat < 2)
          coeffs.push_back({mat == 0 ? Matrix::kA : Matrix::kB, uint32_t(i), t.wire, t.coeff});
      }
    }
  }
  for (size_t i = 0; i <= n_pub; ++i) {
    u[i] += L[m + i];
    coeffs.push_back({Matrix::kA, uint32_t(m + i), uint32_t(i), Fr::one()});
  }
  pk.coeffs = std::move(coeffs);

  report("scalars", 0.1);
  const Fr gamma_inv = gamma.inverse(), delta_inv = delta.inverse();
  std::vector<Fr> ic(n_pub + 1), cc(n_vars - n_pub - 1);
  for (size_t j = 0; j < n_vars; ++j) {
    Fr k = beta * u[j] + alpha * v[j] + w[j];
    if (j <= n_pub) ic[j] = k * gamma_inv;
    else cc[j - n_pub - 1] = k * delta_inv;
  }
  // H_i = L^(2n)_(2i+1)(τ)/δ, or τ^i·Z(τ)/δ.
  std::vector<Fr> hs(n);
  if (h_basis == HBasis::monomial) {
    Fr t = domain.vanishing_at(tau) * delta_inv;
    for (size_t i = 0; i < n; ++i, t *= tau) hs[i] = t;
  } else {
    poly::Domain<Fr> d2(domain.log_size() + 1);
    std::vector<Fr> L2 = d2.lagrange_at(tau);
    for (size_t i = 0; i < n; ++i) hs[i] = L2[2 * i + 1] * delta_inv;
  }

  report("G1 table", 0.15);
  using T1 = msm::FixedBaseTable<typename E::G1>;
  using T2 = msm::FixedBaseTable<typename E::G2>;
  T1 g1(E::G1Affine::generator(), T1::window_for(3 * n_vars + n + 8));
  T2 g2(E::G2Affine::generator(), T2::window_for(n_vars + 3));
  auto g1_points = [&](const std::vector<Fr>& ks) {
    util::UninitVector<typename E::G1Affine> out(ks.size());
    g1.mul_batch(ks, out);
    return out;
  };
  pk.alpha1 = g1.mul(alpha).to_affine();
  pk.beta1 = g1.mul(beta).to_affine();
  pk.delta1 = g1.mul(delta).to_affine();
  pk.beta2 = g2.mul(beta).to_affine();
  pk.gamma2 = g2.mul(gamma).to_affine();
  pk.delta2 = g2.mul(delta).to_affine();
  report("IC, A", 0.2);
  {
    const auto points = g1_points(ic);
    pk.ic.assign(points.begin(), points.end());
  }
  pk.a = g1_points(u);
  report("B1", 0.35);
  pk.b1 = g1_points(v);
  report("B2 (G2)", 0.45);
  {
    util::UninitVector<typename E::G2Affine> b2(n_vars);
    g2.mul_batch(v, b2);
    pk.b2 = std::move(b2);
  }
  report("C", 0.7);
  pk.c = g1_points(cc);
  report("H", 0.8);
  pk.h = g1_points(hs);
  report("done", 1.0);
  return pk;
}

}  // namespace splitprove::zk
