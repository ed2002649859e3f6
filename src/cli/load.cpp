// `splitprove load`: a load generator for the daemon. C clients, each on its own channel, prove
// jobs back to back (Prove: submit + await in one call) for S seconds. Prints one JSON object:
// jobs, partitions, throughput, submit (accepted) and end-to-end latency percentiles, and errors by
// status code. RESOURCE_EXHAUSTED is admission doing its job: that client backs off 50 ms and
// tries again (counted apart, not as an error).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <mutex>
#include <thread>

#include "cli/command.hpp"
#include "cli/remote.hpp"
#include "splitprove/error.hpp"

namespace splitprove::cli {
namespace {
using namespace remote;
using clock_type = std::chrono::steady_clock;

struct LoadArgs {
  SubmitArgs job;
  unsigned clients = 64;
  double seconds = 60;
};

struct Tally {
  std::mutex mu;
  std::vector<double> submit_ms, e2e_ms;
  std::map<std::string, std::uint64_t> errors;
  std::uint64_t jobs = 0, partitions = 0, exhausted = 0;
};

double ms_since(clock_type::time_point t0, clock_type::time_point t) {
  return std::chrono::duration<double, std::milli>(t - t0).count();
}

void client(const LoadArgs& a, clock_type::time_point deadline, Tally& tally) {
  const auto stub = a.job.conn.stub();  // one channel per client, as separate processes would have
  while (clock_type::now() < deadline) {
    grpc::ClientContext ctx;
    const auto t0 = clock_type::now();
    auto stream = stub->Prove(&ctx);
    send_job(stream, a.job);
    v1::JobEvent ev;
    clock_type::time_point accepted{};
    std::optional<v1::JobState> state;
    while (stream->Read(&ev)) {
      if (ev.has_accepted()) accepted = clock_type::now();
      if (ev.has_result()) state = ev.result().state();
    }
    const auto end = clock_type::now();
    const grpc::Status st = stream->Finish();
    bool back_off = false;
    {
      std::lock_guard lk(tally.mu);
      if (!st.ok() && st.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
        ++tally.exhausted;
        back_off = true;
      } else if (!st.ok()) {
        ++tally.errors[code_name(st.error_code())];
      } else if (state != v1::JOB_STATE_SUCCEEDED) {
        ++tally.errors[state ? v1::JobState_Name(*state) : "NO_RESULT"];
      } else {
        ++tally.jobs;
        tally.partitions += a.job.native_seed ? a.job.partitions : a.job.witnesses.size();
        tally.submit_ms.push_back(ms_since(t0, accepted));
        tally.e2e_ms.push_back(ms_since(t0, end));
      }
    }
    if (back_off) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

nlohmann::json percentile(std::vector<double> v, double q) {
  if (v.empty()) return nullptr;
  std::sort(v.begin(), v.end());
  const double x = v[std::min(v.size() - 1, std::size_t(q * double(v.size())))];
  return std::round(x * 10) / 10;
}

void run_load(const LoadArgs& a) {
  if (a.clients == 0 || a.clients > 1024) throw Error(fmt::format("load: --clients {}: 1..1024", a.clients));
  if (!(a.seconds > 0) || a.seconds > 86400) throw Error(fmt::format("load: --seconds {}: 0..86400", a.seconds));
  if (a.job.native_seed.has_value() == !a.job.witnesses.empty())
    throw Error("load: give --native-seed S --partitions N (a native key) or the .wtns files of one job");
  if (a.job.native_seed && a.job.partitions == 0) throw Error("load: --native-seed needs --partitions N");
  for (const auto& w : a.job.witnesses)
    if (!std::filesystem::is_regular_file(w)) throw Error(fmt::format("{}: no such file", w));
  Tally tally;
  const auto t0 = clock_type::now();
  const auto deadline = t0 + std::chrono::duration_cast<clock_type::duration>(std::chrono::duration<double>(a.seconds));
  std::vector<std::thread> threads;
  threads.reserve(a.clients);
  for (unsigned i = 0; i < a.clients; ++i) threads.emplace_back([&] { client(a, deadline, tally); });
  for (auto& t : threads) t.join();
  const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
  nlohmann::json j;
  j["clients"] = a.clients;
  j["seconds"] = a.seconds;
  j["partitions_per_job"] = a.job.native_seed ? a.job.partitions : a.job.witnesses.size();
  j["jobs"] = tally.jobs;
  j["partitions"] = tally.partitions;
  j["wall_s"] = std::round(wall * 100) / 100;
  j["partitions_per_s"] = std::round(double(tally.partitions) / wall * 1000) / 1000;
  j["submit_ms"] = {{"p50", percentile(tally.submit_ms, 0.5)}, {"p99", percentile(tally.submit_ms, 0.99)}};
  j["end_to_end_ms"] = {{"p50", percentile(tally.e2e_ms, 0.5)}, {"p99", percentile(tally.e2e_ms, 0.99)}};
  j["resource_exhausted"] = tally.exhausted;
  j["errors"] = tally.errors.empty() ? nlohmann::json::object() : nlohmann::json(tally.errors);
  std::printf("%s\n", j.dump().c_str());
}

Register reg([](CLI::App& app) {
  auto a = std::make_shared<LoadArgs>();
  auto* c = app.add_subcommand("load", "Load the daemon: C clients prove jobs back to back for S seconds; prints JSON");
  add_server(c, a->job.conn);
  c->add_option("--key", a->job.key, "The key id (register-key prints it)")->required();
  c->add_option("--clients", a->clients, "Concurrent clients, each on its own channel")->capture_default_str();
  c->add_option("--seconds", a->seconds, "How long clients start new jobs")->capture_default_str();
  c->add_option("--native-seed", a->job.native_seed, "For a native key: every job proves the built-in circuit from this seed");
  c->add_option("--partitions", a->job.partitions, "With --native-seed: partitions per job");
  c->add_option("witnesses", a->job.witnesses, "Or: the .wtns files of one job, sent by every client");
  c->callback([a] { run_load(*a); });
});

}  // namespace
}  // namespace splitprove::cli
