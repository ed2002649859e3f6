// The job store on SQLite (WAL, synchronous FULL) with the witness spool beside it.
#include "service/store.hpp"

#include <fmt/format.h>

#include <filesystem>

#include "service/errors.hpp"
#include "service/sqlite.hpp"
#include "service/store_shared.hpp"
#include "service/store_sqlite_schema.hpp"

namespace splitprove::service {
namespace fs = std::filesystem;

namespace {
using sqlite_schema::kMigrations;
using sqlite_schema::kSchema;
using sqlite_schema::kSchemaVersion;
using namespace store_sql;

class SqliteStore;

class SqliteInputWriter final : public spool::Writer {
 public:
  SqliteInputWriter(SqliteStore& store, NewJob job, std::string job_id, fs::path dir)
      : spool::Writer(std::move(job), std::move(job_id), std::move(dir)), store_(store) {}
  std::pair<JobRecord, bool> commit() override;

 private:
  SqliteStore& store_;
};

class SqliteStore final : public JobStore {
 public:
  explicit SqliteStore(const StoreConfig& cfg)
      : cfg_(cfg),
        spool_(spool::prepare(cfg)),
        db_((fs::path(cfg.state_dir) / "splitprove.db").string()) {
    migrate();
  }

  void migrate() {
    std::lock_guard lk(mu_);
    Stmt has(db_, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='schema_version'");
    has.step();
    if (has.i64(0) == 0) {
      Tx tx(db_);
      db_.exec(kSchema);
      Stmt ins(db_, "INSERT INTO schema_version VALUES (1, ?)");
      ins.bind(1, now_ms()).run();
      tx.commit();
    }
    Stmt v(db_, "SELECT max(version) FROM schema_version");
    v.step();
    auto version = v.i64(0);
    if (version > kSchemaVersion)
      throw Error(fmt::format("{}: the job store has schema version {}, newer than this binary's {}: "
                              "run the newer splitprove, or point state_dir elsewhere",
                              db_.path(), version, kSchemaVersion));
    for (; version < kSchemaVersion; ++version) {
      Tx tx(db_);
      db_.exec(kMigrations[version - 1]);
      Stmt ins(db_, "INSERT INTO schema_version VALUES (?, ?)");
      ins.bind(1, std::int64_t(version + 1)).bind(2, now_ms()).run();
      tx.commit();
    }
  }

  fs::path job_dir(const std::string& job_id) const { return spool_ / job_id; }
  std::unique_ptr<LocalWitness> open_witness(const Claim& c) override {
    auto path = (job_dir(c.job_id) / fmt::format("{}.wtns", c.index)).string();
    std::error_code ec;
    if (!fs::is_regular_file(path, ec))
      throw Error(fmt::format("{}: the witness of job {} partition {} is not in the spool", path, c.job_id, c.index));
    return std::make_unique<LocalWitness>(std::move(path), false);
  }

  std::optional<JobRecord> find_idempotent(std::string_view key) override {
    std::lock_guard lk(mu_);
    Stmt q(db_, fmt::format("SELECT {} FROM jobs j WHERE j.idempotency_key = ?", kJobCols));
    q.bind(1, key);
    if (!q.step()) return std::nullopt;
    return read_job(q);
  }

  std::unique_ptr<InputWriter> create_job(const NewJob& job) override {
    if (job.partitions == 0) throw Error("job store: a job needs at least one partition");
    if (job.native_seed ? !job.witness_bytes.empty() : job.witness_bytes.size() != job.partitions)
      throw Error("job store: a circom job has one witness per partition, a native job none");
    const std::string id = new_job_id();
    if (job.native_seed) return std::make_unique<SqliteInputWriter>(*this, job, id, fs::path());
    return std::make_unique<SqliteInputWriter>(*this, job, id, spool::make_job_dir(spool_, id));
  }

  std::pair<JobRecord, bool> insert_job(const NewJob& job, const std::string& id) {
    std::unique_lock lk(mu_);
    std::uint64_t total = 0;
    for (auto b : job.witness_bytes) total += b;
    try {
      Tx tx(db_);
      Stmt ins(db_,
               "INSERT INTO jobs (job_id, key_id, idempotency_key, fingerprint, priority, state, "
               "partition_count, spool_bytes, created_at, native_seed) VALUES (?, ?, ?, ?, ?, 'queued', "
               "?, ?, ?, ?)");
      ins.bind(1, id).bind(2, job.key_id).bind(3, job.idempotency_key).bind(4, job.fingerprint);
      ins.bind(5, std::int64_t(job.priority)).bind(6, std::int64_t(job.partitions));
      ins.bind(7, std::int64_t(total)).bind(8, now_ms());
      if (job.native_seed) ins.bind(9, std::int64_t(*job.native_seed)); else ins.bind_null(9);
      ins.run();
      Stmt part(db_, "INSERT INTO partitions (job_id, idx, state, witness_bytes) VALUES (?, ?, 'queued', ?)");
      for (std::size_t i = 0; i < job.partitions; ++i) {
        part.reset();
        const auto bytes = i < job.witness_bytes.size() ? job.witness_bytes[i] : 0;
        part.bind(1, id).bind(2, std::int64_t(i)).bind(3, std::int64_t(bytes)).run();
      }
      tx.commit();
    } catch (const ConstraintError&) {
      if (!job.idempotency_key) throw;
      lk.unlock();
      auto winner = find_idempotent(*job.idempotency_key);
      if (!winner) throw;
      // The race's loser: the same submission is answered with the winner, another is refused.
      check_same_submission(*winner, job.fingerprint);
      return {*winner, false};
    }
    lk.unlock();
    return {*get_job(id, false, false), true};
  }

  std::vector<Claim> next_partitions(std::size_t n, std::string_view owner,
                                     const std::vector<std::string>& keys) override {
    std::lock_guard lk(mu_);
    std::vector<Claim> out;
    if (n == 0 || keys.empty()) return out;
    Tx tx(db_);
    std::string in = "?";
    for (std::size_t i = 1; i < keys.size(); ++i) in += ", ?";
    Stmt q(db_, fmt::format("SELECT p.job_id, p.idx, j.key_id, p.attempts, j.native_seed FROM partitions p "
                            "JOIN jobs j USING (job_id) WHERE p.state = 'queued' AND j.state IN ('queued', "
                            "'running') AND j.key_id IN ({}) ORDER BY j.priority DESC, j.created_at, j.job_id, "
                            "p.idx LIMIT ?",
                            in));
    for (std::size_t i = 0; i < keys.size(); ++i) q.bind(int(i + 1), keys[i]);
    q.bind(int(keys.size() + 1), std::int64_t(n));
    while (q.step()) {
      Claim c{q.text(0), std::uint32_t(q.i64(1)), std::uint32_t(q.i64(3)) + 1, q.text(2), std::nullopt};
      if (auto seed = q.opt_i64(4)) c.native_seed = std::uint64_t(*seed);
      out.push_back(std::move(c));
    }
    const Millis t = now_ms();
    Stmt up(db_,
            "UPDATE partitions SET state = 'running', attempts = attempts + 1, lease_owner = ?, "
            "started_at = ?, error = NULL WHERE job_id = ? AND idx = ?");
    Stmt job(db_,
             "UPDATE jobs SET state = 'running', started_at = coalesce(started_at, ?) "
             "WHERE job_id = ? AND state = 'queued'");
    for (auto& c : out) {
      up.reset();
      up.bind(1, owner).bind(2, t).bind(3, c.job_id).bind(4, std::int64_t(c.index)).run();
      job.reset();
      job.bind(1, t).bind(2, c.job_id).run();
    }
    tx.commit();
    owner_ = owner;
    return out;
  }

  // Inside a transaction: does claim c still hold?
  bool holds(const Claim& c) {
    Stmt q(db_, "SELECT state, attempts, lease_owner FROM partitions WHERE job_id = ? AND idx = ?");
    q.bind(1, c.job_id).bind(2, std::int64_t(c.index));
    if (!q.step()) return false;
    return q.text(0) == "running" && std::uint32_t(q.i64(1)) == c.attempt && q.text(2) == owner_;
  }

  Committed commit_partition_result(const Claim& c, std::string_view proof,
                                    std::string_view pub) override {
    std::lock_guard lk(mu_);
    Tx tx(db_);
    if (!holds(c)) return {};
    const Millis t = now_ms();
    Stmt up(db_,
            "UPDATE partitions SET state = 'done', proof_json = ?, public_json = ?, finished_at = ?, "
            "lease_owner = NULL WHERE job_id = ? AND idx = ?");
    up.bind(1, proof).bind(2, pub).bind(3, t).bind(4, c.job_id).bind(5, std::int64_t(c.index)).run();
    Stmt left(db_, "SELECT count(*) FROM partitions WHERE job_id = ? AND state <> 'done'");
    left.bind(1, c.job_id);
    left.step();
    const bool last = left.i64(0) == 0;
    if (last) {
      Stmt job(db_, "UPDATE jobs SET state = 'succeeded', finished_at = ? WHERE job_id = ?");
      job.bind(1, t).bind(2, c.job_id).run();
    }
    tx.commit();
    return {true, last};
  }

  void fail_job_locked(const std::string& job_id, std::string_view error, Millis t) {
    Stmt job(db_,
             "UPDATE jobs SET state = 'failed', error = ?, finished_at = ? WHERE job_id = ? AND "
             "state IN ('queued', 'running')");
    job.bind(1, error).bind(2, t).bind(3, job_id).run();
    Stmt drop(db_,
              "UPDATE partitions SET state = 'dropped', lease_owner = NULL WHERE job_id = ? AND "
              "state IN ('queued', 'running')");
    drop.bind(1, job_id).run();
  }

  bool fail_partition(const Claim& c, std::string_view error, bool retryable) override {
    std::lock_guard lk(mu_);
    Tx tx(db_);
    if (!holds(c)) return false;
    const Millis t = now_ms();
    if (retryable && c.attempt < cfg_.max_attempts) {
      Stmt up(db_,
              "UPDATE partitions SET state = 'queued', lease_owner = NULL, error = ? WHERE job_id = ? "
              "AND idx = ?");
      up.bind(1, error).bind(2, c.job_id).bind(3, std::int64_t(c.index)).run();
    } else {
      Stmt up(db_,
              "UPDATE partitions SET state = 'failed', lease_owner = NULL, error = ?, finished_at = ? "
              "WHERE job_id = ? AND idx = ?");
      up.bind(1, error).bind(2, t).bind(3, c.job_id).bind(4, std::int64_t(c.index)).run();
      fail_job_locked(c.job_id, fmt::format("partition {}: {}", c.index, error), t);
    }
    tx.commit();
    return true;
  }

  void release(const Claim& c) override {
    std::lock_guard lk(mu_);
    Tx tx(db_);
    if (!holds(c)) return;
    Stmt up(db_,
            "UPDATE partitions SET state = 'queued', lease_owner = NULL, attempts = attempts - 1 "
            "WHERE job_id = ? AND idx = ?");
    up.bind(1, c.job_id).bind(2, std::int64_t(c.index)).run();
    tx.commit();
  }

  std::optional<JobRecord> cancel_job(const std::string& job_id, std::string_view why) override {
    {
      std::lock_guard lk(mu_);
      Tx tx(db_);
      Stmt q(db_, "SELECT state FROM jobs WHERE job_id = ?");
      q.bind(1, job_id);
      if (!q.step()) return std::nullopt;
      const JobState s = job_state_from(q.text(0));
      if (s == JobState::succeeded || s == JobState::failed)
        throw Conflict(fmt::format("job {} already {}: only a queued or running job can be cancelled",
                                   job_id, to_string(s)));
      if (s != JobState::cancelled) {
        const Millis t = now_ms();
        Stmt up(db_, "UPDATE jobs SET state = 'cancelled', error = ?, finished_at = ? WHERE job_id = ?");
        up.bind(1, why.empty() ? std::string("cancelled") : fmt::format("cancelled: {}", why));
        up.bind(2, t).bind(3, job_id).run();
        Stmt drop(db_,
                  "UPDATE partitions SET state = 'dropped', lease_owner = NULL WHERE job_id = ? AND "
                  "state IN ('queued', 'running')");
        drop.bind(1, job_id).run();
      }
      tx.commit();
    }
    return get_job(job_id, true, false);
  }

  std::optional<JobRecord> get_job(const std::string& job_id, bool with_partitions,
                                   bool with_results) override {
    std::lock_guard lk(mu_);
    Stmt q(db_, fmt::format("SELECT {} FROM jobs j WHERE j.job_id = ?", kJobCols));
    q.bind(1, job_id);
    if (!q.step()) return std::nullopt;
    JobRecord j = read_job(q);
    if (with_partitions || with_results) {
      Stmt p(db_,
             fmt::format("SELECT idx, state, attempts, started_at, finished_at, error, witness_bytes{} "
                         "FROM partitions WHERE job_id = ? ORDER BY idx",
                         with_results ? ", proof_json, public_json" : ""));
      p.bind(1, job_id);
      while (p.step()) {
        j.partitions.push_back(read_partition(p, with_results));
      }
    }
    return j;
  }

  JobPage list_jobs(std::optional<JobState> state, std::size_t page_size,
                    std::string_view token) override {
    const PageToken after = PageToken::parse(state, token);
    std::lock_guard lk(mu_);
    std::string sql = fmt::format("SELECT {} FROM jobs j WHERE 1", kJobCols);
    if (state) sql += " AND j.state = ?1";
    if (!token.empty()) sql += " AND (j.created_at < ?2 OR (j.created_at = ?2 AND j.job_id < ?3))";
    sql += " ORDER BY j.created_at DESC, j.job_id DESC LIMIT ?4";
    Stmt q(db_, sql);
    if (state) q.bind(1, std::string_view(to_string(*state)));
    if (!token.empty()) q.bind(2, after.created_at).bind(3, after.job_id);
    q.bind(4, std::int64_t(page_size + 1));
    JobPage page;
    while (q.step()) page.jobs.push_back(read_job(q));
    PageToken::cut(page, state, page_size);
    return page;
  }

  RecoveryReport recover() override {
    std::lock_guard lk(mu_);
    RecoveryReport r;
    const Millis t = now_ms();
    {
      Tx tx(db_);
      Stmt q(db_, "SELECT job_id, idx, attempts FROM partitions WHERE state = 'running'");
      std::vector<std::tuple<std::string, std::int64_t, std::int64_t>> running;
      while (q.step()) running.emplace_back(q.text(0), q.i64(1), q.i64(2));
      for (const auto& [job, idx, attempts] : running) {
        if (std::uint32_t(attempts) >= cfg_.max_attempts) {
          const std::string why =
              fmt::format("the daemon stopped {} times while proving it (max_attempts {})", attempts,
                          cfg_.max_attempts);
          Stmt up(db_,
                  "UPDATE partitions SET state = 'failed', lease_owner = NULL, error = ?, "
                  "finished_at = ? WHERE job_id = ? AND idx = ?");
          up.bind(1, why).bind(2, t).bind(3, job).bind(4, idx).run();
          fail_job_locked(job, fmt::format("partition {}: {}", idx, why), t);
          ++r.failed;
        } else {
          Stmt up(db_,
                  "UPDATE partitions SET state = 'queued', lease_owner = NULL WHERE job_id = ? AND idx = ?");
          up.bind(1, job).bind(2, idx).run();
          ++r.requeued;
        }
      }
      tx.commit();
    }
    // The spool: only directories of jobs whose inputs are kept stay, and in them only witnesses.
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(spool_, ec)) {
      const std::string name = e.path().filename().string();
      Stmt q(db_, "SELECT partition_count, spool_bytes FROM jobs WHERE job_id = ?");
      q.bind(1, name);
      const bool keep = e.is_directory() && q.step() && q.i64(1) > 0;
      if (!keep) {
        fs::remove_all(e.path(), ec);
        ++r.spool_removed;
        continue;
      }
      const auto n = q.i64(0);
      for (const auto& f : fs::directory_iterator(e.path(), ec)) {
        const std::string fn = f.path().filename().string();
        bool ok = false;
        if (fn.size() > 5 && fn.ends_with(".wtns") && fn[0] != '.') {
          try {
            std::size_t used = 0;
            const long long p = std::stoll(fn.substr(0, fn.size() - 5), &used);
            ok = used == fn.size() - 5 && p >= 0 && p < n;
          } catch (...) {
          }
        }
        if (!ok) {
          fs::remove_all(f.path(), ec);
          ++r.temporaries_removed;
        }
      }
    }
    if (r.spool_removed || r.temporaries_removed) spool::fsync_dir(spool_);
    return r;
  }

  CollectReport collect(Millis inputs_before, Millis jobs_before) override {
    CollectReport r;
    std::vector<std::string> inputs;
    {
      std::lock_guard lk(mu_);
      Stmt q(db_, "SELECT job_id FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ? AND spool_bytes > 0");
      q.bind(1, inputs_before);
      while (q.step()) inputs.push_back(q.text(0));
    }
    for (const auto& id : inputs) {
      std::error_code ec;
      fs::remove_all(job_dir(id), ec);  // files first: a crash between leaves a job without inputs
      std::lock_guard lk(mu_);
      Stmt up(db_, "UPDATE jobs SET spool_bytes = 0 WHERE job_id = ?");
      up.bind(1, id).run();
      ++r.inputs_removed;
    }
    if (!inputs.empty()) spool::fsync_dir(spool_);
    std::lock_guard lk(mu_);
    Tx tx(db_);
    Stmt del(db_, "DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < ? AND spool_bytes = 0");
    del.bind(1, jobs_before);
    r.jobs_deleted = std::uint32_t(del.run());
    tx.commit();
    return r;
  }

  Counts counts() override {
    std::lock_guard lk(mu_);
    Counts c;
    Stmt j(db_, "SELECT state, count(*) FROM jobs WHERE state IN ('queued', 'running') GROUP BY state");
    while (j.step()) (j.text(0) == "queued" ? c.queued_jobs : c.running_jobs) = std::uint32_t(j.i64(1));
    Stmt p(db_, "SELECT state, count(*) FROM partitions WHERE state IN ('queued', 'running') GROUP BY state");
    while (p.step())
      (p.text(0) == "queued" ? c.queued_partitions : c.running_partitions) = std::uint32_t(p.i64(1));
    Stmt s(db_, "SELECT coalesce(sum(spool_bytes), 0) FROM jobs");
    s.step();
    c.spool_bytes = std::uint64_t(s.i64(0));
    return c;
  }

  void put_key(const KeyRecord& k) override {
    std::lock_guard lk(mu_);
    Stmt q(db_,
           "INSERT OR IGNORE INTO keys (key_id, zkey_path, curve, log2_domain, constraints, variables, "
           "public_signals, file_bytes, registered_at, native_log2) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    q.bind(1, k.key_id).bind(2, k.zkey_path).bind(3, k.curve).bind(4, std::int64_t(k.log2_domain));
    q.bind(5, std::int64_t(k.constraints)).bind(6, std::int64_t(k.variables));
    q.bind(7, std::int64_t(k.public_signals)).bind(8, std::int64_t(k.file_bytes));
    q.bind(9, k.registered_at);
    if (k.native_log2) q.bind(10, std::int64_t(*k.native_log2)); else q.bind_null(10);
    q.run();
  }

  std::optional<KeyRecord> get_native_key(std::string_view curve, std::uint32_t log2) override {
    std::lock_guard lk(mu_);
    Stmt q(db_, fmt::format("SELECT {} FROM keys WHERE curve = ? AND native_log2 = ?", kKeyCols));
    q.bind(1, curve).bind(2, std::int64_t(log2));
    if (!q.step()) return std::nullopt;
    return read_key(q);
  }

  std::optional<KeyRecord> get_key(const std::string& key_id) override {
    std::lock_guard lk(mu_);
    Stmt q(db_, fmt::format("SELECT {} FROM keys WHERE key_id = ?", kKeyCols));
    q.bind(1, key_id);
    if (!q.step()) return std::nullopt;
    return read_key(q);
  }

  std::vector<KeyRecord> list_keys() override {
    std::lock_guard lk(mu_);
    Stmt q(db_, fmt::format("SELECT {} FROM keys ORDER BY registered_at, key_id", kKeyCols));
    std::vector<KeyRecord> out;
    while (q.step()) out.push_back(read_key(q));
    return out;
  }

  HeartbeatReport heartbeat(const Heartbeat&) override { return {}; }  // one daemon: no leases
  void leave(std::string_view) override {}
  ClusterView cluster() override {
    ClusterView v;
    v.store = (fs::path(cfg_.state_dir) / "splitprove.db").string();
    std::lock_guard lk(mu_);
    Stmt q(db_, kQueuesSql);
    while (q.step()) v.queues.push_back({q.text(0), std::uint32_t(q.i64(1)), std::uint32_t(q.i64(2))});
    return v;
  }

 private:
  StoreConfig cfg_;
  fs::path spool_;
  std::mutex mu_;  // one transaction at a time on the one connection
  Db db_;
  std::string owner_;
};

std::pair<JobRecord, bool> SqliteInputWriter::commit() {
  auto r = store_.insert_job(sealed(), job_id());
  if (r.second) keep();  // not created: ours is removed by the destructor
  return r;
}

}  // namespace

std::unique_ptr<JobStore> open_sqlite_store(const StoreConfig& cfg) {
  return std::make_unique<SqliteStore>(cfg);
}

}  // namespace splitprove::service
