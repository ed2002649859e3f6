// The MSM templates for BN254 G1 and G2 (compiled once here; users include msm/msm.hpp).
#include "ec/bn254.hpp"
#include "msm/msm_impl.hpp"

namespace splitprove::msm {

SPLITPROVE_MSM_INSTANTIATE(bn254::G1)
SPLITPROVE_MSM_INSTANTIATE(bn254::G2)

}  // namespace splitprove::msm
