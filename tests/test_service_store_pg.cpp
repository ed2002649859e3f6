// The PostgreSQL job store as a cluster's shared state (docs/cluster.md), on a throwaway server:
// leases that lapse and are taken back, a stale owner that cannot write, claims from several
// daemons that take every partition exactly once, the cluster view, a server restart in the
// middle of work, and a schema newer than the binary.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "pg_server.hpp"
#include "service/errors.hpp"
#include "service/pg.hpp"
#include "service/store.hpp"

namespace fs = std::filesystem;
using namespace splitprove::service;

namespace {

struct PgStoreTest : ::testing::Test {
  fs::path dir;
  std::string url;
  const std::vector<std::string> keys{std::string(64, 'a')};
  void SetUp() override {
    const std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    dir = fs::temp_directory_path() / ("splitprove-pgstore-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir);
    auto* pg = splitprove::test::PgServer::get();
    if (!pg) GTEST_SKIP() << "no PostgreSQL server here (scripts/setup.sh installs it)";
    url = pg->fresh_db(name);
  }
  void TearDown() override { fs::remove_all(dir); }
  // One daemon's view of the store: its own state directory (the local spool).
  std::unique_ptr<JobStore> open(const std::string& daemon, std::uint32_t lease_ms = 30'000,
                                 std::uint32_t attempts = 3) const {
    StoreConfig c;
    c.state_dir = (dir / daemon).string();
    c.url = url;
    c.lease_ms = lease_ms;
    c.max_attempts = attempts;
    return open_store(c);
  }
  static JobRecord submit(JobStore& s, std::uint32_t n) {
    KeyRecord k;
    k.key_id = std::string(64, 'a');
    k.zkey_path = "k.zkey";
    k.curve = "BN254";
    k.registered_at = now_ms();
    s.put_key(k);
    NewJob j;
    j.key_id = k.key_id;
    j.fingerprint = "fp";
    j.partitions = n;
    j.witness_bytes.assign(n, 10);
    auto w = s.create_job(j);
    std::vector<std::uint8_t> bytes(10, 3);
    for (std::uint32_t p = 0; p < n; ++p) w->append(p, 0, bytes);
    return w->commit().first;
  }
  std::string done_by(const std::string& job, std::uint32_t idx) const {
    splitprove::service::pg::Conn c(url);
    return c.exec("SELECT done_by FROM partitions WHERE job_id = $1 AND idx = $2",
                  splitprove::service::pg::Params().add(job).add(std::int64_t(idx)))
        .text(0, 0);
  }
};

TEST_F(PgStoreTest, AnExpiredLeaseIsTakenBackAndItsStaleOwnerCannotWrite) {
  auto a = open("a", 1000), b = open("b", 1000);
  const auto job = submit(*a, 1);
  auto ca = a->next_partitions(1, "daemon-a", keys);
  ASSERT_EQ(ca.size(), 1u);
  EXPECT_TRUE(b->next_partitions(1, "daemon-b", keys).empty());  // claimed: skipped
  EXPECT_EQ(b->heartbeat({"daemon-b", "h", "", now_ms(), {}}).requeued, 0u);  // the lease holds
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));  // a is silent (SIGSTOP) past it
  const auto r = b->heartbeat({"daemon-b", "h", "", now_ms(), {}});
  EXPECT_EQ(r.requeued, 1u);
  EXPECT_NE(b->get_job(job.job_id, true, false)->partitions[0].error.find("lease of daemon-a expired"),
            std::string::npos);
  auto cb = b->next_partitions(1, "daemon-b", keys);
  ASSERT_EQ(cb.size(), 1u);
  EXPECT_EQ(cb[0].attempt, 2u);
  // a comes back: its renewal, result, failure and release all change nothing.
  EXPECT_EQ(a->heartbeat(Heartbeat{"daemon-a", "h", "", now_ms(), ca}).renewed, 0u);
  EXPECT_FALSE(a->commit_partition_result(ca[0], "{stale}", "[]"));
  EXPECT_FALSE(a->fail_partition(ca[0], "stale", false));
  a->release(ca[0]);
  const auto done = b->commit_partition_result(cb[0], "{fresh}", "[1]");
  EXPECT_TRUE(done);
  EXPECT_TRUE(done.job_done);
  const auto j = a->get_job(job.job_id, true, true);
  EXPECT_EQ(j->state, JobState::succeeded);
  EXPECT_EQ(j->partitions[0].proof_json, "{fresh}");
  EXPECT_EQ(done_by(job.job_id, 0), "daemon-b#2");
}

TEST_F(PgStoreTest, RenewedLeasesHoldAndSpentAttemptsFailTheJob) {
  auto a = open("a", 800, 2), b = open("b", 800, 2);
  const auto job = submit(*a, 2);
  auto ca = a->next_partitions(2, "daemon-a", keys);
  ASSERT_EQ(ca.size(), 2u);
  std::uint32_t requeued = 0;
  for (int i = 0; i < 5; ++i) {  // 1.5 s of renewals of the first claim only
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    const auto r = a->heartbeat(Heartbeat{"daemon-a", "h", "", now_ms(), {ca[0]}});
    EXPECT_EQ(r.renewed, 1u);
    requeued += r.requeued;  // any daemon's heartbeat takes expired leases back
  }
  requeued += b->heartbeat({"daemon-b", "h", "", now_ms(), {}}).requeued;
  EXPECT_EQ(requeued, 1u);  // the second lapsed; the first holds
  EXPECT_EQ(a->get_job(job.job_id, true, false)->partitions[0].state, PartState::running);
  auto cb = b->next_partitions(2, "daemon-b", keys);
  ASSERT_EQ(cb.size(), 1u);
  EXPECT_EQ(cb[0].index, 1u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));  // b goes silent too: attempts spent
  const auto r2 = a->heartbeat({"daemon-a", "h", "", now_ms(), {ca[0]}});
  EXPECT_EQ(r2.failed, 1u);
  const auto j = a->get_job(job.job_id, true, false);
  EXPECT_EQ(j->state, JobState::failed);
  EXPECT_NE(j->error.find("lease expired 2 times"), std::string::npos) << j->error;
  EXPECT_FALSE(a->commit_partition_result(ca[0], "{}", "[]"));  // its job failed: discarded
}

TEST_F(PgStoreTest, FourDaemonsClaimingTogetherTakeEveryPartitionOnceAndFinishEveryJobOnce) {
  auto setup = open("setup");
  std::vector<std::string> jobs;
  for (int i = 0; i < 6; ++i) jobs.push_back(submit(*setup, 7).job_id);
  std::mutex mu;
  std::multiset<std::pair<std::string, std::uint32_t>> proved;
  std::map<std::string, int> finished;
  std::vector<std::thread> daemons;
  for (int d = 0; d < 4; ++d)
    daemons.emplace_back([&, d] {
      auto s = open("d" + std::to_string(d));
      const std::string owner = "daemon-" + std::to_string(d);
      for (;;) {
        auto c = s->next_partitions(1 + d % 2, owner, keys);
        if (c.empty()) break;
        for (const auto& cl : c) {
          const auto w = s->open_witness(cl);
          ASSERT_EQ(fs::file_size(w->path()), 10u);
          const auto r = s->commit_partition_result(cl, "{}", "[]");
          ASSERT_TRUE(r);
          std::lock_guard lk(mu);
          proved.insert({cl.job_id, cl.index});
          if (r.job_done) ++finished[cl.job_id];
        }
      }
    });
  for (auto& t : daemons) t.join();
  EXPECT_EQ(proved.size(), 42u);
  const std::set<std::pair<std::string, std::uint32_t>> distinct(proved.begin(), proved.end());
  EXPECT_EQ(distinct.size(), 42u);
  EXPECT_EQ(finished.size(), 6u);
  for (const auto& [j, n] : finished) EXPECT_EQ(n, 1) << j;  // counted by exactly one commit
  for (const auto& j : jobs) EXPECT_EQ(setup->get_job(j, false, false)->state, JobState::succeeded);
}

TEST_F(PgStoreTest, TheClusterViewShowsDaemonsTheirClaimsAndTheQueuePerKey) {
  auto a = open("a"), b = open("b");
  submit(*a, 3);
  const auto ca = a->next_partitions(2, "daemon-a", keys);
  a->heartbeat({"daemon-a", "host-a", "10.0.0.1:7070", now_ms(), ca});
  b->heartbeat({"daemon-b", "host-b", "10.0.0.2:7070", now_ms(), {}});
  const auto v = b->cluster();
  EXPECT_TRUE(v.shared);
  EXPECT_NE(v.store.find("postgresql database"), std::string::npos) << v.store;
  ASSERT_EQ(v.daemons.size(), 2u);
  std::map<std::string, ClusterView::Member> by;
  for (const auto& m : v.daemons) by[m.owner] = m;
  EXPECT_EQ(by["daemon-a"].running, 2u);
  EXPECT_EQ(by["daemon-a"].listen, "10.0.0.1:7070");
  EXPECT_TRUE(by["daemon-b"].alive);
  ASSERT_EQ(v.queues.size(), 1u);
  EXPECT_EQ(v.queues[0].queued, 1u);
  EXPECT_EQ(v.queues[0].running, 2u);
  a->leave("daemon-a");
  EXPECT_EQ(b->cluster().daemons.size(), 1u);
}

TEST_F(PgStoreTest, AServerRestartMidWorkIsWaitedOutAndLosesNothingAccepted) {
  auto s = open("a");
  const auto job = submit(*s, 2);
  auto c = s->next_partitions(1, "daemon-a", keys);
  ASSERT_EQ(c.size(), 1u);
  splitprove::test::PgServer::get()->restart();  // every pooled connection is now dead
  EXPECT_TRUE(s->commit_partition_result(c[0], "{0}", "[0]"));
  auto c2 = s->next_partitions(1, "daemon-a", keys);
  ASSERT_EQ(c2.size(), 1u);
  EXPECT_EQ(c2[0].index, 1u);
  EXPECT_TRUE(s->commit_partition_result(c2[0], "{1}", "[1]").job_done);
  EXPECT_EQ(s->get_job(job.job_id, false, false)->state, JobState::succeeded);
}

TEST_F(PgStoreTest, NoServerIsUnavailableAfterThePatienceAndANewerSchemaIsRefused) {
  {
    auto s = open("a");
  }
  {
    splitprove::service::pg::Conn c(url);
    // A new store gets version 1 and then every migration, in order.
    EXPECT_EQ(c.exec("SELECT string_agg(version::text, ',' ORDER BY version) FROM splitprove_schema").text(0, 0),
              "1,2");
    EXPECT_EQ(c.exec("SELECT attstorage FROM pg_attribute WHERE attrelid = 'witness_chunks'::regclass AND "
                     "attname = 'data'")
                  .text(0, 0),
              "e");
    c.exec("INSERT INTO splitprove_schema VALUES (99, 0)");
  }
  try {
    open("a");
    FAIL() << "a newer schema was accepted";
  } catch (const splitprove::Error& e) {
    EXPECT_NE(std::string(e.what()).find("schema has version 99"), std::string::npos) << e.what();
  }
  StoreConfig c;
  c.state_dir = (dir / "x").string();
  c.url = "postgresql://splitprove@/nothing?host=" + (dir / "no-server").string();
  c.reconnect_ms = 300;
  EXPECT_THROW(open_store(c), Unavailable);
  c.url = "mysql://localhost/x";
  EXPECT_THROW(open_store(c), splitprove::Error);
}

}  // namespace
