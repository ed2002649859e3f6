#pragma once
// What the daemon's client commands share: the connection (--server, TLS and the bearer token),
// gRPC status checks and JSON printing of replies.
#include <CLI/CLI.hpp>
#include <google/protobuf/message.h>
#include <grpcpp/grpcpp.h>

#include <fmt/format.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "splitprove/error.hpp"

#include "splitprove/v1/prover.grpc.pb.h"

namespace splitprove::cli::remote {
namespace v1 = ::splitprove::v1;

// The daemon's address and credentials. Empty fields fall back to the environment:
// SPLITPROVE_SERVER, SPLITPROVE_TLS_CA, SPLITPROVE_TOKEN_FILE.
struct Conn {
  std::string server;      // unix:PATH or HOST:PORT
  std::string tls_ca;      // PEM roots that sign the daemon's certificate: use TLS
  std::string token_file;  // the bearer token sent with every call (needs TLS)
  // One channel per call (Error naming a missing address or unreadable file).
  std::unique_ptr<::splitprove::v1::Prover::Stub> stub() const;
};

// Adds --server, --tls-ca and --token-file to a subcommand.
void add_server(CLI::App* c, Conn& conn);

// The gRPC status code's name (RESOURCE_EXHAUSTED, ...).
const char* code_name(grpc::StatusCode c);

// Throws Error "what: CODE: message" unless `s` is OK.
void check(const grpc::Status& s, const std::string& what);


// A job to submit: a native key's seed and partition count, or one .wtns per partition.
struct SubmitArgs {
  Conn conn;
  std::string key, idem, out_dir;
  std::int32_t priority = 0;
  std::optional<std::uint64_t> native_seed;
  std::uint32_t partitions = 0;
  std::vector<std::string> witnesses;
  bool wait = false, quiet = false;
};

// Sends a job on a Submit or Prove stream: the header, then each witness in chunks of 1 MiB
// (stops early when the server has answered already: an error, or a deduplicated job).
template <class Stream>
void send_job(Stream& stream, const SubmitArgs& a) {
  v1::SubmitRequest req;
  auto* h = req.mutable_header();
  h->set_key_id(a.key);
  h->set_idempotency_key(a.idem);
  h->set_priority(a.priority);
  if (a.native_seed) {
    h->set_partitions(a.partitions);
    h->mutable_native()->set_seed(*a.native_seed);
    stream->Write(req);
    stream->WritesDone();
    return;
  }
  h->set_partitions(std::uint32_t(a.witnesses.size()));
  for (const auto& w : a.witnesses) h->mutable_circom()->add_witness_bytes(std::filesystem::file_size(w));
  if (!stream->Write(req)) return;  // the server answered already (an error, or a deduplicated job)
  std::vector<char> buf(std::size_t(1) << 20);
  for (std::size_t i = 0; i < a.witnesses.size(); ++i) {
    std::ifstream in(a.witnesses[i], std::ios::binary);
    if (!in) throw Error(fmt::format("{}: cannot open", a.witnesses[i]));
    std::uint64_t off = 0;
    while (in) {
      in.read(buf.data(), std::streamsize(buf.size()));
      const auto n = std::size_t(in.gcount());
      if (n == 0) break;
      v1::SubmitRequest c;
      c.mutable_chunk()->set_partition(std::uint32_t(i));
      c.mutable_chunk()->set_offset(off);
      c.mutable_chunk()->set_data(buf.data(), n);
      off += n;
      if (!stream->Write(c)) return;
    }
  }
  stream->WritesDone();
}

}  // namespace splitprove::cli::remote
