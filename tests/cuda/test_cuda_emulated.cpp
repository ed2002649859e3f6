// The device field and curve code (src/cuda/ff.cuh, fp2.cuh, ec.cuh) run on the CPU through the
// exact emulation of its PTX carry chains (cuda/ptx.cuh), checked against ff::Field and ec::Curve:
// the fields Fr, Fp and Fp2 of both curves (DevField and DevFp2 over the host fields), and
// BLS12-381's G1 formulas. These tests need no GPU: they pin down the limb
// algorithms (the two-chain CIOS product, the carry and borrow handling, the XYZZ formulas) on
// every machine; test_cuda_ff/_ec then check that the GPU runs them the same way.
#include <gtest/gtest.h>

#include <random>

#include "cuda/ec.cuh"
#include "cuda/ff.cuh"
#include "cuda/fp2.cuh"
#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "gpu.hpp"

namespace splitprove::cuda {
namespace {

using namespace testing;

// BLS12-381 G1's coordinates with called products, as the MSM's kernels take them.
using G1Fp = DevField<bls12_381::Fp, false>;
using G1AffineDev = AffinePoint<G1Fp>;
using G1XyzzDev = XyzzPoint<G1Fp>;

template <class Dev>
Dev to_dev(const typename Dev::Host& x) {
  return Dev::load(x.mont().data());
}
template <class Dev>
typename Dev::Host to_host(const Dev& x) {
  typename Dev::Host::Repr r;
  x.store(r.data());
  return Dev::Host::from_mont(r);
}

// TypeParam: a device field (cuda::Mont), its host field Dev::Host.
template <class Dev>
class EmulatedField : public ::testing::Test {};
using DevFields =
    ::testing::Types<DevField<bls12_381::Fr>, DevField<bls12_381::Fp>, DevField<bls12_381::Fp, false>,
                     DevField<bn254::Fr>, DevField<bn254::Fp>, DevField<bn254::Fp, false>>;
TYPED_TEST_SUITE(EmulatedField, DevFields);

TYPED_TEST(EmulatedField, ConstantsComeFromTheHostField) {
  using Dev = TypeParam;
  using H = typename Dev::Host;
  EXPECT_EQ(to_host(Dev::one()), H::one());
  EXPECT_EQ(to_host(Dev::zero()), H::zero());
  // p itself is not reduced, p - 1 is.
  typename H::Repr p = H::MOD, pm1 = H::MOD;
  pm1[0] -= 1;
  EXPECT_FALSE(Dev::load(p.data()).is_reduced());
  EXPECT_TRUE(Dev::load(pm1.data()).is_reduced());
  typename H::Repr big;
  for (auto& w : big) w = ~uint64_t(0);
  EXPECT_FALSE(Dev::load(big.data()).is_reduced());
}

TYPED_TEST(EmulatedField, OpsMatchHostOnEdgeAndRandomValues) {
  using Dev = TypeParam;
  using H = typename Dev::Host;
  std::vector<H> a, b;
  make_inputs<H>(3000, 11, a, b);
  for (size_t i = 0; i < a.size(); ++i) {
    const Dev x = to_dev<Dev>(a[i]), y = to_dev<Dev>(b[i]);
    ASSERT_TRUE(x.is_reduced()) << i;
    ASSERT_EQ(to_host(x + y), a[i] + b[i]) << i;
    ASSERT_EQ(to_host(x - y), a[i] - b[i]) << i;
    ASSERT_EQ(to_host(x * y), a[i] * b[i]) << i;
    ASSERT_EQ(to_host(x.sqr()), a[i].square()) << i;
    ASSERT_EQ(to_host(-x), -a[i]) << i;
    ASSERT_EQ(to_host(x.dbl()), a[i].dbl()) << i;
    ASSERT_EQ(x == y, a[i] == b[i]) << i;
    ASSERT_TRUE(x == x);
    // to_mont takes a canonical integer: a[i]'s Montgomery limbs read as one.
    ASSERT_EQ(to_host(x.to_mont()), H::from_canonical(a[i].mont())) << i;
    typename H::Repr c;
    x.from_mont().store(c.data());
    ASSERT_EQ(c, a[i].to_canonical()) << i;
  }
}

// A curve's Fp2 for EmulatedFp2: the host fields and the device Fp2 with its Fp2 product called
// whole (CallDev) or each base product called (NoinlineDev), both over the device Fp FpDev.
template <class Fp, class Fp2>
struct Fp2Of {
  using HostFp = Fp;
  using HostFp2 = Fp2;
  using FpDev = DevField<Fp, false>;
  using CallDev = DevFp2<Fp, true>;
  using NoinlineDev = DevFp2<Fp>;
};

template <class T>
class EmulatedFp2 : public ::testing::Test {};
using Fp2Curves = ::testing::Types<Fp2Of<bls12_381::Fp, bls12_381::Fp2>, Fp2Of<bn254::Fp, bn254::Fp2>>;
TYPED_TEST_SUITE(EmulatedFp2, Fp2Curves);

// The Fp2 product and square called whole (CallDev, the G2 bucket kernel's MsmOptions::fp2_call)
// against the per-base-product form and the host's Fp2; the per-base-product form also loaded
// from and stored to the host's Fp2 layout whole.
TYPED_TEST(EmulatedFp2, CalledProductMatchesHost) {
  using H = typename TypeParam::HostFp;
  using H2 = typename TypeParam::HostFp2;
  using FpDev = typename TypeParam::FpDev;
  using CallDev = typename TypeParam::CallDev;
  using NoinlineDev = typename TypeParam::NoinlineDev;
  static_assert(sizeof(NoinlineDev) == sizeof(H2));
  std::vector<H> a, b;
  make_inputs<H>(2000, 23, a, b);
  auto dev = [](const H& x0, const H& x1, auto tag) {
    using D = decltype(tag);
    D r;
    r.c0 = to_dev<FpDev>(x0);
    r.c1 = to_dev<FpDev>(x1);
    return r;
  };
  for (size_t i = 0; i + 1 < a.size(); i += 2) {
    const H2 hx{a[i], a[i + 1]}, hy{b[i], b[i + 1]};
    const auto x = dev(a[i], a[i + 1], CallDev{}), y = dev(b[i], b[i + 1], CallDev{});
    const auto u = dev(a[i], a[i + 1], NoinlineDev{}), v = dev(b[i], b[i + 1], NoinlineDev{});
    const CallDev p = x * y, q = x.sqr();
    const NoinlineDev pu = u * v, qu = u.sqr();
    const H2 hp = hx * hy, hq = hx.square();
    ASSERT_EQ(to_host(p.c0), hp.c0) << i;
    ASSERT_EQ(to_host(p.c1), hp.c1) << i;
    ASSERT_EQ(to_host(q.c0), hq.c0) << i;
    ASSERT_EQ(to_host(q.c1), hq.c1) << i;
    ASSERT_TRUE(to_host(pu.c0) == hp.c0 && to_host(pu.c1) == hp.c1) << i;
    ASSERT_TRUE(to_host(qu.c0) == hq.c0 && to_host(qu.c1) == hq.c1) << i;
    // Whole-element load and store in the host's layout.
    H2 got;
    (NoinlineDev::load(&hx) * NoinlineDev::load(&hy)).store(&got);
    ASSERT_TRUE(got == hp) << i;
    NoinlineDev::load(&hx).sqr().store(&got);
    ASSERT_TRUE(got == hq) << i;
  }
}

TEST(EmulatedG1, FormulasMatchHost) {
  using D = G1XyzzDev;
  using A = G1AffineDev;
  auto pts = multiples_of_g(40);
  pts.push_back(HG1::Affine::identity());
  std::mt19937_64 rng(5);
  auto dev_affine = [](const HG1::Affine& a) {
    uint64_t l[12];
    put_affine(a, l);
    return load_affine<G1Fp>(l);
  };
  auto dev_xyzz = [](const HG1::Xyzz& p) {
    uint64_t l[24];
    put_xyzz(p, l);
    return D::load(l);
  };
  auto host_xyzz = [](const D& p) {
    uint64_t l[24];
    p.store(l);
    return get_xyzz(l);
  };
  for (size_t i = 0; i < pts.size(); ++i) {
    for (size_t j = 0; j < pts.size(); j += 3) {
      // Same point (doubling path), its negative (infinity path), infinity on either side.
      for (const auto& q : {pts[j], pts[i], -pts[i]}) {
        const HG1::Xyzz hp = scaled_xyzz(pts[i], HFp::random(rng));
        const HG1::Xyzz hq = scaled_xyzz(q, HFp::random(rng));
        const auto want = (pts[i].to_jacobian() + q.to_jacobian()).to_affine();
        D m = dev_xyzz(hp);
        m += dev_affine(q);
        ASSERT_EQ(host_xyzz(m).to_affine(), want) << i << "," << j;
        D s = dev_xyzz(hp);
        s += dev_xyzz(hq);
        ASSERT_EQ(host_xyzz(s).to_affine(), want) << i << "," << j;
      }
    }
    ASSERT_EQ(host_xyzz(dev_xyzz(scaled_xyzz(pts[i], HFp::random(rng))).dbl()).to_affine(),
              pts[i].to_jacobian().dbl().to_affine());
  }
  // Affine infinity is (0, 0); negation keeps it.
  EXPECT_TRUE(A::infinity().is_infinity());
  EXPECT_TRUE((-A::infinity()).is_infinity());
}

TEST(EmulatedG1, SumOfMultiplesIsClosedForm) {
  // sum_{i=1..n} i·G = n(n+1)/2 · G.
  const size_t n = 300;
  auto pts = multiples_of_g(n);
  G1XyzzDev acc = G1XyzzDev::infinity();
  for (const auto& p : pts) {
    uint64_t l[12];
    put_affine(p, l);
    acc += load_affine<G1Fp>(l);
  }
  uint64_t out[24];
  acc.store(out);
  EXPECT_EQ(get_xyzz(out).to_affine(),
            HG1::Jacobian::generator().mul_u64(n * (n + 1) / 2).to_affine());
}

}  // namespace
}  // namespace splitprove::cuda
