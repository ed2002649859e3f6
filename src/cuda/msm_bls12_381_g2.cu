// The GPU MSM for BLS12-381 G2 (msm_impl.cuh): the same kernels over Fp2 coordinates.
#include "cuda/msm_impl.cuh"

namespace splitprove::cuda {

SPLITPROVE_CUDA_MSM_INSTANTIATE(bls12_381::G2)

}  // namespace splitprove::cuda
