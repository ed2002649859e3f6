#pragma once
// Bases for the MSM tests of every curve (tests/test_msm.cpp, tests/test_msm_bn254.cpp).
#include <cstddef>
#include <vector>

namespace splitprove::testing {

// k_i·G for independent random k_i, like the points of a proving key (one scalar multiplication
// each: small n only).
template <class C, class Rng>
std::vector<typename C::Affine> independent_bases(Rng& rng, std::size_t n) {
  using Jacobian = typename C::Jacobian;
  std::vector<Jacobian> j(n);
  for (auto& p : j) p = Jacobian::generator().mul(C::Fr::random(rng));
  std::vector<typename C::Affine> a(n);
  C::batch_to_affine(j, a);
  return a;
}

// s + i·t for random s, t: cheap (one addition each) and distinct, but full of linear relations
// (P_a + P_b = P_c + P_d whenever a + b = c + d), so partial sums inside a bucket meet equal
// x-coordinates and the batch-affine buckets take their exceptional path even on random scalars.
template <class C, class Rng>
std::vector<typename C::Affine> progression_bases(Rng& rng, std::size_t n) {
  using Jacobian = typename C::Jacobian;
  const Jacobian s = Jacobian::generator().mul(C::Fr::random(rng));
  const Jacobian t = Jacobian::generator().mul(C::Fr::random(rng));
  std::vector<Jacobian> j(n);
  Jacobian acc = s;
  for (std::size_t i = 0; i < n; ++i) {
    j[i] = acc;
    acc += t;
  }
  std::vector<typename C::Affine> a(n);
  C::batch_to_affine(j, a);
  return a;
}

}  // namespace splitprove::testing
