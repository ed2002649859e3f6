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
#include "service/store_postgres_impl.hpp"

namespace splitprove::service {
namespace pg_store {

constexpr std::size_t kChunk = std::size_t(4) << 20;

void PgStore::migrate() {
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

std::optional<JobRecord> PgStore::find_idempotent(std::string_view key) {
  return pool_.run([&](Conn& c) -> std::optional<JobRecord> {
    auto r = c.exec(fmt::format("SELECT {} FROM jobs j WHERE j.idempotency_key = $1", kJobCols),
                    Params().add(key));
    if (r.rows() == 0) return std::nullopt;
    return read_job(Row{r, 0});
  });
}

std::unique_ptr<InputWriter> PgStore::create_job(const NewJob& job) {
  if (job.partitions == 0) throw Error("job store: a job needs at least one partition");
  if (job.native_seed ? !job.witness_bytes.empty() : job.witness_bytes.size() != job.partitions)
    throw Error("job store: a circom job has one witness per partition, a native job none");
  const std::string id = new_job_id();
  if (job.native_seed) return std::make_unique<PgInputWriter>(*this, job, id, fs::path());
  return std::make_unique<PgInputWriter>(*this, job, id, spool::make_job_dir(spool_, id));
}

// The job, its partitions and its witnesses (read from the writer's files) in one transaction.
std::pair<JobRecord, bool> PgStore::insert_job(const NewJob& job, const std::string& id, const InputWriter& w) {
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
    // The race's loser: the same submission is answered with the winner, another is refused.
    check_same_submission(*winner, job.fingerprint);
    return {*winner, false};
  }
  return {*get_job(id, false, false), true};
}

std::unique_ptr<LocalWitness> PgStore::open_witness(const Claim& cl) {
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

std::vector<Claim> PgStore::next_partitions(std::size_t n, std::string_view owner,
                                   const std::vector<std::string>& keys) {
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

JobStore::Committed PgStore::commit_partition_result(const Claim& cl, std::string_view proof, std::string_view pub) {
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

void PgStore::fail_job(Conn& c, const std::string& job_id, std::string_view error, Millis t) {
  c.exec("UPDATE jobs SET state = 'failed', error = $1, finished_at = $2 WHERE job_id = $3 AND "
         "state IN ('queued', 'running')",
         Params().add(error).add(t).add(job_id));
  c.exec("UPDATE partitions SET state = 'dropped', lease_owner = NULL, lease_until = NULL WHERE job_id = $1 AND "
         "state IN ('queued', 'running')",
         Params().add(job_id));
}

bool PgStore::fail_partition(const Claim& cl, std::string_view error, bool retryable) {
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

void PgStore::release(const Claim& cl) {
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

std::optional<JobRecord> PgStore::cancel_job(const std::string& job_id, std::string_view why) {
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

std::optional<JobRecord> PgStore::get_job(const std::string& job_id, bool with_partitions, bool with_results) {
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

JobPage PgStore::list_jobs(std::optional<JobState> state, std::size_t page_size, std::string_view token) {
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

std::pair<JobRecord, bool> PgInputWriter::commit() {
  return store_.insert_job(sealed(), job_id(), *this);
}

}  // namespace pg_store

std::unique_ptr<JobStore> open_postgres_store(const StoreConfig& cfg) {
  return std::make_unique<pg_store::PgStore>(cfg);
}

}  // namespace splitprove::service
