#include "mem/budget.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "mem/units.hpp"

namespace splitprove::mem {

namespace {
constexpr std::array<std::string_view, kTagCount> kTagNames = {
    "synthesis", "gpu", "g2", "finalize", "srs", "pinned", "scratch", "other"};
}

std::string_view tag_name(Tag t) { return kTagNames[std::size_t(t)]; }

std::optional<Tag> parse_tag(std::string_view name) {
  for (Tag t : kAllTags)
    if (tag_name(t) == name) return t;
  return std::nullopt;
}

// ---- Reservation ------------------------------------------------------------------------------

Reservation::Reservation(Reservation&& o) noexcept
    : budget_(o.budget_), bytes_(o.bytes_), tag_(o.tag_) {
  o.budget_ = nullptr;
  o.bytes_ = 0;
}

Reservation& Reservation::operator=(Reservation&& o) noexcept {
  if (this != &o) {
    reset();
    budget_ = o.budget_;
    bytes_ = o.bytes_;
    tag_ = o.tag_;
    o.budget_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

void Reservation::release(std::uint64_t n) {
  if (n == 0) return;
  if (n > bytes_)
    throw BudgetError(fmt::format("reservation of {} ({}): cannot release {}, more than it holds",
                                  format_bytes(bytes_), tag_name(tag_), format_bytes(n)));
  bytes_ -= n;
  budget_->give_back(n, tag_, bytes_ == 0);
}

void Reservation::reset() noexcept {
  if (bytes_ != 0) {
    std::uint64_t n = bytes_;
    bytes_ = 0;
    budget_->give_back(n, tag_, true);
  }
}

void Reservation::retag(Tag t) {
  if (t == tag_) return;
  if (bytes_ != 0)
    budget_->move_books(bytes_, tag_, t, /*from_now_empty=*/true, /*to_is_new=*/true);
  tag_ = t;
}

Reservation Reservation::split(std::uint64_t n) { return split(n, tag_); }

Reservation Reservation::split(std::uint64_t n, Tag t) {
  if (n > bytes_)
    throw BudgetError(fmt::format("reservation of {} ({}): cannot split off {}, more than it holds",
                                  format_bytes(bytes_), tag_name(tag_), format_bytes(n)));
  if (n == 0) return Reservation{};
  budget_->move_books(n, tag_, t, /*from_now_empty=*/n == bytes_, /*to_is_new=*/true);
  bytes_ -= n;
  return Reservation(budget_, n, t);
}

void Reservation::absorb(Reservation&& other) {
  if (other.bytes_ == 0) return;
  if (bytes_ != 0 && other.budget_ != budget_)
    throw BudgetError("cannot merge reservations of two different budgets");
  if (bytes_ == 0) {  // an empty reservation adopts the other's budget and tag
    budget_ = other.budget_;
    tag_ = other.tag_;
  }
  budget_->move_books(other.bytes_, other.tag_, tag_, /*from_now_empty=*/true,
                      /*to_is_new=*/bytes_ == 0);
  bytes_ += other.bytes_;
  other.bytes_ = 0;
  other.budget_ = nullptr;
}

// ---- MemoryBudget -----------------------------------------------------------------------------

MemoryBudget::MemoryBudget(std::uint64_t capacity_bytes, std::string name)
    : capacity_(capacity_bytes), name_(std::move(name)) {}

MemoryBudget::~MemoryBudget() {
  std::lock_guard lk(mu_);
  if (used_ != 0 || !queue_.empty()) {
    // Reservations or waiters would now point at a dead budget: fail loudly, not silently.
    std::fprintf(stderr,
                 "splitprove: fatal: memory budget '%s' destroyed with %llu bytes still reserved "
                 "and %zu requests waiting\n",
                 name_.c_str(), static_cast<unsigned long long>(used_), queue_.size());
    for (Tag t : kAllTags)
      if (tags_[std::size_t(t)].bytes)
        std::fprintf(stderr, "  %s: %llu bytes in %llu reservations\n", tag_name(t).data(),
                     static_cast<unsigned long long>(tags_[std::size_t(t)].bytes),
                     static_cast<unsigned long long>(tags_[std::size_t(t)].live));
    std::abort();
  }
}

void MemoryBudget::check_size(std::uint64_t bytes, Tag tag) const {
  if (bytes > capacity_)
    throw BudgetError(fmt::format(
        "memory budget '{}': a request of {} for stage '{}' exceeds the whole budget of {} and "
        "could never be granted",
        name_, format_bytes(bytes), tag_name(tag), format_bytes(capacity_)));
}

void MemoryBudget::book_grant_locked(std::uint64_t bytes, Tag tag) {
  used_ += bytes;
  peak_ = std::max(peak_, used_);
  TagBooks& b = tags_[std::size_t(tag)];
  b.bytes += bytes;
  b.peak = std::max(b.peak, b.bytes);
  ++b.live;
  ++b.granted;
}

// Grants from the head of the queue for as long as the head fits. Called under mu_ by every path
// that frees bytes or changes the head (release, reset, cancel, a new higher-priority head).
void MemoryBudget::grant_waiters_locked() {
  while (!queue_.empty()) {
    Waiter* w = queue_.front();
    if (used_ + w->bytes > capacity_) break;  // the head waits; nobody overtakes it
    queue_.pop_front();
    waiting_bytes_ -= w->bytes;
    book_grant_locked(w->bytes, w->tag);
    w->granted = true;
    // Notify under the lock: the waiter cannot return (and destroy its cv) before we unlock.
    w->cv.notify_one();
  }
}

Reservation MemoryBudget::reserve(std::uint64_t bytes, Tag tag, const std::stop_token& stop,
                                  int priority) {
  check_size(bytes, tag);
  if (bytes == 0) return Reservation{};
  std::unique_lock lk(mu_);
  auto cancelled = [&] {
    return ReserveCancelled(
        fmt::format("memory budget '{}': request of {} for stage '{}' cancelled while waiting",
                    name_, format_bytes(bytes), tag_name(tag)));
  };
  if (stop.stop_requested()) {
    ++cancelled_;
    throw cancelled();
  }
  if (queue_.empty() && used_ + bytes <= capacity_) {
    book_grant_locked(bytes, tag);
    return Reservation(this, bytes, tag);
  }
  Waiter w;
  w.bytes = bytes;
  w.tag = tag;
  w.priority = priority;
  // Queue order: higher priority first, FIFO among equals (insert after every entry whose
  // priority is >= ours).
  auto pos = std::find_if(queue_.begin(), queue_.end(),
                          [&](const Waiter* q) { return q->priority < priority; });
  auto it = queue_.insert(pos, &w);
  waiting_bytes_ += bytes;
  grant_waiters_locked();  // we may have become a head that fits (priority insertion)
  if (!w.granted && reclaim_) {
    // Queued first, then reclaimed: a holder of idle memory that checks has_waiters() from now on
    // frees instead of keeping, so nothing idle can be kept after this call while we wait. The
    // hook runs unlocked (it gives bytes back, which grants waiters under the lock).
    auto reclaim = reclaim_;  // shared: a concurrent set_reclaim cannot free it under us
    lk.unlock();
    for (const auto& [id, fn] : *reclaim) fn();
    lk.lock();
  }
  if (!w.cv.wait(lk, stop, [&] { return w.granted; })) {
    // Cancelled and not granted: we are still queued. Leave, and let whoever was behind us
    // try again (removing a head that did not fit may let smaller ones through).
    queue_.erase(it);
    waiting_bytes_ -= bytes;
    ++cancelled_;
    grant_waiters_locked();
    throw cancelled();
  }
  return Reservation(this, bytes, tag);
}

std::optional<Reservation> MemoryBudget::try_reserve(std::uint64_t bytes, Tag tag) {
  check_size(bytes, tag);
  if (bytes == 0) return Reservation{};
  std::lock_guard lk(mu_);
  if (!queue_.empty() || used_ + bytes > capacity_) return std::nullopt;
  book_grant_locked(bytes, tag);
  return Reservation(this, bytes, tag);
}

void MemoryBudget::set_reclaim(std::function<void()> fn) {
  std::lock_guard lk(mu_);
  reclaim_ = nullptr;
  if (fn)
    reclaim_ = std::make_shared<const std::vector<std::pair<std::uint64_t, std::function<void()>>>>(
        1, std::pair{next_reclaim_id_++, std::move(fn)});
}

std::uint64_t MemoryBudget::add_reclaim(std::function<void()> fn) {
  std::lock_guard lk(mu_);
  auto next = reclaim_ ? std::make_shared<std::vector<std::pair<std::uint64_t, std::function<void()>>>>(*reclaim_)
                       : std::make_shared<std::vector<std::pair<std::uint64_t, std::function<void()>>>>();
  const std::uint64_t id = next_reclaim_id_++;
  next->emplace_back(id, std::move(fn));
  reclaim_ = std::move(next);
  return id;
}

void MemoryBudget::remove_reclaim(std::uint64_t id) {
  std::lock_guard lk(mu_);
  if (!reclaim_) return;
  auto next = std::make_shared<std::vector<std::pair<std::uint64_t, std::function<void()>>>>(*reclaim_);
  std::erase_if(*next, [&](const auto& e) { return e.first == id; });
  reclaim_ = next->empty() ? nullptr : std::move(next);
}

bool MemoryBudget::has_waiters() const {
  std::lock_guard lk(mu_);
  return !queue_.empty();
}

BudgetBooks MemoryBudget::books() const {
  std::lock_guard lk(mu_);
  BudgetBooks b;
  b.name = name_;
  b.capacity = capacity_;
  b.used = used_;
  b.peak = peak_;
  b.waiting = queue_.size();
  b.waiting_bytes = waiting_bytes_;
  b.head_bytes = queue_.empty() ? 0 : queue_.front()->bytes;
  b.cancelled = cancelled_;
  b.tags = tags_;
  return b;
}

void MemoryBudget::give_back(std::uint64_t bytes, Tag tag, bool reservation_now_empty) {
  std::lock_guard lk(mu_);
  used_ -= bytes;
  TagBooks& b = tags_[std::size_t(tag)];
  b.bytes -= bytes;
  if (reservation_now_empty) --b.live;
  grant_waiters_locked();
}

void MemoryBudget::move_books(std::uint64_t bytes, Tag from, Tag to, bool from_now_empty,
                              bool to_is_new) {
  std::lock_guard lk(mu_);
  TagBooks& f = tags_[std::size_t(from)];
  TagBooks& t = tags_[std::size_t(to)];
  f.bytes -= bytes;
  if (from_now_empty) --f.live;
  t.bytes += bytes;
  t.peak = std::max(t.peak, t.bytes);
  if (to_is_new) ++t.live;
}

}  // namespace splitprove::mem
