#pragma once
// The CUDA runtime, made safe to use from the backend: one checking macro that turns a
// cudaError_t into a splitprove::Error naming the call and its file:line, and move-only owners
// for device buffers and streams (the buffer is freed, the stream destroyed, when the owner dies,
// on the error path too). For .cu files only: the public headers of the backend stay CUDA-free.
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "splitprove/error.hpp"

namespace splitprove::cuda {

// "…/src/cuda/ff_ops.cu" -> "src/cuda/ff_ops.cu": messages name the file in the repository.
inline std::string_view short_path(std::string_view file) {
  size_t k = file.rfind("/src/");
  return k == std::string_view::npos ? file : file.substr(k + 1);
}

[[noreturn]] inline void throw_cuda_error(cudaError_t e, const char* expr, const char* file,
                                          int line) {
  cudaGetLastError();  // clear a non-sticky error so the next call starts clean
  // A device fault: the pipeline takes the device out of service and proves the partition again
  // on another one (splitprove/error.hpp).
  throw DeviceFault(std::string(short_path(file)) + ":" + std::to_string(line) + ": " + expr + ": " +
              cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

inline void check(cudaError_t e, const char* expr, const char* file, int line) {
  if (e != cudaSuccess) throw_cuda_error(e, expr, file, line);
}

}  // namespace splitprove::cuda

// Throws splitprove::DeviceFault("<file>:<line>: <expr>: <cudaErrorName> (<description>)").
#define SPLITPROVE_CUDA_CHECK(expr) ::splitprove::cuda::check((expr), #expr, __FILE__, __LINE__)
// After a kernel launch: launch-configuration errors show at once, execution errors at the next
// synchronising call (which is checked too).
#define SPLITPROVE_CUDA_CHECK_LAUNCH() SPLITPROVE_CUDA_CHECK(cudaGetLastError())

namespace splitprove::cuda {

// A device allocation of `count` objects of T; move-only, freed on destruction.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(size_t count) : count_(count) {
    if (count > SIZE_MAX / sizeof(T))
      throw Error("cuda::DeviceBuffer: " + std::to_string(count) + " objects of " +
                  std::to_string(sizeof(T)) + " bytes overflow size_t");
    if (count)
      SPLITPROVE_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  ~DeviceBuffer() { release(); }

  T* get() const { return ptr_; }
  size_t size() const { return count_; }
  size_t bytes() const { return count_ * sizeof(T); }

  void upload(const T* host, cudaStream_t s) {
    if (count_)
      SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(ptr_, host, bytes(), cudaMemcpyHostToDevice, s));
  }
  void download(T* host, cudaStream_t s) const {
    if (count_)
      SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(host, ptr_, bytes(), cudaMemcpyDeviceToHost, s));
  }

 private:
  void release() {
    if (ptr_) cudaFree(ptr_);  // an error here has nowhere to go; the pointer is gone either way
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  size_t count_ = 0;
};

// A non-blocking stream; move-only, destroyed on destruction.
class Stream {
 public:
  Stream() { SPLITPROVE_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  ~Stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  cudaStream_t get() const { return s_; }
  operator cudaStream_t() const { return s_; }
  void sync() const { SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(s_)); }

 private:
  cudaStream_t s_ = nullptr;
};

// Blocks for a grid-stride loop over n items: enough to fill the GPU, capped so that the block
// index stays small (each thread then takes several items).
inline unsigned grid_for(size_t n, unsigned threads) {
  size_t blocks = (n + threads - 1) / threads;
  if (blocks > (size_t(1) << 16)) blocks = size_t(1) << 16;
  return unsigned(blocks ? blocks : 1);
}

// Runs f(); an Error thrown inside gets `what` ("cuda::fr_mul") put in front of its message (a
// DeviceFault stays one).
template <class Fn>
void with_context(const char* what, Fn&& f) {
  try {
    f();
  } catch (const DeviceFault& e) {
    throw DeviceFault(std::string(what) + ": " + e.what());
  } catch (const Error& e) {
    throw Error(std::string(what) + ": " + e.what());
  }
}

}  // namespace splitprove::cuda
