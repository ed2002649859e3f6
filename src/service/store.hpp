#pragma once
// The daemon's job store (docs/daemon.md): jobs, their partitions and the registered keys, behind
// one interface with two backends:
//   * SQLite (the default): an embedded database (WAL, synchronous FULL) in the state directory,
//     the witnesses in a spool directory beside it; one daemon.
//   * PostgreSQL (`store = "postgresql://..."`): one database that several daemons on several
//     hosts share (docs/cluster.md); witnesses, proofs and keys' records live in it, so any daemon
//     can take any partition. Claims are partition by partition under a lease the owner renews.
//
// Accepted means durable: a job's witnesses are on disk (fsynced) or in the database before the
// one transaction that records the job commits, and only then does Submit answer. A partition is
// done only once its proof is committed. A claim carries (owner, attempt), a fencing token: a
// result or failure for a claim that no longer holds (cancelled, failed, or reclaimed after its
// lease expired) changes nothing.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace splitprove::service {

enum class JobState { queued, running, succeeded, failed, cancelled };
enum class PartState { queued, running, done, failed, dropped };
const char* to_string(JobState s);
const char* to_string(PartState s);
JobState job_state_from(std::string_view s);
PartState part_state_from(std::string_view s);
inline bool is_final(JobState s) {
  return s == JobState::succeeded || s == JobState::failed || s == JobState::cancelled;
}

using Millis = std::int64_t;  // Unix milliseconds (UTC)
Millis now_ms();
std::string host_name();  // gethostname(): what daemons' owner names and heartbeats carry

struct KeyRecord {
  std::string key_id;     // hex SHA-256 of the .zkey bytes
  std::string zkey_path;  // relative to the key directory
  std::string curve;      // "bls12-381" / "bn254" (ec::curve_name)
  std::uint32_t log2_domain = 0;
  std::uint64_t constraints = 0, variables = 0;
  std::uint32_t public_signals = 0;
  std::uint64_t file_bytes = 0;
  Millis registered_at = 0;
  std::optional<std::uint32_t> native_log2;  // set for the built-in native circuit's keys
};

struct NewJob {
  std::string key_id;
  std::optional<std::string> idempotency_key;
  // What the header said (key, priority, N, sizes or seed); the writer appends the witnesses'
  // content hash (with_content_hash) at commit. A retry must say the same, bytes included.
  std::string fingerprint;
  std::int32_t priority = 0;
  std::uint32_t partitions = 0;
  std::vector<std::uint64_t> witness_bytes;  // circom: one per partition; native: empty
  std::optional<std::uint64_t> native_seed;  // native partitions: their data seed (no witnesses)
};

struct PartitionRecord {
  std::uint32_t index = 0;
  PartState state = PartState::queued;
  std::uint32_t attempts = 0;
  std::optional<Millis> started_at, finished_at;
  std::string error;
  std::string proof_json, public_json;  // only with results, and only when done
  std::uint64_t witness_bytes = 0;
};

struct JobRecord {
  std::string job_id, key_id;
  std::optional<std::string> idempotency_key;
  std::string fingerprint;
  std::int32_t priority = 0;
  JobState state = JobState::queued;
  std::uint32_t partition_count = 0, partitions_done = 0, partitions_failed = 0;
  std::uint64_t spool_bytes = 0;
  std::optional<std::uint64_t> native_seed;
  std::string error;
  Millis created_at = 0;
  std::optional<Millis> started_at, finished_at;
  std::vector<PartitionRecord> partitions;  // get_job only
};

struct Claim {
  std::string job_id;
  std::uint32_t index = 0, attempt = 0;
  std::string key_id;
  std::optional<std::uint64_t> native_seed;  // a native job's partition: no witness file
};

// A claimed partition's witness as a local file while it is read: the spool's own file (SQLite),
// or a copy fetched from the database (PostgreSQL), removed with this object.
class LocalWitness {
 public:
  LocalWitness(std::string path, bool temporary) : path_(std::move(path)), temporary_(temporary) {}
  ~LocalWitness();
  LocalWitness(const LocalWitness&) = delete;
  LocalWitness& operator=(const LocalWitness&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  bool temporary_;
};

// What a daemon tells a shared store every few seconds: it is alive, and the claims it still
// works on (their leases are renewed; every other claim of its lapses).
struct Heartbeat {
  std::string owner, host, listen;
  Millis started_at = 0;
  std::vector<Claim> held;
};
struct HeartbeatReport {
  std::uint32_t renewed = 0;   // leases of `held` renewed
  std::uint32_t requeued = 0;  // expired leases (any daemon's) queued again
  std::uint32_t failed = 0;    // expired leases whose attempts were spent: their jobs failed
};
// The daemons on one store and the queue per key.
struct ClusterView {
  bool shared = false;  // a store several daemons use (PostgreSQL)
  std::string store;    // where it is (the database without its password, or the state directory)
  struct Member {
    std::string owner, host, listen;
    Millis started_at = 0, heartbeat_at = 0;
    std::uint32_t running = 0;  // partitions it holds claims on
    bool alive = false;         // heartbeat within two leases
  };
  std::vector<Member> daemons;
  struct KeyQueue {
    std::string key_id;
    std::uint32_t queued = 0, running = 0;
  };
  std::vector<KeyQueue> queues;
};

struct JobPage {
  std::vector<JobRecord> jobs;
  std::string next_page_token;
};

struct RecoveryReport {
  std::uint32_t requeued = 0, failed = 0, spool_removed = 0, temporaries_removed = 0;
};
struct CollectReport {
  std::uint32_t inputs_removed = 0, jobs_deleted = 0;
};
struct Counts {
  std::uint32_t queued_jobs = 0, running_jobs = 0, queued_partitions = 0, running_partitions = 0;
  std::uint64_t spool_bytes = 0;
};

// One Submit's witnesses. Destroyed before commit(): every file and the job's directory go.
class InputWriter {
 public:
  virtual ~InputWriter() = default;
  // Appends to the partition being written (partitions in order 0..N-1, each contiguous). Error
  // for a chunk out of order or beyond the declared size.
  virtual void append(std::uint32_t partition, std::uint64_t offset,
                      std::span<const std::uint8_t> bytes) = 0;
  // Every partition complete: true. The last partition's file lands (fsync, rename) as soon as
  // its declared bytes have arrived; `path_of` then names it (for checking it against the key).
  virtual bool complete() const = 0;
  // Partitions whose witness has landed (0..landed()-1).
  virtual std::uint32_t landed() const = 0;
  virtual std::string path_of(std::uint32_t partition) const = 0;
  // The job's transaction. Returns the job and whether it was created here (false: a concurrent
  // Submit with the same idempotency key committed first; ours is removed).
  virtual std::pair<JobRecord, bool> commit() = 0;
};

class JobStore {
 public:
  virtual ~JobStore() = default;

  virtual std::optional<JobRecord> find_idempotent(std::string_view idempotency_key) = 0;
  virtual std::unique_ptr<InputWriter> create_job(const NewJob& job) = 0;
  // The witness of a claimed circom partition, as a local file (Error when it is missing).
  virtual std::unique_ptr<LocalWitness> open_witness(const Claim& c) = 0;

  // Claims up to n queued partitions (highest priority, then oldest job, then index) of jobs
  // whose key is one of `keys`, for `owner`; their jobs become running. On a shared store the
  // claim's lease runs for StoreConfig::lease_ms unless heartbeat() renews it.
  virtual std::vector<Claim> next_partitions(std::size_t n, std::string_view owner,
                                             const std::vector<std::string>& keys) = 0;
  // The proof of a claimed partition, committed. false (held): the claim no longer holds (the job
  // was cancelled or failed, or it was reclaimed) and nothing was written; job_done: this commit
  // was the job's last partition, and the job succeeded in the same transaction.
  struct Committed {
    bool held = false, job_done = false;
    explicit operator bool() const { return held; }
  };
  virtual Committed commit_partition_result(const Claim& c, std::string_view proof_json,
                                            std::string_view public_json) = 0;
  // retryable: back to queued unless the attempts are spent; else the partition and its job fail.
  virtual bool fail_partition(const Claim& c, std::string_view error, bool retryable) = 0;
  // Back to queued, the attempt not counted (shutdown).
  virtual void release(const Claim& c) = 0;

  // Conflict for a job that already succeeded or failed; nullopt for an unknown job.
  virtual std::optional<JobRecord> cancel_job(const std::string& job_id, std::string_view why) = 0;
  virtual std::optional<JobRecord> get_job(const std::string& job_id, bool with_partitions,
                                           bool with_results) = 0;
  virtual JobPage list_jobs(std::optional<JobState> state, std::size_t page_size,
                            std::string_view page_token) = 0;

  // At start, before any Submit: partitions left running are queued again (those whose attempts
  // are spent fail their jobs), temporaries and spool directories no job owns are removed.
  virtual RecoveryReport recover() = 0;
  // Removes the inputs of jobs finished before `inputs_before` and the rows of jobs finished
  // before `jobs_before`.
  virtual CollectReport collect(Millis inputs_before, Millis jobs_before) = 0;
  virtual Counts counts() = 0;

  // A shared store: records the daemon as alive, renews the leases of `held`, and queues again
  // (or fails, when their attempts are spent) the partitions whose leases expired, whoever held
  // them. The SQLite store (one daemon) has nothing to do.
  virtual HeartbeatReport heartbeat(const Heartbeat& hb) = 0;
  // The daemon stops: its heartbeat row goes.
  virtual void leave(std::string_view owner) = 0;
  virtual ClusterView cluster() = 0;

  virtual void put_key(const KeyRecord& k) = 0;  // no-op when present
  virtual std::optional<KeyRecord> get_key(const std::string& key_id) = 0;
  virtual std::optional<KeyRecord> get_native_key(std::string_view curve, std::uint32_t log2) = 0;
  virtual std::vector<KeyRecord> list_keys() = 0;
};

struct StoreConfig {
  std::string state_dir;  // splitprove.db lives here (SQLite)
  std::string spool_dir;  // "": <state_dir>/spool (PostgreSQL: witnesses pass through it)
  std::uint32_t max_attempts = 3;
  // "" or "sqlite": the SQLite store in state_dir; "postgresql://..." (or "postgres://..."): the
  // shared PostgreSQL store.
  std::string url;
  std::uint32_t lease_ms = 30'000;      // a claim's lease on a shared store
  std::uint32_t reconnect_ms = 60'000;  // how long a call waits for the database to come back
};

// Opens (creating and migrating) the store cfg.url names; does not recover. Error for a URL of
// another scheme or a database whose schema is newer than this binary's.
std::unique_ptr<JobStore> open_store(const StoreConfig& cfg);
std::unique_ptr<JobStore> open_sqlite_store(const StoreConfig& cfg);
std::unique_ptr<JobStore> open_postgres_store(const StoreConfig& cfg);

// A Submit's full fingerprint: the header's, then ";witnesses_sha256=<hex>" of every witness
// byte in order (circom jobs; a native job's seed is in the header's part).
std::string with_content_hash(std::string_view header_fingerprint, std::string_view sha256_hex);
// Conflict, naming the job, when `fingerprint` is not the one `existing` (the job an idempotency
// key names) was submitted with. A fingerprint recorded without a content hash (before witnesses
// were hashed) is compared on its header part only, and so is every one with `header_only` (a
// retry's header, before its witnesses are read). Both stores call it on the job that won a race
// for the idempotency key, and the daemon on a retry it answers without a store write.
void check_same_submission(const JobRecord& existing, std::string_view fingerprint, bool header_only = false);

// A new job id: a UUIDv7 (time-ordered), canonical lowercase form.
std::string new_job_id();
// true for a string of the form new_job_id() makes.
bool valid_job_id(std::string_view s);

}  // namespace splitprove::service
