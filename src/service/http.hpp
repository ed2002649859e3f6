#pragma once
// The daemon's plain-HTTP side (a separate port from gRPC): GET /metrics (Prometheus text
// exposition: jobs and partitions by state, stage latencies as histograms, queue depths, budget,
// RSS), GET /status (GetStatus as JSON), GET /memory.svg (the memory timeline since start, with
// its verdict) and GET /healthz. Loopback addresses only, as for gRPC.
#include <memory>
#include <string>

namespace splitprove::service {

class Daemon;

class HttpServer {
 public:
  // Binds `listen` ("127.0.0.1:PORT", "localhost:PORT", "[::1]:PORT"; PORT 0: any free one) and
  // serves in its own thread. Error naming the address when it cannot.
  HttpServer(Daemon& daemon, const std::string& listen);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;
  int port() const;
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace splitprove::service
