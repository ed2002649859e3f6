#pragma once
// MemoryBudget: a byte budget that every large allocation is reserved against *before* it is made
// (DESIGN §1.2), with live books per stage tag so that a sampler can show who holds what.
//
// Ownership and lifetime
//   * A `Reservation` is a move-only claim on `bytes()` bytes of one budget. Whoever holds the
//     Reservation owns those bytes; they go back to the budget when the Reservation is destroyed,
//     reset, or partly released. It travels with the work item from stage to stage (`retag`),
//     and can be cut into pieces (`split`) so that each buffer of an item carries its own share.
//   * The budget must outlive every Reservation made from it and every waiting `reserve` call.
//     Destroying a budget that still has outstanding reservations is a programming error: it
//     prints the books and aborts (a Reservation would otherwise point at freed memory).
//
// Granting order (why a big request is never starved)
//   Waiting requests form one queue ordered by priority (higher first), then by arrival. Only the
//   head of that queue may be granted; a request behind it waits even when it would fit in the free
//   bytes. So a 100 GiB request that arrives while small requests keep coming is granted as soon as
//   the bytes that were in use *when it arrived* drain: nothing that arrives later overtakes it.
//   `try_reserve` obeys the same rule: it fails while anyone is waiting.
//
// Wake-ups
//   Grants are made by whoever returns bytes (release/reset/cancel), under the budget's mutex: the
//   bytes are booked on the waiter's behalf *before* it is woken, and each waiter has its own
//   condition variable. A waiter never needs to "notice" free bytes itself, so there is no window
//   in which a release can be missed (no lost wake-ups) and no thundering herd.
#include <array>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <list>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <vector>
#include <string_view>

#include "splitprove/error.hpp"

namespace splitprove::mem {

// Stage tags for the books. A tag says which stage holds the bytes *now*; it changes as the work
// moves (`Reservation::retag`). `srs` (proving key), `pinned` (buffer pools: idle recycled
// buffers, pinned when a device backend asks, mem/pool.hpp) and `scratch` are long-lived holders
// that are not work items.
enum class Tag : std::uint8_t { synthesis, gpu, g2, finalize, srs, pinned, scratch, other };
inline constexpr std::size_t kTagCount = 8;
inline constexpr std::array<Tag, kTagCount> kAllTags = {Tag::synthesis, Tag::gpu,  Tag::g2,
                                                        Tag::finalize,  Tag::srs,  Tag::pinned,
                                                        Tag::scratch,   Tag::other};

std::string_view tag_name(Tag t);
std::optional<Tag> parse_tag(std::string_view name);

// A request can never be granted (it is larger than the whole budget) or the budget is misused.
class BudgetError : public Error {
 public:
  using Error::Error;
};

// A waiting `reserve` was cancelled through its stop token; nothing was reserved.
class ReserveCancelled : public Error {
 public:
  using Error::Error;
};

struct TagBooks {
  std::uint64_t bytes = 0;    // held now under this tag
  std::uint64_t peak = 0;     // most ever held at once under this tag
  std::uint64_t live = 0;     // reservations (holding > 0 bytes) carrying this tag now
  std::uint64_t granted = 0;  // reservations ever granted with this tag (by reserve/try_reserve)
};

struct BudgetBooks {
  std::string name;
  std::uint64_t capacity = 0;
  std::uint64_t used = 0;           // sum of tags[*].bytes
  std::uint64_t peak = 0;           // most ever used at once
  std::uint64_t waiting = 0;        // requests blocked in reserve()
  std::uint64_t waiting_bytes = 0;  // bytes they ask for
  std::uint64_t head_bytes = 0;     // bytes the head of the queue waits for (0: none waiting).
                                    // Invariant: used + head_bytes > capacity whenever waiting.
  std::uint64_t cancelled = 0;      // waits ended by a stop token
  std::array<TagBooks, kTagCount> tags{};

  const TagBooks& operator[](Tag t) const { return tags[std::size_t(t)]; }
};

class MemoryBudget;

class Reservation {
 public:
  Reservation() = default;  // empty: holds nothing, belongs to no budget
  Reservation(Reservation&& o) noexcept;
  Reservation& operator=(Reservation&& o) noexcept;
  Reservation(const Reservation&) = delete;
  Reservation& operator=(const Reservation&) = delete;
  ~Reservation() { reset(); }

  std::uint64_t bytes() const { return bytes_; }
  Tag tag() const { return tag_; }
  bool empty() const { return bytes_ == 0; }
  MemoryBudget* budget() const { return budget_; }

  // Gives `n` of the held bytes back to the budget now (and grants waiters that now fit).
  // Call this only once the memory they stood for is really gone (DESIGN §1.5).
  void release(std::uint64_t n);
  // Gives everything back; the reservation becomes empty.
  void reset() noexcept;
  // The work moved to another stage: the bytes now count under `t`.
  void retag(Tag t);
  // Cuts `n` bytes off into a new reservation (same budget), tagged `t` (default: this tag).
  // Used to give each buffer of a work item its own share of the item's admission reservation.
  Reservation split(std::uint64_t n);
  Reservation split(std::uint64_t n, Tag t);
  // Takes over another reservation of the same budget (its bytes join this one, under this tag).
  void absorb(Reservation&& other);

 private:
  friend class MemoryBudget;
  Reservation(MemoryBudget* b, std::uint64_t bytes, Tag tag)
      : budget_(b), bytes_(bytes), tag_(tag) {}
  MemoryBudget* budget_ = nullptr;
  std::uint64_t bytes_ = 0;
  Tag tag_ = Tag::other;
};

class MemoryBudget {
 public:
  explicit MemoryBudget(std::uint64_t capacity_bytes, std::string name = "host");
  ~MemoryBudget();
  MemoryBudget(const MemoryBudget&) = delete;
  MemoryBudget& operator=(const MemoryBudget&) = delete;

  // Blocks until `bytes` can be granted in queue order (see the top of this file). Throws
  // BudgetError at once if `bytes` exceeds the capacity, ReserveCancelled if `stop` is requested
  // while waiting (or before). `priority`: higher is served first; equal priorities are FIFO.
  // A request of 0 bytes returns an empty reservation at once.
  Reservation reserve(std::uint64_t bytes, Tag tag, const std::stop_token& stop = {},
                      int priority = 0);

  // Grants at once if the bytes fit and nobody is waiting; otherwise returns nullopt.
  // Throws BudgetError if `bytes` exceeds the capacity.
  std::optional<Reservation> try_reserve(std::uint64_t bytes, Tag tag);

  // Idle memory that can be given back on demand (mem::BufferPool's idle blocks): `fn` is called,
  // without the budget's lock, whenever a reserve() is about to wait, after it has been queued;
  // it should give back what it holds idle (holders check has_waiters() before keeping more).
  // Empty: none. Set it before the budget is shared between threads, clear it before its holder dies.
  // Replaces every hook added below.
  void set_reclaim(std::function<void()> fn);
  // Several holders of idle memory on one budget (engines sharing it): each adds its hook, and
  // every hook runs when a reserve() is about to wait. A hook may still be running in another
  // thread just after remove_reclaim() returns: it must not reach into a dead holder (capture a
  // weak_ptr to it).
  std::uint64_t add_reclaim(std::function<void()> fn);
  void remove_reclaim(std::uint64_t id);
  // Whether any reserve() is waiting now.
  bool has_waiters() const;

  BudgetBooks books() const;
  std::uint64_t capacity() const { return capacity_; }
  const std::string& name() const { return name_; }

 private:
  friend class Reservation;
  struct Waiter {
    std::uint64_t bytes = 0;
    Tag tag = Tag::other;
    int priority = 0;
    bool granted = false;
    std::condition_variable_any cv;  // lives on the waiting thread's stack
  };

  void check_size(std::uint64_t bytes, Tag tag) const;
  void book_grant_locked(std::uint64_t bytes, Tag tag);
  void grant_waiters_locked();
  void give_back(std::uint64_t bytes, Tag tag, bool reservation_now_empty);
  void move_books(std::uint64_t bytes, Tag from, Tag to, bool from_now_empty, bool to_is_new);

  const std::uint64_t capacity_;
  const std::string name_;
  mutable std::mutex mu_;
  std::list<Waiter*> queue_;  // waiting requests; front is the only one that may be granted
  std::uint64_t used_ = 0;
  std::uint64_t peak_ = 0;
  std::uint64_t waiting_bytes_ = 0;
  std::uint64_t cancelled_ = 0;
  std::array<TagBooks, kTagCount> tags_{};
  // Copied on write: reserve() runs a snapshot without the lock.
  std::shared_ptr<const std::vector<std::pair<std::uint64_t, std::function<void()>>>> reclaim_;
  std::uint64_t next_reclaim_id_ = 1;
};

}  // namespace splitprove::mem
