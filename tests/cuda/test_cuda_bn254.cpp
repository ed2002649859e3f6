// The CUDA backend for BN254: the same NTT, H-step and MSM templates as BLS12-381, instantiated
// over BN254's device fields (cuda/ff_bn254.cuh), compared with the CPU (poly::Domain<bn254::Fr>,
// msm::msm) on random and 0/1-heavy inputs, points at infinity and sizes that are not powers of
// two, plus closed forms. The device field code itself is also run on the CPU (its host emulation)
// against bn254::Fp/Fr, which needs no GPU. GPU tests skip, with the reason, where no GPU exists.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cuda/ff_bn254.cuh"
#include "cuda/msm.hpp"
#include "cuda/ntt.hpp"
#include "ec/bn254.hpp"
#include "generator_multiples_check.hpp"
#include "gpu.hpp"
#include "msm/msm.hpp"
#include "poly/domain.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cuda {
namespace {

using namespace testing;
using HFr = bn254::Fr;
using poly::Order;

// ---- the device fields, emulated on the host --------------------------------------------------

template <class Dev, class Host>
void expect_device_field_matches_host(uint64_t seed) {
  std::vector<Host> a, b;
  make_inputs<Host>(400, seed, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    Dev x = Dev::load(a[i].mont().data()), y = Dev::load(b[i].mont().data());
    auto same = [&](const Dev& d, const Host& h, const char* op) {
      Host got = from_limbs<Host>(reinterpret_cast<const uint64_t*>(d.v));
      EXPECT_TRUE(got == h) << op << " at " << i;
    };
    same(x * y, a[i] * b[i], "mul");
    same(x + y, a[i] + b[i], "add");
    same(x - y, a[i] - b[i], "sub");
    same(-x, -a[i], "neg");
    same(x.sqr(), a[i].square(), "sqr");
    EXPECT_TRUE(x.is_reduced());
    // from_mont gives the canonical limbs.
    const Dev c = x.from_mont();
    EXPECT_EQ(std::memcmp(c.v, a[i].to_canonical().data(), sizeof(c.v)), 0) << "from_mont " << i;
  }
  // p itself is not a reduced element.
  Dev p = Dev::load(Host::MOD.data());
  EXPECT_FALSE(p.is_reduced());
}

TEST(Bn254DeviceField, FrMatchesHostOnTheCpu) {
  expect_device_field_matches_host<bn254_dev::Fr, bn254::Fr>(1);
}
TEST(Bn254DeviceField, FpMatchesHostOnTheCpu) {
  expect_device_field_matches_host<bn254_dev::Fp, bn254::Fp>(2);
  expect_device_field_matches_host<bn254_dev::FpNoinline, bn254::Fp>(3);
}
TEST(Bn254DeviceField, Fp2ProductMatchesHostOnTheCpu) {
  std::mt19937_64 rng(4);
  for (int i = 0; i < 200; ++i) {
    const bn254::Fp2 a{bn254::Fp::random(rng), bn254::Fp::random(rng)},
        b{bn254::Fp::random(rng), bn254::Fp::random(rng)};
    bn254_dev::Fp2NoinlineDev x = bn254_dev::Fp2NoinlineDev::load(&a),
                              y = bn254_dev::Fp2NoinlineDev::load(&b);
    bn254::Fp2 got;
    (x * y).store(&got);
    EXPECT_TRUE(got == a * b) << i;
    x.sqr().store(&got);
    EXPECT_TRUE(got == a.square()) << i;
  }
}

// ---- NTT and the H step -------------------------------------------------------------------------

std::vector<HFr> random_vec(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<HFr> v(n);
  for (auto& x : v) x = HFr::random(rng);
  return v;
}

constexpr Order kOrders[] = {Order::NN, Order::NR, Order::RN, Order::RR};

TEST(GpuNttBn254, MatchesCpuEveryOrderAndDirection) {
  SPLITPROVE_REQUIRE_GPU();
  for (unsigned k : {1u, 2u, 5u, 10u, 11u, 13u, 18u}) {
    Bn254FrNtt gpu(test_pool(), k);
    poly::Domain<HFr> cpu(k);
    const auto a = random_vec(size_t(1) << k, 100 + k);
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

TEST(GpuNttBn254, CosetMatchesCpu) {
  SPLITPROVE_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  for (unsigned k : {3u, 12u, 17u}) {
    Bn254FrNtt gpu(test_pool(), k);
    poly::Domain<HFr> cpu(k);
    const auto a = random_vec(size_t(1) << k, 200 + k);
    const HFr shift = HFr::random(rng);
    for (Order o : kOrders) {
      for (bool inv : {false, true}) {
        auto g = a, c = a;
        gpu.ntt_host(g, o, inv, &shift);
        inv ? cpu.coset_intt(c, shift, o) : cpu.coset_ntt(c, shift, o);
        ASSERT_TRUE(g == c) << "k=" << k << " order " << poly::to_string(o);
      }
    }
  }
}

TEST(GpuNttBn254, SpotEvaluationsByHorner) {
  SPLITPROVE_REQUIRE_GPU();
  const unsigned k = 14;
  Bn254FrNtt gpu(test_pool(), k);
  const auto coeffs = random_vec(size_t(1) << k, 400);
  auto ev = coeffs;
  gpu.ntt_host(ev, Order::NN, false, nullptr);
  const HFr w = HFr::root_of_unity(k);
  for (size_t i : {size_t(0), size_t(1), size_t(77), (size_t(1) << k) - 1}) {
    const HFr x = w.pow(uint64_t(i));
    HFr y = HFr::zero();
    for (size_t j = coeffs.size(); j-- > 0;) y = y * x + coeffs[j];
    EXPECT_TRUE(ev[i] == y) << "evaluation " << i;
  }
}

// The H scalars of a Groth16 witness are mostly built from 0/1-heavy a, b, c; random ones too.
TEST(GpuNttBn254, HStepMatchesCpu) {
  SPLITPROVE_REQUIRE_GPU();
  std::mt19937_64 rng(11);
  for (unsigned k : {1u, 6u, 10u, 15u}) {
    Bn254FrNtt gpu(test_pool(), k);
    poly::Domain<HFr> cpu(k);
    const size_t n = size_t(1) << k;
    for (bool sparse : {false, true}) {
      auto a = random_vec(n, 500 + k), b = random_vec(n, 600 + k), c = random_vec(n, 700 + k);
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
      EXPECT_TRUE(a == ca) << "k=" << k << (sparse ? " 0/1-heavy" : " random");
      EXPECT_TRUE(b == cb) << "k=" << k;
      EXPECT_TRUE(c == cc) << "k=" << k;
    }
  }
}

TEST(GpuNttBn254, RejectsBadSizes) {
  SPLITPROVE_REQUIRE_GPU();
  EXPECT_THROW(Bn254FrNtt(test_pool(), 0), Error);
  EXPECT_THROW(Bn254FrNtt(test_pool(), 29), Error);
  Bn254FrNtt gpu(test_pool(), 4);
  std::vector<HFr> v(15);
  EXPECT_THROW(gpu.ntt_host(v, Order::NN, false, nullptr), Error);
}

// ---- MSM ----------------------------------------------------------------------------------------

// k·G for k = 1..n with every 7th point replaced by infinity.
template <class C>
std::vector<typename C::Affine> test_bases(size_t n) {
  std::vector<typename C::Jacobian> j(n);
  auto acc = C::Jacobian::identity();
  const auto g = C::Affine::generator();
  for (size_t i = 0; i < n; ++i) j[i] = acc += g;
  std::vector<typename C::Affine> a(n);
  C::batch_to_affine(j, a);
  for (size_t i = 3; i < n; i += 7) a[i] = C::Affine::identity();
  return a;
}

enum class Mix { random, zero_one_heavy, mixed };

std::vector<HFr> test_scalars(size_t n, Mix mix, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<HFr> s(n);
  for (auto& x : s) {
    const unsigned r = unsigned(rng() % 100);
    switch (mix) {
      case Mix::random:
        x = HFr::random(rng);
        break;
      case Mix::zero_one_heavy:  // 75% 0/1, as in Groth16 witnesses
        x = r < 40 ? HFr::zero() : r < 75 ? HFr::one() : HFr::random(rng);
        break;
      case Mix::mixed:
        x = r < 20   ? HFr::zero()
            : r < 40 ? HFr::one()
            : r < 50 ? -HFr::one()
            : r < 70 ? HFr::from_u64(rng() & 0xffff)
            : r < 80 ? HFr::from_u64(rng())
                     : HFr::random(rng);
        break;
    }
  }
  return s;
}

template <class C>
void expect_matches_cpu(size_t n, Mix mix, const MsmOptions& opt, uint64_t seed) {
  const auto bases = test_bases<C>(n);
  const auto sc = test_scalars(n, mix, seed);
  MsmStats st;
  const auto got = msm_host<C>(test_pool(), bases, sc, opt, &st);
  EXPECT_TRUE(got == msm::msm<C>(bases, sc))
      << "n=" << n << " mix " << int(mix) << " c=" << st.window_bits;
  size_t zeros = 0, ones = 0;
  for (const auto& x : sc) zeros += x.is_zero(), ones += x.is_one();
  EXPECT_EQ(st.zeros, zeros);
  EXPECT_EQ(st.ones, opt.split ? ones : 0);
  EXPECT_EQ(st.tail, n - zeros - (opt.split ? ones : 0));
}

template <class C>
class GpuMsmBn254 : public ::testing::Test {};
using Groups = ::testing::Types<bn254::G1, bn254::G2>;
TYPED_TEST_SUITE(GpuMsmBn254, Groups);

TYPED_TEST(GpuMsmBn254, MatchesCpuOnEveryMix) {
  SPLITPROVE_REQUIRE_GPU();
  for (size_t n : {size_t(1), size_t(31), size_t(33), size_t(1000), size_t(4097)})
    for (Mix mix : {Mix::random, Mix::zero_one_heavy, Mix::mixed})
      expect_matches_cpu<TypeParam>(n, mix, {}, n * 10 + int(mix));
}

TYPED_TEST(GpuMsmBn254, WindowSizesAndUnsplit) {
  SPLITPROVE_REQUIRE_GPU();
  for (unsigned c : {1u, 2u, 7u, 13u, 14u, 20u}) {
    MsmOptions o;
    o.window_bits = c;
    expect_matches_cpu<TypeParam>(300, Mix::mixed, o, 1000 + c);
  }
  MsmOptions unsplit;
  unsplit.split = false;
  expect_matches_cpu<TypeParam>(3000, Mix::zero_one_heavy, unsplit, 77);
}

// The bucket kernel's variants give the same sums: runs longest first or in key order, and (G2)
// the kernel bounded to 3 blocks per SM or not, its Fp2 products called whole or not.
TYPED_TEST(GpuMsmBn254, BucketKernelVariantsAgree) {
  SPLITPROVE_REQUIRE_GPU();
  for (bool balance : {true, false})
    for (bool bounded : {true, false}) {
      MsmOptions o;
      o.balance = balance;
      o.bounded_buckets = bounded;
      o.fp2_call = balance != bounded;
      expect_matches_cpu<TypeParam>(5000 + 2 * balance + bounded, Mix::mixed, o,
                                    600 + 2 * balance + bounded);
      o.window_bits = 14;  // big runs beside small ones
      expect_matches_cpu<TypeParam>(7000, Mix::random, o, 700 + 2 * balance + bounded);
    }
  // The bucket table (dense or run-length encoded) and the window segments (one wave or powers of
  // two) in every combination.
  for (bool dense : {true, false})
    for (bool fit : {true, false}) {
      MsmOptions o;
      o.dense_runs = dense;
      o.fit_window_segments = fit;
      expect_matches_cpu<TypeParam>(5100, Mix::mixed, o, 610 + 2 * dense + fit);
      o.window_bits = 14;
      expect_matches_cpu<TypeParam>(7000, Mix::random, o, 710 + 2 * dense + fit);
    }
}

TYPED_TEST(GpuMsmBn254, LargerMixedNotAPowerOfTwo) {
  SPLITPROVE_REQUIRE_GPU();
  expect_matches_cpu<TypeParam>((size_t(1) << 14) + 123, Mix::mixed, {}, 5);
}

// Σ (i·G)·m over i = 1..n is m·n(n+1)/2·G (every digit of a window in one bucket); all-zero
// scalars give infinity, all-one scalars the plain sum (with the points at infinity in it).
TYPED_TEST(GpuMsmBn254, GeneratorMultiplesMatchHost) {
  SPLITPROVE_REQUIRE_GPU();
  for (size_t n : {size_t(1), size_t(5000)})
    expect_generator_multiples<TypeParam>(test_pool(), n, 70 + n);
}

TYPED_TEST(GpuMsmBn254, ClosedForms) {
  SPLITPROVE_REQUIRE_GPU();
  using C = TypeParam;
  const size_t n = 2000;
  std::vector<typename C::Jacobian> j(n);
  auto acc = C::Jacobian::identity();
  for (size_t i = 0; i < n; ++i) j[i] = acc += C::Affine::generator();
  std::vector<typename C::Affine> bases(n);
  C::batch_to_affine(j, bases);
  std::mt19937_64 rng(9);
  const HFr m = HFr::random(rng);
  std::vector<HFr> sc(n, m);
  EXPECT_TRUE(msm_host<C>(test_pool(), bases, sc) ==
              C::mul_ct(C::Affine::generator(), m * HFr::from_u64(n * (n + 1) / 2)));
  const auto with_inf = test_bases<C>(100);
  std::vector<HFr> zeros(100, HFr::zero()), ones(100, HFr::one());
  EXPECT_TRUE(msm_host<C>(test_pool(), with_inf, zeros).is_identity());
  auto sum = C::Jacobian::identity();
  for (const auto& p : with_inf) sum += p;
  EXPECT_TRUE(msm_host<C>(test_pool(), with_inf, ones) == sum);
}

TEST(GpuMsmBn254G1, CanonicalScalarsAndRejectsUnreduced) {
  SPLITPROVE_REQUIRE_GPU();
  using C = bn254::G1;
  const size_t n = 777;
  const auto bases = test_bases<C>(n);
  const auto sc = test_scalars(n, Mix::mixed, 3);
  std::vector<HFr::Repr> canon(n);
  for (size_t i = 0; i < n; ++i) canon[i] = sc[i].to_canonical();
  DeviceBases<C> db(test_pool(), bases);
  DeviceBlock d = test_pool().allocate(n * sizeof(HFr::Repr));
  copy_to_device(d.get(), canon.data(), n * sizeof(HFr::Repr));
  EXPECT_TRUE(msm<C>(test_pool(), db, d.get(), n, ScalarForm::canonical) == msm::msm<C>(bases, sc));
  canon[500] = HFr::MOD;  // r itself: not reduced
  copy_to_device(d.get(), canon.data(), n * sizeof(HFr::Repr));
  try {
    msm<C>(test_pool(), db, d.get(), n, ScalarForm::canonical);
    ADD_FAILURE() << "no error for a scalar equal to r";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("scalar[500]"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace splitprove::cuda
