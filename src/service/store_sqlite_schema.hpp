#pragma once
// The SQLite job store's schema (docs/daemon.md) and its migrations.

namespace splitprove::service::sqlite_schema {

constexpr int kSchemaVersion = 2;

constexpr const char* kSchema = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL, applied_at INTEGER NOT NULL);
CREATE TABLE keys (
  key_id TEXT PRIMARY KEY CHECK (length(key_id) = 64),
  zkey_path TEXT NOT NULL, curve TEXT NOT NULL, log2_domain INTEGER NOT NULL,
  constraints INTEGER NOT NULL, variables INTEGER NOT NULL, public_signals INTEGER NOT NULL,
  file_bytes INTEGER NOT NULL, registered_at INTEGER NOT NULL);
CREATE TABLE jobs (
  job_id TEXT PRIMARY KEY,
  key_id TEXT NOT NULL REFERENCES keys (key_id),
  idempotency_key TEXT UNIQUE,
  fingerprint TEXT NOT NULL,
  priority INTEGER NOT NULL DEFAULT 0,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'cancelled')),
  partition_count INTEGER NOT NULL CHECK (partition_count > 0),
  spool_bytes INTEGER NOT NULL DEFAULT 0,
  error TEXT, created_at INTEGER NOT NULL, started_at INTEGER, finished_at INTEGER);
CREATE INDEX jobs_pending ON jobs (priority DESC, created_at) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_list ON jobs (created_at DESC, job_id DESC);
CREATE INDEX jobs_finished ON jobs (finished_at) WHERE finished_at IS NOT NULL;
CREATE TABLE partitions (
  job_id TEXT NOT NULL REFERENCES jobs (job_id) ON DELETE CASCADE, idx INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('queued', 'running', 'done', 'failed', 'dropped')),
  attempts INTEGER NOT NULL DEFAULT 0,
  lease_owner TEXT, witness_bytes INTEGER NOT NULL DEFAULT 0,
  proof_json TEXT, public_json TEXT, error TEXT, started_at INTEGER, finished_at INTEGER,
  PRIMARY KEY (job_id, idx)) WITHOUT ROWID;
CREATE INDEX partitions_open ON partitions (state, job_id) WHERE state IN ('queued', 'running');
)sql";

// Migrations: kMigrations[v - 2] takes a store of version v - 1 to version v, in one transaction.
constexpr const char* kMigrations[] = {
    // 2: keys of the built-in native circuit, and jobs of native partitions (a seed, no witnesses).
    R"sql(
ALTER TABLE keys ADD COLUMN native_log2 INTEGER;
CREATE UNIQUE INDEX keys_native ON keys (curve, native_log2) WHERE native_log2 IS NOT NULL;
ALTER TABLE jobs ADD COLUMN native_seed INTEGER;
)sql",
};

}  // namespace splitprove::service::sqlite_schema
