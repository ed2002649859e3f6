#pragma once
// The timers the GPU benchmarks share (cuda_bench.cu, cuda_bench_prover.cu): the median of `reps`
// CUDA-event timings of one call on stream `s` after `warmups` untimed calls, and the median of
// host wall-clock timings (for calls that synchronise and do host work, such as an MSM).
#include <algorithm>
#include <chrono>
#include <vector>

#include "cuda/runtime.cuh"

namespace splitprove::cuda::bench {

inline float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Fn>
float event_ms(Fn&& f, int reps, cudaStream_t s, int warmups = 1) {
  cudaEvent_t e0, e1;
  SPLITPROVE_CUDA_CHECK(cudaEventCreate(&e0));
  SPLITPROVE_CUDA_CHECK(cudaEventCreate(&e1));
  for (int i = 0; i < warmups; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    SPLITPROVE_CUDA_CHECK(cudaEventRecord(e0, s));
    f();
    SPLITPROVE_CUDA_CHECK(cudaEventRecord(e1, s));
    SPLITPROVE_CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    SPLITPROVE_CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    t.push_back(ms);
  }
  SPLITPROVE_CUDA_CHECK_LAUNCH();
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
  return median(t);
}

template <class Fn>
float wall_ms(Fn&& f, int reps, int warmups = 1) {
  for (int i = 0; i < warmups; ++i) f();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(
        std::chrono::duration<float, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return median(t);
}

}  // namespace splitprove::cuda::bench
