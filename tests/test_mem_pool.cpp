// BufferPool: a dead buffer's pages serve the next buffer of the same size; idle pages stay booked
// and go back when someone has to wait for memory (MemoryBudget::set_reclaim).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>

#include "mem/buffer.hpp"
#include "mem/pool.hpp"

using namespace splitprove::mem;

namespace {
constexpr std::size_t kCount = (std::size_t(8) << 20) / sizeof(std::uint64_t);  // 8 MiB

void fill(Buffer<std::uint64_t>& b, std::uint64_t v) {
  for (auto& x : b) x = v;
}
}  // namespace

TEST(MemPool, ADeadBuffersPagesServeTheNextBufferZeroedAndStayBookedWhileIdle) {
  MemoryBudget budget(64 * MiB);
  auto pool = std::make_shared<BufferPool>();
  const void* first = nullptr;
  {
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool);
    EXPECT_EQ(b.size(), kCount);
    fill(b, 0xabcdef);
    first = b.data();
    EXPECT_EQ(budget.books().used, 8 * MiB);
  }
  // Dead: the pages are idle in the pool, still mapped, still booked (tag pinned).
  auto books = budget.books();
  EXPECT_EQ(books.used, 8 * MiB);
  EXPECT_EQ(books[Tag::pinned].bytes, 8 * MiB);
  EXPECT_EQ(books[Tag::synthesis].bytes, 0u);
  EXPECT_EQ(pool->stats().idle_blocks, 1u);
  EXPECT_EQ(pool->stats().kept, 1u);
  {
    const std::pair<std::size_t, bool> wants[] = {{8 * MiB, false}, {8 * MiB, false}};
    auto lease = pool->lease(wants);  // one block is idle: the lease holds it, still paid
    EXPECT_EQ(lease.size(), 1u);
    EXPECT_EQ(lease.bytes(), 8 * MiB);
    EXPECT_EQ(pool->stats().idle_blocks, 0u);
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);  // the second buffer's share
    EXPECT_EQ(budget.books().used, 16 * MiB);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool, &lease);
    EXPECT_EQ(static_cast<const void*>(b.data()), first);  // the same pages
    for (auto x : b) ASSERT_EQ(x, 0u);                       // zeroed for the new owner
    EXPECT_EQ(adm.bytes(), 8 * MiB);  // the lease paid for it, not the admission
    EXPECT_EQ(lease.size(), 0u);
    auto c = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool, &lease);  // the lease is empty
    EXPECT_NE(static_cast<const void*>(c.data()), first);
    EXPECT_EQ(adm.bytes(), 0u);
    books = budget.books();
    EXPECT_EQ(books.used, 16 * MiB);
    EXPECT_EQ(books[Tag::pinned].bytes, 0u);
    EXPECT_EQ(books[Tag::synthesis].bytes, 16 * MiB);
    EXPECT_EQ(pool->stats().reused, 1u);
    fill(b, 0x5eed);  // what its next owner finds unless the pages are zeroed
  }
  EXPECT_EQ(pool->stats().idle_blocks, 2u);
  {
    // A caller that writes every element before it reads one takes the pages as they are
    // (zero_reused false: the pipeline's G2 input, and a, b, z of a source that fills every value).
    const std::pair<std::size_t, bool> one[] = {{8 * MiB, false}, {8 * MiB, false}};
    auto lease = pool->lease(one);
    Reservation adm = budget.reserve(0, Tag::synthesis);
    auto x = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool, &lease, false);
    auto y = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool, &lease, false);
    const bool x_kept = x[0] == 0x5eed, y_kept = y[0] == 0x5eed;
    EXPECT_NE(x_kept, y_kept);  // one holds b's old values, the other c's zeros
    const auto& old = x_kept ? x : y;
    for (auto v : old) ASSERT_EQ(v, 0x5eedu);
    EXPECT_EQ(pool->stats().reused, 3u);
  }
  EXPECT_EQ(pool->stats().idle_blocks, 2u);
  pool->trim();
  EXPECT_EQ(budget.books().used, 0u);
  EXPECT_EQ(pool->stats().trimmed, 2u);
}

TEST(MemPool, ALeaseThatDiesUnusedUnmapsItsPagesAndGivesTheirBytesBack) {
  MemoryBudget budget(64 * MiB);
  auto pool = std::make_shared<BufferPool>();
  {
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool);
  }
  const std::pair<std::size_t, bool> wants[] = {{8 * MiB, false}};
  {
    auto lease = pool->lease(wants);
    EXPECT_EQ(budget.books().used, 8 * MiB);
  }
  EXPECT_EQ(budget.books().used, 0u);
  EXPECT_EQ(pool->stats().idle_blocks, 0u);
}

TEST(MemPool, OnlyTheSameMappedSizeIsReused) {
  MemoryBudget budget(64 * MiB);
  auto pool = std::make_shared<BufferPool>();
  {
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool);
  }
  {
    const std::pair<std::size_t, bool> wants[] = {{4 * MiB, false}};
    auto lease = pool->lease(wants);
    EXPECT_EQ(lease.size(), 0u);  // no idle block of 4 MiB
    Reservation adm = budget.reserve(4 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount / 2, {}, pool, &lease);  // mapped fresh
    EXPECT_EQ(pool->stats().reused, 0u);
    EXPECT_EQ(budget.books().used, 12 * MiB);  // the idle 8 MiB block and this one
  }
  EXPECT_EQ(pool->stats().idle_blocks, 2u);
  pool.reset();  // the pool dies with its idle blocks: everything goes back
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(MemPool, AReserveThatWouldWaitGetsTheIdleBytesBackThroughReclaim) {
  MemoryBudget budget(16 * MiB);
  auto pool = std::make_shared<BufferPool>();
  budget.set_reclaim([p = pool.get()] { p->trim(); });
  {
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool);
  }
  EXPECT_EQ(budget.books().used, 8 * MiB);  // idle in the pool
  // 12 MiB do not fit beside the idle 8: the request queues, the pool is trimmed, it is granted.
  Reservation big = budget.reserve(12 * MiB, Tag::synthesis);
  EXPECT_EQ(big.bytes(), 12 * MiB);
  EXPECT_EQ(pool->stats().idle_blocks, 0u);
  EXPECT_EQ(pool->stats().trimmed, 1u);
  EXPECT_EQ(budget.books().used, 12 * MiB);
  big.reset();
  budget.set_reclaim({});
}

TEST(MemPool, ADeadBufferIsNotKeptWhileSomeoneWaitsForMemory) {
  MemoryBudget budget(16 * MiB);
  auto pool = std::make_shared<BufferPool>();
  Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
  auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool);
  fill(b, 7);
  std::thread waiter([&] {
    Reservation r = budget.reserve(12 * MiB, Tag::synthesis);  // waits for b's bytes
    EXPECT_EQ(r.bytes(), 12 * MiB);
  });
  while (!budget.has_waiters()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  b.reset();  // someone waits: the pages are unmapped and the bytes go to the waiter
  waiter.join();
  const auto st = pool->stats();
  EXPECT_EQ(st.kept, 0u);
  EXPECT_EQ(st.dropped, 1u);
  EXPECT_EQ(st.idle_blocks, 0u);
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(MemPool, PinnedBuffersAreReusedPinnedAndUnpinnedOnlyWhenUnmapped) {
  struct HookGuard {
    ~HookGuard() { clear_pin_hooks(); }
  } guard;
  int pins = 0, unpins = 0;
  set_pin_hooks({[&](void*, std::size_t) { ++pins; }, [&](void*, std::size_t) { ++unpins; }});
  MemoryBudget budget(64 * MiB);
  auto pool = std::make_shared<BufferPool>();
  BufferOptions pin;
  pin.pin = true;
  const std::pair<std::size_t, bool> wants[] = {{8 * MiB, true}};
  for (int i = 0; i < 3; ++i) {
    auto lease = pool->lease(wants);
    Reservation adm = budget.reserve(8 * MiB - lease.bytes(), Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, pin, pool, &lease);
    EXPECT_TRUE(b.pinned());
  }
  EXPECT_EQ(pins, 1);  // pinned once, reused twice
  EXPECT_EQ(unpins, 0);
  EXPECT_EQ(pool->stats().reused, 2u);
  {
    const std::pair<std::size_t, bool> plain[] = {{8 * MiB, false}};
    auto lease = pool->lease(plain);
    EXPECT_EQ(lease.size(), 0u);  // the idle block is pinned: not for an unpinned buffer
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool, &lease);
    EXPECT_FALSE(b.pinned());
  }
  pool->trim();
  EXPECT_EQ(unpins, 1);
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(MemPool, ASubscribedTakerGetsDeadBuffersEvenWhileItWaitsForMemory) {
  MemoryBudget budget(20 * MiB);
  auto pool = std::make_shared<BufferPool>();
  budget.set_reclaim([p = pool.get()] { p->trim(); });
  Reservation adm = budget.reserve(16 * MiB, Tag::synthesis);
  auto b1 = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool);
  auto b2 = Buffer<std::uint64_t>::carve(adm, kCount, {}, pool);
  const void* p1 = b1.data();
  const void* p2 = b2.data();
  // The taker wants two 8 MiB buffers plus 2 MiB; 4 MiB are free. It subscribes, leases what is
  // idle and waits for the rest; each dead buffer wakes it to take the pages.
  std::atomic<int> wakes{0};
  const void* got = nullptr;
  std::thread taker([&] {
    const std::pair<std::size_t, bool> wants[] = {{8 * MiB, false}, {8 * MiB, false}};
    BufferPool::Lease lease;
    Reservation rest;
    for (;;) {
      auto wake = std::make_shared<std::stop_source>();
      auto sub = pool->subscribe(wake);
      pool->top_up(lease, wants);
      try {
        rest = budget.reserve(18 * MiB - lease.bytes(), Tag::synthesis, wake->get_token());
        break;
      } catch (const ReserveCancelled&) {
        ++wakes;
      }
    }
    EXPECT_EQ(lease.size(), 2u);
    auto c = Buffer<std::uint64_t>::carve(rest, kCount, {}, pool, &lease);
    got = c.data();
    EXPECT_EQ(c[0], 0u);  // zeroed
  });
  while (!budget.has_waiters()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  fill(b1, 5);
  b1.reset();  // kept (the taker is subscribed) and handed over
  b2.reset();
  taker.join();
  EXPECT_GE(wakes.load(), 1);
  EXPECT_TRUE(got == p1 || got == p2);  // one of the two dead buffers' pages
  const auto st = pool->stats();
  EXPECT_EQ(st.kept, 2u + 1u);  // b1, b2, and the taker's buffer when it died
  EXPECT_EQ(st.reused, 2u);
  EXPECT_EQ(st.dropped, 0u);
  pool->trim();
  budget.set_reclaim({});
  EXPECT_EQ(budget.books().used, 0u);
}

// Two pools on one budget (two engines sharing it): a reserve that would wait trims both; a hook
// removed is not called again.
TEST(MemPool, EveryHookOnASharedBudgetIsCalledAndARemovedOneIsNot) {
  MemoryBudget budget(24 * MiB);
  auto p1 = std::make_shared<BufferPool>();
  auto p2 = std::make_shared<BufferPool>();
  const auto id1 = budget.add_reclaim([w = std::weak_ptr<BufferPool>(p1)] { if (auto p = w.lock()) p->trim(); });
  const auto id2 = budget.add_reclaim([w = std::weak_ptr<BufferPool>(p2)] { if (auto p = w.lock()) p->trim(); });
  EXPECT_NE(id1, id2);
  for (auto* p : {&p1, &p2}) {
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, *p);
  }
  EXPECT_EQ(budget.books().used, 16 * MiB);  // idle in the two pools
  {
    // 24 MiB fit only once both pools gave their idle pages back.
    Reservation all = budget.reserve(24 * MiB, Tag::synthesis);
    EXPECT_EQ(p1->stats().trimmed, 1u);
    EXPECT_EQ(p2->stats().trimmed, 1u);
  }
  budget.remove_reclaim(id1);
  {
    Reservation adm = budget.reserve(8 * MiB, Tag::synthesis);
    auto b = Buffer<std::uint64_t>::carve(adm, kCount, {}, p1);
  }
  EXPECT_EQ(budget.books().used, 8 * MiB);  // idle in p1, whose hook is gone
  EXPECT_FALSE(budget.try_reserve(20 * MiB, Tag::synthesis).has_value());
  // p2's hook still runs (nothing idle there); p1's does not: its pages stay idle.
  std::thread waiter([&] { Reservation r = budget.reserve(20 * MiB, Tag::synthesis); });
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(p1->stats().trimmed, 1u);
  p1->trim();  // the holder gives its pages back itself: the waiter gets its 20 MiB
  waiter.join();
  budget.remove_reclaim(id2);
  EXPECT_EQ(budget.books().used, 0u);
}
