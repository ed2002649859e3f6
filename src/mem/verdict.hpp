#pragma once
// The verdict on a memory timeline: did memory leak, accumulate, or stay within the model?
//
//   baseline    median RSS before `work_start` (the first sample if there is none before it)
//   peak        highest RSS sample (value and time)
//   plateau     median RSS between work_start and work_end (the level the run sat at)
//   after drain median RSS after `work_end` (the last sample if there is none after it)
//   unaccounted RSS - baseline - budget books: bytes resident that no reservation stands for
//   held        held_on_purpose()'s median over the same samples as baseline and after drain: the
//               books that stay while no work runs (resident keys, pooled buffers, workers'
//               scratch); the books of work (synthesis, gpu, g2, finalize) are not among them
//
//   leak          after drain - baseline - (held after - held before, when it grew) > tolerance:
//                 memory that nothing holds on purpose did not come back when work drained
//   accumulation  it came back, but peak - baseline > model × (1 + slack) + tolerance: buffers
//                 outlived the work that needed them, multiplied by concurrency
//   bounded       it came back and the peak stayed within the model
//   unknown       it came back, but there is no model to compare the peak with
//
// The model's work bytes come from the options, else from the timeline's `model_work_bytes` meta;
// a budget (meta `budget_bytes`) caps them (the books can hold no more than the budget), and the
// runtime's measured memory (meta `runtime_bytes`) is added after the cap.
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "mem/timeline.hpp"

namespace splitprove::mem {

enum class VerdictClass { bounded, accumulation, leak, unknown };
std::string_view verdict_name(VerdictClass v);

// The books a process holds on purpose with no work in flight: tags srs (resident keys), pinned
// (pooled partition buffers) and scratch (workers' scratch).
std::uint64_t held_on_purpose(const Sample& s);

// The median of the values (the upper one of an even count); 0 for none. The verdict's baseline,
// plateau and after-drain levels are medians of RSS samples.
std::uint64_t median(std::vector<std::uint64_t> v);

struct VerdictOptions {
  // Leak / accumulation tolerance; nullopt: max(16 MiB, 2% of peak RSS).
  std::optional<std::uint64_t> tolerance;
  double slack = 0.10;  // relative room above the model before it counts as accumulation
  std::optional<std::uint64_t> model_work_bytes;  // overrides the timeline's meta
  // Without a model or budget: judge the peak against the highest the books held (everything
  // resident above the baseline was admitted by a reservation). The daemon without --budget.
  bool books_as_model = false;
  // Appended to the reason when there is nothing to judge the peak against (e.g. a flag to give).
  std::string no_model_hint;
};

struct Verdict {
  VerdictClass verdict = VerdictClass::unknown;
  std::string reason;  // one sentence
  std::size_t samples = 0;
  double work_start = 0, work_end = 0;  // seconds; the whole timeline if unmarked
  bool marked = false;                  // work_start / work_end events were present
  std::uint64_t baseline = 0;
  std::uint64_t peak = 0;
  double peak_t = 0;
  std::uint64_t plateau = 0;
  std::uint64_t after_drain = 0;
  std::int64_t drain_delta = 0;  // after_drain - baseline
  std::uint64_t held_baseline = 0, held_after = 0;  // books' median before work / after drain
  std::int64_t unheld_drain_delta = 0;  // drain_delta less the growth of what is held on purpose
  std::uint64_t tolerance = 0;
  std::optional<std::uint64_t> model_work_bytes;  // after the budget cap
  std::optional<std::uint64_t> expected_peak;     // baseline + model_work_bytes
  std::optional<std::uint64_t> accumulation_above;  // a peak above it: model × (1 + slack) + tol
  std::uint64_t books_peak = 0;                   // highest budget_used sample
  std::uint64_t books_at_peak = 0;                // budget_used at the RSS peak
  std::int64_t unaccounted_at_peak = 0;           // peak - baseline - books_at_peak
  std::int64_t unaccounted_max = 0;               // max over the work window
};

// Throws splitprove::Error if the timeline has no samples.
Verdict analyze(const Timeline& tl, const VerdictOptions& opts = {});

std::string format_report(const Verdict& v);  // a few human lines
nlohmann::json to_json(const Verdict& v);

}  // namespace splitprove::mem
