// Field axioms and known answers for every field of the tower, as typed suites over every curve
// (tests/test_curves.hpp): a new curve's fields get the same tests by adding it to the type lists.
#include <gtest/gtest.h>

#include <bit>

#include "test_curves.hpp"
#include "test_util.hpp"

using namespace splitprove;
using splitprove::testing::AllCurves;
using splitprove::testing::CurveNames;
using splitprove::testing::rand_elem;
using splitprove::testing::rng;

namespace bls = splitprove::bls12_381;
namespace bn = splitprove::bn254;

template <class F>
class FieldAxioms : public ::testing::Test {};
using AllFields = ::testing::Types<bls::Fp, bls::Fr, bls::Fp2, bls::Fp6, bls::Fp12,  //
                                   bn::Fp, bn::Fr, bn::Fp2, bn::Fp6, bn::Fp12>;
TYPED_TEST_SUITE(FieldAxioms, AllFields);

TYPED_TEST(FieldAxioms, RingLaws) {
  using F = TypeParam;
  for (int i = 0; i < 50; ++i) {
    F a = rand_elem<F>(), b = rand_elem<F>(), c = rand_elem<F>();
    EXPECT_EQ(a + b, b + a);
    EXPECT_EQ((a + b) + c, a + (b + c));
    EXPECT_EQ(a * b, b * a);
    EXPECT_EQ((a * b) * c, a * (b * c));
    EXPECT_EQ(a * (b + c), a * b + a * c);
    EXPECT_EQ(a + F::zero(), a);
    EXPECT_EQ(a * F::one(), a);
    EXPECT_EQ(a - a, F::zero());
    EXPECT_EQ(a + (-a), F::zero());
    EXPECT_EQ(a - b, a + (-b));
    EXPECT_EQ(a.square(), a * a);
    EXPECT_EQ(a.dbl(), a + a);
  }
}

TYPED_TEST(FieldAxioms, Inverse) {
  using F = TypeParam;
  for (int i = 0; i < 10; ++i) {
    F a = rand_elem<F>();
    EXPECT_EQ(a * a.inverse(), F::one());
    EXPECT_EQ(a.inverse().inverse(), a);
    EXPECT_EQ(a.inverse_vartime(), a.inverse());
  }
}

// ---- prime fields ----------------------------------------------------------------------------
template <class F>
class PrimeField : public ::testing::Test {};
using PrimeFields = ::testing::Types<bls::Fp, bls::Fr, bn::Fp, bn::Fr>;
TYPED_TEST_SUITE(PrimeField, PrimeFields);

TYPED_TEST(PrimeField, CanonicalAndBytesRoundTrip) {
  using F = TypeParam;
  for (int i = 0; i < 50; ++i) {
    F a = rand_elem<F>();
    EXPECT_EQ(F::from_canonical(a.to_canonical()), a);
    uint8_t be[F::BYTES], le[F::BYTES];
    a.to_bytes_be(be);
    a.to_bytes_le(le);
    for (size_t k = 0; k < F::BYTES; ++k) EXPECT_EQ(be[k], le[F::BYTES - 1 - k]);
    EXPECT_EQ(*F::from_bytes_be(be), a);
    EXPECT_EQ(*F::from_bytes_le(le), a);
    EXPECT_EQ(F::from_hex(a.to_hex()), a);
    ff::Limbs<F::N> dec;
    ASSERT_TRUE(ff::from_decimal(a.to_decimal(), dec));
    EXPECT_EQ(F::from_canonical(dec), a);
  }
  // p itself and p + 1 are not canonical encodings.
  uint8_t be[F::BYTES] = {};
  auto m = F::MOD;
  for (size_t k = 0; k < F::BYTES; ++k) be[F::BYTES - 1 - k] = uint8_t(m[k / 8] >> (8 * (k % 8)));
  EXPECT_FALSE(F::from_bytes_be(be).has_value());
  EXPECT_FALSE(F::from_canonical_checked(F::MOD).has_value());
  auto pm1 = F::P_MINUS_1;
  EXPECT_EQ(*F::from_canonical_checked(pm1), -F::one());
}

TYPED_TEST(PrimeField, SmallIntegersAndPow) {
  using F = TypeParam;
  EXPECT_EQ(F::from_u64(2) * F::from_u64(3), F::from_u64(6));
  EXPECT_EQ(F::from_u64(7) - F::from_u64(9), -F::from_u64(2));
  EXPECT_EQ(F::from_u64(3).pow(uint64_t(5)), F::from_u64(243));
  F a = rand_elem<F>();
  // Fermat: a^(p-1) = 1 for a != 0.
  EXPECT_EQ(a.pow(F::P_MINUS_1), F::one());
  EXPECT_EQ(F::zero().inverse(), F::zero());
  EXPECT_EQ(F::zero().inverse_vartime(), F::zero());
  for (F x : {F::one(), -F::one(), F::from_u64(2), a}) {
    EXPECT_EQ(x.inverse_vartime(), x.inverse());
    EXPECT_EQ(x.half().dbl(), x);
    EXPECT_EQ(x.half(), x * F::from_u64(2).inverse());
  }
  EXPECT_EQ(ff::mul_small(a, 11), a * F::from_u64(11));
}

TYPED_TEST(PrimeField, SqrtAndLegendre) {
  using F = TypeParam;
  int squares = 0, non = 0;
  for (int i = 0; i < 40; ++i) {
    F a = rand_elem<F>();
    auto s = a.square().sqrt();
    ASSERT_TRUE(s.has_value());
    EXPECT_TRUE(*s == a || *s == -a);
    int l = a.legendre();
    auto r = a.sqrt();
    EXPECT_EQ(l == 1, r.has_value());
    if (r) EXPECT_EQ(r->square(), a);
    (l == 1 ? squares : non)++;
  }
  EXPECT_GT(squares, 5);
  EXPECT_GT(non, 5);
  EXPECT_EQ(F::zero().legendre(), 0);
  EXPECT_EQ(F::smallest_non_residue().legendre(), -1);
}

// The run-time kernel (mulx/adcx/adox where built for it) against the portable CIOS loop, on
// random values and on the edges of the range where the carry chains are longest: raw limbs
// 0, 1, p - 1, p - 2, and values with all-ones low limbs.
TYPED_TEST(PrimeField, KernelMatchesPortable) {
  using F = TypeParam;
  using R = typename F::Repr;
  std::vector<R> xs;
  R pm1 = F::MOD, pm2 = F::MOD, ones{}, hi{};
  pm1[0] -= 1;
  pm2[0] -= 2;
  for (size_t i = 0; i + 1 < F::N; ++i) ones[i] = ~uint64_t(0);
  hi[F::N - 1] = F::MOD[F::N - 1];
  for (const R& r : {R{}, ff::from_u64<F::N>(1), pm1, pm2, ones, hi, F::R1, F::R2}) xs.push_back(r);
  for (int i = 0; i < 200; ++i) xs.push_back(rand_elem<F>().mont());
  for (const R& a : xs)
    for (size_t j = 0; j < 24; ++j) {
      const R& b = xs[(j * 7919 + a[0]) % xs.size()];
      const R want = F::mont_mul_portable(a, b);
      ASSERT_EQ(F::mont_mul(a, b), want) << ff::to_hex(a) << " * " << ff::to_hex(b);
      ASSERT_LT(ff::cmp_limbs(want, F::MOD), 0);
      // The lazy pieces: the wide product then one reduction is the same Montgomery product.
      ASSERT_EQ(F::redc(F::mul_wide(a, b)), want) << ff::to_hex(a) << " * " << ff::to_hex(b);
      // The wide product against schoolbook, also of the unreduced sums (< 2p) Fp2 feeds it.
      const R sa = F::add_unreduced(a, b), sb = F::add_unreduced(b, b);
      typename F::Wide school{};
      for (size_t i = 0; i < F::N; ++i) {
        unsigned __int128 c = 0;
        for (size_t k = 0; k < F::N; ++k) {
          c += (unsigned __int128)sa[k] * sb[i] + school[i + k];
          school[i + k] = uint64_t(c);
          c >>= 64;
        }
        school[i + F::N] = uint64_t(c);
      }
      ASSERT_EQ(F::mul_wide(sa, sb), school) << ff::to_hex(sa) << " * " << ff::to_hex(sb);
    }
  // A product that is known in closed form: (p-1)·(p-1) = 1 in the field.
  EXPECT_EQ(-F::one() * -F::one(), F::one());
}

// square() against the product x·x and the lazy pieces (redc of the wide product a·a), on the
// edge values and on values whose limbs make the carries run furthest (all-ones limbs, single
// high bits), plus many random ones; the constant-evaluated path agrees with the run-time one.
// The known answers for square() are in VectorsFp/Fr.
TYPED_TEST(PrimeField, SquareMatchesProduct) {
  using F = TypeParam;
  using R = typename F::Repr;
  std::vector<R> xs;
  R pm1 = F::MOD, pm2 = F::MOD, ones{}, hi{}, top{};
  pm1[0] -= 1;
  pm2[0] -= 2;
  for (size_t i = 0; i + 1 < F::N; ++i) ones[i] = ~uint64_t(0);
  hi[F::N - 1] = F::MOD[F::N - 1];
  top[F::N - 1] = uint64_t(1) << (63 - std::countl_zero(F::MOD[F::N - 1]));  // < p: top bit only
  for (const R& r : {R{}, ff::from_u64<F::N>(1), pm1, pm2, ones, hi, top, F::R1, F::R2})
    xs.push_back(r);
  for (size_t i = 0; i < F::N; ++i) {  // one all-ones limb, or 2^(64i+63), each below p
    R a{}, b{};
    a[i] = ~uint64_t(0);
    b[i] = uint64_t(1) << 63;
    if (ff::cmp_limbs(a, F::MOD) < 0) xs.push_back(a);
    if (ff::cmp_limbs(b, F::MOD) < 0) xs.push_back(b);
  }
  for (int i = 0; i < 5000; ++i) xs.push_back(rand_elem<F>().mont());
  for (const R& a : xs) {
    const R want = F::mont_mul_portable(a, a);
    ASSERT_EQ(F::mont_sqr(a), want) << ff::to_hex(a);
    ASSERT_EQ(F::redc(F::mul_wide(a, a)), want) << ff::to_hex(a);
    const F x = F::from_mont(a);
    ASSERT_EQ(x.square(), x * x) << ff::to_hex(a);
  }
  // Closed forms: (p-1)^2 = 1, (2^k)^2 = 2^(2k) (powers taken by the product alone), and the
  // constant-evaluated square agrees with the run-time one.
  EXPECT_EQ((-F::one()).square(), F::one());
  F p2 = F::from_u64(2), p4 = F::from_u64(4);
  for (int k = 1; k < 120; ++k, p2 = p2 * F::from_u64(2), p4 = p4 * F::from_u64(4))
    ASSERT_EQ(p2.square(), p4) << "k=" << k;
  constexpr F c = F::from_u64(0xfedcba9876543210ull).square();
  F r = F::from_u64(0xfedcba9876543210ull);
  EXPECT_EQ(c, r.square());
}

// Fp2 products (lazily reduced where the kernel allows) against the schoolbook formula over Fp,
// including the operands that make a0·b0 - a1·b1 negative or extreme.
template <class Fp2>
void fp2_product_matches_schoolbook() {
  using Fp = decltype(Fp2{}.c0);
  const Fp m1 = -Fp::one();
  std::vector<Fp2> xs = {Fp2::zero(), Fp2::one(), {Fp::zero(), Fp::one()}, {m1, m1},
                         {Fp::zero(), m1}, {m1, Fp::zero()}, {Fp::one(), m1}};
  for (int i = 0; i < 100; ++i) xs.push_back(rand_elem<Fp2>());
  for (const Fp2& a : xs)
    for (const Fp2& b : xs) {
      const Fp2 want{a.c0 * b.c0 - a.c1 * b.c1, a.c0 * b.c1 + a.c1 * b.c0};
      ASSERT_EQ(a * b, want);
    }
}
TEST(Fp2, ProductMatchesSchoolbookBls12_381) { fp2_product_matches_schoolbook<bls::Fp2>(); }
TEST(Fp2, ProductMatchesSchoolbookBn254) { fp2_product_matches_schoolbook<bn::Fp2>(); }

TEST(Fr, RootsOfUnityFollowSnarkjs) {
  // w[32] = 5^t, 5 the smallest non-residue (ffjavascript); FORMATS.md check values.
  using Fr = bls::Fr;
  EXPECT_EQ(Fr::smallest_non_residue(), Fr::from_u64(5));
  EXPECT_EQ(Fr::S, 32u);
  EXPECT_EQ(Fr::root_of_unity(10),
            Fr::from_hex("2f27b09858f43cef3ed6d55a6350721d79efd6b0570bf109d58a5af42d010ff9"));
  EXPECT_EQ(Fr::root_of_unity(2), Fr::from_hex("8d51ccce760304d0ec030002760300000001000000000000"));
}

TEST(Fr, Bn254RootsOfUnityFollowSnarkjs) {
  // w[28] = 5^t: the 2^28-th root circom and snarkjs use for bn128.
  using Fr = bn::Fr;
  EXPECT_EQ(Fr::smallest_non_residue(), Fr::from_u64(5));
  EXPECT_EQ(Fr::S, 28u);
  ff::Limbs<4> w28;
  ASSERT_TRUE(ff::from_decimal(
      "19103219067921713944291392827692070036145651957329286315305642004821462161904", w28));
  EXPECT_EQ(Fr::root_of_unity(28), Fr::from_canonical(w28));
}

template <class C>
class Curve : public ::testing::Test {};
TYPED_TEST_SUITE(Curve, AllCurves, CurveNames);

TYPED_TEST(Curve, RootsOfUnityHaveExactOrder) {
  using Fr = typename TypeParam::Fr;
  ASSERT_EQ(Fr::S, TypeParam::kTwoAdicity);
  for (unsigned k = 1; k <= Fr::S; ++k) {
    Fr w = Fr::root_of_unity(k);
    Fr x = w;
    for (unsigned i = 1; i < k; ++i) x = x.square();
    EXPECT_EQ(x, -Fr::one()) << "w[" << k << "]^(2^(k-1)) must be -1";
  }
}

TYPED_TEST(Curve, Fp2SqrtFrobeniusConjugate) {
  using Fp = typename TypeParam::Fp;
  using Fp2 = typename TypeParam::Fp2;
  for (int i = 0; i < 20; ++i) {
    Fp2 a = rand_elem<Fp2>();
    auto s = a.square().sqrt();
    ASSERT_TRUE(s.has_value());
    EXPECT_TRUE(*s == a || *s == -a);
    EXPECT_EQ(a.frobenius(1), a.pow(Fp::MOD));  // x^p
    EXPECT_EQ(a * a.conj(), (Fp2{a.norm(), Fp::zero()}));
  }
  // u^2 = -1, and xi = XI0 + u is neither a square nor a cube in Fp2 (so Fp6 and Fp12 are fields).
  Fp2 u{Fp::zero(), Fp::one()};
  EXPECT_EQ(u.square(), -Fp2::one());
  const Fp2 xi{Fp::from_u64(TypeParam::kXi0), Fp::one()};
  EXPECT_EQ(Fp2::one().mul_by_xi(), xi);
  Fp2 x = rand_elem<Fp2>();
  EXPECT_EQ(x.mul_by_xi(), x * xi);
  EXPECT_FALSE(xi.sqrt().has_value());
  // p^2 - 1 = (p - 1)(p + 1); xi^((p^2-1)/3) != 1 means xi is not a cube.
  ff::Limbs<2 * Fp::N> pm1{}, pp1{};
  for (size_t i = 0; i < Fp::N; ++i) pm1[i] = pp1[i] = Fp::MOD[i];
  pm1[0] -= 1;
  ff::add_limbs(pp1, pp1, ff::from_u64<2 * Fp::N>(1));
  EXPECT_FALSE(xi.pow(ff::div_small(pm1, 3)).pow(pp1).is_one());
}

TYPED_TEST(Curve, FrobeniusIsPowerOfP) {
  using Fp = typename TypeParam::Fp;
  using Fp6 = typename TypeParam::Fp6;
  using Fp12 = typename TypeParam::Fp12;
  Fp6 a = rand_elem<Fp6>();
  EXPECT_EQ(a.frobenius(1), [&] {
    // a^p by square-and-multiply over p's bits.
    Fp6 r = Fp6::one();
    for (size_t i = ff::num_bits(Fp::MOD); i-- > 0;) {
      r = r.square();
      if (ff::bit(Fp::MOD, i)) r = r * a;
    }
    return r;
  }());
  Fp12 f = rand_elem<Fp12>();
  EXPECT_EQ(f.frobenius(1), f.pow(Fp::MOD));
  EXPECT_EQ(f.frobenius(2), f.frobenius(1).frobenius(1));
  EXPECT_EQ(f.frobenius(3), f.frobenius(2).frobenius(1));
  EXPECT_EQ(f.frobenius(6), f.conj());
  EXPECT_EQ(f.frobenius(12), f);
  EXPECT_EQ(a.frobenius(6), a);
}

TYPED_TEST(Curve, SparseMultiplications) {
  using Fp2 = typename TypeParam::Fp2;
  using Fp6 = typename TypeParam::Fp6;
  using Fp12 = typename TypeParam::Fp12;
  Fp12 f = rand_elem<Fp12>();
  Fp2 l0 = rand_elem<Fp2>(), l1 = rand_elem<Fp2>(), l4 = rand_elem<Fp2>();
  Fp12 line014{{l0, l1, Fp2::zero()}, {Fp2::zero(), l4, Fp2::zero()}};
  EXPECT_EQ(f.mul_by_014(l0, l1, l4), f * line014);
  Fp12 line034{{l0, Fp2::zero(), Fp2::zero()}, {l1, l4, Fp2::zero()}};
  EXPECT_EQ(f.mul_by_034(l0, l1, l4), f * line034);
  Fp6 a = rand_elem<Fp6>();
  EXPECT_EQ(a.mul_by_01(l0, l1), (a * Fp6{l0, l1, Fp2::zero()}));
  EXPECT_EQ(a.mul_by_1(l1), (a * Fp6{Fp2::zero(), l1, Fp2::zero()}));
  EXPECT_EQ(a.mul_by_v(), (a * Fp6{Fp2::zero(), Fp2::one(), Fp2::zero()}));
}

TYPED_TEST(Curve, CyclotomicSquare) {
  using Fp12 = typename TypeParam::Fp12;
  for (int i = 0; i < 5; ++i) {
    Fp12 f = rand_elem<Fp12>();
    // Map into the cyclotomic subgroup with the easy part of the final exponentiation.
    Fp12 t = f.conj() * f.inverse();
    t = t.frobenius(2) * t;
    EXPECT_EQ(t.cyclotomic_square(), t.square());
    EXPECT_EQ(t * t.conj(), Fp12::one());  // unitary: conj is the inverse
    // Outside the subgroup the shortcut is wrong: the test can fail.
    EXPECT_NE(f.cyclotomic_square(), f.square());
  }
}

// ---- known answers from noble-curves (tests/vectors) -------------------------------------------
template <class F>
void check_prime_vectors(const nlohmann::json& rows) {
  ASSERT_GE(rows.size(), 20u);
  for (const auto& v : rows) {
    F a = F::from_hex(v["a"].get<std::string>()), b = F::from_hex(v["b"].get<std::string>());
    SCOPED_TRACE("a=" + v["a"].get<std::string>() + " b=" + v["b"].get<std::string>());
    EXPECT_EQ((a + b).to_hex(), v["add"].get<std::string>());
    EXPECT_EQ((a - b).to_hex(), v["sub"].get<std::string>());
    EXPECT_EQ((a * b).to_hex(), v["mul"].get<std::string>());
    EXPECT_EQ(a.square().to_hex(), v["sqr_a"].get<std::string>());
    EXPECT_EQ((-a).to_hex(), v["neg_a"].get<std::string>());
    EXPECT_EQ(a.pow(b.to_canonical()).to_hex(), v["pow_a_b"].get<std::string>());
    if (!v["inv_a"].is_null()) EXPECT_EQ(a.inverse().to_hex(), v["inv_a"].get<std::string>());
    if (v.contains("legendre_a")) EXPECT_EQ(a.legendre(), v["legendre_a"].get<int>());
    if (v.contains("sqrt_a")) {
      auto s = a.sqrt();
      EXPECT_EQ(s.has_value(), !v["sqrt_a"].is_null());
      if (s && !v["sqrt_a"].is_null()) {
        F ref = F::from_hex(v["sqrt_a"].get<std::string>());
        EXPECT_TRUE(*s == ref || *s == -ref);
      }
    }
  }
}

TYPED_TEST(Curve, VectorsFp) {
  check_prime_vectors<typename TypeParam::Fp>(TypeParam::vectors()["fp"]);
}
TYPED_TEST(Curve, VectorsFr) {
  check_prime_vectors<typename TypeParam::Fr>(TypeParam::vectors()["fr"]);
}

TYPED_TEST(Curve, VectorsModuli) {
  EXPECT_EQ(ff::to_hex(TypeParam::Fp::MOD), TypeParam::vectors()["p"].template get<std::string>());
  EXPECT_EQ(ff::to_hex(TypeParam::Fr::MOD), TypeParam::vectors()["r"].template get<std::string>());
}

TYPED_TEST(Curve, VectorsFp2) {
  using Fp = typename TypeParam::Fp;
  using Fp2 = typename TypeParam::Fp2;
  auto f2 = [](const nlohmann::json& a) {
    return Fp2{Fp::from_hex(a[0].get<std::string>()), Fp::from_hex(a[1].get<std::string>())};
  };
  const auto& rows = TypeParam::vectors()["fp2"];
  ASSERT_GE(rows.size(), 4u);
  for (const auto& v : rows) {
    Fp2 a = f2(v["a"]), b = f2(v["b"]);
    EXPECT_EQ(a * b, f2(v["mul"]));
    EXPECT_EQ(a.square(), f2(v["sqr_a"]));
    if (!v["inv_a"].is_null()) EXPECT_EQ(a.inverse(), f2(v["inv_a"]));
  }
}

TYPED_TEST(Curve, VectorsFrRoots) {
  using Fr = typename TypeParam::Fr;
  const auto& w = TypeParam::vectors()["fr_roots"]["w"];
  ASSERT_EQ(w.size(), Fr::S + 1);
  for (unsigned k = 0; k <= Fr::S; ++k)
    EXPECT_EQ(Fr::root_of_unity(k).to_hex(), w[std::to_string(k)].template get<std::string>())
        << "k=" << k;
  EXPECT_TRUE(TypeParam::vectors()["fr_roots"]["matches_ffjavascript"].template get<bool>());
}
