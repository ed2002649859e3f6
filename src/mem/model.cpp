#include "mem/model.hpp"

#include <algorithm>
#include <limits>

#include "mem/pages.hpp"

namespace splitprove::mem {
namespace {
constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

std::uint64_t sat_mul(std::uint64_t a, std::uint64_t b) {
  if (a != 0 && b > kMax / a) return kMax;
  return a * b;
}
std::uint64_t sat_add(std::uint64_t a, std::uint64_t b) { return a > kMax - b ? kMax : a + b; }
std::uint64_t pages(std::uint64_t n) { return (n + kPageSize - 1) / kPageSize * kPageSize; }

// One "slot class" per (stage, workers|queue): how many items it can hold, and at what size.
struct Slot {
  std::size_t stage;
  bool queued;
  std::uint64_t count;  // kMax: unbounded
  std::uint64_t bytes;
  std::uint64_t min_bytes;  // the least an item in the slot holds (== bytes unless it shrinks)
};

// Under a budget the books hold whole items (an item is admitted with its whole reservation, and
// keeps a stage's bytes until it leaves the stage, or gives them back gradually in a stage whose
// workers free buffers as they die): the most they can hold is the largest
// fixed + Σ over slot classes of n_k items, each holding between min_k and bytes_k, that is
// <= budget, over n_k <= the slots of the class and Σ n_k <= items in flight. Exact (a bounded
// knapsack over the few distinct item sizes, by enumeration); the budget itself when the
// enumeration would be too long.
std::uint64_t fill_budget(const MemoryModel& m, const std::vector<Slot>& slots) {
  if (m.budget_bytes == 0 || m.fixed_bytes >= m.budget_bytes) return m.budget_bytes;
  struct Size {
    std::uint64_t lo, hi, count;
  };
  std::vector<Size> sizes;  // distinct (lo, hi)
  for (const Slot& sl : slots) {
    if (sl.bytes == 0 || sl.count == 0) continue;
    auto it = std::find_if(sizes.begin(), sizes.end(),
                           [&](const Size& q) { return q.lo == sl.min_bytes && q.hi == sl.bytes; });
    if (it == sizes.end())
      sizes.push_back({sl.min_bytes, sl.bytes, sl.count});
    else
      it->count = sat_add(it->count, sl.count);
  }
  std::sort(sizes.begin(), sizes.end(), [](const Size& a, const Size& b) {
    return std::pair(a.hi, a.lo) > std::pair(b.hi, b.lo);
  });
  const std::uint64_t room = m.budget_bytes - m.fixed_bytes;
  const std::uint64_t items = m.max_items_in_flight ? m.max_items_in_flight : kMax;
  std::uint64_t best = 0, nodes = 0;
  bool gave_up = false;
  // Depth-first, largest sizes first, most items first; stops once the budget can be filled.
  // `lo` / `hi`: the least / most the chosen items hold together (lo <= room).
  auto go = [&](auto&& self, std::size_t k, std::uint64_t lo, std::uint64_t hi,
                std::uint64_t left) -> void {
    if (gave_up || best == room) return;
    if (++nodes > 2'000'000) {
      gave_up = true;
      return;
    }
    best = std::max(best, std::min(hi, room));
    if (k == sizes.size() || left == 0) return;
    const Size& z = sizes[k];
    std::uint64_t most = std::min(z.count, left);
    if (z.lo > 0) most = std::min(most, (room - lo) / z.lo);
    for (std::uint64_t n = most + 1; n-- > 0;)
      self(self, k + 1, lo + n * z.lo, sat_add(hi, sat_mul(n, z.hi)), left - n);
  };
  go(go, 0, 0, 0, items);
  return gave_up ? m.budget_bytes : m.fixed_bytes + best;
}

}  // namespace

Prediction predict(const MemoryModel& m) {
  Prediction p;
  std::vector<Slot> slots;
  for (std::size_t i = 0; i < m.stages.size(); ++i) {
    const StageSpec& s = m.stages[i];
    StagePrediction sp{s.name, s.tag, 0, 0, 0, !s.queue_bound.has_value()};
    p.stages.push_back(sp);
    slots.push_back({i, false, s.workers, s.bytes_per_item,
                     std::min(s.min_bytes_per_item.value_or(s.bytes_per_item), s.bytes_per_item)});
    slots.push_back({i, true, s.queue_bound ? *s.queue_bound : kMax, s.queued_bytes_per_item,
                     s.queued_bytes_per_item});
  }
  // Largest items first: with a cap on items in flight, this is the worst case the cap allows.
  std::stable_sort(slots.begin(), slots.end(),
                   [](const Slot& a, const Slot& b) { return a.bytes > b.bytes; });
  std::uint64_t left = m.max_items_in_flight ? m.max_items_in_flight : kMax;
  for (const Slot& sl : slots) {
    std::uint64_t n = std::min(sl.count, left);
    if (n == kMax) {  // unbounded and uncapped
      if (sl.bytes > 0) p.bounded = false;
      continue;
    }
    if (left != kMax) left -= n;
    StagePrediction& sp = p.stages[sl.stage];
    (sl.queued ? sp.queued_items : sp.worker_items) += n;
    sp.bytes = sat_add(sp.bytes, sat_mul(n, sl.bytes));
  }
  p.fixed_bytes = m.fixed_bytes;
  if (!p.bounded) {
    p.work_bytes = kMax;
  } else {
    p.work_bytes = m.fixed_bytes;
    for (auto& sp : p.stages) p.work_bytes = sat_add(p.work_bytes, sp.bytes);
  }
  p.fits_budget = m.budget_bytes == 0 || p.work_bytes <= m.budget_bytes;
  p.held_bytes = m.budget_bytes ? std::min(p.work_bytes, m.budget_bytes) : p.work_bytes;
  if (!p.fits_budget) p.held_bytes = std::min(p.held_bytes, fill_budget(m, slots));
  p.peak_bytes = sat_add(m.baseline_bytes, p.held_bytes);
  return p;
}

std::uint32_t largest_fitting(const std::function<MemoryModel(std::uint32_t)>& make,
                              std::uint64_t budget, std::uint32_t limit) {
  std::uint32_t best = 0;
  for (std::uint32_t n = 1; n <= limit; ++n) {
    MemoryModel m = make(n);
    m.budget_bytes = 0;  // ask what it would hold without a cap
    if (predict(m).work_bytes > budget) break;
    best = n;
  }
  return best;
}

std::string_view policy_name(Policy p) {
  return p == Policy::held_until_finalize ? "held" : "splitprove";
}

std::optional<Policy> parse_policy(std::string_view s) {
  if (s == "held" || s == "held_until_finalize" || s == "1") return Policy::held_until_finalize;
  if (s == "splitprove" || s == "2") return Policy::splitprove;
  return std::nullopt;
}

PartitionBytes PartitionBytes::scaled(std::uint64_t total) {
  PartitionBytes p;
  p.abc = pages(total / 4 * 3);
  p.z = pages(total / 4);
  p.g2_input = pages(total / 16);
  p.result = std::uint64_t(64) * 1024;
  return p;
}

std::uint64_t life_cost(const PartitionBytes& p, Policy policy) {
  // Every buffer the partition will ever own is paid for at admission; buffers give their share
  // back to the budget when they die (so the held policy pays the same, but holds it longer).
  std::uint64_t c = p.abc + p.z + p.result;
  if (policy == Policy::splitprove) c += p.g2_input;
  return c;
}

std::uint64_t PipelineConfig::worker_scratch() const {
  return sat_add(sat_add(sat_mul(synthesis_workers, scratch_per_synthesis_worker),
                         sat_mul(gpu_workers, scratch_per_gpu_worker)),
                 sat_mul(g2_workers, scratch_per_g2_worker));
}

bool PipelineConfig::gpu_queue_stays_empty() const {
  return gpu_stage_max_s > 0 && synthesis_min_s > 0 && gpu_workers >= synthesis_workers &&
         gpu_stage_max_s <= kQueueFreeRatio * synthesis_min_s;
}

MemoryModel pipeline_model(const PipelineConfig& c, Policy policy) {
  const PartitionBytes& b = c.partition;
  const std::uint64_t life = life_cost(b, policy);
  MemoryModel m;
  m.baseline_bytes = c.baseline;
  // Each worker's scratch reservation is held from the pipeline's start to its end.
  m.fixed_bytes = c.worker_scratch();
  m.budget_bytes = c.budget;
  m.max_items_in_flight = std::uint64_t(c.jobs) * c.partitions_per_job;
  const std::uint32_t gpu_queue = c.gpu_queue_stays_empty() ? 0 : c.gpu_queue;
  // Synthesis: each worker holds the admission reservation (the whole life cost) while it
  // synthesizes and while it waits to hand over to the full GPU queue.
  m.stages.push_back({"synthesis", Tag::synthesis, c.synthesis_workers, 0, life, 0, std::nullopt});
  if (policy == Policy::held_until_finalize) {
    // Nothing is freed before finalize: every stage holds the whole life cost, and the GPU worker
    // hands over without waiting, so the G2 and finalize backlogs have no bound.
    m.stages.push_back({"gpu", Tag::gpu, c.gpu_workers, gpu_queue, life, life, std::nullopt});
    m.stages.push_back({"g2", Tag::g2, c.g2_workers, std::nullopt, life, life, std::nullopt});
    m.stages.push_back(
        {"finalize", Tag::finalize, c.finalizers, std::nullopt, life, life, std::nullopt});
  } else {
    // GPU: the item still holds everything (a, b, c, z die at the end of this stage, after the
    // compact G2 copy is made). After it: the G2 input and the results only, in bounded queues.
    const std::uint64_t after_gpu = b.g2_input + b.result;
    // A worker gives buffers back as they die inside its stage (a device backend frees the host
    // a, b, c once they are on the device): part-way through, an item holds between what it
    // holds after the stage and what it held before.
    m.stages.push_back({"gpu", Tag::gpu, c.gpu_workers, gpu_queue, life, life,
                        c.gpu_frees_inputs_early ? after_gpu : life});
    m.stages.push_back({"g2", Tag::g2, c.g2_workers, c.g2_queue, after_gpu, after_gpu, b.result});
    m.stages.push_back(
        {"finalize", Tag::finalize, c.finalizers, c.final_queue, b.result, b.result, 0});
  }
  return m;
}

}  // namespace splitprove::mem
