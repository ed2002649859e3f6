#include "harness/plan.hpp"

#include <fmt/format.h>

#include <limits>
#include <nlohmann/json.hpp>

#include "mem/units.hpp"

namespace splitprove::harness {
using namespace mem;
namespace {
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
std::string bytes_or_unbounded(std::uint64_t b) {
  return b == kMax ? "unbounded" : format_bytes(b);
}
std::string limit_text(std::uint32_t n, const char* knob) {
  if (n == 0) return fmt::format("none: even {}=1 does not fit", knob);
  if (n >= kPlanNoLimit)
    return fmt::format("no limit (raising {} does not raise the peak past the budget)", knob);
  return std::to_string(n);
}
}  // namespace

Plan make_plan(const PipelineConfig& c, Policy policy) {
  Plan p;
  p.config = c;
  p.policy = policy;
  p.prediction = predict(pipeline_model(c, policy));
  if (c.budget) {
    p.largest_pw = largest_fitting(
        [&](std::uint32_t n) {
          PipelineConfig k = c;
          k.synthesis_workers = n;
          return pipeline_model(k, policy);
        },
        c.budget, kPlanNoLimit);
    p.largest_jobs = largest_fitting(
        [&](std::uint32_t n) {
          PipelineConfig k = c;
          k.jobs = n;
          return pipeline_model(k, policy);
        },
        c.budget, kPlanNoLimit);
  }
  return p;
}

std::string format_plan(const Plan& p) {
  const PipelineConfig& c = p.config;
  const PartitionBytes& b = c.partition;
  const Prediction& pr = p.prediction;
  std::string s;
  s += fmt::format("policy {}: partition a,b,c {} + z {}; G2 input {}; results {}\n",
                   policy_name(p.policy), format_bytes(b.abc), format_bytes(b.z),
                   format_bytes(b.g2_input), format_bytes(b.result));
  s += fmt::format(
      "workers: synthesis {}, gpu {}, g2 {}, finalize {}; queues: gpu {}, g2 {}, finalize {}; "
      "{} jobs × {} partitions in flight\n",
      c.synthesis_workers, c.gpu_workers, c.g2_workers, c.finalizers, c.gpu_queue,
      p.policy == Policy::held_until_finalize ? "unbounded" : std::to_string(c.g2_queue),
      p.policy == Policy::held_until_finalize ? "unbounded" : std::to_string(c.final_queue), c.jobs,
      c.partitions_per_job);
  s += fmt::format("{:<10} {:>8} {:>8} {:>12}\n", "stage", "working", "queued", "holds");
  for (const StagePrediction& sp : pr.stages)
    s += fmt::format("{:<10} {:>8} {:>8} {:>12}\n", sp.name, sp.worker_items,
                     sp.unbounded && !c.jobs ? std::string("∞") : std::to_string(sp.queued_items),
                     format_bytes(sp.bytes));
  s += fmt::format("work bytes:      {}\n", bytes_or_unbounded(pr.work_bytes));
  if (c.budget) {
    s += fmt::format("budget:          {} — {}\n", format_bytes(c.budget),
                     pr.fits_budget
                         ? fmt::format("fits (headroom {})", format_bytes(c.budget - pr.work_bytes))
                         : std::string("does not fit: admission will wait, the budget "
                                       "caps the peak (throughput drops instead)"));
  }
  s += fmt::format("predicted peak:  {} = baseline {} + {}\n", bytes_or_unbounded(pr.peak_bytes),
                   format_bytes(c.baseline), bytes_or_unbounded(pr.held_bytes));
  if (c.budget) {
    s += fmt::format("largest synthesis workers (pw) that fit the budget: {}\n",
                     limit_text(p.largest_pw, "pw"));
    s += fmt::format("largest jobs in flight that fit the budget:         {}\n",
                     limit_text(p.largest_jobs, "jobs"));
  } else {
    s += "no --budget given: no largest concurrency to compute\n";
  }
  return s;
}

nlohmann::json to_json(const Plan& p) {
  using nlohmann::json;
  auto num = [](std::uint64_t v) { return v == kMax ? json(nullptr) : json(v); };
  json stages = json::array();
  for (const StagePrediction& sp : p.prediction.stages)
    stages.push_back({{"name", sp.name},
                      {"worker_items", sp.worker_items},
                      {"queued_items", sp.queued_items},
                      {"bytes", sp.bytes},
                      {"unbounded_queue", sp.unbounded}});
  const PipelineConfig& c = p.config;
  json j = {{"policy", policy_name(p.policy)},
            {"partition",
             {{"abc_bytes", c.partition.abc},
              {"z_bytes", c.partition.z},
              {"g2_input_bytes", c.partition.g2_input},
              {"result_bytes", c.partition.result},
              {"life_cost_bytes", life_cost(c.partition, p.policy)}}},
            {"workers",
             {{"synthesis", c.synthesis_workers},
              {"gpu", c.gpu_workers},
              {"g2", c.g2_workers},
              {"finalize", c.finalizers}}},
            {"queues", {{"gpu", c.gpu_queue}, {"g2", c.g2_queue}, {"finalize", c.final_queue}}},
            {"jobs", c.jobs},
            {"partitions_per_job", c.partitions_per_job},
            {"baseline_bytes", c.baseline},
            {"budget_bytes", c.budget ? json(c.budget) : json(nullptr)},
            {"stages", stages},
            {"bounded", p.prediction.bounded},
            {"work_bytes", num(p.prediction.work_bytes)},
            {"predicted_peak_bytes", num(p.prediction.peak_bytes)},
            {"fits_budget", p.prediction.fits_budget}};
  if (c.budget) {
    j["largest_pw"] = p.largest_pw >= kPlanNoLimit ? json(nullptr) : json(p.largest_pw);
    j["largest_jobs"] = p.largest_jobs >= kPlanNoLimit ? json(nullptr) : json(p.largest_jobs);
  }
  return j;
}

}  // namespace splitprove::harness
