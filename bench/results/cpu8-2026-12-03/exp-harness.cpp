// Experiment: msm_multi chunk sizes against three separate msm calls on the BN254 2^16 key.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <functional>
#include <string>
#include <vector>
#include "io/wtns.hpp"
#include "io/zkey.hpp"
#include "msm/msm.hpp"
#include "zk/groth16.hpp"
#include "zk/stages.hpp"
using namespace splitprove;
using E = zk::Bn254;
static double cpu_now() { timespec ts{}; clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); return ts.tv_sec + 1e-9 * ts.tv_nsec; }
int main(int argc, char** argv) {
  io::ZkeyReadOptions ro; ro.check_subgroup = false;
  const auto pk = io::read_zkey<E>(argv[1], ro);
  const auto w = io::read_wtns<E>(argv[2]);
  const std::span<const E::Fr> z(w.values);
  const int reps = std::atoi(argv[3]);
  std::vector<size_t> chunks;
  for (int i = 4; i < argc; ++i) chunks.push_back(std::atoi(argv[i]));
  const std::span<const E::G1::Affine> b[3] = {pk.a, pk.b1, pk.c};
  std::vector<std::pair<std::string, std::function<void()>>> jobs;
  jobs.push_back({"separate", [&] {
    (void)msm::msm<E::G1>(pk.a, z); (void)msm::msm<E::G1>(pk.b1, z);
    (void)msm::msm<E::G1>(pk.c, z.subspan(pk.n_public + 1)); }});
  for (size_t c : chunks)
    jobs.push_back({"multi chunk " + std::to_string(c), [&, c] { msm::Options o; o.chunk = c; (void)msm::msm_multi<E::G1>(b, z, o); }});
  std::vector<std::vector<double>> t(jobs.size());
  for (int r = 0; r < reps; ++r)
    for (size_t j = 0; j < jobs.size(); ++j) { double c0 = cpu_now(); jobs[j].second(); t[j].push_back(1e3 * (cpu_now() - c0)); }
  for (size_t j = 0; j < jobs.size(); ++j) { auto v = t[j]; std::sort(v.begin(), v.end()); std::printf("%-20s CPU ms median %.1f  min %.1f\n", jobs[j].first.c_str(), v[v.size()/2], v[0]); }
}
