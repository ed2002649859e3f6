#pragma once
// A thin RAII layer over SQLite's C API for the job store: one connection (Db), prepared
// statements (Stmt) with typed binds and columns, and transactions (Tx, rolled back unless
// committed). Every failure is an Error naming the database file and SQLite's message.
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace splitprove::service {

class Db;

class Stmt {
 public:
  Stmt(Db& db, std::string_view sql);
  ~Stmt();
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Binds are 1-based, as in SQLite.
  Stmt& bind(int i, std::int64_t v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const std::optional<std::string>& v);
  Stmt& bind_null(int i);
  // true: a row is ready; false: done. SQLITE_CONSTRAINT is reported as ConstraintError.
  bool step();
  // step() to the end (for statements without rows); returns sqlite3_changes().
  int run();
  void reset();

  std::int64_t i64(int col) const;
  std::string text(int col) const;  // "" for NULL
  std::optional<std::string> opt_text(int col) const;
  std::optional<std::int64_t> opt_i64(int col) const;
  bool is_null(int col) const;

 private:
  Db& db_;
  sqlite3_stmt* st_ = nullptr;
};

class Db {
 public:
  // Opens (creating) the database at `path` with WAL, synchronous FULL, foreign keys and a busy
  // timeout.
  explicit Db(const std::string& path);
  ~Db();
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  void exec(std::string_view sql);
  sqlite3* raw() { return db_; }
  const std::string& path() const { return path_; }
  [[noreturn]] void fail(std::string_view what) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

// A write transaction (BEGIN IMMEDIATE); rolled back by the destructor unless commit() ran.
class Tx {
 public:
  explicit Tx(Db& db);
  ~Tx();
  Tx(const Tx&) = delete;
  Tx& operator=(const Tx&) = delete;
  void commit();

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace splitprove::service
