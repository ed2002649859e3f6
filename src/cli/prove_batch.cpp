#include "cli/prove_batch.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

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
#ifdef SPLITPROVE_HAVE_CUDA
#include "cuda/stage.hpp"
#endif

namespace splitprove::cli {
namespace {

template <class E>
void prove_batch(const ProveBatchArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  // As in the single form: the verifying-key points are subgroup-checked by the reader's caller
  // through verification of every proof; the bulk point vectors are checked on the curve.
  io::ZkeyReadOptions ro;
  ro.check_subgroup = false;
  auto pk = std::make_shared<const zk::ProvingKey<E>>(io::read_zkey<E>(a.zkey, ro));
  auto key = pipeline::Key<E>::prepare(pk);
  std::vector<io::Witness<E>> ws;
  for (const auto& w : a.witnesses) ws.push_back(io::read_wtns<E>(w));
  std::shared_ptr<const io::R1cs<E>> r1cs;
  if (!a.r1cs.empty()) {
    r1cs = std::make_shared<const io::R1cs<E>>(io::read_r1cs<E>(a.r1cs));
    io::check_zkey_matches_r1cs<E>(*pk, a.zkey, *r1cs);
  }
  const std::size_t n = ws.size();
  auto src = std::make_shared<pipeline::CircomSource<E>>(pk, std::move(ws), r1cs, a.zkey);
  pipeline::EngineConfig cfg;
  cfg.synthesis_workers = a.synthesis_workers;
  if (!a.budget.empty()) cfg.host_budget = mem::parse_size(a.budget, "--budget");
  pipeline::BackendRequest req;
  req.backend = a.backend;
  auto backend = pipeline::make_backend<E>(req);
  cfg.pin_buffers_for(backend.pin_host_buffers);
  pipeline::Engine<E> engine(cfg, backend.gpu, backend.g2);
  auto r = engine.wait(engine.submit({src, key, n}));
  if (!r.ok) throw Error(fmt::format("prove: {}", r.error));
  std::filesystem::create_directories(a.out_dir);
  for (std::size_t i = 0; i < n; ++i) {
    const auto dir = std::filesystem::path(a.out_dir);
    io::write_proof_json<E>((dir / fmt::format("proof_{}.json", i)).string(), r.proofs[i]);
    io::write_public_json<E>((dir / fmt::format("public_{}.json", i)).string(), r.publics[i]);
  }
  if (!a.quiet)
    std::fprintf(stderr,
                 "proved %zu witnesses against %s in %.3f s through the pipeline (%s); every "
                 "proof verified; wrote %s/proof_<i>.json and public_<i>.json\n",
                 n, a.zkey.c_str(),
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
                 backend.describe().c_str(), a.out_dir.c_str());
}

}  // namespace

void run_prove_batch(const ProveBatchArgs& a) {
  if (a.witnesses.empty()) throw Error("prove: --out-dir needs at least one witness after the key");
  // The curve is the key's (its primes); every witness (and the circuit) must be for it too.
  const zk::CurveId curve = io::detect_curve(a.zkey);
  auto same = [&](const std::string& f) {
    const zk::CurveId c = io::detect_curve(f);
    if (c != curve)
      throw Error(
          fmt::format("prove: {} is for {} but {} is for {}: both must be for the same curve",
                      a.zkey, zk::curve_name(curve), f, zk::curve_name(c)));
  };
  for (const auto& w : a.witnesses) same(w);
  if (!a.r1cs.empty()) same(a.r1cs);
#ifdef SPLITPROVE_HAVE_CUDA
  cuda::install_pipeline_backend();  // `--backend auto` then picks it when a GPU is present
#endif
  zk::with_engine(curve, [&](auto e) { prove_batch<decltype(e)>(a); });
}

}  // namespace splitprove::cli
