#pragma once
// What the CUDA backend can tell the host about the GPUs it sees.
#include <cstddef>
#include <string>
#include <vector>

namespace splitprove::cuda {

struct DeviceInfo {
  int index = 0;
  std::string name;
  int sm_major = 0, sm_minor = 0;
  int multiprocessors = 0;
  unsigned long long total_bytes = 0, free_bytes = 0;
};

// The GPUs present, empty when there is no driver or no device (never throws for that case);
// `why_none` receives the CUDA runtime's reason when the list is empty.
std::vector<DeviceInfo> list_devices(std::string* why_none = nullptr);

// Makes `device` current for the calling thread (every thread that drives a GPU calls this first).
// Throws Error naming the device when the runtime refuses.
void use_device(int device);
// Bytes in use on `device` now (total - free, cudaMemGetInfo: every process's allocations and the
// contexts), or -1 when the runtime cannot say. For the memory sampler; never throws.
long long device_used_bytes(int device);

// Page-locks host memory for DMA (cudaHostRegister, portable to every device) / undoes it. The pin
// hooks of mem/pages.hpp for buffers a device stage copies. pin_host throws Error with the
// runtime's reason; unpin_host never throws.
void pin_host(void* p, std::size_t bytes);
void unpin_host(void* p, std::size_t bytes) noexcept;

}  // namespace splitprove::cuda
