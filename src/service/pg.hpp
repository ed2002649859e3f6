#pragma once
// A thin layer over libpq for the PostgreSQL job store: one connection (Conn) with parameterised
// statements (Params: text values, binary bytea), results with typed columns (Result),
// transactions (Tx, rolled back unless committed) and a bounded pool of connections that
// reconnects with backoff (Pool::run).
//
// Errors: a lost connection or a server that is shutting down or starting is Unavailable (the
// connection is dropped, and Pool::run retries the whole transaction until its patience runs out);
// a deadlock or serialization failure is retried at once (a few times); a unique violation is
// ConstraintError; anything else is StoreError naming the database and the server's message.
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "service/errors.hpp"

struct pg_conn;
struct pg_result;

namespace splitprove::service::pg {

// A transaction to run again from its start (deadlock, serialization failure).
struct Retry : StoreError {
  using StoreError::StoreError;
};

class Params {
 public:
  Params& add(std::int64_t v);
  Params& add(std::string_view v);
  Params& add(const std::string& v) { return add(std::string_view(v)); }
  Params& add(const char* v) { return add(std::string_view(v)); }
  Params& add(const std::optional<std::string>& v);
  Params& add(const std::optional<std::int64_t>& v);
  Params& add_null();
  // A bytea value, sent in binary.
  Params& add_bytes(std::span<const std::uint8_t> b);
  // A text[] value ({"a","b"}): elements must not hold quotes or backslashes (ids, hex).
  Params& add_array(const std::vector<std::string>& v);

  int size() const { return int(values_.size()); }

 private:
  friend class Conn;
  std::vector<std::string> values_;
  std::vector<bool> null_;
  std::vector<int> binary_;
};

class Result {
 public:
  explicit Result(pg_result* r) : r_(r) {}
  ~Result();
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result& operator=(Result&&) = delete;
  Result(const Result&) = delete;

  int rows() const;
  std::int64_t affected() const;  // rows changed by an INSERT / UPDATE / DELETE
  bool is_null(int row, int col) const;
  std::string text(int row, int col) const;  // "" for NULL
  std::optional<std::string> opt_text(int row, int col) const;
  std::int64_t i64(int row, int col) const;
  std::optional<std::int64_t> opt_i64(int row, int col) const;
  // A column of a binary result (exec(..., binary = true)).
  std::span<const std::uint8_t> bytes(int row, int col) const;

 private:
  pg_result* r_;
};

class Conn {
 public:
  // Connects (Unavailable naming the server when it cannot).
  explicit Conn(const std::string& url);
  ~Conn();
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;

  Result exec(std::string_view sql, const Params& p = {}, bool binary = false);
  // Several statements without parameters (a schema).
  void script(std::string_view sql);
  bool broken() const { return broken_; }
  const std::string& name() const { return name_; }

 private:
  [[noreturn]] void fail(pg_result* r, std::string_view sql);
  pg_conn* c_ = nullptr;
  std::string name_;  // "postgresql database D at H:P" (no password)
  bool broken_ = false;
};

class Tx {
 public:
  explicit Tx(Conn& c);  // BEGIN (READ COMMITTED)
  ~Tx();
  Tx(const Tx&) = delete;
  Tx& operator=(const Tx&) = delete;
  void commit();

 private:
  Conn& c_;
  bool done_ = false;
};

// The URL with any password replaced by "***" (for logs and errors).
std::string redact(std::string_view url);

class Pool {
 public:
  // At most `max` connections; a call that finds the server gone waits for it with backoff
  // (100 ms doubling to 2 s) for up to `patience`, then throws Unavailable.
  Pool(std::string url, std::size_t max, std::chrono::milliseconds patience);
  ~Pool();

  // Runs f(Conn&) on a pooled connection; again from the start on a fresh one after a lost
  // connection or a deadlock. f must be a whole transaction (or read only).
  template <class F>
  auto run(F&& f) -> decltype(f(std::declval<Conn&>())) {
    for (Attempt a(*this);; a.next()) {
      auto lease = a.connection();
      if (!lease) continue;
      try {
        if constexpr (std::is_void_v<decltype(f(std::declval<Conn&>()))>) {
          f(*lease);
          give_back(std::move(lease));
          return;
        } else {
          auto out = f(*lease);
          give_back(std::move(lease));
          return out;
        }
      } catch (const Retry&) {
        a.retry_now();
        give_back(std::move(lease));
      } catch (const Unavailable& e) {
        a.lost(e.what());  // the connection is dropped with `lease`
      }
    }
  }

  const std::string& url() const { return url_; }
  // Reconnections since start (for the logs and the status).
  std::uint64_t reconnects() const;

 private:
  class Attempt {
   public:
    explicit Attempt(Pool& p);
    std::unique_ptr<Conn> connection();  // null: the server could not be reached (wait, retry)
    void next();                          // sleeps for the backoff when the last try failed
    void lost(std::string why);
    void retry_now();

   private:
    Pool& p_;
    std::chrono::steady_clock::time_point until_;
    std::chrono::milliseconds backoff_{100};
    int retries_ = 0;
    bool wait_ = false;
    std::string why_;
  };
  std::unique_ptr<Conn> take();
  void give_back(std::unique_ptr<Conn> c);

  std::string url_;
  std::size_t max_;
  std::chrono::milliseconds patience_;
  mutable std::mutex mu_;
  std::vector<std::unique_ptr<Conn>> idle_;
  std::uint64_t reconnects_ = 0;
};

}  // namespace splitprove::service::pg
