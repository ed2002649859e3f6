// GPU field arithmetic (ff_ops.hpp, the tests' entry points) against the CPU ff::Field, for
// BLS12-381 Fr and Fp: 2^16 elements per operation, every pair of edge values (0, 1, p-1, raw limbs
// 1 and p-1, carry patterns) first and random elements after. Skipped, with the reason, where no
// GPU exists.
#include <gtest/gtest.h>

#include <string>

#include "ff_ops.hpp"
#include "gpu.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cuda {
namespace {

using namespace testing;

template <class H>
struct Api;
template <>
struct Api<bls12_381::Fr> {
  static constexpr const char* name = "fr";
  static void apply(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* o, size_t n) {
    fr_apply(op, a, b, o, n);
  }
  static void eq(const uint64_t* a, const uint64_t* b, uint8_t* o, size_t n) { fr_eq(a, b, o, n); }
};
template <>
struct Api<bls12_381::Fp> {
  static constexpr const char* name = "fp";
  static void apply(FieldOp op, const uint64_t* a, const uint64_t* b, uint64_t* o, size_t n) {
    fp_apply(op, a, b, o, n);
  }
  static void eq(const uint64_t* a, const uint64_t* b, uint8_t* o, size_t n) { fp_eq(a, b, o, n); }
};

// The CPU's answer, as Montgomery limbs (canonical for from_mont).
template <class H>
typename H::Repr expected(FieldOp op, const H& a, const H& b) {
  switch (op) {
    case FieldOp::add:
      return (a + b).mont();
    case FieldOp::sub:
      return (a - b).mont();
    case FieldOp::mul:
      return (a * b).mont();
    case FieldOp::sqr:
      return a.square().mont();
    case FieldOp::neg:
      return (-a).mont();
    case FieldOp::dbl:
      return a.dbl().mont();
    case FieldOp::to_mont:
      return H::from_canonical(a.mont()).mont();  // a's limbs as an integer
    case FieldOp::from_mont:
      return a.to_canonical();
  }
  return {};
}

constexpr FieldOp kOps[] = {FieldOp::add, FieldOp::sub, FieldOp::mul,     FieldOp::sqr,
                            FieldOp::neg, FieldOp::dbl, FieldOp::to_mont, FieldOp::from_mont};
constexpr size_t kN = size_t(1) << 16;

template <class H>
class GpuField : public ::testing::Test {};
using HostFields = ::testing::Types<bls12_381::Fr, bls12_381::Fp>;
TYPED_TEST_SUITE(GpuField, HostFields);

TYPED_TEST(GpuField, EveryOpMatchesCpu) {
  SPLITPROVE_REQUIRE_GPU();
  using H = TypeParam;
  std::vector<H> a, b;
  make_inputs<H>(kN, 21, a, b);
  const auto la = to_limbs(a), lb = to_limbs(b);
  for (FieldOp op : kOps) {
    std::vector<uint64_t> out(kN * H::N,
                              0x5a5a5a5a5a5a5a5aull);  // poison: every slot must be written
    Api<H>::apply(op, la.data(), field_op_is_unary(op) ? nullptr : lb.data(), out.data(), kN);
    size_t bad = 0;
    for (size_t i = 0; i < kN; ++i) {
      typename H::Repr got;
      std::memcpy(got.data(), &out[i * H::N], 8 * H::N);
      if (got != expected(op, a[i], b[i]) && bad++ < 3)
        ADD_FAILURE() << Api<H>::name << "_" << field_op_name(op) << " element " << i << ": a = 0x"
                      << a[i].to_hex() << ", b = 0x" << b[i].to_hex();
    }
    EXPECT_EQ(bad, 0u) << Api<H>::name << "_" << field_op_name(op) << ": mismatches";
  }
}

TYPED_TEST(GpuField, ResultMayOverwriteAnInput) {
  SPLITPROVE_REQUIRE_GPU();
  using H = TypeParam;
  std::vector<H> a, b;
  make_inputs<H>(4096, 22, a, b);
  auto la = to_limbs(a);
  const auto lb = to_limbs(b);
  Api<H>::apply(FieldOp::mul, la.data(), lb.data(), la.data(), a.size());
  for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(from_limbs<H>(&la[i * H::N]), a[i] * b[i]) << i;
}

TYPED_TEST(GpuField, EqualityMatchesCpu) {
  SPLITPROVE_REQUIRE_GPU();
  using H = TypeParam;
  std::vector<H> a, b;
  make_inputs<H>(kN, 23, a, b);
  for (size_t i = 0; i < kN; i += 3) b[i] = a[i];  // a third equal, the rest (almost surely) not
  const auto la = to_limbs(a), lb = to_limbs(b);
  std::vector<uint8_t> out(kN, 7);
  Api<H>::eq(la.data(), lb.data(), out.data(), kN);
  for (size_t i = 0; i < kN; ++i) ASSERT_EQ(out[i], a[i] == b[i] ? 1 : 0) << i;
}

TYPED_TEST(GpuField, UnreducedInputIsNamed) {
  SPLITPROVE_REQUIRE_GPU();
  using H = TypeParam;
  std::vector<H> a, b;
  make_inputs<H>(64, 24, a, b);
  auto la = to_limbs(a), lb = to_limbs(b);
  std::vector<uint64_t> out(la.size());
  std::memcpy(&la[5 * H::N], H::MOD.data(), 8 * H::N);                // a[5] = p
  for (size_t k = 0; k < H::N; ++k) lb[7 * H::N + k] = ~uint64_t(0);  // b[7] = 2^(64N) - 1
  const std::string prefix = std::string("cuda::") + Api<H>::name + "_mul: ";
  try {
    Api<H>::apply(FieldOp::mul, la.data(), lb.data(), out.data(), a.size());
    FAIL() << "no error for a[5] = p";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), prefix + "a[5] is not < p (not a reduced field element)");
  }
  std::memcpy(&la[5 * H::N], a[5].mont().data(), 8 * H::N);
  try {
    Api<H>::apply(FieldOp::mul, la.data(), lb.data(), out.data(), a.size());
    FAIL() << "no error for b[7] = 2^(64N) - 1";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), prefix + "b[7] is not < p (not a reduced field element)");
  }
}

// The two tests below need no GPU: argument errors come before any CUDA call.
TEST(CudaFieldApi, EmptyInputIsANoOp) {
  EXPECT_NO_THROW(fr_apply(FieldOp::mul, nullptr, nullptr, nullptr, 0));
  EXPECT_NO_THROW(fp_apply(FieldOp::sqr, nullptr, nullptr, nullptr, 0));
}

TEST(CudaFieldApi, NullArrayIsAnError) {
  uint64_t x[6] = {};
  EXPECT_THROW(fr_apply(FieldOp::mul, x, nullptr, x, 1), Error);
  EXPECT_THROW(fp_apply(FieldOp::neg, nullptr, nullptr, x, 1), Error);
}

// Without a GPU a call must fail with an Error that names the entry point and the failing CUDA
// call with its file:line, never crash.
TEST(CudaFieldApi, NoDeviceIsAnErrorNotACrash) {
  if (no_gpu_reason().empty()) GTEST_SKIP() << "a CUDA device is present";
  uint64_t x[4] = {1, 0, 0, 0}, out[4];
  try {
    fr_apply(FieldOp::mul, x, x, out, 1);
    FAIL() << "fr_mul succeeded without a CUDA device";
  } catch (const Error& e) {
    const std::string m = e.what();
    EXPECT_EQ(m.rfind("cuda::fr_mul: src/cuda/", 0), 0u) << m;
    EXPECT_NE(m.find(".cu"), std::string::npos) << m;
  }
}

}  // namespace
}  // namespace splitprove::cuda
