// The non-template parts of the pipeline: partition costs and the engine's configuration.
#include <algorithm>

#include "pipeline/engine.hpp"
#include "pipeline/prover.hpp"
#include "splitprove/error.hpp"

namespace splitprove::pipeline {

std::uint64_t PartitionCost::scratch() const {
  return std::max({synth_scratch, g1_scratch, g2_scratch});
}

std::uint64_t PartitionCost::life() const { return z + abc + g2_input + result + scratch(); }

mem::PartitionBytes PartitionCost::model_bytes() const {
  mem::PartitionBytes b;
  b.abc = abc + (scratch() - g2_scratch);
  b.z = z;
  b.g2_input = g2_input + g2_scratch;
  b.result = result;
  return b;
}

void EngineConfig::check() const {
  if (!synthesis_workers || !gpu_workers || !g2_workers || !finalizers)
    throw Error("pipeline: every stage needs at least one worker");
  if (!gpu_queue || !g2_queue || !final_queue)
    throw Error("pipeline: every queue needs a bound of at least 1");
}

mem::PipelineConfig EngineConfig::model_config(const PartitionCost& cost, std::uint32_t jobs,
                                               std::uint32_t partitions_per_job,
                                               std::uint64_t baseline) const {
  mem::PipelineConfig c;
  c.partition = cost.model_bytes();
  c.synthesis_workers = synthesis_workers;
  c.gpu_workers = gpu_workers;
  c.g2_workers = g2_workers;
  c.finalizers = finalizers;
  c.gpu_queue = gpu_queue;
  c.g2_queue = g2_queue;
  c.final_queue = final_queue;
  c.jobs = jobs;
  c.partitions_per_job = partitions_per_job;
  c.baseline = baseline;
  c.budget = host_budget;
  return c;
}

}  // namespace splitprove::pipeline
