// libpq under the PostgreSQL job store (service/pg.hpp).
#include "service/pg.hpp"

#include <libpq-fe.h>

#include <fmt/format.h>

#include <cstring>
#include <thread>

namespace splitprove::service::pg {

// ---------------------------------------------------------------- Params

Params& Params::add(std::int64_t v) {
  values_.push_back(std::to_string(v));
  null_.push_back(false);
  binary_.push_back(0);
  return *this;
}
Params& Params::add(std::string_view v) {
  values_.emplace_back(v);
  null_.push_back(false);
  binary_.push_back(0);
  return *this;
}
Params& Params::add(const std::optional<std::string>& v) { return v ? add(*v) : add_null(); }
Params& Params::add(const std::optional<std::int64_t>& v) { return v ? add(*v) : add_null(); }
Params& Params::add_null() {
  values_.emplace_back();
  null_.push_back(true);
  binary_.push_back(0);
  return *this;
}
Params& Params::add_bytes(std::span<const std::uint8_t> b) {
  values_.emplace_back(reinterpret_cast<const char*>(b.data()), b.size());
  null_.push_back(false);
  binary_.push_back(1);
  return *this;
}
Params& Params::add_array(const std::vector<std::string>& v) {
  std::string s = "{";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i].find_first_of("\"\\{},") != std::string::npos)
      throw StoreError(fmt::format("text[] element '{}' holds a reserved character", v[i]));
    s += (i ? ",\"" : "\"") + v[i] + "\"";
  }
  return add(std::string_view(s += "}"));
}

// ---------------------------------------------------------------- Result

Result::~Result() {
  if (r_) PQclear(r_);
}
int Result::rows() const { return PQntuples(r_); }
std::int64_t Result::affected() const {
  const char* s = PQcmdTuples(r_);
  return s && *s ? std::stoll(s) : 0;
}
bool Result::is_null(int row, int col) const { return PQgetisnull(r_, row, col) != 0; }
std::string Result::text(int row, int col) const {
  if (is_null(row, col)) return {};
  return std::string(PQgetvalue(r_, row, col), std::size_t(PQgetlength(r_, row, col)));
}
std::optional<std::string> Result::opt_text(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return text(row, col);
}
std::int64_t Result::i64(int row, int col) const {
  if (is_null(row, col)) return 0;
  return std::stoll(PQgetvalue(r_, row, col));
}
std::optional<std::int64_t> Result::opt_i64(int row, int col) const {
  if (is_null(row, col)) return std::nullopt;
  return i64(row, col);
}
std::span<const std::uint8_t> Result::bytes(int row, int col) const {
  return {reinterpret_cast<const std::uint8_t*>(PQgetvalue(r_, row, col)),
          std::size_t(PQgetlength(r_, row, col))};
}

// ---------------------------------------------------------------- Conn

std::string redact(std::string_view url) {
  // postgresql://user:password@host/db -> postgresql://user:***@host/db; password=... likewise.
  std::string s(url);
  if (const auto scheme = s.find("://"); scheme != std::string::npos) {
    const auto at = s.find('@', scheme + 3);
    const auto colon = s.find(':', scheme + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at)
      s.replace(colon + 1, at - colon - 1, "***");
  }
  for (std::size_t p = 0; (p = s.find("password=", p)) != std::string::npos;) {
    p += 9;
    auto e = s.find_first_of(" &", p);
    s.replace(p, (e == std::string::npos ? s.size() : e) - p, "***");
  }
  return s;
}

Conn::Conn(const std::string& url) {
  c_ = PQconnectdb(url.c_str());
  if (!c_ || PQstatus(c_) != CONNECTION_OK) {
    std::string msg = c_ ? PQerrorMessage(c_) : "out of memory";
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
    if (c_) PQfinish(c_);
    c_ = nullptr;
    throw Unavailable(fmt::format("job store {}: cannot connect: {}", redact(url), msg));
  }
  const char* host = PQhost(c_);
  name_ = fmt::format("postgresql database '{}' at {}{}{}", PQdb(c_), host && *host ? host : "localhost",
                      host && *host == '/' ? "" : ":", host && *host == '/' ? "" : PQport(c_));
  // Quiet: notices (IF NOT EXISTS, ...) are not errors.
  PQsetNoticeProcessor(c_, [](void*, const char*) {}, nullptr);
}

Conn::~Conn() {
  if (c_) PQfinish(c_);
}

void Conn::fail(pg_result* r, std::string_view sql) {
  const char* st = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
  const std::string state = st ? st : "";
  std::string msg = r ? PQresultErrorMessage(r) : "";
  if (msg.empty()) msg = PQerrorMessage(c_);
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' ')) msg.pop_back();
  if (r) PQclear(r);
  std::string first(sql.substr(0, sql.find('\n')));
  if (first.size() > 60) first = first.substr(0, 60) + "...";
  const std::string text = fmt::format("job store {}: {} (SQLSTATE {}; in '{}')", name_, msg,
                                       state.empty() ? "none" : state, first);
  if (PQstatus(c_) != CONNECTION_OK || state.starts_with("08") || state == "57P01" || state == "57P02" ||
      state == "57P03" || state.empty()) {
    broken_ = true;
    throw Unavailable(text);
  }
  if (state == "40P01" || state == "40001") throw Retry(text);
  if (state == "23505") throw ConstraintError(text);
  throw StoreError(text);
}

Result Conn::exec(std::string_view sql, const Params& p, bool binary) {
  const std::string q(sql);
  std::vector<const char*> vals(std::size_t(p.size()));
  std::vector<int> lens(std::size_t(p.size()));
  for (std::size_t i = 0; i < vals.size(); ++i) {
    vals[i] = p.null_[i] ? nullptr : p.values_[i].data();
    lens[i] = int(p.values_[i].size());
  }
  pg_result* r = PQexecParams(c_, q.c_str(), p.size(), nullptr, vals.data(), lens.data(),
                              p.binary_.data(), binary ? 1 : 0);
  const auto st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(r, sql);
  return Result(r);
}

void Conn::script(std::string_view sql) {
  const std::string q(sql);
  pg_result* r = PQexec(c_, q.c_str());
  const auto st = r ? PQresultStatus(r) : PGRES_FATAL_ERROR;
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) fail(r, sql);
  PQclear(r);
}

Tx::Tx(Conn& c) : c_(c) { c_.exec("BEGIN ISOLATION LEVEL READ COMMITTED"); }
Tx::~Tx() {
  if (done_ || c_.broken()) return;
  try {
    c_.exec("ROLLBACK");
  } catch (...) {
  }
}
void Tx::commit() {
  c_.exec("COMMIT");
  done_ = true;
}

// ---------------------------------------------------------------- Pool

Pool::Pool(std::string url, std::size_t max, std::chrono::milliseconds patience)
    : url_(std::move(url)), max_(max), patience_(patience) {}
Pool::~Pool() = default;

std::unique_ptr<Conn> Pool::take() {
  {
    std::lock_guard lk(mu_);
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
  }
  return std::make_unique<Conn>(url_);
}

void Pool::give_back(std::unique_ptr<Conn> c) {
  if (!c || c->broken()) return;
  std::lock_guard lk(mu_);
  if (idle_.size() < max_) idle_.push_back(std::move(c));
}

std::uint64_t Pool::reconnects() const {
  std::lock_guard lk(mu_);
  return reconnects_;
}

Pool::Attempt::Attempt(Pool& p) : p_(p), until_(std::chrono::steady_clock::now() + p.patience_) {}

std::unique_ptr<Conn> Pool::Attempt::connection() {
  try {
    auto c = p_.take();
    if (wait_) {
      std::lock_guard lk(p_.mu_);
      ++p_.reconnects_;
    }
    return c;
  } catch (const Unavailable& e) {
    lost(e.what());
    return nullptr;
  }
}

void Pool::Attempt::lost(std::string why) {
  why_ = std::move(why);
  wait_ = true;
  {
    // Every idle connection went with the server: drop them too.
    std::lock_guard lk(p_.mu_);
    p_.idle_.clear();
  }
  if (std::chrono::steady_clock::now() >= until_)
    throw Unavailable(fmt::format("{} (gave up after {} s)", why_, p_.patience_.count() / 1000));
}

void Pool::Attempt::retry_now() {
  if (++retries_ > 8) throw StoreError(fmt::format("{}: still conflicting after 8 tries", why_));
  wait_ = false;
}

void Pool::Attempt::next() {
  if (!wait_) return;
  std::this_thread::sleep_for(backoff_);
  backoff_ = std::min(backoff_ * 2, std::chrono::milliseconds(2000));
}

}  // namespace splitprove::service::pg
