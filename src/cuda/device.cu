#include <cuda_runtime.h>

#include <string>

#include "cuda/device.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cuda {

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  std::vector<DeviceInfo> out;
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    // Said plainly: a machine without an NVIDIA GPU (or its driver) is the usual case, and the
    // runtime's words for it ("driver version is insufficient") point the wrong way.
    if (why_none)
      *why_none = (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver)
                      ? std::string("no GPU: this machine has no NVIDIA GPU or no NVIDIA driver (CUDA: ") +
                            cudaGetErrorString(e) + ")"
                      : std::string("no GPU usable: ") + cudaGetErrorString(e);
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    return out;
  }
  if (n == 0 && why_none) *why_none = "no GPU: CUDA sees no device";
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) != cudaSuccess) continue;
    DeviceInfo d;
    d.index = i;
    d.name = p.name;
    d.sm_major = p.major;
    d.sm_minor = p.minor;
    d.multiprocessors = p.multiProcessorCount;
    d.total_bytes = p.totalGlobalMem;
    size_t fr = 0, tot = 0;
    if (cudaSetDevice(i) == cudaSuccess && cudaMemGetInfo(&fr, &tot) == cudaSuccess) d.free_bytes = fr;
    out.push_back(std::move(d));
  }
  return out;
}

void use_device(int device) {
  const cudaError_t e = cudaSetDevice(device);
  if (e != cudaSuccess)
    throw DeviceFault("cudaSetDevice(" + std::to_string(device) + "): " + cudaGetErrorString(e));
}

long long device_used_bytes(int device) {
  size_t fr = 0, tot = 0;
  if (cudaSetDevice(device) != cudaSuccess || cudaMemGetInfo(&fr, &tot) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return static_cast<long long>(tot - fr);
}

void pin_host(void* p, std::size_t bytes) {
  const cudaError_t e = cudaHostRegister(p, bytes, cudaHostRegisterPortable);
  if (e != cudaSuccess) {
    cudaGetLastError();
    throw Error("cudaHostRegister of " + std::to_string(bytes >> 20) +
                " MiB: " + cudaGetErrorString(e));
  }
}

void unpin_host(void* p, std::size_t) noexcept {
  if (cudaHostUnregister(p) != cudaSuccess) cudaGetLastError();
}

}  // namespace splitprove::cuda
