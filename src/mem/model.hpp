#pragma once
// The memory model: what a pipeline configuration can hold at most, before it runs (DESIGN §1.3).
//
//   predicted peak = baseline + fixed + Σ over stages of (items the stage can hold) × (bytes per
//   item)
//
// where `fixed` is what the pipeline holds whatever its items (the workers' scratch reservations),
// and a stage holds at most `workers` items being worked on plus `queue_bound` items waiting in
// front of it, and the whole pipeline holds at most `max_items_in_flight` items (jobs in flight ×
// partitions per job). Bytes per item are the bytes the item's *reservation* holds in that stage
// (the budget's view), which is never less than what is resident: the model is an upper bound that
// a pipeline with bounded queues reaches in steady state when its slowest stage is saturated.
//
// The generic part (StageSpec / MemoryModel / predict / largest_fitting) knows nothing about
// Groth16; `pipeline_model` maps splitprove's stage layout and an ownership policy onto it. The
// pipeline, the simulator, `splitprove plan` and the verdict all use this one model.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mem/budget.hpp"

namespace splitprove::mem {

struct StageSpec {
  std::string name;
  Tag tag = Tag::other;
  std::uint32_t workers = 1;                    // items being worked on at once
  std::optional<std::uint32_t> queue_bound{0};  // items waiting in front; nullopt: unbounded
  std::uint64_t bytes_per_item = 0;             // held by an item while a worker has it
  std::uint64_t queued_bytes_per_item = 0;      // held by an item while it waits in the queue
  // A worker may give its item's memory back gradually (buffers die at their last use inside the
  // stage): while a worker has it, an item then holds anything from this up to bytes_per_item.
  // nullopt: always bytes_per_item. Only the budget fill (predict's held_bytes
  // under a budget) uses it: an item part-way through such a stage lets the budget admit more.
  std::optional<std::uint64_t> min_bytes_per_item;
};

struct MemoryModel {
  std::uint64_t baseline_bytes = 0;  // resident before any work (binary, SRS, ...)
  std::uint64_t fixed_bytes = 0;     // held by the pipeline whatever its items (workers' scratch)
  std::vector<StageSpec> stages;
  std::uint64_t max_items_in_flight = 0;  // 0: no cap
  std::uint64_t budget_bytes = 0;         // 0: no budget (the books are not capped)
};

struct StagePrediction {
  std::string name;
  Tag tag = Tag::other;
  std::uint64_t worker_items = 0;  // items counted in workers / in the queue (after the cap)
  std::uint64_t queued_items = 0;
  std::uint64_t bytes = 0;
  bool unbounded = false;  // the queue has no bound (only the in-flight cap limits it)
};

struct Prediction {
  std::vector<StagePrediction> stages;
  bool bounded = true;            // false: an unbounded queue and no in-flight cap (no finite peak)
  std::uint64_t fixed_bytes = 0;  // the model's fixed_bytes (included in work_bytes)
  std::uint64_t work_bytes = 0;   // fixed + Σ stages (UINT64_MAX when unbounded)
  // What can really be held: work_bytes, or under a budget that cannot hold it, the most whole
  // items (plus the fixed bytes) that fit the budget (<= budget).
  std::uint64_t held_bytes = 0;
  std::uint64_t peak_bytes = 0;  // baseline + held_bytes (saturating)
  bool fits_budget = true;       // work_bytes <= budget (or no budget)
};

// Items are placed into the stages' worker and queue slots, the largest bytes-per-item first, until
// `max_items_in_flight` is used up: the most memory the configuration can hold at once.
Prediction predict(const MemoryModel& m);

// The largest n in [1, limit] for which `make(n)` still fits `budget` (work_bytes <= budget),
// scanning up while it fits. 0: not even n = 1 fits. `limit`: no limit found up to `limit` (the
// knob does not raise the peak past it, e.g. jobs under a policy whose queues are all bounded).
std::uint32_t largest_fitting(const std::function<MemoryModel(std::uint32_t)>& make,
                              std::uint64_t budget, std::uint32_t limit = 1024);

// ---- splitprove's Groth16 pipeline ------------------------------------------------------------

// Who holds the synthesis output after the GPU stage.
enum class Policy {
  // The reference design: the pending proof keeps the whole synthesis output (a, b, c and z) until
  // finalize, because the background G2 thread reads z in place; the GPU worker moves on at once,
  // so the G2/finalize backlog is unbounded (only jobs in flight limit it).
  held_until_finalize,
  // splitprove's: a, b, c and z die when the GPU stage ends; the G2 stage gets a compact copy of
  // only the B-dense scalars it reads; the G2 and finalize backlogs are bounded queues and a GPU
  // worker does not start a partition while the G2 backlog is full.
  splitprove,
};
std::string_view policy_name(Policy p);
std::optional<Policy> parse_policy(std::string_view s);  // "held" / "splitprove" (and full names)

// Bytes of one partition's buffers, from this circuit's real vector lengths.
struct PartitionBytes {
  // The domain-sized buffers: a and b in the engine (PartitionCost::ab; it forms c on the
  // device), a, b, c in memsim's synthetic partitions. One field element each per row.
  std::uint64_t abc = 0;
  std::uint64_t z = 0;         // the assignment
  std::uint64_t g2_input = 0;  // compact copy of the B-dense scalars (policy splitprove only)
  std::uint64_t result = 0;    // G1/G2 results and the proof (small)

  // A partition of `total` bytes of synthesis output, split as at Filecoin scale: a, b, c are 3/4,
  // z is 1/4, the B-dense G2 input is 1/4 of z; results are 64 KiB. Rounded to pages.
  static PartitionBytes scaled(std::uint64_t total);
};

// What synthesis admission reserves: everything the partition will ever hold, so that a partition
// once admitted never waits for memory again (no deadlock between stages).
std::uint64_t life_cost(const PartitionBytes& p, Policy policy);

struct PipelineConfig {
  PartitionBytes partition;
  std::uint32_t synthesis_workers = 1;  // pw
  std::uint32_t gpu_workers = 1;        // gw
  std::uint32_t g2_workers = 1;
  std::uint32_t finalizers = 1;
  std::uint32_t gpu_queue = 1;    // synthesized partitions waiting for a GPU worker
  std::uint32_t g2_queue = 1;     // G2 backlog (splitprove policy; unbounded when held)
  std::uint32_t final_queue = 1;  // finalize backlog (splitprove policy; unbounded when held)
  std::uint32_t jobs = 1;         // jobs in flight
  std::uint32_t partitions_per_job = 10;
  std::uint64_t baseline = 0;
  std::uint64_t budget = 0;  // 0: none
  // Heap scratch each worker holds for the pipeline's whole life (not per partition): the model
  // adds workers × scratch of each stage as fixed bytes.
  std::uint64_t scratch_per_synthesis_worker = 0;
  std::uint64_t scratch_per_gpu_worker = 0;
  std::uint64_t scratch_per_g2_worker = 0;
  // The GPU stage may give a partition's buffers back before it ends (a device backend frees the
  // host copies once uploaded): under a budget, a part-freed item lets one more be admitted.
  bool gpu_frees_inputs_early = true;
  // Measured seconds per partition (0: unknown): the longest GPU stage and the shortest synthesis
  // of a warm-up. When the GPU stage keeps up with synthesis with room to spare (gw >= pw and the
  // longest GPU stage at most kQueueFreeRatio of the shortest synthesis), no partition ever waits
  // for a GPU worker: in any span of one GPU stage each synthesis worker hands over at most one
  // partition, so at most pw <= gw arrive, and each finds a worker idle. The GPU queue's slots
  // then hold nothing and the model leaves them out. Unknown times: the queue counts full.
  double gpu_stage_max_s = 0;
  double synthesis_min_s = 0;
  static constexpr double kQueueFreeRatio = 0.8;  // margin for the spread of stage times
  bool gpu_queue_stays_empty() const;
  std::uint64_t worker_scratch() const;
};

MemoryModel pipeline_model(const PipelineConfig& c, Policy policy);

}  // namespace splitprove::mem
