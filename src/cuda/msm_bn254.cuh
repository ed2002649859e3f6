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
};
template <>
struct DevCurve<bn254::G2> {
  using F = bn254_dev::Fp2NoinlineDev;
  using Fr = bn254_dev::Fr;
  static constexpr const char* name = "cuda::msm<BN254 G2>";
};

}  // namespace
}  // namespace splitprove::cuda::msm_detail
