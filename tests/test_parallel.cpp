// The thread pool (util/parallel.hpp): parallel_for covers its range once and rethrows a chunk's
// exception; PoolRank scopes nest; and queued chunks run in rank order (lower first), whatever
// the order they were submitted in. util/memory.hpp's vectors keep what is written to them and
// construct what is not trivially copyable.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "util/memory.hpp"
#include "util/parallel.hpp"

using namespace splitprove;
using namespace std::chrono_literals;

namespace {

// Waits (polling, bounded) until pred() holds; false if it did not within 10 s.
template <class P>
bool eventually(P pred) {
  const auto end = std::chrono::steady_clock::now() + 10s;
  while (!pred()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(1ms);
  }
  return true;
}

}  // namespace

TEST(ThreadPool, ParallelForCoversTheRangeOnce) {
  for (std::size_t n : {1u, 7u, 1000u, 65537u}) {
    std::vector<std::atomic<int>> hits(n);
    util::parallel_for(n, [&](std::size_t lo, std::size_t hi) {
      for (std::size_t i = lo; i < hi; ++i) hits[i].fetch_add(1);
    });
    for (std::size_t i = 0; i < n; ++i) ASSERT_EQ(hits[i].load(), 1) << n << " " << i;
  }
}

TEST(ThreadPool, ParallelForRethrowsAfterEveryChunk) {
  std::atomic<int> done{0};
  EXPECT_THROW(util::parallel_for(
                   64,
                   [&](std::size_t lo, std::size_t) {
                     done.fetch_add(1);
                     if (lo == 0) throw std::runtime_error("chunk 0");
                   },
                   1, 8),
               std::runtime_error);
  EXPECT_EQ(done.load(), 8);  // the other chunks ran to the end before the rethrow
}

TEST(ThreadPool, RankScopesNest) {
  EXPECT_EQ(util::current_pool_rank(), 0u);
  {
    util::PoolRank a(7);
    EXPECT_EQ(util::current_pool_rank(), 7u);
    {
      util::PoolRank b(3);
      EXPECT_EQ(util::current_pool_rank(), 3u);
    }
    EXPECT_EQ(util::current_pool_rank(), 7u);
  }
  EXPECT_EQ(util::current_pool_rank(), 0u);
}

// Every worker is held; then T chunks of rank 10 are queued, then T of rank 1; then the workers
// are let go. With rank order the T workers take the T rank-1 chunks first (each of which waits
// until all T have started), and a rank-10 chunk can start only after that. In submission order
// (FIFO) the rank-10 chunks would start first and see no rank-1 chunk started.
TEST(ThreadPool, QueuedChunksRunInRankOrder) {
  if (const char* f = std::getenv("SPLITPROVE_POOL_FIFO"); f && *f && *f != '0')
    GTEST_SKIP() << "SPLITPROVE_POOL_FIFO is set: the pool ignores ranks";
  const std::size_t t = util::num_threads();
  if (t < 2) GTEST_SKIP() << "needs a pool of at least 2 threads (SPLITPROVE_THREADS)";
  std::mutex mu;
  std::condition_variable cv;
  bool gate = false;
  std::atomic<std::size_t> held{0}, high_started{0};
  std::atomic<int> low_too_early{0}, high_timed_out{0};

  std::thread holder([&] {
    util::parallel_for(
        t,
        [&](std::size_t, std::size_t) {
          held.fetch_add(1);
          std::unique_lock lk(mu);
          cv.wait(lk, [&] { return gate; });
        },
        1, t);
  });
  ASSERT_TRUE(eventually([&] { return held.load() == t; }));

  std::thread low([&] {
    util::PoolRank r(10);
    util::parallel_for(
        t,
        [&](std::size_t, std::size_t) {
          if (high_started.load() < t) low_too_early.fetch_add(1);
        },
        1, t);
  });
  ASSERT_TRUE(eventually([&] { return util::detail::queued_chunks() == t; }));
  std::thread high([&] {
    util::PoolRank r(1);
    util::parallel_for(
        t,
        [&](std::size_t, std::size_t) {
          high_started.fetch_add(1);
          if (!eventually([&] { return high_started.load() >= t; })) high_timed_out.fetch_add(1);
        },
        1, t);
  });
  ASSERT_TRUE(eventually([&] { return util::detail::queued_chunks() == 2 * t; }));
  {
    std::lock_guard lk(mu);
    gate = true;
  }
  cv.notify_all();
  holder.join();
  low.join();
  high.join();
  EXPECT_EQ(high_timed_out.load(), 0) << "a rank-1 chunk waited behind a rank-10 chunk";
  EXPECT_EQ(low_too_early.load(), 0) << "a rank-10 chunk started before the rank-1 chunks";
}

// Elements written by parallel_for after a resize that did not write them; growth keeps them, and
// copies compare equal. The huge-page advice changes no value, for any range.
TEST(UninitVector, KeepsWhatTheWorkersWrite) {
  struct Point {
    std::uint64_t x[4], y[4];
    bool inf = true;  // not applied by the resize: every element is written below
  };
  util::UninitVector<Point> v;
  const std::size_t n = (std::size_t(8) << 20) / sizeof(Point) + 3;  // several 2 MiB pages
  v.reserve(n);
  util::advise_huge_pages(v.data(), n * sizeof(Point));
  v.resize(n);
  util::parallel_for(n, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) v[i] = Point{{i, i + 1, i + 2, i + 3}, {~i, 0, 0, 1}, (i & 1) != 0};
  });
  v.push_back(Point{{7, 7, 7, 7}, {7, 7, 7, 7}, false});  // grows: moves every element
  ASSERT_EQ(v.size(), n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    ASSERT_EQ(v[i].x[0], i);
    ASSERT_EQ(v[i].x[3], i + 3);
    ASSERT_EQ(v[i].y[0], ~i);
    ASSERT_EQ(v[i].inf, (i & 1) != 0);
  }
  EXPECT_EQ(v.back().x[2], 7u);
  const util::UninitVector<Point> copy = v;
  EXPECT_EQ(std::memcmp(copy.data(), v.data(), v.size() * sizeof(Point)), 0);
  util::advise_huge_pages(nullptr, 0);
  util::advise_huge_pages(v.data() + 1, 5);
}

TEST(UninitVector, ConstructsWhatIsNotTriviallyCopyable) {
  util::UninitVector<std::string> v(3);
  for (const auto& s : v) EXPECT_TRUE(s.empty());
  v.resize(5, "x");
  EXPECT_EQ(v[4], "x");
  util::UninitVector<int> w(4, 9);  // with a value, the value is written
  for (int x : w) EXPECT_EQ(x, 9);
}
