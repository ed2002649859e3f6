#pragma once
// The PostgreSQL job store's class (service/store_postgres.cpp: the store, jobs in, claims and
// results, jobs out; service/store_postgres_upkeep.cpp: recovery, heartbeats and leases, the
// cluster view, collection, counts and keys). Internal to the service layer: the daemon opens it
// through open_store (service/store.hpp).
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "service/errors.hpp"
#include "service/pg.hpp"
#include "service/store.hpp"
#include "service/store_postgres_schema.hpp"
#include "service/store_shared.hpp"

namespace splitprove::service::pg_store {
namespace fs = std::filesystem;
using namespace store_sql;
using pg::Conn;
using pg::Params;
using pg_schema::kNowMs;

// One row of a result, read like SQLite's Stmt (store_sql's readers take either).
struct Row {
  const pg::Result& r;
  int i;
  std::string text(int c) const { return r.text(i, c); }
  std::optional<std::string> opt_text(int c) const { return r.opt_text(i, c); }
  std::int64_t i64(int c) const { return r.i64(i, c); }
  std::optional<std::int64_t> opt_i64(int c) const { return r.opt_i64(i, c); }
};

class PgStore;

class PgInputWriter final : public spool::Writer {
 public:
  PgInputWriter(PgStore& store, NewJob job, std::string job_id, fs::path dir)
      : spool::Writer(std::move(job), std::move(job_id), std::move(dir)), store_(store) {}
  std::pair<JobRecord, bool> commit() override;  // the files go into the database; ours are removed

 private:
  PgStore& store_;
};

class PgStore final : public JobStore {
 public:
  explicit PgStore(const StoreConfig& cfg)
      : cfg_(cfg),
        spool_(local_spool(cfg)),
        pool_(cfg.url, 16, std::chrono::milliseconds(cfg.reconnect_ms)) {
    migrate();
  }

  static fs::path local_spool(const StoreConfig& cfg) {
    const fs::path spool = spool::prepare(cfg);
    std::error_code ec;
    fs::create_directories(spool / "claims", ec);
    if (ec) throw Error(fmt::format("{}: cannot create the spool directory: {}", (spool / "claims").string(), ec.message()));
    return spool;
  }

  void migrate();

  // ---- jobs in

  std::optional<JobRecord> find_idempotent(std::string_view key) override;

  std::unique_ptr<InputWriter> create_job(const NewJob& job) override;

  // The job, its partitions and its witnesses (read from the writer's files) in one transaction.
  std::pair<JobRecord, bool> insert_job(const NewJob& job, const std::string& id, const InputWriter& w);

  std::unique_ptr<LocalWitness> open_witness(const Claim& cl) override;

  // ---- claims

  std::vector<Claim> next_partitions(std::size_t n, std::string_view owner,
                                     const std::vector<std::string>& keys) override;

  // Inside a transaction: locks the job's row, then the partition's. The partition's state,
  // attempts, owner, done_by and finished_at; nullopt for an unknown partition.
  struct Locked {
    std::string state, owner, done_by;
    std::uint32_t attempts = 0;
    std::optional<Millis> finished_at;
    std::string job_state;
    std::optional<Millis> job_finished_at;
  };
  std::optional<Locked> lock(Conn& c, const Claim& cl) {
    auto j = c.exec("SELECT state, finished_at FROM jobs WHERE job_id = $1 FOR UPDATE", Params().add(cl.job_id));
    if (j.rows() == 0) return std::nullopt;
    auto p = c.exec("SELECT state, attempts, lease_owner, done_by, finished_at FROM partitions WHERE job_id = $1 "
                    "AND idx = $2 FOR UPDATE",
                    Params().add(cl.job_id).add(std::int64_t(cl.index)));
    if (p.rows() == 0) return std::nullopt;
    return Locked{p.text(0, 0), p.text(0, 2), p.text(0, 3), std::uint32_t(p.i64(0, 1)), p.opt_i64(0, 4),
                  j.text(0, 0), j.opt_i64(0, 1)};
  }
  bool holds(const Locked& l, const Claim& cl) const {
    return l.state == "running" && l.attempts == cl.attempt && l.owner == owner();
  }
  std::string done_by(const Claim& cl) const { return fmt::format("{}#{}", owner(), cl.attempt); }

  Committed commit_partition_result(const Claim& cl, std::string_view proof, std::string_view pub) override;

  static void fail_job(Conn& c, const std::string& job_id, std::string_view error, Millis t);

  bool fail_partition(const Claim& cl, std::string_view error, bool retryable) override;

  void release(const Claim& cl) override;

  // ---- jobs out

  std::optional<JobRecord> cancel_job(const std::string& job_id, std::string_view why) override;

  std::optional<JobRecord> get_job(const std::string& job_id, bool with_partitions, bool with_results) override;

  JobPage list_jobs(std::optional<JobState> state, std::size_t page_size, std::string_view token) override;

  // ---- upkeep

  RecoveryReport recover() override;

  HeartbeatReport reap();

  HeartbeatReport heartbeat(const Heartbeat& hb) override;

  void leave(std::string_view owner) override;

  ClusterView cluster() override;

  CollectReport collect(Millis inputs_before, Millis jobs_before) override;

  Counts counts() override;

  // ---- keys

  void put_key(const KeyRecord& k) override;

  std::optional<KeyRecord> one_key(std::string_view where, const Params& p) {
    return pool_.run([&](Conn& c) -> std::optional<KeyRecord> {
      auto q = c.exec(fmt::format("SELECT {} FROM keys WHERE {}", kKeyCols, where), p);
      if (q.rows() == 0) return std::nullopt;
      return read_key(Row{q, 0});
    });
  }
  std::optional<KeyRecord> get_key(const std::string& key_id) override;
  std::optional<KeyRecord> get_native_key(std::string_view curve, std::uint32_t log2) override;
  std::vector<KeyRecord> list_keys() override;

 private:
  void set_owner(std::string_view o) {
    std::lock_guard lk(owner_mu_);
    if (owner_ != o) owner_ = o;
  }
  std::string owner() const {
    std::lock_guard lk(owner_mu_);
    return owner_;
  }

  StoreConfig cfg_;
  fs::path spool_;
  pg::Pool pool_;
  std::string name_;
  mutable std::mutex owner_mu_;
  std::string owner_;  // set by the first claim or heartbeat (one daemon per store object)
};

}  // namespace splitprove::service::pg_store
