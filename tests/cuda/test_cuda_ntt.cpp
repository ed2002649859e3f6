// GPU NTT and H step (cuda/ntt.hpp) against the CPU poly::Domain, for both curves' scalar fields
// (BLS12-381 and BN254, one typed suite over FrNttOf<Fr>): every order, forward and inverse, plain
// and coset, sizes 2^1..2^18 (single-pass and multi-pass plans); round trips; spot evaluations by
// Horner's rule; the H scalars a·b - c on the odd coset, random and 0/1-heavy; h's coefficients
// (the H step of keys with the monomial H basis) against poly::h_coefficients and by the identity
// A·B - C = h·Z; the tiled bit reversal against the element-wise one. Skipped, with the reason,
// where no GPU exists.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cuda/ntt.hpp"
#include "gpu.hpp"
#include "poly/domain.hpp"
#include "poly/h_coeffs.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cuda {
namespace {

using namespace testing;
using poly::Order;

constexpr Order kOrders[] = {Order::NN, Order::NR, Order::RN, Order::RR};
// 2^1..2^10: one pass; 2^11..2^17: two; 2^18: three (passes of <= 7 stages above the bottom 10).
constexpr unsigned kSizes[] = {1, 2, 5, 9, 10, 11, 13, 17, 18};

// TypeParam: the host scalar field (bls12_381::Fr, bn254::Fr); the GPU side is FrNttOf<TypeParam>.
template <class HFr>
class GpuNtt : public ::testing::Test {
 protected:
  static std::vector<HFr> random_vec(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<HFr> v(n);
    for (auto& x : v) x = HFr::random(rng);
    return v;
  }
};
using ScalarFields = ::testing::Types<bls12_381::Fr, bn254::Fr>;
TYPED_TEST_SUITE(GpuNtt, ScalarFields);

TYPED_TEST(GpuNtt, MatchesCpuEveryOrderAndDirection) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  for (unsigned k : kSizes) {
    FrNttOf<HFr> gpu(test_pool(), k);
    poly::Domain<HFr> cpu(k);
    const auto a = this->random_vec(size_t(1) << k, 100 + k);
    for (Order o : kOrders) {
      for (bool inv : {false, true}) {
        auto g = a, c = a;
        gpu.ntt_host(g, o, inv, nullptr);
        inv ? cpu.intt(c, o) : cpu.ntt(c, o);
        ASSERT_TRUE(g == c) << "k=" << k << " order " << poly::to_string(o)
                            << (inv ? " inverse" : " forward");
      }
    }
  }
}

TYPED_TEST(GpuNtt, CosetMatchesCpu) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  std::mt19937_64 rng(7);
  for (unsigned k : {3u, 10u, 12u, 17u, 18u}) {
    FrNttOf<HFr> gpu(test_pool(), k);
    poly::Domain<HFr> cpu(k);
    const auto a = this->random_vec(size_t(1) << k, 200 + k);
    const HFr shift = HFr::random(rng);
    for (Order o : kOrders) {
      for (bool inv : {false, true}) {
        auto g = a, c = a;
        gpu.ntt_host(g, o, inv, &shift);
        inv ? cpu.coset_intt(c, shift, o) : cpu.coset_ntt(c, shift, o);
        ASSERT_TRUE(g == c) << "k=" << k << " order " << poly::to_string(o)
                            << (inv ? " coset inverse" : " coset forward");
      }
    }
  }
}

TYPED_TEST(GpuNtt, RoundTripsWithoutPermutation) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  for (unsigned k : {4u, 16u, 20u}) {
    FrNttOf<HFr> gpu(test_pool(), k);
    const auto a = this->random_vec(size_t(1) << k, 300 + k);
    auto g = a;
    gpu.ntt_host(g, Order::NR, false, nullptr);
    EXPECT_FALSE(g == a);
    gpu.ntt_host(g, Order::RN, true, nullptr);
    EXPECT_TRUE(g == a) << "k=" << k;
  }
}

TYPED_TEST(GpuNtt, SpotEvaluationsByHorner) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  const unsigned k = 15;
  FrNttOf<HFr> gpu(test_pool(), k);
  const auto coeffs = this->random_vec(size_t(1) << k, 400);
  auto ev = coeffs;
  gpu.ntt_host(ev, Order::NN, false, nullptr);
  const HFr w = HFr::root_of_unity(k);
  for (size_t i : {size_t(0), size_t(1), size_t(77), size_t(12345), (size_t(1) << k) - 1}) {
    const HFr x = w.pow(uint64_t(i));
    HFr y = HFr::zero();
    for (size_t j = coeffs.size(); j-- > 0;) y = y * x + coeffs[j];
    EXPECT_TRUE(ev[i] == y) << "evaluation " << i;
  }
}

// The H scalars of a Groth16 witness are mostly built from 0/1-heavy a, b, c; random ones too.
TYPED_TEST(GpuNtt, HStepMatchesCpu) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  std::mt19937_64 rng(11);
  for (unsigned k : {1u, 6u, 10u, 14u, 19u}) {
    FrNttOf<HFr> gpu(test_pool(), k);
    poly::Domain<HFr> cpu(k);
    const size_t n = size_t(1) << k;
    for (bool sparse : {false, true}) {
      auto a = this->random_vec(n, 500 + k), b = this->random_vec(n, 600 + k),
           c = this->random_vec(n, 700 + k);
      if (sparse)
        for (size_t i = 0; i < n; ++i) {
          const unsigned r = unsigned(rng() % 4);
          a[i] = r == 0 ? HFr::zero() : r == 1 ? HFr::one() : a[i];
          b[i] = r == 2 ? HFr::zero() : HFr::one();
          c[i] = a[i] * b[i];
        }
      auto ca = a, cb = b, cc = c;
      gpu.ab_minus_c_host(a, b, c);
      cpu.ab_minus_c_on_odd_coset(ca, cb, cc);
      const char* what = sparse ? " 0/1-heavy" : " random";
      EXPECT_TRUE(a == ca) << "k=" << k << what;
      EXPECT_TRUE(b == cb) << "k=" << k << what;
      EXPECT_TRUE(c == cc) << "k=" << k << what;
    }
  }
}

// C = A·B on the domain, so h is the exact quotient: equal to the CPU's, last coefficient 0, and
// A(x)B(x) - C(x) = h(x)Z(x) at a random x. Sizes 2^1..2^12 (below 2^8 the untiled path, from
// 2^8 the tiled pointwise+bit-reversal pass), 2^15 and 2^20 (3 NTT passes).
TYPED_TEST(GpuNtt, HCoefficientsMatchCpuAndTheIdentity) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  std::mt19937_64 rng(17);
  for (unsigned k : {1u, 2u, 3u, 4u, 5u, 6u, 7u, 8u, 9u, 10u, 11u, 12u, 15u, 20u}) {
    FrNttOf<HFr> gpu(test_pool(), k);
    poly::Domain<HFr> cpu(k);
    const size_t n = size_t(1) << k;
    auto a = this->random_vec(n, 800 + k), b = this->random_vec(n, 900 + k);
    std::vector<HFr> c(n);
    for (size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    auto ga = a, gb = b, gc = c, ca = a, cb = b, cc = c;
    gpu.h_coefficients_host(ga, gb, gc);
    if (k <= 15) {  // the CPU reference; 2^20 is checked by the identity alone
      poly::h_coefficients(cpu, std::span<HFr>(ca), std::span<HFr>(cb), std::span<HFr>(cc));
      ASSERT_TRUE(ga == ca) << "k=" << k;
    }
    EXPECT_TRUE(ga[n - 1].is_zero()) << "k=" << k;
    // The identity at a random x, from A, B, C's coefficients.
    auto pa = a, pb = b, pc = c;
    cpu.intt(pa), cpu.intt(pb), cpu.intt(pc);
    auto horner = [](const std::vector<HFr>& p, const HFr& x) {
      HFr r = HFr::zero();
      for (size_t j = p.size(); j-- > 0;) r = r * x + p[j];
      return r;
    };
    const HFr x = HFr::random(rng);
    EXPECT_TRUE(horner(pa, x) * horner(pb, x) - horner(pc, x) ==
                horner(ga, x) * cpu.vanishing_at(x))
        << "k=" << k;
    // A broken constraint changes h: the GPU still equals the CPU, and the identity fails.
    if (k == 9) {
      c[3] += HFr::one();
      auto ha = a, hb = b, hc = c, ra = a, rb = b, rc = c;
      gpu.h_coefficients_host(ha, hb, hc);
      poly::h_coefficients(cpu, std::span<HFr>(ra), std::span<HFr>(rb), std::span<HFr>(rc));
      EXPECT_TRUE(ha == ra);
      EXPECT_FALSE(ha == ga);
    }
  }
}

TYPED_TEST(GpuNtt, TiledBitReversalMatchesSwap) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  for (unsigned k : {8u, 9u, 12u, 17u}) {
    FrNttOf<HFr> gpu(test_pool(), k);
    const size_t n = size_t(1) << k;
    const auto a = this->random_vec(n, 1000 + k);
    DeviceBlock d = test_pool().allocate(2 * n * sizeof(HFr));
    HFr* p = d.as<HFr>();
    copy_to_device(p, a.data(), n * sizeof(HFr));
    copy_to_device(p + n, a.data(), n * sizeof(HFr));
    gpu.bit_reverse(p, nullptr, true);
    gpu.bit_reverse(p + n, nullptr, false);
    std::vector<HFr> t(n), u(n);
    copy_to_host(t.data(), p, n * sizeof(HFr));
    copy_to_host(u.data(), p + n, n * sizeof(HFr));
    EXPECT_TRUE(t == u) << "k=" << k;
    for (size_t i : {size_t(1), size_t(5), n - 2})
      EXPECT_TRUE(t[i] == a[poly::bit_reverse(i, k)]) << "k=" << k << " i=" << i;
  }
}

TYPED_TEST(GpuNtt, RejectsBadSizes) {
  SPLITPROVE_REQUIRE_GPU();
  using HFr = TypeParam;
  EXPECT_THROW(FrNttOf<HFr>(test_pool(), 0), Error);
  EXPECT_THROW(FrNttOf<HFr>(test_pool(), 29), Error);
  FrNttOf<HFr> gpu(test_pool(), 4);
  std::vector<HFr> v(15);
  EXPECT_THROW(gpu.ntt_host(v, Order::NN, false, nullptr), Error);
  std::vector<HFr> z(16);
  const HFr zero = HFr::zero();
  EXPECT_THROW(gpu.ntt_host(z, Order::NN, false, &zero), Error);
  std::vector<HFr> b(16);
  EXPECT_THROW(gpu.h_coefficients_host(z, b, v), Error);
}

}  // namespace
}  // namespace splitprove::cuda
