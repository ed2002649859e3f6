// Evaluation domains and NTTs (src/poly), checked over several fields: BLS12-381 Fr (the library's
// instance), BN254 Fr (2-adicity 28), and two 62-bit primes of 2-adicity 6 and 12 whose largest
// domains (log n = S, where the odd coset needs snarkjs's nqr^2 shift) are small enough to test.
//
// The checks are independent of the implementation: a naive O(n^2) DFT (n <= 64), Horner
// evaluation at ω^i, closed forms (the NTT of a_j = g^j is (g^n - 1)/(g·ω^i - 1)), linearity,
// the convolution theorem, and Lagrange interpolation identities.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/bls12_381.hpp"
#include "poly/domain.hpp"
#include "poly/domain_impl.hpp"
#include "splitprove/error.hpp"

namespace splitprove::poly {
namespace {

struct Bn254FrParams {
  static constexpr size_t N = 4;
  static constexpr ff::Limbs<4> modulus =
      ff::from_hex<4>("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001");
  static constexpr const char* name = "bn254 Fr";
};
using Bn254Fr = ff::Field<Bn254FrParams>;

// p = (2^56 - 1 - 2·...)·2^6 + 1 and p = ...·2^12 + 1: the largest primes below 2^62 with exactly
// these 2-adicities (found by search, checked here via S).
struct Toy6Params {
  static constexpr size_t N = 1;
  static constexpr ff::Limbs<1> modulus = {0x3ffffffffffffdc1ull};
  static constexpr const char* name = "toy62 S=6";
};
using Toy6 = ff::Field<Toy6Params>;
struct Toy12Params {
  static constexpr size_t N = 1;
  static constexpr ff::Limbs<1> modulus = {0x3ffffffffffe5001ull};
  static constexpr const char* name = "toy62 S=12";
};
using Toy12 = ff::Field<Toy12Params>;
static_assert(Toy6::S == 6 && Toy12::S == 12 && Bn254Fr::S == 28 && bls12_381::Fr::S == 32);

constexpr Order kOrders[] = {Order::NN, Order::NR, Order::RN, Order::RR};

template <class F>
std::vector<F> random_vec(size_t n, std::mt19937_64& rng) {
  std::vector<F> v(n);
  for (auto& x : v) x = F::random(rng);
  return v;
}

// Horner: Σ a_j x^j.
template <class F>
F evaluate(const std::vector<F>& a, const F& x) {
  F r = F::zero();
  for (size_t j = a.size(); j-- > 0;) r = r * x + a[j];
  return r;
}

// Position -> index for an order side.
inline size_t index_at(size_t p, unsigned k, bool reversed) {
  return reversed ? size_t(bit_reverse(p, k)) : p;
}

// v in natural index order -> laid out in the given order.
template <class F>
std::vector<F> lay_out(const std::vector<F>& v, unsigned k, bool reversed) {
  std::vector<F> out(v.size());
  for (size_t p = 0; p < v.size(); ++p) out[p] = v[index_at(p, k, reversed)];
  return out;
}

template <class F>
class NttTest : public ::testing::Test {
 protected:
  static constexpr unsigned kMaxLog = Domain<F>::kMaxLogSize < 14 ? Domain<F>::kMaxLogSize : 14;
  std::mt19937_64 rng{0x5eed0000u + F::S};
};

using Fields = ::testing::Types<bls12_381::Fr, Bn254Fr, Toy6, Toy12>;
TYPED_TEST_SUITE(NttTest, Fields);

TYPED_TEST(NttTest, DomainConstants) {
  using F = TypeParam;
  for (unsigned k = 0; k <= Domain<F>::kMaxLogSize && k <= 28; ++k) {
    const Domain<F> d(k);
    EXPECT_EQ(d.size(), size_t(1) << k);
    EXPECT_EQ(d.log_size(), k);
    EXPECT_EQ(d.omega(), F::root_of_unity(k));
    EXPECT_TRUE((d.omega() * d.omega_inv()).is_one());
    EXPECT_TRUE((d.size_inv() * F::from_u64(d.size())).is_one());
    // ω has order exactly n: ω^n = 1 and (for n > 1) ω^(n/2) = -1.
    EXPECT_TRUE(d.vanishing_at(d.omega()).is_zero());
    if (k > 0) {
      F h = d.omega();
      for (unsigned i = 1; i < k; ++i) h = h.square();
      EXPECT_EQ(h, -F::one()) << "k=" << k;
    }
    EXPECT_EQ(d.element(0), F::one());
    EXPECT_EQ(d.element(1), d.omega());
    EXPECT_EQ(d.element(d.size() + 1), d.omega());
  }
}

TEST(NttRoots, SnarkjsConvention) {
  // Check values from ffjavascript (FORMATS.md): BLS12-381 w[10], w[2]; BN254 w[10].
  EXPECT_EQ(Domain<bls12_381::Fr>(10).omega().to_hex(),
            "2f27b09858f43cef3ed6d55a6350721d79efd6b0570bf109d58a5af42d010ff9");
  EXPECT_EQ(Domain<bls12_381::Fr>(2).omega(),
            bls12_381::Fr::from_hex("8d51ccce760304d0ec030002760300000001000000000000"));
  EXPECT_EQ(Domain<Bn254Fr>(10).omega(),
            Bn254Fr::from_hex("06fd19c17017a420ebbebc2bb08771e339ba79c0a8d2d7ab11f995e1bc2e5912"));
  // The odd coset of a 2^k domain uses ω_2n = w[k + 1], whose square is ω_n.
  const Domain<bls12_381::Fr> d(10);
  EXPECT_EQ(d.odd_coset_shift(), bls12_381::Fr::root_of_unity(11));
  EXPECT_EQ(d.odd_coset_shift().square(), d.omega());
}

TYPED_TEST(NttTest, MatchesNaiveDft) {
  using F = TypeParam;
  for (unsigned k = 0; k <= 6 && k <= Domain<F>::kMaxLogSize; ++k) {
    const Domain<F> d(k);
    const size_t n = d.size();
    const auto a = random_vec<F>(n, this->rng);
    const F g = F::random(this->rng);
    std::vector<F> ev(n), cev(n), inv(n);
    for (size_t i = 0; i < n; ++i) {
      ev[i] = evaluate(a, d.element(i));
      cev[i] = evaluate(a, g * d.element(i));
      // Naive inverse DFT of a (as evaluations): (1/n) Σ_j a_j ω^(-ij).
      F s = F::zero();
      for (size_t j = 0; j < n; ++j) s += a[j] * d.omega_inv().pow(uint64_t(i * j % n));
      inv[i] = s * d.size_inv();
    }
    for (Order o : kOrders) {
      const bool ri = input_reversed(o), ro = output_reversed(o);
      auto x = lay_out(a, k, ri);
      d.ntt(x, o);
      EXPECT_EQ(x, lay_out(ev, k, ro)) << "ntt k=" << k << " " << to_string(o);
      x = lay_out(a, k, ri);
      d.intt(x, o);
      EXPECT_EQ(x, lay_out(inv, k, ro)) << "intt k=" << k << " " << to_string(o);
      x = lay_out(a, k, ri);
      d.coset_ntt(x, g, o);
      EXPECT_EQ(x, lay_out(cev, k, ro)) << "coset_ntt k=" << k << " " << to_string(o);
      x = lay_out(cev, k, ri);
      d.coset_intt(x, g, o);
      EXPECT_EQ(x, lay_out(a, k, ro)) << "coset_intt k=" << k << " " << to_string(o);
    }
  }
}

TYPED_TEST(NttTest, RoundTripsEveryOrderAndSize) {
  using F = TypeParam;
  for (unsigned k = 0; k <= this->kMaxLog; ++k) {
    const Domain<F> d(k);
    const auto a = random_vec<F>(d.size(), this->rng);
    const F g = F::random(this->rng);
    for (Order o : kOrders) {
      // Forward in order XY, inverse in order YX: back where we started.
      const Order back = o == Order::NR ? Order::RN : o == Order::RN ? Order::NR : o;
      auto x = a;
      d.ntt(x, o);
      d.intt(x, back);
      EXPECT_EQ(x, a) << "k=" << k << " " << to_string(o);
      x = a;
      d.coset_ntt(x, g, o);
      d.coset_intt(x, g, back);
      EXPECT_EQ(x, a) << "coset k=" << k << " " << to_string(o);
      x = a;
      d.intt(x, o);
      d.ntt(x, back);
      EXPECT_EQ(x, a) << "inverse first k=" << k << " " << to_string(o);
    }
  }
}

// a_j = g^j has the closed-form transform X_i = Σ_j (g·s·ω^i)^j = ((g·s)^n - 1)/(g·s·ω^i - 1),
// checked at every output without inversions: X_i·(g·s·ω^i - 1) = (g·s)^n - 1.
TYPED_TEST(NttTest, GeometricSequenceClosedForm) {
  using F = TypeParam;
  for (unsigned k : {1u, 5u, 10u, 11u, 12u, 13u, 14u}) {
    if (k > this->kMaxLog) continue;
    const Domain<F> d(k);
    const size_t n = d.size();
    const F g = F::random(this->rng), s = F::random(this->rng);
    std::vector<F> a(n);
    F p = F::one();
    for (auto& x : a) x = p, p *= g;
    for (Order o : kOrders) {
      for (bool coset : {false, true}) {
        const F gs = coset ? g * s : g;
        auto x = lay_out(a, k, input_reversed(o));
        if (coset)
          d.coset_ntt(x, s, o);
        else
          d.ntt(x, o);
        const F rhs = d.vanishing_at(gs);  // (g·s)^n - 1
        F w = F::one();
        size_t bad = 0;
        for (size_t i = 0; i < n; ++i, w *= d.omega()) {
          const F xi = x[index_at(i, k, output_reversed(o))];
          bad += !(xi * (gs * w - F::one()) == rhs);
        }
        EXPECT_EQ(bad, 0u) << "k=" << k << " " << to_string(o) << " coset=" << coset;
      }
    }
  }
}

// Closed forms with 0/1 inputs: the all-ones vector transforms to (n, 0, ..., 0) and the delta at
// index m to (ω^(i·m))_i; both in every order (the output zeros are order-independent).
TYPED_TEST(NttTest, OnesAndDeltas) {
  using F = TypeParam;
  for (unsigned k : {0u, 3u, 10u, 11u, 14u}) {
    if (k > this->kMaxLog) continue;
    const Domain<F> d(k);
    const size_t n = d.size();
    for (Order o : kOrders) {
      std::vector<F> x(n, F::one());
      d.ntt(x, o);
      EXPECT_EQ(x[0], F::from_u64(n));
      for (size_t i = 1; i < n; ++i) ASSERT_TRUE(x[i].is_zero()) << k << " " << to_string(o);
      const size_t m = n > 3 ? 3 : n - 1;
      std::vector<F> delta(n, F::zero());
      delta[m] = F::one();
      x = lay_out(delta, k, input_reversed(o));
      d.ntt(x, o);
      const F step = d.element(m);
      F w = F::one();
      for (size_t i = 0; i < n; ++i, w *= step)
        ASSERT_EQ(x[index_at(i, k, output_reversed(o))], w) << k << " " << to_string(o);
      // And back: the inverse of the evaluations of 1 (all ones) is the delta at 0.
      std::vector<F> ones(n, F::one());
      d.intt(ones, o);
      EXPECT_TRUE(ones[0].is_one());
      for (size_t i = 1; i < n; ++i) ASSERT_TRUE(ones[i].is_zero());
    }
  }
}

TYPED_TEST(NttTest, SpotChecksAgainstHorner) {
  using F = TypeParam;
  const unsigned k = this->kMaxLog;
  const Domain<F> d(k);
  const auto a = random_vec<F>(d.size(), this->rng);
  const F g = F::random(this->rng);
  auto ev = a, cev = a;
  d.ntt(ev);
  d.coset_ntt(cev, g);
  for (int t = 0; t < 12; ++t) {
    const size_t i = t < 2 ? size_t(t) * (d.size() - 1) : size_t(this->rng() % d.size());
    EXPECT_EQ(ev[i], evaluate(a, d.element(i))) << "i=" << i;
    EXPECT_EQ(cev[i], evaluate(a, g * d.element(i))) << "i=" << i;
  }
}

TYPED_TEST(NttTest, Linearity) {
  using F = TypeParam;
  for (unsigned k : {4u, 11u, this->kMaxLog}) {
    if (k > this->kMaxLog) continue;
    const Domain<F> d(k);
    const auto x = random_vec<F>(d.size(), this->rng), y = random_vec<F>(d.size(), this->rng);
    const F al = F::random(this->rng), be = F::random(this->rng), g = F::random(this->rng);
    for (Order o : kOrders) {
      std::vector<F> z(d.size());
      for (size_t i = 0; i < z.size(); ++i) z[i] = al * x[i] + be * y[i];
      auto tx = x, ty = y;
      d.coset_ntt(tx, g, o);
      d.coset_ntt(ty, g, o);
      d.coset_ntt(z, g, o);
      size_t bad = 0;
      for (size_t i = 0; i < z.size(); ++i) bad += !(z[i] == al * tx[i] + be * ty[i]);
      EXPECT_EQ(bad, 0u) << "k=" << k << " " << to_string(o);
    }
  }
}

// Pointwise products of evaluations are evaluations of the product mod x^n - 1 (cyclic
// convolution).
TYPED_TEST(NttTest, ConvolutionTheorem) {
  using F = TypeParam;
  // Dense, against a naive O(n^2) cyclic convolution; the orders chain with no bit-reversal pass.
  for (unsigned k : {0u, 1u, 5u, 8u}) {
    if (k > this->kMaxLog) continue;
    const Domain<F> d(k);
    const size_t n = d.size();
    const auto x = random_vec<F>(n, this->rng), y = random_vec<F>(n, this->rng);
    std::vector<F> conv(n, F::zero());
    for (size_t i = 0; i < n; ++i)
      for (size_t j = 0; j < n; ++j) conv[(i + j) % n] += x[i] * y[j];
    auto tx = x, ty = y;
    d.ntt(tx, Order::NR);
    d.ntt(ty, Order::NR);
    for (size_t i = 0; i < n; ++i) tx[i] *= ty[i];
    d.intt(tx, Order::RN);
    EXPECT_EQ(tx, conv) << "k=" << k;
  }
  // Sparse factor at the largest size: y = 1 + 2x^s + 3x^(n-1); x·y rotates and adds.
  {
    const unsigned k = this->kMaxLog;
    const Domain<F> d(k);
    const size_t n = d.size(), s = n / 3 + 1;
    const auto x = random_vec<F>(n, this->rng);
    std::vector<F> y(n, F::zero());
    y[0] += F::from_u64(1);
    y[s % n] += F::from_u64(2);
    y[n - 1] += F::from_u64(3);
    std::vector<F> conv(n, F::zero());
    for (size_t j = 0; j < n; ++j)
      if (!y[j].is_zero())
        for (size_t i = 0; i < n; ++i) conv[(i + j) % n] += x[i] * y[j];
    auto tx = x, ty = y;
    d.ntt(tx);
    d.ntt(ty);
    for (size_t i = 0; i < n; ++i) tx[i] *= ty[i];
    d.intt(tx);
    EXPECT_EQ(tx, conv);
  }
}

TYPED_TEST(NttTest, OddCosetMatchesDirectEvaluation) {
  using F = TypeParam;
  for (unsigned k = 0; k <= this->kMaxLog; ++k) {
    const Domain<F> d(k);
    const size_t n = d.size();
    const F shift = d.odd_coset_shift();
    if (k < F::S) {
      EXPECT_EQ(shift, F::root_of_unity(k + 1));
    } else {
      const F g = F::smallest_non_residue();
      EXPECT_EQ(shift, g * g);                        // ffjavascript's Fr.shift
      EXPECT_FALSE(d.vanishing_at(shift).is_zero());  // a true coset: disjoint from H
    }
    const auto coeffs = random_vec<F>(n, this->rng);
    // Evaluations on H: by Horner for small n, by the (separately checked) NTT for large n.
    std::vector<F> evals = coeffs;
    if (n <= 64) {
      for (size_t i = 0; i < n; ++i) evals[i] = evaluate(coeffs, d.element(i));
    } else {
      d.ntt(evals);
    }
    auto odd = evals;
    d.to_odd_coset(odd);
    // Points ω_2n^(2i+1) = shift·ω^i; all of them for small n, a sample for large n.
    const size_t checks = n <= 64 ? n : 16;
    for (size_t t = 0; t < checks; ++t) {
      const size_t i = n <= 64 ? t : size_t(this->rng() % n);
      const F pt =
          k < F::S ? F::root_of_unity(k + 1).pow(uint64_t(2 * i + 1)) : shift * d.element(i);
      ASSERT_EQ(odd[i], evaluate(coeffs, pt)) << "k=" << k << " i=" << i;
    }
  }
}

TYPED_TEST(NttTest, AbMinusCOnOddCoset) {
  using F = TypeParam;
  for (unsigned k : {2u, 6u, 11u}) {
    if (k > this->kMaxLog) continue;
    const Domain<F> d(k);
    const size_t n = d.size();
    // A satisfied "circuit": c_i = a_i·b_i on H, so a·b - c vanishes on H and its coset values are
    // Z(shift·ω^i)·h(shift·ω^i) with Z constant on the coset; an unsatisfied row changes that.
    auto a = random_vec<F>(n, this->rng), b = random_vec<F>(n, this->rng);
    std::vector<F> c(n);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    auto ca = a, cb = b, cc = c;
    d.intt(ca);
    d.intt(cb);
    d.intt(cc);
    d.ab_minus_c_on_odd_coset(a, b, c);
    const F shift = d.odd_coset_shift();
    for (size_t i = 0; i < n; i += (n > 64 ? 97 : 1)) {
      const F pt = shift * d.element(i);
      ASSERT_EQ(a[i], evaluate(ca, pt) * evaluate(cb, pt) - evaluate(cc, pt)) << k << " " << i;
      ASSERT_EQ(b[i], evaluate(cb, pt));
      ASSERT_EQ(c[i], evaluate(cc, pt));
    }
    // A·B - C vanishes on H, so it is Z·h with deg h <= n - 2, and Z is the constant shift^n - 1
    // on the coset: (ab - c)/Z interpolated over the coset has a zero coefficient n - 1. One
    // unsatisfied row adds -L_0/Z, whose coefficient n - 1 is -1/(n·Z) != 0.
    const F zinv = d.vanishing_at(shift).inverse();
    for (bool satisfied : {true, false}) {
      auto a2 = random_vec<F>(n, this->rng), b2 = random_vec<F>(n, this->rng);
      std::vector<F> c2(n);
      for (size_t i = 0; i < n; ++i) c2[i] = a2[i] * b2[i];
      if (!satisfied) c2[0] += F::one();
      d.ab_minus_c_on_odd_coset(a2, b2, c2);
      for (auto& x : a2) x *= zinv;
      d.coset_intt(a2, shift);
      EXPECT_EQ(a2[n - 1], satisfied ? F::zero() : -(zinv * d.size_inv())) << "k=" << k;
    }
  }
}

TYPED_TEST(NttTest, LagrangeBasis) {
  using F = TypeParam;
  for (unsigned k : {0u, 1u, 4u, 10u, 13u}) {
    if (k > this->kMaxLog) continue;
    const Domain<F> d(k);
    const size_t n = d.size();
    const F tau = F::random(this->rng);
    const auto L = d.lagrange_at(tau);
    // Σ L_i(τ) = 1 and Σ L_i(τ)·f(ω^i) = f(τ) for a random f of degree < n.
    const auto f = random_vec<F>(n, this->rng);
    auto fe = f;
    d.ntt(fe);
    F sum = F::zero(), interp = F::zero();
    for (size_t i = 0; i < n; ++i) sum += L[i], interp += L[i] * fe[i];
    EXPECT_TRUE(sum.is_one()) << "k=" << k;
    EXPECT_EQ(interp, evaluate(f, tau)) << "k=" << k;
    // Direct formula at a few i.
    const F zn = d.vanishing_at(tau) * d.size_inv();
    for (size_t i : {size_t(0), n / 2, n - 1}) {
      const F w = d.element(i);
      EXPECT_EQ(L[i], zn * w * (tau - w).inverse()) << "k=" << k << " i=" << i;
    }
    // L_i(ω^j) = δ_ij.
    for (size_t j : {size_t(0), n - 1, n / 3}) {
      const auto Lj = d.lagrange_at(d.element(j));
      for (size_t i = 0; i < n; ++i)
        ASSERT_EQ(Lj[i], i == j ? F::one() : F::zero()) << "k=" << k << " i=" << i << " j=" << j;
    }
  }
}

TYPED_TEST(NttTest, VanishingPolynomial) {
  using F = TypeParam;
  const Domain<F> d(this->kMaxLog < 9 ? this->kMaxLog : 9);
  for (size_t i = 0; i < d.size(); i += 7) EXPECT_TRUE(d.vanishing_at(d.element(i)).is_zero());
  const F x = F::random(this->rng);
  EXPECT_EQ(d.vanishing_at(x), x.pow(uint64_t(d.size())) - F::one());
}

TYPED_TEST(NttTest, BadInputsAreErrors) {
  using F = TypeParam;
  EXPECT_THROW(Domain<F>(Domain<F>::kMaxLogSize + 1), Error);
  EXPECT_THROW(Domain<F>(200), Error);
  EXPECT_THROW(Domain<F>::of_size(0), Error);
  EXPECT_THROW(Domain<F>::of_size(12), Error);
  EXPECT_THROW(Domain<F>::at_least((size_t(1) << Domain<F>::kMaxLogSize) + 1), Error);
  EXPECT_EQ(Domain<F>::of_size(16).log_size(), 4u);
  EXPECT_EQ(Domain<F>::at_least(0).log_size(), 0u);
  EXPECT_EQ(Domain<F>::at_least(1).log_size(), 0u);
  EXPECT_EQ(Domain<F>::at_least(17).log_size(), 5u);
  EXPECT_EQ(Domain<F>::at_least(32).log_size(), 5u);
  const Domain<F> d(4);
  std::vector<F> v(15), z(16);
  EXPECT_THROW(d.ntt(v), Error);
  EXPECT_THROW(d.intt(v, Order::RN), Error);
  EXPECT_THROW(d.coset_ntt(v, F::one()), Error);
  EXPECT_THROW(d.coset_intt(v, F::one()), Error);
  EXPECT_THROW(d.to_odd_coset(v), Error);
  EXPECT_THROW(d.lagrange_at(F::one(), v), Error);
  EXPECT_THROW(d.ab_minus_c_on_odd_coset(z, z, v), Error);
  EXPECT_THROW(d.coset_ntt(z, F::zero()), Error);
  EXPECT_THROW(d.coset_intt(z, F::zero()), Error);
  try {
    Domain<F> big(Domain<F>::kMaxLogSize + 1);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("2-adicity"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace splitprove::poly
