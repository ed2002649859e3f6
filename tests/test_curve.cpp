// Group laws, scalar multiplication, coordinate forms and subgroup checks, as typed suites over
// G1 and G2 (a new curve adds its groups to the type list).
#include <gtest/gtest.h>

#include "ec/bls12_381.hpp"
#include "ec/encoding.hpp"
#include "test_util.hpp"

using namespace splitprove;
using namespace splitprove::bls12_381;
using splitprove::testing::rng;

template <class C>
struct GroupTraits;
template <>
struct GroupTraits<G1> {
  static bool fast_subgroup(const G1Jacobian& p) { return g1_in_subgroup(p); }
  static Fp rand_coord() { return Fp::random(rng()); }
};
template <>
struct GroupTraits<G2> {
  static bool fast_subgroup(const G2Jacobian& p) { return g2_in_subgroup(p); }
  static Fp2 rand_coord() { return {Fp::random(rng()), Fp::random(rng())}; }
};

template <class C>
class Group : public ::testing::Test {
 public:
  using J = typename C::Jacobian;
  using A = typename C::Affine;
  static J rand_point() { return J::generator().mul(Fr::random(rng())); }
  // A point on the curve that is (with overwhelming probability) outside the subgroup.
  static A rand_curve_point() {
    for (;;) {
      auto x = GroupTraits<C>::rand_coord();
      auto y = (x.square() * x + C::b()).sqrt();
      if (y) return A{x, *y, false};
    }
  }
};
using Groups = ::testing::Types<G1, G2>;
TYPED_TEST_SUITE(Group, Groups);

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
  using J = typename TestFixture::J;
  using X = typename TypeParam::Xyzz;
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
  TypeParam::batch_to_affine(pts, out);
  for (size_t i = 0; i < pts.size(); ++i) EXPECT_EQ(out[i], pts[i].to_affine()) << i;
}

TYPED_TEST(Group, SubgroupChecksAgree) {
  using J = typename TestFixture::J;
  for (int i = 0; i < 4; ++i) {
    J p = this->rand_point();
    EXPECT_TRUE(GroupTraits<TypeParam>::fast_subgroup(p));
    EXPECT_TRUE(TypeParam::in_subgroup_by_order(p));
    J q = this->rand_curve_point().to_jacobian();
    ASSERT_TRUE(q.on_curve());
    bool slow = TypeParam::in_subgroup_by_order(q);
    EXPECT_EQ(GroupTraits<TypeParam>::fast_subgroup(q), slow);
    EXPECT_FALSE(slow);  // a random curve point lies outside G (cofactor > 1)
    // The sum of a subgroup point and a non-subgroup point is not in the subgroup either.
    EXPECT_FALSE(GroupTraits<TypeParam>::fast_subgroup(p + q));
    // Clearing the cofactor the slow way (multiplying by #E/r is not needed): r·q is a torsion
    // point of cofactor order, outside G unless it is the identity.
    J t = q.mul(Fr::MOD);
    EXPECT_EQ(GroupTraits<TypeParam>::fast_subgroup(t), t.is_identity());
  }
  EXPECT_TRUE(GroupTraits<TypeParam>::fast_subgroup(J::identity()));
}

TEST(G1, EndomorphismConstants) {
  Fp beta = g1_beta();
  EXPECT_FALSE(beta.is_one());
  EXPECT_TRUE((beta.square() * beta).is_one());
  // psi on G2 satisfies psi^2 - t·psi + p = 0 on E'; on G2 it acts as multiplication by p,
  // so psi(psi(Q)) = p^2·Q = ... check the simpler eigenvalue relation psi(Q) = [x]Q.
  G2Jacobian q = G2Jacobian::generator();
  EXPECT_EQ(psi(q), mul_by_x(q));
  EXPECT_TRUE(psi(q).on_curve());
}

TYPED_TEST(Group, ConstantTimeMulMatchesWnaf) {
  using J = typename TestFixture::J;
  using A = typename TestFixture::A;
  using Pr = typename TypeParam::Projective;
  for (int i = 0; i < 4; ++i) {
    A p = this->rand_point().to_affine();
    Fr k = Fr::random(rng());
    EXPECT_EQ(TypeParam::mul_ct(p, k), p.to_jacobian().mul(k));
  }
  A g = A::generator();
  EXPECT_TRUE(TypeParam::mul_ct(g, Fr::zero()).is_identity());
  EXPECT_EQ(TypeParam::mul_ct(g, Fr::one()), J::generator());
  EXPECT_EQ(TypeParam::mul_ct(g, -Fr::one()), -J::generator());
  EXPECT_TRUE(TypeParam::mul_ct(A::identity(), Fr::random(rng())).is_identity());
  // The complete formulas need no special cases: P + P, P + (-P), P + O.
  Pr pp = Pr::from_affine(g);
  EXPECT_EQ((pp + pp).to_jacobian(), J::generator().dbl());
  EXPECT_TRUE((pp + Pr::from_affine(-g)).to_jacobian().is_identity());
  EXPECT_EQ((pp + Pr::identity()).to_jacobian(), J::generator());
  EXPECT_EQ(pp.dbl().to_jacobian(), J::generator().dbl());
  EXPECT_TRUE(Pr::identity().dbl().to_jacobian().is_identity());
}
