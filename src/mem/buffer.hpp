#pragma once
// Buffer<T>: a large, page-backed, budgeted array (DESIGN §1.1, §1.5, §1.6).
//
// Ownership and lifetime
//   * A Buffer is move-only and is the one owner of its pages. Whoever holds the Buffer owns the
//     memory; nobody else may keep a pointer into it past the Buffer's life (no raw pointer crosses
//     a stage boundary: hand over the Buffer itself, or a compact copy).
//   * It also owns the Reservation that pays for its pages. The destructor (or `reset()`) first
//     munmaps, and only after munmap has returned gives the bytes back to the budget, so the books
//     never show memory as free while the OS still has it resident.
//   * It is sized once, at creation; it never grows. Contents start zeroed (fresh anonymous pages).
//   * T must be trivially copyable and destructible (field elements, integers): no constructors or
//     destructors are run for the elements.
#include <fmt/format.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "mem/budget.hpp"
#include "mem/pages.hpp"
#include "mem/pool.hpp"
#include "mem/units.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::mem {

// Where buffers go when they die instead of being unmapped: the reference design's policy (the
// synthesis output held until the proof is finalized; mem::Policy::held_until_finalize), for
// comparison runs only (pipeline::EngineConfig::policy). A buffer given a keeper
// (Buffer::keep_until) hands its pages and reservation to it when it is reset, still mapped and
// still booked; they are unmapped (or given to their pool) and paid back when the keeper dies.
class Keeper {
 public:
  Keeper() = default;
  Keeper(const Keeper&) = delete;
  Keeper& operator=(const Keeper&) = delete;
  ~Keeper() {
    for (auto& k : kept_) {
      if (k.pool) k.pool->put(std::move(k.pages), std::move(k.paid));
      k.pages.unmap();  // then the reservation, as a Buffer does
      k.paid.reset();
    }
  }
  void keep(std::shared_ptr<BufferPool> pool, PageMapping pages, Reservation paid) {
    std::lock_guard lk(mu_);
    kept_.push_back({std::move(pool), std::move(paid), std::move(pages)});
  }
  std::uint64_t bytes() const {
    std::lock_guard lk(mu_);
    std::uint64_t b = 0;
    for (const auto& k : kept_) b += k.paid.bytes();
    return b;
  }

 private:
  struct Kept {
    std::shared_ptr<BufferPool> pool;
    Reservation paid;
    PageMapping pages;
  };
  mutable std::mutex mu_;
  std::vector<Kept> kept_;
};

template <class T>
class Buffer {
  static_assert(std::is_trivially_copyable_v<T> && std::is_trivially_destructible_v<T>,
                "Buffer<T> holds raw pages: T must be trivially copyable and destructible");

 public:
  Buffer() = default;

  // Takes `reservation` (which must cover `bytes_for(count, opts)`) and maps the pages. Bytes the
  // reservation holds beyond what the mapping needs are given back to the budget at once.
  Buffer(std::size_t count, Reservation reservation, const BufferOptions& opts = {})
      : count_(count) {
    const std::size_t need = bytes_for(count, opts);
    if (reservation.bytes() < need)
      throw BudgetError(
          fmt::format("a buffer of {} elements needs a reservation of {} but was given {}", count,
                      format_bytes(need), format_bytes(reservation.bytes())));
    reservation.release(reservation.bytes() - need);
    pages_ = PageMapping(count * sizeof(T), opts);  // may throw: the reservation then dies too
    reservation_ = std::move(reservation);
  }

  // Cuts this buffer's share out of a larger reservation (typically a work item's admission
  // reservation, which paid for the item's whole life) and maps it. The share travels with the
  // buffer and goes back to the budget when the buffer dies, not back to `from`.
  static Buffer carve(Reservation& from, std::size_t count, const BufferOptions& opts = {}) {
    return Buffer(count, from.split(bytes_for(count, opts)), opts);
  }

  // carve() for a buffer whose pages are recycled (mem/pool.hpp): when `lease` holds a block of
  // this mapped size, the buffer takes its pages (zeroed here, on the thread pool, unless
  // `zero_reused` is false: the caller then writes every element before reading any) and the
  // block's reservation pays for them (retagged like `from`); else the pages are mapped fresh
  // (zero) and the share carved from `from` pays. Either way, when this buffer dies its pages and
  // reservation go to `pool` instead of to the OS. A null pool is plain carve().
  static Buffer carve(Reservation& from, std::size_t count, const BufferOptions& opts,
                      const std::shared_ptr<BufferPool>& pool,
                      BufferPool::Lease* lease = nullptr, bool zero_reused = true) {
    if (!pool) return carve(from, count, opts);
    const std::size_t need = bytes_for(count, opts);
    Buffer b;
    std::optional<BufferPool::Block> blk;
    if (lease) blk = lease->take(need, pins_pages(opts));
    if (blk) {
      blk->paid.retag(from.tag());
      b.reservation_ = std::move(blk->paid);
      b.pages_ = std::move(blk->pages);
      b.count_ = count;
      if (zero_reused) zero(b.pages_.data(), need);
    } else {
      b = carve(from, count, opts);
    }
    b.pool_ = pool;
    return b;
  }

  // A buffer outside any budget. For tests and tools only: production buffers are budgeted.
  static Buffer unbudgeted(std::size_t count, const BufferOptions& opts = {}) {
    Buffer b;
    b.count_ = count;
    b.pages_ = PageMapping(count * sizeof(T), opts);
    return b;
  }

  // What a buffer of `count` elements charges its budget: whole (huge) pages.
  static std::size_t bytes_for(std::size_t count, const BufferOptions& opts = {}) {
    return mapped_size(count * sizeof(T), opts);
  }

  Buffer(Buffer&& o) noexcept
      : pool_(std::move(o.pool_)),
        keeper_(std::move(o.keeper_)),
        reservation_(std::move(o.reservation_)),
        pages_(std::move(o.pages_)),
        count_(o.count_) {
    o.count_ = 0;
  }
  Buffer& operator=(Buffer&& o) noexcept {
    if (this != &o) {
      reset();
      pool_ = std::move(o.pool_);
      keeper_ = std::move(o.keeper_);
      pages_ = std::move(o.pages_);
      reservation_ = std::move(o.reservation_);
      count_ = o.count_;
      o.count_ = 0;
    }
    return *this;
  }

  // From now on this buffer's death hands its memory to `k` (see Keeper) instead of freeing it.
  void keep_until(std::shared_ptr<Keeper> k) { keeper_ = std::move(k); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() { reset(); }

  // Releases the memory now: munmap first, then the budget. The buffer becomes empty. A buffer
  // made through a pool gives its pages and its reservation to the pool instead (which keeps them
  // booked, or unmaps and gives back at once: BufferPool::put).
  void reset() noexcept {
    if (keeper_) {
      if (pages_.mapped_bytes() > 0 || !reservation_.empty())
        keeper_->keep(std::move(pool_), std::move(pages_), std::move(reservation_));
      keeper_.reset();
      pool_.reset();
      count_ = 0;
      return;
    }
    if (pool_) {
      pool_->put(std::move(pages_), std::move(reservation_));
      pool_.reset();
    }
    pages_.unmap();
    reservation_.reset();
    count_ = 0;
  }

  // Unmaps the pages now but keeps paying for them: the reservation is handed to the caller,
  // who may let later work (e.g. a stage's scratch) use those bytes before giving them back. The
  // buffer becomes empty.
  [[nodiscard]] Reservation unmap_keep_reservation() noexcept {
    if (keeper_) {  // kept, mapped and paid for, until the keeper dies: nothing to hand on
      reset();
      return {};
    }
    pool_.reset();  // the pages are unmapped, not kept
    pages_.unmap();
    count_ = 0;
    return std::move(reservation_);
  }

  // The buffer moved to another stage: its bytes now count under `t` in the books.
  void retag(Tag t) { reservation_.retag(t); }

  T* data() { return static_cast<T*>(pages_.data()); }
  const T* data() const { return static_cast<const T*>(pages_.data()); }
  std::size_t size() const { return count_; }
  bool empty() const { return count_ == 0; }
  std::size_t size_bytes() const { return count_ * sizeof(T); }
  std::size_t mapped_bytes() const { return pages_.mapped_bytes(); }
  bool pinned() const { return pages_.pinned(); }
  const Reservation& reservation() const { return reservation_; }

  T& operator[](std::size_t i) { return data()[i]; }
  const T& operator[](std::size_t i) const { return data()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + count_; }
  const T* begin() const { return data(); }
  const T* end() const { return data() + count_; }
  std::span<T> span() { return {data(), count_}; }
  std::span<const T> span() const { return {data(), count_}; }

 private:
  // Zeroes a reused block (its last owner's data) on the library's thread pool.
  static void zero(void* p, std::size_t bytes) {
    constexpr std::size_t kChunk = std::size_t(4) << 20;
    auto* c = static_cast<unsigned char*>(p);
    util::parallel_for((bytes + kChunk - 1) / kChunk, [&](std::size_t lo, std::size_t hi) {
      const std::size_t end = std::min(bytes, hi * kChunk);
      std::memset(c + lo * kChunk, 0, end - lo * kChunk);
    });
  }

  // Members die in reverse order: pages_ (munmap) before reservation_ (budget). reset() makes the
  // same order explicit. pool_ dies last: the pool outlives what it must take back.
  std::shared_ptr<BufferPool> pool_;
  std::shared_ptr<Keeper> keeper_;
  Reservation reservation_;
  PageMapping pages_;
  std::size_t count_ = 0;
};

}  // namespace splitprove::mem
