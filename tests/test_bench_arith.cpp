// The operations bench/bench_arith.cpp times, run as the same chains on the same inputs and
// checked against closed forms: a chain of n steps must land where algebra says it lands
// (x·y^n, (a + n·c)·G, 2^n·a·G, k^n·a·G, ...). A benchmark of an operation that computes the wrong
// thing, or of an input that takes a shortcut path (a rejected point, a non-cyclotomic element),
// fails here instead of producing a figure.
#include <gtest/gtest.h>

#include "../bench/arith_inputs.hpp"

namespace splitprove::bench {
namespace {

namespace bls = bls12_381;

const ArithInputs& in() {
  static const ArithInputs x = make_arith_inputs(kArithSeed);
  return x;
}

template <class F>
F chain_mul(F x, const F& y, int n) {
  for (int i = 0; i < n; ++i) x = x * y;
  return x;
}

Fr pow2(unsigned n) { return Fr::from_u64(2).pow(uint64_t(n)); }

TEST(BenchArith, InputsAreDeterministicAndSeedDependent) {
  const ArithInputs a = make_arith_inputs(kArithSeed);
  EXPECT_EQ(a.fp_a, in().fp_a);
  EXPECT_EQ(a.k, in().k);
  EXPECT_EQ(a.g1_compressed[1], in().g1_compressed[1]);
  const ArithInputs b = make_arith_inputs(kArithSeed + 1);
  EXPECT_FALSE(b.fp_a == in().fp_a);
  EXPECT_FALSE(b.k == in().k);
}

TEST(BenchArith, ScalarsHaveExactly255Bits) {
  for (const Fr& s : {in().k, in().s_p, in().s_q}) EXPECT_EQ(ff::num_bits(s.to_canonical()), 255u);
}

TEST(BenchArith, FieldChainsMatchPowers) {
  constexpr int n = 20;
  EXPECT_EQ(chain_mul(in().fp_a, in().fp_b, n), in().fp_a * in().fp_b.pow(uint64_t(n)));
  EXPECT_EQ(chain_mul(in().fr_a, in().fr_b, n), in().fr_a * in().fr_b.pow(uint64_t(n)));
  EXPECT_EQ(chain_mul(in().fp2_a, in().fp2_b, n), in().fp2_a * in().fp2_b.pow(ff::Limbs<1>{n}));
  EXPECT_EQ(chain_mul(in().fp12_a, in().fp12_b, 5), in().fp12_a * in().fp12_b.pow(ff::Limbs<1>{5}));

  Fp sq = in().fp_a;
  for (int i = 0; i < 10; ++i) sq = sq.square();
  EXPECT_EQ(sq, in().fp_a.pow(uint64_t(1) << 10));

  Fp sum = in().fp_a;
  for (int i = 0; i < n; ++i) sum = sum + in().fp_b;
  EXPECT_EQ(sum, in().fp_a + Fp::from_u64(n) * in().fp_b);

  const Fp inv = in().fp_a.inverse();
  EXPECT_TRUE((inv * in().fp_a).is_one());
  EXPECT_EQ(inv.inverse(), in().fp_a);  // the inverse chain alternates between two values
}

TEST(BenchArith, CyclotomicSquareChainMatchesGenericSquare) {
  ASSERT_TRUE(is_cyclotomic(in().cyclotomic));
  Fp12 fast = in().cyclotomic, slow = in().cyclotomic;
  for (int i = 0; i < 8; ++i) {
    fast = fast.cyclotomic_square();
    slow = slow.square();
  }
  EXPECT_EQ(fast, slow);
  // The shortcut is wrong outside the subgroup: this is what the input check guards against.
  ASSERT_FALSE(is_cyclotomic(in().fp12_a));
  EXPECT_FALSE(in().fp12_a.cyclotomic_square() == in().fp12_a.square());
}

TEST(BenchArith, InputPointsAreTheClaimedMultiples) {
  EXPECT_EQ(in().g1_p, G1Jacobian::generator().mul(in().s_p));
  EXPECT_EQ(in().g2_q, G2Jacobian::generator().mul(in().s_q));
  EXPECT_EQ(in().g1_q_affine.to_jacobian(), in().g1_q);
  EXPECT_FALSE(in().g1_p.Z.is_one());  // the general (not the mixed) addition is what g1_add times
}

TEST(BenchArith, AdditionChainsMatchScalarSums) {
  constexpr int n = 9;
  const Fr expect = in().s_p + Fr::from_u64(n) * in().s_q;  // (a + n·c)·G

  G1Jacobian jj = in().g1_p, ja = in().g1_p;
  bls::G1::Xyzz xyzz = bls::G1::Xyzz::from_affine(in().g1_p.to_affine());
  G2Jacobian g2 = in().g2_p;
  for (int i = 0; i < n; ++i) {
    jj = jj + in().g1_q;
    ja = ja + in().g1_q_affine;
    xyzz += in().g1_q_affine;
    g2 = g2 + in().g2_q;
  }
  const G1Jacobian want1 = G1Jacobian::generator().mul(expect);
  EXPECT_EQ(jj, want1);
  EXPECT_EQ(ja, want1);
  EXPECT_EQ(xyzz.to_jacobian(), want1);
  EXPECT_EQ(g2, G2Jacobian::generator().mul(expect));
  EXPECT_FALSE(jj == G1Jacobian::generator().mul(expect + Fr::one()));  // can fail
}

TEST(BenchArith, DoublingChainMatchesPowerOfTwo) {
  G1Jacobian p = in().g1_p;
  for (int i = 0; i < 12; ++i) p = p.dbl();
  EXPECT_EQ(p, G1Jacobian::generator().mul(in().s_p * pow2(12)));
}

TEST(BenchArith, ScalarMulChainMatchesScalarProduct) {
  const auto k = in().k.to_canonical();
  G1Jacobian p1 = in().g1_p;
  G2Jacobian p2 = in().g2_p;
  for (int i = 0; i < 2; ++i) {
    p1 = p1.mul(k);
    p2 = p2.mul(k);
  }
  const Fr e = in().s_p * in().k * in().k;  // k^2·a
  EXPECT_EQ(p1, G1Jacobian::generator().mul(e));
  EXPECT_EQ(p2, G2Jacobian::generator().mul(e));
}

// Points on the curves but outside the prime-order subgroups, found by increasing x.
G1Affine g1_point_outside_subgroup() {
  for (uint64_t i = 1;; ++i) {
    const Fp x = Fp::from_u64(i);
    if (auto y = (x.square() * x + bls::G1Params::b()).sqrt()) {
      const G1Affine p{x, *y};
      if (!bls::G1::in_subgroup_by_order(p.to_jacobian())) return p;
    }
  }
}
G2Affine g2_point_outside_subgroup() {
  for (uint64_t i = 1;; ++i) {
    const Fp2 x{Fp::from_u64(i), Fp::one()};
    if (auto y = (x.square() * x + bls::G2Params::b()).sqrt()) {
      const G2Affine p{x, *y};
      if (!bls::G2::in_subgroup_by_order(p.to_jacobian())) return p;
    }
  }
}

TEST(BenchArith, SubgroupChecksAgreeOnBothSides) {
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(bls::g1_in_subgroup(in().g1_pts[i].to_jacobian()));
    EXPECT_TRUE(bls::G1::in_subgroup_by_order(in().g1_pts[i].to_jacobian()));
    EXPECT_TRUE(bls::g2_in_subgroup(in().g2_pts[i].to_jacobian()));
    EXPECT_TRUE(bls::G2::in_subgroup_by_order(in().g2_pts[i].to_jacobian()));
  }
  const G1Affine o1 = g1_point_outside_subgroup();
  const G2Affine o2 = g2_point_outside_subgroup();
  ASSERT_TRUE(o1.on_curve());
  ASSERT_TRUE(o2.on_curve());
  EXPECT_FALSE(bls::g1_in_subgroup(o1.to_jacobian()));
  EXPECT_FALSE(bls::g2_in_subgroup(o2.to_jacobian()));
}

TEST(BenchArith, DecodeRoundTripsAndRejects) {
  for (size_t i = 0; i < 2; ++i) {
    G1Affine p1;
    G2Affine p2;
    ASSERT_EQ(G1Codec::decode(in().g1_compressed[i], p1, bls::g1_in_subgroup),
              ec::DecodeError::kNone);
    ASSERT_EQ(G2Codec::decode(in().g2_compressed[i], p2, bls::g2_in_subgroup),
              ec::DecodeError::kNone);
    EXPECT_EQ(p1, in().g1_pts[i]);
    EXPECT_EQ(p2, in().g2_pts[i]);
    // The sign bit selects -P: the square-root branch is exercised, not skipped.
    auto flipped = in().g1_compressed[i];
    flipped[0] ^= 0x20;
    ASSERT_EQ(G1Codec::decode(flipped, p1, bls::g1_in_subgroup), ec::DecodeError::kNone);
    EXPECT_EQ(p1, -in().g1_pts[i]);
  }
  // The decode benchmark includes the subgroup check: a point outside it must be refused.
  G1Affine p1;
  G2Affine p2;
  EXPECT_EQ(
      G1Codec::decode(G1Codec::encode(g1_point_outside_subgroup(), true), p1, bls::g1_in_subgroup),
      ec::DecodeError::kNotInSubgroup);
  EXPECT_EQ(
      G2Codec::decode(G2Codec::encode(g2_point_outside_subgroup(), true), p2, bls::g2_in_subgroup),
      ec::DecodeError::kNotInSubgroup);
}

TEST(BenchArith, PairingPartsCompose) {
  const G1Affine& p = in().g1_pts[0];
  const G2Affine& q = in().g2_pts[0];
  const Fp12 e = Pairing::pairing(p, q);
  EXPECT_EQ(Pairing::final_exponentiation(miller_loop_prepared(p, in().g2_prepared[0])), e);
  EXPECT_EQ(Pairing::final_exponentiation(miller_loop_unprepared(p, q)), e);
  EXPECT_FALSE(e.is_one());
  // Bilinearity: e(k·P, Q) = e(P, k·Q) = e(P, Q)^k.
  const auto k = in().k.to_canonical();
  const Fp12 ek = Pairing::pairing(p.to_jacobian().mul(k).to_affine(), q);
  EXPECT_EQ(ek, Pairing::pairing(p, q.to_jacobian().mul(k).to_affine()));
  EXPECT_EQ(ek, e.pow(k));
}

TEST(BenchArith, FinalExponentiationChainStaysInGt) {
  Fp12 f = in().fp12_a;
  for (int i = 0; i < 2; ++i) {
    f = Pairing::final_exponentiation(f);
    EXPECT_TRUE(is_cyclotomic(f));
    EXPECT_TRUE(f.pow(Fr::MOD).is_one());  // order divides r
  }
}

TEST(BenchArith, TwoPairCheckAcceptsBalancedPairsOnly) {
  EXPECT_TRUE(two_pair_check(in().mp_g1, in().mp_g2, false));
  EXPECT_TRUE(two_pair_check(in().mp_g1, in().mp_g2, true));
  const std::array<G1Affine, 2> unbalanced{in().mp_g1[0], in().mp_g1[0]};
  EXPECT_FALSE(two_pair_check(unbalanced, in().mp_g2));
}

}  // namespace
}  // namespace splitprove::bench
