#pragma once
// The pipeline engine (DESIGN §1, §3): jobs of N partitions of one PartitionSource and one proving
// key, flowing through four pools of workers joined by bounded queues:
//
//   synthesis (pw) -> [gpu queue] -> GPU stage (gw per device) -> [G2 backlog] -> G2 (g2w)
//     -> [finalize backlog] -> finalizers (fw)
//
// Devices (pipeline/device.hpp). The GPU and G2 stages come as one set per device; each device
// has gw GPU workers of its own, all taking from the one GPU queue, and the G2 workers run the G2
// stage of a healthy device (worker i prefers device i mod n). A stage that throws DeviceFault
// takes its device out of service; the partition dies (its bytes go back) and is synthesized and
// proved again on another device, at most device_retries times after faults; with no healthy
// device left, every job fails and submit() refuses.
//
// Admission. A synthesis worker claims the next partition (oldest job first, then partition
// index) and reserves its whole life cost (PartitionCost::life: its buffers and small results,
// from the source's real shape) against the host budget before allocating anything; it waits
// there, in the budget's FIFO, when the budget is full. Once admitted, a partition never waits for
// memory again, so stages cannot deadlock on the budget: each one only ever gives memory back.
//
// Scratch. The stages' heap scratch (the source's synthesis scratch, the GPU stage's and the G2
// stage's MSM scratch) belongs to the workers, not to the partitions: every synthesis, GPU and G2
// worker holds one reservation (tag scratch) of its stage's per-worker scratch for its whole life,
// taken when the engine starts (EngineConfig::*_scratch; fit_scratch sizes them for a job). A job
// that needs more is admitted by submit(), which first grows every worker's reservation (waiting
// in the budget ahead of admissions; partitions already admitted never need more memory, so they
// drain and the wait ends). shutdown() (and the destructor) gives the reservations back.
//
// Hand-offs and bounds. A worker keeps its item (and so its reservation) until the next queue has
// taken it. Every queue is bounded. A GPU worker takes a slot in the G2 backlog *before* it takes a
// partition, and a G2 worker a slot in the finalize backlog before it takes a pending proof, so a
// stage never starts work whose output would have nowhere to go (DESIGN §1.4). Queues hand out
// items oldest job first, then by partition index.
//
// Items at most, and so memory at most (mem::pipeline_model with the splitprove policy):
//   workers' scratch: pw × synth_scratch + gw × gpu_scratch + g2w × g2_scratch, always (where
//   the stages run their host MSMs one at a time, a G2 worker's is only its excess over a GPU
//   worker's: EngineConfig::host_msms_exclusive); plus
//   synthesis: pw items of life bytes; gpu queue: gpu_queue items of life bytes; GPU stage: gw
//   items of life bytes; G2 backlog + G2 workers: g2_queue + g2w items of after_gpu bytes (slots
//   taken by GPU workers count against the backlog); finalize: final_queue + fw items of result
//   bytes; all capped by the budget.
//
// Failure and cancellation. A partition that fails (the source throws, e.g. for an unsatisfied
// constraint, or its proof does not verify) fails its job only: the job's other partitions are
// dropped wherever they are (queues are purged, waits for budget are cancelled, workers drop the
// item after their current step) and every byte they held goes back to the budget. cancel() does
// the same with "cancelled". wait() returns once the job has finished and holds nothing.
//
// Timeline. With a sampler attached, each stage of each partition marks "start:<stage>:j<job>p<i>"
// and "end:<stage>:j<job>p<i>", and each job "job_start:<job>" / "job_end:<job>".
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "circuit/source.hpp"
#include "mem/budget.hpp"
#include "mem/buffer.hpp"
#include "mem/pool.hpp"
#include "mem/model.hpp"
#include "mem/sampler.hpp"
#include "pipeline/device.hpp"
#include "pipeline/prover.hpp"
#include "pipeline/stage_queue.hpp"

namespace splitprove::pipeline {

struct EngineConfig {
  std::uint32_t synthesis_workers = 1;  // pw
  std::uint32_t gpu_workers = 1;        // gw: per device
  std::uint32_t devices = 1;            // sets of stages (the engine sets it from its stages)
  // A partition whose stage meets a device fault is proved again on another device at most this
  // many times; one more fault fails its job.
  std::uint32_t device_retries = 1;
  std::uint32_t g2_workers = 1;
  std::uint32_t finalizers = 1;
  std::uint32_t gpu_queue = 1;    // synthesized partitions waiting for a GPU worker
  std::uint32_t g2_queue = 1;     // pending proofs waiting for a G2 worker
  std::uint32_t final_queue = 1;  // pending proofs waiting for a finalizer
  std::uint64_t host_budget = 0;  // bytes; 0: no cap (the books are still kept)
  // One budget for several engines (the daemon's engines of both curves): when set, the engine
  // books everything there instead of in a budget of its own, and host_budget should be its
  // capacity (the memory model reads it). Null: the engine makes its own of host_budget.
  std::shared_ptr<mem::MemoryBudget> shared_budget;
  // true: the G2 stage runs on its own workers beside the GPU stage (the split). false: the GPU
  // worker runs the G2 stage itself right after the GPU stage (for comparison: stage times add).
  bool split_g2 = true;
  mem::BufferOptions buffers;
  // Partition buffers are recycled (mem/pool.hpp): a dead buffer's pages (pinned, with
  // buffers.pin) serve the next partition's buffer of the same size instead of being unmapped
  // and mapped again; idle ones stay booked (tag pinned) and go back whenever a reservation
  // would otherwise wait. false: every buffer is mapped fresh and unmapped when it dies.
  bool recycle_buffers = true;
  // splitprove: z, a, b die in the GPU stage (the design). held_until_finalize: the reference
  // design's policy, for comparison runs only (`bench pipeline --policy held`): they stay mapped
  // and booked until the proof is finalized (Prover::hold_until_finish); the harness also lifts
  // the G2 and finalize backlogs to kMaxQueueBound, as that design has none.
  mem::Policy policy = mem::Policy::splitprove;
  // Heap scratch per worker of each stage, reserved (tag scratch) when the engine starts and held
  // until it shuts down. 0: none until a job needs it (submit grows them).
  std::uint64_t synth_scratch = 0;  // per synthesis worker: the source's synthesize()
  std::uint64_t gpu_scratch = 0;    // per GPU worker: the GPU stage's MSMs (and NTT)
  std::uint64_t g2_scratch = 0;     // per G2 worker: the G2 MSM
  // The stages' host MSMs run one at a time (PartitionCost::host_msms_exclusive): a G2 worker's
  // MSM runs only while every GPU worker's scratch is idle, so it reserves only what it needs
  // beyond one GPU worker's. Set by fit_scratch from the stages' report.
  bool host_msms_exclusive = false;

  // Throws Error when a count is 0, a stage asks for more threads than util::max_threads() (or
  // all stages together do), or a queue bound exceeds kMaxQueueBound.
  void check() const;
  // GPU workers of all devices: gw × devices.
  std::uint32_t total_gpu_workers() const { return gpu_workers * devices; }
  // Sets `devices` and, for several, makes room for all of them: a GPU worker takes a slot in the
  // G2 backlog before it takes a partition, so the backlog holds at least one per GPU worker;
  // with the G2 stage on the devices, at least one G2 worker per device. (One device: unchanged.)
  void fit_devices(std::uint32_t n, bool g2_on_device);
  static constexpr std::uint32_t kMaxQueueBound = 4096;
  // The partition buffers of a backend that copies them to a device (Backend::pin_host_buffers)
  // are pinned, so they go by DMA; only recycled pages are (pinning and unpinning a fresh mapping
  // per partition costs more than the copy saves, and stalls the device's other work). Keeps a
  // pin already asked for.
  void pin_buffers_for(bool backend_copies_buffers);
  // Raises the per-worker scratch to what partitions of `cost` need (unsplit: the GPU worker
  // also runs the G2 stage, so it needs the larger of the two).
  void fit_scratch(const PartitionCost& cost);
  // What one worker of each stage reserves (unsplit: G2 workers idle and reserve nothing).
  std::uint64_t gpu_worker_scratch() const;
  std::uint64_t g2_worker_scratch() const;
  // pw × synth + gw × GPU + g2w × G2 worker scratch: held for the engine's whole life.
  std::uint64_t worker_scratch() const;
  // The memory model of this configuration for partitions of `cost` (mem/model.hpp).
  mem::PipelineConfig model_config(const PartitionCost& cost, std::uint32_t jobs,
                                   std::uint32_t partitions_per_job,
                                   std::uint64_t baseline = 0) const;
};

// A job's partitions are held in the engine's books (results, per-partition state): a job of
// more is refused by Engine::submit.
inline constexpr std::size_t kMaxPartitionsPerJob = std::size_t(1) << 20;

template <class E>
struct JobSpec {
  std::shared_ptr<const circuit::PartitionSource<typename E::Fr>> source;
  std::shared_ptr<const Key<E>> key;
  std::size_t partitions = 0;
};

template <class E>
struct JobResult {
  std::uint64_t id = 0;
  bool ok = false;
  std::string error;  // why it failed (the first failing partition's message), or "cancelled"
  // It failed for its devices, not for its input: device faults on more devices than
  // device_retries allows, or no device left in service. Another try (elsewhere) may succeed.
  bool device_fault = false;
  // Device faults its own partitions met (0: the devices were out of service before it came).
  std::uint32_t device_faults = 0;
  std::vector<zk::Proof<E>> proofs;                  // one per partition, in order (when ok)
  std::vector<std::vector<typename E::Fr>> publics;  // their public inputs
  double seconds = 0;                                // submit to done
};

// Per-stage counters: how many items each stage handled and how long it spent (seconds), and the
// most items each queue ever held (items + slots taken ahead).
struct StageStats {
  std::uint64_t items = 0;
  double busy_s = 0;
};
// What each device did for this engine.
struct DeviceStats {
  std::string name;
  std::uint64_t gpu_items = 0, g2_items = 0;  // stage runs that ended well (G2: on the device)
  std::uint64_t faults = 0;                   // device faults met here
  bool healthy = true;
  std::string error;  // why it is out of service
};
struct EngineStats {
  StageStats synthesis, gpu, g2, finalize;
  std::uint64_t max_gpu_queue = 0, max_g2_queue = 0, max_final_queue = 0;
  std::uint64_t partitions_done = 0, partitions_failed = 0, jobs_done = 0, jobs_failed = 0;
  // Partitions dropped after a device fault and proved again (not counted as failed): those whose
  // stage faulted (each also counts as a fault of its device) and those rerouted, which found
  // their device already out of service before their stage began.
  std::uint64_t partitions_retried = 0;
  std::uint64_t partitions_rerouted = 0;
  std::vector<DeviceStats> devices;
};

template <class E>
class Engine {
 public:
  using Fr = typename E::Fr;

  // One device of these stages (its state named after the GPU stage, its own).
  explicit Engine(EngineConfig cfg, std::shared_ptr<GpuStage<E>> gpu = cpu_gpu_stage<E>(),
                  std::shared_ptr<G2Stage<E>> g2 = cpu_g2_stage<E>());
  // One set of stages per device (a backend's Backend::stages); at least one, each with a state.
  Engine(EngineConfig cfg, std::vector<DeviceStages<E>> devices);
  // shutdown().
  ~Engine();
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  const EngineConfig& config() const { return cfg_; }
  const std::vector<DeviceStages<E>>& devices() const { return devices_; }
  mem::MemoryBudget& budget() { return budget_; }
  // Stage events go to `s` from now on (null: none). The sampler must outlive its use here.
  void attach_sampler(mem::MemorySampler* s);
  // Called as each partition starts and ends each stage ("synthesis", "gpu", "g2", "finalize";
  // start true/false), from the stage's worker thread; it must be quick and must not call back
  // into the engine. Empty: none.
  using StageObserver =
      std::function<void(std::uint64_t job, std::size_t partition, std::string_view stage, bool start)>;
  void set_stage_observer(StageObserver fn);

  // What one partition of this source would cost (checks the shape against the key).
  PartitionCost cost_of(const JobSpec<E>& spec) const;

  // Queues a job; returns its id. Throws Error for a source that does not fit the key, 0
  // partitions, or a partition that could never fit in the budget; DeviceFault when no device is
  // in service.
  std::uint64_t submit(JobSpec<E> spec);
  // Blocks until the job is done (all proofs verified) or failed/cancelled and holding nothing.
  // The job is forgotten afterwards. Error for an unknown id.
  JobResult<E> wait(std::uint64_t id);
  // Fails the job with "cancelled" (no effect on a finished or unknown job).
  void cancel(std::uint64_t id);

  // The buffer warm-up, before work (a daemon's start, a benchmark's cold start): until the pool
  // holds idle buffers for `partitions` partitions of `spec`'s shape (those already idle count),
  // maps one more partition's, every page faulted in (and pinned when the backend copies them),
  // in parallel, and keeps them idle in the pool (booked, tag pinned), so the first partitions
  // reuse warm pages instead of faulting and pinning fresh ones while the device waits. Stops
  // early at what the budget has room for now. Returns the partitions whose buffers it made (0
  // without recycled buffers).
  std::uint32_t warm_buffers(const JobSpec<E>& spec, std::uint32_t partitions);
  // Makes `key` ready on every device (GpuStage/G2Stage::prepare: its points resident, the
  // domain's twiddles made) before its first partition: a daemon's key preload, a benchmark's cold
  // start. The first partitions then run at the steady state's pace, not beside the key's upload.
  void prepare(const Key<E>& key);

  EngineStats stats() const;
  // The buffer pool's counters (all zero when buffers are not recycled).
  mem::BufferPool::Stats pool_stats() const;

  // Bytes the workers' scratch reservations hold now (tag scratch in the books).
  std::uint64_t worker_scratch_bytes() const;
  // Whether any of its devices is in service.
  bool serving() const { return devices_down().empty(); }
  // Cancels every job still running, joins the workers and gives their scratch reservations back:
  // afterwards the budget holds nothing. Idempotent; submit() throws after it.
  void shutdown();

 private:
  struct Job;
  struct Item;
  using ItemPtr = std::unique_ptr<Item>;
  using Queue = StageQueue<ItemPtr>;

  void synthesis_worker();
  mem::Reservation admit(Job& job, mem::BufferPool::Lease& lease);
  template <class Pick, class Work>
  void stage_worker(Queue& in, Queue& out, const char* stage, StageStats EngineStats::*stats,
                    Pick&& pick, Work&& work);
  void gpu_worker(std::size_t device);
  void g2_worker(std::size_t worker);
  // After a device fault (dev: the device, null when the partition only found its device out of
  // service): the partition dies and is queued to be proved again, or fails its job once it has
  // met more faults than device_retries.
  void prove_again(ItemPtr it, const DeviceStages<E>* dev, const std::string& why);
  // With no healthy device left: every job fails (submit() refuses from then on).
  void check_devices();
  std::string devices_down() const;
  void finalizer();
  void fail(Job& job, const std::string& message, bool device_fault = false);
  void item_gone(Job& job, bool finalized, bool retried);
  void mark(const char* what, const char* stage, const Item& it);
  void mark_job(const char* what, std::uint64_t id);
  // Grows every worker's scratch reservation to what partitions of `cost` need (may wait). With
  // `what` (the source) set: Error, before anything is reserved, when such a partition could
  // never fit in the budget beside the grown scratch.
  void fit_worker_scratch(const PartitionCost& cost, const std::string& what);

  EngineConfig cfg_;
  std::shared_ptr<mem::MemoryBudget> budget_owner_;  // cfg_.shared_budget, or the engine's own
  mem::MemoryBudget& budget_;
  std::uint64_t reclaim_id_ = 0;
  // Dies before budget_ (declared after it): its idle blocks give their bytes back first.
  std::shared_ptr<mem::BufferPool> pool_;
  std::mutex admit_mu_;  // one admission at a time while buffers are recycled (admit())
  std::vector<DeviceStages<E>> devices_;
  std::mutex sampler_mu_;
  mem::MemorySampler* sampler_ = nullptr;
  StageObserver observer_;  // guarded by sampler_mu_

  mutable std::mutex mu_;  // guards jobs_, next_id_, stats_, shutting_down_ and every Job's state
  std::condition_variable work_cv_;  // a job with unclaimed partitions appeared / shutdown
  std::condition_variable done_cv_;  // a job finished
  std::map<std::uint64_t, std::shared_ptr<Job>> jobs_;  // by id = age
  std::uint64_t next_id_ = 1;
  bool shutting_down_ = false;
  EngineStats stats_;  // its `devices` has one entry per device, by index

  std::unique_ptr<Queue> gpu_q_, g2_q_, final_q_;
  // One scratch reservation per worker of each stage (tag scratch), and what each holds.
  mutable std::mutex scratch_mu_;  // serializes growth (submit) and shutdown
  std::vector<mem::Reservation> synth_scratch_, gpu_scratch_, g2_scratch_;
  EngineConfig held_scratch_;  // only its *_scratch fields: per-worker bytes held now
  std::vector<std::jthread> threads_;
};

}  // namespace splitprove::pipeline
