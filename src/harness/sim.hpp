#pragma once
// The accumulation simulator: splitprove's proving pipeline with real, page-backed allocations at
// a scaled size, and sleeps (or page touches) in place of the cryptography. It shows, with a
// sampler running beside it, how the ownership policy decides the memory peak (DESIGN §1):
//
//   jobs of `partitions_per_job` partitions, `jobs` of them in flight (of `total_jobs`);
//   synthesis workers (pw) -> GPU queue -> GPU workers (gw) -> G2 backlog -> G2 workers
//   -> finalize backlog -> finalizers
//
//   Policy::held_until_finalize (the reference design): the item keeps a, b, c and z until it is
//     finalized; the GPU worker hands it to an unbounded G2 backlog and moves on. G2 is slower than
//     the GPU stage, so finished-but-pending items pile up, each holding its whole synthesis
//     output.
//   Policy::splitprove: a, b, c and z die when the GPU stage ends; the GPU worker first makes a
//     compact copy of what G2 reads; backlogs are bounded and a GPU worker does not start a
//     partition while the G2 backlog is full.
//
// Admission: a synthesis worker reserves the partition's whole life cost (`life_cost`) against the
// budget before it allocates anything; each buffer carves its share out of that reservation and
// gives it back to the budget when it dies (munmap first). Without `--budget` the budget is
// effectively unlimited, but the books are still kept (and plotted).
#include <chrono>
#include <cstdint>
#include <string>

#include "mem/model.hpp"
#include "mem/timeline.hpp"
#include "mem/verdict.hpp"

namespace splitprove::harness {

using mem::PipelineConfig;
using mem::Policy;
using mem::Prediction;
using mem::Timeline;
using mem::Verdict;

struct SimConfig {
  PipelineConfig pipeline;  // sizes, workers, queue bounds, jobs in flight, budget (0: none)
  Policy policy = Policy::splitprove;
  std::uint32_t total_jobs = 4;
  std::chrono::milliseconds t_synth{300};  // per partition, including the page touches
  std::chrono::milliseconds t_gpu{120};
  std::chrono::milliseconds t_g2{360};  // longer than the GPU stage, as in the reference design
  std::chrono::milliseconds t_final{20};
  std::chrono::milliseconds sample_interval{100};
  std::chrono::milliseconds settle{400};  // idle time before work (baseline) and after (drain)
  bool huge_pages = false;
};

struct SimResult {
  Timeline timeline;
  Verdict verdict;
  // The model of what the configuration needs (buffers die at their last use, queues bounded as
  // configured; capped by the budget): the verdict's reference for both policies.
  Prediction needs;
  // The model of the policy that ran (for `held`: every in-flight partition may hold its whole
  // output; capped by the budget).
  Prediction policy_bound;
  std::uint64_t partitions = 0;
  double work_seconds = 0;
  double throughput = 0;         // partitions per second over the work window
  std::uint64_t books_peak = 0;  // budget's peak
};

// Runs one scenario (blocking; a few seconds). Throws splitprove::Error on a configuration that
// cannot run (a zero worker count, a partition larger than the budget).
SimResult run_simulation(const SimConfig& c);

// One line describing the configuration ("policy=held pw=2 gw=1 ...").
std::string describe(const SimConfig& c);

// Writes timeline.csv (downsampled to at most `max_csv_samples`), timeline.jsonl (full),
// verdict.txt, verdict.json, memory.svg and summary.json into `dir` (created if missing).
void write_sim_outputs(const SimConfig& c, const SimResult& r, const std::string& dir,
                       std::size_t max_csv_samples = 400, bool jsonl = true);

}  // namespace splitprove::harness
