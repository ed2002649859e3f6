#include <gtest/gtest.h>

#include "ec/bls12_381.hpp"
#include "msm/fixed_base.hpp"
#include "test_util.hpp"

using namespace splitprove;
using namespace splitprove::bls12_381;
using splitprove::testing::rng;

TEST(FixedBase, MatchesScalarMultiplication) {
  for (unsigned c : {1u, 4u, 7u}) {
    msm::FixedBaseTable<G1> t1(G1Affine::generator(), c);
    auto p2 = G2Jacobian::generator().mul_u64(12345).to_affine();
    msm::FixedBaseTable<G2> t2(p2, c);
    std::vector<Fr> ks = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(1) - Fr::from_u64(2)};
    for (int i = 0; i < 40; ++i) ks.push_back(Fr::random(rng()));
    std::vector<G1Affine> out(ks.size());
    t1.mul_batch(ks, out);
    for (size_t i = 0; i < ks.size(); ++i) {
      EXPECT_EQ(out[i], G1Jacobian::generator().mul(ks[i]).to_affine()) << "c=" << c << " i=" << i;
      if (i < 8) EXPECT_EQ(t2.mul(ks[i]), p2.to_jacobian().mul(ks[i]));
    }
  }
}
