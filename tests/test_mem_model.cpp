// The memory model: predictions by hand, the in-flight cap, the budget, the inverse (largest
// concurrency that fits), splitprove's pipeline layout, and a short simulator run held to the
// model.
#include <gtest/gtest.h>

#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "mem/model.hpp"
#include "harness/plan.hpp"
#include "harness/sim.hpp"
#include "mem/units.hpp"

using namespace splitprove::mem;
using namespace splitprove::harness;
using namespace std::chrono_literals;

TEST(MemModel, PredictSumsWorkersAndQueuesTimesBytesPerItem) {
  MemoryModel m;
  m.baseline_bytes = 1000;
  m.stages.push_back({"a", Tag::synthesis, 2, 3, 100, 40, std::nullopt});  // 2×100 + 3×40 = 320
  m.stages.push_back({"b", Tag::gpu, 1, 0, 50, 0, std::nullopt});          // 50
  Prediction p = predict(m);
  EXPECT_TRUE(p.bounded);
  EXPECT_EQ(p.work_bytes, 370u);
  EXPECT_EQ(p.peak_bytes, 1370u);
  ASSERT_EQ(p.stages.size(), 2u);
  EXPECT_EQ(p.stages[0].worker_items, 2u);
  EXPECT_EQ(p.stages[0].queued_items, 3u);
  EXPECT_EQ(p.stages[0].bytes, 320u);
  EXPECT_TRUE(p.fits_budget);
}

TEST(MemModel, TheInFlightCapBoundsUnboundedQueuesLargestItemsFirst) {
  MemoryModel m;
  m.stages.push_back({"small", Tag::g2, 4, 0, 10, 0, std::nullopt});
  m.stages.push_back(
      {"big", Tag::gpu, 1, std::nullopt, 100, 100, std::nullopt});  // unbounded backlog
  EXPECT_FALSE(predict(m).bounded);
  EXPECT_EQ(predict(m).work_bytes, std::numeric_limits<std::uint64_t>::max());
  m.max_items_in_flight = 5;  // 5 items: all five may be big ones
  Prediction p = predict(m);
  EXPECT_TRUE(p.bounded);
  EXPECT_EQ(p.work_bytes, 500u);
  EXPECT_EQ(p.stages[0].worker_items, 0u);
  EXPECT_EQ(p.stages[1].worker_items + p.stages[1].queued_items, 5u);
  m.max_items_in_flight = 20;  // the unbounded backlog of big items can take all 20
  EXPECT_EQ(predict(m).work_bytes, 2000u);
  m.stages[1].queue_bound = 10;  // bounded: 1 + 10 big ones, then the 4 small workers
  EXPECT_EQ(predict(m).work_bytes, 1100u + 40u);
}

TEST(MemModel, ABudgetCapsWhatCanBeHeld) {
  MemoryModel m;
  m.baseline_bytes = 10;
  m.stages.push_back({"s", Tag::synthesis, 8, 0, 100, 0, std::nullopt});
  m.budget_bytes = 500;
  Prediction p = predict(m);
  EXPECT_EQ(p.work_bytes, 800u);
  EXPECT_FALSE(p.fits_budget);
  EXPECT_EQ(p.held_bytes, 500u);
  EXPECT_EQ(p.peak_bytes, 510u);
}

// Under a budget the books hold whole items: the prediction is the most whole items (beside the
// fixed bytes) that fit, not the budget itself.
TEST(MemModel, UnderABudgetOnlyWholeItemsAreHeld) {
  MemoryModel m;
  m.baseline_bytes = 10;
  m.fixed_bytes = 30;
  m.stages.push_back({"s", Tag::synthesis, 8, 0, 100, 0, std::nullopt});
  m.budget_bytes = 500;
  Prediction p = predict(m);
  EXPECT_EQ(p.work_bytes, 830u);
  EXPECT_FALSE(p.fits_budget);
  EXPECT_EQ(p.held_bytes, 430u);  // 30 + 4 × 100: a fifth item does not fit
  EXPECT_EQ(p.peak_bytes, 440u);
  // Two sizes (3 slots of 100, 4 of 30): 2 × 100 + 3 × 30 fills 290 exactly.
  MemoryModel k;
  k.stages.push_back({"big", Tag::synthesis, 3, 0, 100, 0, std::nullopt});
  k.stages.push_back({"small", Tag::g2, 1, 3, 30, 30, std::nullopt});
  k.budget_bytes = 290;
  EXPECT_EQ(predict(k).work_bytes, 420u);
  EXPECT_EQ(predict(k).held_bytes, 290u);
  k.budget_bytes = 289;  // 2 × 100 + 2 × 30 = 260 is the most (1 × 100 + 4 × 30 = 220)
  EXPECT_EQ(predict(k).held_bytes, 260u);
  // The cap on items in flight applies too: 3 items at most, 2 × 100 + 1 × 30.
  k.max_items_in_flight = 3;
  EXPECT_EQ(predict(k).held_bytes, 230u);
  // A budget the fixed bytes alone fill: nothing more.
  m.budget_bytes = 30;
  EXPECT_EQ(predict(m).held_bytes, 30u);
  // A stage whose worker frees its item gradually (from 100 down to 20): part-way through, the
  // item lets the budget be filled where whole items could not (4 × 100 + one item at 50).
  MemoryModel g;
  g.stages.push_back({"s", Tag::synthesis, 8, 0, 100, 0, std::nullopt});
  g.stages.push_back({"gpu", Tag::gpu, 1, 0, 100, 0, std::nullopt});
  g.budget_bytes = 450;
  EXPECT_EQ(predict(g).held_bytes, 400u);
  g.stages[1].min_bytes_per_item = 20;
  EXPECT_EQ(predict(g).held_bytes, 450u);
  g.max_items_in_flight = 4;  // 3 × 100 + one at most 100
  EXPECT_EQ(predict(g).held_bytes, 400u);
  EXPECT_EQ(predict(g).work_bytes, 400u);  // the uncapped need is unchanged by the range
}

// The pipeline layout under a budget: a GPU stage that frees its inputs early (a device backend)
// lets the books reach the budget with a part-freed item; one that keeps them until it returns
// (the CPU stage) leaves only whole items.
TEST(MemModel, PipelineUnderABudgetKnowsWhetherTheGpuStageFreesEarly) {
  PipelineConfig c;
  c.partition.abc = 60;
  c.partition.z = 20;
  c.partition.g2_input = 10;
  c.partition.result = 1;  // life 91, after the GPU stage 11
  c.synthesis_workers = 8;
  c.jobs = 1;
  c.partitions_per_job = 10;
  c.scratch_per_gpu_worker = 5;
  c.budget = 5 + 4 * 91 + 50;  // four whole partitions and 50 bytes
  c.gpu_frees_inputs_early = false;
  const auto whole = predict(pipeline_model(c, Policy::splitprove));
  EXPECT_FALSE(whole.fits_budget);
  // 4 × 91 + up to 4 items of 11 or 1 behind the GPU stage (g2 queue + worker, finalize
  // queue + worker): 4 × 91 + 2 × 11 + 2 × 1 = 388 <= 414.
  EXPECT_EQ(whole.held_bytes, 5u + 4 * 91 + 2 * 11 + 2 * 1);
  c.gpu_frees_inputs_early = true;
  const auto early = predict(pipeline_model(c, Policy::splitprove));
  EXPECT_EQ(early.held_bytes, c.budget);  // the GPU item part-freed fills the rest
  EXPECT_EQ(early.work_bytes, whole.work_bytes);
}

TEST(MemModel, LargestFittingIsTheInverse) {
  auto linear = [](std::uint32_t n) {
    MemoryModel m;
    m.stages.push_back({"s", Tag::synthesis, n, 0, 100, 0, std::nullopt});
    return m;
  };
  EXPECT_EQ(largest_fitting(linear, 950), 9u);
  EXPECT_EQ(largest_fitting(linear, 1000), 10u);
  EXPECT_EQ(largest_fitting(linear, 99), 0u);
  auto flat = [](std::uint32_t) {
    MemoryModel m;
    m.stages.push_back({"s", Tag::synthesis, 1, 0, 100, 0, std::nullopt});
    return m;
  };
  EXPECT_EQ(largest_fitting(flat, 1000, 64), 64u);
}

TEST(MemModel, PipelineModelOfBothPolicies) {
  PipelineConfig c;
  c.partition = PartitionBytes::scaled(64 * MiB);
  EXPECT_EQ(c.partition.abc, 48 * MiB);
  EXPECT_EQ(c.partition.z, 16 * MiB);
  EXPECT_EQ(c.partition.g2_input, 4 * MiB);
  c.synthesis_workers = 2;
  c.jobs = 1;
  c.partitions_per_job = 10;
  const std::uint64_t r = c.partition.result, g = c.partition.g2_input;
  const std::uint64_t life2 = life_cost(c.partition, Policy::splitprove);
  EXPECT_EQ(life2, 64 * MiB + g + r);
  // splitprove: synthesis 2 + GPU queue 1 + GPU 1 hold the life cost; G2 1+1 hold g + r;
  // finalize 1+1 hold r.
  Prediction p2 = predict(pipeline_model(c, Policy::splitprove));
  EXPECT_EQ(p2.work_bytes, 4 * life2 + 2 * (g + r) + 2 * r);
  // held: every one of the 10 partitions in flight may hold its whole output.
  const std::uint64_t life1 = life_cost(c.partition, Policy::held_until_finalize);
  EXPECT_EQ(life1, 64 * MiB + r);
  EXPECT_EQ(predict(pipeline_model(c, Policy::held_until_finalize)).work_bytes, 10 * life1);
  // More jobs in flight raise the held policy's bound, not splitprove's.
  c.jobs = 3;
  EXPECT_EQ(predict(pipeline_model(c, Policy::held_until_finalize)).work_bytes, 30 * life1);
  EXPECT_EQ(predict(pipeline_model(c, Policy::splitprove)).work_bytes, p2.work_bytes);
}

// With measured stage times showing that the GPU stage keeps up with synthesis (gw >= pw, the
// longest GPU stage at most 0.8 of the shortest synthesis), a synthesized partition never waits:
// the GPU queue's slot leaves the prediction. Any other case keeps it.
TEST(MemModel, AGpuStageThatKeepsUpLeavesItsQueueEmpty) {
  PipelineConfig c;
  c.partition = PartitionBytes::scaled(64 * MiB);
  c.synthesis_workers = 1;
  c.gpu_workers = 1;
  c.jobs = 2;
  c.partitions_per_job = 10;
  const std::uint64_t life = life_cost(c.partition, Policy::splitprove);
  const std::uint64_t bound = predict(pipeline_model(c, Policy::splitprove)).work_bytes;
  EXPECT_FALSE(c.gpu_queue_stays_empty());  // times unknown
  c.synthesis_min_s = 2.3;
  c.gpu_stage_max_s = 1.2;
  EXPECT_TRUE(c.gpu_queue_stays_empty());
  const Prediction fast = predict(pipeline_model(c, Policy::splitprove));
  EXPECT_EQ(fast.work_bytes, bound - life);
  EXPECT_EQ(fast.stages[1].queued_items, 0u);
  EXPECT_EQ(fast.stages[1].worker_items, 1u);
  // The held policy's queue in front of the GPU stage empties the same way.
  const std::uint64_t held_bound = [&] {
    PipelineConfig u = c;
    u.gpu_stage_max_s = 0;
    return predict(pipeline_model(u, Policy::held_until_finalize)).stages[1].queued_items;
  }();
  EXPECT_EQ(held_bound, 1u);
  EXPECT_EQ(predict(pipeline_model(c, Policy::held_until_finalize)).stages[1].queued_items, 0u);
  // Too little margin, or more synthesis workers than GPU workers: the queue counts again.
  for (auto [pw, gpu_s] : {std::pair{1u, 1.9}, std::pair{2u, 1.2}}) {
    PipelineConfig d = c;
    d.synthesis_workers = pw;
    d.gpu_stage_max_s = gpu_s;
    EXPECT_FALSE(d.gpu_queue_stays_empty()) << pw << " " << gpu_s;
    EXPECT_EQ(predict(pipeline_model(d, Policy::splitprove)).stages[1].queued_items, 1u);
  }
}

TEST(MemModel, WorkersScratchIsFixedNotPerPartition) {
  PipelineConfig c;
  c.partition = PartitionBytes::scaled(64 * MiB);
  c.synthesis_workers = 4;
  c.gpu_workers = 2;
  c.g2_workers = 3;
  c.jobs = 1;
  c.partitions_per_job = 10;
  const Prediction without = predict(pipeline_model(c, Policy::splitprove));
  EXPECT_EQ(without.fixed_bytes, 0u);
  c.scratch_per_synthesis_worker = 1 * MiB;
  c.scratch_per_gpu_worker = 7 * MiB;
  c.scratch_per_g2_worker = 5 * MiB;
  EXPECT_EQ(c.worker_scratch(), (4 * 1 + 2 * 7 + 3 * 5) * MiB);
  for (Policy pol : {Policy::splitprove, Policy::held_until_finalize}) {
    const Prediction with = predict(pipeline_model(c, pol));
    c.scratch_per_synthesis_worker = c.scratch_per_gpu_worker = c.scratch_per_g2_worker = 0;
    const Prediction base = predict(pipeline_model(c, pol));
    c.scratch_per_synthesis_worker = 1 * MiB;
    c.scratch_per_gpu_worker = 7 * MiB;
    c.scratch_per_g2_worker = 5 * MiB;
    // Workers × scratch on top of the items, whatever the items in flight (the cap counts items).
    EXPECT_EQ(with.fixed_bytes, 33 * MiB);
    EXPECT_EQ(with.work_bytes, base.work_bytes + 33 * MiB);
    c.partitions_per_job = 1;
    EXPECT_EQ(predict(pipeline_model(c, pol)).work_bytes, life_cost(c.partition, pol) + 33 * MiB);
    c.partitions_per_job = 10;
  }
  // The budget caps the fixed part too.
  c.budget = 20 * MiB;
  const Prediction capped = predict(pipeline_model(c, Policy::splitprove));
  EXPECT_FALSE(capped.fits_budget);
  EXPECT_EQ(capped.held_bytes, 20 * MiB);
}

TEST(MemModel, PlanFindsTheLargestConcurrencyThatFitsTheBudget) {
  PipelineConfig c;
  c.partition = PartitionBytes::scaled(16 * GiB);
  c.jobs = 15;
  c.baseline = 70 * GiB;
  c.budget = 300 * GiB;
  Plan p = make_plan(c, Policy::splitprove);
  const std::uint64_t life = life_cost(c.partition, Policy::splitprove);
  // (pw + 2) × life + small ≤ 300 GiB  ⇒  pw ≤ 300 / 17 - 2 = 15.6
  EXPECT_EQ(p.largest_pw, std::uint32_t(300 * GiB / life - 2));
  EXPECT_EQ(p.largest_jobs, kPlanNoLimit);  // bounded queues: jobs do not raise the peak
  Plan h = make_plan(c, Policy::held_until_finalize);
  EXPECT_EQ(h.largest_pw, 0u);    // 15 jobs × 10 partitions × 16 GiB never fits
  EXPECT_EQ(h.largest_jobs, 1u);  // one job: 10 × 16 GiB fits, two do not
  std::string text = format_plan(p);
  EXPECT_NE(text.find("predicted peak:"), std::string::npos) << text;
  EXPECT_NE(text.find("largest synthesis workers (pw) that fit the budget: 15"), std::string::npos)
      << text;
  nlohmann::json j = to_json(p);
  EXPECT_EQ(j["largest_pw"], 15);
  EXPECT_TRUE(j["largest_jobs"].is_null());
  EXPECT_EQ(j["predicted_peak_bytes"], p.prediction.peak_bytes);
}

// ---- the simulator, held to the model -----------------------------------------------------------

namespace {

// A short run: 32 MiB partitions, 2 synthesis workers, 1 GPU / G2 / finalize worker, queues of 1.
SimConfig short_run(Policy policy) {
  SimConfig c;
  c.policy = policy;
  c.pipeline.partition = PartitionBytes::scaled(32 * MiB);
  c.pipeline.synthesis_workers = 2;
  c.pipeline.jobs = 1;
  c.pipeline.partitions_per_job = 6;
  c.total_jobs = 1;
  // G2 (300 ms) is the bottleneck; the GPU stage (200 ms) is long next to a 32 MiB page-touch
  // (~35 ms on the 2-core VM), so every slot the model counts is full at once for most of each
  // cycle and a 10 ms sampler sees it even when the machine is busy with other tests.
  c.t_synth = 60ms;
  c.t_gpu = 200ms;
  c.t_g2 = 300ms;
  c.t_final = 5ms;
  c.sample_interval = 10ms;
  c.settle = 150ms;
  return c;
}

// The held policy's pile-up needs synthesis and the GPU stage much faster than G2 (as in the
// reference design, where the GPU worker moved on while the G2 MSM ran in the background). G2 at
// 4 partitions/s stays the slowest stage even when page faults are slow (ASan, a busy machine).
SimConfig short_held_run() {
  SimConfig c = short_run(Policy::held_until_finalize);
  c.pipeline.partitions_per_job = 10;
  c.t_gpu = 40ms;
  c.t_g2 = 250ms;
  return c;
}

std::uint64_t above(const Verdict& v) { return v.peak > v.baseline ? v.peak - v.baseline : 0; }

// The verdict of a simulator run. Under AddressSanitizer the runtime keeps per-thread bookkeeping
// (allocator caches, thread records) for the simulator's worker threads after they have exited:
// 16-19 MiB of RSS that never returns, measured on the 2-core VM with the same code passing at the
// default 16 MiB tolerance in optimised builds. There the leak tolerance is 32 MiB (still far
// below one 32 MiB partition, so a partition that did not come back is still a leak).
Verdict judged(const SimResult& r) {
#if defined(__SANITIZE_ADDRESS__)
  constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  constexpr bool kAsan = true;
#else
  constexpr bool kAsan = false;
#endif
#else
  constexpr bool kAsan = false;
#endif
  if (!kAsan) return r.verdict;
  VerdictOptions o;
  o.tolerance = std::max<std::uint64_t>(32 * MiB, r.verdict.tolerance);
  return analyze(r.timeline, o);
}

}  // namespace

// One test, three runs in sequence: simulator runs compete for the same two cores and for page
// faults, so they must not run beside each other (ctest -j runs separate tests in parallel).
TEST(MemSim, SplitproveStaysAtTheModelHeldAccumulatesABudgetBoundsIt) {
  // splitprove: the peak is the model's prediction. Every run must stay within it (+10%), come
  // back to baseline and keep the books within it. Reaching it needs every slot the model counts
  // full, and resident, at one moment that the sampler sees; on a machine busy with other work
  // the stages' timing can miss that moment, so that part gets up to three runs (it still fails
  // when no run comes within 10%).
  for (int attempt = 1;; ++attempt) {
    SimResult r = run_simulation(short_run(Policy::splitprove));
    r.verdict = judged(r);
    const double model = double(r.needs.work_bytes);
    const double peak = double(above(r.verdict));
    const std::string what = "run " + std::to_string(attempt) + ": peak above baseline " +
                             format_bytes(std::uint64_t(peak)) + ", model " +
                             format_bytes(std::uint64_t(model));
    EXPECT_LE(peak, 1.10 * model) << what;
    EXPECT_EQ(r.verdict.verdict, VerdictClass::bounded) << r.verdict.reason;
    EXPECT_LE(r.books_peak, r.needs.work_bytes);  // the model bounds the books exactly
    EXPECT_EQ(r.partitions, 6u);
    if (peak >= 0.90 * model || attempt == 3) {
      EXPECT_NEAR(peak, model, 0.10 * model) << what;
      break;
    }
  }

  // Held until finalize: the same kind of pipeline piles up whole partitions behind G2.
  SimResult held = run_simulation(short_held_run());
  held.verdict = judged(held);
  EXPECT_EQ(held.verdict.verdict, VerdictClass::accumulation) << held.verdict.reason;
  EXPECT_GT(above(held.verdict), 7 * held.needs.work_bytes / 5)
      << "peak above baseline " << format_bytes(above(held.verdict)) << ", model "
      << format_bytes(held.needs.work_bytes);
  EXPECT_LE(held.verdict.drain_delta, std::int64_t(held.verdict.tolerance));  // it came back

  // Held, under a budget of three partitions: it cannot pile up.
  SimConfig c = short_held_run();
  c.pipeline.partitions_per_job = 6;
  c.pipeline.budget = 3 * life_cost(c.pipeline.partition, c.policy);
  SimResult b = run_simulation(c);
  b.verdict = judged(b);
  EXPECT_LE(b.books_peak, c.pipeline.budget);
  EXPECT_LE(above(b.verdict), c.pipeline.budget + 8 * MiB);
  EXPECT_EQ(b.verdict.verdict, VerdictClass::bounded) << b.verdict.reason;
  EXPECT_EQ(b.partitions, 6u);
}

TEST(MemSim, RefusesAPartitionLargerThanTheBudget) {
  SimConfig c = short_run(Policy::splitprove);
  c.pipeline.budget = 16 * MiB;
  EXPECT_THROW(run_simulation(c), splitprove::Error);
}
