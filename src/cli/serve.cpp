// `splitprove serve`: the proving daemon (DESIGN §5, docs/daemon.md) in the foreground. SIGTERM or
// SIGINT stops it: Submit is refused, partitions in flight get --grace-s to finish, the rest are
// queued again for the next start; exit status 0. SIGKILL at any moment loses no accepted job.
#include <pthread.h>
#include <signal.h>

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>

#include <toml++/toml.h>

#include "cli/command.hpp"
#include "mem/units.hpp"
#include "service/daemon.hpp"
#include "service/grpc_service.hpp"
#include "service/http.hpp"
#include "service/log.hpp"
#include "splitprove/error.hpp"
#ifdef SPLITPROVE_HAVE_CUDA
#include "cuda/stage.hpp"
#endif

namespace splitprove::cli {
namespace {

struct ServeArgs {
  service::DaemonConfig d;
  std::vector<std::string> listen;
  std::string http;  // loopback HOST:PORT for /metrics and /status; "" = none
  std::string tls_cert, tls_key, token_file;  // TLS and a bearer token for TCP addresses
  std::string budget, max_spool = "256GiB", max_witness = "64GiB";
  double grace_s = 30;
  std::uint32_t submit_idle_s = 60;  // a Submit stream silent this long is failed (ServerConfig)
  std::optional<std::uint32_t> lease_s;  // --lease-s: over the config's lease_seconds
};

// Reads a TOML config (docs/splitprove.toml is the documented example) into `a`. Every key is
// known and typed: anything else is an error naming the file, the key and the problem.
void load_config(const std::string& path, ServeArgs& a) {
  // toml++ reads a directory as an empty document: a config must be a file.
  std::error_code fec;
  const auto kind = std::filesystem::status(path, fec).type();
  if (kind == std::filesystem::file_type::not_found)
    throw Error(fmt::format("{}: no such config file", path));
  if (kind != std::filesystem::file_type::regular)
    throw Error(fmt::format("{}: not a regular file (a config is a TOML file)", path));
  toml::table t;
  try {
    t = toml::parse_file(path);
  } catch (const toml::parse_error& e) {
    throw Error(fmt::format("{}:{}:{}: {}", path, e.source().begin.line, e.source().begin.column,
                            e.description()));
  }
  auto where = [&](std::string_view sec, std::string_view key) { return fmt::format("{}: [{}] {}", path, sec, key); };
  auto str = [&](const toml::node& n, std::string_view sec, std::string_view key) {
    if (auto v = n.value<std::string>()) return *v;
    throw Error(fmt::format("{}: a string is expected", where(sec, key)));
  };
  auto num = [&](const toml::node& n, std::string_view sec, std::string_view key, std::int64_t lo,
                 std::int64_t hi) {
    auto v = n.value<std::int64_t>();
    if (!v) throw Error(fmt::format("{}: an integer is expected", where(sec, key)));
    if (*v < lo || *v > hi) throw Error(fmt::format("{}: {} outside {}..{}", where(sec, key), *v, lo, hi));
    return *v;
  };
  auto size = [&](const toml::node& n, std::string_view sec, std::string_view key) {
    if (auto v = n.value<std::int64_t>()) {
      if (*v < 0) throw Error(fmt::format("{}: a size cannot be negative", where(sec, key)));
      return std::to_string(*v);
    }
    return str(n, sec, key);
  };
  using Setter = std::function<void(const toml::node&, std::string_view, std::string_view)>;
  const std::map<std::string, std::map<std::string, Setter>> keys = {
      {"store",
       {{"state_dir", [&](auto& n, auto s, auto k) { a.d.store.state_dir = str(n, s, k); }},
        {"spool_dir", [&](auto& n, auto s, auto k) { a.d.store.spool_dir = str(n, s, k); }},
        {"key_dir", [&](auto& n, auto s, auto k) { a.d.key_dir = str(n, s, k); }},
        {"max_attempts", [&](auto& n, auto s, auto k) { a.d.store.max_attempts = std::uint32_t(num(n, s, k, 1, 100)); }},
        {"url", [&](auto& n, auto s, auto k) { a.d.store.url = str(n, s, k); }},
        {"lease_seconds", [&](auto& n, auto s, auto k) { a.d.store.lease_ms = std::uint32_t(num(n, s, k, 1, 3600)) * 1000; }},
        {"reconnect_seconds", [&](auto& n, auto s, auto k) { a.d.store.reconnect_ms = std::uint32_t(num(n, s, k, 1, 3600)) * 1000; }}}},
      {"admission",
       {{"max_pending_jobs", [&](auto& n, auto s, auto k) { a.d.max_pending_jobs = std::uint32_t(num(n, s, k, 1, 1'000'000)); }},
        {"max_spool_bytes", [&](auto& n, auto s, auto k) { a.max_spool = size(n, s, k); }},
        {"max_partitions_per_job", [&](auto& n, auto s, auto k) { a.d.max_partitions_per_job = std::uint32_t(num(n, s, k, 1, 65536)); }},
        {"max_witness_bytes", [&](auto& n, auto s, auto k) { a.max_witness = size(n, s, k); }}}},
      {"retention",
       {{"input_retention_minutes", [&](auto& n, auto s, auto k) { a.d.input_retention_minutes = std::uint32_t(num(n, s, k, 0, 1'000'000)); }},
        {"job_retention_hours", [&](auto& n, auto s, auto k) { a.d.job_retention_hours = std::uint32_t(num(n, s, k, 0, 1'000'000)); }},
        {"gc_interval_s", [&](auto& n, auto s, auto k) { a.d.gc_interval_s = std::uint32_t(num(n, s, k, 1, 86400)); }}}},
      {"engine",
       {{"backend", [&](auto& n, auto s, auto k) { a.d.backend = str(n, s, k); }},
        {"synthesis_workers", [&](auto& n, auto s, auto k) { a.d.synthesis_workers = std::uint32_t(num(n, s, k, 1, 4096)); }},
        {"gpu_workers", [&](auto& n, auto s, auto k) { a.d.gpu_workers = std::uint32_t(num(n, s, k, 1, 64)); }},
        {"budget", [&](auto& n, auto s, auto k) { a.budget = size(n, s, k); }},
        {"window", [&](auto& n, auto s, auto k) { a.d.window = std::uint32_t(num(n, s, k, 0, 4096)); }}}},
      {"gpus",
       {{"devices",
         [&](auto& n, auto s, auto k) {
           if (const auto* arr = n.as_array()) {
             a.d.devices.clear();
             for (const auto& e : *arr)
               a.d.devices.push_back(int(num(e, s, k, 0, std::int64_t(pipeline::BackendRequest::kMaxDevices) - 1)));
           } else {
             a.d.devices = pipeline::parse_device_list(str(n, s, k), where(s, k));
           }
         }},
        {"logical_devices", [&](auto& n, auto s, auto k) { a.d.logical_devices = std::uint32_t(num(n, s, k, 1, pipeline::BackendRequest::kMaxLogical)); }},
        {"gpu_workers_per_device", [&](auto& n, auto s, auto k) { a.d.gpu_workers = std::uint32_t(num(n, s, k, 1, 64)); }}}},
      {"server",
       {{"listen",
         [&](auto& n, auto s, auto k) {
           const auto* arr = n.as_array();
           if (!arr) throw Error(fmt::format("{}: an array of addresses is expected", where(s, k)));
           a.listen.clear();
           for (const auto& e : *arr) a.listen.push_back(str(e, s, k));
         }},
        {"http", [&](auto& n, auto s, auto k) { a.http = str(n, s, k); }},
        {"tls_cert", [&](auto& n, auto s, auto k) { a.tls_cert = str(n, s, k); }},
        {"tls_key", [&](auto& n, auto s, auto k) { a.tls_key = str(n, s, k); }},
        {"token_file", [&](auto& n, auto s, auto k) { a.token_file = str(n, s, k); }},
        {"submit_idle_s", [&](auto& n, auto s, auto k) { a.submit_idle_s = std::uint32_t(num(n, s, k, 1, 86400)); }},
        {"grace_s",
         [&](auto& n, auto s, auto k) {
           auto v = n.template value<double>();
           if (!v) throw Error(fmt::format("{}: a number is expected", where(s, k)));
           // TOML has nan and inf: refused here as below, with the file and the key named.
           if (!std::isfinite(*v) || *v < 0 || *v > 86400)
             throw Error(fmt::format("{}: {} outside 0..86400 seconds", where(s, k), *v));
           a.grace_s = *v;
         }}}},
  };
  for (const auto& [sec, node] : t) {
    const std::string sname(sec.str());
    const auto known = keys.find(sname);
    if (known == keys.end())
      throw Error(fmt::format("{}: unknown section [{}] (sections: store, admission, retention, engine, gpus, server)",
                              path, sname));
    const auto* tab = node.as_table();
    if (!tab) throw Error(fmt::format("{}: '{}' must be a section ([{}])", path, sname, sname));
    for (const auto& [key, value] : *tab) {
      const std::string kname(key.str());
      const auto setter = known->second.find(kname);
      if (setter == known->second.end()) {
        std::string names;
        for (const auto& [k, _] : known->second) names += (names.empty() ? "" : ", ") + k;
        throw Error(fmt::format("{}: unknown key (in [{}]: {})", where(sname, kname), sname, names));
      }
      setter->second(value, sname, kname);
    }
  }
}

void run_serve(ServeArgs a) {
  if (a.lease_s) a.d.store.lease_ms = *a.lease_s * 1000;
  if (!a.budget.empty()) a.d.budget = mem::parse_size(a.budget, "budget");
  a.d.max_spool_bytes = mem::parse_size(a.max_spool, "max_spool_bytes");
  a.d.max_witness_bytes = mem::parse_size(a.max_witness, "max_witness_bytes");
  // NaN compares false with everything: checked as "finite and in range", not "out of range".
  if (!(std::isfinite(a.grace_s) && a.grace_s >= 0 && a.grace_s <= 86400))
    throw Error(fmt::format("serve: --grace-s {}: 0..86400", a.grace_s));
  if (a.listen.empty())
    a.listen.push_back("unix:" + (std::filesystem::path(a.d.store.state_dir) / "splitprove.sock").string());
  service::ServerConfig sc;
  sc.listen = a.listen;
  sc.tls_cert_file = a.tls_cert;
  sc.tls_key_file = a.tls_key;
  sc.token_file = a.token_file;
  if (a.submit_idle_s < 1 || a.submit_idle_s > 86400)
    throw Error(fmt::format("serve: --submit-idle-s {}: 1..86400", a.submit_idle_s));
  sc.submit_idle = std::chrono::seconds(a.submit_idle_s);
  sc.check();
  for (const auto& l : a.listen) service::check_listen_address(l, sc.secure());
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
  service::Server server(daemon, sc);
  std::unique_ptr<service::HttpServer> http;
  if (!a.http.empty()) http = std::make_unique<service::HttpServer>(daemon, a.http);
  std::string grpc_addrs;
  std::size_t tcp = 0;
  for (const auto& l : a.listen) {
    if (!grpc_addrs.empty()) grpc_addrs += ',';
    grpc_addrs += l.starts_with("unix:") ? l : l.substr(0, l.rfind(':') + 1) + std::to_string(server.ports()[tcp++]);
  }
  daemon.advertise(grpc_addrs);
  service::log_event(
      spdlog::level::info, "serving",
      {{"listen", grpc_addrs},
       {"tls", sc.secure() ? "on" : "off"},
       {"http", http ? fmt::format("{}:{}", a.http.substr(0, a.http.rfind(':')), http->port()) : ""},
       {"state_dir", a.d.store.state_dir}, {"store", daemon.status().cluster.store}, {"key_dir", a.d.key_dir}, {"backend", a.d.backend},
       {"synthesis_workers", std::to_string(a.d.synthesis_workers)}, {"gpu_workers", std::to_string(a.d.gpu_workers)},
       {"logical_devices", std::to_string(a.d.logical_devices)},
       {"window", std::to_string(daemon.config().window)}, {"requeued", std::to_string(r.requeued)},
       {"failed", std::to_string(r.failed)}, {"spool_removed", std::to_string(r.spool_removed + r.temporaries_removed)}});
  int sig = 0;
  sigwait(&set, &sig);
  service::log_event(spdlog::level::info, "stopping",
                     {{"signal", sig == SIGTERM ? "SIGTERM" : "SIGINT"}, {"grace_s", fmt::format("{}", a.grace_s)}});
  const auto grace = std::chrono::milliseconds(std::int64_t(a.grace_s * 1000));
  if (http) http->stop();
  server.shutdown(std::chrono::milliseconds(2000));
  daemon.stop(grace);
  service::log_event(spdlog::level::info, "stopped", {});
}

Register reg([](CLI::App& app) {
  auto a = std::make_shared<ServeArgs>();
  auto config = std::make_shared<std::string>();
  // Flags given on the command line override the config file: each option knows how to copy its
  // value from the parsed flags into the configuration read from the file.
  using Copy = std::function<void(const ServeArgs&, ServeArgs&)>;
  auto copies = std::make_shared<std::vector<std::pair<CLI::Option*, Copy>>>();
  auto* c = app.add_subcommand("serve", "Run the proving daemon (gRPC API proto/splitprove/v1/prover.proto)");
  c->add_option("--config", *config, "A TOML config (example: docs/splitprove.toml); flags override it");
  auto opt = [&](CLI::Option* o, Copy copy) { copies->emplace_back(o, std::move(copy)); return o; };
  opt(c->add_option("--state-dir", a->d.store.state_dir, "Directory of the job store (splitprove.db) and the spool"),
      [](auto& f, auto& t) { t.d.store.state_dir = f.d.store.state_dir; });
  opt(c->add_option("--store", a->d.store.url,
                    "Job store: sqlite (default, in STATE_DIR) or a postgresql:// URL that several daemons share"),
      [](auto& f, auto& t) { t.d.store.url = f.d.store.url; });
  opt(c->add_option("--lease-s", a->lease_s,
                    "A claim's lease on a shared store, in seconds: a daemon silent this long loses its claims (default 30)")
          ->check(CLI::Range(1u, 3600u)),
      [](auto& f, auto& t) { t.lease_s = f.lease_s; });
  opt(c->add_option("--key-dir", a->d.key_dir, "Directory that RegisterKey paths are relative to"),
      [](auto& f, auto& t) { t.d.key_dir = f.d.key_dir; });
  opt(c->add_option("--spool-dir", a->d.store.spool_dir, "Witness spool (default: STATE_DIR/spool)"),
      [](auto& f, auto& t) { t.d.store.spool_dir = f.d.store.spool_dir; });
  opt(c->add_option("--listen", a->listen,
                    "unix:PATH or a loopback HOST:PORT (PORT 0: any free one); another HOST:PORT needs "
                    "--tls-cert, --tls-key and --token-file; repeatable (default: unix:STATE_DIR/splitprove.sock)"),
      [](auto& f, auto& t) { t.listen = f.listen; });
  opt(c->add_option("--tls-cert", a->tls_cert, "PEM certificate chain: serve every TCP address over TLS"),
      [](auto& f, auto& t) { t.tls_cert = f.tls_cert; });
  opt(c->add_option("--tls-key", a->tls_key, "PEM private key of --tls-cert"),
      [](auto& f, auto& t) { t.tls_key = f.tls_key; });
  opt(c->add_option("--token-file", a->token_file,
                    "File of the bearer token every call on a TLS address must carry (mode 600, >= 16 characters)"),
      [](auto& f, auto& t) { t.token_file = f.token_file; });
  opt(c->add_option("--backend", a->d.backend, "Pipeline backend: auto | cpu | cuda")->capture_default_str(),
      [](auto& f, auto& t) { t.d.backend = f.d.backend; });
  opt(c->add_option("--synthesis-workers,--pw", a->d.synthesis_workers, "Synthesis workers per curve")->capture_default_str(),
      [](auto& f, auto& t) { t.d.synthesis_workers = f.d.synthesis_workers; });
  opt(c->add_option("--gpu-workers,--gw,--gpu-workers-per-device", a->d.gpu_workers,
                    "GPU-stage workers per device and curve")->capture_default_str(),
      [](auto& f, auto& t) { t.d.gpu_workers = f.d.gpu_workers; });
  {
    auto* dev = c->add_option_function<std::string>(
        "--devices", [a](const std::string& v) { a->d.devices = pipeline::parse_device_list(v, "--devices"); },
        "GPUs to run on: all (default: every visible one) or indices, e.g. 0,1");
    opt(dev, [](auto& f, auto& t) { t.d.devices = f.d.devices; });
    opt(c->add_option("--logical-devices", a->d.logical_devices,
                      "Split each device (or the CPU backend) into N logical devices: own GPU-stage workers, an equal "
                      "share of the device budget, own resident keys; a device fault takes out only its own")
            ->capture_default_str()
            ->check(CLI::Range(1u, pipeline::BackendRequest::kMaxLogical)),
        [](auto& f, auto& t) { t.d.logical_devices = f.d.logical_devices; });
  }
  opt(c->add_option("--budget", a->budget,
                    "Host memory budget shared by both curves' engines, resident keys included (e.g. 40GiB; default: none)"),
      [](auto& f, auto& t) { t.budget = f.budget; });
  opt(c->add_option("--window", a->d.window, "Partitions claimed at once (default: pw + gw + 7: every pipeline slot and two more)"),
      [](auto& f, auto& t) { t.d.window = f.d.window; });
  opt(c->add_option("--max-pending-jobs", a->d.max_pending_jobs, "Queued + running jobs before Submit is refused")->capture_default_str(),
      [](auto& f, auto& t) { t.d.max_pending_jobs = f.d.max_pending_jobs; });
  opt(c->add_option("--max-spool", a->max_spool, "Spooled witness bytes before Submit is refused")->capture_default_str(),
      [](auto& f, auto& t) { t.max_spool = f.max_spool; });
  opt(c->add_option("--max-partitions-per-job", a->d.max_partitions_per_job, "Partitions in one job")->capture_default_str(),
      [](auto& f, auto& t) { t.d.max_partitions_per_job = f.d.max_partitions_per_job; });
  opt(c->add_option("--max-witness", a->max_witness, "Bytes of one witness")->capture_default_str(),
      [](auto& f, auto& t) { t.max_witness = f.max_witness; });
  opt(c->add_option("--max-attempts", a->d.store.max_attempts,
                    "Starts of a partition (after crashes or device errors) before it fails its job")->capture_default_str(),
      [](auto& f, auto& t) { t.d.store.max_attempts = f.d.store.max_attempts; });
  opt(c->add_option("--input-retention-minutes", a->d.input_retention_minutes,
                    "Keep a finished job's witnesses this long")->capture_default_str(),
      [](auto& f, auto& t) { t.d.input_retention_minutes = f.d.input_retention_minutes; });
  opt(c->add_option("--job-retention-hours", a->d.job_retention_hours,
                    "Keep a finished job (its proofs, its idempotency key) this long")->capture_default_str(),
      [](auto& f, auto& t) { t.d.job_retention_hours = f.d.job_retention_hours; });
  opt(c->add_option("--gc-interval-s", a->d.gc_interval_s, "Seconds between collections")->capture_default_str(),
      [](auto& f, auto& t) { t.d.gc_interval_s = f.d.gc_interval_s; });
  opt(c->add_option("--http", a->http, "Serve GET /metrics, /status and /healthz on this loopback HOST:PORT"),
      [](auto& f, auto& t) { t.http = f.http; });
  opt(c->add_option("--grace-s", a->grace_s, "On SIGTERM: seconds in-flight partitions get to finish")->capture_default_str(),
      [](auto& f, auto& t) { t.grace_s = f.grace_s; });
  opt(c->add_option("--submit-idle-s", a->submit_idle_s,
                    "A Submit stream that sends nothing this long is failed (DEADLINE_EXCEEDED) and its "
                    "admission released")->capture_default_str(),
      [](auto& f, auto& t) { t.submit_idle_s = f.submit_idle_s; });
  c->callback([a, config, copies] {
    if (config->empty()) return run_serve(*a);
    ServeArgs merged;
    load_config(*config, merged);
    for (const auto& [o, copy] : *copies)
      if (o->count()) copy(*a, merged);
    run_serve(merged);
  });
});

}  // namespace
}  // namespace splitprove::cli
