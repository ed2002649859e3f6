// The eight-lane field kernel (src/ff/lanes.hpp) against the scalar field: products, differences,
// loads and stores, for reduced inputs, edge values and unreduced inputs up to the bounds the
// batch-affine MSM relies on. Skips (and says so) in builds without AVX-512 IFMA.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

#include "ff/lanes.hpp"
#include "msm/msm_impl.hpp"
#include "msm_test_bases.hpp"
#include "test_curves.hpp"
#include "test_util.hpp"

using namespace splitprove;
using splitprove::testing::rand_elem;

namespace bls = splitprove::bls12_381;
namespace bn = splitprove::bn254;

template <class F>
class Lanes : public ::testing::Test {};
using LaneFields = ::testing::Types<bls::Fp, bn::Fp>;
TYPED_TEST_SUITE(Lanes, LaneFields);

#if SPLITPROVE_IFMA
namespace {

template <class F>
using K = ff::Lanes8<F>;

// Eight elements in and out of lanes, from and to an array.
template <class F>
typename K<F>::V load(const std::array<F, 8>& x) {
  return K<F>::load8(x.data());
}
template <class F>
std::array<F, 8> store(const typename K<F>::V& v) {
  std::array<typename F::Repr, 8> w;
  char* rows[8];
  for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<char*>(&w[l]);
  K<F>::store_rows(v, rows, 0);
  std::array<F, 8> x;
  for (size_t l = 0; l < 8; ++l) {
    EXPECT_LT(ff::cmp_limbs(w[l], F::MOD), 0) << "store left lane " << l << " unreduced";
    x[l] = F::from_mont(w[l]);
  }
  return x;
}
template <class F>
std::array<F, 8> random8() {
  std::array<F, 8> x;
  for (auto& e : x) e = rand_elem<F>();
  return x;
}
// A few values at the edges: 0, 1, p - 1 (in Montgomery form: their representations vary).
template <class F>
std::array<F, 8> edge8() {
  return {F::zero(), F::one(), -F::one(), F::from_u64(2), -F::from_u64(2), F::from_mont(F::R1),
          F::from_mont(ff::from_u64<F::N>(1)), -F::from_mont(ff::from_u64<F::N>(1))};
}

}  // namespace

TYPED_TEST(Lanes, LoadStoreRoundTrips) {
  using F = TypeParam;
  for (const auto& x : {random8<F>(), edge8<F>()}) EXPECT_EQ(store<F>(load<F>(x)), x);
}

TYPED_TEST(Lanes, RowsReadAndWriteTheAddressedElements) {
  using F = TypeParam;
  // Elements at an odd byte offset inside larger records, some lanes on the same record.
  struct Rec {
    char pad[24];
    F e;
    char tail[8];
  };
  std::vector<Rec> v(64);
  for (auto& r : v) r.e = rand_elem<F>();
  const size_t pick[8] = {5, 0, 63, 17, 17, 40, 2, 33};
  const char* rows[8];
  for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<const char*>(&v[pick[l]]);
  const size_t off = offsetof(Rec, e);
  const auto got = store<F>(K<F>::load_rows(rows, off));
  for (size_t l = 0; l < 8; ++l) EXPECT_EQ(got[l], v[pick[l]].e) << "lane " << l;
  // Written back doubled to other records: exactly those elements change.
  const std::vector<Rec> before = v;
  const size_t to[8] = {1, 3, 4, 8, 9, 10, 60, 62};
  char* out[8];
  for (size_t l = 0; l < 8; ++l) out[l] = reinterpret_cast<char*>(&v[to[l]]);
  K<F>::store_rows(K<F>::add(K<F>::load_rows(rows, off), K<F>::load_rows(rows, off)), out, off);
  for (size_t i = 0, l = 0; i < v.size(); ++i) {
    if (l < 8 && to[l] == i) {
      EXPECT_EQ(v[i].e, before[pick[l]].e + before[pick[l]].e) << "record " << i;
      ++l;
    } else {
      EXPECT_EQ(v[i].e, before[i].e) << "record " << i;
    }
    EXPECT_EQ(std::memcmp(v[i].pad, before[i].pad, sizeof(Rec::pad)), 0) << "record " << i;
    EXPECT_EQ(std::memcmp(v[i].tail, before[i].tail, sizeof(Rec::tail)), 0) << "record " << i;
  }
}

TYPED_TEST(Lanes, ProductsMatchTheScalarField) {
  using F = TypeParam;
  for (int rep = 0; rep < 200; ++rep) {
    const auto a = rep == 0 ? edge8<F>() : random8<F>();
    const auto b = rep == 1 ? edge8<F>() : random8<F>();
    const auto got = store<F>(K<F>::mul(load<F>(a), load<F>(b)));
    for (size_t l = 0; l < 8; ++l) ASSERT_EQ(got[l], a[l] * b[l]) << "rep " << rep << " lane " << l;
  }
}

TYPED_TEST(Lanes, DifferencesMatchTheScalarField) {
  using F = TypeParam;
  for (int rep = 0; rep < 100; ++rep) {
    const auto a = random8<F>(), b = rep == 0 ? edge8<F>() : random8<F>(), c = random8<F>();
    const auto d1 = store<F>(K<F>::template sub<1>(load<F>(a), load<F>(b)));
    const auto d2 = store<F>(K<F>::template sub2<2>(load<F>(a), load<F>(b), load<F>(c)));
    for (size_t l = 0; l < 8; ++l) {
      ASSERT_EQ(d1[l], a[l] - b[l]);
      ASSERT_EQ(d2[l], a[l] - b[l] - c[l]);
    }
  }
}

// Unreduced operands at the batch-affine bounds: a difference a - b + 4p (below 5p) times a
// long product chain's output, then a chain of 1000 products whose outputs feed the next (they
// must stay bounded), all against the scalar field.
TYPED_TEST(Lanes, UnreducedOperandsWithinTheBounds) {
  using F = TypeParam;
  for (int rep = 0; rep < 50; ++rep) {
    const auto a = random8<F>(), b = rep == 0 ? edge8<F>() : random8<F>(), c = random8<F>();
    const auto big = K<F>::template sub<4>(load<F>(a), load<F>(b));  // in (3p, 5p)
    const auto got = store<F>(K<F>::mul(load<F>(c), big));
    for (size_t l = 0; l < 8; ++l) ASSERT_EQ(got[l], c[l] * (a[l] - b[l]));
    // (x2 - x1 - x0 + 2p) is below 3p + x2's bound; squared values feed it.
    const auto sq = K<F>::mul(big, load<F>(c));
    const auto x3 = K<F>::template sub2<2>(K<F>::mul(sq, sq), load<F>(a), load<F>(b));
    const auto got3 = store<F>(x3);
    for (size_t l = 0; l < 8; ++l) {
      const F s = c[l] * (a[l] - b[l]);
      ASSERT_EQ(got3[l], s * s - a[l] - b[l]);
    }
  }
  auto x = random8<F>();
  const auto y = random8<F>();
  auto v = load<F>(x);
  const auto w = K<F>::template sub<1>(load<F>(y), load<F>(x));  // below 2p
  std::array<F, 8> ref = x;
  for (int i = 0; i < 1000; ++i) {
    v = K<F>::mul(v, w);
    for (size_t l = 0; l < 8; ++l) ref[l] = ref[l] * (y[l] - x[l]);
  }
  EXPECT_EQ(store<F>(v), ref);
}

// The interface the batch-affine sums use (ff::LaneOps), over Fp and Fp2 of both curves: every
// operation at the input bounds it documents, against the scalar field.
template <class F>
class LaneOpsTest : public ::testing::Test {};
using OpsFields = ::testing::Types<bls::Fp, bn::Fp, bls::Fp2, bn::Fp2>;
TYPED_TEST_SUITE(LaneOpsTest, OpsFields);

TYPED_TEST(LaneOpsTest, OperationsAtTheirBoundsMatchTheScalarField) {
  using F = TypeParam;
  using Ops = ff::LaneOps<F>;
  const auto r8 = [] {
    std::array<F, 8> x;
    for (auto& e : x) e = rand_elem<F>();
    return x;
  };
  const auto out = [](const typename Ops::V& v) {
    std::array<F, 8> x;
    Ops::to_scalars(v, x.data());
    return x;
  };
  for (int rep = 0; rep < 100; ++rep) {
    auto a = r8(), b = r8(), c = r8(), d = r8();
    if (rep == 0) a.fill(F::zero()), b.fill(-F::one());
    if (rep == 1) {  // a - b + p = 2p - 1 in every component
      F m = -F::one();
      if constexpr (requires { m.c1; }) m.c1 = m.c0;
      a.fill(m), b.fill(F::zero());
    }
    const auto va = Ops::from_scalars(a.data()), vb = Ops::from_scalars(b.data()),
               vc = Ops::from_scalars(c.data()), vd = Ops::from_scalars(d.data());
    ASSERT_EQ(out(va), a);
    const auto two = Ops::template sub<1>(va, vb);          // below 2p
    const auto three = Ops::template sub<2>(vc, vd);        // below 3p
    const auto four = Ops::template sub2<2>(two, vc, vd);   // below 4p
    const auto prod = out(Ops::mul(two, three));
    const auto sq = out(Ops::mul(two, two));
    const auto sq2 = out(Ops::square(two));
    const auto sq_sq = out(Ops::square(Ops::square(two)));  // square's own output as its input
    const auto t = out(Ops::tighten(four));
    for (size_t l = 0; l < 8; ++l) {
      ASSERT_EQ(prod[l], (a[l] - b[l]) * (c[l] - d[l])) << "rep " << rep << " lane " << l;
      ASSERT_EQ(sq[l], (a[l] - b[l]) * (a[l] - b[l]));
      ASSERT_EQ(sq2[l], (a[l] - b[l]).square()) << "rep " << rep << " lane " << l;
      ASSERT_EQ(sq_sq[l], (a[l] - b[l]).square().square());
      ASSERT_EQ(t[l], a[l] - b[l] - c[l] - d[l]);
    }
  }
}

TYPED_TEST(LaneOpsTest, GatherReadsCoordinatesOfPoints) {
  using F = TypeParam;
  using Ops = ff::LaneOps<F>;
  struct Point {  // x, y and something after them (the gather takes any stride)
    F x, y;
    uint64_t tag;
  };
  std::vector<Point> pts(40);
  for (auto& p : pts) p = {rand_elem<F>(), rand_elem<F>(), 7};
  const int64_t pick[8] = {39, 0, 7, 7, 12, 30, 1, 2};
  const char* rows[8];
  for (size_t l = 0; l < 8; ++l) rows[l] = reinterpret_cast<const char*>(&pts[size_t(pick[l])]);
  F x[8], y[8];
  Ops::to_scalars(Ops::load(rows, offsetof(Point, x)), x);
  Ops::to_scalars(Ops::load(rows, offsetof(Point, y)), y);
  for (size_t l = 0; l < 8; ++l) {
    EXPECT_EQ(x[l], pts[size_t(pick[l])].x);
    EXPECT_EQ(y[l], pts[size_t(pick[l])].y);
  }
}

// The bucket reduction in lanes (msm::detail::reduce_affine_lanes) against the scalar running
// sum, over G1 and G2 of both curves: every bucket full, a third of them empty in a pattern (the
// running sum then doubles: sum = running after an empty bucket), and buckets that force an
// exceptional addition into the running sum (equal points; a point and its negation), where the
// lanes must give up (nullopt) rather than return a wrong sum.
template <class C>
class LaneReduce : public ::testing::Test {};
using LaneCurves = ::testing::Types<bls::G1, bls::G2, bn::G1, bn::G2>;
TYPED_TEST_SUITE(LaneReduce, LaneCurves);

TYPED_TEST(LaneReduce, MatchesTheScalarRunningSum) {
  using C = TypeParam;
  using Affine = typename C::Affine;
  using Xyzz = typename C::Xyzz;
  const auto scalar = [](const std::vector<Affine>& acc) {
    return msm::detail::reduce_buckets<C>(
        acc.size(), [&](size_t b) { return acc[b].is_identity(); },
        [&](Xyzz& r, size_t b) { r += acc[b]; });
  };
  const auto same = [](const Xyzz& a, const Xyzz& b) {
    return a.to_jacobian() == b.to_jacobian();
  };
  for (size_t k : {8, 64, 256}) {
    auto acc = splitprove::testing::independent_bases<C>(splitprove::testing::rng(), k);
    auto got = msm::detail::reduce_affine_lanes<C>(acc);
    ASSERT_TRUE(got.has_value()) << "k " << k;
    EXPECT_TRUE(same(*got, scalar(acc))) << "k " << k;
    for (size_t b = 0; b < k; ++b)
      if (b % 3 == 1 || b >= k - k / 8) acc[b] = Affine::identity();  // a whole lane range empty
    got = msm::detail::reduce_affine_lanes<C>(acc);
    ASSERT_TRUE(got.has_value()) << "k " << k;
    EXPECT_TRUE(same(*got, scalar(acc))) << "k " << k << ", with empty buckets";
  }
  const auto g = Affine::generator();
  std::vector<Affine> equal(64, g);  // running = G, then G + G: a doubling
  EXPECT_FALSE(msm::detail::reduce_affine_lanes<C>(equal).has_value());
  std::vector<Affine> opposite(64, Affine::identity());
  opposite[7] = g, opposite[6] = -g;  // lane 0: running = G, then G + (-G)
  EXPECT_FALSE(msm::detail::reduce_affine_lanes<C>(opposite).has_value());
}

// The XYZZ formulas in lanes against Curve::Xyzz, on points with general ZZ, ZZZ (sums of two
// affine points), with identity lanes mixed in: doubling, a += q, a += affine q.
TYPED_TEST(LaneReduce, XyzzFormulasMatchTheScalarOnes) {
  using C = TypeParam;
  using F = typename C::F;
  using Xyzz = typename C::Xyzz;
  using Ops = ff::LaneOps<F>;
  using L = msm::detail::XyzzLanes<F>;
  auto pts = splitprove::testing::independent_bases<C>(splitprove::testing::rng(), 32);
  const auto general = [&](size_t i) {  // ZZ, ZZZ not 1
    Xyzz x = Xyzz::from_affine(pts[i]);
    x += pts[i + 8];
    return x;
  };
  const auto to_lanes = [](const std::array<Xyzz, 8>& v, __mmask8 id) {
    F x[8], y[8], zz[8], zzz[8];
    for (size_t l = 0; l < 8; ++l) x[l] = v[l].X, y[l] = v[l].Y, zz[l] = v[l].ZZ, zzz[l] = v[l].ZZZ;
    L r;
    r.X = Ops::from_scalars(x), r.Y = Ops::from_scalars(y);
    r.ZZ = Ops::from_scalars(zz), r.ZZZ = Ops::from_scalars(zzz);
    r.id = id;
    return r;
  };
  const auto lane = [](const L& v, size_t l) {
    if ((v.id >> l) & 1) return Xyzz::identity();
    F x[8], y[8], zz[8], zzz[8];
    Ops::to_scalars(v.X, x), Ops::to_scalars(v.Y, y);
    Ops::to_scalars(v.ZZ, zz), Ops::to_scalars(v.ZZZ, zzz);
    return Xyzz{x[l], y[l], zz[l], zzz[l]};
  };
  const auto same = [](const Xyzz& a, const Xyzz& b) { return a.to_jacobian() == b.to_jacobian(); };
  std::array<Xyzz, 8> a, b;
  for (size_t l = 0; l < 8; ++l) a[l] = general(l), b[l] = general(l + 16);
  const __mmask8 a_id = 0x21, b_id = 0x42;  // lane 0, 5: a identity; 1, 6: b identity
  for (size_t l = 0; l < 8; ++l) {
    if ((a_id >> l) & 1) a[l] = Xyzz::identity();
    if ((b_id >> l) & 1) b[l] = Xyzz::identity();
  }
  b[3] = a[3];  // a doubling inside add_lanes
  const L d = msm::detail::dbl_lanes(to_lanes(a, a_id));
  L s = to_lanes(a, a_id);
  ASSERT_TRUE(msm::detail::add_lanes(s, to_lanes(b, b_id)));
  L m = to_lanes(a, a_id);
  F qx[8], qy[8];
  for (size_t l = 0; l < 8; ++l) qx[l] = pts[24 + l].x, qy[l] = pts[24 + l].y;
  const __mmask8 q_inf = 0x84;  // lanes 2 and 7 add the point at infinity
  ASSERT_TRUE(msm::detail::madd_lanes(m, Ops::from_scalars(qx), Ops::from_scalars(qy), q_inf));
  for (size_t l = 0; l < 8; ++l) {
    if (!((a_id >> l) & 1)) EXPECT_TRUE(same(lane(d, l), a[l].dbl())) << "dbl, lane " << l;
    Xyzz sum = a[l];
    sum += b[l];
    EXPECT_TRUE(same(lane(s, l), sum)) << "add, lane " << l;
    Xyzz madd = a[l];
    if (!((q_inf >> l) & 1)) madd += pts[24 + l];
    EXPECT_TRUE(same(lane(m, l), madd)) << "madd, lane " << l;
  }
}

#else
TYPED_TEST(Lanes, LoadStoreRoundTrips) {
  GTEST_SKIP() << "this build has no AVX-512 IFMA kernel (needs -march=native on an AVX-512 IFMA "
                  "machine); the scalar field serves everywhere";
}
#endif
