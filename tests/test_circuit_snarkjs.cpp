// A native circuit written as a .r1cs file, with a partition's witness as a .wtns file, is read by
// snarkjs (`snarkjs r1cs info`) and its witness accepted (`snarkjs wtns check`); a tampered witness
// is rejected. Skips where the npm packages are absent (scripts/setup.sh runs npm ci).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "circuit/porep.hpp"
#include "circuit/r1cs.hpp"
#include "io/r1cs.hpp"
#include "io/wtns.hpp"
#include "test_util.hpp"

using namespace splitprove;
using E = ec::Bls12_381;
using Fr = E::Fr;

namespace {

void write(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  ASSERT_TRUE(f.good()) << path;
}

// Exit status of `snarkjs args` (output discarded).
int snarkjs(const std::string& bin, const std::string& args) {
  const int st = std::system((bin + " " + args + " > /dev/null 2>&1").c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

}  // namespace

TEST(CircuitSnarkjs, ReadsOurR1csAndChecksOurWitness) {
  const std::string bin = splitprove::testing::source_dir() + "/node_modules/.bin/snarkjs";
  if (access(bin.c_str(), X_OK) != 0 || std::system("command -v node > /dev/null 2>&1") != 0)
    GTEST_SKIP() << "snarkjs is not installed (scripts/setup.sh runs npm ci)";
  char dir_template[] = "/tmp/circuit-snarkjs-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;

  auto src = circuit::porep_source_for_log2<Fr>(11, 4);
  const auto& cs = src->constraint_system();
  write(dir + "/porep.r1cs", io::encode_r1cs<E>(circuit::to_r1cs<E>(cs)));
  const auto s = src->shape();
  std::vector<Fr> z(s.n_vars), a(s.domain_size), b(s.domain_size);
  src->synthesize(2, z, a, b, {});
  write(dir + "/good.wtns", io::encode_wtns<E>(z));
  auto bad = z;
  bad[bad.size() / 2] += Fr::one();
  write(dir + "/bad.wtns", io::encode_wtns<E>(bad));

  EXPECT_EQ(snarkjs(bin, "r1cs info " + dir + "/porep.r1cs"), 0);
  EXPECT_EQ(snarkjs(bin, "wtns check " + dir + "/porep.r1cs " + dir + "/good.wtns"), 0);
  EXPECT_NE(snarkjs(bin, "wtns check " + dir + "/porep.r1cs " + dir + "/bad.wtns"), 0);
  for (const char* f : {"porep.r1cs", "good.wtns", "bad.wtns"}) std::remove((dir + "/" + f).c_str());
  rmdir(dir.c_str());
}
