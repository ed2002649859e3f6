// The GPU MSM (msm_impl.cuh) for BN254 G1: the same kernels over BN254's device fields.
#include "cuda/msm_impl.cuh"

namespace splitprove::cuda {

SPLITPROVE_CUDA_MSM_INSTANTIATE(bn254::G1)

}  // namespace splitprove::cuda
