// GPU G1 arithmetic (ec_ops.hpp, the tests' entry points) against the CPU ec::Curve: sums of 2^16
// points against the closed form sum i·G = n(n+1)/2·G, sums with infinities, cancelling pairs and
// repeated points (the doubling paths), and the three XYZZ formulas elementwise on every special
// case. Skipped, with the reason, where no GPU exists.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

#include "ec_ops.hpp"
#include "gpu.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cuda {
namespace {

using namespace testing;

HG1::Affine gpu_sum(const std::vector<HG1::Affine>& pts) {
  std::vector<uint64_t> in(pts.size() * kG1AffineLimbs);
  for (size_t i = 0; i < pts.size(); ++i) put_affine(pts[i], &in[i * kG1AffineLimbs]);
  uint64_t out[kG1XyzzLimbs];
  g1_sum_affine(in.data(), pts.size(), out);
  return get_xyzz(out).to_affine();
}

HG1::Affine cpu_sum(const std::vector<HG1::Affine>& pts) {
  HG1::Jacobian acc = HG1::Jacobian::identity();
  for (const auto& p : pts) acc += p;
  return acc.to_affine();
}

TEST(GpuG1, SumOfMultiplesIsClosedForm) {
  SPLITPROVE_REQUIRE_GPU();
  const uint64_t n = uint64_t(1) << 16;
  const auto pts = multiples_of_g(n);
  EXPECT_EQ(gpu_sum(pts), HG1::Jacobian::generator().mul_u64(n * (n + 1) / 2).to_affine());
}

TEST(GpuG1, SumWithInfinitiesCancellationsAndRepeats) {
  SPLITPROVE_REQUIRE_GPU();
  auto base = multiples_of_g(5000);
  std::vector<HG1::Affine> pts;
  std::mt19937_64 rng(31);
  for (size_t i = 0; i < base.size(); ++i) {
    pts.push_back(base[i]);
    if (i % 7 == 0) pts.push_back(HG1::Affine::identity());
    if (i % 5 == 0) pts.push_back(-base[i]);  // cancels an earlier term
    if (i % 11 == 0) pts.push_back(base[i]);  // repeats one
  }
  std::shuffle(pts.begin(), pts.end(), rng);
  EXPECT_EQ(gpu_sum(pts), cpu_sum(pts));
}

TEST(GpuG1, SumOfEqualPointsTakesTheDoublingPaths) {
  SPLITPROVE_REQUIRE_GPU();
  // Every thread adds G to a multiple of G, and the tree adds equal partial sums: mixed and full
  // additions both meet P + P.
  const uint64_t n = 3 * 128 * 64;
  std::vector<HG1::Affine> pts(n, HG1::Affine::generator());
  EXPECT_EQ(gpu_sum(pts), HG1::Jacobian::generator().mul_u64(n).to_affine());
}

TEST(GpuG1, SumEdgeSizes) {
  SPLITPROVE_REQUIRE_GPU();
  EXPECT_TRUE(gpu_sum({}).is_identity());
  EXPECT_TRUE(gpu_sum({HG1::Affine::identity()}).is_identity());
  const auto g = HG1::Affine::generator();
  EXPECT_EQ(gpu_sum({g}), g);
  EXPECT_TRUE(gpu_sum({g, -g}).is_identity());
}

// Elementwise cases: p[i] (XYZZ, random ZZ) and q[i] over random points, equal points, negatives
// and infinities on either side.
struct PointCases {
  std::vector<HG1::Affine> p, q;
  std::vector<HG1::Xyzz> px, qx;
};
PointCases make_cases(size_t n) {
  auto base = multiples_of_g(257);
  base.push_back(HG1::Affine::identity());
  std::mt19937_64 rng(41);
  PointCases c;
  for (size_t i = 0; i < n; ++i) {
    HG1::Affine a = base[rng() % base.size()], b;
    switch (i % 5) {
      case 0:
        b = a;
        break;
      case 1:
        b = -a;
        break;
      case 2:
        b = HG1::Affine::identity();
        break;
      default:
        b = base[rng() % base.size()];
    }
    if (i % 10 == 7) std::swap(a, b);  // infinity on the left
    c.p.push_back(a);
    c.q.push_back(b);
    c.px.push_back(scaled_xyzz(a, HFp::random(rng)));
    c.qx.push_back(scaled_xyzz(b, HFp::random(rng)));
  }
  return c;
}

TEST(GpuG1, XyzzFormulasMatchCpu) {
  SPLITPROVE_REQUIRE_GPU();
  const size_t n = 4096;
  const auto c = make_cases(n);
  std::vector<uint64_t> px(n * kG1XyzzLimbs), qx(n * kG1XyzzLimbs), qa(n * kG1AffineLimbs);
  for (size_t i = 0; i < n; ++i) {
    put_xyzz(c.px[i], &px[i * kG1XyzzLimbs]);
    put_xyzz(c.qx[i], &qx[i * kG1XyzzLimbs]);
    put_affine(c.q[i], &qa[i * kG1AffineLimbs]);
  }
  std::vector<uint64_t> sum(n * kG1XyzzLimbs), madd(n * kG1XyzzLimbs), dbl(n * kG1XyzzLimbs);
  g1_xyzz_add(px.data(), qx.data(), sum.data(), n);
  g1_xyzz_add_affine(px.data(), qa.data(), madd.data(), n);
  g1_xyzz_dbl(px.data(), dbl.data(), n);
  for (size_t i = 0; i < n; ++i) {
    const auto want = (c.p[i].to_jacobian() + c.q[i].to_jacobian()).to_affine();
    ASSERT_EQ(get_xyzz(&sum[i * kG1XyzzLimbs]).to_affine(), want) << "add, case " << i;
    ASSERT_EQ(get_xyzz(&madd[i * kG1XyzzLimbs]).to_affine(), want) << "add_affine, case " << i;
    ASSERT_EQ(get_xyzz(&dbl[i * kG1XyzzLimbs]).to_affine(), c.p[i].to_jacobian().dbl().to_affine())
        << "dbl, case " << i;
  }
}

TEST(GpuG1, UnreducedCoordinateIsNamed) {
  SPLITPROVE_REQUIRE_GPU();
  auto pts = multiples_of_g(8);
  std::vector<uint64_t> in(pts.size() * kG1AffineLimbs);
  for (size_t i = 0; i < pts.size(); ++i) put_affine(pts[i], &in[i * kG1AffineLimbs]);
  std::memcpy(&in[3 * kG1AffineLimbs + 6], HFp::MOD.data(), 48);  // points[3].y = p
  uint64_t out[kG1XyzzLimbs];
  try {
    g1_sum_affine(in.data(), pts.size(), out);
    FAIL() << "no error for points[3].y = p";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cuda::g1_sum_affine: points[3].y is not < p (not a reduced field element)");
  }
}

TEST(CudaG1Api, NoDeviceIsAnErrorNotACrash) {
  if (no_gpu_reason().empty()) GTEST_SKIP() << "a CUDA device is present";
  uint64_t pts[kG1AffineLimbs] = {}, out[kG1XyzzLimbs];
  try {
    g1_sum_affine(pts, 1, out);
    FAIL() << "g1_sum_affine succeeded without a CUDA device";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind("cuda::g1_sum_affine: src/cuda/", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace splitprove::cuda
