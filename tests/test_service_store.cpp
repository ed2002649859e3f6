// The daemon's job store (service/store.hpp), one contract for both backends (SQLite, and
// PostgreSQL on a throwaway server): durability of accepted jobs, claims and their fencing,
// idempotency, cancellation, paging and collection; then what is SQLite's own (recovery after a
// crash, its schema file). The PostgreSQL store's cluster behaviour (leases, concurrent claims,
// a server restart) is in test_service_store_pg.cpp.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "pg_server.hpp"
#include "service/errors.hpp"
#include "service/store.hpp"

namespace fs = std::filesystem;
using namespace splitprove::service;

namespace {

// The contract both backends keep; the parameter names the backend.
struct StoreTest : ::testing::TestWithParam<std::string> {
  fs::path dir;
  std::string url;  // "" for SQLite
  const std::vector<std::string> any{std::string(64, 'a'), std::string(64, 'b')};  // the keys claimed
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir = fs::temp_directory_path() /
          ("splitprove-store-" + std::to_string(::getpid()) + "-" + name.substr(name.find('/') + 1));
    fs::remove_all(dir);
    if (GetParam() == "postgres") {
      auto* pg = splitprove::test::PgServer::get();
      if (!pg) GTEST_SKIP() << "no PostgreSQL server here (scripts/setup.sh installs it)";
      url = pg->fresh_db(name);
    }
  }
  void TearDown() override { fs::remove_all(dir); }
  bool sqlite() const { return GetParam() == "sqlite"; }
  StoreConfig cfg(std::uint32_t attempts = 3) const {
    StoreConfig c;
    c.state_dir = dir.string();
    c.max_attempts = attempts;
    c.url = url;
    return c;
  }
  std::unique_ptr<JobStore> open(std::uint32_t attempts = 3) const { return open_store(cfg(attempts)); }
  static KeyRecord key(char c = 'a') {
    KeyRecord k;
    k.key_id = std::string(64, c);
    k.zkey_path = "k.zkey";
    k.curve = "BN254";
    k.variables = 3;
    k.registered_at = now_ms();
    return k;
  }
  static NewJob job(std::size_t n, std::optional<std::string> idem = std::nullopt, int prio = 0) {
    NewJob j;
    j.key_id = std::string(64, 'a');
    j.idempotency_key = std::move(idem);
    j.fingerprint = "fp" + std::to_string(n);
    j.priority = prio;
    j.partitions = std::uint32_t(n);
    j.witness_bytes.assign(n, 16);
    return j;
  }
  // Streams n witnesses of 16 bytes (two chunks each) and commits.
  static JobRecord submit(JobStore& s, const NewJob& j) {
    auto w = s.create_job(j);
    std::vector<std::uint8_t> bytes(8, 7);
    for (std::uint32_t p = 0; p < j.witness_bytes.size(); ++p) {
      w->append(p, 0, bytes);
      w->append(p, 8, bytes);
    }
    return w->commit().first;
  }
  std::size_t spool_entries() const {
    std::size_t n = 0;
    for (const auto& e : fs::recursive_directory_iterator(dir / "spool"))
      n += e.path().filename() != "claims";  // the PostgreSQL store's fetched witnesses
    return n;
  }
  static std::string read_all(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
};
using SqliteStoreTest = StoreTest;
INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgres"),
                         [](const auto& i) { return i.param; });
INSTANTIATE_TEST_SUITE_P(Sqlite, SqliteStoreTest, ::testing::Values("sqlite"), [](const auto& i) { return i.param; });

TEST_P(StoreTest, AcceptedJobIsDurableWithItsWitnessesAndClaimsRunInOrder) {
  auto s = open();
  s->put_key(key());
  const auto a = submit(*s, job(2));
  const auto b = submit(*s, job(1, std::nullopt, 5));  // higher priority: claimed first
  EXPECT_TRUE(valid_job_id(a.job_id));
  EXPECT_EQ(a.state, JobState::queued);
  EXPECT_EQ(spool_entries(), sqlite() ? 5u : 0u);  // SQLite spools them (2 dirs, 3 files); PostgreSQL holds them
  s.reset();  // closed: everything must come back from the store
  s = open();
  auto c = s->next_partitions(3, "me", any);
  ASSERT_EQ(c.size(), 3u);
  EXPECT_EQ(c[0].job_id, b.job_id);
  EXPECT_EQ(c[1].job_id, a.job_id);
  EXPECT_EQ(c[1].index, 0u);
  EXPECT_EQ(c[2].index, 1u);
  EXPECT_EQ(c[2].attempt, 1u);
  EXPECT_TRUE(s->next_partitions(1, "me", any).empty());
  {
    const auto w = s->open_witness(c[2]);
    EXPECT_EQ(read_all(w->path()), std::string(8, 7) + std::string(8, 7));
  }
  EXPECT_EQ(spool_entries(), sqlite() ? 5u : 0u);  // a fetched copy goes with its LocalWitness
  // A key this daemon does not have: nothing of it is claimed.
  EXPECT_TRUE(s->next_partitions(1, "me", {std::string(64, 'c')}).empty());
  const auto first = s->commit_partition_result(c[1], "{p0}", "[0]");
  EXPECT_TRUE(first);
  EXPECT_FALSE(first.job_done);  // one partition of the job is left
  EXPECT_EQ(s->get_job(a.job_id, false, false)->state, JobState::running);
  const auto last = s->commit_partition_result(c[2], "{p1}", "[1]");
  EXPECT_TRUE(last);
  EXPECT_TRUE(last.job_done);
  const auto done = s->get_job(a.job_id, true, true);
  EXPECT_EQ(done->state, JobState::succeeded);
  EXPECT_EQ(done->partitions_done, 2u);
  EXPECT_EQ(done->partitions[1].proof_json, "{p1}");
  // A committed partition is final: a second commit of the same claim changes nothing.
  EXPECT_FALSE(s->commit_partition_result(c[2], "{other}", "[9]"));
  EXPECT_EQ(s->get_job(a.job_id, true, true)->partitions[1].proof_json, "{p1}");
}

TEST_P(StoreTest, UncommittedSubmitLeavesNothingAndStreamErrorsAreNamed) {
  auto s = open();
  s->put_key(key());
  {
    auto w = s->create_job(job(2));
    std::vector<std::uint8_t> bytes(16, 1);
    w->append(0, 0, bytes);
    EXPECT_THROW(w->append(0, 0, bytes), splitprove::Error);          // partition 0 is complete
    EXPECT_THROW(w->append(1, 4, bytes), splitprove::Error);          // offset gap
    std::vector<std::uint8_t> big(17, 1);
    EXPECT_THROW(w->append(1, 0, big), splitprove::Error);            // beyond the declared size
    EXPECT_THROW(w->commit(), splitprove::Error);                     // partition 1 missing
  }
  EXPECT_EQ(spool_entries(), 0u);
  EXPECT_TRUE(s->list_jobs(std::nullopt, 10, "").jobs.empty());
}

TEST_P(StoreTest, IdempotencyKeyNamesOneJob) {
  auto s = open();
  s->put_key(key());
  const auto a = submit(*s, job(1, "retry-1"));
  EXPECT_EQ(s->find_idempotent("retry-1")->job_id, a.job_id);
  EXPECT_FALSE(s->find_idempotent("other"));
  // Two writers racing with the same key: the second commit answers with the first job when it
  // is the same submission (header and witness bytes), and its own files go.
  auto w = s->create_job(job(1, "retry-1"));
  const std::vector<std::uint8_t> same(8, 7);
  w->append(0, 0, same);
  w->append(0, 8, same);
  auto [j, created] = w->commit();
  EXPECT_FALSE(created);
  EXPECT_EQ(j.job_id, a.job_id);
  w.reset();
  // Other witness bytes under the same header, or another header: the race's loser is refused
  // (Conflict naming the first job), not answered with a job it did not submit.
  {
    auto other = s->create_job(job(1, "retry-1"));
    other->append(0, 0, std::vector<std::uint8_t>(16, 1));
    try {
      other->commit();
      ADD_FAILURE() << "other witness bytes under a known idempotency key were deduplicated";
    } catch (const Conflict& e) {
      EXPECT_NE(std::string(e.what()).find(a.job_id), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("witness bytes"), std::string::npos) << e.what();
    }
  }
  {
    auto header = job(1, "retry-1", /*prio=*/5);
    header.fingerprint = "another header";
    auto other = s->create_job(header);
    other->append(0, 0, same);
    other->append(0, 8, same);
    EXPECT_THROW(other->commit(), Conflict);
  }
  EXPECT_EQ(s->list_jobs(std::nullopt, 10, "").jobs.size(), 1u);
  EXPECT_EQ(spool_entries(), sqlite() ? 2u : 0u);  // the first job's directory and its witness only
}

TEST_P(StoreTest, FailuresRetryUntilAttemptsAreSpentAndAFinalFailureDropsTheRest) {
  auto s = open(2);
  s->put_key(key());
  const auto a = submit(*s, job(3));
  auto c = s->next_partitions(3, "me", any);
  EXPECT_TRUE(s->fail_partition(c[0], "device lost", true));  // attempt 1 of 2: queued again
  EXPECT_EQ(s->get_job(a.job_id, true, false)->partitions[0].state, PartState::queued);
  auto again = s->next_partitions(1, "me", any);
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].attempt, 2u);
  EXPECT_FALSE(s->fail_partition(c[0], "stale claim", true));  // attempt 1 no longer holds
  EXPECT_TRUE(s->fail_partition(again[0], "device lost", true));  // attempts spent: final
  const auto j = s->get_job(a.job_id, true, false);
  EXPECT_EQ(j->state, JobState::failed);
  EXPECT_EQ(j->error, "partition 0: device lost");
  EXPECT_EQ(j->partitions[1].state, PartState::dropped);
  EXPECT_FALSE(s->commit_partition_result(c[1], "{}", "[]"));  // dropped: discarded
  EXPECT_TRUE(s->next_partitions(5, "me", any).empty());
}

TEST_P(StoreTest, CancelDropsOpenPartitionsAndRefusesFinishedJobs) {
  auto s = open();
  s->put_key(key());
  const auto a = submit(*s, job(2)), b = submit(*s, job(1));
  auto c = s->next_partitions(1, "me", any);
  const auto j = s->cancel_job(a.job_id, "not needed");
  EXPECT_EQ(j->state, JobState::cancelled);
  EXPECT_EQ(j->error, "cancelled: not needed");
  EXPECT_FALSE(s->commit_partition_result(c[0], "{}", "[]"));
  EXPECT_EQ(s->cancel_job(a.job_id, "")->state, JobState::cancelled);  // again: the same
  EXPECT_FALSE(s->cancel_job(new_job_id(), ""));
  auto cb = s->next_partitions(5, "me", any);
  ASSERT_EQ(cb.size(), 1u);
  EXPECT_EQ(cb[0].job_id, b.job_id);
  ASSERT_TRUE(s->commit_partition_result(cb[0], "{}", "[]"));
  EXPECT_THROW(s->cancel_job(b.job_id, ""), Conflict);
}

TEST_P(SqliteStoreTest, RecoveryAfterSigkillRequeuesRunningKeepsDoneAndSweepsTheSpool) {
  std::string job_id;
  {
    auto s = open(2);
    s->put_key(key());
    job_id = submit(*s, job(3)).job_id;
  }
  // A child claims all three, commits one and is killed mid-work with another Submit half written.
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    auto s = open(2);
    auto c = s->next_partitions(3, "child", any);
    if (c.size() != 3 || !s->commit_partition_result(c[0], "{kept}", "[0]")) ::_exit(3);
    auto w = s->create_job(job(1));
    std::vector<std::uint8_t> half(8, 1);
    w->append(0, 0, half);  // a temporary file and a directory no job owns
    ::kill(::getpid(), SIGKILL);
    ::_exit(4);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
  auto s = open(2);
  const auto r = s->recover();
  EXPECT_EQ(r.requeued, 2u);
  EXPECT_EQ(r.failed, 0u);
  EXPECT_EQ(r.spool_removed, 1u);
  EXPECT_EQ(spool_entries(), 4u);  // the job's directory and its three witnesses
  const auto j = s->get_job(job_id, true, true);
  EXPECT_EQ(j->partitions[0].state, PartState::done);
  EXPECT_EQ(j->partitions[0].proof_json, "{kept}");
  auto c = s->next_partitions(5, "me", any);
  ASSERT_EQ(c.size(), 2u);  // the done partition is never claimed again
  EXPECT_EQ(c[0].index, 1u);
  EXPECT_EQ(c[0].attempt, 2u);
  // A second crash with attempts spent fails the job instead of looping.
  s.reset();
  s = open(2);
  const auto r2 = s->recover();
  EXPECT_EQ(r2.failed, 2u);
  EXPECT_EQ(s->get_job(job_id, false, false)->state, JobState::failed);
}

TEST_P(StoreTest, ListJobsPagesNewestFirstAndChecksTokens) {
  auto s = open();
  s->put_key(key());
  std::vector<std::string> ids;
  for (int i = 0; i < 7; ++i) ids.push_back(submit(*s, job(1)).job_id);
  std::vector<std::string> seen;
  std::string token;
  int pages = 0;
  do {
    auto p = s->list_jobs(std::nullopt, 3, token);
    for (const auto& j : p.jobs) seen.push_back(j.job_id);
    token = p.next_page_token;
    ++pages;
  } while (!token.empty());
  EXPECT_EQ(pages, 3);
  std::reverse(seen.begin(), seen.end());
  EXPECT_EQ(seen, ids);
  const auto first = s->list_jobs(std::nullopt, 3, "");
  EXPECT_THROW(s->list_jobs(JobState::queued, 3, first.next_page_token), splitprove::Error);
  EXPECT_THROW(s->list_jobs(std::nullopt, 3, "all/x/y"), splitprove::Error);
  EXPECT_EQ(s->list_jobs(JobState::succeeded, 10, "").jobs.size(), 0u);
}

TEST_P(StoreTest, CollectRemovesInputsThenRows) {
  auto s = open();
  s->put_key(key());
  const auto a = submit(*s, job(1));
  auto c = s->next_partitions(1, "me", any);
  ASSERT_TRUE(s->commit_partition_result(c[0], "{}", "[]"));
  EXPECT_EQ(s->collect(0, 0).inputs_removed, 0u);  // finished after time 0: kept
  const auto far = now_ms() + 1000;
  const auto r = s->collect(far, 0);
  EXPECT_EQ(r.inputs_removed, 1u);
  EXPECT_EQ(r.jobs_deleted, 0u);
  EXPECT_THROW(s->open_witness(c[0]), splitprove::Error);  // its witness is gone
  EXPECT_EQ(s->collect(far, far).jobs_deleted, 1u);
  EXPECT_FALSE(s->get_job(a.job_id, false, false));
}

TEST_P(SqliteStoreTest, NewerSchemaIsRefused) {
  {
    auto s = open();
  }
  // What a newer binary's migration leaves.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "splitprove.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "INSERT INTO schema_version VALUES (99, 0)", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  try {
    open();
    FAIL() << "a newer schema was accepted";
  } catch (const splitprove::Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99"), std::string::npos) << e.what();
  }
}

TEST_P(StoreTest, NativeJobsHaveASeedAndNoWitnessesAndNativeKeysAreFoundBySpec) {
  auto s = open();
  KeyRecord k = key('b');
  k.native_log2 = 12;
  s->put_key(k);
  EXPECT_EQ(s->get_native_key("BN254", 12)->key_id, k.key_id);
  EXPECT_FALSE(s->get_native_key("BN254", 13));
  NewJob j;
  j.key_id = k.key_id;
  j.fingerprint = "native";
  j.partitions = 2;
  j.native_seed = 99;
  auto w = s->create_job(j);
  EXPECT_TRUE(w->complete());
  const auto rec = w->commit().first;
  EXPECT_EQ(rec.native_seed, std::optional<std::uint64_t>(99));
  EXPECT_EQ(rec.partition_count, 2u);
  EXPECT_EQ(spool_entries(), 0u);  // nothing spooled
  auto c = s->next_partitions(2, "me", any);
  ASSERT_EQ(c.size(), 2u);
  EXPECT_EQ(c[1].native_seed, std::optional<std::uint64_t>(99));
  if (!sqlite()) return;
  // Both schema steps were applied to the new store, in order.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "splitprove.db").c_str(), &db), SQLITE_OK);
  std::string versions;
  sqlite3_exec(db, "SELECT version FROM schema_version ORDER BY rowid",
               [](void* out, int, char** v, char**) {
                 *static_cast<std::string*>(out) += v[0];
                 return 0;
               },
               &versions, nullptr);
  sqlite3_close(db);
  EXPECT_EQ(versions, "12");
}

TEST(JobId, IsAUuidV7InOrder) {
  const auto a = new_job_id(), b = new_job_id();
  EXPECT_TRUE(valid_job_id(a));
  EXPECT_EQ(a[14], '7');
  EXPECT_LT(a, b);  // made in order, sorted in order (within one millisecond too)
  std::string prev = b;
  for (int i = 0; i < 5000; ++i) {
    const auto id = new_job_id();
    ASSERT_LT(prev, id);
    prev = id;
  }
  EXPECT_FALSE(valid_job_id("not-a-job"));
  EXPECT_FALSE(valid_job_id(std::string(36, 'a')));
}

}  // namespace
