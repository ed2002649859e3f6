#pragma once
// `splitprove prove --out-dir DIR <circuit.zkey> <w1.wtns> <w2.wtns> ...`: several witnesses
// against one key in one run, as the partitions of one job through the pipeline engine.
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
  bool quiet = false;
};

// Writes DIR/proof_<i>.json and DIR/public_<i>.json for witness i (0-based, in argument order),
// every proof verified before it is written. Throws Error naming the failing witness.
void run_prove_batch(const ProveBatchArgs& a);

}  // namespace splitprove::cli
