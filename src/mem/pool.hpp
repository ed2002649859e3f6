#pragma once
// BufferPool: the mappings of dead buffers kept for the next buffer of the same size (DESIGN §1.5,
// §1.6: "pinned pools" are booked like everything else).
//
// Why: a pipeline maps and unmaps the same few partition-sized buffers over and over. A fresh
// mapping is faulted in page by page by whoever writes it first, its munmap stalls every thread
// that faults pages meanwhile, and a device copies it only through the driver's pageable path.
// A pool keeps the dead buffer's pages mapped (and pinned, when the buffers are made with
// BufferOptions::pin) and hands them to the next buffer of the same mapped size.
//
// Under a tight budget the engine's admission subscribes (one at a time) and takes dead buffers'
// pages as they come, instead of waiting for them to be unmapped and mapping fresh ones.
//
// Books. An idle block stays booked: the reservation that paid for the dead buffer moves into the
// pool with its pages (retagged `pinned`), so the books never show as free what is still mapped.
// When the block is reused, that same reservation pays for the buffer made from it (through a
// Lease, taken before the work item's admission, which then reserves only the rest). Idle blocks
// never make anyone wait: the pool gives them back to the OS and the budget (trim) when a
// reserve() on that budget has to wait (MemoryBudget::set_reclaim, which the owner of the pool
// sets), and it does not keep a block while anyone waits on its budget unless a taker is
// subscribed (below).
//
// Lifetime: buffers hold the pool by shared_ptr, so it outlives them; its owner trims it (or lets
// it die) before the budget dies.
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <span>
#include <utility>
#include <vector>

#include "mem/budget.hpp"
#include "mem/pages.hpp"

namespace splitprove::mem {

class BufferPool {
 public:
  // An idle mapping and the reservation that pays for it.
  struct Block {
    Reservation paid;  // dies after pages (members die in reverse order): unmap, then give back
    PageMapping pages;
  };
  struct Stats {
    std::uint64_t kept = 0;     // dead buffers whose pages the pool kept
    std::uint64_t reused = 0;   // buffers made from a kept block
    std::uint64_t dropped = 0;  // dead buffers unmapped at once (someone waited, or no room)
    std::uint64_t trimmed = 0;  // idle blocks unmapped by trim()
    std::size_t idle_blocks = 0;
    std::uint64_t idle_bytes = 0;
  };

  // `max_idle_bytes`: the most the pool keeps idle (0: no limit beyond the budget's).
  explicit BufferPool(std::uint64_t max_idle_bytes = 0) : max_idle_(max_idle_bytes) {}
  ~BufferPool() { trim(); }
  BufferPool(const BufferPool&) = delete;
  BufferPool& operator=(const BufferPool&) = delete;

  // Idle blocks taken out for the buffers of one work item, each still paid by its own
  // reservation (so the item's admission reserves only the rest: nothing is booked twice).
  // Buffer::carve with the lease takes them; what is left when the lease dies is unmapped.
  class Lease {
   public:
    std::uint64_t bytes() const;
    std::size_t size() const { return blocks_.size(); }
    // The block of exactly `mapped_bytes` and this pinning, if the lease holds one.
    std::optional<Block> take(std::size_t mapped_bytes, bool pinned);

   private:
    friend class BufferPool;
    std::vector<Block> blocks_;
  };
  // At most one idle block for each (mapped bytes, pinned) of `wants`.
  Lease lease(std::span<const std::pair<std::size_t, bool>> wants);
  // Adds idle blocks to `l` for the entries of `wants` it does not cover yet (counted by size).
  void top_up(Lease& l, std::span<const std::pair<std::size_t, bool>> wants);

  // One waiting taker at a time (the engine's admission, which holds a lease while it waits for
  // the rest of its bytes): while subscribed, a dead buffer is kept even when someone waits on the
  // budget, and `wake` is stopped after each put so the taker tops its lease up. Without a
  // subscriber a waiter on the budget means the bytes are needed elsewhere: dead buffers are
  // unmapped at once.
  class Subscription {
   public:
    Subscription() = default;
    Subscription(Subscription&& o) noexcept : pool_(std::exchange(o.pool_, nullptr)) {}
    Subscription& operator=(Subscription&& o) noexcept {
      if (this != &o) {
        reset();
        pool_ = std::exchange(o.pool_, nullptr);
      }
      return *this;
    }
    ~Subscription() { reset(); }
    void reset() noexcept;

   private:
    friend class BufferPool;
    BufferPool* pool_ = nullptr;
  };
  Subscription subscribe(std::shared_ptr<std::stop_source> wake);
  // A dead buffer's pages and the reservation that paid for them: kept for reuse, or unmapped and
  // given back now when someone waits on the reservation's budget or the pool is full.
  void put(PageMapping pages, Reservation paid) noexcept;
  // Unmaps every idle block; their bytes go back to their budgets.
  void trim() noexcept;
  Stats stats() const;
  // Idle blocks of exactly `mapped_bytes` and this pinning.
  std::size_t idle_count(std::size_t mapped_bytes, bool pinned) const;

 private:
  const std::uint64_t max_idle_;
  mutable std::mutex mu_;
  std::multimap<std::pair<std::size_t, bool>, Block> idle_;  // by (mapped bytes, pinned)
  std::uint64_t idle_bytes_ = 0;
  Stats stats_;
  std::shared_ptr<std::stop_source> subscriber_;
};

}  // namespace splitprove::mem
