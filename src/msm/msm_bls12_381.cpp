// The MSM templates for BLS12-381 G1 and G2 (compiled once here; users include msm/msm.hpp).
#include "ec/bls12_381.hpp"
#include "msm/msm_impl.hpp"

namespace splitprove::msm {

SPLITPROVE_MSM_INSTANTIATE(bls12_381::G1)
SPLITPROVE_MSM_INSTANTIATE(bls12_381::G2)

}  // namespace splitprove::msm
