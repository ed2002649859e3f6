#include "mem/pool.hpp"

#include <map>
#include <utility>
#include <vector>

namespace splitprove::mem {

std::uint64_t BufferPool::Lease::bytes() const {
  std::uint64_t n = 0;
  for (const auto& b : blocks_) n += b.paid.bytes();
  return n;
}

std::optional<BufferPool::Block> BufferPool::Lease::take(std::size_t mapped_bytes, bool pinned) {
  for (auto it = blocks_.begin(); it != blocks_.end(); ++it)
    if (it->pages.mapped_bytes() == mapped_bytes && it->pages.pinned() == pinned) {
      Block b = std::move(*it);
      blocks_.erase(it);
      return b;
    }
  return std::nullopt;
}

BufferPool::Lease BufferPool::lease(std::span<const std::pair<std::size_t, bool>> wants) {
  Lease l;
  top_up(l, wants);
  return l;
}

void BufferPool::top_up(Lease& l, std::span<const std::pair<std::size_t, bool>> wants) {
  // What the lease holds, by key; each want is covered by one of them or by an idle block.
  std::map<std::pair<std::size_t, bool>, std::size_t> held;
  for (const auto& b : l.blocks_) ++held[{b.pages.mapped_bytes(), b.pages.pinned()}];
  std::lock_guard lk(mu_);
  for (const auto& w : wants) {
    if (auto h = held.find(w); h != held.end() && h->second > 0) {
      --h->second;
      continue;
    }
    auto it = idle_.find(w);
    if (it == idle_.end()) continue;
    l.blocks_.push_back(std::move(it->second));
    idle_.erase(it);
    idle_bytes_ -= w.first;
    ++stats_.reused;
  }
}

void BufferPool::Subscription::reset() noexcept {
  if (!pool_) return;
  std::lock_guard lk(pool_->mu_);
  pool_->subscriber_.reset();
  pool_ = nullptr;
}

BufferPool::Subscription BufferPool::subscribe(std::shared_ptr<std::stop_source> wake) {
  std::lock_guard lk(mu_);
  subscriber_ = std::move(wake);
  Subscription s;
  s.pool_ = this;
  return s;
}

void BufferPool::put(PageMapping pages, Reservation paid) noexcept {
  if (!pages.data()) return;
  const std::size_t size = pages.mapped_bytes();
  // Keep only what is paid for in full, and never while someone waits for memory on that budget
  // (the idle block would hold bytes the waiter needs; reclaim would only free it again).
  const bool waiters = paid.budget() && paid.budget()->has_waiters();
  bool keep = paid.bytes() >= size && paid.budget();
  {
    std::lock_guard lk(mu_);
    keep = keep && (!waiters || subscriber_) && (max_idle_ == 0 || idle_bytes_ + size <= max_idle_);
    if (!keep) {
      ++stats_.dropped;
    } else {
      ++stats_.kept;
    }
  }
  if (keep) {
    try {
      paid.retag(Tag::pinned);
    } catch (...) {
      keep = false;
    }
  }
  if (!keep) {  // unmapped first, then given back (DESIGN §1.5)
    pages.unmap();
    paid.reset();
    return;
  }
  std::shared_ptr<std::stop_source> wake;
  const std::pair key{size, pages.pinned()};
  Block b{std::move(paid), std::move(pages)};
  try {
    std::lock_guard lk(mu_);
    idle_.emplace(key, std::move(b));
    idle_bytes_ += size;
    wake = subscriber_;
  } catch (...) {
    // No room for the entry (out of memory): b still holds the block and dies here, unmapped
    // and given back, like a dropped one.
    return;
  }
  if (wake) wake->request_stop();  // outside the lock: it cancels the taker's wait on the budget
}

void BufferPool::trim() noexcept {
  std::multimap<std::pair<std::size_t, bool>, Block> gone;
  {
    std::lock_guard lk(mu_);
    gone.swap(idle_);
    stats_.trimmed += gone.size();
    idle_bytes_ = 0;
  }
  // Each block unmaps its pages, then gives its bytes back (outside the lock: giving back grants
  // waiters, which may make buffers that come back here).
  gone.clear();
}

std::size_t BufferPool::idle_count(std::size_t mapped_bytes, bool pinned) const {
  std::lock_guard lk(mu_);
  return idle_.count({mapped_bytes, pinned});
}

BufferPool::Stats BufferPool::stats() const {
  std::lock_guard lk(mu_);
  Stats s = stats_;
  s.idle_blocks = idle_.size();
  s.idle_bytes = idle_bytes_;
  return s;
}

}  // namespace splitprove::mem
