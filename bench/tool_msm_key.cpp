// The MSMs of a BN254 proof over a real key and witness, with and without the GLV split,
// interleaved: process CPU time (all pool threads) and wall time per MSM, medians over REPS.
// Separates the split's effect on the key's own MSMs from the rest of the proof.
//   tool_msm_key circuit.zkey witness.wtns [reps [window_bits]]   (a BN254 key: snarkjs "bn128";
//   window_bits 0 = the cost model's choice)
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>

#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "msm/msm.hpp"
#include "splitprove/error.hpp"
#include "zk/groth16.hpp"
#include "zk/stages.hpp"

using namespace splitprove;
using E = ec::Bn254;

namespace {
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}
double wall_now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}
}  // namespace

int main(int argc, char** argv) try {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s circuit.zkey witness.wtns [reps [window_bits]]\n", argv[0]);
    return 2;
  }
  const int reps = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  const unsigned window_bits = argc > 4 ? unsigned(std::atoi(argv[4])) : 0;
  io::ZkeyReadOptions ro;
  ro.check_subgroup = false;
  const auto pk = io::read_zkey<E>(argv[1], ro);
  const auto w = io::read_wtns<E>(argv[2]);
  const std::span<const E::Fr> z(w.values);
  const auto g2 = zk::G2Bases<E>::of(pk);
  std::vector<E::Fr> g2_scalars(g2.size());
  zk::compact_g2_scalars<E>(g2, z, g2_scalars);
  struct Job {
    std::string name;
    std::function<void(const msm::Options&)> run;
  };
  const std::vector<Job> jobs = {
      {"G1 A", [&](const msm::Options& o) { (void)msm::msm<E::G1>(pk.a, z, o); }},
      {"G1 B1", [&](const msm::Options& o) { (void)msm::msm<E::G1>(pk.b1, z, o); }},
      {"G1 C (L)",
       [&](const msm::Options& o) {
         (void)msm::msm<E::G1>(pk.c, z.subspan(std::size_t(pk.n_public) + 1), o);
       }},
      {"G2 B2", [&](const msm::Options& o) { (void)msm::msm<E::G2>(g2.bases, g2_scalars, o); }},
  };
  std::printf("| MSM | terms | split | CPU ms (median) | wall ms (median) |\n");
  std::printf("|---|---:|---|---:|---:|\n");
  for (const auto& job : jobs) {
    std::vector<double> cpu[2], wall[2];
    for (int r = 0; r < reps; ++r)
      for (int glv = 1; glv >= 0; --glv) {
        msm::Options o;
        o.glv = glv;
        o.window_bits = window_bits;
        const double c0 = cpu_now(), w0 = wall_now();
        job.run(o);
        cpu[glv].push_back(1e3 * (cpu_now() - c0));
        wall[glv].push_back(1e3 * (wall_now() - w0));
      }
    const std::size_t terms = job.name == "G2 B2" ? g2.size()
                              : job.name == "G1 C (L)" ? pk.c.size()
                                                       : pk.a.size();
    for (int glv = 1; glv >= 0; --glv)
      std::printf("| %s | %zu | %s | %.1f | %.1f |\n", job.name.c_str(), terms, glv ? "on" : "off",
                  median(cpu[glv]), median(wall[glv]));
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "tool_msm_key: %s\n", e.what());
  return 1;
}
