// The GPU MSM (msm_impl.cuh) for BN254 G2: the same kernels over Fp2 of BN254's device Fp.
#include "cuda/msm_impl.cuh"

namespace splitprove::cuda {

SPLITPROVE_CUDA_MSM_INSTANTIATE(bn254::G2)

}  // namespace splitprove::cuda
