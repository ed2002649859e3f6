#pragma once
// A throwaway PostgreSQL server for the store tests (tests/pg/throwaway.sh), started at first use
// once per test process and stopped at its exit; every test gets a database of its own.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "service/pg.hpp"

namespace splitprove::test {

class PgServer {
 public:
  // Null where no PostgreSQL server is installed; tests then skip, saying so.
  static PgServer* get() {
    static std::unique_ptr<PgServer> s = start();
    return s.get();
  }
  ~PgServer() { std::system(("bash " + script() + " stop " + dir_ + " >/dev/null 2>&1").c_str()); }

  // The URL of a new, empty database.
  std::string fresh_db(const std::string& name) {
    std::string db = "t" + std::to_string(++n_) + "_";
    for (char c : name) db += std::isalnum(static_cast<unsigned char>(c)) ? char(std::tolower(c)) : '_';
    db = db.substr(0, 60);
    service::pg::Conn c(url("postgres"));
    c.exec("CREATE DATABASE " + db);
    return url(db);
  }
  std::string url(const std::string& db) const { return "postgresql://splitprove@/" + db + "?host=" + dir_; }
  const std::string& dir() const { return dir_; }
  // pg_ctl restart -m immediate: every connection drops, the server recovers from its WAL.
  void restart() { std::system(("bash " + script() + " restart " + dir_).c_str()); }

 private:
  static std::string script() { return std::string(SPLITPROVE_SOURCE_DIR) + "/tests/pg/throwaway.sh"; }
  static std::unique_ptr<PgServer> start() {
    auto s = std::unique_ptr<PgServer>(new PgServer);
    s->dir_ = "/tmp/sp-pg-" + std::to_string(::getpid());  // short: a unix socket path is <= 107 bytes
    const int rc = std::system(("bash " + script() + " start " + s->dir_ + " >/dev/null").c_str());
    if (rc != 0) {
      std::fprintf(stderr, "pg_server: no throwaway PostgreSQL server (throwaway.sh exit %d)\n", rc);
      return nullptr;
    }
    return s;
  }
  std::string dir_;
  int n_ = 0;
};

}  // namespace splitprove::test
