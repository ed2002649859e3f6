#include "service/grpc_service.hpp"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/ext/proto_server_reflection_plugin.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/health_check_service_interface.h>
#include <sys/stat.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <condition_variable>
#include <iterator>
#include <map>
#include <mutex>
#include <thread>

#include "service/daemon.hpp"
#include "service/errors.hpp"
#include "service/grpc_messages.hpp"
#include "service/log.hpp"
#include "splitprove/v1/prover.grpc.pb.h"

namespace splitprove::service {
namespace v1 = ::splitprove::v1;
using namespace grpc_messages;
using grpc::ServerContext;
using grpc::Status;
using grpc::StatusCode;

void check_listen_address(const std::string& addr, bool secure) {
  if (addr.starts_with("unix:")) {
    if (addr.size() == 5) throw Error("listen address 'unix:' names no socket path");
    return;
  }
  const auto colon = addr.rfind(':');
  if (colon == std::string::npos || colon + 1 == addr.size())
    throw Error(fmt::format("listen address '{}': give unix:PATH or HOST:PORT", addr));
  const std::string host = addr.substr(0, colon), port = addr.substr(colon + 1);
  for (char c : port)
    if (c < '0' || c > '9') throw Error(fmt::format("listen address '{}': port '{}' is not a number", addr, port));
  if (port.size() > 5 || std::stoul(port) > 65535)
    throw Error(fmt::format("listen address '{}': port {} above 65535", addr, port));
  if (host.empty()) throw Error(fmt::format("listen address '{}' names no host", addr));
  if (!secure && host != "127.0.0.1" && host != "[::1]" && host != "localhost")
    throw Error(fmt::format("listen address '{}': beyond loopback, TLS and a bearer token are needed "
                            "(--tls-cert, --tls-key and --token-file, or [server] tls_cert, tls_key, token_file)",
                            addr));
}

namespace {

std::string read_small_file(const std::string& path, const char* what) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw Error(fmt::format("{} {}: {}", what, path, ec.message()));
  if (size > (1u << 20)) throw Error(fmt::format("{} {}: {} bytes, more than 1 MiB", what, path, size));
  std::ifstream in(path, std::ios::binary);
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) throw Error(fmt::format("{} {}: cannot be read", what, path));
  return s;
}

std::string read_token(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) throw Error(fmt::format("token file {}: cannot be read", path));
  if (st.st_mode & 077)
    throw Error(fmt::format("token file {}: readable by group or others (mode {:o}); chmod 600 it", path,
                            st.st_mode & 0777));
  std::string t = read_small_file(path, "token file");
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  if (t.size() < 16) throw Error(fmt::format("token file {}: the token has {} characters, fewer than 16", path, t.size()));
  for (unsigned char c : t)
    if (c < 0x21 || c > 0x7e) throw Error(fmt::format("token file {}: the token must be one line of printable ASCII", path));
  return t;
}

// Every call on a TLS port must carry "authorization: Bearer TOKEN"; compared in constant time.
class BearerCheck final : public grpc::AuthMetadataProcessor {
 public:
  explicit BearerCheck(std::string token) : want_("Bearer " + std::move(token)) {}
  bool IsBlocking() const override { return false; }
  grpc::Status Process(const InputMetadata& md, grpc::AuthContext*, OutputMetadata* consumed,
                       OutputMetadata*) override {
    const auto it = md.find("authorization");
    if (it == md.end())
      return {StatusCode::UNAUTHENTICATED, "this port needs a bearer token (authorization: Bearer TOKEN)"};
    const std::string_view got(it->second.data(), it->second.size());
    unsigned diff = got.size() == want_.size() ? 0u : 1u;
    for (std::size_t i = 0; i < want_.size(); ++i)
      diff |= unsigned(static_cast<unsigned char>(want_[i]) ^ static_cast<unsigned char>(i < got.size() ? got[i] : 0));
    if (diff != 0) return {StatusCode::UNAUTHENTICATED, "the bearer token is not the daemon's"};
    consumed->emplace(std::string(it->first.data(), it->first.size()), std::string(got));
    return Status::OK;
  }

 private:
  std::string want_;
};

}  // namespace

void ServerConfig::check() const {
  const int given = !tls_cert_file.empty() + !tls_key_file.empty() + !token_file.empty();
  if (given != 0 && given != 3)
    throw Error("serve: TLS needs all three of --tls-cert, --tls-key and --token-file");
  if (given == 0) return;
  (void)read_small_file(tls_cert_file, "TLS certificate");
  (void)read_small_file(tls_key_file, "TLS key");
  (void)read_token(token_file);
}

namespace {

Status status_of(const std::exception& e) {
  const std::string m = e.what();
  if (dynamic_cast<const StreamCut*>(&e)) return {StatusCode::CANCELLED, m};
  if (dynamic_cast<const NotFound*>(&e)) return {StatusCode::NOT_FOUND, m};
  if (dynamic_cast<const Conflict*>(&e)) return {StatusCode::FAILED_PRECONDITION, m};
  if (dynamic_cast<const Exhausted*>(&e)) return {StatusCode::RESOURCE_EXHAUSTED, m};
  if (dynamic_cast<const Denied*>(&e)) return {StatusCode::PERMISSION_DENIED, m};
  if (dynamic_cast<const Unavailable*>(&e)) return {StatusCode::UNAVAILABLE, m};
  if (dynamic_cast<const Unimplemented*>(&e)) return {StatusCode::UNIMPLEMENTED, m};
  if (dynamic_cast<const StoreError*>(&e) || dynamic_cast<const ConstraintError*>(&e))
    return {StatusCode::INTERNAL, m};
  if (dynamic_cast<const Error*>(&e)) return {StatusCode::INVALID_ARGUMENT, m};
  return {StatusCode::INTERNAL, fmt::format("internal error: {}", m)};
}

template <class F>
Status guard(F&& f) {
  try {
    return f();
  } catch (const std::exception& e) {
    return status_of(e);
  }
}

// Ids are checked before anything else is done with a request, and quoted back only in part
// (echo), however long they are.
void check_job_id(const std::string& id) {
  if (!valid_job_id(id)) throw Error(fmt::format("job id '{}' is not a job id (a UUID in lowercase)", echo(id)));
}
void check_key_id(const std::string& id) {
  bool ok = id.size() == 64;
  for (std::size_t i = 0; ok && i < id.size(); ++i) ok = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'a' && id[i] <= 'f');
  if (!ok) throw Error(fmt::format("key id '{}' is not 64 lowercase hex characters", echo(id)));
}
// Longer than any path a key directory holds (PATH_MAX) or any token ListJobs issues.
constexpr std::size_t kMaxKeyPath = 4096, kMaxPageToken = 256;

// Submit streams being read, and when each last heard from its client: one thread fails those
// idle for longer than `idle` (grpc_call_cancel_with_status: the client gets DEADLINE_EXCEEDED,
// the blocked Read returns false, the handler unwinds and releases its admission). Only the
// client's silence counts: the idle clock runs while the handler waits in Read, and is paused
// while the daemon works (the header's checks and the key's load, a chunk's write, the commit).
class IdleWatch {
 public:
  explicit IdleWatch(std::chrono::milliseconds idle) : idle_(idle), thread_([this] { run(); }) {}
  ~IdleWatch() {
    {
      std::lock_guard lk(mu_);
      stop_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }
  // Watches `ctx` while alive: wait() before each Read (the idle clock starts), work() after it.
  class Entry {
   public:
    Entry(IdleWatch& w, ServerContext* ctx) : w_(w), ctx_(ctx) {
      std::lock_guard lk(w_.mu_);
      w_.streams_[ctx_] = std::chrono::steady_clock::now();
    }
    ~Entry() {
      std::lock_guard lk(w_.mu_);  // the call is not cancelled through ctx_ after this
      w_.streams_.erase(ctx_);
    }
    Entry(const Entry&) = delete;
    Entry& operator=(const Entry&) = delete;
    void wait() { set(std::chrono::steady_clock::now()); }
    void work() { set(std::chrono::steady_clock::time_point::max()); }

   private:
    void set(std::chrono::steady_clock::time_point t) {
      std::lock_guard lk(w_.mu_);
      auto& at = w_.streams_[ctx_];
      if (at != kFired) at = t;
    }

   private:
    IdleWatch& w_;
    ServerContext* ctx_;
  };

 private:
  // A stream failed already, or one the daemon is working for: never (again) failed for idling.
  static constexpr auto kFired = std::chrono::steady_clock::time_point::min();
  void run() {
    // Checked at a quarter of the idle time (at most every second): a stream is failed between
    // `idle` and 1.25 x `idle` after its last message.
    const auto period = std::min<std::chrono::milliseconds>(std::chrono::seconds(1), idle_ / 4 + std::chrono::milliseconds(1));
    std::unique_lock lk(mu_);
    while (!cv_.wait_for(lk, period, [&] { return stop_; })) {
      const auto now = std::chrono::steady_clock::now();
      for (auto it = streams_.begin(); it != streams_.end(); ++it) {
        if (it->second == kFired || it->second == std::chrono::steady_clock::time_point::max() ||
            now - it->second <= idle_)
          continue;
        const std::string why = fmt::format("Submit: nothing from the client for {} s (the daemon's submit_idle_s): "
                                            "the stream is failed and its admission released",
                                            double(idle_.count()) / 1000.0);
        grpc_call_cancel_with_status(it->first->c_call(), GRPC_STATUS_DEADLINE_EXCEEDED, why.c_str(), nullptr);
        it->second = kFired;
      }
    }
  }

  std::chrono::milliseconds idle_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<ServerContext*, std::chrono::steady_clock::time_point> streams_;
  bool stop_ = false;
  std::thread thread_;  // last: started once the rest is made
};

class ProverImpl final : public v1::Prover::Service {
 public:
  ProverImpl(Daemon& d, std::size_t max_send, std::chrono::milliseconds submit_idle)
      : d_(d), max_send_(max_send), idle_(submit_idle) {}

  Status RegisterKey(ServerContext*, const v1::RegisterKeyRequest* req,
                     v1::RegisterKeyResponse* resp) override {
    return guard([&] {
      std::pair<KeyInfo, bool> r;
      if (req->source().has_native()) {
        const auto& n = req->source().native();
        const char* curve = n.curve() == v1::CURVE_BN254       ? "BN254"
                            : n.curve() == v1::CURVE_BLS12_381 ? "BLS12-381"
                                                               : nullptr;
        if (!curve) throw Error("RegisterKey: native.curve is not set (CURVE_BN254 or CURVE_BLS12_381)");
        r = d_.register_native_key(curve, n.log2_size(), req->preload());
      } else if (req->source().has_zkey_path()) {
        if (req->source().zkey_path().size() > kMaxKeyPath)
          throw Error(fmt::format("RegisterKey: a key path of {} bytes: at most {}", req->source().zkey_path().size(),
                                  kMaxKeyPath));
        r = d_.register_key(req->source().zkey_path(), req->preload());
      } else {
        throw Error("RegisterKey: no source (zkey_path or native)");
      }
      auto& [k, existed] = r;
      fill_key(resp->mutable_key(), k);
      resp->set_existed(existed);
      return Status::OK;
    });
  }

  Status ListKeys(ServerContext*, const v1::ListKeysRequest* req, v1::ListKeysResponse* resp) override {
    return guard([&] {
      for (const auto& k : d_.list_keys())
        if (!req->resident_only() || k.resident) fill_key(resp->add_keys(), k);
      return Status::OK;
    });
  }

  Status PreloadKey(ServerContext*, const v1::PreloadKeyRequest* req,
                    v1::PreloadKeyResponse* resp) override {
    return guard([&] {
      check_key_id(req->key_id());
      fill_key(resp->mutable_key(), d_.preload_key(req->key_id(), {req->gpus().begin(), req->gpus().end()}));
      return Status::OK;
    });
  }

  Status EvictKey(ServerContext*, const v1::EvictKeyRequest* req, v1::EvictKeyResponse* resp) override {
    return guard([&] {
      check_key_id(req->key_id());
      auto [k, freed] = d_.evict_key(req->key_id());
      fill_key(resp->mutable_key(), k);
      resp->set_freed_host_bytes(freed);
      return Status::OK;
    });
  }

  // Whether a stream whose Read just ended (false) was cut rather than half-closed: cancelled,
  // its deadline passed, or its connection broken. Read is false in both cases, and a client's
  // cancel may itself end the stream first (grpc-js sends END_STREAM, then RST_STREAM), while
  // IsCancelled learns of the RST_STREAM only when core has processed it: milliseconds later on
  // a loaded host. A stream that ended right after its last message (a client half-closing as it
  // finishes) is taken at once; one that ended after a pause of `idle` > kCutPause (a client that
  // stalled, then gave up) gets kCutGrace for a cancel sent with its end to show.
  static constexpr auto kCutPause = std::chrono::milliseconds(20), kCutGrace = std::chrono::milliseconds(50);
  static bool cut(ServerContext* ctx, std::chrono::steady_clock::duration idle) {
    auto cut_now = [&] {
      return grpc_call_failed_before_recv_message(ctx->c_call()) != 0 || ctx->IsCancelled() ||
             ctx->deadline() <= std::chrono::system_clock::now();
    };
    if (cut_now()) return true;
    if (idle <= kCutPause) return false;
    for (const auto until = std::chrono::steady_clock::now() + kCutGrace; std::chrono::steady_clock::now() < until;) {
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      if (cut_now()) return true;
    }
    return false;
  }

  // Reads a Submit stream (header, then chunks) into the store; fills `resp`. The job is committed
  // only after the client half-closed its stream: Read also ends (false) when the call is
  // cancelled or its deadline passes, and a stream cut that way, even after its last chunk, makes
  // no job (the client is told CANCELLED and would never learn the id).
  template <class Stream>
  void submit(ServerContext* ctx, Stream* stream, v1::SubmitResponse* resp) {
    IdleWatch::Entry watch(idle_, ctx);
    v1::SubmitRequest msg;
    if (!stream->Read(&msg)) {
      if (cut(ctx, std::chrono::steady_clock::duration::zero()))
        throw StreamCut("Submit: the call was cancelled or failed before a header");
      throw Error("Submit: the stream ended before a header");
    }
    watch.work();
    if (!msg.has_header()) throw Error("Submit: the first message must be a header");
    const auto& h = msg.header();
    if (!h.has_circom() && !h.has_native()) throw Error("Submit: the header has no inputs (circom or native)");
    if (h.has_circom() && h.partitions() != std::uint32_t(h.circom().witness_bytes_size()))
      throw Error(fmt::format("Submit: partitions {} but {} witness sizes", h.partitions(),
                              h.circom().witness_bytes_size()));
    check_key_id(h.key_id());
    SubmitHeader sh;
    sh.key_id = h.key_id();
    sh.idempotency_key = h.idempotency_key();
    sh.priority = h.priority();
    sh.partitions = h.partitions();
    if (h.has_native()) {
      sh.native_seed = h.native().seed();
      sh.native_log2 = h.native().log2_size();
    } else {
      sh.witness_bytes.assign(h.circom().witness_bytes().begin(), h.circom().witness_bytes().end());
    }
    auto begin = d_.begin_submit(sh);
    watch.wait();
    auto last = std::chrono::steady_clock::now();  // when the latest message came
    while (stream->Read(&msg)) {
      watch.work();
      if (!msg.has_chunk()) throw Error("Submit: a second header: every message after the first is a chunk");
      const auto& c = msg.chunk();
      if (c.data().size() > (4u << 20))
        throw Error(fmt::format("Submit: a chunk of {} bytes: at most 4 MiB", c.data().size()));
      begin.submission->append(c.partition(), c.offset(),
                               {reinterpret_cast<const std::uint8_t*>(c.data().data()), c.data().size()});
      last = std::chrono::steady_clock::now();
      watch.wait();
    }
    watch.work();
    if (cut(ctx, std::chrono::steady_clock::now() - last))
      throw StreamCut("Submit: the call was cancelled or its deadline passed before the stream was "
                      "half-closed: no job was made");
    auto [job, created] = begin.submission->commit();
    resp->set_job_id(job.job_id);
    resp->set_deduplicated(!created);
    fill_job(resp->mutable_job(), job, d_, false, false);
    if (created)
      log_event(spdlog::level::info, "job_accepted",
                {{"job", job.job_id}, {"partitions", std::to_string(job.partition_count)}, {"key", job.key_id},
                 {"priority", std::to_string(job.priority)}, {"idempotency_key", job.idempotency_key.value_or("")}});
  }

  Status Submit(ServerContext* ctx, grpc::ServerReader<v1::SubmitRequest>* reader,
                v1::SubmitResponse* resp) override {
    return guard([&] {
      submit(ctx, reader, resp);
      return Status::OK;
    });
  }

  // Sends the snapshot, the changes and, at the end, the results of a job.
  template <class Writer>
  Status follow(ServerContext* ctx, const std::string& job_id, Writer* w) {
    std::map<std::uint32_t, std::pair<v1::Stage, std::uint32_t>> sent;
    std::map<std::uint32_t, Millis> entered;  // when each partition entered the stage last sent
    bool first = true;
    for (;;) {
      // Read before the job, so a change made while it is read is not missed.
      const std::uint64_t seen = d_.job_changes(job_id);
      auto j = d_.get_job(job_id, false);
      if (!j) throw NotFound(fmt::format("no job {}", job_id));
      const auto running = d_.running_partitions(job_id);
      for (const auto& p : j->partitions) {
        const auto r = running.find(p.index);
        const auto stage = stage_of(p.state, r == running.end() ? nullptr : &r->second.stage);
        auto it = sent.find(p.index);
        if (it != sent.end() && it->second == std::make_pair(stage, p.attempts)) continue;
        const Millis t = r != running.end() && r->second.stage_since ? r->second.stage_since : now_ms();
        v1::JobEvent ev;
        auto* pe = ev.mutable_progress();
        pe->set_job_id(job_id);
        pe->set_partition(p.index);
        pe->set_stage(stage);
        set_time(pe->mutable_time(), t);
        if (!first && entered.count(p.index)) pe->set_previous_stage_seconds(double(t - entered[p.index]) / 1000.0);
        entered[p.index] = t;
        pe->set_attempt(p.attempts);
        pe->set_gpu(-1);
        pe->set_error(p.error);
        pe->set_snapshot(first);
        if (!w->Write(ev)) return Status(StatusCode::CANCELLED, "the client went away");
        sent[p.index] = {stage, p.attempts};
      }
      first = false;
      if (is_final(j->state)) {
        auto full = d_.get_job(job_id, true);
        if (!full) throw NotFound(fmt::format("no job {}", job_id));
        for (const auto& p : full->partitions) {
          v1::JobEvent ev;
          auto* r = ev.mutable_partition_result();
          r->set_job_id(job_id);
          r->set_partition(p.index);
          r->set_stage(stage_of(p.state, nullptr));
          r->set_proof_json(p.proof_json);
          r->set_public_json(p.public_json);
          r->set_error(p.error);
          if (!w->Write(ev)) return Status(StatusCode::CANCELLED, "the client went away");
        }
        v1::JobEvent ev;
        auto* r = ev.mutable_result();
        r->set_job_id(job_id);
        r->set_state(to_proto(full->state));
        r->set_error(full->error);
        r->set_partitions_done(full->partitions_done);
        r->set_partition_count(full->partition_count);
        r->set_seconds(double(full->finished_at.value_or(now_ms()) - full->created_at) / 1000.0);
        set_time(r->mutable_finished_at(), full->finished_at.value_or(now_ms()));
        w->Write(ev);
        return Status::OK;
      }
      if (ctx->IsCancelled()) return Status(StatusCode::CANCELLED, "the client cancelled");
      if (!d_.accepting())
        return Status(StatusCode::UNAVAILABLE, "the daemon is stopping: await again after it restarts");
      d_.wait_job_change(job_id, seen, std::chrono::milliseconds(500));
    }
  }

  Status Await(ServerContext* ctx, const v1::AwaitRequest* req,
               grpc::ServerWriter<v1::JobEvent>* w) override {
    return guard([&] {
      check_job_id(req->job_id());
      return follow(ctx, req->job_id(), w);
    });
  }

  Status Prove(ServerContext* ctx,
               grpc::ServerReaderWriter<v1::JobEvent, v1::SubmitRequest>* stream) override {
    return guard([&] {
      v1::JobEvent accepted;
      submit(ctx, stream, accepted.mutable_accepted());
      const std::string id = accepted.accepted().job_id();
      if (!stream->Write(accepted)) return Status(StatusCode::CANCELLED, "the client went away");
      return follow(ctx, id, stream);
    });
  }

  Status Cancel(ServerContext*, const v1::CancelRequest* req, v1::CancelResponse* resp) override {
    return guard([&] {
      check_job_id(req->job_id());
      if (req->reason().size() > 1024) throw Error("Cancel: a reason of more than 1024 characters");
      const auto j = d_.cancel(req->job_id(), req->reason());
      fill_job(resp->mutable_job(), j, d_, false, false);
      return Status::OK;
    });
  }

  Status GetJob(ServerContext*, const v1::GetJobRequest* req, v1::GetJobResponse* resp) override {
    return guard([&] {
      check_job_id(req->job_id());
      auto j = d_.get_job(req->job_id(), req->include_results());
      if (!j) throw NotFound(fmt::format("no job {}", req->job_id()));
      fill_job(resp->mutable_job(), *j, d_, true, req->include_results());
      if (resp->ByteSizeLong() > max_send_)
        throw Exhausted(fmt::format("job {} with its results is {} bytes, above the daemon's maximum "
                                    "message size {}: use Await, which sends one partition per message",
                                    j->job_id, resp->ByteSizeLong(), max_send_));
      return Status::OK;
    });
  }

  Status ListJobs(ServerContext*, const v1::ListJobsRequest* req, v1::ListJobsResponse* resp) override {
    return guard([&] {
      if (req->page_token().size() > kMaxPageToken)
        throw Error(fmt::format("page token of {} bytes was not issued by this daemon (at most {})",
                                req->page_token().size(), kMaxPageToken));
      if (req->page_size() > 1000) throw Error(fmt::format("page_size {}: at most 1000", req->page_size()));
      std::optional<JobState> st;
      switch (req->state()) {
        case v1::JOB_STATE_QUEUED: st = JobState::queued; break;
        case v1::JOB_STATE_RUNNING: st = JobState::running; break;
        case v1::JOB_STATE_SUCCEEDED: st = JobState::succeeded; break;
        case v1::JOB_STATE_FAILED: st = JobState::failed; break;
        case v1::JOB_STATE_CANCELLED: st = JobState::cancelled; break;
        default: break;
      }
      const auto page = d_.list_jobs(st, req->page_size() ? req->page_size() : 100, req->page_token());
      for (const auto& j : page.jobs) fill_job(resp->add_jobs(), j, d_, false, false);
      resp->set_next_page_token(page.next_page_token);
      return Status::OK;
    });
  }

  Status GetStatus(ServerContext*, const v1::GetStatusRequest*, v1::GetStatusResponse* resp) override {
    return guard([&] {
      fill_status(d_, resp);
      return Status::OK;
    });
  }

 private:
  Daemon& d_;
  std::size_t max_send_;
  IdleWatch idle_;
};

}  // namespace

struct Server::Impl {
  std::unique_ptr<ProverImpl> service;
  std::unique_ptr<grpc::Server> server;
  std::vector<int> ports;
};

Server::Server(Daemon& daemon, ServerConfig cfg) : impl_(std::make_unique<Impl>()) {
  if (cfg.listen.empty()) throw Error("serve: no listen address");
  cfg.check();
  for (const auto& a : cfg.listen) check_listen_address(a, cfg.secure());
  std::shared_ptr<grpc::ServerCredentials> tcp_creds = grpc::InsecureServerCredentials();
  if (cfg.secure()) {
    grpc::SslServerCredentialsOptions o;
    o.pem_key_cert_pairs.push_back({read_small_file(cfg.tls_key_file, "TLS key"),
                                    read_small_file(cfg.tls_cert_file, "TLS certificate")});
    tcp_creds = grpc::SslServerCredentials(o);
    tcp_creds->SetAuthMetadataProcessor(std::make_shared<BearerCheck>(read_token(cfg.token_file)));
  }
  grpc::EnableDefaultHealthCheckService(true);
  grpc::reflection::InitProtoReflectionServerBuilderPlugin();
  impl_->service = std::make_unique<ProverImpl>(daemon, cfg.max_send_bytes, cfg.submit_idle);
  grpc::ServerBuilder b;
  std::vector<std::unique_ptr<int>> ports;
  for (const auto& a : cfg.listen) {
    if (a.starts_with("unix:")) {
      std::error_code ec;
      std::filesystem::remove(a.substr(5), ec);  // a socket left by a killed daemon
      b.AddListeningPort(a, grpc::InsecureServerCredentials());
    } else {
      ports.push_back(std::make_unique<int>(0));
      b.AddListeningPort(a, tcp_creds, ports.back().get());
    }
  }
  b.RegisterService(impl_->service.get());
  b.SetMaxReceiveMessageSize(int(cfg.max_receive_bytes));
  b.SetMaxSendMessageSize(int(cfg.max_send_bytes));
  const mode_t old_mask = ::umask(0077);  // unix sockets are made 0600 from the start
  impl_->server = b.BuildAndStart();
  ::umask(old_mask);
  if (!impl_->server) throw Error("serve: the gRPC server could not start (an address in use or not bindable)");
  for (const auto& p : ports) {
    if (*p == 0) throw Error("serve: a TCP listen address could not be bound");
    impl_->ports.push_back(*p);
  }
  for (const auto& a : cfg.listen)
    if (a.starts_with("unix:")) ::chmod(a.substr(5).c_str(), 0600);
  impl_->server->GetHealthCheckService()->SetServingStatus("splitprove.v1.Prover", true);
}

Server::~Server() { shutdown(std::chrono::milliseconds(0)); }

const std::vector<int>& Server::ports() const { return impl_->ports; }

void Server::shutdown(std::chrono::milliseconds deadline) {
  if (!impl_->server) return;
  impl_->server->GetHealthCheckService()->SetServingStatus("splitprove.v1.Prover", false);
  impl_->server->Shutdown(std::chrono::system_clock::now() + deadline);
  impl_->server->Wait();
  impl_->server.reset();
}

}  // namespace splitprove::service
