// Buffer<T>: page-backed, budgeted, move-only; memory goes back to the OS (RSS falls) when it dies,
// and the budget gets the bytes back only after that.
#include <gtest/gtest.h>

#include <cstring>

#include "mem/buffer.hpp"
#include "mem/process_memory.hpp"

using namespace splitprove::mem;

namespace {

// Writes one byte per page: every page becomes resident.
template <class T>
void touch(Buffer<T>& b) {
  auto* p = reinterpret_cast<volatile unsigned char*>(b.data());
  for (std::size_t i = 0; i < b.size_bytes(); i += kPageSize) p[i] = 1;
}

struct HookGuard {
  ~HookGuard() { clear_pin_hooks(); }
};

}  // namespace

TEST(MemBuffer, ReservesWholePagesAndGivesThemBackWhenItDies) {
  MemoryBudget budget(64 * MiB);
  {
    Buffer<std::uint64_t> b = Buffer<std::uint64_t>(1000, budget.reserve(8192, Tag::synthesis));
    EXPECT_EQ(b.size(), 1000u);
    EXPECT_EQ(b.size_bytes(), 8000u);
    EXPECT_EQ(b.mapped_bytes(), 8192u);  // two pages
    EXPECT_EQ(b.reservation().bytes(), 8192u);
    EXPECT_EQ(budget.books().used, 8192u);
    for (auto v : b) EXPECT_EQ(v, 0u);  // fresh anonymous pages are zero
    b[999] = 42;
    Buffer<std::uint64_t> c = std::move(b);  // ownership moves; nothing is freed
    EXPECT_TRUE(b.empty());  // NOLINT(bugprone-use-after-move): a moved-from one is empty
    EXPECT_EQ(c[999], 42u);
    EXPECT_EQ(budget.books().used, 8192u);
  }
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(MemBuffer, ExcessReservationIsReturnedAtOnceAndTooSmallOneIsRefused) {
  MemoryBudget budget(64 * MiB);
  Buffer<char> b(100, budget.reserve(MiB, Tag::scratch));
  EXPECT_EQ(b.reservation().bytes(), kPageSize);
  EXPECT_EQ(budget.books().used, kPageSize);
  EXPECT_THROW(Buffer<char>(3 * kPageSize, budget.reserve(2 * kPageSize, Tag::scratch)),
               BudgetError);
  EXPECT_EQ(budget.books().used, kPageSize);  // the refused reservation went back too
}

TEST(MemBuffer, CarvedBuffersTakeTheirShareAndReturnItToTheBudgetNotTheItem) {
  MemoryBudget budget(64 * MiB);
  Reservation item = budget.reserve(10 * MiB, Tag::synthesis);  // the partition's life cost
  {
    auto a = Buffer<std::uint32_t>::carve(item, MiB);  // 4 MiB
    auto z = Buffer<std::uint32_t>::carve(item, MiB / 2);
    EXPECT_EQ(item.bytes(), 10 * MiB - 6 * MiB);
    EXPECT_EQ(budget.books().used, 10 * MiB);
    a.retag(Tag::gpu);
    EXPECT_EQ(budget.books()[Tag::gpu].bytes, 4 * MiB);
    a.reset();  // a, b, c die after the GPU stage: the budget gets them back at once
    EXPECT_EQ(budget.books().used, 6 * MiB);
    EXPECT_EQ(item.bytes(), 4 * MiB);
  }
  EXPECT_EQ(budget.books().used, 4 * MiB);
  EXPECT_THROW(Buffer<char>::carve(item, 5 * MiB), BudgetError);
}

TEST(MemBuffer, HugePageBuffersAreAlignedAndChargedInHugePages) {
  MemoryBudget budget(64 * MiB);
  BufferOptions o;
  o.huge_pages = true;
  auto b = Buffer<char>(3 * MiB, budget.reserve(4 * MiB, Tag::gpu), o);
  EXPECT_EQ(b.mapped_bytes(), 4 * MiB);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(b.data()) % kHugePageSize, 0u);
  std::memset(b.data(), 7, b.size_bytes());
  EXPECT_EQ(b[3 * MiB - 1], 7);
}

TEST(MemBuffer, PinHooksRunAfterMapAndBeforeUnmapWhileTheBudgetStillHoldsTheBytes) {
  HookGuard guard;
  MemoryBudget budget(64 * MiB);
  void* pinned_at = nullptr;
  std::size_t pinned_bytes = 0;
  std::uint64_t books_at_unpin = 0;
  int unpins = 0;
  set_pin_hooks({[&](void* p, std::size_t n) {
                   pinned_at = p;
                   pinned_bytes = n;
                 },
                 [&](void* p, std::size_t n) {
                   EXPECT_EQ(p, pinned_at);
                   EXPECT_EQ(n, pinned_bytes);
                   books_at_unpin = budget.books().used;
                   ++unpins;
                 }});
  BufferOptions o;
  o.pin = true;
  {
    auto b = Buffer<char>(MiB, budget.reserve(MiB, Tag::pinned), o);
    EXPECT_TRUE(b.pinned());
    EXPECT_EQ(pinned_at, b.data());
    EXPECT_EQ(pinned_bytes, MiB);
    auto plain = Buffer<char>(MiB, budget.reserve(MiB, Tag::scratch));
    EXPECT_FALSE(plain.pinned());
  }
  EXPECT_EQ(unpins, 1);
  // The unpin (right before munmap) saw the bytes still booked: the budget is credited after.
  EXPECT_EQ(books_at_unpin, MiB);
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(MemBuffer, AFailingPinUnmapsAndReturnsTheReservation) {
  HookGuard guard;
  MemoryBudget budget(64 * MiB);
  set_pin_hooks({[](void*, std::size_t) { throw splitprove::Error("cudaHostRegister failed"); },
                 [](void*, std::size_t) {}});
  BufferOptions o;
  o.pin = true;
  EXPECT_THROW(Buffer<char>(MiB, budget.reserve(MiB, Tag::pinned), o), splitprove::Error);
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(MemBuffer, RssFallsWhenABufferDies) {
  constexpr std::size_t kBytes = 64 * MiB;
  constexpr std::uint64_t kTolerance = 8 * MiB;
  MemoryBudget budget(kBytes);
  const std::uint64_t before = read_rss();
  std::uint64_t with = 0;
  {
    Reservation r = budget.reserve(kBytes, Tag::synthesis);
    auto b = Buffer<unsigned char>::carve(r, kBytes);
    touch(b);
    with = read_rss();
    EXPECT_GE(with, before + kBytes - kTolerance) << "touching 64 MiB should make it resident";
  }
  const std::uint64_t after = read_rss();
  EXPECT_LE(after, with - kBytes + kTolerance)
      << "RSS did not fall by the 64 MiB the buffer held: before " << before << ", with " << with
      << ", after " << after;
  EXPECT_EQ(budget.books().used, 0u);
  auto m = read_process_memory();
  EXPECT_GT(m.rss, 0u);
  EXPECT_GE(m.rss + kTolerance, m.anon + m.file);
}

// A stage may give a dead buffer's pages back to the OS but keep paying for them (to reuse the
// bytes for its scratch): RSS falls, the books do not, until the kept reservation dies.
TEST(MemBuffer, UnmapKeepReservationFreesThePagesButNotTheBooks) {
  constexpr std::size_t kBytes = 64 * MiB;
  constexpr std::uint64_t kTolerance = 8 * MiB;
  MemoryBudget budget(kBytes);
  Reservation r = budget.reserve(kBytes, Tag::gpu);
  auto b = Buffer<unsigned char>::carve(r, kBytes);
  touch(b);
  const std::uint64_t with = read_rss();
  Reservation kept = b.unmap_keep_reservation();
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(kept.bytes(), kBytes);
  EXPECT_EQ(kept.tag(), Tag::gpu);
  EXPECT_EQ(budget.books().used, kBytes);
  EXPECT_LE(read_rss(), with - kBytes + kTolerance) << "the pages were not given back";
  b.reset();  // an emptied buffer holds nothing more
  EXPECT_EQ(budget.books().used, kBytes);
  kept.reset();
  EXPECT_EQ(budget.books().used, 0u);
}

TEST(MemProcessMemory, ParsesSmapsRollupAndStatus) {
  const char* rollup =
      "55a83181c000-7ffc6be4d000 ---p 00000000 00:00 0  [rollup]\n"
      "Rss:                1764 kB\nPss:                 649 kB\nAnonymous:           112 kB\n";
  auto m = parse_smaps_rollup(rollup);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->rss, 1764u * 1024);
  EXPECT_EQ(m->anon, 112u * 1024);
  EXPECT_EQ(m->file, (1764u - 112u) * 1024);
  EXPECT_FALSE(parse_smaps_rollup("Rss: 12 kB\n"));
  auto s = parse_proc_status(
      "Name: x\nVmRSS:\t 100 kB\nRssAnon:\t 60 kB\nRssFile:\t 30 kB\n"
      "RssShmem:\t 10 kB\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->rss, 100u * 1024);
  EXPECT_EQ(s->anon, 60u * 1024);
  EXPECT_EQ(s->file, 40u * 1024);
}

// A buffer given a keeper (the reference design's held-until-finalize policy) hands its pages
// and reservation to the keeper when it dies: still mapped (resident) and booked, unmapped and
// paid back only when the keeper dies. unmap_keep_reservation hands nothing on then.
TEST(MemBuffer, AKeeperHoldsDeadBuffersMappedAndBookedUntilItDies) {
  MemoryBudget budget(512 * MiB);
  auto keeper = std::make_shared<Keeper>();
  {
    Buffer<std::uint64_t> a(16 * MiB / 8, budget.reserve(16 * MiB, Tag::synthesis));
    Buffer<std::uint64_t> b(16 * MiB / 8, budget.reserve(16 * MiB, Tag::synthesis));
    touch(a);
    touch(b);
    a.keep_until(keeper);
    Buffer<std::uint64_t> moved = std::move(b);
    moved.keep_until(keeper);
    const std::uint64_t rss = read_rss();
    a.reset();
    EXPECT_TRUE(a.empty());
    const Reservation none = moved.unmap_keep_reservation();
    EXPECT_EQ(none.bytes(), 0u);
    EXPECT_EQ(budget.books().used, 32 * MiB);
    EXPECT_EQ(keeper->bytes(), 32 * MiB);
    EXPECT_GT(read_rss() + 4 * MiB, rss);  // nothing went back to the OS
  }
  EXPECT_EQ(budget.books().used, 32 * MiB);  // the buffers' scopes ended; the keeper still holds
  const std::uint64_t before = read_rss();
  keeper.reset();
  EXPECT_EQ(budget.books().used, 0u);
  EXPECT_LT(read_rss() + 24 * MiB, before);
}
