// The GPU MSM for BLS12-381 G1 (msm_impl.cuh), and the window cost model shared with G2.
#include "cuda/msm_impl.cuh"

namespace splitprove::cuda {

unsigned choose_window_bits(size_t tail) {
  unsigned best = 1;
  double best_cost = 0;
  for (unsigned c = 1; c <= kMaxWindowBits; ++c) {
    const double cost = double(windows_for(c)) * (double(tail) + 3.0 * double(1u << (c - 1)));
    if (c == 1 || cost < best_cost) best = c, best_cost = cost;
  }
  return best;
}

SPLITPROVE_CUDA_MSM_INSTANTIATE(bls12_381::G1)

}  // namespace splitprove::cuda
