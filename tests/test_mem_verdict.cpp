// Verdicts on synthetic timelines: leak, accumulation, bounded, unknown, and the numbers behind
// them (baseline, peak, plateau, after-drain, unaccounted bytes).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "mem/units.hpp"
#include "mem/verdict.hpp"
#include "splitprove/error.hpp"

using namespace splitprove::mem;

namespace {

// 10 s at 10 samples/s: baseline until work_start at 1 s, a linear ramp to `peak_above` at 4 s,
// held until 6 s, down to `after_above` at 8.5 s, work_end at 9 s, idle to 10 s. Books track the
// RSS above baseline minus `unaccounted` bytes.
Timeline synthetic(std::uint64_t peak_above, std::uint64_t after_above,
                   std::uint64_t unaccounted = 0, bool marked = true) {
  const std::uint64_t base = 100 * MiB;
  Timeline tl;
  for (int i = 0; i <= 100; ++i) {
    double t = i / 10.0;
    double f = t < 1 ? 0 : t < 4 ? (t - 1) / 3 : t < 6 ? 1 : t < 8.5 ? 1 - (t - 6) / 2.5 : 0;
    double level =
        t < 6 ? f * double(peak_above) : double(after_above) + f * double(peak_above - after_above);
    if (t < 1) level = 0;
    Sample s;
    s.t = t;
    s.rss = base + std::uint64_t(level);
    s.budget_capacity = 8 * GiB;
    std::uint64_t above = s.rss - base;
    s.budget_used = above > unaccounted ? above - unaccounted : 0;
    s.books[std::size_t(Tag::gpu)] = s.budget_used;
    tl.samples.push_back(s);
  }
  if (marked) tl.events = {{1.0, std::string(kWorkStart)}, {9.0, std::string(kWorkEnd)}};
  return tl;
}

}  // namespace

TEST(MemVerdict, BoundedWhenThePeakIsWithinTheModelAndMemoryComesBack) {
  Timeline tl = synthetic(480 * MiB, 0);
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(500 * MiB));
  Verdict v = analyze(tl);
  EXPECT_EQ(v.verdict, VerdictClass::bounded) << v.reason;
  EXPECT_EQ(v.baseline, 100 * MiB);
  EXPECT_EQ(v.peak, 580 * MiB);
  EXPECT_GE(v.peak_t, 4.0);
  EXPECT_LE(v.peak_t, 6.0);
  EXPECT_EQ(v.after_drain, 100 * MiB);
  EXPECT_EQ(v.drain_delta, 0);
  EXPECT_EQ(*v.expected_peak, 600 * MiB);
  EXPECT_TRUE(v.marked);
  EXPECT_EQ(v.unaccounted_at_peak, 0);
}

TEST(MemVerdict, AccumulationWhenThePeakFarExceedsTheModelButComesBack) {
  Timeline tl = synthetic(1500 * MiB, 2 * MiB);
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(500 * MiB));
  Verdict v = analyze(tl);
  EXPECT_EQ(v.verdict, VerdictClass::accumulation) << v.reason;
  EXPECT_NE(v.reason.find("3.00x"), std::string::npos) << v.reason;
  // Just above the allowance (model × 1.1 + tolerance) is accumulation; just below is not.
  VerdictOptions o;
  o.tolerance = 20 * MiB;
  Timeline edge = synthetic(550 * MiB + 20 * MiB + MiB, 0);
  edge.set_meta(std::string(kMetaModelWorkBytes), std::to_string(500 * MiB));
  EXPECT_EQ(analyze(edge, o).verdict, VerdictClass::accumulation);
  Timeline under = synthetic(550 * MiB + 20 * MiB - MiB, 0);
  under.set_meta(std::string(kMetaModelWorkBytes), std::to_string(500 * MiB));
  EXPECT_EQ(analyze(under, o).verdict, VerdictClass::bounded);
}

TEST(MemVerdict, LeakWhenMemoryStaysAboveBaselineAfterWorkDrains) {
  Timeline tl = synthetic(1500 * MiB, 300 * MiB);
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(5000 * MiB));  // peak is in model
  Verdict v = analyze(tl);
  EXPECT_EQ(v.verdict, VerdictClass::leak) << v.reason;
  EXPECT_EQ(v.after_drain, 400 * MiB);
  EXPECT_EQ(v.drain_delta, std::int64_t(300 * MiB));
  // A small residue within the tolerance is not a leak.
  Timeline small = synthetic(1500 * MiB, 8 * MiB);
  small.set_meta(std::string(kMetaModelWorkBytes), std::to_string(5000 * MiB));
  EXPECT_EQ(analyze(small).verdict, VerdictClass::bounded);
  VerdictOptions strict;
  strict.tolerance = 4 * MiB;
  EXPECT_EQ(analyze(small, strict).verdict, VerdictClass::leak);
}

TEST(MemVerdict, UnknownWithoutAModelAndTheOptionOverridesTheMeta) {
  Timeline tl = synthetic(1500 * MiB, 0);
  Verdict v = analyze(tl);
  EXPECT_EQ(v.verdict, VerdictClass::unknown) << v.reason;
  EXPECT_FALSE(v.model_work_bytes);
  VerdictOptions o;
  o.model_work_bytes = 1400 * MiB;
  EXPECT_EQ(analyze(tl, o).verdict, VerdictClass::bounded);
  o.model_work_bytes = 400 * MiB;
  EXPECT_EQ(analyze(tl, o).verdict, VerdictClass::accumulation);
}

TEST(MemVerdict, TheBudgetCapsTheModel) {
  Timeline tl = synthetic(1000 * MiB, 0);
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(4000 * MiB));
  EXPECT_EQ(analyze(tl).verdict, VerdictClass::bounded);
  tl.set_meta(std::string(kMetaBudgetBytes), std::to_string(600 * MiB));
  Verdict v = analyze(tl);
  EXPECT_EQ(*v.model_work_bytes, 600 * MiB);
  EXPECT_EQ(v.verdict, VerdictClass::accumulation) << v.reason;  // over the budget: impossible
}

TEST(MemVerdict, UnaccountedBytesAreRssAboveBaselineThatNoReservationCovers) {
  Timeline tl = synthetic(1000 * MiB, 0, 200 * MiB);
  Verdict v = analyze(tl);
  EXPECT_EQ(v.unaccounted_at_peak, std::int64_t(200 * MiB));
  EXPECT_EQ(v.unaccounted_max, std::int64_t(200 * MiB));
  EXPECT_EQ(v.books_peak, 800 * MiB);
}

TEST(MemVerdict, UnmarkedTimelinesUseTheFirstAndLastSamples) {
  Timeline tl = synthetic(1000 * MiB, 50 * MiB, 0, /*marked=*/false);
  Verdict v = analyze(tl);
  EXPECT_FALSE(v.marked);
  EXPECT_EQ(v.baseline, 100 * MiB);
  EXPECT_EQ(v.after_drain, 150 * MiB);
  EXPECT_EQ(v.verdict, VerdictClass::leak);
  EXPECT_THROW(analyze(Timeline{}), splitprove::Error);
}

TEST(MemVerdict, ReportAndJsonCarryTheNumbers) {
  Timeline tl = synthetic(1500 * MiB, 2 * MiB);
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(500 * MiB));
  Verdict v = analyze(tl);
  std::string r = format_report(v);
  EXPECT_NE(r.find("verdict:     accumulation"), std::string::npos) << r;
  EXPECT_NE(r.find("baseline:    100 MiB"), std::string::npos) << r;
  EXPECT_NE(r.find("peak:        1.56 GiB"), std::string::npos) << r;
  EXPECT_NE(r.find("model:       600 MiB = baseline + 500 MiB"), std::string::npos) << r;
  nlohmann::json j = to_json(v);
  EXPECT_EQ(j["verdict"], "accumulation");
  EXPECT_EQ(j["peak_bytes"], 1600 * MiB);
  EXPECT_EQ(j["model_work_bytes"], 500 * MiB);
  EXPECT_EQ(j["after_drain_bytes"], 102 * MiB);
}

namespace {

// synthetic(), with `held` bytes booked under srs/pinned/scratch (a third each) from work_end on:
// what a service keeps after its first job (a resident key, pooled buffers, workers' scratch).
Timeline held_after_work(std::uint64_t peak_above, std::uint64_t after_above, std::uint64_t held) {
  Timeline tl = synthetic(peak_above, after_above);
  for (Sample& s : tl.samples) {
    if (s.t <= 9.0) continue;
    s.books = {};
    s.books[std::size_t(Tag::srs)] = held / 3;
    s.books[std::size_t(Tag::pinned)] = held / 3;
    s.books[std::size_t(Tag::scratch)] = held - 2 * (held / 3);
    s.budget_used = held;
  }
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(5000 * MiB));
  return tl;
}

}  // namespace

TEST(MemVerdict, MemoryHeldOnPurposeAfterWorkIsNotALeak) {
  // 75 MiB stayed, all of it booked as keys, pools and scratch: bounded, and the reason says so.
  Verdict v = analyze(held_after_work(1500 * MiB, 75 * MiB, 75 * MiB));
  EXPECT_EQ(v.verdict, VerdictClass::bounded) << v.reason;
  EXPECT_EQ(v.drain_delta, std::int64_t(75 * MiB));
  EXPECT_EQ(v.held_baseline, 0u);
  EXPECT_EQ(v.held_after, 75 * MiB);
  EXPECT_EQ(v.unheld_drain_delta, 0);
  EXPECT_NE(v.reason.find("held on purpose"), std::string::npos) << v.reason;
  // 300 MiB stayed with the same 75 MiB held: the 225 MiB beyond the books is a leak.
  Verdict leak = analyze(held_after_work(1500 * MiB, 300 * MiB, 75 * MiB));
  EXPECT_EQ(leak.verdict, VerdictClass::leak) << leak.reason;
  EXPECT_EQ(leak.unheld_drain_delta, std::int64_t(225 * MiB));
  EXPECT_NE(leak.reason.find("beyond what the books hold"), std::string::npos) << leak.reason;
  EXPECT_NE(format_report(leak).find("held:"), std::string::npos);
  EXPECT_EQ(to_json(leak)["unheld_drain_delta_bytes"], 225 * MiB);
}

TEST(MemVerdict, BooksOfWorkLeftAfterDrainAreNotHeldOnPurpose) {
  // The same 75 MiB, booked under gpu (a reservation of work never given back): a leak.
  Timeline tl = held_after_work(1500 * MiB, 75 * MiB, 75 * MiB);
  for (Sample& s : tl.samples)
    if (s.t > 9.0) {
      s.books = {};
      s.books[std::size_t(Tag::gpu)] = 75 * MiB;
    }
  EXPECT_EQ(analyze(tl).verdict, VerdictClass::leak);
}

TEST(MemVerdict, BooksReleasedWhoseMemoryWasNeverResidentAreNotALeak) {
  // Scratch booked before work (not resident) and given back at the end: RSS came back to the
  // baseline, the books fell by 200 MiB; no growth of what is held, nothing counts against it.
  Timeline tl = synthetic(1000 * MiB, 0);
  tl.set_meta(std::string(kMetaModelWorkBytes), std::to_string(5000 * MiB));
  for (Sample& s : tl.samples)
    if (s.t < 1.0) s.books[std::size_t(Tag::scratch)] = 200 * MiB;
  const Verdict v = analyze(tl);
  EXPECT_EQ(v.verdict, VerdictClass::bounded) << v.reason;
  EXPECT_EQ(v.held_baseline, 200 * MiB);
  EXPECT_EQ(v.unheld_drain_delta, 0);
}

TEST(MemVerdict, WithoutAModelTheBooksPeakCanServeAsOne) {
  Timeline tl = synthetic(1000 * MiB, 0);  // books follow RSS: all of it was admitted
  VerdictOptions o;
  o.no_model_hint = " (give --model-bytes)";
  const Verdict unknown = analyze(tl, o);
  EXPECT_EQ(unknown.verdict, VerdictClass::unknown);
  EXPECT_NE(unknown.reason.find("(give --model-bytes)"), std::string::npos) << unknown.reason;
  o.books_as_model = true;
  const Verdict v = analyze(tl, o);
  EXPECT_EQ(v.verdict, VerdictClass::bounded) << v.reason;
  EXPECT_EQ(*v.model_work_bytes, 1000 * MiB);
  // 400 MiB resident that no reservation stood for: above the books' peak.
  Timeline unbooked = synthetic(1000 * MiB, 0, 400 * MiB);
  EXPECT_EQ(analyze(unbooked, o).verdict, VerdictClass::accumulation);
}
