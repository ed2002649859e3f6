// The pipeline's stage queue (pipeline/stage_queue.hpp): order, bound with slots taken ahead,
// purge and shutdown, and producers/consumers racing within the bound.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

#include "pipeline/stage_queue.hpp"

namespace splitprove::pipeline {
namespace {

struct Part {
  std::uint64_t job, index;
  int entered = 0;
};
using PartPtr = std::unique_ptr<Part>;
using Q = StageQueue<PartPtr>;

Q make_queue(std::size_t bound) {
  return Q(bound, [](const PartPtr& p) { return std::pair(p->job, p->index); },
           [](PartPtr& p) { ++p->entered; });
}
PartPtr part(std::uint64_t job, std::uint64_t index) {
  return std::make_unique<Part>(Part{job, index});
}

TEST(StageQueue, HandsOutTheOldestJobsLowestPartitionFirst) {
  auto q = make_queue(8);
  for (auto [j, i] : {std::pair<int, int>{2, 0}, {1, 3}, {1, 1}, {3, 0}, {1, 2}, {2, 1}}) {
    auto p = part(j, i);
    ASSERT_TRUE(q.push(p, false));
    EXPECT_EQ(p, nullptr);  // the queue took it
  }
  std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
  for (int k = 0; k < 6; ++k) {
    auto p = q.pop();
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(p->entered, 1);  // enter ran once, on the way in
    got.emplace_back(p->job, p->index);
  }
  EXPECT_EQ(got, (std::vector<std::pair<std::uint64_t, std::uint64_t>>{
                     {1, 1}, {1, 2}, {1, 3}, {2, 0}, {2, 1}, {3, 0}}));
  EXPECT_EQ(q.max_seen(), 6u);
}

TEST(StageQueue, SlotsTakenAheadCountAgainstTheBound) {
  auto q = make_queue(2);
  ASSERT_TRUE(q.acquire_slot());
  ASSERT_TRUE(q.acquire_slot());
  // Full: a push without a slot waits until a slot is given back.
  std::atomic<bool> pushed{false};
  std::thread t([&] {
    auto p = part(1, 0);
    EXPECT_TRUE(q.push(p, false));
    pushed = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(pushed.load());
  q.release_slot();
  t.join();
  EXPECT_TRUE(pushed.load());
  // The remaining slot is used by a push that took it: the bound holds (1 item + 1 slot -> 2 items).
  auto p = part(1, 1);
  EXPECT_TRUE(q.push(p, true));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_LE(q.max_seen(), 2u);
}

TEST(StageQueue, PurgeTakesOutOneJobsItemsAndWakesWriters) {
  auto q = make_queue(3);
  for (auto [j, i] : {std::pair<int, int>{1, 0}, {2, 0}, {1, 1}}) {
    auto p = part(j, i);
    ASSERT_TRUE(q.push(p, false));
  }
  std::atomic<bool> pushed{false};
  std::thread t([&] {
    auto p = part(3, 0);
    EXPECT_TRUE(q.push(p, false));
    pushed = true;
  });
  auto gone = q.purge([](const PartPtr& p) { return p->job == 1; });
  t.join();
  EXPECT_EQ(gone.size(), 2u);
  EXPECT_TRUE(pushed.load());
  EXPECT_EQ(q.pop()->job, 2u);
  EXPECT_EQ(q.pop()->job, 3u);
}

TEST(StageQueue, ShutdownReturnsWhatIsQueuedAndRefusesTheRest) {
  auto q = make_queue(1);
  auto a = part(1, 0);
  ASSERT_TRUE(q.push(a, false));
  // A writer blocked on the full queue and a reader blocked on another empty queue both wake.
  auto empty = make_queue(1);
  std::thread writer([&] {
    auto p = part(1, 1);
    EXPECT_FALSE(q.push(p, false));
    EXPECT_NE(p, nullptr);  // refused: still the caller's
  });
  std::thread reader([&] { EXPECT_EQ(empty.pop(), nullptr); });
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  auto left = q.shutdown();
  empty.shutdown();
  writer.join();
  reader.join();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0]->index, 0u);
  EXPECT_FALSE(q.acquire_slot());
  EXPECT_EQ(q.pop(), nullptr);
}

// Producers and consumers racing: every item comes out exactly once and the bound is never passed.
TEST(StageQueue, RacingProducersAndConsumersStayWithinTheBound) {
  constexpr std::size_t kBound = 3;
  constexpr int kPerProducer = 500;
  auto q = make_queue(kBound);
  std::atomic<int> consumed{0};
  std::vector<std::atomic<int>> seen(4 * kPerProducer);
  std::vector<std::thread> ts;
  for (int pr = 0; pr < 4; ++pr)
    ts.emplace_back([&, pr] {
      for (int i = 0; i < kPerProducer; ++i) {
        const bool slot = (i % 2 == 0) && q.acquire_slot();
        auto p = part(std::uint64_t(pr), std::uint64_t(i));
        ASSERT_TRUE(q.push(p, slot));
      }
    });
  for (int c = 0; c < 3; ++c)
    ts.emplace_back([&] {
      while (consumed.load() < 4 * kPerProducer) {
        if (consumed.fetch_add(1) >= 4 * kPerProducer) break;
        auto p = q.pop();
        ASSERT_NE(p, nullptr);
        ++seen[p->job * kPerProducer + p->index];
      }
    });
  for (auto& t : ts) t.join();
  for (auto& s : seen) EXPECT_EQ(s.load(), 1);
  EXPECT_LE(q.max_seen(), kBound);
}

}  // namespace
}  // namespace splitprove::pipeline
