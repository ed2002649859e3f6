// Group laws, scalar multiplication, coordinate forms and subgroup checks, as typed suites over
// G1 and G2 of every curve (tests/test_curves.hpp; a new curve adds its groups to the type list).
#include <gtest/gtest.h>

#include "ec/encoding.hpp"
#include "test_curves.hpp"
#include "test_util.hpp"

using namespace splitprove;
using splitprove::testing::AllCurves;
using splitprove::testing::Bls12_381Curve;
using splitprove::testing::Bn254Curve;
using splitprove::testing::CurveNames;
using splitprove::testing::rand_elem;
using splitprove::testing::rng;

// One group of one curve: K = 1 for G1, 2 for G2.
template <class C, int K>
struct GroupOf {
  using Curve = C;
  using G = std::conditional_t<K == 1, typename C::G1, typename C::G2>;
  static std::string name() { return std::string(C::kName) + (K == 1 ? "_g1" : "_g2"); }
  // BN254's G1 is all of E(Fp).
  static constexpr bool kCofactorOne = std::is_same_v<C, Bn254Curve> && K == 1;
};
struct GroupNames {
  template <class T>
  static std::string GetName(int) {
    return T::name();
  }
};

template <class T>
class Group : public ::testing::Test {
 public:
  using C = typename T::G;
  using Fr = typename C::Fr;
  using J = typename C::Jacobian;
  using A = typename C::Affine;
  static J rand_point() { return J::generator().mul(Fr::random(rng())); }
  static bool fast_subgroup(const J& p) { return T::Curve::in_subgroup(p); }
  // A point on the curve; outside the subgroup with overwhelming probability when the cofactor
  // is large (every one is inside for a cofactor-1 group).
  static A rand_curve_point() {
    for (;;) {
      auto x = rand_elem<typename C::F>();
      auto y = (x.square() * x + C::b()).sqrt();
      if (y) return A{x, *y};
    }
  }
};
using Groups = ::testing::Types<GroupOf<Bls12_381Curve, 1>, GroupOf<Bls12_381Curve, 2>,
                                GroupOf<Bn254Curve, 1>, GroupOf<Bn254Curve, 2>>;
TYPED_TEST_SUITE(Group, Groups, GroupNames);

TYPED_TEST(Group, Laws) {
  using J = typename TestFixture::J;
  for (int i = 0; i < 8; ++i) {
    J a = this->rand_point(), b = this->rand_point(), c = this->rand_point();
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a + J::identity(), a);
    EXPECT_EQ(J::identity() + a, a);
    EXPECT_TRUE((a + (-a)).is_identity());
    EXPECT_EQ(a + a, a.dbl());
    EXPECT_EQ(a + b.to_affine(), a + b);         // mixed addition
    EXPECT_EQ(a + a.to_affine(), a.dbl());        // mixed addition, doubling case
    EXPECT_TRUE((a + (-a).to_affine()).is_identity());
    EXPECT_TRUE((a + b).on_curve());
    EXPECT_TRUE(a.dbl().on_curve());
    EXPECT_EQ(a.to_affine().to_jacobian(), a);
  }
  EXPECT_TRUE(J::identity().dbl().is_identity());
}

TYPED_TEST(Group, ScalarMultiplication) {
  using J = typename TestFixture::J;
  using Fr = typename TestFixture::Fr;
  J g = J::generator();
  // Small multiples against repeated addition.
  J acc = J::identity();
  for (uint64_t k = 0; k < 40; ++k) {
    EXPECT_EQ(g.mul_u64(k), acc) << "k=" << k;
    acc += g;
  }
  for (int i = 0; i < 4; ++i) {
    Fr a = Fr::random(rng()), b = Fr::random(rng());
    J p = this->rand_point();
    EXPECT_EQ(p.mul(a + b), p.mul(a) + p.mul(b));   // distributive over scalars
    EXPECT_EQ(p.mul(a * b), p.mul(a).mul(b));
    EXPECT_EQ(p.mul(-a), -p.mul(a));
  }
  EXPECT_TRUE(g.mul(Fr::zero()).is_identity());
  EXPECT_EQ(g.mul(-Fr::one()), -g);
  EXPECT_TRUE(g.mul(Fr::MOD).is_identity());  // r·G = 0
  EXPECT_FALSE(g.mul(Fr::P_MINUS_1).is_identity());
}

TYPED_TEST(Group, XyzzMatchesJacobian) {
  using X = typename TestFixture::C::Xyzz;
  for (int i = 0; i < 8; ++i) {
    auto a = this->rand_point().to_affine(), b = this->rand_point().to_affine();
    X x = X::from_affine(a);
    x += b;
    EXPECT_EQ(x.to_jacobian(), a.to_jacobian() + b);
    EXPECT_EQ(x.to_affine(), (a.to_jacobian() + b).to_affine());
    X y = X::from_affine(b);
    y += x;
    EXPECT_EQ(y.to_jacobian(), a.to_jacobian() + b + b);
    X d = X::from_affine(a);
    d += a;  // doubling through the addition path
    EXPECT_EQ(d.to_jacobian(), a.to_jacobian().dbl());
    EXPECT_EQ(X::from_affine(a).dbl().to_jacobian(), a.to_jacobian().dbl());
    X z = X::from_affine(a);
    z += -a;
    EXPECT_TRUE(z.is_identity());
    z += a;
    EXPECT_EQ(z.to_affine(), a);
  }
  EXPECT_TRUE(X::identity().to_jacobian().is_identity());
}

TYPED_TEST(Group, BatchToAffine) {
  using J = typename TestFixture::J;
  using A = typename TestFixture::A;
  std::vector<J> pts;
  for (int i = 0; i < 17; ++i) pts.push_back(i % 5 == 3 ? J::identity() : this->rand_point());
  std::vector<A> out(pts.size());
  TestFixture::C::batch_to_affine(pts, out);
  for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(out[i], pts[i].to_affine()) << i;
}

TYPED_TEST(Group, SubgroupChecksAgree) {
  using J = typename TestFixture::J;
  using Fr = typename TestFixture::Fr;
  for (int i = 0; i < 4; ++i) {
    J p = this->rand_point();
    EXPECT_TRUE(this->fast_subgroup(p));
    EXPECT_TRUE(TestFixture::C::in_subgroup_by_order(p));
    J q = this->rand_curve_point().to_jacobian();
    ASSERT_TRUE(q.on_curve());
    bool slow = TestFixture::C::in_subgroup_by_order(q);
    EXPECT_EQ(this->fast_subgroup(q), slow);
    if (TypeParam::kCofactorOne) {
      EXPECT_TRUE(slow);
      continue;
    }
    EXPECT_FALSE(slow);  // a random curve point lies outside G (cofactor > 1)
    // The sum of a subgroup point and a non-subgroup point is not in the subgroup either.
    EXPECT_FALSE(this->fast_subgroup(p + q));
    // Clearing the cofactor the slow way (multiplying by #E/r is not needed): r·q is a torsion
    // point of cofactor order, outside G unless it is the identity.
    J t = q.mul(Fr::MOD);
    EXPECT_EQ(this->fast_subgroup(t), t.is_identity());
  }
  EXPECT_TRUE(this->fast_subgroup(J::identity()));
}

TEST(G1, EndomorphismConstants) {
  using namespace splitprove::bls12_381;
  Fp beta = g1_beta();
  EXPECT_FALSE(beta.is_one());
  EXPECT_TRUE((beta.square() * beta).is_one());
}

template <class C>
class Twist : public ::testing::Test {};
TYPED_TEST_SUITE(Twist, AllCurves, CurveNames);

// psi satisfies psi^2 - t·psi + p = 0 on E'; on G2 it acts as multiplication by p mod r
// (x for BLS12, 6x^2 for BN): the eigenvalue relation fixes the twist type's constants.
TYPED_TEST(Twist, PsiEigenvalueOnG2) {
  using J = typename TypeParam::G2::Jacobian;
  using Fr = typename TypeParam::Fr;
  for (J q : {J::generator(), J::generator().mul(Fr::random(rng()))}) {
    EXPECT_EQ(TypeParam::psi(q), TypeParam::psi_eigen(q));
    EXPECT_TRUE(TypeParam::psi(q).on_curve());
  }
}

// Points on E'(Fp2) outside G2 from noble (BN254's G2 cofactor is 2p - r): the fast check refuses
// them, and so does the definition.
TEST(Bn254G2, NobleNonSubgroupPoints) {
  using namespace splitprove::bn254;
  const auto& rows = Bn254Curve::vectors()["g2_not_in_subgroup"];
  ASSERT_GE(rows.size(), 2u);
  for (const auto& v : rows) {
    auto f2 = [](const nlohmann::json& a) {
      return Fp2{Fp::from_hex(a[0].get<std::string>()), Fp::from_hex(a[1].get<std::string>())};
    };
    G2Affine p{f2(v["x"]), f2(v["y"])};
    ASSERT_TRUE(p.on_curve());
    EXPECT_FALSE(g2_in_subgroup(p.to_jacobian()));
    EXPECT_FALSE(G2::in_subgroup_by_order(p.to_jacobian()));
  }
}

// k·G against noble's affine coordinates.
TYPED_TEST(Twist, GeneratorMultiplesMatchVectors) {
  using Fp = typename TypeParam::Fp;
  using Fp2 = typename TypeParam::Fp2;
  for (const auto& v : TypeParam::vectors()["g1"]) {
    auto p = TypeParam::G1::Jacobian::generator()
                 .mul(ff::from_hex<4>(v["k"].template get<std::string>()))
                 .to_affine();
    if (v["x"].is_null()) {
      EXPECT_TRUE(p.is_identity());
      continue;
    }
    EXPECT_EQ(p.x, Fp::from_hex(v["x"].template get<std::string>()));
    EXPECT_EQ(p.y, Fp::from_hex(v["y"].template get<std::string>()));
  }
  auto f2 = [](const nlohmann::json& a) {
    return Fp2{Fp::from_hex(a[0].get<std::string>()), Fp::from_hex(a[1].get<std::string>())};
  };
  for (const auto& v : TypeParam::vectors()["g2"]) {
    auto p = TypeParam::G2::Jacobian::generator()
                 .mul(ff::from_hex<4>(v["k"].template get<std::string>()))
                 .to_affine();
    if (v["x"].is_null()) {
      EXPECT_TRUE(p.is_identity());
      continue;
    }
    EXPECT_EQ(p.x, f2(v["x"]));
    EXPECT_EQ(p.y, f2(v["y"]));
  }
}

TYPED_TEST(Group, ConstantTimeMulMatchesWnaf) {
  using J = typename TestFixture::J;
  using Fr = typename TestFixture::Fr;
  using A = typename TestFixture::A;
  using Pr = typename TestFixture::C::Projective;
  using Fr = typename TestFixture::Fr;
  for (int i = 0; i < 4; ++i) {
    A p = this->rand_point().to_affine();
    Fr k = Fr::random(rng());
    EXPECT_EQ(TestFixture::C::mul_ct(p, k), p.to_jacobian().mul(k));
  }
  A g = A::generator();
  EXPECT_TRUE(TestFixture::C::mul_ct(g, Fr::zero()).is_identity());
  EXPECT_EQ(TestFixture::C::mul_ct(g, Fr::one()), J::generator());
  EXPECT_EQ(TestFixture::C::mul_ct(g, -Fr::one()), -J::generator());
  EXPECT_TRUE(TestFixture::C::mul_ct(A::identity(), Fr::random(rng())).is_identity());
  // The complete formulas need no special cases: P + P, P + (-P), P + O.
  Pr pp = Pr::from_affine(g);
  EXPECT_EQ((pp + pp).to_jacobian(), J::generator().dbl());
  EXPECT_TRUE((pp + Pr::from_affine(-g)).to_jacobian().is_identity());
  EXPECT_EQ((pp + Pr::identity()).to_jacobian(), J::generator());
  EXPECT_EQ(pp.dbl().to_jacobian(), J::generator().dbl());
  EXPECT_TRUE(Pr::identity().dbl().to_jacobian().is_identity());
}
