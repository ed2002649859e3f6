#pragma once
// What the GPU tests share: the skip rule for machines without a GPU, edge-value and random
// inputs, and conversions between the host's field/curve types and the backend's limb arrays.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "cuda/device.hpp"
#include "ec/bls12_381.hpp"

namespace splitprove::cuda::testing {

// Empty when a CUDA device is present, else the runtime's reason (asked once per process).
inline const std::string& no_gpu_reason() {
  static const std::string why = [] {
    std::string w;
    if (!list_devices(&w).empty()) return std::string();
    return w.empty() ? std::string("no device listed") : w;
  }();
  return why;
}

}  // namespace splitprove::cuda::testing

// Every GPU test starts with this: without a GPU it is reported as skipped, with the reason.
#define SPLITPROVE_REQUIRE_GPU()                                                          \
  do {                                                                                    \
    if (!::splitprove::cuda::testing::no_gpu_reason().empty())                            \
      GTEST_SKIP() << ::splitprove::cuda::testing::no_gpu_reason();                     \
  } while (0)

namespace splitprove::cuda::testing {

// Field elements that stress carries and reductions, then random ones: the Montgomery values
// 0, 1, p-1, 2, p-2 (raw limbs) and the field elements 0, 1, -1, 2, -2, 1/2, plus raw limb
// patterns with all-ones words, single high bits, and p/2.
template <class F>
std::vector<F> edge_values() {
  using Repr = typename F::Repr;
  std::vector<F> v = {F::zero(),      F::one(),        -F::one(),
                      F::from_u64(2), -F::from_u64(2), F::from_u64(2).inverse()};
  auto raw = [&](Repr r) {
    if (ff::cmp_limbs(r, F::MOD) < 0) v.push_back(F::from_mont(r));
  };
  Repr one{};
  one[0] = 1;
  raw(one);
  Repr pm1 = F::MOD;
  pm1[0] -= 1;
  raw(pm1);
  Repr pm2 = F::MOD;
  pm2[0] -= 2;
  raw(pm2);
  Repr two{};
  two[0] = 2;
  raw(two);
  raw(ff::shr(F::MOD, 1));
  Repr ones{};  // every 32-bit word all ones below a top limb just under p's
  for (auto& w : ones) w = ~uint64_t(0);
  ones[F::N - 1] = F::MOD[F::N - 1] - 1;
  raw(ones);
  for (size_t k = 0; k < F::N; ++k) {  // 2^(64k + 32) and 2^(64k + 63): carries across words
    Repr r{};
    r[k] = uint64_t(1) << 32;
    raw(r);
    r[k] = uint64_t(1) << 63;
    raw(r);
  }
  Repr top{};  // only the top limb, as large as allowed
  top[F::N - 1] = F::MOD[F::N - 1] - 1;
  raw(top);
  return v;
}

// a, b of length n: every (edge, edge) pair first, random elements after.
template <class F>
void make_inputs(size_t n, uint64_t seed, std::vector<F>& a, std::vector<F>& b) {
  const auto e = edge_values<F>();
  std::mt19937_64 rng(seed);
  a.clear();
  b.clear();
  for (const auto& x : e)
    for (const auto& y : e) a.push_back(x), b.push_back(y);
  while (a.size() < n) a.push_back(F::random(rng)), b.push_back(F::random(rng));
  a.resize(n);
  b.resize(n);
}

// Elements <-> flat Montgomery limbs (the layout of the backend's arrays).
template <class F>
std::vector<uint64_t> to_limbs(const std::vector<F>& v) {
  std::vector<uint64_t> out(v.size() * F::N);
  for (size_t i = 0; i < v.size(); ++i) std::memcpy(&out[i * F::N], v[i].mont().data(), 8 * F::N);
  return out;
}
template <class F>
F from_limbs(const uint64_t* p) {
  typename F::Repr r;
  std::memcpy(r.data(), p, 8 * F::N);
  return F::from_mont(r);
}

// ---- G1 -------------------------------------------------------------------------------------
using HFp = bls12_381::Fp;
using HG1 = bls12_381::G1;

// Affine point -> 12 limbs ((0, 0) for infinity).
inline void put_affine(const HG1::Affine& a, uint64_t* out) {
  if (a.is_identity()) {
    std::memset(out, 0, 8 * 12);
    return;
  }
  std::memcpy(out, a.x.mont().data(), 48);
  std::memcpy(out + 6, a.y.mont().data(), 48);
}
inline void put_xyzz(const HG1::Xyzz& p, uint64_t* out) {
  std::memcpy(out, p.X.mont().data(), 48);
  std::memcpy(out + 6, p.Y.mont().data(), 48);
  std::memcpy(out + 12, p.ZZ.mont().data(), 48);
  std::memcpy(out + 18, p.ZZZ.mont().data(), 48);
}
inline HG1::Xyzz get_xyzz(const uint64_t* in) {
  return HG1::Xyzz{from_limbs<HFp>(in), from_limbs<HFp>(in + 6), from_limbs<HFp>(in + 12),
                   from_limbs<HFp>(in + 18)};
}
// The XYZZ form of a with ZZ = l^2, ZZZ = l^3 (the same point for any l != 0).
inline HG1::Xyzz scaled_xyzz(const HG1::Affine& a, const HFp& l) {
  if (a.is_identity()) return HG1::Xyzz::identity();
  HFp l2 = l.square(), l3 = l2 * l;
  return HG1::Xyzz{a.x * l2, a.y * l3, l2, l3};
}
// k·G for k = 1..n, in affine form (running sums, one batch inversion).
inline std::vector<HG1::Affine> multiples_of_g(size_t n) {
  std::vector<HG1::Jacobian> j(n);
  HG1::Jacobian acc = HG1::Jacobian::identity();
  const auto g = HG1::Affine::generator();
  for (size_t i = 0; i < n; ++i) j[i] = acc += g;
  std::vector<HG1::Affine> a(n);
  HG1::batch_to_affine(j, a);
  return a;
}

}  // namespace splitprove::cuda::testing

// ---- device memory for the tests ----------------------------------------------------------------
#include "cuda/pool.hpp"
#include "mem/budget.hpp"

namespace splitprove::cuda::testing {

// One device budget (16 GiB) and pool per test process; the pool dies before its budget.
inline DevicePool& test_pool() {
  static mem::MemoryBudget budget(uint64_t(16) << 30, "gpu0");
  static DevicePool pool(budget);
  return pool;
}

}  // namespace splitprove::cuda::testing
