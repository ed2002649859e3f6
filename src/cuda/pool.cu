// Device pool behind cuda/pool.hpp.
#include <algorithm>
#include <string>

#include "cuda/pool.hpp"
#include "cuda/runtime.cuh"
#include "splitprove/error.hpp"
#include "util/env.hpp"
#include "util/parallel.hpp"

namespace splitprove::cuda {

void DeviceBlock::reset() noexcept {
  if (pool_ && ptr_) pool_->give_back(ptr_, bytes_, std::move(res_));
  pool_ = nullptr;
  ptr_ = nullptr;
  bytes_ = 0;
  res_.reset();
}

CachePolicy cache_policy_from_env() {
  static const CachePolicy p =
      util::env_flag("SPLITPROVE_POOL_NEAR_FIT") ? CachePolicy::near_fit : CachePolicy::exact;
  return p;
}

DevicePool::DevicePool(mem::MemoryBudget& budget, int device, CachePolicy policy)
    : budget_(budget), device_(device), policy_(policy) {}

DevicePool::~DevicePool() { trim(); }

DeviceBlock DevicePool::allocate(size_t bytes, mem::Tag tag) {
  const size_t cls = bytes == 0 ? kGranule : (bytes + kGranule - 1) / kGranule * kGranule;
  DeviceBlock b;
  {
    std::lock_guard lk(mu_);
    // The smallest cached block that holds the request, if the policy lets it serve.
    const size_t slack = policy_ == CachePolicy::near_fit ? cls / 4 : 0;
    auto it = cache_.lower_bound(cls);
    if (it != cache_.end() && it->first - cls <= slack) {
      b.pool_ = this;
      b.ptr_ = it->second.ptr;
      b.bytes_ = it->first;
      b.res_ = std::move(it->second.res);
      b.res_.retag(tag);
      cache_.erase(it);
      cached_bytes_ -= b.bytes_;
      return b;
    }
  }
  // Reserve first (DESIGN §1.2): cached blocks go before anyone waits (all of them, or the
  // largest first and only as many as it takes).
  auto got = budget_.try_reserve(cls, tag);
  if (!got && policy_ == CachePolicy::exact) trim();
  while (!got && trim_largest()) got = budget_.try_reserve(cls, tag);
  if (!got) got = budget_.reserve(cls, tag);
  SPLITPROVE_CUDA_CHECK(cudaSetDevice(device_));
  void* p = nullptr;
  cudaError_t e = cudaMalloc(&p, cls);
  if (e == cudaErrorMemoryAllocation) {  // the budget overstates the card: drop the cache, retry
    cudaGetLastError();
    trim();
    e = cudaMalloc(&p, cls);
  }
  if (e != cudaSuccess)
    throw_cuda_error(e, ("cudaMalloc(" + std::to_string(cls) + " bytes)").c_str(), __FILE__,
                     __LINE__);
  {
    std::lock_guard lk(mu_);
    ++mallocs_;
  }
  b.pool_ = this;
  b.ptr_ = p;
  b.bytes_ = cls;
  b.res_ = std::move(*got);
  return b;
}

void DevicePool::give_back(void* ptr, size_t bytes, mem::Reservation&& res) noexcept {
  std::lock_guard lk(mu_);
  res.retag(mem::Tag::scratch);
  cache_.emplace(bytes, Cached{ptr, std::move(res)});
  cached_bytes_ += bytes;
}

void DevicePool::trim() {
  std::multimap<size_t, Cached> drop;
  {
    std::lock_guard lk(mu_);
    drop.swap(cache_);
    cached_bytes_ = 0;
  }
  if (!drop.empty()) cudaSetDevice(device_);
  for (auto& [cls, c] : drop) {
    cudaFree(c.ptr);  // the memory is gone before its bytes go back to the budget
    c.res.reset();
  }
}

bool DevicePool::trim_largest() {
  Cached c{};
  {
    std::lock_guard lk(mu_);
    if (cache_.empty()) return false;
    auto it = std::prev(cache_.end());
    cached_bytes_ -= it->first;
    c = std::move(it->second);
    cache_.erase(it);
  }
  cudaSetDevice(device_);
  cudaFree(c.ptr);  // the memory is gone before its bytes go back to the budget
  c.res.reset();
  return true;
}

size_t DevicePool::cached_bytes() const {
  std::lock_guard lk(mu_);
  return cached_bytes_;
}
size_t DevicePool::mallocs() const {
  std::lock_guard lk(mu_);
  return mallocs_;
}

GpuStream::Priority GpuStream::gpu_stage_priority() {
  static const Priority p =
      util::env_flag("SPLITPROVE_STREAM_PRIORITY") ? Priority::high : Priority::normal;
  return p;
}
GpuStream::GpuStream(Priority p) {
  int least = 0, greatest = 0;
  if (p == Priority::high)
    SPLITPROVE_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s = nullptr;
  SPLITPROVE_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
                                                     p == Priority::high ? greatest : least));
  s_ = s;
}
GpuStream::~GpuStream() {
  if (s_) cudaStreamDestroy(s_);
}
void GpuStream::sync() const { SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(s_)); }
int GpuStream::priority() const {
  int p = 0;
  SPLITPROVE_CUDA_CHECK(cudaStreamGetPriority(s_, &p));
  return p;
}

void copy_to_device(void* dst, const void* src, size_t bytes, CUstream_st* stream) {
  if (!bytes) return;
  SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, stream));
  if (!stream) SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(stream));
}
void copy_to_host(void* dst, const void* src, size_t bytes, CUstream_st* stream) {
  if (!bytes) return;
  SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, stream));
  if (!stream) SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(stream));
}
void sync_stream(CUstream_st* stream) { SPLITPROVE_CUDA_CHECK(cudaStreamSynchronize(stream)); }

void upload_staged(void* dst, size_t count, size_t item_bytes,
                   const std::function<void(size_t begin, size_t end, void* out)>& fill) {
  if (count == 0) return;
  const size_t half = kUploadStagingBytes / 2;
  if (item_bytes == 0 || item_bytes > half)
    throw Error("cuda::upload_staged: items of " + std::to_string(item_bytes) +
                " bytes do not fit half of the staging");
  const size_t per = half / item_bytes;  // items per half
  GpuStream st;
  // Declared after the stream, so destroyed before it: the copies in flight finish before the
  // staging they read is freed (also when a fill throws).
  struct Staging {
    CUstream_st* stream;
    void* host = nullptr;
    cudaEvent_t done[2] = {nullptr, nullptr};
    ~Staging() {
      cudaStreamSynchronize(stream);
      for (auto e : done)
        if (e) cudaEventDestroy(e);
      if (host) cudaFreeHost(host);
    }
  } s{st.get()};
  SPLITPROVE_CUDA_CHECK(cudaHostAlloc(&s.host, 2 * per * item_bytes, cudaHostAllocDefault));
  for (auto& e : s.done) SPLITPROVE_CUDA_CHECK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  bool in_flight[2] = {false, false};
  for (size_t lo = 0, k = 0; lo < count; lo += per, k ^= 1) {
    const size_t cnt = std::min(per, count - lo);
    char* buf = static_cast<char*>(s.host) + k * per * item_bytes;
    if (in_flight[k]) SPLITPROVE_CUDA_CHECK(cudaEventSynchronize(s.done[k]));
    util::parallel_for(
        cnt, [&](size_t b, size_t e) { fill(lo + b, lo + e, buf + b * item_bytes); }, 4096);
    SPLITPROVE_CUDA_CHECK(cudaMemcpyAsync(static_cast<char*>(dst) + lo * item_bytes, buf,
                                          cnt * item_bytes, cudaMemcpyHostToDevice, st.get()));
    SPLITPROVE_CUDA_CHECK(cudaEventRecord(s.done[k], st.get()));
    in_flight[k] = true;
  }
  st.sync();
}

}  // namespace splitprove::cuda
