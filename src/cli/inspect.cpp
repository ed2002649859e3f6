// `splitprove inspect FILE...`: reads circom/snarkjs files with every validation the readers make
// (sizes, primes, ranges, curve and subgroup membership), prints what they hold and how long the
// read took, and cross-checks the files given together:
//   .r1cs + .wtns   the witness satisfies every constraint
//   .zkey + .r1cs   the key was set up for this circuit (counts, domain, A/B coefficients)
//   .zkey + .wtns   one witness value per key variable
// `--rewrite OUT` writes the (single) file back with splitprove's writer: the interop check that
// snarkjs accepts what we write (scripts/interop-io.sh).
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "io/binfile.hpp"
#include "io/curve_id.hpp"
#include "io/json.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "splitprove/error.hpp"
#include "util/output.hpp"

namespace splitprove::cli {
namespace {

struct Options {
  std::vector<std::string> files;
  std::string rewrite;
  bool no_subgroup = false;
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::string magic_of(const std::string& path) {
  io::MappedFile m(path);
  auto b = m.bytes();
  return b.size() >= 4 ? std::string(reinterpret_cast<const char*>(b.data()), 4) : std::string();
}

template <class E>
void run(const Options& o) {
  std::optional<io::R1cs<E>> r1cs;
  std::optional<io::Witness<E>> wtns;
  std::optional<zk::ProvingKey<E>> zkey;
  std::string zkey_name;
  for (const auto& path : o.files) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::string magic = magic_of(path);
    if (magic == "r1cs") {
      r1cs = io::read_r1cs<E>(path);
      std::printf(
          "%s: r1cs, %s, %u constraints, %u wires (%u public outputs, %u public inputs, "
          "%u private inputs), %zu terms, read in %.3f s\n",
          path.c_str(), std::string(E::kName).c_str(), r1cs->n_constraints, r1cs->n_wires,
          r1cs->n_pub_out, r1cs->n_pub_in, r1cs->n_prv_in, r1cs->terms.size(), seconds_since(t0));
      if (!o.rewrite.empty()) io::write_file(o.rewrite, io::encode_r1cs<E>(*r1cs));
    } else if (magic == "wtns") {
      wtns = io::read_wtns<E>(path);
      std::printf("%s: witness, %s, %zu values, read in %.3f s\n", path.c_str(),
                  std::string(E::kName).c_str(), wtns->values.size(), seconds_since(t0));
      if (!o.rewrite.empty()) io::write_file(o.rewrite, io::encode_wtns<E>(wtns->values));
    } else if (magic == "zkey") {
      io::ZkeyMeta meta;
      io::ZkeyReadOptions ro;
      ro.check_subgroup = !o.no_subgroup;
      zkey = io::read_zkey<E>(path, ro, &meta);
      zkey_name = path;
      std::printf(
          "%s: Groth16 proving key, %s, %u variables, %u public, domain %u, %zu A/B "
          "coefficients, %u MPC contributions, read and validated%s in %.3f s\n",
          path.c_str(), std::string(E::kName).c_str(), zkey->n_vars, zkey->n_public,
          zkey->domain_size, zkey->coeffs.size(), meta.n_contributions,
          o.no_subgroup ? " (no subgroup checks)" : "", seconds_since(t0));
      if (!o.rewrite.empty()) {
        io::ZkeyWriteOptions wo;
        wo.circuit_hash = meta.circuit_hash;
        io::write_zkey<E>(o.rewrite, *zkey, wo);
      }
    } else {
      // JSON: told apart by shape.
      const std::string text = io::read_text_file(path);
      const auto first = text.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && text[first] == '[') {
        const auto pub = io::public_from_json<E>(text, path);
        std::printf("%s: %zu public signals, read in %.3f s\n", path.c_str(), pub.size(),
                    seconds_since(t0));
        if (!o.rewrite.empty()) io::write_file(o.rewrite, io::public_to_json<E>(pub));
      } else if (text.find("\"pi_a\"") != std::string::npos) {
        const auto p = io::proof_from_json<E>(text, path);
        std::printf("%s: Groth16 proof, %s, read in %.3f s\n", path.c_str(),
                    std::string(E::kName).c_str(), seconds_since(t0));
        if (!o.rewrite.empty()) io::write_file(o.rewrite, io::proof_to_json<E>(p));
      } else if (text.find("\"vk_alpha_1\"") != std::string::npos) {
        const auto vk = io::vkey_from_json<E>(text, path);
        std::printf("%s: Groth16 verification key, %s, %u public, read in %.3f s\n", path.c_str(),
                    std::string(E::kName).c_str(), vk.n_public, seconds_since(t0));
        if (!o.rewrite.empty()) io::write_file(o.rewrite, io::vkey_to_json<E>(vk));
      } else {
        throw Error(path +
                    ": not a .r1cs, .wtns, .zkey, proof, public-signals or "
                    "verification-key file");
      }
    }
  }
  if (r1cs && wtns) {
    io::check_witness_length(*wtns, r1cs->n_wires, r1cs->source, "wires");
    if (auto bad = zk::first_unsatisfied<E>(*r1cs, wtns->values))
      throw Error(wtns->source + ": does not satisfy " + r1cs->source + ": constraint " +
                  std::to_string(*bad) + " fails");
    std::printf("%s satisfies all %u constraints of %s\n", wtns->source.c_str(),
                r1cs->n_constraints, r1cs->source.c_str());
  }
  if (zkey && r1cs) {
    io::check_zkey_matches_r1cs(*zkey, zkey_name, *r1cs);
    std::printf("%s was set up for %s\n", zkey_name.c_str(), r1cs->source.c_str());
  }
  if (zkey && wtns) {
    io::check_witness_length(*wtns, zkey->n_vars, zkey_name, "variables");
    std::printf("%s has one value per variable of %s\n", wtns->source.c_str(), zkey_name.c_str());
  }
}

// The curve of the files, from their primes (binary files) or "curve" members (proofs and
// verification keys); files of two curves are an error naming both. Public signals alone do not
// name a curve: they are read as BLS12-381's then.
void dispatch(const Options& o) {
  if (!o.rewrite.empty()) {
    if (o.files.size() != 1) throw Error("inspect: --rewrite takes exactly one input file");
    // Written by renaming a new file over it, and never over the input (a key being read by a
    // prover is never modified in place).
    util::OutputCheck("inspect --rewrite").input(o.files[0]).output(o.rewrite).check();
  }
  std::optional<ec::CurveId> curve;
  std::string from;
  for (const auto& path : o.files) {
    const std::string magic = magic_of(path);
    std::optional<ec::CurveId> c;
    if (magic == "r1cs" || magic == "wtns" || magic == "zkey") {
      c = io::detect_curve(path);
    } else {
      const std::string text = io::read_text_file(path);
      const auto first = text.find_first_not_of(" \t\r\n");
      if (first != std::string::npos && text[first] == '{') c = io::curve_of_json(text, path);
    }
    if (!c) continue;
    if (curve && *curve != *c)
      throw Error("inspect: " + from + " is for " + std::string(ec::curve_name(*curve)) + " but " +
                  path + " is for " + std::string(ec::curve_name(*c)));
    curve = c;
    from = path;
  }
  ec::with_engine(curve.value_or(ec::CurveId::kBls12_381), [&](auto e) { run<decltype(e)>(o); });
}

Register reg([](CLI::App& app) {
  auto opt = std::make_shared<Options>();
  auto* sub = app.add_subcommand(
      "inspect", "Read and validate .r1cs/.wtns/.zkey/snarkjs JSON files and cross-check them");
  sub->add_option("files", opt->files, "files to read")->required()->check(CLI::ExistingFile);
  sub->add_option("--rewrite", opt->rewrite,
                  "write the single input back with splitprove's writer to this path");
  sub->add_flag("--no-subgroup", opt->no_subgroup,
                "skip subgroup checks of .zkey points (for already-validated keys)");
  sub->callback([opt] { dispatch(*opt); });
});

}  // namespace
}  // namespace splitprove::cli
