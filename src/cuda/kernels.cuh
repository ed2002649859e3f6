#pragma once
// Small kernels shared by the host-callable entry points: input validation on the device.
#include <string>

#include "cuda/runtime.cuh"

namespace splitprove::cuda {

namespace detail {
template <class F>
__global__ void first_unreduced_kernel(const F* a, size_t n, unsigned long long* first) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x)
    if (!F::load(a + i).is_reduced()) atomicMin(first, (unsigned long long)i);
}
}  // namespace detail

// The index of the first of d[0..n) that is not < p, or n when all are reduced (waits for `s`).
template <class F>
size_t first_unreduced(const F* d, size_t n, cudaStream_t s) {
  if (n == 0) return 0;
  DeviceBuffer<unsigned long long> first(1);
  const unsigned long long init = n;
  SPLITPROVE_CUDA_CHECK(
      cudaMemcpyAsync(first.get(), &init, sizeof init, cudaMemcpyHostToDevice, s));
  detail::first_unreduced_kernel<F><<<grid_for(n, 256), 256, 0, s>>>(d, n, first.get());
  SPLITPROVE_CUDA_CHECK_LAUNCH();
  unsigned long long got = n;
  SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(&got, first.get(), sizeof got, cudaMemcpyDeviceToHost, s));
  SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(s));
  return size_t(got);
}

// Throws "<name>[i] is not < p (not a reduced field element)" for the first such element.
template <class F>
void check_reduced(const F* d, size_t n, const char* name, cudaStream_t s) {
  size_t i = first_unreduced(d, n, s);
  if (i < n)
    throw Error(std::string(name) + "[" + std::to_string(i) +
                "] is not < p (not a reduced field element)");
}

}  // namespace splitprove::cuda
