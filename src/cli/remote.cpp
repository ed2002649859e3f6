// The daemon's client commands: register-key, submit, await, status, jobs, cancel, each talking to
// `splitprove serve` over its gRPC API (--server, or SPLITPROVE_SERVER).
#include <grpcpp/grpcpp.h>
#include <unistd.h>

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>

#include "cli/command.hpp"
#include "cli/progress.hpp"
#include "cli/remote.hpp"
#include "service/grpc_service.hpp"
#include "splitprove/error.hpp"
#include "splitprove/v1/prover.grpc.pb.h"
#include "util/output.hpp"

namespace splitprove::cli {
namespace {
namespace v1 = ::splitprove::v1;

}  // namespace

namespace remote {

const char* code_name(grpc::StatusCode c) {
  switch (c) {
    case grpc::StatusCode::CANCELLED: return "CANCELLED";
    case grpc::StatusCode::INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case grpc::StatusCode::DEADLINE_EXCEEDED: return "DEADLINE_EXCEEDED";
    case grpc::StatusCode::NOT_FOUND: return "NOT_FOUND";
    case grpc::StatusCode::ALREADY_EXISTS: return "ALREADY_EXISTS";
    case grpc::StatusCode::PERMISSION_DENIED: return "PERMISSION_DENIED";
    case grpc::StatusCode::RESOURCE_EXHAUSTED: return "RESOURCE_EXHAUSTED";
    case grpc::StatusCode::FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case grpc::StatusCode::UNIMPLEMENTED: return "UNIMPLEMENTED";
    case grpc::StatusCode::INTERNAL: return "INTERNAL";
    case grpc::StatusCode::UNAVAILABLE: return "UNAVAILABLE";
    case grpc::StatusCode::UNAUTHENTICATED: return "UNAUTHENTICATED";
    default: return "ERROR";
  }
}

void check(const grpc::Status& s, const std::string& what) {
  if (!s.ok()) throw Error(fmt::format("{}: {}: {}", what, code_name(s.error_code()), s.error_message()));
}

namespace {
std::string setting(const std::string& given, const char* env) {
  if (!given.empty()) return given;
  const char* e = std::getenv(env);
  return e ? e : "";
}

std::string read_text(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(fmt::format("{} {}: cannot be read", what, path));
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.size() > (1u << 20)) throw Error(fmt::format("{} {}: more than 1 MiB", what, path));
  return s;
}
}  // namespace

std::unique_ptr<v1::Prover::Stub> Conn::stub() const {
  const std::string addr = setting(server, "SPLITPROVE_SERVER");
  if (addr.empty()) throw Error("no daemon address: give --server ADDR (unix:PATH or HOST:PORT) or set SPLITPROVE_SERVER");
  const std::string ca = setting(tls_ca, "SPLITPROVE_TLS_CA"), tok = setting(token_file, "SPLITPROVE_TOKEN_FILE");
  std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
  if (!ca.empty()) {
    grpc::SslCredentialsOptions o;
    o.pem_root_certs = read_text(ca, "--tls-ca");
    creds = grpc::SslCredentials(o);
    if (!tok.empty()) {
      std::string t = read_text(tok, "--token-file");
      while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
      creds = grpc::CompositeChannelCredentials(creds, grpc::AccessTokenCredentials(t));
    }
  } else if (!tok.empty()) {
    throw Error("--token-file needs --tls-ca: a bearer token is sent only over TLS");
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(64 << 20);
  return v1::Prover::NewStub(grpc::CreateCustomChannel(addr, creds, args));
}

void add_server(CLI::App* c, Conn& conn) {
  c->add_option("--server", conn.server, "The daemon: unix:PATH or HOST:PORT (default: $SPLITPROVE_SERVER)");
  c->add_option("--tls-ca", conn.tls_ca, "PEM roots of the daemon's TLS certificate: connect over TLS (default: $SPLITPROVE_TLS_CA)");
  c->add_option("--token-file", conn.token_file, "The bearer token to send, over TLS (default: $SPLITPROVE_TOKEN_FILE)");
}

}  // namespace remote

namespace {
using namespace remote;

// Writes the results of a finished job to out_dir as proof_<i>.json and public_<i>.json (each pair
// together, atomically); returns the number written.
struct Results {
  std::string out_dir;
  std::size_t written = 0;
  void add(const v1::PartitionResult& r) {
    if (out_dir.empty() || r.stage() != v1::STAGE_DONE) return;
    const auto dir = std::filesystem::path(out_dir);
    util::AtomicFile pub((dir / fmt::format("public_{}.json", r.partition())).string());
    util::AtomicFile proof((dir / fmt::format("proof_{}.json", r.partition())).string());
    pub.write(r.public_json());
    proof.write(r.proof_json());
    util::AtomicFile* group[] = {&pub, &proof};
    util::commit_together(group);
    ++written;
  }
};

// A stage as a word for the progress line.
std::string stage_word(v1::Stage s) {
  std::string n = v1::Stage_Name(s);
  if (n.starts_with("STAGE_")) n = n.substr(6);
  for (auto& ch : n) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  return n;
}

// Follows a JobEvent stream to its end; throws when the job did not succeed.
template <class Stream>
void follow(Stream& stream, Results& results, bool quiet) {
  v1::JobEvent ev;
  ProgressBar bar("await", quiet);
  std::map<std::uint32_t, v1::Stage> stages;
  std::optional<v1::JobResult> result;
  std::string job_id;
  auto t_start = std::chrono::steady_clock::now();
  while (stream->Read(&ev)) {
    if (ev.has_accepted()) {
      job_id = ev.accepted().job_id();
      std::printf("%s\n", job_id.c_str());
      std::fflush(stdout);
    } else if (ev.has_progress()) {
      const auto& p = ev.progress();
      stages[p.partition()] = p.stage();
      std::size_t done = 0;
      std::map<v1::Stage, std::size_t> at;
      for (const auto& [i, s] : stages) {
        done += s == v1::STAGE_DONE;
        if (s != v1::STAGE_DONE && s != v1::STAGE_QUEUED) ++at[s];
      }
      const std::size_t total = stages.size();  // the first events are a snapshot of every partition
      // The ETA: the pace of the partitions done so far, over those left.
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_start).count();
      std::string line = fmt::format("{}/{} done", done, total);
      for (const auto& [st, n] : at) line += fmt::format(", {} {}", n, stage_word(st));
      if (done > 0 && done < total) line += fmt::format(", ETA {:.0f}s", secs / double(done) * double(total - done));
      bar.update(line.c_str(), total == 0 ? 0.0 : double(done) / double(total));
      if (p.stage() == v1::STAGE_FAILED && !quiet)
        std::fprintf(stderr, "%sawait: partition %u failed: %s\n", bar.clear_line(), p.partition(),
                     p.error().c_str());
    } else if (ev.has_partition_result()) {
      results.add(ev.partition_result());
    } else if (ev.has_result()) {
      result = ev.result();
    }
  }
  bar.finish();
  check(stream->Finish(), "await");
  if (!result) throw Error("await: the stream ended without the job's result");
  const auto& r = *result;
  if (!quiet)
    std::fprintf(stderr, "job %s: %s, %u of %u partitions done in %.3f s%s\n", r.job_id().c_str(),
                 v1::JobState_Name(r.state()).c_str(), r.partitions_done(), r.partition_count(),
                 r.seconds(),
                 results.out_dir.empty() ? ""
                                         : fmt::format("; {} proofs in {}/proof_<i>.json and public_<i>.json",
                                                       results.written, results.out_dir)
                                               .c_str());
  if (r.state() != v1::JOB_STATE_SUCCEEDED) {
    // A cancelled job's error already says so ("cancelled" or "cancelled: <reason>").
    if (r.state() == v1::JOB_STATE_CANCELLED)
      throw Error(fmt::format("job {} {}", r.job_id(), r.error().empty() ? "cancelled" : r.error()));
    throw Error(fmt::format("job {} failed: {}", r.job_id(), r.error()));
  }
}

void run_submit(const SubmitArgs& a) {
  if (a.native_seed && !a.witnesses.empty()) throw Error("submit: --native-seed takes no witnesses");
  if (a.native_seed && a.partitions == 0) throw Error("submit: --native-seed needs --partitions N");
  if (!a.native_seed && a.witnesses.empty()) throw Error("submit: give at least one witness (.wtns)");
  if (!a.out_dir.empty()) {
    util::OutputCheck chk("submit --out-dir");
    chk.inputs(a.witnesses).output_dir(a.out_dir);
    chk.check();
  }
  for (const auto& w : a.witnesses)
    if (!std::filesystem::is_regular_file(w)) throw Error(fmt::format("{}: no such file", w));
  auto stub = a.conn.stub();
  if (a.wait || !a.out_dir.empty()) {
    grpc::ClientContext ctx;
    auto stream = stub->Prove(&ctx);
    send_job(stream, a);
    Results res{a.out_dir};
    follow(stream, res, a.quiet);
    return;
  }
  grpc::ClientContext ctx;
  v1::SubmitResponse resp;
  auto stream = stub->Submit(&ctx, &resp);
  send_job(stream, a);
  check(stream->Finish(), "submit");
  std::printf("%s\n", resp.job_id().c_str());
  if (!a.quiet && resp.deduplicated())
    std::fprintf(stderr, "submit: the idempotency key names job %s, submitted before\n", resp.job_id().c_str());
}

// The options of a job to submit (submit, prove-remote).
void add_submit_options(CLI::App* c, SubmitArgs& a) {
  add_server(c, a.conn);
  c->add_option("--key", a.key, "The key id (register-key prints it)")->required();
  c->add_option("--idempotency-key", a.idem, "A name for this request: a retry with it never makes a second job");
  c->add_option("--priority", a.priority, "-1000..1000; higher runs first")->capture_default_str();
  c->add_option("--out-dir", a.out_dir, "With --await: write proof_<i>.json and public_<i>.json here");
  c->add_flag("--quiet,-q", a.quiet, "No progress or summary on stderr");
  c->add_option("--native-seed", a.native_seed, "For a native key: partitions of the built-in circuit from this data seed");
  c->add_option("--partitions", a.partitions, "With --native-seed: how many partitions");
  c->add_option("witnesses", a.witnesses, "The .wtns files, one per partition");
}

Register reg([](CLI::App& app) {
  {
    auto conn = std::make_shared<Conn>();
    auto path = std::make_shared<std::string>();
    auto preload = std::make_shared<bool>(false);
    auto native = std::make_shared<std::string>();
    auto* c = app.add_subcommand("register-key", "Register a .zkey (or the native circuit) with the daemon; prints its key id");
    add_server(c, *conn);
    c->add_option("zkey", *path, "The .zkey, relative to the daemon's key directory");
    c->add_option("--native", *native,
                  "The built-in PoRep-shaped circuit instead: CURVE:2^K (bn254 or bls12-381, K 10..28); "
                  "the daemon makes its development key the first time");
    c->add_flag("--preload", *preload, "Also load it now");
    c->callback([conn, path, preload, native] {
      grpc::ClientContext ctx;
      v1::RegisterKeyRequest req;
      if (native->empty() == path->empty())
        throw Error("register-key: give a .zkey path or --native CURVE:2^K (one of them)");
      if (!native->empty()) {
        const auto colon = native->find(':');
        const std::string curve = native->substr(0, colon), size = colon == std::string::npos ? "" : native->substr(colon + 1);
        auto* n = req.mutable_source()->mutable_native();
        if (curve == "bn254" || curve == "bn128") n->set_curve(v1::CURVE_BN254);
        else if (curve == "bls12-381" || curve == "bls12381") n->set_curve(v1::CURVE_BLS12_381);
        else throw Error(fmt::format("register-key --native {}: the curve is bn254 or bls12-381", *native));
        if (!size.starts_with("2^") || size.size() < 3 || size.size() > 4 ||
            size.find_first_not_of("0123456789", 2) != std::string::npos)
          throw Error(fmt::format("register-key --native {}: the size is 2^K", *native));
        n->set_log2_size(std::uint32_t(std::stoul(size.substr(2))));
        ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::hours(6));  // setup at 2^27 takes long
      } else {
        req.mutable_source()->set_zkey_path(*path);
      }
      req.set_preload(*preload);
      v1::RegisterKeyResponse resp;
      check(conn->stub()->RegisterKey(&ctx, req, &resp), "register-key");
      std::printf("%s\n", resp.key().key_id().c_str());
    });
  }
  {
    auto a = std::make_shared<SubmitArgs>();
    auto* c = app.add_subcommand("submit", "Submit a job (one partition per witness) to the daemon; prints the job id");
    add_submit_options(c, *a);
    c->add_flag("--await", a->wait, "Also wait for the job (Prove), as `await` does");
    c->callback([a] { run_submit(*a); });
  }
  {
    // Submit and await in one call (the Prove RPC): submit --await under its own name.
    auto a = std::make_shared<SubmitArgs>();
    a->wait = true;
    auto* c = app.add_subcommand("prove-remote", "Prove on the daemon: submit, follow the job, write its proofs (Prove)");
    add_submit_options(c, *a);
    c->callback([a] { run_submit(*a); });
  }
  {
    auto conn = std::make_shared<Conn>();
    auto job = std::make_shared<std::string>();
    auto out = std::make_shared<std::string>();
    auto quiet = std::make_shared<bool>(false);
    auto* c = app.add_subcommand("await", "Wait for a job; write its proofs; exit 1 unless it succeeded");
    add_server(c, *conn);
    c->add_option("job", *job, "The job id")->required();
    c->add_option("--out-dir", *out, "Write proof_<i>.json and public_<i>.json here");
    c->add_flag("--quiet,-q", *quiet, "No progress or summary on stderr");
    c->callback([conn, job, out, quiet] {
      if (!out->empty()) {
        util::OutputCheck chk("await --out-dir");
        chk.output_dir(*out);
        chk.check();
      }
      grpc::ClientContext ctx;
      v1::AwaitRequest req;
      req.set_job_id(*job);
      auto stub = conn->stub();
      auto stream = stub->Await(&ctx, req);
      Results res{*out};
      follow(stream, res, *quiet);
    });
  }
  {
    auto conn = std::make_shared<Conn>();
    auto* c = app.add_subcommand("status", "The daemon's status (GetStatus) as JSON");
    add_server(c, *conn);
    c->callback([conn] {
      grpc::ClientContext ctx;
      v1::GetStatusResponse resp;
      check(conn->stub()->GetStatus(&ctx, {}, &resp), "status");
      std::printf("%s", service::message_json(resp).c_str());
    });
  }
  {
    auto conn = std::make_shared<Conn>();
    auto state = std::make_shared<std::string>();
    auto job = std::make_shared<std::string>();
    auto* c = app.add_subcommand("jobs", "List the daemon's jobs, newest first (or one job, as JSON)");
    add_server(c, *conn);
    c->add_option("--state", *state, "Only jobs in this state: queued, running, succeeded, failed, cancelled");
    c->add_option("--job", *job, "Show this job with its partitions (GetJob) as JSON");
    c->callback([conn, state, job] {
      auto stub = conn->stub();
      if (!job->empty()) {
        grpc::ClientContext ctx;
        v1::GetJobRequest req;
        req.set_job_id(*job);
        v1::GetJobResponse resp;
        check(stub->GetJob(&ctx, req, &resp), "jobs");
        std::printf("%s", service::message_json(resp).c_str());
        return;
      }
      v1::ListJobsRequest req;
      if (!state->empty()) {
        v1::JobState s;
        std::string name = "JOB_STATE_";
        for (char ch : *state) name += char(std::toupper(static_cast<unsigned char>(ch)));
        if (!v1::JobState_Parse(name, &s) || s == v1::JOB_STATE_UNSPECIFIED)
          throw Error(fmt::format("jobs: --state {}: one of queued, running, succeeded, failed, cancelled", *state));
        req.set_state(s);
      }
      for (;;) {
        grpc::ClientContext ctx;
        v1::ListJobsResponse resp;
        check(stub->ListJobs(&ctx, req, &resp), "jobs");
        for (const auto& j : resp.jobs())
          std::printf("%s  %-9s %u/%u  %s\n", j.job_id().c_str(),
                      v1::JobState_Name(j.state()).substr(10).c_str(), j.partitions_done(),
                      j.partition_count(), j.error().c_str());
        if (resp.next_page_token().empty()) break;
        req.set_page_token(resp.next_page_token());
      }
    });
  }
  {
    auto conn = std::make_shared<Conn>();
    auto job = std::make_shared<std::string>();
    auto reason = std::make_shared<std::string>();
    auto* c = app.add_subcommand("cancel", "Cancel a queued or running job");
    add_server(c, *conn);
    c->add_option("job", *job, "The job id")->required();
    c->add_option("--reason", *reason, "Recorded as the job's error");
    c->callback([conn, job, reason] {
      grpc::ClientContext ctx;
      v1::CancelRequest req;
      req.set_job_id(*job);
      req.set_reason(*reason);
      v1::CancelResponse resp;
      check(conn->stub()->Cancel(&ctx, req, &resp), "cancel");
      std::printf("%s %s\n", resp.job().job_id().c_str(), v1::JobState_Name(resp.job().state()).c_str());
    });
  }
});

}  // namespace
}  // namespace splitprove::cli
