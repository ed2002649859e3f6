#pragma once
// The H polynomial in coefficient form: the Groth16 H step for keys whose H basis is the monomial
// one, H[i] = τ^i·Z(τ)/δ·G1 for i < n - 1 (the convention of bellman-style keys, as made by the
// bellman/SupraSeal family; snarkjs keys use the odd-coset Lagrange basis instead, see
// Domain::ab_minus_c_on_odd_coset).
//
// Given the evaluations of A, B, C (degree < n) on the domain H = <ω>, with A·B = C on H, the
// quotient h = (A·B - C)/Z, Z(x) = x^n - 1, has degree <= n - 2. It is computed on a coset g·H,
// where Z is the non-zero constant g^n - 1:
//   A, B, C: inverse NTT (NR) and coset NTT with shift g (RN)   -> evaluations at g·ω^i (natural)
//   A·B - C, times 1/(g^n - 1)                                   -> h(g·ω^i)
//   coset inverse NTT with shift g                               -> h's n coefficients (natural)
// The shift is Domain::odd_coset_shift() (ω_2n, or snarkjs's nqr^2 at the largest domain), so the
// first two steps are exactly Domain::ab_minus_c_on_odd_coset. The coefficients do not depend on
// the coset chosen: only the polynomial identity A·B - C = h·Z does.
//
// Result: a holds h_0..h_(n-1); h_(n-1) is zero when A·B = C holds on every point of H (a
// satisfied constraint system), and that is the only case in which h is the quotient (otherwise
// the division is not exact and the coefficients are those of the interpolant of the coset values).
// b and c are clobbered (they keep their coset evaluations). Sizes are checked (splitprove::Error).
//
// Header-only over poly::Domain<F>; the GPU version is cuda::FrNtt::h_coefficients.
#include <span>
#include <string>

#include "poly/domain.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::poly {

// 1/(g^n - 1) for the coset shift g of h_coefficients. Error if g^n = 1 (g in H: no coset).
template <class F>
F h_coset_vanishing_inverse(const Domain<F>& d) {
  const F z = d.vanishing_at(d.odd_coset_shift());
  if (z.is_zero())
    throw Error("poly::h_coefficients: the coset shift lies in the domain of size 2^" +
                std::to_string(d.log_size()));
  return z.inverse();
}

template <class F>
void h_coefficients(const Domain<F>& d, std::span<F> a, std::span<F> b, std::span<F> c) {
  for (auto* v : {&a, &b, &c})
    if (v->size() != d.size())
      throw Error("poly::h_coefficients: input has " + std::to_string(v->size()) +
                  " elements, the domain has 2^" + std::to_string(d.log_size()));
  const F zinv = h_coset_vanishing_inverse(d);
  d.ab_minus_c_on_odd_coset(a, b, c);  // a = (A·B - C)(g·ω^i)
  util::parallel_for(
      a.size(),
      [&](size_t lo, size_t hi) {
        for (size_t i = lo; i < hi; ++i) a[i] *= zinv;
      },
      size_t(1) << 14);
  d.coset_intt(a, d.odd_coset_shift(), Order::NN);
}

}  // namespace splitprove::poly
