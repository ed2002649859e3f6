#pragma once
// The bounded queue in front of each pipeline stage. It hands out the item of lowest order first
// (the engine orders by (job id, partition index): the oldest job's lowest partition), and its
// bound counts items *and* slots taken ahead: a worker takes a slot in the next stage's queue
// (acquire_slot) before it starts work, so it never finishes work whose output has nowhere to
// go, and items plus slots never exceed the bound. Entering the queue is the hand-off: `enter`
// runs on the item under the queue's lock (the engine retags the item's bytes to the stage).
//
// T is a move-only handle with an empty state (std::unique_ptr): pop() returns it empty on
// shutdown, and push() leaves the item with the caller when it refuses it.
#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <utility>
#include <vector>

namespace splitprove::pipeline {

template <class T>
class StageQueue {
 public:
  using Order = std::function<std::pair<std::uint64_t, std::uint64_t>(const T&)>;
  using Enter = std::function<void(T&)>;

  StageQueue(std::size_t bound, Order order, Enter enter = {})
      : bound_(bound), order_(std::move(order)), enter_(std::move(enter)) {}

  // Takes a slot (blocks while items + slots are at the bound). False on shutdown.
  bool acquire_slot() {
    std::unique_lock lk(mu_);
    not_full_.wait(lk, [&] { return shut_ || items_.size() + slots_ < bound_; });
    if (shut_) return false;
    ++slots_;
    note_locked();
    return true;
  }
  // Gives back a slot taken by acquire_slot() and not used by push().
  void release_slot() {
    std::lock_guard lk(mu_);
    --slots_;
    not_full_.notify_one();
  }
  // Enters `it` in order, using a slot taken before when `slot_taken`, else waiting while full.
  // False on shutdown: the item stays with the caller (a taken slot is given back either way).
  bool push(T& it, bool slot_taken) {
    std::unique_lock lk(mu_);
    if (!slot_taken) not_full_.wait(lk, [&] { return shut_ || items_.size() + slots_ < bound_; });
    if (slot_taken) --slots_;
    if (shut_) return false;
    if (enter_) enter_(it);
    const auto key = order_(it);
    auto pos = std::find_if(items_.begin(), items_.end(),
                            [&](const T& o) { return order_(o) > key; });
    items_.insert(pos, std::move(it));
    note_locked();
    not_empty_.notify_one();
    return true;
  }
  // The item of lowest order (blocks while empty); an empty T on shutdown.
  T pop() {
    std::unique_lock lk(mu_);
    not_empty_.wait(lk, [&] { return shut_ || !items_.empty(); });
    if (shut_) return T{};
    T it = std::move(items_.front());
    items_.pop_front();
    not_full_.notify_one();
    return it;
  }
  // Takes out every item for which `pred` holds; the caller destroys them (outside the lock).
  template <class Pred>
  std::vector<T> purge(Pred pred) {
    std::vector<T> out;
    std::lock_guard lk(mu_);
    for (auto i = items_.begin(); i != items_.end();) {
      if (pred(*i)) {
        out.push_back(std::move(*i));
        i = items_.erase(i);
      } else {
        ++i;
      }
    }
    if (!out.empty()) not_full_.notify_all();
    return out;
  }
  // Refuses everything from now on, wakes every waiter and returns the items still queued.
  std::vector<T> shutdown() {
    std::lock_guard lk(mu_);
    shut_ = true;
    std::vector<T> out;
    for (auto& i : items_) out.push_back(std::move(i));
    items_.clear();
    not_full_.notify_all();
    not_empty_.notify_all();
    return out;
  }
  // The most items + slots held at once so far (never above the bound).
  std::uint64_t max_seen() const {
    std::lock_guard lk(mu_);
    return max_seen_;
  }
  std::size_t size() const {
    std::lock_guard lk(mu_);
    return items_.size();
  }

 private:
  void note_locked() { max_seen_ = std::max<std::uint64_t>(max_seen_, items_.size() + slots_); }

  const std::size_t bound_;
  const Order order_;
  const Enter enter_;
  mutable std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<T> items_;
  std::size_t slots_ = 0;
  std::uint64_t max_seen_ = 0;
  bool shut_ = false;
};

}  // namespace splitprove::pipeline
