#pragma once
// `splitprove prove --out-dir DIR <circuit.zkey> <w1.wtns> <w2.wtns> ...`: several witnesses
// against one key in one run, as the partitions of one job through the pipeline engine.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace splitprove::cli {

struct ProveBatchArgs {
  std::string zkey;
  std::vector<std::string> witnesses;
  std::string out_dir;
  std::string r1cs;  // optional: check each witness first (names the failing constraint)
  std::string budget;
  std::uint32_t synthesis_workers = 2;
  std::string backend = "auto";  // GPU-stage backend: auto (CUDA when a GPU is present), cpu, cuda
  std::vector<int> devices;      // GPUs to run on (empty: every visible one)
  unsigned logical_devices = 1;  // per device (pipeline/backend.hpp)
  bool quiet = false;
  bool fail_fast = false;  // stop at the first witness that fails (the others are not proved)
  bool force = false;      // prove every witness, even where an earlier run's proof verifies
};

// The most witnesses one batch may name (each is a job of the engine).
inline constexpr std::size_t kMaxBatchWitnesses = std::size_t(1) << 20;

// Writes DIR/proof_<i>.json and DIR/public_<i>.json for witness i (0-based, in argument order),
// each pair as soon as its proof is verified, together (util::commit_together). Checks every
// count and output before reading anything. A witness that fails (unreadable, of another curve,
// not satisfying the circuit) fails only itself: the others are proved (unless fail_fast) and
// Error names every failed witness file at the end. A rerun keeps the pairs of an earlier run
// whose signals are the witness's and whose proof verifies (unless force).
void run_prove_batch(const ProveBatchArgs& a);

}  // namespace splitprove::cli
