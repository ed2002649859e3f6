// BN254 G1 and G2 MSM with the GLV split (ec::bn254::BnGlv): the endomorphism's eigenvalue on both
// groups, the lattice split's identity and bound (random scalars and the edges where the rounding
// of c1, c2 is tight), and the MSM with the split against the MSM without it and the double-and-add
// reference, over every window size, both bucket kinds and inputs with equal and opposed bases.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "ec/bn254.hpp"
#include "msm/msm.hpp"
#include "msm_test_bases.hpp"

namespace splitprove::msm {
namespace {

using bn254::Fr;
using FrLimbs = ff::Limbs<Fr::N>;

template <class C>
struct MsmBn254 : ::testing::Test {
  using Affine = typename C::Affine;
  using Jacobian = typename C::Jacobian;
  std::mt19937_64 rng{0x626e323534};

  std::vector<Affine> independent_bases(size_t n) {
    return testing::independent_bases<C>(rng, n);
  }

  std::vector<Affine> progression_bases(size_t n) {
    return testing::progression_bases<C>(rng, n);
  }

  // 0, 1, -1, short and full-width scalars.
  std::vector<Fr> mixed_scalars(size_t n) {
    std::vector<Fr> k(n);
    for (size_t i = 0; i < n; ++i) {
      switch (i % 6) {
        case 0: k[i] = Fr::zero(); break;
        case 1: k[i] = Fr::one(); break;
        case 2: k[i] = -Fr::one(); break;
        case 3: k[i] = Fr::from_u64(rng() & 0xffff); break;
        case 4: k[i] = -Fr::from_u64(rng()); break;
        default: k[i] = Fr::random(rng); break;
      }
    }
    return k;
  }
};

using Groups = ::testing::Types<bn254::G1, bn254::G2>;
TYPED_TEST_SUITE(MsmBn254, Groups);

TYPED_TEST(MsmBn254, EndomorphismActsAsLambda) {
  using C = TypeParam;
  using Glv = typename C::Params::Glv;
  const Fr lambda = Fr::from_canonical(bn254::BnGlv::kLambda);
  ASSERT_EQ(lambda * lambda * lambda, Fr::one());
  ASSERT_NE(lambda, Fr::one());
  auto bases = this->independent_bases(6);
  bases.push_back(C::Affine::generator());
  for (const auto& p : bases) {
    auto e = p;
    Glv::endo(e.x, e.y);
    ASSERT_TRUE(e.on_curve());
    EXPECT_NE(e, p);
    EXPECT_EQ(e.to_jacobian(), p.to_jacobian().mul(lambda));
  }
}

TYPED_TEST(MsmBn254, SplitIdentityAndBound) {
  using C = TypeParam;
  using Glv = typename C::Params::Glv;
  const Fr lambda = Fr::from_canonical(bn254::BnGlv::kLambda);
  std::vector<Fr> ks;
  for (int i = 0; i < 20000; ++i) ks.push_back(Fr::random(this->rng));
  for (const Fr& k : {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(2), lambda,
                      lambda - Fr::one(), lambda + Fr::one(), lambda * lambda, -lambda,
                      lambda * lambda - Fr::one(), Fr::from_canonical(ff::from_hex<4>(
                          "1800000000000000000000000000000000000000000000000000000000000000"))})
    ks.push_back(k);
  // Around multiples of r/2^j, where k·g_i/2^256 sits near an integer.
  for (unsigned j = 1; j < 64; ++j) {
    FrLimbs m = ff::shr(Fr::MOD, j);
    for (uint64_t d : {0, 1, 2}) {
      FrLimbs v = m;
      v[0] += d;
      ks.push_back(Fr::from_canonical(v));
    }
  }
  size_t widest = 0;
  for (const Fr& k : ks) {
    const auto sp = Glv::split(k.to_canonical());
    widest = std::max({widest, ff::num_bits(sp.k1), ff::num_bits(sp.k2)});
    ASSERT_LE(ff::num_bits(sp.k1), Glv::kBits) << k.to_hex();
    ASSERT_LE(ff::num_bits(sp.k2), Glv::kBits) << k.to_hex();
    const Fr k1 = Fr::from_canonical(sp.k1), k2 = Fr::from_canonical(sp.k2);
    EXPECT_EQ((sp.neg1 ? -k1 : k1) + (sp.neg2 ? -k2 : k2) * lambda, k) << k.to_hex();
  }
  // The split halves the length: random scalars give ~127-bit halves.
  EXPECT_GE(widest, 120u);
  EXPECT_LE(widest, 128u);
}

// The MSM with the split equals the one without and the reference, on every window size.
TYPED_TEST(MsmBn254, GlvOnAndOffAgree) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, bn254::G1> ? 150 : 60;
  auto bases = this->progression_bases(n);
  for (size_t i = 5; i < n; i += 11) bases[i] = C::Affine::identity();
  bases[1] = bases[0];
  bases[2] = -bases[0];
  auto k = this->mixed_scalars(n);
  k[0] = k[1] = k[2] = Fr::random(this->rng);
  const auto want = msm_naive<C>(bases, k);
  ASSERT_FALSE(want.is_identity());
  const unsigned top = std::is_same_v<C, bn254::G1> ? 12 : 9;
  for (bool glv : {true, false})
    for (unsigned c = 1; c <= top; ++c)
      for (Buckets mode : {Buckets::kXyzz, Buckets::kBatchAffine}) {
        Options opt;
        opt.glv = glv;
        opt.buckets = mode;
        opt.window_bits = c;
        opt.chunk = 32;
        EXPECT_EQ(msm<C>(bases, k, opt), want)
            << "glv " << glv << ", c = " << c << ", mode " << int(mode);
      }
}

// Large enough for the automatic plan to take the split (detail::glv_pays) with batch-affine
// buckets: equal with and without it, and to the sum of independent parts.
TYPED_TEST(MsmBn254, LargeAutomaticPlanAgrees) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, bn254::G1> ? 6000 : 2000;
  const auto bases = this->progression_bases(n);
  std::vector<Fr> k(n);
  for (auto& x : k) x = Fr::random(this->rng);
  Options off;
  off.glv = false;
  const auto with = msm<C>(bases, k), without = msm<C>(bases, k, off);
  EXPECT_EQ(with, without);
  // Split in two halves, each computed without GLV through the XYZZ path.
  Options xyzz = off;
  xyzz.buckets = Buckets::kXyzz;
  const size_t h = n / 2;
  const auto lo = msm<C>(std::span(bases).first(h), std::span(k).first(h), xyzz);
  const auto hi = msm<C>(std::span(bases).subspan(h), std::span(k).subspan(h), xyzz);
  EXPECT_EQ(with, lo + hi);
  // Through one workspace (msm::Workspace): the split's tail and E(P) arrays and the lanes'
  // buffers carried from a larger call to a smaller one and back give the same sums.
  Workspace<C> ws;
  EXPECT_EQ(msm<C>(bases, k, ws), with);
  EXPECT_EQ(msm<C>(std::span(bases).first(h), std::span(k).first(h), ws), lo);
  EXPECT_EQ(msm<C>(std::span(bases).subspan(h), std::span(k).subspan(h), ws, off), hi);
  EXPECT_EQ(msm<C>(bases, k, ws), with);
}

}  // namespace
}  // namespace splitprove::msm
