#pragma once
// The daemon's gRPC front: the splitprove.v1.Prover service (proto/splitprove/v1/prover.proto)
// over a Daemon, with the standard health and reflection services beside it.
//
// Listening: "unix:PATH" (the socket is made mode 0600) or a loopback TCP address
// ("127.0.0.1:PORT", "[::1]:PORT", "localhost:PORT"; PORT 0 picks a free one). Any other
// address ("0.0.0.0:PORT", a host name, an interface's address) needs TLS and a bearer token:
// with both configured, every TCP address is served over TLS and every call on it must carry
// "authorization: Bearer TOKEN" (else UNAUTHENTICATED); unix sockets stay plain (their mode
// guards them).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

namespace google::protobuf {
class Message;
}

namespace splitprove::service {

class Daemon;

struct ServerConfig {
  std::vector<std::string> listen;          // at least one
  std::size_t max_receive_bytes = 8u << 20; // a 4 MiB chunk and its framing fit
  std::size_t max_send_bytes = 64u << 20;
  // TLS for TCP addresses: PEM files of the server's certificate chain and private key, and a
  // file holding the bearer token (one line, >= 16 characters, not readable by group or others).
  // All three or none.
  std::string tls_cert_file, tls_key_file, token_file;
  // A Submit (or Prove, until its job is accepted) whose client sends nothing for this long is
  // failed with DEADLINE_EXCEEDED and gives back what it was admitted with (a pending-job slot
  // and its spool reservation), so idle streams cannot hold admission.
  std::chrono::milliseconds submit_idle{60'000};
  bool secure() const { return !tls_cert_file.empty(); }
  // Error naming the problem: only some of the three given, a file unreadable, a token too short
  // or readable by others.
  void check() const;
};

class Server {
 public:
  // Starts serving (Error naming an address that cannot be bound or is refused).
  Server(Daemon& daemon, ServerConfig cfg);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;
  // The TCP ports bound, in the order of the TCP addresses in `listen` (PORT 0 resolved).
  const std::vector<int>& ports() const;
  // Stops accepting calls; calls still running get until `deadline`, then are cancelled.
  void shutdown(std::chrono::milliseconds deadline);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// GetStatus' reply as JSON (for GET /status).
std::string status_json(Daemon& daemon);

// A message as indented JSON with the .proto's field names (GET /status, the CLI's replies).
std::string message_json(const google::protobuf::Message& m);

// Checks a listen address against the rules above (Error naming it); `secure`: TLS and a token
// are configured, so addresses beyond loopback are allowed.
void check_listen_address(const std::string& addr, bool secure = false);

}  // namespace splitprove::service
