// The Ethereum precompile point layout (EIP-196/197): BN254 known answers (noble coordinates
// written in the EIP layout), and round trips and one rejection per class of malformed input for
// every curve's G1 and G2.
#include <gtest/gtest.h>

#include <set>

#include "ec/encoding.hpp"
#include "test_curves.hpp"
#include "test_util.hpp"

using namespace splitprove;
using ec::DecodeError;
using splitprove::testing::AllCurves;
using splitprove::testing::Bn254Curve;
using splitprove::testing::CurveNames;
using splitprove::testing::from_hex_bytes;
using splitprove::testing::rand_elem;
using splitprove::testing::rng;
using splitprove::testing::to_hex_bytes;

template <class C>
class Evm : public ::testing::Test {};
TYPED_TEST_SUITE(Evm, AllCurves, CurveNames);

template <class Curve, class G>
void round_trip_and_malformed() {
  using Codec = ec::EvmCodec<G>;
  using J = typename G::Jacobian;
  using A = typename G::Affine;
  using Fr = typename G::Fr;
  auto sub = [](const J& p) { return Curve::in_subgroup(p); };
  for (int i = 0; i < 6; ++i) {
    A p = J::generator().mul(Fr::random(rng())).to_affine();
    auto enc = Codec::encode(p);
    ASSERT_EQ(enc.size(), Codec::kSize);
    A q;
    ASSERT_EQ(Codec::decode(enc, q, sub), DecodeError::kNone);
    EXPECT_EQ(q, p);
  }
  // The identity is all zeros, both ways.
  auto zero = Codec::encode(A::identity());
  EXPECT_EQ(zero, std::vector<uint8_t>(Codec::kSize, 0));
  A out;
  ASSERT_EQ(Codec::decode(zero, out, sub), DecodeError::kNone);
  EXPECT_TRUE(out.is_identity());
  // Length.
  EXPECT_EQ(Codec::decode(std::vector<uint8_t>(Codec::kSize - 1), out, sub), DecodeError::kLength);
  EXPECT_EQ(Codec::decode(std::vector<uint8_t>(Codec::kSize + 1), out, sub), DecodeError::kLength);
  // Field range: the first coordinate word set to p.
  auto g = Codec::encode(A::generator());
  auto b = g;
  using Fp = typename Curve::Fp;
  for (size_t k = 0; k < Fp::BYTES; ++k)
    b[Fp::BYTES - 1 - k] = uint8_t(Fp::MOD[k / 8] >> (8 * (k % 8)));
  EXPECT_EQ(Codec::decode(b, out, sub), DecodeError::kFieldRange);
  // Off the curve: flip the last bit of y.
  b = g;
  b.back() ^= 1;
  EXPECT_EQ(Codec::decode(b, out, sub), DecodeError::kNotOnCurve);
  // On the curve but outside the subgroup (skipped for a cofactor-1 group).
  for (int tries = 0; tries < 64; ++tries) {
    auto x = rand_elem<typename G::F>();
    auto y = (x.square() * x + G::b()).sqrt();
    if (!y) continue;
    A p{x, *y};
    if (G::in_subgroup_by_order(p.to_jacobian())) {
      EXPECT_EQ(Codec::decode(Codec::encode(p), out, sub), DecodeError::kNone);  // cofactor 1
      break;
    }
    EXPECT_EQ(Codec::decode(Codec::encode(p), out, sub), DecodeError::kNotInSubgroup);
    EXPECT_EQ(Codec::decode(Codec::encode(p), out, sub, /*check_subgroup=*/false),
              DecodeError::kNone);
    EXPECT_EQ(out, p);
    break;
  }
}

TYPED_TEST(Evm, G1RoundTripAndMalformed) {
  round_trip_and_malformed<TypeParam, typename TypeParam::G1>();
}
TYPED_TEST(Evm, G2RoundTripAndMalformed) {
  round_trip_and_malformed<TypeParam, typename TypeParam::G2>();
}

TEST(EvmBn254, KnownAnswers) {
  using namespace splitprove::bn254;
  const auto& v = Bn254Curve::vectors();
  auto sub1 = [](const G1Jacobian& p) { return g1_in_subgroup(p); };
  auto sub2 = [](const G2Jacobian& p) { return g2_in_subgroup(p); };
  ASSERT_GE(v["g1"].size(), 8u);
  for (const auto& row : v["g1"]) {
    auto p = G1Jacobian::generator().mul(ff::from_hex<4>(row["k"].get<std::string>())).to_affine();
    EXPECT_EQ(to_hex_bytes(ec::EvmCodec<G1>::encode(p)), row["ethereum"].get<std::string>());
    G1Affine q;
    EXPECT_EQ(ec::EvmCodec<G1>::decode(from_hex_bytes(row["ethereum"].get<std::string>()), q, sub1),
              DecodeError::kNone);
    EXPECT_EQ(q, p);
  }
  for (const auto& row : v["g2"]) {
    auto p = G2Jacobian::generator().mul(ff::from_hex<4>(row["k"].get<std::string>())).to_affine();
    EXPECT_EQ(to_hex_bytes(ec::EvmCodec<G2>::encode(p)), row["ethereum"].get<std::string>());
    G2Affine q;
    EXPECT_EQ(ec::EvmCodec<G2>::decode(from_hex_bytes(row["ethereum"].get<std::string>()), q, sub2),
              DecodeError::kNone);
    EXPECT_EQ(q, p);
  }
  for (const auto& row : v["g1_add"]) {
    auto a = G1Jacobian::generator().mul(ff::from_hex<4>(row["a_k"].get<std::string>()));
    auto b = G1Jacobian::generator().mul(ff::from_hex<4>(row["b_k"].get<std::string>()));
    EXPECT_EQ(to_hex_bytes(ec::EvmCodec<G1>::encode((a + b).to_affine())),
              row["sum_ethereum"].get<std::string>());
  }
  // noble's points on E' outside G2 are refused with their own error.
  for (const auto& row : v["g2_not_in_subgroup"]) {
    G2Affine q;
    EXPECT_EQ(ec::EvmCodec<G2>::decode(from_hex_bytes(row["ethereum"].get<std::string>()), q, sub2),
              DecodeError::kNotInSubgroup);
  }
  // The EIP-197 G2 generator words, in order x.c1, x.c0, y.c1, y.c0.
  EXPECT_EQ(to_hex_bytes(ec::EvmCodec<G2>::encode(G2Affine::generator())).substr(0, 64),
            "198e9393920d483a7260bfb731fb5d25f1aa493335a9e71297e485b7aef312c2");
}
