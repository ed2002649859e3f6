// GPU MSM (cuda/msm.hpp) for G1 and G2 of both curves (BLS12-381 and BN254, one typed suite over
// the four groups) against the CPU msm::msm and closed forms: random, 0/1-heavy, small and mixed
// scalars, points at infinity, sizes that are not powers of two, every window size 1..20, split
// against unsplit, the bucket kernel's variants, the 0/1/tail counts; for both G1 groups,
// canonical against Montgomery scalars and scalars >= r rejected by index. Also the device pool's
// budget books and staged uploads. Skipped, with the reason, where no GPU exists.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "cuda/msm.hpp"
#include "ec/bn254.hpp"
#include "generator_multiples_check.hpp"
#include "gpu.hpp"
#include "msm/msm.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cuda {
namespace {

using namespace testing;

// k·G for k = 1..n with every 7th point replaced by infinity.
template <class C>
std::vector<typename C::Affine> test_bases(size_t n) {
  std::vector<typename C::Jacobian> j(n);
  auto acc = C::Jacobian::identity();
  const auto g = C::Affine::generator();
  for (size_t i = 0; i < n; ++i) j[i] = acc += g;
  std::vector<typename C::Affine> a(n);
  C::batch_to_affine(j, a);
  for (size_t i = 3; i < n; i += 7) a[i] = C::Affine::identity();
  return a;
}

enum class Mix { random, zero_one_heavy, small, mixed };

// n scalars of the field HFr (a curve's C::Fr).
template <class HFr>
std::vector<HFr> test_scalars(size_t n, Mix mix, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<HFr> s(n);
  for (auto& x : s) {
    const unsigned r = unsigned(rng() % 100);
    switch (mix) {
      case Mix::random:
        x = HFr::random(rng);
        break;
      case Mix::zero_one_heavy:  // 75% 0/1, as in Groth16 witnesses
        x = r < 40 ? HFr::zero() : r < 75 ? HFr::one() : HFr::random(rng);
        break;
      case Mix::small:
        x = HFr::from_u64(rng() % 5);
        break;
      case Mix::mixed:
        x = r < 20   ? HFr::zero()
            : r < 40 ? HFr::one()
            : r < 50 ? -HFr::one()
            : r < 70 ? HFr::from_u64(rng() & 0xffff)
            : r < 80 ? HFr::from_u64(rng())
                     : HFr::random(rng);
        break;
    }
  }
  return s;
}

template <class C>
void expect_matches_cpu(size_t n, Mix mix, const MsmOptions& opt, uint64_t seed,
                        const std::string& what) {
  const auto bases = test_bases<C>(n);
  const auto sc = test_scalars<typename C::Fr>(n, mix, seed);
  MsmStats st;
  const auto got = msm_host<C>(test_pool(), bases, sc, opt, &st);
  const auto want = msm::msm<C>(bases, sc);
  EXPECT_TRUE(got == want) << what << ": n=" << n << " mix " << int(mix) << " c=" << st.window_bits;
  size_t zeros = 0, ones = 0;
  for (const auto& x : sc) zeros += x.is_zero(), ones += x.is_one();
  EXPECT_EQ(st.n, n);
  EXPECT_EQ(st.zeros, zeros) << what;
  EXPECT_EQ(st.ones, opt.split ? ones : 0) << what;
  EXPECT_EQ(st.tail, n - zeros - (opt.split ? ones : 0)) << what;
}

// TypeParam: the curve group (its points C::Affine, its scalars C::Fr).
template <class C>
class GpuMsm : public ::testing::Test {};
using Groups = ::testing::Types<bls12_381::G1, bls12_381::G2, bn254::G1, bn254::G2>;
TYPED_TEST_SUITE(GpuMsm, Groups);

TYPED_TEST(GpuMsm, MatchesCpuOnEveryMix) {
  SPLITPROVE_REQUIRE_GPU();
  for (size_t n : {size_t(1), size_t(2), size_t(31), size_t(33), size_t(1000), size_t(4097)})
    for (Mix mix : {Mix::random, Mix::zero_one_heavy, Mix::small, Mix::mixed})
      expect_matches_cpu<TypeParam>(n, mix, {}, n * 10 + int(mix), "auto window");
}

TYPED_TEST(GpuMsm, EveryWindowSize) {
  SPLITPROVE_REQUIRE_GPU();
  for (unsigned c = 1; c <= kMaxWindowBits; ++c) {
    MsmOptions o;
    o.window_bits = c;
    expect_matches_cpu<TypeParam>(300, Mix::mixed, o, 1000 + c, "c=" + std::to_string(c));
  }
}

TYPED_TEST(GpuMsm, SplitEqualsUnsplit) {
  SPLITPROVE_REQUIRE_GPU();
  MsmOptions o;
  o.split = false;
  expect_matches_cpu<TypeParam>(5000, Mix::zero_one_heavy, o, 77, "unsplit");
  expect_matches_cpu<TypeParam>(5000, Mix::zero_one_heavy, {}, 77, "split");
}

// 14-bit windows leave the top window 3 bits of BLS12-381's 255 (18·14 + 3), 2 of BN254's 254: a
// few buckets hold thousands of points each, which are cut into chunks (the big-run path), as are
// the -1s of a skewed mix.
TYPED_TEST(GpuMsm, SkewedBucketsTakeTheBigRunPath) {
  SPLITPROVE_REQUIRE_GPU();
  using C = TypeParam;
  using HFr = typename C::Fr;
  const size_t n = 20000;
  const auto bases = test_bases<C>(n);
  auto sc = test_scalars<HFr>(n, Mix::random, 31);
  for (size_t i = 0; i < n; i += 3) sc[i] = -HFr::one();
  MsmOptions o;
  o.window_bits = 14;
  MsmStats st;
  const auto got = msm_host<C>(test_pool(), bases, sc, o, &st);
  EXPECT_GT(st.big_runs, 0u);
  EXPECT_TRUE(got == msm::msm<C>(bases, sc));
}

// The big runs' chunks summed in the bucket kernel's queue (merged) or by the chunk kernel after
// it, in both orders of runs and with either bucket table: the same sums, big runs present.
TYPED_TEST(GpuMsm, MergedAndSeparateChunksAgree) {
  SPLITPROVE_REQUIRE_GPU();
  using C = TypeParam;
  using HFr = typename C::Fr;
  const size_t n = 9000;
  const auto bases = test_bases<C>(n);
  auto sc = test_scalars<HFr>(n, Mix::random, 41);
  for (size_t i = 0; i < n; i += 4) sc[i] = -HFr::one();
  for (size_t i = 1; i < n; i += 7) sc[i] = HFr::from_u64(12345);
  const auto want = msm::msm<C>(bases, sc);
  for (bool merge : {true, false})
    for (bool balance : {true, false})
      for (bool dense : {true, false}) {
        MsmOptions o;
        o.window_bits = 14;
        o.merge_chunks = merge;
        o.balance = balance;
        o.dense_runs = dense;
        MsmStats st;
        const auto got = msm_host<C>(test_pool(), bases, sc, o, &st);
        const std::string what = std::string(merge ? "merged" : "separate") +
                                 (balance ? " balanced" : " key order") +
                                 (dense ? " dense" : " rle");
        EXPECT_GT(st.big_runs, 0u) << what;
        EXPECT_TRUE(got == want) << what;
      }
}

// The bucket kernel's two orders of runs (longest first, key order) give the same sums; the
// sizes and windows give runs of many lengths (and, at c = 14, big runs beside them).
TYPED_TEST(GpuMsm, BalancedAndKeyOrderAgree) {
  SPLITPROVE_REQUIRE_GPU();
  for (unsigned c : {0u, 6u, 14u})
    for (bool balance : {true, false}) {
      MsmOptions o;
      o.window_bits = c;
      o.balance = balance;
      const std::string what = std::string(balance ? "balanced" : "key order") + " c=" +
                               std::to_string(c);
      expect_matches_cpu<TypeParam>(6000 + c, Mix::mixed, o, 300 + c, what);
      expect_matches_cpu<TypeParam>(4000 + c, Mix::random, o, 400 + c, what);
    }
}

// The bucket table from cub's run-length encoding (non-empty buckets only) or dense (every bucket,
// bounds found on the sorted keys), and the window phase's segments (a power of two long, or one
// wave of the GPU: any length) give the same sums. c = 1: windows of one bucket.
TYPED_TEST(GpuMsm, RunTablesAndWindowSegmentsAgree) {
  SPLITPROVE_REQUIRE_GPU();
  for (unsigned c : {0u, 1u, 9u, 14u})
    for (bool dense : {true, false})
      for (bool fit : {true, false}) {
        MsmOptions o;
        o.window_bits = c;
        o.dense_runs = dense;
        o.fit_window_segments = fit;
        const std::string what = std::string(dense ? "dense" : "rle") + (fit ? " fit" : " pow2") +
                                 " c=" + std::to_string(c);
        const size_t n = c == 1 ? 700 : 5000 + c;
        expect_matches_cpu<TypeParam>(n, Mix::mixed, o, 800 + c, what);
        expect_matches_cpu<TypeParam>(n, Mix::random, o, 900 + c, what);
        MsmStats st;
        const auto bases = test_bases<TypeParam>(64);
        const auto sc = test_scalars<typename TypeParam::Fr>(64, Mix::random, 5);
        msm_host<TypeParam>(test_pool(), bases, sc, o, &st);
        const uint32_t per_window = 1u << (st.window_bits - 1);
        EXPECT_GE(st.window_segments, 1u) << what;
        EXPECT_LE(st.window_segments, per_window) << what;
        if (!fit) {
          EXPECT_EQ(per_window % st.window_segments, 0u) << what;
        }
      }
  // The bucket kernel bounded to more warps per SM (G2) or not, its Fp2 products called whole
  // (G2) or per base product, each taking its runs longest first or in key order: the same sums.
  for (bool balance : {true, false})
    for (bool bounded : {true, false})
      for (bool fp2_call : {true, false}) {
        MsmOptions o;
        o.balance = balance;
        o.bounded_buckets = bounded;
        o.fp2_call = fp2_call;
        const std::string what = std::string(bounded ? "bounded" : "unbounded") +
                                 (fp2_call ? " fp2 call" : " fp call") +
                                 (balance ? " balanced" : " key order");
        const unsigned v = 4 * !balance + 2 * bounded + fp2_call;
        expect_matches_cpu<TypeParam>(6100, Mix::mixed, o, 950 + v, what);
        o.window_bits = 14;
        expect_matches_cpu<TypeParam>(6100, Mix::random, o, 960 + v, what + " c=14");
      }
}

TYPED_TEST(GpuMsm, LargerRandom) {
  SPLITPROVE_REQUIRE_GPU();
  expect_matches_cpu<TypeParam>((size_t(1) << 15) + 123, Mix::mixed, {}, 5, "2^15+123");
}

TYPED_TEST(GpuMsm, GeneratorMultiplesMatchHost) {
  SPLITPROVE_REQUIRE_GPU();
  for (size_t n : {size_t(1), size_t(300), size_t(5000)})
    expect_generator_multiples<TypeParam>(test_pool(), n, 60 + n);
}

// All-zero scalars give infinity, all-one scalars the plain sum of the bases (points at infinity
// among them), no terms at all infinity.
TYPED_TEST(GpuMsm, AllZeroAllOneAndEmpty) {
  SPLITPROVE_REQUIRE_GPU();
  using C = TypeParam;
  using HFr = typename C::Fr;
  const auto bases = test_bases<C>(100);
  std::vector<HFr> zeros(100, HFr::zero()), ones(100, HFr::one());
  EXPECT_TRUE(msm_host<C>(test_pool(), bases, zeros).is_identity());
  auto sum = C::Jacobian::identity();
  for (const auto& p : bases) sum += p;
  EXPECT_TRUE(msm_host<C>(test_pool(), bases, ones) == sum);
  EXPECT_TRUE(
      msm_host<C>(test_pool(), std::span<const typename C::Affine>{}, std::span<const HFr>{})
          .is_identity());
}

// Σ (i·G)·m over i = 1..n is m·n(n+1)/2·G: every scalar equal, so every digit lands in one bucket
// per window (the longest runs the bucket kernel can meet).
TYPED_TEST(GpuMsm, EqualScalarsClosedForm) {
  SPLITPROVE_REQUIRE_GPU();
  using C = TypeParam;
  using HFr = typename C::Fr;
  const size_t n = 3000;
  std::vector<typename C::Jacobian> j(n);
  auto acc = C::Jacobian::identity();
  for (size_t i = 0; i < n; ++i) j[i] = acc += C::Affine::generator();
  std::vector<typename C::Affine> bases(n);
  C::batch_to_affine(j, bases);
  std::mt19937_64 rng(9);
  const HFr m = HFr::random(rng);
  std::vector<HFr> sc(n, m);
  const auto got = msm_host<C>(test_pool(), bases, sc);
  const auto want = C::mul_ct(C::Affine::generator(), m * HFr::from_u64(n * (n + 1) / 2));
  EXPECT_TRUE(got == want);
}

// TypeParam: a G1 group (scalars uploaded by the caller, canonical form).
template <class C>
class GpuMsmG1 : public ::testing::Test {};
using G1Groups = ::testing::Types<bls12_381::G1, bn254::G1>;
TYPED_TEST_SUITE(GpuMsmG1, G1Groups);

TYPED_TEST(GpuMsmG1, CanonicalScalarsAndRejectsUnreduced) {
  SPLITPROVE_REQUIRE_GPU();
  using C = TypeParam;
  using HFr = typename C::Fr;
  using Repr = typename HFr::Repr;
  const size_t n = 777;
  const auto bases = test_bases<C>(n);
  const auto sc = test_scalars<HFr>(n, Mix::mixed, 3);
  std::vector<Repr> canon(n);
  for (size_t i = 0; i < n; ++i) canon[i] = sc[i].to_canonical();
  DeviceBases<C> db(test_pool(), bases);
  DeviceBlock d = test_pool().allocate(n * sizeof(Repr));
  copy_to_device(d.get(), canon.data(), n * sizeof(Repr));
  EXPECT_TRUE(msm<C>(test_pool(), db, d.get(), n, ScalarForm::canonical) == msm::msm<C>(bases, sc));
  canon[500] = HFr::MOD;  // r itself: not reduced
  copy_to_device(d.get(), canon.data(), n * sizeof(Repr));
  try {
    msm<C>(test_pool(), db, d.get(), n, ScalarForm::canonical);
    ADD_FAILURE() << "no error for a scalar equal to r";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("scalar[500]"), std::string::npos) << e.what();
  }
  EXPECT_THROW(msm<C>(test_pool(), db, d.get(), n + 1, ScalarForm::canonical), Error);
  MsmOptions bad;
  bad.window_bits = kMaxWindowBits + 1;
  EXPECT_THROW(msm<C>(test_pool(), db, d.get(), 10, ScalarForm::canonical, bad), Error);
}

// A high-priority stream is more urgent than a normal one (GpuStream::Priority).
TEST(GpuPool, HighPriorityStreamsComeFirst) {
  SPLITPROVE_REQUIRE_GPU();
  const GpuStream normal, high(GpuStream::Priority::high);
  EXPECT_EQ(normal.priority(), 0);
  EXPECT_LT(high.priority(), normal.priority()) << "the device offers no stream priorities";
}

TEST(GpuPool, BooksDeviceBytesAndReusesBlocks) {
  SPLITPROVE_REQUIRE_GPU();
  mem::MemoryBudget budget(uint64_t(64) << 20, "gpu-test");
  {
    DevicePool pool(budget);
    {
      DeviceBlock a = pool.allocate(3 << 20);  // 4 MiB class
      EXPECT_EQ(a.bytes(), size_t(4) << 20);
      EXPECT_EQ(budget.books()[mem::Tag::gpu].bytes, uint64_t(4) << 20);
      EXPECT_THROW(pool.allocate(size_t(65) << 20), mem::BudgetError);
    }
    EXPECT_EQ(pool.cached_bytes(), size_t(4) << 20);
    EXPECT_EQ(budget.books()[mem::Tag::scratch].bytes, uint64_t(4) << 20);
    { DeviceBlock b = pool.allocate(4 << 20); }
    EXPECT_EQ(pool.mallocs(), 1u);  // the cached block was reused
    // 62 MiB only fits once the cached 4 MiB block is trimmed.
    DeviceBlock c = pool.allocate(size_t(62) << 20);
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(budget.books().used, uint64_t(62) << 20);
  }
  EXPECT_EQ(budget.books().used, 0u);
}

// Data-sized scratch differs a little from call to call: a cached block up to a quarter larger
// serves the request; a short budget frees cached blocks largest first, only as many as needed.
TEST(GpuPool, ReusesANearFitAndTrimsOnlyWhatItNeeds) {
  SPLITPROVE_REQUIRE_GPU();
  mem::MemoryBudget budget(uint64_t(64) << 20, "gpu-test");
  {
    DevicePool pool(budget, 0, CachePolicy::near_fit);
    { DeviceBlock a = pool.allocate(size_t(10) << 20); }
    {
      DeviceBlock b = pool.allocate(size_t(8) << 20);  // 10 MiB is a quarter above 8: reused
      EXPECT_EQ(b.bytes(), size_t(10) << 20);
      EXPECT_EQ(pool.mallocs(), 1u);
      EXPECT_EQ(budget.books()[mem::Tag::gpu].bytes, uint64_t(10) << 20);
      EXPECT_EQ(pool.cached_bytes(), 0u);
    }
    {
      DeviceBlock c = pool.allocate(size_t(6) << 20);  // 10 MiB is too large for 6: a new block
      EXPECT_EQ(c.bytes(), size_t(6) << 20);
      EXPECT_EQ(pool.mallocs(), 2u);
    }
    { DeviceBlock d = pool.allocate(size_t(4) << 20); }  // 6 MiB is too large for 4
    EXPECT_EQ(pool.mallocs(), 3u);
    EXPECT_EQ(pool.cached_bytes(), size_t(20) << 20);
    // 50 MiB needs 6 of the 20 cached: the 10 MiB block goes, the 6 and 4 MiB ones stay.
    DeviceBlock e = pool.allocate(size_t(50) << 20);
    EXPECT_EQ(pool.cached_bytes(), size_t(10) << 20);
    EXPECT_EQ(budget.books().used, uint64_t(60) << 20);
  }
  EXPECT_EQ(budget.books().used, 0u);
}

// The exact policy: a cached block serves only its own class, and a short budget frees the whole
// cache.
TEST(GpuPool, ExactPolicyReusesOneClassAndTrimsEverything) {
  SPLITPROVE_REQUIRE_GPU();
  mem::MemoryBudget budget(uint64_t(64) << 20, "gpu-test");
  {
    DevicePool pool(budget, 0, CachePolicy::exact);
    { DeviceBlock a = pool.allocate(size_t(10) << 20); }
    { DeviceBlock b = pool.allocate(size_t(8) << 20); }  // 10 MiB is not its class: a new block
    EXPECT_EQ(pool.mallocs(), 2u);
    EXPECT_EQ(pool.cached_bytes(), size_t(18) << 20);
    { DeviceBlock c = pool.allocate(size_t(8) << 20); }  // its class is cached now
    EXPECT_EQ(pool.mallocs(), 2u);
    DeviceBlock d = pool.allocate(size_t(50) << 20);  // 18 + 50 > 64: the whole cache goes
    EXPECT_EQ(pool.cached_bytes(), 0u);
    EXPECT_EQ(budget.books().used, uint64_t(50) << 20);
  }
  EXPECT_EQ(budget.books().used, 0u);
}

// Staged uploads: many halves of the pinned staging (both halves reused several times, the last
// one partial) arrive whole and in order; a fill that throws fails the upload with its error.
TEST(GpuPool, StagedUploadArrivesWholeAndInOrder) {
  SPLITPROVE_REQUIRE_GPU();
  constexpr size_t kItem = 24;
  const size_t per_half = kUploadStagingBytes / 2 / kItem;
  const size_t n = 5 * per_half + 17;
  mem::MemoryBudget budget(uint64_t(256) << 20, "gpu-test");
  DevicePool pool(budget);
  DeviceBlock d = pool.allocate(n * kItem);
  auto word = [](size_t i, size_t w) { return uint64_t(i) * 0x9e3779b97f4a7c15ull + w; };
  upload_staged(d.get(), n, kItem, [&](size_t begin, size_t end, void* out) {
    auto* o = static_cast<uint64_t*>(out);
    for (size_t i = begin; i < end; ++i)
      for (size_t w = 0; w < kItem / 8; ++w) *o++ = word(i, w);
  });
  std::vector<uint64_t> back(n * kItem / 8);
  copy_to_host(back.data(), d.get(), n * kItem);
  size_t wrong = 0;
  for (size_t i = 0; i < n; ++i)
    for (size_t w = 0; w < kItem / 8; ++w) wrong += back[i * kItem / 8 + w] != word(i, w);
  EXPECT_EQ(wrong, 0u);
  EXPECT_THROW(upload_staged(d.get(), n, kItem,
                             [&](size_t begin, size_t, void*) {
                               if (begin >= 2 * per_half) throw Error("fill failed");
                             }),
               Error);
  EXPECT_THROW(upload_staged(d.get(), 1, kUploadStagingBytes, [](size_t, size_t, void*) {}), Error);
}

}  // namespace
}  // namespace splitprove::cuda
