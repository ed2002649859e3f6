#include "service/sqlite.hpp"

#include <fmt/format.h>

#include "service/errors.hpp"

namespace splitprove::service {

Db::Db(const std::string& path) : path_(path) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_,
                                 SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
                                 nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    if (db_) sqlite3_close(db_);
    db_ = nullptr;
    throw StoreError(fmt::format("{}: cannot open the job store: {}", path, msg));
  }
  sqlite3_busy_timeout(db_, 5000);
  exec("PRAGMA journal_mode=WAL");
  exec("PRAGMA synchronous=FULL");
  exec("PRAGMA foreign_keys=ON");
}

Db::~Db() {
  if (db_) sqlite3_close_v2(db_);
}

void Db::fail(std::string_view what) const {
  throw StoreError(fmt::format("{}: job store: {}: {}", path_, what, sqlite3_errmsg(db_)));
}

void Db::exec(std::string_view sql) {
  char* err = nullptr;
  const std::string s(sql);
  if (sqlite3_exec(db_, s.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    std::string msg = err ? err : "unknown error";
    sqlite3_free(err);
    throw StoreError(fmt::format("{}: job store: {}: {}", path_, s.substr(0, 60), msg));
  }
}

Stmt::Stmt(Db& db, std::string_view sql) : db_(db) {
  if (sqlite3_prepare_v2(db.raw(), sql.data(), int(sql.size()), &st_, nullptr) != SQLITE_OK)
    db_.fail(fmt::format("preparing '{}'", sql.substr(0, 60)));
}

Stmt::~Stmt() { sqlite3_finalize(st_); }

Stmt& Stmt::bind(int i, std::int64_t v) {
  if (sqlite3_bind_int64(st_, i, v) != SQLITE_OK) db_.fail("bind");
  return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
  if (sqlite3_bind_text(st_, i, v.data(), int(v.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_.fail("bind");
  return *this;
}
Stmt& Stmt::bind(int i, const std::optional<std::string>& v) {
  return v ? bind(i, std::string_view(*v)) : bind_null(i);
}
Stmt& Stmt::bind_null(int i) {
  if (sqlite3_bind_null(st_, i) != SQLITE_OK) db_.fail("bind");
  return *this;
}

bool Stmt::step() {
  const int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  const std::string msg = sqlite3_errmsg(db_.raw());
  sqlite3_reset(st_);
  if ((rc & 0xff) == SQLITE_CONSTRAINT)
    throw ConstraintError(fmt::format("{}: job store: constraint: {}", db_.path(), msg));
  throw StoreError(fmt::format("{}: job store: {}", db_.path(), msg));
}

int Stmt::run() {
  while (step()) {
  }
  return sqlite3_changes(db_.raw());
}

void Stmt::reset() {
  sqlite3_reset(st_);
  sqlite3_clear_bindings(st_);
}

std::int64_t Stmt::i64(int col) const { return sqlite3_column_int64(st_, col); }
bool Stmt::is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(st_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(st_, col)) : "";
}
std::optional<std::string> Stmt::opt_text(int col) const {
  if (is_null(col)) return std::nullopt;
  return text(col);
}
std::optional<std::int64_t> Stmt::opt_i64(int col) const {
  if (is_null(col)) return std::nullopt;
  return i64(col);
}

Tx::Tx(Db& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }
Tx::~Tx() {
  if (!done_) sqlite3_exec(db_.raw(), "ROLLBACK", nullptr, nullptr, nullptr);
}
void Tx::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace splitprove::service
