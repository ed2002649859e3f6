#pragma once
// The proving daemon's core (DESIGN §5, docs/daemon.md), apart from its gRPC front
// (service/grpc_service.hpp): the job store, the registered and resident keys, one pipeline
// engine per curve, and the drivers that take partitions from the store into the engines.
//
// The store is the queue: a driver claims a partition only when it has room for one (at most
// `window` partitions are claimed at once), reads its witness from the spool, proves it through
// the engine (which admits it against the memory budget) and commits the proof; memory holds no
// backlog. Each partition is an engine job of one partition, so a bad witness fails only its own
// job. A partition whose proof is committed is never proved again: recovery requeues only
// partitions that were running.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "mem/sampler.hpp"
#include "mem/verdict.hpp"
#include "pipeline/backend.hpp"
#include "service/store.hpp"

namespace prometheus {
class Registry;
}

namespace splitprove::service {

struct DaemonConfig {
  StoreConfig store;
  std::string key_dir;            // RegisterKey paths are relative to it
  std::string backend = "auto";   // the pipeline backend: auto | cpu | cuda
  std::vector<int> devices;        // GPUs (empty: every visible one)
  std::uint32_t logical_devices = 1;  // per device, or of the CPU backend (pipeline/backend.hpp)
  std::uint32_t synthesis_workers = 2;
  std::uint32_t gpu_workers = 1;  // per device
  std::uint64_t budget = 0;       // host memory budget of each engine; 0: none
  std::uint32_t window = 0;       // partitions claimed at once; 0: pw + gw × devices + 7
  std::uint32_t max_pending_jobs = 256;
  std::uint64_t max_spool_bytes = std::uint64_t(256) << 30;
  std::uint32_t max_partitions_per_job = 1024;
  std::uint64_t max_witness_bytes = std::uint64_t(64) << 30;
  std::uint32_t input_retention_minutes = 60;
  std::uint32_t job_retention_hours = 168;
  std::uint32_t gc_interval_s = 600;
  // Throws Error naming the first value out of range.
  void check() const;
};

// A key as the daemon knows it: its record and where it lives now.
struct KeyInfo {
  KeyRecord record;
  bool resident = false;
  std::uint64_t host_bytes = 0;  // what the loaded key holds (points and coefficients)
  std::uint32_t active_jobs = 0;
  std::optional<Millis> last_used_at;
};

// One Submit in progress: created by Daemon::begin_submit, fed chunks, then committed.
class Submission {
 public:
  virtual ~Submission() = default;
  virtual void append(std::uint32_t partition, std::uint64_t offset,
                      std::span<const std::uint8_t> bytes) = 0;
  // Checks that every witness arrived, commits the job; returns it and whether it was created.
  virtual std::pair<JobRecord, bool> commit() = 0;
};

struct SubmitHeader {
  std::string key_id;
  std::string idempotency_key;
  std::int32_t priority = 0;
  std::uint32_t partitions = 0;
  std::vector<std::uint64_t> witness_bytes;  // circom: one per partition
  std::optional<std::uint64_t> native_seed;  // native partitions (of a native key): no witnesses
  std::uint32_t native_log2 = 0;             // native: 0, or the key's size as a check
};

struct DaemonStatus {
  bool accepting = false;
  // The memory timeline's verdict so far (mem::analyze over the daemon's bounded sampler).
  struct Memory {
    std::string verdict = "unknown";  // bounded | accumulation | leak | unknown
    std::string text;
    std::uint64_t rss = 0, baseline = 0, peak = 0, expected_peak = 0, samples = 0;
    Millis peak_at = 0;
    std::int64_t unaccounted_at_peak = 0;
  } memory;
  Millis started_at = 0;
  Counts counts;
  std::uint32_t in_flight = 0, window = 0;
  std::uint64_t budget_total = 0, budget_used = 0, budget_peak = 0;
  std::map<std::string, std::uint64_t> budget_by_tag;
  std::uint64_t jobs_succeeded = 0, jobs_failed = 0, jobs_cancelled = 0, partitions_done = 0;
  std::vector<KeyInfo> resident_keys;
  std::string backend;
  std::vector<pipeline::DeviceStatus> gpus;  // empty on the CPU backend
  ClusterView cluster;                       // the daemons on its store, the queue per key
  struct InFlight {
    std::string job_id;
    std::uint32_t partition = 0, attempt = 0;
    Millis since = 0;
    std::string stage;  // as in RunningInfo
  };
  std::vector<InFlight> partitions;
};

class Daemon {
 public:
  // Opens the store and recovers (partitions left running are queued again, the spool is
  // swept), then starts the drivers and the collector. Error when the store cannot be opened.
  explicit Daemon(DaemonConfig cfg);
  // stop(0) when not stopped.
  ~Daemon();
  Daemon(const Daemon&) = delete;
  Daemon& operator=(const Daemon&) = delete;

  const DaemonConfig& config() const { return cfg_; }
  const RecoveryReport& recovery() const { return recovery_; }

  // ---- keys
  // Registers `rel_path` (relative to the key directory; Denied for an absolute path, "..", or a
  // path that resolves outside it; NotFound for a missing file; Error for an invalid .zkey).
  std::pair<KeyInfo, bool> register_key(const std::string& rel_path, bool preload);
  // Registers the built-in PoRep-shaped circuit of 2^log2 rows over `curve` ("BN254" or
  // "BLS12-381"): the first time, its development key is made and written to
  // <key_dir>/native/<curve>-2^<log2>.zkey (minutes at large sizes); later, the key made then.
  std::pair<KeyInfo, bool> register_native_key(const std::string& curve, std::uint32_t log2, bool preload);
  std::vector<KeyInfo> list_keys();
  // Makes the key resident on every device of its engine; `gpus`, when given, must each name one
  // of them (Error otherwise, before the key is read).
  KeyInfo preload_key(const std::string& key_id, const std::vector<std::uint32_t>& gpus = {});
  // Returns the key and the host bytes given back. Conflict while partitions use it.
  std::pair<KeyInfo, std::uint64_t> evict_key(const std::string& key_id);

  // ---- jobs
  // The header checked (key, counts, sizes) and admitted (pending jobs, spool bytes), or, for a
  // known idempotency key, that job (`deduplicated`); Conflict when that job's header differs.
  // A retry (a known idempotency key, the same header) reads and hashes the witnesses without
  // writing them; its commit answers with the existing job, or Conflict for other bytes.
  struct Begin {
    std::unique_ptr<Submission> submission;
  };
  Begin begin_submit(const SubmitHeader& h);
  JobRecord cancel(const std::string& job_id, const std::string& reason);
  std::optional<JobRecord> get_job(const std::string& job_id, bool with_results);
  JobPage list_jobs(std::optional<JobState> state, std::size_t page_size, const std::string& token);

  // A counter per job that moves on every change of the job or one of its partitions (claimed,
  // a stage entered, committed, failed, cancelled); 0 once the job has ended. wait_job_change
  // blocks until the job's counter differs from `seen`, the daemon stops, or the timeout passes;
  // it returns the counter. (Await waits on its own job, not on every job's changes.)
  std::uint64_t job_changes(const std::string& job_id);
  std::uint64_t wait_job_change(const std::string& job_id, std::uint64_t seen,
                                std::chrono::milliseconds timeout);
  // The partitions of a job claimed now: since when, and the engine stage each is in ("" before
  // its first stage starts; then "synthesis", "gpu", "g2" or "finalize").
  struct RunningInfo {
    Millis since = 0;
    std::string stage;
    Millis stage_since = 0;
  };
  std::map<std::uint32_t, RunningInfo> running_partitions(const std::string& job_id);

  DaemonStatus status();
  // The memory timeline since start as an SVG (RSS over time, baseline and peak marked).
  std::string memory_svg();
  // The verdict on the memory timeline, judged on the work that has drained.
  mem::Verdict memory_verdict(const mem::Timeline& tl) const;
  // The daemon's own metrics (stage and job latency histograms), for /metrics.
  std::shared_ptr<prometheus::Registry> metrics() const { return metrics_; }
  bool accepting() const { return accepting_.load(); }
  // Whether the engines have a device in service (while none has, no partition is claimed and
  // /healthz answers 503).
  bool devices_serving() const;
  // Where clients reach it (its listen addresses), for the cluster view; sent with the heartbeat.
  void advertise(std::string listen);

  // Stops claiming; partitions in flight get `grace` to finish, then are cancelled and released
  // (queued again, their attempt not counted); joins everything. Idempotent.
  void stop(std::chrono::milliseconds grace);

 private:
  struct Loaded;     // a resident key (per curve)
  struct Engines;    // one engine per curve, made at first use
  struct Running {
    Claim claim;
    Millis since = 0;
    std::function<void()> cancel;  // cancels its engine job (set once submitted)
    bool cancelled = false;        // by Cancel or by stop(): the result is not committed
    int curve = -1;                // its engine (ec::CurveId) and job there, once submitted
    std::uint64_t engine_job = 0;
  };
  // Stage events of engine jobs by (curve, engine job): the stage entered and when. Written by
  // the engines' observers, erased when the partition leaves the engine.
  std::map<std::pair<int, std::uint64_t>, std::pair<std::string, Millis>> engine_stage_;
  void on_stage(int curve, std::uint64_t engine_job, std::string_view stage, bool start);

  void driver();
  void collector();
  // Every lease/3: tells the store this daemon is alive and renews its claims' leases (any
  // daemon's expired leases are taken back there), then looks for keys it can now claim.
  void heartbeat_loop();
  // Keys whose jobs this daemon claims: registered in the store, with the file in its key
  // directory (same path, same size; on a shared store the hash is checked at first load).
  void refresh_claimable();
  std::vector<std::string> claimable();
  void run_partition(const Claim& c);
  std::shared_ptr<Loaded> load(const std::string& key_id);
  // load(), then the key made ready on its engine's devices (Engine::prepare): a preload.
  void load_onto_devices(const std::string& key_id);
  KeyInfo info_of(const KeyRecord& k);
  void changed(const std::string& job_id);  // job_id "": every job (stop)
  // true the first time a job's end is seen here (its end is logged once).
  bool job_ended(const std::string& job_id);

  DaemonConfig cfg_;
  std::unique_ptr<JobStore> store_;
  RecoveryReport recovery_;
  std::string owner_;
  Millis started_at_ = 0;
  std::unique_ptr<Engines> engines_;

  std::mutex native_mu_;  // one native setup at a time
  std::mutex keys_mu_;  // guards keys_ and loading
  std::map<std::string, std::shared_ptr<Loaded>> keys_;
  std::map<std::string, Millis> last_used_;
  std::set<std::string> claimable_;  // guarded by keys_mu_
  std::set<std::string> verified_;   // keys whose file's hash this process has checked
  std::map<std::string, std::string> local_path_;  // registered here under another path than the store's
  bool shared_store_ = false;

  std::mutex mu_;  // guards running_, stopping_, cancelling_, admission and counters
  std::condition_variable work_cv_;
  // Claims in flight by their fencing token (job, partition, attempt), not by partition: a claim
  // whose lease lapsed while it was proved (the daemon stopped, or its heartbeat late) is still in
  // flight when this daemon may claim the same partition again, and each must keep its own entry
  // (the heartbeat renews the leases of the entries; the stale run must not erase the new one's).
  struct RunKey {
    std::string job_id;
    std::uint32_t index = 0, attempt = 0;
    auto operator<=>(const RunKey&) const = default;
  };
  std::map<RunKey, Running> running_;
  std::uint32_t submits_in_progress_ = 0;
  std::uint64_t reserved_spool_ = 0;
  std::uint64_t jobs_succeeded_ = 0, jobs_failed_ = 0, jobs_cancelled_ = 0, partitions_done_ = 0;
  bool stopping_ = false;
  std::atomic<bool> accepting_{false};
  std::string advertise_;  // guarded by mu_
  // The drivers' idle polling (driver()): the queue was found empty, the next poll is due then,
  // and one driver is polling now.
  bool idle_ = false, poller_ = false;
  std::chrono::steady_clock::time_point idle_until_{};
  void work_arrived();  // a Submit here committed: every driver claims at once

  std::mutex change_mu_;
  std::condition_variable change_cv_;
  std::map<std::string, std::uint64_t> job_changes_;  // jobs with changes and not ended; bounded
  std::uint64_t change_seq_ = 0;                       // by the pending jobs
  // Jobs seen to end here, the latest kEndedKept: a partition finishing after its job ended (its
  // result dropped) neither logs the end again nor brings back the job's counter.
  static constexpr std::size_t kEndedKept = 4096;
  std::set<std::string> ended_;
  std::deque<std::string> ended_order_;

  std::vector<std::thread> threads_;
  std::unique_ptr<mem::MemorySampler> sampler_;  // RSS (and the budget's books) every second, bounded
  Millis sampler_epoch_ = 0;                      // wall-clock time of the sampler's t = 0
  // The memory timeline's work windows (guarded by mu_): one opens when a partition starts with
  // none running and closes once none has run for a moment (note_drain), after the allocator
  // gave its free memory back, so that the verdict compares idle with idle.
  bool in_work_ = false;
  std::chrono::steady_clock::time_point drained_at_{};
  void note_drain();  // closes the work window once drained (called by the idle drivers)
  // Test hook (SPLITPROVE_TEST_LEAK_PER_PARTITION=SIZE): every partition proved keeps that many
  // bytes resident for the daemon's life, so that tests can see the verdict call a leak a leak.
  std::uint64_t test_leak_per_partition_ = 0;
  std::vector<std::unique_ptr<char[]>> test_leaked_;  // guarded by mu_
  std::shared_ptr<prometheus::Registry> metrics_;
  struct Histograms;
  std::unique_ptr<Histograms> hist_;
  friend class SubmissionImpl;
};

// Hex SHA-256 of a file's bytes (Error naming the file).
std::string sha256_file(const std::string& path);

}  // namespace splitprove::service
