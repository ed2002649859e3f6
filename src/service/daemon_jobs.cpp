// The daemon's job intake and lookups: Submit (admission, the streamed witnesses checked as they
// land, the durable commit), Cancel, GetJob, ListJobs.
#include <fmt/format.h>

#include <limits>

#include "io/curve_id.hpp"
#include "io/wtns.hpp"
#include "service/daemon_parts.hpp"
#include "service/errors.hpp"
#include "service/log.hpp"
#include "service/store_shared.hpp"

namespace splitprove::service {

class SubmissionImpl final : public Submission {
 public:
  SubmissionImpl(Daemon& d, std::shared_ptr<Daemon::Loaded> key, std::unique_ptr<InputWriter> w,
                 std::uint64_t reserved)
      : d_(d), key_(std::move(key)), w_(std::move(w)), reserved_(reserved) {}
  ~SubmissionImpl() override {
    w_.reset();  // uncommitted: its files go
    std::lock_guard lk(d_.mu_);
    --d_.submits_in_progress_;
    d_.reserved_spool_ -= reserved_;
  }
  void append(std::uint32_t partition, std::uint64_t offset,
              std::span<const std::uint8_t> bytes) override {
    w_->append(partition, offset, bytes);
    // A partition that just landed is checked against the key (field, variable count) now, so a
    // wrong witness is refused before the rest is streamed.
    while (checked_ < w_->landed()) check(checked_++);
  }
  std::pair<JobRecord, bool> commit() override {
    auto r = w_->commit();
    if (r.second) d_.work_arrived();
    return r;
  }

 private:
  void check(std::uint32_t p) {
    const std::string path = w_->path_of(p);
    try {
      const ec::CurveId c = io::detect_curve(path);
      if (c != key_->curve)
        throw Error(fmt::format("the witness is for {} but key {} is for {}", ec::curve_name(c),
                                key_->rec.key_id, ec::curve_name(key_->curve)));
      // Every value checked, none kept: the file is mapped, not read into the heap (many
      // submissions at once must not hold their witnesses in memory outside the budget).
      ec::with_engine(c, [&](auto e) {
        io::validate_wtns<decltype(e)>(path, key_->rec.variables, "key " + key_->rec.key_id, "proving key");
      });
    } catch (const Error& e) {
      std::string msg = e.what();
      // The spool path means nothing to the client: name the partition instead.
      if (auto pos = msg.find(path); pos != std::string::npos) msg.replace(pos, path.size(), "witness");
      throw Error(fmt::format("partition {}: {}", p, msg));
    }
  }

  Daemon& d_;
  std::shared_ptr<Daemon::Loaded> key_;
  std::unique_ptr<InputWriter> w_;
  std::uint64_t reserved_;
  std::uint32_t checked_ = 0;
};

// A retry under a known idempotency key whose header matches its job's: the witnesses are read
// (order and sizes checked as for a new job) and hashed, not written; commit answers with that
// job when the bytes are the same, Conflict when they differ.
class RetrySubmission final : public Submission {
 public:
  RetrySubmission(JobRecord existing, std::string header_fingerprint, std::vector<std::uint64_t> sizes)
      : existing_(std::move(existing)), fp_(std::move(header_fingerprint)), sizes_(std::move(sizes)), order_(sizes_) {}
  void append(std::uint32_t partition, std::uint64_t offset, std::span<const std::uint8_t> bytes) override {
    order_.take(partition, offset, bytes.size());
    hash_.update(bytes);
  }
  std::pair<JobRecord, bool> commit() override {
    order_.require_complete();
    check_same_submission(existing_, sizes_.empty() ? fp_ : with_content_hash(fp_, hash_.hex()));
    return {existing_, false};
  }

 private:
  JobRecord existing_;
  std::string fp_;
  std::vector<std::uint64_t> sizes_;
  spool::ChunkOrder order_;
  spool::Sha256 hash_;
};

Daemon::Begin Daemon::begin_submit(const SubmitHeader& h) {
  if (!accepting_) throw Unavailable("the daemon is not accepting jobs (starting or stopping): retry");
  if (h.key_id.size() != 64) throw Error(fmt::format("key id '{}' is not 64 hex characters", echo(h.key_id)));
  if (h.idempotency_key.size() > 128)
    throw Error(fmt::format("idempotency key of {} characters: at most 128", h.idempotency_key.size()));
  for (char c : h.idempotency_key)
    if (c < 0x20 || c > 0x7e) throw Error("idempotency key: only printable ASCII characters");
  if (h.priority < -1000 || h.priority > 1000)
    throw Error(fmt::format("priority {}: -1000..1000", h.priority));
  const std::size_t n = h.partitions;
  if (n == 0) throw Error("a job needs at least one partition");
  if (n > cfg_.max_partitions_per_job)
    throw Error(fmt::format("{} partitions: at most max_partitions_per_job {}", n, cfg_.max_partitions_per_job));
  if (!h.native_seed && h.witness_bytes.size() != n)
    throw Error(fmt::format("{} partitions but {} witness sizes", n, h.witness_bytes.size()));
  // The declared sizes' sum saturates at 2^64 - 1 (each may be near 2^64 with an extreme
  // max_witness_bytes): a wrapped sum would pass the spool bound below.
  constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
  auto add = [&](std::uint64_t a, std::uint64_t b) { return a > kMax - b ? kMax : a + b; };
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < h.witness_bytes.size(); ++i) {
    if (h.witness_bytes[i] < 12 || h.witness_bytes[i] > cfg_.max_witness_bytes)
      throw Error(fmt::format("partition {}: a witness of {} bytes: 12..{} (max_witness_bytes)", i,
                              h.witness_bytes[i], cfg_.max_witness_bytes));
    total = add(total, h.witness_bytes[i]);
  }
  std::string fp = fmt::format("key={};priority={};partitions={};", h.key_id, h.priority, n);
  if (h.native_seed) fp += fmt::format("native_seed={}", *h.native_seed);
  else for (auto b : h.witness_bytes) fp += fmt::format("{},", b);
  if (!h.idempotency_key.empty()) {
    if (auto j = store_->find_idempotent(h.idempotency_key)) {
      // Another header is refused now; the same header is compared on its witnesses' bytes too,
      // once they have been read.
      check_same_submission(*j, fp, /*header_only=*/true);
      return {std::make_unique<RetrySubmission>(*j, fp, h.witness_bytes)};
    }
  }
  auto rec = store_->get_key(h.key_id);
  if (!rec) throw NotFound(fmt::format("no key {} is registered", h.key_id));
  if (h.native_seed && !rec->native_log2)
    throw Error(fmt::format("key {} was registered from {}: its jobs are circom witnesses, not native partitions",
                            h.key_id, rec->zkey_path));
  if (!h.native_seed && rec->native_log2)
    throw Error(fmt::format("key {} is the native circuit's (2^{}): its jobs are native partitions, not witnesses",
                            h.key_id, *rec->native_log2));
  if (h.native_seed && h.native_log2 && h.native_log2 != *rec->native_log2)
    throw Error(fmt::format("native log2_size {} but key {} is of 2^{}", h.native_log2, h.key_id, *rec->native_log2));
  auto key = load(h.key_id);
  {
    std::lock_guard lk(mu_);
    const auto c = store_->counts();
    const std::uint64_t pending = std::uint64_t(c.queued_jobs) + c.running_jobs + submits_in_progress_;
    if (pending >= cfg_.max_pending_jobs)
      throw Exhausted(fmt::format("pending jobs: {} of max_pending_jobs {}", pending, cfg_.max_pending_jobs));
    if (add(add(c.spool_bytes, reserved_spool_), total) > cfg_.max_spool_bytes)
      throw Exhausted(fmt::format("spool: {} bytes held and {} reserved; this job's {} would pass "
                                  "max_spool_bytes {}",
                                  c.spool_bytes, reserved_spool_, total, cfg_.max_spool_bytes));
    ++submits_in_progress_;
    reserved_spool_ += total;
  }
  NewJob job;
  job.key_id = h.key_id;
  if (!h.idempotency_key.empty()) job.idempotency_key = h.idempotency_key;
  job.fingerprint = fp;
  job.priority = h.priority;
  job.partitions = std::uint32_t(n);
  job.witness_bytes = h.witness_bytes;
  job.native_seed = h.native_seed;
  std::unique_ptr<InputWriter> w;
  try {
    w = store_->create_job(job);
  } catch (...) {
    std::lock_guard lk(mu_);
    --submits_in_progress_;
    reserved_spool_ -= total;
    throw;
  }
  return {std::make_unique<SubmissionImpl>(*this, key, std::move(w), total)};
}

// ---------------------------------------------------------------- jobs

JobRecord Daemon::cancel(const std::string& job_id, const std::string& reason) {
  const auto before = store_->get_job(job_id, false, false);
  auto j = store_->cancel_job(job_id, reason);
  if (!j) throw NotFound(fmt::format("no job {}", job_id));
  if (before && before->state != JobState::cancelled) {
    std::lock_guard lk(mu_);
    ++jobs_cancelled_;
  }
  std::vector<std::function<void()>> cancels;
  {
    std::lock_guard lk(mu_);
    for (auto& [k, r] : running_)
      if (k.job_id == job_id && !r.cancelled) {
        r.cancelled = true;
        if (r.cancel) cancels.push_back(r.cancel);
      }
  }
  for (auto& c : cancels) c();
  changed(job_id);
  job_ended(job_id);
  if (before && before->state != JobState::cancelled)  // a second Cancel changes nothing
    log_event(spdlog::level::info, "job_cancelled", {{"job", job_id}, {"reason", reason}});
  return *j;
}

std::optional<JobRecord> Daemon::get_job(const std::string& job_id, bool with_results) {
  return store_->get_job(job_id, true, with_results);
}

JobPage Daemon::list_jobs(std::optional<JobState> state, std::size_t page_size,
                          const std::string& token) {
  return store_->list_jobs(state, page_size, token);
}

}  // namespace splitprove::service
