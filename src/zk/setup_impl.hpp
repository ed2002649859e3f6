#pragma once
#include <fmt/format.h>

#include "msm/fixed_base.hpp"
#include "poly/domain.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"
#include "util/random.hpp"
#include "zk/setup.hpp"

namespace splitprove::zk {

template <class Fr>
std::vector<Fr> h_basis_at(const poly::Domain<Fr>& domain, const Fr& tau, HBasis basis) {
  const size_t n = domain.size();
  std::vector<Fr> hs(n);
  if (basis == HBasis::monomial) {
    Fr t = domain.vanishing_at(tau);
    for (size_t i = 0; i < n; ++i, t *= tau) hs[i] = t;
    return hs;
  }
  // The odd points ω_2n^(2i+1) are g·ω^i (g = ω_2n, g^n = -1), so
  // L^(2n)_(2i+1)(τ) = L_i(τ/g)·((τ^2n - 1)/2n)·(n/((τ/g)^n - 1)) = L_i(τ/g)·(1 - τ^n)/2:
  // the Lagrange basis of H itself at τ/g, with no domain of 2n (8 GiB of values at 2^27).
  if (domain.log_size() + 1 > Fr::S)
    throw Error(fmt::format("setup: no odd coset of a domain of 2^{}", domain.log_size()));
  const Fr g = Fr::root_of_unity(domain.log_size() + 1);
  domain.lagrange_at(tau * g.inverse(), hs);
  const Fr k = -domain.vanishing_at(tau) * Fr::from_u64(2).inverse();
  util::parallel_for(n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) hs[i] *= k;
  });
  return hs;
}

// u, v, w: per wire the sum over the terms naming it of coefficient·L_i(τ) (i its constraint).
// Each thread owns a range of wires and reads every term, adding only to its own wires: no two
// threads write one value, no locks, and the work is spread however the terms cluster. The extra
// reads are cheap beside the products they replace (most coefficients are ±1: no product).
template <class Fr, class V>
void sums_at_tau(const SetupRows<Fr, V>& rows, std::span<const Fr> L, std::vector<Fr>& u,
                 std::vector<Fr>& v, std::vector<Fr>& w) {
  const size_t m = rows.n_constraints, n_vars = rows.n_wires;
  const Fr minus_one = -Fr::one();
  util::parallel_for(n_vars, [&](size_t lo, size_t hi) {
    Fr* const dst[3] = {u.data(), v.data(), w.data()};
    const bool last = hi == n_vars;  // this range also checks for wires past the end
    for (size_t i = 0; i < m; ++i) {
      const Fr& li = L[i];
      for (int mat = 0; mat < 3; ++mat)
        rows.visit(i, mat, [&](std::uint32_t wire, const Fr& c) {
          if (wire < lo || wire >= hi) {
            if (last && wire >= n_vars)
              throw Error(fmt::format("setup: {}: constraint {} names wire {} of {}", rows.source,
                                      i, wire, n_vars));
            return;
          }
          Fr& d = dst[mat][wire];
          if (c == Fr::one()) d += li;
          else if (c == minus_one) d -= li;
          else d += c * li;
        });
    }
  });
}

template <class E, class V>
ScalarKey<E> dev_setup_scalars(const SetupRows<typename E::Fr, V>& rows, const Progress& progress,
                               HBasis h_basis, bool coefficients) {
  using Fr = typename E::Fr;
  auto report = [&](const char* stage, double f) {
    if (progress) progress(stage, f);
  };
  const size_t m = rows.n_constraints, n_pub = rows.n_public, n_vars = rows.n_wires;
  const size_t rows_n = m + n_pub + 1;
  poly::Domain<Fr> domain = poly::Domain<Fr>::at_least(rows_n);
  const size_t n = domain.size();
  if (domain.log_size() + 1 > Fr::S)
    throw Error(fmt::format("setup: {}: {} constraints need a domain of 2^{}, the field allows 2^{}",
                            rows.source, m, domain.log_size() + 1, Fr::S - 1));

  util::OsRng rng;
  const Fr tau = Fr::random(rng), alpha = Fr::random(rng), beta = Fr::random(rng),
           gamma = Fr::random(rng), delta = Fr::random(rng);

  ScalarKey<E> out;
  ProvingKey<E>& pk = out.pk;
  KeyScalars<E>& ks = out.scalars;
  pk.n_vars = uint32_t(n_vars);
  pk.n_public = uint32_t(n_pub);
  pk.domain_size = uint32_t(n);
  pk.h_basis = h_basis;

  // u, v, w at τ, and the coefficient list in snarkjs's order: per constraint its A terms then
  // its B terms, then the public-binding A rows.
  report("Lagrange basis at tau", 0.0);
  std::vector<Fr> L = domain.lagrange_at(tau);
  report("sums over the terms", 0.05);
  std::vector<Fr> u(n_vars, Fr::zero()), v(n_vars, Fr::zero()), w(n_vars, Fr::zero());
  sums_at_tau(rows, std::span<const Fr>(L), u, v, w);
  for (size_t i = 0; i <= n_pub; ++i) u[i] += L[m + i];
  std::vector<Fr>().swap(L);
  if (coefficients) {
    util::UninitVector<Coefficient<E>> coeffs;
    for (size_t i = 0; i < m; ++i)
      for (int mat = 0; mat < 2; ++mat)
        rows.visit(i, mat, [&](std::uint32_t wire, const Fr& c) {
          coeffs.push_back({mat == 0 ? Matrix::kA : Matrix::kB, uint32_t(i), wire, c});
        });
    for (size_t i = 0; i <= n_pub; ++i)
      coeffs.push_back({Matrix::kA, uint32_t(m + i), uint32_t(i), Fr::one()});
    pk.coeffs = std::move(coeffs);
  }

  report("scalars", 0.1);
  // (β·u_j + α·v_j + w_j) over γ for IC, over δ for L, in place of w.
  const Fr gamma_inv = gamma.inverse(), delta_inv = delta.inverse();
  util::parallel_for(n_vars, [&](size_t lo, size_t hi) {
    for (size_t j = lo; j < hi; ++j)
      w[j] = (beta * u[j] + alpha * v[j] + w[j]) * (j <= n_pub ? gamma_inv : delta_inv);
  });
  std::vector<Fr> hs = h_basis_at(domain, tau, h_basis);
  util::parallel_for(n, [&](size_t lo, size_t hi) {
    for (size_t i = lo; i < hi; ++i) hs[i] *= delta_inv;
  });

  report("IC", 0.15);
  {
    using T1 = msm::FixedBaseTable<typename E::G1>;
    using T2 = msm::FixedBaseTable<typename E::G2>;
    T1 g1(E::G1Affine::generator(), T1::window_for(n_pub + 4));
    T2 g2(E::G2Affine::generator(), T2::window_for(3));
    pk.alpha1 = g1.mul(alpha).to_affine();
    pk.beta1 = g1.mul(beta).to_affine();
    pk.delta1 = g1.mul(delta).to_affine();
    pk.beta2 = g2.mul(beta).to_affine();
    pk.gamma2 = g2.mul(gamma).to_affine();
    pk.delta2 = g2.mul(delta).to_affine();
    util::UninitVector<typename E::G1Affine> ic(n_pub + 1);
    g1.mul_batch(std::span<const Fr>(w.data(), n_pub + 1), ic);
    pk.ic.assign(ic.begin(), ic.end());
  }
  w.erase(w.begin(), w.begin() + std::ptrdiff_t(n_pub + 1));  // L: the private wires
  ks.a = std::move(u);
  ks.b = std::move(v);
  ks.l = std::move(w);
  ks.h = std::move(hs);
  return out;
}

template <class E, class V>
ProvingKey<E> dev_setup(const SetupRows<typename E::Fr, V>& rows, const Progress& progress,
                        HBasis h_basis) {
  using Fr = typename E::Fr;
  auto report = [&](const char* stage, double f) {
    if (progress) progress(stage, f);
  };
  ScalarKey<E> sk = dev_setup_scalars<E>(rows, progress, h_basis, true);
  ProvingKey<E> pk = std::move(sk.pk);
  KeyScalars<E>& ks = sk.scalars;
  report("G1 table", 0.2);
  using T1 = msm::FixedBaseTable<typename E::G1>;
  using T2 = msm::FixedBaseTable<typename E::G2>;
  T1 g1(E::G1Affine::generator(), T1::window_for(3 * ks.a.size() + ks.h.size() + 8));
  T2 g2(E::G2Affine::generator(), T2::window_for(ks.b.size() + 3));
  auto g1_points = [&](std::vector<Fr>& scalars) {  // the scalars die here
    util::UninitVector<typename E::G1Affine> out(scalars.size());
    g1.mul_batch(scalars, out);
    std::vector<Fr>().swap(scalars);
    return out;
  };
  report("A", 0.25);
  pk.a = g1_points(ks.a);
  report("B2 (G2)", 0.35);
  {
    util::UninitVector<typename E::G2Affine> b2(ks.b.size());
    g2.mul_batch(ks.b, b2);
    pk.b2 = std::move(b2);
  }
  report("B1", 0.6);
  pk.b1 = g1_points(ks.b);
  report("C", 0.7);
  pk.c = g1_points(ks.l);
  report("H", 0.8);
  pk.h = g1_points(ks.h);
  report("done", 1.0);
  return pk;
}

template <class E>
ScalarKey<E> dev_setup_scalars(const R1cs<E>& r1cs, const Progress& progress, HBasis h_basis,
                               bool coefficients) {
  return dev_setup_scalars<E>(rows_of(r1cs), progress, h_basis, coefficients);
}

template <class E>
ProvingKey<E> dev_setup(const R1cs<E>& r1cs, const Progress& progress, HBasis h_basis) {
  return dev_setup<E>(rows_of(r1cs), progress, h_basis);
}

}  // namespace splitprove::zk
