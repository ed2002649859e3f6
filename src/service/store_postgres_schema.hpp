#pragma once
// The PostgreSQL job store's schema (docs/cluster.md) and its migrations. Written for PostgreSQL
// 15 and kept to what YugabyteDB's YSQL also runs (no large objects: witnesses are bytea chunks;
// claims are FOR UPDATE SKIP LOCKED under READ COMMITTED).
//
// Times are Unix milliseconds. Leases and heartbeats use the database's clock (kNowMs), so the
// hosts' clocks need not agree; a job's created/started/finished times are the daemon's.

namespace splitprove::service::pg_schema {

constexpr int kSchemaVersion = 2;

// Held (pg_advisory_xact_lock) while the schema is created or migrated, so daemons that start
// together do it once.
constexpr long long kMigrationLock = 0x73706c69747072LL;  // "splitpr"

constexpr const char* kNowMs = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

constexpr const char* kSchema = R"sql(
CREATE TABLE splitprove_schema (version INTEGER NOT NULL, applied_at BIGINT NOT NULL);
CREATE TABLE keys (
  key_id TEXT PRIMARY KEY CHECK (length(key_id) = 64),
  zkey_path TEXT NOT NULL, curve TEXT NOT NULL, log2_domain INTEGER NOT NULL,
  constraints BIGINT NOT NULL, variables BIGINT NOT NULL, public_signals INTEGER NOT NULL,
  file_bytes BIGINT NOT NULL, registered_at BIGINT NOT NULL, native_log2 INTEGER);
CREATE UNIQUE INDEX keys_native ON keys (curve, native_log2) WHERE native_log2 IS NOT NULL;
CREATE TABLE jobs (
  job_id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES keys (key_id),
  idempotency_key TEXT UNIQUE,
  fingerprint TEXT NOT NULL,
  priority INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  partition_count INTEGER NOT NULL CHECK (partition_count > 0),
  spool_bytes BIGINT NOT NULL DEFAULT 0,
  native_seed BIGINT,
  submitted_by TEXT NOT NULL,
  error TEXT, created_at BIGINT NOT NULL, started_at BIGINT, finished_at BIGINT);
CREATE INDEX jobs_pending ON jobs (priority DESC, created_at) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_list ON jobs (created_at DESC, job_id DESC);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE TABLE partitions (
  job_id TEXT NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE, idx INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'dropped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT, lease_until BIGINT,
  witness_bytes BIGINT NOT NULL DEFAULT 0,
  proof_json TEXT, public_json TEXT, error TEXT, started_at BIGINT, finished_at BIGINT,
  done_by TEXT,
  PRIMARY KEY (job_id, idx));
CREATE INDEX partitions_open ON partitions (state, job_id) WHERE state IN ('queued', 'running');
CREATE INDEX partitions_leases ON partitions (lease_until) WHERE state = 'running';
CREATE TABLE witness_chunks (
  job_id TEXT NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE, idx INTEGER NOT NULL,
  seq INTEGER NOT NULL, data BYTEA NOT NULL,
  PRIMARY KEY (job_id, idx, seq));
CREATE TABLE daemons (
  owner TEXT PRIMARY KEY, host TEXT NOT NULL, listen TEXT NOT NULL,
  started_at BIGINT NOT NULL, heartbeat_at BIGINT NOT NULL);
)sql";

// Migrations: kMigrations[v - 2] takes a store of version v - 1 to version v, in one transaction.
constexpr const char* kMigrations[] = {
    // 2: witness chunks are stored as they are, not compressed (field elements do not compress;
    // the attempt only costs time on every insert).
    "ALTER TABLE witness_chunks ALTER COLUMN data SET STORAGE EXTERNAL",
};

}  // namespace splitprove::service::pg_schema
