// The H polynomial in coefficient form (poly::h_coefficients, the H step of keys with the monomial
// H basis τ^i·Z(τ)/δ), checked by its defining identity and not against another implementation:
// for A, B with C = A·B on the domain, h must have degree <= n - 2 and satisfy
// A(x)·B(x) - C(x) = h(x)·Z(x) at a random x (Schwartz-Zippel: a wrong h passes with probability
// about 2n/|F|). A C that breaks one constraint must fail the identity. Fields: BLS12-381 Fr,
// BN254 Fr, and a 62-bit prime of 2-adicity 6 whose largest domain (k = S, where the coset shift
// is snarkjs's nqr^2 rather than ω_2n) is small enough to test.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "poly/domain.hpp"
#include "poly/domain_impl.hpp"
#include "poly/h_coeffs.hpp"
#include "splitprove/error.hpp"

namespace splitprove::poly {
namespace {

struct Toy6Params {
  static constexpr size_t N = 1;
  static constexpr ff::Limbs<1> modulus = {0x3ffffffffffffdc1ull};
  static constexpr const char* name = "toy62 S=6";
};
using Toy6 = ff::Field<Toy6Params>;
static_assert(Toy6::S == 6);

template <class F>
F horner(const std::vector<F>& p, const F& x) {
  F r = F::zero();
  for (size_t j = p.size(); j-- > 0;) r = r * x + p[j];
  return r;
}

// A·B - C - h·Z at x, from the evaluations of A, B, C on the domain.
template <class F>
F residue(const Domain<F>& d, std::vector<F> a, std::vector<F> b, std::vector<F> c,
          const std::vector<F>& h, const F& x) {
  d.intt(a), d.intt(b), d.intt(c);
  return horner(a, x) * horner(b, x) - horner(c, x) - horner(h, x) * d.vanishing_at(x);
}

template <class F>
void check_sizes(const std::vector<unsigned>& ks, uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (unsigned k : ks) {
    const Domain<F> d(k);
    const size_t n = d.size();
    std::vector<F> a(n), b(n), c(n);
    for (size_t i = 0; i < n; ++i) {
      a[i] = F::random(rng), b[i] = F::random(rng);
      c[i] = a[i] * b[i];
    }
    std::vector<F> h = a, tb = b, tc = c;
    h_coefficients(d, std::span<F>(h), std::span<F>(tb), std::span<F>(tc));
    EXPECT_TRUE(h[n - 1].is_zero()) << "k=" << k << ": deg h must be <= n - 2";
    const F x = F::random(rng);
    EXPECT_TRUE(residue(d, a, b, c, h, x).is_zero()) << "k=" << k << ": A·B - C != h·Z at x";
    // Not vacuous: h is not zero, and a different h fails.
    bool nonzero = false;
    for (const auto& v : h) nonzero = nonzero || !v.is_zero();
    EXPECT_TRUE(nonzero) << "k=" << k;
    std::vector<F> h2 = h;
    h2[rng() % n] += F::one();
    EXPECT_FALSE(residue(d, a, b, c, h2, x).is_zero()) << "k=" << k;

    // One broken constraint: C ≠ A·B at one point of H. No h of any degree satisfies the
    // identity then (Z vanishes there); the computed one fails it.
    std::vector<F> cbad = c;
    cbad[rng() % n] += F::one();
    std::vector<F> hb = a, bb = b, cb = cbad;
    h_coefficients(d, std::span<F>(hb), std::span<F>(bb), std::span<F>(cb));
    EXPECT_FALSE(residue(d, a, b, cbad, hb, x).is_zero()) << "k=" << k;
  }
}

TEST(HCoefficients, Bls12381FrIdentityHolds) {
  check_sizes<bls12_381::Fr>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 14}, 11);
}

TEST(HCoefficients, Bn254FrIdentityHolds) { check_sizes<bn254::Fr>({1, 2, 5, 10, 13}, 12); }

// k = S: no 2n-th root of unity; the shift is nqr^2, still outside H.
TEST(HCoefficients, LargestDomainOfASmallField) { check_sizes<Toy6>({1, 3, 5, 6}, 13); }

TEST(HCoefficients, RejectsWrongSizes) {
  const Domain<bls12_381::Fr> d(4);
  std::vector<bls12_381::Fr> a(16), b(16), c(15);
  EXPECT_THROW(h_coefficients(d, std::span(a), std::span(b), std::span(c)), Error);
}

}  // namespace
}  // namespace splitprove::poly
