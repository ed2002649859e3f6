#pragma once
// Device memory for the CUDA backend: one pool per GPU whose every byte is reserved against a
// mem::MemoryBudget that counts *device* bytes (DESIGN §1.2), and move-only handles that give
// their block back to the pool when they die.
//
// Ownership
//   * A DeviceBlock owns one cudaMalloc'd block and the budget Reservation that stands for it.
//     Destroying the block does not free the memory: it goes back to the pool's cache (keeping its
//     reservation, now tagged `scratch`), so the next partition's buffers of the same size class
//     cost no cudaMalloc. Blocks must die before their pool.
//   * Sizes are rounded up to 2 MiB (a size class). The cache is trimmed (cudaFree, reservation
//     released) when an allocation does not fit the budget otherwise, and by trim(); the pool's
//     destructor frees everything. How blocks are reused and trimmed is the pool's CachePolicy.
//
// Errors: a request larger than the budget's capacity throws mem::BudgetError; cudaMalloc
// failures throw splitprove::Error naming the call and the size. CUDA-free header.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "mem/budget.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*: streams cross this header as plain pointers

namespace splitprove::cuda {

class DevicePool;

class DeviceBlock {
 public:
  DeviceBlock() = default;
  DeviceBlock(DeviceBlock&& o) noexcept
      : pool_(std::exchange(o.pool_, nullptr)),
        ptr_(std::exchange(o.ptr_, nullptr)),
        bytes_(std::exchange(o.bytes_, 0)),
        res_(std::move(o.res_)) {}
  DeviceBlock& operator=(DeviceBlock&& o) noexcept {
    if (this != &o) {
      reset();
      pool_ = std::exchange(o.pool_, nullptr);
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
      res_ = std::move(o.res_);
    }
    return *this;
  }
  DeviceBlock(const DeviceBlock&) = delete;
  DeviceBlock& operator=(const DeviceBlock&) = delete;
  ~DeviceBlock() { reset(); }

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  size_t bytes() const { return bytes_; }  // the size class (>= the bytes asked for)
  explicit operator bool() const { return ptr_ != nullptr; }
  void reset() noexcept;  // back to the pool's cache

 private:
  friend class DevicePool;
  DevicePool* pool_ = nullptr;
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  mem::Reservation res_;
};

// exact: a cached block serves only its own size class, and an allocation the budget cannot take
// frees the whole cache first. near_fit: a cached block also serves a request up to a quarter
// smaller (data-sized scratch, an MSM's tail or big runs, differs a little from call to call, and
// an exact cache then misses and allocates beside the stale blocks), and a short budget frees
// cached blocks largest first, only as many as it takes (every cudaFree waits for the whole
// device, a G2 MSM running beside included). exact is the default: measured against it on an
// H200 (6c4f443, bench/RESULTS.md), near_fit gained nothing at 2^24 or 2^27;
// SPLITPROVE_POOL_NEAR_FIT=1 in the environment picks near_fit.
enum class CachePolicy { exact, near_fit };
CachePolicy cache_policy_from_env();

class DevicePool {
 public:
  // `budget` counts this GPU's bytes; it must outlive the pool. `device`: the CUDA device index.
  explicit DevicePool(mem::MemoryBudget& budget, int device = 0,
                      CachePolicy policy = cache_policy_from_env());
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  // A block of at least `bytes` bytes (rounded up to the 2 MiB class), booked under `tag`.
  // Reuses a cached block the policy allows (bytes() says its size); else reserves (trimming the
  // cache as the policy says while the budget is short, then waiting for the budget) and
  // allocates.
  DeviceBlock allocate(size_t bytes, mem::Tag tag = mem::Tag::gpu);
  // Frees every cached (unused) block and returns its bytes to the budget.
  void trim();

  int device() const { return device_; }
  mem::MemoryBudget& budget() const { return budget_; }
  size_t cached_bytes() const;
  // cudaMalloc calls made so far (cache misses): what the reuse saves shows here.
  size_t mallocs() const;

  static constexpr size_t kGranule = size_t(2) << 20;

 private:
  friend class DeviceBlock;
  void give_back(void* ptr, size_t bytes, mem::Reservation&& res) noexcept;
  bool trim_largest();  // frees the largest cached block; false when none is cached

  struct Cached {
    void* ptr;
    mem::Reservation res;
  };
  mem::MemoryBudget& budget_;
  const int device_;
  const CachePolicy policy_;
  mutable std::mutex mu_;
  std::multimap<size_t, Cached> cache_;  // size class -> free blocks
  size_t cached_bytes_ = 0;
  size_t mallocs_ = 0;
};

// A non-blocking CUDA stream on the current device, destroyed with its owner (CUDA-free handle).
// Priority::high: the device's greatest stream priority, so that when the block scheduler has a
// choice its kernels' blocks go first. gpu_stage_priority() is what the GPU stage's streams get:
// high, a G2 MSM running beside a partition's H step and MSMs then fills the SMs they leave instead
// of holding them while the stage that bounds the pipeline waits. It is normal (every stream
// alike): measured on an H200 (6c4f443, bench/RESULTS.md), high only moved time from the H step
// to the H MSM; SPLITPROVE_STREAM_PRIORITY=1 in the environment makes it high.
class GpuStream {
 public:
  enum class Priority { normal, high };
  explicit GpuStream(Priority p = Priority::normal);
  static Priority gpu_stage_priority();
  ~GpuStream();
  GpuStream(const GpuStream&) = delete;
  GpuStream& operator=(const GpuStream&) = delete;
  CUstream_st* get() const { return s_; }
  void sync() const;
  int priority() const;  // as CUDA counts it: lower is more urgent

 private:
  CUstream_st* s_ = nullptr;
};

// Host <-> device copies on `stream` (synchronous when stream is null: they then wait).
void copy_to_device(void* dst, const void* src, size_t bytes, CUstream_st* stream = nullptr);
void copy_to_host(void* dst, const void* src, size_t bytes, CUstream_st* stream = nullptr);
void sync_stream(CUstream_st* stream);

// Host bytes upload_staged stages through (two pinned halves): what a device stage books for it.
inline constexpr size_t kUploadStagingBytes = size_t(12) << 20;

// Uploads `count` items of `item_bytes` each (at most half of kUploadStagingBytes) to dst, made on
// the host by fill(begin, end, out) — items [begin, end) written at out — in pinned staging: one
// half is filled, in parallel over the library's thread pool, while the other goes to the device
// by DMA. For data converted on the way (a key's points into the device layout): a pageable copy
// would go through the driver's own staging at a few GB/s, on one thread. Returns when every
// byte is on the device.
void upload_staged(void* dst, size_t count, size_t item_bytes,
                   const std::function<void(size_t begin, size_t end, void* out)>& fill);

}  // namespace splitprove::cuda
