// The optimal ate pairing of every curve: known answers (noble-curves and ffjavascript agree),
// bilinearity, non-degeneracy, and the multi-pairing the Groth16 verifier uses.
#include <gtest/gtest.h>

#include "test_curves.hpp"
#include "test_util.hpp"

using namespace splitprove;
using splitprove::testing::AllCurves;
using splitprove::testing::CurveNames;
using splitprove::testing::rng;

template <class C>
class Pairing : public ::testing::Test {
 public:
  using Fp = typename C::Fp;
  using Fr = typename C::Fr;
  using Fp12 = typename C::Fp12;
  using G1Affine = typename C::G1::Affine;
  using G2Affine = typename C::G2::Affine;
  using G1Jacobian = typename C::G1::Jacobian;
  using G2Jacobian = typename C::G2::Jacobian;
  using E = typename C::Pairing;
  static Fp12 fp12_from(const nlohmann::json& e) {
    Fp c[12];
    for (int i = 0; i < 12; ++i) c[i] = Fp::from_hex(e[i].get<std::string>());
    return {{{c[0], c[1]}, {c[2], c[3]}, {c[4], c[5]}},
            {{c[6], c[7]}, {c[8], c[9]}, {c[10], c[11]}}};
  }
};
TYPED_TEST_SUITE(Pairing, AllCurves, CurveNames);

#define PAIRING_TYPES                                                   \
  using Fp [[maybe_unused]] = typename TestFixture::Fp;                 \
  using Fr [[maybe_unused]] = typename TestFixture::Fr;                 \
  using Fp12 [[maybe_unused]] = typename TestFixture::Fp12;             \
  using G1Affine [[maybe_unused]] = typename TestFixture::G1Affine;     \
  using G2Affine [[maybe_unused]] = typename TestFixture::G2Affine;     \
  using G1Jacobian [[maybe_unused]] = typename TestFixture::G1Jacobian; \
  using G2Jacobian [[maybe_unused]] = typename TestFixture::G2Jacobian; \
  using Pairing [[maybe_unused]] = typename TestFixture::E;

TYPED_TEST(Pairing, KnownAnswers) {
  PAIRING_TYPES;
  for (const char* section : {"pairing", "pairing_ffjavascript"}) {
    const auto& rows = TypeParam::vectors()[section];
    ASSERT_GE(rows.size(), 2u);
    for (const auto& v : rows) {
      auto a = ff::from_hex<4>(v["a"].template get<std::string>()),
           b = ff::from_hex<4>(v["b"].template get<std::string>());
      auto p = G1Jacobian::generator().mul(a).to_affine();
      auto q = G2Jacobian::generator().mul(b).to_affine();
      EXPECT_EQ(Pairing::pairing(p, q), this->fp12_from(v["e"]))
          << section << " a=" << v["a"] << " b=" << v["b"];
    }
  }
}

TYPED_TEST(Pairing, Bilinear) {
  PAIRING_TYPES;
  G1Jacobian P = G1Jacobian::generator();
  G2Jacobian Q = G2Jacobian::generator();
  Fp12 e = Pairing::pairing(P.to_affine(), Q.to_affine());
  for (int i = 0; i < 3; ++i) {
    Fr a = Fr::random(rng()), b = Fr::random(rng());
    auto Pa = P.mul(a);
    auto Qb = Q.mul(b);
    Fp12 eab = Pairing::pairing(Pa.to_affine(), Qb.to_affine());
    EXPECT_EQ(eab, e.pow((a * b).to_canonical()));
    EXPECT_EQ(eab, Pairing::pairing(P.mul(a * b).to_affine(), Q.to_affine()));
    EXPECT_EQ(eab, Pairing::pairing(P.to_affine(), Q.mul(a * b).to_affine()));
    // Additivity in each argument.
    auto P2 = P.mul(Fr::random(rng()));
    EXPECT_EQ(Pairing::pairing((Pa + P2).to_affine(), Qb.to_affine()),
              eab * Pairing::pairing(P2.to_affine(), Qb.to_affine()));
  }
}

TYPED_TEST(Pairing, NonDegenerateAndOrderR) {
  PAIRING_TYPES;
  Fp12 e = Pairing::pairing(G1Affine::generator(), G2Affine::generator());
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(Fr::MOD).is_one());  // e lies in the order-r subgroup
  EXPECT_TRUE(Pairing::pairing(G1Affine::identity(), G2Affine::generator()).is_one());
  EXPECT_TRUE(Pairing::pairing(G1Affine::generator(), G2Affine::identity()).is_one());
}

TYPED_TEST(Pairing, MultiPairingSharesFinalExponentiation) {
  PAIRING_TYPES;
  std::vector<G1Affine> ps;
  std::vector<typename Pairing::G2Prepared> qs;
  Fp12 expected = Fp12::one();
  for (int i = 0; i < 4; ++i) {
    auto p = G1Jacobian::generator().mul(Fr::random(rng())).to_affine();
    auto q = G2Jacobian::generator().mul(Fr::random(rng())).to_affine();
    ps.push_back(i == 2 ? G1Affine::identity() : p);
    qs.push_back(Pairing::prepare(q));
    expected *= Pairing::pairing(ps.back(), q);
  }
  std::vector<std::pair<G1Affine, const typename Pairing::G2Prepared*>> pairs;
  for (size_t i = 0; i < ps.size(); ++i) pairs.emplace_back(ps[i], &qs[i]);
  EXPECT_EQ(Pairing::final_exponentiation(Pairing::miller_loop(pairs)), expected);
  // A Groth16-shaped identity: e(a·P, b·Q) · e(-(a·b)·P, Q) = 1, and not with a wrong factor.
  Fr a = Fr::random(rng()), b = Fr::random(rng());
  G1Jacobian P = G1Jacobian::generator();
  G2Jacobian Q = G2Jacobian::generator();
  auto qb = Pairing::prepare(Q.mul(b).to_affine()), q1 = Pairing::prepare(Q.to_affine());
  std::vector<std::pair<G1Affine, const typename Pairing::G2Prepared*>> ok = {
      {P.mul(a).to_affine(), &qb}, {(-P.mul(a * b)).to_affine(), &q1}};
  EXPECT_TRUE(Pairing::product_is_one(ok));
  ok[1].first = (-P.mul(a * b + Fr::one())).to_affine();
  EXPECT_FALSE(Pairing::product_is_one(ok));
}

// The hard part raises to m·(p^4 - p^2 + 1)/r for a fixed m (3 for BLS12, 2x(6x^2 + 3x + 1) for
// BN; pairing.hpp): check against the plain exponent on a Miller loop value. The vectors record
// that noble and ffjavascript use the same m.
TYPED_TEST(Pairing, FinalExponentiationIsAFixedMultipleOfTheDefinition) {
  PAIRING_TYPES;
  auto q = Pairing::prepare(G2Affine::generator());
  std::pair<G1Affine, const typename Pairing::G2Prepared*> pr{G1Affine::generator(), &q};
  Fp12 f = Pairing::miller_loop({&pr, 1});
  Fp12 easy = f.conj() * f.inverse();
  easy = easy.frobenius(2) * easy;
  // (p^4 - p^2 + 1)/r computed with 64-bit limbs: 1524 bits (BLS12-381) fit in 24 limbs.
  ff::Limbs<24> p{}, acc{};
  for (size_t i = 0; i < Fp::N; ++i) p[i] = Fp::MOD[i];
  auto mul = [](const ff::Limbs<24>& x, const ff::Limbs<24>& y) {
    ff::Limbs<24> r{};
    for (size_t i = 0; i < 24; ++i) {
      ff::u128 c = 0;
      for (size_t j = 0; i + j < 24; ++j) {
        c += ff::u128(x[i]) * y[j] + r[i + j];
        r[i + j] = uint64_t(c);
        c >>= 64;
      }
    }
    return r;
  };
  auto p2 = mul(p, p), p4 = mul(p2, p2);
  ff::sub_limbs(acc, p4, p2);
  ff::add_limbs(acc, acc, ff::from_u64<24>(1));
  // Divide by r (schoolbook long division by bits; r is 255 bits).
  ff::Limbs<24> r{}, q2{}, rem{};
  for (size_t i = 0; i < 4; ++i) r[i] = Fr::MOD[i];
  for (size_t i = ff::num_bits(acc); i-- > 0;) {
    rem = ff::shr(rem, 0);
    ff::add_limbs(rem, rem, rem);
    rem[0] |= ff::bit(acc, i);
    if (ff::cmp_limbs(rem, r) >= 0) {
      ff::sub_limbs(rem, rem, r);
      q2[i / 64] |= uint64_t(1) << (i % 64);
    }
  }
  ASSERT_TRUE(ff::is_zero_limbs(rem)) << "r must divide p^4 - p^2 + 1";
  Fp12 exact = easy.pow(q2);
  Fp12 ours = Pairing::final_exponentiation(f);
  ff::Limbs<4> m{};
  if constexpr (std::is_same_v<TypeParam, splitprove::testing::Bn254Curve>) {
    // 2x(6x^2 + 3x + 1) for x = 0x44e992b44a6909f1: 190 bits.
    EXPECT_EQ(TypeParam::vectors()["pairing_convention"]["noble"], "2x(6x^2+3x+1)");
    EXPECT_EQ(TypeParam::vectors()["pairing_convention"]["ffjavascript"], "2x(6x^2+3x+1)");
    ff::Limbs<4> x{bn254::kX, 0, 0, 0};
    auto mul4 = [](const ff::Limbs<4>& a, const ff::Limbs<4>& b) {
      ff::Limbs<4> r{};
      for (size_t i = 0; i < 4; ++i) {
        ff::u128 c = 0;
        for (size_t j = 0; i + j < 4; ++j) {
          c += ff::u128(a[i]) * b[j] + r[i + j];
          r[i + j] = uint64_t(c);
          c >>= 64;
        }
      }
      return r;
    };
    ff::Limbs<4> t = mul4(mul4(x, x), ff::from_u64<4>(6)), x3 = mul4(x, ff::from_u64<4>(3));
    ff::add_limbs(t, t, x3);
    ff::add_limbs(t, t, ff::from_u64<4>(1));
    m = mul4(mul4(x, ff::from_u64<4>(2)), t);
  } else {
    m = ff::from_u64<4>(3);
  }
  EXPECT_EQ(ours, exact.pow(m));
  EXPECT_NE(ours, exact);
}
