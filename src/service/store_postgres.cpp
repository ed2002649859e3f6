// The job store on PostgreSQL (docs/cluster.md): one database that several daemons share.
//
// Coordination is the database's: a daemon claims partitions one statement at a time with
// FOR UPDATE SKIP LOCKED under READ COMMITTED, each claim under a lease (owner, attempt,
// lease_until on the database's clock) that its owner renews in its heartbeat. Any daemon's
// heartbeat queues again the partitions whose leases expired (or fails them when their attempts
// are spent). Every final write locks the job's row, then checks that the claim still holds, so a
// daemon that was presumed dead cannot overwrite the result of the claim that replaced its own,
// and the commit of a job's last partition sees every other partition's commit.
//
// Witnesses stream into a local directory as in the SQLite store, then go into witness_chunks
// (bytea, 4 MiB a row) in the job's own transaction; a claim fetches its partition's chunks into
// a local file for the time it reads it.
#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <mutex>

#include "service/errors.hpp"
#include "service/pg.hpp"
#include "service/store.hpp"
#include "service/store_postgres_schema.hpp"
#include "service/store_shared.hpp"

namespace splitprove::service {
namespace fs = std::filesystem;

namespace {
using namespace store_sql;
using pg::Conn;
using pg::Params;
using pg_schema::kNowMs;

constexpr std::size_t kChunk = std::size_t(4) << 20;

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

  void migrate() {
    pool_.run([&](Conn& c) {
      pg::Tx tx(c);
      c.exec(fmt::format("SELECT pg_advisory_xact_lock({})", pg_schema::kMigrationLock));
      if (c.exec("SELECT to_regclass('splitprove_schema') IS NULL").text(0, 0) == "t") {
        c.script(pg_schema::kSchema);
        c.exec("INSERT INTO splitprove_schema VALUES (1, $1)", Params().add(now_ms()));
      }
      auto version = c.exec("SELECT max(version) FROM splitprove_schema").i64(0, 0);
      if (version > pg_schema::kSchemaVersion)
        throw Error(fmt::format("job store {}: the schema has version {}, newer than this binary's {}: "
                                "run the newer splitprove, or point the store elsewhere",
                                c.name(), version, pg_schema::kSchemaVersion));
      for (; version < pg_schema::kSchemaVersion; ++version) {
        c.script(pg_schema::kMigrations[version - 1]);
        c.exec("INSERT INTO splitprove_schema VALUES ($1, $2)", Params().add(version + 1).add(now_ms()));
      }
      tx.commit();
      name_ = c.name();
    });
  }

  // ---- jobs in

  std::optional<JobRecord> find_idempotent(std::string_view key) override {
    return pool_.run([&](Conn& c) -> std::optional<JobRecord> {
      auto r = c.exec(fmt::format("SELECT {} FROM jobs j WHERE j.idempotency_key = $1", kJobCols),
                      Params().add(key));
      if (r.rows() == 0) return std::nullopt;
      return read_job(Row{r, 0});
    });
  }

  std::unique_ptr<InputWriter> create_job(const NewJob& job) override {
    if (job.partitions == 0) throw Error("job store: a job needs at least one partition");
    if (job.native_seed ? !job.witness_bytes.empty() : job.witness_bytes.size() != job.partitions)
      throw Error("job store: a circom job has one witness per partition, a native job none");
    const std::string id = new_job_id();
    if (job.native_seed) return std::make_unique<PgInputWriter>(*this, job, id, fs::path());
    return std::make_unique<PgInputWriter>(*this, job, id, spool::make_job_dir(spool_, id));
  }

  // The job, its partitions and its witnesses (read from the writer's files) in one transaction.
  std::pair<JobRecord, bool> insert_job(const NewJob& job, const std::string& id, const InputWriter& w) {
    std::uint64_t total = 0;
    for (auto b : job.witness_bytes) total += b;
    try {
      pool_.run([&](Conn& c) {
        pg::Tx tx(c);
        // Run again after a lost COMMIT: the job may be in already.
        if (c.exec("SELECT 1 FROM jobs WHERE job_id = $1", Params().add(id)).rows() == 1) return;
        c.exec("INSERT INTO jobs (job_id, key_id, idempotency_key, fingerprint, priority, state, "
               "partition_count, spool_bytes, created_at, native_seed, submitted_by) VALUES ($1, $2, $3, $4, $5, "
               "'queued', $6, $7, $8, $9, $10)",
               Params()
                   .add(id).add(job.key_id).add(job.idempotency_key).add(job.fingerprint)
                   .add(std::int64_t(job.priority)).add(std::int64_t(job.partitions))
                   .add(std::int64_t(total)).add(now_ms())
                   .add(job.native_seed ? std::optional<std::int64_t>(std::int64_t(*job.native_seed)) : std::nullopt)
                   .add(owner().empty() ? host_name() : owner()));
        std::vector<std::string> bytes;
        for (std::size_t i = 0; i < job.partitions; ++i)
          bytes.push_back(std::to_string(i < job.witness_bytes.size() ? job.witness_bytes[i] : 0));
        c.exec("INSERT INTO partitions (job_id, idx, state, witness_bytes) SELECT $1, (t.i - 1)::int, 'queued', "
               "t.w FROM unnest($2::bigint[]) WITH ORDINALITY AS t(w, i)",
               Params().add(id).add_array(bytes));
        std::vector<std::uint8_t> buf;
        for (std::uint32_t p = 0; p < job.witness_bytes.size(); ++p) {
          const std::string path = w.path_of(p);
          std::ifstream in(path, std::ios::binary);
          if (!in) throw StoreError(fmt::format("{}: cannot open the landed witness", path));
          std::uint64_t left = job.witness_bytes[p];
          for (std::int64_t seq = 0; left > 0; ++seq) {
            buf.resize(std::size_t(std::min<std::uint64_t>(left, kChunk)));
            in.read(reinterpret_cast<char*>(buf.data()), std::streamsize(buf.size()));
            if (std::size_t(in.gcount()) != buf.size())
              throw StoreError(fmt::format("{}: the landed witness is shorter than declared", path));
            c.exec("INSERT INTO witness_chunks (job_id, idx, seq, data) VALUES ($1, $2, $3, $4)",
                   Params().add(id).add(std::int64_t(p)).add(seq).add_bytes(buf));
            left -= buf.size();
          }
        }
        tx.commit();
      });
    } catch (const ConstraintError&) {
      if (!job.idempotency_key) throw;
      auto winner = find_idempotent(*job.idempotency_key);
      if (!winner) throw;
      return {*winner, false};
    }
    return {*get_job(id, false, false), true};
  }

  std::unique_ptr<LocalWitness> open_witness(const Claim& cl) override {
    const std::uint64_t want = pool_.run([&](Conn& c) {
      auto r = c.exec("SELECT p.witness_bytes, j.spool_bytes FROM partitions p JOIN jobs j ON j.job_id = p.job_id "
                      "WHERE p.job_id = $1 AND p.idx = $2",
                      Params().add(cl.job_id).add(std::int64_t(cl.index)));
      if (r.rows() == 0) throw NotFound(fmt::format("job {} has no partition {}", cl.job_id, cl.index));
      if (r.i64(0, 1) == 0)
        throw Error(fmt::format("the inputs of job {} were removed from the store", cl.job_id));
      return std::uint64_t(r.i64(0, 0));
    });
    const fs::path path = spool_ / "claims" / fmt::format("{}-{}-{}.wtns", cl.job_id, cl.index, cl.attempt);
    auto out = std::make_unique<LocalWitness>(path.string(), true);  // removed on any exit
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) throw StoreError(fmt::format("{}: cannot create the witness's local copy", path.string()));
    std::uint64_t have = 0;
    for (std::int64_t seq = 0; have < want; ++seq) {
      const bool got = pool_.run([&](Conn& c) {
        auto r = c.exec("SELECT data FROM witness_chunks WHERE job_id = $1 AND idx = $2 AND seq = $3",
                        Params().add(cl.job_id).add(std::int64_t(cl.index)).add(seq), /*binary=*/true);
        if (r.rows() == 0) return false;
        const auto b = r.bytes(0, 0);
        f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
        have += b.size();
        return true;
      });
      if (!got) break;
    }
    f.close();
    if (!f || have != want)
      throw Error(fmt::format("the witness of job {} partition {}: {} of its {} bytes are in the store",
                              cl.job_id, cl.index, have, want));
    return out;
  }

  // ---- claims

  std::vector<Claim> next_partitions(std::size_t n, std::string_view owner,
                                     const std::vector<std::string>& keys) override {
    if (n == 0 || keys.empty()) return {};
    set_owner(owner);
    return pool_.run([&](Conn& c) {
      pg::Tx tx(c);
      const Millis t = now_ms();
      auto r = c.exec(fmt::format(
                          "WITH c AS (SELECT p.job_id, p.idx FROM partitions p JOIN jobs j ON j.job_id = p.job_id "
                          "WHERE p.state = 'queued' AND j.state IN ('queued', 'running') AND j.key_id = ANY($1::text[]) "
                          "ORDER BY j.priority DESC, j.created_at, j.job_id, p.idx LIMIT $2 FOR UPDATE OF p SKIP LOCKED), "
                          "u AS (UPDATE partitions p SET state = 'running', attempts = p.attempts + 1, lease_owner = $3, "
                          "lease_until = {} + $4, started_at = $5, error = NULL FROM c WHERE p.job_id = c.job_id AND "
                          "p.idx = c.idx AND p.state = 'queued' RETURNING p.job_id, p.idx, p.attempts) "
                          "SELECT u.job_id, u.idx, u.attempts, j.key_id, j.native_seed FROM u JOIN jobs j ON "
                          "j.job_id = u.job_id ORDER BY j.priority DESC, j.created_at, j.job_id, u.idx",
                          kNowMs),
                      Params().add_array(keys).add(std::int64_t(n)).add(owner).add(std::int64_t(cfg_.lease_ms)).add(t));
      std::vector<Claim> out;
      std::vector<std::string> jobs;
      for (int i = 0; i < r.rows(); ++i) {
        Claim cl{r.text(i, 0), std::uint32_t(r.i64(i, 1)), std::uint32_t(r.i64(i, 2)), r.text(i, 3), std::nullopt};
        if (auto seed = r.opt_i64(i, 4)) cl.native_seed = std::uint64_t(*seed);
        if (jobs.empty() || jobs.back() != cl.job_id) jobs.push_back(cl.job_id);
        out.push_back(std::move(cl));
      }
      if (!jobs.empty())
        c.exec("UPDATE jobs SET state = 'running', started_at = coalesce(started_at, $1) WHERE job_id = ANY($2::text[]) "
               "AND state = 'queued'",
               Params().add(t).add_array(jobs));
      tx.commit();
      return out;
    });
  }

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

  Committed commit_partition_result(const Claim& cl, std::string_view proof, std::string_view pub) override {
    bool again = false;  // run again after a lost connection: our COMMIT may have landed
    return pool_.run([&](Conn& c) -> Committed {
      pg::Tx tx(c);
      const auto l = lock(c, cl);
      if (!l) return {};
      if (again && l->state == "done" && l->done_by == done_by(cl))  // it did
        return {true, l->job_state == "succeeded" && l->job_finished_at == l->finished_at};
      again = true;
      if (!holds(*l, cl)) return {};
      const Millis t = now_ms();
      c.exec("UPDATE partitions SET state = 'done', proof_json = $1, public_json = $2, finished_at = $3, "
             "lease_owner = NULL, lease_until = NULL, done_by = $4 WHERE job_id = $5 AND idx = $6",
             Params().add(proof).add(pub).add(t).add(done_by(cl)).add(cl.job_id).add(std::int64_t(cl.index)));
      const bool last =
          c.exec("SELECT count(*) FROM partitions WHERE job_id = $1 AND state <> 'done'", Params().add(cl.job_id))
              .i64(0, 0) == 0;
      if (last)
        c.exec("UPDATE jobs SET state = 'succeeded', finished_at = $1 WHERE job_id = $2",
               Params().add(t).add(cl.job_id));
      tx.commit();
      return {true, last};
    });
  }

  static void fail_job(Conn& c, const std::string& job_id, std::string_view error, Millis t) {
    c.exec("UPDATE jobs SET state = 'failed', error = $1, finished_at = $2 WHERE job_id = $3 AND "
           "state IN ('queued', 'running')",
           Params().add(error).add(t).add(job_id));
    c.exec("UPDATE partitions SET state = 'dropped', lease_owner = NULL, lease_until = NULL WHERE job_id = $1 AND "
           "state IN ('queued', 'running')",
           Params().add(job_id));
  }

  bool fail_partition(const Claim& cl, std::string_view error, bool retryable) override {
    return pool_.run([&](Conn& c) {
      pg::Tx tx(c);
      const auto l = lock(c, cl);
      if (!l || !holds(*l, cl)) return false;
      const Millis t = now_ms();
      const Params where = Params().add(cl.job_id).add(std::int64_t(cl.index));
      if (retryable && cl.attempt < cfg_.max_attempts) {
        c.exec("UPDATE partitions SET state = 'queued', lease_owner = NULL, lease_until = NULL, error = $3 "
               "WHERE job_id = $1 AND idx = $2",
               Params(where).add(error));
      } else {
        c.exec("UPDATE partitions SET state = 'failed', lease_owner = NULL, lease_until = NULL, error = $3, "
               "finished_at = $4 WHERE job_id = $1 AND idx = $2",
               Params(where).add(error).add(t));
        fail_job(c, cl.job_id, fmt::format("partition {}: {}", cl.index, error), t);
      }
      tx.commit();
      return true;
    });
  }

  void release(const Claim& cl) override {
    pool_.run([&](Conn& c) {
      pg::Tx tx(c);
      const auto l = lock(c, cl);
      if (!l || !holds(*l, cl)) return;
      c.exec("UPDATE partitions SET state = 'queued', lease_owner = NULL, lease_until = NULL, "
             "attempts = attempts - 1 WHERE job_id = $1 AND idx = $2",
             Params().add(cl.job_id).add(std::int64_t(cl.index)));
      tx.commit();
    });
  }

  // ---- jobs out

  std::optional<JobRecord> cancel_job(const std::string& job_id, std::string_view why) override {
    const bool known = pool_.run([&](Conn& c) {
      pg::Tx tx(c);
      auto q = c.exec("SELECT state FROM jobs WHERE job_id = $1 FOR UPDATE", Params().add(job_id));
      if (q.rows() == 0) return false;
      const JobState s = job_state_from(q.text(0, 0));
      if (s == JobState::succeeded || s == JobState::failed)
        throw Conflict(fmt::format("job {} already {}: only a queued or running job can be cancelled", job_id,
                                   to_string(s)));
      if (s != JobState::cancelled) {
        c.exec("UPDATE jobs SET state = 'cancelled', error = $1, finished_at = $2 WHERE job_id = $3",
               Params()
                   .add(why.empty() ? std::string("cancelled") : fmt::format("cancelled: {}", why))
                   .add(now_ms()).add(job_id));
        c.exec("UPDATE partitions SET state = 'dropped', lease_owner = NULL, lease_until = NULL WHERE job_id = $1 "
               "AND state IN ('queued', 'running')",
               Params().add(job_id));
      }
      tx.commit();
      return true;
    });
    if (!known) return std::nullopt;
    return get_job(job_id, true, false);
  }

  std::optional<JobRecord> get_job(const std::string& job_id, bool with_partitions, bool with_results) override {
    return pool_.run([&](Conn& c) -> std::optional<JobRecord> {
      auto q = c.exec(fmt::format("SELECT {} FROM jobs j WHERE j.job_id = $1", kJobCols), Params().add(job_id));
      if (q.rows() == 0) return std::nullopt;
      JobRecord j = read_job(Row{q, 0});
      if (with_partitions || with_results) {
        auto p = c.exec(fmt::format("SELECT idx, state, attempts, started_at, finished_at, error, witness_bytes{} "
                                    "FROM partitions WHERE job_id = $1 ORDER BY idx",
                                    with_results ? ", proof_json, public_json" : ""),
                        Params().add(job_id));
        for (int i = 0; i < p.rows(); ++i) j.partitions.push_back(read_partition(Row{p, i}, with_results));
      }
      return j;
    });
  }

  JobPage list_jobs(std::optional<JobState> state, std::size_t page_size, std::string_view token) override {
    const PageToken after = PageToken::parse(state, token);
    return pool_.run([&](Conn& c) {
      Params p;
      std::string sql = fmt::format("SELECT {} FROM jobs j WHERE TRUE", kJobCols);
      if (state) {
        p.add(to_string(*state));
        sql += fmt::format(" AND j.state = ${}", p.size());
      }
      if (!token.empty()) {
        p.add(after.created_at).add(after.job_id);
        sql += fmt::format(" AND (j.created_at < ${0} OR (j.created_at = ${0} AND j.job_id < ${1}))", p.size() - 1,
                           p.size());
      }
      p.add(std::int64_t(page_size + 1));
      sql += fmt::format(" ORDER BY j.created_at DESC, j.job_id DESC LIMIT ${}", p.size());
      auto q = c.exec(sql, p);
      JobPage page;
      for (int i = 0; i < q.rows(); ++i) page.jobs.push_back(read_job(Row{q, i}));
      PageToken::cut(page, state, page_size);
      return page;
    });
  }

  // ---- upkeep

  RecoveryReport recover() override {
    // Other daemons' claims are theirs: only expired leases are taken back (by reap), and only
    // this daemon's local files go.
    RecoveryReport r;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(spool_, ec)) {
      if (e.path().filename() == "claims") {
        for (const auto& f : fs::directory_iterator(e.path(), ec)) {
          fs::remove_all(f.path(), ec);
          ++r.temporaries_removed;
        }
        continue;
      }
      fs::remove_all(e.path(), ec);
      ++r.spool_removed;
    }
    const auto h = reap();
    r.requeued = h.requeued;
    r.failed = h.failed;
    return r;
  }

  HeartbeatReport reap() {
    HeartbeatReport h;
    pool_.run([&](Conn& c) {
      h = {};
      pg::Tx tx(c);
      auto q = c.exec(fmt::format("SELECT job_id, idx, attempts, lease_owner FROM partitions WHERE state = 'running' "
                                  "AND lease_until < {} ORDER BY job_id, idx LIMIT 256 FOR UPDATE SKIP LOCKED",
                                  kNowMs));
      const Millis t = now_ms();
      for (int i = 0; i < q.rows(); ++i) {
        const std::string job = q.text(i, 0), who = q.text(i, 3);
        const std::int64_t idx = q.i64(i, 1), attempts = q.i64(i, 2);
        if (std::uint32_t(attempts) >= cfg_.max_attempts) {
          const std::string why = fmt::format("its lease expired {} times (last held by {}; max_attempts {})",
                                              attempts, who, cfg_.max_attempts);
          c.exec("UPDATE partitions SET state = 'failed', lease_owner = NULL, lease_until = NULL, error = $1, "
                 "finished_at = $2 WHERE job_id = $3 AND idx = $4",
                 Params().add(why).add(t).add(job).add(idx));
          fail_job(c, job, fmt::format("partition {}: {}", idx, why), t);
          ++h.failed;
        } else {
          c.exec("UPDATE partitions SET state = 'queued', lease_owner = NULL, lease_until = NULL, error = $1 "
                 "WHERE job_id = $2 AND idx = $3",
                 Params().add(fmt::format("the lease of {} expired", who)).add(job).add(idx));
          ++h.requeued;
        }
      }
      tx.commit();
    });
    return h;
  }

  HeartbeatReport heartbeat(const Heartbeat& hb) override {
    set_owner(hb.owner);
    std::uint32_t renewed = 0;
    pool_.run([&](Conn& c) {
      pg::Tx tx(c);
      c.exec(fmt::format("INSERT INTO daemons (owner, host, listen, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, "
                         "{0}) ON CONFLICT (owner) DO UPDATE SET heartbeat_at = {0}, listen = EXCLUDED.listen",
                         kNowMs),
             Params().add(hb.owner).add(hb.host).add(hb.listen).add(hb.started_at));
      renewed = 0;
      if (!hb.held.empty()) {
        std::vector<std::string> jobs, idx, att;
        for (const auto& cl : hb.held) {
          jobs.push_back(cl.job_id);
          idx.push_back(std::to_string(cl.index));
          att.push_back(std::to_string(cl.attempt));
        }
        renewed = std::uint32_t(
            c.exec(fmt::format("UPDATE partitions p SET lease_until = {} + $1 FROM unnest($2::text[], $3::int[], "
                               "$4::int[]) AS h(job_id, idx, attempt) WHERE p.job_id = h.job_id AND p.idx = h.idx AND "
                               "p.attempts = h.attempt AND p.state = 'running' AND p.lease_owner = $5",
                               kNowMs),
                   Params().add(std::int64_t(cfg_.lease_ms)).add_array(jobs).add_array(idx).add_array(att).add(hb.owner))
                .affected());
      }
      // Daemons silent for an hour are forgotten (the status shows them as not alive until then).
      c.exec(fmt::format("DELETE FROM daemons WHERE heartbeat_at < {} - 3600000", kNowMs));
      tx.commit();
    });
    auto h = reap();
    h.renewed = renewed;
    return h;
  }

  void leave(std::string_view owner) override {
    pool_.run([&](Conn& c) { c.exec("DELETE FROM daemons WHERE owner = $1", Params().add(owner)); });
  }

  ClusterView cluster() override {
    return pool_.run([&](Conn& c) {
      ClusterView v;
      v.shared = true;
      v.store = name_;
      auto d = c.exec(fmt::format("SELECT d.owner, d.host, d.listen, d.started_at, d.heartbeat_at, "
                                  "(SELECT count(*) FROM partitions p WHERE p.state = 'running' AND p.lease_owner = "
                                  "d.owner), d.heartbeat_at >= {} - 2 * $1 FROM daemons d ORDER BY d.started_at, d.owner",
                                  kNowMs),
                      Params().add(std::int64_t(cfg_.lease_ms)));
      for (int i = 0; i < d.rows(); ++i)
        v.daemons.push_back({d.text(i, 0), d.text(i, 1), d.text(i, 2), d.i64(i, 3), d.i64(i, 4),
                             std::uint32_t(d.i64(i, 5)), d.text(i, 6) == "t"});
      auto q = c.exec(kQueuesSql);
      for (int i = 0; i < q.rows(); ++i)
        v.queues.push_back({q.text(i, 0), std::uint32_t(q.i64(i, 1)), std::uint32_t(q.i64(i, 2))});
      return v;
    });
  }

  CollectReport collect(Millis inputs_before, Millis jobs_before) override {
    return pool_.run([&](Conn& c) {
      CollectReport r;
      pg::Tx tx(c);
      auto ids = c.exec("UPDATE jobs SET spool_bytes = 0 WHERE finished_at IS NOT NULL AND finished_at < $1 AND "
                        "spool_bytes > 0 RETURNING job_id",
                        Params().add(inputs_before));
      std::vector<std::string> jobs;
      for (int i = 0; i < ids.rows(); ++i) jobs.push_back(ids.text(i, 0));
      if (!jobs.empty())
        c.exec("DELETE FROM witness_chunks WHERE job_id = ANY($1::text[])", Params().add_array(jobs));
      r.inputs_removed = std::uint32_t(jobs.size());
      r.jobs_deleted = std::uint32_t(
          c.exec("DELETE FROM jobs WHERE finished_at IS NOT NULL AND finished_at < $1 AND spool_bytes = 0",
                 Params().add(jobs_before))
              .affected());
      tx.commit();
      return r;
    });
  }

  Counts counts() override {
    return pool_.run([&](Conn& c) {
      Counts n;
      auto j = c.exec("SELECT state, count(*) FROM jobs WHERE state IN ('queued', 'running') GROUP BY state");
      for (int i = 0; i < j.rows(); ++i)
        (j.text(i, 0) == "queued" ? n.queued_jobs : n.running_jobs) = std::uint32_t(j.i64(i, 1));
      auto p = c.exec("SELECT state, count(*) FROM partitions WHERE state IN ('queued', 'running') GROUP BY state");
      for (int i = 0; i < p.rows(); ++i)
        (p.text(i, 0) == "queued" ? n.queued_partitions : n.running_partitions) = std::uint32_t(p.i64(i, 1));
      n.spool_bytes = std::uint64_t(c.exec("SELECT coalesce(sum(spool_bytes), 0) FROM jobs").i64(0, 0));
      return n;
    });
  }

  // ---- keys

  void put_key(const KeyRecord& k) override {
    pool_.run([&](Conn& c) {
      c.exec("INSERT INTO keys (key_id, zkey_path, curve, log2_domain, constraints, variables, public_signals, "
             "file_bytes, registered_at, native_log2) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) "
             "ON CONFLICT DO NOTHING",
             Params()
                 .add(k.key_id).add(k.zkey_path).add(k.curve).add(std::int64_t(k.log2_domain))
                 .add(std::int64_t(k.constraints)).add(std::int64_t(k.variables)).add(std::int64_t(k.public_signals))
                 .add(std::int64_t(k.file_bytes)).add(k.registered_at)
                 .add(k.native_log2 ? std::optional<std::int64_t>(*k.native_log2) : std::nullopt));
    });
  }

  std::optional<KeyRecord> one_key(std::string_view where, const Params& p) {
    return pool_.run([&](Conn& c) -> std::optional<KeyRecord> {
      auto q = c.exec(fmt::format("SELECT {} FROM keys WHERE {}", kKeyCols, where), p);
      if (q.rows() == 0) return std::nullopt;
      return read_key(Row{q, 0});
    });
  }
  std::optional<KeyRecord> get_key(const std::string& key_id) override {
    return one_key("key_id = $1", Params().add(key_id));
  }
  std::optional<KeyRecord> get_native_key(std::string_view curve, std::uint32_t log2) override {
    return one_key("curve = $1 AND native_log2 = $2", Params().add(curve).add(std::int64_t(log2)));
  }
  std::vector<KeyRecord> list_keys() override {
    return pool_.run([&](Conn& c) {
      auto q = c.exec(fmt::format("SELECT {} FROM keys ORDER BY registered_at, key_id", kKeyCols));
      std::vector<KeyRecord> out;
      for (int i = 0; i < q.rows(); ++i) out.push_back(read_key(Row{q, i}));
      return out;
    });
  }

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

std::pair<JobRecord, bool> PgInputWriter::commit() {
  require_complete();
  return store_.insert_job(job(), job_id(), *this);
}

}  // namespace

std::unique_ptr<JobStore> open_postgres_store(const StoreConfig& cfg) { return std::make_unique<PgStore>(cfg); }

}  // namespace splitprove::service
