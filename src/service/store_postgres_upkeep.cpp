// The PostgreSQL job store's upkeep (service/store_postgres_impl.hpp): recovery at start, the
// heartbeat that renews this daemon's leases and takes expired ones back, the cluster view,
// collection of finished jobs and old inputs, counts, and the key records.
#include "service/store_postgres_impl.hpp"

namespace splitprove::service::pg_store {

RecoveryReport PgStore::recover() {
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

HeartbeatReport PgStore::reap() {
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

HeartbeatReport PgStore::heartbeat(const Heartbeat& hb) {
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

void PgStore::leave(std::string_view owner) {
  pool_.run([&](Conn& c) { c.exec("DELETE FROM daemons WHERE owner = $1", Params().add(owner)); });
}

ClusterView PgStore::cluster() {
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

CollectReport PgStore::collect(Millis inputs_before, Millis jobs_before) {
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

Counts PgStore::counts() {
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

void PgStore::put_key(const KeyRecord& k) {
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

std::optional<KeyRecord> PgStore::get_key(const std::string& key_id) {
  return one_key("key_id = $1", Params().add(key_id));
}

std::optional<KeyRecord> PgStore::get_native_key(std::string_view curve, std::uint32_t log2) {
  return one_key("curve = $1 AND native_log2 = $2", Params().add(curve).add(std::int64_t(log2)));
}

std::vector<KeyRecord> PgStore::list_keys() {
  return pool_.run([&](Conn& c) {
    auto q = c.exec(fmt::format("SELECT {} FROM keys ORDER BY registered_at, key_id", kKeyCols));
    std::vector<KeyRecord> out;
    for (int i = 0; i < q.rows(); ++i) out.push_back(read_key(Row{q, i}));
    return out;
  });
}

}  // namespace splitprove::service::pg_store
