#pragma once
// Template bodies of pipeline/engine.hpp, part 1: the engine's state, set-up, jobs and books. Part 2,
// the workers and the device-fault handling, is pipeline/engine_workers.hpp; engine_<curve>.cpp
// includes that (which includes this) and instantiates both.
#include <fmt/format.h>

#include <algorithm>
#include <exception>

#include "mem/process_memory.hpp"
#include "mem/units.hpp"
#include "pipeline/engine.hpp"
#include "pipeline/prover_impl.hpp"
#include "pipeline/stage_queue.hpp"
#include "splitprove/error.hpp"
#include "util/parallel.hpp"

namespace splitprove::pipeline {

namespace detail {
// "Unlimited": the books are kept, nothing ever waits (2^50 bytes = 1 PiB).
inline constexpr std::uint64_t kNoBudget = std::uint64_t(1) << 50;

inline double since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// `cfg` checked, with `devices` sets of stages.
template <class E>
EngineConfig checked(EngineConfig cfg, const std::vector<DeviceStages<E>>& devices) {
  if (devices.empty()) throw Error("pipeline: the engine needs at least one device's stages");
  if (devices.size() > 4096) throw Error(fmt::format("pipeline: {} devices", devices.size()));
  cfg.fit_devices(std::uint32_t(devices.size()), devices[0].g2_on_device);
  cfg.check();
  return cfg;
}

template <class E>
std::vector<DeviceStages<E>> one_device(std::shared_ptr<GpuStage<E>> gpu,
                                        std::shared_ptr<G2Stage<E>> g2) {
  DeviceStages<E> d;
  if (gpu) d.state = std::make_shared<DeviceState>(gpu->name());
  d.g2_on_device = g2 && g2->name() != "cpu";
  d.gpu = std::move(gpu);
  d.g2 = std::move(g2);
  return {std::move(d)};
}
}  // namespace detail

// ---- state ------------------------------------------------------------------------------------

template <class E>
struct Engine<E>::Job {
  std::uint64_t id = 0;
  JobSpec<E> spec;
  circuit::Shape shape;  // the source's, read once at submit
  PartitionCost cost;
  std::unique_ptr<Prover<E>> prover;
  std::stop_source stop;  // requested when the job fails or is cancelled
  std::chrono::steady_clock::time_point t0;
  // Guarded by Engine::mu_.
  std::size_t claimed = 0;    // partitions handed to synthesis so far
  std::size_t live = 0;       // items alive (claimed, not yet destroyed)
  std::size_t finalized = 0;  // proofs verified and stored
  std::deque<std::size_t> retry;  // partitions to synthesize again (after a device fault), in order
  std::map<std::size_t, std::uint32_t> device_faults;  // by partition: device faults met
  bool failed = false, done = false, device_fault = false;
  std::uint32_t faults = 0;  // device faults its partitions met
  std::string error;
  double seconds = 0;
  std::vector<std::optional<zk::Proof<E>>> proofs;
  std::vector<std::vector<Fr>> publics;
};

// One partition in flight. Owned by exactly one worker or queue at a time (a unique_ptr moves
// through the queues). Its buffers die at their last use inside the stages at the latest when the
// item dies; the destructor frees whatever is left first and only then tells the job, so that a
// job is never reported done while one of its bytes is still held.
template <class E>
struct Engine<E>::Item {
  Engine* eng;
  std::shared_ptr<Job> job;
  std::size_t index;
  bool finalized = false;
  bool retried = false;  // dropped after a device fault; its partition is proved again
  std::optional<Synthesized<E>> synth;
  std::optional<PendingProof<E>> pending;

  Item(Engine* e, std::shared_ptr<Job> j, std::size_t i) : eng(e), job(std::move(j)), index(i) {}
  Item(const Item&) = delete;
  Item& operator=(const Item&) = delete;
  ~Item() {
    synth.reset();
    pending.reset();
    eng->item_gone(*job, finalized, retried);
  }
  // The item's bytes count under the stage that holds it now (scratch stays `scratch`).
  void retag(mem::Tag t) {
    if (synth) {
      for (auto* b : {&synth->z, &synth->a, &synth->b, &synth->g2_input}) b->retag(t);
      synth->rest.retag(t);
    }
    if (pending) {
      pending->g2_input.retag(t);
      pending->result.retag(t);
    }
  }
  bool stopped() const { return job->stop.stop_requested(); }
  // The rank of this partition's work in the shared thread pool (util::PoolRank): older jobs
  // first, then lower partition indices, the order in which the queues hand partitions out.
  std::uint64_t pool_rank() const { return (job->id << 32) | std::uint64_t(index & 0xffffffffu); }
};

// ---- engine -----------------------------------------------------------------------------------

template <class E>
Engine<E>::Engine(EngineConfig cfg, std::shared_ptr<GpuStage<E>> gpu,
                  std::shared_ptr<G2Stage<E>> g2)
    : Engine(std::move(cfg), detail::one_device<E>(std::move(gpu), std::move(g2))) {}

template <class E>
Engine<E>::Engine(EngineConfig cfg, std::vector<DeviceStages<E>> devices)
    : cfg_(detail::checked(cfg, devices)),
      budget_owner_(cfg.shared_budget ? cfg.shared_budget
                                      : std::make_shared<mem::MemoryBudget>(
                                            cfg.host_budget ? cfg.host_budget : detail::kNoBudget, "host")),
      budget_(*budget_owner_),
      devices_(std::move(devices)) {
  for (const auto& d : devices_) {
    if (!d.gpu || !d.g2) throw Error("pipeline: the engine needs a GPU stage and a G2 stage");
    if (!d.state) throw Error("pipeline: a device's stages need its state");
    stats_.devices.emplace_back().name = d.state->name();
  }
  // Whether a G2 worker's scratch may share a GPU worker's is for these stages to say (every
  // device's the same: one backend made them).
  cfg_.host_msms_exclusive = true;
  for (const auto& d : devices_)
    cfg_.host_msms_exclusive =
        cfg_.host_msms_exclusive && d.gpu->locks_host_msms() && d.g2->locks_host_msms();
  // The stages' heap scratch is budgeted per worker: freed, it must leave RSS too.
  mem::return_freed_heap_promptly();
  if (cfg_.recycle_buffers) {
    pool_ = std::make_shared<mem::BufferPool>();
    // Idle buffers never make a reservation wait: it gives them back first.
    // A weak hold: another engine on a shared budget may run this hook while this one dies.
    reclaim_id_ = budget_.add_reclaim([w = std::weak_ptr<mem::BufferPool>(pool_)] {
      if (auto p = w.lock()) p->trim();
    });
  }
  // The workers' scratch, before any work: if it does not fit, the engine does not start.
  {
    PartitionCost want;
    want.synth_scratch = cfg_.synth_scratch;
    want.g1_scratch = cfg_.gpu_scratch;
    want.g2_scratch = cfg_.g2_scratch;
    want.host_msms_exclusive = cfg_.host_msms_exclusive;
    if (cfg_.worker_scratch() > budget_.capacity())
      throw Error(fmt::format(
          "pipeline: the workers' scratch ({}: {} synthesis × {}, {} GPU × {}, {} G2 × {}) does "
          "not fit the host budget {}",
          mem::format_bytes(cfg_.worker_scratch()), cfg_.synthesis_workers,
          mem::format_bytes(cfg_.synth_scratch), cfg_.total_gpu_workers(),
          mem::format_bytes(cfg_.gpu_worker_scratch()), cfg_.g2_workers,
          mem::format_bytes(cfg_.g2_worker_scratch()), mem::format_bytes(budget_.capacity())));
    synth_scratch_.resize(cfg_.synthesis_workers);
    gpu_scratch_.resize(cfg_.total_gpu_workers());
    g2_scratch_.resize(cfg_.g2_workers);
    held_scratch_.split_g2 = cfg_.split_g2;
    fit_worker_scratch(want, "");
  }
  // Queues order by (job id, partition index); entering one retags the item's bytes to its stage.
  auto queue = [](std::size_t bound, mem::Tag stage) {
    return std::make_unique<Queue>(
        bound, [](const ItemPtr& it) { return std::pair<std::uint64_t, std::uint64_t>(it->job->id, it->index); },
        [stage](ItemPtr& it) { it->retag(stage); });
  };
  gpu_q_ = queue(cfg_.gpu_queue, mem::Tag::gpu);
  g2_q_ = queue(cfg_.g2_queue, mem::Tag::g2);
  final_q_ = queue(cfg_.final_queue, mem::Tag::finalize);
  for (std::uint32_t i = 0; i < cfg_.synthesis_workers; ++i)
    threads_.emplace_back([this] { synthesis_worker(); });
  for (std::size_t d = 0; d < devices_.size(); ++d)
    for (std::uint32_t i = 0; i < cfg_.gpu_workers; ++i)
      threads_.emplace_back([this, d] { gpu_worker(d); });
  for (std::uint32_t i = 0; i < cfg_.g2_workers; ++i)
    threads_.emplace_back([this, i] { g2_worker(i); });
  for (std::uint32_t i = 0; i < cfg_.finalizers; ++i) threads_.emplace_back([this] { finalizer(); });
}

template <class E>
Engine<E>::~Engine() {
  shutdown();
  if (reclaim_id_) budget_.remove_reclaim(reclaim_id_);  // the pool dies before the budget
}

template <class E>
void Engine<E>::shutdown() {
  std::vector<std::shared_ptr<Job>> running;
  {
    std::lock_guard lk(mu_);
    shutting_down_ = true;
    for (auto& [id, j] : jobs_)
      if (!j->done) running.push_back(j);
  }
  work_cv_.notify_all();
  for (auto& j : running) fail(*j, "the engine shut down");
  for (Queue* q : {gpu_q_.get(), g2_q_.get(), final_q_.get()}) q->shutdown();  // items die here
  threads_.clear();  // joins; each worker drops what it held
  // No worker runs a stage any more: their scratch goes back.
  std::lock_guard lk(scratch_mu_);
  for (auto* v : {&synth_scratch_, &gpu_scratch_, &g2_scratch_})
    for (auto& r : *v) r.reset();
  held_scratch_.synth_scratch = held_scratch_.gpu_scratch = held_scratch_.g2_scratch = 0;
  // Every partition buffer has died (into the pool): the idle ones go back to the OS.
  if (pool_) pool_->trim();
}

template <class E>
std::uint32_t Engine<E>::warm_buffers(const JobSpec<E>& spec, std::uint32_t partitions) {
  if (!pool_ || partitions == 0) return 0;
  const PartitionCost cost = cost_of(spec);
  if (cost.life() > budget_.capacity()) return 0;  // submit() refuses such a job by name
  const Prover<E> prover(spec.key, devices_[0].gpu, devices_[0].g2, cfg_.buffers, pool_);
  const auto shape = spec.source->shape();
  const std::uint32_t idle = prover.idle_partitions(shape);
  std::vector<mem::Reservation> paid;
  for (std::uint32_t i = idle; i < partitions; ++i) {
    auto r = budget_.try_reserve(cost.life(), mem::Tag::synthesis);
    if (!r) break;
    paid.push_back(std::move(*r));
  }
  if (paid.empty()) return 0;
  // One partition per chunk: the kernel faults (and the driver pins) several mappings at once.
  util::parallel_for(
      paid.size(),
      [&](std::size_t b, std::size_t e) {
        for (std::size_t i = b; i < e; ++i) prover.warm_pool(shape, std::move(paid[i]));
      },
      1, paid.size());
  return std::uint32_t(paid.size());
}

template <class E>
void Engine<E>::prepare(const Key<E>& key) {
  for (auto& d : devices_) {
    d.gpu->prepare(key);
    d.g2->prepare(key);
  }
}

template <class E>
mem::BufferPool::Stats Engine<E>::pool_stats() const {
  return pool_ ? pool_->stats() : mem::BufferPool::Stats{};
}

template <class E>
std::uint64_t Engine<E>::worker_scratch_bytes() const {
  std::lock_guard lk(scratch_mu_);
  std::uint64_t n = 0;
  for (auto* v : {&synth_scratch_, &gpu_scratch_, &g2_scratch_})
    for (auto& r : *v) n += r.bytes();
  return n;
}

template <class E>
void Engine<E>::fit_worker_scratch(const PartitionCost& cost, const std::string& what) {
  // No partition is being admitted meanwhile: an admitting partition holds recycled pages while
  // it waits (admit()), which the scratch's priority request might need.
  std::lock_guard turn(admit_mu_);
  std::lock_guard lk(scratch_mu_);
  EngineConfig want = cfg_;  // the worker counts
  want.synth_scratch = held_scratch_.synth_scratch;
  want.gpu_scratch = held_scratch_.gpu_scratch;
  want.g2_scratch = held_scratch_.g2_scratch;
  want.fit_scratch(cost);
  const std::uint64_t scratch = want.worker_scratch();
  if (!what.empty() && (scratch > budget_.capacity() || cost.life() > budget_.capacity() - scratch))
    throw Error(fmt::format(
        "{}: one partition needs {} for its life (z {}, a/b {}, G2 input {}) beside the "
        "workers' stage scratch {} (per worker: synthesis {}, GPU {}, G2 {}); the whole host "
        "budget is {}",
        what, mem::format_bytes(cost.life()), mem::format_bytes(cost.z),
        mem::format_bytes(cost.ab), mem::format_bytes(cost.g2_input), mem::format_bytes(scratch),
        mem::format_bytes(want.synth_scratch), mem::format_bytes(want.gpu_worker_scratch()),
        mem::format_bytes(want.g2_worker_scratch()), mem::format_bytes(budget_.capacity())));
  // Grow each worker's reservation by the difference. Served ahead of admissions (priority 1):
  // admitted partitions never wait for memory, so they drain and this wait ends.
  auto grow = [&](std::vector<mem::Reservation>& v, std::uint64_t have, std::uint64_t need) {
    if (need <= have) return;
    for (auto& r : v) {
      mem::Reservation more = budget_.reserve(need - have, mem::Tag::scratch, {}, 1);
      if (r.empty())
        r = std::move(more);
      else
        r.absorb(std::move(more));
    }
  };
  grow(synth_scratch_, held_scratch_.synth_scratch, want.synth_scratch);
  grow(gpu_scratch_, held_scratch_.gpu_worker_scratch(), want.gpu_worker_scratch());
  grow(g2_scratch_, held_scratch_.g2_worker_scratch(), want.g2_worker_scratch());
  held_scratch_.synth_scratch = want.synth_scratch;
  held_scratch_.gpu_scratch = want.gpu_scratch;
  held_scratch_.g2_scratch = want.g2_scratch;
  held_scratch_.host_msms_exclusive = want.host_msms_exclusive;
}

template <class E>
void Engine<E>::attach_sampler(mem::MemorySampler* s) {
  std::lock_guard lk(sampler_mu_);
  sampler_ = s;
}

template <class E>
void Engine<E>::set_stage_observer(StageObserver fn) {
  std::lock_guard lk(sampler_mu_);
  observer_ = std::move(fn);
}

template <class E>
void Engine<E>::mark(const char* what, const char* stage, const Item& it) {
  std::lock_guard lk(sampler_mu_);
  if (sampler_) sampler_->mark(fmt::format("{}:{}:j{}p{}", what, stage, it.job->id, it.index));
  if (observer_) observer_(it.job->id, it.index, stage, what[0] == 's');
}

template <class E>
void Engine<E>::mark_job(const char* what, std::uint64_t id) {
  std::lock_guard lk(sampler_mu_);
  if (sampler_) sampler_->mark(fmt::format("{}:{}", what, id));
}

template <class E>
PartitionCost Engine<E>::cost_of(const JobSpec<E>& spec) const {
  if (!spec.source || !spec.key) throw Error("pipeline: a job needs a source and a key");
  const auto shape = spec.source->shape();
  check_shape<E>(shape, *spec.key, spec.source->describe());
  // The stages report their own per-worker host scratch (it depends on the backend): a worker
  // reserves the most any device's stage asks for.
  PartitionCost c = partition_cost<E>(shape, *spec.key, cfg_.buffers, *devices_[0].gpu, *devices_[0].g2);
  for (const auto& d : devices_) {
    const PartitionCost o = partition_cost<E>(shape, *spec.key, cfg_.buffers, *d.gpu, *d.g2);
    c.g1_scratch = std::max(c.g1_scratch, o.g1_scratch);
    c.g2_scratch = std::max(c.g2_scratch, o.g2_scratch);
    c.gpu_frees_inputs_early = c.gpu_frees_inputs_early && o.gpu_frees_inputs_early;
  }
  return c;
}

template <class E>
std::uint64_t Engine<E>::submit(JobSpec<E> spec) {
  auto job = std::make_shared<Job>();
  job->cost = cost_of(spec);
  job->shape = spec.source->shape();
  if (spec.partitions == 0)
    throw Error(fmt::format("{}: a job of 0 partitions", spec.source->describe()));
  if (spec.partitions > kMaxPartitionsPerJob)
    throw Error(fmt::format("{}: a job of {} partitions: at most {} per job", spec.source->describe(),
                            spec.partitions, kMaxPartitionsPerJob));
  {
    std::lock_guard lk(mu_);
    if (shutting_down_) throw Error("pipeline: the engine is shutting down");
  }
  if (const std::string down = devices_down(); !down.empty())
    throw DeviceFault(fmt::format("pipeline: every device is out of service ({})", down));
  // Before any of the job's partitions can be claimed: the workers can run its stages (Error if
  // a partition could never fit beside the workers' scratch).
  fit_worker_scratch(job->cost, spec.source->describe());
  job->prover = std::make_unique<Prover<E>>(spec.key, devices_[0].gpu, devices_[0].g2, cfg_.buffers, pool_);
  job->prover->hold_until_finish(cfg_.policy == mem::Policy::held_until_finalize);
  job->proofs.resize(spec.partitions);
  job->publics.resize(spec.partitions);
  job->spec = std::move(spec);
  job->t0 = std::chrono::steady_clock::now();
  std::uint64_t id;
  {
    std::lock_guard lk(mu_);
    if (shutting_down_) throw Error("pipeline: the engine is shutting down");
    id = job->id = next_id_++;
    jobs_.emplace(id, job);
  }
  mark_job("job_start", id);
  work_cv_.notify_all();
  return id;
}

template <class E>
JobResult<E> Engine<E>::wait(std::uint64_t id) {
  std::unique_lock lk(mu_);
  auto i = jobs_.find(id);
  if (i == jobs_.end()) throw Error(fmt::format("pipeline: no job {}", id));
  std::shared_ptr<Job> job = i->second;
  done_cv_.wait(lk, [&] { return job->done; });
  jobs_.erase(id);
  JobResult<E> r;
  r.id = id;
  r.ok = !job->failed;
  r.error = job->error;
  r.device_fault = job->device_fault;
  r.device_faults = job->faults;
  r.seconds = job->seconds;
  if (r.ok) {
    for (auto& p : job->proofs) r.proofs.push_back(*p);
    r.publics = std::move(job->publics);
  }
  return r;
}

template <class E>
void Engine<E>::cancel(std::uint64_t id) {
  std::shared_ptr<Job> job;
  {
    std::lock_guard lk(mu_);
    auto i = jobs_.find(id);
    if (i == jobs_.end() || i->second->done) return;
    job = i->second;
  }
  fail(*job, "cancelled");
}

template <class E>
EngineStats Engine<E>::stats() const {
  std::lock_guard lk(mu_);
  EngineStats s = stats_;
  s.max_gpu_queue = gpu_q_->max_seen();
  s.max_g2_queue = g2_q_->max_seen();
  s.max_final_queue = final_q_->max_seen();
  for (std::size_t d = 0; d < devices_.size(); ++d) {
    s.devices[d].healthy = devices_[d].state->healthy();
    s.devices[d].error = devices_[d].state->error();
  }
  return s;
}

template <class E>
void Engine<E>::fail(Job& job, const std::string& message, bool device_fault) {
  {
    std::lock_guard lk(mu_);
    if (job.done || job.failed) return;
    job.failed = true;
    job.device_fault = device_fault;
    job.error = message;
  }
  // Wakes a synthesis worker waiting for budget on this job's behalf, and tells the source.
  job.stop.request_stop();
  // Drop the job's queued items now (their memory goes back to the budget as they die).
  for (Queue* q : {gpu_q_.get(), g2_q_.get(), final_q_.get()}) q->purge([&](const ItemPtr& it) { return it->job.get() == &job; }).clear();
  std::lock_guard lk(mu_);
  if (job.live == 0 && !job.done) {
    job.done = true;
    job.seconds = detail::since(job.t0);
    ++stats_.jobs_failed;
    done_cv_.notify_all();
  }
}

template <class E>
void Engine<E>::item_gone(Job& job, bool finalized, bool retried) {
  bool ended = false;
  {
    std::lock_guard lk(mu_);
    --job.live;
    if (finalized) {
      ++job.finalized;
      ++stats_.partitions_done;
    } else if (retried) {
      ++stats_.partitions_retried;
    } else {
      ++stats_.partitions_failed;
    }
    if (job.done) return;
    if (!job.failed && job.finalized == job.spec.partitions) {
      ++stats_.jobs_done;
      ended = true;
    } else if (job.failed && job.live == 0) {
      ++stats_.jobs_failed;
      ended = true;
    }
    if (ended) {
      job.done = true;
      job.seconds = detail::since(job.t0);
      done_cv_.notify_all();
    }
  }
  if (ended) mark_job("job_end", job.id);
}

// The instantiation list of the engine and prover, over an engine E (ec/curves.hpp);
// engine_<curve>.cpp (through pipeline/engine_workers.hpp) expands it in one line. (The light parts of this layer, CircomSource, the
// backend registry and run_jobs, are instantiated for every curve of SPLITPROVE_FOR_EACH_ENGINE
// in their own .cpp files.)
#define SPLITPROVE_PIPELINE_INSTANTIATE(E)                                                \
  template struct Key<E>;                                                                 \
  template void require_host_points<E>(const Key<E>&, const char*);                       \
  template struct PendingProof<E>;                                                        \
  template class Prover<E>;                                                               \
  template class Engine<E>;                                                               \
  template PartitionCost partition_cost<E>(const circuit::Shape&, const Key<E>&,          \
                                           const mem::BufferOptions&);                    \
  template void check_shape<E>(const circuit::Shape&, const Key<E>&, const std::string&); \
  template std::shared_ptr<GpuStage<E>> cpu_gpu_stage<E>();                               \
  template std::shared_ptr<G2Stage<E>> cpu_g2_stage<E>();

}  // namespace splitprove::pipeline
