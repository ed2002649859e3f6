// The Groth16 commands, with rapidsnark's and snarkjs's argument conventions:
//   splitprove prove <circuit.zkey> <witness.wtns> <proof.json> <public.json>
//   splitprove verify <verification_key.json> <public.json> <proof.json>
//   splitprove zkey export-vkey <circuit.zkey> <verification_key.json>
//   splitprove setup --dev <circuit.r1cs> <out.zkey>
//   splitprove check <circuit.r1cs> <witness.wtns>
// The curve is never a flag: it is read from the files (their primes), and files of different
// curves are an error.
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <filesystem>

#include "cli/command.hpp"
#include "cli/device_options.hpp"
#include "cli/progress.hpp"
#include "cli/prove_batch.hpp"
#include "io/curve_id.hpp"
#include "io/json.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "splitprove/error.hpp"
#include "util/limits.hpp"
#include "util/output.hpp"
#include "mem/units.hpp"
#include "zk/groth16.hpp"
#include "zk/setup.hpp"

namespace splitprove::cli {
namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class E>
void check_verifying_points(const zk::ProvingKey<E>& pk, const std::string& name) {
  auto check = [&](const auto& p, const std::string& what) {  // G1 or G2 affine point
    if (!E::in_subgroup(p.to_jacobian()))
      throw Error(fmt::format("{}: {}: point not in the prime-order subgroup", name, what));
  };
  check(pk.alpha1, "section 2 (header): alpha_1");
  check(pk.beta1, "section 2 (header): beta_1");
  check(pk.delta1, "section 2 (header): delta_1");
  check(pk.beta2, "section 2 (header): beta_2");
  check(pk.gamma2, "section 2 (header): gamma_2");
  check(pk.delta2, "section 2 (header): delta_2");
  for (size_t i = 0; i < pk.ic.size(); ++i) check(pk.ic[i], fmt::format("section 3 (IC): point {}", i));
}

struct ProveArgs {
  std::string zkey, wtns, proof, pub;
  bool quiet = false;
};

template <class E>
void run_prove(const ProveArgs& a) {
  auto t0 = std::chrono::steady_clock::now();
  ProgressBar bar("prove", a.quiet);
  bar.update("reading key", 0);
  // The key's point vectors are checked on the curve but not for subgroup membership here: that
  // check costs two 64-bit scalar multiplications per point (seconds for a 2^16 key, the whole
  // proof's time again), and it protects nothing the final verification does not: a point outside
  // the subgroup in A, B, C or H yields a proof that fails the check below and is never written.
  // The verifying-key points, which that check relies on, are fully checked.
  io::ZkeyReadOptions ro;
  ro.check_subgroup = false;
  auto pk = io::read_zkey<E>(a.zkey, ro);
  check_verifying_points<E>(pk, a.zkey);
  auto w = io::read_wtns<E>(a.wtns);
  io::check_witness_length(w, pk.n_vars, a.zkey, "proving key");
  auto proof = zk::prove<E>(pk, w.values, [&](const char* s, double f) { bar.update(s, f); });
  // Every proof is checked before it leaves.
  auto pub = zk::public_inputs<E>(pk, w.values);
  auto reason = zk::verify_reason<E>(zk::prepare<E>(zk::verifying_key(pk)), pub, proof);
  bar.finish();
  if (reason)
    throw Error(fmt::format("prove: the proof does not verify ({}): {} does not satisfy the circuit "
                            "of {} (run `splitprove check` with the .r1cs to find the constraint)",
                            *reason, a.wtns, a.zkey));
  // The public signals and then the proof land together (util::commit_together): a proof file
  // is never beside another run's signals.
  util::AtomicFile pub_file(a.pub), proof_file(a.proof);
  pub_file.write(io::public_to_json<E>(pub));
  proof_file.write(io::proof_to_json<E>(proof));
  util::AtomicFile* group[] = {&pub_file, &proof_file};
  util::commit_together(group);
  if (!a.quiet)
    std::fprintf(stderr, "proved %s in %.3f s (%u variables, domain 2^%d); proof verified\n",
                 a.zkey.c_str(), seconds_since(t0), pk.n_vars, __builtin_ctz(pk.domain_size));
}

template <class E>
void run_verify(const std::string& vkey, const std::string& pub_path, const std::string& proof_path) {
  auto vk = io::read_vkey_json<E>(vkey);
  auto pub = io::read_public_json<E>(pub_path);
  auto proof = io::read_proof_json<E>(proof_path);
  if (pub.size() != vk.n_public)
    throw Error(fmt::format("verify: {} has {} public signals, {} expects {}", pub_path, pub.size(),
                            vkey, vk.n_public));
  auto reason = zk::verify_reason<E>(zk::prepare<E>(vk), pub, proof);
  if (reason) throw Error(fmt::format("verify: INVALID proof {}: {}", proof_path, *reason));
  std::printf("OK: %s is valid for %s and %s\n", proof_path.c_str(), vkey.c_str(), pub_path.c_str());
}

template <class E>
void run_export_vkey(const std::string& zkey, const std::string& out) {
  io::write_vkey_json<E>(out, io::read_zkey_verifying_key<E>(zkey));
}

// The header's counts size the key: refused, with the numbers, before anything is allocated when
// the key alone could not fit in the memory this machine has now.
template <class E>
void check_setup_fits(const io::R1cs<E>& r, const std::string& path) {
  const std::uint64_t n_vars = r.n_wires;
  std::uint64_t domain = 1;
  while (domain < std::uint64_t(r.n_constraints) + r.n_public() + 1) domain <<= 1;
  const std::uint64_t g1 = sizeof(typename E::G1Affine), g2 = sizeof(typename E::G2Affine),
                      fr = sizeof(typename E::Fr);
  // The key's A, B1, C (G1) and B2 (G2) per variable and H per domain point, and the setup's
  // three evaluations per variable and two per domain point: a lower bound of what it holds.
  const std::uint64_t need = n_vars * (3 * g1 + g2 + 3 * fr) + domain * (g1 + 2 * fr);
  const std::uint64_t avail = util::available_memory();
  if (avail && need > avail)
    throw Error(fmt::format("setup: {}: {} wires and {} constraints (header) need at least {} for "
                            "the key; this machine has {} available",
                            path, r.n_wires, r.n_constraints, mem::format_bytes(need),
                            mem::format_bytes(avail)));
}

template <class E>
void run_setup(const std::string& r1cs_path, const std::string& out) {
  auto t0 = std::chrono::steady_clock::now();
  ProgressBar bar("setup");
  auto r1cs = io::read_r1cs<E>(r1cs_path);
  check_setup_fits<E>(r1cs, r1cs_path);
  auto pk = zk::dev_setup<E>(r1cs, [&](const char* s, double f) { bar.update(s, f); });
  bar.update("writing", 1.0);
  io::write_zkey<E>(out, pk);
  bar.finish();
  std::fprintf(stderr,
               "wrote %s: %u constraints, %u variables, domain 2^%d, in %.2f s\n"
               "WARNING: development setup - the toxic waste was random but not destroyed by a "
               "ceremony; never use this key for anything of value\n",
               out.c_str(), r1cs.n_constraints, pk.n_vars, __builtin_ctz(pk.domain_size),
               seconds_since(t0));
}

template <class E>
void run_check(const std::string& r1cs_path, const std::string& wtns_path) {
  auto r1cs = io::read_r1cs<E>(r1cs_path);
  auto w = io::read_wtns<E>(wtns_path);
  io::check_witness_length(w, r1cs.n_wires, r1cs_path, "circuit");
  if (auto bad = zk::first_unsatisfied<E>(r1cs, w.values))
    throw Error(fmt::format("check: {} does not satisfy {}: constraint {} of {} fails (A·w)(B·w) = C·w",
                            wtns_path, r1cs_path, *bad, r1cs.n_constraints));
  std::printf("OK: %s satisfies all %u constraints of %s\n", wtns_path.c_str(), r1cs.n_constraints,
              r1cs_path.c_str());
}

// The curve is read from the files; files of two curves are an error that names both.
void same_curve(ec::CurveId a, const std::string& a_name, ec::CurveId b, const std::string& b_name,
                const char* cmd) {
  if (a != b)
    throw Error(fmt::format("{}: {} is for {} but {} is for {}: both must be for the same curve",
                            cmd, a_name, ec::curve_name(a), b_name, ec::curve_name(b)));
}

void dispatch_prove(const ProveArgs& a) {
  const auto curve = io::detect_curve(a.zkey);
  same_curve(curve, a.zkey, io::detect_curve(a.wtns), a.wtns, "prove");
  ec::with_engine(curve, [&](auto e) { run_prove<decltype(e)>(a); });
}

void dispatch_verify(const std::string& vkey, const std::string& pub, const std::string& proof) {
  const auto named = io::read_curve_of_json(vkey);
  if (!named) throw Error(vkey + ": curve: missing (a snarkjs verification key names its curve)");
  const auto curve = *named;
  if (const auto of_proof = io::read_curve_of_json(proof))  // optional in a proof
    same_curve(curve, vkey, *of_proof, proof, "verify");
  ec::with_engine(curve, [&](auto e) { run_verify<decltype(e)>(vkey, pub, proof); });
}

void dispatch_check(const std::string& r1cs, const std::string& wtns) {
  const auto curve = io::detect_curve(r1cs);
  same_curve(curve, r1cs, io::detect_curve(wtns), wtns, "check");
  ec::with_engine(curve, [&](auto e) { run_check<decltype(e)>(r1cs, wtns); });
}

Register reg([](CLI::App& app) {
  auto* prove = app.add_subcommand(
      "prove", "Prove: <circuit.zkey> <witness.wtns> <proof.json> <public.json>, or a batch through "
               "the pipeline: --out-dir DIR <circuit.zkey> <w1.wtns> <w2.wtns> ...");
  auto pa = std::make_shared<ProveArgs>();
  auto ba = std::make_shared<ProveBatchArgs>();
  auto files = std::make_shared<std::vector<std::string>>();
  prove->add_option("files", *files,
                    "<circuit.zkey> <witness.wtns> <proof.json> <public.json>; with --out-dir: "
                    "<circuit.zkey> and one or more witnesses")
      ->required();
  prove->add_option("--out-dir", ba->out_dir,
                    "batch: prove the witnesses through the pipeline engine; writes "
                    "DIR/proof_<i>.json and DIR/public_<i>.json for witness i as soon as its "
                    "proof is verified");
  prove->add_option("--r1cs", ba->r1cs, "batch: check each witness against the circuit first")
      ->check(CLI::ExistingFile);
  prove->add_option("--synth-workers", ba->synthesis_workers, "batch: synthesis workers")
      ->capture_default_str();
  prove->add_option("--budget", ba->budget, "batch: host memory budget (e.g. 8GiB)");
  prove->add_option("--backend", ba->backend,
                    "batch: GPU-stage backend: auto (CUDA when a GPU is present), cpu or cuda")
      ->capture_default_str();
  add_device_options(prove, ba->devices, ba->logical_devices, "batch: ");
  prove->add_flag("--fail-fast", ba->fail_fast,
                  "batch: stop at the first witness that fails (default: prove the others, report "
                  "every failure, exit 1)");
  prove->add_flag("--force", ba->force,
                  "batch: prove every witness again (default: a rerun keeps the proofs of an "
                  "earlier run in DIR whose public signals are the witness's and that verify)");
  prove->add_flag("-q,--quiet", pa->quiet, "no progress bar and no summary line on stderr");
  prove->callback([pa, ba, files] {
    auto must_exist = [](const std::string& f) {
      if (!std::filesystem::exists(f)) throw Error(fmt::format("prove: {}: no such file", f));
      if (!std::filesystem::is_regular_file(f))
        throw Error(fmt::format("prove: {}: not a regular file (keys and witnesses are mapped)", f));
    };
    if (!ba->out_dir.empty()) {
      if (files->size() < 2) throw Error("prove --out-dir: give the .zkey and at least one witness");
      for (const auto& f : *files) must_exist(f);
      ba->zkey = files->front();
      ba->witnesses.assign(files->begin() + 1, files->end());
      ba->quiet = pa->quiet;
      return run_prove_batch(*ba);
    }
    if (files->size() != 4)
      throw Error(fmt::format("prove: expected <circuit.zkey> <witness.wtns> <proof.json> "
                              "<public.json> ({} given); for several witnesses use --out-dir",
                              files->size()));
    must_exist((*files)[0]);
    must_exist((*files)[1]);
    util::OutputCheck("prove")
        .input((*files)[0])
        .input((*files)[1])
        .output((*files)[2])
        .output((*files)[3])
        .check();
    pa->zkey = (*files)[0];
    pa->wtns = (*files)[1];
    pa->proof = (*files)[2];
    pa->pub = (*files)[3];
    dispatch_prove(*pa);
  });

  auto* verify = app.add_subcommand("verify", "Verify: <verification_key.json> <public.json> <proof.json>");
  auto va = std::make_shared<std::array<std::string, 3>>();
  verify->add_option("vkey", (*va)[0])->required()->check(CLI::ExistingFile);
  verify->add_option("public", (*va)[1])->required()->check(CLI::ExistingFile);
  verify->add_option("proof", (*va)[2])->required()->check(CLI::ExistingFile);
  verify->callback([va] { dispatch_verify((*va)[0], (*va)[1], (*va)[2]); });

  auto* zkey = app.add_subcommand("zkey", "Proving key tools");
  zkey->require_subcommand(1);
  auto* exp = zkey->add_subcommand("export-vkey", "Write the verification key: <circuit.zkey> <verification_key.json>");
  auto ea = std::make_shared<std::array<std::string, 2>>();
  exp->add_option("zkey", (*ea)[0])->required()->check(CLI::ExistingFile);
  exp->add_option("vkey", (*ea)[1])->required();
  exp->callback([ea] {
    util::OutputCheck("zkey export-vkey").input((*ea)[0]).output((*ea)[1]).check();
    ec::with_engine(io::detect_curve((*ea)[0]),
                    [&](auto e) { run_export_vkey<decltype(e)>((*ea)[0], (*ea)[1]); });
  });

  auto* setup = app.add_subcommand("setup", "Key generation: setup --dev <circuit.r1cs> <out.zkey>");
  auto sa = std::make_shared<std::array<std::string, 2>>();
  auto dev = std::make_shared<bool>(false);
  setup->add_flag("--dev", *dev, "development setup from random toxic waste (INSECURE; tests and benchmarks)");
  setup->add_option("r1cs", (*sa)[0])->required()->check(CLI::ExistingFile);
  setup->add_option("zkey", (*sa)[1])->required();
  setup->callback([sa, dev] {
    if (!*dev)
      throw Error("setup: only the development setup exists (pass --dev); for a real key run a "
                  "ceremony with snarkjs (powersoftau + groth16 setup + zkey contribute)");
    // The key is written by renaming a new file over the target: a prover that maps the old key
    // keeps reading it.
    util::OutputCheck("setup").input((*sa)[0]).output((*sa)[1]).check();
    ec::with_engine(io::detect_curve((*sa)[0]),
                    [&](auto e) { run_setup<decltype(e)>((*sa)[0], (*sa)[1]); });
  });

  auto* check = app.add_subcommand("check", "Check a witness against a circuit: <circuit.r1cs> <witness.wtns>");
  auto ca = std::make_shared<std::array<std::string, 2>>();
  check->add_option("r1cs", (*ca)[0])->required()->check(CLI::ExistingFile);
  check->add_option("witness", (*ca)[1])->required()->check(CLI::ExistingFile);
  check->callback([ca] { dispatch_check((*ca)[0], (*ca)[1]); });
});

}  // namespace
}  // namespace splitprove::cli
