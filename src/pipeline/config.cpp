// The non-template parts of the pipeline: partition costs and the engine's configuration.
#include <fmt/format.h>

#include <algorithm>

#include "pipeline/engine.hpp"
#include "pipeline/prover.hpp"
#include "splitprove/error.hpp"
#include "util/limits.hpp"

namespace splitprove::pipeline {

std::uint64_t PartitionCost::life() const { return z + ab + g2_input + result; }

mem::PartitionBytes PartitionCost::model_bytes() const {
  mem::PartitionBytes b;
  b.abc = ab;
  b.z = z;
  b.g2_input = g2_input;
  b.result = result;
  return b;
}

void EngineConfig::fit_scratch(const PartitionCost& cost) {
  synth_scratch = std::max(synth_scratch, cost.synth_scratch);
  gpu_scratch = std::max(gpu_scratch, cost.g1_scratch);
  g2_scratch = std::max(g2_scratch, cost.g2_scratch);
  host_msms_exclusive = cost.host_msms_exclusive;
}

void EngineConfig::fit_devices(std::uint32_t n, bool g2_on_device) {
  devices = n;
  if (n <= 1) return;
  g2_queue = std::max(g2_queue, total_gpu_workers());
  if (g2_on_device) g2_workers = std::max(g2_workers, n);
}

void EngineConfig::pin_buffers_for(bool backend_copies_buffers) {
  buffers.pin = buffers.pin || (backend_copies_buffers && recycle_buffers);
}

std::uint64_t EngineConfig::gpu_worker_scratch() const {
  return split_g2 ? gpu_scratch : std::max(gpu_scratch, g2_scratch);
}

std::uint64_t EngineConfig::g2_worker_scratch() const {
  if (!split_g2) return 0;
  if (!host_msms_exclusive) return g2_scratch;
  return g2_scratch > gpu_scratch ? g2_scratch - gpu_scratch : 0;
}

std::uint64_t EngineConfig::worker_scratch() const {
  return std::uint64_t(synthesis_workers) * synth_scratch +
         std::uint64_t(total_gpu_workers()) * gpu_worker_scratch() +
         std::uint64_t(g2_workers) * g2_worker_scratch();
}

void EngineConfig::check() const {
  if (!synthesis_workers || !gpu_workers || !g2_workers || !finalizers)
    throw Error("pipeline: every stage needs at least one worker");
  if (!devices) throw Error("pipeline: at least one device");
  if (device_retries > 16) throw Error(fmt::format("pipeline: device retries {}: 0..16", device_retries));
  if (!gpu_queue || !g2_queue || !final_queue)
    throw Error("pipeline: every queue needs a bound of at least 1");
  // Every worker is a thread: a count beyond the machine's limit would only thrash it.
  util::check_thread_count(synthesis_workers, "synthesis workers");
  util::check_thread_count(std::uint64_t(gpu_workers) * devices, "GPU-stage workers (of all devices)");
  util::check_thread_count(g2_workers, "G2-stage workers");
  util::check_thread_count(finalizers, "finalizers");
  util::check_thread_count(std::uint64_t(synthesis_workers) + std::uint64_t(gpu_workers) * devices +
                               g2_workers + finalizers,
                           "workers of all stages together");
  for (auto [q, name] : {std::pair{gpu_queue, "GPU queue"}, std::pair{g2_queue, "G2 backlog"},
                         std::pair{final_queue, "finalize backlog"}})
    if (q > kMaxQueueBound)
      throw Error(std::string("pipeline: the ") + name + " bound " + std::to_string(q) +
                  " is more than " + std::to_string(kMaxQueueBound));
}

mem::PipelineConfig EngineConfig::model_config(const PartitionCost& cost, std::uint32_t jobs,
                                               std::uint32_t partitions_per_job,
                                               std::uint64_t baseline) const {
  mem::PipelineConfig c;
  c.partition = cost.model_bytes();
  c.gpu_frees_inputs_early = cost.gpu_frees_inputs_early;
  c.synthesis_workers = synthesis_workers;
  c.gpu_workers = total_gpu_workers();
  c.g2_workers = g2_workers;
  c.finalizers = finalizers;
  c.gpu_queue = gpu_queue;
  c.g2_queue = g2_queue;
  c.final_queue = final_queue;
  c.jobs = jobs;
  c.partitions_per_job = partitions_per_job;
  c.baseline = baseline;
  c.budget = host_budget;
  // The workers' scratch as the engine would hold it for these partitions.
  EngineConfig fitted = *this;
  fitted.fit_scratch(cost);
  c.scratch_per_synthesis_worker = fitted.synth_scratch;
  c.scratch_per_gpu_worker = fitted.gpu_worker_scratch();
  c.scratch_per_g2_worker = fitted.g2_worker_scratch();
  return c;
}

}  // namespace splitprove::pipeline
