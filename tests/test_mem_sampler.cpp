// MemorySampler (RSS, books, device sources, events at a fixed interval) and the SVG plot.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "mem/buffer.hpp"
#include "mem/plot.hpp"
#include "mem/sampler.hpp"
#include "mem/units.hpp"
#include "splitprove/error.hpp"

using namespace splitprove::mem;
using namespace std::chrono_literals;

TEST(MemSampler, RecordsRssBooksDeviceSourcesAndEvents) {
  MemoryBudget budget(256 * MiB, "host");
  MemorySampler sampler(&budget, SamplerOptions{20ms, true});
  std::atomic<std::uint64_t> device_used{123};
  sampler.add_device_source("gpu0",
                            [&]() -> std::optional<std::uint64_t> { return device_used.load(); });
  sampler.add_device_source("broken",
                            []() -> std::optional<std::uint64_t> { return std::nullopt; });
  const auto t0 = std::chrono::steady_clock::now();
  sampler.start();
  EXPECT_THROW(sampler.start(), splitprove::Error);
  EXPECT_THROW(sampler.add_device_source("late", [] { return std::optional<std::uint64_t>(); }),
               splitprove::Error);
  std::this_thread::sleep_for(100ms);
  sampler.mark(kWorkStart);
  sampler.stage_start("gpu");
  {
    Reservation r = budget.reserve(32 * MiB, Tag::gpu);
    auto buf = Buffer<char>::carve(r, 32 * MiB);
    for (std::size_t i = 0; i < buf.size(); i += kPageSize) buf[i] = 1;
    device_used = 456;
    std::this_thread::sleep_for(100ms);
  }
  sampler.stage_end("gpu");
  sampler.mark(kWorkEnd);
  std::this_thread::sleep_for(100ms);
  sampler.stop();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sampler.stop();  // idempotent

  Timeline tl = sampler.timeline();
  // One sample per 20 ms on a fixed schedule, plus the one stop() takes: never more (no bursts
  // after a late wake-up), and not far fewer unless the machine is badly overloaded.
  const double expected = elapsed / 0.020;
  EXPECT_LE(double(tl.samples.size()), expected + 2) << elapsed << " s";
  EXPECT_GE(double(tl.samples.size()), expected / 3) << elapsed << " s";
  ASSERT_EQ(tl.device_names, (std::vector<std::string>{"gpu0", "broken"}));
  ASSERT_EQ(tl.events.size(), 4u);
  EXPECT_EQ(tl.events[1].label, "start:gpu");
  EXPECT_EQ(tl.events[2].label, "end:gpu");
  bool saw_books = false, saw_device = false;
  std::uint64_t max_rss = 0, min_rss = ~0ull;
  for (std::size_t i = 0; i < tl.samples.size(); ++i) {
    const Sample& s = tl.samples[i];
    if (i) {
      EXPECT_GE(s.t, tl.samples[i - 1].t);
    }
    EXPECT_EQ(s.budget_capacity, 256 * MiB);
    ASSERT_EQ(s.device.size(), 2u);
    EXPECT_EQ(s.device[1], 0u);
    if (s.books[std::size_t(Tag::gpu)] == 32 * MiB && s.budget_used == 32 * MiB) saw_books = true;
    if (s.device[0] == 456) saw_device = true;
    EXPECT_GT(s.rss, 0u);
    max_rss = std::max(max_rss, s.rss);
    min_rss = std::min(min_rss, s.rss);
  }
  EXPECT_TRUE(saw_books);
  EXPECT_TRUE(saw_device);
  EXPECT_GE(max_rss - min_rss, 24 * MiB) << "the 32 MiB buffer should show in RSS";
  EXPECT_EQ(tl.samples.back().budget_used, 0u);  // stop() takes a last sample
}

TEST(MemSampler, BoundedTimelineKeepsItsSpanBaselineAndPeak) {
  SamplerOptions o{1ms, false};
  o.max_samples = 16;
  o.max_events = 8;
  MemorySampler sampler(nullptr, o);
  std::vector<char> big;
  for (int i = 0; i < 200; ++i) {
    if (i == 101) {
      big.assign(64 * MiB, 1);  // the peak, in the middle of the run
      for (std::size_t k = 0; k < big.size(); k += kPageSize) big[k] = 2;
    }
    sampler.sample_now();
    if (i == 101) std::vector<char>().swap(big);
    sampler.mark("e" + std::to_string(i));
  }
  const auto tl = sampler.timeline();
  ASSERT_LT(tl.samples.size(), 16u);
  ASSERT_GE(tl.samples.size(), 4u);
  ASSERT_LT(tl.events.size(), 8u);
  EXPECT_EQ(tl.events.back().label, "e199");  // the newest events stay
  std::uint64_t peak = 0;
  for (const auto& x : tl.samples) peak = std::max(peak, x.rss);
  EXPECT_GE(peak, tl.samples.front().rss + 48 * MiB);  // the peak survived every thinning
  for (std::size_t i = 1; i < tl.samples.size(); ++i) EXPECT_LE(tl.samples[i - 1].t, tl.samples[i].t);
}

TEST(MemSampler, RejectsAZeroInterval) {
  EXPECT_THROW(MemorySampler(nullptr, SamplerOptions{0ms, false}), splitprove::Error);
}

TEST(MemPlot, SvgShowsRssBooksBaselinePeakAndModel) {
  Timeline tl;
  for (int i = 0; i <= 50; ++i) {
    Sample s;
    s.t = i * 0.1;
    std::uint64_t above = (i > 10 && i < 40) ? std::uint64_t(i - 10) * 10 * MiB : 0;
    s.rss = 50 * MiB + above;
    s.budget_capacity = 400 * MiB;
    s.budget_used = above;
    s.books[std::size_t(Tag::g2)] = above / 2;
    s.books[std::size_t(Tag::synthesis)] = above - above / 2;
    tl.samples.push_back(s);
  }
  tl.events = {{1.0, std::string(kWorkStart)}, {4.5, std::string(kWorkEnd)}, {2.0, "job_start:1"}};
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(300 * MiB));
  Verdict v = analyze(tl);
  PlotOptions po;
  po.title = "a <title> & more";
  std::string svg = render_svg(tl, v, po);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_NE(svg.find("a &lt;title&gt; &amp; more"), std::string::npos);
  EXPECT_EQ(svg.find("<title>"), std::string::npos);
  EXPECT_NE(svg.find("books: synthesis"), std::string::npos);
  EXPECT_NE(svg.find("books: g2"), std::string::npos);
  EXPECT_EQ(svg.find("books: gpu"), std::string::npos);  // unused tags stay out of the legend
  EXPECT_NE(svg.find("peak 340 MiB @ 3.9 s"), std::string::npos) << svg.substr(0, 400);
  EXPECT_NE(svg.find("baseline 50.0 MiB"), std::string::npos);
  EXPECT_NE(svg.find("model 350 MiB"), std::string::npos);
  EXPECT_NE(svg.find("baseline+budget 450 MiB"), std::string::npos);
  EXPECT_NE(svg.find(">work_start<"), std::string::npos);
  // One RSS polyline with a point per sample.
  auto pos = svg.find("stroke=\"#111\" stroke-width=\"2\"");
  ASSERT_NE(pos, std::string::npos);
  auto line_start = svg.rfind("<polyline points=\"", pos);
  std::string pts = svg.substr(line_start, pos - line_start);
  EXPECT_EQ(std::count(pts.begin(), pts.end(), ','), 51);
}

TEST(MemSampler, TrimmingEventsKeepsTheFirstWorkStart) {
  // A service marks a work window per busy spell for days: the oldest events go, but the first
  // work_start (where the verdict's baseline ends) stays.
  SamplerOptions o{1ms, false};
  o.max_events = 8;
  MemorySampler sampler(nullptr, o);
  for (int i = 0; i < 50; ++i) {
    sampler.mark(kWorkStart);
    sampler.mark(kWorkEnd);
  }
  const auto tl = sampler.timeline();
  ASSERT_LT(tl.events.size(), 8u);
  EXPECT_EQ(tl.events.front().label, kWorkStart);
  EXPECT_EQ(tl.events.back().label, kWorkEnd);
  EXPECT_EQ(tl.first_event(kWorkStart), tl.events.front().t);
  EXPECT_LT(*tl.first_event(kWorkStart), tl.events[1].t);  // the ones after it are later ones
}

TEST(MemSampler, BooksComeFromAFunctionWhenGiven) {
  MemoryBudget a(64 * MiB, "a"), b(64 * MiB, "b");
  auto ra = a.try_reserve(3 * MiB, Tag::srs);
  auto rb = b.try_reserve(5 * MiB, Tag::pinned);
  ASSERT_TRUE(ra && rb);
  MemorySampler sampler(
      [&] {
        BudgetBooks s;
        for (const MemoryBudget* m : {&a, &b}) {
          const auto k = m->books();
          s.used += k.used;
          for (std::size_t t = 0; t < kTagCount; ++t) s.tags[t].bytes += k.tags[t].bytes;
        }
        return s;
      },
      SamplerOptions{1ms, false});
  sampler.sample_now();
  const auto tl = sampler.timeline();
  ASSERT_EQ(tl.samples.size(), 1u);
  EXPECT_EQ(tl.samples[0].budget_used, 8 * MiB);
  EXPECT_EQ(tl.samples[0].books[std::size_t(Tag::srs)], 3 * MiB);
  EXPECT_EQ(tl.samples[0].books[std::size_t(Tag::pinned)], 5 * MiB);
  EXPECT_EQ(held_on_purpose(tl.samples[0]), 8 * MiB);
}

TEST(MemPlot, WallClockAxisAndTheVerdictsTolerances) {
  Timeline tl;
  for (int i = 0; i <= 60; ++i) {
    Sample s;
    s.t = i * 60.0;  // an hour, a sample a minute
    s.rss = 50 * MiB + ((i > 10 && i < 40) ? 100 * MiB : 0);
    s.budget_used = s.rss - 50 * MiB;
    s.books[std::size_t(Tag::gpu)] = s.budget_used;
    tl.samples.push_back(s);
  }
  tl.events = {{600.0, std::string(kWorkStart)}, {2500.0, std::string(kWorkEnd)}};
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(120 * MiB));
  const Verdict v = analyze(tl);
  ASSERT_TRUE(v.accumulation_above);
  PlotOptions po;
  po.epoch_ms = 1796688000000.0;  // 2026-12-08 00:00:00 UTC
  const std::string svg = render_svg(tl, v, po);
  EXPECT_NE(svg.find("time (UTC)"), std::string::npos);
  EXPECT_EQ(svg.find("time (s)"), std::string::npos);
  EXPECT_NE(svg.find(">00:10<"), std::string::npos) << "ticks at round wall-clock minutes";
  EXPECT_NE(svg.find("leak: drain above baseline + 16.0 MiB"), std::string::npos);
  EXPECT_NE(svg.find("accumulation above " + format_bytes(*v.accumulation_above)), std::string::npos);
  // Without an epoch the axis stays in seconds since start.
  EXPECT_NE(render_svg(tl, v).find("time (s)"), std::string::npos);
}
