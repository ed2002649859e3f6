#include "service/http.hpp"

#include <httplib.h>
#include <prometheus/counter.h>
#include <prometheus/gauge.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <fmt/format.h>

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include <thread>

#include "mem/process_memory.hpp"
#include "service/daemon.hpp"
#include "service/grpc_service.hpp"
#include "splitprove/error.hpp"

namespace splitprove::service {

struct HttpServer::Impl {
  Daemon& d;
  httplib::Server server;
  std::thread thread;
  int port = 0;
  explicit Impl(Daemon& dm) : d(dm) {}
};

namespace {

// The scrape-time metrics: gauges set from the daemon's status, counters from its totals. The
// stage histograms live in the daemon's registry (observed as partitions leave stages).
std::string metrics_text(Daemon& d) {
  const auto s = d.status();
  prometheus::Registry reg;
  auto& jobs = prometheus::BuildGauge().Name("splitprove_jobs").Help("Jobs in the store by state").Register(reg);
  jobs.Add({{"state", "queued"}}).Set(s.counts.queued_jobs);
  jobs.Add({{"state", "running"}}).Set(s.counts.running_jobs);
  auto& parts = prometheus::BuildGauge().Name("splitprove_partitions").Help("Partitions of pending jobs by state").Register(reg);
  parts.Add({{"state", "queued"}}).Set(s.counts.queued_partitions);
  parts.Add({{"state", "running"}}).Set(s.counts.running_partitions);
  auto& stage = prometheus::BuildGauge().Name("splitprove_partitions_in_stage").Help("Claimed partitions by engine stage").Register(reg);
  std::map<std::string, int> by_stage = {{"waiting", 0}, {"synthesis", 0}, {"gpu", 0}, {"g2", 0}, {"finalize", 0}};
  for (const auto& p : s.partitions) ++by_stage[p.stage.empty() ? "waiting" : p.stage];
  for (const auto& [k, v] : by_stage) stage.Add({{"stage", k}}).Set(v);
  auto& done = prometheus::BuildCounter().Name("splitprove_jobs_finished_total").Help("Jobs finished since start by outcome").Register(reg);
  done.Add({{"state", "succeeded"}}).Increment(double(s.jobs_succeeded));
  done.Add({{"state", "failed"}}).Increment(double(s.jobs_failed));
  done.Add({{"state", "cancelled"}}).Increment(double(s.jobs_cancelled));
  prometheus::BuildCounter().Name("splitprove_partitions_done_total").Help("Partitions proved and committed since start")
      .Register(reg).Add({}).Increment(double(s.partitions_done));
  auto& q = prometheus::BuildGauge().Name("splitprove_queue").Help("Admission queues: value and bound").Register(reg);
  q.Add({{"queue", "pending_jobs"}, {"what", "depth"}}).Set(s.counts.queued_jobs + s.counts.running_jobs);
  q.Add({{"queue", "pending_jobs"}, {"what", "bound"}}).Set(d.config().max_pending_jobs);
  q.Add({{"queue", "claimed_partitions"}, {"what", "depth"}}).Set(s.in_flight);
  q.Add({{"queue", "claimed_partitions"}, {"what", "bound"}}).Set(s.window);
  q.Add({{"queue", "spool_bytes"}, {"what", "depth"}}).Set(double(s.counts.spool_bytes));
  q.Add({{"queue", "spool_bytes"}, {"what", "bound"}}).Set(double(d.config().max_spool_bytes));
  auto& b = prometheus::BuildGauge().Name("splitprove_budget_bytes").Help("Host memory budget books").Register(reg);
  b.Add({{"what", "capacity"}}).Set(double(s.budget_total));
  b.Add({{"what", "used"}}).Set(double(s.budget_used));
  b.Add({{"what", "peak"}}).Set(double(s.budget_peak));
  auto& tag = prometheus::BuildGauge().Name("splitprove_budget_tag_bytes").Help("Budget used by tag").Register(reg);
  for (const auto& [k, v] : s.budget_by_tag) tag.Add({{"tag", k}}).Set(double(v));
  prometheus::BuildGauge().Name("splitprove_rss_bytes").Help("Process resident set size").Register(reg)
      .Add({}).Set(double(mem::read_rss()));
  auto& dev = prometheus::BuildGauge().Name("splitprove_device_memory_bytes")
                  .Help("Device memory per GPU: total and free (driver), the device budget's capacity, used and peak, resident keys")
                  .Register(reg);
  auto& up = prometheus::BuildGauge().Name("splitprove_device_up")
                 .Help("1 while the (logical) device is in service, 0 after a device fault took it out")
                 .Register(reg);
  auto& runs = prometheus::BuildCounter().Name("splitprove_device_partitions_total")
                   .Help("Partitions whose GPU stage ended well on the (logical) device, since the process started")
                   .Register(reg);
  auto& faults = prometheus::BuildCounter().Name("splitprove_device_faults_total")
                     .Help("Device faults seen on the (logical) device").Register(reg);
  for (const auto& g : s.gpus) {
    const std::string i = std::to_string(g.index);
    for (const auto& [what, v] : {std::pair{"total", g.total_bytes}, std::pair{"free", g.free_bytes},
                                  std::pair{"budget_capacity", g.budget_capacity}, std::pair{"budget_used", g.budget_used},
                                  std::pair{"budget_peak", g.budget_peak}, std::pair{"keys", g.key_bytes}})
      dev.Add({{"gpu", i}, {"device", g.logical}, {"what", what}}).Set(double(v));
    up.Add({{"gpu", i}, {"device", g.logical}}).Set(g.healthy ? 1 : 0);
    runs.Add({{"gpu", i}, {"device", g.logical}}).Increment(double(g.partitions));
    faults.Add({{"gpu", i}, {"device", g.logical}}).Increment(double(g.faults));
  }
  auto families = reg.Collect();
  for (auto& f : d.metrics()->Collect()) families.push_back(std::move(f));
  return prometheus::TextSerializer().Serialize(families);
}

constexpr std::size_t kMaxRequestBody = 0;  // GET pages only
constexpr std::size_t kWorkers = 32;

}  // namespace

HttpServer::HttpServer(Daemon& daemon, const std::string& listen) : impl_(std::make_unique<Impl>(daemon)) {
  check_listen_address(listen);
  if (listen.starts_with("unix:")) throw Error(fmt::format("http listen address '{}': give a loopback HOST:PORT", listen));
  auto& srv = impl_->server;
  // Every page is a GET without a body: a request that carries one is refused before it is read
  // (and before a compressed one is inflated), whatever its size; the connection is then closed,
  // its unread body with it. Idle and slow connections give their worker back after a second, and
  // enough workers serve that a few of them cannot hold /healthz back.
  srv.set_payload_max_length(kMaxRequestBody);
  srv.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
    const bool body = req.has_header("Transfer-Encoding") ||
                      (req.has_header("Content-Length") && req.get_header_value("Content-Length") != "0");
    if (!body) return httplib::Server::HandlerResponse::Unhandled;
    res.status = 413;
    res.set_header("Connection", "close");
    res.set_content("these pages take no request body\n", "text/plain");
    return httplib::Server::HandlerResponse::Handled;
  });
  srv.set_read_timeout(std::chrono::seconds(1));
  srv.set_write_timeout(std::chrono::seconds(5));
  srv.set_keep_alive_timeout(1);
  srv.new_task_queue = [] { return new httplib::ThreadPool(kWorkers); };
  // A page made by `make` (on each request), served as `type`; an error is a 500 with its text.
  auto page = [this, &srv](const char* path, const char* type, std::function<std::string(Daemon&)> make) {
    srv.Get(path, [this, type, make = std::move(make)](const httplib::Request&, httplib::Response& res) {
      try {
        res.set_content(make(impl_->d), type);
      } catch (const std::exception& e) {
        res.status = 500;
        res.set_content(e.what(), "text/plain");
      }
    });
  };
  page("/metrics", "text/plain; version=0.0.4", [](Daemon& d) { return metrics_text(d); });
  page("/status", "application/json", [](Daemon& d) { return status_json(d); });
  page("/memory.svg", "image/svg+xml", [](Daemon& d) { return d.memory_svg(); });
  srv.Get("/healthz", [this](const httplib::Request&, httplib::Response& res) {
    const bool accepting = impl_->d.accepting(), devices = impl_->d.devices_serving();
    res.status = accepting && devices ? 200 : 503;
    res.set_content(!accepting ? "not accepting jobs\n"
                    : devices  ? "serving\n"
                               : "every device is out of service\n",
                    "text/plain");
  });
  // The library listens with a backlog of 5: under load a few idle connections fill it, and a new
  // one's SYN is dropped, to be sent again a second later. The listening socket is recorded here
  // and listened on again, once bound, with the system's backlog.
  int listen_fd = -1;
  srv.set_socket_options([&listen_fd](socket_t sock) {
    httplib::default_socket_options(sock);
    listen_fd = int(sock);
  });
  const auto colon = listen.rfind(':');
  std::string host = listen.substr(0, colon);
  if (host == "[::1]") host = "::1";
  const int want = std::stoi(listen.substr(colon + 1));
  impl_->port = want == 0 ? srv.bind_to_any_port(host) : (srv.bind_to_port(host, want) ? want : -1);
  if (impl_->port <= 0) throw Error(fmt::format("http listen address '{}' cannot be bound", listen));
  if (listen_fd >= 0 && ::listen(listen_fd, SOMAXCONN) != 0)
    throw Error(fmt::format("http listen address '{}': listen: {}", listen, std::strerror(errno)));
  impl_->thread = std::thread([this] { impl_->server.listen_after_bind(); });
}

HttpServer::~HttpServer() { stop(); }

int HttpServer::port() const { return impl_->port; }

void HttpServer::stop() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

}  // namespace splitprove::service
