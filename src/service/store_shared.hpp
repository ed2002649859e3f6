#pragma once
// What both job stores share.
//   * store_sql: the SQL both dialects read alike (a job's columns, a key's, the queue per key)
//     and the readers of those rows, over either database's row type.
//   * spool::Writer: a Submit's witnesses stream into one directory per job, each partition's
//     file landing atomically (util::AtomicFile: temporary file, fsync, rename) once its declared
//     bytes have arrived. The SQLite store keeps that directory as the job's spool; the PostgreSQL
//     store copies the files into the database in the job's transaction and removes it.
#include <filesystem>
#include <memory>
#include <string>

#include "service/store.hpp"
#include "util/output.hpp"

namespace splitprove::service::store_sql {

// Columns: job_id, key_id, idempotency_key, fingerprint, priority, state, partition_count,
// spool_bytes, error, created_at, started_at, finished_at, done, failed, native_seed.
constexpr const char* kJobCols =
    "j.job_id, j.key_id, j.idempotency_key, j.fingerprint, j.priority, j.state, "
    "j.partition_count, j.spool_bytes, j.error, j.created_at, j.started_at, j.finished_at, "
    "(SELECT count(*) FROM partitions p WHERE p.job_id = j.job_id AND p.state = 'done'), "
    "(SELECT count(*) FROM partitions p WHERE p.job_id = j.job_id AND p.state = 'failed'), "
    "j.native_seed";
constexpr const char* kKeyCols =
    "key_id, zkey_path, curve, log2_domain, constraints, variables, public_signals, file_bytes, "
    "registered_at, native_log2";
// key_id, queued, running: the partitions waiting and claimed, per key.
constexpr const char* kQueuesSql =
    "SELECT j.key_id, sum(CASE WHEN p.state = 'queued' THEN 1 ELSE 0 END), "
    "sum(CASE WHEN p.state = 'running' THEN 1 ELSE 0 END) FROM partitions p JOIN jobs j ON j.job_id = "
    "p.job_id WHERE p.state IN ('queued', 'running') GROUP BY j.key_id ORDER BY j.key_id";

// R: a row with text(col), opt_text(col), i64(col), opt_i64(col) (SQLite's Stmt, PostgreSQL's
// Result row).
template <class R>
JobRecord read_job(const R& q) {
  JobRecord j;
  j.job_id = q.text(0);
  j.key_id = q.text(1);
  j.idempotency_key = q.opt_text(2);
  j.fingerprint = q.text(3);
  j.priority = std::int32_t(q.i64(4));
  j.state = job_state_from(q.text(5));
  j.partition_count = std::uint32_t(q.i64(6));
  j.spool_bytes = std::uint64_t(q.i64(7));
  j.error = q.text(8);
  j.created_at = q.i64(9);
  j.started_at = q.opt_i64(10);
  j.finished_at = q.opt_i64(11);
  j.partitions_done = std::uint32_t(q.i64(12));
  j.partitions_failed = std::uint32_t(q.i64(13));
  if (auto seed = q.opt_i64(14)) j.native_seed = std::uint64_t(*seed);
  return j;
}

template <class R>
KeyRecord read_key(const R& q) {
  KeyRecord k;
  k.key_id = q.text(0);
  k.zkey_path = q.text(1);
  k.curve = q.text(2);
  k.log2_domain = std::uint32_t(q.i64(3));
  k.constraints = std::uint64_t(q.i64(4));
  k.variables = std::uint64_t(q.i64(5));
  k.public_signals = std::uint32_t(q.i64(6));
  k.file_bytes = std::uint64_t(q.i64(7));
  k.registered_at = q.i64(8);
  if (auto n = q.opt_i64(9)) k.native_log2 = std::uint32_t(*n);
  return k;
}

// Columns: idx, state, attempts, started_at, finished_at, error, witness_bytes[, proof_json,
// public_json].
template <class R>
PartitionRecord read_partition(const R& p, bool with_results) {
  PartitionRecord r;
  r.index = std::uint32_t(p.i64(0));
  r.state = part_state_from(p.text(1));
  r.attempts = std::uint32_t(p.i64(2));
  r.started_at = p.opt_i64(3);
  r.finished_at = p.opt_i64(4);
  r.error = p.text(5);
  r.witness_bytes = std::uint64_t(p.i64(6));
  if (with_results) {
    r.proof_json = p.text(7);
    r.public_json = p.text(8);
  }
  return r;
}

// ListJobs' page token: "<filter>/<created_at>/<job id>" of the last job of the page before.
struct PageToken {
  Millis created_at = 0;
  std::string job_id;
  // Error for a token not made by cut() for this filter.
  static PageToken parse(std::optional<JobState> state, std::string_view token);
  // Trims a page read with page_size + 1 rows to page_size, setting its next token.
  static void cut(JobPage& page, std::optional<JobState> state, std::size_t page_size);
};

}  // namespace splitprove::service::store_sql

namespace splitprove::service::spool {

// Creates the state directory and the spool (cfg.spool_dir, or <state_dir>/spool); returns the
// spool. Error naming the directory that cannot be made.
std::filesystem::path prepare(const StoreConfig& cfg);
// fsync of a directory (StoreError naming it).
void fsync_dir(const std::filesystem::path& dir);
// Creates <spool>/<job_id> (mode 700) and syncs the spool; returns it.
std::filesystem::path make_job_dir(const std::filesystem::path& spool, const std::string& job_id);

// SHA-256 fed in pieces (OpenSSL's EVP).
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::span<const std::uint8_t> bytes);
  std::string hex();  // once: the digest of everything fed

 private:
  void* ctx_ = nullptr;  // EVP_MD_CTX
};

// Where a Submit's chunk stream stands: partitions in order 0..N-1, each contiguous up to its
// declared size. Error for a chunk out of order or beyond its partition's size.
class ChunkOrder {
 public:
  explicit ChunkOrder(const std::vector<std::uint64_t>& sizes) : sizes_(sizes) {}
  // Checks a chunk against the stream so far and counts it in.
  void take(std::uint32_t partition, std::uint64_t offset, std::size_t bytes);
  std::uint64_t have() const { return have_; }  // bytes of the partition being written
  std::uint32_t next() const { return next_; }  // partition being (or next to be) written
  bool complete() const { return next_ == sizes_.size(); }
  // Error naming the first partition whose witness has not all arrived.
  void require_complete() const;

 private:
  const std::vector<std::uint64_t>& sizes_;
  std::uint32_t next_ = 0;
  std::uint64_t have_ = 0;
};

class Writer : public InputWriter {
 public:
  // A native job (a seed, no witnesses) has no directory.
  Writer(NewJob job, std::string job_id, std::filesystem::path dir)
      : job_(std::move(job)), job_id_(std::move(job_id)), dir_(std::move(dir)), order_(job_.witness_bytes) {}
  // Removes the temporary file and the directory, unless keep() was called.
  ~Writer() override;
  void append(std::uint32_t partition, std::uint64_t offset, std::span<const std::uint8_t> bytes) override;
  bool complete() const override { return order_.complete() && !file_; }
  std::uint32_t landed() const override { return order_.next(); }
  std::string path_of(std::uint32_t p) const override;

 protected:
  // Error naming the first partition whose witness has not all arrived.
  void require_complete() const;
  void keep() { kept_ = true; }
  const NewJob& job() const { return job_; }
  // The job with its full fingerprint (the witnesses' content hash appended), once complete.
  const NewJob& sealed();
  const std::string& job_id() const { return job_id_; }

 private:
  NewJob job_;
  std::string job_id_;
  std::filesystem::path dir_;
  ChunkOrder order_;
  Sha256 hash_;  // of every witness byte in order
  bool sealed_ = false;
  std::unique_ptr<util::AtomicFile> file_;
  bool kept_ = false;
};

}  // namespace splitprove::service::spool
