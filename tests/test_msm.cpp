// Multi-scalar multiplication, typed over BLS12-381 G1 and G2. Every check compares against a value
// computed another way: the closed form sum_i (i·m)·(i·G) = m·n(n+1)(2n+1)/6·G, the double-and-add
// reference msm_naive, or one scalar multiplication.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <string>
#include <vector>

#include "ec/bls12_381.hpp"
#include "ec/bn254.hpp"
#include "msm/msm.hpp"
#include "msm/msm_impl.hpp"
#include "msm_test_bases.hpp"
#include "util/parallel.hpp"
#include "splitprove/error.hpp"

// Every operator new of this test binary goes through here, so a test can see the peak of the heap
// bytes live during one call (a size header in front of each block; malloc below).
namespace heap {
std::atomic<size_t> live{0}, peak{0};
void* take(size_t n) {
  void* p = std::malloc(n + 16);
  if (!p) throw std::bad_alloc();
  *static_cast<size_t*>(p) = n;
  const size_t now = live += n;
  size_t was = peak.load();
  while (now > was && !peak.compare_exchange_weak(was, now)) {
  }
  return static_cast<char*>(p) + 16;
}
void give(void* p) noexcept {
  if (!p) return;
  char* b = static_cast<char*>(p) - 16;
  live -= *reinterpret_cast<size_t*>(b);
  std::free(b);
}
}  // namespace heap

void* operator new(size_t n) { return heap::take(n); }
void* operator new[](size_t n) { return heap::take(n); }
void operator delete(void* p) noexcept { heap::give(p); }
void operator delete[](void* p) noexcept { heap::give(p); }
void operator delete(void* p, size_t) noexcept { heap::give(p); }
void operator delete[](void* p, size_t) noexcept { heap::give(p); }

namespace splitprove::msm {
namespace {

using bls12_381::Fr;
using FrLimbs = ff::Limbs<Fr::N>;

template <class C>
struct Msm : ::testing::Test {
  using Affine = typename C::Affine;
  using Jacobian = typename C::Jacobian;
  std::mt19937_64 rng{0x6d736d};

  // i·G for i = 1..n, by repeated addition.
  std::vector<Affine> multiples_of_g(size_t n) {
    std::vector<Jacobian> j(n);
    Jacobian acc = Jacobian::identity();
    for (size_t i = 0; i < n; ++i) j[i] = acc += Affine::generator();
    std::vector<Affine> a(n);
    C::batch_to_affine(j, a);
    return a;
  }

  std::vector<Affine> progression_bases(size_t n) {
    return testing::progression_bases<C>(rng, n);
  }

  std::vector<Affine> independent_bases(size_t n) {
    return testing::independent_bases<C>(rng, n);
  }

  std::vector<Fr> random_scalars(size_t n) {
    std::vector<Fr> k(n);
    for (auto& x : k) x = Fr::random(rng);
    return k;
  }

  // The arkworks-style mix: 0, 1, -1, 8/16/32/64-bit and full-width scalars, shuffled.
  std::vector<Fr> mixed_scalars(size_t n) {
    std::vector<Fr> k(n);
    for (size_t i = 0; i < n; ++i) {
      switch (i % 8) {
        case 0:
          k[i] = Fr::zero();
          break;
        case 1:
          k[i] = Fr::one();
          break;
        case 2:
          k[i] = -Fr::one();
          break;
        case 3:
          k[i] = Fr::from_u64(rng() & 0xff);
          break;
        case 4:
          k[i] = Fr::from_u64(rng() & 0xffff);
          break;
        case 5:
          k[i] = Fr::from_u64(rng() & 0xffffffff);
          break;
        case 6:
          k[i] = Fr::from_u64(rng());
          break;
        default:
          k[i] = Fr::random(rng);
          break;
      }
    }
    std::shuffle(k.begin(), k.end(), rng);
    return k;
  }

  static std::vector<FrLimbs> canonical(const std::vector<Fr>& k) {
    std::vector<FrLimbs> c(k.size());
    for (size_t i = 0; i < k.size(); ++i) c[i] = k[i].to_canonical();
    return c;
  }
};

using Curves = ::testing::Types<bls12_381::G1, bls12_381::G2>;
TYPED_TEST_SUITE(Msm, Curves);

constexpr Buckets kModes[] = {Buckets::kAuto, Buckets::kXyzz, Buckets::kBatchAffine};

// sum_{i=1..n} (i·m)·(i·G) = m · n(n+1)(2n+1)/6 · G.
TYPED_TEST(Msm, ClosedFormSumOfSquares) {
  using C = TypeParam;
  for (size_t n : {1, 2, 3, 7, 64, 100, 257}) {
    const auto bases = this->multiples_of_g(n);
    const Fr m = Fr::random(this->rng);
    std::vector<Fr> k(n);
    for (size_t i = 0; i < n; ++i) k[i] = Fr::from_u64(i + 1) * m;
    const uint64_t s = uint64_t(n) * (n + 1) * (2 * n + 1) / 6;
    const auto want = C::Jacobian::generator().mul(m * Fr::from_u64(s));
    ASSERT_FALSE(want.is_identity());
    for (Buckets mode : kModes) {
      Options opt;
      opt.buckets = mode;
      EXPECT_EQ(msm<C>(bases, k, opt), want) << "n = " << n << ", mode " << int(mode);
    }
    EXPECT_EQ(msm_canonical<C>(bases, this->canonical(k)), want) << "n = " << n;
  }
}

// A larger closed form that runs real batches (thousands of additions per task, several flushes
// per bucket) and more than one slice per window.
TYPED_TEST(Msm, ClosedFormLargerBatchAffine) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, bls12_381::G1> ? 2000 : 700;
  const auto bases = this->multiples_of_g(n);
  const Fr m = Fr::random(this->rng);
  std::vector<Fr> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = Fr::from_u64(i + 1) * m;
  const auto want =
      C::Jacobian::generator().mul(m * Fr::from_u64(uint64_t(n) * (n + 1) * (2 * n + 1) / 6));
  // (window bits, slices per window, points per chunk): one chunk, several chunks per task (the
  // bucket values carried from chunk to chunk), several slices per window.
  for (auto [c, slices, chunk] :
       {std::tuple{10u, 1u, 0u}, {12u, 3u, 0u}, {7u, 2u, 100u}, {9u, 1u, 77u}}) {
    Options opt;
    opt.buckets = Buckets::kBatchAffine;
    opt.window_bits = c;
    opt.slices = slices;
    opt.chunk = chunk;
    EXPECT_EQ(msm<C>(bases, k, opt), want)
        << "c = " << c << ", slices " << slices << ", chunk " << chunk;
  }
}

TYPED_TEST(Msm, RandomMatchesNaive) {
  using C = TypeParam;
  for (size_t n : {1, 2, 3, 5, 31, 64}) {
    for (bool independent : {true, false}) {
      const auto bases = independent ? this->independent_bases(n) : this->progression_bases(n);
      const auto k = this->random_scalars(n);
      const auto want = msm_naive<C>(bases, k);
      for (Buckets mode : kModes) {
        Options opt;
        opt.buckets = mode;
        EXPECT_EQ(msm<C>(bases, k, opt), want)
            << "n = " << n << ", mode " << int(mode) << (independent ? "" : ", progression");
      }
    }
  }
}

TYPED_TEST(Msm, NaiveMatchesScalarMultiplication) {
  using C = TypeParam;
  const auto bases = this->independent_bases(3);
  const auto k = this->random_scalars(3);
  auto want = C::Jacobian::identity();
  for (size_t i = 0; i < 3; ++i) want += bases[i].to_jacobian().mul(k[i]);
  EXPECT_EQ(msm_naive<C>(bases, k), want);
}

TYPED_TEST(Msm, MixedScalarsAndInfinity) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, bls12_381::G1> ? 200 : 96;
  auto bases = this->progression_bases(n);
  const auto k = this->mixed_scalars(n);
  // Points at infinity under every kind of scalar (the mix is shuffled, so every 7th index meets a
  // random one of the kinds).
  for (size_t i = 3; i < n; i += 7) bases[i] = C::Affine::identity();
  const auto want = msm_naive<C>(bases, k);
  ASSERT_FALSE(want.is_identity());
  for (Buckets mode : kModes) {
    for (unsigned c : {0u, 3u, 8u}) {
      Options opt;
      opt.buckets = mode;
      opt.window_bits = c;
      EXPECT_EQ(msm<C>(bases, k, opt), want) << "mode " << int(mode) << ", c = " << c;
    }
  }
  EXPECT_EQ(msm_canonical<C>(bases, this->canonical(k)), want);
}

// Only 0s and 1s: the tail is empty and the result is the plain sum of the bases of the ones.
TYPED_TEST(Msm, ZerosAndOnes) {
  using C = TypeParam;
  const size_t n = 50;
  const auto bases = this->progression_bases(n);
  std::vector<Fr> k(n, Fr::zero());
  auto want = C::Jacobian::identity();
  for (size_t i = 0; i < n; i += 3) {
    k[i] = Fr::one();
    want += bases[i];
  }
  EXPECT_EQ(msm<C>(bases, k), want);
  std::fill(k.begin(), k.end(), Fr::zero());
  EXPECT_TRUE(msm<C>(bases, k).is_identity());
}

TYPED_TEST(Msm, EveryWindowSize) {
  using C = TypeParam;
  const size_t n = 12;
  const auto bases = this->progression_bases(n);
  auto k = this->random_scalars(n);
  k[0] = -Fr::one();
  k[1] = Fr::from_u64(2);
  const auto want = msm_naive<C>(bases, k);
  // G1 covers every size up to 16; G2 (3x slower) the sizes the cost model picks below 2^20 terms.
  const unsigned top = std::is_same_v<C, bls12_381::G1> ? 16 : 12;
  for (unsigned c = 1; c <= top; ++c) {
    for (Buckets mode : {Buckets::kXyzz, Buckets::kBatchAffine}) {
      Options opt;
      opt.buckets = mode;
      opt.window_bits = c;
      EXPECT_EQ(msm<C>(bases, k, opt), want) << "c = " << c << ", mode " << int(mode);
    }
  }
}

// Repeated bases with equal digits (doublings inside a bucket) and pairs P, -P with equal scalars
// (cancellation) drive the batch-affine buckets through their exceptional paths and the queue.
TYPED_TEST(Msm, RepeatedAndOpposedBases) {
  using C = TypeParam;
  const auto g = C::Affine::generator();
  const auto p = this->independent_bases(1)[0];
  for (Buckets mode : kModes) {
    Options opt;
    opt.buckets = mode;
    opt.window_bits = 9;  // 256 buckets
    opt.chunk = 64;       // batch-affine: bucket values carried over several chunks
    const size_t n = 300;
    // All alike: n·k·G.
    std::vector<typename C::Affine> same(n, g);
    const Fr k = Fr::random(this->rng);
    std::vector<Fr> ks(n, k);
    EXPECT_EQ(msm<C>(same, ks, opt), C::Jacobian::generator().mul(k * Fr::from_u64(n)))
        << "mode " << int(mode);
    // p, -p, p, -p, ... with one scalar: everything cancels except an odd leftover.
    std::vector<typename C::Affine> opposed(n + 1);
    for (size_t i = 0; i <= n; ++i) opposed[i] = i % 2 ? -p : p;
    std::vector<Fr> ko(n + 1, k);
    EXPECT_EQ(msm<C>(opposed, ko, opt), p.to_jacobian().mul(k)) << "mode " << int(mode);
    // Small scalars 2..9 over a handful of bases: few buckets, many collisions.
    std::vector<typename C::Affine> few(n);
    std::vector<Fr> kf(n);
    auto want = C::Jacobian::identity();
    for (size_t i = 0; i < n; ++i) {
      few[i] = i % 3 ? p : g;
      kf[i] = Fr::from_u64(2 + i % 8);
      want += few[i].to_jacobian().mul(kf[i]);
    }
    EXPECT_EQ(msm<C>(few, kf, opt), want) << "mode " << int(mode);
  }
}

// GLV: E(P) = lambda·P on the subgroup, and every split satisfies k = ±k1 ± k2·lambda (mod r)
// with both parts below 2^kBits, at the edges of the range too.
TYPED_TEST(Msm, GlvEndomorphismAndSplit) {
  using C = TypeParam;
  using Glv = typename C::Params::Glv;
  // lambda = x^2 for BLS12-381.
  const Fr x = Fr::from_u64(bls12_381::kX);
  const Fr lambda = x * x;
  for (const auto& p : this->independent_bases(4)) {
    auto e = p;
    Glv::endo(e.x, e.y);
    ASSERT_TRUE(e.on_curve());
    EXPECT_EQ(e.to_jacobian(), p.to_jacobian().mul(lambda));
    EXPECT_NE(e, p);
  }
  std::vector<Fr> ks = this->random_scalars(200);
  for (const Fr& k : {Fr::zero(), Fr::one(), -Fr::one(), lambda, lambda - Fr::one(),
                      lambda + Fr::one(), lambda * lambda, -lambda, lambda * lambda - Fr::one()})
    ks.push_back(k);
  auto bound = [](const FrLimbs& v) {
    return ff::num_bits(v) <= Glv::kBits;
  };
  auto from_limbs = [](const FrLimbs& v, bool neg) {
    const Fr f = Fr::from_canonical(v);
    return neg ? -f : f;
  };
  for (const Fr& k : ks) {
    const auto sp = Glv::split(k.to_canonical());
    EXPECT_TRUE(bound(sp.k1) && bound(sp.k2)) << k.to_hex();
    ASSERT_LT(ff::cmp_limbs(sp.k1, Fr::MOD), 0);
    ASSERT_LT(ff::cmp_limbs(sp.k2, Fr::MOD), 0);
    EXPECT_EQ(from_limbs(sp.k1, sp.neg1) + from_limbs(sp.k2, sp.neg2) * lambda, k) << k.to_hex();
  }
}

// The MSM with and without the GLV split agree with the reference on every window size, with
// points at infinity, repeated and opposed bases and 0/1-heavy scalars.
TYPED_TEST(Msm, GlvOnAndOffAgree) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, bls12_381::G1> ? 150 : 60;
  auto bases = this->progression_bases(n);
  for (size_t i = 5; i < n; i += 11) bases[i] = C::Affine::identity();
  bases[1] = bases[0];
  bases[2] = -bases[0];
  auto k = this->mixed_scalars(n);
  k[0] = k[1] = k[2] = Fr::random(this->rng);
  const auto want = msm_naive<C>(bases, k);
  ASSERT_FALSE(want.is_identity());
  // Every size up to 12 bits (G2: 9) both ways; EveryWindowSize covers the wider windows with the
  // default (GLV where it pays: always with a fixed window here), and 16 bits without GLV is
  // checked once below. Wide windows cost ~2^(c-1) bucket additions each, slow under ASan.
  const unsigned top = std::is_same_v<C, bls12_381::G1> ? 12 : 9;
  {
    Options opt;
    opt.glv = false;
    opt.window_bits = 16;
    EXPECT_EQ(msm<C>(bases, k, opt), want) << "no glv, c = 16";
  }
  for (bool glv : {true, false})
    for (unsigned c = 1; c <= top; ++c)
      for (Buckets mode : {Buckets::kXyzz, Buckets::kBatchAffine}) {
        Options opt;
        opt.glv = glv;
        opt.buckets = mode;
        opt.window_bits = c;
        opt.chunk = 32;  // several chunks per task
        EXPECT_EQ(msm<C>(bases, k, opt), want)
            << "glv " << glv << ", c = " << c << ", mode " << int(mode);
      }
}

TYPED_TEST(Msm, SmallSizes) {
  using C = TypeParam;
  const std::vector<typename C::Affine> none;
  const std::vector<Fr> no_scalars;
  EXPECT_TRUE(msm<C>(none, no_scalars).is_identity());
  EXPECT_TRUE(msm_naive<C>(none, no_scalars).is_identity());
  const auto b = this->independent_bases(2);
  const Fr k0 = Fr::random(this->rng), k1 = Fr::random(this->rng);
  EXPECT_EQ(msm<C>(std::span(b).first(1), std::vector<Fr>{k0}), b[0].to_jacobian().mul(k0));
  EXPECT_EQ(msm<C>(b, std::vector<Fr>{k0, k1}),
            b[0].to_jacobian().mul(k0) + b[1].to_jacobian().mul(k1));
  EXPECT_TRUE(msm<C>(std::span(b).first(1), std::vector<Fr>{Fr::zero()}).is_identity());
  EXPECT_EQ(msm<C>(std::span(b).first(1), std::vector<Fr>{Fr::one()}), b[0].to_jacobian());
  const std::vector<typename C::Affine> inf(1);
  EXPECT_TRUE(msm<C>(inf, std::vector<Fr>{k0}).is_identity());
}

TYPED_TEST(Msm, BatchEqualsSeparateCalls) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, bls12_381::G1> ? 300 : 100;
  auto bases = this->progression_bases(n);
  bases[5] = C::Affine::identity();
  const std::vector<std::vector<Fr>> vecs = {this->random_scalars(n), this->mixed_scalars(n),
                                             std::vector<Fr>(n, Fr::zero()),
                                             std::vector<Fr>(n, Fr::one())};
  std::vector<std::span<const Fr>> spans(vecs.begin(), vecs.end());
  std::vector<std::vector<FrLimbs>> canon;
  for (const auto& v : vecs) canon.push_back(this->canonical(v));
  std::vector<std::span<const FrLimbs>> cspans(canon.begin(), canon.end());
  for (Buckets mode : kModes) {
    Options opt;
    opt.buckets = mode;
    const auto got = msm_batch<C>(bases, spans, opt);
    const auto got_c = msm_batch_canonical<C>(bases, cspans, opt);
    ASSERT_EQ(got.size(), vecs.size());
    ASSERT_EQ(got_c.size(), vecs.size());
    for (size_t v = 0; v < vecs.size(); ++v) {
      const auto want = msm<C>(bases, vecs[v], opt);
      EXPECT_EQ(got[v], want) << "vector " << v << ", mode " << int(mode);
      EXPECT_EQ(got_c[v], want) << "vector " << v << ", mode " << int(mode);
    }
  }
  EXPECT_EQ(msm_batch<C>(bases, std::span<const std::span<const Fr>>{}).size(), 0u);
}

// One workspace through calls of other sizes, windows, bucket kinds and GLV settings, with
// inputs that need the exceptional paths (repeated and opposed bases, points at infinity): every
// result equals the call without a workspace, so nothing but capacity carries from call to call.
TYPED_TEST(Msm, WorkspaceCarriesOnlyCapacity) {
  using C = TypeParam;
  const size_t big = std::is_same_v<C, bls12_381::G1> ? 3000 : 900;
  Workspace<C> ws;
  struct Call {
    size_t n;
    Buckets mode;
    unsigned c;
    bool glv;
  };
  for (const Call call : {Call{big, Buckets::kAuto, 0, true}, Call{40, Buckets::kAuto, 0, true},
                          Call{big, Buckets::kBatchAffine, 12, false},
                          Call{big / 2, Buckets::kBatchAffine, 7, true},
                          Call{big, Buckets::kXyzz, 0, true}, Call{0, Buckets::kAuto, 0, true},
                          Call{big, Buckets::kBatchAffine, 9, true}}) {
    auto bases = this->progression_bases(call.n);
    if (call.n > 10) bases[7] = C::Affine::identity(), bases[9] = -bases[8];
    const auto k = call.n % 2 ? this->random_scalars(call.n) : this->mixed_scalars(call.n);
    Options opt;
    opt.buckets = call.mode;
    opt.window_bits = call.c;
    opt.glv = call.glv;
    EXPECT_EQ(msm<C>(bases, k, ws, opt), msm<C>(bases, k, opt))
        << "n = " << call.n << ", mode " << int(call.mode) << ", c = " << call.c;
  }
}

TYPED_TEST(Msm, BadInputIsAnError) {
  using C = TypeParam;
  const auto b = this->independent_bases(8);
  auto k = this->canonical(this->random_scalars(8));
  k[5] = Fr::MOD;  // r itself is not a canonical scalar
  try {
    msm_canonical<C>(b, k);
    FAIL() << "scalar r was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("scalar 5 of 8"), std::string::npos) << e.what();
  }
  k[5] = FrLimbs{~0ull, ~0ull, ~0ull, ~0ull};
  std::vector<std::span<const FrLimbs>> one{k};
  try {
    msm_batch_canonical<C>(b, one);
    FAIL() << "scalar 2^256 - 1 was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("vector 0: scalar 5"), std::string::npos) << e.what();
  }
  const auto fr = this->random_scalars(7);
  EXPECT_THROW(msm<C>(b, fr), Error);
  EXPECT_THROW(msm_naive<C>(b, fr), Error);
  Options opt;
  opt.window_bits = kMaxWindowBits + 1;
  EXPECT_THROW(msm<C>(b, this->random_scalars(8), opt), Error);
}

// The bound does not overstate the peak by much. It counts one task's scratch per pool thread,
// the peak the tasks that really overlapped: with a few threads they all do; with many (16 on the
// GPU host, or SPLITPROVE_THREADS above the cores) these small calls' tasks finish before the later
// threads start, so there only the upper bound is checked.
void expect_tight(size_t used, size_t bound, const std::string& what) {
  if (util::num_threads() <= 4) EXPECT_GE(4 * used, bound) << what;
}

// scratch_bytes is what a MemoryBudget reservation for the call will be: it must cover the heap
// bytes the call really holds at its peak, and not overstate them by much.
TYPED_TEST(Msm, ScratchBytesBoundsThePeak) {
  using C = TypeParam;
  const size_t n = std::is_same_v<C, bls12_381::G1> ? 2500 : 800;  // above the kAuto thresholds
  const auto bases = this->progression_bases(n);
  const std::vector<std::vector<Fr>> vecs = {this->random_scalars(n), this->random_scalars(n)};
  const std::vector<std::span<const Fr>> spans(vecs.begin(), vecs.end());
  for (Buckets mode : kModes) {
    for (size_t nv : {1, 2}) {
      Options opt;
      opt.buckets = mode;
      const size_t bound = scratch_bytes<C>(n, nv, opt);
      const size_t before = heap::live.load();
      heap::peak = before;
      if (nv == 1)
        (void)msm<C>(bases, vecs[0], opt);
      else
        (void)msm_batch<C>(bases, std::span(spans).first(nv), opt);
      const size_t used = heap::peak.load() - before;
      EXPECT_LE(used, bound) << "mode " << int(mode) << ", vectors " << nv;
      expect_tight(used, bound, "mode " + std::to_string(int(mode)) + ", vectors " +
                                    std::to_string(nv));
    }
  }
  // Equal bases and scalars: every addition is exceptional and fills the XYZZ side buckets too.
  const std::vector<typename C::Affine> same(n, C::Affine::generator());
  const std::vector<Fr> k(n, vecs[0][0]);
  for (Buckets mode : kModes) {
    Options opt;
    opt.buckets = mode;
    const size_t before = heap::live.load();
    heap::peak = before;
    (void)msm<C>(same, k, opt);
    const size_t used = heap::peak.load() - before;
    EXPECT_LE(used, scratch_bytes<C>(n, 1, opt)) << "mode " << int(mode);
  }
  EXPECT_EQ(scratch_bytes<C>(0), 0u);
}

// The scratch depends only on the tail (the scalars other than 0 and 1): an MSM of n terms of
// which t are in the tail stays within scratch_bytes(t) (the pipeline sizes the G2 stage's
// reservation so), and at t much smaller than n that bound is far below scratch_bytes(n).
TYPED_TEST(Msm, ScratchBytesOfTheTailBoundsAMostlyBinaryInput) {
  using C = TypeParam;
  const size_t n = 4000, t = 900;  // the tail above the kAuto batch-affine thresholds
  const auto bases = this->progression_bases(n);
  std::vector<Fr> k = this->random_scalars(n);
  for (size_t i = 0; i < n; ++i)
    if (i % 40 >= 9) k[i] = (i % 3) ? Fr::zero() : Fr::one();  // 9 of every 40 stay random
  for (Buckets mode : kModes) {
    Options opt;
    opt.buckets = mode;
    const size_t bound = scratch_bytes<C>(t, 1, opt);
    const size_t before = heap::live.load();
    heap::peak = before;
    (void)msm<C>(bases, k, opt);
    const size_t used = heap::peak.load() - before;
    EXPECT_LE(used, bound) << "mode " << int(mode);
    expect_tight(used, bound, "mode " + std::to_string(int(mode)));
    EXPECT_LT(bound, scratch_bytes<C>(n, 1, opt)) << "mode " << int(mode);
  }
}

// The batch-affine window never outgrows the scratch cap (detail::kAffineScratchCap), only widens
// with the tail (scratch_bytes relies on that), and the cap binds where the multiplication count
// alone would ask for wider windows (large tails).
template <class C>
void check_window_cap(const char* name) {
  SCOPED_TRACE(name);
  unsigned prev = 0;
  bool binds = false;
  for (unsigned k = 12; k <= 26; ++k) {  // from 2^12: above the kAuto batch-affine thresholds
    for (unsigned bits : {detail::kScalarBits, 128u}) {
      const size_t t = size_t(1) << k;
      const unsigned c = detail::affine_window_bits<C>(t, bits);
      EXPECT_LE(detail::AffineWindow<C>::scratch_bytes(c, detail::AffineWindow<C>::chunk_size(c)),
                detail::kAffineScratchCap)
          << "2^" << k << " terms, c = " << c;
      if (bits == detail::kScalarBits) {
        EXPECT_GE(c, prev) << "2^" << k << " terms";
        prev = c;
      }
      binds |= c < detail::best_window_bits(t, detail::affine_add_cost<C>(), bits);
      const detail::Plan p = detail::make_plan<C>(t, 1, Options{}, bits);
      EXPECT_TRUE(p.affine);
      EXPECT_LE(p.c, c) << "2^" << k << " terms";
    }
  }
  EXPECT_TRUE(binds);
}

TEST(MsmPlan, WindowsStayWithinTheScratchCap) {
  check_window_cap<bls12_381::G1>("BLS12-381 G1");
  check_window_cap<bls12_381::G2>("BLS12-381 G2");
  check_window_cap<bn254::G1>("BN254 G1");
  check_window_cap<bn254::G2>("BN254 G2");
}

}  // namespace
}  // namespace splitprove::msm
