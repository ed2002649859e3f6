#include "cli/prove_batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>

#include "cli/progress.hpp"
#include "io/curve_id.hpp"
#include "io/json.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "mem/units.hpp"
#include "pipeline/backend.hpp"
#include "pipeline/circom_source.hpp"
#include "pipeline/engine.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"
#include "zk/groth16.hpp"
#ifdef SPLITPROVE_HAVE_CUDA
#include "cuda/stage.hpp"
#endif

namespace splitprove::cli {
namespace {

std::string proof_path(const ProveBatchArgs& a, std::size_t i) {
  return (std::filesystem::path(a.out_dir) / fmt::format("proof_{}.json", i)).string();
}
std::string public_path(const ProveBatchArgs& a, std::size_t i) {
  return (std::filesystem::path(a.out_dir) / fmt::format("public_{}.json", i)).string();
}

// Witness i's outputs from an earlier run are kept when both files exist, the signals are this
// witness's public inputs and the proof verifies against the key.
template <class E>
bool already_proved(const ProveBatchArgs& a, std::size_t i, const zk::ProvingKey<E>& pk,
                    const zk::PreparedVerifyingKey<E>& pvk) {
  const auto pp = proof_path(a, i), sp = public_path(a, i);
  if (!std::filesystem::is_regular_file(pp) || !std::filesystem::is_regular_file(sp)) return false;
  try {
    const auto proof = io::read_proof_json<E>(pp);
    const auto pub = io::read_public_json<E>(sp);
    const auto w = io::read_wtns<E>(a.witnesses[i]);
    io::check_witness_length(w, pk.n_vars, a.zkey, "proving key");
    if (pub != zk::public_inputs<E>(pk, w.values)) return false;
    return !zk::verify_reason<E>(pvk, pub, proof);
  } catch (const Error&) {
    return false;  // unreadable or of another key: proved again
  }
}

template <class E>
void prove_batch(const ProveBatchArgs& a, ec::CurveId curve) {
  const auto t0 = std::chrono::steady_clock::now();
  ProgressBar bar("prove", a.quiet);
  bar.update("reading key", 0);
  // As in the single form: the verifying-key points are checked through verification of every
  // proof; the bulk point vectors are checked on the curve.
  io::ZkeyReadOptions ro;
  ro.check_subgroup = false;
  auto pk = std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(a.zkey, ro));
  auto key = pipeline::Key<E>::prepare(pk);
  std::shared_ptr<const io::R1cs<E>> r1cs;
  if (!a.r1cs.empty()) {
    r1cs = std::make_shared<const io::R1cs<E>>(io::read_r1cs<E>(a.r1cs));
    io::check_zkey_matches_r1cs<E>(*pk, a.zkey, *r1cs);
  }
  const std::size_t n = a.witnesses.size();

  // Rerun: witnesses whose proofs exist and verify are not proved again.
  std::vector<std::size_t> todo;
  std::size_t kept = 0;
  {
    const auto pvk = zk::prepare<E>(zk::verifying_key(*pk));
    for (std::size_t i = 0; i < n; ++i) {
      if (!a.force && already_proved<E>(a, i, *pk, pvk))
        ++kept;
      else
        todo.push_back(i);
    }
  }

  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = a.synthesis_workers;
  if (!a.budget.empty()) cfg.host_budget = mem::parse_size(a.budget, "--budget");
  pipeline::BackendRequest req;
  req.backend = a.backend;
  req.devices = a.devices;
  req.logical_devices = a.logical_devices;
  auto backend = pipeline::make_backend<E>(req);
  cfg.pin_buffers_for(backend.pin_host_buffers);
  pipeline::Engine<E> engine(cfg, backend.stages);

  // Each witness is a job of one partition, so one bad witness fails only itself. At most
  // `window` are read and queued at once: the witnesses waiting in memory stay bounded.
  const std::size_t window =
      std::size_t(cfg.synthesis_workers) + engine.config().total_gpu_workers() + 2;
  struct InFlight {
    std::size_t index;
    std::uint64_t job;
  };
  std::deque<InFlight> inflight;
  std::vector<std::pair<std::size_t, std::string>> failures;  // (witness, why)
  std::size_t next = 0, written = 0;
  bool stopping = false;
  auto failed = [&](std::size_t i, const std::string& why) {
    failures.emplace_back(i, fmt::format("{} (witness {}): {}", a.witnesses[i], i, why));
    if (!a.quiet)
      std::fprintf(stderr, "%sprove: FAILED %s\n", bar.clear_line(), failures.back().second.c_str());
    if (a.fail_fast) stopping = true;
  };
  auto progress = [&] {
    const std::size_t done = written + failures.size();
    const double f = todo.empty() ? 1.0 : double(done) / double(todo.size());
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double left = done ? secs / double(done) * double(todo.size() - done) : 0.0;
    bar.update(fmt::format("{}/{} proofs, {} failed, ~{:.0f} s left", done, todo.size(),
                           failures.size(), left)
                   .c_str(),
               f);
  };
  while ((next < todo.size() && !stopping) || !inflight.empty()) {
    while (next < todo.size() && !stopping && inflight.size() < window) {
      const std::size_t i = todo[next++];
      try {
        const ec::CurveId c = io::detect_curve(a.witnesses[i]);
        if (c != curve)
          throw Error(fmt::format("{} is for {} but {} is for {}: both must be for the same curve",
                                  a.zkey, ec::curve_name(curve), a.witnesses[i],
                                  ec::curve_name(c)));
        std::vector<io::Witness<E>> ws;
        ws.push_back(io::read_wtns<E>(a.witnesses[i]));
        auto src =
            std::make_shared<pipeline::CircomSource<E>>(pk, std::move(ws), r1cs, a.witnesses[i]);
        inflight.push_back({i, engine.submit({src, key, 1})});
      } catch (const Error& e) {
        failed(i, e.what());
      }
    }
    if (inflight.empty()) continue;
    if (stopping)
      for (const auto& f : inflight) engine.cancel(f.job);
    const InFlight f = inflight.front();
    inflight.pop_front();
    auto r = engine.wait(f.job);
    if (r.ok) {
      // Each proof lands as soon as it is verified, with its signals (util::commit_together).
      util::AtomicFile pub(public_path(a, f.index)), proof(proof_path(a, f.index));
      pub.write(io::public_to_json<E>(r.publics[0]));
      proof.write(io::proof_to_json<E>(r.proofs[0]));
      util::AtomicFile* group[] = {&pub, &proof};
      util::commit_together(group);
      ++written;
    } else if (r.error != "cancelled" || !stopping) {
      failed(f.index, r.error);
    }
    progress();
  }
  bar.finish();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::size_t not_run = todo.size() - written - failures.size();
  if (!a.quiet)
    std::fprintf(stderr,
                 "proved %zu of %zu witnesses against %s in %.3f s through the pipeline (%s); "
                 "every proof verified; %zu kept from an earlier run, %zu failed%s; outputs in "
                 "%s/proof_<i>.json and public_<i>.json\n",
                 written, n, a.zkey.c_str(), secs, backend.describe().c_str(), kept,
                 failures.size(),
                 not_run ? fmt::format(", {} not proved (--fail-fast)", not_run).c_str() : "",
                 a.out_dir.c_str());
  if (!failures.empty()) {
    std::sort(failures.begin(), failures.end());
    std::string rest;
    for (std::size_t k = 1; k < failures.size(); ++k)
      rest += fmt::format("; {} (witness {})", a.witnesses[failures[k].first], failures[k].first);
    throw Error(fmt::format("prove: {} of {} witnesses failed; first: {}{}", failures.size(), n,
                            failures.front().second,
                            rest.empty() ? "" : "; also failed" + rest));
  }
}

}  // namespace

void run_prove_batch(const ProveBatchArgs& a) {
  if (a.witnesses.empty()) throw Error("prove: --out-dir needs at least one witness after the key");
  // Counts and outputs are checked before any file is read.
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = a.synthesis_workers;
  cfg.check();
  if (a.witnesses.size() > kMaxBatchWitnesses)
    throw Error(fmt::format("prove: {} witnesses in one batch: at most {}", a.witnesses.size(),
                            kMaxBatchWitnesses));
  util::OutputCheck check("prove --out-dir");
  check.input(a.zkey).inputs(a.witnesses).output_dir(a.out_dir);
  if (!a.r1cs.empty()) check.input(a.r1cs);
  for (std::size_t i = 0; i < a.witnesses.size(); ++i)
    check.output(proof_path(a, i)).output(public_path(a, i));
  check.check();
  // The curve is the key's (its primes); the circuit must be for it too, and so must every
  // witness (checked as it is read: a witness of another curve fails only itself).
  const ec::CurveId curve = io::detect_curve(a.zkey);
  if (!a.r1cs.empty()) {
    const ec::CurveId c = io::detect_curve(a.r1cs);
    if (c != curve)
      throw Error(
          fmt::format("prove: {} is for {} but {} is for {}: both must be for the same curve",
                      a.zkey, ec::curve_name(curve), a.r1cs, ec::curve_name(c)));
  }
#ifdef SPLITPROVE_HAVE_CUDA
  cuda::install_pipeline_backend();  // `--backend auto` then picks it when a GPU is present
#endif
  ec::with_engine(curve, [&](auto e) { prove_batch<decltype(e)>(a, curve); });
}

}  // namespace splitprove::cli
