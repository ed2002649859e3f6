#pragma once
// The check of cuda::generator_multiples (the development key's points made on the device) for
// any curve group C, through the GPU MSM: for edge and random scalars k_i, each point alone
// (the MSM with one scalar 1, which the ones path sums as it is) equals k_i·G made on the host,
// and Σ s_i·(k_i·G) = (Σ s_i·k_i)·G for random s_i over every point.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "cuda/msm.hpp"
#include "gpu.hpp"

namespace splitprove::cuda::testing {

template <class C>
void expect_generator_multiples(DevicePool& pool, size_t n, std::uint64_t seed) {
  using Fr = typename C::Fr;
  std::mt19937_64 rng(seed);
  std::vector<Fr> ks(n);
  for (auto& k : ks) k = Fr::random(rng);
  // Edge scalars: 0 (the identity), 1, -1 (every digit high), one window's top and next digit.
  const Fr edges[] = {Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(1023), Fr::from_u64(1024),
                      Fr::from_u64(std::uint64_t(1) << 63), Fr::zero()};
  for (size_t i = 0; i < std::size(edges) && i < n; ++i) ks[i * 37 % n] = edges[i];
  const DeviceBases<C> bases = generator_multiples<C>(pool, ks);
  ASSERT_EQ(bases.size(), n);
  const auto g = C::Affine::generator();
  auto msm_of = [&](const std::vector<Fr>& s) {
    DeviceBlock d = pool.allocate(s.size() * sizeof(Fr), mem::Tag::gpu);
    copy_to_device(d.get(), s.data(), s.size() * sizeof(Fr));
    return msm<C>(pool, bases, d.get(), s.size(), ScalarForm::montgomery);
  };
  std::vector<Fr> one_hot(n, Fr::zero());
  for (size_t t = 0; t < 24; ++t) {
    const size_t i = t < 8 ? t * 37 % n : size_t(rng() % n);
    one_hot[i] = Fr::one();
    EXPECT_TRUE(msm_of(one_hot) == C::mul_ct(g, ks[i])) << "point " << i << " of " << n;
    one_hot[i] = Fr::zero();
  }
  std::vector<Fr> s(n);
  Fr dot = Fr::zero();
  for (size_t i = 0; i < n; ++i) dot += (s[i] = Fr::random(rng)) * ks[i];
  EXPECT_TRUE(msm_of(s) == C::mul_ct(g, dot)) << n << " points";
}

}  // namespace splitprove::cuda::testing
