// The zcash/bellman/blst encodings: known answers from noble-curves, round trips, and one test per
// class of malformed input, each rejected with its own error.
#include <gtest/gtest.h>

#include "ec/bls12_381.hpp"
#include "ec/encoding.hpp"
#include "test_util.hpp"

using namespace splitprove;
using namespace splitprove::bls12_381;
using splitprove::testing::from_hex_bytes;
using splitprove::testing::rng;
using splitprove::testing::to_hex_bytes;
using splitprove::testing::vectors;
using ec::DecodeError;

using C1 = ec::ZcashCodec<G1>;
using C2 = ec::ZcashCodec<G2>;
auto sub1 = [](const G1Jacobian& p) { return g1_in_subgroup(p); };
auto sub2 = [](const G2Jacobian& p) { return g2_in_subgroup(p); };

template <class Codec, class J, class Sub>
void check_group_vectors(const nlohmann::json& rows, Sub sub) {
  ASSERT_GE(rows.size(), 8u);
  for (const auto& v : rows) {
    auto k = ff::from_hex<4>(v["k"].get<std::string>());
    auto p = J::generator().mul(k).to_affine();
    SCOPED_TRACE("k=" + v["k"].get<std::string>());
    EXPECT_EQ(to_hex_bytes(Codec::encode(p, true)), v["compressed"].get<std::string>());
    EXPECT_EQ(to_hex_bytes(Codec::encode(p, false)), v["uncompressed"].get<std::string>());
    for (const char* form : {"compressed", "uncompressed"}) {
      typename Codec::Affine q;
      EXPECT_EQ(Codec::decode(from_hex_bytes(v[form].get<std::string>()), q, sub), DecodeError::kNone);
      EXPECT_EQ(q, p);
    }
  }
}

TEST(Encoding, G1Vectors) { check_group_vectors<C1, G1Jacobian>(vectors()["g1"], sub1); }
TEST(Encoding, G2Vectors) { check_group_vectors<C2, G2Jacobian>(vectors()["g2"], sub2); }

TEST(Encoding, G1AddVectors) {
  for (const auto& v : vectors()["g1_add"]) {
    auto a = G1Jacobian::generator().mul(ff::from_hex<4>(v["a_k"].get<std::string>()));
    auto b = G1Jacobian::generator().mul(ff::from_hex<4>(v["b_k"].get<std::string>()));
    EXPECT_EQ(to_hex_bytes(C1::encode((a + b).to_affine(), false)), v["sum_uncompressed"].get<std::string>());
  }
}

TEST(Encoding, RoundTripsRandom) {
  for (int i = 0; i < 10; ++i) {
    auto p = G1Jacobian::generator().mul(Fr::random(rng())).to_affine();
    auto q = G2Jacobian::generator().mul(Fr::random(rng())).to_affine();
    for (bool c : {true, false}) {
      G1Affine p2;
      G2Affine q2;
      ASSERT_EQ(C1::decode(C1::encode(p, c), p2, sub1), DecodeError::kNone);
      ASSERT_EQ(C2::decode(C2::encode(q, c), q2, sub2), DecodeError::kNone);
      EXPECT_EQ(p2, p);
      EXPECT_EQ(q2, q);
      // The negated point differs only in the sign bit when compressed.
      auto pn = C1::encode(-p, c);
      auto pe = C1::encode(p, c);
      if (c) {
        EXPECT_EQ(pn[0] ^ pe[0], 0x20);
        EXPECT_TRUE(std::equal(pn.begin() + 1, pn.end(), pe.begin() + 1));
      }
    }
  }
  G1Affine inf;
  EXPECT_EQ(to_hex_bytes(C1::encode(G1Affine::identity(), true)).substr(0, 4), "c000");
  EXPECT_EQ(C1::decode(C1::encode(G1Affine::identity(), true), inf, sub1), DecodeError::kNone);
  EXPECT_TRUE(inf.is_identity());
  EXPECT_EQ(C1::decode(C1::encode(G1Affine::identity(), false), inf, sub1), DecodeError::kNone);
  EXPECT_TRUE(inf.is_identity());
  // (0, 0) is the identity's value in memory, but without the infinity flag it is no point.
  std::vector<uint8_t> zero_xy(C1::kUncompressed, 0);
  EXPECT_EQ(C1::decode(zero_xy, inf, sub1), DecodeError::kNotOnCurve);
}

// A point on E(Fp) outside G1 (random x until x^3 + 4 is a square).
G1Affine off_subgroup_g1() {
  for (;;) {
    Fp x = Fp::random(rng());
    if (auto y = (x.square() * x + Fp::from_u64(4)).sqrt()) {
      G1Affine p{x, *y};
      if (!G1::in_subgroup_by_order(p.to_jacobian())) return p;
    }
  }
}

TEST(Encoding, EachMalformedClassHasItsOwnError) {
  auto g = G1Affine::generator();
  auto comp = C1::encode(g, true), unc = C1::encode(g, false);
  G1Affine out;
  // Length.
  EXPECT_EQ(C1::decode(std::vector<uint8_t>(47), out, sub1), DecodeError::kLength);
  EXPECT_EQ(C1::decode(std::vector<uint8_t>(97), out, sub1), DecodeError::kLength);
  // Flags: compression bit must match the length; no sign bit on uncompressed points.
  auto b = comp;
  b[0] &= 0x7f;
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kFlags);
  b = unc;
  b[0] |= 0x80;
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kFlags);
  b = unc;
  b[0] |= 0x20;
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kFlags);
  // Infinity with junk after the flag.
  b = C1::encode(G1Affine::identity(), true);
  b[47] = 1;
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kInfinity);
  b = C1::encode(G1Affine::identity(), true);
  b[0] |= 0x20;
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kInfinity);
  // Field range: x = p.
  b = std::vector<uint8_t>(48);
  Fp::zero().to_bytes_be(b.data());
  for (size_t k = 0; k < 48; ++k) b[47 - k] = uint8_t(Fp::MOD[k / 8] >> (8 * (k % 8)));
  b[0] |= 0x80;
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kFieldRange);
  b = unc;
  for (size_t k = 0; k < 48; ++k) b[95 - k] = uint8_t(Fp::MOD[k / 8] >> (8 * (k % 8)));
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kFieldRange);
  // Not on the curve: y + 1, and an x with no y.
  b = unc;
  b[95] ^= 1;
  EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kNotOnCurve);
  for (uint64_t x = 1;; ++x) {
    Fp fx = Fp::from_u64(x);
    if ((fx.square() * fx + Fp::from_u64(4)).legendre() == -1) {
      b = std::vector<uint8_t>(48);
      fx.to_bytes_be(b.data());
      b[0] |= 0x80;
      EXPECT_EQ(C1::decode(b, out, sub1), DecodeError::kNotOnCurve);
      break;
    }
  }
  // On the curve but outside the subgroup, in both forms; accepted when the check is off.
  auto bad = off_subgroup_g1();
  EXPECT_EQ(C1::decode(C1::encode(bad, true), out, sub1), DecodeError::kNotInSubgroup);
  EXPECT_EQ(C1::decode(C1::encode(bad, false), out, sub1), DecodeError::kNotInSubgroup);
  EXPECT_EQ(C1::decode(C1::encode(bad, false), out, sub1, /*check_subgroup=*/false), DecodeError::kNone);
  EXPECT_EQ(out, bad);
  // Every error has a distinct description.
  std::set<std::string> msgs;
  for (auto e : {DecodeError::kLength, DecodeError::kFlags, DecodeError::kInfinity, DecodeError::kFieldRange,
                 DecodeError::kNotOnCurve, DecodeError::kNotInSubgroup})
    msgs.insert(ec::describe(e));
  EXPECT_EQ(msgs.size(), 6u);
}

TEST(Encoding, G2MalformedAndSubgroup) {
  auto g = G2Affine::generator();
  auto comp = C2::encode(g, true);
  G2Affine out;
  auto b = comp;
  b[0] &= 0x7f;
  EXPECT_EQ(C2::decode(b, out, sub2), DecodeError::kFlags);
  // c1 = p (first 48 bytes after the flags are x.c1).
  b = comp;
  for (size_t k = 0; k < 48; ++k) b[47 - k] = uint8_t(Fp::MOD[k / 8] >> (8 * (k % 8)));
  b[0] |= 0x80;
  EXPECT_EQ(C2::decode(b, out, sub2), DecodeError::kFieldRange);
  for (;;) {
    Fp2 x{Fp::random(rng()), Fp::random(rng())};
    if (auto y = (x.square() * x + G2::b()).sqrt()) {
      G2Affine p{x, *y};
      EXPECT_EQ(C2::decode(C2::encode(p, true), out, sub2), DecodeError::kNotInSubgroup);
      break;
    }
  }
}
