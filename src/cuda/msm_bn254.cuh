#pragma once
// BN254's device types for the GPU MSM (msm_impl.cuh): coordinates over BN254's device Fp (Fp2
// for G2, products called, as for BLS12-381), scalars in BN254's device Fr. Included by
// msm_bn254_g1.cu and msm_bn254_g2.cu, each of which instantiates one group.
#include "cuda/ff_bn254.cuh"
#include "cuda/msm_impl.cuh"

namespace splitprove::cuda::msm_detail {
namespace {

template <>
struct DevCurve<bn254::G1> {
  using F = bn254_dev::FpNoinline;
  using Fr = bn254_dev::Fr;
  static constexpr const char* name = "cuda::msm<BN254 G1>";
  static constexpr int kBucketMinBlocks = 0;  // 112 registers: 4 blocks unbounded
  static constexpr int kBucketThreads = 128;
  using FCall = F;
};
// G2's bucket kernel takes 180 registers unbounded: 2 blocks of 128 threads (8 warps) per SM.
// Bounded to 3 blocks it fits 168 registers with an 8-byte spill (ptxas, 2026-12-03): 12 warps.
template <>
struct DevCurve<bn254::G2> {
  using F = bn254_dev::Fp2NoinlineDev;
  using Fr = bn254_dev::Fr;
  static constexpr const char* name = "cuda::msm<BN254 G2>";
  static constexpr int kBucketMinBlocks = 3;
  static constexpr int kBucketThreads = 128;
  using FCall = bn254_dev::Fp2CallDev;
};

}  // namespace
}  // namespace splitprove::cuda::msm_detail
