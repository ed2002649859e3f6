// `splitprove serve`: the proving daemon (DESIGN §5, docs/daemon.md) in the foreground. SIGTERM or
// SIGINT stops it: Submit is refused, partitions in flight get --grace-s to finish, the rest are
// queued again for the next start; exit status 0. SIGKILL at any moment loses no accepted job.
#include <pthread.h>
#include <signal.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/command.hpp"
#include "mem/units.hpp"
#include "service/daemon.hpp"
#include "service/grpc_service.hpp"
#include "splitprove/error.hpp"
#ifdef SPLITPROVE_HAVE_CUDA
#include "cuda/stage.hpp"
#endif

namespace splitprove::cli {
namespace {

struct ServeArgs {
  service::DaemonConfig d;
  std::vector<std::string> listen;
  std::string budget, max_spool = "256GiB", max_witness = "64GiB";
  double grace_s = 30;
};

void run_serve(ServeArgs a) {
  if (!a.budget.empty()) a.d.budget = mem::parse_size(a.budget, "--budget");
  a.d.max_spool_bytes = mem::parse_size(a.max_spool, "--max-spool");
  a.d.max_witness_bytes = mem::parse_size(a.max_witness, "--max-witness");
  if (a.grace_s < 0 || a.grace_s > 86400) throw Error(fmt::format("serve: --grace-s {}: 0..86400", a.grace_s));
  if (a.listen.empty())
    a.listen.push_back("unix:" + (std::filesystem::path(a.d.store.state_dir) / "splitprove.sock").string());
  for (const auto& l : a.listen) service::check_listen_address(l);
  a.d.check();
  // Signals are taken by this thread (sigwait), not by handlers: blocked before any thread starts.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGINT);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
#ifdef SPLITPROVE_HAVE_CUDA
  cuda::install_pipeline_backend();
#endif
  service::Daemon daemon(a.d);
  const auto& r = daemon.recovery();
  service::ServerConfig sc;
  sc.listen = a.listen;
  service::Server server(daemon, sc);
  std::string where;
  std::size_t tcp = 0;
  for (const auto& l : a.listen) {
    if (!where.empty()) where += ", ";
    if (l.starts_with("unix:")) {
      where += l;
    } else {
      where += l.substr(0, l.rfind(':') + 1) + std::to_string(server.ports()[tcp++]);
    }
  }
  std::fprintf(stderr,
               "serve: listening on %s; state %s, keys %s; %u synthesis and %u GPU workers, %u "
               "partitions at once; recovered: %u partitions queued again, %u failed, %u spool "
               "entries removed\n",
               where.c_str(), a.d.store.state_dir.c_str(), a.d.key_dir.c_str(), a.d.synthesis_workers,
               a.d.gpu_workers, daemon.config().window, r.requeued, r.failed,
               r.spool_removed + r.temporaries_removed);
  std::fflush(stderr);
  int sig = 0;
  sigwait(&set, &sig);
  std::fprintf(stderr, "serve: %s: stopping (in-flight partitions get %.0f s)\n",
               sig == SIGTERM ? "SIGTERM" : "SIGINT", a.grace_s);
  const auto grace = std::chrono::milliseconds(std::int64_t(a.grace_s * 1000));
  server.shutdown(std::chrono::milliseconds(2000));
  daemon.stop(grace);
  std::fprintf(stderr, "serve: stopped\n");
}

Register reg([](CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto* c = app.add_subcommand("serve", "Run the proving daemon (gRPC API proto/splitprove/v1/prover.proto)");
  c->add_option("--state-dir", a->d.store.state_dir, "Directory of the job store (splitprove.db) and the spool")
      ->required();
  c->add_option("--key-dir", a->d.key_dir, "Directory that RegisterKey paths are relative to")->required();
  c->add_option("--spool-dir", a->d.store.spool_dir, "Witness spool (default: STATE_DIR/spool)");
  c->add_option("--listen", a->listen,
                "unix:PATH or a loopback HOST:PORT (PORT 0: any free one); repeatable "
                "(default: unix:STATE_DIR/splitprove.sock)");
  c->add_option("--backend", a->d.backend, "Pipeline backend: auto | cpu | cuda")->capture_default_str();
  c->add_option("--synthesis-workers,--pw", a->d.synthesis_workers, "Synthesis workers per curve")
      ->capture_default_str();
  c->add_option("--gpu-workers,--gw", a->d.gpu_workers, "GPU-stage workers per curve")->capture_default_str();
  c->add_option("--budget", a->budget, "Host memory budget of each curve's engine (e.g. 40GiB; default: none)");
  c->add_option("--window", a->d.window, "Partitions claimed at once (default: pw + gw + 2)");
  c->add_option("--max-pending-jobs", a->d.max_pending_jobs, "Queued + running jobs before Submit is refused")
      ->capture_default_str();
  c->add_option("--max-spool", a->max_spool, "Spooled witness bytes before Submit is refused")->capture_default_str();
  c->add_option("--max-partitions-per-job", a->d.max_partitions_per_job, "Partitions in one job")
      ->capture_default_str();
  c->add_option("--max-witness", a->max_witness, "Bytes of one witness")->capture_default_str();
  c->add_option("--max-attempts", a->d.store.max_attempts,
                "Starts of a partition (after crashes or device errors) before it fails its job")
      ->capture_default_str();
  c->add_option("--input-retention-minutes", a->d.input_retention_minutes,
                "Keep a finished job's witnesses this long")->capture_default_str();
  c->add_option("--job-retention-hours", a->d.job_retention_hours,
                "Keep a finished job (its proofs, its idempotency key) this long")->capture_default_str();
  c->add_option("--gc-interval-s", a->d.gc_interval_s, "Seconds between collections")->capture_default_str();
  c->add_option("--grace-s", a->grace_s, "On SIGTERM: seconds in-flight partitions get to finish")
      ->capture_default_str();
  c->callback([a] { run_serve(*a); });
});

}  // namespace
}  // namespace splitprove::cli
