#pragma once
// A measured run of the engine: `jobs` jobs of `partitions` partitions submitted at once, a memory
// sampler beside them, every proof verified again after the engine released it, and the memory
// model's prediction for this configuration next to the measured peak. Shared by `splitprove demo`
// and `splitprove bench pipeline` (the CLI only parses and prints).
//
// Files written into `out_dir` (when set): timeline.csv (downsampled), timeline.jsonl (full,
// with every stage event), verdict.txt, memory.svg, waterfall.svg (one row per partition, one bar
// per stage) and summary.json.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mem/model.hpp"
#include "mem/timeline.hpp"
#include "mem/verdict.hpp"
#include "pipeline/backend.hpp"
#include "pipeline/engine.hpp"

namespace splitprove::harness {

using pipeline::BackendRequest;
using pipeline::EngineConfig;
using pipeline::EngineStats;
using pipeline::JobSpec;
using pipeline::PartitionCost;
using pipeline::StageStats;

struct RunOptions {
  EngineConfig engine;
  std::uint32_t jobs = 1;
  std::uint32_t partitions = 10;
  std::string out_dir;  // empty: nothing written
  std::string title = "splitprove pipeline";
  std::chrono::milliseconds sample_interval{20};
  std::chrono::milliseconds settle{300};  // idle before the work (baseline) and after (drain)
  // Fixed time added to every GPU / G2 stage, standing for work done off this CPU (a device): the
  // split demonstration uses it to make one stage the slow one. 0 in normal runs.
  std::chrono::milliseconds gpu_delay{0};
  std::chrono::milliseconds g2_delay{0};
  // Which backend runs the GPU and G2 stages (pipeline/backend.hpp); the report says which ran.
  BackendRequest backend;
  // Partitions of one warm-up job proved first, alone: the key goes to the device, twiddles
  // and pools are made. Its time is the cold start, reported apart; throughput, stage means and
  // GPU phases count the measured jobs only (the memory timeline covers both). 0: none.
  std::uint32_t warmup_partitions = 0;
  // Process RSS at which the measured jobs are cancelled (0: none): the cap under which a
  // comparison run that is expected to accumulate (EngineConfig::policy held_until_finalize, no
  // budget) cannot take the machine. The report then says the run was stopped, and at what RSS.
  std::uint64_t rss_cap = 0;
  // One budget for the whole process (0: none; then engine.host_budget, if set, bounds the work
  // alone). What the process holds when the run starts - the key, the circuit, the runtime, the
  // devices' host side - is measured, and the engine's budget is what is left of this one; the
  // report checks the peak RSS against it. Replaces engine.host_budget.
  std::uint64_t process_budget = 0;
  // Before the warm-up job, the buffers of pw + gw partitions (what the synthesis and GPU workers
  // hold at once) are made, faulted in and pinned, and kept in the engine's pool: the steady
  // state's warm pages, made once, as a daemon does at its start (reported in the cold start).
  bool warm_buffers = true;
};

struct RunReport {
  std::string source;
  std::string backend;  // Backend::describe() of the stages that ran
  std::uint64_t partitions = 0;  // proved and verified
  double wall_s = 0;             // first submit to last job done (after the warm-up)
  double warmup_s = 0;           // the warm-up job, submit to done (the cold start)
  double s_per_proof = 0;        // wall / jobs (a proof = one job of `partitions` partitions)
  double partitions_per_s = 0;
  EngineStats stats;
  PartitionCost cost;
  mem::Prediction prediction;        // the model's work bytes for this configuration
  // The runtime's own memory that no book stands for, measured over the warm-up job (the most RSS
  // above the baseline beyond the books, at least the growth of the file-backed pages): allocator
  // arenas and their free chunks, thread stacks, lazily made caches, the code the work runs first.
  // Part of the predicted peak. 0 without a warm-up (not measured).
  std::uint64_t runtime_bytes = 0;
  std::uint64_t predicted_peak = 0;  // measured baseline + prediction (capped by the budget)
  mem::Verdict verdict;
  std::uint64_t books_peak = 0;
  std::uint64_t worker_scratch = 0;        // the workers' scratch reservations (whole run)
  std::uint64_t books_after_shutdown = 0;  // what the budget held after the engine shut down
  mem::BudgetBooks books;                  // at the end of the run: per-stage peaks (tags[t].peak)
  std::string gpu_phases;                  // GpuStage::phase_report() after the run
  circuit::SynthesisPhases synthesis_phases;  // the measured jobs' sources' phases, summed
  // With a device backend: the fraction of the measured wall during which a stage that runs on
  // the device (the GPU stage; the G2 stage when the device runs it) was running.
  std::optional<double> device_busy;
  // RunOptions::rss_cap was reached: the measured jobs were cancelled at this RSS (the proofs of
  // those that finished before still verified); throughput and the stage means are not comparable.
  std::optional<std::uint64_t> stopped_at_rss;
  // RunOptions::process_budget: what the process held before the engine started, and the
  // engine's budget (the rest); the peak RSS then must stay <= process_budget.
  std::uint64_t resident_at_start = 0;
  std::uint64_t work_budget = 0;  // the engine's budget (0: none)
  bool within_process_budget = true;
  std::uint32_t warmed_partitions = 0;  // RunOptions::warm_buffers: partitions' buffers made
  double buffer_warm_s = 0;             // ... in this time (part of the cold start)
  double key_ready_s = 0;  // the key made ready on the devices (Stage::prepare) before the warm-up
  // The stage times the prediction used (RunOptions::warmup_partitions > 0): the warm-up's
  // shortest synthesis and longest GPU stage (mem::PipelineConfig::gpu_queue_stays_empty).
  double warmup_synthesis_min_s = 0, warmup_gpu_max_s = 0;
  bool gpu_queue_left_out = false;  // ... and so the prediction left the GPU queue out
  double key_make_s = 0;  // of the cold start: making the key's points on the devices (summed)
  mem::BufferPool::Stats pool;             // the engine's buffer pool after the run
  bool pinned = false;                     // partition buffers were pinned for the device
  std::vector<std::string> files;
};

// make_job(j) gives job j's spec; all jobs must share one shape (the model is for one partition
// size). Throws Error if any job fails or any proof does not verify.
template <class E>
RunReport run_jobs(const RunOptions& opts,
                   const std::function<JobSpec<E>(std::uint32_t)>& make_job);
// The same on stages the caller made (opts.backend is then not read): runs that share them (a
// sweep) share their devices and resident keys, so a key goes to the device, or is made there,
// once - as the daemon keeps its keys loaded - and only the first run's cold start includes it.
template <class E>
RunReport run_jobs(const RunOptions& opts,
                   const std::function<JobSpec<E>(std::uint32_t)>& make_job,
                   const pipeline::Backend<E>& backend);

std::string format_report(const RunOptions& opts, const RunReport& r);
// The budget as the report names it: "100 GiB (the process; 87.2 GiB of it for the work)",
// "8 GiB" (the work's), "none".
std::string budget_text(const RunOptions& opts, const RunReport& r);

// Fraction of [from, to] during which at least one of `stages` ran, from the stage events
// ("start:<stage>:<item>" / "end:<stage>:<item>"): overlapping runs count once.
double busy_fraction(const mem::Timeline& tl, const std::vector<std::string>& stages, double from, double to);

// Waterfall of the stage events ("start:<stage>:j<J>p<P>" / "end:..."): one row per partition,
// a coloured bar per stage, on the timeline's clock. Hand-written SVG 1.1.
std::string render_waterfall(const mem::Timeline& tl, const std::string& title);

}  // namespace splitprove::harness
